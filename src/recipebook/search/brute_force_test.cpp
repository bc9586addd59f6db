// The pruned search against brute force (search/brute_force.hpp) on random small spaces: the same
// counts (per rule, memory, estimator, fit), the same top-k, Pareto front, best layout per GPU count
// and closest non-fitting layouts, for any model kind, GPU, workload, fixed degrees and thread count.
#include "recipebook/search/brute_force.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <memory>

#include "recipebook/estimate/test_hardware.hpp"
#include "recipebook/estimate/test_models.hpp"
#include "recipebook/search/test_plan.hpp"

namespace rb {
namespace {

using test::PlanSetup;

// Small models of every kind the rules distinguish: dense GQA, MoE, MoE with expert biases (ETP 1),
// Mamba hybrid, Gated DeltaNet hybrid, MLA + MoE, few heads.
std::vector<Model> small_models() {
  Model ds = test::deepseek_v3();
  ds.layers.resize(10);  // keep MLA, the dense first layers and MoE; fewer layers, smaller spaces
  ds.mtp_layers = 0;
  return {test::qwen3_0_6b(),    test::llama3_8b(), test::qwen3_30b_a3b(), test::gpt_oss_20b(),
          test::nemotron_h_8b(), test::qwen35_9b(), test::gemma3_4b(),     ds};
}

std::vector<Hardware> gpus() { return {test::h100(), test::b200(), test::gb200(), test::a100()}; }

// Restricts the request until its space is small enough for brute force in a debug build.
void shrink(const Model& m, PlanRequest& req, uint64_t limit) {
  auto size = [&] {
    const Space sp(m, req);
    uint64_t n = 0;
    for (int g : req.gpu_counts) n += sp.size(g);
    return n;
  };
  int step = 0;
  while (size() > limit && step < 8) {
    switch (step++) {
      case 0:
        req.fixed.max_mbs = std::min(req.fixed.max_mbs, 2);
        break;
      case 1:
        if (req.fixed.values("vp").empty()) req.fixed.fix("vp", 2);
        break;
      case 2:
        if (req.fixed.values("dispatcher").empty()) req.fixed.fix("dispatcher", static_cast<SearchValue>(Dispatcher::kFlexDeepep));
        break;
      case 3:
        if (req.fixed.values("recompute").empty())
          req.fixed.allow("recompute", {recompute_value(Recompute::kNone, 0), recompute_value(Recompute::kFull, 0)});
        break;
      case 4:
        if (req.fixed.values("precision").size() > 1) req.fixed.fix("precision", req.fixed.values("precision").front());
        break;
      case 5:
        if (req.fixed.values("fsdp").empty()) req.fixed.fix("fsdp", 1);
        break;
      case 6:
        if (req.fixed.values("ep").empty() && m.is_moe()) req.fixed.fix("ep", 4);
        break;
      default:
        req.gpu_counts.resize(1);
        break;
    }
  }
}

PlanRequest random_request(const Model& model) {
  PlanRequest req;
  req.gpu_counts = {*rc::gen::oneOf(rc::gen::element(1, 2, 4, 6, 8, 12, 16, 24), rc::gen::inRange(1, 25))};
  if (*rc::gen::element(0, 0, 1) == 1) req.gpu_counts.push_back(req.gpu_counts.front() + *rc::gen::inRange(1, 9));
  req.workload.mode = *rc::gen::element(Mode::kPretrain, Mode::kSft, Mode::kPeft);
  req.workload.seq = *rc::gen::element<int64_t>(512, 1024, 3072, 4096, 4096, 6000);
  req.workload.gbs = *rc::gen::element<int64_t>(1, 16, 24, 32, 48, 64, 96, 100, 128, 256);
  req.workload.tokens_budget = *rc::gen::element(0.0, 1e12);
  req.fixed.max_mbs = *rc::gen::inRange(1, 5);
  using V = SearchValue;
  req.fixed.allow("precision", *rc::gen::element(std::vector<V>{}, std::vector<V>{V(Precision::kFp8Cs)},
                                                 std::vector<V>{V(Precision::kBf16), V(Precision::kFp8Ds)},
                                                 std::vector<V>{V(Precision::kMxfp8), V(Precision::kBf16)}));
  auto maybe = [](int value) { return *rc::gen::element(0, 0, 0, 0, 0, 0, 0, value); };
  auto fix = [&](std::string_view key, int value) {
    if (value > 0) req.fixed.fix(key, value);
  };
  fix("tp", maybe(*rc::gen::element(1, 2, 3, 4)));
  fix("cp", maybe(*rc::gen::element(1, 2)));
  fix("pp", maybe(*rc::gen::element(1, 2, 3)));
  fix("vp", maybe(*rc::gen::element(1, 2, 3)));
  fix("ep", maybe(*rc::gen::element(1, 2, 4, 3)));
  fix("etp", maybe(*rc::gen::element(1, 2)));
  req.fixed.dp = maybe(*rc::gen::element(1, 2, 4));
  fix("mbs", maybe(*rc::gen::element(1, 2, 3)));
  if (*rc::gen::element(0, 0, 0, 1) == 1) req.fixed.fix("fsdp", *rc::gen::arbitrary<bool>() ? 1 : 0);
  if (*rc::gen::element(0, 0, 0, 1) == 1)
    req.fixed.fix("dispatcher", V(*rc::gen::element(Dispatcher::kAlltoall, Dispatcher::kFlexDeepep,
                                                     Dispatcher::kFlexHybridep)));
  if (*rc::gen::element(0, 0, 0, 1) == 1)
    req.fixed.allow("recompute", {recompute_value(Recompute::kSelective, kRcMoeAct | kRcCoreAttn),
                                  recompute_value(Recompute::kFull, 0)});
  req.objective = *rc::gen::element(Objective::kThroughput, Objective::kCost, Objective::kTime);
  req.top_k = *rc::gen::inRange(1, 7);
  req.threads = *rc::gen::inRange(1, 4);
  shrink(model, req, 20000);
  return req;
}

// A GPU memory that puts the fit boundary inside the space: between the smallest peak of any
// rule-valid layout and a little above the peak of the fastest one (found with unlimited memory).
double straddling_memory(const Model& model, const Hardware& hw, const PlanRequest& req) {
  Hardware big = hw;
  big.memory_bytes = 1e18;
  const PlanSetup probe(model, big);
  PlanRequest r = req;
  r.top_k = 1;
  auto res = plan(probe.inputs(), r);
  if (!res || res->top.empty()) return hw.memory_bytes;
  double lo = res->top.front().estimate.memory.worst.peak_bytes;
  for (const Candidate& c : res->pareto) lo = std::min(lo, c.estimate.memory.worst.peak_bytes);
  const double hi = 1.3 * res->top.front().estimate.memory.worst.peak_bytes;
  return lo + (hi - lo) * *rc::gen::inRange(0, 101) / 100.0;
}

RC_GTEST_PROP(BruteForce, PrunedSearchReturnsWhatBruteForceReturns, ()) {
  static const std::vector<Model> models = small_models();
  static const std::vector<Hardware> hws = gpus();
  const Model& model = models[*rc::gen::inRange<size_t>(0, models.size())];
  Hardware hw = hws[*rc::gen::inRange<size_t>(0, hws.size())];
  PlanRequest req = random_request(model);
  // A headroom (--headroom) moves the boundary by its size: the memory grows by as much, so the
  // boundary stays inside the space while fits = peak <= memory - headroom is what both walks use.
  hw.headroom_fixed_bytes = *rc::gen::element(0.0, 1.0, 4.0) * 1024.0 * 1024.0 * 1024.0;
  hw.memory_bytes = straddling_memory(model, hw, req) + hw.headroom_fixed_bytes;
  // Half the time the node has host figures, so layouts that do not fit are tried with host offload.
  if (*rc::gen::arbitrary<bool>()) {
    hw.host_link_bytes_per_s = 64e9;
    hw.host_memory_bytes = *rc::gen::element(0.2e12, 2e12);
    hw.host_memory_bytes_per_s = 614.4e9;
    // kAlways offloads every layout that does not fit, also where others fit: both walks must agree.
    req.offload = *rc::gen::element(OffloadSearch::kWhenNothingFits, OffloadSearch::kAlways);
  }
  const PlanSetup s(model, hw);

  auto pruned = plan(s.inputs(), req);
  auto brute = plan_brute_force(s.inputs(), req);
  RC_ASSERT(pruned.has_value());
  RC_ASSERT(brute.has_value());
  const auto same = test::same_result(*pruned, *brute);
  if (!same) RC_FAIL(model.name + " on " + hw.name + ": " + same.message());
  RC_ASSERT(pruned->counts.estimates <= brute->counts.estimates);
  const PlanCounts& c = pruned->counts;
  RC_TAG(c.fit > 0 ? "some fit" : "none fit");
  RC_TAG(c.memory > 0 ? "some too big" : c.rules == c.seen ? "rules reject all" : "none too big");
  RC_TAG(c.memory_inferred > 0 ? "memory inferred" : "no memory inference");
  RC_TAG(c.offloaded > 0 ? "some fit with offload" : "none offloaded");
}

// One named case, so a failure has a reproducible example without the generator.
TEST(BruteForce, Qwen3MoeOn8Gpus) {
  const PlanSetup s(test::qwen3_30b_a3b(), test::h100());
  PlanRequest req = test::request(8, 4096, 64);
  req.fixed.max_mbs = 3;
  req.fixed.fix("vp", 1);
  req.top_k = 4;
  auto pruned = plan(s.inputs(), req);
  auto brute = plan_brute_force(s.inputs(), req);
  ASSERT_TRUE(pruned && brute);
  EXPECT_TRUE(test::same_result(*pruned, *brute));
  EXPECT_GT(pruned->counts.fit, 0u);
  EXPECT_GT(pruned->counts.memory, 0u);
  EXPECT_LT(pruned->counts.estimates, brute->counts.estimates);
}

// Fields plan fixes (core/layout_fields.hpp PlanRole::kFixed) are in every layout both walks see,
// and the rules that read them prune the same: CUDA graphs with a scope, the EP overlap, TP overlap.
TEST(BruteForce, FixedFeaturesPruneAsBruteForce) {
  const PlanSetup s(test::qwen3_30b_a3b(), test::h100());
  PlanRequest req = test::request(8, 4096, 64);
  req.fixed.max_mbs = 3;
  req.fixed.fix("vp", 1);
  req.top_k = 4;
  req.fixed.base.cuda_graph = CudaGraph::kTransformerEngine;
  req.fixed.base.cuda_graph_scope = kCgAttn | kCgMoeRouter;
  req.fixed.base.ep_a2a_overlap = true;
  req.fixed.base.tp_comm_overlap = true;
  auto pruned = plan(s.inputs(), req);
  auto brute = plan_brute_force(s.inputs(), req);
  ASSERT_TRUE(pruned && brute);
  EXPECT_TRUE(test::same_result(*pruned, *brute));
  ASSERT_FALSE(pruned->top.empty());
  for (const Candidate& c : pruned->top) {
    EXPECT_EQ(c.layout.cuda_graph, CudaGraph::kTransformerEngine);
    EXPECT_TRUE(c.layout.ep_a2a_overlap);
  }
  // The same search without them ranks other figures.
  PlanRequest plain = req;
  plain.fixed.base = Layout{};
  auto without = plan(s.inputs(), plain);
  ASSERT_TRUE(without && !without->top.empty());
  EXPECT_NE(without->top.front().estimate.tokens_per_s_per_gpu, pruned->top.front().estimate.tokens_per_s_per_gpu);
}

}  // namespace
}  // namespace rb
