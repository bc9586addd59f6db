// Megatron-Bridge's mixed precision as run_recipe.py overrides (launch_bridge_precision.cpp; used by
// launch_bridge.cpp). A precision other than the recipe's is `mixed_precision=NAME`, Bridge's named
// recipe; the BF16 first/last layers and the FP4 parameter gather are `mixed_precision.KEY` overrides,
// written only on the recipe's own config, never beside the name (Hydra cannot apply one after it).
#pragma once

#include <string>
#include <vector>

#include "recipebook/core/result.hpp"
#include "recipebook/emit/launch.hpp"

namespace rb {

// Whether the launch replaces the recipe's MixedPrecisionConfig by a named recipe.
bool writes_precision_group(const LaunchSpec& spec);
// The `mixed_precision.KEY=VALUE` overrides the layout needs on the recipe's own config.
std::vector<std::string> precision_key_overrides(const LaunchSpec& spec);
// Refuses a new precision whose layout asks for settings the named recipe does not have.
Result<void> check_bridge_precision(const LaunchSpec& spec);

}  // namespace rb
