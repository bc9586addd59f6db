#include "recipebook/estimate/memory.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "recipebook/core/units.hpp"
#include "recipebook/estimate/params.hpp"
#include "recipebook/estimate/vision.hpp"

namespace rb {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// Overheads (named, modest; docs/model.md "Memory overheads"). Megatron's own estimator has none
// besides a 1.05 factor; users report OOMs from exactly these terms (REFERENCES.md B 2b, #525).
constexpr double kCudaContextBytes = 1.0 * kGiB;    // context + cuBLAS / cuDNN / TE workspaces
constexpr double kNcclBytes = 0.5 * kGiB;           // communicator buffers of the groups a rank joins
constexpr double kFlexDispatcherBytes = 1.0 * kGiB; // DeepEP / HybridEP registered buffers
constexpr double kCudaGraphBaseBytes = 0.5 * kGiB;  // graph pools
constexpr double kCudaGraphActFraction = 0.05;      // static input/output copies of graphed layers
constexpr double kFragActFraction = 0.05;           // expandable segments keep fragmentation low
constexpr double kFragStateFraction = 0.02;

constexpr double kAdamBytes = 12.0;       // fp32 master + exp_avg + exp_avg_sq
// Muon (Megatron-Core emerging optimizers): fp32 master + one fp32 momentum buffer per 2-D weight.
constexpr double kMuonBytes = 8.0;
constexpr double kAdamBytesBf16 = 6.0;    // precision-aware: bf16 moments, master as bf16 param + 16-bit remainder
// Bytes per GEMM weight for the model copy (`weight`) and the extra quantized copies TE caches
// (`copies`). Megatron-Bridge mixed-precision recipes (REFERENCES.md D): current scaling, MXFP8 and
// NVFP4 gather the quantized parameter (fp8/fp4_param_gather), delayed and blockwise keep bf16 weights.
struct WeightBytes {
  double weight;
  double copies;
};
WeightBytes gemm_weight_bytes(const Layout& l) {
  switch (l.precision) {
    case Precision::kBf16: return {2.0, 0.0};
    case Precision::kFp8Cs: return {1.0, 1.0};          // fp8 param + its transpose
    case Precision::kFp8Ds: return {2.0, 2.0};          // bf16 param + fp8 copy + transpose
    case Precision::kFp8Blockwise: return {2.0, 2.0};   // bf16 param + fp8 rowwise + columnwise
    case Precision::kMxfp8: return {2.0625, 0.0};       // rowwise + columnwise e4m3, one e8m0 scale per 32
    // Rowwise + columnwise e2m1, one e4m3 scale per 16. Without fp4_param_gather the parameter stays
    // bf16 and TE caches its NVFP4 rowwise + columnwise copies for the backward, as for delayed FP8.
    case Precision::kNvfp4: return l.fp4_param_gather ? WeightBytes{1.125, 0.0} : WeightBytes{2.0, 1.125};
  }
  return {2.0, 0.0};
}

struct Keep {
  ActVec keep{};
  // Selective `layernorm` recompute frees only the outputs of the norms that are modules of their own
  // (LayerSums::norm_out_own: each MoE layer's pre-MLP norm, MLA's input norm); the others are fused
  // into the next linear (TELayerNormColumnParallelLinear), which keeps its input, and
  // transformer_layer.py recomputes no IdentityOp norm.
  bool own_norms_dropped = false;
};

// The share of part `u` of the layers in `s` that stays saved.
double kept(const Keep& k, const LayerSums& s, size_t u) {
  if (u == kActNormOut && k.own_norms_dropped && s.act[u] > 0)
    return k.keep[u] * (1.0 - std::min(1.0, s.norm_out_own / s.act[u]));
  return k.keep[u];
}

Keep selective_keep(const Layout& l) {
  Keep k;
  k.keep.fill(1.0);
  if (l.recompute != Recompute::kSelective) return k;
  const uint32_t mods = l.recompute_modules != 0 ? l.recompute_modules : kRcDefault;
  // core_attn: with flash attention the core keeps only its inputs and output anyway (Korthikanti's
  // 5 a s / h term is already gone), so recomputing it frees nothing here.
  if (mods & kRcLayernorm) k.own_norms_dropped = true;
  if (mods & kRcMlaUpProj) k.keep[kActMlaUp] = 0;
  if (mods & kRcMlp) k.keep[kActMlp] = 0;
  if (mods & kRcMoeAct) k.keep[kActMoeAct] = 0;
  if (mods & kRcMoe) k.keep[kActMoe] = k.keep[kActMoeAct] = k.keep[kActShared] = 0;
  if (mods & kRcSharedExperts) k.keep[kActShared] = 0;
  if (mods & kRcGdnNormOut) k.keep[kActGdnNorm] = 0;
  return k;
}

// Share of a GEMM input's 16-bit bytes saved when Transformer Engine keeps the quantized copy for
// the weight gradient instead (FP8: 1 byte per element; NVFP4: 4 bits plus an e4m3 scale per 16).
double quantized_input_saving(Precision p) {
  switch (precision_class(p)) {
    case PrecisionClass::kBf16: return 0.0;
    case PrecisionClass::kFp8: return 0.5;
    case PrecisionClass::kFp4: return 1.0 - 0.5625 / 2.0;
  }
  return 0.0;
}

// Layers [b, e) summed (`s`: pm.range(b, e) or its cached equal) for their activations: only the
// layers that run quantized keep a GEMM input quantized (act_gemm_in); those an FP8/FP4 run keeps in
// BF16 (first_last_layers_bf16) keep theirs in 16 bits.
LayerSums quantized_inputs_only(const PreparedModel& pm, const Layout& l, int b, int e, LayerSums s) {
  if (!has_bf16_layers(l)) return s;  // every planner candidate without BF16 layers: nothing to take out
  const LayerSums hi = bf16_range_sums(pm, l, b, e);
  for (size_t i = 0; i < s.act_gemm_in.size(); ++i) s.act_gemm_in[i] -= hi.act_gemm_in[i];
  return s;
}
LayerSums quantized_inputs_only(const PreparedModel& pm, const Layout& l, int b, int e) {
  return quantized_inputs_only(pm, l, b, e, pm.range(b, e));
}

// Bytes per token (of the rank's sequence shard) of layers summed in `s`.
double act_per_token(const LayerSums& s, const Keep& k, const Layout& l) {
  const double tp = l.tp;
  const double norm_div = (l.sp || l.tp == 1) ? tp : 1.0;  // without SP the norm tensors are replicated
  const double q = quantized_input_saving(l.precision);
  double b = 0;
  for (int i = 0; i < kNumActParts; ++i) {
    const size_t u = static_cast<size_t>(i);
    const double div = (i == kActNormIn || i == kActNormOut) ? norm_div : tp;
    b += kept(k, s, u) * (s.act[u] - q * s.act_gemm_in[u]) / div;
  }
  // Hidden dropout (Layout::hidden_dropout): each sub-block's bias-dropout-add (Megatron-Core
  // fusions/fused_bias_dropout.py, torch dropout) keeps a 1-byte mask of its h-wide output,
  // Korthikanti's "s b h" per dropout: half the bytes of that sub-block's 16-bit residual input, split
  // like it. p = 0 keeps none. Attention dropout (Layout::attention_dropout) keeps no mask: the fused
  // and flash attention kernels regenerate it from the RNG state in the backward.
  if (l.hidden_dropout > 0) b += 0.5 * s.act[kActNormIn] / norm_div;
  return b;
}

// Bytes per token of the layers in `s` that fine-grained activation offloading sends to the host:
// each module offloads its input (Megatron-Core docs/user-guide/features/
// fine_grained_activation_offloading.md), mapped onto the activation parts (docs/model.md "Offload"):
// attn_norm / mlp_norm half each of the residual stream (kActNormIn, one pre-norm input per
// sub-block), qkv_linear the attention half of the norm outputs, core_attn Q, K and V, attn_proj the
// core output, expert_fc1 the permuted tokens, moe_act the expert activation tensors. Parts that
// selective recompute drops are not there to offload; activation_offload_fraction scales the rest.
double offload_per_token(const LayerSums& s, const Keep& k, const Layout& l) {
  const uint32_t m = l.offload_modules;
  if (m == 0 || l.activation_offload_fraction <= 0) return 0.0;
  const double tp = l.tp;
  const double norm_div = (l.sp || l.tp == 1) ? tp : 1.0;
  const double q = quantized_input_saving(l.precision);
  auto part = [&](int i, double whole, double gemm_in) {
    const size_t u = static_cast<size_t>(i);
    const double div = (i == kActNormIn || i == kActNormOut) ? norm_div : tp;
    return kept(k, s, u) * (whole - q * gemm_in) / div;
  };
  const ActVec& a = s.act;
  const ActVec& g = s.act_gemm_in;
  double b = 0;
  const double norm_in_half = part(kActNormIn, a[kActNormIn], g[kActNormIn]) / 2.0;
  if (m & kOfAttnNorm) b += norm_in_half;
  if (m & kOfMlpNorm) b += norm_in_half;
  if (m & kOfQkvLinear) b += part(kActNormOut, a[kActNormOut], g[kActNormOut]) / 2.0;
  if (m & kOfCoreAttn) b += part(kActAttn, a[kActAttn] - g[kActAttn], 0.0);
  if (m & kOfAttnProj) b += part(kActAttn, g[kActAttn], g[kActAttn]);
  if (m & kOfExpertFc1) b += part(kActMoe, g[kActMoe], g[kActMoe]);
  if (m & kOfMoeAct) b += part(kActMoeAct, a[kActMoeAct], g[kActMoeAct]);
  return b * std::min(1.0, l.activation_offload_fraction);
}

}  // namespace

