// Two Transformer Engine kernel choices a recipe switches on, and what they change in the time model
// (docs/model.md "Time"): the fused grouped expert MLP (Layout::fused_grouped_mlp) and FP8 core
// attention (Layout::fp8_attention). Pure: sizes in, bytes and ratios out.
#pragma once

#include "recipebook/core/hardware.hpp"
#include "recipebook/core/layout.hpp"
#include "recipebook/core/model.hpp"

namespace rb {

// HBM bytes per routed token copy that TE's fused grouped MLP takes out of the memory-bound kernels
// of one MoE layer, forward and backward.
struct FusedMlpSaving {
  double fwd_bytes = 0;
  double bwd_bytes = 0;
};

// Whether TE fuses the routed experts' MLP in this layout: the switch, an MXFP8 or NVFP4 recipe
// (fuse_grouped_mlp_ops returns the ops unfused under any other recipe) and an activation its
// kernels implement (GLU: swiglu / geglu, GroupedMLP_CuTeGEMMGLU; squared ReLU, _Unary). TE also
// requires compute capability 10.x, which those recipes imply on the catalog's GPUs.
[[nodiscard]] bool fused_grouped_mlp_runs(const Layout& l, Activation act);

// What the fusion removes, per routed token copy of an expert whose FC2 input is `ffn` wide on this
// rank (moe_ffn / ETP) and whose FC1 output is 2 ffn (gated) or ffn wide, under precision `p`.
// Unfused (Megatron-Core TEGroupedMLP): forward, the activation kernel reads the FC1 output (BF16)
// and writes its output (BF16), and FC2's input quantization reads that and writes it rowwise and
// columnwise with its scales; backward, the activation backward reads the output gradient and the
// saved FC1 output and writes the FC1 output gradient, which FC1's quantization reads and writes
// rowwise and columnwise. Fused (grouped_mlp.py GroupedMLP_CuTeGEMMGLU): the FC1 kernel's epilogue
// writes the FC1 output for backward and the MXFP8 FC2 input (d_tensor, d_col_tensor with their
// scales), and the FC2-dgrad kernel's epilogue reads the saved FC1 output and writes the MXFP8 FC1
// gradient: those passes leave the memory-bound time (what the epilogues move runs under their
// GEMMs). Under NVFP4 the kernels write BF16 (fc1_d_dtype, fc2_d_dtype) and the quantizations stay
// separate kernels: only the activation passes go.
[[nodiscard]] FusedMlpSaving fused_grouped_mlp_saving(double ffn, bool gated, Precision p);

// FP8 attention's time against BF16's, per pass, from the GPU's published SDPA figures
// (Hardware::microbenchmarks.attention): BF16 throughput / FP8 throughput of the same shape and pass,
// the causal figures of the head dimension nearest `head_dim` and the sequence nearest `seq` (in
// ratio). The attention operands follow the linear recipe as Transformer Engine picks them
// (attention/dot_product_attention/dot_product_attention.py, TE 2.16): MXFP8 under MXFP8, per-tensor
// FP8 otherwise. No figure of the GPU: 1 and 1 (no evidence of a change).
struct AttentionRatio {
  double fwd = 1.0;
  double bwd = 1.0;
};
[[nodiscard]] AttentionRatio fp8_attention_ratio(const Microbenchmarks& mb, Precision linear, double seq,
                                                 double head_dim);

// HBM bytes per BF16 byte that FP8 attention's quantization of its inputs moves: forward Q, K and V,
// backward dO (TE quantizes them before cuDNN's FP8 SDPA): read the BF16 tensor, write E4M3, plus
// the scales (MXFP8: one E8M0 per 32) or the amax read of per-tensor current scaling.
[[nodiscard]] double fp8_attention_quant_bytes_per_byte(Precision linear);

}  // namespace rb
