// Schema::validate: walks a YAML tree against compiled SchemaNodes, collecting every finding.
#include <charconv>
#include <cmath>
#include <unordered_set>

#include "recipebook/catalog/schema_impl.hpp"
#include "recipebook/catalog/yaml_scalar.hpp"
#include "recipebook/core/strings.hpp"

namespace rb {
namespace {

// Longest string a pattern is matched against: libstdc++'s std::regex recurses per character.
constexpr size_t kMaxPatternInput = 2000;
// Deepest validation recursion (schema hops plus document levels); only a $ref cycle in the schema
// itself or a document nested that deep reaches it (the catalog's records nest about 6 levels, a
// few schema hops each). 5000 overflowed an 8 MiB stack under ASan at -O1, whose frames of `run`
// take 8.5 KiB; 256 takes a quarter of it.
constexpr int kMaxDepth = 256;

// A path segment, linked to its parent; rendered only when a finding is reported.
struct PathSeg {
  const PathSeg* parent = nullptr;
  std::string_view key;
  int64_t index = -1;  // >= 0: a list index
  int depth = 0;
};

std::string render(const PathSeg* p) {
  std::vector<const PathSeg*> segs;
  for (; p != nullptr; p = p->parent) segs.push_back(p);
  std::string out;
  for (auto it = segs.rbegin(); it != segs.rend(); ++it) {
    if ((*it)->index >= 0) {
      out += '[';
      out += std::to_string((*it)->index);
      out += ']';
    } else {
      if (!out.empty()) out += ".";
      out += (*it)->key;
    }
  }
  return out;
}

std::string subject(const PathSeg* p) {
  if (p == nullptr) return "the document";
  return backquoted(render(p));
}

std::string format_number(double d) {
  if (std::isfinite(d) && std::fabs(d) < 1e15 && d == std::floor(d))
    return std::to_string(static_cast<int64_t>(d));
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, d);
  return std::string(buf, r.ptr);
}

std::string shown(const YNode& v) {
  if (!v.is_scalar()) return v.type_name();
  std::string t = v.text.size() > 60 ? v.text.substr(0, 57) + "..." : v.text;
  if (v.type == YNode::ScalarType::kString) return "'" + t + "'";
  return t;
}

std::string found(const YNode& v) {
  if (!v.is_scalar()) return "found " + v.type_name();
  return "found " + v.type_name() + " (" + shown(v) + ")";
}

bool is_string(const YNode& v) { return v.is_scalar() && v.type == YNode::ScalarType::kString; }

bool type_ok(uint32_t types, const YNode& v) {
  switch (v.kind) {
    case YNode::Kind::kNull:
      return (types & kTypeNull) != 0;
    case YNode::Kind::kMap:
      return (types & kTypeObject) != 0;
    case YNode::Kind::kSeq:
      return (types & kTypeArray) != 0;
    case YNode::Kind::kScalar:
      break;
  }
  switch (v.type) {
    case YNode::ScalarType::kBool:
      return (types & kTypeBoolean) != 0;
    case YNode::ScalarType::kInt:
      return (types & (kTypeInteger | kTypeNumber)) != 0;
    case YNode::ScalarType::kFloat:
      return (types & kTypeNumber) != 0;
    default:
      return (types & kTypeString) != 0;
  }
}

std::string describe_types(uint32_t types) {
  std::vector<std::string> words;
  if (types & kTypeString) words.emplace_back("a string");
  if (types & kTypeInteger) words.emplace_back("an integer");
  if (types & kTypeNumber) words.emplace_back("a number");
  if (types & kTypeBoolean) words.emplace_back("a boolean");
  if (types & kTypeObject) words.emplace_back("a map");
  if (types & kTypeArray) words.emplace_back("a list");
  if (types & kTypeNull) words.emplace_back("null");
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) {
    if (i > 0) out += i + 1 == words.size() ? " or " : ", ";
    out += words[i];
  }
  return out;
}

size_t code_points(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0u) != 0x80u ? 1 : 0;
  return n;
}

struct Finding {
  Diagnostic diag;
  int depth = 0;
};
using Findings = std::vector<Finding>;

class Validator {
 public:
  explicit Validator(const std::vector<SchemaNode>& nodes) : nodes_(nodes) {}

