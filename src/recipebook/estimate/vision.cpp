#include "recipebook/estimate/vision.hpp"

#include <algorithm>
#include <cmath>

#include "recipebook/estimate/host.hpp"
#include "recipebook/estimate/time.hpp"  // dense_gemm_size_factor

namespace rb {
namespace {

struct Dims {
  double h = 0, f = 0, layers = 0, merge = 1, pixels_per_patch = 0, out = 0;
};

Dims dims(const VisionDims& v) {
  Dims d;
  d.h = v.hidden;
  d.f = v.ffn;
  d.layers = v.layers;
  d.merge = v.spatial_merge > 0 ? v.spatial_merge : 1;
  const double t = v.temporal_patch > 0 ? v.temporal_patch : 1;
  const double p = v.patch > 0 ? v.patch : 16;
  d.pixels_per_patch = 3.0 * t * p * p;  // RGB x temporal_patch frames x patch^2: the conv3d's input
  d.out = v.out_hidden;
  return d;
}

// Bytes per patch one ViT layer keeps for its backward (BF16; no SP inside the tower, so the
// LayerNorm inputs and outputs are whole on every TP rank): the two LayerNorm inputs and outputs
// (8 h), Q, K, V and the core's output (8 h / TP), fc1's output and GELU's (4 f / TP). Flash
// attention keeps no s^2 term; the tower runs with hidden_dropout 0 (no masks).
double layer_bytes_per_patch(const Dims& d, double tp) { return 8.0 * d.h + (8.0 * d.h + 4.0 * d.f) / tp; }

// The patch embed's input pixels (BF16, for the conv's weight gradient) and the merger's LayerNorm
// input and output (4 h), fc1's output and GELU's (h m^2 per merged token: 4 h per patch / TP).
double edge_bytes_per_patch(const Dims& d, double tp) {
  return 2.0 * d.pixels_per_patch + 4.0 * d.h + 4.0 * d.h / tp;
}

}  // namespace

VisionWork vision_work(const VisionDims& v, const ImageBudget& b, int mbs) {
  VisionWork w;
  if (v.layers <= 0 || v.hidden <= 0 || b.max_pixels <= 0 || mbs <= 0) return w;
  w.images = static_cast<double>(mbs) * std::max(1, b.images_per_sample);
  w.per_image = static_cast<double>(vision_patches_per_image(v, b.max_pixels));
  w.budget_patches = w.images * w.per_image;
  if (b.graph_max_patches > 0) {
    // vision_model.py _maybe_pad_vision_sequence_for_cuda_graph: one sequence of the graph's length
    // with an additive mask over the padding (more than that is an error; RB-VISION-GRAPH-CAP).
    w.patches = std::max(w.budget_patches, static_cast<double>(b.graph_max_patches));
    w.attn_sq = w.patches * w.patches;
  } else {
    w.patches = w.budget_patches;  // packed THD: each image attends to itself
    w.attn_sq = w.images * w.per_image * w.per_image;
  }
  return w;
}

VisionParamCounts vision_param_counts(const VisionDims& v) {
  VisionParamCounts c;
  if (v.layers <= 0) return c;
  const int64_t hv = v.hidden;
  const int64_t t = v.temporal_patch > 0 ? v.temporal_patch : 1;
  // Patch embed conv3d with bias (replicated: a torch Conv3d).
  const int64_t embed = 3 * t * int64_t{v.patch} * v.patch * hv + hv;
  // Per block: two LayerNorms (weight + bias), fused qkv and proj, fc1 and fc2, each with its bias;
  // the column-parallel biases shard with their matrices, the row-parallel ones (proj, fc2) do not.
  const int64_t block_sharded = (hv * 3 * hv + 3 * hv) + hv * hv + (hv * v.ffn + v.ffn) + int64_t{v.ffn} * hv;
  const int64_t block_replicated = 4 * hv + hv + hv;
  int64_t sharded = int64_t{v.layers} * block_sharded;
  int64_t replicated = embed + int64_t{v.layers} * block_replicated;
  if (v.spatial_merge > 0) {
    // Merger: LayerNorm, fc1 (h m^2 -> h m^2, column-parallel), GELU, fc2 (-> out, row-parallel).
    const int64_t mh = hv * v.spatial_merge * v.spatial_merge;
    sharded += (mh * mh + mh) + mh * v.out_hidden;
    replicated += 2 * hv + v.out_hidden;
  } else {
    // Without a merge (SigLIP): a post-norm and one projection with its RMSNorm.
    sharded += hv * v.out_hidden;
    replicated += 2 * hv + hv;
  }
  c.tp_sharded = sharded;
  c.total = sharded + replicated;
  return c;
}

VisionFlops vision_forward_flops(const VisionDims& v, const VisionWork& w) {
  VisionFlops f;
  if (!w.active()) return f;
  const Dims d = dims(v);
  const double p = w.patches;
  // Patch embed (the conv3d as a GEMM of pixels_per_patch -> h), per layer qkv (6 h^2), proj
  // (2 h^2) and the MLP (4 h f), the merger's two GEMMs over p / m^2 merged tokens of width h m^2.
  const double m2 = d.merge * d.merge;
  const double merger = d.merge > 1 ? 2.0 * d.h * m2 * d.h + 2.0 * d.h * d.out : 2.0 * d.h * d.out;
  f.gemm = p * (2.0 * d.pixels_per_patch * d.h + d.layers * (8.0 * d.h * d.h + 4.0 * d.h * d.f) + merger);
  f.core_attn = d.layers * 4.0 * d.h * w.attn_sq;  // QK^T and AV, full (bidirectional) attention
  return f;
}

double vision_model_flops(const VisionDims& v, const VisionWork& w) {
  if (!w.active()) return 0.0;
  const Dims d = dims(v);
  const double sum_p = w.budget_patches;
  const double sum_p2 = w.images * w.per_image * w.per_image;
  const double mh = d.h * d.merge * d.merge;
  const double merged = sum_p / (d.merge * d.merge);
  const double layers = d.layers * ((8.0 * d.h * d.h + 4.0 * d.h * d.f) * sum_p + 4.0 * d.h * sum_p2);
  return 3.0 * (layers + merged * (2.0 * mh * mh + 2.0 * mh * d.out));
}

double vision_activation_bytes(const VisionDims& v, const VisionWork& w, const Layout& l) {
  if (!w.active()) return 0.0;
  const Dims d = dims(v);
  const double tp = l.tp;
  const double layer = layer_bytes_per_patch(d, tp);
  const double edges = edge_bytes_per_patch(d, tp);
  double per_patch = edges + d.layers * layer;
  if (l.recompute == Recompute::kFull) {
    // The tower takes the language model's recompute method and layer count: uniform keeps one
    // input (2 h, whole on every TP rank) per group of `group` layers and rebuilds one group at a
    // time; block keeps only the inputs of its first `group` layers and all of the rest.
    const double group = std::clamp(static_cast<double>(l.recompute_layers), 1.0, std::max(1.0, d.layers));
    if (l.recompute_method == RecomputeMethod::kUniform) {
      const double groups = std::ceil(d.layers / group);
      per_patch = edges + groups * 2.0 * d.h + group * layer;
    } else {
      per_patch = edges + group * 2.0 * d.h + (d.layers - group) * layer + layer;
    }
  }
  return w.patches * per_patch;
}

double vision_params_on_rank(const VisionDims& v, const Layout& l) {
  const VisionParamCounts c = vision_param_counts(v);
  return static_cast<double>(c.tp_sharded) / l.tp + static_cast<double>(c.total - c.tp_sharded);
}

VisionTime vision_time(const VisionDims& v, const VisionWork& w, const Hardware& hw, const Layout& l,
                       const VisionTimeModel& tm, const Links* links, const Group* tp_group) {
  VisionTime t;
  if (!w.active()) return t;
  const Dims d = dims(v);
  const double tp = l.tp;
  // BF16 (the tower's config copies no FP8 setting), through the decoder's GEMM path: the fitted
  // BF16 GEMM efficiency times the decoder's dense size factor (the patches on their token curve,
  // the smallest weight dimension on its own).
  const Efficiency& eff = hw.eff(Precision::kBf16);
  const double peak = std::max(1.0, hw.bf16_flops_per_s);
  const double hbm = std::max(1.0, hw.hbm_bytes_per_s * eff.hbm);
  const VisionFlops f = vision_forward_flops(v, w);
  const double size = dense_gemm_size_factor(w.patches, std::min(d.h, d.f / tp), hw.gemm_half_dim);
  const double gemm_fwd = f.gemm / tp / (peak * eff.gemm * size);
  const double attn_fwd = f.core_attn / tp / (peak * eff.attention);
  t.gemm = tm.passes * gemm_fwd;
  t.attn = tm.attn_passes * attn_fwd;
  Layout no_recompute = l;
  no_recompute.recompute = Recompute::kNone;
  const double act = vision_activation_bytes(v, w, no_recompute);
  const double mem_fwd = tm.mem_traffic_fwd * act / hbm;
  t.mem = mem_fwd + tm.mem_traffic_bwd * act / hbm;
  double full_share = 0.0;  // full recompute: the share of the layers whose forward runs again
  if (l.recompute == Recompute::kFull) {
    full_share = l.recompute_method == RecomputeMethod::kUniform
                     ? 1.0
                     : std::min(1.0, std::max(1, l.recompute_layers) / std::max(1.0, d.layers));
    t.recompute = full_share * (gemm_fwd + attn_fwd + mem_fwd);
  } else if (l.recompute == Recompute::kSelective) {
    // The tower's config keeps TransformerConfig's default recompute_modules, core_attn.
    t.recompute = attn_fwd;
  }
  // TP without SP: an all-reduce after proj and after fc2 forward, and after the qkv and fc1 dgrads
  // backward, of the whole micro batch's hidden states (the tower runs no TP comm overlap).
  if (l.tp > 1 && links != nullptr && tp_group != nullptr)
    t.tp = 4.0 * d.layers * all_reduce_s(w.patches * d.h * 2.0, *tp_group, *links);
  // The host floor (estimate/host.hpp): the tower's layers are Megatron-Core's ViT TE spec
  // (models/vision/vit_layer_specs.py get_vit_layer_with_transformer_engine_spec: the dense layer's
  // TELayerNormColumnParallelLinear, TEDotProductAttention, TERowParallelLinear and TE MLP). It runs
  // before the decoder's forward and after its backward, so it takes max(GPU, host) on its own.
  t.overhead = std::max(0.0, dense_layers_host_s(d.layers, tm.graphed, full_share, hw.host_cpu_family) - t.total());
  return t;
}

}  // namespace rb
