// Parameter counts, exact, from the model IR: total, active, per layer kind, and the split the
// memory model needs (TP-sharded, replicated, routed-expert).
//
// Conventions (docs/model.md, "Parameters"):
// - total: the text model as Megatron builds it: input embedding, decoder layers, final norm and an
//   untied LM head, every parameter (matrices, norms, biases, A_log/dt_bias/D, sinks). Vocabulary
//   unpadded. MTP layers and the vision tower are reported separately (mtp, vision).
// - active (seed 002's convention): every weight matrix a token passes through — attention / MLA /
//   GDN / Mamba projections including the depthwise conv1d kernels, dense MLP, router, the top-k routed
//   experts, shared experts and the shared-expert gate — plus the LM head; without the input embedding,
//   without 1-D parameters (norms, biases, A_log, dt_bias, D, sinks), without MTP and the vision tower.
//   Qwen3.5-397B-A17B gives 16,331,407,360, the figure of seed 002, to the parameter.
#pragma once

#include <cstdint>

#include "recipebook/core/model.hpp"

namespace rb {

// The parameters of one decoder layer, by part and by how Megatron shards them.
struct LayerParams {
  int64_t mixer = 0;          // every mixer parameter (attention / MLA / GDN / Mamba), 1-D included
  int64_t mixer_matrices = 0; // the mixer's weight matrices (and conv kernels): the active part
  int64_t norms = 0;          // layer norms of this layer (pre-mixer, pre-FFN)
  int64_t dense_ffn = 0;      // dense MLP, biases included
  int64_t router = 0;         // MoE router weight (+ bias)
  int64_t routed = 0;         // all routed experts, biases included
  int64_t routed_active = 0;  // top-k routed experts' weight matrices
  int64_t shared = 0;         // shared experts + shared-expert gate

  // Megatron sharding: TP-sharded matrices, parameters replicated across TP (norms, router, 1-D
  // parameters, MLA down-projections), and routed experts (sharded over EP x ETP).
  int64_t tp_sharded = 0;
  int64_t replicated = 0;
  int64_t expert = 0;

  // Active per seed 002: matrices only (no norms, no biases, no 1-D parameters), top-k experts.
  int64_t active = 0;

  [[nodiscard]] int64_t total() const { return mixer + norms + dense_ffn + router + routed + shared; }
};

struct ParamCounts {
  int64_t total = 0;      // text model: embedding + layers + final norm + LM head (untied)
  int64_t active = 0;     // seed-002 convention, see above
  int64_t embedding = 0;  // input embedding (and learned positions)
  int64_t lm_head = 0;    // 0 when tied
  int64_t final_norm = 0;
  int64_t mtp = 0;        // MTP layers (embedding and LM head shared with the main model, as Megatron)
  int64_t vision = 0;     // vision tower and merger / projector (learned position tables not counted)

  // Decoder layers by part (sums over layers).
  int64_t attention = 0;  // softmax-attention mixers (GQA/MHA, gated, sliding)
  int64_t mla = 0;
  int64_t gdn = 0;
  int64_t mamba = 0;
  int64_t norms = 0;
  int64_t dense_ffn = 0;
  int64_t router = 0;
  int64_t routed_experts = 0;
  int64_t shared_experts = 0;

  // The split the memory model uses, over decoder layers only (embedding, head, MTP are separate).
  int64_t tp_sharded = 0;
  int64_t replicated = 0;
  int64_t expert = 0;

  [[nodiscard]] int64_t total_with_mtp() const { return total + mtp; }
  [[nodiscard]] int64_t total_all() const { return total + mtp + vision; }
};

// Parameters of one layer of `m` with the given spec.
LayerParams layer_params(const Model& m, const LayerSpec& spec);

// The spec Megatron uses for MTP layer k (its real structure): the model's full-attention mixer
// (MLA if the model uses MLA, else softmax attention without a window) and the FFN of the last layer.
LayerSpec mtp_layer_spec(const Model& m);

// Parameters of one MTP block: its layer plus enorm, hnorm, eh_proj (2h x h) and its final norm.
int64_t mtp_block_params(const Model& m);

ParamCounts count_params(const Model& m);

// Trainable parameters of LoRA adapters of rank r on every linear layer of attention and the
// dense MLP / shared experts (Megatron-Bridge's default targets linear_qkv, linear_proj,
// linear_fc1, linear_fc2), routed experts excluded: r x (in + out) per adapted matrix.
int64_t lora_params(const Model& m, int rank);

// Megatron's padded vocabulary: a multiple of make_vocab_size_divisible_by x TP
// (megatron/training/tokenizer `_vocab_size_with_padding`; Bridge `calculate_padded_vocab_size`).
int64_t padded_vocab(int64_t vocab, int tp, int divisible_by = 128);

}  // namespace rb
