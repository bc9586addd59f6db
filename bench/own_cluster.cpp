// Fitting to your own cluster (`recipebook calibrate --fit --catalog DIR`, estimate/calibrate_cluster.hpp):
// how much a fit on three measured runs of one model family on one GPU improves the prediction of
// that family's other layouts on that GPU.
//
// For each (family, GPU) of the built-in catalog with at least 4 distinct measured layouts (benchmark
// runs, measured_points.hpp; one row per layout: the first the catalog lists):
//   before: the GPU's efficiencies fitted by calibrate() on every other family's benchmark runs
//           (this family left out, so the starting point never saw the rows predicted);
//   after:  those efficiencies refitted by fit_cluster() on 3 of the family's layouts, drawn at
//           random (fixed seed; every 3-subset when there are at most --draws of them);
// and the MAPE of tokens/s/GPU on the family's other layouts on that GPU, averaged over the draws.
// The family's runs stand in for a user's runs on their cluster: the same GPU type, one software
// release per row, layouts the user did not run.
//   cmake --build build/ci --target bench_own_cluster && build/ci/bench/bench_own_cluster [--draws N] [--runs K]
//     [--prior P] [--robust S] [--runs-per-field R]   (ClusterFitOptions other than the command's defaults)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/catalog/measured_points.hpp"
#include "recipebook/estimate/calibrate.hpp"
#include "recipebook/estimate/calibrate_cluster.hpp"
#include "recipebook/estimate/estimate.hpp"
#include "stale_catalog.hpp"

