#include "recipebook/search/planner.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>

#include "recipebook/estimate/test_hardware.hpp"
#include "recipebook/estimate/test_models.hpp"
#include "recipebook/rules/rule.hpp"
#include "recipebook/search/advice.hpp"
#include "recipebook/search/test_plan.hpp"

namespace rb {
namespace {

using test::PlanSetup;
using test::request;

TEST(StageSplit, UniformWhenVpDividesTheStage) {
  EXPECT_EQ(stage_split(32, 4, 2).first, 0);
  EXPECT_EQ(stage_split(32, 1, 1).first, 0);
  EXPECT_EQ(stage_split(126, 2, 1).first, 0);
}

TEST(StageSplit, BalancedEndsWhenPpDoesNotDivide) {
  // Llama-3.1-405B, 126 layers on PP 16: 7 + 14 x 8 + 7 (what Megatron-Bridge gets from
  // account_for_embedding/loss_in_pipeline_split).
  const StageSplit a = stage_split(126, 16, 1);
  EXPECT_EQ(a.first, 7);
  EXPECT_EQ(a.last, 7);
  // DeepSeek-V3, 61 layers on PP 16: 2 + 14 x 4 + 3.
  const StageSplit b = stage_split(61, 16, 1);
  EXPECT_EQ(b.first, 2);
  EXPECT_EQ(b.last, 3);
  // No split at all: more stages than layers.
  EXPECT_EQ(stage_split(32, 37, 1).first, 0);
}

RC_GTEST_PROP(StageSplit, EveryStageDividesByVp, ()) {
  const int layers = *rc::gen::inRange(1, 130);
  const int pp = *rc::gen::inRange(2, 40);
  const int vp = *rc::gen::inRange(1, 9);
  const StageSplit s = stage_split(layers, pp, vp);
  if (s.first == 0) {
    RC_SUCCEED("uniform or impossible");
  }
  RC_ASSERT(s.first >= vp);
  RC_ASSERT(s.last >= s.first);
  RC_ASSERT(s.first % vp == 0);
  RC_ASSERT(s.last % vp == 0);
  const int middle = layers - s.first - s.last;
  if (pp == 2) {
    RC_ASSERT(middle == 0);
  } else {
    RC_ASSERT(middle > 0);
    RC_ASSERT(middle % (pp - 2) == 0);
    RC_ASSERT((middle / (pp - 2)) % vp == 0);
  }
}

TEST(GpuCounts, PowersOfTwoAndWholeNodes) {
  EXPECT_EQ(gpu_counts_in_range(8, 512, 8), (std::vector<int>{8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512}));
  EXPECT_EQ(gpu_counts_in_range(1, 16, 8), (std::vector<int>{1, 2, 4, 8, 16}));
  EXPECT_EQ(gpu_counts_in_range(64, 96, 8), (std::vector<int>{64, 72, 80, 88, 96}));
  EXPECT_EQ(gpu_counts_in_range(24, 24, 8), (std::vector<int>{24}));
  EXPECT_TRUE(gpu_counts_in_range(9, 15, 8).empty());
}

TEST(RecomputeOptions, ExtraModulesFollowTheModel) {
  const auto dense = recompute_options(test::llama3_8b());
  ASSERT_EQ(dense.size(), 4u);
  EXPECT_EQ(recompute_option_name(dense[2]), "selective(core_attn,layernorm)");
  const auto ds = recompute_options(test::deepseek_v3());
  EXPECT_EQ(recompute_option_name(ds[2]), "selective(core_attn,moe_act,layernorm,mla_up_proj)");
  EXPECT_EQ(recompute_option_name(ds[3]), "full");
}

TEST(Planner, CountsPartitionTheSpace) {
  const PlanSetup s(test::qwen3_30b_a3b(), test::h100());
  const PlanRequest req = request(8, 4096, 256);
  auto r = plan(s.inputs(), req);
  ASSERT_TRUE(r) << r.error().str();
  const PlanCounts& c = r->counts;
  EXPECT_EQ(c.seen, Space(s.model, req).size(8));
  EXPECT_EQ(c.seen, c.rules + c.memory + c.estimator + c.fit);
  uint64_t by_rule = 0;
  for (uint64_t n : c.by_rule) by_rule += n;
  EXPECT_EQ(by_rule, c.rules);
  EXPECT_GT(c.fit, 0u);
  EXPECT_GT(c.memory_inferred, 0u);
  EXPECT_LE(c.memory_inferred, c.memory);
  ASSERT_EQ(r->top.size(), 5u);
  for (size_t i = 1; i < r->top.size(); ++i) EXPECT_TRUE(better(r->top[i - 1], r->top[i]));
  for (const Candidate& x : r->top) {
    EXPECT_TRUE(x.estimate.fits());
    EXPECT_EQ(x.score, -x.estimate.tokens_per_s_per_gpu);
    EXPECT_EQ(x.layout.world(), 8);
  }
}

TEST(Planner, OffersOneFlexBackendUnlessFixed) {
  // The estimator prices DeepEP and HybridEP alike; the search offers HybridEP only (it runs on
  // every NVIDIA GPU) instead of listing each flex layout twice. Fixing DeepEP still works.
  const PlanSetup s(test::qwen3_30b_a3b(), test::h100());
  PlanRequest req = request(16, 4096, 512);
  req.top_k = 20;
  auto r = plan(s.inputs(), req);
  ASSERT_TRUE(r);
  bool flex = false;
  for (const Candidate& x : r->top) {
    EXPECT_NE(x.layout.dispatcher, Dispatcher::kFlexDeepep);
    flex = flex || x.layout.dispatcher == Dispatcher::kFlexHybridep;
  }
  EXPECT_TRUE(flex);
  req.fixed.fix("dispatcher", static_cast<SearchValue>(Dispatcher::kFlexDeepep));
  auto d = plan(s.inputs(), req);
  ASSERT_TRUE(d);
  ASSERT_FALSE(d->top.empty());
  for (const Candidate& x : d->top) EXPECT_EQ(x.layout.dispatcher, Dispatcher::kFlexDeepep);
}

TEST(Planner, SameResultForAnyThreadCount) {
  const PlanSetup s(test::qwen3_30b_a3b(), test::b200());
  PlanRequest req = request(8, 4096, 512);
  req.fixed.allow("precision", {static_cast<SearchValue>(Precision::kBf16), static_cast<SearchValue>(Precision::kFp8Cs)});
  req.fixed.max_mbs = 4;
  req.top_k = 7;
  auto one = plan(s.inputs(), req);
  ASSERT_TRUE(one);
  for (int threads : {2, 5}) {
    req.threads = threads;
    auto many = plan(s.inputs(), req);
    ASSERT_TRUE(many);
    EXPECT_TRUE(test::same_result(*one, *many)) << threads << " threads";
    EXPECT_EQ(one->counts.estimates, many->counts.estimates);
  }
}

TEST(Planner, FixedDegreesAreKept) {
  const PlanSetup s(test::llama3_8b(), test::h100());
  PlanRequest req = request(16, 8192, 128);
  req.fixed.fix("tp", 2);
  req.fixed.fix("pp", 2);
  req.fixed.fix("fsdp", 0);
  req.fixed.fix("recompute", recompute_value(Recompute::kFull, 0));
  auto r = plan(s.inputs(), req);
  ASSERT_TRUE(r);
  ASSERT_FALSE(r->top.empty());
  for (const Candidate& x : r->top) {
    EXPECT_EQ(x.layout.tp, 2);
    EXPECT_EQ(x.layout.pp, 2);
    EXPECT_FALSE(x.layout.fsdp);
    EXPECT_EQ(x.layout.recompute, Recompute::kFull);
    EXPECT_EQ(x.layout.world(), 16);
  }
}

TEST(Planner, RangeSearchesEachCountAndKeepsTheBestOfEach) {
  const PlanSetup s(test::llama3_8b(), test::h100());
  PlanRequest req = request(8, 4096, 256);
  req.gpu_counts = gpu_counts_in_range(8, 32, 8);  // 8, 16, 24, 32
  req.objective = Objective::kTime;
  auto r = plan(s.inputs(), req);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->best_per_count.size(), 4u);
  EXPECT_EQ(r->pareto_axis, ParetoAxis::kTotalThroughput);
  // Time to train: the best layout overall uses the most GPUs here (the model is small).
  EXPECT_EQ(r->top.front().gpus, 32);
  // No Pareto layout is beaten on both tokens/s per GPU and total tokens/s.
  for (const Candidate& p : r->pareto)
    for (const Candidate& q : r->best_per_count)
      EXPECT_FALSE(q.estimate.tokens_per_s_per_gpu > p.estimate.tokens_per_s_per_gpu &&
                   q.estimate.tokens_per_s_per_gpu * q.gpus > p.estimate.tokens_per_s_per_gpu * p.gpus);
}

TEST(Planner, NothingFitsGivesTheClosestAndWhatWouldFit) {
  const PlanSetup s(test::llama31_405b(), test::h100());
  const PlanRequest req = request(8, 8192, 64);
  auto r = plan(s.inputs(), req);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->counts.fit, 0u);
  EXPECT_GT(r->counts.memory, 0u);
  ASSERT_EQ(r->closest.size(), 5u);
  for (size_t i = 1; i < r->closest.size(); ++i)
    EXPECT_LE(overshoot_bytes(r->closest[i - 1].estimate), overshoot_bytes(r->closest[i].estimate));
  EXPECT_GT(overshoot_bytes(r->closest.front().estimate), 0.0);
  const PlanAdvice a = advise(s.inputs(), req, *r);
  EXPECT_FALSE(a.rules_block_all);
  ASSERT_FALSE(a.relaxations.empty());
  const Relaxation& more = a.relaxations.back();
  ASSERT_TRUE(more.best.has_value());
  EXPECT_GT(more.best->gpus, 8);
  EXPECT_TRUE(more.best->estimate.fits());
}

