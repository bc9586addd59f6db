// One catalog file: parse -> schema -> conversion, with every finding kept (Catalog::check_file and
// the loader share this).
#include <algorithm>
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

namespace {

bool same_position(const Where& a, const Where& b) { return a.line == b.line && a.col == b.col; }

// The record path ("layout.tp", "result.window[1]") of the outermost value (with `keys`: of the key)
// written at `at`, or nullopt.
std::optional<std::string> path_at(const YNode& n, const std::string& path, const Where& at, bool keys) {
  if (n.is_map()) {
    for (const auto& [k, v] : n.map) {
      const std::string p = path.empty() ? k.text : path + "." + k.text;
      if (same_position(keys ? k.where : v.where, at)) return p;
      if (auto found = path_at(v, p, at, keys)) return found;
    }
  } else if (n.is_seq()) {
    for (size_t i = 0; i < n.seq.size(); ++i) {
      const std::string p = path + "[" + std::to_string(i) + "]";
      if (!keys && same_position(n.seq[i].where, at)) return p;
      if (auto found = path_at(n.seq[i], p, at, keys)) return found;
    }
  }
  return std::nullopt;
}

// Removes the map entry at a dotted path (no list indexes); false when there is none.
bool erase_entry(YNode& root, std::string_view path) {
  YNode* cur = &root;
  while (true) {
    const size_t dot = path.find('.');
    const std::string_view key = path.substr(0, dot);
    if (!cur->is_map()) return false;
    auto it = std::find_if(cur->map.begin(), cur->map.end(), [&](const auto& kv) { return kv.first.text == key; });
    if (it == cur->map.end()) return false;
    if (dot == std::string_view::npos) {
      cur->map.erase(it);
      return true;
    }
    cur = &it->second;
    path.remove_prefix(dot + 1);
  }
}

// The fields the schema rejected or found missing, and `tree` without the rejected values (a value
// inside a list takes its whole list with it). False when a finding cannot be tied to one field
// (the document as a whole is wrong), so no partial record can be trusted.
bool prune_rejected(YNode& tree, const Diagnostics& schema_findings, std::vector<std::string>& unknown) {
  for (const auto& d : schema_findings) {
    if (d.severity != Severity::kError) continue;
    if (d.rule_id == "RB-SCHEMA-UNKNOWN-KEY") {
      // The converter never reads a key the schema does not know, but what the writer meant (a
      // misspelt `tp`?) is unknown: a check reading that field must not run on a default.
      if (auto p = path_at(tree, "", d.where, true)) unknown.push_back(*p);
      continue;
    }
    std::optional<std::string> p = same_position(tree.where, d.where) ? std::optional<std::string>("")
                                                                       : path_at(tree, "", d.where, false);
    if (!p) return false;
    if (d.rule_id == "RB-SCHEMA-REQUIRED") {
      const std::string lead = "missing required key '";
      const size_t at = d.message.find(lead);
      if (at == std::string::npos) return false;
      const size_t from = at + lead.size();
      const std::string key = d.message.substr(from, d.message.find('\'', from) - from);
      unknown.push_back(p->empty() ? key : *p + "." + key);
      continue;
    }
    const std::string entry = p->substr(0, p->find('['));
    if (entry.empty()) return false;
    erase_entry(tree, entry);  // already gone when an earlier finding removed it or a parent
    unknown.push_back(entry);
  }
  std::sort(unknown.begin(), unknown.end());
  unknown.erase(std::unique(unknown.begin(), unknown.end()), unknown.end());
  return true;
}

}  // namespace

FileCheck check_entry(const Catalog& cat, std::string_view text, const std::string& file,
                      std::optional<EntryKind> kind_given, const std::string& stem, const std::string& origin,
                      bool keep_tree) {
  // For `check`, a repeated key is one finding among the others (the first value is the one checked).
  std::vector<Error> duplicates;
  FileCheck fc = check_tree(cat, parse_yaml(text, file, keep_tree ? &duplicates : nullptr), file, kind_given, stem,
                            origin, keep_tree);
  for (auto it = duplicates.rbegin(); it != duplicates.rend(); ++it)
    fc.findings.insert(fc.findings.begin(), finding_from_error(*it));
  return fc;
}

Diagnostics schema_findings(const Schema& schema, EntryKind kind, const YNode& tree, const YNode* resolved) {
  Diagnostics out = schema.validate(tree);
  if (kind != EntryKind::kRecipe || !extends_something(tree)) return out;
  std::erase_if(out, [](const Diagnostic& d) { return d.rule_id == "RB-SCHEMA-REQUIRED"; });
  if (resolved != nullptr)
    for (auto& d : schema.validate(*resolved))
      if (d.rule_id == "RB-SCHEMA-REQUIRED") out.push_back(std::move(d));
  return out;
}

FileCheck check_tree(const Catalog& cat, Result<YNode> tree, const std::string& file,
                     std::optional<EntryKind> kind_given, const std::string& stem, const std::string& origin,
                     bool keep_tree, bool validate) {
  FileCheck fc;
  fc.kind = kind_given.value_or(Catalog::kind_of_path(file));
  if (!tree) {
    fc.findings.push_back(finding_from_error(tree.error()));
    return fc;
  }
  fc.parsed = true;
  const EntryKind kind = fc.kind = kind_given.value_or(Catalog::kind_of(file, *tree));
  // A record that extends another need not repeat what it inherits: required keys are checked on the
  // resolved tree once the catalog is loaded (CatalogLoader::resolve_extends).
  if (const Schema* s = cat.schema(kind); s != nullptr && validate)
    fc.findings = schema_findings(*s, kind, *tree, nullptr);
  if (kind == EntryKind::kModel) explain_moved_model_keys(*tree, fc.findings);
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
      YNode pruned;
      if (!schema_ok && keep_tree) pruned = stored;  // before `stored` moves into the entry
      auto r = recipe_from_yaml(stored, stem, conv);
      merge();
      if (r && schema_ok) fc.recipe = RecipeEntry{std::move(*r), std::move(stored), origin};
      // `check FILE` still runs the checks that read only fields the schema accepted.
      if (!schema_ok && keep_tree && prune_rejected(pruned, fc.findings, fc.unknown_fields)) {
        Diagnostics ignored;  // the full tree's conversion findings are reported above
        if (auto partial = recipe_from_yaml(pruned, stem, ignored); partial && !has_errors(ignored))
          fc.partial_recipe = RecipeEntry{std::move(*partial), std::move(pruned), origin};
      }
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
    if (e.where.file.empty()) e.where.file = path;  // the finding names the file it is about
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
