// The accuracy harness: predict every current measured row of the catalog (a measurement with
// `current: true` on a recipe whose model has an architecture) with leave-one-model-family-out
// calibration — the efficiencies are fitted on every other family's benchmark runs, then this family
// is predicted — and print the error of tokens/s/GPU on the benchmark runs (performance tables and
// cards' pretrain_performance items), on the newest release of each configuration and on all rows;
// per GPU, family, precision and mode; the Spearman rank correlation; the 10 worst rows with their
// time parts; every card row that trains on a dataset (predicted, never fitted); and whether every
// measured layout is predicted to fit in memory. Figures go to BENCHMARKS.md.
//   cmake --preset release -B build/rel && cmake --build build/rel --target bench_accuracy
//   build/rel/bench/bench_accuracy [--verbose]
//   build/rel/bench/bench_accuracy --floor bench/accuracy_floor.txt   (exit 1 when a figure is worse
//   than its stated bound: the ctest `accuracy_floor` runs this, so a change that makes the model
//   worse cannot land silently)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <memory>
#include <string>
#include <vector>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/catalog/measured_points.hpp"
#include "recipebook/estimate/calibrate.hpp"
#include "recipebook/estimate/estimate.hpp"
#include "stale_catalog.hpp"

namespace {

using namespace rb;

struct Row : MeasuredPoint {
  double predicted = 0;
  Estimate estimate;
};

double ape(const Row& r) { return std::abs(r.predicted / r.point.measured_tokens_per_s_per_gpu - 1.0); }

std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<size_t> idx(v.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (size_t i = 0; i < idx.size();) {
    size_t j = i;
    while (j + 1 < idx.size() && v[idx[j + 1]] == v[idx[i]]) ++j;
    for (size_t k = i; k <= j; ++k) r[idx[k]] = (static_cast<double>(i + j) / 2.0) + 1.0;
    i = j + 1;
  }
  return r;
}

double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  const std::vector<double> ra = ranks(a), rb_ = ranks(b);
  const double n = static_cast<double>(a.size());
  double ma = 0, mb = 0;
  for (size_t i = 0; i < a.size(); ++i) ma += ra[i] / n, mb += rb_[i] / n;
  double cov = 0, va = 0, vb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    cov += (ra[i] - ma) * (rb_[i] - mb);
    va += (ra[i] - ma) * (ra[i] - ma);
    vb += (rb_[i] - mb) * (rb_[i] - mb);
  }
  return va > 0 && vb > 0 ? cov / std::sqrt(va * vb) : 0.0;
}

void print_group(const char* title, const std::vector<Row>& rows, std::string (*key)(const Row&)) {
  std::map<std::string, std::vector<double>> g;
  for (const Row& r : rows) g[key(r)].push_back(ape(r));
  std::printf("\n%s\n", title);
  for (auto& [k, v] : g) {
    double s = 0;
    for (double x : v) s += x;
    std::sort(v.begin(), v.end());
    std::printf("  %-28s n=%3zu  MAPE %5.1f%%  median %5.1f%%\n", k.c_str(), v.size(), 100 * s / static_cast<double>(v.size()),
                100 * v[v.size() / 2]);
  }
}

void print_time(const Estimate& e) {
  const TimeBreakdown& t = e.time;
  std::printf("      step %.2fs:", t.step_time_s);
  for (const TimePart& p : kTimeParts) std::printf(" %.*s %.0f%%", static_cast<int>(p.label.size()), p.label.data(),
                                                   100 * (t.*p.seconds) / t.step_time_s);
  std::printf("\n");
}


void print_row(const Row& r) {
  std::printf("  %+6.0f%%  %s: predicted %.0f, measured %.0f tokens/s/GPU\n",
              100 * (r.predicted / r.point.measured_tokens_per_s_per_gpu - 1), r.label.c_str(), r.predicted,
              r.point.measured_tokens_per_s_per_gpu);
  print_time(r.estimate);
}

void print_summary(const char* title, const std::vector<Row>& rows) {
  std::vector<double> pred, meas, errs;
  for (const Row& r : rows) {
    pred.push_back(r.predicted);
    meas.push_back(r.point.measured_tokens_per_s_per_gpu);
    errs.push_back(ape(r));
  }
  double sum = 0;
  for (double e : errs) sum += e;
  std::sort(errs.begin(), errs.end());
  std::printf("%-52s n=%3zu  MAPE %5.1f%%  median %5.1f%%  p90 %5.1f%%  Spearman %.3f\n", title, rows.size(),
              100 * sum / static_cast<double>(rows.size()), 100 * errs[errs.size() / 2], 100 * errs[errs.size() * 9 / 10],
              spearman(pred, meas));
}

