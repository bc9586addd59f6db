// The estimator's entry point: one layout of one model on one cluster -> memory, time, throughput,
// MFU and cost, every part named. Pure: no I/O, no allocation (the PreparedModel holds everything
// that is per model), so the planner can call it millions of times.
//
// Conventions (docs/model.md):
// - model_flops_per_token is Megatron's count (flops.hpp) for every mode: it is what Megatron-Bridge
//   logs and what its TFLOP/s figures divide. LoRA's actual work (lora_flops_per_token) drives time.
// - mfu divides by the BF16 dense peak whatever the precision (seed 002's convention, and
//   Megatron-Bridge's: "FP8 runs are not divided by an FP8 peak"); mfu_precision divides by the dense
//   peak of the layout's precision class; mfu_6n is seed 002's 6 x active params x tokens/s / BF16 peak.
#pragma once

#include <string_view>

#include "recipebook/core/hardware.hpp"
#include "recipebook/core/layout.hpp"
#include "recipebook/estimate/memory.hpp"
#include "recipebook/estimate/prepared.hpp"
#include "recipebook/estimate/time.hpp"

namespace rb {

// Why an estimate could not be made. These guard against nonsense only; the layout rules (rules/)
// give the full explanation.
enum class InvalidReason {
  kNone,
  kNoArchitecture,       // the model has no shape
  kNoHardwareSpecs,      // the GPU has no memory / peak figures
  kPrecisionUnsupported, // no dense peak for this precision on this GPU
  kZeroDegree,           // a parallel degree, micro batch or VP below 1
  kGpuCountMismatch,     // tp x pp x cp x dp != cluster GPUs
  kSequence,             // sequence length not positive
  kBatch,                // global batch not positive or not divisible by mbs x dp
  kStages,               // not enough layers for pp x vp stages, or a first/last count that does not split
  kExperts,              // EP on a dense model, or experts not divisible by EP
  kExpertGroups,         // tp x cp x dp not divisible by ep x etp
  kHeads,                // attention heads not divisible by TP
};

std::string_view invalid_reason_name(InvalidReason r);

struct Estimate {
  bool valid = false;
  InvalidReason reason = InvalidReason::kNone;

  MemoryReport memory;  // memory.worst: the worst pipeline rank, with fits
  TimeBreakdown time;

  int microbatches = 0;             // per pipeline per step
  double tokens_per_step = 0;
  double step_time_s = 0;
  double tokens_per_s_per_gpu = 0;
  double model_flops_per_token = 0; // Megatron's count (training, 3 x forward)
  double model_tflops_per_gpu = 0;
  double mfu = 0;                   // model FLOPs / BF16 dense peak
  double mfu_precision = 0;         // model FLOPs / dense peak of the precision class
  double mfu_6n = 0;                // 6 x active params x tokens/s / BF16 dense peak (seed 002)
  double usd_per_million_tokens = 0;  // 0 when the GPU has no price
  double gpu_hours = 0;             // for Workload::tokens_budget (0 when not asked)
  double days = 0;

  [[nodiscard]] bool fits() const { return valid && memory.worst.fits; }
};

Estimate estimate(const PreparedModel& model, const Hardware& hw, const Workload& work, const Cluster& cluster,
                  const Layout& layout);

// Megatron's FLOPs per token from the prepared prefix sums (equal to megatron_flops_per_token for
// models whose windowed layers share one window).
double prepared_flops_per_token(const PreparedModel& pm, int64_t seq, int tp);

}  // namespace rb
