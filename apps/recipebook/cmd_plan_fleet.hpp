// `recipebook plan` across GPU types (issue 15: which GPUs, how many, and what it costs): several
// --gpu (or `all`), a count range or list, the token budget, and optionally a deadline, a budget,
// prices over the catalog's and the GPUs on hand. For each type and count the best layout with
// tokens/s per GPU, days, GPU-hours and USD; the answer for --objective within the limits; the
// Pareto front of days against USD (search/fleet.hpp). Exit 0 with an answer, 1 when no type and
// count meets the limits, 2 on usage errors.
#pragma once

#include <string>

#include "recipebook/cmd_plan.hpp"
#include "recipebook/cmd_recommend.hpp"
#include "recipebook/emit/catalog_json.hpp"
#include "recipebook/search/fleet.hpp"

namespace rb {
class Catalog;
}

namespace rb::cli {

// Whether plan's flags ask for the plan across GPU types: several --gpu or `all`, or one of
// --deadline, --budget, --price, --gpus-available. One --gpu without them is today's plan.
bool is_fleet_request(const PlanOptions& o);

int run_plan_fleet(const PlanOptions& o, const Context& ctx, const Catalog& catalog);

// Whether a --gpu value names several types ("h100,b200") or `all`.
bool is_fleet_gpu_list(const std::string& gpu);

// `recommend` with several --gpu types (cmd_recommend_fleet.cpp): the plan across them for the
// token budget (objective cost where a type has a price, else time), and the type and count it
// recommends with the reason. The sequence and global batch default to the catalog recipe that
// matches the model on the first type best.
int run_recommend_fleet(const RecommendOptions& o, const Context& ctx, const Catalog& catalog);

// What the flags resolve to, for the plan and for `recommend` across types.
struct FleetSetup {
  Model model;
  std::vector<FleetGpu> gpus;
  std::vector<bool> price_given;  // per type: --price set it
  FleetRequest request;
};
Result<FleetSetup> fleet_setup(const PlanOptions& o, const Catalog& catalog);
Result<FleetResult> run_fleet_search(const FleetSetup& s, const Context& ctx, bool progress);

// Rendering (cmd_plan_fleet_output.cpp).
std::string fleet_text(const FleetSetup& s, const FleetResult& r);
Json fleet_json(const FleetSetup& s, const FleetResult& r);
// Why the answer is the answer: "the lowest USD of 12 feasible combinations; excluded: ...".
std::string fleet_reason(const FleetSetup& s, const FleetResult& r);
// One entry as JSON (type, count, layout, figures, why).
Json fleet_entry_json(const FleetSetup& s, const FleetResult& r, const FleetEntry& e);

}  // namespace rb::cli
