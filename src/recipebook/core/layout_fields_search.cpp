// What plan's flags for the searched fields read (layout_fields.hpp read_plan_values): the values
// the search may choose for each, as SearchValues, and how one value is set in a Layout.
#include "recipebook/core/layout_fields.hpp"

#include <algorithm>
#include <charconv>

#include "recipebook/core/layout_fields_rows.hpp"
#include "recipebook/core/strings.hpp"

namespace rb {

namespace {

// "any" and "" (the flag not given) leave the search its own list.
bool any(std::string_view text) { return text.empty() || to_lower(text) == "any"; }

void add_once(std::vector<SearchValue>& out, SearchValue v) {
  if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
}

// A degree or a micro batch: "2" or "2,4" (ascending, as the search enumerates); 0 alone = searched.
Result<std::vector<SearchValue>> degree_values(const LayoutField& f, std::string_view text) {
  std::vector<SearchValue> out;
  if (any(text) || text == "0") return out;
  for (const std::string& part : split_trimmed(text, ',')) {
    int v = 0;
    const auto [p, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (ec != std::errc() || p != part.data() + part.size())
      return fail("'" + part + "' is not a whole number", {flag_name(f)}, "give a value, a comma list or any");
    if (v <= 0) return fail("a degree must be positive (leave it out to search it)", {flag_name(f)});
    add_once(out, v);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A switch: any | on | off.
Result<std::vector<SearchValue>> switch_values(const LayoutField& f, std::string_view text) {
  const std::string t = to_lower(text);
  if (any(t)) return std::vector<SearchValue>{};
  if (t == "on" || t == "yes" || t == "true") return std::vector<SearchValue>{1};
  if (t == "off" || t == "no" || t == "false") return std::vector<SearchValue>{0};
  return fail("'" + std::string(text) + "' is not any, on or off", {flag_name(f)});
}

}  // namespace

Result<std::vector<SearchValue>> read_plan_values(const LayoutField& f, std::string_view text) {
  if (text.empty()) text = f.plan_default;
  if (f.plan_values != nullptr) return f.plan_values(text);
  if (f.kind == FieldKind::kInt) return degree_values(f, text);
  if (f.kind == FieldKind::kBool) return switch_values(f, text);
  return fail("plan searches no values of " + flag_name(f), {flag_name(f)});
}

void set_search_value(const LayoutField& f, Layout& l, SearchValue v) {
  if (f.set_value != nullptr) return f.set_value(l, v);
  if (f.kind == FieldKind::kInt) l.*f.int_member = static_cast<int>(v);
  if (f.kind == FieldKind::kBool) l.*f.bool_member = v != 0;
}

namespace field_rows {

// A comma list: each precision searched.
Result<std::vector<SearchValue>> precision_values(std::string_view text) {
  std::vector<SearchValue> out;
  for (const std::string& p : split_trimmed(text, ',')) {
    const auto v = parse_precision(p);
    if (!v)
      return fail("unknown precision '" + p + "'", {"--precision"},
                  "use bf16, fp8_cs, fp8_ds, fp8_blockwise, mxfp8 or nvfp4 (a comma list searches each)");
    add_once(out, static_cast<SearchValue>(*v));
  }
  return out;
}
void set_precision(Layout& l, SearchValue v) { l.precision = static_cast<Precision>(v); }

// any | none | selective (each selective option the search tries) | full | a module list.
Result<std::vector<SearchValue>> recompute_values(std::string_view text) {
  const std::string f = to_lower(text);
  if (any(f)) return std::vector<SearchValue>{};
  if (f == "none") return std::vector<SearchValue>{recompute_value(Recompute::kNone, 0)};
  if (f == "full") return std::vector<SearchValue>{recompute_value(Recompute::kFull, 0)};
  if (f == "selective") return std::vector<SearchValue>{recompute_value(Recompute::kSelective, 0)};
  std::string bad;
  const auto modules = parse_recompute_modules(f, &bad);
  if (!modules) {
    const std::string near = nearest(bad, recompute_module_names());
    return fail("unknown recompute option or module '" + bad + "'", {"--recompute"},
                near.empty() ? "use any, none, selective, full or modules like core_attn,moe_act"
                             : "did you mean " + near + "?");
  }
  return std::vector<SearchValue>{recompute_value(Recompute::kSelective, *modules)};
}
// Full: uniform, one layer per checkpoint (the least activation memory).
void set_recompute(Layout& l, SearchValue v) {
  l.recompute = recompute_value_kind(v);
  l.recompute_modules = l.recompute == Recompute::kSelective ? recompute_value_modules(v) : 0;
  l.recompute_method = RecomputeMethod::kUniform;
  l.recompute_layers = 1;
}

// any, or a comma list of dispatchers.
Result<std::vector<SearchValue>> dispatcher_values(std::string_view text) {
  std::vector<SearchValue> out;
  if (any(text)) return out;
  for (const std::string& d : split_trimmed(text, ',')) {
    const auto v = parse_dispatcher(d);
    if (!v)
      return fail("unknown dispatcher '" + d + "'", {"--dispatcher"}, "use any, alltoall, flex_deepep or flex_hybridep");
    add_once(out, static_cast<SearchValue>(*v));
  }
  return out;
}
void set_dispatcher(Layout& l, SearchValue v) { l.dispatcher = static_cast<Dispatcher>(v); }

// any, or a comma list of CP exchanges.
Result<std::vector<SearchValue>> cp_comm_values(std::string_view text) {
  std::vector<SearchValue> out;
  if (any(text)) return out;
  for (const std::string& c : split_trimmed(text, ',')) {
    const auto v = parse_cp_comm(c);
    if (!v) return fail("unknown CP communication type '" + c + "'", {"--cp-comm-type"}, "use any, p2p, a2a or allgather");
    add_once(out, static_cast<SearchValue>(*v));
  }
  return out;
}
void set_cp_comm(Layout& l, SearchValue v) { l.cp_comm = static_cast<CpComm>(v); }

}  // namespace field_rows

}  // namespace rb
