// A Hugging Face config.json to a Model, for the model types below (text configs, and VL configs
// whose language model is under `text_config` and vision tower under `vision_config`):
//   llama, mistral, mixtral, qwen2, qwen3, qwen3_moe, qwen3_next, qwen3_5, qwen3_5_moe (and their
//   *_text forms), deepseek_v3, kimi_k2, glm4_moe, gpt_oss, gemma3, gemma3_text, nemotron_h, gpt2,
//   gpt_neox.
// Field names follow each architecture's transformers configuration class (configuration_<type>.py);
// hf_config.cpp cites the public config.json copies the mapping was checked against.
//
// To add a model type: add a reader in hf_config.cpp (or hf_config_families.cpp), list it in
// supported_model_types(), add a fixture tests/data/hf/<name>.json and a case to hf_config_test.cpp.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "recipebook/core/model.hpp"
#include "recipebook/core/result.hpp"

namespace rb {

// Parses and converts config.json text. `file` names it in errors (JSON syntax errors carry
// file:line:col). An unknown model_type is an Error listing the supported ones; a missing required
// field is an Error naming the field and the file.
Result<Model> model_from_hf_config_text(std::string_view text, const std::string& file);

// Reads a config.json, or a folder that holds one (a downloaded snapshot).
Result<Model> load_hf_config(const std::string& path);

std::vector<std::string> supported_model_types();

}  // namespace rb
