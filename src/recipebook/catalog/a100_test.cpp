// A100 grounded in its published microbenchmarks and its node (catalog/hardware/a100.yaml), and the
// Megatron-LM Selene rows' FLOP accounting (bench/megatron_a100.hpp; docs/model.md "Hardware").
#include <gtest/gtest.h>

#include <cmath>

#include "../../../bench/megatron_a100.hpp"
#include "recipebook/catalog/test_catalog.hpp"
#include "recipebook/estimate/microbench.hpp"

namespace rb {
namespace {

// DGX A100 (the entry's host block, alias dgx-a100, Selene): eight 200 Gb/s HDR NICs per node, one
// per GPU; NVLink 3 at 300 GB/s per GPU and direction. Main carried p4de's 50 Gbit/s per GPU.
TEST(A100, NodeIsADgxA100) {
  auto a100 = builtin().find_hardware("dgx-a100");
  ASSERT_TRUE(a100);
  EXPECT_EQ(a100->name, "a100");
  EXPECT_EQ(a100->gpus_per_node, 8);
  EXPECT_DOUBLE_EQ(a100->nvlink_bytes_per_s, 300e9);
  EXPECT_DOUBLE_EQ(a100->scaleout_bytes_per_s, 200e9 / 8);
}

// Its efficiencies have priors from published figures (GEMM curve, nccl-tests on NVLink and HDR), the
// links take them (no A100 measurement separates link speed from other costs), and the GEMM
// efficiency fitted on vTrain stays within the GEMM bound. Main had no A100 figure.
TEST(A100, EfficienciesComeFromItsMicrobenchmarks) {
  auto a100 = builtin().find_hardware("a100");
  ASSERT_TRUE(a100);
  const EfficiencyPrior pr = efficiency_prior(*a100, Precision::kBf16);
  ASSERT_TRUE(pr.gemm && pr.nvlink && pr.scaleout);
  const Efficiency& e = a100->eff(Precision::kBf16);
  EXPECT_LE(e.gemm, *pr.gemm);
  EXPECT_GT(e.gemm, 0.5 * *pr.gemm);
  EXPECT_NEAR(e.nvlink, *pr.nvlink, 1e-3);
  EXPECT_NEAR(e.scaleout, *pr.scaleout, 1e-3);
  // 232.54 GB/s ring all-reduce busBw on 300 GB/s NVLink; 192 GB/s across DGX A100 nodes of 8 x 25 GB/s.
  EXPECT_NEAR(*pr.nvlink, 232.54 / 300.0, 1e-3);
  EXPECT_NEAR(*pr.scaleout, 192.0 / 200.0, 1e-3);
}

// The paper's TFLOP/s counts forward, recomputed forward and backward (its Eq. 3); the bench compares
// tokens/s/GPU, the figure's exact inverse: 1T (l 128, h 25600, s 2048, V 51200) at 163 TFLOP/s is
// 163e12 / (96 x 128 x 25600^2 x (1 + 2048/153600 + 51200/52428800)) = 19.96 tokens/s/GPU.
TEST(A100, MegatronSeleneRowsCountTheirRecomputeFlops) {
  auto a100 = builtin().find_hardware("a100");
  ASSERT_TRUE(a100);
  const bench::MegatronRows rows =
      bench::megatron_a100_rows(builtin(), std::string(RB_SOURCE_DIR) + "/bench/data/megatron_a100_selene.csv", *a100);
  ASSERT_EQ(rows.rows.size(), 16u);
  int one_t = 0;
  for (const bench::MegatronRow& r : rows.rows) {
    const Layout& l = r.point.layout;
    EXPECT_EQ(l.tp * l.pp * l.dp, r.point.cluster.gpus) << r.model;
    EXPECT_EQ(l.recompute, Recompute::kFull) << r.model;
    EXPECT_EQ(r.point.work.gbs % (l.dp * l.mbs), 0) << r.model;
    if (r.model != "gpt-1t") continue;
    ++one_t;
    EXPECT_NEAR(r.point.measured_tokens_per_s_per_gpu, 19.96, 0.01);
    // 6 x params x tokens would count 3 passes: 19.96 tokens/s/GPU is 122 "model" TFLOP/s, 3/4 of 163.
    EXPECT_NEAR(r.point.measured_tokens_per_s_per_gpu * bench::megatron_eq3_flops_per_token(128, 25600, 2048, 51200) * 0.75 / 1e12,
                163.0 * 0.75, 0.1);
  }
  EXPECT_EQ(one_t, 1);
}

}  // namespace
}  // namespace rb
