// Host offload in the planner (docs/plan.md "Offload"): a layout that does not fit the GPU is tried
// again with optimizer CPU offload and fine-grained activation offloading, and the fastest variant
// that fits (GPU and host memory, every rule) is kept. Layouts that fit without offload are never
// changed, so plans that fit are the same with and without this step.
#pragma once

#include <optional>

#include "recipebook/estimate/estimate.hpp"
#include "recipebook/search/walk.hpp"

namespace rb {

struct OffloadFit {
  Layout layout;
  Estimate estimate;
};

// OffloadSearch::kWhenNothingFits: the request for the second search when the first found no layout
// that fits (`first_fit` 0) and the GPU has host figures; nullopt otherwise (the first result stands).
std::optional<PlanRequest> offload_retry(const PlanRequest& req, uint64_t first_fit, const Hardware& hw);

// The fastest offloaded variant of `l` (which did not fit) that fits, or nullopt (none fits, the
// GPU has no host figures, or the mode has nothing worth offloading). `base`, when given, is `l`'s
// own estimate: if its worst stage is over by more than every part the variants can move to the host
// (the optimizer state, the activations and the fragmentation margin on them), none can fit and
// none is estimated.
std::optional<OffloadFit> fit_with_offload(const SearchSetup& s, const Cluster& c, const Layout& l,
                                           const Estimate* base = nullptr);

// The variants fit_with_offload tries, in order (for tests and docs): the optimizer share on the host
// (half, all), the activations of every offloadable module on the host, and both.
std::vector<Layout> offload_variants(const Layout& l, Mode mode, bool moe);

}  // namespace rb
