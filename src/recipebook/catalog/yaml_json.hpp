// YNode <-> JSON: the tree as nlohmann::ordered_json (keys in file order) for `--json` output and
// tests. Integers become JSON integers (0x/0o written in decimal), floats JSON numbers (.inf and .nan,
// which JSON lacks, become the strings ".inf", "-.inf", ".nan"), booleans and null as themselves.
#pragma once

#include <nlohmann/json.hpp>

#include "recipebook/catalog/yaml_tree.hpp"

namespace rb {

nlohmann::ordered_json to_json(const YNode& node);

}  // namespace rb
