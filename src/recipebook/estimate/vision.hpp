// The vision tower of a vision-language model: its work, FLOPs, activations, parameters and time
// for one micro batch at the recipe's image budget (docs/model.md "Vision tower").
//
// As Megatron-Bridge builds it for Qwen-VL (models/qwen_vl/modelling_qwen3_vl/transformer_config.py
// get_vision_model_config, vision_model.py):
// - the tower sits on the first pipeline stage only (PP 1 inside the tower, pre_process), with the
//   language model's TP and recompute settings (granularity, method, layer count), no sequence
//   parallelism and CP 1: every CP rank of a micro batch runs the whole tower on all its images;
// - its TransformerConfig is built from scratch and copies no FP8 setting: it runs in BF16;
// - attention is per image (packed THD sequences), except with the vision CUDA graph
//   (vision_cuda_graph_impl transformer_engine): then every micro batch is padded to
//   max_vision_cuda_graph_seq_length patches and attends as one masked sequence of that length,
//   and a micro batch with more patches stops with an error (the rule RB-VISION-GRAPH-CAP).
// Pure: no I/O, no globals.
#pragma once

#include "recipebook/core/hardware.hpp"
#include "recipebook/core/layout.hpp"
#include "recipebook/core/model.hpp"
#include "recipebook/estimate/collectives.hpp"

namespace rb {

// What the tower runs on one micro batch.
struct VisionWork {
  double images = 0;          // images per micro batch (micro batch x images per sample)
  double per_image = 0;       // patches per image at the budget (vision_patches_per_image)
  double budget_patches = 0;  // images x per_image: the patches the data brings
  double patches = 0;         // the patches the tower computes: the budget, or the graph's padded size
  double attn_sq = 0;         // sum over attention sequences of length^2 (per image; one padded graph)
  [[nodiscard]] bool active() const { return patches > 0; }
};

// Nothing when the model has no tower or the workload no image budget.
VisionWork vision_work(const VisionDims& v, const ImageBudget& b, int mbs);

// Forward FLOPs of one micro batch: GEMMs (patch embed, qkv, proj, MLP, merger) and the attention
// core (QK^T and AV over each attention sequence, no causal mask).
struct VisionFlops {
  double gemm = 0;
  double core_attn = 0;
  [[nodiscard]] double total() const { return gemm + core_attn; }
};
VisionFlops vision_forward_flops(const VisionDims& v, const VisionWork& w);

// Megatron-Bridge's count for TFLOP/s and MFU (training/utils/flop_utils.py
// vit_flops_from_patch_stats, which qwen3_vl_step.py feeds each batch's patch statistics):
// 3 x [layers ((8 h^2 + 4 h f) sum p + 4 h sum p^2) + merged tokens (2 (h m^2)^2 + 2 h m^2 out)]
// over the data's patches (no padding), the patch embed not counted. Per micro batch.
double vision_model_flops(const VisionDims& v, const VisionWork& w);

// Activation bytes one micro batch leaves on the first stage for its backward (BF16, TP-sharded
// where Megatron shards them, no SP), under the layout's recompute settings.
double vision_activation_bytes(const VisionDims& v, const VisionWork& w, const Layout& l);

// The tower's parameters (Qwen-VL ViT: patch embed conv3d with bias, pre-norm blocks with
// LayerNorms and biases, fused qkv, GELU MLP, and the patch merger: LayerNorm, two linear layers
// over merge^2 x hidden; without a spatial merge, SigLIP in Gemma 3: a post-norm and one projection
// with its RMSNorm). Learned position tables are not counted (the IR has no table size).
// `tp_sharded`: the column- and row-parallel matrices (and the column-parallel biases).
struct VisionParamCounts {
  int64_t total = 0;
  int64_t tp_sharded = 0;
};
VisionParamCounts vision_param_counts(const VisionDims& v);

// The tower's parameters on one rank of the first stage: TP-sharded matrices, the rest replicated.
double vision_params_on_rank(const VisionDims& v, const Layout& l);

// The constants of the decoder's time model the tower shares (time.cpp passes its own).
struct VisionTimeModel {
  double passes = 3;            // forward, dgrad, wgrad (LoRA: 2)
  double attn_passes = 3.5;     // flash attention forward + backward
  double mem_traffic_fwd = 2;   // HBM bytes per saved activation byte, forward
  double mem_traffic_bwd = 3;   // and backward
  bool graphed = false;         // the vision CUDA graph: one replay per layer and pass (estimate/host.hpp)
};

// Seconds of one micro batch's vision tower on a first-stage rank, by the decoder's parts.
struct VisionTime {
  double gemm = 0, attn = 0, mem = 0, recompute = 0, tp = 0, overhead = 0;
  [[nodiscard]] double total() const { return gemm + attn + mem + recompute + tp + overhead; }
};
// `links` / `tp_group`: the layout's (collectives.hpp); with `comm` false the TP all-reduces are left out.
VisionTime vision_time(const VisionDims& v, const VisionWork& w, const Hardware& hw, const Layout& l,
                       const VisionTimeModel& tm, const Links* links, const Group* tp_group);

}  // namespace rb
