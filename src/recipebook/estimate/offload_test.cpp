// Host offload (docs/model.md "Offload"): optimizer CPU offload and fine-grained activation
// offloading in memory, host memory and time.
#include <gtest/gtest.h>

#include "recipebook/estimate/estimate.hpp"
#include "recipebook/estimate/test_hardware.hpp"
#include "recipebook/estimate/test_models.hpp"

namespace rb {
namespace {

// An HGX H100 node's host side as the catalog has it (catalog/hardware/h100.yaml `host:`).
Hardware h100_with_host() {
  Hardware hw = test::h100();
  hw.host_link_bytes_per_s = 64e9;
  hw.host_memory_bytes = 2e12;
  hw.host_memory_bytes_per_s = 614.4e9;
  return hw;
}

Estimate run(const PreparedModel& pm, const Hardware& hw, const Layout& l, int gpus, int64_t seq, int64_t gbs) {
  Workload w;
  w.seq = seq;
  w.gbs = gbs;
  return estimate(pm, hw, w, Cluster{gpus, 8}, l);
}

Layout tp_dp(int tp, int gpus) {
  Layout l;
  l.tp = tp;
  l.sp = tp > 1;
  l.dp = gpus / tp;
  return l;
}

void expect_parts_add_up(const Estimate& e) {
  EXPECT_NEAR(e.time.sum(), e.step_time_s, 1e-9 * e.step_time_s);
  EXPECT_NEAR(e.memory.worst.sum(), e.memory.worst.peak_bytes, 1e-9 * e.memory.worst.peak_bytes);
}

TEST(Offload, OptimizerStateMovesToTheHostAndItsStepToTheCpu) {
  const PreparedModel pm = prepare(test::llama3_70b());
  const Hardware hw = h100_with_host();
  Layout l = tp_dp(8, 8);
  const Estimate base = run(pm, hw, l, 8, 4096, 16);
  ASSERT_TRUE(base.valid);
  ASSERT_GT(base.memory.worst.optimizer_bytes, 0);
  EXPECT_EQ(base.memory.host_node_bytes, 0);
  EXPECT_EQ(base.time.offload_s, 0);

  l.optimizer_offload_fraction = 1.0;
  const Estimate all = run(pm, hw, l, 8, 4096, 16);
  ASSERT_TRUE(all.valid);
  EXPECT_EQ(all.memory.worst.optimizer_bytes, 0);
  // 12 B of fp32 Adam state per parameter on the GPU become 18 B on the host.
  EXPECT_NEAR(all.memory.worst.host_optimizer_bytes, base.memory.worst.optimizer_bytes / 12.0 * kHostOptimizerBytesPerParam,
              1.0);
  EXPECT_NEAR(all.memory.host_node_bytes, 8 * all.memory.worst.host_bytes(), 1.0);
  EXPECT_LT(all.memory.worst.peak_bytes, base.memory.worst.peak_bytes - base.memory.worst.optimizer_bytes);
  EXPECT_TRUE(all.memory.host_fits);
  // The step moves the state's gradients and parameters over PCIe and steps on the CPU.
  EXPECT_GT(all.time.offload_s, 0);
  EXPECT_LT(all.time.optimizer_s, base.time.optimizer_s);
  EXPECT_GT(all.step_time_s, base.step_time_s);
  expect_parts_add_up(all);

  l.optimizer_offload_fraction = 0.5;
  const Estimate half = run(pm, hw, l, 8, 4096, 16);
  EXPECT_NEAR(half.memory.worst.optimizer_bytes, base.memory.worst.optimizer_bytes / 2, 1.0);
  EXPECT_NEAR(half.memory.worst.host_optimizer_bytes, all.memory.worst.host_optimizer_bytes / 2, 1.0);
  EXPECT_NEAR(half.time.offload_s, all.time.offload_s / 2, 1e-9);
}

TEST(Offload, OptimizerTimeIsTheSlowestOfCopyOutCpuStepAndCopyBack) {
  Hardware hw = h100_with_host();
  Layout l;
  l.optimizer_offload_fraction = 1.0;
  const OffloadTime t = offload_time(hw, l, 8, 1e9, 0, 1.0);
  EXPECT_GT(t.optimizer_d2h_s, 0);
  EXPECT_GT(t.optimizer_h2d_s, 0);
  // Eight GPUs share one host's memory bandwidth: on an HGX node the CPU step is the slowest part.
  EXPECT_GT(t.optimizer_cpu_s, t.optimizer_d2h_s);
  EXPECT_DOUBLE_EQ(t.optimizer_s, std::max({t.optimizer_d2h_s, t.optimizer_cpu_s, t.optimizer_h2d_s}));
  // Twice the host bandwidth halves the CPU step; the copies depend on the link alone.
  hw.host_memory_bytes_per_s *= 2;
  const OffloadTime fast = offload_time(hw, l, 8, 1e9, 0, 1.0);
  EXPECT_NEAR(fast.optimizer_cpu_s, t.optimizer_cpu_s / 2, 1e-12);
  EXPECT_DOUBLE_EQ(fast.optimizer_d2h_s, t.optimizer_d2h_s);
  // No host figures: nothing is estimated (and the layout does not fit, below).
  hw.host_link_bytes_per_s = 0;
  EXPECT_EQ(offload_time(hw, l, 8, 1e9, 1e9, 1.0).optimizer_s, 0);
}

TEST(Offload, ActivationsMoveToTheHostAndOnlyUnhiddenCopiesCost) {
  const PreparedModel pm = prepare(test::llama3_8b());
  Hardware hw = h100_with_host();
  Layout l = tp_dp(1, 8);
  const Estimate base = run(pm, hw, l, 8, 8192, 64);
  ASSERT_TRUE(base.valid);
  l.offload_modules = kOfAttnNorm | kOfQkvLinear | kOfCoreAttn | kOfAttnProj | kOfMlpNorm;
  const Estimate off = run(pm, hw, l, 8, 8192, 64);
  ASSERT_TRUE(off.valid);
  EXPECT_LT(off.memory.worst.activations_bytes, base.memory.worst.activations_bytes);
  EXPECT_GT(off.memory.worst.host_activations_bytes, 0);
  // What leaves the GPU is on the host, less the two layers' reload buffers the GPU keeps.
  EXPECT_LE(base.memory.worst.activations_bytes - off.memory.worst.activations_bytes,
            off.memory.worst.host_activations_bytes);
  expect_parts_add_up(off);

  // Half the groups: about half the bytes.
  l.activation_offload_fraction = 0.5;
  const Estimate half = run(pm, hw, l, 8, 8192, 64);
  EXPECT_NEAR(half.memory.worst.host_activations_bytes, off.memory.worst.host_activations_bytes / 2, 1.0);
  l.activation_offload_fraction = 1.0;

  // A link that keeps up with compute hides the copies; a slow one does not.
  hw.host_link_bytes_per_s = 1e15;
  EXPECT_EQ(run(pm, hw, l, 8, 8192, 64).time.offload_s, 0);
  hw.host_link_bytes_per_s = 1e9;
  const Estimate slow = run(pm, hw, l, 8, 8192, 64);
  EXPECT_GT(slow.time.offload_s, 0);
  EXPECT_GT(slow.step_time_s, base.step_time_s);
  expect_parts_add_up(slow);

  // Full recompute keeps only layer inputs: nothing is offloaded.
  l.recompute = Recompute::kFull;
  const Estimate full = run(pm, hw, l, 8, 8192, 64);
  EXPECT_EQ(full.memory.worst.host_activations_bytes, 0);
}

TEST(Offload, HostMemoryOfTheNodeDecidesFitsToo) {
  const PreparedModel pm = prepare(test::llama3_70b());
  Hardware hw = h100_with_host();
  Layout l = tp_dp(8, 8);
  l.optimizer_offload_fraction = 1.0;
  const Estimate ok = run(pm, hw, l, 8, 4096, 16);
  ASSERT_TRUE(ok.memory.host_fits);
  // A node whose host memory is below what the offload needs (at 80% usable) does not fit.
  hw.host_memory_bytes = ok.memory.host_node_bytes / kHostUsableFraction * 0.99;
  const Estimate small = run(pm, hw, l, 8, 4096, 16);
  EXPECT_FALSE(small.memory.host_fits);
  EXPECT_EQ(small.memory.worst.fits, ok.memory.worst.fits);
  EXPECT_FALSE(small.fits());
  // No host figures at all: an offloaded layout cannot be checked, so it does not fit; without
  // offload nothing changes.
  const Hardware bare = test::h100();
  EXPECT_FALSE(run(pm, bare, l, 8, 4096, 16).memory.host_fits);
  l.optimizer_offload_fraction = 0;
  EXPECT_TRUE(run(pm, bare, l, 8, 4096, 16).memory.host_fits);
}

}  // namespace
}  // namespace rb
