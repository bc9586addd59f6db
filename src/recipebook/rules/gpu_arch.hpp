// The GPU generation behind a catalog hardware entry, which several rules gate on (FP8 needs
// Hopper or newer, MXFP8/NVFP4 need Blackwell, DeepEP is refused on GB200/GB300, ...).
// core/hardware.hpp carries no compute capability, so the generation is read from the catalog
// name or display name ("h100", "GB300 (NVL72, 1400 W)").
#pragma once

#include <string_view>

#include "recipebook/core/hardware.hpp"

namespace rb {

enum class GpuArch {
  kUnknown,
  kAmpere,          // A100, A800 (sm80)
  kHopper,          // H100, H200, H800, H20, GH200 (sm90)
  kBlackwell,       // B200, B300 HGX (sm100 / sm103)
  kGraceBlackwell,  // GB200, GB300 NVL72 (sm100 / sm103, NVLink domain 72)
  kRubin,           // R100, VR200
  kAmd,             // MI300X, MI325X, MI355X
  kTpu,
};

GpuArch gpu_arch(const Hardware& hw);
GpuArch gpu_arch_from_name(std::string_view name);
std::string_view gpu_arch_name(GpuArch a);

inline bool is_blackwell_family(GpuArch a) {
  return a == GpuArch::kBlackwell || a == GpuArch::kGraceBlackwell;
}
inline bool is_nvidia(GpuArch a) {
  return a == GpuArch::kAmpere || a == GpuArch::kHopper || is_blackwell_family(a) || a == GpuArch::kRubin;
}

}  // namespace rb
