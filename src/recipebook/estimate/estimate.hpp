// The estimator's entry point: one layout of one model on one cluster -> memory, time, throughput,
// MFU and cost, every part named. Pure: no I/O, no allocation (the PreparedModel holds everything
// that is per model), so the planner can call it millions of times.
//
// Conventions (docs/model.md):
// - model_flops_per_token is Megatron's count (flops.hpp), and in LoRA mode the frozen-base count
//   (lora_flops_per_token: no weight-gradient GEMMs), the work Megatron-Bridge's LoRA performance rows
//   report (flop_utils.py's LoRA branch; 278 GFLOP/token for Llama-3-70B at 4096, not 433).
// - mfu divides model FLOP/s by the dense peak of the layout's precision class (BF16, FP8 or FP4), the
//   peak its GEMMs run against, so it stays below 1 (the record checks' RB-DERIVED-MFU uses the same
//   peak); mfu_bf16 divides by the BF16 dense peak (Megatron-Bridge's TFLOP/s are "not divided by an
//   FP8 peak": an FP8 run can pass 1 there); mfu_6n is seed 002's 6 x active params x tokens/s / BF16 peak.
#pragma once

#include <string_view>
#include <vector>

#include "recipebook/core/hardware.hpp"
#include "recipebook/core/layout.hpp"
#include "recipebook/estimate/memory.hpp"
#include "recipebook/estimate/prepared.hpp"
#include "recipebook/estimate/stages.hpp"
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
  kOptimizerInstances,   // distributed optimizer instances that do not divide DP x CP and expert-DP
};

std::string_view invalid_reason_name(InvalidReason r);

// The peak `Estimate::mfu` divides by, for tables and JSON: "BF16", "FP8" or "FP4".
inline std::string_view precision_class_label(Precision p) {
  switch (precision_class(p)) {
    case PrecisionClass::kBf16: return "BF16";
    case PrecisionClass::kFp8: return "FP8";
    case PrecisionClass::kFp4: return "FP4";
  }
  return "BF16";
}

struct Estimate {
  bool valid = false;
  InvalidReason reason = InvalidReason::kNone;

  MemoryReport memory;  // memory.worst: the worst pipeline rank, with fits
  TimeBreakdown time;

  int microbatches = 0;             // per pipeline per step
  double tokens_per_step = 0;
  double step_time_s = 0;
  double tokens_per_s_per_gpu = 0;
  double model_flops_per_token = 0; // Megatron's count (training, 3 x forward; LoRA: frozen base)
  double model_tflops_per_gpu = 0;
  double mfu = 0;                   // model FLOP/s / dense peak of the layout's precision class
  double mfu_bf16 = 0;              // model FLOP/s / BF16 dense peak (> 1 possible for FP8/FP4)
  double mfu_6n = 0;                // 6 x active params x tokens/s / BF16 dense peak (seed 002)
  double usd_per_million_tokens = 0;  // 0 when the GPU has no price
  double gpu_hours = 0;             // for Workload::tokens_budget (0 when not asked)
  double days = 0;

  // GPU memory fits, and the host memory that offload fills (memory.host_fits) too.
  [[nodiscard]] bool fits() const { return valid && memory.worst.fits && memory.host_fits; }
};

Estimate estimate(const PreparedModel& model, const Hardware& hw, const Workload& work, const Cluster& cluster,
                  const Layout& layout);

// The memory of every pipeline rank, each with its parts (memory.worst is the highest of them), for
// a layout estimate() takes; empty when it does not. For listings (estimate --json "memory.stages",
// the page's per-stage bar), not the planner: it allocates.
std::vector<MemoryBreakdown> stage_memory(const PreparedModel& model, const Hardware& hw, const Workload& work,
                                          const Cluster& cluster, const Layout& layout);
// estimate() in two steps, for one layout on several GPU types (search/fleet_walk.cpp): what does
// not depend on the GPU (the layout checks, the stage plan, the memory report, computed against
// `hw` but valid for any GPU once its capacity, headroom and host memory are put in), then the rest
// per GPU. estimate(pm, hw2, work, c2, l, layout_memory(pm, work, c1, l, hw1)) ==
// estimate(pm, hw2, work, c2, l) when c1 and c2 have the same GPU count.
struct LayoutMemory {
  InvalidReason reason = InvalidReason::kNone;
  StagePlan plan;
  int microbatches = 0;
  MemoryReport memory;
};
LayoutMemory layout_memory(const PreparedModel& model, const Workload& work, const Cluster& cluster,
                           const Layout& layout, const Hardware& hw);
// The same with the stage plan given: plan_stages(model.num_layers, layout), which is one for all
// the layouts of a PP/VP node (and may point at their StageSums).
LayoutMemory layout_memory(const PreparedModel& model, const Workload& work, const Cluster& cluster,
                           const Layout& layout, const Hardware& hw, const StagePlan& plan);
Estimate estimate(const PreparedModel& model, const Hardware& hw, const Workload& work, const Cluster& cluster,
                  const Layout& layout, const LayoutMemory& memory);
// What that estimate says before its time is computed: why it is invalid (kNone: valid, unless the
// step time comes out infinite, which positive GPU figures rule out) and whether the GPU memory fits.
struct MemoryVerdict {
  InvalidReason reason = InvalidReason::kNone;
  bool fits = false;
};
MemoryVerdict memory_verdict(const PreparedModel& model, const Hardware& hw, const Layout& layout,
                             const LayoutMemory& memory);
// An upper bound of that estimate's tokens_per_s_per_gpu from time.hpp step_time_floor_s, at a
// fraction of its cost: a planner that has found a layout faster than this can skip the estimate.
double tokens_per_s_per_gpu_ceiling(const PreparedModel& model, const Hardware& hw, const Workload& work,
                                    const Cluster& cluster, const Layout& layout, const LayoutMemory& memory);

// Megatron's FLOPs per token from the prepared prefix sums (equal to megatron_flops_per_token for
// models whose windowed layers share one window; in Mode::kPeft to lora_flops_per_token).
double prepared_flops_per_token(const PreparedModel& pm, int64_t seq, int tp, Mode mode = Mode::kPretrain);

}  // namespace rb
