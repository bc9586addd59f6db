#include "recipebook/emit/layout_flags.hpp"

#include "recipebook/core/strings.hpp"

#include <limits>

#include <nlohmann/json.hpp>

namespace rb {

const std::vector<std::string>& layout_flag_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k;
    for (const LayoutField& f : layout_fields()) k.emplace_back(f.key);
    return k;
  }();
  return keys;
}

Result<bool> read_layout_flag(const std::string& key, const nlohmann::json& value, LayoutFlags& f) {
  const LayoutField* row = nullptr;
  for (const LayoutField& r : layout_fields())
    if (r.key == key) row = &r;
  if (row == nullptr) return false;
  auto type_error = [&](const char* want) {
    return fail("\"" + key + "\" must be " + want + ", found " + std::string(value.type_name()));
  };
  switch (row->kind) {
    case FieldKind::kInt: {
      if (!value.is_number_integer()) return type_error("an integer");
      const auto wide = value.get<int64_t>();
      if (wide < std::numeric_limits<int>::min() || wide > std::numeric_limits<int>::max())
        return fail("\"" + key + "\" is out of range: " + std::to_string(wide));
      f.*row->given_int = static_cast<int>(wide);
      break;
    }
    case FieldKind::kBool:
      if (!value.is_boolean()) return type_error("true or false");
      f.*row->given_bool = value.get<bool>();
      break;
    case FieldKind::kText:
      if (!value.is_string()) return type_error("a string");
      f.*row->given_text = value.get<std::string>();
      break;
    case FieldKind::kNumber:
      if (!value.is_number()) return type_error("a number");
      f.*row->given_number = value.get<double>();
      break;
  }
  return true;
}

Error at_key(Error e, const std::string& key) {
  if (e.where.file.empty()) e.where.file = key;
  return e;
}

Error unknown_key(const std::string& key, const std::vector<std::string>& known) {
  const std::string near = nearest(key, known);
  return at_key(Error("unknown key \"" + key + "\"", {}, near.empty() ? "" : "did you mean \"" + near + "\"?"), key);
}

}  // namespace rb
