#include "recipebook/estimate/calibrate_cluster.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "recipebook/estimate/estimate.hpp"
#include "recipebook/estimate/test_hardware.hpp"
#include "recipebook/estimate/test_models.hpp"

namespace rb {
namespace {

bool fitted(const ClusterFit& f, ClusterParam p) {
  return std::find(f.fitted.begin(), f.fitted.end(), p) != f.fitted.end();
}
ClusterHeld held(const ClusterFit& f, ClusterParam p) { return f.held[static_cast<size_t>(p)]; }
double factor(const ClusterFit& f, ClusterParam p) { return f.factor[static_cast<size_t>(p)]; }

struct Runs {
  PreparedModel model = prepare(test::llama3_8b());
  std::vector<CalibrationPoint> points;
  // A run "measured" as the estimator predicts it on `truth`, starting from `start`.
  void add(const Hardware& truth, const Hardware& start, int tp, int pp, int dp, int mbs = 1, int64_t gbs = 128) {
    CalibrationPoint p;
    p.model = &model;
    p.hardware = start;
    p.work.seq = 8192;
    p.work.gbs = gbs;
    p.layout.tp = tp;
    p.layout.sp = tp > 1;
    p.layout.pp = pp;
    p.layout.dp = dp;
    p.layout.mbs = mbs;
    p.cluster.gpus = p.layout.world();
    const Estimate e = estimate(model, truth, p.work, p.cluster, p.layout);
    ASSERT_TRUE(e.valid);
    p.measured_tokens_per_s_per_gpu = e.tokens_per_s_per_gpu;
    points.push_back(p);
  }
};

TEST(CalibrateCluster, OneRunMovesOnlyTheFieldItsTimeDependsOnMost) {
  Hardware truth = test::h100();
  truth.efficiency[0].gemm *= 0.8;  // the user's cluster runs GEMMs 20% slower
  Runs r;
  r.add(truth, test::h100(), 1, 1, 8);
  ClusterFitOptions o;
  o.prior_points = 0;
  const ClusterFit f = fit_cluster(r.points, o);
  ASSERT_EQ(f.fitted.size(), 1u);
  EXPECT_EQ(f.fitted[0], ClusterParam::kGemm);
  EXPECT_EQ(f.runs, 1);
  EXPECT_GT(f.mape_before, 0.05);
  EXPECT_LT(f.mape_after, 0.002);
  EXPECT_NEAR(factor(f, ClusterParam::kGemm), 0.8, 0.02);
  // One node: no run crosses the scale-out network, so the network is not fitted.
  EXPECT_EQ(held(f, ClusterParam::kScaleout), ClusterHeld::kNoRunDependsOnIt);
  for (int p = 1; p < kNumClusterParams; ++p) EXPECT_EQ(f.factor[static_cast<size_t>(p)], 1.0);
}

TEST(CalibrateCluster, RepeatsOfOneLayoutCannotSeparateASecondField) {
  Hardware truth = test::h100();
  truth.efficiency[0].gemm *= 0.9;
  Runs r;
  for (int i = 0; i < 4; ++i) r.add(truth, test::h100(), 2, 1, 8);  // four runs: two fields allowed
  const ClusterFit f = fit_cluster(r.points);
  ASSERT_EQ(f.fitted.size(), 1u);
  for (int p = 0; p < kNumClusterParams; ++p) {
    const ClusterHeld h = f.held[static_cast<size_t>(p)];
    EXPECT_TRUE(h == ClusterHeld::kFitted || h == ClusterHeld::kNotSeparable || h == ClusterHeld::kNoRunDependsOnIt)
        << cluster_param_name(static_cast<ClusterParam>(p));
  }
}

TEST(CalibrateCluster, ManyRunsAcrossNodesFitTheNetworkToo) {
  Hardware truth = test::h100();
  truth.efficiency[0].gemm *= 0.85;
  truth.efficiency[0].scaleout *= 0.5;  // a slower network than the catalog's
  Runs r;
  const Hardware start = test::h100();
  r.add(truth, start, 1, 1, 64, 1, 64);
  r.add(truth, start, 2, 1, 32, 1, 64);
  r.add(truth, start, 4, 1, 16, 1, 64);
  r.add(truth, start, 1, 2, 32, 1, 64);
  r.add(truth, start, 8, 1, 8, 1, 64);
  r.add(truth, start, 1, 1, 8, 1, 64);
  ClusterFitOptions o;
  o.prior_points = 0;
  const ClusterFit f = fit_cluster(r.points, o);
  EXPECT_TRUE(fitted(f, ClusterParam::kGemm));
  EXPECT_TRUE(fitted(f, ClusterParam::kScaleout));
  EXPECT_LE(f.fitted.size(), 3u);  // six runs: at most three fields
  EXPECT_NEAR(factor(f, ClusterParam::kScaleout), 0.5, 0.02);
  EXPECT_GT(f.mape_before, 0.05);
  EXPECT_LT(f.mape_after, 0.01);
}

TEST(CalibrateCluster, FewerRunsFitFewerFields) {
  Hardware truth = test::h100();
  truth.efficiency[0].gemm *= 0.85;
  truth.efficiency[0].scaleout *= 0.5;
  Runs r;
  const Hardware start = test::h100();
  r.add(truth, start, 1, 1, 64);
  r.add(truth, start, 8, 1, 8);
  const ClusterFit f = fit_cluster(r.points);
  EXPECT_EQ(f.fitted.size(), 1u);  // two runs: one field
  EXPECT_LT(f.mape_after, f.mape_before);
}

TEST(CalibrateCluster, AppliesTheFactorsToEveryPrecisionWithinTheBounds) {
  ClusterFit f;
  f.factor[static_cast<size_t>(ClusterParam::kGemm)] = 0.5;
  f.factor[static_cast<size_t>(ClusterParam::kNvlink)] = 3.0;
  Hardware hw = test::h100();
  hw.efficiency[0].gemm = 0.7;
  hw.efficiency[1].gemm = 0.6;
  const double attention = hw.efficiency[1].attention;
  apply_cluster_fit(f, hw);
  EXPECT_DOUBLE_EQ(hw.efficiency[0].gemm, 0.35);
  EXPECT_DOUBLE_EQ(hw.efficiency[1].gemm, 0.30);
  EXPECT_DOUBLE_EQ(hw.efficiency[0].nvlink, 1.0);  // clamped to the bound
  EXPECT_DOUBLE_EQ(hw.efficiency[1].attention, attention);
}

TEST(CalibrateCluster, NoRunsFitNothing) {
  const ClusterFit f = fit_cluster({});
  EXPECT_EQ(f.runs, 0);
  EXPECT_TRUE(f.fitted.empty());
}

}  // namespace
}  // namespace rb
