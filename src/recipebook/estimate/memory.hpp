// Memory per GPU, in named parts, for every pipeline rank and the worst one.
//
// Sources (docs/model.md, "Memory"): Megatron-LM megatron/training/theoretical_memory_usage.py
// (weights and optimizer: 6 + 12/DP bytes per parameter with the distributed optimizer, expert
// parameters over expert-DP = world / (ETP EP PP), the first-stage shard); Korthikanti et al. 2022
// (arXiv 2205.05198) Table 2 and Sec. 4.2.3 for activations and the pipeline in-flight factors;
// Megatron-Core schedules.py `get_num_warmup_microbatches` for the interleaved schedule; Calculon
// (SC'23) for full recompute keeping only block checkpoints.
#pragma once

#include <array>
#include <optional>
#include <string_view>

#include "recipebook/core/hardware.hpp"
#include "recipebook/core/layout.hpp"
#include "recipebook/estimate/prepared.hpp"
#include "recipebook/estimate/stages.hpp"

namespace rb {

struct MemoryBreakdown {
  double weights_bytes = 0;            // model weights (bf16, or the quantized parameter with *_param_gather)
  double quantized_weights_bytes = 0;  // FP8/FP4 weight copies and transposes kept next to bf16 weights
  double grads_bytes = 0;              // main gradients (fp32; sharded with FSDP)
  double optimizer_bytes = 0;          // fp32 master + Adam moments (bf16 with the precision-aware optimizer)
  double activations_bytes = 0;        // saved activations of the micro-batches in flight
  double logits_bytes = 0;             // LM-head logits and their gradient (last stage, one micro-batch)
  double fsdp_buffers_bytes = 0;       // FSDP all-gather / reduce-scatter buffers
  double cuda_context_bytes = 0;       // CUDA context, cuBLAS/cuDNN/TE workspaces
  double nccl_buffers_bytes = 0;       // NCCL communicator buffers, MoE dispatcher buffers
  double cuda_graphs_bytes = 0;        // CUDA-graph pools (static inputs/outputs)
  double fragmentation_bytes = 0;      // allocator fragmentation margin

  // Host (CPU) memory this GPU's offload holds (docs/model.md "Offload"); not part of the peak.
  double host_optimizer_bytes = 0;    // optimizer CPU offload: the share of the state on the host
  double host_activations_bytes = 0;  // fine-grained activation offloading: in-flight micro-batches
  [[nodiscard]] double host_bytes() const { return host_optimizer_bytes + host_activations_bytes; }

  double params_on_rank = 0;  // parameters held by this GPU (before optimizer sharding)
  int stage = 0;              // pipeline rank this breakdown is for
  double peak_bytes = 0;
  double capacity_bytes = 0;
  double required_headroom_bytes = 0;  // Hardware::headroom_bytes(): what must stay free
  bool fits = false;                   // peak <= capacity - required headroom

  // What stays free on this GPU at the peak (negative: over capacity).
  [[nodiscard]] double headroom_bytes() const { return capacity_bytes - peak_bytes; }
  // The three figures PyTorch and the driver report. Allocated (torch.cuda.max_memory_allocated): the
  // tensors the caching allocator hands out, CUDA-graph pools included. Reserved
  // (max_memory_reserved): that plus the allocator's fragmentation. The device figure (nvidia-smi)
  // is peak_bytes: reserved plus what is allocated outside PyTorch's allocator, the CUDA context and
  // workspaces and NCCL's buffers. `fits` compares the device figure.
  [[nodiscard]] double allocated_bytes() const {
    return peak_bytes - fragmentation_bytes - cuda_context_bytes - nccl_buffers_bytes;
  }
  [[nodiscard]] double reserved_bytes() const { return peak_bytes - cuda_context_bytes - nccl_buffers_bytes; }
  // Peak over what the layout may use (positive: the bytes it must shed to fit).
  [[nodiscard]] double overshoot_bytes() const { return peak_bytes - (capacity_bytes - required_headroom_bytes); }

