// Schema::compile: a schema tree (YAML) to SchemaNodes with regexes built and $refs resolved.
#include <cmath>
#include <set>
#include <string_view>

#include "recipebook/catalog/schema_impl.hpp"

namespace rb {
namespace {

const std::set<std::string_view>& ignored_keywords() {
  static const std::set<std::string_view> kIgnored = {
      "description", "title",  "default",  "examples",  "$schema",    "$id",
      "$comment",    "format", "readOnly", "writeOnly", "deprecated", "markdownDescription"};
  return kIgnored;
}

struct Compiler {
  const YNode& root;
  std::vector<SchemaNode> nodes;
  std::unordered_map<std::string, int> definitions;  // "#/definitions/x" and "#/$defs/x" -> index
  std::optional<Error> error;

  void fail_at(const YNode& at, std::string message) {
    if (error) return;
    Error e;
    e.message = "invalid schema: " + std::move(message);
    e.where = at.where;
    e.code = "RB-SCHEMA-INVALID";
    error = std::move(e);
  }

  std::optional<double> number(const YNode& v, std::string_view kw) {
    auto d = v.as_double();
    if (!d || !std::isfinite(*d)) fail_at(v, std::string(kw) + " must be a number");
    return d;
  }

  std::optional<size_t> count(const YNode& v, std::string_view kw) {
    auto i = v.as_int();
    if (!i || *i < 0) {
      fail_at(v, std::string(kw) + " must be a non-negative integer");
      return std::nullopt;
    }
    return static_cast<size_t>(*i);
  }

  std::optional<SchemaPattern> regex(const YNode& v, std::string_view kw) {
    if (!v.is_scalar() || v.type != YNode::ScalarType::kString) {
      fail_at(v, std::string(kw) + " must be a string");
      return std::nullopt;
    }
    try {
      return SchemaPattern{v.text, std::regex(v.text, std::regex::ECMAScript)};
    } catch (const std::regex_error& e) {
      fail_at(v, std::string(kw) + " '" + v.text + "' is not a valid regular expression: " + e.what());
      return std::nullopt;
    }
  }

  uint32_t type_bit(const YNode& v) {
    static const std::unordered_map<std::string, uint32_t> kTypes = {
        {"string", kTypeString},   {"integer", kTypeInteger}, {"number", kTypeNumber},
        {"boolean", kTypeBoolean}, {"null", kTypeNull},       {"object", kTypeObject},
        {"array", kTypeArray}};
    if (v.is_scalar()) {
      auto it = kTypes.find(v.text);
      if (it != kTypes.end()) return it->second;
    }
    fail_at(v, "unknown type '" + v.text + "'");
    return 0;
  }

  std::vector<int> list_of_schemas(const YNode& v, std::string_view kw) {
    std::vector<int> out;
    if (!v.is_seq() || v.seq.empty()) {
      fail_at(v, std::string(kw) + " must be a non-empty list of schemas");
      return out;
    }
    for (const auto& s : v.seq) out.push_back(compile(s));
    return out;
  }

  int reserve() {
    nodes.emplace_back();
    return static_cast<int>(nodes.size()) - 1;
  }

