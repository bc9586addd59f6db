#include "recipebook/estimate/memory.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "recipebook/estimate/estimate.hpp"
#include "recipebook/estimate/memory_test_util.hpp"
#include "recipebook/estimate/test_hardware.hpp"
#include "recipebook/estimate/test_models.hpp"

namespace rb {
namespace {

using test::gpt_layer_model;
using test::memory_inputs;

MemoryBreakdown rank0(const PreparedModel& pm, const Hardware& hw, const Layout& l, int64_t seq, int m,
                      Mode mode = Mode::kPretrain) {
  return test::rank_memory_of(pm, hw, l, seq, m, 0, mode);
}

// --headroom: fits = peak <= capacity - headroom, headroom in GiB, any byte unit, or % of capacity.
TEST(Memory, HeadroomDecidesFits) {
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  EXPECT_DOUBLE_EQ(parse_memory_headroom("2")->fixed_bytes, 2 * kGiB);
  EXPECT_DOUBLE_EQ(parse_memory_headroom("512MiB")->fixed_bytes, 0.5 * kGiB);
  EXPECT_DOUBLE_EQ(parse_memory_headroom("3 GB")->fixed_bytes, 3e9);
  EXPECT_DOUBLE_EQ(parse_memory_headroom("5%")->fraction, 0.05);
  EXPECT_DOUBLE_EQ(parse_memory_headroom("5%")->fixed_bytes, 0.0);
  for (const char* bad : {"", "lots", "-1", "100%", "5 GHz", "%"}) EXPECT_FALSE(parse_memory_headroom(bad)) << bad;

  const PreparedModel pm = prepare(test::llama3_8b());
  Hardware hw = test::h100();
  const Layout l{.dp = 8};
  const MemoryBreakdown none = rank0(pm, hw, l, 4096, 4);
  ASSERT_TRUE(none.fits);
  EXPECT_DOUBLE_EQ(none.headroom_bytes(), none.capacity_bytes - none.peak_bytes);
  hw.headroom_fixed_bytes = none.headroom_bytes() + 1;  // one byte more than is free
  const MemoryBreakdown tight = rank0(pm, hw, l, 4096, 4);
  EXPECT_FALSE(tight.fits);
  EXPECT_DOUBLE_EQ(tight.peak_bytes, none.peak_bytes);
  EXPECT_DOUBLE_EQ(tight.overshoot_bytes(), 1.0);
  hw.headroom_fixed_bytes = 0;
  hw.headroom_fraction = (none.headroom_bytes() - 1) / hw.memory_bytes;
  EXPECT_TRUE(rank0(pm, hw, l, 4096, 4).fits);
}

// Allocated <= reserved <= device, as PyTorch and nvidia-smi report them: the allocator's
// fragmentation between the first two, the CUDA context and NCCL's own buffers between the last two.
TEST(Memory, AllocatedReservedAndDeviceFigures) {
  const PreparedModel pm = prepare(test::llama3_8b());
  const Hardware hw = test::h100();
  const MemoryBreakdown m = rank0(pm, hw, Layout{.tp = 2, .dp = 4}, 8192, 4);
  ASSERT_GT(m.fragmentation_bytes, 0);
  ASSERT_GT(m.cuda_context_bytes + m.nccl_buffers_bytes, 0);
  EXPECT_DOUBLE_EQ(m.reserved_bytes() - m.allocated_bytes(), m.fragmentation_bytes);
  EXPECT_DOUBLE_EQ(m.peak_bytes - m.reserved_bytes(), m.cuda_context_bytes + m.nccl_buffers_bytes);
  EXPECT_DOUBLE_EQ(m.allocated_bytes(), m.weights_bytes + m.quantized_weights_bytes + m.grads_bytes + m.optimizer_bytes +
                                            m.activations_bytes + m.logits_bytes + m.fsdp_buffers_bytes + m.cuda_graphs_bytes);
}

// Korthikanti Table 2, "TP + SP" without the 5 a s / h term (flash attention) and without the two
// dropout masks (dropout off): 32 s b h / t per layer. The logits and overheads are separate parts.
TEST(Memory, ActivationsPerLayerMatchKorthikantiWithFlashAttention) {
  const PreparedModel pm = prepare(gpt_layer_model(8));
  const Hardware hw = test::h100();
  for (int tp : {1, 2, 4, 8}) {
    Layout l;
    l.tp = tp;
    l.sp = true;
    l.pp = 1;
    const MemoryBreakdown mb = rank0(pm, hw, l, 2048, 1);
    const double expected = 8 * 32.0 * 2048 * 1 * 4096 / tp;
    EXPECT_NEAR(mb.activations_bytes, expected, 1e-6 * expected) << "tp " << tp;
  }
  // Without SP the norms and the first GEMM inputs (8 h of the 32 h) are not divided by TP:
  // Korthikanti's "10 + 24 / t" with 2 h of masks fewer.
  Layout l;
  l.tp = 4;
  l.sp = false;
  const MemoryBreakdown mb = rank0(pm, hw, l, 2048, 1);
  EXPECT_NEAR(mb.activations_bytes, 8 * 2048.0 * 4096 * (8 + 24.0 / 4), 1.0);
}

// theoretical_memory_usage.py: with the distributed optimizer each parameter costs its weight and
// gradient plus 12 / DP bytes of fp32 master and Adam moments (Megatron's 6 + 12/DP with fp32
// gradients; the gradient here is in the parameter dtype, 2 bytes).
TEST(Memory, DistributedOptimizerShardsStateOverDataParallel) {
  const PreparedModel pm = prepare(test::llama3_8b());
  const Hardware hw = test::h100();
  for (int dp : {1, 2, 8, 64}) {
    Layout l;
    l.dp = dp;
    const MemoryBreakdown mb = rank0(pm, hw, l, 4096, 1);
    const double n = mb.params_on_rank;
    EXPECT_NEAR(n, static_cast<double>(pm.params.total), 1e6);  // vocab 128256 is already a multiple of 128
    EXPECT_NEAR(mb.weights_bytes + mb.grads_bytes + mb.optimizer_bytes, n * (2 + 2 + 12.0 / dp), 1.0);
  }
  Layout plain;
  plain.dp = 8;
  plain.distributed_optimizer = false;
  const MemoryBreakdown mb = rank0(pm, hw, plain, 4096, 1);
  EXPECT_NEAR(mb.optimizer_bytes, 12.0 * mb.params_on_rank, 1.0);
  Layout pao;
  pao.dp = 8;
  pao.precision_aware_optimizer = true;
  EXPECT_NEAR(rank0(pm, hw, pao, 4096, 1).optimizer_bytes, 6.0 * mb.params_on_rank / 8, 1.0);
}

// grad_reduce_in_fp32 (Bridge's library recipes): main gradients take 4 B/param instead of 2, and
// nothing else moves.
TEST(Memory, Fp32GradientsDoubleTheGradientBuffer) {
  const PreparedModel pm = prepare(test::llama3_8b());
  const Hardware hw = test::h100();
  Layout l;
  l.tp = 2;
  l.sp = true;
  l.dp = 4;
  const MemoryBreakdown bf16 = rank0(pm, hw, l, 4096, 1);
  l.grad_reduce_in_fp32 = true;
  const MemoryBreakdown fp32 = rank0(pm, hw, l, 4096, 1);
  EXPECT_NEAR(bf16.grads_bytes, 2.0 * bf16.params_on_rank, 1.0);
  EXPECT_NEAR(fp32.grads_bytes, 4.0 * fp32.params_on_rank, 1.0);
  EXPECT_NEAR(fp32.peak_bytes - bf16.peak_bytes, fp32.grads_bytes - bf16.grads_bytes, 0.03 * bf16.grads_bytes);
}

// Expert parameters are sharded over EP x ETP and their optimizer state over expert-DP =
// world / (ETP x EP x PP); dense parameters over DP x CP.
TEST(Memory, ExpertStateShardsOverExpertDataParallel) {
  const PreparedModel pm = prepare(test::qwen3_30b_a3b());
  const Hardware hw = test::h100();
  Layout l;
  l.dp = 16;
  l.ep = 8;
  const MemoryBreakdown mb = rank0(pm, hw, l, 4096, 2);
  const double expert = static_cast<double>(pm.params.expert) / 8;
  const double dense = mb.params_on_rank - expert;
  EXPECT_EQ(l.edp(), 2);
  EXPECT_NEAR(mb.optimizer_bytes, 12.0 * (dense / 16 + expert / 2), 1.0);
}

TEST(Memory, LoraKeepsNoBaseGradientsOrOptimizerState) {
  const PreparedModel pm = prepare(test::llama3_70b());
  const Hardware hw = test::h100();
  const Layout l{.tp = 4, .pp = 4, .dp = 2, .sp = true};
  const MemoryBreakdown full = rank0(pm, hw, l, 4096, 4, Mode::kSft);
  const MemoryBreakdown lora = rank0(pm, hw, l, 4096, 4, Mode::kPeft);
  EXPECT_NEAR(lora.weights_bytes, full.weights_bytes, 0.01 * full.weights_bytes);
  EXPECT_LT(lora.grads_bytes, 0.01 * full.grads_bytes);
  EXPECT_LT(lora.optimizer_bytes, 0.01 * full.optimizer_bytes);
  EXPECT_GT(lora.grads_bytes, 0.0);
  EXPECT_DOUBLE_EQ(lora.activations_bytes, full.activations_bytes);
}

TEST(Memory, RecomputeRemovesActivations) {
  const PreparedModel pm = prepare(test::deepseek_v3());
  const Hardware hw = test::b200();
  Layout l;
  l.pp = 8;
  l.ep = 32;
  l.dp = 32;
  const double none = rank0(pm, hw, l, 4096, 16).activations_bytes;
  Layout sel = l;
  sel.recompute = Recompute::kSelective;
  sel.recompute_modules = kRcMlaUpProj;
  const double mla = rank0(pm, hw, sel, 4096, 16).activations_bytes;
  sel.recompute_modules = kRcMlaUpProj | kRcMoe;
  const double moe = rank0(pm, hw, sel, 4096, 16).activations_bytes;
  Layout full = l;
  full.recompute = Recompute::kFull;
  full.recompute_layers = 1;
  const double f = rank0(pm, hw, full, 4096, 16).activations_bytes;
  EXPECT_LT(mla, none);
  EXPECT_LT(moe, mla);
  EXPECT_LT(f, moe);
  // Full recompute of every layer keeps one input per layer per micro-batch in flight (8 on rank 0),
  // plus one layer rebuilt during backward.
  const int layers0 = plan_stages(61, full).layers_of(0);
  const double ckpt = 8.0 * layers0 * 4096 * 2 * 7168;
  EXPECT_GT(f, ckpt);
  EXPECT_LT(f, ckpt + none / (8.0 * layers0) * 1.01);
  // Block recompute of all layers equals uniform; of fewer layers keeps more.
  full.recompute_method = RecomputeMethod::kBlock;
  full.recompute_layers = layers0;
  EXPECT_NEAR(rank0(pm, hw, full, 4096, 16).activations_bytes, f, 0.02 * f);
  full.recompute_layers = 2;
  EXPECT_GT(rank0(pm, hw, full, 4096, 16).activations_bytes, f);
}

// 1F1B: rank r holds min(m, p - r) micro-batches; interleaved: Korthikanti's (1 + (p - 1)/(p v))
// on the first rank, i.e. p + (p - 1)/v micro-batches of its layers.
TEST(Memory, PipelineInFlightMicrobatches) {
  Layout l;
  l.pp = 8;
  EXPECT_EQ(inflight_chunks(l, 0, 64), 8);
  EXPECT_EQ(inflight_chunks(l, 7, 64), 1);
  EXPECT_EQ(inflight_chunks(l, 0, 4), 4);
  l.vp = 4;
  EXPECT_DOUBLE_EQ(inflight_chunks(l, 0, 64) / l.vp, 8 * (1 + 7.0 / (8 * 4)));
  const PreparedModel pm = prepare(test::llama3_70b());
  const Hardware hw = test::h100();
  Layout a;
  a.tp = 8;
  a.sp = true;
  a.pp = 4;
  Layout b = a;
  b.vp = 5;
  const double plain = rank0(pm, hw, a, 4096, 32).activations_bytes;
  const double inter = rank0(pm, hw, b, 4096, 32).activations_bytes;
  EXPECT_NEAR(inter / plain, 1 + 3.0 / (4 * 5), 1e-9);
}

TEST(Memory, EmbeddingFirstAndHeadLossMtpLast) {
  const PreparedModel pm = prepare(test::deepseek_v3());
  const Hardware hw = test::gb300();
  Layout l = test::deepseek_v3_pp4_layout();
  const StagePlan plan = plan_stages(61, l);
  ASSERT_TRUE(plan.ok);
  EXPECT_EQ(plan.layers_of(0), 13);
  EXPECT_EQ(plan.layers_of(3), 12);
  EXPECT_EQ(plan.layers_of(1) + plan.layers_of(2), 36);
  const MemoryReport r = memory_report(memory_inputs(pm, hw, 4096, 8), l, plan);
  const MemoryBreakdown first = rank_memory(memory_inputs(pm, hw, 4096, 8), l, plan, 0);
  const MemoryBreakdown last = rank_memory(memory_inputs(pm, hw, 4096, 8), l, plan, 3);
  EXPECT_EQ(first.logits_bytes, 0.0);
  EXPECT_GT(last.logits_bytes, 0.0);
  EXPECT_EQ(r.stages, 4);
  EXPECT_GE(r.worst.peak_bytes, first.peak_bytes);
  EXPECT_GE(r.worst.peak_bytes, last.peak_bytes);
  // MTP (a whole MoE layer) and the LM head sit on the last rank.
  EXPECT_GT(last.params_on_rank - first.params_on_rank, 0.5 * static_cast<double>(pm.params.mtp) / 8);
}

TEST(Memory, FsdpShardsEverythingAndAddsGatherBuffers) {
  const PreparedModel pm = prepare(test::llama3_70b());
  const Hardware hw = test::gb300();
  Layout ddp;
  ddp.dp = 64;
  ddp.mbs = 1;
  Layout fsdp = ddp;
  fsdp.fsdp = true;
  const MemoryBreakdown a = rank0(pm, hw, ddp, 8192, 4);
  const MemoryBreakdown b = rank0(pm, hw, fsdp, 8192, 4);
  EXPECT_NEAR(b.weights_bytes, a.weights_bytes / 64, 0.01 * a.weights_bytes / 64);
  EXPECT_NEAR(b.grads_bytes, a.grads_bytes / 64, 0.01 * a.grads_bytes / 64);
  EXPECT_GT(b.fsdp_buffers_bytes, 0.0);
  EXPECT_LT(b.peak_bytes, a.peak_bytes);
}

TEST(Memory, QuantizedCopiesAndActivationsByPrecision) {
  const PreparedModel pm = prepare(test::llama3_8b());
  const Hardware hw = test::b200();
  Layout bf16;
  bf16.dp = 8;
  Layout ds = bf16;
  ds.precision = Precision::kFp8Ds;
  Layout mx = bf16;
  mx.precision = Precision::kMxfp8;
  const MemoryBreakdown a = rank0(pm, hw, bf16, 8192, 1);
  const MemoryBreakdown b = rank0(pm, hw, ds, 8192, 1);
  const MemoryBreakdown c = rank0(pm, hw, mx, 8192, 1);
  EXPECT_EQ(a.quantized_weights_bytes, 0.0);
  EXPECT_GT(b.quantized_weights_bytes, 0.0);
  EXPECT_GT(c.weights_bytes, a.weights_bytes);  // MXFP8 rowwise + columnwise copies replace bf16
  EXPECT_LT(b.activations_bytes, a.activations_bytes);  // GEMM inputs saved in FP8
}

// Seed 002 ran: Qwen3.5-397B-A17B SFT on 48 B200, TP2 PP6 EP8 DP4, SP, full recompute (uniform, 1),
// precision-aware distributed optimizer, 8,192-token rows, micro batch 1, global batch 128.
TEST(Memory, Seed002LayoutFits) {
  const PreparedModel pm = prepare(test::qwen35_397b());
  const Hardware hw = test::b200();
  const Layout l = test::seed002_layout();
  const StagePlan plan = plan_stages(60, l);
  const MemoryReport r = memory_report(memory_inputs(pm, hw, 8192, 32, Mode::kSft), l, plan);
  EXPECT_TRUE(r.worst.fits) << r.worst.peak_bytes / 1e9 << " GB";
  EXPECT_GT(r.worst.peak_bytes, 0.4 * hw.memory_bytes);  // and not trivially
}

// --- The property: the worst rank's memory never grows when one parallel degree doubles.

struct Case {
  Model model;
  Layout layout;
  int64_t seq;
  int64_t gbs;
};

double worst_peak(const PreparedModel& pm, const Hardware& hw, const Layout& l, int64_t seq, int64_t gbs) {
  Workload w;
  w.seq = seq;
  w.gbs = gbs;
  Cluster c;
  c.gpus = l.world();
  const Estimate e = estimate(pm, hw, w, c, l);
  return e.valid ? e.memory.worst.peak_bytes : -1.0;
}

RC_GTEST_PROP(MemoryProperty, WorstRankNeverGrowsWhenADegreeGrows, ()) {
  static const std::vector<Model> kModels = {test::llama3_8b(), test::qwen3_30b_a3b(), test::mixtral_8x7b(),
                                             test::nemotron3_nano(), test::gpt_oss_20b()};
  static std::vector<PreparedModel> prepared;
  if (prepared.empty())
    for (const Model& m : kModels) prepared.push_back(prepare(m));
  const size_t mi = *rc::gen::element<size_t>(0, 1, 2, 3, 4);
  const PreparedModel& pm = prepared[mi];
  const Hardware hw = test::gb200();
  Layout l;
  l.tp = *rc::gen::element(1, 2, 4);
  l.pp = *rc::gen::element(1, 2, 4);
  l.cp = *rc::gen::element(1, 2);
  l.dp = *rc::gen::element(1, 2, 4, 8);
  l.ep = pm.model.is_moe() ? *rc::gen::element(1, 2, 4) : 1;
  l.mbs = *rc::gen::element(1, 2);
  l.sp = l.tp > 1 && *rc::gen::arbitrary<bool>();
  l.fsdp = *rc::gen::arbitrary<bool>();
  l.precision_aware_optimizer = *rc::gen::arbitrary<bool>();
  l.precision = *rc::gen::element(Precision::kBf16, Precision::kFp8Cs, Precision::kMxfp8);
  l.recompute = *rc::gen::element(Recompute::kNone, Recompute::kSelective, Recompute::kFull);
  l.recompute_modules = *rc::gen::element(0u, kRcMoeAct | kRcLayernorm, kRcMlp);
  const int64_t seq = *rc::gen::element<int64_t>(2048, 4096, 8192);
  const int64_t gbs = 512;  // fixed: growing DP means fewer micro-batches, as in practice

  const double base = worst_peak(pm, hw, l, seq, gbs);
  RC_PRE(base > 0);
  const int which = *rc::gen::element(0, 1, 2, 3, 4);
  Layout g = l;
  switch (which) {
    case 0: g.tp *= 2; g.sp = g.sp || (g.tp > 1 && pm.model.is_moe()); break;
    case 1: g.pp *= 2; break;
    case 2: g.cp *= 2; break;
    case 3: g.ep *= 2; break;
    default: g.dp *= 2; break;
  }
  // Only layouts the framework accepts: layers split evenly over the stages (Megatron refuses
  // an uneven split without an explicit layout), TP with SP as before.
  RC_PRE(pm.num_layers % g.pp == 0 && pm.num_layers % l.pp == 0);
  if (which == 0) RC_PRE(g.sp == l.sp || l.tp == 1);
  const double grown = worst_peak(pm, hw, g, seq, gbs);
  RC_PRE(grown > 0);
  RC_ASSERT(grown <= base * (1 + 1e-9));
}

}  // namespace
}  // namespace rb

