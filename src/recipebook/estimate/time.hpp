// Step time in named parts (docs/model.md, "Time").
//
// Per pipeline rank and micro-batch: GEMMs at peak x gemm efficiency x a size factor, the attention
// core at its own efficiency, memory-bound work at HBM bandwidth, recompute, the exposed part of TP/SP
// collectives, CP exchange, EP all-to-all (dispatch + combine, forward + backward), PP point-to-point
// and launch overheads. The slowest rank sets the pace: step = m x t_mb + (p - 1) / v x t_mb (the
// bubble, Narayanan et al. 2021 Sec. 2.2), plus the DP reduce-scatter / all-gather that backward does
// not hide and the optimizer step. Collectives follow collectives.hpp (Calculon-style alpha-beta).
#pragma once

#include <array>
#include <string_view>

#include "recipebook/core/hardware.hpp"
#include "recipebook/core/layout.hpp"
#include "recipebook/estimate/prepared.hpp"
#include "recipebook/estimate/stages.hpp"

namespace rb {

struct TimeBreakdown {
  double gemm_s = 0;          // dense and expert GEMMs (forward + backward), LM head included
  double attention_s = 0;     // attention core (flash attention), GDN delta rule, Mamba scan
  double memory_bound_s = 0;  // norms, activations, residuals, permutes, FP8 casts at HBM bandwidth
  double recompute_s = 0;     // forward work redone in backward (full or selective recompute)
  double tp_comm_s = 0;       // exposed TP/SP all-gather / reduce-scatter (or all-reduce)
  double cp_comm_s = 0;       // exposed CP ring exchange (attention) and all-to-all (GDN/Mamba)
  double ep_comm_s = 0;       // exposed EP all-to-all, dispatch + combine, forward + backward
  double pp_p2p_s = 0;        // exposed pipeline sends and receives
  double bubble_s = 0;        // pipeline fill and drain
  double dp_comm_s = 0;       // gradient reduce-scatter + parameter all-gather not hidden by compute
  double optimizer_s = 0;     // the optimizer step (memory-bound)
  // Host offload (docs/model.md "Offload"): the optimizer CPU offload's gradient copy out, CPU Adam
  // step and parameter copy back, and the activation offload/reload traffic compute does not hide.
  double offload_s = 0;
  double overhead_s = 0;      // host time beyond the GPU's (estimate/host.hpp), MoE syncs

  double step_time_s = 0;
  double microbatch_s = 0;    // one micro-batch (forward + backward) on the slowest rank
  int bottleneck_stage = 0;
  int microbatches = 0;

  [[nodiscard]] double sum() const;
};

// The parts of a step, in one order for every table and JSON object that lists them: `key` is the
// JSON name (TimeBreakdown's member), `label` the table heading.
struct TimePart {
  std::string_view key;
  std::string_view label;
  double TimeBreakdown::*seconds;
};
inline constexpr std::array<TimePart, 13> kTimeParts{{
    {"gemm_s", "GEMM", &TimeBreakdown::gemm_s},
    {"attention_s", "attention", &TimeBreakdown::attention_s},
    {"memory_bound_s", "memory-bound", &TimeBreakdown::memory_bound_s},
    {"recompute_s", "recompute", &TimeBreakdown::recompute_s},
    {"tp_comm_s", "TP comm", &TimeBreakdown::tp_comm_s},
    {"cp_comm_s", "CP comm", &TimeBreakdown::cp_comm_s},
    {"ep_comm_s", "EP comm", &TimeBreakdown::ep_comm_s},
    {"pp_p2p_s", "PP p2p", &TimeBreakdown::pp_p2p_s},
    {"bubble_s", "bubble", &TimeBreakdown::bubble_s},
    {"dp_comm_s", "DP comm", &TimeBreakdown::dp_comm_s},
    {"optimizer_s", "optimizer", &TimeBreakdown::optimizer_s},
    {"offload_s", "host offload", &TimeBreakdown::offload_s},
    {"overhead_s", "overhead", &TimeBreakdown::overhead_s},
}};

inline double TimeBreakdown::sum() const {
  double s = 0;
  for (const TimePart& p : kTimeParts) s += this->*p.seconds;
  return s;
}

struct TimeInputs {
  const PreparedModel* model = nullptr;
  const Hardware* hw = nullptr;
  Mode mode = Mode::kPretrain;
  int64_t seq = 0;
  int lora_rank = 16;
  int microbatches = 1;
  int gpus_per_node = 0;  // Cluster::gpus_per_node (0 = the hardware's)
  ImageBudget image;  // Workload::image: the vision tower's work on the first stage (estimate/vision.hpp)
};

TimeBreakdown step_time(const TimeInputs& in, const Layout& l, const StagePlan& plan);

// A lower bound of step_time(in, l, plan).step_time_s at the cost of one rank's arithmetic and no
// collective (time.cpp says why it is one), for the planner to skip a layout that cannot beat one
// it has already found (search/fleet_walk.cpp).
double step_time_floor_s(const TimeInputs& in, const Layout& l, const StagePlan& plan);

// The host-offload terms (estimate/offload.cpp, docs/model.md "Offload"), for one step.
struct OffloadTime {
  double optimizer_d2h_s = 0;  // gradients of the offloaded state to the host
  double optimizer_cpu_s = 0;  // the CPU Adam step, at the node's host-memory bandwidth share
  double optimizer_h2d_s = 0;  // updated parameters back to the GPU
  double optimizer_s = 0;      // the three overlapped (--overlap-cpu-optimizer-d2h-h2d): their maximum
  double activation_exposed_per_microbatch_s = 0;  // offload + reload that compute does not hide
};
// `local_state_params`: the parameters of this rank's optimizer shard; `bytes_per_microbatch`:
// offloaded_activation_bytes of the bottleneck rank; `microbatch_s`: that rank's forward + backward.
OffloadTime offload_time(const Hardware& hw, const Layout& l, int gpus_per_node, double local_state_params,
                         double bytes_per_microbatch, double microbatch_s);

// The GEMM size factor n / (n + n0): a GEMM whose smallest dimension is n runs at this fraction of
// the large-GEMM efficiency (tile quantization, wave effects and the fixed costs around small
// GEMMs). n0 is the GPU's Hardware::gemm_half_dim (dense) or expert_half_dim (grouped experts).
double gemm_size_factor(double smallest_dim, double half_dim);

// A dense GEMM's size factor: its token (M) dimension on its own curve, the published cuBLAS M sweeps'
// half-point (time.cpp kGemmTokensHalfDim), times the weight dimensions' (the smaller of the hidden
// size and the TP-sharded width) on the GPU's Hardware::gemm_half_dim. The token count is the micro
// batch's on this rank (CP divides it); a product, since the sweeps show M mattering above N too.
double dense_gemm_size_factor(double tokens, double smallest_width, double half_dim);

}  // namespace rb
