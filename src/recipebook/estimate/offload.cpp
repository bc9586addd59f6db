// Host-offload time terms (docs/model.md "Offload"): Megatron-Core's optimizer CPU offload
// (optimizer/cpu_offloading/hybrid_optimizer.py, HybridDeviceOptimizer) and fine-grained activation
// offloading (pipeline_parallel/fine_grained_activation_offload.py). Memory is in memory.cpp.
#include <algorithm>

#include "recipebook/estimate/time.hpp"

namespace rb {
namespace {

// Achieved / peak bandwidth of pinned host <-> device copies over the host link. An assumption, not
// fitted: large pinned cudaMemcpyAsync reaches about 80% of a PCIe Gen5 x16 link's 64 GB/s.
constexpr double kHostLinkEfficiency = 0.8;
// Achieved / peak host-memory bandwidth of the CPU Adam step (torch.optim.AdamW, fused=True, the
// HybridDeviceOptimizer's CPU optimizer): an assumption, not fitted. The step is bandwidth-bound on
// the host as on the GPU (ZeRO-Offload, Ren et al. 2021, arXiv 2101.06840, Sec. 5.1: CPU-Adam).
constexpr double kHostMemoryEfficiency = 0.5;
// Host bytes the CPU Adam step streams per parameter: the fp32 parameter, exp_avg and exp_avg_sq
// read and written, the fp32 gradient read (7 x 4).
constexpr double kCpuAdamBytesPerParam = 28.0;
// Bytes per offloaded parameter over the link each step: its fp32 gradient to the host
// (_set_sub_optimizer_grads copies the decoupled fp32 main gradient) and the updated fp32 parameter
// back (param_copy_back_gpu_hook).
constexpr double kOptimizerD2hBytesPerParam = 4.0;
constexpr double kOptimizerH2dBytesPerParam = 4.0;
// Share of a micro-batch's forward + backward that is forward (1 of 3 GEMM passes).
constexpr double kForwardShare = 1.0 / 3.0;

}  // namespace

OffloadTime offload_time(const Hardware& hw, const Layout& l, int gpus_per_node, double local_state_params,
                         double bytes_per_microbatch, double microbatch_s) {
  OffloadTime t;
  if (!hw.has_host()) return t;
  const double link = hw.host_link_bytes_per_s * kHostLinkEfficiency;
  const double f = l.fsdp ? 0.0 : std::clamp(l.optimizer_offload_fraction, 0.0, 1.0);
  if (f > 0 && local_state_params > 0) {
    const double params = f * local_state_params;
    // Every GPU of the node steps its share at once: each gets 1 / (GPUs per node) of the host's
    // memory bandwidth (its own socket's channels on a 2-socket host, one Grace per 2 GPUs on NVL72).
    const int per_node = std::max(1, gpus_per_node > 0 ? gpus_per_node : hw.gpus_per_node);
    const double host_bw = hw.host_memory_bytes_per_s > 0 ? hw.host_memory_bytes_per_s * kHostMemoryEfficiency / per_node
                                                          : 0.0;
    t.optimizer_d2h_s = params * kOptimizerD2hBytesPerParam / link;
    t.optimizer_h2d_s = params * kOptimizerH2dBytesPerParam / link;
    t.optimizer_cpu_s = host_bw > 0 ? params * kCpuAdamBytesPerParam / host_bw : 0.0;
    // --overlap-cpu-optimizer-d2h-h2d pipelines the copies with the CPU step, parameter group by group.
    t.optimizer_s = std::max({t.optimizer_d2h_s, t.optimizer_cpu_s, t.optimizer_h2d_s});
  }
  if (bytes_per_microbatch > 0) {
    // Forward copies out, backward copies back, each on its own stream under that pass's compute.
    const double copy = bytes_per_microbatch / link;
    const double fwd = kForwardShare * microbatch_s;
    const double bwd = microbatch_s - fwd;
    t.activation_exposed_per_microbatch_s = std::max(0.0, copy - fwd) + std::max(0.0, copy - bwd);
  }
  return t;
}

}  // namespace rb
