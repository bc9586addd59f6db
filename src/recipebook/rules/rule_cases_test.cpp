// Per-rule unit tests: for every rule id a violating input that yields exactly that one finding
// (with a message, a fix and a record path) and a passing neighbour that yields no finding of the
// rule and no error. The first violating case of each id mirrors tests/invalid/<ID>.yaml.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>

#include "recipebook/rules/rule_cases.hpp"

namespace rb::testing {
namespace {

constexpr bool kBad = true;
constexpr bool kOk = false;

}  // namespace

void add_parallel_cases(std::vector<RuleCase>& v) {
  const auto add = [&](const char* id, bool bad, RuleInput in, const char* note = "", bool clean = true) {
    v.push_back({id, bad, std::move(in), note, clean});
  };

  // ---- world size, TP, SP, CP ----
  add("RB-WORLD-DIVISIBLE", kBad, In(llama3_8b(), h100(), 12).tp(8).sp().gbs(128).done(), "TP 8 on 12 GPUs");
  add("RB-WORLD-DIVISIBLE", kOk, In(llama3_8b(), h100(), 16).tp(8).sp().gbs(128).done(), "16 GPUs");
  add("RB-WORLD-DIVISIBLE", kBad, In(llama3_8b(), h100(), 8).tp(2).sp().cp(3).seq(6144).gbs(64).done(),
      "TP 2 x CP 3 on 8 GPUs");

  add("RB-TP-HEADS", kBad, In(qwen3_30b_a3b(), gb200(), 12).tp(12).sp().ep(4).seq(6144).gbs(96).done(), "TP 12");
  add("RB-TP-HEADS", kOk, In(qwen3_30b_a3b(), gb200(), 12).tp(4).sp().ep(4).seq(6144).gbs(96).done(), "TP 4");

  add("RB-TP-KV-GROUPS", kBad,
      In(glm45(), gb200(), 96).tp(12).sp().pp(2).vp(2).ep(16).seq(6144).gbs(96).done(), "TP 12 vs 8 groups");
  add("RB-TP-KV-GROUPS", kOk, In(glm45(), gb200(), 96).tp(8).sp().pp(2).vp(2).ep(16).seq(6144).gbs(96).done(),
      "TP 8");

  add("RB-TP-FFN", kBad, In(qwen3_30b_a3b(), h100(), 40).ep(8).etp(5).gbs(320).done(), "ETP 5 vs expert FFN 768");
  add("RB-TP-FFN", kOk, In(qwen3_30b_a3b(), h100(), 40).ep(8).etp(1).gbs(320).done(), "ETP 1");
  add("RB-TP-FFN", kBad, In(qwen3_14b(), gb200(), 40).tp(40).sp().seq(8000).gbs(40).done(),
      "TP 40 vs dense FFN 17408");

  add("RB-TP-MAMBA-HEADS", kBad, In(nemotron_h_8b(), gb200(), 16).tp(16).sp().seq(8192).gbs(16).done(),
      "TP 16 vs 8 Mamba groups");
  add("RB-TP-MAMBA-HEADS", kOk, In(nemotron_h_8b(), gb200(), 16).tp(8).sp().seq(8192).gbs(16).done(), "TP 8");

  add("RB-GDN-HEADS-TPCP", kBad, In(qwen35_35b_a3b(), b200(), 24).cp(3).ep(8).seq(6144).gbs(96).done(),
      "CP 3 vs 16 GDN key heads");
  add("RB-GDN-HEADS-TPCP", kOk, In(qwen35_35b_a3b(), b200(), 24).cp(2).ep(8).seq(6144).gbs(96).done(), "CP 2");

  add("RB-SP-NEEDS-TP", kBad, In(llama3_8b(), h100(), 8).sp().done(), "SP with TP 1");
  add("RB-SP-NEEDS-TP", kOk, In(llama3_8b(), h100(), 8).done(), "no SP");

  add("RB-SP-REQUIRED", kBad, In(qwen3_30b_a3b(), b200(), 8).tp(2).ep(8).done(), "MoE TP 2 without SP");
  add("RB-SP-REQUIRED", kOk, In(qwen3_30b_a3b(), b200(), 8).tp(2).sp().ep(8).done(), "with SP");

  add("RB-CP-SEQ", kBad, In(llama3_8b(), h100(), 8).cp(2).seq(4094).done(), "4094 % 4");
  add("RB-CP-SEQ", kOk, In(llama3_8b(), h100(), 8).cp(2).seq(4096).done(), "4096");

  add("RB-SP-SEQ", kBad, In(llama3_8b(), h100(), 8).tp(2).sp().seq(4095).done(), "4095 % 2");
  add("RB-SP-SEQ", kOk, In(llama3_8b(), h100(), 8).tp(2).sp().seq(4096).done(), "4096");

  // ---- pipeline and batch ----
  add("RB-PP-LAYERS", kBad, In(llama3_8b(), h100(), 48).pp(3).gbs(96).done(), "32 layers over PP 3");
  add("RB-PP-LAYERS", kOk, In(llama3_8b(), h100(), 48).pp(4).vp(2).gbs(96).done(), "PP 4 VP 2");
  add("RB-PP-LAYERS", kBad, In(llama3_8b(), h100(), 32).pp(4).stages(6, 7).gbs(64).done(),
      "first 6 + last 7 leave 19 for 2 stages");
  add("RB-PP-LAYERS", kOk, In(llama3_8b(), h100(), 32).pp(4).stages(7, 7).gbs(64).done(), "first 7, last 7");
  add("RB-PP-LAYERS", kOk, In(llama3_8b(), h100(), 8).stages(17, 23).done(), "PP 1: stage counts ignored");
  add("RB-PP-LAYERS", kOk, In(llama3_8b(), h100(), 16).pp(2).vp(2).stages(14, 18).done(), "PP 2: no middle stage");
  add("RB-PP-LAYERS", kOk,
      In(llama3_8b(), h100(), 10).pp(2).gbs(10).set("account_for_embedding_in_pipeline_split", "true")
          .set("account_for_loss_in_pipeline_split", "true").done(),
      "accounting: 34 over 2 is fine");
  add("RB-PP-LAYERS", kBad,
      In(llama3_8b(), h100(), 8).pp(4).gbs(16).set("account_for_embedding_in_pipeline_split", "true").done(),
      "accounting: 33 over 4");

  add("RB-VP-NEEDS-PP", kBad, In(llama3_8b(), h100(), 8).vp(2).done(), "VP 2 with PP 1");
  add("RB-VP-NEEDS-PP", kOk, In(llama3_8b(), h100(), 8).done(), "VP 1");

  add("RB-VP-LAYERS", kBad, In(llama3_8b(), h100(), 16).pp(2).vp(3).done(), "16 per stage, VP 3");
  add("RB-VP-LAYERS", kOk, In(llama3_8b(), h100(), 16).pp(2).vp(4).done(), "VP 4");

  add("RB-GBS-DIVISIBLE", kBad, In(llama3_8b(), h100(), 8).gbs(100).done(), "100 % 8");
  add("RB-GBS-DIVISIBLE", kOk, In(llama3_8b(), h100(), 8).gbs(128).done(), "128");

  add("RB-VP-MICROBATCHES", kBad, In(llama3_8b(), h100(), 16).pp(4).vp(2).gbs(24).done(), "M 6 vs PP 4");
  add("RB-VP-MICROBATCHES", kOk, In(llama3_8b(), h100(), 16).pp(4).vp(2).gbs(32).done(), "M 8");
  add("RB-VP-MICROBATCHES", kBad, In(llama3_8b(), h100(), 16).pp(4).vp(2).gbs(8).done(), "M 2 < PP 4");

  // ---- experts ----
  add("RB-EP-NEEDS-MOE", kBad, In(llama3_8b(), h100(), 8).ep(2).done(), "EP on a dense model");
  add("RB-EP-NEEDS-MOE", kOk, In(llama3_8b(), h100(), 8).done(), "EP 1");

  add("RB-EXPERTS-EP", kBad, In(qwen3_30b_a3b(), b200(), 24).ep(3).gbs(96).done(), "128 experts, EP 3");
  add("RB-EXPERTS-EP", kOk, In(qwen3_30b_a3b(), b200(), 24).ep(8).gbs(96).done(), "EP 8");

  add("RB-EP-DIVISIBLE", kBad, In(qwen3_30b_a3b(), b200(), 8).ep(16).done(), "EP 16 on 8 GPUs");
  add("RB-EP-DIVISIBLE", kOk, In(qwen3_30b_a3b(), b200(), 8).ep(8).done(), "EP 8");

  add("RB-MOE-BIAS-ETP", kBad, In(gpt_oss_20b(), b200(), 8).tp(2).sp().ep(4).etp(2).done(), "ETP 2 with biases");
  add("RB-MOE-BIAS-ETP", kOk, In(gpt_oss_20b(), b200(), 8).tp(2).sp().ep(4).etp(1).done(), "ETP 1");

  add("RB-DISPATCHER-GPU", kBad, In(qwen3_30b_a3b(), gb200(), 8).ep(8).dispatcher(Dispatcher::kFlexDeepep).done(),
      "DeepEP on GB200");
  add("RB-DISPATCHER-GPU", kOk, In(qwen3_30b_a3b(), gb200(), 8).ep(8).dispatcher(Dispatcher::kFlexHybridep).done(),
      "HybridEP on GB200");
  add("RB-DISPATCHER-GPU", kOk, In(qwen3_30b_a3b(), b200(), 8).ep(8).dispatcher(Dispatcher::kFlexDeepep).done(),
      "DeepEP on B200");
  add("RB-DISPATCHER-GPU", kBad, In(qwen3_30b_a3b(), mi300x(), 8).ep(8).dispatcher(Dispatcher::kFlexHybridep).done(),
      "HybridEP on MI300X");

  add("RB-EP-A2A-OVERLAP", kBad,
      In(qwen3_30b_a3b(), b200(), 8).ep(8).a2a_overlap().recompute(Recompute::kFull, 0, 1).done(),
      "with full recompute");
  add("RB-EP-A2A-OVERLAP", kOk, In(qwen3_30b_a3b(), b200(), 8).ep(8).a2a_overlap().done(), "no recompute");
  add("RB-EP-A2A-OVERLAP", kBad, In(gpt_oss_20b(), gb300(), 8).a2a_overlap().done(), "EP 1");

  add("RB-DELAY-WGRAD", kBad, In(qwen3_30b_a3b(), b200(), 8).ep(8).set("delay_wgrad_compute", "true").done(),
      "without a2a overlap");
  add("RB-DELAY-WGRAD", kOk,
      In(qwen3_30b_a3b(), b200(), 8).ep(8).a2a_overlap().set("delay_wgrad_compute", "true").done(),
      "with a2a overlap");

  add("RB-SHARED-EXPERT-OVERLAP", kBad,
      In(qwen35_35b_a3b(), b200(), 8).ep(8).dispatcher(Dispatcher::kAllgather)
          .set("moe_shared_expert_overlap", "true").done(),
      "allgather");
  add("RB-SHARED-EXPERT-OVERLAP", kOk,
      In(qwen35_35b_a3b(), b200(), 8).ep(8).set("moe_shared_expert_overlap", "true").done(), "alltoall");

  add("RB-ALLGATHER-VARLEN", kBad,
      In(qwen3_30b_a3b(), b200(), 8).ep(8).dispatcher(Dispatcher::kAllgather).set("variable_seq_lengths", "true")
          .done(),
      "allgather");
  add("RB-ALLGATHER-VARLEN", kOk,
      In(qwen3_30b_a3b(), b200(), 8).ep(8).set("variable_seq_lengths", "true").done(), "alltoall");

  add("RB-MOE-ROUTER-PADDING", kBad,
      In(qwen3_30b_a3b(), b200(), 8).ep(8).set("moe_router_padding_for_quantization", "true").done(), "bf16");
  add("RB-MOE-ROUTER-PADDING", kOk,
      In(qwen3_30b_a3b(), b200(), 8).ep(8).precision(Precision::kFp8Cs)
          .set("moe_router_padding_for_quantization", "true").done(),
      "fp8_cs");

}

std::vector<RuleCase> rule_cases() {
  std::vector<RuleCase> v;
  add_parallel_cases(v);
  add_feature_cases(v);
  return v;
}

namespace {

class RuleCaseTest : public ::testing::TestWithParam<RuleCase> {};

std::string describe(const std::vector<Finding>& fs) {
  std::string out;
  for (const auto& f : fs) out += "\n  " + f.rule_id + " [" + f.field + "] " + f.message;
  return out.empty() ? " (none)" : out;
}

TEST_P(RuleCaseTest, FindsExactlyItsRule) {
  const RuleCase& c = GetParam();
  ASSERT_NE(find_rule(c.rule_id), nullptr) << c.rule_id << " is not in the table";
  const std::vector<Finding> fs = check_layout(c.input);
  if (c.violates) {
    ASSERT_EQ(fs.size(), 1u) << c.rule_id << " (" << c.note << ") findings:" << describe(fs);
    EXPECT_EQ(fs[0].rule_id, c.rule_id);
    EXPECT_EQ(fs[0].severity, find_rule(c.rule_id)->severity);
    EXPECT_FALSE(fs[0].message.empty());
    EXPECT_FALSE(fs[0].fix.empty());
    EXPECT_FALSE(fs[0].field.empty());
  } else {
    for (const auto& f : fs) {
      EXPECT_NE(f.rule_id, c.rule_id) << c.note << ":" << describe(fs);
      if (c.clean) {
        EXPECT_NE(f.severity, Severity::kError) << c.note << ":" << describe(fs);
      }
    }
  }
}

std::string case_name(const ::testing::TestParamInfo<RuleCase>& info) {
  std::string n = info.param.rule_id.substr(3) + (info.param.violates ? "_violates_" : "_passes_") +
                  std::to_string(info.index);
  std::replace_if(n.begin(), n.end(), [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) == 0; }, '_');
  return n;
}

INSTANTIATE_TEST_SUITE_P(Rules, RuleCaseTest, ::testing::ValuesIn(rule_cases()), case_name);

}  // namespace
}  // namespace rb::testing