namespace {

// Bytes per logit that `heads` output heads on one rank (the LM head and the MTP layers there) hold
// at the loss's peak. TE's fused cross entropy writes each head's gradient into its 16-bit logits in
// place: 2 per head. Megatron-Core's (fusions/fused_cross_entropy.py, and tensor_parallel/
// cross_entropy.py unfused) saves exp_logits, the fp32 softmax that calculate_logits_max's `.float()`
// copy becomes: 4 per head; the 16-bit logits die with the forward and the gradient is cast back to
// bf16 in the backward (`grad_input.to(torch.bfloat16)`), 2 for one head at a time. gpt_model.py
// _postprocess runs the MTP heads' losses (process_mtp_loss) before the LM head's, and their backward
// after it, so every head's softmax is held while one head's 16-bit tensor is live: 4 n + 2.
double head_logit_bytes(const Layout& l, int heads) {
  if (heads <= 0) return 0.0;
  if (l.cross_entropy_loss_fusion && l.cross_entropy_fusion_impl == CrossEntropyImpl::kTe) return 2.0 * heads;
  return 4.0 * heads + 2.0;
}

}  // namespace

double logit_bytes(const Layout& l) { return head_logit_bytes(l, 1); }

double offloaded_activation_bytes(const MemoryInputs& in, const Layout& l, const StagePlan& plan, int rank) {
  if (l.offload_modules == 0 || l.recompute == Recompute::kFull) return 0.0;
  const PreparedModel& pm = *in.model;
  const double tokens = static_cast<double>(l.mbs) * static_cast<double>(in.seq) / l.cp;
  const Keep keep = selective_keep(l);
  double b = 0;
  for (int k = 0; k < l.vp; ++k) {
    const int c = k * l.pp + rank;
    const int begin = plan.begin[static_cast<size_t>(c)];
    const int e = plan.begin[static_cast<size_t>(c + 1)];
    const int start = begin + std::min(e - begin, std::max(0, l.cpu_offload_layers));
    b += tokens * offload_per_token(quantized_inputs_only(pm, l, start, e), keep, l);
  }
  return b;
}

