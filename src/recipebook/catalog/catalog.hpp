// The catalog: models, hardware and recipe records, from the built-in (embedded) files and any
// `--catalog DIR` the user adds (later folders override earlier entries of the same name).
// Lookups are exact first (name, alias, Hugging Face id, case- and separator-insensitive), and a
// miss returns an Error with "did you mean ..." — never a silently substituted entry.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "recipebook/catalog/schema.hpp"
#include "recipebook/catalog/yaml_tree.hpp"
#include "recipebook/core/diagnostic.hpp"
#include "recipebook/core/hardware.hpp"
#include "recipebook/core/model.hpp"
#include "recipebook/core/recipe.hpp"
#include "recipebook/core/result.hpp"

namespace rb {

// A recipe record: the typed view plus the YAML tree it came from (with positions, for `check`).
struct RecipeEntry {
  Recipe recipe;
  YNode tree;
  std::string origin;  // "builtin" or the --catalog folder it came from
};

struct ModelEntry {
  Model model;
  YNode tree;
  std::string origin;
};

struct HardwareEntry {
  Hardware hardware;
  YNode tree;
  std::string origin;
};

// The three kinds of catalog file, by folder: models/, hardware/, recipes/.
enum class EntryKind { kModel, kHardware, kRecipe };

// One file checked on its own (`recipebook check FILE`): parse, schema, conversion. `findings` holds
// them all (a parse error becomes a finding with the Error's code as rule id); the typed entry is set
// when the file converted without errors.
struct FileCheck {
  EntryKind kind = EntryKind::kRecipe;
  bool parsed = false;
  YNode tree;
  Diagnostics findings;
  std::optional<ModelEntry> model;
  std::optional<HardwareEntry> hardware;
  std::optional<RecipeEntry> recipe;
  // A recipe whose schema failed: the record converted without the values the schema rejected (its
  // tree lacks them), so checks that read only valid fields can still run. `unknown_fields` names
  // each rejected or missing field by record path ("layout.tp", "workload.global_batch"); a check
  // that needs one of them must not run. Unset when the record is schema-valid (then see `recipe`).
  std::optional<RecipeEntry> partial_recipe;
  std::vector<std::string> unknown_fields;
};

struct RecipeFilter {
  std::string model;  // catalog model name, alias or family substring (case-insensitive)
  std::optional<Mode> mode;
  std::string gpu;  // hardware name or alias
  int gpus = 0;     // exact GPU count; 0 = any
  std::optional<RecipeKind> kind;
  bool measured_only = false;  // has a result or at least one measurement
};

class Catalog {
 public:
  // The built-in catalog plus `extra_dirs` in order. Files that fail to load are reported in
  // `problems` (the catalog still loads everything else); a caller that needs a clean catalog
  // checks `problems().empty()`.
  // The built-in recipes (most of the catalog's bytes) are made ready on first use when there are
  // no `extra_dirs`: by recipes(), problems(), list(), resolved*() or find_recipe() of a name a
  // built-in recipe has. Every answer is the same as with them made ready at once; the first use is
  // safe from several threads.
  static Result<Catalog> load(const std::vector<std::string>& extra_dirs = {});

  Catalog();
  ~Catalog();
  Catalog(const Catalog& other);  // makes `other`'s recipes ready first
  Catalog(Catalog&& other) noexcept;
  Catalog& operator=(const Catalog& other);
  Catalog& operator=(Catalog&& other) noexcept;

  [[nodiscard]] const std::vector<ModelEntry>& models() const { return models_; }
  [[nodiscard]] const std::vector<HardwareEntry>& hardware() const { return hardware_; }
  [[nodiscard]] const std::vector<RecipeEntry>& recipes() const {
    make_recipes_ready();
    return recipes_;
  }
  // Made ready this way, the built-in records' schema check (which the build has done on the same
  // trees) is left to the first problems().
  [[nodiscard]] const Diagnostics& problems() const {
    make_recipes_ready();
    check_builtin_records();
    return problems_;
  }