namespace {

using namespace rb;

// What makes two rows the same layout: degrees, micro batch, GPUs, workload and precision.
auto layout_key(const CalibrationPoint& p) {
  const Layout& l = p.layout;
  return std::tuple{l.tp, l.pp, l.vp, l.cp, l.ep, l.etp, l.dp, l.mbs, static_cast<int>(l.precision), p.work.seq,
                    p.work.gbs, static_cast<int>(l.recompute), l.fsdp};
}

double predict(const CalibrationPoint& p, const Hardware& hw) {
  const Estimate e = estimate(*p.model, hw, p.work, p.cluster, p.layout);
  return e.valid ? e.tokens_per_s_per_gpu : 0.0;
}

double ape(double pred, double measured) { return std::abs(pred / measured - 1.0); }

// The k-subsets of {0..n-1}: all of them when there are at most `draws`, else `draws` distinct ones
// drawn with `rng`.
std::vector<std::vector<size_t>> subsets(size_t n, size_t k, size_t draws, std::mt19937& rng) {
  std::vector<std::vector<size_t>> all;
  std::vector<bool> pick(n, false);
  std::fill(pick.begin(), pick.begin() + static_cast<std::ptrdiff_t>(k), true);
  do {
    std::vector<size_t> s;
    for (size_t i = 0; i < n; ++i)
      if (pick[i]) s.push_back(i);
    all.push_back(s);
  } while (std::prev_permutation(pick.begin(), pick.end()));
  if (all.size() <= draws) return all;
  std::shuffle(all.begin(), all.end(), rng);
  all.resize(draws);
  return all;
}

using FamilyGpuRows = std::map<std::pair<std::string, std::string>, std::vector<const MeasuredPoint*>>;

// One scenario: every group's draws, a line per group and the summary. `shift`: the cluster the
// rows are moved to (nullptr: as measured).
bool scenario(const FamilyGpuRows& groups, const std::map<std::string, CalibrationResult>& fold, size_t k, size_t draws,
              const ClusterFitOptions& opt, const ClusterFit* shift) {
  std::printf("%-14s %-6s %7s %6s %9s %9s %9s  %s\n", "family", "gpu", "layouts", "draws", "before", "after",
              "in-sample", "fields fitted (draws)");
  std::mt19937 rng(14);
  double sum_before = 0, sum_after = 0;
  int n_groups = 0, better = 0;
  std::vector<double> all_before, all_after;
  for (const auto& [key, rows] : groups) {
    const auto& [family, gpu] = key;
    Hardware base = rows.front()->point.hardware;  // neutral efficiencies
    apply_calibration(fold.at(family), base);
    Hardware shifted = base;
    if (shift != nullptr) apply_cluster_fit(*shift, shifted);
    std::vector<CalibrationPoint> pts;
    for (const MeasuredPoint* p : rows) {
      CalibrationPoint c = p->point;
      c.hardware = base;
      if (shift != nullptr) {
        const double ratio = predict(c, shifted) / predict(c, base);
        if (!(ratio > 0)) continue;
        c.measured_tokens_per_s_per_gpu *= ratio;
      }
      pts.push_back(c);
    }
    std::vector<double> before(pts.size());
    for (size_t i = 0; i < pts.size(); ++i) before[i] = predict(pts[i], base);
    double g_before = 0, g_after = 0, g_in = 0;
    std::map<std::string, int> fields;
    const auto draws_of = subsets(pts.size(), k, draws, rng);
    for (const auto& train_idx : draws_of) {
      std::vector<CalibrationPoint> train;
      for (size_t i : train_idx) train.push_back(pts[i]);
      const ClusterFit fit = fit_cluster(train, opt);
      Hardware after_hw = base;
      apply_cluster_fit(fit, after_hw, opt);
      std::string names;  // in ClusterParam order, whichever entered first
      for (int p = 0; p < kNumClusterParams; ++p)
        if (fit.held[static_cast<size_t>(p)] == ClusterHeld::kFitted)
          names += std::string(names.empty() ? "" : "+") + cluster_param_name(static_cast<ClusterParam>(p));
      ++fields[names.empty() ? "none" : names];
      double b = 0, a = 0;
      int n = 0;
      for (size_t i = 0; i < pts.size(); ++i) {
        if (std::find(train_idx.begin(), train_idx.end(), i) != train_idx.end()) continue;
        const double m = pts[i].measured_tokens_per_s_per_gpu;
        const double pa = predict(pts[i], after_hw);
        if (before[i] <= 0 || pa <= 0) continue;
        b += ape(before[i], m);
        a += ape(pa, m);
        all_before.push_back(ape(before[i], m));
        all_after.push_back(ape(pa, m));
        ++n;
      }
      g_before += n > 0 ? b / n : 0;
      g_after += n > 0 ? a / n : 0;
      g_in += fit.mape_after;
    }
    const double nd = static_cast<double>(draws_of.size());
    g_before /= nd, g_after /= nd, g_in /= nd;
    std::string fl;
    for (const auto& [f, c] : fields) fl += (fl.empty() ? "" : ", ") + f + " (" + std::to_string(c) + ")";
    std::printf("%-14s %-6s %7zu %6zu %8.1f%% %8.1f%% %8.1f%%  %s\n", family.c_str(), gpu.c_str(), pts.size(),
                draws_of.size(), 100 * g_before, 100 * g_after, 100 * g_in, fl.c_str());
    sum_before += g_before, sum_after += g_after;
    better += g_after < g_before ? 1 : 0;
    ++n_groups;
  }
  if (n_groups == 0) return false;
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
  };
  std::printf("\nmean over the %d groups of the held-out MAPE: %.1f%% before -> %.1f%% after (%d of %d groups better)\n",
              n_groups, 100 * sum_before / n_groups, 100 * sum_after / n_groups, better, n_groups);
  std::printf("every held-out prediction of every draw (%zu): median APE %.1f%% before -> %.1f%% after\n",
              all_before.size(), 100 * median(all_before), 100 * median(all_after));
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  size_t draws = 10;
  size_t k = 3;
  ClusterFitOptions opt;  // the defaults `calibrate --fit --catalog` uses; the flags try others
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--prior") == 0 && i + 1 < argc) opt.prior_points = std::atof(argv[++i]);
    if (std::strcmp(argv[i], "--robust") == 0 && i + 1 < argc) opt.robust_scale = std::atof(argv[++i]);
    if (std::strcmp(argv[i], "--runs-per-field") == 0 && i + 1 < argc) opt.runs_per_param = std::atoi(argv[++i]);
    if (std::strcmp(argv[i], "--draws") == 0 && i + 1 < argc) draws = static_cast<size_t>(std::atoi(argv[++i]));
    if (std::strcmp(argv[i], "--runs") == 0 && i + 1 < argc) k = static_cast<size_t>(std::atoi(argv[++i]));
  }
  rb::bench::warn_if_stale_catalog();
  auto cat = Catalog::load();
  if (!cat) {
    std::fprintf(stderr, "catalog: %s\n", cat.error().str().c_str());
    return 1;
  }
  const MeasuredPoints measured = measured_points(*cat, /*neutral_efficiency=*/true);
  std::vector<const MeasuredPoint*> bench;
  for (const MeasuredPoint& p : measured.points)
    if (p.benchmark) bench.push_back(&p);
  // One row per layout within each (family, GPU).
  FamilyGpuRows groups;
  std::set<std::tuple<std::string, std::string, decltype(layout_key(CalibrationPoint{}))>> seen;
  for (const MeasuredPoint* p : bench)
    if (seen.insert({p->family, p->point.hardware.name, layout_key(p->point)}).second)
      groups[{p->family, p->point.hardware.name}].push_back(p);
  std::erase_if(groups, [&](const auto& g) { return g.second.size() < k + 1; });

  std::printf("recipebook own-cluster fit: %zu benchmark runs; %zu (family, GPU) groups with >= %zu layouts; "
              "fit on %zu runs, up to %zu draws each (seed 14);\n"
              "prior %.2f runs' worth, robust scale %.2f, %d run(s) per field\n\n",
              bench.size(), groups.size(), k + 1, k, draws, opt.prior_points, opt.robust_scale, opt.runs_per_param);
  std::map<std::string, CalibrationResult> fold;  // per family left out
  for (const MeasuredPoint* p : bench) fold.try_emplace(p->family);
  for (auto& [family, fit] : fold) {
    std::vector<CalibrationPoint> train;
    for (const MeasuredPoint* p : bench)
      if (p->family != family) train.push_back(p->point);
    fit = calibrate(train);
  }
  std::printf("1. The catalog's own clusters: each row as measured\n");
  if (!scenario(groups, fold, k, draws, opt, nullptr)) return 1;
  // The same runs on a cluster that differs from the catalog's: 10%% slower GEMMs, half the
  // scale-out bandwidth. Each row's measurement times the estimator's ratio between the two
  // clusters, so the rows keep the estimator's own error on them.
  ClusterFit shift;
  shift.factor[static_cast<size_t>(ClusterParam::kGemm)] = 0.9;
  shift.factor[static_cast<size_t>(ClusterParam::kScaleout)] = 0.5;
  std::printf("\n2. A different cluster: the same rows x (estimate with gemm x0.9, scaleout x0.5) / estimate\n");
  if (!scenario(groups, fold, k, draws, opt, &shift)) return 1;
  return 0;
}
