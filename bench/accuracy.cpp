// The accuracy harness: predict every current measured row of the catalog (a measurement with
// `current: true` on a recipe whose model has an architecture) with leave-one-model-family-out
// calibration — the efficiencies are fitted on every other family's benchmark runs, then this family
// is predicted — and print the error of tokens/s/GPU on the benchmark runs (performance tables and
// cards' pretrain_performance items), on the newest release of each configuration and on all rows;
// per GPU, family, precision and mode; the Spearman rank correlation; the 10 worst rows with their
// time parts; every card row that trains on a dataset (predicted, never fitted); and whether every
// measured layout is predicted to fit in memory. Figures go to BENCHMARKS.md.
//   cmake --preset release -B build/rel && cmake --build build/rel --target bench_accuracy
//   build/rel/bench/bench_accuracy [--verbose] [--fixed-curves] [--microbench-curves] [--rows FILE]
//   (--rows writes one tab-separated line per benchmark row, family held out: its layout, measured and
//   predicted tokens/s/GPU and every time part in seconds)
//   (the GEMM size half-points are chosen inside each fold; --fixed-curves keeps Hardware's defaults in
//   every fold, ~9x faster. The last section predicts vTrain's A100 rows, bench/vtrain_a100.hpp.)
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
#include "recipebook/estimate/microbench.hpp"
#include "recipebook/estimate/prepared.hpp"
#include "rank_stats.hpp"
#include "stale_catalog.hpp"
#include "vtrain_a100.hpp"

