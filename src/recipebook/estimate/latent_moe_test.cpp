// The latent-MoE terms of params.cpp and flops.cpp (MoeDims::latent; Nemotron 3 Super): the routed
// experts at the latent width plus the two latent projections, as Megatron-Bridge counts them
// (training/utils/theoretical_memory_utils.py and flop_utils.py moe_layer_flops, moe_latent_size).
#include <gtest/gtest.h>

#include "recipebook/estimate/flops.hpp"
#include "recipebook/estimate/params.hpp"
#include "recipebook/estimate/prepared.hpp"
#include "recipebook/rules/prepared.hpp"

namespace rb {
namespace {

// One MoE layer (no mixer), squared ReLU (two expert matrices), hidden 64, 8 experts of width 32,
// top-2, a shared expert of width 48.
Model one_moe_layer(int64_t latent) {
  Model m;
  m.hidden = 64;
  m.vocab = 100;
  m.ffn = 32;
  m.activation = Activation::kSquaredRelu;
  m.moe.experts = 8;
  m.moe.top_k = 2;
  m.moe.ffn = 32;
  m.moe.shared_experts = 1;
  m.moe.shared_ffn = 48;
  m.moe.latent = latent;
  m.layers = {LayerSpec{MixerKind::kNone, 0, FfnKind::kMoe}};
  return m;
}

TEST(LatentMoe, ExpertsAtTheLatentWidthPlusTwoProjections) {
  const LayerParams plain = layer_params(one_moe_layer(0), one_moe_layer(0).layers[0]);
  const Model m = one_moe_layer(16);
  const LayerParams lp = layer_params(m, m.layers[0]);
  // Routed: 8 x 2 x latent x moe_ffn (Bridge: ffn_projection_factor x latent x moe_ffn x experts).
  EXPECT_EQ(plain.routed, 8 * 2 * 64 * 32);
  EXPECT_EQ(lp.routed, 8 * 2 * 16 * 32);
  EXPECT_EQ(lp.routed_active, 2 * 2 * 16 * 32);
  // Router and shared expert stay at the hidden width; the projections 2 x hidden x latent join them.
  EXPECT_EQ(lp.router, plain.router);
  EXPECT_EQ(lp.shared, plain.shared + 2 * 64 * 16);
  EXPECT_EQ(lp.active, 64 * 8 + 2 * 2 * 16 * 32 + 2 * 64 * 48 + 2 * 64 * 16);
}

TEST(LatentMoe, FlopsRunTheExpertsAtTheLatentWidth) {
  // flop_utils.py: routed = 4 b s latent moe_ffn k (x 3/2 with SwiGLU) + 4 b s h latent; per token
  // forward that is 2 latent moe_ffn k x GLU factor (2 here) + 4 h latent.
  const Model m = one_moe_layer(16);
  const LayerFlops f = layer_forward_flops(m, m.layers[0], 4096, 4096, true);
  EXPECT_DOUBLE_EQ(f.expert, 2.0 * 16 * 32 * 2 * 2.0 + 4.0 * 64 * 16);
  const Model plain = one_moe_layer(0);
  EXPECT_DOUBLE_EQ(layer_forward_flops(plain, plain.layers[0], 4096, 4096, true).expert, 2.0 * 64 * 32 * 2 * 2.0);
}

// The rules' expert-state figure (RB-EP-TOO-LOW and the EP choices) counts the latent-wide experts too:
// it was four times too large for Nemotron 3 Super (hidden 4096, latent 1024).
TEST(LatentMoe, RulesCountTheLatentWideExperts) {
  const Model m = one_moe_layer(16);
  EXPECT_DOUBLE_EQ(prepare_rule_model(m, nullptr).expert_params, static_cast<double>(layer_params(m, m.layers[0]).routed));
  EXPECT_DOUBLE_EQ(prepare_rule_model(m, nullptr).expert_params, 8.0 * 2 * 16 * 32);
}

// The routed tokens travel and are kept at the latent width: the EP dispatch and the expert GEMM
// shape read expert_hidden (time.cpp), and the permuted-token activations shrink with it.
TEST(LatentMoe, TokensAreDispatchedAtTheLatentWidth) {
  const PreparedModel plain = prepare(one_moe_layer(0));
  const PreparedModel latent = prepare(one_moe_layer(16));
  EXPECT_DOUBLE_EQ(plain.expert_hidden, 64.0);
  EXPECT_DOUBLE_EQ(latent.expert_hidden, 16.0);
  EXPECT_LT(latent.prefix.back().act[kActMoe], plain.prefix.back().act[kActMoe]);
}

}  // namespace
}  // namespace rb