double inflight_chunks(const Layout& l, int rank, int microbatches) {
  const int m = std::max(1, microbatches);
  if (l.vp <= 1) return std::max(1, std::min(m, l.pp - rank));
  const int warm = 2 * (l.pp - rank - 1) + (l.vp - 1) * l.pp + 1;
  return std::max(1, std::min(m * l.vp, warm));
}

MemoryBreakdown rank_memory(const MemoryInputs& in, const Layout& l, const StagePlan& plan, int rank) {
  const PreparedModel& pm = *in.model;
  MemoryBreakdown mb;
  mb.stage = rank;
  const bool first = plan.embedding_on(rank);  // the embedding's rank (rank 0 unless a layout moves it)
  const bool last = plan.loss_on(rank);        // the output layer's
  const bool mtp_here = plan.mtp_on(rank);
  const double h = pm.hidden;
  const double vpad = static_cast<double>(padded_vocab(pm.model.vocab, l.tp));
  const double tp = l.tp;

  // Layers (and their chunks) on this rank.
  const LayerSums sums = rank_sums(pm, plan, rank);
  int layers_here = 0;
  for (int k = 0; k < l.vp; ++k) layers_here += plan.layers_of(k * l.pp + rank);

  // --- Parameters on this rank (theoretical_memory_usage.py: embedding on the first stage, output
  // layer and MTP on the last; a tied embedding is duplicated on the last stage when pp > 1). The
  // MTP layers embed their shifted tokens with their own copy of the word embedding wherever they sit
  // without the first stage's (Megatron-Core gpt_model.py builds `self.embedding` when
  // `pre_process or mtp_process`, one per model chunk).
  const bool mtp_embedding = mtp_here && pm.model.mtp_layers > 0 && plan.mtp_stage != plan.embedding_stage;
  const double emb = ((first ? 1.0 : 0.0) + (mtp_embedding ? 1.0 : 0.0)) * vpad * h;
  const double head = (last && (!pm.model.tied_embeddings || l.pp > 1)) ? vpad * h : 0.0;
  const LayerSums none{};
  const LayerSums& mtp = mtp_here ? pm.mtp : none;
  const double final_norm = last ? h : 0.0;
  const double ep_shard = static_cast<double>(l.ep) * std::max(1, l.etp);
  // A VLM run's vision tower sits on the first stage, in BF16 like the embedding (estimate/vision.hpp).
  const VisionWork vision = first ? vision_work(pm.model.vision, in.image, l.mbs) : VisionWork{};
  const double vision_local = vision.active() ? vision_params_on_rank(pm.model.vision, l) : 0.0;
  const double gemm_local = (sums.p_sharded + mtp.p_sharded) / tp + (sums.p_expert + mtp.p_expert) / ep_shard;
  const double other_local = (emb + head) / tp + sums.p_replicated + mtp.p_replicated + final_norm + vision_local;
  const double dense_local = (sums.p_sharded + mtp.p_sharded + emb + head) / tp + sums.p_replicated +
                             mtp.p_replicated + final_norm + vision_local;
  const double expert_local = (sums.p_expert + mtp.p_expert) / ep_shard;
  mb.params_on_rank = dense_local + expert_local;

  const double dp_shard = static_cast<double>(l.dp) * l.cp;  // data_parallel_group_with_cp
  const double edp = std::max(1, l.edp());
  // With distributed optimizer instances (HSDP under FSDP) what is sharded per instance spans only
  // the ranks of one instance: the optimizer state of the distributed optimizer, and FSDP's weights
  // and gradients (its optimizer state stays sharded over all of DP: outer strategy "optim").
  const double instances = std::max(1, l.distributed_optimizer_instances);
  const double dp_in = dp_shard / instances;
  const double edp_in = edp / instances;
  const WeightBytes wb = gemm_weight_bytes(l);
  // The layers an FP8/FP4 run keeps in BF16 build their weights outside the quantized model init
  // (get_fp8_context / get_fp4_context with is_init): BF16 weights, no quantized copies.
  const LayerSums bf16 = bf16_rank_sums(pm, plan, l, rank);
  const double gemm_bf16 = bf16.p_sharded / tp + bf16.p_expert / ep_shard;
  const double weights = wb.weight * (gemm_local - gemm_bf16) + 2.0 * (gemm_bf16 + other_local);
  const double copies = wb.copies * (gemm_local - gemm_bf16);

  const double grad_bytes = gradient_bytes(l);
  if (in.mode == Mode::kPeft) {
    // Frozen base: weights only. Adapters (their share of this rank's layers) carry bf16 weights,
    // fp32 grads and Adam state, sharded like dense parameters.
    const double adapters = static_cast<double>(lora_params(pm.model, in.lora_rank)) *
                            (pm.num_layers > 0 ? static_cast<double>(layers_here) / pm.num_layers : 0.0) / tp;
    mb.weights_bytes = weights + 2.0 * adapters;
    mb.quantized_weights_bytes = copies;
    mb.grads_bytes = grad_bytes * adapters;
    mb.optimizer_bytes = kAdamBytes * adapters / (l.distributed_optimizer ? dp_in : 1.0);
  } else {
    const double adam = l.precision_aware_optimizer ? kAdamBytesBf16 : kAdamBytes;
    // The state of this rank's dense and expert parameters. Muon keeps kMuonBytes for the 2-D
    // weights (the layers' TP-sharded and expert parameters) and Adam's for the embedding, output
    // layer and replicated (norm) parameters (muon_scalar_optimizer).
    const bool muon = l.optimizer == Optimizer::kMuon;
    const double matrix_local = muon ? (sums.p_sharded + mtp.p_sharded) / tp : 0.0;
    const double dense_state = kMuonBytes * matrix_local + adam * (dense_local - matrix_local);
    const double expert_state = (muon ? kMuonBytes : adam) * expert_local;
    if (l.fsdp) {
      // Megatron-FSDP optim_grads_params: weights, grads and optimizer state sharded over DP (the
      // weights and grads over one instance's ranks under HSDP); each layer is gathered before use,
      // double-buffered, and its gradient reduce-scattered.
      const double sharded = dense_local / dp_in + expert_local / edp_in;
      mb.weights_bytes = weights * sharded / std::max(1.0, mb.params_on_rank);
      mb.quantized_weights_bytes = copies / dp_in;
      mb.grads_bytes = grad_bytes * sharded;
      mb.optimizer_bytes = dense_state / dp_shard + expert_state / edp;
      const double per_layer = layers_here > 0 ? mb.params_on_rank / layers_here : 0.0;
      mb.fsdp_buffers_bytes = per_layer * (2.0 * 2.0 + grad_bytes);
    } else {
      mb.weights_bytes = weights;
      mb.quantized_weights_bytes = copies;
      mb.grads_bytes = grad_bytes * mb.params_on_rank;
      mb.optimizer_bytes = l.distributed_optimizer ? dense_state / dp_in + expert_state / edp_in
                                                   : dense_state + expert_state;
    }
  }

  // Optimizer CPU offload (docs/model.md "Offload"): the HybridDeviceOptimizer moves the first
  // optimizer_offload_fraction of this rank's state shard to the host (not with Megatron-FSDP).
  if (l.optimizer_offload_fraction > 0 && !l.fsdp) {
    const double f = std::min(1.0, l.optimizer_offload_fraction);
    const double per_param = (in.mode == Mode::kPeft || !l.precision_aware_optimizer) ? kAdamBytes : kAdamBytesBf16;
    mb.host_optimizer_bytes = f * mb.optimizer_bytes / per_param * kHostOptimizerBytesPerParam;
    mb.optimizer_bytes *= 1.0 - f;
  }

  // --- Activations.
  const double tokens = static_cast<double>(l.mbs) * static_cast<double>(in.seq) / l.cp;
  const Keep keep = selective_keep(l);
  const double norm_div = (l.sp || l.tp == 1) ? tp : 1.0;
  const double ckpt_per_token = 2.0 * h / norm_div;  // one layer input (the full-recompute checkpoint)
  double stored = 0.0;   // bytes per micro-batch of all chunks on this rank
  double working = 0.0;  // full recompute: one recompute group rebuilt during backward
  for (int k = 0; k < l.vp; ++k) {
    const int c = k * l.pp + rank;
    const int b = plan.begin[static_cast<size_t>(c)];
    const int e = plan.begin[static_cast<size_t>(c + 1)];
    const int n = e - b;
    int offloaded = std::min(n, std::max(0, l.cpu_offload_layers));
    const int start = b + offloaded;
    if (l.recompute == Recompute::kFull) {
      if (n == 0) continue;  // a chunk without decoder layers (a pipeline layout's embedding-only stage)
      const int group = std::max(1, std::min(l.recompute_layers, n));
      if (l.recompute_method == RecomputeMethod::kUniform) {
        const int groups = (n + group - 1) / group;
        stored += tokens * groups * ckpt_per_token;
        working = std::max(working, tokens * act_per_token(quantized_inputs_only(pm, l, b, b + group), keep, l));
      } else {  // block: the first `group` layers keep only their inputs, the rest everything
        stored += tokens * (group * ckpt_per_token +
                            act_per_token(quantized_inputs_only(pm, l, b + group, e), keep, l));
        working = std::max(working, tokens * act_per_token(quantized_inputs_only(pm, l, b, b + 1), keep, l));
      }
    } else {
      stored += tokens * act_per_token(
          quantized_inputs_only(pm, l, start, e, start == b ? chunk_sums(pm, plan, c) : pm.range(start, e)), keep, l);
    }
  }
  // All-gathered CP (AttnFuncWithCPAndKVAllGather) holds one attention layer's whole-sequence K/V for
  // the length of its backward: the gathered tensors, their chunk-ordered copies (index_select) and
  // the full-length dK/dV accumulators, three times the K/V of the cp ranks' tokens. A DSA model's
  // attention (index_topk) runs Megatron-Core's own all-gather CP on its own tensors instead: not
  // counted (docs/model.md "Open points").
  if (l.cp > 1 && l.cp_comm == CpComm::kAllGather && sums.attn_layers > 0 && pm.model.mla.index_topk == 0)
    working += 3.0 * l.cp * tokens * (sums.kv_bytes / sums.attn_layers) / tp;
  const double chunks = inflight_chunks(l, rank, in.microbatches);
  // Fine-grained activation offloading: the offloaded tensors of the micro-batches in flight wait on
  // the host; the GPU keeps two layers' worth (the one being offloaded and the one reloaded ahead of
  // its backward).
  const double offloaded = offloaded_activation_bytes(in, l, plan, rank);
  mb.host_activations_bytes = offloaded / l.vp * chunks;
  const double reload_buffers = layers_here > 0 ? 2.0 * offloaded / layers_here : 0.0;
  mb.activations_bytes = (stored - offloaded) / l.vp * chunks + working + std::min(reload_buffers, mb.host_activations_bytes);
  // MTP: its layers' activations and its own logits where it sits (Megatron-Core mtp_standalone).
  if (mtp_here) mb.activations_bytes += tokens * act_per_token(pm.mtp, keep, l);
  // The vision tower's, for the micro batches in flight on the first model chunk.
  if (vision.active()) mb.activations_bytes += vision_activation_bytes(pm.model.vision, vision, l) * chunks / l.vp;
  const int heads = (last ? 1 : 0) + (mtp_here ? pm.model.mtp_layers : 0);
  mb.logits_bytes = tokens * head_logit_bytes(l, heads) * vpad / tp;

  // --- Overheads.
  mb.cuda_context_bytes = kCudaContextBytes;
  mb.nccl_buffers_bytes = kNcclBytes;
  if (pm.experts > 0 && (l.dispatcher == Dispatcher::kFlexDeepep || l.dispatcher == Dispatcher::kFlexHybridep))
    mb.nccl_buffers_bytes += kFlexDispatcherBytes;
  if (l.cuda_graph != CudaGraph::kNone)
    mb.cuda_graphs_bytes = kCudaGraphBaseBytes + kCudaGraphActFraction * mb.activations_bytes;
  mb.fragmentation_bytes = kFragActFraction * (mb.activations_bytes + mb.logits_bytes) +
                           kFragStateFraction * (mb.weights_bytes + mb.quantized_weights_bytes + mb.grads_bytes +
                                                 mb.optimizer_bytes + mb.fsdp_buffers_bytes);
  mb.peak_bytes = mb.sum();
  mb.capacity_bytes = in.hw->memory_bytes;
  mb.required_headroom_bytes = in.hw->headroom_bytes();
  mb.fits = mb.peak_bytes <= mb.capacity_bytes - mb.required_headroom_bytes;
  return mb;
}

