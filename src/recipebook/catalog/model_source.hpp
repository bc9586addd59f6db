// Where a catalog model's architecture comes from when the model document does not spell it out:
//   hf_config: hf/<stem>.json   the model's public config.json, kept verbatim beside the models
//                               (catalog/models/hf/), read by the config.json reader (hf_config.hpp)
//   kind: diffusion             a kind of model the estimator does not model (no architecture)
//   unsized: "<reason>"         a language model whose architecture no public source gave (what was
//                               searched, when, and what is known)
// docs/catalog-format.md describes both keys; scripts/model_configs.tsv lists the built-in ones.
//
// Rule ids: RB-MODEL-VALUE  the document has both `architecture` and `hf_config` (or `kind` or
//                           `unsized` with either), or an `hf_config` that is not a relative path to a .json file
//           RB-HF-CONFIG    the config.json reader refused the file (its message, at its position)
//           RB-FILE-READ    the file `hf_config` names is not there
#pragma once

#include <string>

#include "recipebook/catalog/yaml_tree.hpp"
#include "recipebook/core/diagnostic.hpp"
#include "recipebook/core/model.hpp"

namespace rb {

// When `doc` says `hf_config`, replaces the architecture of `m` (converted from `doc` by
// model_from_yaml) with the one read from that config.json, keeping the document's names, source and
// published counts. The path is relative to the folder of `file`; a file named "builtin:models/x.yaml"
// finds it among the embedded catalog files. Findings go to `diags` (errors leave `m` a stub).
// Also reads `kind` into m.kind.
void apply_model_source(const YNode& doc, const std::string& file, Model& m, Diagnostics& diags);


// Why a model without architecture cannot be sized, as one sentence for users, e.g. "FLUX-12B is a
// diffusion model: the estimator models decoder-only language models". Empty when it has one.
std::string no_architecture_reason(const Model& m);

}  // namespace rb
