#include "recipebook/estimate/collectives.hpp"

#include <algorithm>
#include <cmath>

#include "recipebook/estimate/microbench.hpp"

namespace rb {
namespace {

// Per-call latencies (NCCL launch + protocol), Calculon's `latency` term; not fitted.
constexpr double kNvlinkLatencyS = 10e-6;
constexpr double kScaleoutLatencyS = 25e-6;

// n choose r as a double (the group counts of a router: at most a few hundred).
double binomial(int n, int r) {
  if (r < 0 || r > n) return 0.0;
  double out = 1.0;
  for (int i = 1; i <= r; ++i) out = out * (n - r + i) / i;
  return out;
}

}  // namespace

Links make_links(const Hardware& hw, const Efficiency& eff, int cluster_gpus_per_node, int world) {
  Links l;
  l.nvlink_bytes_per_s = std::max(1.0, hw.nvlink_bytes_per_s * eff.nvlink);
  l.scaleout_bytes_per_s = std::max(1.0, hw.scaleout_bytes_per_s * eff.scaleout);
  int domain = std::max(1, hw.nvlink_domain);
  // A cluster of nodes smaller than the hardware's NVLink domain (HGX nodes) is bounded by the node.
  if (cluster_gpus_per_node > 0 && hw.nvlink_domain <= hw.gpus_per_node) domain = std::min(domain, cluster_gpus_per_node);
  l.domain = std::max(1, std::min(domain, std::max(1, world)));
  l.nvlink_latency_s = kNvlinkLatencyS;
  l.scaleout_latency_s = kScaleoutLatencyS;
  const EpFractions ep = ep_fractions(hw);
  l.ep_nvlink_bytes_per_s =
      ep.nvlink ? std::min(l.nvlink_bytes_per_s, std::max(1.0, hw.nvlink_bytes_per_s * *ep.nvlink)) : l.nvlink_bytes_per_s;
  l.ep_scaleout_bytes_per_s = ep.scaleout ? std::min(l.scaleout_bytes_per_s, std::max(1.0, hw.scaleout_bytes_per_s * *ep.scaleout))
                                          : l.scaleout_bytes_per_s;
  return l;
}

Span group_span(const Group& grp, int domain) {
  Span s;
  const int n = std::max(1, grp.size);
  const int stride = std::max(1, grp.stride);
  const int k = stride >= domain ? 1 : std::min(n, std::max(1, domain / stride));
  s.k = k;
  s.g = std::ceil(static_cast<double>(n) / k);
  return s;
}

double reduce_scatter_s(double bytes, const Group& grp, const Links& links) {
  if (grp.size <= 1 || bytes <= 0) return 0.0;
  const Span s = group_span(grp, links.domain);
  const double n = grp.size;
  // NCCL's rings: each rank sends (n-1)/n x bytes in all. Over g > 1 domains k rings each leave a
  // domain through a different member's NIC, so a rank sends 1/k of its share over its NIC and the
  // rest over NVLink; all hops of a ring run at once, so the slower link sets the time.
  const double share = (n - 1.0) / n * bytes;
  if (s.g <= 1) return links.nvlink_latency_s + share / links.nvlink_bytes_per_s;
  const double nvl = s.k > 1 ? share * (s.k - 1.0) / s.k / links.nvlink_bytes_per_s : 0.0;
  const double nic = share / s.k / links.scaleout_bytes_per_s;
  return (s.k > 1 ? links.nvlink_latency_s : 0.0) + links.scaleout_latency_s + std::max(nvl, nic);
}

double all_to_all_s(double bytes, const Group& grp, const Links& links) {
  if (grp.size <= 1 || bytes <= 0) return 0.0;
  const double n = grp.size;
  const Span s = group_span(grp, links.domain);
  const double intra = (s.k - 1.0) / n * bytes / links.nvlink_bytes_per_s;
  const double inter = (n - s.k) / n * bytes / links.scaleout_bytes_per_s;
  const double latency = s.g > 1 ? links.scaleout_latency_s : links.nvlink_latency_s;
  return latency + std::max(intra, inter);
}

double ep_remote_domains(int top_k, const Group& grp, int domain, const RouteGroups& rg) {
  const Span s = group_span(grp, domain);
  const double k = top_k;
  const double uniform = (s.g - 1.0) * (1.0 - std::pow(1.0 - 1.0 / s.g, k));
  const int ep = std::max(1, grp.size);
  const int ranks = static_cast<int>(s.k);
  const bool grouped = rg.groups > 1 && rg.group_topk > 0 && rg.group_topk < rg.groups && rg.experts > 0 &&
                       rg.experts % rg.groups == 0 && rg.experts % ep == 0 && ep % ranks == 0 && s.g > 1;
  if (!grouped) return uniform;
  const int per_group = rg.experts / rg.groups;
  const int per_domain = rg.experts / ep * ranks;
  const double picked = static_cast<double>(rg.group_topk) * per_group;  // the experts a token chooses among
  if (per_domain % per_group == 0) {
    const int h = per_domain / per_group;  // groups in one domain
    double hit = 0.0;
    for (int c = 1; c <= std::min(h, rg.group_topk); ++c)
      hit += binomial(h, c) * binomial(rg.groups - h, rg.group_topk - c) / binomial(rg.groups, rg.group_topk) *
             (1.0 - std::pow(1.0 - c * per_group / picked, k));
    return (s.g - 1.0) * hit;
  }
  if (per_group % per_domain == 0)
    return (s.g - 1.0) * rg.group_topk / rg.groups * (1.0 - std::pow(1.0 - per_domain / picked, k));
  return uniform;
}

double ep_dedup_s(double token_bytes, int top_k, const Group& grp, const Links& links, const RouteGroups& rg) {
  if (grp.size <= 1 || token_bytes <= 0 || top_k <= 0) return 0.0;
  const Span s = group_span(grp, links.domain);
  const double k = top_k;
  const double intra = k * (s.k - 1.0) / s.k * token_bytes / links.ep_nvlink_bytes_per_s;
  const double remote_domains = ep_remote_domains(top_k, grp, links.domain, rg);
  const double inter = remote_domains * token_bytes / links.ep_scaleout_bytes_per_s;
  const double latency = s.g > 1 ? links.scaleout_latency_s : links.nvlink_latency_s;
  return latency + std::max(intra, inter);
}

double p2p_s(double bytes, int distance, const Links& links) {
  if (bytes <= 0) return 0.0;
  if (distance < links.domain) return links.nvlink_latency_s + bytes / links.nvlink_bytes_per_s;
  return links.scaleout_latency_s + bytes / links.scaleout_bytes_per_s;
}

}  // namespace rb
