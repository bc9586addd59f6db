// A model prepared once for many estimates: per-layer parameter, FLOP and activation coefficients
// with prefix sums, so that the sums over any pipeline stage cost O(1) and `estimate()` allocates
// nothing. The planner builds one PreparedModel per model and reuses it across millions of layouts.
#pragma once

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "recipebook/core/model.hpp"
#include "recipebook/estimate/flops.hpp"  // GemmSlots
#include "recipebook/estimate/muon.hpp"
#include "recipebook/estimate/params.hpp"
#include "recipebook/estimate/stages.hpp"

namespace rb {

// Activation components of one layer, in bytes per token (16-bit tensors, before any TP/CP
// division). Which of them survive depends on the recompute choice (memory.cpp).
enum ActPart : int {
  kActNormIn = 0,   // inputs of the pre-norms (the residual stream): 2 h per sub-block
  kActNormOut,      // norm outputs = inputs of the first GEMM of each sub-block: 2 h per sub-block
  kActAttn,         // Q, K, V and the core output (flash attention: no s^2 term)
  kActMlaUp,        // MLA up-projection outputs (q, k, v after the LoRA up-projections)
  kActMlp,          // dense MLP: fc1 output and activation output
  kActMoeAct,       // routed experts: activation outputs (fc2 inputs)
  kActMoe,          // routed experts: permuted inputs, fc1 outputs, fc2 outputs; router logits
  kActShared,       // shared experts: fc1 output and activation output
  kActGdn,          // GDN: projections, conv outputs, gates, core output
  kActGdnNorm,      // GDN: gated-norm output (gdn_norm_out recompute)
  kActMamba,        // Mamba-2: in_proj output, conv output, scan output, norm
  kNumActParts
};

using ActVec = std::array<double, kNumActParts>;

// Everything that is summed over layers, as one record (one per layer and one prefix sum per layer).
struct LayerSums {
  double p_sharded = 0;     // TP-sharded parameters
  double p_replicated = 0;  // parameters replicated across TP
  double p_expert = 0;      // routed-expert parameters (sharded over EP x ETP)
  double gemm_flops = 0;    // forward FLOPs per token, dense GEMMs (Megatron's count)
  double expert_flops = 0;  // forward FLOPs per token, routed experts
  double mlp_flops = 0;     // the dense-MLP part of gemm_flops
  double shared_flops = 0;  // the shared-expert part of gemm_flops
  GemmSlots module_flops{}; // gemm_flops and expert_flops by module (LayerFlops::by_module)
  double full_core = 0;     // forward core-attention FLOPs per token per token of causal context
  double swa_core = 0;      // the same for sliding-window layers (context from `window`)
  double fixed_core = 0;    // forward FLOPs per token of GDN conv/delta rule and Mamba scan
  double gdn_delta = 0;     // the GDN delta rule's part of fixed_core (Hardware::microbenchmarks.delta_rule)
  double sub_blocks = 0;    // sub-blocks with TP collectives (mixer, dense MLP, shared experts)
  double attn_layers = 0;   // layers whose mixer is softmax attention or MLA (CP ring exchange)
  double linear_layers = 0; // GDN / Mamba layers (CP all-to-all)
  double moe_layers = 0;
  double kv_bytes = 0;      // K and V bytes per token of attention layers (CP exchange)
  // The part of act[kActNormOut] that norms of their own produce (Megatron-Core's TE specs: each MoE
  // layer's pre_mlp_layernorm, each MLA layer's input_layernorm); the others are fused into the
  // next linear (TELayerNormColumnParallelLinear) and are what selective `layernorm` cannot recompute.
  double norm_out_own = 0;
  ActVec act{};
  ActVec act_gemm_in{};  // the part of `act` that is a GEMM input (saved quantized under FP8/FP4)
};

struct PreparedModel {
  Model model;  // a copy: the PreparedModel is self-contained
  ParamCounts params;
  bool hybrid = false;  // Megatron-Bridge's hybrid (Mamba) FLOPs path
  int window = 0;       // the sliding window of windowed layers (0: none)

  std::vector<LayerSums> prefix;  // prefix[i] = sum of layers [0, i); size L + 1
  LayerSums mtp;                  // all MTP layers together (they live on the last stage)
  std::vector<MuonMatrix> muon;   // the 2-D weights Muon orthogonalizes (Layout::optimizer)
  double mtp_extra_flops = 0;     // forward FLOPs per token of MTP eh-proj + norms (in `mtp` params)

  // Per-model scalars the time model needs.
  double hidden = 0;
  double vocab = 0;
  double dense_ffn = 0;
  double moe_ffn = 0;
  // The width the routed experts run at and their tokens are dispatched at: a latent MoE's latent
  // size (the tokens are projected hidden -> latent before the dispatch and back after the combine:
  // Megatron-Core moe_latent_size, NVIDIA's Nemotron 3 Super report), else the hidden size.
  double expert_hidden = 0;
  double q_dim = 0;
  int experts = 0;
  int top_k = 0;
  int num_layers = 0;
  // Blom's z of routing.hpp for each EP size that divides `experts` (the EP sizes Megatron-Core
  // accepts), by EP size: computed once here, not per estimate.
  std::vector<std::pair<int, double>> route_z;

  [[nodiscard]] LayerSums range(int begin, int end) const;  // layers [begin, end)
  // busiest_rank_load_factor for `ep` ranks, with route_z's z where it holds one.
  [[nodiscard]] double route_load_factor(double tokens, int ep) const;
};

PreparedModel prepare(const Model& m);

// Adds b into a (every field).
void accumulate(LayerSums& a, const LayerSums& b, double scale = 1.0);

// The layer sums of a stage plan for the layouts that share it (StagePlan::sums): what memory.cpp
// and time.cpp would sum, with the same additions in the same order, so the figures are the same.
struct StageSums {
  std::vector<LayerSums> chunk;  // per virtual stage c: range(begin[c], begin[c + 1])
  std::vector<LayerSums> rank;   // per pipeline rank: its chunks accumulated in chunk order
  LayerSums mean_rank;           // every layer of the plan and the MTP, over pp (step_time_floor_s)
};
StageSums stage_sums(const PreparedModel& pm, const StagePlan& plan);

// Virtual stage c's layers; pipeline rank r's over its chunks; the mean rank's. From plan.sums
// when it is set.
LayerSums chunk_sums(const PreparedModel& pm, const StagePlan& plan, int c);
LayerSums rank_sums(const PreparedModel& pm, const StagePlan& plan, int rank);
LayerSums mean_rank_sums(const PreparedModel& pm, const StagePlan& plan);

// The part of those sums in the decoder layers an FP8/FP4 run keeps in BF16 (Layout::
// bf16_layers_at_start / _end, by global layer number as Megatron-Core counts them): zero under a
// BF16 recipe or with no such layers. The MTP layers are not decoder layers (they stay quantized).
bool has_bf16_layers(const Layout& l);  // an FP8/FP4 layout with BF16 first or last layers
LayerSums bf16_range_sums(const PreparedModel& pm, const Layout& l, int b, int e);  // of layers [b, e)
LayerSums bf16_rank_sums(const PreparedModel& pm, const StagePlan& plan, const Layout& l, int rank);
LayerSums bf16_mean_rank_sums(const PreparedModel& pm, const StagePlan& plan, const Layout& l);

}  // namespace rb
