// `recipebook plan`: every layout the rules allow for a model on N GPUs (or a range of counts),
// estimated, pruned by memory and ranked (search/planner.hpp). Prints the top-k with memory and
// time breakdowns, the Pareto front, the best layout per GPU count (for a range) and how many
// candidates each rule and the memory check removed; with nothing feasible, the closest layouts and
// what would fit. Exit 0 with a result, 1 when nothing fits or no layout passes the rules, 2 on
// usage errors (unknown model or GPU, bad values, fixed degrees that contradict each other).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "recipebook/context.hpp"
#include "recipebook/core/layout_fields.hpp"
#include "recipebook/estimate/memory.hpp"
#include "recipebook/search/planner.hpp"

namespace rb {
class Catalog;
}

namespace rb::cli {

struct PlanOptions {
  std::string recipe;              // --recipe: catalog recipe giving what the flags below leave unset
  std::string model;               // --model: catalog name, alias, Hugging Face id or config.json path
  std::string gpu;                 // --gpu: catalog GPU name or alias
  std::string gpus;                // --gpus: "64", "8..512" (powers of two and whole nodes), "64,96,128"
  int gpus_per_node = 0;           // --gpus-per-node: 0 = the GPU's node size
  std::string mode;                // --mode: pretrain | sft | peft ("" = the recipe's, else pretrain)
  int64_t seq = 0;                 // --seq (0 = the recipe's, else 4096)
  int64_t gbs = 0;                 // --gbs (required without a recipe)
  int lora_rank = 16;              // --lora-rank (peft)
  // The searched layout fields' flags, by the field's key (core/layout_fields.hpp rows plan has a
  // flag for: --tp 2, --tp 2,4, --fsdp off, --recompute selective, --precision bf16,fp8_cs, ...):
  // the text as given; absent or "" = the field's plan_default ("" = any; precision: the recipe's,
  // else bf16). read_plan_values() reads each into the request's Constraints.
  std::map<std::string, std::string, std::less<>> search;
  int dp = 0;                            // --dp: a fixed data-parallel degree (0 = free)
  int max_mbs = 16;                      // --max-mbs
  std::string objective = "throughput";  // --objective: throughput | cost | time
  std::string offload = "auto";          // --offload: auto (host offload when nothing fits) | never
  std::string tokens;                    // --tokens: training budget, "15T", "1.2e12", "500B"
  int top = 5;                           // --top
  int threads = 1;                       // --threads: 0 = one per core
  bool progress = false;                 // --progress: draw the progress line even when stderr is not a TTY
  std::string headroom{kDefaultHeadroom};  // --headroom: GiB or % of the GPU's memory a layout leaves free
  // The layout flags of the fields the search does not enumerate (PlanRole::kFixed: --cuda-graph,
  // --ep-a2a-overlap, ...): every layout searched has the value given. The searched ones are
  // `search`.
  LayoutFlags layout;
  bool threads_given = false;            // --threads was given (the plan across GPU types defaults to one per core)
  // Across GPU types (cmd_plan_fleet.hpp: several --gpu, or `all`):
  std::string deadline;        // --deadline: 30d, 12h, 2w (days without a unit)
  std::string budget;          // --budget: USD, 2e6, 2M, 500k
  std::string price;           // --price: gb200=6.5,h100=7 (USD per GPU-hour, over the catalog's)
  std::string gpus_available;  // --gpus-available: h100=512,b200=256

  // The text of searched field `key`'s flag ("" = not given).
  [[nodiscard]] const std::string& searched(std::string_view key) const {
    static const std::string kNone;
    const auto it = search.find(key);
    return it == search.end() ? kNone : it->second;
  }
};

int run_plan(const PlanOptions& opts, const Context& ctx);

// The search request the flags give (everything but the catalog), for the plan across GPU types.
Result<PlanRequest> make_plan_request(const PlanOptions& opts, const Hardware& hw);
// Runs `search` with plan's progress line on stderr (only on a TTY or with --progress).
void with_progress_line(const Context& ctx, bool forced, const std::function<void(const ProgressFn&)>& search);
// The same on a catalog already loaded (tests, and callers that plan more than once).
int run_plan(const PlanOptions& opts, const Context& ctx, const Catalog& catalog);

}  // namespace rb::cli
