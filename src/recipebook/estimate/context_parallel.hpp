// Context parallelism's part of one micro-batch (docs/model.md "Time"): the ring's K/V exchange
// that its attention steps do not hide, the merge kernels CP adds, the steps' shorter attention
// blocks, and the all-to-alls of the linear-attention (GDN/Mamba) layers.
#pragma once

#include "recipebook/estimate/prepared.hpp"
#include "recipebook/estimate/step_terms.hpp"

namespace rb {

// Adds CP's terms of a rank whose layers sum to `s` to `t` (nothing at CP 1); `recompute_fraction`:
// under full recompute, the share of its layers recomputed. Linear in `s` (step_time_floor_s).
void add_context_parallel(RankTime& t, const StepTerms& x, const LayerSums& s, double recompute_fraction);

}  // namespace rb
