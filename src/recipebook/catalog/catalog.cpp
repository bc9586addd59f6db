// Catalog::load: the embedded files, then each --catalog folder; every file parsed, checked against
// its schema and converted. A file that fails is reported in problems() and skipped; the rest loads.
// The embedded files were parsed when the binary was built (apps/pack_catalog, which also loads the
// whole catalog and fails the build on an error): their trees are unpacked, not parsed, and then
// converted like any other file. Without --catalog folders the recipe files wait until a recipe is
// asked for (make_recipes_ready) and the schema check of the built-in records, which the build did
// on the same trees, until problems() is (check_builtin_records).
//
// Rule ids emitted into problems() (besides RB-YAML-*, RB-FILE-READ, RB-SCHEMA-* and the converters'
// RB-MODEL-VALUE / RB-HW-VALUE / RB-RECIPE-VALUE):
//   RB-CATALOG-DUPLICATE    two entries of one kind with the same name in the same layer (the first wins)
//   RB-CATALOG-ALIAS-CLASH  (warning) an alias, HF id or display name that already names another entry
//   RB-CATALOG-EMPTY-DIR    (warning) a --catalog folder with none of models/, hardware/, recipes/
//   RB-SCHEMA-INVALID       a built-in schema that does not compile (its kind is then not validated)
//   RB-EXTENDS-UNKNOWN      a recipe that extends a recipe the catalog does not have
//   RB-EXTENDS-CYCLE        a chain of `extends` that comes back to itself
#include "recipebook/catalog/catalog.hpp"

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <mutex>
#include <optional>
#include <system_error>

#include "recipebook/catalog/catalog_internal.hpp"
#include "recipebook/catalog/embedded.hpp"
#include "recipebook/catalog/packed_tree.hpp"
#include "recipebook/catalog/recipe_layout.hpp"
#include "recipebook/core/strings.hpp"

namespace rb {

namespace fs = std::filesystem;

struct CatalogLoader {
  Catalog& cat;
  int layer = 0;
  std::string origin;
  // False while the built-in trees the build packed (and checked) are loaded without --catalog
  // folders: their schema check waits for Catalog::problems().
  bool validate_builtin = true;
  // Key -> (index, layer it was defined in), for override (later layer) vs duplicate (same layer).
  std::unordered_map<std::string, std::pair<size_t, int>> model_keys, hardware_keys, recipe_keys;

  void problem(Severity sev, const char* rule, Where where, std::string message, std::string fix = {}) {
    Diagnostic d;
    d.severity = sev;
    d.rule_id = rule;
    d.where = std::move(where);
    d.message = std::move(message);
    d.fix = std::move(fix);
    cat.problems_.push_back(std::move(d));
  }

  // Inserts or overrides; returns false (with a problem) for a duplicate in the same layer.
  template <typename Entry>
  void place(std::vector<Entry>& list, std::unordered_map<std::string, std::pair<size_t, int>>& keys,
             const std::string& key, Entry&& entry, const char* what, const std::string& name,
             const Where& where) {
    auto it = keys.find(key);
    if (it == keys.end()) {
      keys.emplace(key, std::make_pair(list.size(), layer));
      list.push_back(std::move(entry));
      return;
    }
    Entry& old = list[it->second.first];
    if (it->second.second == layer) {
      problem(Severity::kError, "RB-CATALOG-DUPLICATE", where,
              std::string(what) + " '" + name + "' is defined twice (first in " + old.tree.where.file + ")",
              "give one of them another name");
      return;
    }
    old = std::move(entry);  // a later folder overrides
    it->second.second = layer;
  }

  void add_file(std::string_view text, const std::string& file, EntryKind kind, const std::string& stem) {
    add_checked(check_entry(cat, text, file, kind, stem, origin, /*keep_tree=*/false), file);
  }

  void add_checked(FileCheck fc, const std::string& file) {
    cat.problems_.insert(cat.problems_.end(), fc.findings.begin(), fc.findings.end());
    if (fc.model) {
      const std::string name = fc.model->model.name;
      place(cat.models_, model_keys, fold_name(name), std::move(*fc.model), "model", name, Where{file, 1, 1});
    } else if (fc.hardware) {
      const std::string name = fc.hardware->hardware.name;
      place(cat.hardware_, hardware_keys, fold_name(name), std::move(*fc.hardware), "hardware", name,
            Where{file, 1, 1});
    } else if (fc.recipe) {
      const std::string name = fc.recipe->recipe.name;
      place(cat.recipes_, recipe_keys, name, std::move(*fc.recipe), "recipe", name, Where{file, 1, 1});
    }
  }

