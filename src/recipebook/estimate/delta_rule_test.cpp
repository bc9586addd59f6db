#include "recipebook/estimate/delta_rule.hpp"

#include <gtest/gtest.h>

namespace rb {
namespace {

DeltaRuleFigure figure(bool backward, double seq, int qk, int v, double time_ms) {
  DeltaRuleFigure f;
  f.backward = backward;
  f.seq = seq;
  f.qk_heads = qk;
  f.v_heads = v;
  f.head_dim = 128;
  f.time_s = time_ms * 1e-3;
  return f;
}

TEST(DeltaRule, CountsMegatronsFlopsOfTheFiguresCall) {
  // 8 v_heads head_dim^2 per token (flops.cpp: 2 x 4 nv dv^2) over the call's tokens.
  DeltaRuleFigure f = figure(false, 8192, 16, 32, 0.482);
  EXPECT_DOUBLE_EQ(delta_rule_counted_flops(f), 8.0 * 32 * 128 * 128 * 8192);
  f.sequences = 4;
  EXPECT_DOUBLE_EQ(delta_rule_counted_flops(f), 4 * 8.0 * 32 * 128 * 128 * 8192);
}

TEST(DeltaRule, EachPassTakesTheFigureNearestTheRanksShape) {
  Microbenchmarks mb;
  EXPECT_FALSE(delta_rule_rate(mb, 32, 8192, 16).known());  // no figure: the scan law
  // FLA on GB200 (FlashQLA benchmark_results_GB200.txt): value heads first, then the sequence.
  mb.delta_rule = {figure(false, 8192, 16, 32, 0.482), figure(false, 4096, 16, 32, 0.250),
                   figure(false, 8192, 16, 64, 0.761), figure(false, 8192, 8, 32, 0.473),
                   figure(true, 8192, 16, 32, 1.552),  figure(true, 32768, 16, 32, 6.171),
                   figure(true, 8192, 8, 16, 1.088)};
  const double per_token_head = 8.0 * 128 * 128;
  // 32 value heads, 8192 tokens, 16 q/k heads: its own figures.
  DeltaRuleRate r = delta_rule_rate(mb, 32, 8192, 16);
  ASSERT_TRUE(r.known());
  EXPECT_DOUBLE_EQ(r.fwd_flops_per_s, per_token_head * 32 * 8192 / 0.482e-3);
  EXPECT_DOUBLE_EQ(r.bwd_flops_per_s, per_token_head * 32 * 8192 / 1.552e-3);
  // 8 q/k heads over 32 value heads (Qwen3.5-397B at TP 2): the forward figure of that GVA shape.
  r = delta_rule_rate(mb, 32, 8192, 8);
  EXPECT_DOUBLE_EQ(r.fwd_flops_per_s, per_token_head * 32 * 8192 / 0.473e-3);
  // 4096 tokens: the forward's 4096 figure; the backward's nearest sequence is 8192, not 32768.
  r = delta_rule_rate(mb, 32, 4096, 16);
  EXPECT_DOUBLE_EQ(r.fwd_flops_per_s, per_token_head * 32 * 4096 / 0.250e-3);
  EXPECT_DOUBLE_EQ(r.bwd_flops_per_s, per_token_head * 32 * 8192 / 1.552e-3);
  // 24 value heads per rank (Qwen3.5-27B at TP 2): 32 is nearer than 16 in ratio (4/3 against 3/2).
  r = delta_rule_rate(mb, 24, 8192, 8);
  EXPECT_DOUBLE_EQ(r.bwd_flops_per_s, per_token_head * 32 * 8192 / 1.552e-3);
  // Only forward figures: the rate is not known (both passes or the law).
  Microbenchmarks fwd_only;
  fwd_only.delta_rule = {figure(false, 8192, 16, 32, 0.482)};
  EXPECT_FALSE(delta_rule_rate(fwd_only, 32, 8192, 16).known());
}

}  // namespace
}  // namespace rb