  void run(int idx, const YNode& v, const PathSeg* path, Findings& out, int guard = 0) {
    if (guard > kMaxDepth) return;
    const SchemaNode& n = nodes_[static_cast<size_t>(idx)];
    const int depth = path ? path->depth : 0;
    if (n.always_false) {
      add(out, "RB-SCHEMA-ONEOF", v.where, subject(path) + " is not allowed here", "", depth);
      return;
    }
    if (n.ref >= 0) run(n.ref, v, path, out, guard + 1);
    if (n.types != 0 && !type_ok(n.types, v)) {
      report_type(n.types, v, path, out);
      return;  // the other keywords would only repeat the point
    }
    if (n.enum_values) check_enum(*n.enum_values, v, path, out);
    if (n.const_value && !json_equal(*n.const_value, v))
      add(out, "RB-SCHEMA-ENUM", v.where,
          subject(path) + " must be " + shown(*n.const_value) + ", " + found(v), "", depth);
    if (auto d = v.as_double()) check_number(n, *d, v, path, out);
    if (is_string(v)) check_string(n, v, path, out);
    if (v.is_map()) check_map(n, v, path, out, guard);
    if (v.is_seq()) check_seq(n, v, path, out, guard);
    for (int s : n.all_of) run(s, v, path, out, guard + 1);
    if (!n.any_of.empty()) check_alternatives(n.any_of, false, v, path, out, guard);
    if (!n.one_of.empty()) check_alternatives(n.one_of, true, v, path, out, guard);
    if (n.not_schema >= 0) {
      Findings sub;
      run(n.not_schema, v, path, sub, guard + 1);
      if (sub.empty())
        add(out, "RB-SCHEMA-ONEOF", v.where, subject(path) + " has a form that is not allowed", "", depth);
    }
  }

 private:
  static void add(Findings& out, const char* rule, const Where& where, std::string message, std::string fix,
                  int depth) {
    Finding f;
    f.diag.severity = Severity::kError;
    f.diag.rule_id = rule;
    f.diag.where = where;
    f.diag.message = std::move(message);
    f.diag.fix = std::move(fix);
    f.depth = depth;
    out.push_back(std::move(f));
  }

  // The types a node admits, following $ref; 0 = unconstrained.
  uint32_t types_of(int idx, int guard = 0) const {
    const SchemaNode& n = nodes_[static_cast<size_t>(idx)];
    if (n.types != 0 || n.ref < 0 || guard > 64) return n.types;
    return types_of(n.ref, guard + 1);
  }

  void report_type(uint32_t types, const YNode& v, const PathSeg* path, Findings& out) const {
    std::string fix;
    const bool plain = v.is_scalar() && !v.quoted;
    if ((types & kTypeBoolean) && is_string(v) && plain && is_yaml11_bool(v.text)) {
      fix = "use true or false";
    } else if ((types & kTypeString) && plain && v.type != YNode::ScalarType::kString) {
      fix = "quote it: '" + v.text + "'";
    } else if ((types & kTypeInteger) && !(types & kTypeNumber) && v.type == YNode::ScalarType::kFloat) {
      const auto d = v.as_double();
      if (d && std::isfinite(*d) && *d == std::floor(*d)) fix = "write " + format_number(*d);
    } else if ((types & (kTypeInteger | kTypeNumber)) && is_string(v) && v.quoted &&
               core_schema_type(v.text) != YNode::ScalarType::kString) {
      fix = "remove the quotes";
    }
    add(out, "RB-SCHEMA-TYPE", v.where, subject(path) + " must be " + describe_types(types) + ", " + found(v),
        fix, path ? path->depth : 0);
  }

  void check_enum(const std::vector<YNode>& allowed, const YNode& v, const PathSeg* path,
                  Findings& out) const {
    for (const auto& a : allowed)
      if (json_equal(a, v)) return;
    std::string list;
    std::vector<std::string> names;
    for (size_t i = 0; i < allowed.size(); ++i) {
      if (i > 0) list += ", ";
      if (i == 16) {
        list += "...";
        break;
      }
      list += allowed[i].is_null() ? "null" : allowed[i].text;
    }
    for (const auto& a : allowed)
      if (a.is_scalar()) names.push_back(a.text);
    std::string fix;
    if (v.is_scalar()) {
      const std::string near = nearest(v.text, names);
      if (!near.empty()) fix = "did you mean '" + near + "'?";
    }
    add(out, "RB-SCHEMA-ENUM", v.where, subject(path) + " must be one of " + list + "; " + found(v), fix,
        path ? path->depth : 0);
  }

