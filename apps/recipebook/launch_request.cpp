// One entry of a `recipebook plan --json` file: besides a catalog recipe and layout flags
// (emit/layout_flags.cpp), the third way a launch gets its layout (emit/launch_spec.cpp).
#include "recipebook/launch_request.hpp"

#include <fmt/format.h>

#include <algorithm>

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
  std::string list;  // the key of the array the entries come from
  auto collect = [&](const Json& arr) {
    for (const auto& e : arr)
      if (e.is_object()) entries.push_back(&e);
  };
  if (root.is_array()) {
    collect(root);
  } else if (root.is_object()) {
    // `recommend --json` holds `launch: null` when its layout has no runnable command (it does not
    // fit, or the rules refuse it): nothing to launch, and not its root's layout in its place.
    if (root.contains("launch") && root["launch"].is_null()) {
      std::string why = "recommend printed no runnable command for it";
      if (const Json* c = root.contains("command") && root["command"].is_object() ? &root["command"] : nullptr;
          c && c->contains("notes") && (*c)["notes"].is_array() && !(*c)["notes"].empty() && (*c)["notes"][0].is_string())
        why = (*c)["notes"][0].get<std::string>();
      return fail("the recommendation has nothing to launch: " + why, {path},
                  "run recommend again with more GPUs (it names the smallest count that fits), or launch a plan entry");
    }
    if (root.contains("launch") && root["launch"].is_object()) entries.push_back(&root["launch"]);
    for (const char* key : {"plans", "candidates", "top", "layouts", "results", "entries"})
      if (root.contains(key) && root[key].is_array() && entries.empty()) {
        collect(root[key]);
        list = key;
      }
    if (entries.empty() && (root.contains("layout") || root.contains("tp"))) entries.push_back(&root);
  }
  if (entries.empty())
    return fail("no plan entries (expected `recipebook plan --json` or `recommend --json` output)", {path});
  if (pick > 0 && static_cast<size_t>(pick) > entries.size())
    return fail(fmt::format("--pick {} is not an entry (the plan has {})", pick, entries.size()), {path});
  // Without --pick, the plan's answer. A fleet plan (cmd_plan_fleet_output.cpp fleet_json) lists every
  // GPU type and count under "entries" in table order and copies its best under the objective to
  // "answer" (null when none meets the request); `plan --json` lists its "top" best first.
  std::string why;
  size_t index = pick > 0 ? static_cast<size_t>(pick) - 1 : 0;
  if (pick <= 0 && list == "entries" && root.contains("answer")) {
    const Json& a = root["answer"];
    if (!a.is_object())
      return fail("the plan has no answer" + (root.contains("reason") && root["reason"].is_string()
                                                  ? ": " + root["reason"].get<std::string>()
                                                  : std::string()),
                  {path}, "--pick N launches entry N of its table anyway");
    auto same = [&](const Json& e) { return e.value("gpu", "") == a.value("gpu", "") && e.value("gpus", 0) == a.value("gpus", 0); };
    auto it = std::find_if(entries.begin(), entries.end(), [&](const Json* e) { return same(*e); });
    if (it == entries.end()) return fail("the plan's answer is not one of its entries", {path}, "give --pick N");
    index = static_cast<size_t>(it - entries.begin());
    why = fmt::format(": the plan's answer, {} x {} ({})", a.value("gpus", 0), a.value("gpu", ""),
                      a.value("reason", std::string("its best under the objective")));
  } else if (pick <= 0 && list == "top" && entries.size() > 1) {
    why = fmt::format(": the plan's best by {} (--pick N launches another)", root.value("objective", std::string("its objective")));
  }
  if (auto ok = read_launch_request(*entries[index], root, req); !ok) return fail(ok.error().message, {path}, ok.error().fix);
  notes.push_back(fmt::format("launching entry {} of {} in {}{}", index + 1, entries.size(), path, why));
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
