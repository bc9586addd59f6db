// Which precision each GEMM of a quantized run takes (docs/model.md "Time", GEMM precision):
// Megatron-Core runs the BF16 layers (Layout::bf16_layers_at_start / _end, first_last_layers_bf16)
// outside the FP8/FP4 autocast, and a quantization recipe (Layout::bf16_modules / mxfp8_modules,
// TransformerConfig quant_recipe) moves named modules of the other layers to BF16 or MXFP8.
// Pure: the FLOP sums in, the FLOPs per precision out; time.cpp prices each at its own rate.
#pragma once

#include <array>
#include <cstdint>

#include "recipebook/core/layout.hpp"
#include "recipebook/estimate/prepared.hpp"

namespace rb {

// The precisions a GEMM can run at in one layout: the layout's own, MXFP8, BF16.
enum GemmPrecision : int { kGemmAtLayout = 0, kGemmAtMxfp8 = 1, kGemmAtBf16 = 2 };
inline constexpr int kNumGemmPrecisions = 3;
using GemmByPrecision = std::array<double, kNumGemmPrecisions>;

// The forward GEMM FLOPs per token of the `slots` (flops.hpp kDenseGemmSlots / kExpertGemmSlots or
// one module's bit) of a rank whose layers sum to `s`: those of the BF16 layers (`bf16_layers`) in
// BF16; of the MTP block (`mtp` x pm.mtp, and `mtp_extra` FLOPs of its unnamed eh-proj when the
// other slot is asked for) by the mtp bit of the module lists, else like any other layer's; the rest
// by the module lists (BF16 first, then MXFP8), the unnamed slot and unlisted modules at the
// layout's precision. A BF16 layout puts everything at its own (BF16) precision.
GemmByPrecision split_gemm_flops(const Layout& l, const LayerSums& s, const LayerSums& bf16_layers,
                                 const LayerSums& mtp_block, double mtp, double mtp_extra, uint32_t slots);

// The time of `flops` at `rate_per_s` (FLOP/s per precision): sum of flops / rate.
double gemm_split_time(const GemmByPrecision& flops, const GemmByPrecision& rate_per_s);

}  // namespace rb
