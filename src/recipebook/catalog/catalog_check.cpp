// One catalog file: parse -> schema -> conversion, with every finding kept (Catalog::check_file and
// the loader share this).
#include <filesystem>

#include "recipebook/catalog/catalog_internal.hpp"
#include "recipebook/catalog/hardware_yaml.hpp"
#include "recipebook/catalog/model_source.hpp"
#include "recipebook/catalog/model_yaml.hpp"
#include "recipebook/catalog/recipe_yaml.hpp"

namespace rb {

bool extends_something(const YNode& tree) {
  const YNode* ext = tree.get("extends");
  return ext != nullptr && ext->is_scalar() && !ext->text.empty();
}

Diagnostic finding_from_error(const Error& e) {
  Diagnostic d;
  d.severity = Severity::kError;
  d.rule_id = e.code.empty() ? "RB-YAML-SYNTAX" : e.code;
  d.where = e.where;
  d.message = e.message;
  d.fix = e.fix;
  return d;
}

FileCheck check_entry(const Catalog& cat, std::string_view text, const std::string& file,
                      std::optional<EntryKind> kind_given, const std::string& stem, const std::string& origin,
                      bool keep_tree) {
  FileCheck fc;
  fc.kind = kind_given.value_or(Catalog::kind_of_path(file));
  auto tree = parse_yaml(text, file);
  if (!tree) {
    fc.findings.push_back(finding_from_error(tree.error()));
    return fc;
  }
  fc.parsed = true;
  const EntryKind kind = fc.kind = kind_given.value_or(Catalog::kind_of(file, *tree));
  if (const Schema* s = cat.schema(kind)) fc.findings = s->validate(*tree);
  // A record that extends another need not repeat what it inherits: required keys are checked on the
  // resolved tree once the catalog is loaded (CatalogLoader::resolve_extends).
  if (kind == EntryKind::kRecipe && extends_something(*tree))
    std::erase_if(fc.findings, [](const Diagnostic& d) { return d.rule_id == "RB-SCHEMA-REQUIRED"; });
  const bool schema_ok = !has_errors(fc.findings);
  // The converters re-check what the schema checks; keep only their findings at new positions.
  Diagnostics conv;
  auto merge = [&] {
    for (auto& d : conv) {
      bool seen = false;
      for (const auto& s : fc.findings)
        seen = seen || (s.where.line == d.where.line && s.where.col == d.where.col);
      if (!seen) fc.findings.push_back(std::move(d));
    }
  };
  YNode stored = keep_tree ? *tree : std::move(*tree);
  if (keep_tree) fc.tree = std::move(*tree);
  switch (kind) {
    case EntryKind::kModel: {
      auto m = model_from_yaml(stored, conv);
      if (m) apply_model_source(stored, file, *m, conv);
      if (has_errors(conv)) m.reset();
      merge();
      if (m && schema_ok) fc.model = ModelEntry{std::move(*m), std::move(stored), origin};
      break;
    }
    case EntryKind::kHardware: {
      auto h = hardware_from_yaml(stored, conv);
      merge();
      if (h && schema_ok) fc.hardware = HardwareEntry{std::move(*h), std::move(stored), origin};
      break;
    }
    case EntryKind::kRecipe: {
      auto r = recipe_from_yaml(stored, stem, conv);
      merge();
      if (r && schema_ok) fc.recipe = RecipeEntry{std::move(*r), std::move(stored), origin};
      break;
    }
  }
  return fc;
}

FileCheck Catalog::check_text(std::string_view text, const std::string& file, EntryKind kind) const {
  return check_entry(*this, text, file, kind, std::filesystem::path(file).stem().string(), file, true);
}

FileCheck Catalog::check_file(const std::string& path, std::optional<EntryKind> kind) const {
  auto text = read_text_file(path);
  if (!text || text->empty()) {
    FileCheck fc;
    fc.kind = kind.value_or(kind_of_path(path));
    Error e = text ? Error{} : text.error();
    if (text) {
      e.message = "empty file";
      e.where = Where{path, 0, 0};
      e.code = "RB-YAML-SYNTAX";
    }
    fc.findings.push_back(finding_from_error(e));
    return fc;
  }
  return check_entry(*this, *text, path, kind, std::filesystem::path(path).stem().string(), path, true);
}

namespace {

// The catalog folder a path is in: models/ and hardware/ hold their files directly (models/hf/ holds
// config.json data, not entries), recipes/ at any depth (recipes/<model>/<gpu>/x.yaml). So a folder
// merely named "models" higher up ("/work/models/tests/r.yaml") says nothing.
std::optional<EntryKind> folder_kind(std::string_view path) {
  std::string p = "/";
  p += path;
  const size_t slash = p.rfind('/');  // p starts with '/', so there is one
  const size_t parent = slash == 0 ? 0 : p.rfind('/', slash - 1);
  const std::string_view dir =
      slash == 0 ? std::string_view() : std::string_view(p).substr(parent + 1, slash - parent - 1);
  if (dir == "models") return EntryKind::kModel;
  if (dir == "hardware") return EntryKind::kHardware;
  if (p.rfind("/recipes/") != std::string::npos) return EntryKind::kRecipe;
  return std::nullopt;
}

}  // namespace

EntryKind Catalog::kind_of_path(std::string_view path) { return folder_kind(path).value_or(EntryKind::kRecipe); }

EntryKind Catalog::kind_of(std::string_view path, const YNode& tree) {
  if (auto k = folder_kind(path)) return *k;
  if (tree.get("architecture") != nullptr) return EntryKind::kModel;
  if (tree.get("peak") != nullptr || tree.get("hbm_bandwidth") != nullptr) return EntryKind::kHardware;
  return EntryKind::kRecipe;
}

const Schema* Catalog::schema(EntryKind kind) const {
  const auto i = static_cast<size_t>(kind);
  if (i >= schemas_.size() || !schemas_[i]) return nullptr;
  return &*schemas_[i];
}

}  // namespace rb