namespace rb {
namespace {

// NVFP4 without fp4_param_gather (the Nemotron 3 Super performance recipes turn it off) keeps bf16
// parameters and caches TE's NVFP4 rowwise + columnwise copies, instead of the NVFP4 parameter alone.
// Before, the layout's switch did not reach the memory: both priced 1.125 B per GEMM weight.
TEST(Memory, Nvfp4WithoutParamGatherKeepsBf16WeightsAndTheirQuantizedCopies) {
  const PreparedModel pm = prepare(test::llama3_8b());
  const Hardware hw = test::b200();
  Layout gather;
  gather.dp = 8;
  gather.precision = Precision::kNvfp4;
  Layout plain = gather;
  plain.fp4_param_gather = false;
  const MemoryBreakdown a = rank0(pm, hw, gather, 4096, 1);
  const MemoryBreakdown b = rank0(pm, hw, plain, 4096, 1);
  EXPECT_GT(b.weights_bytes, a.weights_bytes);
  EXPECT_GT(b.quantized_weights_bytes, 0.0);
  EXPECT_DOUBLE_EQ(a.quantized_weights_bytes, 0.0);
  // Per GEMM weight: 2 B of bf16 + 1.125 B of copies, against 1.125 B.
  EXPECT_NEAR((b.weights_bytes - a.weights_bytes) / b.quantized_weights_bytes, (2.0 - 1.125) / 1.125, 1e-9);
}

// All-gathered CP (TE AttnFuncWithCPAndKVAllGather) holds one layer's whole-sequence K/V through its
// backward: the gathered K/V, its chunk-ordered copy and the full-length dK/dV, 3 x cp x the K/V of the
// rank's tokens. The ring and Ulysses hold no such buffer.
TEST(Memory, AllGatheredContextParallelHoldsOneLayersWholeKv) {
  const PreparedModel pm = prepare(test::llama3_8b());
  const Hardware hw = test::b200();
  Layout ring;
  ring.cp = 4;
  ring.dp = 2;
  Layout ag = ring;
  ag.cp_comm = CpComm::kAllGather;
  Layout a2a = ring;
  a2a.cp_comm = CpComm::kA2a;
  const int64_t seq = 65536;
  const MemoryBreakdown r = rank0(pm, hw, ring, seq, 1), g = rank0(pm, hw, ag, seq, 1), u = rank0(pm, hw, a2a, seq, 1);
  const LayerSums& s = pm.prefix.back();
  const double per_layer_kv = s.kv_bytes / s.attn_layers;  // 8 KV heads x 128 x 2 (K, V) x 2 B
  EXPECT_DOUBLE_EQ(per_layer_kv, 4096.0);
  EXPECT_NEAR(g.activations_bytes - r.activations_bytes, 3.0 * 4 * (seq / 4.0) * per_layer_kv, 1.0);
  EXPECT_DOUBLE_EQ(u.activations_bytes, r.activations_bytes);
}

// The layers an FP8/FP4 run keeps in BF16 (first_last_layers_bf16) keep their GEMM inputs in 16 bits:
// an NVFP4 run with every layer in BF16 keeps the activations of a BF16 run, half of them halfway.
// Before, every layer's inputs were counted at 4.5 bits.
TEST(Memory, Bf16LayersOfAQuantizedRunKeepSixteenBitInputs) {
  const PreparedModel pm = prepare(test::llama3_8b());
  const Hardware hw = test::b200();
  Layout bf16;
  bf16.dp = 8;
  Layout fp4 = bf16;
  fp4.precision = Precision::kNvfp4;
  Layout all = fp4;
  all.bf16_layers_at_start = pm.num_layers;
  Layout half = fp4;
  half.bf16_layers_at_end = pm.num_layers / 2;
  const double a_bf16 = rank0(pm, hw, bf16, 4096, 1).activations_bytes;
  const double a_fp4 = rank0(pm, hw, fp4, 4096, 1).activations_bytes;
  const double a_all = rank0(pm, hw, all, 4096, 1).activations_bytes;
  const double a_half = rank0(pm, hw, half, 4096, 1).activations_bytes;
  EXPECT_LT(a_fp4, a_bf16);
  EXPECT_DOUBLE_EQ(a_all, a_bf16);
  EXPECT_NEAR(a_half, (a_fp4 + a_bf16) / 2.0, 1e-6 * a_bf16);
}

}  // namespace
}  // namespace rb