TEST(Planner, AGpuCountNoLayoutCanUse) {
  // 37 GPUs for a 32-layer model with 32 heads: TP and CP cannot take 37, PP has too few layers.
  const PlanSetup s(test::llama3_8b(), test::h100());
  const PlanRequest req = request(37, 4096, 512);
  auto r = plan(s.inputs(), req);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->counts.rules, r->counts.seen);
  EXPECT_GT(r->counts.by_rule[static_cast<size_t>(rule_index("RB-TP-HEADS"))], 0u);
  const PlanAdvice a = advise(s.inputs(), req, *r);
  EXPECT_TRUE(a.rules_block_all);
  EXPECT_EQ(a.usable_below, 36);
  EXPECT_EQ(a.usable_above, 38);
}

TEST(FixedConflicts, ReportsRulesThatOnlyReadFixedDegrees) {
  const PlanSetup s(test::llama3_8b(), test::h100());
  PlanRequest req = request(24, 4096, 96);
  req.fixed.fix("tp", 3);
  auto f = fixed_conflicts(s.inputs(), req);
  ASSERT_EQ(f.size(), 2u);  // 3 divides neither the 32 heads nor the 8 KV heads
  EXPECT_EQ(f[0].rule_id, "RB-TP-HEADS");
  EXPECT_EQ(f[1].rule_id, "RB-TP-KV-GROUPS");

  req.fixed.fix("tp", 8);
  req.fixed.fix("pp", 4);
  f = fixed_conflicts(s.inputs(), req);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].message.find("do not divide 24 GPUs"), std::string::npos);

  req.fixed.fix("pp", 3);
  EXPECT_TRUE(fixed_conflicts(s.inputs(), req).empty());

  // More stages than layers: no split exists whatever VP is.
  req = request(64, 4096, 64);
  req.fixed.fix("pp", 64);
  f = fixed_conflicts(s.inputs(), req);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].rule_id, "RB-PP-LAYERS");
}

