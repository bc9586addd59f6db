#include "recipebook/estimate/vision.hpp"

#include <algorithm>

#include <gtest/gtest.h>

#include "recipebook/estimate/estimate.hpp"
#include "recipebook/estimate/host.hpp"
#include "recipebook/estimate/params.hpp"
#include "recipebook/estimate/test_hardware.hpp"
#include "recipebook/estimate/test_models.hpp"

namespace rb {
namespace {

// A small ViT to compute by hand: 2 layers, hidden 64, ffn 256, 4 heads, patch 4, temporal patch 2,
// spatial merge 2, output 128. A 64 x 64 budget is 8 x 8 merge units of 2 x 2 patches: 256 patches
// per image; micro batch 2, one image per row: 512 patches, 128 merged tokens.
constexpr VisionDims kSmall{2, 64, 256, 4, 4, 2, 2, 128};
constexpr ImageBudget kSmallBudget{64 * 64, 1, 0};

double gemm(double m, double n, double k) { return 2.0 * m * n * k; }

TEST(Vision, PatchesPerImageFollowSmartResize) {
  const VisionDims q = test::qwen35_vision(2048);
  // Seed 000: max_pixels 200,704 = 448 x 448, 28 x 28 patches; 3,136 at MBS 4, under the 3,712 cap.
  EXPECT_EQ(vision_patches_per_image(q, 200704), 784);
  EXPECT_EQ(4 * vision_patches_per_image(q, 200704), 3136);
  // Sides are multiples of patch x merge = 32: 238,000 pixels hold 232 merge units, not 929 patches.
  EXPECT_EQ(vision_patches_per_image(q, 238000), 928);
  EXPECT_EQ(vision_patches_per_image(q, 0), 0);
  EXPECT_EQ(vision_patches_per_image(kSmall, 64 * 64), 256);
}

TEST(Vision, WorkWithoutBudgetOrTowerIsNone) {
  EXPECT_FALSE(vision_work(kSmall, ImageBudget{}, 2).active());
  EXPECT_FALSE(vision_work(VisionDims{}, kSmallBudget, 2).active());
}

TEST(Vision, ForwardFlopsOfSmallVitByHand) {
  const VisionWork w = vision_work(kSmall, kSmallBudget, 2);
  ASSERT_EQ(w.patches, 512);
  const double p = 512, h = 64, f = 256;
  const double embed = gemm(p, 3 * 2 * 4 * 4, h);  // conv3d over 3 x 2 x 4 x 4 pixels per patch
  const double layer = gemm(p, h, 3 * h) + gemm(p, h, h) + gemm(p, h, f) + gemm(p, f, h);
  const double merger = gemm(128, 4 * h, 4 * h) + gemm(128, 4 * h, 128);
  const VisionFlops got = vision_forward_flops(kSmall, w);
  EXPECT_DOUBLE_EQ(got.gemm, embed + 2 * layer + merger);
  // Per image and layer QK^T and AV over 256 patches; two images, two layers.
  EXPECT_DOUBLE_EQ(got.core_attn, 2 * 2 * (gemm(256, h, 256) + gemm(256, 256, h)));
}

TEST(Vision, GraphPadsTheMicroBatchToOneMaskedSequence) {
  const VisionWork w = vision_work(kSmall, ImageBudget{64 * 64, 1, 1024}, 2);
  EXPECT_EQ(w.budget_patches, 512);
  EXPECT_EQ(w.patches, 1024);
  EXPECT_EQ(w.attn_sq, 1024.0 * 1024.0);
  EXPECT_GT(vision_forward_flops(kSmall, w).total(), vision_forward_flops(kSmall, vision_work(kSmall, kSmallBudget, 2)).total());
}

// Megatron-Bridge's vit_flops_from_patch_stats on the data's patches, padding not counted.
TEST(Vision, ModelFlopsAreBridgesCount) {
  const double h = 64, f = 256, mh = 4 * h;
  const double want = 3 * (2 * ((8 * h * h + 4 * h * f) * 512 + 4 * h * (2 * 256.0 * 256.0)) +
                           128 * (2 * mh * mh + 2 * mh * 128));
  EXPECT_DOUBLE_EQ(vision_model_flops(kSmall, vision_work(kSmall, kSmallBudget, 2)), want);
  EXPECT_DOUBLE_EQ(vision_model_flops(kSmall, vision_work(kSmall, ImageBudget{64 * 64, 1, 1024}, 2)), want);
}

TEST(Vision, ActivationBytesOfSmallVitByHand) {
  const VisionWork w = vision_work(kSmall, kSmallBudget, 2);
  Layout l;
  // Per patch and layer: LayerNorm inputs and outputs 4 x 2 h, Q K V and the core output 4 x 2 h,
  // fc1 and GELU outputs 2 x 2 f; the pixels (2 x 96 bytes) and the merger's 4 x 2 h once.
  const double layer = 8 * 64 + 8 * 64 + 4 * 256;
  const double edges = 2 * 96 + 8 * 64;
  EXPECT_DOUBLE_EQ(vision_activation_bytes(kSmall, w, l), 512 * (2 * layer + edges));
  l.tp = 2;  // the sharded parts halve, the LayerNorm tensors stay whole (no SP in the tower)
  EXPECT_DOUBLE_EQ(vision_activation_bytes(kSmall, w, l), 512 * (2 * (8 * 64 + (8 * 64 + 4 * 256) / 2.0) + 2 * 96 + 4 * 64 + 2 * 64));
  l.tp = 1;
  l.recompute = Recompute::kFull;  // uniform, 1 layer: two layer inputs kept, one layer rebuilt
  EXPECT_DOUBLE_EQ(vision_activation_bytes(kSmall, w, l), 512 * (2 * 2 * 64 + layer + edges));
}

TEST(Vision, ParamCountSplitsShardedFromReplicated) {
  const VisionParamCounts c = vision_param_counts(kSmall);
  const int64_t h = 64, f = 256, mh = 4 * h;
  const int64_t sharded = 2 * (h * 3 * h + 3 * h + h * h + h * f + f + f * h) + mh * mh + mh + mh * 128;
  const int64_t replicated = (3 * 2 * 4 * 4 * h + h) + 2 * (6 * h) + 2 * h + 128;
  EXPECT_EQ(c.tp_sharded, sharded);
  EXPECT_EQ(c.total, sharded + replicated);
  EXPECT_EQ(count_params(test::qwen35_35b()).vision, vision_param_counts(test::qwen35_vision(2048)).total);
  Layout l;
  l.tp = 2;
  EXPECT_DOUBLE_EQ(vision_params_on_rank(kSmall, l), sharded / 2.0 + static_cast<double>(replicated));
}

Workload seed000_work(int64_t max_pixels) {
  Workload w;
  w.seq = 4096;
  w.gbs = 2048;
  w.image = {max_pixels, 1, 3712};
  return w;
}

// Seed 000's recipe on 8 GB300 (EP 4, MBS 4, PP 2 here to see the placement): the tower's weights,
// state and activations land on the first stage only, and its time makes that stage slower.
TEST(Vision, TowerSitsOnTheFirstStage) {
  const PreparedModel pm = prepare(test::qwen35_35b());
  const Hardware hw = test::gb300();
  Layout l;
  l.pp = 2;
  l.ep = 4;
  l.dp = 4;
  l.mbs = 4;
  Cluster c;
  c.gpus = 8;
  const std::vector<MemoryBreakdown> text = stage_memory(pm, hw, seed000_work(0), c, l);
  const std::vector<MemoryBreakdown> vlm = stage_memory(pm, hw, seed000_work(200704), c, l);
  ASSERT_EQ(text.size(), 2u);
  ASSERT_EQ(vlm.size(), 2u);
  const double params = vision_params_on_rank(test::qwen35_vision(2048), l);
  EXPECT_DOUBLE_EQ(vlm[0].params_on_rank - text[0].params_on_rank, params);
  EXPECT_DOUBLE_EQ(vlm[0].weights_bytes - text[0].weights_bytes, 2.0 * params);
  EXPECT_GT(vlm[0].activations_bytes, text[0].activations_bytes);
  EXPECT_DOUBLE_EQ(vlm[1].peak_bytes, text[1].peak_bytes);
  // 1F1B: the first of two stages holds two micro batches in flight, each padded to the 3,712-patch graph.
  const VisionWork w = vision_work(test::qwen35_vision(2048), seed000_work(200704).image, 4);
  EXPECT_NEAR(vlm[0].activations_bytes - text[0].activations_bytes,
              2.0 * vision_activation_bytes(test::qwen35_vision(2048), w, l), 1.0);

  // Here the last stage (LM head, MTP) stays the slower one: the step does not change. On one stage
  // (seed 000's PP 1, DP 8) the tower's micro batch adds to every one of the 64.
  const Estimate pp2_text = estimate(pm, hw, seed000_work(0), c, l);
  const Estimate pp2_vlm = estimate(pm, hw, seed000_work(200704), c, l);
  ASSERT_TRUE(pp2_text.valid && pp2_vlm.valid);
  EXPECT_EQ(pp2_vlm.time.bottleneck_stage, 1);
  EXPECT_DOUBLE_EQ(pp2_vlm.step_time_s, pp2_text.step_time_s);
  l.pp = 1;
  l.dp = 8;
  const Estimate e_text = estimate(pm, hw, seed000_work(0), c, l);
  const Estimate e_vlm = estimate(pm, hw, seed000_work(200704), c, l);
  ASSERT_TRUE(e_text.valid && e_vlm.valid);
  EXPECT_GT(e_vlm.time.gemm_s, e_text.time.gemm_s);
  EXPECT_GT(e_vlm.time.attention_s, e_text.time.attention_s);
  EXPECT_GT(e_vlm.step_time_s, e_text.step_time_s);
  // Bridge's count: the tower's FLOPs at the budget (3,136 patches, not the padded 3,712) per token.
  const VisionWork w1 = vision_work(test::qwen35_vision(2048), seed000_work(200704).image, 4);
  EXPECT_NEAR(e_vlm.model_flops_per_token - e_text.model_flops_per_token,
              vision_model_flops(test::qwen35_vision(2048), w1) / (4.0 * 4096), 1e-6 * e_vlm.model_flops_per_token);
}

// The tower's GEMM seconds follow the decoder's path: BF16 peak x fitted GEMM efficiency x size
// factor, and three passes.
TEST(Vision, GemmTimeUsesTheGemmEfficiency) {
  Hardware hw = test::h100();
  const VisionWork w = vision_work(kSmall, kSmallBudget, 2);
  Layout l;
  const VisionTimeModel tm;
  const double at_default = vision_time(kSmall, w, hw, l, tm, nullptr, nullptr).gemm;
  hw.efficiency[static_cast<size_t>(Precision::kBf16)].gemm /= 2.0;
  EXPECT_DOUBLE_EQ(vision_time(kSmall, w, hw, l, tm, nullptr, nullptr).gemm, 2.0 * at_default);
  // The decoder's dense size factor: the 512 patches on the token curve, the hidden size (the
  // smallest weight dimension) on the width curve. Before, the tower took the smallest of the three
  // on the width curve alone and missed the token factor.
  const double size = dense_gemm_size_factor(512, 64, hw.gemm_half_dim);
  const double rate = hw.bf16_flops_per_s * hw.eff(Precision::kBf16).gemm * size;
  EXPECT_DOUBLE_EQ(vision_time(kSmall, w, hw, l, tm, nullptr, nullptr).gemm, 3.0 * vision_forward_flops(kSmall, w).gemm / rate);
}

// The tower's host work is host.hpp's dense-layer count, under its own max(GPU, host): a small budget
// leaves the two-layer tower host-bound (its time is the host's; with the vision graph, one replay
// per layer and pass), a large one GPU-bound (no overhead). Before, a flat 60 us per layer (0.3 of it
// with the graph) was added whatever the GPU time.
TEST(Vision, TowerTakesTheHostFloorOfItsLayerCalls) {
  const Hardware hw = test::h100();
  Layout l;
  VisionTimeModel tm;
  const VisionWork small = vision_work(kSmall, kSmallBudget, 2);
  const VisionTime t = vision_time(kSmall, small, hw, l, tm, nullptr, nullptr);
  EXPECT_GT(t.overhead, 0.0);
  EXPECT_NEAR(t.total(), dense_layers_host_s(2, false, 0.0), 1e-12);
  tm.graphed = true;
  const VisionTime g = vision_time(kSmall, small, hw, l, tm, nullptr, nullptr);
  EXPECT_NEAR(g.total(), std::max(g.total() - g.overhead, dense_layers_host_s(2, true, 0.0)), 1e-12);
  EXPECT_LT(g.total(), t.total());
  const VisionWork large = vision_work(kSmall, ImageBudget{4096 * 4096, 1, 0}, 2);
  EXPECT_EQ(vision_time(kSmall, large, hw, l, VisionTimeModel{}, nullptr, nullptr).overhead, 0.0);
}

}  // namespace
}  // namespace rb
