// Calibration: fit a few efficiency parameters per GPU and precision to measured throughput.
//
// Two parameters per (GPU, precision): `gemm` (Efficiency::gemm) and a communication factor that
// scales Efficiency::nvlink and Efficiency::scaleout together (their ratio stays at the default until
// one reaches a bound). Everything else (attention, hbm, overlap) keeps its default. The fit has two
// levels: one pair per GPU over all its precisions, pulled towards the defaults, then one pair per
// (GPU, precision) pulled towards its GPU's pair. The loss is robust (soft-L1) on the log error of
// tokens/s/GPU, summed over the points, plus each prior's penalty weighted as a number of points
// (the defaults' centre is the starting efficiency: a GPU's published microbenchmarks where it has
// them, estimate/microbench.hpp; their figures also bound the fit);
// minimized by deterministic bounded coordinate descent with golden-section line searches. Few
// parameters on purpose: the error that counts is on models the fit never saw (bench/accuracy.cpp
// fits leave-one-family-out).
#pragma once

#include <string>
#include <vector>

#include "recipebook/core/hardware.hpp"
#include "recipebook/core/layout.hpp"
#include "recipebook/estimate/prepared.hpp"

namespace rb {

struct CalibrationPoint {
  const PreparedModel* model = nullptr;
  Hardware hardware;  // its efficiency table is the starting point
  Workload work;
  Cluster cluster;
  Layout layout;
  double measured_tokens_per_s_per_gpu = 0;
};

struct CalibrationOptions {
  double gemm_min = 0.15, gemm_max = 0.95;
  // Bounds on the resulting nvlink / scaleout efficiency, each clamped on its own: the common factor
  // ranges far enough for either one to reach either bound.
  double comm_min = 0.05, comm_max = 1.0;
  // The priors, in measurements' worth: a penalty (log(x / centre))^2 per parameter counts as much as
  // that many points' loss. Each GPU's pair is pulled towards the defaults; each (GPU, precision) pair
  // towards its GPU's pair, so a precision with one or two points stays near its GPU's fit and one
  // with forty is free of it.
  double prior_points = 1.0;
  double group_prior_points = 5.0;
  double robust_scale = 0.15;  // log-error scale of the soft-L1 loss (about 15%)
  int sweeps = 12;
  // Fit the communication factor too (two or more points). Off: only `gemm`, the links keep their
  // starting efficiencies (a set that cannot tell link speed from unmodelled overheads, e.g. one node
  // of small models: bench/accuracy.cpp's A100 rows).
  bool fit_comm = true;
  // Tighten the bounds by each GPU's published microbenchmarks (Hardware::microbenchmarks,
  // estimate/microbench.hpp): gemm <= the asymptote of its measured GEMM curve in that precision,
  // nvlink / scaleout <= the best nccl-tests bus bandwidth over the link's rate. The priors' centres
  // are the points' starting efficiencies (measured_points starts them at prior_efficiency).
  bool microbench_bounds = true;
};

struct FittedEfficiency {
  std::string gpu;  // Hardware::name
  Precision precision = Precision::kBf16;
  Efficiency efficiency;     // the fitted table entry
  int points = 0;
  double mape_before = 0;    // mean |pred / measured - 1| with the starting efficiencies
  double mape_after = 0;
};

struct CalibrationResult {
  std::vector<FittedEfficiency> fits;  // one per (GPU, precision) with points, sorted by name
  int points = 0;                      // points used (valid estimates)
  double mape_before = 0;
  double mape_after = 0;
};

CalibrationResult calibrate(const std::vector<CalibrationPoint>& points, const CalibrationOptions& opt = {});

// Writes the fitted entries into `hw` (matching by name). A precision without its own fit borrows the
// GEMM and communication factors of the same GPU's fit in the same precision class, else of any
// precision on that GPU; GPUs without any fit are left as they are. Returns whether anything applied.
bool apply_calibration(const CalibrationResult& result, Hardware& hw);

}  // namespace rb
