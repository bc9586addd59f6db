#include "recipebook/cmd_calibrate_fit.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>

#include "recipebook/catalog/measured_points.hpp"
#include "recipebook/catalog_access.hpp"
#include "recipebook/emit/atomic_file.hpp"
#include "recipebook/emit/catalog_json.hpp"
#include "recipebook/emit/table.hpp"

namespace rb::cli {
namespace {

constexpr Precision kAllPrecisions[] = {Precision::kBf16,         Precision::kFp8Cs, Precision::kFp8Ds,
                                        Precision::kFp8Blockwise, Precision::kMxfp8, Precision::kNvfp4};

}  // namespace

std::string efficiency_block(const Hardware& h, std::string_view comment) {
  std::string out = fmt::format("efficiency:  # {}\n", comment);
  for (Precision p : kAllPrecisions) {
    if (h.peak_flops_per_s(p) <= 0) continue;
    const Efficiency& e = h.eff(p);
    out += fmt::format("  {}: {{gemm: {:.4f}, attention: {:.4f}, hbm: {:.4f}, nvlink: {:.4f}, scaleout: {:.4f}, overlap: {:.4f}}}\n",
                       precision_name(p), e.gemm, e.attention, e.hbm, e.nvlink, e.scaleout, e.overlap);
  }
  return out;
}

std::string replace_top_level(const std::string& text, std::string_view key, const std::string& block) {
  const std::string head = std::string(key) + ":";
  std::istringstream in(text);
  std::string line;
  std::string out;
  bool inside = false;
  bool replaced = false;
  while (std::getline(in, line)) {
    const bool top_level = !line.empty() && line[0] != ' ' && line[0] != '#';
    if (inside && top_level) inside = false;
    if (top_level && line.rfind(head, 0) == 0) {
      inside = true;
      replaced = true;
      out += block;
      continue;
    }
    if (!inside) out += line + "\n";
  }
  if (!replaced) out += block;
  return out;
}

int run_calibrate_fit(const CalibrateFitOptions& o, const Context& ctx) {
  if (!ctx.catalog_dirs.empty()) {
    if (!o.write_dir.empty())
      return report(ctx, Error("--write refits the built-in catalog's files; with --catalog, --fit fits your own runs",
                               Where{"--write", 0, 0}, "drop --write (the cluster's file goes to --out) or drop --catalog"));
    return run_calibrate_fit_cluster(o, ctx);
  }
  if (!o.gpu.empty() || !o.out.empty() || !o.cluster.empty())
    return report(ctx, Error("--gpu, --out and --cluster of --fit need --catalog DIR (the folder of your measured runs)",
                             Where{"--catalog", 0, 0}, "recipebook calibrate --fit --catalog DIR"));
  auto cat = load_catalog(ctx);
  if (!cat) return kExitUsage;
  if (!o.write_dir.empty() && !std::filesystem::is_directory(o.write_dir))
    return report(ctx, Error("--write: no such folder " + o.write_dir));
  const MeasuredPoints measured = measured_points(*cat, /*neutral_efficiency=*/true);
  std::vector<CalibrationPoint> points;
  for (const auto& p : measured.points)
    if (p.benchmark) points.push_back(p.point);
  if (points.empty()) return report(ctx, Error("the catalog has no current benchmark measurements to fit"));
  const CalibrationResult fit = calibrate(points);

  if (ctx.json) {
    Json j;
    j["points"] = fit.points;
    j["mape_before"] = fit.mape_before;
    j["mape_after"] = fit.mape_after;
    j["fits"] = Json::array();
    for (const auto& f : fit.fits)
      j["fits"].push_back({{"gpu", f.gpu}, {"precision", std::string(precision_name(f.precision))},
                           {"points", f.points}, {"gemm", f.efficiency.gemm}, {"nvlink", f.efficiency.nvlink},
                           {"scaleout", f.efficiency.scaleout}, {"mape_before", f.mape_before},
                           {"mape_after", f.mape_after}});
    ctx.out << j.dump(2) << "\n";
  } else {
    ctx.out << fmt::format(
        "fitted on {} current benchmark measurements ({} card rows on datasets not fitted; {} skipped: no "
        "architecture; {} invalid)\n",
        fit.points, measured.points.size() - points.size(), measured.skipped_model, measured.skipped_invalid);
    ctx.out << fmt::format("in-sample MAPE of tokens/s/GPU: {:.1f}% with neutral efficiencies -> {:.1f}% fitted\n",
                           100 * fit.mape_before, 100 * fit.mape_after);
    ctx.out << "(the error on models the fit never saw is bench/accuracy's figure, in BENCHMARKS.md)\n\n";
    Table t({{"gpu"}, {"precision"}, {"points", Align::kRight}, {"gemm", Align::kRight}, {"nvlink", Align::kRight},
             {"scaleout", Align::kRight}, {"MAPE before", Align::kRight}, {"after", Align::kRight}});
    for (const auto& f : fit.fits)
      t.add_row({f.gpu, std::string(precision_name(f.precision)), std::to_string(f.points),
                 fmt::format("{:.3f}", f.efficiency.gemm), fmt::format("{:.3f}", f.efficiency.nvlink),
                 fmt::format("{:.3f}", f.efficiency.scaleout), fmt::format("{:.1f}%", 100 * f.mape_before),
                 fmt::format("{:.1f}%", 100 * f.mape_after)});
    ctx.out << t.render();
  }
  if (o.write_dir.empty()) return kExitOk;

  std::vector<FileToWrite> files;
  for (const auto& entry : cat->hardware()) {
    Hardware h = entry.hardware;
    if (!h.has_specs) continue;
    h.efficiency.fill(Efficiency{});
    if (!apply_calibration(fit, h)) continue;
    const auto path = std::filesystem::path(o.write_dir) / (h.name + ".yaml");
    std::ifstream in(path);
    if (!in) return report(ctx, Error("--write: " + path.string() + " does not exist", {}, "write into a folder of hardware YAML files"));
    std::stringstream ss;
    ss << in.rdbuf();
    files.push_back({path.string(),
                     replace_top_level(ss.str(), "efficiency",
                                       efficiency_block(h, "fitted by `recipebook calibrate --fit` on the catalog's current measurements"))});
  }
  auto written = write_files_atomic(files, /*overwrite=*/true);
  if (!written) return report(ctx, written.error());
  ctx.err << fmt::format("calibrate: wrote the efficiency block of {} files in {}\n", files.size(), o.write_dir);
  return kExitOk;
}

}  // namespace rb::cli
