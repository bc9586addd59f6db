#include "recipebook/estimate/calibrate_cluster.hpp"

#include <algorithm>
#include <cmath>

#include "recipebook/estimate/estimate.hpp"
#include "recipebook/estimate/fit_search.hpp"

namespace rb {
namespace {

using Factors = std::array<double, kNumClusterParams>;

constexpr double Efficiency::*kField[kNumClusterParams] = {&Efficiency::gemm,   &Efficiency::attention,
                                                          &Efficiency::hbm,    &Efficiency::nvlink,
                                                          &Efficiency::scaleout, &Efficiency::overlap};

size_t at(int j) { return static_cast<size_t>(j); }

double lower(int j, const ClusterFitOptions& o) { return j == 0 ? o.gemm_min : o.eff_min; }
double upper(int j, const ClusterFitOptions& o) { return j == 0 ? o.gemm_max : o.eff_max; }

// `base` with each field times its factor, within the bounds; a factor of 1 keeps the field as it is
// (a catalog value outside the fit's bounds is not moved by fitting something else).
Efficiency scaled(const Efficiency& base, const Factors& f, const ClusterFitOptions& o) {
  Efficiency e = base;
  for (int j = 0; j < kNumClusterParams; ++j)
    if (f[at(j)] != 1.0) e.*kField[j] = std::clamp(base.*kField[j] * f[at(j)], lower(j, o), upper(j, o));
  return e;
}

double predict(const CalibrationPoint& pt, const Factors& f, const ClusterFitOptions& o) {
  Hardware hw = pt.hardware;
  Efficiency& e = hw.efficiency[static_cast<size_t>(pt.layout.precision)];
  e = scaled(e, f, o);
  const Estimate est = estimate(*pt.model, hw, pt.work, pt.cluster, pt.layout);
  return est.valid ? est.tokens_per_s_per_gpu : 0.0;
}

double objective(const std::vector<CalibrationPoint>& pts, const std::vector<size_t>& idx, const Factors& f,
                 const ClusterFitOptions& o) {
  double s = 0;
  for (size_t i : idx) {
    const double pred = predict(pts[i], f, o);
    // An estimate the factors make invalid (a bound reached) counts as a large error.
    const double r = pred > 0 ? std::log(pred / pts[i].measured_tokens_per_s_per_gpu) / o.robust_scale : 10.0;
    s += soft_l1(r, o.robust_scale);
  }
  for (double x : f) s += o.prior_points * std::log(x) * std::log(x);
  return s;
}


double mape(const std::vector<CalibrationPoint>& pts, const std::vector<double>& pred) {
  double s = 0;
  int n = 0;
  for (size_t i = 0; i < pts.size(); ++i) {
    if (pred[i] <= 0) continue;
    s += std::abs(pred[i] / pts[i].measured_tokens_per_s_per_gpu - 1.0);
    ++n;
  }
  return n > 0 ? s / n : 0.0;
}

// The factors of `fields` minimizing the loss, from 1, by coordinate descent; and that loss.
std::pair<Factors, double> fit_fields(const std::vector<CalibrationPoint>& pts, const std::vector<size_t>& idx,
                                      const std::vector<int>& fields, const ClusterFitOptions& o) {
  Factors best;
  best.fill(1.0);
  for (int sweep = 0; sweep < o.sweeps && !fields.empty(); ++sweep) {
    for (int j : fields) {
      // The factor range: far enough for every run's precision to reach either bound.
      double lo_base = 1.0, hi_base = 0.0;
      for (size_t i : idx) {
        const double b = pts[i].hardware.eff(pts[i].layout.precision).*kField[j];
        lo_base = std::min(lo_base, b), hi_base = std::max(hi_base, b);
      }
      const double lo = std::log(lower(j, o) / std::max(1e-9, hi_base));
      const double hi = std::log(upper(j, o) / std::max(1e-9, lo_base));
      if (!(hi > lo)) continue;
      best[at(j)] = std::exp(golden_section_min(
          [&](double u) {
            Factors f = best;
            f[at(j)] = std::exp(u);
            return objective(pts, idx, f, o);
          },
          lo, hi));
    }
    if (fields.size() == 1) break;  // one field: one line search is the minimum
  }
  return {best, objective(pts, idx, best, o)};
}

// The runs' sensitivity vector of `v` left unexplained by the orthonormal `basis`: its largest
// entry (by magnitude) and the vector.
std::pair<double, std::vector<double>> unexplained(const std::vector<double>& v,
                                                   const std::vector<std::vector<double>>& basis) {
  std::vector<double> r = v;
  for (const auto& q : basis) {
    double dot = 0;
    for (size_t i = 0; i < v.size(); ++i) dot += q[i] * v[i];
    for (size_t i = 0; i < v.size(); ++i) r[i] -= dot * q[i];
  }
  double m = 0;
  for (double x : r) m = std::max(m, std::abs(x));
  return {m, r};
}

// Forward selection (the header's rule): sets fit.held, fit.fitted and fit.factor.
void select_and_fit(const std::vector<CalibrationPoint>& pts, const std::vector<size_t>& idx,
                    const std::vector<std::vector<double>>& sens, const ClusterFitOptions& o, ClusterFit& fit) {
  const size_t runs = idx.size();
  const size_t per = static_cast<size_t>(std::max(1, o.runs_per_param));
  const size_t max_fields = (runs + per - 1) / per;
  std::vector<int> open;
  for (int j = 0; j < kNumClusterParams; ++j) {
    double m = 0;
    for (double s : sens[at(j)]) m = std::max(m, std::abs(s));
    fit.max_sensitivity[at(j)] = m;
    if (m >= o.min_sensitivity)
      open.push_back(j);
    else
      fit.held[at(j)] = ClusterHeld::kNoRunDependsOnIt;
  }
  std::vector<std::vector<double>> basis;  // orthonormal, over the runs
  std::vector<int> chosen;
  Factors one;
  one.fill(1.0);
  double loss = objective(pts, idx, one, o);
  while (!open.empty()) {
    // Only fields the chosen ones do not already explain can enter.
    std::vector<int> separable;
    for (int j : open)
      if (unexplained(sens[at(j)], basis).first >= o.min_sensitivity) separable.push_back(j);
    int best = -1;
    std::pair<Factors, double> best_fit{one, loss};
    if (chosen.size() < max_fields) {
      for (int j : separable) {
        std::vector<int> with = chosen;
        with.push_back(j);
        auto f = fit_fields(pts, idx, with, o);
        if (f.second < best_fit.second) best = j, best_fit = std::move(f);
      }
    }
    if (best < 0 || best_fit.second > loss * (1.0 - o.min_gain)) {
      for (int j : open) {
        const bool sep = std::find(separable.begin(), separable.end(), j) != separable.end();
        fit.held[at(j)] = !sep ? ClusterHeld::kNotSeparable
                          : chosen.size() >= max_fields ? ClusterHeld::kNeedsMoreRuns
                                                        : ClusterHeld::kNoGain;
      }
      break;
    }
    chosen.push_back(best);
    fit.fitted.push_back(static_cast<ClusterParam>(best));
    fit.held[at(best)] = ClusterHeld::kFitted;
    fit.factor = best_fit.first;
    loss = best_fit.second;
    std::vector<double> r = unexplained(sens[at(best)], basis).second;
    double norm = 0;
    for (double x : r) norm += x * x;
    for (double& x : r) x /= std::sqrt(norm);
    basis.push_back(std::move(r));
    open.erase(std::find(open.begin(), open.end(), best));
  }
}

}  // namespace

const char* cluster_param_name(ClusterParam p) {
  switch (p) {
    case ClusterParam::kGemm: return "gemm";
    case ClusterParam::kAttention: return "attention";
    case ClusterParam::kHbm: return "hbm";
    case ClusterParam::kNvlink: return "nvlink";
    case ClusterParam::kScaleout: return "scaleout";
    case ClusterParam::kOverlap: return "overlap";
  }
  return "gemm";
}

ClusterFit fit_cluster(const std::vector<CalibrationPoint>& points, const ClusterFitOptions& opt) {
  ClusterFit fit;
  const Factors one = fit.factor;
  fit.before.assign(points.size(), 0.0);
  std::vector<size_t> idx;
  for (size_t i = 0; i < points.size(); ++i) {
    if (points[i].model == nullptr || !(points[i].measured_tokens_per_s_per_gpu > 0)) continue;
    fit.before[i] = predict(points[i], one, opt);
    if (fit.before[i] > 0) idx.push_back(i);
  }
  fit.runs = static_cast<int>(idx.size());
  // Sensitivity of each run to each field: the log change of its throughput per log change of the
  // field, lowering the field 10% (most sit at or near their upper bound).
  const double step = 0.9;
  std::vector<std::vector<double>> sens(kNumClusterParams);
  for (int j = 0; j < kNumClusterParams; ++j) {
    Factors f = one;
    f[at(j)] = step;
    for (size_t i : idx) {
      const double lowered = predict(points[i], f, opt);
      sens[at(j)].push_back(lowered > 0 ? std::log(fit.before[i] / lowered) / -std::log(step) : 0.0);
    }
  }
  if (!idx.empty()) select_and_fit(points, idx, sens, opt, fit);
  fit.after.assign(points.size(), 0.0);
  for (size_t i : idx) fit.after[i] = predict(points[i], fit.factor, opt);
  fit.mape_before = mape(points, fit.before);
  fit.mape_after = mape(points, fit.after);
  return fit;
}

void apply_cluster_fit(const ClusterFit& fit, Hardware& hw, const ClusterFitOptions& opt) {
  for (Efficiency& e : hw.efficiency) e = scaled(e, fit.factor, opt);
}

}  // namespace rb
