// The searches of several GPU types walked together (internal to search/, used by fleet.cpp): each
// type's outer walk (walk.hpp Walker::walk_outer) gives its tasks; the tasks of equal (GPUs,
// precision, TP, CP, PP, VP) are joined, and one FleetWalker enumerates the rest of such a node
// once for all its types. The rules are checked per type (a type leaves the subtree where one
// fails), the memory of a layout is computed once (it depends on the GPU only through capacity,
// headroom and host memory: estimate.hpp layout_memory) and the time per type. Each type keeps its own counts
// and Collector, so the result of each type is what plan() gives for it.
#pragma once

#include <vector>

#include "recipebook/search/planner.hpp"
#include "recipebook/search/walk.hpp"

namespace rb {

// What the joined walk did not have to do (for tests and the bench).
struct JoinedWork {
  uint64_t estimates_skipped = 0;  // fitting layouts whose time was not computed: slower than a layout found
};

// One plan() per request computed with the joined walk, the offload retry included (a type on which
// nothing fits is searched again with host offload). Every request must keep only the best per
// count (PlanRequest::best_only) and never stop early; the types' Spaces must be equal (the same
// model and fixed degrees: only the GPU counts and node sizes differ). With the throughput objective
// a fitting layout whose tokens/s per GPU cannot reach the best found at its count is counted but
// not timed (estimate.hpp tokens_per_s_per_gpu_ceiling); the result is the same.
Result<std::vector<PlanResult>> plan_joined(const std::vector<PlanInputs>& in, const std::vector<PlanRequest>& req,
                                            int threads, const ProgressFn& progress = {},
                                            JoinedWork* work_done = nullptr);

}  // namespace rb