TEST(FixedConflicts, ExpertDegrees) {
  const PlanSetup s(test::qwen3_30b_a3b(), test::h100());
  PlanRequest req = request(8, 4096, 256);
  req.fixed.fix("ep", 3);
  auto f = fixed_conflicts(s.inputs(), req);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].rule_id, "RB-EXPERTS-EP");
  req.fixed.fix("ep", 8);
  EXPECT_TRUE(fixed_conflicts(s.inputs(), req).empty());
}

TEST(Planner, StopsAtTheFirstValidOrFittingLayout) {
  const PlanSetup s(test::llama3_8b(), test::h100());
  PlanRequest req = request(8, 4096, 256);
  req.stop_at = StopAt::kFirstValid;
  auto r = plan(s.inputs(), req);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->found);
  EXPECT_EQ(r->counts.estimates, 0u);
  req.stop_at = StopAt::kFirstFit;
  r = plan(s.inputs(), req);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->found);
  EXPECT_EQ(r->counts.fit, 1u);
}

TEST(Planner, ReportsProgressOncePerTask) {
  const PlanSetup s(test::qwen3_0_6b(), test::h100());
  const PlanRequest req = request(8, 4096, 128);
  uint64_t calls = 0;
  PlanProgress last;
  auto r = plan(s.inputs(), req, [&](const PlanProgress& p) {
    ++calls;
    EXPECT_LE(p.tasks_done, p.tasks_total);
    last = p;
  });
  ASSERT_TRUE(r);
  EXPECT_EQ(calls, r->tasks);
  EXPECT_EQ(last.tasks_done, last.tasks_total);
  EXPECT_EQ(last.seen, r->counts.seen);
  EXPECT_EQ(last.fit, r->counts.fit);
}

