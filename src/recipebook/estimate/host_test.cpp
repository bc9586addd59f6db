#include "recipebook/estimate/host.hpp"

#include <gtest/gtest.h>

#include "recipebook/estimate/stages.hpp"
#include "recipebook/estimate/test_hardware.hpp"
#include "recipebook/estimate/test_models.hpp"
#include "recipebook/estimate/test_step.hpp"
#include "recipebook/estimate/time.hpp"

namespace rb {
namespace {

using test::run;

TEST(Host, DenseLayerCallsAreCountedPerSubBlockForwardAndBackward) {
  const PreparedModel pm = prepare(test::llama3_8b());
  const LayerSums& s = pm.prefix.back();
  Layout l;
  const HostTime h = host_time(s, l, 0.0, false, 0.0);
  // 32 layers: an attention sub-block (3 TE modules, 4 ops) and an MLP (2 modules, 2 ops) each.
  const double per_layer = 5 * kTeModuleHostS + 6 * kTorchOpHostS;
  EXPECT_NEAR(h.forward_s, 32 * per_layer, 1e-12);
  EXPECT_NEAR(h.backward_s, h.forward_s, 1e-12);
  EXPECT_EQ(h.syncs, 0.0);
  // Full recompute runs the forward's calls again inside the backward.
  EXPECT_NEAR(host_time(s, l, 1.0, false, 0.0).backward_s, 2 * h.forward_s, 1e-12);
  // Scoped CUDA graphs leave one graph launch per captured sub-block; a full-iteration graph nothing.
  l.cuda_graph = CudaGraph::kTransformerEngine;
  l.cuda_graph_scope = kCgAttn;
  EXPECT_NEAR(host_time(s, l, 0.0, false, 0.0).forward_s, 32 * (kKernelLaunchS + 2 * kTeModuleHostS + 2 * kTorchOpHostS),
              1e-12);
  l.cuda_graph = CudaGraph::kFullIteration;
  EXPECT_EQ(host_time(s, l, 0.0, false, 0.0).forward_s, 0.0);
}

TEST(Host, DroplessMoeSyncsOncePerLayerAndForwardAndPaysPerExpertLaunches) {
  const PreparedModel pm = prepare(test::qwen3_30b_a3b());
  const LayerSums& s = pm.prefix.back();
  Layout l;
  l.ep = 8;
  const HostTime h16 = host_time(s, l, 0.0, true, 16.0);
  const HostTime h4 = host_time(s, l, 0.0, true, 4.0);
  EXPECT_EQ(h16.syncs, 48.0);  // forward only: the backward reuses the token counts
  EXPECT_EQ(host_time(s, l, 1.0, true, 16.0).syncs, 96.0);  // the recomputed forward syncs again
  // 12 more experts x 2 grouped linears: forward GEMM + quantize, backward 2 GEMMs + quantize.
  EXPECT_NEAR(h16.forward_s - h4.forward_s, 48 * 12 * 2 * 2 * kKernelLaunchS, 1e-12);
  EXPECT_NEAR(h16.backward_s - h4.backward_s, 48 * 12 * 2 * 3 * kKernelLaunchS, 1e-12);
  // The router and preprocess graph scopes take their calls off the host.
  l.cuda_graph = CudaGraph::kTransformerEngine;
  l.cuda_graph_scope = kCgAttn | kCgMoeRouter | kCgMoePreprocess;
  const HostTime g = host_time(s, l, 0.0, true, 16.0);
  EXPECT_LT(g.forward_s, h16.forward_s);
  EXPECT_EQ(g.syncs, 48.0);
}

TEST(Host, ASmallModelsMicroBatchIsBoundByTheHost) {
  // A GPT of hidden 1024 and 24 layers (vTrain's smallest) at micro batch 1 x 512 tokens on one
  // H100: its GPU work per layer (~0.3 ms at these small shapes) is below the host's ~0.5 ms of calls
  // (forward + backward), so the micro-batch takes the host's time. The old model added 60 us per
  // layer on top of the GPU time instead.
  const PreparedModel pm = prepare(test::dense_gqa("gpt-1024", 1024, 24, 16, 16, 64, 4096, 50257, true));
  const Hardware hw = test::h100();
  Layout l;
  const TimeBreakdown t = run(pm, hw, l, 512, 1);
  const HostTime h = host_time(pm.prefix.back(), l, 0.0, false, 0.0);
  EXPECT_GE(t.microbatch_s, (h.forward_s + h.backward_s) * (1 - 1e-12));
  EXPECT_GT(t.overhead_s, 24 * 60e-6);
  // A large micro-batch is GPU-bound: the host adds nothing.
  Layout big = l;
  big.mbs = 16;
  EXPECT_EQ(run(pm, hw, big, 4096, 1).overhead_s, 0.0);
}

TEST(Host, TheSyncKeepsAHostBoundForwardFromHidingUnderTheBackward) {
  // With the MoE sync, max(GPU fwd, host fwd) + max(GPU bwd, host bwd) >= max(GPU, host): a
  // dropless MoE at micro batch 1 pays at least the host's forward, which its GPU forward is below.
  const PreparedModel pm = prepare(test::qwen3_30b_a3b());
  const Hardware hw = test::h100();
  Layout l;
  l.ep = 8;
  l.dp = 8;
  l.precision = Precision::kFp8Cs;
  const TimeBreakdown t = run(pm, hw, l, 1024, 1);
  const HostTime h = host_time(pm.prefix.back(), l, 0.0, true, 16.0);
  EXPECT_GE(t.microbatch_s, h.forward_s + h.syncs * 40e-6);
  EXPECT_GT(t.overhead_s, 0.0);
}

TEST(Host, TheStepFloorStaysBelowHostBoundSteps) {
  // step_time_floor_s prices the mean rank; with the host floor (maxima of linear terms) it must stay
  // below step_time on host-bound layouts too: uneven pipeline stages, full recompute, MoE syncs.
  const PreparedModel gpt = prepare(test::dense_gqa("gpt-1024", 1024, 22, 16, 16, 64, 4096, 50257, true));
  const PreparedModel moe = prepare(test::qwen3_30b_a3b());
  const Hardware hw = test::h100();
  for (const PreparedModel* pm : {&gpt, &moe}) {
    for (int pp : {1, 2, 4}) {
      for (const bool full : {false, true}) {
        Layout l;
        l.pp = pp;
        l.vp = pp > 1 ? 2 : 1;
        l.ep = pm->experts > 0 ? 8 : 1;
        if (full) l.recompute = Recompute::kFull;
        TimeInputs in;
        in.model = pm;
        in.hw = &hw;
        in.seq = 512;
        in.microbatches = 8;
        const StagePlan plan = plan_stages(pm->num_layers, l);
        ASSERT_TRUE(plan.ok);
        EXPECT_LE(step_time_floor_s(in, l, plan), step_time(in, l, plan).step_time_s)
            << pm->model.name << " pp " << pp << " full " << full;
      }
    }
  }
}

TEST(Host, ContextParallelRingStepsAreCountedPerAttentionLayerAndStep) {
  // TE's AttnFuncWithCPAndKVP2P: each ring step beyond CP 1's one attention call makes 5 calls
  // forward and 5 backward (host.cpp); inside a captured attention graph they cost nothing more.
  const PreparedModel pm = prepare(test::llama3_8b());
  const LayerSums& s = pm.prefix.back();
  Layout l;
  const HostTime h1 = host_time(s, l, 0.0, false, 0.0);
  l.cp = 4;
  const HostTime h4 = host_time(s, l, 0.0, false, 0.0);
  EXPECT_NEAR(h4.forward_s - h1.forward_s, 32 * 3 * 5 * kTorchOpHostS, 1e-12);
  EXPECT_NEAR(h4.backward_s - h1.backward_s, 32 * 3 * 5 * kTorchOpHostS, 1e-12);
  l.cuda_graph = CudaGraph::kTransformerEngine;
  l.cuda_graph_scope = kCgAttn;
  const HostTime g4 = host_time(s, l, 0.0, false, 0.0);
  l.cp = 1;
  EXPECT_NEAR(g4.forward_s, host_time(s, l, 0.0, false, 0.0).forward_s, 1e-12);
}

TEST(Host, DenseLayersHostSecondsCountBothSubBlocksEachPass) {
  // A ViT layer (Megatron-Core's vit_layer_specs.py TE spec) is the dense decoder layer: 5 TE
  // modules and 6 ops forward, as many backward, and a full recompute's forward again.
  const double fwd = 5 * kTeModuleHostS + 6 * kTorchOpHostS;
  EXPECT_NEAR(dense_layers_host_s(27, false, 0.0), 27 * 2 * fwd, 1e-12);
  EXPECT_NEAR(dense_layers_host_s(27, false, 1.0), 27 * 3 * fwd, 1e-12);
  EXPECT_NEAR(dense_layers_host_s(27, true, 0.0), 27 * 2 * 2 * kKernelLaunchS, 1e-12);
}

TEST(Host, GraceHostsPayTheIssuesRatioOnEveryCall) {
  // TE #2053: 37.08 us per torch.nn.Linear call on GB200's Grace against 13.48 us on H100 DGX's Xeon;
  // a TE module then costs the issue's own 99.66 us on Grace.
  const PreparedModel pm = prepare(test::qwen3_30b_a3b());
  const LayerSums& s = pm.prefix.back();
  Layout l;
  l.ep = 8;
  l.cp = 2;
  const HostTime x86 = host_time(s, l, 0.5, true, 16.0, HostCpuFamily::kX86);
  const HostTime grace = host_time(s, l, 0.5, true, 16.0, HostCpuFamily::kGrace);
  EXPECT_NEAR(grace.forward_s, 37.08 / 13.48 * x86.forward_s, 1e-12);
  EXPECT_NEAR(grace.backward_s, 37.08 / 13.48 * x86.backward_s, 1e-12);
  EXPECT_NEAR(kTeModuleHostS * host_cpu_factor(HostCpuFamily::kGrace), 99.66e-6, 1e-12);
  EXPECT_NEAR(dense_layers_host_s(4, false, 0.0, HostCpuFamily::kGrace), 37.08 / 13.48 * dense_layers_host_s(4, false, 0.0),
              1e-12);
}

TEST(Host, AHostBoundMicroBatchIsSlowerOnAGraceHost) {
  // One micro batch of 128 tokens of Llama 3 8B on 8-way TP is host-bound: its overhead follows the
  // host CPU, and on Grace the same layout takes longer.
  const PreparedModel pm = prepare(test::llama3_8b());
  Hardware hw = test::h100();
  Layout l;
  l.tp = 8;
  l.sp = true;
  l.dp = 1;
  const TimeBreakdown x86 = run(pm, hw, l, 128, 1);
  hw.host_cpu_family = HostCpuFamily::kGrace;
  const TimeBreakdown grace = run(pm, hw, l, 128, 1);
  EXPECT_GT(x86.overhead_s, 0.0);
  EXPECT_GT(grace.overhead_s, x86.overhead_s);
  EXPECT_GT(grace.step_time_s, x86.step_time_s);
}

TEST(Host, ASyncIdlesTheGpuForTheWakeUpAndTheNextCall) {
  // 9.6 - 3.8 us (NVIDIA's CUDA Graphs post: a synchronize per launch) + one PyTorch op (TE #2053),
  // per sync, on Grace 2.75x: the 40 us it replaces had no source.
  const PreparedModel pm = prepare(test::qwen3_30b_a3b());
  const LayerSums& s = pm.prefix.back();
  Layout l;
  l.ep = 8;
  const HostTime x86 = host_time(s, l, 0.0, false, 16.0);
  EXPECT_NEAR(x86.sync_s, 48 * (5.8e-6 + 13.48e-6), 1e-12);
  EXPECT_NEAR(host_time(s, l, 0.0, false, 16.0, HostCpuFamily::kGrace).sync_s, 37.08 / 13.48 * x86.sync_s, 1e-12);
}

}  // namespace
}  // namespace rb