namespace {

using namespace rb;

struct Row : MeasuredPoint {
  double predicted = 0;
  Estimate estimate;
};

double ape(const Row& r) { return std::abs(r.predicted / r.point.measured_tokens_per_s_per_gpu - 1.0); }

using bench::spearman;

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

// The GEMM size curves' half-points (Hardware::gemm_half_dim, expert_half_dim) are not fitted by
// `calibrate`; they are chosen here, inside each fold, from a grid around the defaults by the fitted
// in-sample error on that fold's training rows only, so the held-out figure never depends on a
// value that saw the held-out rows. `choose_curves` over every benchmark run gives the defaults.
struct Curves {
  double gemm_half_dim = 1024, expert_half_dim = 4096;
};
constexpr double kGemmHalfGrid[] = {512, 1024, 2048};
constexpr double kExpertHalfGrid[] = {2048, 4096, 8192};
bool g_fixed_curves = false;  // --fixed-curves: the defaults in every fold (the figure before the fold-wise choice)
// --microbench-curves: a GPU whose published GEMM figures give a curve (estimate/microbench.hpp) takes
// its BF16 half-point as the dense half-point instead of the fold's (an A/B, BENCHMARKS.md).
bool g_microbench_curves = false;

void set_curves(Hardware& hw, const Curves& c) {
  hw.gemm_half_dim = c.gemm_half_dim;
  hw.expert_half_dim = c.expert_half_dim;
  if (g_microbench_curves)
    if (auto curve = fit_gemm_curve(hw, Precision::kBf16)) hw.gemm_half_dim = curve->half_dim;
}

// Calibrates on `train` with each grid point's curves; returns the best one and its fit.
std::pair<Curves, CalibrationResult> choose_curves(std::vector<CalibrationPoint> train) {
  std::pair<Curves, CalibrationResult> best;
  double best_mape = 1e300;
  for (double g : kGemmHalfGrid) {
    for (double e : kExpertHalfGrid) {
      const Curves c = g_fixed_curves ? Curves{} : Curves{g, e};
      if (g_fixed_curves && (g != kGemmHalfGrid[1] || e != kExpertHalfGrid[1])) continue;
      for (CalibrationPoint& p : train) set_curves(p.hardware, c);
      CalibrationResult fit = calibrate(train);
      if (fit.mape_after < best_mape) best_mape = fit.mape_after, best = {c, std::move(fit)};
    }
  }
  return best;
}

// Predicts every row with efficiencies (and size curves) fitted on the benchmark rows of the other
// groups (`group`: a family, a GPU type): the error on rows the fit never saw. A group whose GPU no
// other group has keeps the neutral starting efficiencies.
template <typename Group>
void predict_held_out(std::vector<Row>& rows, Group group, const char* what) {
  std::vector<std::string> groups;
  for (const Row& r : rows)
    if (std::find(groups.begin(), groups.end(), group(r)) == groups.end()) groups.push_back(group(r));
  std::printf("size curves chosen per fold (%s held out): gemm_half_dim / expert_half_dim\n ", what);
  for (const std::string& g : groups) {
    std::vector<CalibrationPoint> train;
    for (const Row& r : rows)
      if (group(r) != g && r.benchmark) train.push_back(r.point);
    const auto [curves, fit] = choose_curves(train);
    std::printf(" %s %.0f/%.0f", g.c_str(), curves.gemm_half_dim, curves.expert_half_dim);
    for (Row& r : rows) {
      if (group(r) != g) continue;
      Hardware hw = r.point.hardware;
      set_curves(hw, curves);
      apply_calibration(fit, hw);
      r.estimate = estimate(*r.point.model, hw, r.point.work, r.point.cluster, r.point.layout);
      r.predicted = r.estimate.tokens_per_s_per_gpu;
    }
  }
  std::printf("\n\n");
}

// What each GPU's published microbenchmarks give the fit (estimate/microbench.hpp): the GEMM curve's
// asymptote and half-point per precision, the links' ring prior and bound.
void print_priors(const Catalog& cat) {
  std::printf("priors from published microbenchmarks (catalog `microbenchmarks:`)\n");
  for (const HardwareEntry& e : cat.hardware()) {
    const Hardware& hw = e.hardware;
    if (hw.microbenchmarks.empty()) continue;
    std::printf("  %-6s gemm/ep/collective figures %zu/%zu/%zu:", hw.name.c_str(), hw.microbenchmarks.gemm.size(),
                hw.microbenchmarks.ep.size(), hw.microbenchmarks.collectives.size());
    for (Precision p : {Precision::kBf16, Precision::kFp8Cs}) {
      if (auto c = fit_gemm_curve(hw, p))
        std::printf(" %s gemm %.3f half %.0f;", std::string(precision_name(p)).c_str(), c->asymptote, c->half_dim);
    }
    for (Precision p : {Precision::kBf16, Precision::kFp8Blockwise}) {
      if (auto c = fit_grouped_gemm_curve(hw, p))
        std::printf(" %s grouped gemm %.3f half %.0f;", std::string(precision_name(p)).c_str(), c->asymptote, c->half_dim);
    }
    const EfficiencyPrior pr = efficiency_prior(hw, Precision::kBf16);
    if (pr.nvlink_max) std::printf(" nvlink ring %s (max %.3f);", pr.nvlink ? std::to_string(*pr.nvlink).substr(0, 5).c_str() : "none", *pr.nvlink_max);
    if (pr.scaleout_max) std::printf(" scaleout ring %s (max %.3f);", pr.scaleout ? std::to_string(*pr.scaleout).substr(0, 5).c_str() : "none", *pr.scaleout_max);
    std::printf("\n");
  }
  std::printf("\n");
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

// A100 from the vTrain rows (vtrain_a100.hpp), the only A100 measurements: (1) with neutral
// efficiencies (a fit that never saw an A100 row: the catalog's benchmark runs have none); (2) leave
// one model size out: A100 fitted on the other seven sizes, this one predicted; (3) fitted on the
// hidden-1024 models, the hidden-2048 ones predicted. Returns the in-sample fit on every row (what
// catalog/hardware/a100.yaml records).
void print_errors(const char* title, const std::vector<double>& pred, const std::vector<double>& meas) {
  std::vector<double> e;
  double sum = 0;
  for (size_t i = 0; i < pred.size(); ++i) e.push_back(std::abs(pred[i] / meas[i] - 1.0)), sum += e.back();
  if (e.empty()) return;
  std::sort(e.begin(), e.end());
  std::printf("%-52s n=%4zu  MAPE %5.1f%%  median %5.1f%%  p90 %5.1f%%  Spearman %.3f\n", title, e.size(),
              100 * sum / static_cast<double>(e.size()), 100 * e[e.size() / 2], 100 * e[e.size() * 9 / 10],
              spearman(pred, meas));
}

void a100_section(const Catalog& cat) {
  const bench::VtrainRows v = bench::vtrain_rows(cat, std::string(RB_SOURCE_DIR) + "/bench/data/vtrain_single_node_a100.csv");
  if (v.points.empty()) {
    std::printf("\nA100 (vTrain rows): bench/data/vtrain_single_node_a100.csv not read\n");
    return;
  }
  auto predict_with = [](const CalibrationPoint& p, const CalibrationResult* fit) {
    Hardware hw = p.hardware;
    if (fit != nullptr) apply_calibration(*fit, hw);
    return estimate(*p.model, hw, p.work, p.cluster, p.layout).tokens_per_s_per_gpu;
  };
  CalibrationOptions gemm_only;
  gemm_only.fit_comm = false;
  auto run = [&](const char* title, auto train_if, auto test_if) {
    std::vector<std::string> folds;
    for (const auto& p : v.points)
      if (std::find(folds.begin(), folds.end(), test_if(p)) == folds.end()) folds.push_back(test_if(p));
    std::vector<double> pred, meas;
    for (const std::string& f : folds) {
      if (f.empty()) continue;
      std::vector<CalibrationPoint> train;
      for (const auto& p : v.points)
        if (train_if(p, f)) train.push_back(p.point);
      const CalibrationResult fit = calibrate(train, gemm_only);
      for (const auto& p : v.points)
        if (test_if(p) == f) pred.push_back(predict_with(p.point, &fit)), meas.push_back(p.point.measured_tokens_per_s_per_gpu);
    }
    print_errors(title, pred, meas);
  };
  std::printf("\nA100 (vTrain, %zu rows of 8 GPT sizes on 2-8 A100-80GB; Megatron-DeepSpeed, full recompute)\n",
              v.points.size());
  std::vector<double> pred, meas;
  for (const auto& p : v.points) pred.push_back(predict_with(p.point, nullptr)), meas.push_back(p.point.measured_tokens_per_s_per_gpu);
  print_errors("A100 held out (neutral efficiencies, no A100 row fitted)", pred, meas);
  run("A100 leave-one-model-size-out", [](const bench::VtrainPoint& p, const std::string& f) { return p.size != f; },
      [](const bench::VtrainPoint& p) { return p.size; });
  // TP 1 rows only: no TP collectives, whose small messages (2-16 MB per all-reduce here) the
  // bandwidth-plus-latency model prices far too fast (median signed error below, by TP).
  auto tp1 = [](const bench::VtrainPoint& p) { return p.point.layout.tp == 1; };
  run("A100 TP 1 rows, leave-one-model-size-out",
      [&](const bench::VtrainPoint& p, const std::string& f) { return tp1(p) && p.size != f; },
      [&](const bench::VtrainPoint& p) { return tp1(p) ? p.size : std::string(); });
  run("A100 TP 1 rows, fitted on hidden 1024, predicted hidden 2048",
      [&](const bench::VtrainPoint& p, const std::string&) { return tp1(p) && p.size.rfind("h1024", 0) == 0; },
      [&](const bench::VtrainPoint& p) { return tp1(p) && p.size.rfind("h2048", 0) == 0 ? std::string("h2048") : std::string(); });
  {
    std::vector<CalibrationPoint> t1;
    for (const auto& p : v.points)
      if (tp1(p)) t1.push_back(p.point);
    const CalibrationResult fit = calibrate(t1, gemm_only);
    std::vector<double> pred_all, meas_all;
    for (const auto& p : v.points)
      pred_all.push_back(predict_with(p.point, &fit)), meas_all.push_back(p.point.measured_tokens_per_s_per_gpu);
    for (const FittedEfficiency& f : fit.fits)
      std::printf("  fit on the %d TP 1 rows (gemm only; catalog/hardware/a100.yaml): %s gemm %.4f, MAPE %.1f%% -> %.1f%%\n",
                  f.points, std::string(precision_name(f.precision)).c_str(), f.efficiency.gemm, 100 * f.mape_before,
                  100 * f.mape_after);
    print_errors("A100, every row, with that fit", pred_all, meas_all);
  }
  run("A100 fitted on hidden 1024, predicted hidden 2048",
      [](const bench::VtrainPoint& p, const std::string&) { return p.size.rfind("h1024", 0) == 0; },
      [](const bench::VtrainPoint& p) { return p.size.rfind("h2048", 0) == 0 ? std::string("h2048") : std::string(); });
  std::vector<CalibrationPoint> all;
  for (const auto& p : v.points) all.push_back(p.point);
  for (const bool comm : {false, true}) {
    CalibrationOptions o;
    o.fit_comm = comm;
    const CalibrationResult fit = calibrate(all, o);
    for (const FittedEfficiency& f : fit.fits)
      std::printf("  in-sample fit on all %d rows%s: %s gemm %.4f nvlink %.4f scaleout %.4f, MAPE %.1f%% -> %.1f%%\n",
                  f.points, comm ? " (gemm and links)" : " (gemm only)",
                  std::string(precision_name(f.precision)).c_str(), f.efficiency.gemm, f.efficiency.nvlink,
                  f.efficiency.scaleout, 100 * f.mape_before, 100 * f.mape_after);
    if (comm) continue;
    // Signed error (median of predicted / measured - 1) by TP, PP and micro batch: where the model misses.
    std::map<std::string, std::vector<double>> by;
    for (const auto& p : v.points) {
      const double e = predict_with(p.point, &fit) / p.point.measured_tokens_per_s_per_gpu - 1.0;
      by["tp " + std::to_string(p.point.layout.tp)].push_back(e);
      by["pp " + std::to_string(p.point.layout.pp)].push_back(e);
      by["mbs " + std::to_string(p.point.layout.mbs)].push_back(e);
      by[p.size].push_back(e);
    }
    std::printf("   median signed error:");
    for (auto& [k, e] : by) {
      std::sort(e.begin(), e.end());
      std::printf(" %s %+.0f%%", k.c_str(), 100 * e[e.size() / 2]);
    }
    std::printf("\n");
  }
}

// --rows FILE: every benchmark row as held out, one tab-separated line with its layout and time parts.
void write_rows(const std::string& path, const std::vector<Row>& bench) {
  std::ofstream out(path);
  out << "label\tfamily\tgpu\tprecision\tgpus\ttp\tpp\tvp\tcp\tep\tetp\tmbs\tgbs\tseq\tdispatcher\ta2a_overlap"
         "\trecompute\tmeasured\tpredicted\tstep_s";
  for (const TimePart& p : kTimeParts) out << '\t' << p.key;
  out << '\n';
  for (const Row& r : bench) {
    const Layout& l = r.point.layout;
    const TimeBreakdown& t = r.estimate.time;
    out << r.label << '\t' << r.family << '\t' << r.point.hardware.name << '\t' << precision_name(l.precision) << '\t'
        << r.point.cluster.gpus << '\t' << l.tp << '\t' << l.pp << '\t' << l.vp << '\t' << l.cp << '\t' << l.ep << '\t'
        << l.etp << '\t' << l.mbs << '\t' << r.point.work.gbs << '\t' << r.point.work.seq << '\t'
        << dispatcher_name(l.dispatcher) << '\t' << (l.ep_a2a_overlap ? 1 : 0) << '\t' << static_cast<int>(l.recompute)
        << '\t' << r.point.measured_tokens_per_s_per_gpu << '\t' << r.predicted << '\t' << t.step_time_s;
    for (const TimePart& p : kTimeParts) out << '\t' << t.*p.seconds;
    out << '\n';
  }
}

int main(int argc, char** argv) {
  std::string floor, rows_path;
  bool verbose_flag = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--floor") == 0 && i + 1 < argc) floor = argv[++i];
    if (std::strcmp(argv[i], "--fixed-curves") == 0) g_fixed_curves = true;
    if (std::strcmp(argv[i], "--microbench-curves") == 0) g_microbench_curves = true;
    if (std::strcmp(argv[i], "--verbose") == 0) verbose_flag = true;
    if (std::strcmp(argv[i], "--rows") == 0 && i + 1 < argc) rows_path = argv[++i];
  }
  rb::bench::warn_if_stale_catalog();
  auto cat = Catalog::load();
  if (!cat) {
    std::fprintf(stderr, "catalog: %s\n", cat.error().str().c_str());
    return 1;
  }
  print_priors(*cat);
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
  predict_held_out(rows, [](const Row& r) { return r.family; }, "family");
  std::vector<Row> bench, cards;
  for (const Row& r : rows) (r.benchmark ? bench : cards).push_back(r);
  std::printf("recipebook accuracy: %zu current measured rows (%d skipped: model without architecture; %d invalid)\n",
              rows.size(), skipped_model, skipped_invalid);
  std::printf("  %zu benchmark runs (performance tables and cards' pretrain_performance items): fitted and predicted\n"
              "  %zu other card rows (datasets, natural routing, VLM): predicted, never fitted\n\n",
              bench.size(), cards.size());
  if (bench.empty()) return 1;
  print_summary("benchmark runs, leave-one-family-out", bench);
  if (!rows_path.empty()) write_rows(rows_path, bench);
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
    predict_held_out(by_gpu, [](const Row& r) { return r.point.hardware.name; }, "GPU type");
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
  const auto [all_curves, fit] = choose_curves(all);
  std::printf("\nin-sample fit on all benchmark rows: MAPE %.1f%% -> %.1f%%; size curves chosen on them: "
              "gemm_half_dim %.0f, expert_half_dim %.0f (Hardware's defaults)\n",
              100 * fit.mape_before, 100 * fit.mape_after, all_curves.gemm_half_dim, all_curves.expert_half_dim);
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
    set_curves(h, all_curves);
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
  a100_section(*cat);
  if (verbose_flag) {
    std::printf("\nevery benchmark row\n");
    for (const Row& r : bench) print_row(r);
  }
  if (!floor.empty() && check_floor(floor, bench) > 0) return 1;
  return 0;
}
