// The layout flags (core/layout_fields.hpp LayoutFlags) read from JSON: `estimate --batch` lines,
// the serve API's bodies and `launch plan.json` entries spell each flag's name with underscores, and
// each key and its type come from the layout field table.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "recipebook/core/layout.hpp"
#include "recipebook/core/layout_fields.hpp"
#include "recipebook/core/result.hpp"

namespace rb {

// The JSON keys of the layout flags: each flag's name with underscores (`--first-stage-layers` is
// "first_stage_layers"), as `estimate --batch` lines and `plan --json` layouts spell them.
const std::vector<std::string>& layout_flag_keys();

// Reads `value` into the flag that `key` names: false when `key` is not a layout flag; an Error
// naming the key when the value has the wrong JSON type or does not fit an int.
Result<bool> read_layout_flag(const std::string& key, const nlohmann::json& value, LayoutFlags& f);

// For the readers of a JSON body: `e` with `key` as its where, unless it already names a place.
Error at_key(Error e, const std::string& key);
// "unknown key" for `key`, with the nearest of `known` as the fix and the key as where.
Error unknown_key(const std::string& key, const std::vector<std::string>& known);

}  // namespace rb
