// `plan`: enumerate every layout of the search space (space.hpp), prune by the layout rules and by
// memory, estimate the rest, and rank them. Pure: no I/O, no clock; progress goes to a callback.
//
// How it prunes (docs/plan.md):
//   1. Rules by prefix. The dimensions are enumerated outermost first (precision, TP, CP, PP/VP,
//      EP, ETP, dispatcher, recompute, FSDP, MBS); each rule is evaluated at the depth where all it
//      reads is chosen (rule_levels.hpp), and a failing prefix rejects all its completions at once:
//      they are counted, not visited.
//   2. Memory by micro batch. Activation memory never shrinks as MBS grows (tokens per micro batch
//      grow, in-flight micro batches times MBS never shrink), so the first MBS that does not fit
//      ends the chain; the larger ones are counted as removed by memory without estimating them.
//   3. Only layouts that pass both are estimated in full (estimate.hpp) and ranked.
// The outer part (down to PP/VP) is walked once; the PP/VP nodes that survive are the tasks that
// `threads` workers share. Each worker keeps its own Collector and counts; they are merged at the
// end, and since every order is total the result is the same for any thread count.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "recipebook/core/hardware.hpp"
#include "recipebook/core/result.hpp"
#include "recipebook/estimate/prepared.hpp"
#include "recipebook/rules/prepared.hpp"
#include "recipebook/search/collect.hpp"
#include "recipebook/search/space.hpp"

namespace rb {

// What a search runs on, prepared once by the caller (who keeps all three alive).
struct PlanInputs {
  const PreparedModel* model = nullptr;
  const PreparedRuleModel* rules = nullptr;  // prepared with the same model and `hardware`
  const Hardware* hardware = nullptr;
};

struct PlanProgress {
  uint64_t tasks_done = 0;
  uint64_t tasks_total = 0;
  uint64_t seen = 0;  // candidates counted so far
  uint64_t fit = 0;
};

// Called after each task (from whichever worker finished it, one call at a time).
using ProgressFn = std::function<void(const PlanProgress&)>;

struct PlanResult {
  PlanCounts counts;
  std::vector<Candidate> top;                      // best first, at most top_k
  std::vector<Candidate> pareto;                   // the non-dominated layouts (collect.hpp ParetoAxis)
  std::vector<Candidate> best_per_count;           // the best layout of each GPU count that has one
  std::vector<Candidate> closest;                  // rule-valid layouts nearest to fitting (top_k of them)
  std::vector<RecomputeOption> recompute_options;  // what Candidate::recompute_option indexes
  ParetoAxis pareto_axis = ParetoAxis::kHeadroom;
  uint64_t tasks = 0;          // PP/VP nodes that reached the workers
  bool stopped_early = false;  // request.stop_at was met
  bool found = false;          // stop_at kFirstValid / kFirstFit: what it looked for exists
};

// Checks what a search needs before it starts: a model with an architecture, a GPU with figures,
// GPU counts, sequence, global batch, top_k >= 1.
Result<bool> validate_request(const PlanInputs& in, const PlanRequest& req);

Result<PlanResult> plan(const PlanInputs& in, const PlanRequest& req, const ProgressFn& progress = {});

// Several searches of one model (one per GPU type, search/fleet.hpp) as one pool: the tasks of all
// of them are shared by `threads` workers, so no core idles while another search still has work.
// result[i] is what plan(in[i], req[i]) gives (each is deterministic, so for any thread count);
// the progress counts all searches together.
Result<std::vector<PlanResult>> plan_many(const std::vector<PlanInputs>& in, const std::vector<PlanRequest>& req,
                                          int threads, const ProgressFn& progress = {});

}  // namespace rb
