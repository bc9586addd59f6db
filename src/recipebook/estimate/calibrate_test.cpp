#include "recipebook/estimate/calibrate.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "recipebook/estimate/estimate.hpp"
#include "recipebook/estimate/test_hardware.hpp"
#include "recipebook/estimate/test_models.hpp"

namespace rb {
namespace {

struct Synthetic {
  std::vector<PreparedModel> models;
  std::vector<CalibrationPoint> points;
};

// Points whose "measurement" is the estimator itself with known efficiencies: the fit must find them.
Synthetic synthetic(const Hardware& truth, const Hardware& start) {
  Synthetic s;
  s.models = {prepare(test::llama3_70b()), prepare(test::qwen3_30b_a3b()), prepare(test::deepseek_v3())};
  auto add = [&](size_t mi, Layout l, int64_t seq, int64_t gbs) {
    CalibrationPoint p;
    p.model = &s.models[mi];
    p.hardware = start;
    p.work.seq = seq;
    p.work.gbs = gbs;
    p.cluster.gpus = l.world();
    p.layout = l;
    const Estimate e = estimate(*p.model, truth, p.work, p.cluster, l);
    EXPECT_TRUE(e.valid);
    p.measured_tokens_per_s_per_gpu = e.tokens_per_s_per_gpu;
    s.points.push_back(p);
  };
  Layout a;
  a.tp = 4;
  a.sp = true;
  a.pp = 4;
  a.vp = 5;
  a.dp = 4;
  add(0, a, 8192, 256);
  a.tp = 8;
  a.pp = 2;
  a.vp = 1;
  add(0, a, 4096, 128);
  Layout b;
  b.ep = 8;
  b.dp = 16;
  b.mbs = 2;
  add(1, b, 4096, 512);
  b.ep = 16;
  add(1, b, 4096, 512);
  Layout c;
  c.pp = 8;
  c.ep = 32;
  c.dp = 32;
  c.recompute = Recompute::kSelective;
  c.recompute_modules = kRcMlaUpProj;
  add(2, c, 4096, 2048);
  c.ep = 64;
  c.dp = 64;
  add(2, c, 4096, 2048);
  return s;
}

// No pull towards the defaults or the GPU's pair: a noiseless synthetic fit must land on the truth.
CalibrationOptions without_priors() {
  CalibrationOptions opt;
  opt.prior_points = 0;
  opt.group_prior_points = 0;
  return opt;
}

TEST(Calibrate, RecoversKnownEfficiencies) {
  Hardware truth = test::h100();
  truth.efficiency[0].gemm = 0.42;
  truth.efficiency[0].nvlink = 0.5;
  truth.efficiency[0].scaleout = 0.5 * 0.6 / 0.7;  // same ratio as the defaults
  const Synthetic s = synthetic(truth, test::h100());
  const CalibrationResult r = calibrate(s.points, without_priors());
  ASSERT_EQ(r.fits.size(), 1u);
  EXPECT_EQ(r.points, 6);
  EXPECT_GT(r.mape_before, 0.05);
  EXPECT_LT(r.mape_after, 0.01);
  EXPECT_NEAR(r.fits[0].efficiency.gemm, 0.42, 0.01);
  EXPECT_NEAR(r.fits[0].efficiency.nvlink, 0.5, 0.05);
}

// Scale-out at its full line rate while NVLink is too: the common communication factor must reach
// past the point where the larger default (NVLink) hits 1, or scale-out stays at 0.6 / 0.7 of it.
TEST(Calibrate, EachLinkCanReachItsBound) {
  Hardware truth = test::h100();
  truth.efficiency[0].gemm = 0.5;
  truth.efficiency[0].nvlink = 1.0;
  truth.efficiency[0].scaleout = 1.0;
  const Synthetic s = synthetic(truth, test::h100());
  const CalibrationResult r = calibrate(s.points, without_priors());
  ASSERT_EQ(r.fits.size(), 1u);
  EXPECT_EQ(r.fits[0].efficiency.nvlink, 1.0);
  EXPECT_GT(r.fits[0].efficiency.scaleout, 0.95);
  EXPECT_LE(r.fits[0].efficiency.scaleout, 1.0);
  EXPECT_LT(r.mape_after, 0.01);
}

// A GPU whose published GEMM figures reach at most 0.6 of peak (a curve of asymptote 0.6) cannot be
// fitted above it, even where its end-to-end rows alone would say 0.8 (before the microbenchmark
// bounds the fit reached 0.8).
TEST(Calibrate, GemmStaysBelowItsMicrobenchmarkAsymptote) {
  Hardware truth = test::h100();
  truth.efficiency[0].gemm = 0.8;
  Hardware start = test::h100();
  for (double n : {256.0, 1024.0, 4096.0, 8192.0}) {
    GemmFigure f;
    f.m = f.k = 8192;
    f.n = n;
    f.flops_per_s = start.bf16_flops_per_s * 0.6 * n / (n + 200.0);
    start.microbenchmarks.gemm.push_back(f);
  }
  const Synthetic s = synthetic(truth, start);
  const CalibrationResult bounded = calibrate(s.points, without_priors());
  ASSERT_EQ(bounded.fits.size(), 1u);
  EXPECT_LE(bounded.fits[0].efficiency.gemm, 0.6 + 1e-3);
  EXPECT_GT(bounded.fits[0].efficiency.gemm, 0.59);
  CalibrationOptions free = without_priors();
  free.microbench_bounds = false;
  EXPECT_NEAR(calibrate(s.points, free).fits[0].efficiency.gemm, 0.8, 0.02);
}

// A precision measured once borrows its GPU's fit: the prior on the (GPU, precision) pair weighs as
// much as five points, so one point run at GEMM efficiency 0.8, against the GPU's 0.5, moves it
// only a little.
TEST(Calibrate, AOnePointPrecisionStaysNearItsGpu) {
  Hardware truth = test::h100();
  truth.efficiency[0].gemm = 0.5;
  const size_t fp8 = static_cast<size_t>(Precision::kFp8Cs);
  truth.efficiency[fp8] = truth.efficiency[0];
  truth.efficiency[fp8].gemm = 0.8;
  Synthetic s = synthetic(truth, test::h100());
  CalibrationPoint one = s.points[0];
  one.layout.precision = Precision::kFp8Cs;
  const Estimate e = estimate(*one.model, truth, one.work, one.cluster, one.layout);
  ASSERT_TRUE(e.valid);
  one.measured_tokens_per_s_per_gpu = e.tokens_per_s_per_gpu;
  s.points.push_back(one);
  const CalibrationResult r = calibrate(s.points);
  ASSERT_EQ(r.fits.size(), 2u);
  for (const FittedEfficiency& f : r.fits) {
    if (f.precision == Precision::kBf16) {
      EXPECT_NEAR(f.efficiency.gemm, 0.5, 0.05);
    } else {
      EXPECT_EQ(f.precision, Precision::kFp8Cs);
      EXPECT_LT(f.efficiency.gemm, 0.6) << "one point set its group";
    }
  }
}

TEST(Calibrate, IsDeterministic) {
  Hardware truth = test::h100();
  truth.efficiency[0].gemm = 0.5;
  const Synthetic s = synthetic(truth, test::h100());
  const CalibrationResult a = calibrate(s.points);
  const CalibrationResult b = calibrate(s.points);
  ASSERT_EQ(a.fits.size(), b.fits.size());
  EXPECT_EQ(a.fits[0].efficiency.gemm, b.fits[0].efficiency.gemm);
  EXPECT_EQ(a.fits[0].efficiency.nvlink, b.fits[0].efficiency.nvlink);
  EXPECT_EQ(a.mape_after, b.mape_after);
}

// One row from very different software (4x slower) must not drag the fit: the loss is soft-L1.
TEST(Calibrate, OneOutlierDoesNotSetTheFit) {
  Hardware truth = test::h100();
  truth.efficiency[0].gemm = 0.5;
  Synthetic s = synthetic(truth, test::h100());
  s.points[2].measured_tokens_per_s_per_gpu /= 4;
  const CalibrationResult r = calibrate(s.points);
  EXPECT_NEAR(r.fits[0].efficiency.gemm, 0.5, 0.08);
}

TEST(Calibrate, ApplyBorrowsWithinThePrecisionClass) {
  CalibrationResult r;
  FittedEfficiency f;
  f.gpu = "h100";
  f.precision = Precision::kFp8Cs;
  f.efficiency.gemm = 0.33;
  f.efficiency.nvlink = 0.4;
  f.points = 5;
  r.fits.push_back(f);
  FittedEfficiency g = f;
  g.precision = Precision::kBf16;
  g.efficiency.gemm = 0.55;
  r.fits.push_back(g);
  Hardware hw = test::h100();
  EXPECT_TRUE(apply_calibration(r, hw));
  EXPECT_EQ(hw.eff(Precision::kFp8Cs).gemm, 0.33);
  EXPECT_EQ(hw.eff(Precision::kMxfp8).gemm, 0.33);  // same class (FP8)
  EXPECT_EQ(hw.eff(Precision::kBf16).gemm, 0.55);
  EXPECT_EQ(hw.eff(Precision::kNvfp4).gemm, 0.33);  // no FP4 fit: the first fit of this GPU
  Hardware other = test::b200();
  EXPECT_FALSE(apply_calibration(r, other));
  EXPECT_EQ(other.eff(Precision::kBf16).gemm, Efficiency{}.gemm);
}

// A precision that borrows another's fit keeps within its own GEMM bound (the asymptote of its
// published figures): B200-class NVFP4 kernels reach a smaller fraction of the FP4 peak than BF16
// kernels of theirs. A fit of its own stays as fitted; a precision without figures borrows as is.
TEST(Calibrate, ABorrowedGemmStaysWithinThePrecisionsBound) {
  Hardware hw = test::b200();
  for (double m : {256.0, 1024.0, 4096.0}) {
    GemmFigure f;
    f.precision = Precision::kNvfp4;
    f.m = m;
    f.n = 6144;
    f.k = 4096;
    f.flops_per_s = hw.fp4_flops_per_s * 0.5 * m / (m + 600);
    hw.microbenchmarks.gemm.push_back(f);
  }
  CalibrationResult r;
  FittedEfficiency f;
  f.gpu = "b200";
  f.precision = Precision::kBf16;
  f.efficiency.gemm = 0.7;
  f.points = 5;
  r.fits.push_back(f);
  EXPECT_TRUE(apply_calibration(r, hw));
  EXPECT_EQ(hw.eff(Precision::kBf16).gemm, 0.7);
  EXPECT_EQ(hw.eff(Precision::kMxfp8).gemm, 0.7);  // no MXFP8 figures: borrowed as is
  EXPECT_NEAR(hw.eff(Precision::kNvfp4).gemm, 0.5, 0.01);
}

}  // namespace
}  // namespace rb
