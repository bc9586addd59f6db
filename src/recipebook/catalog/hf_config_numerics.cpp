// The numerics of a config.json (core/model.hpp Numerics): the values that set what the model
// computes without changing its size. Field names as transformers writes them:
//   rope_theta, partial_rotary_factor, rope_scaling {rope_type | type, factor, low_freq_factor,
//   high_freq_factor, original_max_position_embeddings, beta_fast, beta_slow, mscale,
//   mscale_all_dim, truncate} (LlamaConfig, DeepseekV3Config, GptOssConfig; modeling_rope_utils.py),
//   or transformers 5's rope_parameters (the same keys, rope_theta inside);
//   rms_norm_eps | layer_norm_epsilon | layer_norm_eps | norm_eps | norm_epsilon;
//   scoring_func, topk_method ("noaux_tc" = DeepSeek-V3's e_score_correction_bias), routed_scaling_factor,
//   n_group, topk_group, norm_topk_prob (DeepseekV3Config, Qwen3MoeConfig).
// A field the file does not have stays unknown, with two exceptions taken from transformers'
// modeling code, where the router has no config field: MixtralSparseMoeBlock, Qwen2MoeSparseMoeBlock,
// Qwen3MoeSparseMoeBlock and OlmoeSparseMoeBlock score with a softmax, and Mixtral always renormalises
// its top-k weights. Dropout (attention_dropout, attn_pdrop, hidden_dropout, resid_pdrop) is not
// read: it is a training setting, the layout's (core/layout.hpp), 0 as Megatron-Bridge's recipes run.
#include <array>
#include <string_view>

#include "recipebook/catalog/hf_config_internal.hpp"

namespace rb {
namespace {

using Json = nlohmann::json;

std::optional<std::string> string_at(const Json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

std::optional<double> number_at(const Json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

// The first of `keys` that `r` holds as a number (marking each read, so the field-driven reader
// does not report it).
std::optional<double> first_number(HfReader& r, std::initializer_list<const char*> keys) {
  for (const char* k : keys) {
    const Json* v = r.get(k);
    if (v != nullptr && v->is_number()) return v->get<double>();
  }
  return std::nullopt;
}

void read_rope_scaling(const Json* rs, Numerics& n) {
  if (rs == nullptr || rs->is_null()) {
    n.rope_scaling = RopeScalingKind::kNone;
    return;
  }
  if (!rs->is_object()) return;
  std::string type;
  for (const char* k : {"rope_type", "type"})
    if (auto it = rs->find(k); it != rs->end() && it->is_string()) {
      type = it->get<std::string>();
      break;
    }
  if (type.empty() || type == "default") {
    n.rope_scaling = RopeScalingKind::kNone;
    return;
  }
  if (type == "llama3")
    n.rope_scaling = RopeScalingKind::kLlama3;
  else if (type == "yarn")
    n.rope_scaling = RopeScalingKind::kYarn;
  else if (type == "linear")
    n.rope_scaling = RopeScalingKind::kLinear;
  else
    n.rope_scaling = RopeScalingKind::kOther;
  n.rope_scaling_name = type;
  n.rope_factor = number_at(*rs, "factor");
  n.rope_low_freq_factor = number_at(*rs, "low_freq_factor");
  n.rope_high_freq_factor = number_at(*rs, "high_freq_factor");
  if (auto o = number_at(*rs, "original_max_position_embeddings")) n.rope_original_max_position = static_cast<int>(*o);
  n.yarn_beta_fast = number_at(*rs, "beta_fast");
  n.yarn_beta_slow = number_at(*rs, "beta_slow");
  n.yarn_mscale = number_at(*rs, "mscale");
  n.yarn_mscale_all_dim = number_at(*rs, "mscale_all_dim");
  if (auto it = rs->find("truncate"); it != rs->end() && it->is_boolean()) n.yarn_truncate = it->get<bool>();
}

bool softmax_router_family(std::string_view type) {
  constexpr std::array<std::string_view, 4> kSoftmax{"mixtral", "qwen2_moe", "qwen3_moe", "olmoe"};
  for (auto t : kSoftmax)
    if (t == type) return true;
  return false;
}

}  // namespace

void read_numerics(HfReader& r, Model& m) {
  Numerics& n = m.numerics;
  // transformers 5 writes rope_parameters (rope_theta and the scaling in one object).
  const Json* params = r.get("rope_parameters");
  if (params != nullptr && !params->is_object()) params = nullptr;
  n.rope_theta = first_number(r, {"rope_theta", "rotary_emb_base"});
  if (!n.rope_theta && params != nullptr) n.rope_theta = number_at(*params, "rope_theta");
  n.rotary_percent = first_number(r, {"partial_rotary_factor", "rotary_pct"});
  if (!n.rotary_percent && params != nullptr) n.rotary_percent = number_at(*params, "partial_rotary_factor");
  if (r.has("rope_scaling") || r.json().contains("rope_scaling"))  // null: no scaling
    read_rope_scaling(r.get("rope_scaling"), n);
  else if (params != nullptr)
    read_rope_scaling(params, n);
  n.norm_eps = first_number(r, {"rms_norm_eps", "layer_norm_epsilon", "layer_norm_eps", "norm_eps", "norm_epsilon"});
  if (m.is_moe()) {
    (void)r.get("scoring_func");  // marks both read
    (void)r.get("topk_method");
    if (auto s = string_at(r.json(), "scoring_func"))
      n.router_score = *s;
    else if (softmax_router_family(r.model_type()))
      n.router_score = "softmax";
    if (auto t = string_at(r.json(), "topk_method")) n.router_expert_bias = *t == "noaux_tc";
    n.router_topk_scaling = first_number(r, {"routed_scaling_factor"});
    if (auto g = first_number(r, {"n_group"})) n.router_groups = static_cast<int>(*g);
    if (auto g = first_number(r, {"topk_group"})) n.router_group_topk = static_cast<int>(*g);
    if (const Json* v = r.get("norm_topk_prob"); v != nullptr && v->is_boolean())
      n.router_norm_topk = v->get<bool>();
    else if (r.model_type() == "mixtral")
      n.router_norm_topk = true;
  }
  if (n.any()) n.source = "config.json: " + r.file();
}

}  // namespace rb
