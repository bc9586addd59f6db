// `recipebook recommend`: the closest catalog recipe for a model, GPU type, GPU count and goal,
// resized to the user's cluster with seed 004's rules (search/resize.hpp), compared with the
// planner's best layout, with its pitfalls, predicted throughput and cost, and the command that
// runs it. Sections: Recipe, Changes, Layout, Prediction, Pitfalls, Command (`--json`: the same
// facts under stable names, see recommendation_json in cmd_recommend_output.cpp).
// Exit codes: 0 a recommendation that fits (or one that cannot be sized, said so), 1 the resized
// layout does not fit or the rules reject it, 2 usage or input errors.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/context.hpp"
#include "recipebook/core/hardware.hpp"
#include "recipebook/core/model.hpp"
#include "recipebook/core/recipe.hpp"
#include "recipebook/catalog/recipe_match.hpp"
#include "recipebook/estimate/memory.hpp"
#include "recipebook/search/recommend.hpp"

namespace rb::cli {

struct RecommendOptions {
  std::string model;       // --model: catalog name, alias, HF id, or a config.json path
  std::string gpu;         // --gpu
  int gpus = 0;            // --gpus
  int gpus_per_node = 0;   // --gpus-per-node (0 = the GPU's node)
  std::string mode;        // --mode pretrain | sft | peft
  int64_t seq = 0;         // --seq (0 = the recipe's)
  int64_t gbs = 0;         // --gbs (0 = the recipe's)
  std::string precision;   // --precision (empty = the recipe's)
  std::string dataset;     // --dataset (empty = mock for pretrain, squad / cord-v2 for fine-tuning)
  int alternatives = 3;    // --alternatives N: also name the next N matches
  bool compare = true;     // --no-compare turns off the planner comparison
  int threads = 0;         // --threads for the planner (0 = the machine's cores)
  std::string headroom{kDefaultHeadroom};  // --headroom: memory a layout must leave free (fits check)
  std::string tokens;  // --tokens: with several --gpu types, the budget the type and count are chosen for
};

int run_recommend(const RecommendOptions& opts, const Context& ctx);
// The same with a catalog already loaded (tests, benchmarks).
int run_recommend(const RecommendOptions& opts, const Context& ctx, const Catalog& catalog);

}  // namespace rb::cli
