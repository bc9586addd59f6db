// The searches of several GPU types walked together (internal to search/, used by fleet.cpp): each
// type's outer walk (walk.hpp Walker::walk_outer) gives its tasks; the tasks of equal (GPUs,
// precision, TP, CP, PP, VP) are joined, and one FleetWalker enumerates the rest of such a node
// once for all its types. The rules are checked per type (a type leaves the subtree where one
// fails), the memory of a layout is computed once (it depends on the GPU only through capacity
// and headroom: estimate.hpp layout_memory) and the time per type. Each type keeps its own counts
// and Collector, so the result of each type is what plan() gives for it.
#pragma once

#include <vector>

#include "recipebook/search/planner.hpp"
#include "recipebook/search/walk.hpp"

namespace rb {

// plan_many() computed with the joined walk. Every request must keep only the best per count
// (PlanRequest::best_only) and never stop early; the types' Spaces must be equal (the same model
// and fixed degrees: only the GPU counts and node sizes differ).
Result<std::vector<PlanResult>> plan_joined(const std::vector<PlanInputs>& in, const std::vector<PlanRequest>& req,
                                            int threads, const ProgressFn& progress = {});

}  // namespace rb
