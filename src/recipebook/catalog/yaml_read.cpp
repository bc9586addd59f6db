#include "recipebook/catalog/yaml_read.hpp"

#include <cmath>
#include <limits>

#include "recipebook/core/strings.hpp"

namespace rb {

void YamlReader::error(const YNode& at, std::string message, std::string fix) {
  Diagnostic d;
  d.severity = Severity::kError;
  d.rule_id = rule_;
  d.where = at.where;
  d.message = std::move(message);
  d.fix = std::move(fix);
  diags_.push_back(std::move(d));
  ++errors_;
}

std::string YamlReader::join(std::string_view path, std::string_view key) {
  if (path.empty()) return std::string(key);
  return std::string(path) + "." + std::string(key);
}

const YNode* YamlReader::field(const YNode* map, std::string_view key) {
  if (map == nullptr || !map->is_map()) return nullptr;
  const YNode* v = map->get(key);
  if (v == nullptr || v->is_null()) return nullptr;
  return v;
}

void YamlReader::wrong_type(const YNode& v, std::string_view path, const char* expected) {
  std::string found = v.type_name();
  if (v.is_scalar()) found += " ('" + v.text + "')";
  error(v, backquoted(path) + " must be " + expected + ", found " + found);
}

std::optional<int64_t> YamlReader::int64(const YNode* map, std::string_view key, std::string_view path,
                                         int64_t min) {
  const YNode* v = field(map, key);
  if (v == nullptr) return std::nullopt;
  const auto i = v->as_int();
  if (!i) {
    wrong_type(*v, join(path, key), "an integer");
    return std::nullopt;
  }
  if (*i < min) {
    error(*v, backquoted(join(path, key)) + " must be >= " + std::to_string(min) + ", found " + v->text);
    return std::nullopt;
  }
  return i;
}

std::optional<int> YamlReader::int32(const YNode* map, std::string_view key, std::string_view path, int min) {
  const auto i = int64(map, key, path, min);
  if (!i) return std::nullopt;
  if (*i > std::numeric_limits<int>::max()) {
    error(*field(map, key), backquoted(join(path, key)) + " is too large, found " + std::to_string(*i));
    return std::nullopt;
  }
  return static_cast<int>(*i);
}

std::optional<double> YamlReader::number(const YNode* map, std::string_view key, std::string_view path) {
  const YNode* v = field(map, key);
  if (v == nullptr) return std::nullopt;
  const auto d = v->as_double();
  if (!d || !std::isfinite(*d)) {
    wrong_type(*v, join(path, key), "a finite number");
    return std::nullopt;
  }
  return d;
}

std::optional<bool> YamlReader::boolean(const YNode* map, std::string_view key, std::string_view path) {
  const YNode* v = field(map, key);
  if (v == nullptr) return std::nullopt;
  const auto b = v->as_bool();
  if (!b) wrong_type(*v, join(path, key), "true or false");
  return b;
}

std::optional<std::string> YamlReader::string(const YNode* map, std::string_view key, std::string_view path,
                                              bool any_scalar) {
  const YNode* v = field(map, key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_scalar() || (!any_scalar && v->type != YNode::ScalarType::kString)) {
    wrong_type(*v, join(path, key), "a string");
    return std::nullopt;
  }
  return v->text;
}

std::vector<std::string> YamlReader::string_list(const YNode* map, std::string_view key,
                                                 std::string_view path) {
  std::vector<std::string> out;
  const YNode* v = field(map, key);
  if (v == nullptr) return out;
  if (!v->is_seq()) {
    wrong_type(*v, join(path, key), "a list of strings");
    return out;
  }
  for (size_t i = 0; i < v->seq.size(); ++i) {
    const YNode& item = v->seq[i];
    if (!item.is_scalar()) {
      wrong_type(item, join(path, key) + "[" + std::to_string(i) + "]", "a string");
      continue;
    }
    out.push_back(item.text);
  }
  return out;
}

std::optional<double> YamlReader::quantity(const YNode* map, std::string_view key, std::string_view path,
                                           UnitKind kind) {
  const YNode* v = field(map, key);
  if (v == nullptr) return std::nullopt;
  const char* example = kind == UnitKind::kBytes            ? "'80 GiB'"
                        : kind == UnitKind::kBytesPerSecond ? "'3.35 TB/s'"
                                                            : "'989.4 TFLOP/s'";
  if (!v->is_scalar()) {
    wrong_type(*v, join(path, key), "a quantity with a unit");
    return std::nullopt;
  }
  if (v->type == YNode::ScalarType::kInt || v->type == YNode::ScalarType::kFloat) {
    error(*v, backquoted(join(path, key)) + " needs a unit, found the bare number " + v->text,
          std::string("write it with its unit, e.g. ") + example);
    return std::nullopt;
  }
  std::string why;
  const auto q = parse_quantity(v->text, kind, &why);
  if (!q) {
    error(*v,
          backquoted(join(path, key)) + " is not a valid quantity ('" + v->text + "')" +
              (why.empty() ? "" : ": " + why),
          std::string("write e.g. ") + example);
    return std::nullopt;
  }
  return q;
}

const YNode* YamlReader::map(const YNode* parent, std::string_view key, std::string_view path) {
  const YNode* v = field(parent, key);
  if (v == nullptr) return nullptr;
  if (!v->is_map()) {
    wrong_type(*v, join(path, key), "a map");
    return nullptr;
  }
  return v;
}

}  // namespace rb