  [[nodiscard]] double sum() const;
};

// The parts of a rank's memory in one order for every listing: `key` is the JSON name
// (MemoryBreakdown's member).
struct MemoryPart {
  std::string_view key;
  double MemoryBreakdown::*bytes;
};
inline constexpr std::array<MemoryPart, 11> kMemoryParts{{
    {"weights_bytes", &MemoryBreakdown::weights_bytes},
    {"quantized_weights_bytes", &MemoryBreakdown::quantized_weights_bytes},
    {"grads_bytes", &MemoryBreakdown::grads_bytes},
    {"optimizer_bytes", &MemoryBreakdown::optimizer_bytes},
    {"activations_bytes", &MemoryBreakdown::activations_bytes},
    {"logits_bytes", &MemoryBreakdown::logits_bytes},
    {"fsdp_buffers_bytes", &MemoryBreakdown::fsdp_buffers_bytes},
    {"cuda_context_bytes", &MemoryBreakdown::cuda_context_bytes},
    {"nccl_buffers_bytes", &MemoryBreakdown::nccl_buffers_bytes},
    {"cuda_graphs_bytes", &MemoryBreakdown::cuda_graphs_bytes},
    {"fragmentation_bytes", &MemoryBreakdown::fragmentation_bytes},
}};

inline double MemoryBreakdown::sum() const {
  double s = 0;
  for (const MemoryPart& p : kMemoryParts) s += this->*p.bytes;
  return s;
}

struct MemoryReport {
  MemoryBreakdown worst;  // the pipeline rank with the highest peak
  int stages = 0;         // pipeline ranks reported in stage_peak_bytes (min(pp, kMaxStages))
  std::array<double, kMaxStages> stage_peak_bytes{};
  // Host memory of one node with offload: the largest per-GPU host use x GPUs per node, against the
  // node's host memory x kHostUsableFraction. 0 and fitting when nothing is offloaded; not fitting
  // when something is but the catalog has no host figures.
  double host_gpu_bytes = 0;   // the largest rank's MemoryBreakdown::host_bytes()
  double host_node_bytes = 0;
  double host_capacity_bytes = 0;  // the node's host memory (Hardware::host_memory_bytes)
  bool host_fits = true;
};

// Share of a node's host memory a layout may fill with offloaded state (the OS, the data loader
// workers and the page cache keep the rest; docs/model.md "Offload").
inline constexpr double kHostUsableFraction = 0.8;
// Host bytes per parameter whose optimizer state the HybridDeviceOptimizer moved to the host
// (Megatron-Core optimizer/cpu_offloading/hybrid_optimizer.py): a pinned copy of the parameter (2),
// its fp32 master (4, param_update_in_fp32), a pinned fp32 gradient buffer (4) and torch AdamW's
// exp_avg and exp_avg_sq in fp32 (8).
inline constexpr double kHostOptimizerBytesPerParam = 18.0;

struct MemoryInputs {
  const PreparedModel* model = nullptr;
  const Hardware* hw = nullptr;
  Mode mode = Mode::kPretrain;
  int64_t seq = 0;
  int lora_rank = 16;
  int microbatches = 1;  // per pipeline per step: gbs / (mbs dp)
  int gpus_per_node = 0;  // Cluster::gpus_per_node (0 = the hardware's), for the host-memory check
  ImageBudget image;  // Workload::image: the vision tower's work on the first stage (estimate/vision.hpp)
};

// Bytes per logit (token x padded vocab / TP) the loss holds at its peak (docs/model.md "Memory"):
// Transformer Engine's fused cross entropy (cross_entropy_loss_fusion with cross_entropy_fusion_impl
// te) writes the gradient into the 16-bit logits in place: 2. Megatron-Core's own implementations,
// the native fused one and the unfused vocab_parallel_cross_entropy (fusion off, Megatron-LM's
// default), keep an fp32 softmax next to the 16-bit logits: 6.
double logit_bytes(const Layout& l);

// Memory of pipeline rank `rank` for a valid layout and stage plan.
MemoryBreakdown rank_memory(const MemoryInputs& in, const Layout& l, const StagePlan& plan, int rank);

// `--headroom`: "<GiB>", "<n> GiB" / "<n> GB" / "<n> MiB" (any byte unit of core/units), or "<n>%"
// of the GPU's memory (below 100). Sets `fixed_bytes` or `fraction` (the other stays 0); nullopt when
// the text is neither.
struct MemoryHeadroom {
  double fixed_bytes = 0;
  double fraction = 0;
};
std::optional<MemoryHeadroom> parse_memory_headroom(std::string_view text);
// The CLI's default when --headroom is not given (docs/model.md "Memory").
inline constexpr std::string_view kDefaultHeadroom = "2GiB";

// Every pipeline rank and the worst one.
MemoryReport memory_report(const MemoryInputs& in, const Layout& l, const StagePlan& plan);
// The host part of a report (host_node_bytes, host_capacity_bytes, host_fits) from its
// host_gpu_bytes on `hw` (`gpus_per_node` 0: the hardware's), for a report made against another GPU.
void set_host_fit(MemoryReport& r, const Hardware& hw, int gpus_per_node, int world);

// Activation bytes that fine-grained activation offloading (Layout::offload_modules) sends to the
// host per micro-batch on pipeline rank `rank`, all its chunks: what crosses the host link each
// way (forward to the host, backward back). 0 without offloading or under full recompute.
double offloaded_activation_bytes(const MemoryInputs& in, const Layout& l, const StagePlan& plan, int rank);

// Micro-batches (of one chunk each) whose activations rank `rank` holds at the peak: 1F1B
// min(m, pp - rank); interleaved min(m vp, 2 (pp - rank - 1) + (vp - 1) pp + 1) chunks, which on the
// first rank is Korthikanti's (1 + (p - 1) / (p v)) x p micro-batches of its layers.
double inflight_chunks(const Layout& l, int rank, int microbatches);

}  // namespace rb