  // A model by catalog name, alias, Hugging Face id, or path to a config.json / model YAML file.
  [[nodiscard]] Result<Model> find_model(const std::string& ref) const;
  [[nodiscard]] Result<Hardware> find_hardware(const std::string& ref) const;
  [[nodiscard]] Result<const RecipeEntry*> find_recipe(const std::string& name) const;
  [[nodiscard]] std::vector<const RecipeEntry*> list(const RecipeFilter& filter) const;

  // The recipe with its `extends` chain applied (base first, then each override), or an Error for
  // an unknown base or a cycle.
  [[nodiscard]] Result<Recipe> resolved(const std::string& name) const;

  // --- added by the catalog module ---

  // The record's tree with its `extends` chain merged in (base first; maps merge key by key, a
  // child's list or scalar replaces the base's; positions stay those of the file each value came
  // from), or the Error resolved() would give.
  [[nodiscard]] Result<YNode> resolved_tree(const std::string& name) const;

  // Entries by exact catalog reference (name, alias, HF id; folded), nullptr when absent. No paths,
  // no suggestions: for callers that only ask "is this known?".
  [[nodiscard]] const ModelEntry* model_entry(std::string_view ref) const;
  [[nodiscard]] const HardwareEntry* hardware_entry(std::string_view ref) const;

  // The compiled schema of a kind (nullptr if the built-in schema failed to compile, which is then
  // in problems()).
  [[nodiscard]] const Schema* schema(EntryKind kind) const;
  // Checks one file against this catalog's schemas: parse, schema, conversion. `kind` defaults to
  // kind_of(path, the parsed tree).
  [[nodiscard]] FileCheck check_file(const std::string& path, std::optional<EntryKind> kind = {}) const;
  // Same for text already in memory (`file` names it in positions).
  [[nodiscard]] FileCheck check_text(std::string_view text, const std::string& file, EntryKind kind) const;
  // models/ -> kModel, hardware/ -> kHardware, anything else -> kRecipe (by the path's folders).
  static EntryKind kind_of_path(std::string_view path);
  // The path's catalog folder when it has one; else the keys only a model (`architecture`) or a
  // hardware entry (`peak`, `hbm_bandwidth`) has; else kRecipe.
  static EntryKind kind_of(std::string_view path, const YNode& tree);

 private:
  friend struct CatalogLoader;
  struct PendingRecipes;  // catalog.cpp: the built-in recipe files not yet made ready

  // Makes the built-in recipes ready if they are pending (once; then a no-op).
  void make_recipes_ready() const;
  // Checks the built-in records against their schemas if that was left for later (once).
  void check_builtin_records() const;
  // While pending: whether a built-in recipe has this name, and all their names in catalog order.
  [[nodiscard]] bool builtin_recipe_named(std::string_view name) const;
  [[nodiscard]] std::vector<std::string> builtin_recipe_names() const;
  // The lookups themselves, on the recipes as they stand (the loader resolves `extends` with them
  // while it makes the recipes ready).
  [[nodiscard]] Result<const RecipeEntry*> find_recipe_now(const std::string& name) const;
  [[nodiscard]] Result<YNode> resolved_tree_now(const std::string& name) const;
  [[nodiscard]] Result<Recipe> resolved_now(const std::string& name) const;

  std::vector<ModelEntry> models_;
  std::vector<HardwareEntry> hardware_;
  // Filled by make_recipes_ready() when pending_ is set (hence mutable; nothing else changes them
  // after load): the recipes, their index and the recipe files' findings in problems_.
  mutable std::vector<RecipeEntry> recipes_;
  mutable std::map<std::string, size_t> recipe_index_;  // name -> index in recipes_
  mutable Diagnostics problems_;
  std::unique_ptr<PendingRecipes> pending_;  // null when everything was loaded at once
  std::unordered_map<std::string, size_t> model_index_;     // folded name/alias/HF id -> models_
  std::unordered_map<std::string, size_t> hardware_index_;  // folded name/alias/display -> hardware_
  std::vector<std::optional<Schema>> schemas_;              // by EntryKind
};

}  // namespace rb
