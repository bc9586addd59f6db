// `plan --recipe NAME`: the catalog recipe as the plan's starting point. The record gives the
// model, GPU, GPU count, mode, sequence, global batch and precision each flag leaves unset, and its
// own layout (as `estimate --recipe` models it) is ranked among the planned layouts
// (search/layout_rank.hpp, as bench/agreement.cpp ranks every performance recipe).
#pragma once

#include <string>

#include "recipebook/cmd_plan.hpp"
#include "recipebook/emit/catalog_json.hpp"
#include "recipebook/layout_args.hpp"
#include "recipebook/search/layout_rank.hpp"

namespace rb::cli {

// Fills what `o` leaves unset from the recipe `o.recipe`; the recipe's setup (its layout on the
// plan's cluster and workload), or the error that names the recipe and why (exit 2).
Result<Setup> apply_plan_recipe(PlanOptions& o, const Catalog& catalog);

struct RecipeRank {
  const Setup& recipe;
  LayoutRank rank;
  bool in_search = false;  // the recipe's GPU count is one the plan searched
  uint64_t fit = 0;        // layouts that fit (the plan's count)
};

RecipeRank rank_recipe(const Setup& recipe, const PlanInputs& in, const PlanRequest& req, const PlanResult& result);
std::string recipe_rank_text(const RecipeRank& r);
Json recipe_rank_json(const RecipeRank& r);

}  // namespace rb::cli
