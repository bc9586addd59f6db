// Internal to recipe_yaml: reading a record's `layout` and `features` into Recipe::layout.
#pragma once

#include "recipebook/catalog/yaml_read.hpp"
#include "recipebook/core/recipe.hpp"

namespace rb {

// Fills rec.layout (all but precision) and rec.layout_known; `gpus` is gpu.count (0 = unknown), for dp.
void read_layout(YamlReader& r, const YNode& doc, int gpus, Recipe& rec);

}  // namespace rb
