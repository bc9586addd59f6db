// Naming and placing a config.json field in an error: which key holds an architecture value (the
// families spell them differently), and where in the text that key is; and the refusal of a field
// that shapes the model and that no reader read.
#include <string_view>
#include <vector>

#include "recipebook/catalog/hf_config_internal.hpp"
#include "recipebook/catalog/yaml_scalar.hpp"

namespace rb {
namespace {

using Json = nlohmann::json;

// Offset of the last `"key":` at nesting depth `depth` (1 = the top object) in text[from, end of the
// object `from` is in); npos if none. The last, because nlohmann::json keeps the last of duplicate
// keys; by depth, so that a key of a nested object (vision_config.hidden_size) is not taken for the
// text model's.
size_t find_key(std::string_view text, std::string_view key, size_t from, int depth) {
  size_t found = std::string_view::npos;
  int d = from == 0 ? 0 : depth;
  for (size_t i = from; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '{' || c == '[') {
      ++d;
    } else if (c == '}' || c == ']') {
      if (--d < depth) break;  // left the object being searched
    } else if (c == '"') {
      const size_t open = i;
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\') ++i;
      if (d != depth || text.substr(open + 1, i - open - 1) != key) continue;
      size_t j = i + 1;
      while (j < text.size() && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r')) ++j;
      if (j < text.size() && text[j] == ':') found = open;
    }
  }
  return found;
}

// The keys each family uses for a value, most common first (the transformers configuration classes).
std::vector<const char*> candidates(ArchKey k) {
  switch (k) {
    case ArchKey::kHidden: return {"hidden_size", "n_embd", "d_model"};
    case ArchKey::kVocab: return {"vocab_size"};
    case ArchKey::kLayers: return {"num_hidden_layers", "n_layer", "num_layers"};
    case ArchKey::kFfn: return {"intermediate_size", "n_inner", "ffn_hidden_size"};
    case ArchKey::kMaxPosition: return {"max_position_embeddings", "n_positions"};
    case ArchKey::kMtpLayers: return {"num_nextn_predict_layers", "mtp_num_hidden_layers"};
    case ArchKey::kHeads: return {"num_attention_heads", "n_head"};
    case ArchKey::kKvHeads:
      return {"num_key_value_heads", "num_kv_heads", "num_attention_groups", "num_attention_heads"};
    case ArchKey::kHeadDim: return {"head_dim", "attention_head_dim", "kv_channels", "hidden_size"};
    case ArchKey::kVHeadDim: return {"v_head_dim", "head_dim"};
    case ArchKey::kWindow: return {"sliding_window"};
    case ArchKey::kMlaQLora: return {"q_lora_rank"};
    case ArchKey::kMlaKvLora: return {"kv_lora_rank"};
    case ArchKey::kMlaQkNope: return {"qk_nope_head_dim"};
    case ArchKey::kMlaQkRope: return {"qk_rope_head_dim"};
    case ArchKey::kMlaV: return {"v_head_dim"};
    case ArchKey::kGdnKeyHeads: return {"linear_num_key_heads"};
    case ArchKey::kGdnValueHeads: return {"linear_num_value_heads"};
    case ArchKey::kGdnKeyDim: return {"linear_key_head_dim"};
    case ArchKey::kGdnValueDim: return {"linear_value_head_dim"};
    case ArchKey::kGdnConv: return {"linear_conv_kernel_dim"};
    case ArchKey::kMambaHeads: return {"mamba_num_heads", "num_heads", "intermediate_size", "mamba_expand", "expand"};
    case ArchKey::kMambaHeadDim: return {"mamba_head_dim", "head_dim"};
    case ArchKey::kMambaState: return {"ssm_state_size", "state_size", "mamba_d_state"};
    case ArchKey::kMambaGroups: return {"n_groups", "mamba_n_groups"};
    case ArchKey::kMambaConv: return {"conv_kernel", "mamba_d_conv"};
    case ArchKey::kMambaDtRank: return {"time_step_rank", "mamba_dt_rank"};
    case ArchKey::kExperts: return {"num_experts", "n_routed_experts", "num_local_experts", "moe_num_experts"};
    case ArchKey::kTopK: return {"num_experts_per_tok", "experts_per_token", "moe_top_k"};
    case ArchKey::kMoeFfn: return {"moe_intermediate_size", "intermediate_size"};
    case ArchKey::kSharedExperts: return {"n_shared_experts"};
    case ArchKey::kSharedFfn:
      return {"shared_expert_intermediate_size", "moe_shared_expert_intermediate_size", "share_expert_dim",
              "n_shared_experts"};
    case ArchKey::kMoeLatent: return {"moe_latent_size"};
    case ArchKey::kVisionLayers: return {"depth", "num_hidden_layers"};
    case ArchKey::kVisionHidden: return {"hidden_size"};
    case ArchKey::kVisionFfn: return {"intermediate_size"};
    case ArchKey::kVisionHeads: return {"num_heads", "num_attention_heads"};
    case ArchKey::kVisionPatch: return {"patch_size"};
  }
  return {"?"};
}

bool is_vision(ArchKey k) {
  return k == ArchKey::kVisionLayers || k == ArchKey::kVisionHidden || k == ArchKey::kVisionFfn ||
         k == ArchKey::kVisionHeads || k == ArchKey::kVisionPatch;
}

}  // namespace

Where hf_key_where(std::string_view text, const std::string& file, const std::string& dotted_key) {
  size_t at = std::string_view::npos;
  std::string_view key = dotted_key;
  if (const auto dot = key.rfind('.'); dot != std::string_view::npos) {
    const size_t parent = find_key(text, key.substr(0, dot), 0, 1);
    const size_t open = parent == std::string_view::npos ? parent : text.find('{', parent);
    if (open != std::string_view::npos) at = find_key(text, key.substr(dot + 1), open + 1, 2);
  } else {
    at = find_key(text, key, 0, 1);
  }
  if (at == std::string_view::npos) return Where{file, 0, 0};
  return position_of(text, at, file);
}

ArchNamer hf_arch_namer(const HfReader& r, const nlohmann::json& top) {
  const Json* text = &r.json();
  const Json* vision = nullptr;
  if (auto it = top.find("vision_config"); top.is_object() && it != top.end() && it->is_object()) vision = &*it;
  const std::string prefix = r.prefix();
  return [text, vision, prefix](ArchKey k) {
    const Json* obj = is_vision(k) ? vision : text;
    const std::string pre = is_vision(k) ? "vision_config." : prefix;
    const auto keys = candidates(k);
    if (obj != nullptr && obj->is_object())
      for (const char* key : keys)
        if (auto it = obj->find(key); it != obj->end() && !it->is_null()) return pre + key;
    return pre + keys.front();
  };
}

// A field no reader read whose name says it shapes the model is refused, named: sizing without it
// would be silently wrong. Settings that change no weight (routing, dropout, rope, kernels,
// activations of a part) have no such word in their names, or are listed as harmless.
void refuse_unread_shaping_fields(HfReader& r) {
  static constexpr std::string_view kShaping[] = {
      "expert",   "moe",       "mamba",           "ssm",         "lora",      "linear_", "layer_types", "block_type",
      "pattern",  "hybrid",    "cross_attention", "encoder",     "sparse",    "shared",  "window",      "kv_heads",
      "head_dim", "num_heads", "state_size",      "conv_kernel", "recurrent", "rwkv",    "nextn",       "intermediate",
      "ffn",      "_layers",   "n_layer",         "n_head",      "num_local",
  };
  static constexpr std::string_view kHarmless[] = {
      "use_mamba_kernels",
      "mamba_chunk_size",
      "mamba_hidden_act",
      "mamba_dt_min",
      "mamba_dt_max",
      "mamba_dt_limit",
      "mamba_dt_init_floor",
      "mamba_step_rank",
      "output_router_logits",
      "max_window_layers",
      "num_logits_to_keep",
      "cache_implementation",
      "moe_router_topk_scaling_factor",
      "moe_aux_loss_coeff",
      "mamba_ssm_cache_dtype",      // the dtype of the inference SSM cache (Nemotron-H)
      "mamba_ssm_dtype",            // the same for the GDN state (Qwen3.5 / Qwen3.8 text_config)
      "moe_shared_expert_overlap",  // Megatron's shared-expert communication overlap (a schedule)
      // Step-3.5 (Step3p5MoEMLP, Step3p5DecoderLayer): routing settings, the router's selection-only
      // bias (like DeepSeek's e_score_correction_bias, not a weight the estimator counts), SwiGLU
      // clamps, and which layers apply RoPE.
      "moe_router_activation",
      "moe_router_scaling_factor",
      "use_moe_router_bias",
      "norm_expert_weight",
      "swiglu_limits",
      "swiglu_limits_shared",
      "use_rope_layers",
  };
  // An unread field at false, 0 or empty turns its part off, so it shapes nothing: transformers'
  // PretrainedConfig writes its defaults out (add_cross_attention false, is_encoder_decoder false,
  // tie_encoder_decoder false) into every sub-config.
  const auto off = [](const nlohmann::json& v) {
    return v.is_null() || (v.is_boolean() && !v.get<bool>()) || (v.is_number() && v.get<double>() == 0.0) ||
           ((v.is_array() || v.is_object() || v.is_string()) && v.empty());
  };
  const nlohmann::json& j = r.json();
  if (r.failed() || !j.is_object()) return;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& k = it.key();
    if (off(*it) || r.read_keys().count(k) > 0 || k == "text_config" || k == "vision_config") continue;
    bool harmless = false;
    for (auto h : kHarmless) harmless = harmless || k == h;
    if (harmless) continue;
    for (auto word : kShaping) {
      if (k.find(word) == std::string::npos) continue;
      return r.fail_at(k.c_str(),
                       "config.json field `" + r.prefix() + k +
                           "` changes the architecture and "
                           "recipebook does not understand it (model_type " +
                           r.model_type() + ")",
                       "describe the model in a catalog YAML (docs/catalog-format.md), or remove the field "
                       "if it does not apply");
    }
  }
}

}  // namespace rb