// Release "26.04.01" -> {26, 4, 1}, for ordering.
std::vector<int> release_key(const std::string& release) {
  std::vector<int> k;
  int cur = -1;
  for (char c : release) {
    if (c >= '0' && c <= '9') {
      cur = (cur < 0 ? 0 : cur * 10) + (c - '0');
    } else if (cur >= 0) {
      k.push_back(cur);
      cur = -1;
    }
  }
  if (cur >= 0) k.push_back(cur);
  return k;
}

// The newest release's row of each configuration (recipe, GPU, precision, layout): what the estimator
// is for — today's software — without configurations measured in six releases counting six times.
std::vector<Row> newest_per_configuration(const std::vector<Row>& rows) {
  std::map<std::string, const Row*> newest;
  for (const Row& r : rows) {
    const Layout& l = r.point.layout;
    const std::string key = r.label.substr(0, r.label.find('@')) + " " + r.point.hardware.name + " " +
                            std::string(precision_name(l.precision)) + " " + std::to_string(l.tp) + "/" +
                            std::to_string(l.pp) + "/" + std::to_string(l.vp) + "/" + std::to_string(l.cp) + "/" +
                            std::to_string(l.ep) + "/" + std::to_string(l.mbs) + "/" + std::to_string(r.point.work.gbs);
    const Row*& slot = newest[key];
    if (slot == nullptr || release_key(slot->release) < release_key(r.release)) slot = &r;
  }
  std::vector<Row> out;
  for (const auto& [key, r] : newest) out.push_back(*r);
  return out;
}
}  // namespace

// Predicts every row with efficiencies fitted on the benchmark rows of the other groups (`group`: a
// family, a GPU type): the error on rows the fit never saw. A group whose GPU no other group has keeps
// the neutral starting efficiencies.
template <typename Group>
void predict_held_out(std::vector<Row>& rows, Group group) {
  std::vector<std::string> groups;
  for (const Row& r : rows)
    if (std::find(groups.begin(), groups.end(), group(r)) == groups.end()) groups.push_back(group(r));
  for (const std::string& g : groups) {
    std::vector<CalibrationPoint> train;
    for (const Row& r : rows)
      if (group(r) != g && r.benchmark) train.push_back(r.point);
    const CalibrationResult fit = calibrate(train);
    for (Row& r : rows) {
      if (group(r) != g) continue;
      Hardware hw = r.point.hardware;
      apply_calibration(fit, hw);
      r.estimate = estimate(*r.point.model, hw, r.point.work, r.point.cluster, r.point.layout);
      r.predicted = r.estimate.tokens_per_s_per_gpu;
    }
  }
}

double mape(const std::vector<Row>& rows) {
  double s = 0;
  for (const Row& r : rows) s += ape(r);
  return rows.empty() ? 0 : s / static_cast<double>(rows.size());
}

