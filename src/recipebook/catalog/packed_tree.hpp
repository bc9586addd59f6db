// A parsed YAML tree in a compact binary form, so that the built-in catalog is parsed once, when the
// binary is built (apps/pack_catalog), and not on every start. The form holds exactly what
// parse_yaml gives (kind, core-schema type, text, quoted/block, line and column of every node); the
// file name of positions is given back at unpacking, as it is the same for every node of a file.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "recipebook/catalog/yaml_tree.hpp"

namespace rb {

// Appends `node` to `out`.
void pack_tree(const YNode& node, std::string& out);

// The tree `bytes` holds, every position naming `file`; nullopt when the bytes are not one whole
// packed tree (then parse the text instead).
std::optional<YNode> unpack_tree(std::string_view bytes, const std::string& file);

}  // namespace rb
