// `recipebook calibrate --fit --catalog DIR`: the user's own cluster (cmd_calibrate_fit.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <memory>
#include <ostream>

#include "recipebook/catalog/embedded.hpp"
#include "recipebook/catalog/measured_points.hpp"
#include "recipebook/catalog/model_source.hpp"
#include "recipebook/catalog_access.hpp"
#include "recipebook/cmd_calibrate_fit.hpp"
#include "recipebook/emit/atomic_file.hpp"
#include "recipebook/emit/catalog_json.hpp"
#include "recipebook/emit/table.hpp"
#include "recipebook/estimate/calibrate_cluster.hpp"
#include "recipebook/estimate/estimate.hpp"

namespace rb::cli {
namespace {

namespace fs = std::filesystem;

// What the written file says it is, and what lets a later fit replace it.
constexpr std::string_view kMark = "written by `recipebook calibrate --fit --catalog`";

struct OwnRun {
  std::string name;  // the record's name, "@release" for a `measurements` entry
  std::string gpu;   // hardware catalog name
  CalibrationPoint point;
};

struct OwnRuns {
  std::map<std::string, std::unique_ptr<PreparedModel>> models;  // owns what the points point at
  std::vector<OwnRun> runs;
  std::vector<Error> skipped;  // a measured run that cannot be estimated: where and why
  int records = 0;             // records read from the --catalog folders
};

// Every measured run of the --catalog folders' records: the record's `result` (its own layout) and
// each current `measurements` entry (measured_run: the entry's degrees over the record's).
OwnRuns own_runs(const Catalog& cat) {
  OwnRuns out;
  for (const RecipeEntry& entry : cat.recipes()) {
    if (entry.origin == "builtin") continue;
    ++out.records;
    const Recipe& rec = entry.recipe;
    std::vector<Measurement> measured;
    if (rec.tokens_per_s_per_gpu && *rec.tokens_per_s_per_gpu > 0) {
      Measurement m;
      m.release = "result";
      m.tokens_per_s_per_gpu = *rec.tokens_per_s_per_gpu;
      measured.push_back(m);
    }
    for (const Measurement& m : rec.measurements)
      if (m.current && m.tokens_per_s_per_gpu > 0) measured.push_back(m);
    for (const Measurement& m : measured) {
      const std::string name = m.release == "result" ? rec.name : rec.name + "@" + m.release;
      auto skip = [&](const std::string& why) { out.skipped.emplace_back(name + ": " + why, rec.where); };
      auto model = cat.find_model(rec.model);
      if (!model) {
        skip("model: " + model.error().message);
        continue;
      }
      if (!model->has_architecture || model->layers.empty()) {
        skip(no_architecture_reason(*model));
        continue;
      }
      auto hw = cat.find_hardware(m.gpu.empty() ? rec.gpu : m.gpu);
      if (!hw) {
        skip("GPU: " + hw.error().message);
        continue;
      }
      if (!hw->has_specs) {
        skip("the catalog has no memory or peak figures for " + hw->name);
        continue;
      }
      auto run = measured_run(rec, m, *model);
      if (!run) {
        skip("its TP x PP x CP do not divide its GPU count");
        continue;
      }
      auto& pm = out.models[model->name];
      if (!pm) pm = std::make_unique<PreparedModel>(prepare(*model));
      OwnRun r{name, hw->name, {pm.get(), *hw, run->work, run->cluster, run->layout, m.tokens_per_s_per_gpu}};
      const Estimate e = estimate(*pm, r.point.hardware, r.point.work, r.point.cluster, r.point.layout);
      if (!e.valid) {
        skip("the estimator refuses its layout (" + std::string(invalid_reason_name(e.reason)) + ")");
        continue;
      }
      out.runs.push_back(std::move(r));
    }
  }
  return out;
}

// "h100-my-cluster": lower case, every other character a '-', as hardware names are spelled.
std::string hardware_name(const std::string& gpu, const std::string& cluster) {
  std::string c;
  for (char ch : cluster) {
    const auto u = static_cast<unsigned char>(ch);
    const char lc = static_cast<char>(std::tolower(u));
    const bool keep = (lc >= 'a' && lc <= 'z') || (lc >= '0' && lc <= '9');
    if (keep)
      c += lc;
    else if (!c.empty() && c.back() != '-')
      c += '-';
  }
  while (!c.empty() && c.back() == '-') c.pop_back();
  if (c.empty()) c = "cluster";
  return gpu + "-" + c;
}

// The folder's own name ("runs/eos/" and "." name their folder).
std::string folder_name(const std::string& dir) {
  std::error_code ec;
  fs::path p = fs::absolute(dir, ec).lexically_normal();
  if (!p.has_filename()) p = p.parent_path();
  return p.filename().string();
}

// The base GPU's hardware file as written (built in or from a --catalog folder).
Result<std::string> hardware_text(const HardwareEntry& e) {
  const std::string& file = e.tree.where.file;
  constexpr std::string_view kBuiltin = "builtin:";
  if (file.rfind(kBuiltin, 0) == 0) {
    for (const auto& f : embedded_catalog())
      if (f.path == file.substr(kBuiltin.size())) return std::string(f.text);
    return fail("the built-in catalog has no file " + file);
  }
  return read_text_file(file);
}

// The cluster's hardware file: the base GPU's with its name, display name and efficiencies replaced
// and its aliases dropped (they name the base GPU). `fitted_what`: "on 4 measured run(s) in DIR: gemm x0.947".
std::string cluster_yaml(const std::string& base_text, const Hardware& fitted, const Hardware& base,
                         const std::string& base_file, const std::string& fitted_what) {
  std::string body;
  bool header = true;  // the base file's leading comments describe the base file
  for (size_t at = 0; at < base_text.size();) {
    const size_t nl = base_text.find('\n', at);
    const std::string line = base_text.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
    at = nl == std::string::npos ? base_text.size() : nl + 1;
    if (header && line.rfind('#', 0) == 0) continue;
    header = false;
    body += line + "\n";
  }
  body = replace_top_level(body, "name", "name: " + fitted.name + "\n");
  body = replace_top_level(body, "display", fmt::format("display: \"{}\"\n", fitted.display));
  body = replace_top_level(body, "aliases", "");
  body = replace_top_level(body, "efficiency", efficiency_block(fitted, "fitted " + fitted_what));
  return fmt::format("# {}: {} (refit: run it again).\n"
                     "# Figures from {} ({}; format: docs/catalog-format.md);\n"
                     "# efficiencies {}'s, fitted {}.\n",
                     fitted.name, kMark, base.name, base_file, base.name, fitted_what) +
         body;
}

const char* held_why(ClusterHeld h) {
  switch (h) {
    case ClusterHeld::kFitted: return "fitted";
    case ClusterHeld::kNoRunDependsOnIt: return "no run depends on it";
    case ClusterHeld::kNotSeparable: return "the runs cannot tell it from the fields fitted";
    case ClusterHeld::kNeedsMoreRuns: return "needs more runs (two per field)";
    case ClusterHeld::kNoGain: return "fitting it lowers the error less than 1%";
  }
  return "";
}

std::string layout_str(const Layout& l) {
  std::string s = fmt::format("TP{} PP{}", l.tp, l.pp);
  if (l.vp > 1) s += fmt::format(" VP{}", l.vp);
  if (l.cp > 1) s += fmt::format(" CP{}", l.cp);
  if (l.ep > 1) s += fmt::format(" EP{}", l.ep);
  return s + fmt::format(" DP{} MBS{}", l.dp, l.mbs);
}

}  // namespace

int run_calibrate_fit_cluster(const CalibrateFitOptions& o, const Context& ctx) {
  auto cat = load_catalog(ctx);
  if (!cat) return kExitUsage;
  const std::string dir = ctx.catalog_dirs.back();
  std::string dirs;
  for (const auto& d : ctx.catalog_dirs) dirs += (dirs.empty() ? "" : ", ") + d;
  const Where where_dirs{dirs, 0, 0};
  OwnRuns own = own_runs(*cat);
  for (const Diagnostic& d : cat->problems())
    if (d.severity == Severity::kError && d.where.file.rfind("builtin:", 0) != 0)
      ctx.err << "warning: not read: " << d.str() << "\n";
  if (own.runs.empty() && own.skipped.empty())
    return report(ctx, Error(fmt::format("no measured runs: none of the {} record(s) under recipes/ has a "
                                         "`result.tokens_per_s_per_gpu` or a current `measurements` entry",
                                         own.records),
                             where_dirs, "fill a record's result from its log: recipebook calibrate LOG --recipe FILE"));
  // The GPU type: --gpu, else the one the runs share.
  std::string gpu;
  if (!o.gpu.empty()) {
    auto hw = cat->find_hardware(o.gpu);
    if (!hw) return report(ctx, Error(hw.error().message, Where{"--gpu", 0, 0}, hw.error().fix));
    gpu = hw->name;
  }
  std::map<std::string, int> by_gpu;
  for (const OwnRun& r : own.runs) ++by_gpu[r.gpu];
  auto gpu_list = [&] {
    std::string list;
    for (const auto& [g, n] : by_gpu) list += fmt::format("{}{} ({} run{})", list.empty() ? "" : ", ", g, n, n == 1 ? "" : "s");
    return list;
  };
  if (o.gpu.empty()) {
    if (by_gpu.size() > 1) {
      return report(ctx, Error("the runs are on several GPU types: " + gpu_list(), where_dirs,
                               "fit one at a time: --gpu " + by_gpu.begin()->first));
    }
    if (!by_gpu.empty()) gpu = by_gpu.begin()->first;
  }
  if (!o.gpu.empty() && by_gpu.count(gpu) == 0 && !by_gpu.empty()) {
    return report(ctx, Error("no measured run on " + gpu + ": the runs are on " + gpu_list(), Where{"--gpu", 0, 0},
                             "--gpu " + by_gpu.begin()->first));
  }
  std::vector<OwnRun> runs;
  for (OwnRun& r : own.runs)
    if (r.gpu == gpu) runs.push_back(std::move(r));
  if (runs.empty()) {
    std::string why = gpu.empty() ? "none of the measured runs can be estimated"
                                  : "no measured run on " + gpu + " can be estimated";
    for (const Error& e : own.skipped) why += "; " + e.str();
    return report(ctx, Error("too few runs to fit: " + why, where_dirs,
                             "records need a model with an architecture, a known GPU and degrees that divide their GPUs"));
  }
  for (const Error& e : own.skipped) ctx.err << "warning: not fitted: " << e.str() << "\n";

  std::vector<CalibrationPoint> points;
  for (const OwnRun& r : runs) points.push_back(r.point);
  const ClusterFit fit = fit_cluster(points);
  if (std::all_of(fit.held.begin(), fit.held.end(), [](ClusterHeld h) { return h == ClusterHeld::kNoRunDependsOnIt; }))
    return report(ctx, Error(fmt::format("too few runs to fit: the {} run(s) on {} depend on no efficiency field "
                                         "(each moves less than 0.5% when one is 10% lower)",
                                         fit.runs, gpu),
                             where_dirs));

  // The cluster's file, written before anything is printed: a refusal prints only the error.
  const HardwareEntry* base = cat->hardware_entry(gpu);
  if (base == nullptr) return report(ctx, Error("the catalog has no hardware entry " + gpu, Where{"--gpu", 0, 0}));
  Hardware fitted = base->hardware;
  apply_cluster_fit(fit, fitted);
  const std::string base_name = fitted.name;
  fitted.name = hardware_name(base_name, o.cluster.empty() ? folder_name(dir) : o.cluster);
  fitted.display = base->hardware.display + " (" + fitted.name.substr(base_name.size() + 1) + ")";
  const std::string out_path = o.out.empty() ? (fs::path(dir) / "hardware" / (fitted.name + ".yaml")).string() : o.out;
  auto text = hardware_text(*base);
  if (!text) return report(ctx, text.error());
  std::error_code ec;
  if (fs::exists(out_path, ec)) {
    auto old = read_text_file(out_path);
    if (!old || old->find(kMark) == std::string::npos)
      return report(ctx, Error(out_path + " exists and was not written by calibrate --fit --catalog", Where{"--out", 0, 0},
                               "pass another --out, or remove the file"));
  }
  std::string factors;
  for (ClusterParam p : fit.fitted)
    factors += fmt::format("{}{} x{:.3f}", factors.empty() ? "" : ", ", cluster_param_name(p),
                           fit.factor[static_cast<size_t>(p)]);
  const std::string fitted_what = fmt::format("on {} measured run(s) in {}: {}", fit.runs, dirs,
                                              factors.empty() ? "none moved" : factors);
  auto written = write_files_atomic(
      {{out_path, cluster_yaml(*text, fitted, base->hardware, base->tree.where.file, fitted_what)}}, /*overwrite=*/true);
  if (!written) return report(ctx, written.error());
  if (o.out.empty())
    ctx.err << fmt::format("calibrate: wrote {} (hardware `{}`: estimate or plan with --catalog {} --gpu {})\n",
                           out_path, fitted.name, dir, fitted.name);
  else
    ctx.err << fmt::format("calibrate: wrote {} (hardware `{}`: put it in a catalog folder's hardware/ to use it)\n",
                           out_path, fitted.name);

  std::vector<Precision> precisions;
  for (const OwnRun& r : runs)
    if (std::find(precisions.begin(), precisions.end(), r.point.layout.precision) == precisions.end())
      precisions.push_back(r.point.layout.precision);

  if (ctx.json) {
    Json j;
    j["gpu"] = gpu;
    j["hardware"] = fitted.name;
    j["file"] = out_path;
    j["runs"] = Json::array();
    for (size_t i = 0; i < runs.size(); ++i) {
      const double m = runs[i].point.measured_tokens_per_s_per_gpu;
      j["runs"].push_back({{"name", runs[i].name}, {"gpus", runs[i].point.cluster.gpus},
                           {"layout", layout_str(runs[i].point.layout)},
                           {"precision", std::string(precision_name(runs[i].point.layout.precision))},
                           {"measured_tokens_per_s_per_gpu", m}, {"before_tokens_per_s_per_gpu", fit.before[i]},
                           {"after_tokens_per_s_per_gpu", fit.after[i]}, {"error_before", fit.before[i] / m - 1},
                           {"error_after", fit.after[i] / m - 1}});
    }
    j["mape_before"] = fit.mape_before;
    j["mape_after"] = fit.mape_after;
    j["fields"] = Json::array();
    for (int f = 0; f < kNumClusterParams; ++f) {
      const auto k = static_cast<size_t>(f);
      j["fields"].push_back({{"field", cluster_param_name(static_cast<ClusterParam>(f))},
                             {"fitted", fit.held[k] == ClusterHeld::kFitted}, {"why", held_why(fit.held[k])},
                             {"factor", fit.factor[k]}, {"max_sensitivity", fit.max_sensitivity[k]}});
    }
    j["efficiency"] = Json::object();
    for (Precision p : precisions) {
      const Efficiency& e = fitted.eff(p);
      j["efficiency"][std::string(precision_name(p))] = {{"gemm", e.gemm},     {"attention", e.attention},
                                                         {"hbm", e.hbm},       {"nvlink", e.nvlink},
                                                         {"scaleout", e.scaleout}, {"overlap", e.overlap}};
    }
    ctx.out << j.dump(2) << "\n";
  } else {
    ctx.out << fmt::format("fitted {} on {} measured run(s) in {} (only the --catalog folders' records; the built-in "
                           "ones are not fitted), starting from {}'s catalog efficiencies\n",
                           gpu, fit.runs, dirs, gpu);
    std::string moved, kept;
    for (int f = 0; f < kNumClusterParams; ++f) {
      const auto k = static_cast<size_t>(f);
      const char* name = cluster_param_name(static_cast<ClusterParam>(f));
      if (fit.held[k] == ClusterHeld::kFitted)
        moved += fmt::format("{}{} x{:.3f}", moved.empty() ? "" : ", ", name, fit.factor[k]);
      else
        kept += fmt::format("{}{} ({})", kept.empty() ? "" : ", ", name, held_why(fit.held[k]));
    }
    ctx.out << "fields fitted: " << (moved.empty() ? "none (the catalog's values fit these runs best)" : moved) << "\nkept at the catalog's value: " << kept << "\n\n";
    Table t({{"run"}, {"GPUs", Align::kRight}, {"layout"}, {"precision"}, {"measured", Align::kRight},
             {"before", Align::kRight}, {"error", Align::kRight}, {"after", Align::kRight}, {"error", Align::kRight}});
    for (size_t i = 0; i < runs.size(); ++i) {
      const double m = runs[i].point.measured_tokens_per_s_per_gpu;
      t.add_row({runs[i].name, std::to_string(runs[i].point.cluster.gpus), layout_str(runs[i].point.layout),
                 std::string(precision_name(runs[i].point.layout.precision)), fmt::format("{:.0f}", m),
                 fmt::format("{:.0f}", fit.before[i]), fmt::format("{:+.1f}%", 100 * (fit.before[i] / m - 1)),
                 fmt::format("{:.0f}", fit.after[i]), fmt::format("{:+.1f}%", 100 * (fit.after[i] / m - 1))});
    }
    ctx.out << "tokens/s/GPU, predicted with the catalog's efficiencies (before) and the fitted ones (after):\n"
            << t.render();
    ctx.out << fmt::format("MAPE on these runs: {:.1f}% before -> {:.1f}% after (in-sample: the fit saw them)\n",
                           100 * fit.mape_before, 100 * fit.mape_after);
    for (Precision p : precisions) {
      const Efficiency &b = base->hardware.eff(p), &a = fitted.eff(p);
      ctx.out << fmt::format("{} {}: gemm {:.3f} -> {:.3f}, attention {:.3f} -> {:.3f}, hbm {:.3f} -> {:.3f}, "
                             "nvlink {:.3f} -> {:.3f}, scaleout {:.3f} -> {:.3f}, overlap {:.3f} -> {:.3f}\n",
                             fitted.name, precision_name(p), b.gemm, a.gemm, b.attention, a.attention, b.hbm, a.hbm,
                             b.nvlink, a.nvlink, b.scaleout, a.scaleout, b.overlap, a.overlap);
    }
  }

  return kExitOk;
}

}  // namespace rb::cli