TEST(Planner, RefusesRequestsItCannotSearch) {
  const PlanSetup s(test::llama3_8b(), test::h100());
  PlanRequest req = request(8, 4096, 0);
  EXPECT_FALSE(plan(s.inputs(), req));
  req = request(8, 4096, 64);
  req.gpu_counts.clear();
  EXPECT_FALSE(plan(s.inputs(), req));
  Model empty;
  empty.name = "Nothing";
  empty.has_architecture = false;
  const PlanSetup e(empty, test::h100());
  EXPECT_FALSE(plan(e.inputs(), request(8, 4096, 64)));
}

// The planner's memory pruning rests on this: with everything else equal, a larger micro batch
// never needs less memory (estimate/memory.cpp: tokens per micro batch grow, in-flight micro
// batches x MBS never shrink).
RC_GTEST_PROP(Planner, MemoryNeverShrinksAsTheMicroBatchGrows, ()) {
  static const PlanSetup s(test::qwen3_30b_a3b(), test::h100());
  const int pp = *rc::gen::element(1, 2, 4, 3);
  const int vp = pp > 1 ? *rc::gen::element(1, 2, 4) : 1;
  Layout l = base_layout();
  l.tp = *rc::gen::element(1, 2, 4);
  l.sp = l.tp > 1;
  l.cp = *rc::gen::element(1, 2);
  l.pp = pp;
  l.vp = vp;
  const StageSplit split = stage_split(48, pp, vp);
  l.first_stage_layers = split.first;
  l.last_stage_layers = split.last;
  l.dp = *rc::gen::element(1, 2, 4);
  l.ep = *rc::gen::element(1, 2, 4, 8);
  l.etp = 1;
  l.fsdp = *rc::gen::arbitrary<bool>();
  const auto options = recompute_options(s.model);
  apply_recompute(l, options[*rc::gen::inRange<size_t>(0, options.size())]);
  Workload w;
  w.seq = *rc::gen::element(1024, 4096);
  w.gbs = 240 * l.dp;
  const Cluster c{l.world(), 8};
  double previous = 0;
  for (const int mbs : {1, 2, 3, 4, 5, 6, 8}) {
    l.mbs = mbs;
    const Estimate e = estimate(s.pm, s.hw, w, c, l);
    if (!e.valid) continue;
    RC_ASSERT(e.memory.worst.peak_bytes >= previous);
    previous = e.memory.worst.peak_bytes;
  }
}

}  // namespace
}  // namespace rb

namespace rb {
namespace {

// 48 layers on PP 2 x VP 5: no stage count divides by 5, so no first/last split exists; Megatron-Core's
// embedding/loss accounting does (50 = 2 x 5 x 5, rules/pipeline_split.hpp accounted_split), and
// the planner proposes it (before: nothing at this PP and VP).
TEST(Planner, ProposesEmbeddingLossAccountingWhenNoEndCountsFit) {
  const PlanSetup s(test::qwen3_30b_a3b(), test::h100());
  PlanRequest req = test::request(16, 4096, 256);
  req.fixed.fix("pp", 2);
  req.fixed.fix("vp", 5);
  auto r = plan(s.inputs(), req);
  ASSERT_TRUE(r);
  ASSERT_FALSE(r->top.empty());
  for (const Candidate& x : r->top) {
    EXPECT_EQ(x.layout.vp, 5);
    EXPECT_TRUE(x.layout.account_for_embedding);
    EXPECT_TRUE(x.layout.account_for_loss);
    EXPECT_EQ(x.layout.first_stage_layers, 0);
  }
}

}  // namespace
}  // namespace rb
