// One entry of a `recipebook plan --json` file: besides a catalog recipe and layout flags
// (layout_flags.cpp), the third way a launch gets its layout (launch_spec.cpp).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "recipebook/catalog/yaml_tree.hpp"
#include "recipebook/core/strings.hpp"
#include "recipebook/emit/launch_spec.hpp"

namespace rb {
namespace {
using Json = nlohmann::json;
}  // namespace

// One entry of `plan --json`: the root or an element of its first array of candidates; the layout
// under "layout" (emit/catalog_json.cpp layout_json names) or flat in the entry.
Result<void> read_plan_entry(const std::string& path, int pick, LaunchSpec& spec, std::vector<std::string>& notes) {
  auto text = read_text_file(path);
  if (!text) return tl::unexpected(text.error());
  Json root;
  try {
    root = Json::parse(*text);
  } catch (const Json::exception& e) {
    return fail(std::string("not JSON: ") + e.what(), {path});
  }
  std::vector<const Json*> entries;
  auto collect = [&](const Json& arr) {
    for (const auto& e : arr)
      if (e.is_object()) entries.push_back(&e);
  };
  if (root.is_array()) {
    collect(root);
  } else if (root.is_object()) {
    for (const char* key : {"plans", "candidates", "top", "layouts", "results", "entries"})
      if (root.contains(key) && root[key].is_array() && entries.empty()) collect(root[key]);
    if (entries.empty() && (root.contains("layout") || root.contains("tp"))) entries.push_back(&root);
  }
  if (entries.empty()) return fail("no plan entries (expected `recipebook plan --json` output)", {path});
  if (pick < 1 || static_cast<size_t>(pick) > entries.size())
    return fail(fmt::format("--pick {} is not an entry (the plan has {})", pick, entries.size()), {path});
  const Json& e = *entries[static_cast<size_t>(pick) - 1];
  auto field = [&](const char* key) -> const Json* {
    for (const Json* scope : {&e, static_cast<const Json*>(&root)}) {
      if (!scope->is_object()) continue;
      if (scope->contains(key)) return &(*scope)[key];
      for (const char* sub : {"workload", "cluster", "request"})
        if (scope->contains(sub) && (*scope)[sub].is_object() && (*scope)[sub].contains(key)) return &(*scope)[sub][key];
    }
    return nullptr;
  };
  try {
    if (auto* v = field("model"); v && v->is_string()) spec.model = v->get<std::string>();
    if (auto* v = field("gpu"); v && v->is_string()) spec.gpu = v->get<std::string>();
    if (auto* v = field("gpus"); v && v->is_number_integer()) spec.gpus = v->get<int>();
    if (auto* v = field("gpus_per_node"); v && v->is_number_integer()) spec.gpus_per_node = v->get<int>();
    if (auto* v = field("mode"); v && v->is_string())
      if (auto m = parse_mode(v->get<std::string>())) spec.mode = *m;
    if (auto* v = field("seq"); v && v->is_number_integer()) spec.seq = v->get<int64_t>();
    if (auto* v = field("gbs"); v && v->is_number_integer()) spec.gbs = v->get<int64_t>();
    const Json& lj = e.contains("layout") && e["layout"].is_object() ? e["layout"] : e;
    // Every layout flag the entry carries (layout_json writes a subset; "dp" and the figures are not
    // flags); a flag of the wrong type is an error, not skipped.
    LayoutFlags f;
    for (const auto& [key, v] : lj.items())
      if (auto read = read_layout_flag(key, v, f); !read) return fail(read.error().message, {path});
    spec.precision_given = !f.precision.empty();
    if (auto ok = apply_layout_flags(f, spec.layout, true); !ok) return fail(ok.error().message, {path});
  } catch (const Json::exception& ex) {
    return fail(std::string("unexpected plan entry: ") + ex.what(), {path});
  }
  notes.push_back(fmt::format("launching entry {} of {} in {}", pick, entries.size(), path));
  return {};
}

}  // namespace rb