  // Embedded file `i` parsed: its tree packed at build time when there is one (the same tree
  // parse_yaml gives, checked by catalog_test), else its text parsed now.
  static Result<YNode> embedded_tree(size_t i, const std::string& file) {
    const auto files = embedded_catalog();
    const auto trees = embedded_trees();
    if (trees.size() == files.size() && !trees[i].empty())
      if (auto tree = unpack_tree(trees[i], file)) return std::move(*tree);
    return parse_yaml(files[i].text, file);
  }

  // The kind of record an embedded file holds, or nullopt for one that is none (a schema, config.json
  // data, YAML outside the catalog's folders).
  static std::optional<EntryKind> embedded_kind(std::string_view path) {
    if (path.rfind("schema/", 0) == 0) return std::nullopt;
    const bool is_yaml = path.size() > 5 && path.substr(path.size() - 5) == ".yaml";
    if (!is_yaml) return std::nullopt;
    const EntryKind kind = Catalog::kind_of_path(path);
    if (kind == EntryKind::kRecipe && path.rfind("recipes/", 0) != 0) return std::nullopt;
    return kind;
  }

  void add_embedded(size_t i, EntryKind kind) {
    const std::string path(embedded_catalog()[i].path);
    const std::string file = std::string(kBuiltinPrefix) + path;
    add_checked(check_tree(cat, embedded_tree(i, file), file, kind, fs::path(path).stem().string(), origin,
                           /*keep_tree=*/false, validate_builtin),
                file);
  }

  // Whether the built-in recipes may wait until first use with every answer the same: the build
  // recorded each recipe file's name, and no model or hardware file comes after a recipe file (so
  // the recipe files' findings, made later, still go after all the others').
  static bool recipes_can_wait() {
    const auto files = embedded_catalog();
    const auto names = embedded_recipe_names();
    if (names.size() != files.size()) return false;
    bool seen_recipe = false;
    for (size_t i = 0; i < files.size(); ++i) {
      const auto kind = embedded_kind(files[i].path);
      if (!kind) continue;
      if (*kind != EntryKind::kRecipe && seen_recipe) return false;
      if (*kind == EntryKind::kRecipe && names[i].empty()) return false;
      seen_recipe = seen_recipe || *kind == EntryKind::kRecipe;
    }
    return true;
  }

  // Every embedded record in order; with `defer_recipes` the recipe files are not loaded but their
  // indices returned, for make_recipes_ready().
  std::vector<size_t> load_embedded(bool defer_recipes) {
    origin = "builtin";
    std::vector<size_t> deferred;
    const auto files = embedded_catalog();
    for (size_t i = 0; i < files.size(); ++i) {
      const auto kind = embedded_kind(files[i].path);
      if (!kind) continue;
      if (defer_recipes && *kind == EntryKind::kRecipe)
        deferred.push_back(i);
      else
        add_embedded(i, *kind);
    }
    return deferred;
  }

  static bool is_yaml(const fs::path& p) { return p.extension() == ".yaml" || p.extension() == ".yml"; }

  std::vector<fs::path> files_in(const fs::path& dir, bool recursive) {
    std::vector<fs::path> out;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return out;
    auto visit = [&](const fs::directory_entry& e) {
      std::error_code ec2;
      if (e.is_regular_file(ec2) && is_yaml(e.path())) out.push_back(e.path());
    };
    if (recursive) {
      for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
           !ec && it != end; it.increment(ec))
        visit(*it);
    } else {
      for (fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
           !ec && it != end; it.increment(ec))
        visit(*it);
    }
    if (ec)
      problem(Severity::kError, "RB-FILE-READ", Where{dir.string(), 0, 0},
              "cannot list " + dir.string() + ": " + ec.message());
    std::sort(out.begin(), out.end());
    return out;
  }

  Result<bool> load_dir(const std::string& dir) {
    std::error_code ec;
    const auto st = fs::status(dir, ec);
    if (ec || !fs::exists(st))
      return fail("catalog folder '" + dir + "' does not exist", Where{"--catalog", 0, 0},
                  "pass a folder that holds models/, hardware/ or recipes/");
    if (!fs::is_directory(st))
      return fail("catalog folder '" + dir + "' is not a folder", Where{"--catalog", 0, 0},
                  "pass a folder that holds models/, hardware/ or recipes/");
    origin = dir;
    const fs::path root(dir);
    bool any = false;
    for (const auto& [sub, kind, recursive] :
         {std::tuple{"models", EntryKind::kModel, false}, std::tuple{"hardware", EntryKind::kHardware, false},
          std::tuple{"recipes", EntryKind::kRecipe, true}}) {
      if (fs::is_directory(root / sub, ec)) any = true;
      for (const auto& p : files_in(root / sub, recursive)) {
        auto text = read_text_file(p.string());
        if (!text) {
          problem(Severity::kError, "RB-FILE-READ", Where{p.string(), 0, 0}, text.error().message);
          continue;
        }
        add_file(*text, p.string(), kind, p.stem().string());
      }
    }
    if (!any)
      problem(Severity::kWarning, "RB-CATALOG-EMPTY-DIR", Where{dir, 0, 0},
              "catalog folder '" + dir + "' has no models/, hardware/ or recipes/ folder",
              "put model files in models/, GPUs in hardware/ and recipes under recipes/");
    return true;
  }

