// GDN's chunked gated delta rule (flash-linear-attention's chunk_gated_delta_rule, the kernel
// Megatron-Core's GatedDeltaNet runs) timed from the GPU's published kernel figures
// (Hardware::microbenchmarks.delta_rule, docs/model.md "Time"). Pure: figures and shape in, rates out.
#pragma once

#include "recipebook/core/hardware.hpp"

namespace rb {

// The delta rule's forward and backward rates in forward FLOPs as Megatron counts them per token and
// layer (flops.cpp: 2 x 4 v_heads v_dim^2), so that a pass takes `tokens x counted FLOPs / rate`:
// forward FLOPs / forward time and forward FLOPs / backward time of the chosen figures. 0 where the
// GPU has no figure for that pass (the time model then keeps its scan law).
struct DeltaRuleRate {
  double fwd_flops_per_s = 0;
  double bwd_flops_per_s = 0;
  [[nodiscard]] bool known() const { return fwd_flops_per_s > 0 && bwd_flops_per_s > 0; }
};

// Megatron's forward FLOPs of one figure's call: 8 v_heads head_dim^2 per token, over its tokens.
[[nodiscard]] double delta_rule_counted_flops(const DeltaRuleFigure& f);

// The rates at the figures nearest the rank's shape, each pass on its own: the value heads on one rank
// first (|log| of the ratio), then the tokens per sequence, then the query/key heads on one rank.
[[nodiscard]] DeltaRuleRate delta_rule_rate(const Microbenchmarks& mb, double v_heads_per_rank, double seq,
                                            double qk_heads_per_rank);

}  // namespace rb
