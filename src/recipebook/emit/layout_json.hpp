// A layout as JSON, for show, list, estimate, plan and recommend --json: one key per row of the
// layout field table (core/layout_fields.hpp), spelled as the flags and the JSON readers spell it,
// so `launch plan.json` and `estimate --batch` read it back; and "dp".
#pragma once

#include <nlohmann/json.hpp>

#include "recipebook/core/layout.hpp"

namespace rb {

using Json = nlohmann::ordered_json;

// Every field in force (a row's in_force: the first/last stage counts without an explicit layout,
// recompute_modules with selective recompute, recompute_layers with full, ...); of those shown
// only when set (FieldShown::kWhenSet), the ones that are not Layout's default.
Json layout_json(const Layout& l);

}  // namespace rb
