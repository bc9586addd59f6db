// A catalog hardware document (catalog/hardware/<name>.yaml, docs/catalog-format.md) to a Hardware.
// Quantities are strings with units parsed here (core/units.hpp); a bare number is accepted only
// where the key names its unit (memory_gb, tdp_w, usd_per_gpu_hour).
//
// Efficiency: `efficiency.<precision>` (bf16, fp8_cs, fp8_ds, fp8_blockwise, mxfp8, nvfp4 and the
// spellings parse_precision accepts); each parameter a precision leaves out comes from bf16's entry,
// and what bf16 leaves out from the GPU's `microbenchmarks:` (estimate/microbench.hpp: prior_efficiency),
// else the Efficiency{} defaults.
//
// Microbenchmarks: `microbenchmarks.{gemm, collectives, ep}`, lists of published figures with their
// date and source (docs/catalog-format.md); read into Hardware::microbenchmarks.
//
// Rule id: RB-HW-VALUE  a value the converter cannot use (wrong type, a quantity without a unit or with
//                       the wrong unit, an unknown precision under `efficiency`, an efficiency outside (0,
//                       1]).
#pragma once

#include <optional>

#include "recipebook/catalog/yaml_tree.hpp"
#include "recipebook/core/diagnostic.hpp"
#include "recipebook/core/hardware.hpp"

namespace rb {

// Findings are appended to `diags`; nullopt when any is an error. Without `memory` (or `memory_gb`)
// or `peak.bf16` the entry is a stub: has_specs = false.
std::optional<Hardware> hardware_from_yaml(const YNode& doc, Diagnostics& diags);

}  // namespace rb
