// The catalog: models, hardware and recipe records, from the built-in (embedded) files and any
// `--catalog DIR` the user adds (later folders override earlier entries of the same name).
// Lookups are exact first (name, alias, Hugging Face id, case- and separator-insensitive), and a
// miss returns an Error with "did you mean ..." — never a silently substituted entry.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

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

struct RecipeFilter {
  std::string model;  // catalog model name, alias or family substring (case-insensitive)
  std::optional<Mode> mode;
  std::string gpu;    // hardware name or alias
  int gpus = 0;       // exact GPU count; 0 = any
  std::optional<RecipeKind> kind;
  bool measured_only = false;  // has a result or at least one measurement
};

class Catalog {
 public:
  // The built-in catalog plus `extra_dirs` in order. Files that fail to load are reported in
  // `problems` (the catalog still loads everything else); a caller that needs a clean catalog
  // checks `problems().empty()`.
  static Result<Catalog> load(const std::vector<std::string>& extra_dirs = {});

  [[nodiscard]] const std::vector<ModelEntry>& models() const { return models_; }
  [[nodiscard]] const std::vector<HardwareEntry>& hardware() const { return hardware_; }
  [[nodiscard]] const std::vector<RecipeEntry>& recipes() const { return recipes_; }
  [[nodiscard]] const Diagnostics& problems() const { return problems_; }

  // A model by catalog name, alias, Hugging Face id, or path to a config.json / model YAML file.
  [[nodiscard]] Result<Model> find_model(const std::string& ref) const;
  [[nodiscard]] Result<Hardware> find_hardware(const std::string& ref) const;
  [[nodiscard]] Result<const RecipeEntry*> find_recipe(const std::string& name) const;
  [[nodiscard]] std::vector<const RecipeEntry*> list(const RecipeFilter& filter) const;

  // The recipe with its `extends` chain applied (base first, then each override), or an Error for
  // an unknown base or a cycle.
  [[nodiscard]] Result<Recipe> resolved(const std::string& name) const;

 private:
  std::vector<ModelEntry> models_;
  std::vector<HardwareEntry> hardware_;
  std::vector<RecipeEntry> recipes_;
  std::map<std::string, size_t> recipe_index_;  // name -> index in recipes_
  Diagnostics problems_;
};

}  // namespace rb
