// The model IR: one architecture as plain values, with a per-layer list so that hybrids (GDN or Mamba
// mixed with attention, dense layers before MoE layers, sliding-window every other layer) are natural.
// Filled by catalog/ from a catalog YAML or a Hugging Face config.json; read by estimate/ and rules/.
//
// To add an architecture feature: add the field here with its default meaning "absent", fill it in
// catalog/model_yaml.cpp and catalog/hf_config.cpp, then use it in estimate/params.cpp and
// estimate/flops.cpp (and their tests).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rb {

// The token mixer of one layer.
enum class MixerKind {
  kAttention,  // softmax attention: MHA or GQA (kv_heads < heads), optionally sliding-window
  kMla,        // multi-head latent attention (DeepSeek-V2/V3, Kimi K2)
  kGdn,        // Gated DeltaNet linear attention (Qwen3-Next, Qwen3.5)
  kMamba2,     // Mamba state-space mixer: Mamba-2 (Nemotron-H), or Mamba-1 with mamba.version 1
              // (Falcon-Mamba, Jamba)
  kNone,       // no mixer (a Nemotron-H MLP-only or MoE-only layer)
};

// The channel mixer of one layer.
enum class FfnKind { kDense, kMoe, kNone };

enum class Activation { kSwiglu, kGeglu, kGelu, kSquaredRelu };
inline bool is_gated(Activation a) { return a == Activation::kSwiglu || a == Activation::kGeglu; }

enum class NormKind { kRms, kLayer };

struct LayerSpec {
  MixerKind mixer = MixerKind::kAttention;
  int window = 0;  // sliding-window size in tokens for kAttention; 0 = full causal attention
  FfnKind ffn = FfnKind::kDense;

  friend bool operator==(const LayerSpec&, const LayerSpec&) = default;
};

struct AttentionDims {
  int heads = 0;
  int kv_heads = 0;    // query groups; == heads for MHA
  int head_dim = 0;    // query/key channels per head (kv_channels)
  int v_head_dim = 0;  // value channels per head; 0 = head_dim
  bool output_gate = false;  // gated attention: q_proj doubled to produce a sigmoid gate (Qwen3-Next/3.5)
  // A sigmoid gate per head on the attention output: g_proj hidden -> heads (Step-3.5 use_head_wise_attn_gate;
  // Megatron-Bridge fuses its rows into linear_qkv).
  bool head_gate = false;
  bool qkv_bias = false;
  bool out_bias = false;
  bool qk_norm = false;
  bool sinks = false;  // learned attention sinks (gpt-oss): one scalar per head
};

struct MlaDims {
  int q_lora_rank = 0;  // 0 = no query compression (DeepSeek-V2-Lite)
  int kv_lora_rank = 0;
  int qk_nope_dim = 0;
  int qk_rope_dim = 0;
  int v_dim = 0;
  // The DSA lightning indexer of each MLA layer (DeepSeek-V3.2, GLM-5: index_n_heads, index_head_dim,
  // index_topk): wq_b (query latent -> heads x head_dim), wk (hidden -> head_dim) with a LayerNorm,
  // weights_proj (hidden -> heads); it scores the earlier tokens and keeps `index_topk` for the
  // attention. 0 heads = none.
  int index_heads = 0;
  int index_head_dim = 0;
  int index_topk = 0;
};

struct GdnDims {
  int key_heads = 0;
  int value_heads = 0;
  int key_dim = 0;
  int value_dim = 0;
  int conv_kernel = 0;
};

// Mamba-2: heads x head_dim = d_inner, `groups` B/C groups. Mamba-1 (version 1) has one dt, A row
// and D per channel and one B/C for all: stored as heads = d_inner, head_dim = 1, groups = 1, with
// the dt low-rank projection of width dt_rank (x_proj d_inner -> dt_rank + 2 state, dt_proj back).
struct MambaDims {
  int heads = 0;
  int head_dim = 0;
  int state = 0;
  int groups = 0;
  int conv_kernel = 0;
  int version = 2;         // 1 = Mamba-1 selective scan, 2 = Mamba-2 SSD
  int dt_rank = 0;         // Mamba-1 only
  bool in_proj_bias = false;  // Mamba-1 use_bias / mamba_proj_bias (in_proj and out_proj biases)
};

