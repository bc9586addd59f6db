// JSON views of catalog entries for `list --json` and `show --json` (stable field names).
#pragma once

#include <nlohmann/json.hpp>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/emit/layout_json.hpp"  // layout_json

namespace rb {

Json recipe_json(const RecipeEntry& e);      // summary: name, kind, mode, model, gpu, layout, ...
Json model_json(const ModelEntry& e);        // name, hf_id, family, dims, published counts, source
Json hardware_json(const HardwareEntry& e);  // name, memory, peaks, node, price, source

// The best current measured tokens/s/GPU of a recipe (its result, else its measurements); 0 = none.
double best_tokens_per_s(const Recipe& r);

}  // namespace rb
