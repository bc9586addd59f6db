// Typed reads of YAML fields for the converters (model_yaml, hardware_yaml, recipe_yaml). A field
// that is absent or null reads as nullopt with no finding; a field of the wrong type, out of range or
// not parseable is a finding (with the value's position and the dotted path) and also reads as
// nullopt, so that the converter goes on and reports every problem of a file at once. The schemas
// catch most of these first; the converters check again so that they are safe on any tree.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "recipebook/catalog/yaml_tree.hpp"
#include "recipebook/core/diagnostic.hpp"
#include "recipebook/core/units.hpp"

namespace rb {

class YamlReader {
 public:
  YamlReader(Diagnostics& diags, std::string rule_id) : diags_(diags), rule_(std::move(rule_id)) {}

  // Records an error finding at `at`.
  void error(const YNode& at, std::string message, std::string fix = {});
  [[nodiscard]] bool failed() const { return errors_ > 0; }

  // `path` is the dotted path of `map` itself ("" for the root); the field's path is path.key.
  std::optional<int64_t> int64(const YNode* map, std::string_view key, std::string_view path,
                               int64_t min = 0);
  std::optional<int> int32(const YNode* map, std::string_view key, std::string_view path, int min = 0);
  std::optional<double> number(const YNode* map, std::string_view key, std::string_view path);
  std::optional<bool> boolean(const YNode* map, std::string_view key, std::string_view path);
  // A string; `any_scalar` also takes a number or boolean as written (an env value, a release).
  std::optional<std::string> string(const YNode* map, std::string_view key, std::string_view path,
                                    bool any_scalar = false);
  std::vector<std::string> string_list(const YNode* map, std::string_view key, std::string_view path);
  // A quantity with a unit ("80 GiB", "3.35 TB/s", "989.4 TFLOP/s"), in SI.
  std::optional<double> quantity(const YNode* map, std::string_view key, std::string_view path,
                                 UnitKind kind);
  // A map field (nullptr when absent or null; a finding when it is not a map).
  const YNode* map(const YNode* map, std::string_view key, std::string_view path);

  static std::string join(std::string_view path, std::string_view key);

 private:
  const YNode* field(const YNode* map, std::string_view key);
  void wrong_type(const YNode& v, std::string_view path, const char* expected);

  Diagnostics& diags_;
  std::string rule_;
  int errors_ = 0;
};

}  // namespace rb