  void load_schemas() {
    cat.schemas_.assign(3, std::nullopt);
    const std::pair<EntryKind, const char*> kFiles[] = {{EntryKind::kModel, "schema/model.schema.yaml"},
                                                        {EntryKind::kHardware, "schema/hardware.schema.yaml"},
                                                        {EntryKind::kRecipe, "schema/recipe.schema.yaml"}};
    for (const auto& [kind, path] : kFiles) {
      const auto files = embedded_catalog();
      size_t found = files.size();
      for (size_t i = 0; i < files.size(); ++i)
        if (files[i].path == path) found = i;
      if (found == files.size()) continue;  // no schema yet: the kind is converted without validation
      const std::string file = std::string(kBuiltinPrefix) + path;
      auto tree = embedded_tree(found, file);
      if (!tree) {
        problem(Severity::kError, "RB-SCHEMA-INVALID", tree.error().where, tree.error().message);
        continue;
      }
      auto schema = Schema::compile(*tree);
      if (!schema) {
        problem(Severity::kError, "RB-SCHEMA-INVALID", schema.error().where, schema.error().message);
        continue;
      }
      cat.schemas_[static_cast<size_t>(kind)] = std::move(*schema);
    }
  }

  // Name first, then aliases (and HF ids / display names), so that a name always wins.
  template <typename Entry, typename Keys>
  void index(const std::vector<Entry>& list, std::unordered_map<std::string, size_t>& out, Keys keys_of,
             const char* what) {
    out.clear();
    for (size_t i = 0; i < list.size(); ++i) out.emplace(fold_name(keys_of(list[i]).front()), i);
    for (size_t i = 0; i < list.size(); ++i) {
      const auto keys = keys_of(list[i]);
      for (size_t k = 1; k < keys.size(); ++k) {
        if (keys[k].empty()) continue;
        auto [it, fresh] = out.emplace(fold_name(keys[k]), i);
        if (!fresh && it->second != i)
          problem(Severity::kWarning, "RB-CATALOG-ALIAS-CLASH", list[i].tree.where,
                  std::string(what) + " '" + keys.front() + "': '" + keys[k] + "' already names '" +
                      keys_of(list[it->second]).front() + "'",
                  "remove the alias from one of them");
      }
    }
  }

  void resolve_extends() {
    const Schema* schema = cat.schema(EntryKind::kRecipe);
    for (auto& e : cat.recipes_) {
      if (!extends_something(e.tree)) continue;
      auto r = cat.resolved_now(e.recipe.name);
      if (r) {
        e.recipe = std::move(*r);
        if (auto merged = cat.resolved_tree_now(e.recipe.name); merged && schema != nullptr && validate_builtin)
          for (auto& d : schema->validate(*merged))
            if (d.rule_id == "RB-SCHEMA-REQUIRED") cat.problems_.push_back(std::move(d));
        continue;
      }
      const bool cycle = r.error().message.find("cycle") != std::string::npos;
      Where w = e.tree.where;
      if (const YNode* ext = e.tree.get("extends")) w = ext->where;
      problem(Severity::kError, cycle ? "RB-EXTENDS-CYCLE" : "RB-EXTENDS-UNKNOWN", w, r.error().message,
              r.error().fix);
    }
  }

  // The recipes placed: their index, `extends` resolved, each linked to its model.
  void finish_recipes() {
    for (const auto& [name, at] : recipe_keys) cat.recipe_index_.emplace(name, at.first);
    resolve_extends();
    // Each record with its model's defaults (an `extends` record is linked by resolved() above).
    for (auto& e : cat.recipes_)
      if (const ModelEntry* m = cat.model_entry(e.recipe.model)) link_recipe_model(e.recipe, m->model);
  }
};

struct Catalog::PendingRecipes {
  std::once_flag once;
  std::once_flag checked;     // the schema check of the built-in records, left to problems()
  std::vector<size_t> files;  // embedded_catalog() indices of the recipe files, in order
  size_t problems_at = 0;     // where their findings go in problems_: after the other files'
};

Catalog::Catalog() = default;
Catalog::~Catalog() = default;
Catalog::Catalog(Catalog&& other) noexcept = default;
Catalog& Catalog::operator=(Catalog&& other) noexcept = default;
Catalog::Catalog(const Catalog& other) { *this = other; }

