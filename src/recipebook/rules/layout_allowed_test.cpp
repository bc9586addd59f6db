// The planner's fast path against the full check: on random layouts both must agree on
// "has an error", and the rejection counts must partition the rejected layouts.
#include <gtest/gtest.h>

#include <random>

#include "recipebook/rules/rule_cases.hpp"

namespace rb::testing {

uint64_t allocation_count();  // allocation_counter_test.cpp

namespace {

struct Target {
  const Model* model;
  const Hardware* hw;  // may be null
};

Layout random_layout(std::mt19937& rng) {
  const auto pick = [&](std::initializer_list<int> values) {
    std::uniform_int_distribution<size_t> d(0, values.size() - 1);
    return *(values.begin() + static_cast<std::ptrdiff_t>(d(rng)));
  };
  Layout l;
  l.tp = pick({1, 2, 3, 4, 6, 8, 12, 16});
  l.pp = pick({1, 1, 2, 3, 4, 6, 8});
  l.vp = pick({1, 1, 2, 3, 4});
  l.cp = pick({1, 1, 2, 3, 4});
  l.ep = pick({1, 1, 2, 4, 8, 16, 32});
  l.etp = pick({1, 1, 1, 2, 5});
  l.mbs = pick({1, 2, 4});
  l.sp = pick({0, 1}) == 1;
  l.fsdp = pick({0, 0, 1}) == 1;
  l.precision = static_cast<Precision>(pick({0, 1, 2, 3, 4, 5}));
  l.recompute = static_cast<Recompute>(pick({0, 1, 2}));
  l.recompute_modules = static_cast<uint32_t>(pick({0, 1, 2, 8, 32, 128, 33}));
  l.recompute_layers = pick({1, 2, 40});
  l.dispatcher = static_cast<Dispatcher>(pick({0, 1, 2, 3}));
  l.cuda_graph = static_cast<CudaGraph>(pick({0, 0, 1, 2, 3}));
  l.cuda_graph_scope = static_cast<uint32_t>(pick({0, 1, 9, 25, 4, 2, 32}));
  l.te_rng_tracker = pick({0, 1, 1}) == 1;
  l.precision_aware_optimizer = pick({0, 1}) == 1;
  l.cpu_offload_layers = pick({0, 0, 0, 2, 64});
  l.ep_a2a_overlap = pick({0, 0, 1}) == 1;
  l.tp_comm_overlap = pick({0, 1}) == 1;
  if (pick({0, 0, 0, 1}) == 1) {
    l.first_stage_layers = pick({0, 3, 7});
    l.last_stage_layers = pick({0, 4, 7});
  }
  return l;
}

TEST(LayoutAllowed, AgreesWithTheFullCheckOnRandomLayouts) {
  const std::vector<Target> targets = {
      {&llama3_8b(), &h100()},         {&qwen3_30b_a3b(), &b200()},   {&qwen35_35b_a3b(), &gb300()},
      {&deepseek_v3(), &h100()},       {&gpt_oss_20b(), &gb200()},    {&nemotron_h_8b(), &a100()},
      {&glm45(), &mi300x()},           {&qwen35_397b_a17b(), nullptr}, {&gemma3_27b(), &b200()},
  };
  std::mt19937 rng(20240611);
  const int gpus_choices[] = {8, 12, 16, 24, 48, 64, 128};
  const int64_t seq_choices[] = {4095, 4096, 6144, 8192, 16384};
  const int64_t gbs_choices[] = {0, 24, 64, 96, 100, 512, 2048};
  int allowed = 0;
  int total = 0;
  for (const Target& t : targets) {
    const PreparedRuleModel pm = prepare_rule_model(*t.model, t.hw);
    RejectCounts counts;
    int rejected = 0;
    for (int i = 0; i < 4000; ++i) {
      const Layout l = random_layout(rng);
      Workload w;
      w.mode = static_cast<Mode>(rng() % 3);
      w.seq = seq_choices[rng() % 5];
      w.gbs = gbs_choices[rng() % 7];
      Cluster c;
      c.gpus = gpus_choices[rng() % 7];
      const bool fast = layout_allowed(pm, w, c, l, &counts);
      bool full = true;
      for (const Finding& f : check_layout(pm, w, c, l, RecordFacts{}))
        full = full && f.severity != Severity::kError;
      ASSERT_EQ(fast, full) << t.model->name << " tp " << l.tp << " pp " << l.pp << " vp " << l.vp << " cp " << l.cp
                            << " ep " << l.ep << " etp " << l.etp << " gpus " << c.gpus;
      rejected += fast ? 0 : 1;
      allowed += fast ? 1 : 0;
      ++total;
    }
    EXPECT_EQ(counts.seen, 4000u);
    EXPECT_EQ(counts.rejected, static_cast<uint64_t>(rejected));
    uint64_t sum = 0;
    for (uint64_t n : counts.by_rule) sum += n;
    EXPECT_EQ(sum, counts.rejected) << "counts must partition the rejected layouts";
    // Only error rules of layout or hardware scope are ever charged.
    const auto rules = all_rules();
    for (size_t i = 0; i < rules.size(); ++i)
      if (counts.by_rule[i] > 0) {
        EXPECT_EQ(rules[i].severity, Severity::kError) << rules[i].id;
        EXPECT_NE(rules[i].scope, RuleScope::kRecord) << rules[i].id;
      }
  }
  // The random space is meant to exercise both outcomes.
  EXPECT_GT(allowed, 0);
  EXPECT_LT(allowed, total);
}

TEST(LayoutAllowed, ChargesTheFirstFailingRule) {
  const PreparedRuleModel pm = prepare_rule_model(llama3_8b(), &h100());
  Layout l;
  l.tp = 3;  // fails RB-WORLD-DIVISIBLE (3 does not divide 8) before RB-TP-HEADS
  Workload w;
  Cluster c{8, 8};
  RejectCounts counts;
  EXPECT_FALSE(layout_allowed(pm, w, c, l, &counts));
  EXPECT_EQ(counts.count("RB-WORLD-DIVISIBLE"), 1u);
  EXPECT_EQ(counts.count("RB-TP-HEADS"), 0u);
  c.gpus = 24;
  EXPECT_FALSE(layout_allowed(pm, w, c, l, &counts));
  EXPECT_EQ(counts.count("RB-TP-HEADS"), 1u);
  l.tp = 2;
  l.sp = true;
  c.gpus = 8;
  EXPECT_TRUE(layout_allowed(pm, w, c, l, &counts));
  EXPECT_TRUE(layout_allowed(pm, w, c, l, nullptr));
  EXPECT_EQ(counts.seen, 3u);
  EXPECT_EQ(counts.rejected, 2u);
  RejectCounts total;
  total.merge(counts);
  total.merge(counts);
  EXPECT_EQ(total.count("RB-TP-HEADS"), 2u);
  EXPECT_EQ(total.seen, 6u);
}

TEST(LayoutAllowed, WarningsNeverReject) {
  const PreparedRuleModel pm = prepare_rule_model(llama3_8b(), &h100());
  Layout l;
  l.pp = 2;  // RB-PP-NO-VP (warning)
  l.tp = 2;  // RB-SP-RECOMMENDED (warning)
  Workload w;
  w.gbs = 64;
  const Cluster c{16, 8};
  EXPECT_TRUE(layout_allowed(pm, w, c, l, nullptr));
  EXPECT_EQ(check_layout(pm, w, c, l, RecordFacts{}).size(), 2u);
}

// The planner's path allocates nothing, whichever rules the candidates trip.
TEST(LayoutAllowed, AllocatesNothing) {
  const std::vector<Target> targets = {{&qwen35_35b_a3b(), &gb200()}, {&llama3_8b(), &a100()},
                                       {&nemotron_h_8b(), &mi300x()}, {&gpt_oss_20b(), &h100()}};
  std::vector<PreparedRuleModel> pms;
  for (const Target& t : targets) pms.push_back(prepare_rule_model(*t.model, t.hw));
  std::mt19937 rng(7);
  std::vector<Layout> layouts;
  for (int i = 0; i < 3000; ++i) layouts.push_back(random_layout(rng));
  Workload w;
  w.seq = 16384;
  w.gbs = 96;
  RejectCounts counts;
  for (const auto& pm : pms) layout_allowed(pm, w, Cluster{16, 8}, layouts[0], &counts);  // statics
  const uint64_t before = allocation_count();
  int allowed = 0;
  for (const auto& pm : pms)
    for (const Layout& l : layouts)
      for (int gpus : {8, 24, 64}) allowed += layout_allowed(pm, w, Cluster{gpus, 8}, l, &counts) ? 1 : 0;
  EXPECT_EQ(allocation_count() - before, 0u);
  EXPECT_GT(counts.rejected, 0u);
  // More than one rule rejected something, so more than one check function ran its violated path.
  int rules_charged = 0;
  for (uint64_t n : counts.by_rule) rules_charged += n > 0 ? 1 : 0;
  EXPECT_GT(rules_charged, 10);
  (void)allowed;
}

}  // namespace
}  // namespace rb::testing