std::optional<MemoryHeadroom> parse_memory_headroom(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  if (text.empty()) return std::nullopt;
  MemoryHeadroom h;
  const bool percent = text.back() == '%';
  std::string_view num = percent ? text.substr(0, text.size() - 1) : text;
  double v = 0;
  auto [ptr, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
  if (ec == std::errc() && ptr == num.data() + num.size()) {
    if (!std::isfinite(v) || v < 0 || (percent && v >= 100)) return std::nullopt;
    if (percent)
      h.fraction = v / 100.0;
    else
      h.fixed_bytes = v * kGiB;  // a bare number is GiB
    return h;
  }
  if (percent) return std::nullopt;
  const auto bytes = parse_quantity(text, UnitKind::kBytes);
  if (!bytes) return std::nullopt;
  h.fixed_bytes = *bytes;
  return h;
}

MemoryReport memory_report(const MemoryInputs& in, const Layout& l, const StagePlan& plan) {
  MemoryReport r;
  r.stages = std::min(l.pp, kMaxStages);
  double host_per_gpu = 0;
  for (int rank = 0; rank < l.pp; ++rank) {
    const MemoryBreakdown mb = rank_memory(in, l, plan, rank);
    if (rank < kMaxStages) r.stage_peak_bytes[static_cast<size_t>(rank)] = mb.peak_bytes;
    if (rank == 0 || mb.peak_bytes > r.worst.peak_bytes) r.worst = mb;
    host_per_gpu = std::max(host_per_gpu, mb.host_bytes());
  }
  r.host_gpu_bytes = host_per_gpu;
  set_host_fit(r, *in.hw, in.gpus_per_node, l.world());
  return r;
}

void set_host_fit(MemoryReport& r, const Hardware& hw, int gpus_per_node, int world) {
  // Host memory per node: every GPU of the node at the largest rank's use (a node holds ranks of
  // several pipeline stages when TP x CP is below a node).
  const int per_node = gpus_per_node > 0 ? gpus_per_node : hw.gpus_per_node;
  r.host_node_bytes = r.host_gpu_bytes * std::max(1, std::min(per_node, world));
  r.host_capacity_bytes = hw.host_memory_bytes;
  r.host_fits = r.host_node_bytes <= 0 || r.host_node_bytes <= kHostUsableFraction * r.host_capacity_bytes;
}

}  // namespace rb
