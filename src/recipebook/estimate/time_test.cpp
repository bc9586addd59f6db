#include "recipebook/estimate/time.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "recipebook/estimate/collectives.hpp"
#include "recipebook/estimate/routing.hpp"
#include "recipebook/estimate/test_hardware.hpp"
#include "recipebook/estimate/test_models.hpp"

namespace rb {
namespace {

TimeBreakdown run(const PreparedModel& pm, const Hardware& hw, const Layout& l, int64_t seq, int m,
                  Mode mode = Mode::kPretrain) {
  TimeInputs in;
  in.model = &pm;
  in.hw = &hw;
  in.seq = seq;
  in.microbatches = m;
  in.mode = mode;
  const StagePlan plan = plan_stages(pm.num_layers, l);
  EXPECT_TRUE(plan.ok);
  return step_time(in, l, plan);
}

TEST(Collectives, GroupsInsideTheNvlinkDomainUseNvlink) {
  const Hardware hw = test::h100();
  const Links links = make_links(hw, Efficiency{}, 8, 64);
  EXPECT_EQ(links.domain, 8);
  const double bytes = 1e9;
  // TP 8 (stride 1) fits the node: (n - 1)/n x bytes over NVLink.
  const double tp8 = reduce_scatter_s(bytes, {8, 1}, links);
  EXPECT_NEAR(tp8, links.nvlink_latency_s + 7.0 / 8 * bytes / links.nvlink_bytes_per_s, 1e-12);
  // DP 8 with stride 8: every member in another node, a flat ring over scale-out.
  const double dp8 = reduce_scatter_s(bytes, {8, 8}, links);
  EXPECT_NEAR(dp8, links.scaleout_latency_s + 7.0 / 8 * bytes / links.scaleout_bytes_per_s, 1e-12);
  // 16 ranks with stride 1, as NCCL's rings: each rank sends 15/16 of the bytes, 1/8 of it over its NIC
  // and 7/8 over NVLink at the same time (nccl-tests on 2-4 x 8 H100: microbench_check_test.cpp).
  const double h16 = reduce_scatter_s(bytes, {16, 1}, links);
  const double share = 15.0 / 16 * bytes;
  EXPECT_NEAR(h16,
              links.nvlink_latency_s + links.scaleout_latency_s +
                  std::max(share * 7 / 8 / links.nvlink_bytes_per_s, share / 8 / links.scaleout_bytes_per_s),
              1e-12);
  EXPECT_DOUBLE_EQ(all_reduce_s(bytes, {8, 1}, links), 2 * tp8);
  EXPECT_EQ(reduce_scatter_s(bytes, {1, 1}, links), 0.0);
  // An NVL72 domain keeps EP 64 on NVLink; HGX nodes do not.
  const Links nvl72 = make_links(test::gb200(), Efficiency{}, 4, 256);
  EXPECT_EQ(nvl72.domain, 72);
  EXPECT_LT(all_to_all_s(bytes, {64, 1}, nvl72), all_to_all_s(bytes, {64, 1}, links) / 4);
}

TEST(Time, StepIsTheSumOfItsPartsAndTheBubbleIsPMinusOneOverV) {
  const PreparedModel pm = prepare(test::llama3_70b());
  const Hardware hw = test::h100();
  Layout l;
  l.tp = 8;
  l.sp = true;
  l.pp = 4;
  l.dp = 2;
  const TimeBreakdown a = run(pm, hw, l, 4096, 16);
  EXPECT_NEAR(a.step_time_s, a.sum(), 1e-12);
  EXPECT_NEAR(a.bubble_s, 3.0 * a.microbatch_s, 1e-12);
  l.vp = 5;
  const TimeBreakdown b = run(pm, hw, l, 4096, 16);
  EXPECT_NEAR(b.bubble_s, 3.0 / 5 * b.microbatch_s, 1e-12);
  EXPECT_LT(b.step_time_s, a.step_time_s);
  l.pp = 1;
  l.vp = 1;
  l.dp = 8;
  EXPECT_EQ(run(pm, hw, l, 4096, 4).bubble_s, 0.0);
}

TEST(Time, ComputeScalesWithPeakAndEfficiency) {
  const PreparedModel pm = prepare(test::llama3_8b());
  Hardware hw = test::h100();
  Layout l;
  l.dp = 8;
  const TimeBreakdown a = run(pm, hw, l, 4096, 4);
  hw.bf16_flops_per_s *= 2;
  const TimeBreakdown b = run(pm, hw, l, 4096, 4);
  EXPECT_NEAR(b.gemm_s, a.gemm_s / 2, 1e-9 * a.gemm_s);
  EXPECT_NEAR(b.attention_s, a.attention_s / 2, 1e-9 * a.attention_s);
  for (auto& e : hw.efficiency) e.gemm *= 0.5;
  EXPECT_NEAR(run(pm, hw, l, 4096, 4).gemm_s, a.gemm_s, 1e-9 * a.gemm_s);
  // FP8 GEMMs at the FP8 peak; the attention core stays at BF16.
  Layout f = l;
  f.precision = Precision::kFp8Cs;
  const TimeBreakdown c = run(pm, test::h100(), f, 4096, 4);
  EXPECT_LT(c.gemm_s, 0.6 * a.gemm_s);
  EXPECT_DOUBLE_EQ(c.attention_s, a.attention_s);
}

TEST(Time, LoraSkipsWeightGradients) {
  const PreparedModel pm = prepare(test::llama3_70b());
  const Hardware hw = test::h100();
  const Layout l{.tp = 4, .pp = 4, .dp = 2, .sp = true};
  const TimeBreakdown sft = run(pm, hw, l, 4096, 8, Mode::kSft);
  const TimeBreakdown lora = run(pm, hw, l, 4096, 8, Mode::kPeft);
  // Frozen base: forward + dgrad (2/3 of the GEMM time); the rank-16 adapters add their own three
  // passes, 6 x 2.2e8 FLOPs per token against 3 x 1.4e11 for the base: 0.3% of SFT's GEMM time.
  const double adapters = lora.gemm_s / sft.gemm_s - 2.0 / 3.0;
  EXPECT_GT(adapters, 0.0);
  EXPECT_LT(adapters, 0.005);
  EXPECT_LT(lora.dp_comm_s + lora.optimizer_s, sft.dp_comm_s + sft.optimizer_s);
}

TEST(Time, RecomputeCostsForwardWork) {
  const PreparedModel pm = prepare(test::qwen3_30b_a3b());
  const Hardware hw = test::h100();
  Layout l;
  l.ep = 8;
  l.dp = 8;
  const TimeBreakdown none = run(pm, hw, l, 4096, 8);
  l.recompute = Recompute::kSelective;
  l.recompute_modules = kRcCoreAttn;
  const TimeBreakdown sel = run(pm, hw, l, 4096, 8);
  l.recompute = Recompute::kFull;
  const TimeBreakdown full = run(pm, hw, l, 4096, 8);
  EXPECT_EQ(none.recompute_s, 0.0);
  EXPECT_NEAR(sel.recompute_s, sel.attention_s / 3.5, 1e-9);
  EXPECT_GT(full.recompute_s, sel.recompute_s);
  // Full recompute redoes one forward: a third of the GEMMs (forward, dgrad, wgrad), 1 of attention's
  // 3.5 passes and at least the forward's 2 of the 5 elementwise bytes (plus its half of the token
  // permutes) of the memory-bound work.
  const double forward = full.gemm_s / 3 + full.attention_s / 3.5 + full.memory_bound_s * 2 / 5;
  EXPECT_GT(full.recompute_s, 0.8 * forward);
  EXPECT_LT(full.recompute_s, forward + full.ep_comm_s);
}

TEST(Time, ExpertAllToAllAcrossNodesCostsMore) {
  const PreparedModel pm = prepare(test::qwen3_30b_a3b());
  const Hardware hw = test::h100();
  Layout in_node;
  in_node.ep = 8;
  in_node.dp = 16;
  Layout across = in_node;
  across.ep = 16;
  const TimeBreakdown a = run(pm, hw, in_node, 4096, 8);
  const TimeBreakdown b = run(pm, hw, across, 4096, 8);
  EXPECT_GT(b.ep_comm_s, 3 * a.ep_comm_s);
  // EP A2A overlap (Megatron-Core's per-layer 1F1B plan): each dispatch/combine hides under its own
  // partner computation of the paired micro-batch; the micro-batches without a partner (one forward
  // and one backward of 8 without a pipeline) expose theirs. Before: `overlap` (0.5, a default) of
  // all compute, at most 90% hidden.
  Layout overlap = across;
  overlap.ep_a2a_overlap = true;
  const TimeBreakdown c = run(pm, hw, overlap, 4096, 8);
  EXPECT_GE(c.ep_comm_s, b.ep_comm_s / 8 * (1 - 1e-9));
  EXPECT_LT(c.ep_comm_s, b.ep_comm_s);
  // Inside one node every transfer is smaller than its partner (attention forward and backward, the
  // experts' dgrad and wgrad): only the unpaired eighth stays exposed.
  Layout small = in_node;
  small.ep_a2a_overlap = true;
  EXPECT_NEAR(run(pm, hw, small, 4096, 8).ep_comm_s, a.ep_comm_s / 8, 1e-9 * a.ep_comm_s);
  // One micro-batch has no partner: nothing is hidden.
  EXPECT_NEAR(run(pm, hw, small, 4096, 1).ep_comm_s, run(pm, hw, in_node, 4096, 1).ep_comm_s, 1e-12);
  // With a pipeline the first rank's warm-up forwards (pp - 1) have no partner either.
  Layout piped = small;
  piped.pp = 4;
  piped.dp = 8;
  Layout piped_plain = piped;
  piped_plain.ep_a2a_overlap = false;
  EXPECT_NEAR(run(pm, hw, piped, 4096, 8).ep_comm_s, run(pm, hw, piped_plain, 4096, 8).ep_comm_s * 3 / 8,
              1e-9 * a.ep_comm_s);
}

TEST(Time, TheBusiestExpertRankSetsTheAllToAllPace) {
  // Random routing (Bridge's force-balanced benchmarks) leaves the busiest of the EP ranks above the
  // mean, and the all-to-all ends when it has its copies. With few tokens per micro-batch (seq 256,
  // EP 8: 2048 tokens over 128 experts) that is a few percent. (The expert GEMMs take the same
  // factor: ExpertGemmsPayTheirWeightReadsPerToken.)
  const PreparedModel pm = prepare(test::qwen3_30b_a3b());
  const Hardware hw = test::h100();
  Layout l;
  l.ep = 8;
  l.dp = 8;
  const double route = busiest_rank_load_factor(256.0 * 8, 8, 128, 8);
  EXPECT_GT(route, 1.02);
  EXPECT_LT(route, 1.05);
  const TimeBreakdown t = run(pm, hw, l, 256, 1);
  // Dispatch and combine, forward and backward, of every MoE layer: BF16 copies of hidden 2048.
  const Links links = make_links(hw, hw.eff(Precision::kBf16), 0, 8);
  const double balanced = all_to_all_s(256.0 * 8 * 2048 * 2.0, {8, 1}, links);
  EXPECT_NEAR(t.ep_comm_s, 4.0 * pm.num_layers * route * balanced, 1e-9 * t.ep_comm_s);
}

TEST(Time, MambaScanRunsSlowerPerCountedFlopThanAttention) {
  // The same hybrid model with its Mamba layers' scan FLOPs doubled (state 128 -> 256) gains scan
  // time at the scan rate, 28.7 / 262 of the attention rate (time.cpp kScanRelativeRate).
  Model m = test::nemotron3_nano();
  const PreparedModel a = prepare(m);
  m.mamba.state *= 2;
  const PreparedModel b = prepare(m);
  const Hardware hw = test::h100();
  Layout l;
  l.ep = 8;
  l.dp = 8;
  const TimeBreakdown ta = run(a, hw, l, 4096, 1);
  const TimeBreakdown tb = run(b, hw, l, 4096, 1);
  const double extra_flops = (b.prefix.back().fixed_core - a.prefix.back().fixed_core) * 4096.0;
  const double at_attention_rate = 3.5 * extra_flops / (hw.bf16_flops_per_s * hw.eff(Precision::kBf16).attention);
  EXPECT_NEAR(tb.attention_s - ta.attention_s, at_attention_rate * 262.0 / 28.7, 1e-6 * at_attention_rate * 10);
}

TEST(Time, CoreAttnRecomputeRedoesTheSoftmaxCoresNotTheScans) {
  // Selective `core_attn` checkpoints Attention.core_attention only (Megatron-Core attention.py
  // `_checkpointed_attention_forward`); Mamba and GDN layers have no core_attn checkpoint. In a
  // hybrid model it costs the attention layers' softmax forward, whatever the Mamba scans cost.
  Model m = test::nemotron3_nano();
  const PreparedModel a = prepare(m);
  m.mamba.state *= 2;  // more scan FLOPs, the same attention layers
  const PreparedModel b = prepare(m);
  const Hardware hw = test::h100();
  Layout l;
  l.ep = 8;
  l.dp = 8;
  l.recompute = Recompute::kSelective;
  l.recompute_modules = kRcCoreAttn;
  const TimeBreakdown ta = run(a, hw, l, 4096, 1);
  const TimeBreakdown tb = run(b, hw, l, 4096, 1);
  const double softmax_flops = a.prefix.back().full_core * 4096.0 * 4096.0 / 2.0;
  const double softmax_fwd = softmax_flops / (hw.bf16_flops_per_s * hw.eff(Precision::kBf16).attention);
  EXPECT_GT(tb.attention_s, ta.attention_s);
  EXPECT_NEAR(ta.recompute_s, softmax_fwd, 1e-9 * softmax_fwd);
  EXPECT_NEAR(tb.recompute_s, ta.recompute_s, 1e-9 * softmax_fwd);
}

TEST(Time, RecomputedMoeForwardExposesItsAllToAll) {
  // Megatron-Core rejects `moe` recompute (and full recompute) with EP A2A overlap
  // (transformer_config.py), so the recomputed forward's dispatch and combine, run inside the
  // backward, are never hidden: the recompute term is the same with the overlap flag on or off.
  const PreparedModel pm = prepare(test::qwen3_30b_a3b());
  const Hardware hw = test::h100();
  Layout l;
  l.ep = 8;
  l.dp = 8;
  l.recompute = Recompute::kSelective;
  l.recompute_modules = kRcMoe;
  const TimeBreakdown plain = run(pm, hw, l, 4096, 8);
  l.ep_a2a_overlap = true;
  const TimeBreakdown overlapped = run(pm, hw, l, 4096, 8);
  EXPECT_GT(plain.recompute_s, 0.0);
  EXPECT_NEAR(overlapped.recompute_s, plain.recompute_s, 1e-12 * plain.recompute_s);
}

TEST(Time, RecomputedMoeAndMlpMoveTheirForwardTrafficAgain) {
  // `moe` re-runs MoELayer.forward whole (moe_layer.py custom_forward under checkpoint): besides its
  // GEMMs and transfers, the permute + unpermute and the elementwise traffic of the MoE tensors
  // (routed, activation, shared experts); `mlp` its dense MLP's. With twice the HBM bandwidth that
  // part takes half the time; the routed experts' GEMMs (weight-streaming, time.cpp expert_rate) gain
  // a third of what all three passes of them gain.
  const Hardware hw = test::h100();
  Hardware fast = hw;
  fast.hbm_bytes_per_s *= 2.0;
  const double hbm = hw.hbm_bytes_per_s * hw.eff(Precision::kBf16).hbm;
  const double tokens = 4096.0;
  {
    const PreparedModel pm = prepare(test::qwen3_30b_a3b());
    Layout l;
    l.ep = 8;
    l.dp = 8;
    l.recompute = Recompute::kSelective;
    l.recompute_modules = kRcMoe;
    const LayerSums& s = pm.prefix.back();
    const double traffic = 2.0 * tokens * (s.act[kActMoe] + s.act[kActMoeAct] + s.act[kActShared]) / hbm;
    const double permute = s.moe_layers * tokens * pm.top_k * pm.hidden * 2.0 * 2.0 / hbm;
    const TimeBreakdown slow = run(pm, hw, l, 4096, 1);
    const TimeBreakdown quick = run(pm, fast, l, 4096, 1);
    const double experts_gain = (slow.gemm_s - quick.gemm_s) / 3.0;
    EXPECT_NEAR(slow.recompute_s - quick.recompute_s, 0.5 * (traffic + permute) + experts_gain,
                1e-9 * slow.recompute_s);
  }
  {
    const PreparedModel pm = prepare(test::llama3_8b());
    Layout l;
    l.dp = 8;
    l.recompute = Recompute::kSelective;
    l.recompute_modules = kRcMlp;
    const double traffic = 2.0 * tokens * pm.prefix.back().act[kActMlp] / hbm;
    const double slow = run(pm, hw, l, 4096, 1).recompute_s;
    const double quick = run(pm, fast, l, 4096, 1).recompute_s;
    EXPECT_NEAR(slow - quick, 0.5 * traffic, 1e-9 * slow);
  }
}

TEST(Time, GdnDeltaRuleTakesItsPublishedKernelTime) {
  // With the GPU's delta-rule figures, each GDN layer's delta rule takes the figures' time per pass
  // at their shape instead of the scan law's: FLA's Triton kernels on GB200 (FlashQLA's
  // benchmark_results_GB200.txt, one 8192-token sequence, 16 q/k and 32 value heads: forward
  // 0.482 ms, backward 1.552 ms) against 0.25 + 0.63 ms at the law.
  Model m = test::qwen35_35b();  // 30 GDN layers of 32 value heads
  m.mtp_layers = 0;              // (its MTP layer would be timed as a 31st: Megatron's pattern continued)
  const PreparedModel pm = prepare(m);
  Hardware hw = test::gb200();
  Layout l;
  l.ep = 8;
  l.dp = 8;
  const TimeBreakdown law = run(pm, hw, l, 8192, 1);
  for (const bool bwd : {false, true}) {
    DeltaRuleFigure f;
    f.backward = bwd;
    f.seq = 8192;
    f.qk_heads = 16;
    f.v_heads = 32;
    f.head_dim = 128;
    f.time_s = bwd ? 1.552e-3 : 0.482e-3;
    hw.microbenchmarks.delta_rule.push_back(f);
  }
  const TimeBreakdown kernel = run(pm, hw, l, 8192, 1);
  const double delta_flops = 8192.0 * 8.0 * 32 * 128 * 128;  // one layer's delta rule, forward
  const double law_layer =
      3.5 * delta_flops / (hw.bf16_flops_per_s * hw.eff(Precision::kBf16).attention) * 262.0 / 28.7;
  EXPECT_NEAR(kernel.attention_s - law.attention_s, 30.0 * (2.034e-3 - law_layer), 1e-9);
  EXPECT_GT(kernel.attention_s - law.attention_s, 30.0 * 1.0e-3);  // about 2.3x the law on Blackwell
  // The GEMMs and everything else are untouched.
  EXPECT_DOUBLE_EQ(kernel.gemm_s, law.gemm_s);
  EXPECT_DOUBLE_EQ(kernel.memory_bound_s, law.memory_bound_s);
}

TEST(Time, TpCommunicationIsExposedUnlessOverlapped) {
  const PreparedModel pm = prepare(test::llama3_70b());
  const Hardware hw = test::h100();
  Layout l;
  l.tp = 8;
  l.sp = true;
  l.pp = 2;
  l.dp = 2;
  const TimeBreakdown a = run(pm, hw, l, 8192, 8);
  EXPECT_GT(a.tp_comm_s, 0.0);
  l.tp_comm_overlap = true;
  EXPECT_LT(run(pm, hw, l, 8192, 8).tp_comm_s, a.tp_comm_s);
  // Without sequence parallelism Bridge drops the overlap (comm_overlap.py) and Megatron-LM refuses
  // it: the communication is exposed as if it were off.
  l.sp = false;
  const TimeBreakdown no_sp = run(pm, hw, l, 8192, 8);
  l.tp_comm_overlap = false;
  EXPECT_DOUBLE_EQ(no_sp.tp_comm_s, run(pm, hw, l, 8192, 8).tp_comm_s);
}

TEST(Time, ContextParallelExchangeIsHiddenUnderAttention) {
  const PreparedModel pm = prepare(test::llama3_8b());
  const Hardware hw = test::h100();
  Layout l;
  l.cp = 2;
  l.dp = 4;
  const TimeBreakdown a = run(pm, hw, l, 8192, 4);
  // Inside one node the K/V ring (a few ms, its 3 calls per step and layer included) hides entirely
  // under the attention it overlaps (~60 ms).
  EXPECT_DOUBLE_EQ(a.cp_comm_s, 0.0);
  EXPECT_GT(a.attention_s, 0.0);
  Layout wide = l;
  wide.cp = 16;
  wide.dp = 1;
  EXPECT_GT(run(pm, hw, wide, 16384, 4).cp_comm_s, 0.0);  // across nodes, with little attention to hide it
}

// Ulysses CP (cp_comm_type a2a, TE AttnFuncWithCPAndQKVOA2A): per attention layer Q, K and V go out
// in one all-to-all and O comes back in another, the same bytes again backward, none of it hidden;
// the attention runs CP 1's causal block over half the heads, so it costs exactly half of CP 1's
// (the p2p ring's shorter blocks cost 5% more at this length).
TEST(Time, ContextParallelAllToAllExposesItsExchangesOverWholeSequenceAttention) {
  const PreparedModel pm = prepare(test::llama3_8b());
  const Hardware hw = test::h100();
  Layout one;
  one.dp = 8;
  Layout l;
  l.cp = 2;
  l.dp = 4;
  l.cp_comm = CpComm::kA2a;
  Layout ring = l;
  ring.cp_comm = CpComm::kP2p;
  const int64_t seq = 8192;
  const TimeBreakdown t = run(pm, hw, l, seq, 4), r = run(pm, hw, ring, seq, 4), c1 = run(pm, hw, one, seq, 4);
  EXPECT_NEAR(t.attention_s, c1.attention_s / 2.0, 1e-9 * c1.attention_s);
  EXPECT_GT(r.attention_s, t.attention_s);
  const Links links = make_links(hw, hw.eff(Precision::kBf16), 0, l.world());
  const LayerSums& s = pm.prefix.back();
  const double tokens = seq / 2.0;
  const double q = tokens * pm.q_dim * 2.0, kv = tokens * s.kv_bytes / s.attn_layers;
  const double per_layer = all_to_all_s(q + kv, {2, 1}, links) + all_to_all_s(q, {2, 1}, links);
  EXPECT_NEAR(t.cp_comm_s, 4.0 * s.attn_layers * 2.0 * per_layer, 1e-12);
  EXPECT_DOUBLE_EQ(r.cp_comm_s, 0.0);  // the ring hides under its steps here
}

// All-gathered K/V (cp_comm_type allgather, TE AttnFuncWithCPAndKVAllGather, "KV all-gather between
// CP ranks is exposed"): forward gathers the whole K/V, backward gathers it again and reduce-scatters
// dK/dV, each per attention layer; the two query chunks of n = S/(2 cp) run against their prefixes:
// two causal n x n triangles (1/(2 cp) of the work) and non-causal n-wide blocks (the rest), 7.5%
// slower than CP 1's causal block at S 8192, CP 2 (the ring: 5%).
TEST(Time, ContextParallelAllGatherExposesTheGatheredKv) {
  const PreparedModel pm = prepare(test::llama3_8b());
  const Hardware hw = test::h100();
  Layout one;
  one.dp = 8;
  Layout l;
  l.cp = 2;
  l.dp = 4;
  l.cp_comm = CpComm::kAllGather;
  const int64_t seq = 8192;
  const TimeBreakdown t = run(pm, hw, l, seq, 4), c1 = run(pm, hw, one, seq, 4);
  const Links links = make_links(hw, hw.eff(Precision::kBf16), 0, l.world());
  const LayerSums& s = pm.prefix.back();
  const double gathered = seq * s.kv_bytes / s.attn_layers;  // the full-length K/V of one layer
  const double per_layer = 2.0 * all_gather_s(gathered, {2, 1}, links) + reduce_scatter_s(gathered, {2, 1}, links);
  EXPECT_NEAR(t.cp_comm_s, 4.0 * s.attn_layers * per_layer, 1e-12);
  auto rate = [](double n, double half) { return n / (n + half); };
  const double slowdown = (3.0 / rate(2048, 240) + 1.0 / rate(2048, 1310)) / 4.0 * rate(8192, 1310);
  EXPECT_NEAR(t.attention_s / (c1.attention_s / 2.0), slowdown, 1e-9);
  EXPECT_NEAR(slowdown, 1.075, 0.001);
}

TEST(Time, ExpertGemmsPayTheirWeightReadsPerToken) {
  // Grouped expert GEMMs take (1 + m_ridge / m) of their compute time with m tokens per expert:
  // the expert's weights stream from HBM once per GEMM. The GEMM time per token therefore falls
  // as the micro batch (and with it m) grows, and it falls by exactly the ridge term.
  const PreparedModel pm = prepare(test::qwen3_30b_a3b());
  const Hardware hw = test::h100();
  const Efficiency& eff = hw.eff(Precision::kBf16);
  Layout l;
  l.ep = 8;
  l.dp = 8;
  std::vector<double> per_token;
  for (int mbs : {1, 2, 4, 8}) {
    l.mbs = mbs;
    per_token.push_back(run(pm, hw, l, 4096, 1).gemm_s / mbs);
  }
  for (size_t i = 1; i < per_token.size(); ++i) EXPECT_LT(per_token[i], per_token[i - 1]);
  // Expert and dense GEMM time per token: dense + expert x route x (1 + ridge / m), m = 4096 mbs x 8 x
  // 8 / 128, route the busiest EP rank's load over the mean for the EP group's 4096 mbs x 8 tokens.
  const double ridge = hw.bf16_flops_per_s * eff.gemm * 2.0 / (2.0 * hw.hbm_bytes_per_s * eff.hbm);
  const double m1 = 4096.0 * 8 * 8 / 128;
  auto expert_share = [&](double mbs) {
    return busiest_rank_load_factor(4096.0 * mbs * 8, 8, 128, 8) * (1.0 + ridge / (mbs * m1));
  };
  // The dense GEMMs' time per token follows their token curve (dense_gemm_size_factor): 1 / f(tokens).
  // (A width of 1 at half-point 0 leaves the token factor alone, whatever its half-point.)
  auto dense_share = [&](double mbs) { return 1.0 / dense_gemm_size_factor(4096.0 * mbs, 1.0, 0.0); };
  const double det = dense_share(1) * expert_share(8) - dense_share(8) * expert_share(1);
  const double dense = (per_token[0] * expert_share(8) - per_token[3] * expert_share(1)) / det;
  const double expert = (dense_share(1) * per_token[3] - dense_share(8) * per_token[0]) / det;
  EXPECT_GT(expert, 0.0);
  EXPECT_GT(dense, 0.0);
  EXPECT_NEAR(per_token[1], dense * dense_share(2) + expert * expert_share(2), 1e-9 * per_token[1]);
  // FP8 runs the same GEMMs at twice the peak (its ridge in tokens is the same: half the bytes).
  l.mbs = 1;
  l.precision = Precision::kFp8Cs;
  EXPECT_LT(run(pm, hw, l, 4096, 1).gemm_s, per_token[0]);
}

TEST(Time, ContextParallelRingCallsJoinTheHostFloorNotTheGpuTime) {
  // CP 2 with micro batch 4 does the same per-rank GEMMs as CP 1 with micro batch 2. The extra ring
  // step's calls are host work (estimate/host.hpp): on this GPU-bound layout they run under the
  // GPU's kernels and add nothing (before, 4 launches x 5 us per step and layer were added on top);
  // CP 2 is still the slower layout, by its merge kernels and shorter attention blocks.
  const PreparedModel pm = prepare(test::llama3_8b());
  const Hardware hw = test::h100();
  Layout a;
  a.dp = 8;
  a.mbs = 2;
  Layout b = a;
  b.cp = 2;
  b.dp = 4;
  b.mbs = 4;
  const TimeBreakdown ta = run(pm, hw, a, 4096, 4);
  const TimeBreakdown tb = run(pm, hw, b, 4096, 4);
  EXPECT_NEAR(tb.gemm_s, ta.gemm_s, 1e-9 * ta.gemm_s);
  EXPECT_EQ(ta.overhead_s, 0.0);
  EXPECT_EQ(tb.overhead_s, 0.0);
  EXPECT_GT(tb.step_time_s, ta.step_time_s);
}

TEST(Time, ContextParallelRingStepExposesWhatItsOwnAttentionCannotHide) {
  // Transformer Engine's ring (AttnFuncWithCPAndKVP2P): forward step i posts step i + 1's K/V exchange
  // and runs its own attention, so each exchange hides only under its own step's attention (1/cp of the
  // layer's), never under the last step or the backward. CP 2 x TP 8 on 8-GPU nodes puts the ring
  // across nodes: at seq 24576 the three block transfers fit under overlap x all of the attention (the
  // old aggregate, which left cp_comm_s at 0) but the forward one does not fit under its step.
  const PreparedModel pm = prepare(test::llama3_8b());
  const Hardware hw = test::h100();
  const Efficiency& eff = hw.eff(Precision::kBf16);
  Layout l;
  l.tp = 8;
  l.sp = true;
  l.cp = 2;
  l.dp = 1;
  const int64_t seq = 24576;
  const TimeBreakdown t = run(pm, hw, l, seq, 1);
  const Links links = make_links(hw, eff, 0, l.world());
  const LayerSums& s = pm.prefix.back();
  const double tokens = seq / 2.0;
  const double block = tokens * s.kv_bytes / 8.0 / links.scaleout_bytes_per_s;
  const double calls = s.attn_layers * links.scaleout_latency_s;
  const double attn_fwd = t.attention_s / 3.5;  // forward 1 of flash attention's 3.5 passes
  ASSERT_LT(3.0 * (block + calls), eff.overlap * t.attention_s);  // the whole ring fits under all of it
  const double fwd = std::max(0.0, calls + block - eff.overlap * attn_fwd / 2.0);
  const double bwd = 2.0 * std::max(0.0, calls + block - eff.overlap * 2.5 * attn_fwd / 2.0);
  EXPECT_GT(fwd, 0.0);
  EXPECT_NEAR(t.cp_comm_s, fwd + bwd, 1e-9);
}

TEST(Time, ContextParallelPaysItsMergeKernels) {
  // CP 2 with micro batch 4 runs the same GEMMs and attention FLOPs per rank as CP 1 with micro batch 2,
  // plus the kernels Transformer Engine's ring adds around each step (bf16, memory-bound): forward the
  // K/V copy into the send buffer, the first step's output scaled into place and the second merged
  // into it; backward the K/V copy and per step dQ and dK/dV copied or added into their accumulators.
  const PreparedModel pm = prepare(test::llama3_8b());
  const Hardware hw = test::h100();
  Layout a;
  a.dp = 8;
  a.mbs = 2;
  Layout b = a;
  b.cp = 2;
  b.dp = 4;
  b.mbs = 4;
  const TimeBreakdown ta = run(pm, hw, a, 4096, 4);
  const TimeBreakdown tb = run(pm, hw, b, 4096, 4);
  const LayerSums& s = pm.prefix.back();
  const double tokens = 4.0 * 4096 / 2;
  const double o = tokens * s.attn_layers * pm.q_dim * 2.0, kv = tokens * s.kv_bytes;
  const double fwd = 2.0 * o + 3.0 * o + 2.0 * kv;
  const double bwd = 5.0 * (o + kv) + 2.0 * kv;
  const double hbm = hw.hbm_bytes_per_s * hw.eff(Precision::kBf16).hbm;
  EXPECT_NEAR(tb.memory_bound_s - ta.memory_bound_s, 4.0 * (fwd + bwd) / hbm, 1e-9);
}

TEST(Time, ContextParallelStepsRunFlashAttentionOnShorterBlocks) {
  // CP 2 x micro batch 4 does CP 1 x micro batch 2's attention FLOPs per rank, as 2 steps: a causal
  // block of S / 2 and a non-causal one over S / 4 keys, against CP 1's causal block of S. Flash
  // attention's published rates (FlashAttention-4 forward, flash-attention #2605) fit n / (n + 1310)
  // causal and n / (n + 240) non-causal: at S = 4096 the steps take 8.9% longer.
  const PreparedModel pm = prepare(test::llama3_8b());
  const Hardware hw = test::h100();
  Layout a;
  a.dp = 8;
  a.mbs = 2;
  Layout b = a;
  b.cp = 2;
  b.dp = 4;
  b.mbs = 4;
  const double ta = run(pm, hw, a, 4096, 4).attention_s, tb = run(pm, hw, b, 4096, 4).attention_s;
  auto rate = [](double n, double half) { return n / (n + half); };
  const double slowdown = (1.0 / rate(2048, 1310) + 1.0 / rate(1024, 240)) / 2.0 * rate(4096, 1310);
  EXPECT_NEAR(tb / ta, slowdown, 1e-9);
  EXPECT_NEAR(slowdown, 1.089, 0.001);
}

TEST(Time, HalvingTheTokensOfAGemmCostsWhatTheCublasSweepsShow) {
  // CP 2 halves the tokens of every dense GEMM on the rank (4,096 -> 2,048 for Llama-3-8B at seq 4096,
  // below the hidden size). The published cuBLAS BF16 M sweeps (B200, N = K = 4096: 1363 TFLOP/s at
  // M 1024, 1444 at M 2048, vLLM #19566; H100, N 2112 K 7168: 648 at 2048, 716 at 4096, vLLM #23280)
  // lose 6-10% per halving; the token dimension has their curve, n / (n + 170), not the weight
  // dimensions' half-point of 1024 (which made the halving cost 20%).
  const PreparedModel pm = prepare(test::llama3_8b());
  const Hardware hw = test::h100();
  Layout a;
  a.dp = 8;
  Layout b = a;
  b.cp = 2;
  b.dp = 4;
  const double per_token_cp1 = run(pm, hw, a, 4096, 1).gemm_s / 4096.0;
  const double per_token_cp2 = run(pm, hw, b, 4096, 1).gemm_s / 2048.0;
  const double expected = gemm_size_factor(4096, 170) / gemm_size_factor(2048, 170);
  EXPECT_NEAR(per_token_cp2 / per_token_cp1, expected, 1e-9);
  EXPECT_LT(per_token_cp2 / per_token_cp1, 1.06);
  EXPECT_NEAR(dense_gemm_size_factor(2048, 4096, 1024),
              gemm_size_factor(2048, 170) * gemm_size_factor(4096, 1024), 1e-15);
}

TEST(Time, SelectiveRecomputeOfANormRegeneratesItsOutput) {
  // Recomputing the norms moves the forward's traffic of their outputs again (read the input, write
  // the output: 2 bytes per saved byte) at the achieved HBM rate, and nothing else. Only norms that
  // are modules of their own are recomputed (transformer_layer.py skips IdentityOp norms): in
  // Megatron-Core's TE specs each MoE layer's pre-MLP norm; attention's and the dense MLP's norms are
  // fused into their first linear, so a dense Llama recomputes none.
  const Hardware hw = test::h100();
  const double tokens = 4096.0;
  const double hbm = hw.hbm_bytes_per_s * hw.eff(Precision::kBf16).hbm;
  Layout l;
  l.dp = 8;
  l.recompute = Recompute::kSelective;
  l.recompute_modules = kRcLayernorm;
  EXPECT_EQ(run(prepare(test::llama3_8b()), hw, l, 4096, 1).recompute_s, 0.0);
  const PreparedModel pm = prepare(test::qwen3_30b_a3b());
  l.ep = 8;
  const TimeBreakdown t = run(pm, hw, l, 4096, 1);
  const double own = 2.0 * pm.hidden * pm.prefix.back().moe_layers;  // one h-wide BF16 output per MoE layer
  EXPECT_NEAR(pm.prefix.back().norm_out_own, own, 1e-9 * own);
  EXPECT_LT(own, pm.prefix.back().act[kActNormOut]);
  EXPECT_NEAR(t.recompute_s, 2.0 * tokens * own / hbm, 1e-9 * t.recompute_s);
}

// NVFP4 quantizes every GEMM input forward and every output gradient backward into rowwise and
// columnwise e2m1 copies, at the quantization kernel's measured 0.357 of the HBM peak (vLLM #20646):
// it moves more per step than the FP8 casts, so its memory-bound part is the larger one, by what
// the GEMM inputs cost at that rate.
TEST(Time, Nvfp4QuantizationCostsMoreThanAnFp8Cast) {
  const PreparedModel pm = prepare(test::llama3_70b());
  const Hardware hw = test::b200();
  Layout l;
  l.tp = 2;
  l.sp = true;
  l.pp = 4;
  l.vp = 5;
  l.precision = Precision::kMxfp8;
  const TimeBreakdown mx = run(pm, hw, l, 8192, 8);
  l.precision = Precision::kNvfp4;
  const TimeBreakdown fp4 = run(pm, hw, l, 8192, 8);
  EXPECT_GT(fp4.memory_bound_s, 1.2 * mx.memory_bound_s);
  EXPECT_LT(fp4.gemm_s, mx.gemm_s);  // the GEMMs still run at the FP4 peak
}

// Megatron-Core first_last_layers_bf16: the layers numbered below num_layers_at_start_in_bf16 or
// from num_layers - num_layers_at_end_in_bf16 on run outside the FP4 autocast (fp4_utils.py
// get_fp4_context), their dense and expert GEMMs at the BF16 rate. With every layer kept in BF16
// the GEMMs take what a BF16 run's take (a model without MTP, whose layers stay quantized); half of
// them in BF16 lands in between, on the pipeline rank that holds them. Before, the counts were not
// in the layout and every layer ran at the FP4 rate.
TEST(Time, LayersKeptInBf16RunTheirGemmsAtTheBf16Rate) {
  const PreparedModel pm = prepare(test::qwen3_30b_a3b());
  const Hardware hw = test::b200();
  Layout l;
  l.ep = 8;
  l.dp = 8;
  l.pp = 2;
  l.precision = Precision::kBf16;
  const TimeBreakdown bf16 = run(pm, hw, l, 4096, 8);
  l.precision = Precision::kNvfp4;
  const TimeBreakdown fp4 = run(pm, hw, l, 4096, 8);
  l.bf16_layers_at_end = pm.num_layers;
  const TimeBreakdown all = run(pm, hw, l, 4096, 8);
  EXPECT_NEAR(all.gemm_s, bf16.gemm_s, 1e-9 * bf16.gemm_s);
  EXPECT_LT(all.memory_bound_s, fp4.memory_bound_s);  // nothing to quantize
  l.bf16_layers_at_end = pm.num_layers / 2;  // the last rank's layers
  const TimeBreakdown tail = run(pm, hw, l, 4096, 8);
  EXPECT_GT(tail.gemm_s, 1.5 * fp4.gemm_s);
  EXPECT_EQ(tail.bottleneck_stage, 1);
  l.bf16_layers_at_end = 0;
  l.bf16_layers_at_start = pm.num_layers / 2;  // the first rank's
  const TimeBreakdown head = run(pm, hw, l, 4096, 8);
  EXPECT_EQ(head.bottleneck_stage, 0);
  EXPECT_GT(head.gemm_s, 1.3 * fp4.gemm_s);
  // Under a BF16 recipe the counts change nothing.
  l.precision = Precision::kBf16;
  EXPECT_DOUBLE_EQ(run(pm, hw, l, 4096, 8).step_time_s, bf16.step_time_s);
}

// Megatron-Core quant_recipe (Layout::bf16_modules / mxfp8_modules): inside the quantized layers each
// named module's GEMMs run at their own precision's rate (estimate/gemm_split.cpp). Every module and
// the MTP block in BF16 price the GEMMs as a BF16 run does; every one in MXFP8 as an MXFP8 run does;
// Megatron-Bridge's Nemotron 3 Super NVFP4 lists (te_quant.cfg: attention, latent projections and MTP
// in BF16, Mamba out_proj in MXFP8) land between the NVFP4 and BF16 runs, their MTP's share on the
// MTP's rank; under a BF16 recipe the lists change nothing. Before, the layout had no such lists and
// every GEMM of a quantized layer ran at the NVFP4 rate.
TEST(Time, ModulesNamedInBf16OrMxfp8RunAtTheirOwnRate) {
  Model m = test::nemotron3_nano();
  m.moe.latent = 1024;  // a latent MoE with MTP, as Nemotron 3 Super
  m.mtp_layers = 1;
  const PreparedModel pm = prepare(m);
  const Hardware hw = test::b200();
  Layout l;
  l.ep = 8;
  l.dp = 8;
  l.precision = Precision::kBf16;
  const TimeBreakdown bf16 = run(pm, hw, l, 4096, 8);
  l.precision = Precision::kMxfp8;
  const TimeBreakdown mx = run(pm, hw, l, 4096, 8);
  l.precision = Precision::kNvfp4;
  const TimeBreakdown fp4 = run(pm, hw, l, 4096, 8);
  const uint32_t every = kGmLinearQkv | kGmLinearProj | kGmInProj | kGmOutProj | kGmMlp | kGmSharedExperts |
                         kGmExperts | kGmLatentProj | kGmMtp;
  l.bf16_modules = every;
  EXPECT_NEAR(run(pm, hw, l, 4096, 8).gemm_s, bf16.gemm_s, 1e-9 * bf16.gemm_s);
  l.bf16_modules = 0;
  l.mxfp8_modules = every;
  EXPECT_NEAR(run(pm, hw, l, 4096, 8).gemm_s, mx.gemm_s, 1e-9 * mx.gemm_s);
  l.bf16_modules = kGmLinearQkv | kGmLinearProj | kGmLatentProj | kGmMtp;
  l.mxfp8_modules = kGmOutProj;
  const TimeBreakdown super = run(pm, hw, l, 4096, 8);
  EXPECT_GT(super.gemm_s, fp4.gemm_s);
  EXPECT_LT(super.gemm_s, bf16.gemm_s);
  // BF16 wins where both lists name a module.
  l.bf16_modules = every;
  l.mxfp8_modules = every;
  EXPECT_NEAR(run(pm, hw, l, 4096, 8).gemm_s, bf16.gemm_s, 1e-9 * bf16.gemm_s);
  // The MTP block alone in BF16 costs more than nothing named, less than the Super lists.
  l.bf16_modules = kGmMtp;
  l.mxfp8_modules = 0;
  const TimeBreakdown mtp = run(pm, hw, l, 4096, 8);
  EXPECT_GT(mtp.gemm_s, fp4.gemm_s);
  EXPECT_LT(mtp.gemm_s, super.gemm_s);
  l.precision = Precision::kBf16;
  l.bf16_modules = every;
  l.mxfp8_modules = every;
  EXPECT_DOUBLE_EQ(run(pm, hw, l, 4096, 8).step_time_s, bf16.step_time_s);
}

TEST(Time, GemmSizeFactor) {
  EXPECT_DOUBLE_EQ(gemm_size_factor(1024, 1024), 0.5);
  EXPECT_GT(gemm_size_factor(16384, 1024), 0.9);
  EXPECT_EQ(gemm_size_factor(0, 1024), 1.0);
}

TEST(Stages, UniformUnevenAndFirstLastSplits) {
  Layout l;
  l.pp = 4;
  l.vp = 2;
  StagePlan p = plan_stages(32, l);
  ASSERT_TRUE(p.ok);
  for (int c = 0; c < 8; ++c) EXPECT_EQ(p.layers_of(c), 4);
  EXPECT_FALSE(p.uneven);
  p = plan_stages(61, Layout{1, 16});
  ASSERT_TRUE(p.ok);
  EXPECT_TRUE(p.uneven);
  EXPECT_EQ(p.layers_of(0), 3);   // the outer ranks keep the base count
  EXPECT_EQ(p.layers_of(15), 3);
  int total = 0;
  for (int c = 0; c < 16; ++c) total += p.layers_of(c);
  EXPECT_EQ(total, 61);
  EXPECT_FALSE(plan_stages(8, Layout{1, 16}).ok);
  Layout fl;
  fl.pp = 4;
  fl.vp = 2;
  fl.first_stage_layers = 3;  // not divisible by vp
  EXPECT_FALSE(plan_stages(32, fl).ok);
}

TEST(Stages, EmbeddingAndLossCountAsLayers) {
  // Llama-3.1-405B as Bridge runs it: 126 layers + embedding + loss = 128 over PP 16 x VP 4, two per
  // virtual stage; the first and last virtual stages build one decoder layer, the rest two.
  Layout l;
  l.pp = 16;
  l.vp = 4;
  l.account_for_embedding = true;
  l.account_for_loss = true;
  StagePlan p = plan_stages(126, l);
  ASSERT_TRUE(p.ok);
  EXPECT_EQ(p.layers_of(0), 1);
  EXPECT_EQ(p.layers_of(63), 1);
  for (int c = 1; c < 63; ++c) EXPECT_EQ(p.layers_of(c), 2) << c;
  // VP 8: one per virtual stage, so the first holds only the embedding and the last only the loss.
  l.vp = 8;
  p = plan_stages(126, l);
  ASSERT_TRUE(p.ok);
  EXPECT_EQ(p.layers_of(0), 0);
  EXPECT_EQ(p.layers_of(127), 0);
  EXPECT_EQ(p.begin[128], 126);
  // 127 does not split; nor can the accounting be combined with first/last stage counts.
  EXPECT_FALSE(plan_stages(127, l).ok);
  l.vp = 4;
  l.first_stage_layers = 4;
  EXPECT_FALSE(plan_stages(126, l).ok);
}

}  // namespace
}  // namespace rb

