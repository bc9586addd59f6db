// The host side of one micro-batch (docs/model.md "Time", host floor): what the Python/PyTorch
// dispatch of Megatron-Core's Transformer Engine modules and the kernel launches take on the CPU.
// The GPU can only run what the host has launched, so where its kernels are shorter than the host's
// work for them the host sets the pace: time.cpp takes max(GPU, host) per segment, and a dropless
// MoE layer's token-count device-to-host sync (the host waits for the GPU) cuts the forward from the
// backward, so the host cannot run ahead of the one into the other.
//
// Figures, per call on an x86 DGX host (TransformerEngine issue #2053, 2025-08-11, BF16 Linear
// forward, hidden 2048 x 8192 tokens, CPU time per call): torch.nn.Linear 13.48 us on H100 DGX
// (Xeon 8480C); te.Linear / torch.nn.Linear = 99.66 / 37.08 on GB200, applied to the x86 torch figure
// (the excerpt we read lists no x86 TE figure). A kernel launched inside a module (one expert's
// GEMM in a grouped linear) costs kKernelLaunchS, NVIDIA's "Getting Started with CUDA Graphs" (2019)
// per-kernel launch cost for short kernels. The counts are read off Megatron-Core's layer specs
// (transformer/transformer_layer.py, moe/moe_layer.py, moe/token_dispatcher.py), Transformer
// Engine's CP ring (attention/dot_product_attention/context_parallel.py) and Megatron-Bridge's
// vision tower, not fitted.
#pragma once

#include <cstdint>

#include "recipebook/core/hardware.hpp"
#include "recipebook/core/layout.hpp"
#include "recipebook/estimate/prepared.hpp"

namespace rb {

inline constexpr double kTorchOpHostS = 13.48e-6;                        // one PyTorch op call
inline constexpr double kTeModuleHostS = 13.48e-6 * 99.66 / 37.08;       // one TE module call (~36 us)
inline constexpr double kKernelLaunchS = 5e-6;                          // one extra kernel launch
// A Grace host's per-call cost over the x86 figures above (Hardware::host_cpu_family): TE #2053's
// torch.nn.Linear forward takes 37.08 us of CPU time per call on GB200 (Grace) against 13.48 us on
// H100 DGX (Xeon 8480C), 2.75x (GH200's Grace 33.17 us, 2.46x). Every host figure here is scaled by
// it: the issue measures a call's whole CPU side, its launches included, and on Grace it gives TE's
// own 99.66 us per te.Linear call back exactly.
inline constexpr double kGraceHostFactor = 37.08 / 13.48;
double host_cpu_factor(HostCpuFamily cpu);
// The GPU's idle at one dropless token-count sync on an x86 host (time.cpp adds it per sync): the
// host waits on the device-to-host copies' event (token_dispatcher.py _maybe_dtoh_and_synchronize),
// so the GPU, once it has run them, idles until the host has woken and issued the next kernel.
// - The wake-up: NVIDIA's "Getting Started with CUDA Graphs" (2019) times a 2.9 us kernel at
//   9.6 us each with a stream synchronize after every launch and at 3.8 us launched back to back:
//   5.8 us per synchronize.
// - The call that issues the next kernel, the permute after the sync point (cuda_sync_point
//   "before_permutation_1" or the all-to-all after it): one PyTorch op, kTorchOpHostS.
// 19.3 us; a Grace host's is host_cpu_factor of it.
inline constexpr double kMoeSyncS = (9.6e-6 - 3.8e-6) + kTorchOpHostS;

// Host seconds of one micro-batch on a rank whose layers sum to `s`; `recompute_share`: under full
// recompute, the share of its layers whose forward runs again in the backward. `quantized`: FP8/FP4
// GEMM inputs (one quantize launch per expert GEMM input). Linear in `s`, as rank_time needs.
struct HostTime {
  double forward_s = 0;   // the forward's calls
  double backward_s = 0;  // the backward's calls, recomputed forwards included (they run in it)
  double syncs = 0;       // device-to-host syncs the host waits on (dropless MoE token counts)
  double sync_s = 0;      // the GPU's idle across them (kMoeSyncS each, on this host CPU)
};

// Context parallelism adds calls per attention layer where CP 1 runs one attention call: the p2p
// ring's cp - 1 extra steps, about one step's worth under a2a and allgather (host.cpp).
// `cpu`: the node's host CPU family (host_cpu_factor).
HostTime host_time(const LayerSums& s, const Layout& l, double recompute_share, bool quantized, double local_experts,
                   HostCpuFamily cpu = HostCpuFamily::kX86);

// Host seconds of one micro batch through `layers` pre-norm transformer layers of the dense TE
// spec (attention and MLP sub-blocks; a ViT's layers), forward and backward, the recomputed
// forwards (`recompute_share` of the layers) included; `graphed`: each layer captured in a CUDA
// graph (one replay per layer and pass).
double dense_layers_host_s(double layers, bool graphed, double recompute_share, HostCpuFamily cpu = HostCpuFamily::kX86);

}  // namespace rb
