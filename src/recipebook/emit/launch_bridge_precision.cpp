// Megatron-Bridge's mixed precision in run_recipe.py overrides: the named recipe a new precision is
// (`mixed_precision=NAME`), and the MixedPrecisionConfig keys the layout sets on the recipe's own
// config (launch_bridge_precision.hpp).
#include "recipebook/emit/launch_bridge_precision.hpp"

#include <fmt/format.h>

#include <utility>

#include "recipebook/core/layout_fields.hpp"
#include "recipebook/emit/launch_script.hpp"

namespace rb {
namespace {

std::string py_bool(bool b) { return b ? "True" : "False"; }

// The MixedPrecisionConfig settings the layout carries besides the precision: the BF16 first/last
// layers and, under NVFP4, the FP4 parameter all-gather.
struct PrecisionKnobs {
  int bf16_start = 0;
  int bf16_end = 0;
  bool fp4_param_gather = false;
  friend bool operator==(const PrecisionKnobs&, const PrecisionKnobs&) = default;
};

PrecisionKnobs knobs_of(const Layout& l) {
  if (l.precision == Precision::kBf16) return {};
  return {l.bf16_layers_at_start, l.bf16_layers_at_end, l.precision == Precision::kNvfp4 && l.fp4_param_gather};
}

// What Megatron-Bridge's named recipe for a precision sets of them (training/mixed_precision.py at
// 067f987df: bf16_with_fp8_current_scaling_mixed keeps one layer at each end in BF16,
// bf16_with_nvfp4_mixed gathers in FP4; the others keep MixedPrecisionConfig's 0, 0, False).
PrecisionKnobs named_knobs(Precision p) {
  if (p == Precision::kFp8Cs) return {1, 1, false};
  if (p == Precision::kNvfp4) return {0, 0, true};
  return {};
}

}  // namespace

// Whether the launch replaces the recipe's MixedPrecisionConfig by a named recipe (`mixed_precision=NAME`).
bool writes_precision_group(const LaunchSpec& spec) {
  return spec.layout_given && spec.precision_given && (!spec.base || spec.base->precision != spec.layout.precision);
}

// The `mixed_precision.KEY` overrides the layout needs on the recipe's own MixedPrecisionConfig.
// None after `mixed_precision=NAME`: Hydra applies a change override as OmegaConf.update(cfg, key,
// value, merge=True) (hydra/_internal/config_loader_impl.py _apply_overrides_to_config, called by
// Bridge training/utils/omegaconf_utils.py parse_hydra_overrides on a struct config), which turns the
// name into an empty map that struct mode then refuses a key on ("Could not override
// 'mixed_precision.first_last_layers_bf16'"); before the name, the name replaces the map and the key
// is lost. So with a new precision the run gets the named recipe's settings (check_bridge_precision
// refuses a layout that asks for others), and the keys are written only on the recipe's own.
std::vector<std::string> precision_key_overrides(const LaunchSpec& spec) {
  const Layout& l = spec.layout;
  std::vector<std::string> out;
  if (!spec.layout_given || writes_precision_group(spec) || l.precision == Precision::kBf16) return out;
  const PrecisionKnobs want = knobs_of(l);
  const PrecisionKnobs have = knobs_of(*spec.base);  // writes_precision_group is true without a base
  if (std::pair(want.bf16_start, want.bf16_end) != std::pair(have.bf16_start, have.bf16_end)) {
    const bool on = want.bf16_start > 0 || want.bf16_end > 0;
    out.push_back(fmt::format("mixed_precision.first_last_layers_bf16={}", py_bool(on)));
    if (on) {
      out.push_back(fmt::format("{}={}", layout_field("bf16_layers_at_start").bridge, want.bf16_start));
      out.push_back(fmt::format("{}={}", layout_field("bf16_layers_at_end").bridge, want.bf16_end));
    }
  }
  if (l.precision == Precision::kNvfp4 && want.fp4_param_gather != have.fp4_param_gather)
    out.push_back(fmt::format("mixed_precision.fp4_param_gather={}", py_bool(want.fp4_param_gather)));
  return out;
}

Result<void> check_bridge_precision(const LaunchSpec& spec) {
  // A new precision runs its named recipe's settings (precision_key_overrides says why no key can
  // follow the name): a layout that changes them from the recipe's as well cannot be launched.
  if (!writes_precision_group(spec)) return {};
  {
    const Layout& l = spec.layout;
    Layout plain;  // without the recipe's own: the layout defaults at this precision
    plain.precision = l.precision;
    const PrecisionKnobs want = knobs_of(l), by_name = named_knobs(l.precision);
    const PrecisionKnobs have = knobs_of(spec.base ? *spec.base : plain);
    if (want != by_name && want != have) {
      const bool fp4 = l.precision == Precision::kNvfp4;
      auto said = [&](const PrecisionKnobs& k) {
        return fmt::format("{} BF16 layers at the start and {} at the end{}", k.bf16_start, k.bf16_end,
                           fp4 ? fmt::format(", FP4 parameter gather {}", k.fp4_param_gather ? "on" : "off") : "");
      };
      return fail(fmt::format("run_recipe.py cannot set this layout's mixed precision: `mixed_precision={}` replaces "
                              "the recipe's MixedPrecisionConfig with that named recipe ({}), and a "
                              "`mixed_precision.KEY` override cannot follow it (Hydra turns the name into an empty "
                              "map: \"Could not override\"); the layout asks for {}",
                              bridge_precision_recipe(l.precision), said(by_name), said(want)),
                  {"--precision"},
                  fmt::format("give --bf16-layers-at-start {} --bf16-layers-at-end {} (the named recipe's), or "
                              "launch a catalog recipe recorded at this precision",
                              by_name.bf16_start, by_name.bf16_end));
    }
  }
  return {};
}

}  // namespace rb
