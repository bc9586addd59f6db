#include "recipebook/catalog/model_source.hpp"

#include <filesystem>

#include "recipebook/catalog/catalog_internal.hpp"
#include "recipebook/catalog/embedded.hpp"
#include "recipebook/catalog/hf_config.hpp"

namespace rb {
namespace {

namespace fs = std::filesystem;

Diagnostic model_error(const YNode& at, std::string message, std::string fix = {}) {
  Diagnostic d;
  d.rule_id = "RB-MODEL-VALUE";
  d.where = at.where;
  d.message = std::move(message);
  d.fix = std::move(fix);
  return d;
}

// A relative path down from the models folder: no root, no "..", ending in .json.
bool acceptable_path(const std::string& rel) {
  const fs::path p(rel);
  if (rel.empty() || p.is_absolute() || p.has_root_name() || p.extension() != ".json") return false;
  for (const auto& part : p)
    if (part == "..") return false;
  return true;
}

// The config.json text and the name it goes by in findings ("builtin:models/hf/x.json" or a path).
Result<std::pair<std::string, std::string>> read_config(const std::string& yaml_file, const std::string& rel) {
  if (yaml_file.rfind(kBuiltinPrefix, 0) == 0) {
    const fs::path yaml(yaml_file.substr(kBuiltinPrefix.size()));
    const std::string want = (yaml.parent_path() / rel).lexically_normal().generic_string();
    for (const auto& f : embedded_catalog())
      if (f.path == want) return std::pair{std::string(f.text), std::string(kBuiltinPrefix) + want};
    return fail("the built-in catalog has no file " + want, Where{std::string(kBuiltinPrefix) + want, 0, 0});
  }
  const std::string path = (fs::path(yaml_file).parent_path() / rel).lexically_normal().string();
  auto text = read_text_file(path);
  if (!text) return tl::unexpected<Error>(text.error());
  return std::pair{std::move(*text), path};
}

// The architecture of `from`, under the identity (names, source, published counts) of `m`.
void take_architecture(Model& m, Model from) {
  from.name = std::move(m.name);
  from.aliases = std::move(m.aliases);
  from.source = std::move(m.source);
  if (!m.hf_id.empty()) from.hf_id = std::move(m.hf_id);
  if (!m.family.empty()) from.family = std::move(m.family);
  from.published_total_params = m.published_total_params;
  from.published_active_params = m.published_active_params;
  from.has_architecture = true;
  m = std::move(from);
}

}  // namespace

void apply_model_source(const YNode& doc, const std::string& file, Model& m, Diagnostics& diags) {
  if (!doc.is_map()) return;
  const YNode* arch = doc.get("architecture");
  const bool has_arch = arch != nullptr && !arch->is_null();
  const YNode* kind = doc.get("kind");
  if (kind != nullptr && kind->is_scalar()) {
    m.kind = kind->text;
    if (has_arch || doc.get("hf_config") != nullptr)
      diags.push_back(model_error(*kind, "a model of `kind: " + m.kind + "` has no architecture",
                                  "remove `architecture` / `hf_config`, or remove `kind`"));
  }
  if (const YNode* unsized = doc.get("unsized"); unsized != nullptr && !unsized->is_null()) {
    if (unsized->is_scalar()) m.unsized_reason = unsized->text;
    if (has_arch || doc.get("hf_config") != nullptr || kind != nullptr)
      diags.push_back(model_error(*unsized, "`unsized` says no architecture was found, but the model has one (or a `kind`)",
                                  "remove `unsized`, or remove `architecture` / `hf_config` / `kind`"));
  }
  const YNode* ref = doc.get("hf_config");
  if (ref == nullptr || ref->is_null()) return;
  if (has_arch) {
    diags.push_back(model_error(*ref, "the model has both `architecture` and `hf_config`",
                                "keep one: the architecture is read from the config.json that hf_config names"));
    return;
  }
  if (!ref->is_scalar() || !acceptable_path(ref->text)) {
    diags.push_back(model_error(*ref, "`hf_config` must be a relative path to a .json file below the models folder",
                                "e.g. hf_config: hf/llama-3.1-8b.json"));
    return;
  }
  auto text = read_config(file, ref->text);
  if (!text) {
    Diagnostic d = finding_from_error(text.error());
    d.rule_id = "RB-FILE-READ";
    d.where = ref->where;
    d.message = "hf_config: " + text.error().message;
    diags.push_back(std::move(d));
    return;
  }
  auto loaded = model_from_hf_config_text(text->first, text->second);
  if (!loaded) {
    Diagnostic d = finding_from_error(loaded.error());
    d.message = m.name + ": hf_config " + ref->text + ": " + d.message;
    diags.push_back(std::move(d));
    return;
  }
  take_architecture(m, std::move(*loaded));
}

std::string no_architecture_reason(const Model& m) {
  if (m.has_architecture) return {};
  if (m.kind == "template")
    return m.name + " has no fixed architecture (its recipe sets the sizes per run); give a config.json to size one";
  if (!m.kind.empty())
    return m.name + " is a " + m.kind + " model: the estimator models decoder-only language models";
  if (!m.unsized_reason.empty()) return "the catalog names " + m.name + " but has no architecture for it: " + m.unsized_reason;
  return "the catalog names " + m.name + " but does not have its architecture yet";
}

}  // namespace rb
