// A Hugging Face config.json to a Model (text configs, and VL configs whose language model is under
// `text_config` and vision tower under `vision_config`). These model types have a reader each:
//   llama, mistral, mixtral, qwen2, qwen3, qwen3_moe, qwen3_next, qwen3_5, qwen3_5_moe (and their
//   *_text forms), deepseek_v2, deepseek_v3, kimi_k2, glm4_moe, gpt_oss, gemma3, gemma3_text,
//   nemotron_h, gpt2, gpt_neox;
// gemma2, phi3, olmoe, mamba, falcon_mamba, jamba and any other type (step3p5, glm_moe_dsa, ...) are
// read by their parts (hf_config_parts.cpp, hf_config_parts_attention.cpp), an unknown type with
// Model::assumptions. Every result passes the
// architecture checks and size bounds of model_limits.hpp first.
// Field names follow each architecture's transformers configuration class (configuration_<type>.py);
// hf_config.cpp cites the public config.json copies the mapping was checked against.
//
// To add a model type whose configuration class has defaults the published files rely on: a reader
// in hf_config_families.cpp (or a TypeFacts row in hf_config_parts.cpp), its row in kFamilies, a
// fixture tests/data/hf/<name>.json with its source in the README there, and a case in
// hf_config_test.cpp.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "recipebook/core/model.hpp"
#include "recipebook/core/result.hpp"

namespace rb {

// Parses and converts config.json text. `file` names it in errors, with the line:col of the JSON
// syntax error or of the field a problem is about. A missing required field, an impossible or
// oversized value, or a field that shapes the model and is not understood is an Error naming it.
Result<Model> model_from_hf_config_text(std::string_view text, const std::string& file);

// Reads a config.json, or a folder that holds one (a downloaded snapshot).
Result<Model> load_hf_config(const std::string& path);

// The model types with a reader or TypeFacts of their own.
std::vector<std::string> supported_model_types();

}  // namespace rb
