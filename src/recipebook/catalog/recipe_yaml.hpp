// A recipe record (catalog/recipes/<model>/<gpu>/<name>.yaml; seed 002's keys plus the ones
// docs/catalog-format.md adds) to a Recipe. The record's full tree stays with the catalog entry;
// this reads what list/show/recommend/launch need as typed values.
//
// Defaults: `name` is the file stem; `kind` is verified when `status: verified`, else library;
// `framework` falls back to `stack.framework`. The layout is known (layout_known) only when tp, pp,
// cp and ep are all given; dp is then derived as gpu.count / (tp x pp x cp) when absent, and vpp,
// etp default to 1. `dispatcher: flex` uses features.flex_backend (deepep | hybridep), and deepep
// when that is absent (Megatron-Core TransformerConfig.moe_flex_dispatcher_backend = "deepep").
//
// Rule id: RB-RECIPE-VALUE  a value the converter cannot use (an unknown precision, mode, kind,
//                           dispatcher, recompute granularity or method, CUDA-graph implementation or
//                           scope, recompute module; a wrong type).
#pragma once

#include <optional>
#include <string>

#include "recipebook/catalog/yaml_tree.hpp"
#include "recipebook/core/diagnostic.hpp"
#include "recipebook/core/recipe.hpp"

namespace rb {

// `stem` is the file name without its extension (the default `name`). Findings are appended to
// `diags`; nullopt when any is an error.
std::optional<Recipe> recipe_from_yaml(const YNode& doc, const std::string& stem, Diagnostics& diags);

}  // namespace rb
