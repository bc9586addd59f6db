// Seed 004's resizing rules on test models and GPUs: one case per rule, plus properties every
// resized layout must have (the product is the GPU count, SP with TP > 1, EP divides what it must,
// GBS divisible by MBS x DP).
#include "recipebook/search/resize.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "recipebook/estimate/test_hardware.hpp"
#include "recipebook/estimate/test_models.hpp"
#include "recipebook/rules/valid_degrees.hpp"

namespace rb {
namespace {

struct Fixture {
  Model model;
  Hardware hw;
  PreparedModel pm;
  PreparedRuleModel prm;
  Fixture(Model m, Hardware h) : model(std::move(m)), hw(std::move(h)), pm(prepare(model)), prm(prepare_rule_model(model, &hw)) {}
  // prm points at the members: a Fixture is never copied or moved.
  Fixture(const Fixture&) = delete;
  Fixture& operator=(const Fixture&) = delete;

  Resized run(const ResizeFrom& from, const ResizeTo& to) const { return resize(ResizeInputs{&pm, &prm, &hw}, from, to); }
};

Layout layout(int tp, int pp, int cp, int ep = 1, int vp = 1, int mbs = 1) {
  Layout l;
  l.tp = tp, l.pp = pp, l.cp = cp, l.ep = ep, l.vp = vp, l.mbs = mbs;
  l.sp = tp > 1;
  return l;
}

ResizeFrom recipe(const Layout& l, int gpus, int64_t seq, int64_t gbs, Mode mode = Mode::kPretrain) {
  ResizeFrom f;
  f.layout = l;
  f.gpus = gpus;
  f.seq = seq;
  f.gbs = gbs;
  f.mode = mode;
  return f;
}

ResizeTo cluster(int gpus, Mode mode = Mode::kPretrain, int per_node = 0) {
  ResizeTo t;
  t.gpus = gpus;
  t.mode = mode;
  t.gpus_per_node = per_node;
  return t;
}

const Change* find_change(const Resized& r, const std::string& field) {
  for (const auto& c : r.changes)
    if (c.field == field) return &c;
  return nullptr;
}

// What every resized layout must satisfy.
void expect_consistent(const Fixture& f, const Resized& r, int gpus) {
  const Layout& l = r.layout;
  EXPECT_EQ(l.tp * l.pp * l.cp * l.dp, gpus) << "the layout's product is the GPU count";
  EXPECT_EQ(l.sp, l.tp > 1) << "SP whenever TP > 1 (rule 5)";
  EXPECT_EQ(r.workload.gbs % (static_cast<int64_t>(l.mbs) * l.dp), 0) << "GBS divisible by MBS x DP";
  if (f.model.is_moe()) {
    EXPECT_EQ(f.model.moe.experts % l.ep, 0);
    EXPECT_EQ((gpus / l.pp) % (l.ep * l.etp), 0) << "EP x ETP divides TP x CP x DP";
  } else {
    EXPECT_EQ(l.ep, 1);
  }
  EXPECT_TRUE(tp_valid(f.prm, l.tp));
  for (const auto& c : r.changes) {
    EXPECT_NE(c.from, c.to) << c.text();
    EXPECT_FALSE(c.reason.empty()) << c.text();
  }
}

TEST(Resize, SameClusterChangesNothing) {
  const Fixture f(test::llama3_8b(), test::h100());
  const Resized r = f.run(recipe(layout(1, 1, 1), 8, 4096, 128), cluster(8));
  EXPECT_TRUE(r.changes.empty()) << r.changes.front().text();
  EXPECT_EQ(r.layout.dp, 8);
  EXPECT_TRUE(r.fits());
  expect_consistent(f, r, 8);
}

TEST(Resize, MoreGpusRaiseDpOnly) {
  // Seed 004: "Scale Llama3 8B from 2 GPUs to 8 GPUs (increase DP)".
  const Fixture f(test::llama3_8b(), test::h100());
  const Resized r = f.run(recipe(layout(2, 1, 1), 2, 8192, 512), cluster(8));
  EXPECT_EQ(r.layout.tp, 2);
  EXPECT_EQ(r.layout.dp, 4);
  const Change* dp = find_change(r, "dp");
  ASSERT_NE(dp, nullptr);
  EXPECT_EQ(dp->from, "1");
  EXPECT_EQ(dp->to, "4");
  EXPECT_NE(dp->rule.find("rule 7"), std::string::npos);
  EXPECT_EQ(find_change(r, "tp"), nullptr);
  expect_consistent(f, r, 8);
}

TEST(Resize, TpStaysInsideTheNode) {
  // Rule 2: a cluster of 4-GPU nodes (H100 NVLink ends at the node) takes TP 8 down to 4.
  const Fixture f(test::llama3_70b(), test::h100());
  const Resized r = f.run(recipe(layout(8, 2, 1, 1, 5), 64, 8192, 128), cluster(64, Mode::kPretrain, 4));
  EXPECT_LE(r.layout.tp, 4);
  const Change* tp = find_change(r, "tp");
  ASSERT_NE(tp, nullptr);
  EXPECT_EQ(tp->from, "8");
  EXPECT_EQ(tp->to, "4");
  EXPECT_NE(tp->reason.find("4 GPUs per node"), std::string::npos) << tp->text();
  EXPECT_NE(tp->rule.find("rule 2"), std::string::npos);
  expect_consistent(f, r, 64);
}

TEST(Resize, TpMustFitTheKvHeads) {
  // Rule 1: on an NVL72 rack TP 12 stays inside NVLink and divides 48 heads, but not the 8 KV
  // groups (nor do they divide it).
  Model m = test::dense_gqa("gqa-48h", 6144, 40, 48, 8, 128, 24576, 151936, false);
  const Fixture f(m, test::gb200());
  const Resized r = f.run(recipe(layout(12, 1, 1), 48, 4096, 240), cluster(48));
  const Change* tp = find_change(r, "tp");
  ASSERT_NE(tp, nullptr);
  EXPECT_EQ(tp->from, "12");
  EXPECT_NE(tp->reason.find("8 KV heads"), std::string::npos) << tp->text();
  EXPECT_NE(tp->rule.find("rule 1"), std::string::npos);
  EXPECT_TRUE(tp_valid(f.prm, r.layout.tp));
  expect_consistent(f, r, 48);
}

TEST(Resize, FewerGpusShrinkTheModelParallelGroup) {
  // Rule 7: TP4 PP4 CP2 = 32 does not divide 16 GPUs; a smaller group that does is chosen.
  const Fixture f(test::llama3_70b(), test::h100());
  const Resized r = f.run(recipe(layout(4, 4, 2, 1, 5), 32, 8192, 512), cluster(16));
  EXPECT_EQ(16 % r.layout.model_parallel(), 0);
  bool rule7 = false;
  for (const auto& c : r.changes) rule7 = rule7 || c.rule.find("rule 7") != std::string::npos;
  EXPECT_TRUE(rule7);
  expect_consistent(f, r, 16);
}

TEST(Resize, LongerSequenceAddsContextParallelism) {
  // Rule 6 / long context: 8K at CP 1 -> 32K keeps 8K tokens per CP rank with CP 4.
  const Fixture f(test::llama3_8b(), test::h100());
  ResizeTo to = cluster(16);
  to.seq = 32768;
  const Resized r = f.run(recipe(layout(2, 1, 1), 16, 8192, 64), to);
  EXPECT_EQ(r.layout.cp, 4);
  EXPECT_EQ(r.workload.seq, 32768);
  const Change* cp = find_change(r, "cp");
  ASSERT_NE(cp, nullptr);
  EXPECT_NE(cp->rule.find("rule 6"), std::string::npos);
  expect_consistent(f, r, 16);
}

TEST(Resize, MoeEpFollowsTheStageGpus) {
  // EP 8 on 4 GPUs: EP x ETP must divide TP x CP x DP.
  const Fixture f(test::qwen3_30b_a3b(), test::b200());
  const Resized r = f.run(recipe(layout(1, 1, 1, 8), 8, 4096, 256), cluster(4));
  EXPECT_LE(r.layout.ep, 4);
  ASSERT_NE(find_change(r, "ep"), nullptr);
  expect_consistent(f, r, 4);
}

TEST(Resize, OutOfMemoryRaisesEpFirstForMoe) {
  // Rule 4: a MoE that does not fit with EP 1 gets more EP before any TP or PP.
  const Fixture f(test::qwen3_30b_a3b(), test::h100());
  const Resized r = f.run(recipe(layout(1, 1, 1, 1), 16, 4096, 256), cluster(16));
  ASSERT_FALSE(r.changes.empty());
  const auto first_memory = std::find_if(r.changes.begin(), r.changes.end(),
                                         [](const Change& c) { return c.reason.find("does not fit") != std::string::npos; });
  ASSERT_NE(first_memory, r.changes.end());
  EXPECT_EQ(first_memory->field, "ep") << first_memory->text();
  EXPECT_NE(first_memory->rule.find("rule 4"), std::string::npos);
  EXPECT_TRUE(r.fits());
  expect_consistent(f, r, 16);
}

TEST(Resize, OutOfMemoryRaisesTpBeforePp) {
  // Rule 3: a dense 70B on 16 GPUs at TP 1 does not fit; TP goes up (to the node) before PP.
  const Fixture f(test::llama3_70b(), test::h100());
  const Resized r = f.run(recipe(layout(1, 1, 1), 16, 4096, 64), cluster(16));
  const auto tp = std::find_if(r.changes.begin(), r.changes.end(), [](const Change& c) { return c.field == "tp"; });
  const auto pp = std::find_if(r.changes.begin(), r.changes.end(), [](const Change& c) { return c.field == "pp"; });
  ASSERT_NE(tp, r.changes.end());
  if (pp != r.changes.end()) {
    EXPECT_LT(tp - r.changes.begin(), pp - r.changes.begin());
  }
  if (r.layout.pp > 1) {
    EXPECT_EQ(r.layout.tp, 8) << "PP only once TP is at the node";
    EXPECT_GT(r.layout.vp, 1) << "PP > 1 comes with VP (rule 3)";
  }
  expect_consistent(f, r, 16);
}

TEST(Resize, OutOfMemoryReducesMicroBatchFirst) {
  // Batch advice: "Start with the recipe's micro_batch_size. If OOM, reduce to 1."
  const Fixture f(test::llama3_8b(), test::h100());
  const Resized r = f.run(recipe(layout(1, 1, 1, 1, 1, 16), 8, 8192, 512), cluster(8));
  ASSERT_FALSE(r.changes.empty());
  EXPECT_EQ(r.changes.front().field, "mbs") << r.changes.front().text();
  EXPECT_EQ(r.changes.front().to, "1");
  expect_consistent(f, r, 8);
}

TEST(Resize, GlobalBatchBecomesAMultipleOfMbsTimesDp) {
  const Fixture f(test::llama3_8b(), test::h100());
  const Resized r = f.run(recipe(layout(1, 1, 1), 8, 4096, 100), cluster(24));
  EXPECT_EQ(r.workload.gbs % 24, 0);
  const Change* gbs = find_change(r, "gbs");
  ASSERT_NE(gbs, nullptr);
  EXPECT_EQ(gbs->from, "100");
  EXPECT_EQ(gbs->to, "96");
  expect_consistent(f, r, 24);
}

TEST(Resize, UnsupportedPrecisionFallsBack) {
  const Fixture f(test::llama3_8b(), test::h100());
  ResizeTo to = cluster(8);
  to.precision = Precision::kMxfp8;
  Layout l = layout(1, 1, 1);
  const Resized r = f.run(recipe(l, 8, 4096, 128), to);
  EXPECT_EQ(r.layout.precision, Precision::kFp8Cs) << "H100 has FP8 but not MXFP8";
  ResizeTo a100_to = cluster(8);
  a100_to.precision = Precision::kFp8Cs;
  const Fixture a(test::llama3_8b(), test::a100());
  EXPECT_EQ(a.run(recipe(l, 8, 4096, 128), a100_to).layout.precision, Precision::kBf16);
}

TEST(Resize, UnknownLayoutStartsFromOne) {
  const Fixture f(test::llama3_70b(), test::h100());
  ResizeFrom from = recipe(layout(4, 4, 1), 32, 4096, 64);
  from.layout_known = false;
  const Resized r = f.run(from, cluster(32));
  EXPECT_FALSE(r.notes.empty());
  EXPECT_TRUE(r.fits()) << "the memory steps size it from TP1 PP1";
  expect_consistent(f, r, 32);
}

TEST(Resize, BorrowedFeaturesFitTheModel) {
  // A Qwen3.5 recipe's gdn_norm_out and moe_act recompute modules mean nothing for a dense Llama.
  const Fixture f(test::llama3_8b(), test::h100());
  Layout l = layout(1, 1, 1);
  l.recompute = Recompute::kSelective;
  l.recompute_modules = kRcCoreAttn | kRcGdnNormOut | kRcMoeAct;
  const Resized r = f.run(recipe(l, 8, 4096, 128), cluster(8));
  EXPECT_EQ(r.layout.recompute_modules, static_cast<uint32_t>(kRcCoreAttn));
  const Change* rc = find_change(r, "recompute");
  ASSERT_NE(rc, nullptr);
  EXPECT_EQ(rc->rule, "RB-RECOMPUTE-MODULE");
}

TEST(Resize, ConsistentOverManyClusters) {
  const Fixture dense(test::llama3_70b(), test::h100());
  const Fixture moe(test::qwen3_30b_a3b(), test::h100());
  for (int gpus : {1, 2, 4, 6, 8, 12, 16, 24, 32, 64, 128}) {
    for (const Fixture* f : {&dense, &moe}) {
      const Layout l = f == &dense ? layout(4, 4, 2, 1, 5) : layout(1, 1, 1, 8);
      const Resized r = f->run(recipe(l, 32, 8192, 256), cluster(gpus));
      SCOPED_TRACE(f->model.name + " on " + std::to_string(gpus));
      expect_consistent(*f, r, gpus);
    }
  }
}

TEST(Resize, Helpers) {
  EXPECT_EQ(round_batch(100, 8), 96);
  EXPECT_EQ(round_batch(512, 12), 516);
  EXPECT_EQ(round_batch(3, 8), 8);
  EXPECT_EQ(round_batch(64, 8), 64);
  const Model m = test::llama3_70b();  // 80 layers: PP 4 -> VP 5 gives 4-layer chunks
  const PreparedRuleModel prm = prepare_rule_model(m, nullptr);
  EXPECT_EQ(choose_vp(prm, 4), 5);
  EXPECT_EQ(choose_vp(prm, 1), 1);
  EXPECT_EQ(nvlink_limit(test::h100(), 0), 8);
  EXPECT_EQ(nvlink_limit(test::h100(), 4), 4);
  EXPECT_EQ(nvlink_limit(test::gb200(), 0), 72);
  EXPECT_FALSE(precision_supported(test::h100(), Precision::kNvfp4));
  EXPECT_TRUE(precision_supported(test::b200(), Precision::kNvfp4));
  // 94 layers over PP 8 x VP 4: no first/last split, but the embedding/loss accounting that
  // Megatron-Bridge's Qwen3-235B-A22B recipes set (96 = 8 x 4 x 3).
  Layout l = layout(1, 8, 1, 1, 4);
  const Layout mod = modelled_layout(94, l);
  EXPECT_EQ(mod.vp, 4);
  EXPECT_EQ(mod.first_stage_layers, 0);
  EXPECT_TRUE(mod.account_for_embedding);
  EXPECT_TRUE(mod.account_for_loss);
  // 94 over PP 8 x VP 5: neither fits at VP 5 (96 and 95 are not multiples of 40); VP 4's
  // accounting, as balanced as any lower VP (12 layers on the fullest rank), is the first met.
  const Layout mod5 = modelled_layout(94, layout(1, 8, 1, 1, 5));
  EXPECT_EQ(mod5.vp, 4);
  EXPECT_TRUE(mod5.account_for_loss);
  // 90 over PP 8 x VP 4: no accounting (92 and 91 are not multiples of 32) and no first/last
  // counts (90 is not a multiple of 4); VP 3's first/last counts 9 + 6 x 12 + 9.
  const Layout mod90 = modelled_layout(90, layout(1, 8, 1, 1, 4));
  EXPECT_EQ(mod90.vp, 3);
  EXPECT_EQ(mod90.first_stage_layers, 9);
  EXPECT_EQ(mod90.last_stage_layers, 9);
  EXPECT_FALSE(mod90.account_for_embedding || mod90.account_for_loss);
}

// Kimi-K2's recipes give 61 layers over PP 16 as an explicit layout: modelled_layout used to add a
// first/last split over it, which RB-PP-LAYERS refuses (a layout with first/last counts).
TEST(Resize, ModelledLayoutKeepsAnExplicitPipelineLayout) {
  Layout l = layout(1, 16, 1, 16, 1);
  auto stages = parse_pipeline_layout("Et*4|(t*4|)*14tL");
  ASSERT_TRUE(stages);
  l.pipeline_layout = *stages;
  const Layout mod = modelled_layout(61, l);
  EXPECT_EQ(mod.first_stage_layers, 0);
  EXPECT_EQ(mod.last_stage_layers, 0);
  EXPECT_EQ(mod.vp, 1);
  EXPECT_EQ(mod.pipeline_layout.size(), l.pipeline_layout.size());
}

TEST(Resize, ChangeText) {
  const Change c{"tp", "8", "4", "the cluster has 4 GPUs per node and TP should stay inside NVLink", "seed 004 rule 2"};
  EXPECT_EQ(c.text(), "TP 8 -> 4: the cluster has 4 GPUs per node and TP should stay inside NVLink (seed 004 rule 2)");
}

}  // namespace
}  // namespace rb
