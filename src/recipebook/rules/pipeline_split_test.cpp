// stage_split / accounted_split: the splits the planner proposes when PP x VP does not divide the
// layers, checked against Megatron-Core's own conditions (transformer_config.py __post_init__).
#include "recipebook/rules/pipeline_split.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace rb {
namespace {

// Megatron-Core transformer_config.py, account_for_embedding/loss_in_pipeline_split with VP: the
// layers plus the accounted ones divide by PP, and each rank's share by VP.
bool megatron_accepts_accounting(int layers, int pp, int vp, const StageSplit& s) {
  const int total = layers + (s.account_for_embedding ? 1 : 0) + (s.account_for_loss ? 1 : 0);
  return total % pp == 0 && (total / pp) % vp == 0;
}

TEST(StageSplit, AccountsForEmbeddingAndLossWhenNoEndCountsFit) {
  // Qwen3-235B-A22B, 94 layers on PP 8 x VP 4: no first/last counts (every stage would need a
  // multiple of 4 layers, and 94 is not one); Megatron-Bridge's recipe sets both accounting switches,
  // 96 / 32 = 3 layers per virtual stage, the first and last two.
  const StageSplit q = stage_split(94, 8, 4);
  EXPECT_EQ(q, (StageSplit{0, 0, true, true}));
  EXPECT_TRUE(megatron_accepts_accounting(94, 8, 4, q));
  // 61 layers on PP 2 x VP 31: 62 / 62, the loss alone.
  EXPECT_EQ(stage_split(61, 2, 31), (StageSplit{0, 0, false, true}));
  // Nothing fits: 61 layers on PP 4 x VP 4 (Kimi-K2's GB300 pipeline needs an explicit layout).
  EXPECT_FALSE(stage_split(61, 4, 4).any());
  // First/last counts still come first where they exist: DeepSeek-V3 on PP 4 is 14 + 2 x 16 + 15.
  EXPECT_EQ(stage_split(61, 4, 1), (StageSplit{14, 15, false, false}));
  // Uniform stays uniform; PP 1 has nothing to split.
  EXPECT_FALSE(stage_split(96, 8, 4).any());
  EXPECT_FALSE(accounted_split(94, 1, 1).any());
}

TEST(StageSplit, AppliedAndReadBackAndShown) {
  Layout l;
  l.pp = 8;
  l.vp = 4;
  l.first_stage_layers = 3;  // a stale split is replaced whole
  apply_stage_split(l, stage_split(94, 8, 4));
  EXPECT_EQ(l.first_stage_layers, 0);
  EXPECT_TRUE(l.account_for_embedding);
  EXPECT_TRUE(l.account_for_loss);
  EXPECT_EQ(stage_split_of(l), (StageSplit{0, 0, true, true}));
  EXPECT_EQ(stage_split_str(94, l), "E+L as layers");
  l.pp = 4;
  l.vp = 1;
  apply_stage_split(l, stage_split(61, 4, 1));
  EXPECT_EQ(stage_split_str(61, l), "14+2x16+15");
  EXPECT_EQ(stage_split_words(l), "first 14 and last 15 stage layers");
  apply_stage_split(l, {});
  EXPECT_EQ(stage_split_str(61, l), "even");
}

// Every split proposed is one Megatron-Core accepts: first/last counts that divide by VP with the
// middle stages even, or accounting that PP x VP divides; never both.
RC_GTEST_PROP(StageSplit, EveryProposedSplitIsOneMegatronAccepts, ()) {
  const int layers = *rc::gen::inRange(1, 130);
  const int pp = *rc::gen::inRange(2, 40);
  const int vp = *rc::gen::inRange(1, 9);
  const StageSplit s = stage_split(layers, pp, vp);
  const bool ends = s.first > 0 || s.last > 0;
  const bool accounting = s.account_for_embedding || s.account_for_loss;
  RC_ASSERT(!(ends && accounting));
  if (accounting) {
    RC_ASSERT(megatron_accepts_accounting(layers, pp, vp, s));
    RC_ASSERT(s.account_for_loss);  // the loss is lightened first
  }
  // Where accounting fits and the uniform split does not, a split is always proposed.
  const bool uniform = layers % pp == 0 && (layers / pp) % vp == 0;
  if (!uniform && accounted_split(layers, pp, vp).any()) RC_ASSERT(s.any());
}

}  // namespace
}  // namespace rb
