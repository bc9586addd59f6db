// One entry of a `recipebook plan --json` file: besides a catalog recipe and layout flags
// (emit/layout_flags.cpp), the third way a launch gets its layout (emit/launch_spec.cpp).
#include "recipebook/launch_request.hpp"

#include <fmt/format.h>

#include "recipebook/catalog/yaml_tree.hpp"
#include "recipebook/core/strings.hpp"

namespace rb::cli {
namespace {
using Json = nlohmann::json;
}  // namespace

bool is_plan_file(const std::string& source) { return source.size() > 5 && source.ends_with(".json"); }

// One entry of `plan --json` (the root or an element of its first array of candidates), or the
// `launch` object of `recommend --json`; the layout under "layout" (emit/catalog_json.cpp layout_json
// names) or flat in the entry.
Result<void> read_plan_request(const std::string& path, int pick, SpecRequest& req, std::vector<std::string>& notes) {
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
    if (root.contains("launch") && root["launch"].is_object()) entries.push_back(&root["launch"]);
    for (const char* key : {"plans", "candidates", "top", "layouts", "results", "entries"})
      if (root.contains(key) && root[key].is_array() && entries.empty()) collect(root[key]);
    if (entries.empty() && (root.contains("layout") || root.contains("tp"))) entries.push_back(&root);
  }
  if (entries.empty())
    return fail("no plan entries (expected `recipebook plan --json` or `recommend --json` output)", {path});
  if (pick < 1 || static_cast<size_t>(pick) > entries.size())
    return fail(fmt::format("--pick {} is not an entry (the plan has {})", pick, entries.size()), {path});
  if (auto ok = read_launch_request(*entries[static_cast<size_t>(pick) - 1], root, req); !ok)
    return fail(ok.error().message, {path}, ok.error().fix);
  notes.push_back(fmt::format("launching entry {} of {} in {}", pick, entries.size(), path));
  return {};
}

Result<void> read_launch_request(const Json& e, const Json& root, SpecRequest& req) {
  auto field = [&](const char* key) -> const Json* {
    for (const Json* scope : {&e, &root}) {
      if (!scope->is_object()) continue;
      if (scope->contains(key)) return &(*scope)[key];
      for (const char* sub : {"workload", "cluster", "request"})
        if (scope->contains(sub) && (*scope)[sub].is_object() && (*scope)[sub].contains(key)) return &(*scope)[sub][key];
    }
    return nullptr;
  };
  // What the command line gave wins over the entry.
  auto text = [&](const char* key, std::string& out) {
    if (auto* v = field(key); v && v->is_string() && out.empty()) out = v->get<std::string>();
  };
  auto number = [&](const char* key, auto& out) {
    using T = std::remove_reference_t<decltype(out)>;
    if (auto* v = field(key); v && v->is_number_integer() && out <= 0) out = v->template get<T>();
  };
  try {
    // A `recipe` names the catalog recipe the entry starts from (recommend's choice): the launch
    // then starts from it as from a recipe name on the command line.
    req.source.clear();
    if (auto* v = e.is_object() && e.contains("recipe") ? &e["recipe"] : nullptr; v && v->is_string())
      req.source = v->get<std::string>();
    text("model", req.model);
    text("gpu", req.gpu);
    text("mode", req.mode);
    text("dataset", req.dataset);
    text("bridge_recipe", req.bridge_recipe);
    text("framework", req.framework);
    number("gpus", req.gpus);
    number("gpus_per_node", req.gpus_per_node);
    number("seq", req.seq);
    number("gbs", req.gbs);
    const Json& lj = e.contains("layout") && e["layout"].is_object() ? e["layout"] : e;
    // Every layout flag the entry carries ("dp" and the figures are not flags); a flag of the
    // wrong type is an error, not skipped.
    LayoutFlags f;
    for (const auto& [key, v] : lj.items())
      if (auto read = read_layout_flag(key, v, f); !read) return tl::unexpected(read.error());
    fill_unset(req.layout, f);
  } catch (const Json::exception& ex) {
    return fail(std::string("unexpected plan entry: ") + ex.what());
  }
  return {};
}

}  // namespace rb::cli