  void check_number(const SchemaNode& n, double d, const YNode& v, const PathSeg* path, Findings& out) const {
    const int depth = path ? path->depth : 0;
    auto range = [&](const char* op, double bound) {
      add(out, "RB-SCHEMA-RANGE", v.where,
          subject(path) + " must be " + op + " " + format_number(bound) + ", found " + v.text, "", depth);
    };
    if (n.minimum && !(d >= *n.minimum)) range(">=", *n.minimum);
    if (n.maximum && !(d <= *n.maximum)) range("<=", *n.maximum);
    if (n.exclusive_minimum && !(d > *n.exclusive_minimum)) range(">", *n.exclusive_minimum);
    if (n.exclusive_maximum && !(d < *n.exclusive_maximum)) range("<", *n.exclusive_maximum);
    if (n.multiple_of) {
      const double q = d / *n.multiple_of;
      if (!std::isfinite(q) || std::fabs(q - std::round(q)) > 1e-9) range("a multiple of", *n.multiple_of);
    }
  }

  void check_string(const SchemaNode& n, const YNode& v, const PathSeg* path, Findings& out) const {
    const int depth = path ? path->depth : 0;
    const size_t len = code_points(v.text);
    if (n.min_length && len < *n.min_length)
      add(out, "RB-SCHEMA-LENGTH", v.where,
          subject(path) + " must have at least " + std::to_string(*n.min_length) + " character" +
              (*n.min_length == 1 ? "" : "s") + ", found " + std::to_string(len),
          "", depth);
    if (n.max_length && len > *n.max_length)
      add(out, "RB-SCHEMA-LENGTH", v.where,
          subject(path) + " must have at most " + std::to_string(*n.max_length) + " characters, found " +
              std::to_string(len),
          "", depth);
    if (n.pattern) {
      bool ok = false;
      if (v.text.size() <= kMaxPatternInput) {
        try {
          ok = std::regex_search(v.text, n.pattern->re);
        } catch (const std::exception&) {
          ok = false;  // regex_error (complexity): treated as a mismatch
        }
      }
      if (!ok)
        add(out, "RB-SCHEMA-PATTERN", v.where,
            subject(path) + " must match the pattern " + n.pattern->text + ", " + found(v), "", depth);
    }
  }

  void check_map(const SchemaNode& n, const YNode& v, const PathSeg* path, Findings& out, int guard) {
    const int depth = path ? path->depth : 0;
    for (const auto& key : n.required) {
      if (v.get(key) != nullptr) continue;
      const std::string where = path ? " in " + subject(path) : "";
      add(out, "RB-SCHEMA-REQUIRED", v.where, "missing required key '" + key + "'" + where, "", depth);
    }
    for (const auto& [k, val] : v.map) {
      const PathSeg seg{path, k.text, -1, depth + 1};
      bool matched = false;
      if (auto it = n.property_index.find(k.text); it != n.property_index.end()) {
        matched = true;
        run(it->second, val, &seg, out, guard + 1);
      }
      for (const auto& [pat, child] : n.pattern_properties) {
        bool hit = false;
        if (k.text.size() <= kMaxPatternInput) {
          try {
            hit = std::regex_search(k.text, pat.re);
          } catch (const std::exception&) {
            hit = false;
          }
        }
        if (!hit) continue;
        matched = true;
        run(child, val, &seg, out, guard + 1);
      }
      if (matched) continue;
      if (n.additional >= 0) {
        run(n.additional, val, &seg, out, guard + 1);
      } else if (!n.additional_allowed) {
        report_unknown_key(n, k, path, out);
      }
    }
  }

  static void report_unknown_key(const SchemaNode& n, const YNode& key, const PathSeg* path, Findings& out) {
    std::vector<std::string> names;
    for (const auto& [name, idx] : n.properties) names.push_back(name);
    std::string fix;
    const std::string near = nearest(key.text, names);
    if (!near.empty()) {
      fix = "did you mean '" + near + "'?";
    } else if (!names.empty() && names.size() <= 16) {
      fix = "allowed keys: ";
      for (size_t i = 0; i < names.size(); ++i) fix += (i ? ", " : "") + names[i];
    } else if (names.empty()) {
      fix = "remove it";
    }
    const std::string where = path ? " in " + subject(path) : "";
    add(out, "RB-SCHEMA-UNKNOWN-KEY", key.where, "unknown key '" + key.text + "'" + where, fix,
        path ? path->depth + 1 : 1);
  }

