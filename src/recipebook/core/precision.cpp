#include "recipebook/core/precision.hpp"

#include "recipebook/core/strings.hpp"

namespace rb {

std::optional<Precision> parse_precision(std::string_view s) {
  const std::string f = fold_name(s);  // "fp8_cs", "FP8-CS" and "fp8cs" all fold to "fp8cs"
  if (f == "bf16" || f == "bf16mixed") return Precision::kBf16;
  if (f == "fp8cs" || f == "fp8" || f == "fp8current" || f == "fp8tensorwise") return Precision::kFp8Cs;
  if (f == "fp8ds" || f == "fp8delayed") return Precision::kFp8Ds;
  if (f == "fp8sc" || f == "fp8blockwise" || f == "fp8subchannel") return Precision::kFp8Blockwise;
  if (f == "fp8mx" || f == "mxfp8") return Precision::kMxfp8;
  if (f == "nvfp4" || f == "fp4") return Precision::kNvfp4;
  return std::nullopt;
}

}  // namespace rb