struct MoeDims {
  int experts = 0;  // routed experts; 0 = dense model
  int top_k = 0;
  int64_t ffn = 0;  // routed expert intermediate size
  int shared_experts = 0;
  int64_t shared_ffn = 0;  // intermediate size of the shared expert block (all shared experts together)
  bool shared_gate = false;  // a sigmoid gate on the shared expert output (Qwen2-MoE style)
  bool expert_bias = false;  // biases in expert linear layers (gpt-oss)
  bool router_bias = false;  // router linear bias (gpt-oss); DeepSeek's e_score bias is not a weight
  // Latent MoE (Nemotron 3 Super, config.json moe_latent_size; Megatron-Core --moe-latent-size): the
  // routed experts run at this width instead of the hidden size, between fc1_latent_proj (hidden ->
  // latent) and fc2_latent_proj (latent -> hidden); router and shared expert stay at the hidden size.
  // 0 = none.
  int64_t latent = 0;
};

// The vision tower of a vision-language model (Hugging Face vision_config): a ViT over patch x patch
// pixel squares (temporal_patch frames deep), whose spatial_merge x spatial_merge neighbours the
// merger folds into one language-model token of width out_hidden.
struct VisionDims {
  int layers = 0;  // 0 = text-only model
  int hidden = 0;
  int ffn = 0;
  int heads = 0;
  int patch = 0;
  int temporal_patch = 0;
  int spatial_merge = 0;
  int out_hidden = 0;
};

// Patches of one still image at most, at an image budget of `max_pixels` pixels: Qwen-VL's
// smart_resize (transformers image_processing_qwen2_vl.py) rounds height and width to multiples of
// patch x merge with height x width <= max_pixels, and a still image is one temporal patch (its
// frame repeated temporal_patch times), so at most floor(max_pixels / (patch merge)^2) merge units
// of merge^2 patches each. A tower without the IR's patch size is taken at 16 (Qwen3-VL / Qwen3.5).
// 0 without a budget.
inline int64_t vision_patches_per_image(const VisionDims& v, int64_t max_pixels) {
  if (max_pixels <= 0) return 0;
  const int64_t patch = v.patch > 0 ? v.patch : 16;
  const int64_t merge = v.spatial_merge > 0 ? v.spatial_merge : 1;
  const int64_t unit = patch * merge;
  return max_pixels / (unit * unit) * merge * merge;
}

// The rotary scaling a config.json's rope_scaling (or rope_parameters) names. kUnknown: the source
// did not say; kNone: it says there is none (rope_scaling null or rope_type "default").
enum class RopeScalingKind { kUnknown, kNone, kLinear, kLlama3, kYarn, kOther };

// The values that set what a model computes without changing its size: a launch has to pass them,
// since the frameworks' defaults differ (Megatron-LM: rotary base 10000, no rope scaling, norm
// epsilon 1e-5, softmax router). Each is "not known" by default (nullopt, kUnknown): a writer
// passes only what the source gave and says which it did not know, never a guess. Dropout is a
// training setting, not the model's: the layout carries it (core/layout.hpp hidden_dropout).
struct Numerics {
  std::optional<double> rope_theta;             // config.json rope_theta
  std::optional<double> rotary_percent;         // partial_rotary_factor (1 = every channel rotates)
  RopeScalingKind rope_scaling = RopeScalingKind::kUnknown;
  std::string rope_scaling_name;                // the name as written, for kOther ("longrope", "dynamic")
  std::optional<double> rope_factor;            // rope_scaling.factor
  std::optional<double> rope_low_freq_factor;   // llama3
  std::optional<double> rope_high_freq_factor;  // llama3
  std::optional<int> rope_original_max_position;  // llama3 / yarn original_max_position_embeddings
  std::optional<double> yarn_beta_fast;
  std::optional<double> yarn_beta_slow;
  std::optional<double> yarn_mscale;
  std::optional<double> yarn_mscale_all_dim;
  std::optional<bool> yarn_truncate;            // HF `truncate` (gpt-oss: false); HF's default is true
  std::optional<double> norm_eps;               // rms_norm_eps / layer_norm_epsilon / norm_eps
  // MoE router.
  std::string router_score;                     // "" = not known; "softmax" or "sigmoid" (scoring_func)
  std::optional<bool> router_expert_bias;       // aux-loss-free expert bias (topk_method noaux_tc)
  std::optional<double> router_topk_scaling;    // routed_scaling_factor
  std::optional<int> router_groups;             // n_group (group-limited routing)
  std::optional<int> router_group_topk;         // topk_group
  std::optional<bool> router_norm_topk;         // norm_topk_prob: top-k weights renormalised to sum 1
  std::string source;                           // where the values come from

