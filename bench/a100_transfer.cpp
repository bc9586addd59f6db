// A100 transfer: predict the published Megatron-LM A100 cluster runs (bench/megatron_a100.hpp,
// bench/data/megatron_a100_selene.csv; GPT 1.7B-1T on 32-3072 A100 of Selene) with A100 efficiencies
// that never saw them, and print MAPE, the signed median error, Spearman over all rows and, within one
// model and global batch (Table 2's GPU-count sweeps), Spearman and the top-1 regret (how much slower
// the layout predicted best runs than the measured best). Evaluation only: nothing here is fitted on
// these rows.
//   build/ci/bench/bench_a100_transfer [--rows FILE]
// Variants of the A100 efficiencies (each row's parts go to --rows FILE, tab-separated):
//   old      the A100 entry before the microbenchmarks: vTrain-fitted gemm 0.7299 on flat defaults,
//            p4de's 50 Gbit/s per GPU (what main ships)
//   old+net  the same efficiencies on the DGX A100 network (8 x 200 Gb/s HDR per node): the network's share
//   catalog  catalog/hardware/a100.yaml as it is now
//   prior    the priors of its published microbenchmarks (estimate/microbench.hpp) and nothing fitted:
//            what a GPU without end-to-end measurements gets
//   vtrain   gemm fitted on vTrain's TP 1 rows (bench/vtrain_a100.hpp) from the prior, within its bound
//   vtrain+c the same with the GEMM width curve's half-point from A100's own GEMM figures (an A/B: the
//            half-point is not a catalog field)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "megatron_a100.hpp"
#include "rank_stats.hpp"
#include "recipebook/catalog/catalog.hpp"
#include "recipebook/estimate/calibrate.hpp"
#include "recipebook/estimate/estimate.hpp"
#include "recipebook/estimate/microbench.hpp"
#include "vtrain_a100.hpp"