Catalog& Catalog::operator=(const Catalog& other) {
  if (this == &other) return *this;
  other.make_recipes_ready();
  other.check_builtin_records();
  models_ = other.models_;
  hardware_ = other.hardware_;
  recipes_ = other.recipes_;
  recipe_index_ = other.recipe_index_;
  problems_ = other.problems_;
  pending_.reset();  // the copy has every recipe
  model_index_ = other.model_index_;
  hardware_index_ = other.hardware_index_;
  schemas_ = other.schemas_;
  return *this;
}

void Catalog::make_recipes_ready() const {
  if (pending_ == nullptr) return;
  std::call_once(pending_->once, [this] {
    // Only what is mutable changes here: recipes_, recipe_index_ and problems_.
    CatalogLoader loader{const_cast<Catalog&>(*this), 0, "builtin", false, {}, {}, {}};
    const auto at = static_cast<std::ptrdiff_t>(pending_->problems_at);
    Diagnostics later(std::make_move_iterator(problems_.begin() + at), std::make_move_iterator(problems_.end()));
    problems_.erase(problems_.begin() + at, problems_.end());
    for (const size_t i : pending_->files) loader.add_embedded(i, EntryKind::kRecipe);
    problems_.insert(problems_.end(), std::make_move_iterator(later.begin()), std::make_move_iterator(later.end()));
    loader.finish_recipes();
  });
}

void Catalog::check_builtin_records() const {
  if (pending_ == nullptr) return;
  make_recipes_ready();
  std::call_once(pending_->checked, [this] {
    // The build failed on any finding of these same trees, so this finds none; when it would, the
    // findings come after the others (a load that checks at once puts them with their file's).
    auto append = [this](Diagnostics ds) {
      problems_.insert(problems_.end(), std::make_move_iterator(ds.begin()), std::make_move_iterator(ds.end()));
    };
    if (const Schema* s = schema(EntryKind::kModel))
      for (const auto& e : models_) append(schema_findings(*s, EntryKind::kModel, e.tree, nullptr));
    if (const Schema* s = schema(EntryKind::kHardware))
      for (const auto& e : hardware_) append(schema_findings(*s, EntryKind::kHardware, e.tree, nullptr));
    if (const Schema* s = schema(EntryKind::kRecipe))
      for (const auto& e : recipes_) {
        std::optional<YNode> resolved;
        if (extends_something(e.tree))
          if (auto r = resolved_tree_now(e.recipe.name)) resolved = std::move(*r);
        append(schema_findings(*s, EntryKind::kRecipe, e.tree, resolved ? &*resolved : nullptr));
      }
  });
}

bool Catalog::builtin_recipe_named(std::string_view name) const {
  const auto names = embedded_recipe_names();
  return std::any_of(pending_->files.begin(), pending_->files.end(), [&](size_t i) { return names[i] == name; });
}

std::vector<std::string> Catalog::builtin_recipe_names() const {
  const auto names = embedded_recipe_names();
  std::vector<std::string> out;
  out.reserve(pending_->files.size());
  for (const size_t i : pending_->files) out.emplace_back(names[i]);
  return out;
}

Result<Catalog> Catalog::load(const std::vector<std::string>& extra_dirs) {
  Catalog cat;
  CatalogLoader loader{cat, 0, {}, true, {}, {}, {}};
  loader.load_schemas();
  // With --catalog folders everything loads at once: their recipes override and extend built-in ones.
  const bool recipes_wait = extra_dirs.empty() && CatalogLoader::recipes_can_wait();
  loader.validate_builtin = !recipes_wait;
  std::vector<size_t> waiting = loader.load_embedded(recipes_wait);
  if (recipes_wait) {
    cat.pending_ = std::make_unique<PendingRecipes>();
    cat.pending_->files = std::move(waiting);
    cat.pending_->problems_at = cat.problems_.size();
  }
  for (const auto& dir : extra_dirs) {
    ++loader.layer;
    auto ok = loader.load_dir(dir);
    if (!ok) return tl::unexpected<Error>(ok.error());
  }
  loader.index(
      cat.models_, cat.model_index_,
      [](const ModelEntry& e) {
        std::vector<std::string> keys{e.model.name};
        keys.insert(keys.end(), e.model.aliases.begin(), e.model.aliases.end());
        keys.push_back(e.model.hf_id);
        return keys;
      },
      "model");
  loader.index(
      cat.hardware_, cat.hardware_index_,
      [](const HardwareEntry& e) {
        std::vector<std::string> keys{e.hardware.name};
        keys.insert(keys.end(), e.hardware.aliases.begin(), e.hardware.aliases.end());
        keys.push_back(e.hardware.display);
        return keys;
      },
      "hardware");
  if (!recipes_wait) loader.finish_recipes();
  return cat;
}

}  // namespace rb
