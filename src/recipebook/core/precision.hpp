// Training precisions as Megatron-Bridge names them (its mixed-precision recipes; REFERENCES.md D).
#pragma once

#include <optional>
#include <string_view>

namespace rb {

enum class Precision {
  kBf16,           // bf16_mixed
  kFp8Cs,          // fp8 current (tensorwise) scaling: "fp8_cs", "fp8cs"
  kFp8Ds,          // fp8 delayed scaling: "fp8_ds"
  kFp8Blockwise,   // fp8 blockwise / subchannel scaling: "fp8_sc", "fp8_blockwise"
  kMxfp8,          // MXFP8: "fp8_mx", "fp8mx", "mxfp8"
  kNvfp4,          // NVFP4: "nvfp4"
};
inline constexpr int kNumPrecisions = 6;

enum class PrecisionClass { kBf16, kFp8, kFp4 };

inline PrecisionClass precision_class(Precision p) {
  switch (p) {
    case Precision::kBf16: return PrecisionClass::kBf16;
    case Precision::kNvfp4: return PrecisionClass::kFp4;
    default: return PrecisionClass::kFp8;
  }
}

// Canonical spelling, as used in catalog files and `--precision`.
inline std::string_view precision_name(Precision p) {
  switch (p) {
    case Precision::kBf16: return "bf16";
    case Precision::kFp8Cs: return "fp8_cs";
    case Precision::kFp8Ds: return "fp8_ds";
    case Precision::kFp8Blockwise: return "fp8_blockwise";
    case Precision::kMxfp8: return "mxfp8";
    case Precision::kNvfp4: return "nvfp4";
  }
  return "bf16";
}

// Accepts the canonical names and the spellings used by Megatron-Bridge and its tables
// (case-insensitive): bf16, fp8cs/fp8_cs/fp8-cs/fp8, fp8ds/fp8_ds, fp8sc/fp8_sc/fp8_blockwise,
// fp8mx/fp8_mx/fp8-mx/mxfp8, nvfp4/fp4.
std::optional<Precision> parse_precision(std::string_view s);

}  // namespace rb
