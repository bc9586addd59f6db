#include "recipebook/estimate/calibrate.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "recipebook/estimate/estimate.hpp"
#include "recipebook/estimate/fit_search.hpp"
#include "recipebook/estimate/microbench.hpp"

namespace rb {
namespace {

struct Params {
  double gemm = 0.6;
  double comm = 1.0;  // multiplier on the starting nvlink / scaleout efficiencies
};

// The box a group's efficiencies stay in: the options' bounds, tightened by the GPU's published
// microbenchmarks (estimate/microbench.hpp): no fitted GEMM efficiency above the asymptote of its
// measured GEMM curve, no link efficiency above the best bus bandwidth nccl-tests shows on it.
struct Bounds {
  double gemm_min = 0, gemm_max = 1, comm_min = 0, nvlink_max = 1, scaleout_max = 1;
};

Bounds bounds_for(const Hardware& hw, Precision p, const CalibrationOptions& opt) {
  Bounds b{opt.gemm_min, opt.gemm_max, opt.comm_min, opt.comm_max, opt.comm_max};
  if (!opt.microbench_bounds) return b;
  const EfficiencyPrior pr = efficiency_prior(hw, p);
  if (pr.gemm) b.gemm_max = std::max(b.gemm_min, std::min(b.gemm_max, *pr.gemm));
  if (pr.nvlink_max) b.nvlink_max = std::max(b.comm_min, std::min(b.nvlink_max, *pr.nvlink_max));
  if (pr.scaleout_max) b.scaleout_max = std::max(b.comm_min, std::min(b.scaleout_max, *pr.scaleout_max));
  return b;
}

// The loosest of two boxes (a GPU's pooled fit spans its precisions).
Bounds loosest(const Bounds& a, const Bounds& b) {
  return {std::min(a.gemm_min, b.gemm_min), std::max(a.gemm_max, b.gemm_max), std::min(a.comm_min, b.comm_min),
          std::max(a.nvlink_max, b.nvlink_max), std::max(a.scaleout_max, b.scaleout_max)};
}

Efficiency with(const Efficiency& base, const Params& p, const Bounds& b) {
  Efficiency e = base;
  e.gemm = std::clamp(p.gemm, b.gemm_min, b.gemm_max);
  e.nvlink = std::clamp(base.nvlink * p.comm, b.comm_min, b.nvlink_max);
  e.scaleout = std::clamp(base.scaleout * p.comm, b.comm_min, b.scaleout_max);
  return e;
}

// Predicted tokens/s/GPU of point i with its precision's efficiency replaced; 0 when invalid.
double predict(const CalibrationPoint& pt, const Efficiency& eff) {
  Hardware hw = pt.hardware;
  hw.efficiency[static_cast<size_t>(pt.layout.precision)] = eff;
  const Estimate e = estimate(*pt.model, hw, pt.work, pt.cluster, pt.layout);
  return e.valid ? e.tokens_per_s_per_gpu : 0.0;
}

struct FitGroup {
  std::vector<size_t> idx;
  Efficiency start;
  Bounds bounds;
};

double mape(const std::vector<CalibrationPoint>& pts, const std::vector<size_t>& idx, const Efficiency& eff) {
  double s = 0;
  int n = 0;
  for (size_t i : idx) {
    const double p = predict(pts[i], eff);
    if (p <= 0) continue;
    s += std::abs(p / pts[i].measured_tokens_per_s_per_gpu - 1.0);
    ++n;
  }
  return n > 0 ? s / n : 0.0;
}

double objective(const std::vector<CalibrationPoint>& pts, const FitGroup& g, const Params& p, const Params& center,
                 double prior_points, const CalibrationOptions& opt) {
  const Efficiency eff = with(g.start, p, g.bounds);
  double s = 0;
  int n = 0;
  for (size_t i : g.idx) {
    const double pred = predict(pts[i], eff);
    if (pred <= 0) continue;
    // Soft-L1 (pseudo-Huber) on the log error: quadratic within ~opt.robust_scale, linear beyond, so
    // that a few rows from very different software (a 4x slower old release) do not set the fit.
    const double r = std::log(pred / pts[i].measured_tokens_per_s_per_gpu) / opt.robust_scale;
    s += soft_l1(r, opt.robust_scale);
    ++n;
  }
  if (n == 0) return 0.0;
  const double pg = std::log(p.gemm / center.gemm);
  const double pc = std::log(p.comm / center.comm);
  return (s + prior_points * (pg * pg + pc * pc)) / n;
}


Params fit_group(const std::vector<CalibrationPoint>& points, const FitGroup& g, const Params& center,
                 double prior_points, const CalibrationOptions& opt) {
  Params best = center;
  const double cmin = g.bounds.comm_min / std::max(1e-9, std::max(g.start.nvlink, g.start.scaleout));
  const double cmax = std::max(g.bounds.nvlink_max / std::max(1e-9, g.start.nvlink),
                               g.bounds.scaleout_max / std::max(1e-9, g.start.scaleout));
  const bool fit_comm = opt.fit_comm && g.idx.size() >= 2 && cmax > cmin;
  for (int sweep = 0; sweep < opt.sweeps; ++sweep) {
    best.gemm = std::exp(golden_section_min(
        [&](double u) { return objective(points, g, Params{std::exp(u), best.comm}, center, prior_points, opt); },
        std::log(g.bounds.gemm_min), std::log(std::max(g.bounds.gemm_min, g.bounds.gemm_max))));
    if (!fit_comm) break;
    best.comm = std::exp(golden_section_min(
        [&](double v) { return objective(points, g, Params{best.gemm, std::exp(v)}, center, prior_points, opt); },
        std::log(std::max(1e-6, cmin)), std::log(std::max(cmin, cmax))));
  }
  return best;
}

}  // namespace

CalibrationResult calibrate(const std::vector<CalibrationPoint>& points, const CalibrationOptions& opt) {
  CalibrationResult result;
  std::map<std::pair<std::string, int>, FitGroup> groups;
  for (size_t i = 0; i < points.size(); ++i) {
    const CalibrationPoint& pt = points[i];
    if (pt.model == nullptr || !(pt.measured_tokens_per_s_per_gpu > 0)) continue;
    FitGroup& g = groups[{pt.hardware.name, static_cast<int>(pt.layout.precision)}];
    if (g.idx.empty()) {
      g.start = pt.hardware.eff(pt.layout.precision);
      g.bounds = bounds_for(pt.hardware, pt.layout.precision, opt);
    }
    g.idx.push_back(i);
  }
  // Level 1: one (gemm, comm) per GPU over all its precisions, pulled towards the defaults.
  // Level 2: each (GPU, precision) pulled towards its GPU's fit, so that a precision with a handful
  // of points borrows strength from the others instead of running to a bound.
  std::map<std::string, FitGroup> per_gpu;
  for (const auto& [key, g] : groups) {
    FitGroup& pooled = per_gpu[key.first];
    if (pooled.idx.empty()) {
      pooled.start = g.start;
      pooled.bounds = g.bounds;
    }
    pooled.bounds = loosest(pooled.bounds, g.bounds);
    pooled.idx.insert(pooled.idx.end(), g.idx.begin(), g.idx.end());
  }
  std::map<std::string, Params> gpu_fit;
  for (const auto& [gpu, g] : per_gpu) {
    gpu_fit[gpu] = fit_group(points, g, Params{g.start.gemm, 1.0}, opt.prior_points, opt);
  }
  double before_sum = 0, after_sum = 0;
  int total = 0;
  for (auto& [key, g] : groups) {
    const Params best = fit_group(points, g, gpu_fit[key.first], opt.group_prior_points, opt);
    FittedEfficiency fit;
    fit.gpu = key.first;
    fit.precision = static_cast<Precision>(key.second);
    fit.efficiency = with(g.start, best, g.bounds);
    fit.mape_before = mape(points, g.idx, g.start);
    fit.mape_after = mape(points, g.idx, fit.efficiency);
    for (size_t i : g.idx) fit.points += predict(points[i], fit.efficiency) > 0 ? 1 : 0;
    before_sum += fit.mape_before * fit.points;
    after_sum += fit.mape_after * fit.points;
    total += fit.points;
    result.fits.push_back(fit);
  }
  result.points = total;
  result.mape_before = total > 0 ? before_sum / total : 0.0;
  result.mape_after = total > 0 ? after_sum / total : 0.0;
  return result;
}

bool apply_calibration(const CalibrationResult& result, Hardware& hw) {
  bool any = false;
  for (int p = 0; p < kNumPrecisions; ++p) {
    const Precision prec = static_cast<Precision>(p);
    const FittedEfficiency* own = nullptr;
    const FittedEfficiency* same_class = nullptr;
    const FittedEfficiency* any_fit = nullptr;
    for (const FittedEfficiency& f : result.fits) {
      if (f.gpu != hw.name || f.points == 0) continue;
      if (f.precision == prec) own = &f;
      if (precision_class(f.precision) == precision_class(prec) && same_class == nullptr) same_class = &f;
      if (any_fit == nullptr) any_fit = &f;
    }
    const FittedEfficiency* use = own != nullptr ? own : same_class != nullptr ? same_class : any_fit;
    if (use == nullptr) continue;
    Efficiency& e = hw.efficiency[static_cast<size_t>(p)];
    e.gemm = use->efficiency.gemm;
    // A borrowed GEMM efficiency is a fraction of another precision's peak: it keeps within this
    // precision's own bound, the asymptote of its published GEMM figures (a fit of its own is
    // already inside it, bounds_for). B200's NVFP4 kernels reach 0.50 of the FP4 peak where its
    // BF16 ones reach 0.73 of theirs (catalog/hardware/b200.yaml), so an FP4 row predicted with a
    // BF16 or FP8 fraction would run its GEMMs ~1.5x too fast.
    if (use->precision != prec)
      if (const auto bound = efficiency_prior(hw, prec).gemm) e.gemm = std::min(e.gemm, *bound);
    e.nvlink = use->efficiency.nvlink;
    e.scaleout = use->efficiency.scaleout;
    any = true;
  }
  return any;
}

}  // namespace rb
