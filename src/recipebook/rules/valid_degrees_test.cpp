// Candidate degrees for the planner: known values from models.csv, and agreement with the rules
// (a candidate never trips the rule it is derived from; a non-candidate always does).
#include <gtest/gtest.h>

#include <algorithm>

#include "recipebook/rules/rule_cases.hpp"
#include "recipebook/rules/valid_degrees.hpp"

namespace rb::testing {
namespace {

using V = std::vector<int>;

bool fires(const RuleInput& in, std::string_view id) {
  for (const auto& f : check_layout(in))
    if (f.rule_id == id) return true;
  return false;
}

TEST(ValidDegrees, Divisors) {
  EXPECT_EQ(divisors(12), (V{1, 2, 3, 4, 6, 12}));
  EXPECT_EQ(divisors(12, 5), (V{1, 2, 3, 4}));
  EXPECT_TRUE(divisors(0).empty());
  EXPECT_EQ(lcm64(4, 6), 12);
  EXPECT_EQ(gcd64(18432, 2048), 2048);
  Layout l;
  l.tp = 2;
  l.pp = 4;
  l.ep = 8;
  EXPECT_EQ(min_gpus(l), 32);  // PP 4 x lcm(2, 8)
}

TEST(ValidDegrees, TpCandidatesFollowHeadsGroupsAndGdn) {
  EXPECT_EQ(tp_candidates(prepare_rule_model(llama3_8b(), nullptr), 64), (V{1, 2, 4, 8, 16, 32}));
  // Qwen3.5-35B-A3B: 16 heads, 2 KV heads, GDN 16 key / 32 value heads, shared FFN 512.
  EXPECT_EQ(tp_candidates(prepare_rule_model(qwen35_35b_a3b(), nullptr), 64), (V{1, 2, 4, 8, 16}));
  // GLM-4.5: 96 heads and 8 KV heads exclude 3, 6 and 12.
  EXPECT_EQ(tp_candidates(prepare_rule_model(glm45(), nullptr), 32), (V{1, 2, 4, 8, 16, 24, 32}));
  // Nemotron-H-8B: 8 Mamba groups cap TP at 8.
  EXPECT_EQ(tp_candidates(prepare_rule_model(nemotron_h_8b(), nullptr), 64), (V{1, 2, 4, 8}));
  // DeepSeek-V3 (MLA, 128 heads; no query-group rule).
  EXPECT_EQ(tp_candidates(prepare_rule_model(deepseek_v3(), nullptr), 16), (V{1, 2, 4, 8, 16}));
}

TEST(ValidDegrees, OtherCandidates) {
  const PreparedRuleModel q30 = prepare_rule_model(qwen3_30b_a3b(), nullptr);
  EXPECT_EQ(ep_candidates(q30, 16), (V{1, 2, 4, 8, 16}));
  EXPECT_EQ(ep_candidates(prepare_rule_model(llama3_8b(), nullptr), 16), (V{1}));
  EXPECT_EQ(etp_candidates(q30, 8), (V{1, 2, 3, 4, 6, 8}));                      // expert FFN 768
  EXPECT_EQ(etp_candidates(prepare_rule_model(gpt_oss_20b(), nullptr), 8), (V{1}));  // expert biases
  EXPECT_EQ(pp_candidates(prepare_rule_model(llama3_8b(), nullptr), 16), (V{1, 2, 4, 8, 16}));
  EXPECT_EQ(pp_candidates(prepare_rule_model(deepseek_v3(), nullptr), 16), (V{1}));  // 61 layers
  EXPECT_EQ(vp_candidates(prepare_rule_model(llama3_8b(), nullptr), 4, 8), (V{1, 2, 4, 8}));
  EXPECT_EQ(vp_candidates(prepare_rule_model(llama3_8b(), nullptr), 1, 8), (V{1}));
  EXPECT_EQ(mbs_candidates(96, 8, 16), (V{1, 2, 3, 4, 6, 12}));
  EXPECT_TRUE(mbs_candidates(100, 8, 16).empty());
  const PreparedRuleModel q35 = prepare_rule_model(qwen35_35b_a3b(), nullptr);
  EXPECT_EQ(cp_candidates(q35, 8192, 1, false, 8), (V{1, 2, 4, 8}));
  EXPECT_EQ(cp_candidates(q35, 6144, 2, true, 8), (V{1, 2, 4, 8}));
  EXPECT_EQ(cp_candidates(q35, 6144, 1, false, 3), (V{1, 2}));  // CP 3: GDN heads
}

// Every TP up to 32 is a candidate exactly when no TP divisibility rule fires.
TEST(ValidDegrees, TpCandidatesAgreeWithTheRules) {
  for (const Model* m : {&llama3_8b(), &qwen35_35b_a3b(), &glm45(), &nemotron_h_8b(), &gemma3_27b()}) {
    const PreparedRuleModel pm = prepare_rule_model(*m, nullptr);
    const V cands = tp_candidates(pm, 32);
    for (int tp = 1; tp <= 32; ++tp) {
      RuleInput in;
      in.model = m;
      in.cluster.gpus = tp;
      in.layout.tp = tp;
      in.layout.sp = tp > 1;
      in.workload.seq = 8192 * 3;
      const bool any = fires(in, "RB-TP-HEADS") || fires(in, "RB-TP-KV-GROUPS") || fires(in, "RB-TP-FFN") ||
                       fires(in, "RB-TP-MAMBA-HEADS") || fires(in, "RB-GDN-HEADS-TPCP");
      const bool listed = std::find(cands.begin(), cands.end(), tp) != cands.end();
      EXPECT_EQ(listed, !any) << m->name << " TP " << tp;
    }
  }
}

}  // namespace
}  // namespace rb::testing
