#include "recipebook/estimate/microbench.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace rb {
namespace {

struct ShapePoint {
  double n = 0;     // smallest dimension
  double frac = 0;  // achieved / dense peak
};

// The figures of one precision, dense (groups 0) or grouped (groups >= 1): a grouped GEMM's rate is
// its own evidence, never a dense point (nor the reverse).
std::vector<ShapePoint> gemm_points(const Hardware& hw, Precision p, bool grouped) {
  std::vector<ShapePoint> out;
  for (const GemmFigure& f : hw.microbenchmarks.gemm) {
    const double peak = hw.peak_flops_per_s(f.precision);
    if (f.precision != p || (f.groups > 0) != grouped || !(peak > 0) || !(f.flops_per_s > 0)) continue;
    out.push_back({std::min({f.m, f.n, f.k}), f.flops_per_s / peak});
  }
  return out;
}

std::optional<GemmCurve> fit_curve(const std::vector<ShapePoint>& pts) {
  bool distinct = false;
  for (const ShapePoint& q : pts) distinct = distinct || q.n != pts.front().n;
  if (pts.size() < 2 || !distinct) return std::nullopt;
  // For a half-point h the best log-asymptote is the mean of log(frac) - log(n / (n + h)); scan h
  // on a fine log grid (16 .. 16384, 0.2% steps) and keep the least squares.
  GemmCurve best;
  double best_ss = 1e300;
  for (int i = 0; i <= 4000; ++i) {
    const double h = 16.0 * std::pow(1024.0, i / 4000.0);
    double mean = 0;
    for (const ShapePoint& q : pts) mean += std::log(q.frac) - std::log(q.n / (q.n + h));
    mean /= static_cast<double>(pts.size());
    double ss = 0;
    for (const ShapePoint& q : pts) {
      const double r = std::log(q.frac) - std::log(q.n / (q.n + h)) - mean;
      ss += r * r;
    }
    if (ss < best_ss) best_ss = ss, best = {std::exp(mean), h};
  }
  best.asymptote = std::min(best.asymptote, 1.0);
  // No far extrapolation: the figures must reach a smallest dimension of twice the half-point (2/3 of
  // the asymptote), else the asymptote is a guess beyond them.
  double n_max = 0;
  for (const ShapePoint& q : pts) n_max = std::max(n_max, q.n);
  if (n_max < 2.0 * best.half_dim) return std::nullopt;
  return best;
}

// Ring (prior) and best (bound) fractions of the rows on one fabric; nullopt without rows.
void link_prior(const Hardware& hw, Fabric fabric, std::optional<double>& prior, std::optional<double>& bound) {
  const CollectiveFigure* ring = nullptr;
  double best = 0;
  for (const CollectiveFigure& f : hw.microbenchmarks.collectives) {
    if (f.fabric != fabric) continue;
    const double per_gpu = fabric == Fabric::kNvlink ? hw.nvlink_bytes_per_s
                                                     : hw.scaleout_bytes_per_s * std::max(1, f.gpus_per_node);
    if (!(per_gpu > 0) || !(f.bus_bytes_per_s > 0)) continue;
    best = std::max(best, f.bus_bytes_per_s / per_gpu);
    if (!f.nvls && (ring == nullptr || f.message_bytes > ring->message_bytes ||
                    (f.message_bytes == ring->message_bytes && f.bus_bytes_per_s > ring->bus_bytes_per_s)))
      ring = &f;
  }
  if (best <= 0) return;
  bound = std::min(1.0, best);
  if (ring != nullptr) {
    const double per_gpu = fabric == Fabric::kNvlink ? hw.nvlink_bytes_per_s
                                                     : hw.scaleout_bytes_per_s * std::max(1, ring->gpus_per_node);
    prior = std::min(*bound, ring->bus_bytes_per_s / per_gpu);
  }
}

}  // namespace

EpFractions ep_fractions(const Hardware& hw) {
  EpFractions out;
  for (const EpFigure& f : hw.microbenchmarks.ep) {
    if (!(f.bytes_per_s > 0)) continue;
    if (f.fabric == Fabric::kNvlink && hw.nvlink_bytes_per_s > 0) {
      const double k = std::min(f.ep, std::max(1, f.gpus_per_node));
      const double frac = std::min(1.0, f.bytes_per_s * (k - 1.0) / k / hw.nvlink_bytes_per_s);
      out.nvlink = std::max(out.nvlink.value_or(0.0), frac);
    } else if (f.fabric == Fabric::kScaleout && hw.scaleout_bytes_per_s > 0) {
      const int per_node = std::max(1, std::min(f.ep, f.gpus_per_node));
      const double nodes = std::ceil(static_cast<double>(std::max(1, f.ep)) / per_node);
      if (nodes < 2) continue;  // one node: nothing crossed a NIC
      const double frac = std::min(1.0, f.bytes_per_s * (nodes - 1.0) / nodes / hw.scaleout_bytes_per_s);
      out.scaleout = std::max(out.scaleout.value_or(0.0), frac);
    }
  }
  return out;
}

double bus_factor(CollectiveOp op, int n) {
  const double m = std::max(1, n);
  return (op == CollectiveOp::kAllReduce ? 2.0 : 1.0) * (m - 1.0) / m;
}

std::optional<GemmCurve> fit_gemm_curve(const Hardware& hw, Precision p) { return fit_curve(gemm_points(hw, p, false)); }

std::optional<GemmCurve> fit_grouped_gemm_curve(const Hardware& hw, Precision p) {
  return fit_curve(gemm_points(hw, p, true));
}

EfficiencyPrior efficiency_prior(const Hardware& hw, Precision p) {
  EfficiencyPrior out;
  if (auto c = fit_gemm_curve(hw, p)) {
    out.gemm = c->asymptote;
    out.gemm_half_dim = c->half_dim;
  }
  link_prior(hw, Fabric::kNvlink, out.nvlink, out.nvlink_max);
  link_prior(hw, Fabric::kScaleout, out.scaleout, out.scaleout_max);
  // Without a ring figure, the best DeepEP / HybridEP rate on the link is the prior: a measured rate
  // of the same wires (their kernels reach a little below NCCL's rings: H100-class NVLink 0.66
  // against 0.82).
  const EpFractions ep = ep_fractions(hw);
  if (!out.nvlink && ep.nvlink) out.nvlink = std::min(out.nvlink_max.value_or(1.0), *ep.nvlink);
  if (!out.scaleout && ep.scaleout) out.scaleout = std::min(out.scaleout_max.value_or(1.0), *ep.scaleout);
  return out;
}

Efficiency prior_efficiency(const Hardware& hw, Precision p) {
  Efficiency e;
  const EfficiencyPrior pr = efficiency_prior(hw, p);
  if (pr.gemm) e.gemm = *pr.gemm;
  if (pr.nvlink) e.nvlink = *pr.nvlink;
  if (pr.scaleout) e.scaleout = *pr.scaleout;
  return e;
}

}  // namespace rb
