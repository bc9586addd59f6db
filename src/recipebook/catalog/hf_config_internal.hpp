// Internal to hf_config: typed reads of a config.json object that stop at the first problem, and the
// per-family readers (hf_config_families.cpp).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "recipebook/core/model.hpp"
#include "recipebook/core/result.hpp"

namespace rb {

class HfReader {
 public:
  // `j` is the object read (the config, or its text_config); `prefix` names it in messages
  // ("text_config."); `file` and `model_type` name the config.
  HfReader(const nlohmann::json& j, std::string file, std::string model_type, std::string prefix = {})
      : j_(j), file_(std::move(file)), type_(std::move(model_type)), prefix_(std::move(prefix)) {}

  [[nodiscard]] bool failed() const { return error_.has_value(); }
  [[nodiscard]] const Error& error() const { return *error_; }
  void fail_with(std::string message, std::string fix = {});

  // nullptr when absent or null.
  [[nodiscard]] const nlohmann::json* get(const char* key) const;
  [[nodiscard]] bool has(const char* key) const { return get(key) != nullptr; }

  int64_t req_int(const char* key);  // a missing field is an Error naming it and the file
  int req_int32(const char* key);
  std::optional<int64_t> opt_int(const char* key);
  int64_t int_or(const char* key, int64_t fallback);
  int int32_or(const char* key, int fallback);
  bool bool_or(const char* key, bool fallback);
  std::optional<std::string> opt_str(const char* key);
  std::optional<std::vector<std::string>> opt_str_list(const char* key);
  std::optional<std::vector<int64_t>> opt_int_list(const char* key);
  // A sub-object (text_config, vision_config); nullptr when absent.
  [[nodiscard]] const nlohmann::json* object(const char* key);

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
};

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
void read_qwen_vision(HfReader& v, Model& m);                         // qwen3_5 vision_config
void read_siglip_vision(HfReader& v, const HfReader& top, Model& m);  // gemma3 vision_config

}  // namespace rb
