// "Which GPUs, how many, and what it costs": one plan across GPU types and counts (issue 15).
// For each GPU type and each count the best layout (search/planner.hpp, all types searched as one
// pool of tasks over one PreparedModel), its tokens/s per GPU, days, GPU-hours and USD for the token
// budget; which combinations a deadline, a budget or the GPUs on hand exclude; the answer for the
// objective among the rest; and the Pareto front of days against USD. Pure: no I/O, no clock.
//
// At one type and count every objective picks the same layout: USD = GPU-hours x price and
// days = GPU-hours / (GPUs x 24) with GPU-hours = tokens / (tokens/s/GPU x 3600), so fewest days,
// fewest dollars and most tokens/s per GPU all mean the layout with the most tokens/s per GPU. The
// objective only decides between types and counts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "recipebook/core/hardware.hpp"
#include "recipebook/core/result.hpp"
#include "recipebook/estimate/prepared.hpp"
#include "recipebook/search/planner.hpp"

namespace rb {

// One GPU type of the fleet. `hardware` carries the price to use (the catalog's, or the user's
// override) and the headroom a layout must leave.
struct FleetGpu {
  Hardware hardware;
  int available = 0;  // GPUs of this type on hand; 0 = no limit
};

// The GPU counts: a list (the same for every type), or a range lo..hi that each type turns into its
// own counts with gpu_counts_in_range() and its node size.
struct FleetCounts {
  std::vector<int> list;
  int lo = 0, hi = 0;  // hi > 0: a range
  [[nodiscard]] std::vector<int> for_node(int gpus_per_node) const;
};

struct FleetRequest {
  FleetCounts counts;
  PlanRequest plan;  // workload (tokens_budget > 0 required), fixed degrees, threads; gpu_counts unused
  Objective objective = Objective::kCost;
  double deadline_days = 0;  // 0 = none
  double budget_usd = 0;     // 0 = none
};

// Why a type and count is not a candidate (a bit set; 0 = feasible).
enum FleetWhy : uint32_t {
  kFleetNoSpecs = 1u << 0,      // the catalog has no figures for the GPU
  kFleetUnavailable = 1u << 1,  // more GPUs than available (not searched)
  kFleetNoLayout = 1u << 2,     // no layout of the type's search passes the rules
  kFleetNoFit = 1u << 3,        // no layout at this count fits in memory (layouts of the type pass the rules)
  kFleetDeadline = 1u << 4,     // the best layout misses the deadline
  kFleetBudget = 1u << 5,       // the best layout costs more than the budget
  kFleetNoPrice = 1u << 6,      // the objective is cost or a budget is given, and the GPU has no price
};
inline constexpr uint32_t kFleetWhyCount = 7;

// "does not fit in memory", "misses the deadline", ... (one phrase per bit, in bit order).
std::vector<std::string> fleet_why_phrases(uint32_t why);
// The short key of each bit for JSON: "no_specs", "unavailable", "no_layout", "no_fit", "deadline",
// "budget", "no_price".
std::vector<std::string> fleet_why_keys(uint32_t why);

struct FleetEntry {
  size_t gpu = 0;  // index into the request's types
  int gpus = 0;
  bool searched = false;
  bool has_layout = false;  // `best` is set
  Candidate best;           // the layout with the most tokens/s per GPU at this type and count
  double tokens_per_s_per_gpu = 0;
  double days = 0;
  double gpu_hours = 0;
  double usd = 0;  // GPU-hours x price; 0 when the GPU has no price
  uint32_t why = 0;

  [[nodiscard]] bool feasible() const { return why == 0 && has_layout; }
};

struct FleetResult {
  std::vector<FleetEntry> entries;  // by type (request order), then GPU count ascending
  std::vector<PlanCounts> counts;   // per type: what its search saw
  std::vector<RecomputeOption> recompute_options;  // what Candidate::recompute_option indexes
  int best = -1;                    // index into entries: the answer for the objective, -1 = none
  std::vector<size_t> pareto;       // indices into entries: feasible, priced, non-dominated in
                                    // (days, USD); days ascending
};

// The order of the objective between two feasible entries (true: a is better). Ties go to fewer
// days, then fewer USD, then the type order, then fewer GPUs.
bool fleet_better(Objective o, const FleetEntry& a, const FleetEntry& b);

// The Pareto front of days against USD among feasible entries with a price (indices, days ascending;
// of equal points the first in entry order).
std::vector<size_t> fleet_pareto(const std::vector<FleetEntry>& entries);

// The model is prepared once by the caller for all types; the rules are prepared per type here.
Result<FleetResult> plan_fleet(const PreparedModel& model, const std::vector<FleetGpu>& gpus, const FleetRequest& req,
                               const ProgressFn& progress = {});

}  // namespace rb