  [[nodiscard]] bool any() const {
    return rope_theta || rotary_percent || rope_scaling != RopeScalingKind::kUnknown || norm_eps ||
           !router_score.empty() || router_expert_bias || router_topk_scaling || router_groups ||
           router_group_topk || router_norm_topk;
  }
};

struct Model {
  std::string name;    // catalog name, e.g. "Qwen3-30B-A3B"
  std::string hf_id;   // e.g. "Qwen/Qwen3-30B-A3B"
  std::string family;  // e.g. "qwen3_moe" (Hugging Face model_type of the text model)
  std::string source;  // where the numbers come from
  std::vector<std::string> aliases;  // other names: Megatron-Bridge stems, measured-table names

  bool has_architecture = true;  // false for a catalog entry that names a model but has no shape yet
  std::string kind;  // "" = a decoder-only language model; else a kind the estimator does not model ("diffusion")
  std::string unsized_reason;  // why no public source gave the architecture (catalog `unsized`), else empty

  int64_t hidden = 0;
  int64_t vocab = 0;
  int64_t ffn = 0;  // dense MLP intermediate size
  bool tied_embeddings = false;
  NormKind norm = NormKind::kRms;
  Activation activation = Activation::kSwiglu;
  bool mlp_bias = false;
  bool learned_position_embedding = false;  // GPT-2 style absolute positions
  int max_position = 0;

  AttentionDims attn;
  // The shape of the sliding-window attention layers where it differs from `attn` (Step-3.5
  // attention_other_setting: 96 heads on its sliding layers, 64 on the full ones); heads 0 = the same.
  AttentionDims sliding_attn;
  MlaDims mla;
  GdnDims gdn;
  MambaDims mamba;
  MoeDims moe;
  VisionDims vision;

  std::vector<LayerSpec> layers;  // the decoder stack, in order
  int mtp_layers = 0;             // multi-token-prediction layers (DeepSeek-V3, GLM-4.5, Qwen3.5)
  Numerics numerics;              // rotary base and scaling, norm epsilon, router scoring
  // The MTP layers hold a dense MLP although the last decoder layer is MoE (Step-3.5: its
  // moe_layers_enum lists none of them); false = the MTP layers' FFN is the last layer's.
  bool mtp_dense = false;

  // What the loader assumed because the source did not say (a config.json of an unknown model_type
  // read by its fields); shown with the estimate.
  std::vector<std::string> assumptions;

  // Published counts (0 = not published), used by `check` and the tests, never by the estimator.
  int64_t published_total_params = 0;
  int64_t published_active_params = 0;

  [[nodiscard]] int num_layers() const { return static_cast<int>(layers.size()); }
  [[nodiscard]] bool is_moe() const { return moe.experts > 0; }
  [[nodiscard]] int count_layers(MixerKind k) const {
    int n = 0;
    for (const auto& l : layers) n += l.mixer == k ? 1 : 0;
    return n;
  }
  [[nodiscard]] int count_layers(FfnKind k) const {
    int n = 0;
    for (const auto& l : layers) n += l.ffn == k ? 1 : 0;
    return n;
  }
};

// The attention shape of one layer: `sliding_attn` on a sliding-window layer when the model gives one.
inline const AttentionDims& attention_of(const Model& m, const LayerSpec& l) {
  return l.window > 0 && m.sliding_attn.heads > 0 ? m.sliding_attn : m.attn;
}

}  // namespace rb
