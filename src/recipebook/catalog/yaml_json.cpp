#include "recipebook/catalog/yaml_json.hpp"

#include <cmath>

#include "recipebook/catalog/yaml_scalar.hpp"

namespace rb {

nlohmann::ordered_json to_json(const YNode& node) {
  using Json = nlohmann::ordered_json;
  switch (node.kind) {
    case YNode::Kind::kNull:
      return nullptr;
    case YNode::Kind::kSeq: {
      Json out = Json::array();
      for (const auto& item : node.seq) out.push_back(to_json(item));
      return out;
    }
    case YNode::Kind::kMap: {
      Json out = Json::object();
      for (const auto& [k, v] : node.map) out[k.text] = to_json(v);
      return out;
    }
    case YNode::Kind::kScalar:
      break;
  }
  switch (node.type) {
    case YNode::ScalarType::kBool:
      return node.as_bool().value_or(false);
    case YNode::ScalarType::kInt:
      if (auto i = node.as_int()) return *i;
      return node.text;
    case YNode::ScalarType::kFloat: {
      const auto d = node.as_double();
      if (!d) return node.text;
      if (std::isnan(*d)) return ".nan";
      if (std::isinf(*d)) return *d > 0 ? ".inf" : "-.inf";
      return *d;
    }
    default:
      return node.text;
  }
}

std::string to_json_text(const YNode& node) {
  // Input was checked to be valid UTF-8, so dump cannot throw; `replace` keeps it so regardless.
  return to_json(node).dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace rb
