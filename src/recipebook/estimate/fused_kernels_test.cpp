#include "recipebook/estimate/fused_kernels.hpp"

#include <gtest/gtest.h>

#include "recipebook/estimate/test_hardware.hpp"
#include "recipebook/estimate/test_models.hpp"
#include "recipebook/estimate/test_step.hpp"
#include "recipebook/estimate/time.hpp"

namespace rb {
namespace {

using test::run;

// Qwen3-30B-A3B on 8 GPUs as Bridge's GB200 MXFP8 recipe runs it: EP 8, MBS 4, seq 4096.
Layout qwen3_gb200() {
  Layout l;
  l.ep = 8;
  l.dp = 8;
  l.mbs = 4;
  l.precision = Precision::kMxfp8;
  l.dispatcher = Dispatcher::kFlexHybridep;
  return l;
}

// cudnn-frontend's GB200 SDPA figures at 4096 tokens, head dim 128, causal (catalog/hardware/gb200.yaml).
void add_attention_figures(Hardware& hw) {
  auto fig = [&](Precision p, bool bwd, double tflops) {
    AttentionFigure f;
    f.precision = p;
    f.backward = bwd;
    f.batch = 2;
    f.seq = 4096;
    f.heads = 64;
    f.kv_heads = 8;
    f.head_dim = 128;
    f.flops_per_s = tflops * 1e12;
    hw.microbenchmarks.attention.push_back(f);
  };
  fig(Precision::kBf16, false, 1408);
  fig(Precision::kBf16, true, 1148);
  fig(Precision::kFp8Cs, false, 1805);
  fig(Precision::kFp8Cs, true, 1178);
  fig(Precision::kMxfp8, false, 1685);
  fig(Precision::kMxfp8, true, 1054);
}

// TE's fused grouped MLP takes the SwiGLU pass and the MXFP8 cast of FC2's input out of the forward,
// and the dSwiGLU pass and the cast of FC1's gradient out of the backward, for every routed token copy:
// the memory-bound time drops by exactly those bytes; the GEMMs and attention do not move. Under FP8
// current scaling TE keeps the ops unfused. Fails on the old code (the switch had no term).
TEST(FusedKernels, FusedGroupedMlpTakesTheActivationAndCastPassesOut) {
  const PreparedModel pm = prepare(test::qwen3_30b_a3b());
  const Hardware hw = test::gb200();
  Layout l = qwen3_gb200();
  const TimeBreakdown off = run(pm, hw, l, 4096, 16);
  l.fused_grouped_mlp = true;
  const TimeBreakdown on = run(pm, hw, l, 4096, 16);
  const double f = 768;  // moe_intermediate_size; FC1 writes 2 f (gate and up)
  const double fwd = (2 * 2 * f + 2 * f) + (2 * f + 2 * f * (1 + 1.0 / 32));
  const double bwd = (2 * f + 2 * 2 * f + 2 * 2 * f) + (2 * 2 * f + 2 * 2 * f * (1 + 1.0 / 32));
  const double copies = 48.0 * 4 * 4096 * 8;  // MoE layers x tokens of the micro batch x top-8
  const double hbm = hw.hbm_bytes_per_s * hw.eff(Precision::kMxfp8).hbm;
  EXPECT_NEAR(off.memory_bound_s - on.memory_bound_s, 16 * copies * (fwd + bwd) / hbm, 1e-9 * off.memory_bound_s);
  EXPECT_GT(on.memory_bound_s, 0.0);
  EXPECT_DOUBLE_EQ(on.gemm_s, off.gemm_s);
  EXPECT_DOUBLE_EQ(on.attention_s, off.attention_s);

  l.precision = Precision::kFp8Cs;
  l.fused_grouped_mlp = false;
  const TimeBreakdown cs_off = run(pm, hw, l, 4096, 16);
  l.fused_grouped_mlp = true;
  EXPECT_DOUBLE_EQ(run(pm, hw, l, 4096, 16).memory_bound_s, cs_off.memory_bound_s);
}

// Under NVFP4 the fused kernels write BF16 and the casts stay separate: only the activation passes go.
TEST(FusedKernels, Nvfp4KeepsItsCasts) {
  const double f = 768;
  const FusedMlpSaving mx = fused_grouped_mlp_saving(f, true, Precision::kMxfp8);
  const FusedMlpSaving fp4 = fused_grouped_mlp_saving(f, true, Precision::kNvfp4);
  EXPECT_DOUBLE_EQ(fp4.fwd_bytes, 6 * f);
  EXPECT_DOUBLE_EQ(fp4.bwd_bytes, 10 * f);
  EXPECT_GT(mx.fwd_bytes, fp4.fwd_bytes);
  Layout l;
  l.fused_grouped_mlp = true;
  l.precision = Precision::kNvfp4;
  EXPECT_TRUE(fused_grouped_mlp_runs(l, Activation::kSwiglu));
  EXPECT_TRUE(fused_grouped_mlp_runs(l, Activation::kSquaredRelu));
  EXPECT_FALSE(fused_grouped_mlp_runs(l, Activation::kGelu));
  l.precision = Precision::kBf16;
  EXPECT_FALSE(fused_grouped_mlp_runs(l, Activation::kSwiglu));
}

// FP8 attention runs each pass at the GPU's published BF16 / FP8 throughput ratio (cuDNN's MXFP8 SDPA
// under an MXFP8 recipe: faster forward, slower backward at 4096 tokens on GB200) and adds the casts
// of Q, K, V forward and dO backward. A GPU without figures keeps BF16's attention time. Fails on the
// old code (the switch had no term).
TEST(FusedKernels, Fp8AttentionRunsAtThePublishedRatioAndPaysItsCasts) {
  const PreparedModel pm = prepare(test::qwen3_30b_a3b());
  Hardware hw = test::gb200();
  add_attention_figures(hw);
  Layout l = qwen3_gb200();
  const TimeBreakdown off = run(pm, hw, l, 4096, 16);
  l.fp8_attention = true;
  const TimeBreakdown on = run(pm, hw, l, 4096, 16);
  const double ratio = (1408.0 / 1685 + 2.5 * 1148.0 / 1054) / 3.5;
  EXPECT_NEAR(on.attention_s, off.attention_s * ratio, 1e-9 * off.attention_s);
  const double q = 32 * 128 * 2.0, kv = 2 * 4 * 128 * 2.0;  // BF16 bytes per token and layer
  const double tokens = 48.0 * 4 * 4096;
  const double hbm = hw.hbm_bytes_per_s * hw.eff(Precision::kMxfp8).hbm;
  const double cast = 1.5 + 1.0 / 64;
  EXPECT_NEAR(on.memory_bound_s - off.memory_bound_s, 16 * tokens * cast * (q + kv + q) / hbm,
              1e-9 * off.memory_bound_s);
  EXPECT_DOUBLE_EQ(on.gemm_s, off.gemm_s);

  // Per-tensor FP8 under current scaling: its own figures and an amax pass before each cast.
  const AttentionRatio cs = fp8_attention_ratio(hw.microbenchmarks, Precision::kFp8Cs, 4096, 128);
  EXPECT_DOUBLE_EQ(cs.fwd, 1408.0 / 1805);
  EXPECT_DOUBLE_EQ(cs.bwd, 1148.0 / 1178);
  EXPECT_DOUBLE_EQ(fp8_attention_quant_bytes_per_byte(Precision::kFp8Cs), 2.5);
  // The nearest sequence of the figures serves another length.
  EXPECT_DOUBLE_EQ(fp8_attention_ratio(hw.microbenchmarks, Precision::kMxfp8, 8192, 128).fwd, 1408.0 / 1685);

  const Hardware bare = test::gb200();
  const TimeBreakdown bare_off = run(pm, bare, qwen3_gb200(), 4096, 16);
  EXPECT_DOUBLE_EQ(run(pm, bare, l, 4096, 16).attention_s, bare_off.attention_s);
  // BF16 runs no FP8 attention whatever the switch says.
  l.precision = Precision::kBf16;
  const TimeBreakdown b16 = run(pm, hw, l, 4096, 16);
  l.fp8_attention = false;
  EXPECT_DOUBLE_EQ(run(pm, hw, l, 4096, 16).attention_s, b16.attention_s);
}

}  // namespace
}  // namespace rb
