// What time.cpp's step_time computes once per layout and GPU (StepTerms) and the parts of one
// micro-batch on a pipeline rank (RankTime), shared by the files that add terms to it
// (estimate/context_parallel.hpp). Internal to estimate/: not part of time.hpp's interface.
#pragma once

#include <cstdint>

#include "recipebook/core/hardware.hpp"
#include "recipebook/core/layout.hpp"
#include "recipebook/estimate/collectives.hpp"
#include "recipebook/estimate/delta_rule.hpp"
#include "recipebook/estimate/fused_kernels.hpp"
#include "recipebook/estimate/gemm_split.hpp"
#include "recipebook/estimate/stages.hpp"
#include "recipebook/estimate/time.hpp"

namespace rb {

inline constexpr double kAttnPasses = 3.5;  // flash attention: forward 1, backward 2.5 (FlashAttention-2 Sec. 3)

struct RankTime {
  double gemm = 0, attn = 0, mem = 0, recompute = 0, tp = 0, cp = 0, ep = 0, pp = 0, overhead = 0;
  [[nodiscard]] double total() const { return gemm + attn + mem + recompute + tp + cp + ep + pp + overhead; }
};

// What step_time computes once per layout and GPU, before its loop over the pipeline ranks. With
// `comm` false the TP, CP, EP and PP transfers are left out (step_time_floor_s: each is >= 0).
struct StepTerms {
  const TimeInputs* in = nullptr;
  const Layout* l = nullptr;
  const Efficiency* eff = nullptr;
  const Efficiency* eff_bf16 = nullptr;  // the BF16 layers' (Layout::bf16_layers_at_start / _end)
  // The dense and the routed-expert GEMMs' rates (FLOP/s, size factors in) at each precision a GEMM
  // can take in this layout (estimate/gemm_split.hpp): the layout's, MXFP8's, BF16's.
  GemmByPrecision dense_rate{}, expert_rate{};
  bool comm = true;
  Links links;
  Groups groups;
  double tp = 1, h = 0, tokens = 0, tok_tp = 0, passes = 3, peak_bf16 = 1, hbm = 1;
  bool fp8 = false;
  double f_dense = 1, route = 1, vpad = 0, swa_ctx = 0, act_bytes = 0;
  double rs = 0, a2a = 0, pp_send = 0, tp_hidden = 0;
  uint32_t mods = 0;
  double lora_total = 0, adapter_fwd_per_layer = 0;
  // TE's fused grouped MLP and FP8 attention (estimate/fused_kernels.hpp): the bytes the fusion takes
  // out of each routed token copy's memory-bound passes; FP8 attention's time per pass against BF16's
  // and the bytes its input quantization moves per BF16 byte.
  FusedMlpSaving mlp_saving;
  bool fp8_attn = false;
  AttentionRatio attn_ratio;
  double attn_quant = 0;
  // GDN's delta rule at the GPU's published kernel rates (estimate/delta_rule.hpp); unknown: the scan law.
  DeltaRuleRate delta_rule;
};

}  // namespace rb
