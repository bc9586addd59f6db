// Routing imbalance: how far the busiest expert-parallel rank's share of the routed token copies
// sits above the mean, which sets the pace of the expert GEMMs and the all-to-all of an MoE layer
// (every rank waits for the slowest at the layer's combine). docs/model.md "Time".
#pragma once

namespace rb {

// Expected maximum over `ranks` EP ranks of the routed copies one rank receives in one MoE layer,
// over their mean, when each of `tokens` tokens (all the EP group's tokens of one micro-batch) picks
// `top_k` of `experts` experts uniformly at random, `experts / ranks` experts per rank. That is how
// the Megatron-Bridge performance recipes route (Megatron-Core `moe_router_force_load_balancing`:
// router.py replaces the logits with random ones, moe_utils.py apply_random_logits; the catalog's
// benchmark rows are "force-balanced routing, token-dropless"), and a lower bound for a trained
// router. A rank's count is a sum of `tokens` independent hypergeometric draws: mean
// tokens k / ranks, variance tokens k (1/ranks)(1 - 1/ranks)(E - k)/(E - 1); the expected maximum of
// `ranks` such (normal) counts is mean + z sigma with Blom's z = Phi^-1((n - 0.375) / (n + 0.25))
// (Blom 1958, the expected largest of n normal order statistics). 1 when there is nothing to balance.
double busiest_rank_load_factor(double tokens, int top_k, int experts, int ranks);
// The same with Blom's z for `ranks` given (busiest_rank_z): the planner takes it from the prepared
// model (PreparedModel::route_z), as the inverse normal it needs is 80 steps of bisection.
double busiest_rank_load_factor(double tokens, int top_k, int experts, int ranks, double z);
// Blom's z = Phi^-1((n - 0.375) / (n + 0.25)) for n = `ranks` (0 for ranks <= 1).
double busiest_rank_z(int ranks);

}  // namespace rb
