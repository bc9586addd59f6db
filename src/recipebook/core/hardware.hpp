// One accelerator type and the node it comes in, plus the calibrated efficiency parameters the
// estimator uses. Units are SI: bytes, bytes per second, FLOP per second, USD.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "recipebook/core/precision.hpp"

namespace rb {

// Named efficiency parameters, fitted per GPU and precision by `recipebook calibrate --fit` and kept
// in catalog/hardware/<gpu>.yaml. Each is a fraction of a peak (0 < x <= 1).
struct Efficiency {
  double gemm = 0.6;         // achieved / dense peak for large GEMMs
  double attention = 0.5;    // achieved / dense peak for flash-attention core
  double hbm = 0.7;          // achieved / HBM bandwidth for memory-bound kernels
  double nvlink = 0.7;       // achieved bus bandwidth / NVLink bandwidth
  double scaleout = 0.6;     // achieved bus bandwidth / scale-out bandwidth
  double overlap = 0.5;      // fraction of overlappable communication that is actually hidden
};

// Published microbenchmark figures of the hardware (catalog `microbenchmarks:`, docs/model.md
// "Hardware"), each with its date and source. They are evidence, not fits: estimate/microbench.hpp
// turns them into the priors and bounds of the fitted efficiencies and the GEMM size curve.
enum class Fabric { kNvlink, kScaleout };
enum class CollectiveOp { kAllReduce, kAllGather, kReduceScatter };

// One GEMM (cuBLAS / cuBLASLt / CUTLASS): m x n x k at `flops_per_s` (2 m n k / time). `groups` >= 1:
// a grouped (MoE) GEMM kernel run on `groups` problems of m x n x k each (m: tokens per group), its
// FLOP/s over all of them (DeepGEMM's contiguous and masked layouts); 0: a dense GEMM.
struct GemmFigure {
  Precision precision = Precision::kBf16;
  double m = 0, n = 0, k = 0;
  int groups = 0;
  double flops_per_s = 0;
  std::string library, date, source;
};

// One nccl-tests row: bus bandwidth (nccl-tests' busBw: algBw x 2(n-1)/n for all-reduce, x (n-1)/n
// for all-gather / reduce-scatter) of `op` over `gpus` GPUs (`fabric` nvlink: all in one NVLink
// domain; scaleout: across nodes) at `message_bytes`. `nvls`: NVLink SHARP (in-switch reduction),
// whose busBw can exceed the line rate.
struct CollectiveFigure {
  CollectiveOp op = CollectiveOp::kAllReduce;
  Fabric fabric = Fabric::kNvlink;
  int gpus = 0;
  int gpus_per_node = 0;  // scaleout rows: GPUs (and NICs) per node
  double message_bytes = 0;
  double bus_bytes_per_s = 0;
  bool nvls = false;
  std::string date, source;
};

// One DeepEP / HybridEP dispatch or combine benchmark: `bytes_per_s` as the library reports it (the
// NVLink figure: bytes received over NVLink incl. the local rank's / time; the RDMA figure: bytes sent
// over RDMA, one copy per destination node / time), for `tokens` per rank of `hidden` channels,
// top-`top_k`, EP `ep` with `gpus_per_node` ranks per NVLink domain.
struct EpFigure {
  std::string library;  // "DeepEP", "DeepEP V2", "HybridEP"
  bool combine = false;
  Fabric fabric = Fabric::kNvlink;
  int ep = 0;
  int gpus_per_node = 0;
  double tokens = 0, hidden = 0;
  int top_k = 0;
  bool fp8 = false;
  double bytes_per_s = 0;
  std::string date, source;
};

// One fused-attention (SDPA) benchmark: `flops_per_s` of one pass (forward, or backward: dQ, dK, dV)
// as the library counts it, for `batch` sequences of `seq` tokens, `heads` query heads over `kv_heads`
// K/V heads of `head_dim`, causal or not. `precision`: the operands, bf16, fp8_cs (per-tensor FP8,
// E4M3) or mxfp8. Only ratios of two figures of one shape and pass are used (estimate/fused_kernels.hpp).
struct AttentionFigure {
  Precision precision = Precision::kBf16;
  bool backward = false;
  bool causal = true;
  int batch = 1, heads = 0, kv_heads = 0, head_dim = 0;
  double seq = 0;
  double flops_per_s = 0;
  std::string library, date, source;
};

// One chunked gated-delta-rule (GDN) kernel benchmark: the time of one pass of the kernel Megatron-Core's
// GatedDeltaNet calls (flash-linear-attention's chunk_gated_delta_rule: forward with its final state, or
// backward with what it recomputes) over `sequences` packed sequences of `seq` tokens, `qk_heads`
// query/key heads and `v_heads` value heads of `head_dim` (estimate/delta_rule.hpp).
struct DeltaRuleFigure {
  bool backward = false;
  int sequences = 1;
  double seq = 0;
  int qk_heads = 0, v_heads = 0, head_dim = 0;
  double time_s = 0;
  std::string library, date, source;
};

struct Microbenchmarks {
  std::vector<GemmFigure> gemm;
  std::vector<CollectiveFigure> collectives;
  std::vector<EpFigure> ep;
  std::vector<AttentionFigure> attention;
  std::vector<DeltaRuleFigure> delta_rule;
  [[nodiscard]] bool empty() const {
    return gemm.empty() && collectives.empty() && ep.empty() && attention.empty() && delta_rule.empty();
  }
};

// The family of a node's host CPU: x86 (Xeon, EPYC) or NVIDIA Grace (Arm Neoverse V2).
enum class HostCpuFamily { kX86, kGrace };

struct Hardware {
  std::string name;     // catalog name: "h100", "gb300", ...
  std::string display;  // "H100-SXM"
  std::vector<std::string> aliases;
  std::string source;
  bool has_specs = true;  // false for a GPU that recipes name but whose figures the catalog lacks

