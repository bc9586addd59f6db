// Internal: the compiled form of a Schema, shared by schema_compile.cpp and schema.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <regex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "recipebook/catalog/schema.hpp"
#include "recipebook/catalog/yaml_tree.hpp"

namespace rb {

// JSON Schema's primitive types as bits.
enum SchemaType : uint32_t {
  kTypeString = 1u << 0,
  kTypeInteger = 1u << 1,
  kTypeNumber = 1u << 2,  // includes integers
  kTypeBoolean = 1u << 3,
  kTypeNull = 1u << 4,
  kTypeObject = 1u << 5,
  kTypeArray = 1u << 6,
};

struct SchemaPattern {
  std::string text;
  std::regex re;
};

struct SchemaNode {
  bool always_false = false;  // the boolean schema `false`
  uint32_t types = 0;         // 0 = any type

  std::vector<std::pair<std::string, int>> properties;  // in schema order
  std::unordered_map<std::string, int> property_index;  // name -> node index
  std::vector<std::string> required;
  bool additional_allowed = true;
  int additional = -1;  // node index for additionalProperties as a schema
  std::vector<std::pair<SchemaPattern, int>> pattern_properties;

  int items = -1;
  std::optional<size_t> min_items, max_items;
  bool unique_items = false;

  std::optional<std::vector<YNode>> enum_values;
  std::optional<YNode> const_value;

  std::optional<double> minimum, maximum, exclusive_minimum, exclusive_maximum, multiple_of;
  std::optional<size_t> min_length, max_length;
  std::optional<SchemaPattern> pattern;

  std::vector<int> one_of, any_of, all_of;
  int not_schema = -1;
  int ref = -1;
};

struct Schema::Impl {
  std::vector<SchemaNode> nodes;  // nodes[0] is the root
};

// Equality of two scalar/null/collection values as JSON values (1 == 1.0; "1" != 1).
bool json_equal(const YNode& a, const YNode& b);

}  // namespace rb
