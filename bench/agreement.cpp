// Agreement with tuned recipes: for every performance recipe of the catalog whose model has an
// architecture and whose GPU has figures, run the planner for the same model, GPU, GPU count,
// global batch, sequence and precision, and report where the recipe's own layout ranks among the
// planner's candidates (by predicted tokens/s/GPU) and the predicted ratio of the planner's best to
// it. A tuned recipe the model ranks low, or predicts far slower than the planner's best, is a place
// where the estimator (or the recipe) is worth a look; the worst cases are listed with the time
// component that differs most. Figures go to BENCHMARKS.md ("Agreement with tuned recipes").
//
//   cmake --preset release -B build/rel && cmake --build build/rel --target bench_agreement
//   build/rel/bench/bench_agreement [--top K] [--threads N] [--worst N] [--filter TEXT] [--csv FILE]
//   build/rel/bench/bench_agreement --recommend-timing   (seconds per `recommend` on seed 004's quick reference)
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/cmd_recommend.hpp"
#include "recipebook/core/units.hpp"
#include "recipebook/emit/catalog_json.hpp"
#include "recipebook/estimate/estimate.hpp"
#include "recipebook/search/layout_rank.hpp"
#include "recipebook/search/planner.hpp"
#include "recipebook/search/recommend.hpp"
#include "recipebook/search/resize.hpp"
#include "stale_catalog.hpp"

