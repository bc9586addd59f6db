// Scalar typing by the YAML 1.2 core schema (https://yaml.org/spec/1.2.2/#1032-tag-resolution) and
// the byte-level checks done before a text reaches yaml-cpp (NUL bytes, UTF-8).
//
// Core schema, plain scalars only (quoted and block scalars are always strings):
//   null   null | Null | NULL | ~ | (empty)
//   bool   true | True | TRUE | false | False | FALSE          (yes/no/on/off stay strings)
//   int    [-+]?[0-9]+ | 0o[0-7]+ | 0x[0-9a-fA-F]+
//   float  [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? | [-+]?\.(inf|Inf|INF) | \.(nan|NaN|NAN)
//   str    anything else
// A decimal integer too large for int64 is typed as a float (its value is still readable).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "recipebook/catalog/yaml_tree.hpp"

namespace rb {

YNode::ScalarType core_schema_type(std::string_view plain);

// Values of typed scalars; nullopt when `text` is not of that type.
std::optional<int64_t> parse_core_int(std::string_view text);
std::optional<double> parse_core_float(std::string_view text);  // ints too
std::optional<bool> parse_core_bool(std::string_view text);

// True for the YAML 1.1 booleans that YAML 1.2 reads as strings: y/n, yes/no, on/off (any case).
bool is_yaml11_bool(std::string_view text);

// Offset of the first byte that is not part of valid UTF-8 (overlong forms, surrogates and code
// points above U+10FFFF are invalid), or nullopt.
std::optional<size_t> find_invalid_utf8(std::string_view text);

// 1-based line and column (in bytes) of a byte offset.
Where position_of(std::string_view text, size_t offset, const std::string& file);

}  // namespace rb
