// The planner's host offload (search/offload.hpp): only layouts that do not fit are offloaded.
#include "recipebook/search/offload.hpp"

#include <gtest/gtest.h>

#include "recipebook/search/advice.hpp"

#include "recipebook/estimate/test_hardware.hpp"
#include "recipebook/estimate/test_models.hpp"
#include "recipebook/search/test_plan.hpp"

namespace rb {
namespace {

using test::PlanSetup;
using test::request;

Hardware h100_with_host() {
  Hardware hw = test::h100();
  hw.host_link_bytes_per_s = 64e9;  // PCIe Gen5 x16, one direction (catalog/hardware/h100.yaml)
  hw.host_memory_bytes = 2e12;      // DGX H100
  hw.host_memory_bytes_per_s = 614.4e9;
  return hw;
}

bool offloaded(const Layout& l) { return l.optimizer_offload_fraction > 0 || l.offload_modules != 0; }

// Llama-3-70B full fine-tuning on one 8 x H100 node: 12 B of Adam state per parameter do not fit
// next to the weights and gradients (105 GiB of state per GPU at DP 1), so nothing fits on the GPU.
TEST(PlanOffload, AFullFineTuneThatDoesNotFitGetsAnOffloadedLayout) {
  PlanRequest req = request(8, 4096, 32);
  req.workload.mode = Mode::kSft;
  {
    const PlanSetup bare(test::llama3_70b(), test::h100());  // no host figures: no offload
    auto r = plan(bare.inputs(), req);
    ASSERT_TRUE(r.has_value());
    ASSERT_TRUE(r->top.empty()) << "the premise: nothing fits without offload";
    EXPECT_EQ(r->counts.offloaded, 0u);
  }
  const PlanSetup s(test::llama3_70b(), h100_with_host());
  auto r = plan(s.inputs(), req);
  ASSERT_TRUE(r.has_value());
  ASSERT_FALSE(r->top.empty());
  EXPECT_EQ(r->counts.fit, 0u);
  EXPECT_GT(r->counts.offloaded, 0u);
  EXPECT_LE(r->counts.offloaded, r->counts.memory);
  for (const Candidate& c : r->top) {
    EXPECT_TRUE(offloaded(c.layout));
    EXPECT_TRUE(c.estimate.fits());
    // The node's host memory holds what is offloaded, and the step pays the transfers.
    EXPECT_GT(c.estimate.memory.host_node_bytes, 0);
    EXPECT_LE(c.estimate.memory.host_node_bytes, kHostUsableFraction * s.hw.host_memory_bytes);
    EXPECT_GT(c.estimate.time.offload_s, 0);
    EXPECT_NEAR(c.estimate.time.sum(), c.estimate.step_time_s, 1e-9 * c.estimate.step_time_s);
  }
  // Ranked by their real step time: the first is the fastest.
  for (size_t i = 1; i < r->top.size(); ++i)
    EXPECT_GE(r->top[i - 1].estimate.tokens_per_s_per_gpu, r->top[i].estimate.tokens_per_s_per_gpu);

  // With too little host memory, offload cannot help either.
  Hardware small = h100_with_host();
  small.host_memory_bytes = 0.2e12;
  const PlanSetup tiny(test::llama3_70b(), small);
  auto none = plan(tiny.inputs(), req);
  ASSERT_TRUE(none.has_value());
  for (const Candidate& c : none->top) EXPECT_LE(c.estimate.memory.host_node_bytes, kHostUsableFraction * 0.2e12);
}

// When every layout that fits needs host offload, plan still says what would fit on the GPU alone
// (the advice an infeasible plan gets, searched with offload off). Before, a plan with offloaded
// layouts got no advice, and a relaxed search would have offloaded again.
TEST(PlanOffload, AdviceSaysWhatFitsWithoutOffload) {
  PlanRequest req = request(8, 4096, 32);
  req.workload.mode = Mode::kSft;
  const PlanSetup s(test::llama3_70b(), h100_with_host());
  auto r = plan(s.inputs(), req);
  ASSERT_TRUE(r.has_value());
  ASSERT_FALSE(r->top.empty());
  ASSERT_EQ(r->counts.fit, 0u) << "the premise: everything that fits is offloaded";
  ASSERT_TRUE(wants_advice(*r));
  const PlanAdvice a = advise(s.inputs(), req, *r);
  EXPECT_TRUE(a.without_offload);
  ASSERT_FALSE(a.relaxations.empty());
  const Relaxation& more = a.relaxations.back();
  EXPECT_NE(more.change.find("GPUs"), std::string::npos) << more.change;
  ASSERT_TRUE(more.best.has_value());
  EXPECT_FALSE(offloaded(more.best->layout));
  EXPECT_GT(more.best->gpus, 8);
  // A plan that fits without offload wants no advice.
  const PlanSetup small(test::llama3_8b(), h100_with_host());
  auto fits = plan(small.inputs(), request(8, 4096, 64));
  ASSERT_TRUE(fits.has_value());
  EXPECT_FALSE(wants_advice(*fits));
}

// A plan that fits without offload is the same whether the node has host figures or not, even
// where an offloaded variant of a layout that does not fit would be modelled faster.
TEST(PlanOffload, PlansThatFitAreUnchanged) {
  const PlanRequest req = request(8, 4096, 64);
  const PlanSetup bare(test::llama3_8b(), test::h100());
  const PlanSetup host(test::llama3_8b(), h100_with_host());
  auto a = plan(bare.inputs(), req);
  auto b = plan(host.inputs(), req);
  ASSERT_TRUE(a.has_value());
  ASSERT_TRUE(b.has_value());
  ASSERT_FALSE(a->top.empty());
  ASSERT_FALSE(b->top.empty());
  for (size_t i = 0; i < a->top.size() && i < b->top.size(); ++i) {
    EXPECT_EQ(a->top[i].key, b->top[i].key);
    EXPECT_EQ(a->top[i].score, b->top[i].score);
  }
  EXPECT_FALSE(offloaded(b->top.front().layout));
  EXPECT_EQ(b->counts.offloaded, 0u);
  // Searched with offload for every layout that does not fit, the same space ranks offloaded ones.
  PlanRequest always = req;
  always.offload = OffloadSearch::kAlways;
  auto c = plan(host.inputs(), always);
  ASSERT_TRUE(c.has_value());
  EXPECT_GT(c->counts.offloaded, 0u);
}

TEST(PlanOffload, VariantsRespectModeAndRecompute) {
  Layout l;
  // Pretraining a dense model: optimizer half and all, activations, both.
  const auto dense = offload_variants(l, Mode::kPretrain, false);
  ASSERT_EQ(dense.size(), 4u);
  EXPECT_EQ(dense[0].optimizer_offload_fraction, 0.5);
  EXPECT_EQ(dense[2].offload_modules & (kOfExpertFc1 | kOfMoeAct), 0u);
  // MoE: the expert modules too, unless 'moe' recompute wraps them (Megatron refuses that).
  EXPECT_NE(offload_variants(l, Mode::kPretrain, true)[2].offload_modules & kOfExpertFc1, 0u);
  Layout moe_rc = l;
  moe_rc.recompute = Recompute::kSelective;
  moe_rc.recompute_modules = kRcMoe;
  EXPECT_EQ(offload_variants(moe_rc, Mode::kPretrain, true)[2].offload_modules & kOfExpertFc1, 0u);
  // LoRA: no optimizer offload; full recompute: no activation offload.
  for (const Layout& v : offload_variants(l, Mode::kPeft, false)) EXPECT_EQ(v.optimizer_offload_fraction, 0);
  Layout full = l;
  full.recompute = Recompute::kFull;
  for (const Layout& v : offload_variants(full, Mode::kPretrain, false)) EXPECT_EQ(v.offload_modules, 0u);
}

}  // namespace
}  // namespace rb