  void check_seq(const SchemaNode& n, const YNode& v, const PathSeg* path, Findings& out, int guard) {
    const int depth = path ? path->depth : 0;
    const size_t size = v.seq.size();
    auto items = [](size_t k) { return std::to_string(k) + (k == 1 ? " item" : " items"); };
    if (n.min_items && size < *n.min_items)
      add(out, "RB-SCHEMA-ITEMS", v.where,
          subject(path) + " must have at least " + items(*n.min_items) + ", found " + std::to_string(size),
          "", depth);
    if (n.max_items && size > *n.max_items)
      add(out, "RB-SCHEMA-ITEMS", v.where,
          subject(path) + " must have at most " + items(*n.max_items) + ", found " + std::to_string(size), "",
          depth);
    if (n.unique_items) {
      std::unordered_map<std::string, size_t> seen;
      for (size_t i = 0; i < size; ++i) {
        auto [it, fresh] = seen.emplace(to_json_text(v.seq[i]), i);
        if (fresh) continue;
        const PathSeg seg{path, {}, static_cast<int64_t>(i), depth + 1};
        add(out, "RB-SCHEMA-ITEMS", v.seq[i].where,
            subject(&seg) + " repeats item [" + std::to_string(it->second) + "]", "remove the repeat",
            depth + 1);
      }
    }
    if (n.items < 0) return;
    for (size_t i = 0; i < size; ++i) {
      const PathSeg seg{path, {}, static_cast<int64_t>(i), depth + 1};
      run(n.items, v.seq[i], &seg, out, guard + 1);
    }
  }

  // oneOf / anyOf. When no form fits, the findings of the evident intended form are reported: the
  // forms whose type (and enum/const at this level) the value satisfies, fewest findings first. Only
  // when no form admits the value's type is a single RB-SCHEMA-ONEOF reported.
  void check_alternatives(const std::vector<int>& forms, bool exactly_one, const YNode& v,
                          const PathSeg* path, Findings& out, int guard) {
    const int depth = path ? path->depth : 0;
    std::vector<Findings> results(forms.size());
    size_t matches = 0;
    for (size_t i = 0; i < forms.size(); ++i) {
      run(forms[i], v, path, results[i], guard + 1);
      matches += results[i].empty() ? 1u : 0u;
    }
    if (matches == 1 || (matches > 1 && !exactly_one)) return;
    if (matches > 1) {
      add(out, "RB-SCHEMA-ONEOF", v.where, subject(path) + " matches more than one of the allowed forms", "",
          depth);
      return;
    }
    const Findings* best = nullptr;
    for (const auto& r : results) {
      bool shape_ok = true;
      for (const auto& f : r)
        if (f.depth == depth && (f.diag.rule_id == "RB-SCHEMA-TYPE" || f.diag.rule_id == "RB-SCHEMA-ENUM"))
          shape_ok = false;
      if (shape_ok && (best == nullptr || r.size() < best->size())) best = &r;
    }
    if (best != nullptr) {
      out.insert(out.end(), best->begin(), best->end());
      return;
    }
    uint32_t types = 0;
    for (int f : forms) types |= types_of(f);
    const std::string expected = types != 0 ? describe_types(types) : "one of the allowed forms";
    add(out, "RB-SCHEMA-ONEOF", v.where, subject(path) + " must be " + expected + ", " + found(v), "", depth);
  }

  const std::vector<SchemaNode>& nodes_;
};

}  // namespace

bool json_equal(const YNode& a, const YNode& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case YNode::Kind::kNull:
      return true;
    case YNode::Kind::kSeq:
      if (a.seq.size() != b.seq.size()) return false;
      for (size_t i = 0; i < a.seq.size(); ++i)
        if (!json_equal(a.seq[i], b.seq[i])) return false;
      return true;
    case YNode::Kind::kMap:
      if (a.map.size() != b.map.size()) return false;
      for (const auto& [k, v] : a.map) {
        const YNode* other = b.get(k.text);
        if (other == nullptr || !json_equal(v, *other)) return false;
      }
      return true;
    case YNode::Kind::kScalar:
      break;
  }
  const auto ai = a.as_int(), bi = b.as_int();
  if (ai && bi) return *ai == *bi;
  const auto ad = a.as_double(), bd = b.as_double();
  if (ad && bd) return *ad == *bd;
  if (a.type != b.type) return false;
  return a.text == b.text;
}

Diagnostics Schema::validate(const YNode& doc) const {
  Diagnostics out;
  if (!impl_) return out;
  Findings findings;
  Validator(impl_->nodes).run(0, doc, nullptr, findings);
  out.reserve(findings.size());
  for (auto& f : findings) out.push_back(std::move(f.diag));
  return out;
}

std::vector<std::string> Schema::root_keys() const {
  std::vector<std::string> out;
  if (!impl_) return out;
  int idx = 0;
  for (int guard = 0; guard < 64 && impl_->nodes[static_cast<size_t>(idx)].ref >= 0 &&
                      impl_->nodes[static_cast<size_t>(idx)].properties.empty();
       ++guard)
    idx = impl_->nodes[static_cast<size_t>(idx)].ref;
  for (const auto& [name, child] : impl_->nodes[static_cast<size_t>(idx)].properties) out.push_back(name);
  return out;
}

}  // namespace rb
