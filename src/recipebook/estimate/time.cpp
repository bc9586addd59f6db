#include "recipebook/estimate/time.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "recipebook/estimate/collectives.hpp"
#include "recipebook/estimate/context_parallel.hpp"
#include "recipebook/estimate/fused_kernels.hpp"
#include "recipebook/estimate/gemm_split.hpp"
#include "recipebook/estimate/host.hpp"
#include "recipebook/estimate/memory.hpp"  // gradient_bytes
#include "recipebook/estimate/muon.hpp"
#include "recipebook/estimate/params.hpp"
#include "recipebook/estimate/routing.hpp"
#include "recipebook/estimate/vision.hpp"

namespace rb {
namespace {

// Fixed modelling constants (docs/model.md "Time"); the fitted ones live in Efficiency, the GEMM size
// curves' half-points in Hardware (gemm_half_dim, expert_half_dim).
// The token (M) dimension's half-point of the dense GEMM size factor (dense_gemm_size_factor): the
// published cuBLAS BF16 sweeps over M in catalog/hardware `microbenchmarks:` fit n / (n + 150) on
// H100 (vLLM #23280, N=2112 K=7168, M 256-8192) and n / (n + 188) on B200 (vLLM #19566, N=K=4096,
// M 256-2048); 170 is their mean. On B200 M 1024 -> 2048 gains 6% (1363 -> 1444 TFLOP/s): this
// curve gives 7.7%, the width curve's 1024 would give 33%.
constexpr double kGemmTokensHalfDim = 170.0;
// Mamba-2 SSD and GDN chunked delta-rule kernels, per FLOP Megatron counts for them (7 d_in state for
// the scan), run at this fraction of the flash-attention rate: Dao & Gu 2024 (arXiv 2405.21060,
// Sec. 9.3) find SSD and FlashAttention-2 equally fast at sequence 2K; taking head dim P = 64 and
// state N = 64 (our reading of their benchmark setup, not re-verified), causal attention does
// 2 P L = 262k FLOPs per token and head there against SSD's counted 7 P N = 28.7k.
constexpr double kScanRelativeRate = 28.7 / 262.0;
// HBM bytes moved per saved activation byte by the memory-bound (elementwise) kernels around it: the
// forward writes it and the next op reads it (2); the backward reads it, writes its gradient and the
// op below reads that gradient (3).
constexpr double kMemTrafficFwd = 2.0;
constexpr double kMemTrafficBwd = 3.0;
constexpr double kFp8CastTraffic = 1.0;     // extra bytes per activation byte for quantize + transpose
// NVFP4 quantization (TE NVFP4BlockScaling), per pass: each GEMM input forward and each output
// gradient backward (about the inputs' volume) is read in BF16 and written rowwise and columnwise,
// e2m1 with one e4m3 scale per 16 values (2 x 0.5625 B per 2-B element): 1.5625 B per BF16 byte.
// The quantization kernel streams at a measured fraction of the HBM peak: vLLM #20646 on B200
// (bench_nvfp4_gemm.py, N=6144 K=4096, m=16384) runs the GEMM at 3904 TFLOP/s without its
// activation quantization and 3039 TFLOP/s with it: 60 us for 172 MB (BF16 read + e2m1 and scales
// written) = 2.86 TB/s, 0.357 of its 8 TB/s. (The random Hadamard transform TE applies to the wgrad
// operands is not in that kernel, nor here.)
constexpr double kNvfp4QuantBytesPerByte = 1.0 + 2.0 * 0.5625 / 2.0;
constexpr double kNvfp4QuantHbmFraction = 2.86 / 8.0;
// DeepEP / HybridEP FP8 dispatch: e4m3 values plus one FP32 scale per 128 channels, against BF16's
// 2 bytes: DeepEP's own benchmarks count it so (tests/legacy/test_intranode.py, test_internode.py:
// `fp8_factor = (1 + 4 / 128) / 2`; the scales are `[num_tokens, hidden // 128]` float).
constexpr double kFp8DispatchBytesRatio = (1.0 + 4.0 / 128.0) / 2.0;
constexpr double kOptimizerBytesFp32 = 30;  // grad read, master/m/v read+write, param write (per param)
constexpr double kOptimizerBytesBf16 = 18;  // with bf16 moments and bf16-stored masters
// Muon: grad read, master and momentum read+write, param write (its Newton-Schulz GEMMs: muon.hpp).
constexpr double kOptimizerBytesMuon = 20;
constexpr double kOptimizerFixedS = 2e-3;   // multi-tensor launches, grad-norm reduction

// Bytes per element of a GEMM's quantized operands (scales neglected): bf16 2, FP8 1, FP4 0.5.
double gemm_operand_bytes(Precision p) {
  switch (precision_class(p)) {
    case PrecisionClass::kBf16: return 2.0;
    case PrecisionClass::kFp8: return 1.0;
    case PrecisionClass::kFp4: return 0.5;
  }
  return 2.0;
}

double sum_act(const LayerSums& s, const Layout& l) {
  double b = 0;
  for (int i = 0; i < kNumActParts; ++i) b += s.act[static_cast<size_t>(i)];
  return b / l.tp;
}

}  // namespace

double gemm_size_factor(double smallest_dim, double half_dim) {
  if (smallest_dim <= 0) return 1.0;
  return smallest_dim / (smallest_dim + std::max(0.0, half_dim));
}

double dense_gemm_size_factor(double tokens, double smallest_width, double half_dim) {
  return gemm_size_factor(tokens, kGemmTokensHalfDim) * gemm_size_factor(smallest_width, half_dim);
}

namespace {

StepTerms step_terms(const TimeInputs& in, const Layout& l, bool comm) {
  StepTerms x;
  x.in = &in;
  x.l = &l;
  x.comm = comm;
  const PreparedModel& pm = *in.model;
  const Hardware& hw = *in.hw;
  const Efficiency& eff = hw.eff(l.precision);
  x.eff = &eff;
  x.eff_bf16 = &hw.eff(Precision::kBf16);
  if (comm) {
    x.links = make_links(hw, eff, in.gpus_per_node, l.world());
    x.groups = place_groups(l);
  }
  const Links& links = x.links;
  const Groups& groups = x.groups;

  const double tp = x.tp = l.tp;
  const double h = x.h = pm.hidden;
  const double tokens = x.tokens = static_cast<double>(l.mbs) * static_cast<double>(in.seq) / l.cp;  // per rank, before TP
  const double tok_tp = x.tok_tp = tokens / tp;
  const bool peft = in.mode == Mode::kPeft;
  x.passes = peft ? 2.0 : 3.0;  // forward, dgrad, wgrad (frozen weights: no wgrad)
  x.peak_bf16 = std::max(1.0, hw.bf16_flops_per_s);
  const double hbm = x.hbm = std::max(1.0, hw.hbm_bytes_per_s * eff.hbm);
  const bool fp8 = x.fp8 = l.precision != Precision::kBf16;

  // GEMM size factors: dense layers by their smallest dimension (the micro-batch's tokens on this
  // rank, the hidden size, the TP-sharded width); routed experts by the
  // tokens each local expert gets (balanced routing) and the expert width.
  const double dense_width = pm.dense_ffn > 0 ? pm.dense_ffn : (pm.q_dim > 0 ? pm.q_dim : h);
  x.f_dense = dense_gemm_size_factor(tokens, std::min(h, dense_width / tp), hw.gemm_half_dim);
  // Each precision at its own peak and fitted GEMM efficiency (the layout's: `eff`).
  const std::array<Precision, kNumGemmPrecisions> at{l.precision, Precision::kMxfp8, Precision::kBf16};
  GemmByPrecision gemm_flops_per_s{};
  for (size_t c = 0; c < at.size(); ++c) {
    gemm_flops_per_s[c] = std::max(1.0, hw.peak_flops_per_s(at[c])) * hw.eff(at[c]).gemm;
    x.dense_rate[c] = x.expert_rate[c] = gemm_flops_per_s[c] * x.f_dense;
  }
  if (pm.experts > 0) {
    // The grouped GEMMs of one expert are (m tokens x h) by (h x width), h the expert input width
    // (a latent MoE's latent size). Two losses multiply:
    // - the expert's weights stream from HBM once per GEMM, so the GEMM takes (1 + m_ridge / m) of
    //   its compute time, m_ridge = FLOP/s x operand bytes / (2 x HBM bytes/s) (the roofline ridge
    //   of a weight-bound GEMM, both at their achieved rates: about 220-300 tokens on H100-GB300);
    // - the shape factor s / (s + hw.expert_half_dim) of the geometric mean s of h and the width.
    // The same curve at each precision's rate and operand bytes (the BF16 layers' experts, a module
    // run in MXFP8).
    const double m = tok_tp * pm.top_k * l.ep / pm.experts;
    const double s = std::sqrt(pm.expert_hidden * pm.moe_ffn / std::max(1, l.etp));
    for (size_t c = 0; c < at.size(); ++c) {
      const double m_ridge = gemm_flops_per_s[c] * gemm_operand_bytes(at[c]) / (2.0 * hbm);
      x.expert_rate[c] = gemm_flops_per_s[c] * m / (m + m_ridge) * gemm_size_factor(s, hw.expert_half_dim);
    }
    // The busiest EP rank's share of the routed copies over the mean (estimate/routing.hpp): its
    // expert GEMMs and the copies it receives set the layer's pace.
    x.route = pm.route_load_factor(tok_tp * l.ep, l.ep);
  }
  x.vpad = static_cast<double>(padded_vocab(pm.model.vocab, l.tp));
  x.swa_ctx = (pm.window > 0 && pm.window < in.seq)
                  ? pm.window - pm.window * (pm.window - 1.0) / (2.0 * static_cast<double>(in.seq))
                  : static_cast<double>(in.seq) / 2.0;

  const double act_bytes = x.act_bytes = tokens * h * 2.0;  // one hidden-state tensor of the micro-batch on this rank
  if (comm) {
    x.rs = reduce_scatter_s(act_bytes, groups.tp, links);
    // EP: every routed token copy crosses once each way; DeepEP / HybridEP dispatch FP8 activations in
    // FP8 recipes (combine stays BF16; kFp8DispatchBytesRatio); the alltoall dispatcher moves BF16 both ways.
    const bool flex = l.dispatcher == Dispatcher::kFlexDeepep || l.dispatcher == Dispatcher::kFlexHybridep;
    const double ep_bytes = tok_tp * pm.top_k * pm.expert_hidden * 2.0;  // a latent MoE's tokens travel at its latent size
    const double dispatch_ratio = (flex && fp8) ? kFp8DispatchBytesRatio : 1.0;
    const double dispatch_bytes = ep_bytes * dispatch_ratio;
    // DeepEP / HybridEP deduplicate per NVLink domain and forward over NVLink (ep_dedup_s), at the
    // rates their published figures show on this GPU (Links::ep_*); the alltoall dispatcher sends
    // every copy.
    const double token_bytes = ep_bytes / std::max(1, pm.top_k);
    const Numerics& nm = pm.model.numerics;
    const RouteGroups route_groups{pm.experts, nm.router_groups.value_or(0), nm.router_group_topk.value_or(0)};
    // The all-to-all ends when the busiest receiver has its copies (x.route); the allgather
    // dispatcher gathers every token whatever the routing.
    x.a2a = l.dispatcher == Dispatcher::kAllgather
                ? 2.0 * reduce_scatter_s(ep_bytes * l.ep / std::max(1, pm.top_k), groups.ep, links)
            : flex ? 0.5 * x.route *
                         (ep_dedup_s(token_bytes * dispatch_ratio, pm.top_k, groups.ep, links, route_groups) +
                          ep_dedup_s(token_bytes, pm.top_k, groups.ep, links, route_groups))
                   : 0.5 * x.route *
                         (all_to_all_s(dispatch_bytes, groups.ep, links) + all_to_all_s(ep_bytes, groups.ep, links));
    const double pp_bytes = act_bytes / (l.sp ? tp : 1.0);
    x.pp_send = l.pp > 1 ? p2p_s(pp_bytes, groups.pp.stride, links) : 0.0;
  }
  x.tp_hidden = l.tp_comm_overlap_runs() ? eff.overlap : 0.0;
  x.mods = l.recompute == Recompute::kSelective ? (l.recompute_modules != 0 ? l.recompute_modules : kRcDefault) : 0u;

  // LoRA adapters (rank r beside each adapted frozen matrix) are trained: their GEMMs take all three
  // passes. Spread evenly over the layers, TP-sharded like the matrices they adapt; 2 FLOPs per
  // adapter parameter and token forward (docs/model.md "Time": about 0.4% of a 70B layer's work).
  x.lora_total = peft ? static_cast<double>(lora_params(pm.model, in.lora_rank)) : 0.0;
  x.adapter_fwd_per_layer = pm.num_layers > 0 ? 2.0 * x.lora_total / pm.num_layers : 0.0;
  if (pm.experts > 0 && fused_grouped_mlp_runs(l, pm.model.activation))
    x.mlp_saving = fused_grouped_mlp_saving(pm.moe_ffn / std::max(1, l.etp), is_gated(pm.model.activation), l.precision);
  x.fp8_attn = l.fp8_attention && fp8;
  if (x.fp8_attn) {
    // The kernels run over the rank's sequence: CP splits it (the ring steps' blocks).
    x.attn_ratio = fp8_attention_ratio(hw.microbenchmarks, l.precision, static_cast<double>(in.seq) / l.cp,
                                       pm.model.attn.head_dim);
    x.attn_quant = fp8_attention_quant_bytes_per_byte(l.precision);
  }
  // GDN's delta rule runs head-parallel: TP shards its value heads, and CP's all-to-all hands each rank
  // whole sequences of 1/CP of the rank's heads.
  if (pm.model.gdn.value_heads > 0) {
    const double shards = static_cast<double>(l.tp) * l.cp;
    x.delta_rule = delta_rule_rate(hw.microbenchmarks, pm.model.gdn.value_heads / shards, static_cast<double>(in.seq),
                                   pm.model.gdn.key_heads / shards);
  }
  return x;
}

// One micro-batch (forward + backward) on a pipeline rank whose layers sum to `s` (MTP included
// where it sits), `hi` the part of them an FP8/FP4 run keeps in BF16 (bf16_rank_sums): they quantize
// nothing. Each GEMM runs at its own precision's rate (split_gemm_flops: the BF16 layers, the MTP
// block and the per-module lists). `last`: 1 on the rank of the output layer, else 0; `mtp`: 1 on the MTP's rank;
// `layers`: its decoder layers; `recompute_fraction`: under full recompute, the share of them
// recomputed. Every term is linear in (s, last, mtp, layers) or a maximum of such (convex), which
// step_time_floor_s relies on.
RankTime rank_time(const StepTerms& x, const LayerSums& s, const LayerSums& hi, double last, double mtp,
                   double layers, double recompute_fraction) {
  const TimeInputs& in = *x.in;
  const Layout& l = *x.l;
  const PreparedModel& pm = *in.model;
  const Hardware& hw = *in.hw;
  const Efficiency& eff = *x.eff;
  const double tp = x.tp, h = x.h, tokens = x.tokens, tok_tp = x.tok_tp, hbm = x.hbm;
  const double rs = x.rs, a2a = x.a2a, tp_hidden = x.tp_hidden;
  const uint32_t mods = x.mods;

  RankTime t;
  const double dense_rate = x.dense_rate[kGemmAtLayout];
  // Forward time of the dense GEMMs of `slots` (flops.hpp), each at its precision's rate.
  auto dense_fwd = [&](uint32_t slots) {
    return tok_tp * gemm_split_time(split_gemm_flops(l, s, hi, pm.mtp, mtp, mtp * pm.mtp_extra_flops, slots),
                                    x.dense_rate);
  };
  const double gemm_fwd = dense_fwd(kDenseGemmSlots);
  const double expert_fwd =
      x.route * tok_tp * gemm_split_time(split_gemm_flops(l, s, hi, pm.mtp, mtp, 0.0, kExpertGemmSlots), x.expert_rate);
  // The output layer runs in bf16 (outside TE's FP8 autocast), with its MTP heads.
  const double heads = last + mtp * static_cast<double>(pm.model.mtp_layers);
  const double head_fwd = heads > 0 ? tok_tp * 2.0 * h * x.vpad * heads /
                                          (x.peak_bf16 * eff.gemm *
                                           dense_gemm_size_factor(tokens, std::min(h, x.vpad / tp), hw.gemm_half_dim))
                                    : 0.0;
  // GDN's delta rule at its published kernel rates where the GPU has them (each pass its own figure:
  // FLA's Triton kernels do not follow the BF16 peak, docs/model.md "Time"); else with the scans.
  const double delta = x.delta_rule.known() ? s.gdn_delta : 0.0;
  const double delta_fwd = delta > 0 ? tok_tp * delta / x.delta_rule.fwd_flops_per_s : 0.0;
  const double delta_bwd = delta > 0 ? tok_tp * delta / x.delta_rule.bwd_flops_per_s : 0.0;
  const double core = s.full_core * static_cast<double>(in.seq) / 2.0 + s.swa_core * x.swa_ctx +
                      (s.fixed_core - delta) / kScanRelativeRate;
  double attn_fwd = tok_tp * core / (x.peak_bf16 * eff.attention) + delta_fwd;
  // The softmax attention cores alone (what selective `core_attn` recomputes), FP8's rate below.
  double softmax_fwd_s =
      tok_tp * (s.full_core * static_cast<double>(in.seq) / 2.0 + s.swa_core * x.swa_ctx) / (x.peak_bf16 * eff.attention);
  // Frozen base weights (LoRA): forward and dgrad only; the adapters' own GEMMs all three passes.
  t.gemm = x.passes * (gemm_fwd + expert_fwd + head_fwd) + 3.0 * tok_tp * x.adapter_fwd_per_layer * layers / dense_rate;
  t.attn = kAttnPasses * (attn_fwd - delta_fwd) + delta_fwd + delta_bwd;
  // FP8 attention: the softmax attention of the quantized layers (not the scans, not the BF16 layers,
  // which run outside the autocast) at FP8's time per pass against BF16's (fused_kernels.hpp), and
  // the quantization of Q, K, V forward and dO backward (memory-bound).
  double attn_quant_fwd = 0.0, attn_quant_bwd = 0.0;
  if (x.fp8_attn) {
    const double softmax = (s.full_core - hi.full_core) * static_cast<double>(in.seq) / 2.0 +
                           (s.swa_core - hi.swa_core) * x.swa_ctx;
    const double softmax_fwd = tok_tp * softmax / (x.peak_bf16 * eff.attention);
    attn_fwd += (x.attn_ratio.fwd - 1.0) * softmax_fwd;
    softmax_fwd_s += (x.attn_ratio.fwd - 1.0) * softmax_fwd;
    t.attn += (x.attn_ratio.fwd - 1.0 + (kAttnPasses - 1.0) * (x.attn_ratio.bwd - 1.0)) * softmax_fwd;
    const double q_bytes = (s.attn_layers - hi.attn_layers) * pm.q_dim * 2.0;
    attn_quant_fwd = x.attn_quant * tokens * (q_bytes + s.kv_bytes - hi.kv_bytes) / tp / hbm;
    attn_quant_bwd = x.attn_quant * tokens * q_bytes / tp / hbm;
  }

  // Memory-bound traffic: the elementwise kernels' (kMemTraffic*), and in each pass half the FP8
  // casts (inputs forward, gradients backward) and the permute + unpermute of routed tokens.
  const double act = tokens * sum_act(s, l);
  const double act_quantized = act - tokens * sum_act(hi, l);  // the BF16 layers cast nothing
  const bool nvfp4 = l.precision == Precision::kNvfp4;
  const double permute_bytes = s.moe_layers * tok_tp * pm.top_k * h * 2.0 * 2.0;  // routed copies, out and back
  const double mem_each_pass = (x.fp8 && !nvfp4 ? 0.5 * kFp8CastTraffic * act_quantized : 0.0) + permute_bytes;
  // NVFP4's quantization of `gemm_in` bytes per token (of the quantized layers' GEMM inputs).
  auto nvfp4_quant_s = [&](double gemm_in) {
    return kNvfp4QuantBytesPerByte * tokens * gemm_in / tp / (std::max(1.0, hw.hbm_bytes_per_s) * kNvfp4QuantHbmFraction);
  };
  double gemm_in = 0.0;
  for (size_t i = 0; i < s.act_gemm_in.size(); ++i) gemm_in += s.act_gemm_in[i] - hi.act_gemm_in[i];
  const double quant_each_pass = nvfp4 ? nvfp4_quant_s(gemm_in) : 0.0;
  // TE's fused grouped MLP: the routed copies of the quantized MoE layers skip the activation and
  // quantization passes around FC1 (fused_kernels.hpp; the BF16 layers run unfused).
  const double fused_copies = (s.moe_layers - hi.moe_layers) * tok_tp * pm.top_k;
  const double fused_fwd = fused_copies * x.mlp_saving.fwd_bytes / hbm;
  const double fused_bwd = fused_copies * x.mlp_saving.bwd_bytes / hbm;
  // The forward's memory-bound time of one activation part (ActPart): its elementwise traffic and,
  // under FP8/FP4, its share of the casts, as mem_fwd below counts them for the whole forward.
  auto forward_traffic_s = [&](ActPart p) {
    const size_t i = static_cast<size_t>(p);
    const double quantized = s.act[i] - hi.act[i];
    const double bytes = kMemTrafficFwd * s.act[i] + (x.fp8 && !nvfp4 ? 0.5 * kFp8CastTraffic * quantized : 0.0);
    double sec = tokens * bytes / tp / hbm;
    if (nvfp4) sec += nvfp4_quant_s(s.act_gemm_in[i] - hi.act_gemm_in[i]);
    return sec;
  };
  // what a recomputed forward moves again
  const double mem_fwd = (kMemTrafficFwd * act + mem_each_pass) / hbm + quant_each_pass - fused_fwd + attn_quant_fwd;
  t.mem = mem_fwd + (kMemTrafficBwd * act + mem_each_pass) / hbm + quant_each_pass - fused_bwd + attn_quant_bwd;

  // Recompute: full redoes the forward (and its TP/EP communication) of the recomputed layers.
  // The recomputed forward runs inside this micro-batch's backward, on the compute stream, so its
  // EP dispatch and combine are exposed: Megatron-Core allows neither full recompute nor `moe` in
  // recompute_modules with EP A2A overlap (transformer_config.py: "disable full recomputation" /
  // "disable moe in recompute_modules when enabling overlap_moe_expert_parallel_comm"; rule
  // check_ep_a2a_overlap), so no EP term of a recomputed forward is ever hidden. TP overlap
  // (userbuffers) runs in any forward, the recomputed one included.
  const double tp_per_pass = s.sub_blocks * 2.0 * rs;
  const double ep_per_pass = s.moe_layers * 2.0 * a2a;
  if (l.recompute == Recompute::kFull) {
    t.recompute = recompute_fraction * (gemm_fwd + expert_fwd + attn_fwd + mem_fwd + tp_per_pass * (1.0 - tp_hidden) +
                                        ep_per_pass);
  } else if (mods != 0) {
    // Selective recompute, module by module as Megatron-Core applies it (docs/model.md "Time").
    // `core_attn` checkpoints Attention.core_attention only (attention.py
    // `_checkpointed_attention_forward`): the softmax cores of the attention layers (with FP8
    // attention's Q/K/V casts, inside TE's DotProductAttention); Mamba's scan and GDN's delta rule are
    // not in it (megatron/core/ssm has no core_attn checkpoint).
    if (mods & kRcCoreAttn) t.recompute += softmax_fwd_s + attn_quant_fwd;
    // `mlp` (dense layers only: transformer_layer.py sets recompute_mlp only when the layer is not
    // MoE) and `shared_experts` (moe_layer.py shared_experts_compute) checkpoint their module whole:
    // its GEMMs and its activation's forward traffic again.
    if (mods & kRcMlp) t.recompute += dense_fwd(kGmMlp) + forward_traffic_s(kActMlp);
    if (mods & kRcMoe) {
      // `moe` checkpoints MoELayer.forward whole (moe_layer.py `custom_forward` under
      // tensor_parallel.checkpoint / te_checkpoint): shared experts, router, permute, dispatch,
      // routed experts (GEMMs, activation, casts), combine, unpermute, all again. Its memory-bound
      // part is the MoE tensors' forward traffic (kActMoe, kActMoeAct, kActShared) and the
      // permute + unpermute (as in mem_each_pass), less what TE's fused grouped MLP skips.
      t.recompute += expert_fwd + dense_fwd(kGmSharedExperts) + ep_per_pass + permute_bytes / hbm - fused_fwd +
                     forward_traffic_s(kActMoe) + forward_traffic_s(kActMoeAct) + forward_traffic_s(kActShared);
    } else if (mods & kRcSharedExperts) {
      t.recompute += dense_fwd(kGmSharedExperts) + forward_traffic_s(kActShared);
    }
    // Recomputing an elementwise module (activation, norm, gated norm) regenerates its output: the
    // forward's traffic (kMemTrafficFwd: read the input, write the output) of those parts again.
    double regenerated = 0.0;
    if (mods & kRcMoeAct) regenerated += s.act[kActMoeAct];
    // `layernorm` recomputes the norms that are modules of their own (transformer_layer.py: only
    // where input_layernorm / pre_mlp_layernorm is not IdentityOp), not those fused into a linear.
    if (mods & kRcLayernorm) regenerated += s.norm_out_own;
    if (mods & kRcGdnNormOut) regenerated += s.act[kActGdnNorm];
    t.recompute += kMemTrafficFwd * tokens * regenerated / tp / hbm;
  }

  // TP/SP: per sub-block, all-gather + reduce-scatter forward and again backward (or one
  // all-reduce each way without SP); the output layer adds one pair on the last rank.
  const double tp_ops = l.tp > 1 ? 2.0 * tp_per_pass + last * (2.0 * rs) : 0.0;
  t.tp = tp_ops * (1.0 - tp_hidden);

  // CP: the ring exchange, its merges and shorter attention blocks (estimate/context_parallel.hpp).
  add_context_parallel(t, x, s, recompute_fraction);
  // EP: dispatch + combine, forward and backward. With EP A2A overlap (`overlap_moe_expert_parallel_comm`)
  // Megatron-Core runs the forward of one micro-batch with the backward of the previous one, layer
  // by layer, each transfer on a communication stream beside a named computation of the other
  // (megatron/core/models/common/model_chunk_schedule_plan.py TransformerLayerSchedulePlan.run):
  //   combine_bwd  under pre_dispatch_fwd (attention, router and shared experts, forward)
  //   dispatch_fwd under mlp_bwd (the routed experts' dgrad), dispatch_bwd under mlp_bwd_dw (wgrad,
  //                which is why the overlap needs delay_wgrad_compute)
  //   combine_fwd  under pre_dispatch_bwd (attention, router and shared experts, backward)
  // so per MoE layer each of the four transfers (one dispatch or combine, `a2a`) is exposed by what
  // exceeds its partner. The routed experts' backward GEMMs are each their forward's cost; the
  // pre-dispatch backward is twice its GEMMs and kAttnPasses - 1 its core attention. A hybrid
  // (Mamba) stack's MoE layer has no mixer: its pre-dispatch part is the shared experts alone.
  // Micro-batches without a partner (the first rank's warm-up forwards, as many cool-down
  // backwards; one of each without a pipeline: schedules.py get_pp_rank_microbatches) expose all.
  if (l.ep > 1 || l.dispatcher == Dispatcher::kAllgather) {
    const double ep_all = 2.0 * ep_per_pass;
    t.ep = ep_all;
    if (l.ep_a2a_overlap && s.moe_layers > 0) {
      const double xfer = s.moe_layers * a2a;  // one dispatch (or combine) of every MoE layer
      const double shared = dense_fwd(kGmSharedExperts);
      const double mixer_gemm = std::max(0.0, gemm_fwd - dense_fwd(kGmMlp) - shared);
      const double mixers = s.attn_layers + s.linear_layers;
      const double with_mixer = pm.hybrid || mixers <= 0 ? 0.0 : std::min(1.0, s.moe_layers / mixers);
      const double pre_fwd = with_mixer * (mixer_gemm + attn_fwd) + shared;
      const double attn_bwd = (kAttnPasses - 1.0) * (attn_fwd - delta_fwd) + delta_bwd;
      const double pre_bwd = with_mixer * (2.0 * mixer_gemm + attn_bwd) + 2.0 * shared;
      const double exposed = std::max(0.0, xfer - pre_fwd) + 2.0 * std::max(0.0, xfer - expert_fwd) +
                             std::max(0.0, xfer - pre_bwd);
      const double chunks = static_cast<double>(std::max(1, in.microbatches)) * l.vp;
      const double warmup = l.vp > 1 ? 2.0 * (l.pp - 1.0) + (l.vp - 1.0) * l.pp : l.pp - 1.0;
      const double paired = std::max(0.0, 1.0 - std::max(1.0, warmup) / chunks);
      t.ep = (1.0 - paired) * ep_all + paired * exposed;
    }
  }
  // PP: each chunk sends its output forward and its input gradient backward.
  t.pp = 2.0 * l.vp * x.pp_send * (1.0 - eff.overlap);
  // Host floor (estimate/host.hpp): the GPU runs only what the host has launched, so the micro-batch
  // takes max(GPU, host). A dropless MoE layer's token-count sync makes the host wait for the GPU in
  // every forward, so the host cannot run ahead from the backward into the forward: forward and
  // backward (with its recomputed forwards) are bounded each on its own; each sync idles the GPU (kMoeSyncS).
  // The GPU's forward share: the forward GEMMs, attention and traffic, half the transfers (one way
  // each), a third of the CP ring (one of its three block transfers).
  const double gpu = t.total();
  const double gpu_fwd = gemm_fwd + expert_fwd + head_fwd + attn_fwd + mem_fwd + 0.5 * (t.tp + t.ep + t.pp) + t.cp / 3.0;
  const double local_experts = pm.experts > 0 ? static_cast<double>(pm.experts) / l.ep : 0.0;
  const HostTime host = host_time(s, l, l.recompute == Recompute::kFull ? recompute_fraction : 0.0, x.fp8, local_experts,
                                  hw.host_cpu_family);
  const double busy = host.syncs > 0 ? std::max(gpu_fwd, host.forward_s) + std::max(gpu - gpu_fwd, host.backward_s)
                                     : std::max(gpu, host.forward_s + host.backward_s);
  t.overhead = busy - gpu + host.sync_s;
  return t;
}

// A VLM run's vision tower on the first stage, with the decoder's constants (estimate/vision.hpp).
void add_vision(RankTime& t, const StepTerms& x) {
  const TimeInputs& in = *x.in;
  const VisionDims& v = in.model->model.vision;
  const VisionWork w = vision_work(v, in.image, x.l->mbs);
  if (!w.active()) return;
  const VisionTimeModel tm{x.passes, kAttnPasses, kMemTrafficFwd, kMemTrafficBwd, in.image.graph_max_patches > 0};
  const VisionTime vt = vision_time(v, w, *in.hw, *x.l, tm, x.comm ? &x.links : nullptr, x.comm ? &x.groups.tp : nullptr);
  t.gemm += vt.gemm, t.attn += vt.attn, t.mem += vt.mem, t.recompute += vt.recompute, t.tp += vt.tp;
  t.overhead += vt.overhead;
}

}  // namespace

TimeBreakdown step_time(const TimeInputs& in, const Layout& l, const StagePlan& plan) {
  const PreparedModel& pm = *in.model;
  const Hardware& hw = *in.hw;
  const StepTerms x = step_terms(in, l, true);
  const Efficiency& eff = *x.eff;
  const Links& links = x.links;
  const Groups& groups = x.groups;
  const double tp = x.tp, h = x.h, hbm = x.hbm, vpad = x.vpad, pp_send = x.pp_send, lora_total = x.lora_total;
  const bool peft = in.mode == Mode::kPeft;
  const bool fp8 = x.fp8;

  TimeBreakdown out;
  out.microbatches = in.microbatches;
  RankTime worst;
  double worst_total = -1.0;
  for (int r = 0; r < l.pp; ++r) {
    const bool last = plan.loss_on(r);        // the output layer (rank pp - 1 unless a layout moves it)
    const bool mtp_here = plan.mtp_on(r);     // the MTP layers and their heads
    LayerSums s = rank_sums(pm, plan, r);
    int layers = 0;
    double recompute_fraction = 0.0;  // full recompute: share of this rank's layers recomputed
    for (int k = 0; k < l.vp; ++k) {
      const int n = plan.layers_of(k * l.pp + r);
      layers += n;
      if (l.recompute == Recompute::kFull)
        recompute_fraction += l.recompute_method == RecomputeMethod::kUniform ? n : std::min(n, l.recompute_layers);
    }
    if (mtp_here) accumulate(s, pm.mtp);
    recompute_fraction = layers > 0 ? recompute_fraction / layers : 0.0;

    const LayerSums hi = bf16_rank_sums(pm, plan, l, r);
    RankTime t = rank_time(x, s, hi, last ? 1.0 : 0.0, mtp_here ? 1.0 : 0.0, layers, recompute_fraction);
    if (plan.embedding_on(r)) add_vision(t, x);
    const double total = t.total();
    if (total > worst_total) {
      worst_total = total;
      worst = t;
      out.bottleneck_stage = r;
    }
  }

  const double m = std::max(1, in.microbatches);
  out.microbatch_s = worst_total;
  out.gemm_s = m * worst.gemm;
  out.attention_s = m * worst.attn;
  out.memory_bound_s = m * worst.mem;
  out.recompute_s = m * worst.recompute;
  out.tp_comm_s = m * worst.tp;
  out.cp_comm_s = m * worst.cp;
  out.ep_comm_s = m * worst.ep;
  out.pp_p2p_s = m * worst.pp + (l.pp > 1 ? 2.0 * (l.pp - 1) * pp_send : 0.0);
  out.overhead_s = m * worst.overhead;
  out.bubble_s = l.pp > 1 ? (l.pp - 1.0) / l.vp * worst_total : 0.0;

  // DP: gradients reduce-scattered and parameters all-gathered once per step (distributed
  // optimizer; all-reduce without it), dense over DP x CP and experts over expert-DP; what does not fit
  // under the last micro-batch's backward and the next step's first forward is exposed. FSDP gathers
  // and reduces per micro-batch, the expert weights over expert-DP (Megatron-Core
  // distributed/fsdp/mcore_fsdp_adapter.py shards them over get_expert_data_parallel_group, as
  // memory.cpp does), overlapped with compute: `overlap` of the step's compute can cover it, and
  // what exceeds that is exposed.
  const PreparedModel& p = pm;
  const double ep_shard = static_cast<double>(l.ep) * std::max(1, l.etp);
  const double layer_params = p.prefix.back().p_sharded / tp + p.prefix.back().p_replicated;
  const double per_rank_dense = (layer_params + 2.0 * vpad * h / tp) / l.pp;
  const double per_rank_expert = p.prefix.back().p_expert / ep_shard / l.pp;
  const double trainable = peft ? lora_total / (tp * l.pp) : 1.0;
  const double dense_p = peft ? trainable : per_rank_dense;
  const double expert_p = peft ? 0.0 : per_rank_expert;
  const double param_bytes = fp8 && (l.precision == Precision::kFp8Cs || l.precision == Precision::kMxfp8) ? 1.0 : 2.0;
  const double dp_grad_bytes = gradient_bytes(l);  // the gradient buckets DP reduces
  // Distributed optimizer instances (Layout::distributed_optimizer_instances): the sharded
  // collectives run inside an instance (`dp_in`, `edp_in`); across the instances (`dp_out`,
  // `edp_out`) each rank's shard is reduced once per step (Megatron-Core DDP: reduce-scatter inside,
  // all-reduce across; Megatron-FSDP HSDP with outer "optim": reduce-scatter and, after the step,
  // all-gather across). One instance: the outer terms are 0.
  const int instances = std::max(1, l.distributed_optimizer_instances);
  const Group dp_in = inner_group(groups.dp_cp, instances), dp_out = outer_group(groups.dp_cp, instances);
  const Group edp_in = inner_group(groups.edp, instances), edp_out = outer_group(groups.edp, instances);
  const double dense_shard = dense_p / std::max(1, dp_in.size), expert_shard = expert_p / std::max(1, edp_in.size);
  double dp_total = 0.0;
  if (l.fsdp) {
    dp_total = m * (2.0 * all_gather_s(dense_p * 2.0, dp_in, links) +
                    reduce_scatter_s(dense_p * dp_grad_bytes, dp_in, links) +
                    2.0 * all_gather_s(expert_p * 2.0, edp_in, links) +
                    reduce_scatter_s(expert_p * dp_grad_bytes, edp_in, links));
    const double outer = reduce_scatter_s(dense_shard * dp_grad_bytes, dp_out, links) +
                         all_gather_s(dense_shard * 2.0, dp_out, links) +
                         reduce_scatter_s(expert_shard * dp_grad_bytes, edp_out, links) +
                         all_gather_s(expert_shard * 2.0, edp_out, links);
    out.dp_comm_s = std::max(dp_total * (1.0 - eff.overlap), dp_total - eff.overlap * m * worst_total) +
                    std::max(0.0, outer - eff.overlap * worst_total);
  } else {
    if (l.distributed_optimizer) {
      dp_total = reduce_scatter_s(dense_p * dp_grad_bytes, dp_in, links) +
                 all_reduce_s(dense_shard * dp_grad_bytes, dp_out, links) +
                 all_gather_s(dense_p * param_bytes, dp_in, links) +
                 reduce_scatter_s(expert_p * dp_grad_bytes, edp_in, links) +
                 all_reduce_s(expert_shard * dp_grad_bytes, edp_out, links) +
                 all_gather_s(expert_p * param_bytes, edp_in, links);
    } else {
      dp_total = all_reduce_s(dense_p * dp_grad_bytes, groups.dp_cp, links) +
                 all_reduce_s(expert_p * dp_grad_bytes, groups.edp, links);
    }
    out.dp_comm_s = std::max(0.0, dp_total - eff.overlap * worst_total);
  }

  // Optimizer step over this rank's shard of the state.
  const double shard = (l.distributed_optimizer || l.fsdp) ? 1.0 : 0.0;
  // The distributed optimizer steps one instance's shard; Megatron-FSDP's outer "optim" shards the
  // state over all of DP.
  const double step_shard = l.fsdp ? 1.0 : instances;
  const double local_state = shard > 0 ? dense_p * step_shard / (static_cast<double>(l.dp) * l.cp) +
                                             expert_p * step_shard / std::max(1, l.edp())
                                       : dense_p + expert_p;
  const bool muon = l.optimizer == Optimizer::kMuon && !peft;
  const double opt_bytes = muon                          ? kOptimizerBytesMuon
                           : l.precision_aware_optimizer ? kOptimizerBytesBf16
                                                         : kOptimizerBytesFp32;
  // The GPU steps what optimizer CPU offload leaves it; the host part is offload_s.
  const double on_gpu = 1.0 - std::clamp(l.fsdp ? 0.0 : l.optimizer_offload_fraction, 0.0, 1.0);
  out.optimizer_s = kOptimizerFixedS + on_gpu * local_state * opt_bytes / hbm;
  // Muon's Newton-Schulz iterations run as BF16 GEMMs (muon_fp32_matmul_prec "medium").
  if (muon) out.optimizer_s += muon_rank_flops(pm.muon, l) / (x.peak_bf16 * hw.eff(Precision::kBf16).gemm);
  {
    MemoryInputs mi{in.model, in.hw, in.mode, in.seq, in.lora_rank, in.microbatches, in.gpus_per_node,
                    in.image};
    const double act_bytes_mb = offloaded_activation_bytes(mi, l, plan, out.bottleneck_stage);
    const OffloadTime ot = offload_time(hw, l, in.gpus_per_node, local_state, act_bytes_mb, worst_total);
    const double stall = ot.activation_exposed_per_microbatch_s;
    out.offload_s = ot.optimizer_s + m * stall + (l.pp > 1 ? (l.pp - 1.0) / l.vp * stall : 0.0);
  }

  out.step_time_s = out.sum();
  return out;
}

// The rank loop of step_time on the mean rank: the sums of all ranks (every decoder layer, the MTP)
// over pp, the output layer and the MTP heads 1 / pp each. Every term of rank_time is linear or
// convex in those, so the mean rank's time is at most the mean of the ranks' times (Jensen), which
// is at most the slowest rank's. The transfers are left out and full recompute counts the smallest
// share any rank recomputes: each only lowers it.
double step_time_floor_s(const TimeInputs& in, const Layout& l, const StagePlan& plan) {
  const PreparedModel& pm = *in.model;
  const StepTerms x = step_terms(in, l, false);
  const int stages = plan.virtual_stages();
  const LayerSums mean = mean_rank_sums(pm, plan);
  double fraction = 0.0;
  if (l.recompute == Recompute::kFull) {
    fraction = 1.0;
    for (int r = 0; r < l.pp; ++r) {
      int layers = 0, recomputed = 0;
      for (int k = 0; k < l.vp; ++k) {
        const int n = plan.layers_of(k * l.pp + r);
        layers += n;
        recomputed += l.recompute_method == RecomputeMethod::kUniform ? n : std::min(n, l.recompute_layers);
      }
      fraction = std::min(fraction, layers > 0 ? static_cast<double>(recomputed) / layers : 0.0);
    }
  }
  const double share = 1.0 / l.pp;
  const double layers = static_cast<double>(plan.begin[static_cast<size_t>(stages)] - plan.begin[0]) * share;
  const double rank_s =
      rank_time(x, mean, bf16_mean_rank_sums(pm, plan, l), share, share, layers, fraction).total();
  const double m = std::max(1, in.microbatches);
  const double bubble = l.pp > 1 ? (l.pp - 1.0) / l.vp : 0.0;
  // Below step_time's figure by more than its rounding (the sums above are added in another order).
  return ((m + bubble) * rank_s + kOptimizerFixedS) * (1.0 - 1e-9);
}

}  // namespace rb