  int compile(const YNode& s) {
    const int idx = reserve();
    if (error) return idx;
    if (s.is_scalar() && s.type == YNode::ScalarType::kBool) {
      nodes[static_cast<size_t>(idx)].always_false = !s.as_bool().value_or(true);
      return idx;
    }
    if (!s.is_map()) {
      fail_at(s, "a schema must be a map or true/false, found " + s.type_name());
      return idx;
    }
    SchemaNode n;
    for (const auto& [key, v] : s.map) {
      const std::string& kw = key.text;
      if (ignored_keywords().count(kw) || kw.rfind("x-", 0) == 0) continue;
      if (kw == "definitions" || kw == "$defs") {
        if (&s != &root) fail_at(key, "definitions are only supported at the schema's root");
        continue;  // compiled up front
      }
      if (kw == "type") {
        if (v.is_seq()) {
          for (const auto& t : v.seq) n.types |= type_bit(t);
        } else {
          n.types = type_bit(v);
        }
      } else if (kw == "properties") {
        if (!v.is_map()) fail_at(v, "properties must be a map");
        for (const auto& [pk, pv] : v.map) {
          const int child = compile(pv);
          n.properties.emplace_back(pk.text, child);
          n.property_index.emplace(pk.text, child);
        }
      } else if (kw == "required") {
        if (!v.is_seq()) fail_at(v, "required must be a list of key names");
        for (const auto& r : v.seq) {
          if (!r.is_scalar()) fail_at(r, "required must be a list of key names");
          n.required.push_back(r.text);
        }
      } else if (kw == "additionalProperties") {
        if (v.is_scalar() && v.type == YNode::ScalarType::kBool) {
          n.additional_allowed = v.as_bool().value_or(true);
        } else {
          n.additional = compile(v);
        }
      } else if (kw == "patternProperties") {
        if (!v.is_map()) fail_at(v, "patternProperties must be a map");
        for (const auto& [pk, pv] : v.map) {
          auto re = regex(pk, "a patternProperties key");
          const int child = compile(pv);
          if (re) n.pattern_properties.emplace_back(std::move(*re), child);
        }
      } else if (kw == "items") {
        if (v.is_seq()) fail_at(v, "items as a list (tuple validation) is not supported");
        n.items = compile(v);
      } else if (kw == "enum") {
        if (!v.is_seq() || v.seq.empty()) fail_at(v, "enum must be a non-empty list");
        n.enum_values = v.seq;
      } else if (kw == "const") {
        n.const_value = v;
      } else if (kw == "minimum") {
        n.minimum = number(v, kw);
      } else if (kw == "maximum") {
        n.maximum = number(v, kw);
      } else if (kw == "exclusiveMinimum") {
        n.exclusive_minimum = number(v, kw);
      } else if (kw == "exclusiveMaximum") {
        n.exclusive_maximum = number(v, kw);
      } else if (kw == "multipleOf") {
        n.multiple_of = number(v, kw);
        if (n.multiple_of && *n.multiple_of <= 0) fail_at(v, "multipleOf must be > 0");
      } else if (kw == "minLength") {
        n.min_length = count(v, kw);
      } else if (kw == "maxLength") {
        n.max_length = count(v, kw);
      } else if (kw == "minItems") {
        n.min_items = count(v, kw);
      } else if (kw == "maxItems") {
        n.max_items = count(v, kw);
      } else if (kw == "uniqueItems") {
        n.unique_items = v.as_bool().value_or(false);
      } else if (kw == "pattern") {
        n.pattern = regex(v, kw);
      } else if (kw == "oneOf") {
        n.one_of = list_of_schemas(v, kw);
      } else if (kw == "anyOf") {
        n.any_of = list_of_schemas(v, kw);
      } else if (kw == "allOf") {
        n.all_of = list_of_schemas(v, kw);
      } else if (kw == "not") {
        n.not_schema = compile(v);
      } else if (kw == "$ref") {
        auto it = definitions.find(v.text);
        if (v.text == "#") {
          n.ref = 0;
        } else if (it != definitions.end()) {
          n.ref = it->second;
        } else {
          fail_at(v, "$ref '" + v.text + "' names no definition (use '#/definitions/<name>')");
        }
      } else {
        fail_at(key, "unsupported keyword '" + kw + "'");
      }
      if (error) break;
    }
    nodes[static_cast<size_t>(idx)] = std::move(n);
    return idx;
  }

  void run() {
    const int root_idx = reserve();  // index 0: compiled last, once definitions have indices
    std::vector<std::pair<const YNode*, int>> defs;
    for (const char* section : {"definitions", "$defs"}) {
      const YNode* d = root.get(section);
      if (!d) continue;
      if (!d->is_map()) {
        fail_at(*d, std::string(section) + " must be a map");
        return;
      }
      for (const auto& [name, body] : d->map) {
        const int slot = reserve();
        definitions["#/" + std::string(section) + "/" + name.text] = slot;
        defs.emplace_back(&body, slot);
      }
    }
    for (const auto& [body, slot] : defs) {
      const int compiled = compile(*body);
      nodes[static_cast<size_t>(slot)].ref = compiled;  // the slot forwards to the compiled body
    }
    const int compiled_root = compile(root);
    nodes[static_cast<size_t>(root_idx)].ref = compiled_root;
  }
};

}  // namespace

Result<Schema> Schema::compile(const YNode& schema) {
  Compiler c{schema, {}, {}, std::nullopt};
  c.run();
  if (c.error) return tl::unexpected<Error>(*c.error);
  auto impl = std::make_shared<Impl>();
  impl->nodes = std::move(c.nodes);
  Schema out;
  out.impl_ = std::move(impl);
  return out;
}

}  // namespace rb
