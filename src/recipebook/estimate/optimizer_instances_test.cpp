// Layout::distributed_optimizer_instances: Megatron-Core's partial distributed optimizer (state sharded
// inside each instance) and, under Megatron-FSDP, HSDP (weights and gradients sharded inside an
// instance, the optimizer over all of DP, one cross-instance reduction per step). Before, the field
// did not exist and HSDP was priced as FSDP over all of DP: every micro-batch's gathers crossed the
// nodes (DeepSeek-V3's 128 x GB300 HSDP recipe ranked 617th in its own plan).
#include <gtest/gtest.h>

#include "recipebook/estimate/estimate.hpp"
#include "recipebook/estimate/memory_test_util.hpp"
#include "recipebook/estimate/test_hardware.hpp"
#include "recipebook/estimate/test_step.hpp"

namespace rb {
namespace {

MemoryBreakdown rank0_memory(const PreparedModel& pm, const Hardware& hw, const Layout& l) {
  const StagePlan plan = plan_stages(pm.num_layers, l);
  return rank_memory(test::memory_inputs(pm, hw, 4096, 8), l, plan, 0);
}

// Llama-3-8B on 128 H100 (16 nodes of 8), DP 128.
Layout dp128(bool fsdp, int instances) {
  Layout l;
  l.dp = 128;
  l.fsdp = fsdp;
  l.distributed_optimizer_instances = instances;
  return l;
}

TEST(OptimizerInstances, ThePartialDistributedOptimizerShardsTheStateInsideAnInstance) {
  const PreparedModel pm = prepare(test::llama3_8b());
  const Hardware hw = test::h100();
  const MemoryBreakdown one = rank0_memory(pm, hw, dp128(false, 1));
  const MemoryBreakdown sixteen = rank0_memory(pm, hw, dp128(false, 16));
  EXPECT_NEAR(sixteen.optimizer_bytes, 16.0 * one.optimizer_bytes, 1.0);  // sharded over 8 ranks, not 128
  EXPECT_DOUBLE_EQ(sixteen.weights_bytes, one.weights_bytes);
  EXPECT_DOUBLE_EQ(sixteen.grads_bytes, one.grads_bytes);
}

TEST(OptimizerInstances, HsdpShardsWeightsAndGradsInsideAnInstanceAndTheOptimizerOverAllOfDp) {
  const PreparedModel pm = prepare(test::llama3_8b());
  const Hardware hw = test::h100();
  const MemoryBreakdown fsdp = rank0_memory(pm, hw, dp128(true, 1));
  const MemoryBreakdown hsdp = rank0_memory(pm, hw, dp128(true, 16));
  EXPECT_NEAR(hsdp.weights_bytes, 16.0 * fsdp.weights_bytes, 1.0);
  EXPECT_NEAR(hsdp.grads_bytes, 16.0 * fsdp.grads_bytes, 1.0);
  EXPECT_DOUBLE_EQ(hsdp.optimizer_bytes, fsdp.optimizer_bytes);
}

// FSDP over 128 ranks gathers every layer across 16 nodes each micro-batch; HSDP with one instance
// per node gathers over NVLink and crosses the nodes once per step: its DP time is lower.
TEST(OptimizerInstances, HsdpKeepsTheMicroBatchGathersInsideTheNode) {
  const PreparedModel pm = prepare(test::llama3_8b());
  const Hardware hw = test::h100();
  const TimeBreakdown fsdp = test::run(pm, hw, dp128(true, 1), 4096, 8);
  const TimeBreakdown hsdp = test::run(pm, hw, dp128(true, 16), 4096, 8);
  EXPECT_GT(fsdp.dp_comm_s, 0.0);
  EXPECT_LT(hsdp.dp_comm_s, fsdp.dp_comm_s);
  // The cross-instance reduction is there: more than with every rank in one node.
  Layout node;
  node.dp = 8;
  node.fsdp = true;
  EXPECT_GE(hsdp.dp_comm_s, test::run(pm, hw, node, 4096, 8).dp_comm_s);
}

TEST(OptimizerInstances, InstancesThatDoNotDivideDpAreRefused) {
  const PreparedModel pm = prepare(test::llama3_8b());
  const Hardware hw = test::h100();
  Workload w;
  w.seq = 4096;
  w.gbs = 1024;
  Cluster c;
  c.gpus = 128;
  EXPECT_TRUE(estimate(pm, hw, w, c, dp128(true, 16)).valid);
  const Estimate bad = estimate(pm, hw, w, c, dp128(true, 3));
  EXPECT_FALSE(bad.valid);
  EXPECT_EQ(bad.reason, InvalidReason::kOptimizerInstances);
}

}  // namespace
}  // namespace rb
