// The reference the pruned search is checked against (ggml's test-backend-ops idea): the same
// space, every layout visited, every rule evaluated on the full layout, every layout that passes
// them estimated. Slow by design; search/brute_force_test.cpp compares it with plan() on random
// small spaces.
#pragma once

#include "recipebook/search/planner.hpp"

namespace rb {

Result<PlanResult> plan_brute_force(const PlanInputs& in, const PlanRequest& req);

}  // namespace rb