namespace rb {
namespace {

// Megatron-FSDP (optim_grads_params) gathers every weight of the rank twice per micro-batch and
// reduce-scatters its gradient, the experts' over expert-DP (Megatron-Core
// distributed/fsdp/mcore_fsdp_adapter.py get_expert_data_parallel_group): four times the experts
// (top-k unchanged) is about four times that traffic, and with 8 micro-batches it is
// more DP time than the distributed optimizer's one reduce-scatter and gather per step. Before: FSDP
// priced the dense weights only (Qwen3-30B-A3B with EP 1: ~5% of its weights), so the DP time of the
// two models was the same and an EP 1 FSDP layout came out with almost none.
TEST(Time, FsdpGathersTheExpertWeightsToo) {
  Model few = test::qwen3_30b_a3b();
  few.moe.experts = 32;
  const PreparedModel pm = prepare(test::qwen3_30b_a3b());
  const PreparedModel pm_few = prepare(few);
  const Hardware hw = test::h100();
  Layout l;
  l.ep = 1;
  l.dp = 64;
  l.fsdp = true;
  const TimeBreakdown fsdp = run(pm, hw, l, 4096, 8);
  const TimeBreakdown fsdp_few = run(pm_few, hw, l, 4096, 8);
  EXPECT_GT(fsdp.dp_comm_s, 2.0 * fsdp_few.dp_comm_s);
  l.fsdp = false;
  const TimeBreakdown dist_opt = run(pm, hw, l, 4096, 8);
  EXPECT_GT(fsdp.dp_comm_s, dist_opt.dp_comm_s);
}

}  // namespace
}  // namespace rb