  double memory_bytes = 0;
  // Memory a layout must leave free on each GPU (recipebook's --headroom, docs/model.md "Memory"):
  // a layout fits when its peak <= memory_bytes - headroom_bytes(). Not a catalog figure: 0 here,
  // the CLI's default or the user's value.
  double headroom_fixed_bytes = 0;
  double headroom_fraction = 0;  // of memory_bytes
  [[nodiscard]] double headroom_bytes() const { return headroom_fixed_bytes + headroom_fraction * memory_bytes; }
  double hbm_bytes_per_s = 0;
  double bf16_flops_per_s = 0;  // dense
  double fp8_flops_per_s = 0;   // dense; 0 = not supported
  double fp4_flops_per_s = 0;   // dense; 0 = not supported

  int gpus_per_node = 8;
  int nvlink_domain = 8;            // GPUs that share one NVLink fabric (72 on NVL72)
  double nvlink_bytes_per_s = 0;    // per GPU, one direction
  double scaleout_bytes_per_s = 0;  // per GPU, one direction
  double tdp_w = 0;

  // The host side (catalog `host:`; docs/model.md "Offload"): 0 = not in the catalog, and then
  // optimizer CPU offload and activation offloading are not estimated.
  double host_link_bytes_per_s = 0;    // per GPU, one direction (PCIe Gen5 x16: 64 GB/s; NVLink-C2C)
  double host_memory_bytes = 0;        // per node
  double host_memory_bytes_per_s = 0;  // per node, peak (what the CPU optimizer step streams at)
  std::string host_source;
  // The node's host CPU (catalog `host: cpu`, `cpu_family`): the per-call host costs of the time
  // model's host floor follow its family (estimate/host.hpp). x86 when the catalog names none.
  std::string host_cpu;
  HostCpuFamily host_cpu_family = HostCpuFamily::kX86;
  [[nodiscard]] bool has_host() const { return host_link_bytes_per_s > 0 && host_memory_bytes > 0; }
  // GEMM size curves of the time model (docs/model.md "Time"): a GEMM whose smallest dimension is n
  // runs at eff.gemm x n / (n + half_dim). Dense GEMMs take n = the smallest TP-sharded dimension,
  // grouped expert GEMMs n = sqrt(h x width / etp). Defaults: the session-3 values (chosen on every
  // measured row); bench/accuracy.cpp re-chooses them inside each leave-one-out fold, and its choice on
  // every benchmark run is now 512 / 4096 (BENCHMARKS.md, not adopted yet). Not a catalog field yet.
  double gemm_half_dim = 1024;
  double expert_half_dim = 4096;

  double usd_per_gpu_hour = 0;  // 0 = no public price
  std::string price_source;
  std::string price_date;

  // Efficiency per precision, indexed by static_cast<int>(Precision).
  std::array<Efficiency, kNumPrecisions> efficiency{};
  Microbenchmarks microbenchmarks;

  [[nodiscard]] double peak_flops_per_s(Precision p) const {
    switch (precision_class(p)) {
      case PrecisionClass::kBf16: return bf16_flops_per_s;
      case PrecisionClass::kFp8: return fp8_flops_per_s;
      case PrecisionClass::kFp4: return fp4_flops_per_s;
    }
    return bf16_flops_per_s;
  }
  [[nodiscard]] const Efficiency& eff(Precision p) const {
    return efficiency[static_cast<size_t>(p)];
  }
};

}  // namespace rb
