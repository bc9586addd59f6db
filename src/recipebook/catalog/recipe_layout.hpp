// Internal to recipe_yaml: reading a record's `layout` and `features` into Recipe::layout.
#pragma once

#include "recipebook/catalog/yaml_read.hpp"
#include "recipebook/core/model.hpp"
#include "recipebook/core/recipe.hpp"

namespace rb {

// Fills rec.layout (all but precision) and rec.layout_known; `gpus` is gpu.count (0 = unknown), for dp.
void read_layout(YamlReader& r, const YNode& doc, int gpus, Recipe& rec);

// A measurement's `layout_overrides` (at `path`, e.g. "measurements[2]"): the settings the run used
// that its recipe record does not, each unset where the entry does not give it.
Measurement::LayoutOverrides read_layout_overrides(YamlReader& r, const YNode* measurement, const std::string& path);

// What a record's layout takes from its model once the catalog links the two (after `extends`):
// an ETP the record omits becomes Megatron's default for a MoE model (core/layout.hpp default_etp,
// Megatron-Bridge's for a Bridge record) and stays 1 for a dense one; a CUDA-graph scope given as
// `full` keeps the modules of the layer kinds the model has (Megatron-Core's whole-layer graph).
// Nothing changes for a model without an architecture.
void link_recipe_model(Recipe& rec, const Model& m);

}  // namespace rb
