// Muon (Layout::optimizer): its optimizer state and its Newton-Schulz step, against hand counts.
#include "recipebook/estimate/muon.hpp"

#include <gtest/gtest.h>

#include "recipebook/estimate/memory.hpp"
#include "recipebook/estimate/prepared.hpp"
#include "recipebook/estimate/test_hardware.hpp"
#include "recipebook/estimate/test_models.hpp"
#include "recipebook/estimate/time.hpp"

namespace rb {
namespace {

MemoryBreakdown rank0_memory(const PreparedModel& pm, const Hardware& hw, const Layout& l) {
  MemoryInputs in;
  in.model = &pm;
  in.hw = &hw;
  in.seq = 4096;
  in.microbatches = 8;
  const StagePlan plan = plan_stages(pm.num_layers, l);
  return rank_memory(in, l, plan, 0);
}

TimeBreakdown step(const PreparedModel& pm, const Hardware& hw, const Layout& l) {
  TimeInputs in;
  in.model = &pm;
  in.hw = &hw;
  in.seq = 4096;
  in.microbatches = 8;
  return step_time(in, l, plan_stages(pm.num_layers, l));
}

TEST(Muon, NewtonSchulzFlopsOfOneMatrix) {
  // 5 quintic steps on 1024 x 4096 (m = 1024, n = 4096): 5 (4 m^2 n + 2 m^3), either orientation.
  const double m = 1024, n = 4096;
  EXPECT_DOUBLE_EQ(newton_schulz_flops(m, n), 5 * (4 * m * m * n + 2 * m * m * m));
  EXPECT_DOUBLE_EQ(newton_schulz_flops(n, m), newton_schulz_flops(m, n));
}

// Llama-3-8B's weights Muon steps: per layer Q (4096 x 4096), K and V (1024 x 4096 each), the output
// (4096 x 4096), fc1 (28672 x 4096, gate and up fused) and fc2 (4096 x 14336); no embedding or head.
TEST(Muon, TheModelsMatricesAreItsLayersSplitWeights) {
  const Model m = test::llama3_8b();
  const auto w = muon_matrices(m);
  double params = 0, flops = 0;
  for (const MuonMatrix& x : w) {
    params += x.out * x.in * x.count;
    flops += newton_schulz_flops(x.out, x.in) * x.count;
  }
  const double per_layer = 4096.0 * 4096 * 2 + 1024.0 * 4096 * 2 + 3 * 4096.0 * 14336;
  EXPECT_DOUBLE_EQ(params, 32 * per_layer);
  const double by_hand = newton_schulz_flops(4096, 4096) * 2 + newton_schulz_flops(1024, 4096) * 2 +
                         newton_schulz_flops(28672, 4096) + newton_schulz_flops(4096, 14336);
  EXPECT_DOUBLE_EQ(flops, 32 * by_hand);
  // One PP rank of PP 2 over DP 4 does an eighth of it; TP 2 shards each weight (blockwise).
  Layout l{.pp = 2, .dp = 4};
  EXPECT_DOUBLE_EQ(muon_rank_flops(w, l), flops / 8);
  l = Layout{.tp = 2, .dp = 4};
  const double tp2 = (newton_schulz_flops(2048, 4096) + newton_schulz_flops(512, 4096) * 2 +
                      newton_schulz_flops(4096, 2048) +  // the output weight is split on its input side
                      newton_schulz_flops(14336, 4096) + newton_schulz_flops(4096, 7168)) *
                     32 / 4;
  EXPECT_NEAR(muon_rank_flops(w, l), tp2, 1e-6 * tp2);
}

// Muon keeps 8 B per 2-D weight (fp32 master + momentum) where Adam keeps 12, and Adam's 12 for the
// embedding, output layer and norms; both sharded over DP by the (layer-wise) distributed optimizer.
TEST(Muon, OptimizerStateIsEightBytesPerMatrixWeight) {
  const Model model = test::llama3_8b();
  const PreparedModel pm = prepare(model);
  const Hardware hw = test::h100();
  Layout adam{.dp = 8};
  Layout muon = adam;
  muon.optimizer = Optimizer::kMuon;
  const MemoryBreakdown a = rank0_memory(pm, hw, adam);
  const MemoryBreakdown b = rank0_memory(pm, hw, muon);
  double matrix = 0;
  for (const MuonMatrix& x : muon_matrices(model)) matrix += x.out * x.in * x.count;
  EXPECT_NEAR(a.optimizer_bytes - b.optimizer_bytes, 4.0 * matrix / 8, 1.0);
  EXPECT_DOUBLE_EQ(a.grads_bytes, b.grads_bytes);  // the gradients are the switch grad_reduce_in_fp32's
  // Without the distributed optimizer nothing is sharded.
  muon.distributed_optimizer = false;
  EXPECT_NEAR(rank0_memory(pm, hw, muon).optimizer_bytes, 8 * (b.optimizer_bytes), 8.0);
}

// The optimizer step adds the Newton-Schulz GEMMs at the BF16 GEMM rate; more DP ranks share them.
TEST(Muon, StepAddsNewtonSchulzWorkSharedOverDp) {
  const PreparedModel pm = prepare(test::llama3_8b());
  const Hardware hw = test::h100();
  Layout adam{.dp = 8};
  Layout muon = adam;
  muon.optimizer = Optimizer::kMuon;
  const double rate = hw.bf16_flops_per_s * hw.eff(Precision::kBf16).gemm;
  const double ns = muon_rank_flops(pm.muon, muon) / rate;
  EXPECT_GT(ns, 1e-3);
  const TimeBreakdown a = step(pm, hw, adam), b = step(pm, hw, muon);
  EXPECT_GT(b.optimizer_s, a.optimizer_s);
  EXPECT_NEAR(b.optimizer_s - ns, a.optimizer_s * 20.0 / 30.0 + 2e-3 / 3.0, 1e-3);
  Layout wider = muon;
  wider.dp = 16;
  EXPECT_NEAR(muon_rank_flops(pm.muon, wider), muon_rank_flops(pm.muon, muon) / 2, 1.0);
}

}  // namespace
}  // namespace rb
