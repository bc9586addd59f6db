#include "recipebook/estimate/gemm_split.hpp"

namespace rb {
namespace {

// Where a module's GEMMs run outside the BF16 layers: Megatron-Core takes the first matcher that
// names the module (quant_config.py RecipeConfig.match_to_config_key); recipebook lists BF16 first.
GemmPrecision module_precision(const Layout& l, uint32_t bit) {
  if ((l.bf16_modules & bit) != 0) return kGemmAtBf16;
  if ((l.mxfp8_modules & bit) != 0) return kGemmAtMxfp8;
  return kGemmAtLayout;
}

}  // namespace

GemmByPrecision split_gemm_flops(const Layout& l, const LayerSums& s, const LayerSums& bf16_layers,
                                 const LayerSums& mtp_block, double mtp, double mtp_extra, uint32_t slots) {
  GemmByPrecision out{};
  const bool quantized = l.precision != Precision::kBf16;
  const bool mtp_named = (l.bf16_modules & kGmMtp) != 0 || (l.mxfp8_modules & kGmMtp) != 0;
  for (int i = 0; i < kNumGemmSlots; ++i) {
    const uint32_t bit = 1u << i;
    if ((slots & bit) == 0) continue;
    const auto k = static_cast<size_t>(i);
    const double extra = i == kGemmOtherSlot ? mtp_extra : 0.0;
    const double all = s.module_flops[k] + extra;
    if (!quantized) {
      out[kGemmAtLayout] += all;
      continue;
    }
    // The unnamed slot follows the layer's precision; a named module its list.
    const GemmPrecision own = i == kGemmOtherSlot ? kGemmAtLayout : module_precision(l, bit);
    const double in_bf16_layers = bf16_layers.module_flops[k];
    const double in_mtp = mtp * mtp_block.module_flops[k] + extra;
    out[kGemmAtBf16] += in_bf16_layers;
    out[mtp_named ? module_precision(l, kGmMtp) : own] += in_mtp;
    out[own] += all - in_bf16_layers - in_mtp;
  }
  return out;
}

double gemm_split_time(const GemmByPrecision& flops, const GemmByPrecision& rate_per_s) {
  double t = 0.0;
  for (size_t c = 0; c < flops.size(); ++c)
    if (flops[c] != 0.0) t += flops[c] / rate_per_s[c];
  return t;
}

}  // namespace rb
