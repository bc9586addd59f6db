// YAML with positions. yaml-cpp's event parser feeds a tree of our own, so that every key and value
// keeps its line and column, duplicate keys are caught (yaml-cpp 0.7 keeps the last one silently),
// and scalars are typed by YAML 1.2's core schema (`yes`/`on` stay strings; quoted stays string).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "recipebook/core/diagnostic.hpp"
#include "recipebook/core/result.hpp"

namespace rb {

struct YNode;
using YNodePtr = std::shared_ptr<const YNode>;

struct YNode {
  enum class Kind { kNull, kScalar, kSeq, kMap };
  enum class ScalarType { kNone, kString, kBool, kInt, kFloat };  // core-schema type of a scalar

  Kind kind = Kind::kNull;
  ScalarType type = ScalarType::kNone;
  std::string text;     // the scalar as written (unquoted), or "" for null
  bool quoted = false;  // the scalar was single- or double-quoted, or a block scalar
  bool block = false;   // literal `|` or folded `>` block scalar
  Where where;          // position of the node's first character

  std::vector<std::pair<YNode, YNode>> map;  // key node, value node, in file order
  std::vector<YNode> seq;

  [[nodiscard]] bool is_null() const { return kind == Kind::kNull; }
  [[nodiscard]] bool is_map() const { return kind == Kind::kMap; }
  [[nodiscard]] bool is_seq() const { return kind == Kind::kSeq; }
  [[nodiscard]] bool is_scalar() const { return kind == Kind::kScalar; }

  // Map lookup by key text; nullptr when absent or when this is not a map.
  [[nodiscard]] const YNode* get(std::string_view key) const;
  // Typed scalar reads; nullopt if absent, null, or of another type.
  [[nodiscard]] std::optional<std::string> as_string() const;  // any scalar's text
  [[nodiscard]] std::optional<int64_t> as_int() const;
  [[nodiscard]] std::optional<double> as_double() const;  // ints and floats
  [[nodiscard]] std::optional<bool> as_bool() const;
  // Human name of the node's type for messages: "a string", "an integer", "a map", ...
  [[nodiscard]] std::string type_name() const;
};

// Parses one YAML document. `file` is used in positions. A syntax error, a duplicate key, a NUL
// byte, invalid UTF-8 or more than one document is an Error with file:line:col.
Result<YNode> parse_yaml(std::string_view text, const std::string& file);
// The same, but a duplicate key is added to `duplicates` (its entry dropped, the first value kept)
// and parsing goes on, so `check` reports it beside every other finding of the file.
Result<YNode> parse_yaml(std::string_view text, const std::string& file, std::vector<Error>* duplicates);

// Reads and parses a file ("cannot read FILE: reason" when it cannot be read).
Result<YNode> load_yaml_file(const std::string& path);

// Reads a whole file as bytes: "cannot read FILE: reason" (missing, a directory, unreadable), with
// the code RB-FILE-READ.
Result<std::string> read_text_file(const std::string& path);

// The tree as JSON text (for `--json` output and for tests), keys in file order.
std::string to_json_text(const YNode& node);

}  // namespace rb