namespace {

using namespace rb;

double median(std::vector<double> v);

struct Options {
  int top = 1000;  // candidates kept per search; a recipe below them ranks "> top"
  int threads = 2;
  int worst = 10;
  std::string filter;
  std::string csv;
  bool recommend_timing = false;
  bool verbose = false;  // --verbose: every step-time part of the worst cases, recipe vs plan  // --recommend-timing: time `recommend` on seed 004's quick reference instead
};

// `recommend` on the rows of seed 004's "Quick Reference" (tests/recommend_test.cpp has the same
// rows): wall time per request, the catalog loaded once.
int recommend_timing(const Catalog& catalog) {
  struct Ask {
    const char* model;
    const char* mode;
    int gpus;
    int64_t seq;
  };
  const Ask asks[] = {{"llama3-8b", "sft", 2, 0},        {"llama3-8b", "sft", 8, 0},          {"qwen3-8b", "sft", 4, 0},
                      {"llama3-8b", "peft", 1, 0},       {"qwen3-8b", "peft", 1, 0},          {"llama3-70b", "pretrain", 32, 0},
                      {"llama3-70b", "pretrain", 64, 0}, {"qwen3-30b-a3b", "pretrain", 8, 0}, {"qwen3-235b-a22b", "pretrain", 256, 0},
                      {"qwen3-235b-a22b", "pretrain", 512, 0}, {"llama3-8b", "pretrain", 16, 131072},
                      {"gemma-3-12b", "sft", 4, 0},      {"gemma-3-27b", "sft", 8, 0}};
  std::vector<double> times;
  for (const Ask& a : asks) {
    cli::RecommendOptions o;
    o.model = a.model;
    o.mode = a.mode;
    o.gpu = "h100";
    o.gpus = a.gpus;
    o.seq = a.seq;
    std::ostringstream out, err;
    cli::Context ctx{out, err, {}, true, false};
    std::vector<double> runs;
    int rc = 0;
    for (int i = 0; i < 3; ++i) {
      out.str("");
      const auto t0 = std::chrono::steady_clock::now();
      rc = cli::run_recommend(o, ctx, catalog);
      runs.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    times.push_back(median(runs));
    std::cout << fmt::format("  {} {} on {} x h100{}: {:.3f} s (exit {})\n", a.model, a.mode, a.gpus,
                             a.seq > 0 ? fmt::format(", seq {}", a.seq) : "", times.back(), rc);
  }
  std::cout << fmt::format("recommend, median of 3 per request: median {:.3f} s, slowest {:.3f} s (catalog load not included)\n",
                           median(times), *std::max_element(times.begin(), times.end()));
  return 0;
}

struct Row {
  std::string name;
  std::string gpu;
  int gpus = 0;
  std::string status;  // "ranked", "recipe does not fit", "recipe invalid", "plan found nothing"
  int rank = 0;        // 1 = the planner's best; top + 1 = below the kept candidates
  int candidates = 0;  // layouts that fit (the planner's count)
  double recipe_tps = 0;
  double best_tps = 0;
  double ratio = 0;  // best / recipe
  double measured_tps = 0;
  std::string reason;
  std::string top_part;  // the step-time part the recipe loses most on against the plan's best
  std::string parts;     // every part, recipe vs plan (for --verbose)
  double seconds = 0;
};

// The time components, labelled as in estimate/time.hpp kTimeParts.
std::vector<std::pair<std::string_view, double>> parts(const TimeBreakdown& t) {
  std::vector<std::pair<std::string_view, double>> out;
  for (const TimePart& p : kTimeParts) out.emplace_back(p.label, t.*p.seconds);
  return out;
}

// The step-time part with the largest excess of the recipe over the plan's best.
std::string top_part(const Estimate& re, const Estimate& be) {
  const auto a = parts(re.time), b = parts(be.time);
  size_t best = 0;
  for (size_t i = 1; i < a.size(); ++i)
    if (a[i].second - b[i].second > a[best].second - b[best].second) best = i;
  return std::string(a[best].first);
}

// One line: the layout difference and the step-time parts that differ most (recipe vs plan).
std::string why(const Layout& recipe, const Estimate& re, const Layout& best, const Estimate& be) {
  const auto a = parts(re.time), b = parts(be.time);
  std::vector<std::pair<double, size_t>> diff;
  for (size_t i = 0; i < a.size(); ++i) diff.emplace_back(a[i].second - b[i].second, i);
  std::sort(diff.begin(), diff.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  std::string out = "plan " + layout_summary(best) + "; step " + fmt::format("{:.2f} s vs {:.2f} s", re.step_time_s, be.step_time_s);
  for (size_t k = 0; k < 2 && k < diff.size() && diff[k].first > 0.02 * re.step_time_s; ++k) {
    const size_t i = diff[k].second;
    out += fmt::format("; {} {:.2f} s vs {:.2f} s", a[i].first, a[i].second, b[i].second);
  }
  const auto d = layout_differences(recipe, best);
  if (!d.empty()) {
    std::string joined;
    for (size_t i = 0; i < d.size() && i < 5; ++i) joined += (i ? ", " : "") + d[i];
    out += " [" + joined + "]";
  }
  return out;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--top") o.top = std::stoi(next());
    else if (a == "--threads") o.threads = std::stoi(next());
    else if (a == "--worst") o.worst = std::stoi(next());
    else if (a == "--filter") o.filter = next();
    else if (a == "--csv") o.csv = next();
    else if (a == "--recommend-timing") o.recommend_timing = true;
    else if (a == "--verbose") o.verbose = true;
    else {
      std::cerr << "usage: bench_agreement [--top K] [--threads N] [--worst N] [--filter TEXT] [--csv FILE] [--recommend-timing] [--verbose]\n";
      std::exit(2);
    }
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options opt = parse(argc, argv);
  rb::bench::warn_if_stale_catalog();
  auto catalog = Catalog::load();
  if (!catalog) {
    std::cerr << catalog.error().str() << "\n";
    return 2;
  }
  if (opt.recommend_timing) {
    const auto t0 = std::chrono::steady_clock::now();
    auto again = Catalog::load();
    std::cout << fmt::format("catalog load: {:.3f} s\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    return recommend_timing(*again);
  }
  std::map<std::string, int> skipped;
  std::vector<Row> rows;
  const auto t0 = std::chrono::steady_clock::now();
  for (const RecipeEntry& e : catalog->recipes()) {
    if (e.recipe.kind != RecipeKind::kPerformance) continue;
    if (!opt.filter.empty() && e.recipe.name.find(opt.filter) == std::string::npos) continue;
    const RecipeSetup s = recipe_setup(*catalog, e);
    const Recipe& r = s.recipe;
    if (!s.model || !s.model->has_architecture) { ++skipped["model without architecture"]; continue; }
    if (!s.hardware || !s.hardware->has_specs || s.hardware->memory_bytes <= 0) { ++skipped["GPU without figures"]; continue; }
    if (!s.layout_recorded) { ++skipped["layout not recorded"]; continue; }
    if (r.gbs <= 0 || s.seq <= 0 || r.gpus <= 0) { ++skipped["batch, sequence or GPU count not recorded"]; continue; }
    const Model& m = *s.model;
    const Hardware& hw = *s.hardware;
    const PreparedModel pm = prepare(m);
    const PreparedRuleModel prm = prepare_rule_model(m, &hw);
    Workload w;
    w.mode = r.mode;
    w.seq = s.seq;
    w.gbs = r.gbs;
    Layout l = modelled_layout(m.num_layers(), r.layout);
    if (!r.precision_known) l.precision = Precision::kBf16;
    l.dp = l.model_parallel() > 0 ? r.gpus / l.model_parallel() : 0;

    Row row;
    row.name = r.name;
    row.gpu = hw.name;
    row.gpus = r.gpus;
    row.measured_tps = best_tokens_per_s(r);
    const auto t1 = std::chrono::steady_clock::now();
    PlanRequest req;
    req.gpu_counts = {r.gpus};
    req.gpus_per_node = r.gpus_per_node;
    req.workload = w;
    req.fixed.fix("precision", static_cast<SearchValue>(l.precision));
    req.top_k = opt.top;
    req.threads = opt.threads;
    const PlanInputs in{&pm, &prm, &hw};
    auto res = plan(in, req);
    const LayoutRank lr = res ? rank_layout(in, req, *res, r.gpus, l) : LayoutRank{};
    const Estimate& re = lr.estimate;
    row.recipe_tps = re.tokens_per_s_per_gpu;
    row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
    if (!res) {
      row.status = "plan error";
      row.reason = res.error().message;
    } else if (res->top.empty()) {
      row.status = "plan found nothing";
      row.reason = "no layout fits by the estimate";
    } else {
      const Candidate& best = res->top.front();
      row.candidates = static_cast<int>(res->counts.fit);
      row.best_tps = best.estimate.tokens_per_s_per_gpu;
      if (!re.valid) {
        row.status = "recipe invalid";
        row.reason = std::string("the estimator refuses the recorded layout: ") + std::string(invalid_reason_name(re.reason));
      } else if (!re.fits()) {
        row.status = "recipe does not fit";
        row.reason = "predicted peak " + format_bytes(re.memory.worst.peak_bytes) + " > " +
                     format_bytes(re.memory.worst.capacity_bytes) + "; " + why(l, re, best.layout, best.estimate);
      } else {
        row.status = "ranked";
        row.rank = lr.rank;
        row.ratio = re.tokens_per_s_per_gpu > 0 ? row.best_tps / re.tokens_per_s_per_gpu : 0;
        row.reason = why(l, re, best.layout, best.estimate);
        row.top_part = top_part(re, best.estimate);
        const auto a = parts(re.time), b = parts(best.estimate.time);
        for (size_t i = 0; i < a.size(); ++i)
          if (a[i].second > 0 || b[i].second > 0) row.parts += fmt::format("{} {:.2f}/{:.2f} ", a[i].first, a[i].second, b[i].second);
        row.parts += fmt::format("| peak {} / {}", format_bytes(re.memory.worst.peak_bytes), format_bytes(best.estimate.memory.worst.peak_bytes));
      }
    }
    rows.push_back(std::move(row));
  }
  const double total_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::vector<double> ranks, ratios, times;
  int top10 = 0, top1 = 0, censored = 0;
  std::map<std::string, int> status;
  for (const Row& row : rows) {
    ++status[row.status];
    times.push_back(row.seconds);
    if (row.status != "ranked") continue;
    ranks.push_back(row.rank);
    ratios.push_back(row.ratio);
    top10 += row.rank <= 10 ? 1 : 0;
    top1 += row.rank == 1 ? 1 : 0;
    censored += row.rank > opt.top ? 1 : 0;
  }
  std::cout << fmt::format("performance recipes evaluated: {} ({:.1f} s in all, median {:.3f} s per recipe)\n", rows.size(),
                           total_s, median(times));
  for (const auto& [k, n] : skipped) std::cout << fmt::format("  skipped, {}: {}\n", k, n);
  for (const auto& [k, n] : status) std::cout << fmt::format("  {}: {}\n", k, n);
  if (!ranks.empty()) {
    const double n = static_cast<double>(ranks.size());
    std::cout << fmt::format("ranked recipes: {}\n", ranks.size());
    std::cout << fmt::format("  median rank: {:.0f} (rank > {} counted as {}; {} such)\n", median(ranks), opt.top, opt.top + 1, censored);
    std::cout << fmt::format("  rank 1: {:.1f}%, top 10: {:.1f}%\n", 100 * top1 / n, 100 * top10 / n);
    std::cout << fmt::format("  plan best / recipe, predicted tokens/s/GPU: median {:.3f}, worst {:.3f}\n", median(ratios),
                             *std::max_element(ratios.begin(), ratios.end()));
    int within10 = 0;
    for (double x : ratios) within10 += x <= 1.10 ? 1 : 0;
    std::cout << fmt::format("  recipe within 10% of the plan's best: {:.1f}%\n", 100 * within10 / n);
    std::map<std::string, int> by_part;
    for (const Row& row : rows)
      if (row.status == "ranked" && row.ratio > 1.10) ++by_part[row.top_part];
    std::vector<std::pair<int, std::string>> sorted;
    for (const auto& [k, c] : by_part) sorted.emplace_back(c, k);
    std::sort(sorted.rbegin(), sorted.rend());
    // Where a measurement exists: is the disagreement the recipe's or the estimator's?
    std::vector<double> agree, disagree;
    int beats_plan = 0;
    for (const Row& row : rows) {
      if (row.status != "ranked" || row.measured_tps <= 0 || row.recipe_tps <= 0) continue;
      (row.ratio > 1.10 ? disagree : agree).push_back(row.measured_tps / row.recipe_tps);
      beats_plan += row.ratio > 1.10 && row.measured_tps > row.best_tps ? 1 : 0;
    }
    std::cout << fmt::format(
        "  with a measurement: {} within 10% of the plan (measured / predicted median {:.2f}), {} further "
        "(measured / predicted median {:.2f}; measured above the plan's predicted best in {})\n",
        agree.size(), median(agree), disagree.size(), median(disagree), beats_plan);
    std::cout << "  more than 10% below the plan's best, by the step-time part the recipe loses most on:";
    for (const auto& [c, k] : sorted) std::cout << fmt::format(" {} {},", k, c);
    std::cout << "\n";
  }
  std::vector<const Row*> worst;
  for (const Row& row : rows)
    if (row.status == "ranked") worst.push_back(&row);
  std::sort(worst.begin(), worst.end(), [](const Row* a, const Row* b) { return a->ratio > b->ratio; });
  std::cout << fmt::format("\nworst {} by ratio (rank, plan best / recipe, recipe tokens/s/GPU predicted [measured]):\n", opt.worst);
  for (size_t i = 0; i < worst.size() && static_cast<int>(i) < opt.worst; ++i) {
    const Row& row = *worst[i];
    std::cout << fmt::format("  {} ({} x {}): rank {}{}, {:.2f}x, {:.0f}{}\n      {}\n", row.name, row.gpus, row.gpu,
                             row.rank > opt.top ? ">" : "", std::min(row.rank, opt.top), row.ratio, row.recipe_tps,
                             row.measured_tps > 0 ? fmt::format(" [{:.0f}]", row.measured_tps) : "", row.reason);
    if (opt.verbose) std::cout << "      s/step recipe/plan: " << row.parts << "\n";
  }
  std::cout << "\nnot ranked:\n";
  for (const Row& row : rows)
    if (row.status != "ranked") std::cout << fmt::format("  {} ({} x {}): {}: {}\n", row.name, row.gpus, row.gpu, row.status, row.reason);
  if (!opt.csv.empty()) {
    std::ofstream f(opt.csv);
    f << "name,gpu,gpus,status,rank,fit_candidates,recipe_tps,best_tps,ratio,measured_tps,seconds\n";
    for (const Row& row : rows)
      f << fmt::format("{},{},{},{},{},{},{:.1f},{:.1f},{:.4f},{:.1f},{:.3f}\n", row.name, row.gpu, row.gpus, row.status, row.rank,
                       row.candidates, row.recipe_tps, row.best_tps, row.ratio, row.measured_tps, row.seconds);
  }
  return 0;
}