namespace rb {
namespace {

// Selective `layernorm` recompute frees only the outputs of norms that are modules of their own: in
// Megatron-Core's TE specs a dense layer's norms are fused into the next linear (nothing to free), a
// MoE layer's pre-MLP norm is its own (freed). Before, every norm output was freed, so a dense model
// was credited memory that Megatron keeps (and the Nemotron-3-Nano MoE-recompute peak read -2.4%).
TEST(Memory, LayernormRecomputeFreesOnlyTheNormsOfTheirOwn) {
  const Hardware hw = test::h100();
  Layout none;
  none.dp = 8;
  Layout ln = none;
  ln.recompute = Recompute::kSelective;
  ln.recompute_modules = kRcLayernorm;
  const PreparedModel dense = prepare(test::llama3_8b());
  EXPECT_DOUBLE_EQ(rank0(dense, hw, ln, 4096, 1).activations_bytes, rank0(dense, hw, none, 4096, 1).activations_bytes);
  const PreparedModel moe = prepare(test::qwen3_30b_a3b());
  Layout moe_none = none;
  moe_none.ep = 8;
  Layout moe_ln = ln;
  moe_ln.ep = 8;
  const double saved =
      rank0(moe, hw, moe_none, 4096, 1).activations_bytes - rank0(moe, hw, moe_ln, 4096, 1).activations_bytes;
  // One h-wide 16-bit tensor per MoE layer and token (the pre-MLP norm's output): 2 h B, of the 4 h B
  // of norm outputs the layer has.
  const double per_token_layer = 2.0 * 2048;
  EXPECT_NEAR(saved, per_token_layer * 4096 * moe.num_layers, 1.0);
}

}  // namespace
}  // namespace rb

#include "recipebook/core/pipeline_layout.hpp"

namespace rb {
namespace {

// Full recompute over a pipeline layout whose first stage holds only the embedding: that chunk has no
// decoder layer, so it checkpoints nothing (before, its one-layer recompute group read past the model's
// layer sums: ASan heap-buffer-overflow in PreparedModel::range, found by BruteForce's random layouts).
TEST(Memory, FullRecomputeOnAStageWithoutDecoderLayersReadsNoLayer) {
  const PreparedModel pm = prepare(test::llama3_8b());
  const Hardware hw = test::h100();
  for (RecomputeMethod method : {RecomputeMethod::kUniform, RecomputeMethod::kBlock}) {
    Layout l;
    l.pp = 2;
    l.dp = 4;
    l.recompute = Recompute::kFull;
    l.recompute_method = method;
    auto stages = parse_pipeline_layout("E|t*32L");
    ASSERT_TRUE(stages);
    l.pipeline_layout = *stages;
    const MemoryBreakdown first = rank0(pm, hw, l, 4096, 4);
    EXPECT_GE(first.activations_bytes, 0.0);
  }
}

}  // namespace
}  // namespace rb
