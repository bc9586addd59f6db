// Catalog lookups: exact (index maps on folded names), never a silent substitute; a miss is an Error
// with the nearest name as a suggestion. Also `list` filters and `extends` resolution.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <unordered_set>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/catalog/catalog_internal.hpp"
#include "recipebook/catalog/hf_config.hpp"
#include "recipebook/catalog/recipe_layout.hpp"
#include "recipebook/catalog/recipe_yaml.hpp"
#include "recipebook/core/strings.hpp"

namespace rb {
namespace {

namespace fs = std::filesystem;

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A token that names a size ("8b", "235b", "a22b", "0.5b"): a name that goes on past a catalog key
// with one is another model, not a variant of that key's.
bool size_token(std::string_view t) {
  if (t.size() < 2 || (t.back() != 'b' && t.back() != 'm')) return false;
  const std::string_view digits = t.substr(t[0] == 'a' ? 1 : 0, t.size() - (t[0] == 'a' ? 2 : 1));
  return !digits.empty() && std::all_of(digits.begin(), digits.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

// The key `ref` begins with, up to a separator, when what follows names no size: an -Instruct or
// dated release of that key's model ("meta-llama/Llama-3.1-8B-Instruct" -> "meta-llama/Llama-3.1-8B").
// The longest such key; empty when none.
std::string variant_of(std::string_view ref, const std::vector<std::string>& keys) {
  std::string best;
  for (const std::string& k : keys) {
    if (k.size() >= ref.size() || k.size() <= best.size()) continue;
    if (fold_name(ref.substr(0, k.size())) != fold_name(k) || fold_name(k).empty()) continue;
    const char next = ref[k.size()];
    if (next != '-' && next != '_' && next != '.' && next != ' ') continue;
    std::string rest;
    bool sized = false;
    for (char c : ref.substr(k.size() + 1)) {
      if (c == '-' || c == '_' || c == '.' || c == ' ' || c == '/') {
        sized = sized || size_token(rest);
        rest.clear();
      } else {
        rest.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
      }
    }
    if (!sized && !size_token(rest)) best = k;
  }
  return best;
}

// "did you mean ...?" with up to three entries, mapped back from their keys (name, aliases, Hugging
// Face id): the entry `ref` is a variant of (variant_of), those whose keys hold every token of `ref`
// (shortest first), then the nearest key by edit distance (core/strings.hpp suggestions); else
// `fallback`. Estimate, plan and show name a model the same way.
template <typename Entry, typename KeysOf, typename NameOf>
std::string suggest(std::string_view ref, const std::vector<Entry>& list, KeysOf keys_of, NameOf name_of,
                    const std::string& fallback) {
  std::vector<std::string> keys;
  std::unordered_map<std::string, std::string> name_by_key;
  for (const auto& e : list)
    for (const auto& k : keys_of(e)) {
      if (k.empty()) continue;
      keys.push_back(k);
      name_by_key.emplace(k, name_of(e));
    }
  std::vector<std::string> picks;
  auto pick = [&](const std::string& key) {
    const std::string& n = name_by_key[key];
    if (picks.size() < 3 && std::find(picks.begin(), picks.end(), n) == picks.end()) picks.push_back(n);
  };
  // A Hugging Face id's repository name alone as well (the catalog's ids may be an older org/repo).
  const size_t slash = ref.rfind('/');
  for (std::string_view r : {ref, slash == std::string_view::npos ? ref : ref.substr(slash + 1)})
    if (const std::string v = variant_of(r, keys); !v.empty()) pick(v);
  for (const std::string& k : suggestions(ref, keys, 6)) pick(k);
  if (picks.empty()) return fallback;
  std::string out = "did you mean ";
  for (size_t i = 0; i < picks.size(); ++i)
    out += (i ? (i + 1 == picks.size() ? " or '" : ", '") : "'") + picks[i] + "'";
  return out + "?";
}

std::vector<std::string> model_keys(const ModelEntry& e) {
  std::vector<std::string> keys{e.model.name};
  keys.insert(keys.end(), e.model.aliases.begin(), e.model.aliases.end());
  keys.push_back(e.model.hf_id);
  return keys;
}

std::vector<std::string> hardware_keys(const HardwareEntry& e) {
  std::vector<std::string> keys{e.hardware.name};
  keys.insert(keys.end(), e.hardware.aliases.begin(), e.hardware.aliases.end());
  keys.push_back(e.hardware.display);
  return keys;
}

}  // namespace

// Base keys first, each child key replacing (maps merge recursively; lists and scalars are replaced).
YNode merge_trees(const YNode& base, const YNode& child) {
  if (!base.is_map() || !child.is_map()) return child;
  YNode out = base;
  out.where = child.where;
  for (const auto& [k, v] : child.map) {
    auto it =
        std::find_if(out.map.begin(), out.map.end(), [&](const auto& kv) { return kv.first.text == k.text; });
    if (it == out.map.end()) {
      out.map.emplace_back(k, v);
    } else {
      it->second = merge_trees(it->second, v);
    }
  }
  return out;
}

const ModelEntry* Catalog::model_entry(std::string_view ref) const {
  auto it = model_index_.find(fold_name(ref));
  return it == model_index_.end() ? nullptr : &models_[it->second];
}

const HardwareEntry* Catalog::hardware_entry(std::string_view ref) const {
  auto it = hardware_index_.find(fold_name(ref));
  return it == hardware_index_.end() ? nullptr : &hardware_[it->second];
}

Result<Model> Catalog::find_model(const std::string& ref) const {
  if (ref.empty())
    return fail("no model given", {}, "name a catalog model, a Hugging Face id or a config.json");
  if (const ModelEntry* e = model_entry(ref)) return e->model;
  const bool pathish = ref.find('/') != std::string::npos || ends_with(ref, ".json") ||
                       ends_with(ref, ".yaml") || ends_with(ref, ".yml");
  std::error_code ec;
  if (pathish && fs::exists(ref, ec)) {
    if (fs::is_directory(ref, ec) || ends_with(ref, ".json")) return load_hf_config(ref);
    FileCheck fc = check_file(ref, EntryKind::kModel);
    if (fc.model) return std::move(fc.model->model);
    for (const auto& d : fc.findings)
      if (d.severity == Severity::kError) return fail(d.message, d.where, d.fix);
    return fail("cannot load model file " + ref);
  }
  if (ends_with(ref, ".json") || ends_with(ref, ".yaml") || ends_with(ref, ".yml"))
    return fail("unknown model '" + ref + "': no such file", {}, "check the path");
  return fail("unknown model '" + ref + "'", {},
              suggest(
                  ref, models_, model_keys, [](const ModelEntry& e) { return e.model.name; },
                  "see `recipebook list --models`, or pass a path to a config.json"));
}

Result<Hardware> Catalog::find_hardware(const std::string& ref) const {
  if (const HardwareEntry* e = hardware_entry(ref)) return e->hardware;
  return fail("unknown GPU '" + ref + "'", {},
              suggest(
                  ref, hardware_, hardware_keys, [](const HardwareEntry& e) { return e.hardware.name; },
                  "see `recipebook list --hardware`"));
}

namespace {

// "unknown recipe" with the names nearest `name` among `names`.
Result<const RecipeEntry*> recipe_miss(const std::string& name, const std::vector<std::string>& names) {
  std::string fix = "see `recipebook list`";
  const auto some = suggestions(name, names, 3);
  if (!some.empty()) {
    fix = "did you mean ";
    for (size_t i = 0; i < some.size(); ++i)
      fix += (i ? (i + 1 == some.size() ? " or '" : ", '") : "'") + some[i] + "'";
    fix += "?";
  }
  return fail("unknown recipe '" + name + "'", {}, fix);
}

}  // namespace

Result<const RecipeEntry*> Catalog::find_recipe(const std::string& name) const {
  // While the built-in recipes are pending, a name none of them has is a miss without them: the
  // names the build recorded are the recipes' own, in their order.
  if (pending_ != nullptr && !builtin_recipe_named(name)) return recipe_miss(name, builtin_recipe_names());
  make_recipes_ready();
  return find_recipe_now(name);
}

Result<const RecipeEntry*> Catalog::find_recipe_now(const std::string& name) const {
  auto it = recipe_index_.find(name);
  if (it != recipe_index_.end()) return &recipes_[it->second];
  std::vector<std::string> names;
  names.reserve(recipes_.size());
  for (const auto& e : recipes_) names.push_back(e.recipe.name);
  return recipe_miss(name, names);
}

std::vector<const RecipeEntry*> Catalog::list(const RecipeFilter& f) const {
  make_recipes_ready();
  const ModelEntry* want_model = f.model.empty() ? nullptr : model_entry(f.model);
  const std::string model_sub = fold_name(f.model);
  const HardwareEntry* want_gpu = f.gpu.empty() ? nullptr : hardware_entry(f.gpu);
  std::vector<const RecipeEntry*> out;
  for (const auto& e : recipes_) {
    const Recipe& r = e.recipe;
    if (f.mode && r.mode != *f.mode) continue;
    if (f.kind && r.kind != *f.kind) continue;
    if (f.gpus > 0 && r.gpus != f.gpus) continue;
    if (f.measured_only && !r.tokens_per_s_per_gpu && r.measurements.empty()) continue;
    if (!f.gpu.empty()) {
      if (want_gpu != nullptr ? hardware_entry(r.gpu) != want_gpu : fold_name(r.gpu) != fold_name(f.gpu))
        continue;
    }
    if (!f.model.empty()) {
      const ModelEntry* m = model_entry(r.model);
      if (want_model != nullptr) {
        if (m != want_model) continue;
      } else {
        const bool hit = fold_name(r.model).find(model_sub) != std::string::npos ||
                         (m != nullptr && (fold_name(m->model.name).find(model_sub) != std::string::npos ||
                                           fold_name(m->model.family).find(model_sub) != std::string::npos));
        if (!hit) continue;
      }
    }
    out.push_back(&e);
  }
  return out;
}

Result<YNode> Catalog::resolved_tree(const std::string& name) const {
  make_recipes_ready();
  return resolved_tree_now(name);
}

Result<YNode> Catalog::resolved_tree_now(const std::string& name) const {
  auto first = find_recipe_now(name);
  if (!first) return tl::unexpected<Error>(first.error());
  std::vector<const RecipeEntry*> chain{*first};
  std::unordered_set<std::string> seen{name};
  std::string path = name;
  for (;;) {
    const RecipeEntry* cur = chain.back();
    const YNode* ext = cur->tree.get("extends");
    if (ext == nullptr || !ext->is_scalar() || ext->text.empty()) break;
    path += " -> " + ext->text;
    if (!seen.insert(ext->text).second)
      return fail("recipe '" + name + "' has an extends cycle: " + path, ext->where, "break the cycle");
    auto base = recipe_index_.find(ext->text);
    if (base == recipe_index_.end()) {
      auto miss = find_recipe_now(ext->text);
      return fail("recipe '" + cur->recipe.name + "' extends unknown recipe '" + ext->text + "'", ext->where,
                  miss ? std::string() : miss.error().fix);
    }
    chain.push_back(&recipes_[base->second]);
  }
  YNode merged = chain.back()->tree;
  for (size_t i = chain.size() - 1; i-- > 0;) merged = merge_trees(merged, chain[i]->tree);
  return merged;
}

Result<Recipe> Catalog::resolved(const std::string& name) const {
  make_recipes_ready();
  return resolved_now(name);
}

Result<Recipe> Catalog::resolved_now(const std::string& name) const {
  auto first = find_recipe_now(name);
  if (!first) return tl::unexpected<Error>(first.error());
  const YNode* ext = (*first)->tree.get("extends");
  if (ext == nullptr || !ext->is_scalar() || ext->text.empty()) return (*first)->recipe;
  auto merged = resolved_tree_now(name);
  if (!merged) return tl::unexpected<Error>(merged.error());
  Diagnostics ds;
  auto r = recipe_from_yaml(*merged, (*first)->recipe.name, ds);
  if (!r) {
    for (const auto& d : ds)
      if (d.severity == Severity::kError) return fail(d.message, d.where, d.fix);
    return fail("recipe '" + name + "' cannot be resolved");
  }
  r->name = (*first)->recipe.name;
  r->where = (*first)->recipe.where;
  if (const ModelEntry* m = model_entry(r->model)) link_recipe_model(*r, m->model);
  return *r;
}

}  // namespace rb
