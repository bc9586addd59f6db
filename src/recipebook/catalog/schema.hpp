// A JSON-Schema (draft-07) validator for YAML trees: the subset our catalog schemas use, written in
// YAML (catalog/schema/*.schema.yaml). It returns every finding at once, each with the position of
// the offending key or value, a dotted path (`result.window[1]`) in the message and, where one
// exists, a fix ("did you mean 'tp'?").
//
// Keywords: type (one or a list of string, integer, number, boolean, null, object, array),
// properties, required, additionalProperties (bool or schema), patternProperties, items (a schema),
// enum, const, minimum, maximum, exclusiveMinimum, exclusiveMaximum (numbers, draft-06+), multipleOf,
// minLength, maxLength, pattern (ECMAScript, unanchored like JSON Schema), minItems, maxItems,
// uniqueItems, oneOf, anyOf, allOf, not, definitions + $ref ("#/definitions/name", "#/$defs/name",
// "#"), and the boolean schemas true/false. Ignored (annotations): description, title, default,
// examples, $schema, $id, $comment, format, readOnly, writeOnly, deprecated, and keys starting "x-".
// Any other keyword makes `compile` fail, so a typo in a schema cannot silently disable a check.
//
// Typing follows YAML 1.2's core schema (yaml_tree.hpp): an integer satisfies "number"; a float
// (even 8.0) does not satisfy "integer"; quoted "8" is a string; yes/no/on/off are strings.
//
// Rule ids (docs/rules.md lists them):
//   RB-SCHEMA-TYPE         a value has the wrong type (yes/no/on/off where a boolean is expected: fix says
//                          use true or false; a number where a string is expected: fix says quote it)
//   RB-SCHEMA-REQUIRED     a required key is missing (reported at the map that lacks it)
//   RB-SCHEMA-UNKNOWN-KEY  a key the schema does not allow (reported at the key; nearest allowed key
//   suggested) RB-SCHEMA-ENUM         a value outside `enum`, or not equal to `const` (nearest allowed value
//   suggested) RB-SCHEMA-RANGE        a number outside minimum/maximum/exclusiveMinimum/exclusiveMaximum, or
//   not a
//                          multiple of multipleOf
//   RB-SCHEMA-PATTERN      a string that does not match `pattern`
//   RB-SCHEMA-LENGTH       a string shorter than minLength or longer than maxLength (in code points)
//   RB-SCHEMA-ITEMS        a list with fewer than minItems / more than maxItems items, or a repeated item
//                          under uniqueItems
//   RB-SCHEMA-ONEOF        a value that fits none of the oneOf/anyOf forms (when no single form is the
//                          evident intent), more than one oneOf form, or a form excluded by `not`
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "recipebook/catalog/yaml_tree.hpp"
#include "recipebook/core/diagnostic.hpp"
#include "recipebook/core/result.hpp"

namespace rb {

class Schema {
 public:
  // Compiles a schema tree (regexes and $refs resolved once). An unsupported keyword, a bad regex, a
  // $ref to a missing definition or a malformed keyword value is an Error at its position.
  static Result<Schema> compile(const YNode& schema);

  // Every finding, in document order of discovery; empty when the document is valid.
  [[nodiscard]] Diagnostics validate(const YNode& doc) const;

  // The keys the schema's root object lists under `properties` (for suggestions elsewhere).
  [[nodiscard]] std::vector<std::string> root_keys() const;

  struct Impl;

 private:
  std::shared_ptr<const Impl> impl_;
};

}  // namespace rb
