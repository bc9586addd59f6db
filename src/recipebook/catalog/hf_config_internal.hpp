// Internal to hf_config: typed reads of a config.json object that stop at the first problem, and the
// per-family readers (hf_config_families.cpp).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "recipebook/catalog/model_limits.hpp"
#include "recipebook/core/model.hpp"
#include "recipebook/core/result.hpp"

namespace rb {

// An RB-HF-CONFIG error.
Error error_at(std::string message, Where where, std::string fix = {});

class HfReader {
 public:
  // `j` is the object read (the config, or its text_config); `prefix` names it in messages
  // ("text_config."); `file` and `model_type` name the config.
  HfReader(const nlohmann::json& j, std::string file, std::string model_type, std::string prefix = {})
      : j_(j), file_(std::move(file)), type_(std::move(model_type)), prefix_(std::move(prefix)) {}

  [[nodiscard]] bool failed() const { return error_.has_value(); }
  [[nodiscard]] const Error& error() const { return *error_; }
  void fail_with(std::string message, std::string fix = {});
  // As fail_with, about the field `key` of this object: the error gets that field's line:col.
  void fail_at(const char* key, std::string message, std::string fix = {});
  // The field the first error is about, with the prefix ("text_config.num_key_value_heads"); empty
  // when the error is about no one field.
  [[nodiscard]] const std::string& failed_key() const { return failed_key_; }

  // nullptr when absent or null.
  [[nodiscard]] const nlohmann::json* get(const char* key) const;
  [[nodiscard]] bool has(const char* key) const { return get(key) != nullptr; }

  int64_t req_int(const char* key);  // a missing field is an Error naming it and the file
  int req_int32(const char* key);
  // A layer count: 1..kMaxLayers (model_limits.hpp), checked before any layer list is built.
  int req_layers(const char* key);
  int layers_or(const char* key, int fallback);
  // The first of `keys` present (aliases across families: n_embd / hidden_size); nullptr if none.
  // `which` gets its name.
  const char* first_of(std::initializer_list<const char*> keys) const;
  std::optional<int64_t> opt_int(const char* key);
  int64_t int_or(const char* key, int64_t fallback);
  int int32_or(const char* key, int fallback);
  bool bool_or(const char* key, bool fallback);
  std::optional<std::string> opt_str(const char* key);
  std::optional<std::vector<std::string>> opt_str_list(const char* key);
  std::optional<std::vector<int64_t>> opt_int_list(const char* key);
  // A sub-object (text_config, vision_config); nullptr when absent.
  [[nodiscard]] const nlohmann::json* object(const char* key);

  [[nodiscard]] const nlohmann::json& json() const { return j_; }
  // Keys read so far (present or not): the field-driven reader reports the rest that matter.
  [[nodiscard]] const std::set<std::string>& read_keys() const { return read_; }
  [[nodiscard]] const std::string& file() const { return file_; }
  [[nodiscard]] const std::string& model_type() const { return type_; }
  [[nodiscard]] const std::string& prefix() const { return prefix_; }

 private:
  void wrong_type(const char* key, const char* expected);

  const nlohmann::json& j_;
  std::string file_;
  std::string type_;
  std::string prefix_;
  std::optional<Error> error_;
  std::string failed_key_;
  mutable std::set<std::string> read_;
};

// a x b for non-negative a, b, saturating at INT64_MAX: a product of two config values formed before
// the bounds are checked must not overflow (the check then refuses it).
inline int64_t mul_sat(int64_t a, int64_t b) {
  if (a <= 0 || b <= 0) return 0;
  return a > std::numeric_limits<int64_t>::max() / b ? std::numeric_limits<int64_t>::max() : a * b;
}

// hidden / heads when the config gives no head dim; an error naming both fields when the split is
// not exact (Megatron-Core sets kv_channels = hidden_size // num_attention_heads; transformers'
// attention classes required hidden_size % num_heads == 0 before head_dim became a field).
int head_dim_or_split(HfReader& r, std::initializer_list<const char*> head_dim_keys, const char* hidden_key,
                      int64_t hidden, const char* heads_key, int heads);

// Per-family readers: fill `m` from the text model's config object `r` (and, for VL models, the
// top-level reader `top` for vision_config and the like). Each returns with r.failed() on error.
void read_llama_like(HfReader& r, Model& m);  // llama, mistral, mixtral, qwen2, qwen3, qwen3_moe
void read_qwen_next(HfReader& r, Model& m);   // qwen3_next, qwen3_5(_moe)(_text)
void read_deepseek(HfReader& r, Model& m);    // deepseek_v3, kimi_k2, glm4_moe
void read_gpt_oss(HfReader& r, Model& m);
void read_gemma3(HfReader& r, Model& m);  // gemma3_text (the text part of gemma3)
void read_nemotron_h(HfReader& r, Model& m);
void read_gpt2(HfReader& r, Model& m);
void read_gpt_neox(HfReader& r, Model& m);
// hf_config_check.cpp: the line:col of a field given by its dotted key ("text_config.head_dim"),
// the first place the key appears (inside its parent object's value when it has a prefix); and the
// config's name for each architecture value (the key the family reads, by `r`'s prefix).
Where hf_key_where(std::string_view text, const std::string& file, const std::string& dotted_key);
ArchNamer hf_arch_namer(const HfReader& r, const nlohmann::json& top);

// Shared by the readers (hf_config_families.cpp). `gated`: the MLP has gate and up projections, so
// silu is SwiGLU and gelu GeGLU. layer_types as written, or nullopt; a list whose length is not
// `layers` (or `layers` + `mtp_layers`, the MTP layers' types last) is an error. apply_layer_types:
// full_attention, sliding_attention (with `window`), linear_attention (GDN). apply_qwen_moe_layers:
// decoder_sparse_step and mlp_only_layers.
Activation activation_of(const std::string& act, HfReader& r, bool gated);
std::optional<std::vector<std::string>> layer_types(HfReader& r, int layers, int mtp_layers = 0);
void apply_layer_types(HfReader& r, const std::vector<std::string>& types, int window, Model& m);
void apply_qwen_moe_layers(HfReader& r, Model& m);

// By parts (hf_config_parts.cpp, hf_config_parts_attention.cpp): any model_type whose fields are all
// understood (gemma2, phi3, olmoe, mamba, falcon_mamba, jamba, and unknown types, which get
// Model::assumptions).
void read_by_parts(HfReader& r, Model& m);
// After any reader (hf_config_numerics.cpp): rope, norm epsilon and router scoring into
// m.numerics; a field the file lacks stays unknown.
void read_numerics(HfReader& r, Model& m);
// After any reader (hf_config_check.cpp): a field no reader read whose name says it shapes the model
// is an error naming it.
void refuse_unread_shaping_fields(HfReader& r);
// The vision towers (hf_config_vision.cpp).
void read_qwen_vision(HfReader& v, Model& m);                         // qwen3_5 vision_config
void read_siglip_vision(HfReader& v, const HfReader& top, Model& m);  // gemma3 vision_config
// A ViT described by num_hidden_layers (Pixtral in Mistral 3 / Ministral 3), its patch merge from the
// top-level spatial_merge_size.
void read_vit_vision(HfReader& v, const HfReader& top, Model& m);

}  // namespace rb
