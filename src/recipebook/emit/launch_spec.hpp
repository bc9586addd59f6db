// Building a LaunchSpec from what the user names: a catalog recipe (by name, or a recipe YAML file),
// an entry of `recipebook plan --json` output (read into a SpecRequest by the CLI's
// launch_request.hpp), or layout flags; and checking it against the rules before anything is
// rendered.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/core/diagnostic.hpp"
#include "recipebook/emit/launch.hpp"
#include "recipebook/emit/layout_flags.hpp"
#include "recipebook/rules/rule.hpp"

namespace rb {

struct SpecRequest {
  std::string source;  // recipe name; empty = layout flags only (a plan file is read first: launch_request.hpp)
  const RecipeEntry* recipe_file = nullptr;  // a recipe read from a file (Catalog::check_file), instead of `source`
  std::string model, gpu, mode;
  int gpus = 0, gpus_per_node = 0;
  int64_t seq = 0, gbs = 0;
  LayoutFlags layout;
  std::string dataset;        // run_recipe.py --dataset (Megatron-LM --data-path); empty = the default
  std::string framework;      // bridge | megatron-lm; empty = the recipe's, else bridge when a base exists
  std::string bridge_recipe;  // run_recipe.py --recipe for a plan entry or layout flags
  std::string name;
  // Some output runs Megatron-Bridge (false when every --target is megatron-lm, which writes
  // pretrain_gpt.py): only then does a note name the Bridge recipe the run starts from.
  bool renders_bridge = true;
};

// The spec, with everything but the run options (targets, slurm, k8s, probe) filled. `notes` gets
// one line per assumption made (a default layout degree, a chosen base recipe).
Result<LaunchSpec> build_launch_spec(const SpecRequest& req, const Catalog& catalog, std::vector<std::string>& notes);

// The rules (rules/check_layout) on the spec's model, GPU, workload and layout, with the record
// facts of the recipe the training starts from (`recipe_file`, else spec.base_recipe) and the
// launch's env. Empty when the layout or the model is not
// known; `skipped` then says why.
std::vector<Finding> check_launch_rules(const LaunchSpec& spec, const Catalog& catalog, std::string& skipped,
                                        const RecipeEntry* recipe_file = nullptr);

}  // namespace rb
