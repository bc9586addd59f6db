// A GPU's published microbenchmarks (Hardware::microbenchmarks, catalog `microbenchmarks:`) as
// priors and bounds of the efficiencies `calibrate` fits (docs/model.md "Hardware").
//
// - GEMM: the figures of one precision (never another's: MXFP8 and tensor-scaled FP8 run other
//   kernels) are fitted by the time model's own size curve, fraction = g x n / (n + half), n = the
//   GEMM's smallest dimension, least squares on log fraction; g (the asymptote) is the prior and the
//   upper bound of Efficiency::gemm, `half` the curve's half-point. Nothing is derived from one shape
//   alone, nor when the figures stop below twice the half-point (the asymptote would be extrapolated).
// - NVLink: nccl-tests busBw / the NVLink bandwidth. The prior is the ring figure (no NVLS) at the
//   largest message, which is what the model's reduce-scatter / all-gather price; the bound is the
//   largest figure of any algorithm, at most 1.
// - Scale-out: a ring across nodes is bounded by the node's NICs, so its busBw / (GPUs per node x
//   the per-GPU NIC bandwidth); prior and bound as for NVLink.
// - Without a ring figure on a link, the prior is the best DeepEP / HybridEP rate on it (ep_fractions).
// DeepEP / HybridEP figures cap the rates of the flex dispatcher's terms (ep_fractions, collectives.hpp
// ep_dedup_s); microbench_check_test.cpp checks every term against the figures.
#pragma once

#include <optional>

#include "recipebook/core/hardware.hpp"

namespace rb {

struct EfficiencyPrior {
  std::optional<double> gemm, gemm_half_dim;
  std::optional<double> nvlink, nvlink_max;
  std::optional<double> scaleout, scaleout_max;
};

EfficiencyPrior efficiency_prior(const Hardware& hw, Precision p);

// Efficiency{} with the prior's gemm / nvlink / scaleout where the GPU has figures: the starting
// point of a fit, and the efficiencies of a GPU without end-to-end measurements.
Efficiency prior_efficiency(const Hardware& hw, Precision p);

// The fit of the GEMM curve alone (exposed for tests): nullopt with fewer than two distinct shapes.
struct GemmCurve {
  double asymptote = 0, half_dim = 0;
};
std::optional<GemmCurve> fit_gemm_curve(const Hardware& hw, Precision p);
// The same curve over the grouped (MoE) figures alone, n = the smallest of one group's m, n, k (m the
// tokens per group): evidence for the routed-expert GEMMs' curve (docs/model.md "Hardware"). Not used
// by the time model: adopting it made the held-out error worse (BENCHMARKS.md, session 9 expertgemm).
std::optional<GemmCurve> fit_grouped_gemm_curve(const Hardware& hw, Precision p);

// The best DeepEP / HybridEP rate per link as a fraction of its line rate, at most 1 (nullopt: no
// figure on that fabric). NVLink: the reported figure counts every received byte, the rank's own
// included, so the link carries (k-1)/k of it (k ranks per NVLink domain). RDMA: the reported
// figure counts one copy per (token, node) pair the token reaches, its own node included (DeepEP
// tests/legacy/test_internode.py: num_rdma_token_sent = rdma_idx.ne(-1).sum() over the target nodes;
// HybridEP tests/utils.py count_rdma_send_from_routing_map keeps the local node "to align with
// DeepEP"), while the own node's copy never crosses the NIC: with routing symmetric over the n nodes
// the NIC carries (n-1)/n of it (half on a two-node EP 16).
struct EpFractions {
  std::optional<double> nvlink, scaleout;
};
EpFractions ep_fractions(const Hardware& hw);

// nccl-tests' bus-bandwidth factor of `op` over n ranks: 2(n-1)/n for all-reduce, (n-1)/n otherwise.
double bus_factor(CollectiveOp op, int n);

}  // namespace rb
