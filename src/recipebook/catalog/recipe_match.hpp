// Catalog recipes as `recommend`'s matching sees them (search/recommend.hpp ranks them): one
// recipe choice for recommend, and for launch when it needs a Megatron-Bridge recipe to start from,
// so both start from the same recipe for the same request.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/core/hardware.hpp"
#include "recipebook/core/model.hpp"
#include "recipebook/core/recipe.hpp"
#include "recipebook/search/recommend.hpp"

namespace rb {

struct RecipeSetup {
  Recipe recipe;  // `extends` applied
  const RecipeEntry* entry = nullptr;
  std::optional<Model> model;        // nullopt: the model is not in the catalog
  std::optional<Hardware> hardware;  // nullopt: the GPU is not in the catalog
  bool layout_known = false;  // TP, PP and CP recorded (recommend starts a missing EP at 1)
  bool ep_known = false;      // EP recorded, or the model is known to be dense
  // The whole layout is the record's to estimate (record_check.hpp record_layout_known, as `check`
  // decides whether to judge it): what `estimate --recipe` and the agreement bench require.
  bool layout_recorded = false;
  int64_t seq = 0;            // recorded, else from a sequence `variant` ("128k"), else 0
  std::string variant;        // the record's `variant`, "" when none
};

RecipeSetup recipe_setup(const Catalog& catalog, const RecipeEntry& entry);

// Matching facts of a catalog model (parameters from its architecture, else its published total,
// else the published shape it declares `architecture_like`).
ModelFacts model_facts(const Catalog& catalog, const Model& m);
GpuFacts gpu_facts(const Hardware& hw);
RecipeCandidate recipe_candidate(const Catalog& catalog, const RecipeSetup& s);
// A vision-language recipe by its name (Bridge's *_vl_* functions).
bool vl_recipe(const Recipe& r);

// Every catalog recipe as a candidate (`setups` and `cands` filled, one per recipe, in catalog
// order), ranked best first for `req`. A Megatron-Bridge recipe is runnable when its entry point is
// a current library or performance recipe; another framework's when it records its `run`.
std::vector<RankedRecipe> rank_catalog_recipes(const Catalog& catalog, const MatchRequest& req,
                                               std::vector<RecipeSetup>& setups, std::vector<RecipeCandidate>& cands);

}  // namespace rb
