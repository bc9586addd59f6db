#include "recipebook/emit/catalog_json.hpp"

#include <algorithm>
#include <utility>

#include "recipebook/catalog/model_layers.hpp"

namespace rb {

double best_tokens_per_s(const Recipe& r) {
  double best = r.tokens_per_s_per_gpu.value_or(0.0);
  for (const auto& m : r.measurements)
    if (m.current) best = std::max(best, m.tokens_per_s_per_gpu);
  return best;
}

Json recipe_json(const RecipeEntry& e) {
  const Recipe& r = e.recipe;
  Json j;
  j["name"] = r.name;
  j["kind"] = recipe_kind_name(r.kind);
  j["mode"] = std::string(mode_name(r.mode));
  j["model"] = r.model;
  j["gpu"] = r.gpu;
  j["gpus"] = r.gpus;
  if (r.seq > 0) j["seq"] = r.seq;
  if (r.gbs > 0) j["gbs"] = r.gbs;
  j["layout"] = r.layout_known ? layout_json(r.layout) : Json(nullptr);
  j["framework"] = r.framework;
  j["entry_point"] = r.entry_point;
  if (!r.extends.empty()) j["extends"] = r.extends;
  j["measurements"] = r.measurements.size();
  const double best = best_tokens_per_s(r);
  j["best_tokens_per_s_per_gpu"] = best > 0 ? Json(best) : Json(nullptr);
  j["source"] = r.source;
  j["origin"] = e.origin;
  j["file"] = r.where.file;
  return j;
}

Json model_json(const ModelEntry& e) {
  const Model& m = e.model;
  Json j;
  j["name"] = m.name;
  j["hf_id"] = m.hf_id;
  j["family"] = m.family;
  j["aliases"] = m.aliases;
  j["has_architecture"] = m.has_architecture;
  if (m.has_architecture) {
    j["layers"] = m.num_layers();
    j["hidden"] = m.hidden;
    j["heads"] = m.attn.heads;
    j["kv_heads"] = m.attn.kv_heads;
    j["vocab"] = m.vocab;
    j["experts"] = m.moe.experts;
    j["top_k"] = m.moe.top_k;
  }
  j["published_total_params"] = m.published_total_params;
  j["published_active_params"] = m.published_active_params;
  j["source"] = m.source;
  j["origin"] = e.origin;
  return j;
}

namespace {

// The smallest period of `v` as the catalog's patterns repeat it (element i is pattern[i % size]).
template <typename T>
std::vector<T> shortest_period(const std::vector<T>& v) {
  for (size_t p = 1; p < v.size(); ++p) {
    bool ok = true;
    for (size_t i = p; i < v.size() && ok; ++i) ok = v[i] == v[i % p];
    if (ok) return {v.begin(), v.begin() + static_cast<std::ptrdiff_t>(p)};
  }
  return v;
}

Json attention_json(const AttentionDims& a) {
  Json j;
  j["heads"] = a.heads;
  j["kv_heads"] = a.kv_heads;
  j["head_dim"] = a.head_dim;
  if (a.v_head_dim > 0) j["v_head_dim"] = a.v_head_dim;
  for (const auto& [key, on] : {std::pair{"output_gate", a.output_gate}, std::pair{"head_gate", a.head_gate},
                                std::pair{"qkv_bias", a.qkv_bias}, std::pair{"out_bias", a.out_bias},
                                std::pair{"qk_norm", a.qk_norm}, std::pair{"sinks", a.sinks}})
    if (on) j[key] = true;
  return j;
}

// architecture.layers: the count, the mixers and windows as their shortest repeating patterns and the
// dense prefix of a MoE model, or Nemotron-H's one character a layer; nullopt for a stack neither
// form holds.
std::optional<Json> layers_json(const Model& m) {
  Json j;
  j["count"] = m.num_layers();
  std::vector<MixerKind> mixers;
  std::vector<int> windows;
  size_t first_dense = 0;
  while (first_dense < m.layers.size() && m.layers[first_dense].ffn == FfnKind::kDense) ++first_dense;
  bool pattern = true;
  for (size_t i = 0; i < m.layers.size(); ++i) {
    const LayerSpec& l = m.layers[i];
    mixers.push_back(l.mixer);
    windows.push_back(l.mixer == MixerKind::kAttention ? l.window : 0);
    const FfnKind want = m.is_moe() && i >= first_dense ? FfnKind::kMoe : FfnKind::kDense;
    pattern = pattern && l.ffn == want && (l.mixer == MixerKind::kAttention || l.window == 0);
  }
  if (pattern) {
    if (std::any_of(mixers.begin(), mixers.end(), [](MixerKind k) { return k != MixerKind::kAttention; })) {
      Json names = Json::array();
      for (MixerKind k : shortest_period(mixers)) names.push_back(std::string(mixer_name(k)));
      j["mixer_pattern"] = names;
    }
    if (std::any_of(windows.begin(), windows.end(), [](int w) { return w > 0; }))
      j["window_pattern"] = shortest_period(windows);
    if (m.is_moe() && first_dense > 0) j["first_dense"] = first_dense;
    return j;
  }
  std::string hybrid;  // layers_from_hybrid's alphabet: one block a layer
  for (const LayerSpec& l : m.layers) {
    if (l.mixer == MixerKind::kMamba2 && l.ffn == FfnKind::kNone) hybrid += 'M';
    else if (l.mixer == MixerKind::kAttention && l.window == 0 && l.ffn == FfnKind::kNone) hybrid += '*';
    else if (l.mixer == MixerKind::kNone && l.ffn == FfnKind::kDense) hybrid += '-';
    else if (l.mixer == MixerKind::kNone && l.ffn == FfnKind::kMoe) hybrid += 'E';
    else return std::nullopt;
  }
  j["hybrid_pattern"] = hybrid;
  return j;
}

Json numerics_json(const Numerics& n) {
  Json j;
  if (n.rope_theta) j["rope_theta"] = *n.rope_theta;
  if (n.rotary_percent) j["rotary_percent"] = *n.rotary_percent;
  if (n.rope_scaling == RopeScalingKind::kNone) {
    j["rope_scaling"] = "none";
  } else if (n.rope_scaling != RopeScalingKind::kUnknown) {
    Json s;
    s["type"] = n.rope_scaling == RopeScalingKind::kLlama3 ? "llama3"
                : n.rope_scaling == RopeScalingKind::kYarn ? "yarn"
                : n.rope_scaling == RopeScalingKind::kLinear ? "linear"
                                                             : n.rope_scaling_name;
    const auto put = [&s](const char* key, const auto& v) {
      if (v) s[key] = *v;
    };
    put("factor", n.rope_factor);
    put("low_freq_factor", n.rope_low_freq_factor);
    put("high_freq_factor", n.rope_high_freq_factor);
    put("original_max_position", n.rope_original_max_position);
    put("beta_fast", n.yarn_beta_fast);
    put("beta_slow", n.yarn_beta_slow);
    put("mscale", n.yarn_mscale);
    put("mscale_all_dim", n.yarn_mscale_all_dim);
    put("truncate", n.yarn_truncate);
    j["rope_scaling"] = s;
  }
  if (n.norm_eps) j["norm_eps"] = *n.norm_eps;
  Json r = Json::object();
  if (!n.router_score.empty()) r["score"] = n.router_score;
  if (n.router_expert_bias) r["expert_bias"] = *n.router_expert_bias;
  if (n.router_topk_scaling) r["topk_scaling"] = *n.router_topk_scaling;
  if (n.router_groups) r["groups"] = *n.router_groups;
  if (n.router_group_topk) r["group_topk"] = *n.router_group_topk;
  if (n.router_norm_topk) r["norm_topk"] = *n.router_norm_topk;
  if (!r.empty()) j["router"] = r;
  j["source"] = n.source;
  return j;
}

}  // namespace

std::optional<Json> model_architecture_json(const Model& m) {
  if (!m.has_architecture || (m.mamba.heads > 0 && m.mamba.version != 2)) return std::nullopt;
  auto layers = layers_json(m);
  if (!layers) return std::nullopt;
  Json j;
  j["hidden"] = m.hidden;
  j["vocab"] = m.vocab;
  j["ffn"] = m.ffn;
  j["tied_embeddings"] = m.tied_embeddings;
  j["norm"] = m.norm == NormKind::kRms ? "rms" : "layer";
  j["activation"] = m.activation == Activation::kSwiglu ? "swiglu"
                    : m.activation == Activation::kGeglu ? "geglu"
                    : m.activation == Activation::kGelu  ? "gelu"
                                                         : "squared_relu";
  j["mlp_bias"] = m.mlp_bias;
  j["learned_position_embedding"] = m.learned_position_embedding;
  if (m.max_position > 0) j["max_position"] = m.max_position;
  if (m.attn.heads > 0) j["attention"] = attention_json(m.attn);
  if (m.sliding_attn.heads > 0) {
    Json s;
    s["heads"] = m.sliding_attn.heads;
    s["kv_heads"] = m.sliding_attn.kv_heads;
    s["head_dim"] = m.sliding_attn.head_dim;
    j["sliding_attention"] = s;
  }
  if (m.count_layers(MixerKind::kMla) > 0) {
    const MlaDims& d = m.mla;
    Json s;
    s["q_lora_rank"] = d.q_lora_rank;
    s["kv_lora_rank"] = d.kv_lora_rank;
    s["qk_nope_dim"] = d.qk_nope_dim;
    s["qk_rope_dim"] = d.qk_rope_dim;
    s["v_dim"] = d.v_dim;
    if (d.index_heads > 0) {
      s["index_heads"] = d.index_heads;
      s["index_head_dim"] = d.index_head_dim;
      s["index_topk"] = d.index_topk;
    }
    j["mla"] = s;
  }
  if (m.gdn.key_heads > 0)
    j["gdn"] = {{"key_heads", m.gdn.key_heads}, {"value_heads", m.gdn.value_heads}, {"key_dim", m.gdn.key_dim},
                {"value_dim", m.gdn.value_dim}, {"conv_kernel", m.gdn.conv_kernel}};
  if (m.mamba.heads > 0)
    j["mamba"] = {{"heads", m.mamba.heads}, {"head_dim", m.mamba.head_dim}, {"state", m.mamba.state},
                  {"groups", m.mamba.groups}, {"conv_kernel", m.mamba.conv_kernel}};
  if (m.is_moe()) {
    const MoeDims& e = m.moe;
    Json s;
    s["experts"] = e.experts;
    s["top_k"] = e.top_k;
    s["ffn"] = e.ffn;
    s["shared_experts"] = e.shared_experts;
    s["shared_ffn"] = e.shared_ffn;
    if (e.latent > 0) s["latent"] = e.latent;
    for (const auto& [key, on] : {std::pair{"shared_gate", e.shared_gate}, std::pair{"expert_bias", e.expert_bias},
                                  std::pair{"router_bias", e.router_bias}})
      if (on) s[key] = true;
    j["moe"] = s;
  }
  if (m.vision.layers > 0) {
    const VisionDims& v = m.vision;
    j["vision"] = {{"layers", v.layers}, {"hidden", v.hidden},   {"ffn", v.ffn},
                   {"heads", v.heads},   {"patch", v.patch},     {"temporal_patch", v.temporal_patch},
                   {"spatial_merge", v.spatial_merge}, {"out_hidden", v.out_hidden}};
  }
  j["layers"] = *layers;
  if (m.numerics.any()) j["numerics"] = numerics_json(m.numerics);
  if (m.mtp_layers > 0) j["mtp_layers"] = m.mtp_layers;
  if (m.mtp_dense) j["mtp_dense"] = true;
  return j;
}

Json hardware_json(const HardwareEntry& e) {
  const Hardware& h = e.hardware;
  Json j;
  j["name"] = h.name;
  j["display"] = h.display;
  j["aliases"] = h.aliases;
  j["has_specs"] = h.has_specs;
  if (h.has_specs) {
    j["memory_bytes"] = h.memory_bytes;
    j["hbm_bytes_per_s"] = h.hbm_bytes_per_s;
    j["bf16_flops_per_s"] = h.bf16_flops_per_s;
    j["fp8_flops_per_s"] = h.fp8_flops_per_s;
    j["fp4_flops_per_s"] = h.fp4_flops_per_s;
    j["gpus_per_node"] = h.gpus_per_node;
    j["nvlink_domain"] = h.nvlink_domain;
    j["nvlink_bytes_per_s"] = h.nvlink_bytes_per_s;
    j["scaleout_bytes_per_s"] = h.scaleout_bytes_per_s;
  }
  j["usd_per_gpu_hour"] = h.usd_per_gpu_hour > 0 ? Json(h.usd_per_gpu_hour) : Json(nullptr);
  j["price_date"] = h.price_date;
  j["price_source"] = h.price_source;
  j["source"] = h.source;
  j["origin"] = e.origin;
  return j;
}

}  // namespace rb
