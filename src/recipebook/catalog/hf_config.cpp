// config.json -> Model: JSON parsing (errors with line:col), dispatch on model_type, and HfReader.
// The per-family field mappings are in hf_config_families.cpp.
#include "recipebook/catalog/hf_config.hpp"

#include <filesystem>
#include <limits>

#include "recipebook/catalog/hf_config_internal.hpp"
#include "recipebook/catalog/model_limits.hpp"
#include "recipebook/catalog/yaml_scalar.hpp"
#include "recipebook/catalog/yaml_tree.hpp"

namespace rb {
namespace {

using Json = nlohmann::json;

struct Family {
  const char* model_type;
  void (*read)(HfReader&, Model&);
};

// Text model types; a VL config names the wrapper type at the top and this one in text_config.
constexpr Family kFamilies[] = {
    {"llama", read_llama_like},
    {"mistral", read_llama_like},
    {"mixtral", read_llama_like},
    {"qwen2", read_llama_like},
    {"qwen3", read_llama_like},
    {"qwen3_moe", read_llama_like},
    {"qwen3_next", read_qwen_next},
    {"qwen3_5", read_qwen_next},
    {"qwen3_5_text", read_qwen_next},
    {"qwen3_5_moe", read_qwen_next},
    {"qwen3_5_moe_text", read_qwen_next},
    {"deepseek_v2", read_deepseek},
    {"deepseek_v3", read_deepseek},
    {"kimi_k2", read_deepseek},
    {"glm4_moe", read_deepseek},
    {"gpt_oss", read_gpt_oss},
    {"gemma3", read_gemma3},
    {"gemma3_text", read_gemma3},
    {"nemotron_h", read_nemotron_h},
    {"gpt2", read_gpt2},
    {"gpt_neox", read_gpt_neox},
    // Read by their parts (hf_config_parts.cpp); any other model_type is too, with its assumptions.
    {"gemma2", read_by_parts},
    {"phi3", read_by_parts},
    {"olmoe", read_by_parts},
    {"mamba", read_by_parts},
    {"falcon_mamba", read_by_parts},
    {"jamba", read_by_parts},
};

const Family* find_family(const std::string& type) {
  for (const auto& f : kFamilies)
    if (type == f.model_type) return &f;
  return nullptr;
}

std::string supported_list() {
  std::string out;
  for (const auto& t : supported_model_types()) out += (out.empty() ? "" : ", ") + t;
  return out;
}

}  // namespace

Error error_at(std::string message, Where where, std::string fix) {
  Error e;
  e.message = std::move(message);
  e.where = std::move(where);
  e.fix = std::move(fix);
  e.code = "RB-HF-CONFIG";
  return e;
}

namespace {

// The model's name: the last part of `_name_or_path` ("org/name" is also the hf_id), else the folder
// of a config.json (made absolute, so that "./config.json" names the current folder, not "."), else
// the file's stem ("mistral-7b.json").
std::string name_from(const Json& j, const std::string& file, std::string* hf_id) {
  namespace fs = std::filesystem;
  if (auto it = j.find("_name_or_path"); it != j.end() && it->is_string()) {
    const std::string p = it->get<std::string>();
    const auto slash = p.find('/');
    if (slash != std::string::npos && p.find('/', slash + 1) == std::string::npos && p.front() != '.')
      *hf_id = p;
    const std::string base = fs::path(p).filename().string();
    if (!base.empty() && base != "." && base != "..") return base;
  }
  const fs::path path(file);
  if (path.filename() == "config.json") {
    std::error_code ec;
    fs::path dir = fs::weakly_canonical(fs::absolute(path, ec), ec).parent_path();
    if (ec) dir = path.parent_path();
    const std::string name = dir.filename().string();
    if (!name.empty() && name != "." && name != "..") return name;
  }
  return path.stem().string();
}

}  // namespace

void HfReader::fail_with(std::string message, std::string fix) {
  if (!error_) error_ = error_at(std::move(message), Where{file_, 0, 0}, std::move(fix));
}

void HfReader::fail_at(const char* key, std::string message, std::string fix) {
  if (error_) return;
  fail_with(std::move(message), std::move(fix));
  failed_key_ = prefix_ + key;
}

const char* HfReader::first_of(std::initializer_list<const char*> keys) const {
  for (const char* k : keys)
    if (has(k)) return k;
  return nullptr;
}

const nlohmann::json* HfReader::get(const char* key) const {
  read_.insert(key);
  if (!j_.is_object()) return nullptr;
  auto it = j_.find(key);
  if (it == j_.end() || it->is_null()) return nullptr;
  return &*it;
}

void HfReader::wrong_type(const char* key, const char* expected) {
  std::string found = get(key)->dump();
  if (found.size() > 60) found = found.substr(0, 57) + "...";  // a hostile value is not echoed whole
  fail_at(key, "`" + prefix_ + key + "` must be " + expected + ", found " + found);
}

int64_t HfReader::req_int(const char* key) {
  if (!has(key)) {
    fail_with("config.json has no `" + prefix_ + key + "` (needed for model_type " + type_ + ")",
              "add the field or use a complete config.json");
    return 0;
  }
  return opt_int(key).value_or(0);
}

int HfReader::req_int32(const char* key) {
  const int64_t v = req_int(key);
  if (v > std::numeric_limits<int>::max()) {
    fail_at(key, "`" + prefix_ + key + "` is too large: " + std::to_string(v));
    return 0;
  }
  return static_cast<int>(v);
}

int HfReader::req_layers(const char* key) {
  if (!has(key)) return req_int32(key);
  return layers_or(key, 0);
}

int HfReader::layers_or(const char* key, int fallback) {
  const int64_t n = int_or(key, fallback);
  if (failed()) return 0;
  if (n < 1 || n > kMaxLayers) {
    fail_at(key, "`" + prefix_ + key + "` is " + std::to_string(n) + "; a model has 1 to " +
                     std::to_string(kMaxLayers) + " layers");
    return 0;
  }
  return static_cast<int>(n);
}

std::optional<int64_t> HfReader::opt_int(const char* key) {
  const Json* v = get(key);
  if (v == nullptr) return std::nullopt;
  if (v->is_number_integer()) {
    const int64_t i = v->get<int64_t>();
    if (i < 0) {
      fail_at(key, "`" + prefix_ + key + "` must be >= 0, found " + std::to_string(i));
      return std::nullopt;
    }
    return i;
  }
  if (v->is_number_unsigned()) {
    const uint64_t u = v->get<uint64_t>();
    if (u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return static_cast<int64_t>(u);
  }
  wrong_type(key, "a non-negative integer");
  return std::nullopt;
}

int64_t HfReader::int_or(const char* key, int64_t fallback) { return opt_int(key).value_or(fallback); }

int HfReader::int32_or(const char* key, int fallback) {
  const int64_t v = int_or(key, fallback);
  if (v > std::numeric_limits<int>::max()) {
    fail_at(key, "`" + prefix_ + key + "` is too large: " + std::to_string(v));
    return fallback;
  }
  return static_cast<int>(v);
}

bool HfReader::bool_or(const char* key, bool fallback) {
  const Json* v = get(key);
  if (v == nullptr) return fallback;
  if (!v->is_boolean()) {
    wrong_type(key, "true or false");
    return fallback;
  }
  return v->get<bool>();
}

std::optional<std::string> HfReader::opt_str(const char* key) {
  const Json* v = get(key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_string()) {
    wrong_type(key, "a string");
    return std::nullopt;
  }
  return v->get<std::string>();
}

std::optional<std::vector<std::string>> HfReader::opt_str_list(const char* key) {
  const Json* v = get(key);
  if (v == nullptr) return std::nullopt;
  std::vector<std::string> out;
  if (v->is_array()) {
    for (const auto& item : *v) {
      if (!item.is_string()) break;
      out.push_back(item.get<std::string>());
    }
    if (out.size() == v->size()) return out;
  }
  wrong_type(key, "a list of strings");
  return std::nullopt;
}

std::optional<std::vector<int64_t>> HfReader::opt_int_list(const char* key) {
  const Json* v = get(key);
  if (v == nullptr) return std::nullopt;
  std::vector<int64_t> out;
  if (v->is_array()) {
    for (const auto& item : *v) {
      if (!item.is_number_integer()) break;
      out.push_back(item.get<int64_t>());
    }
    if (out.size() == v->size()) return out;
  }
  wrong_type(key, "a list of integers");
  return std::nullopt;
}

const nlohmann::json* HfReader::object(const char* key) {
  const Json* v = get(key);
  if (v == nullptr) return nullptr;
  if (!v->is_object()) {
    wrong_type(key, "an object");
    return nullptr;
  }
  return v;
}

std::vector<std::string> supported_model_types() {
  std::vector<std::string> out;
  for (const auto& f : kFamilies) out.emplace_back(f.model_type);
  return out;
}

namespace {

// The error of a reader, placed at the field it is about when it is about one.
tl::unexpected<Error> reader_error(const HfReader& r, std::string_view text) {
  Error e = r.error();
  if (!r.failed_key().empty() && e.where.line == 0) e.where = hf_key_where(text, e.where.file, r.failed_key());
  return tl::unexpected<Error>(std::move(e));
}

}  // namespace

Result<Model> model_from_hf_config_text(std::string_view text, const std::string& file) {
  // A config.json is a few kilobytes (the largest, with per-layer lists, a few tens); the bound keeps
  // what a request from a web page can make the parser hold small.
  constexpr size_t kMaxConfigBytes = size_t{4} << 20;
  if (text.size() > kMaxConfigBytes)
    return tl::unexpected<Error>(
        error_at("config.json is " + std::to_string(text.size()) + " bytes; a model config is at most 4 MiB",
                 Where{file, 0, 0}));
  Json j;
  try {
    j = Json::parse(text.begin(), text.end());
  } catch (const Json::parse_error& e) {
    // nlohmann's byte is the 1-based offset of the character that failed.
    const size_t at = e.byte > 0 ? e.byte - 1 : 0;
    std::string msg = e.what();
    if (const auto colon = msg.rfind(": "); colon != std::string::npos) msg = msg.substr(colon + 2);
    return tl::unexpected<Error>(
        error_at("invalid JSON: " + msg, position_of(text, std::min(at, text.size()), file)));
  } catch (const std::exception& e) {
    return tl::unexpected<Error>(error_at(std::string("cannot parse JSON: ") + e.what(), Where{file, 0, 0}));
  }
  if (!j.is_object())
    return tl::unexpected<Error>(error_at("config.json must be a JSON object", Where{file, 1, 1}));
  try {
    // An omni config (Qwen2.5-Omni, Qwen3-Omni) nests the language model, its vision tower and its
    // audio encoder in thinker_config; the talker and code2wav (speech output) sit beside it. The
    // thinker is what the recipes train and what is sized here.
    const Json* thinker = nullptr;
    if (auto t = j.find("thinker_config"); t != j.end() && t->is_object() && !j.contains("text_config"))
      thinker = &*t;
    HfReader top(thinker != nullptr ? *thinker : j, file, "?");
    const auto type = j.contains("model_type") && j["model_type"].is_string()
                          ? std::optional<std::string>(j["model_type"].get<std::string>())
                          : top.opt_str("model_type");
    if (top.failed()) return reader_error(top, text);
    if (!type)
      return tl::unexpected<Error>(
          error_at("config.json has no `model_type`", Where{file, 0, 0}, "known model types: " + supported_list()));
    // A VL config: the language model is under text_config (its model_type, if given, picks the reader).
    const Json* text_cfg = top.object("text_config");
    std::string text_type = *type;
    if (text_cfg != nullptr) {
      if (auto it = text_cfg->find("model_type"); it != text_cfg->end() && it->is_string())
        text_type = it->get<std::string>();
    }
    const Family* fam = find_family(text_type);
    if (fam == nullptr) fam = find_family(*type);
    Model m;
    m.family = *type;
    m.name = name_from(j, file, &m.hf_id);
    m.source = "config.json: " + file;
    if (fam == nullptr)
      m.assumptions.push_back("model_type '" + text_type + "' is not one recipebook knows: read by its fields");
    if (thinker != nullptr)
      m.assumptions.push_back(
          "thinker_config is the model sized; the talker and code2wav (speech output) and the audio encoder are not "
          "modelled");
    HfReader tr(text_cfg != nullptr ? *text_cfg : j, file, text_type,
                text_cfg != nullptr ? "text_config." : "");
    (fam != nullptr ? fam->read : read_by_parts)(tr, m);
    read_numerics(tr, m);
    refuse_unread_shaping_fields(tr);
    if (tr.failed()) return reader_error(tr, text);
    // tie_word_embeddings may sit at the top of a VL config instead of inside text_config.
    if (text_cfg != nullptr && !tr.has("tie_word_embeddings") && top.has("tie_word_embeddings"))
      m.tied_embeddings = top.bool_or("tie_word_embeddings", m.tied_embeddings);
    if (const Json* vis = top.object("vision_config")) {
      HfReader v(*vis, file, *type, "vision_config.");
      if (*type == "gemma3")
        read_siglip_vision(v, top, m);
      else if (!v.has("depth") && v.has("num_hidden_layers"))
        read_vit_vision(v, top, m);
      else
        read_qwen_vision(v, m);
      if (v.failed()) return reader_error(v, text);
      if (m.vision.out_hidden == 0) m.vision.out_hidden = static_cast<int>(m.hidden);
    }
    if (top.failed()) return reader_error(top, text);
    if (m.layers.empty())
      return tl::unexpected<Error>(error_at("config.json describes no layers", Where{file, 0, 0}));
    if (auto problem = check_architecture(m, hf_arch_namer(tr, j))) {
      const std::string key = hf_arch_namer(tr, j)(problem->key);
      return tl::unexpected<Error>(error_at(problem->message, hf_key_where(text, file, key)));
    }
    return m;
  } catch (const std::exception& e) {  // nlohmann type errors; the readers check types first
    return tl::unexpected<Error>(
        error_at(std::string("cannot read config.json: ") + e.what(), Where{file, 0, 0}));
  }
}

Result<Model> load_hf_config(const std::string& path) {
  std::error_code ec;
  std::string file = path;
  if (std::filesystem::is_directory(path, ec)) file = (std::filesystem::path(path) / "config.json").string();
  auto text = read_text_file(file);
  if (!text) return tl::unexpected<Error>(text.error());
  return model_from_hf_config_text(*text, file);
}

}  // namespace rb
