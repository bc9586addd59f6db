// JSON views of catalog entries for `list --json` and `show --json` (stable field names).
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/emit/layout_json.hpp"  // layout_json

namespace rb {

Json recipe_json(const RecipeEntry& e);      // summary: name, kind, mode, model, gpu, layout, ...
Json model_json(const ModelEntry& e);        // name, hf_id, family, dims, published counts, source
Json hardware_json(const HardwareEntry& e);  // name, memory, peaks, node, price, source

// The model's `architecture` as a catalog model YAML writes it (catalog/schema/model.schema.yaml;
// JSON is YAML, so catalog/model_yaml.cpp reads it back to the same model), for `show MODEL --json`.
// nullopt where that format cannot hold the model: no architecture, a Mamba-1 mixer, or a layer
// stack that neither the patterns nor a hybrid string describe.
std::optional<Json> model_architecture_json(const Model& m);

// The best current measured tokens/s/GPU of a recipe (its result, else its measurements); 0 = none.
double best_tokens_per_s(const Recipe& r);

}  // namespace rb