// The floor file: `mape B`, `spearman B`, `family NAME B` lines ('#' comments). MAPEs must not exceed
// their bound, the Spearman correlation must not fall below its bound, and every family named must
// still have rows. Prints each check; returns the number of violations.
int check_floor(const std::string& path, const std::vector<Row>& bench) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "accuracy floor: cannot read %s\n", path.c_str());
    return 1;
  }
  std::vector<double> pred, meas;
  for (const Row& r : bench) pred.push_back(r.predicted), meas.push_back(r.point.measured_tokens_per_s_per_gpu);
  int bad = 0, checks = 0;
  auto report = [&](const std::string& what, double value, double bound, bool ok) {
    ++checks;
    std::printf("  %-4s %-28s %.4f (bound %.4f)\n", ok ? "ok" : "FAIL", what.c_str(), value, bound);
    bad += ok ? 0 : 1;
  };
  std::printf("\naccuracy floor (%s)\n", path.c_str());
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string key, name;
    double bound = 0;
    words >> key;
    if (key == "family") words >> name;
    if (!(words >> bound)) {
      std::printf("  FAIL %s:%d: expected `mape B`, `spearman B` or `family NAME B`\n", path.c_str(), lineno);
      ++bad, ++checks;
      continue;
    }
    if (key == "mape") {
      report("MAPE, leave-one-family-out", mape(bench), bound, mape(bench) <= bound);
    } else if (key == "spearman") {
      const double rho = spearman(pred, meas);
      report("Spearman", rho, bound, rho >= bound);
    } else if (key == "family") {
      std::vector<Row> fam;
      for (const Row& r : bench)
        if (r.family == name) fam.push_back(r);
      if (fam.empty()) {
        std::printf("  FAIL family %s has no benchmark rows any more\n", name.c_str());
        ++bad, ++checks;
      } else {
        report("MAPE " + name, mape(fam), bound, mape(fam) <= bound);
      }
    } else {
      std::printf("  FAIL %s:%d: unknown key '%s'\n", path.c_str(), lineno, key.c_str());
      ++bad, ++checks;
    }
  }
  if (checks == 0) ++bad;  // an empty floor checks nothing
  std::printf("accuracy floor: %d of %d checks failed\n", bad, checks);
  return bad;
}

