#include "recipebook/catalog/model_layers.hpp"

namespace rb {

std::vector<LayerSpec> layers_from_pattern(int count, const std::vector<MixerKind>& mixers,
                                           const std::vector<int>& windows, int first_dense, bool moe) {
  std::vector<LayerSpec> out;
  if (count <= 0) return out;
  out.reserve(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    const auto u = static_cast<size_t>(i);
    LayerSpec l;
    l.mixer = mixers.empty() ? MixerKind::kAttention : mixers[u % mixers.size()];
    if (l.mixer == MixerKind::kAttention && !windows.empty()) l.window = windows[u % windows.size()];
    l.ffn = moe && i >= first_dense ? FfnKind::kMoe : FfnKind::kDense;
    out.push_back(l);
  }
  return out;
}

std::optional<std::vector<LayerSpec>> layers_from_hybrid(std::string_view pattern, size_t* bad) {
  std::vector<LayerSpec> out;
  out.reserve(pattern.size());
  for (size_t i = 0; i < pattern.size(); ++i) {
    LayerSpec l;
    switch (pattern[i]) {
      case 'M':
        l.mixer = MixerKind::kMamba2;
        l.ffn = FfnKind::kNone;
        break;
      case '*':
        l.mixer = MixerKind::kAttention;
        l.ffn = FfnKind::kNone;
        break;
      case '-':
        l.mixer = MixerKind::kNone;
        l.ffn = FfnKind::kDense;
        break;
      case 'E':
        l.mixer = MixerKind::kNone;
        l.ffn = FfnKind::kMoe;
        break;
      default:
        if (bad != nullptr) *bad = i;
        return std::nullopt;
    }
    out.push_back(l);
  }
  return out;
}

std::optional<MixerKind> parse_mixer(std::string_view s) {
  if (s == "attention") return MixerKind::kAttention;
  if (s == "mla") return MixerKind::kMla;
  if (s == "gdn") return MixerKind::kGdn;
  if (s == "mamba2" || s == "mamba") return MixerKind::kMamba2;
  if (s == "none") return MixerKind::kNone;
  return std::nullopt;
}

std::string_view mixer_name(MixerKind k) {
  switch (k) {
    case MixerKind::kAttention:
      return "attention";
    case MixerKind::kMla:
      return "mla";
    case MixerKind::kGdn:
      return "gdn";
    case MixerKind::kMamba2:
      return "mamba2";
    case MixerKind::kNone:
      return "none";
  }
  return "attention";
}

}  // namespace rb