namespace {

using namespace rb;

using bench::spearman;

struct Predicted {
  const bench::MegatronRow* row = nullptr;
  Estimate estimate;
  [[nodiscard]] double error() const { return estimate.tokens_per_s_per_gpu / row->point.measured_tokens_per_s_per_gpu - 1.0; }
};

std::vector<Predicted> predict(const bench::MegatronRows& rows, const Hardware& hw) {
  std::vector<Predicted> out;
  for (const bench::MegatronRow& r : rows.rows) {
    const CalibrationPoint& p = r.point;
    out.push_back({&r, estimate(*p.model, hw, p.work, p.cluster, p.layout)});
  }
  return out;
}

void summarize(const char* name, const std::vector<Predicted>& pred) {
  std::vector<double> e, abs_e, p, m;
  for (const Predicted& q : pred) {
    e.push_back(q.error());
    abs_e.push_back(std::abs(q.error()));
    p.push_back(q.estimate.tokens_per_s_per_gpu);
    m.push_back(q.row->point.measured_tokens_per_s_per_gpu);
  }
  double mape = 0;
  for (double x : abs_e) mape += x / static_cast<double>(abs_e.size());
  std::vector<double> sorted = e;
  std::sort(sorted.begin(), sorted.end());
  // Within one model and global batch: Spearman and the top-1 regret.
  std::map<std::string, std::vector<const Predicted*>> groups;
  for (const Predicted& q : pred) groups[q.row->group()].push_back(&q);
  std::string within;
  double worst_regret = 0;
  for (const auto& [g, v] : groups) {
    if (v.size() < 2) continue;
    std::vector<double> gp, gm;
    const Predicted* pick = v.front();
    double best = 0;
    for (const Predicted* q : v) {
      gp.push_back(q->estimate.tokens_per_s_per_gpu);
      gm.push_back(q->row->point.measured_tokens_per_s_per_gpu);
      if (q->estimate.tokens_per_s_per_gpu > pick->estimate.tokens_per_s_per_gpu) pick = q;
      best = std::max(best, q->row->point.measured_tokens_per_s_per_gpu);
    }
    const double regret = 1.0 - pick->row->point.measured_tokens_per_s_per_gpu / best;
    worst_regret = std::max(worst_regret, regret);
    char buf[160];
    std::snprintf(buf, sizeof buf, " %s: Spearman %+.2f, top-1 regret %.1f%%;", g.c_str(), spearman(gp, gm), 100 * regret);
    within += buf;
  }
  std::printf("%-8s n=%zu  MAPE %5.1f%%  signed median %+5.1f%%  Spearman %.3f  worst top-1 regret %.1f%%\n        %s\n",
              name, pred.size(), 100 * mape, 100 * sorted[sorted.size() / 2], spearman(p, m), 100 * worst_regret,
              within.c_str());
}

void print_rows(const std::vector<Predicted>& pred) {
  for (const Predicted& q : pred) {
    const bench::MegatronRow& r = *q.row;
    const Layout& l = r.point.layout;
    const TimeBreakdown& t = q.estimate.time;
    std::printf("  %+5.0f%%  %s %-9s %4d GPUs tp%d pp%d dp%d gbs %4lld: predicted %6.1f, measured %6.1f tokens/s/GPU; step %.2fs:",
                100 * q.error(), r.table.c_str(), r.model.c_str(), r.point.cluster.gpus, l.tp, l.pp, l.dp,
                static_cast<long long>(r.point.work.gbs), q.estimate.tokens_per_s_per_gpu,
                r.point.measured_tokens_per_s_per_gpu, t.step_time_s);
    for (const TimePart& p : kTimeParts)
      if (t.*p.seconds > 0.005 * t.step_time_s)
        std::printf(" %.*s %.0f%%", static_cast<int>(p.label.size()), p.label.data(), 100 * (t.*p.seconds) / t.step_time_s);
    std::printf("\n");
  }
}

void write_rows(std::ofstream& out, const char* variant, const std::vector<Predicted>& pred) {
  for (const Predicted& q : pred) {
    const bench::MegatronRow& r = *q.row;
    const Layout& l = r.point.layout;
    const TimeBreakdown& t = q.estimate.time;
    out << variant << '\t' << r.table << '\t' << r.model << '\t' << r.point.cluster.gpus << '\t' << l.tp << '\t' << l.pp
        << '\t' << l.dp << '\t' << l.mbs << '\t' << r.point.work.gbs << '\t' << r.paper_tflops << '\t'
        << r.point.measured_tokens_per_s_per_gpu << '\t' << q.estimate.tokens_per_s_per_gpu << '\t' << t.step_time_s;
    for (const TimePart& p : kTimeParts) out << '\t' << t.*p.seconds;
    out << '\n';
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string rows_path;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--rows") == 0 && i + 1 < argc) rows_path = argv[++i];
  auto cat = Catalog::load();
  if (!cat) {
    std::fprintf(stderr, "catalog: %s\n", cat.error().str().c_str());
    return 1;
  }
  auto a100 = cat->find_hardware("a100");
  if (!a100) return 1;
  const std::string dir = std::string(RB_SOURCE_DIR) + "/bench/data/";
  const bench::MegatronRows rows = bench::megatron_a100_rows(*cat, dir + "megatron_a100_selene.csv", *a100);
  if (rows.rows.empty()) {
    std::fprintf(stderr, "bench/data/megatron_a100_selene.csv not read\n");
    return 1;
  }

  const EfficiencyPrior pr = efficiency_prior(*a100, Precision::kBf16);
  std::printf("A100 priors from its microbenchmarks: gemm %.3f (half-point %.0f), nvlink ring %.3f, scaleout ring %.3f;"
              " catalog efficiency bf16: gemm %.4f nvlink %.3f scaleout %.3f; scale-out %.2f GB/s per GPU\n\n",
              pr.gemm.value_or(0), pr.gemm_half_dim.value_or(0), pr.nvlink.value_or(0), pr.scaleout.value_or(0),
              a100->eff(Precision::kBf16).gemm, a100->eff(Precision::kBf16).nvlink, a100->eff(Precision::kBf16).scaleout,
              a100->scaleout_bytes_per_s / 1e9);

  Hardware old = *a100;  // main at 033297b: no microbenchmarks, p4de's network, vTrain gemm on flat defaults
  old.microbenchmarks = {};
  old.scaleout_bytes_per_s = 50e9 / 8;
  old.efficiency.fill(Efficiency{});
  for (Efficiency& e : old.efficiency) e.gemm = 0.7299;
  Hardware old_net = old;  // the old efficiencies on the DGX A100 node's network: the network's share of the change
  old_net.scaleout_bytes_per_s = a100->scaleout_bytes_per_s;
  Hardware prior = *a100;
  prior.efficiency.fill(prior_efficiency(*a100, Precision::kBf16));
  // vTrain's TP 1 rows (single node, no TP collectives), gemm only, from the prior and within its bound;
  // `curve`: with the half-point of A100's own GEMM figures instead of Hardware's default (the
  // --microbench-curves A/B of bench_accuracy), in the fit and the predictions alike.
  const bench::VtrainRows v = bench::vtrain_rows(*cat, dir + "vtrain_single_node_a100.csv");
  auto vtrain_fit = [&](bool curve) {
    Hardware hw = prior;
    if (curve) hw.gemm_half_dim = pr.gemm_half_dim.value_or(hw.gemm_half_dim);
    std::vector<CalibrationPoint> tp1;
    for (const auto& p : v.points)
      if (p.point.layout.tp == 1) {
        tp1.push_back(p.point);
        tp1.back().hardware.gemm_half_dim = hw.gemm_half_dim;
      }
    CalibrationOptions gemm_only;
    gemm_only.fit_comm = false;
    const CalibrationResult fit = calibrate(tp1, gemm_only);
    apply_calibration(fit, hw);
    std::printf("vTrain TP 1 fit (%d rows, from the prior, gemm half-point %.0f): gemm %.4f, MAPE %.1f%% -> %.1f%%\n",
                fit.points, hw.gemm_half_dim, hw.eff(Precision::kBf16).gemm, 100 * fit.mape_before, 100 * fit.mape_after);
    return hw;
  };
  const Hardware vtrain = vtrain_fit(false);
  const Hardware vtrain_curve = vtrain_fit(true);
  std::printf("\n");

  std::ofstream out;
  if (!rows_path.empty()) {
    out.open(rows_path);
    out << "variant\ttable\tmodel\tgpus\ttp\tpp\tdp\tmbs\tgbs\tpaper_tflops\tmeasured\tpredicted\tstep_s";
    for (const TimePart& p : kTimeParts) out << '\t' << p.key;
    out << '\n';
  }
  std::printf("Megatron-LM on Selene (%zu rows; measured = the paper's TFLOP/s / its Eq. 3 FLOPs per token)\n",
              rows.rows.size());
  const std::pair<const char*, const Hardware*> variants[] = {
      {"old", &old}, {"old+net", &old_net}, {"catalog", &*a100}, {"prior", &prior}, {"vtrain", &vtrain}, {"vtrain+c", &vtrain_curve}};
  std::map<std::string, std::vector<Predicted>> all;
  for (const auto& [name, hw] : variants) {
    all[name] = predict(rows, *hw);
    summarize(name, all[name]);
    if (out) write_rows(out, name, all[name]);
  }
  for (const auto& [name, hw] : variants) {
    std::printf("\nrows, %s:\n", name);
    print_rows(all[name]);
  }
  return 0;
}
