// Collective communication times, alpha-beta models per tier (Calculon, SC'23: t = latency +
// size x scalar x (1 + offset / n) / (bw x eff); REFERENCES.md F), two tiers: the NVLink domain and
// scale-out. A group whose span fits in one NVLink domain runs at NVLink bandwidth; a larger one
// uses both: the NVLink hops and the NIC hops at once (docs/model.md "Time"). Each term is checked
// against published nccl-tests and DeepEP figures (catalog/microbench_check_test.cpp).
#pragma once

#include "recipebook/core/hardware.hpp"
#include "recipebook/estimate/stages.hpp"

namespace rb {

// The links one GPU sees, with efficiencies applied (bytes/s per direction) and per-call latency.
struct Links {
  double nvlink_bytes_per_s = 0;
  double scaleout_bytes_per_s = 0;
  int domain = 8;  // GPUs per NVLink domain (72 on NVL72; the node otherwise)
  double nvlink_latency_s = 0;
  double scaleout_latency_s = 0;
  // What DeepEP / HybridEP kernels reach (ep_dedup_s): the links above, capped by the best dispatch /
  // combine rate the GPU's published EP figures show (estimate/microbench.hpp: ep_fractions).
  double ep_nvlink_bytes_per_s = 0;
  double ep_scaleout_bytes_per_s = 0;
};

Links make_links(const Hardware& hw, const Efficiency& eff, int cluster_gpus_per_node, int world);

// Members of a group that share one NVLink domain (k) and the number of domains it spans (g).
struct Span {
  double k = 1;
  double g = 1;
};
Span group_span(const Group& grp, int domain);

// Reduce-scatter or all-gather of `bytes` (the full, unsharded buffer) over the group, as NCCL's
// rings run it: (n-1)/n x bytes per rank, within one domain all over NVLink; over g > 1 domains 1/k
// of it over the rank's NIC and (k-1)/k over NVLink at the same time, the slower link setting the
// time. (It summed a (k-1)/k NVLink phase and a (g-1)/g scale-out phase; nccl-tests on 4 x 8 H100
// show a 320 GB/s busBw where that gave 241: microbench_check_test.cpp.)
double reduce_scatter_s(double bytes, const Group& grp, const Links& links);
inline double all_gather_s(double bytes, const Group& grp, const Links& links) {
  return reduce_scatter_s(bytes, grp, links);
}
inline double all_reduce_s(double bytes, const Group& grp, const Links& links) {
  return 2.0 * reduce_scatter_s(bytes, grp, links);
}

// All-to-all where each rank sends `bytes` in total, spread evenly over the group (itself included):
// the NVLink and scale-out parts run at the same time, the slower one sets the time.
double all_to_all_s(double bytes, const Group& grp, const Links& links);

// DeepEP / HybridEP dispatch or combine (Megatron's flex dispatcher) of `token_bytes` (one copy of
// the rank's tokens) routed to `top_k` experts spread evenly over the group: node-level
// deduplication sends each token once to every other NVLink domain holding one of its experts,
// (g-1)(1 - (1 - 1/g)^top_k) domains on average under uniform routing over g domains, and that
// domain's receiving GPU forwards it over NVLink, so each copy for another GPU crosses NVLink once:
// top_k (k-1)/k copies per token. Both run at once (DeepEP's normal kernels; README "NVLink and RDMA
// forwarding"); the slower sets the time.
//
// Group-limited routing (Megatron-Core moe_router_num_groups / moe_router_group_topk, from a
// config.json's n_group / topk_group; moe_utils.py group_limited_topk): the experts form `groups`
// contiguous groups, a token picks `group_topk` of them and its top_k experts among theirs.
// Megatron keeps it under moe_router_force_load_balancing (router.py: the random logits go through
// the same routing). With local experts contiguous per EP rank and consecutive EP ranks sharing a
// domain, a domain holding h whole groups is reached when c >= 1 of them are picked (c
// hypergeometric) and then with 1 - (1 - c / group_topk)^top_k; a domain inside one group when its
// group is picked (group_topk / groups) and then with 1 - (1 - d)^top_k, d the domain's share of the
// picked experts. DeepSeek-V3 (8 groups, top-4) on EP 64 over 8-GPU nodes: 3.15 remote domains a
// token instead of the 4.59 of uniform routing. Groups that do not align with domains: uniform.
struct RouteGroups {
  int experts = 0;
  int groups = 0;      // 0 or 1: no group-limited routing
  int group_topk = 0;
};
double ep_remote_domains(int top_k, const Group& grp, int domain, const RouteGroups& rg = {});
double ep_dedup_s(double token_bytes, int top_k, const Group& grp, const Links& links, const RouteGroups& rg = {});

// Point-to-point send of `bytes` to a rank `distance` ranks away.
double p2p_s(double bytes, int distance, const Links& links);

}  // namespace rb
