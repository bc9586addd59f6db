// Fitting one GPU's efficiencies to a user's own measured runs on their cluster (`recipebook
// calibrate --fit --catalog DIR`): a handful of runs, all on one GPU type, starting from that GPU's
// catalog efficiencies (calibrate() fitted them on the published benchmark runs).
//
// The fit moves a few factors, each multiplying one Efficiency field in every precision (the run's
// cluster differs from the published ones in its network, clocks and software, not per precision):
// gemm, attention, hbm, nvlink, scaleout, overlap. Which factors move is chosen from the runs, by
// forward selection under two limits. First the sensitivity of each run to each field,
// d log(tokens/s) / d log(field), measured by lowering the field 10%: a field no run depends on
// (below `min_sensitivity` on every run: scaleout on runs within one node) is not fitted. Then, one
// at a time, the field whose fit (with the ones already chosen) lowers the loss most enters, among
// the fields whose sensitivities the chosen ones leave unexplained by at least `min_sensitivity` on
// some run (Gram-Schmidt on the runs' sensitivity vectors: two fields every run spends the same
// share in cannot be told apart), while it lowers the loss by at least `min_gain`
// and there are `runs_per_param` runs per fitted field (rounded up: 1-2 runs fit one field, 3-4
// two, 5-6 three). So one run moves only one field (the one it needs to move least, gemm in
// practice), and more runs move what their differences show.
//
// The loss is calibrate()'s: soft-L1 on the log error of tokens/s/GPU plus a prior (log factor)^2
// worth `prior_points` runs, pulling every factor towards 1 (the catalog's efficiencies), minimized
// by bounded coordinate descent with golden-section line searches. Deterministic.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "recipebook/core/hardware.hpp"
#include "recipebook/estimate/calibrate.hpp"

namespace rb {

enum class ClusterParam { kGemm, kAttention, kHbm, kNvlink, kScaleout, kOverlap };
inline constexpr int kNumClusterParams = 6;
const char* cluster_param_name(ClusterParam p);  // the Efficiency field: "gemm", "scaleout", ...

struct ClusterFitOptions {
  double min_sensitivity = 0.05;  // a 10% lower field moves the run's throughput at least ~0.5%
  int runs_per_param = 2;
  double min_gain = 0.01;  // a field enters when it lowers the loss at least 1%
  double prior_points = 1.0;
  double robust_scale = 0.15;
  // Bounds of each resulting efficiency (calibrate()'s: gemm 0.15-0.95, the others 0.05-1).
  double gemm_min = 0.15, gemm_max = 0.95;
  double eff_min = 0.05, eff_max = 1.0;
  int sweeps = 8;
};

// Why a field kept the catalog's value.
enum class ClusterHeld {
  kFitted,
  kNoRunDependsOnIt,  // every run's sensitivity is below min_sensitivity
  kNotSeparable,      // the fields chosen before it explain the runs' sensitivity to it
  kNeedsMoreRuns,     // determinable, but runs_per_param runs per field allow no more
  kNoGain,            // fitting it too lowers the loss less than min_gain
};

struct ClusterFit {
  std::array<double, kNumClusterParams> factor{1, 1, 1, 1, 1, 1};  // by ClusterParam
  std::array<ClusterHeld, kNumClusterParams> held{};
  std::array<double, kNumClusterParams> max_sensitivity{};  // over the runs
  std::vector<ClusterParam> fitted;  // in the order chosen
  std::vector<double> before;        // predicted tokens/s/GPU per point, catalog efficiencies (0 = invalid)
  std::vector<double> after;         // with the fit
  int runs = 0;                      // points with a valid estimate
  double mape_before = 0;
  double mape_after = 0;
};

// `points` are on one GPU type; each point's hardware holds the starting efficiencies. A point whose
// estimate is invalid is left out (its before/after stay 0).
ClusterFit fit_cluster(const std::vector<CalibrationPoint>& points, const ClusterFitOptions& opt = {});

// The fitted efficiencies in every precision of `hw`: each field times its factor, within the bounds.
void apply_cluster_fit(const ClusterFit& fit, Hardware& hw, const ClusterFitOptions& opt = {});

}  // namespace rb
