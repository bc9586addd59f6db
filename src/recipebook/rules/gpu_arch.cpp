#include "recipebook/rules/gpu_arch.hpp"

#include <string>

#include "recipebook/core/strings.hpp"

namespace rb {
namespace {

bool starts_with(const std::string& s, std::string_view p) { return s.rfind(p, 0) == 0; }

}  // namespace

GpuArch gpu_arch_from_name(std::string_view name) {
  // fold_name drops separators: "GB300 (NVL72, 1400 W)" -> "gb300(nvl72,1400w)".
  std::string f = fold_name(name);
  if (starts_with(f, "nvidia")) f = f.substr(6);
  if (starts_with(f, "dgx") || starts_with(f, "hgx")) f = f.substr(3);
  if (starts_with(f, "gb200") || starts_with(f, "gb300")) return GpuArch::kGraceBlackwell;
  if (starts_with(f, "b200") || starts_with(f, "b300") || starts_with(f, "b100")) return GpuArch::kBlackwell;
  if (starts_with(f, "gh200") || starts_with(f, "h100") || starts_with(f, "h200") || starts_with(f, "h800") ||
      starts_with(f, "h20"))
    return GpuArch::kHopper;
  if (starts_with(f, "a100") || starts_with(f, "a800")) return GpuArch::kAmpere;
  if (starts_with(f, "vr200") || starts_with(f, "r100") || starts_with(f, "r200")) return GpuArch::kRubin;
  if (starts_with(f, "mi300") || starts_with(f, "mi325") || starts_with(f, "mi350") || starts_with(f, "mi355") ||
      starts_with(f, "instinct"))
    return GpuArch::kAmd;
  if (starts_with(f, "tpu")) return GpuArch::kTpu;
  return GpuArch::kUnknown;
}

GpuArch gpu_arch(const Hardware& hw) {
  GpuArch a = gpu_arch_from_name(hw.name);
  if (a == GpuArch::kUnknown) a = gpu_arch_from_name(hw.display);
  for (size_t i = 0; a == GpuArch::kUnknown && i < hw.aliases.size(); ++i) a = gpu_arch_from_name(hw.aliases[i]);
  return a;
}

std::string_view gpu_arch_name(GpuArch a) {
  switch (a) {
    case GpuArch::kUnknown: return "unknown";
    case GpuArch::kAmpere: return "Ampere";
    case GpuArch::kHopper: return "Hopper";
    case GpuArch::kBlackwell: return "Blackwell";
    case GpuArch::kGraceBlackwell: return "Grace Blackwell";
    case GpuArch::kRubin: return "Rubin";
    case GpuArch::kAmd: return "AMD Instinct";
    case GpuArch::kTpu: return "TPU";
  }
  return "unknown";
}

}  // namespace rb
