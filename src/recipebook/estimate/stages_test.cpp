// The per-stage split from an explicit pipeline layout (estimate/stages.cpp plan_explicit) and the
// memory and time that follow each stage's contents.
#include "recipebook/estimate/stages.hpp"

#include <gtest/gtest.h>

#include "recipebook/estimate/memory.hpp"
#include "recipebook/estimate/test_hardware.hpp"
#include "recipebook/estimate/test_models.hpp"
#include "recipebook/estimate/time.hpp"

namespace rb {
namespace {

Layout with_layout(int pp, int vp, std::string_view text) {
  Layout l;
  l.pp = pp;
  l.vp = vp;
  l.ep = 8;
  l.dp = 8;
  auto stages = parse_pipeline_layout(text);
  EXPECT_TRUE(stages) << stages.error().message;
  if (stages) l.pipeline_layout = *stages;
  return l;
}

MemoryInputs inputs(const PreparedModel& pm, const Hardware& hw) {
  MemoryInputs in;
  in.model = &pm;
  in.hw = &hw;
  in.seq = 4096;
  in.microbatches = 16;
  return in;
}

// Kimi-K2's GB300 split, PP 4 x VP 4 over 61 layers (not expressible as first/last counts):
// every stage as written, in virtual-stage order (chunk k of rank r is stage k * PP + r).
TEST(Stages, ExplicitLayoutGivesEachVirtualStageItsLayers) {
  const Layout l = with_layout(4, 4, "Et*3|(t*4|)*14t*2L");
  const StagePlan plan = plan_stages(61, l);
  ASSERT_TRUE(plan.ok);
  EXPECT_EQ(plan.layers_of(0), 3);
  for (int c = 1; c < 15; ++c) EXPECT_EQ(plan.layers_of(c), 4) << c;
  EXPECT_EQ(plan.layers_of(15), 2);
  EXPECT_EQ(plan.embedding_stage, 0);
  EXPECT_EQ(plan.loss_stage, 15);
  // Wrong layer count, wrong stage count, or mixed with first/last counts: no plan.
  EXPECT_FALSE(plan_stages(62, l).ok);
  Layout wrong = l;
  wrong.vp = 2;
  EXPECT_FALSE(plan_stages(61, wrong).ok);
  wrong = l;
  wrong.first_stage_layers = 3;
  EXPECT_FALSE(plan_stages(61, wrong).ok);
}

// A standalone MTP stage (Bridge deepseek_v3.py _build_standalone_mtp_layout): the MTP layer's
// weights and activations move to the rank that holds it, off the one with the loss.
TEST(Stages, MemoryFollowsTheStageContents) {
  const PreparedModel pm = prepare(test::deepseek_v3());
  const Hardware hw = test::gb300();
  const Layout colocated = with_layout(4, 1, "Et*16|t*16|t*16|t*13mL");
  const Layout standalone = with_layout(4, 1, "Et*21|t*20|t*20m|L");
  const StagePlan pc = plan_stages(61, colocated);
  const StagePlan ps = plan_stages(61, standalone);
  ASSERT_TRUE(pc.ok);
  ASSERT_TRUE(ps.ok);
  EXPECT_EQ(ps.mtp_stage, 2);
  EXPECT_EQ(ps.layers_of(3), 0);  // a stage may hold no decoder layer
  const MemoryInputs in = inputs(pm, hw);
  const MemoryBreakdown loss_rank = rank_memory(in, standalone, ps, 3);
  const MemoryBreakdown mtp_rank = rank_memory(in, standalone, ps, 2);
  const MemoryBreakdown loss_rank_colocated = rank_memory(in, colocated, pc, 3);
  // The last rank holds the head only: less than with 13 layers + MTP, more than nothing.
  EXPECT_LT(loss_rank.params_on_rank, loss_rank_colocated.params_on_rank);
  EXPECT_GT(loss_rank.logits_bytes, 0.0);
  EXPECT_GT(mtp_rank.logits_bytes, 0.0);  // the MTP head's logits
  EXPECT_GT(mtp_rank.params_on_rank, rank_memory(in, standalone, ps, 1).params_on_rank);
  EXPECT_EQ(rank_memory(in, standalone, ps, 0).logits_bytes, 0.0);
}

}  // namespace
}  // namespace rb