int main(int argc, char** argv) {
  const bool verbose = argc > 1 && std::strcmp(argv[1], "--verbose") == 0;
  const std::string floor = argc > 2 && std::strcmp(argv[1], "--floor") == 0 ? argv[2] : "";
  rb::bench::warn_if_stale_catalog();
  auto cat = Catalog::load();
  if (!cat) {
    std::fprintf(stderr, "catalog: %s\n", cat.error().str().c_str());
    return 1;
  }
  // Neutral starting efficiencies: the catalog's own are fitted on every row, held-out ones included.
  MeasuredPoints measured = measured_points(*cat, /*neutral_efficiency=*/true);
  auto& prepared = measured.models;
  const int skipped_model = measured.skipped_model;
  const int skipped_invalid = measured.skipped_invalid;
  std::vector<Row> rows;
  for (auto& p : measured.points) {
    Row r;
    static_cast<MeasuredPoint&>(r) = std::move(p);
    rows.push_back(std::move(r));
  }

  // Leave one family out: fit on the other families' benchmark rows, predict every row of this one.
  predict_held_out(rows, [](const Row& r) { return r.family; });
  std::vector<Row> bench, cards;
  for (const Row& r : rows) (r.benchmark ? bench : cards).push_back(r);
  std::printf("recipebook accuracy: %zu current measured rows (%d skipped: model without architecture; %d invalid)\n",
              rows.size(), skipped_model, skipped_invalid);
  std::printf("  %zu benchmark runs (performance tables and cards' pretrain_performance items): fitted and predicted\n"
              "  %zu other card rows (datasets, natural routing, VLM): predicted, never fitted\n\n",
              bench.size(), cards.size());
  if (bench.empty()) return 1;
  print_summary("benchmark runs, leave-one-family-out", bench);
  print_summary("benchmark runs, newest release per configuration", newest_per_configuration(bench));
  print_summary("all rows, card rows included", rows);
  print_group("per GPU (benchmark runs)", bench, [](const Row& r) { return r.point.hardware.name; });
  print_group("per family, predicted with a fit that never saw it (benchmark runs)", bench,
              [](const Row& r) { return r.family; });
  print_group("per precision (benchmark runs)", bench,
              [](const Row& r) { return std::string(precision_name(r.point.layout.precision)); });
  print_group("per mode (benchmark runs)", bench, [](const Row& r) { return std::string(mode_name(r.point.work.mode)); });
  print_group("per family, all rows", rows, [](const Row& r) { return r.family; });
  {
    // Leave one GPU type out: each GPU predicted with a fit that never saw a row of it (its
    // efficiencies stay at the neutral start: no end-to-end figure of that GPU is used).
    std::vector<Row> by_gpu = bench;
    predict_held_out(by_gpu, [](const Row& r) { return r.point.hardware.name; });
    std::printf("\n");
    print_summary("benchmark runs, leave-one-GPU-type-out", by_gpu);
    print_group("per GPU, predicted with a fit that never saw it (benchmark runs)", by_gpu,
                [](const Row& r) { return r.point.hardware.name; });
  }

  std::vector<const Row*> worst;
  for (const Row& r : bench) worst.push_back(&r);
  std::sort(worst.begin(), worst.end(), [](const Row* a, const Row* b) { return ape(*a) > ape(*b); });
  std::printf("\n10 worst benchmark rows\n");
  for (size_t i = 0; i < std::min<size_t>(10, worst.size()); ++i) print_row(*worst[i]);
  std::printf("\ncard rows not fitted (tokens per step depend on the dataset; routing is natural)\n");
  for (const Row& r : cards) print_row(r);

  // Memory: every measured layout ran, so each should be predicted to fit.
  int exact_rows = 0, exact_fit = 0, other_rows = 0, other_fit = 0;
  std::printf("\nmemory: layouts predicted not to fit\n");
  for (const Row& r : rows) {
    const bool fits = r.estimate.memory.worst.fits;
    (r.exact ? exact_rows : other_rows) += 1;
    (r.exact ? exact_fit : other_fit) += fits ? 1 : 0;
    if (!fits)
      std::printf("  %s%s: %.0f of %.0f GB (rank %d)\n", r.exact ? "" : "[features from a later recipe] ", r.label.c_str(),
                  r.estimate.memory.worst.peak_bytes / 1e9, r.estimate.memory.worst.capacity_bytes / 1e9,
                  r.estimate.memory.worst.stage);
  }
  std::printf("  measured layout = recipe layout: %d of %d fit; older rows with other layouts: %d of %d fit\n", exact_fit,
              exact_rows, other_fit, other_rows);

  // The efficiencies fitted on every row (what `calibrate --fit` would write to catalog/hardware).
  std::vector<CalibrationPoint> all;
  for (const Row& r : bench) all.push_back(r.point);
  const CalibrationResult fit = calibrate(all);
  std::printf("\nin-sample fit on all benchmark rows: MAPE %.1f%% -> %.1f%%\n", 100 * fit.mape_before, 100 * fit.mape_after);
  for (const FittedEfficiency& f : fit.fits)
    std::printf("  %-6s %-14s n=%3d  gemm %.3f  nvlink %.3f  scaleout %.3f  MAPE %5.1f%% -> %5.1f%%\n", f.gpu.c_str(),
                std::string(precision_name(f.precision)).c_str(), f.points, f.efficiency.gemm, f.efficiency.nvlink,
                f.efficiency.scaleout, 100 * f.mape_before, 100 * f.mape_after);
  // Records with a single `result` instead of measurements (seed 002), predicted with the full fit.
  for (const RecipeEntry& entry : cat->recipes()) {
    const Recipe& rec = entry.recipe;
    if (!rec.tokens_per_s_per_gpu || !rec.measurements.empty() || !rec.layout_known) continue;
    auto model = cat->find_model(rec.model);
    auto hw = cat->find_hardware(rec.gpu);
    if (!model || !model->has_architecture || !hw) continue;
    auto& pm = prepared[model->name];
    if (!pm) pm = std::make_unique<PreparedModel>(prepare(*model));
    Hardware h = *hw;
    h.efficiency.fill(Efficiency{});  // as the fit's points started
    apply_calibration(fit, h);
    Workload w;
    w.mode = rec.mode;
    w.seq = rec.seq;
    w.gbs = rec.gbs;
    Cluster c;
    c.gpus = rec.gpus;
    c.gpus_per_node = rec.gpus_per_node;
    const Estimate e = estimate(*pm, h, w, c, rec.layout);
    if (!e.valid) continue;
    std::printf("\nresult record %s (%s, %d x %s): predicted %.0f vs measured %.1f tokens/s/GPU (%+.0f%%); "
                "active params %lld; predicted peak %.0f of %.0f GB\n",
                rec.name.c_str(), model->name.c_str(), rec.gpus, h.name.c_str(), e.tokens_per_s_per_gpu,
                *rec.tokens_per_s_per_gpu, 100 * (e.tokens_per_s_per_gpu / *rec.tokens_per_s_per_gpu - 1),
                static_cast<long long>(pm->params.active), e.memory.worst.peak_bytes / 1e9,
                e.memory.worst.capacity_bytes / 1e9);
    print_time(e);
  }
  if (verbose) {
    std::printf("\nevery benchmark row\n");
    for (const Row& r : bench) print_row(r);
  }
  if (!floor.empty() && check_floor(floor, bench) > 0) return 1;
  return 0;
}
