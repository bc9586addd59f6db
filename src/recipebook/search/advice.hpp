// Before and after a search: what the user fixed that no layout can satisfy (a usage error), and,
// when nothing fits or nothing passes the rules, what would (more GPUs, recompute, a smaller micro
// batch, FSDP, freeing the fixed degrees), each answer found by searching the relaxed space.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "recipebook/rules/rule.hpp"
#include "recipebook/search/planner.hpp"

namespace rb {

// The search dimensions `space` takes one value of (whatever the GPU count): those whose every
// field plan has a flag for (core/layout_fields.hpp plan_searches) is fixed (Space::single).
uint32_t fixed_search_dims(const Space& space);

// Findings of the rules whose dimensions are all fixed (with the GPU count: those failing for every
// count of the request), plus "the fixed degrees do not divide the GPU count". Empty = consistent.
std::vector<Finding> fixed_conflicts(const PlanInputs& in, const PlanRequest& req);

struct Relaxation {
  std::string change;             // "allow full recompute", "64 GPUs", ...
  uint64_t fit = 0;               // layouts that fit in the relaxed space
  std::optional<Candidate> best;  // the best of them by the request's objective
};

struct PlanAdvice {
  bool rules_block_all = false;  // no layout of the space passed the rules
  // rules_block_all: the nearest GPU counts (below, above; 0 = none within 64) where a layout
  // passes the rules with the same fixed degrees.
  int usable_below = 0;
  int usable_above = 0;
  // Relaxations that make a layout fit, in the order tried: fixed recompute -> every option; a fixed
  // micro batch -> smaller ones; FSDP off -> allowed; fixed degrees -> free; more GPUs (doubling,
  // up to 64x the largest count).
  std::vector<Relaxation> relaxations;
  int most_gpus_tried = 0;  // the largest GPU count the "more GPUs" step searched
  // Every layout of the result that fits needs host offload (search/offload.hpp): the relaxations
  // are searched without offload, so they say what would fit on the GPU alone.
  bool without_offload = false;
};

// Whether advise() has something to say about `result`: no layout fits, or every one that fits
// does only with host offload.
bool wants_advice(const PlanResult& result);

// For a result wants_advice() holds for. Runs further searches (each a full plan() of a relaxed
// space), so it costs about as much as the searches it runs.
PlanAdvice advise(const PlanInputs& in, const PlanRequest& req, const PlanResult& result);

}  // namespace rb
