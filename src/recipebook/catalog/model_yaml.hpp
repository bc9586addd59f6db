// A catalog model document (catalog/models/<name>.yaml, docs/catalog-format.md) to a Model.
//
// To add an architecture field: add it to core/model.hpp, to catalog/schema/model.schema.yaml, read
// it in model_yaml.cpp (and in hf_config.cpp), and extend model_yaml_test.cpp.
//
// Rule id: RB-MODEL-VALUE  a value the converter cannot use (wrong type, unknown enum word, a layer
//                          pattern that does not fit the layer count, a layer kind without its dims).
#pragma once

#include <optional>

#include "recipebook/catalog/yaml_tree.hpp"
#include "recipebook/core/diagnostic.hpp"
#include "recipebook/core/model.hpp"

namespace rb {

// Converts a model document. Findings are appended to `diags`; nullopt when any is an error. A
// document without `architecture` (or with `architecture: null`) is a stub: has_architecture = false.
std::optional<Model> model_from_yaml(const YNode& doc, Diagnostics& diags);

// A key an older model format had, which the schema now reports as RB-SCHEMA-UNKNOWN-KEY (e.g.
// `architecture.numerics.attention_dropout`): that finding's fix says where the value went
// (model_yaml_moved.cpp). `findings` are the schema's findings on `doc`.
void explain_moved_model_keys(const YNode& doc, Diagnostics& findings);

}  // namespace rb
