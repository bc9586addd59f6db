// The semantic checks of a recipe record that go beyond its schema: every derived figure is
// recomputed from the facts it derives from and compared with the stated value, within the
// rounding of the stated value's written decimals (seed 002's figures are the reference):
//   RB-DERIVED-WINDOW-TOKENS  window_tokens = (window_end - window_start + 1) x global_batch x row_tokens
//   RB-DERIVED-MFU            mfu = 6 x active_params x tokens/s/GPU / dense peak(gpu, precision)
//   RB-DERIVED-USD            usd_per_million_tokens = usd_per_gpu_hour / (tokens/s/GPU x 3600) x 1e6
//   RB-LAYOUT-PRODUCT         tp x pp x cp x dp = gpu.count
//   RB-ACTIVE-PARAMS          result.active_params.count = the count computed from the architecture
//   RB-VERIFIED-EVIDENCE      a verified record carries passing correctness evidence
//   RB-MODEL-UNKNOWN, RB-GPU-UNKNOWN, RB-EXTENDS-UNKNOWN   references that name nothing
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/catalog/yaml_tree.hpp"
#include "recipebook/core/diagnostic.hpp"

namespace rb {

// The node at a dotted path such as "result.window[1]"; nullptr when absent.
const YNode* node_at(const YNode& root, std::string_view path);
// The position to report for `path`: the node's own, else its nearest present ancestor's.
Where where_of(const YNode& root, std::string_view path);

// Whether a record gives the layout to judge (`check`) or estimate (`estimate --recipe`, `launch`,
// recommend's starting point) as its own: TP, PP and CP written, and EP unless `model` is known to
// be dense (a dense model has no experts; Megatron reads EP as 1), or all of them on one GPU. Degrees the record leaves out
// hold defaults, not a layout. A path in `doubted` (a field the schema rejected, whose values
// `check` probes) counts as given. `tree` is the record's YAML tree, resolved over `extends` where
// the caller has it. One rule for every reader of a record's layout.
bool record_layout_known(const YNode& tree, const Model* model, std::span<const std::string> doubted = {});

// Checks one recipe record (already schema-valid) against the catalog.
Diagnostics check_record(const YNode& tree, const Catalog& catalog);

}  // namespace rb
