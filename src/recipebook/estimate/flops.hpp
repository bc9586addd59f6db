// Model FLOPs per token, counted exactly as Megatron counts them, so that our MFU and TFLOP/s equal
// what users read in their logs.
//
// Sources (docs/model.md, "FLOPs"):
// - Megatron-Bridge src/megatron/bridge/training/utils/flop_utils.py, `num_floating_point_operations`
//   (transformer_flops: GQA + output gate + sliding window, MLA, GDN, MoE routed + shared, MTP, logits;
//   hybrid_flops: the Mamba path with attn/mamba/mlp/moe/gdn layer counts).
// - Megatron-LM megatron/training/training.py, `num_floating_point_operations` (the same terms).
// Training = 3 x forward (forward, dgrad, wgrad), no recompute; a GEMM of m x n by n x k is 2mnk.
#pragma once

#include <array>
#include <cstdint>

#include "recipebook/core/layout.hpp"  // GemmModule
#include "recipebook/core/model.hpp"

namespace rb {

struct FlopsOptions {
  int tp = 1;                       // the vocabulary is padded to a multiple of 128 x TP
  int vocab_divisible_by = 128;     // make_vocab_size_divisible_by
  double core_attn_seq_factor = 0;  // packed sequences: sum(s_i^2) / sum(s_i); 0 = the row length
};

// The GEMM FLOPs of a layer by Megatron-Core module: slot i holds GemmModule bit 1 << i (linear_qkv
// .. latent_proj); kGemmOtherSlot the dense GEMMs of no named module (MLA's q/kv projections, GDN's,
// Mamba-1's), which always run at their layer's precision.
inline constexpr int kGemmOtherSlot = 8;
inline constexpr int kNumGemmSlots = 9;
using GemmSlots = std::array<double, kNumGemmSlots>;
// The slots of dense GEMMs (`gemm`) and of the routed-expert term (`expert`: the experts and a
// latent MoE's projections, which flops.cpp counts with them).
inline constexpr uint32_t kDenseGemmSlots =
    kGmLinearQkv | kGmLinearProj | kGmInProj | kGmOutProj | kGmMlp | kGmSharedExperts | (1u << kGemmOtherSlot);
inline constexpr uint32_t kExpertGemmSlots = kGmExperts | kGmLatentProj;

// Forward FLOPs per token of one layer, split by the kind of kernel that runs them.
struct LayerFlops {
  double gemm = 0;       // dense GEMMs: projections, dense MLP, shared experts
  double expert = 0;     // routed experts (top-k grouped GEMMs)
  double core_attn = 0;  // softmax-attention core, GDN conv + delta rule, Mamba conv + scan
  double delta_rule = 0;  // the GDN delta rule's part of core_attn (timed from its kernel figures)
  // gemm and expert again, by module: the dense slots sum to gemm, the expert slots to expert.
  GemmSlots by_module{};
  [[nodiscard]] double total() const { return gemm + expert + core_attn; }
};

// Training FLOPs per token (3 x forward) by term.
struct FlopsBreakdown {
  double attention_proj = 0;  // GQA/MHA projections (incl. the output gate)
  double attention_core = 0;  // QK^T and AV with the causal (or sliding-window) context
  double mla = 0;             // MLA projections and core
  double gdn = 0;
  double mamba = 0;
  double dense_mlp = 0;
  double moe_routed = 0;
  double moe_shared = 0;
  double mtp_extra = 0;  // MTP eh-proj and norms (the MTP layers themselves are in the terms above)
  double logits = 0;     // 2 h V_padded per output head (main + MTP)
  double total = 0;
};

// Megatron-Bridge uses `hybrid_flops` for Mamba-based models (is_hybrid_model): any layer with a
// Mamba-2 mixer or a mixer-less (MLP/MoE-only) layer. That path ignores the output gate, sliding
// windows and the MTP eh-proj, and counts Mamba with d_inner = 2 h whatever the head count.
bool uses_hybrid_path(const Model& m);

// Forward FLOPs per token of one layer at row length `seq` (core_seq: the core-attention factor).
LayerFlops layer_forward_flops(const Model& m, const LayerSpec& spec, double seq, double core_seq, bool hybrid);

// The mixer Megatron's count gives MTP layer k: its layer pattern continued past the last layer
// (index L + k), which for a pattern whose period divides L is the pattern of layer k.
LayerSpec mtp_flops_spec(const Model& m, int k);

FlopsBreakdown megatron_flops_breakdown(const Model& m, int64_t seq, const FlopsOptions& opt = {});

// Training FLOPs per token, Megatron's `num_floating_point_operations` / (batch x seq).
double megatron_flops_per_token(const Model& m, int64_t seq, const FlopsOptions& opt = {});

// LoRA (frozen base): the weight-gradient GEMMs of frozen matrices are skipped, so every term with
// weights counts 2 x forward instead of 3 x; the attention core (no weights) still counts 3 x.
// Adapter FLOPs are neglected (rank << hidden). This is the work Megatron-Bridge's LoRA special case
// (flop_utils.py, Llama-3-70B + packed SQuAD) reports; other LoRA runs report the full count.
double lora_flops_per_token(const Model& m, int64_t seq, const FlopsOptions& opt = {});

}  // namespace rb
