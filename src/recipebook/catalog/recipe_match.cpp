#include "recipebook/catalog/recipe_match.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "recipebook/catalog/record_check.hpp"
#include "recipebook/catalog/yaml_tree.hpp"
#include "recipebook/estimate/params.hpp"
#include "recipebook/rules/gpu_arch.hpp"

namespace rb {
namespace {

bool has_path(const YNode& tree, std::string_view path) {
  const YNode* n = node_at(tree, path);
  return n != nullptr && !n->is_null();
}

// A sequence variant: "128k", "yarn_128k", "32k" -> tokens; 0 otherwise.
int64_t variant_seq(const std::string& v) {
  if (v.size() < 2 || (v.back() != 'k' && v.back() != 'K')) return 0;
  size_t i = v.size() - 1;
  while (i > 0 && std::isdigit(static_cast<unsigned char>(v[i - 1])) != 0) --i;
  if (i == v.size() - 1 || (i > 0 && v[i - 1] != '_')) return 0;
  return std::stoll(v.substr(i, v.size() - 1 - i)) * 1024;
}

}  // namespace

bool vl_recipe(const Recipe& r) {
  for (const std::string& s : {r.name, r.entry_point})
    if (s.find("_vl_") != std::string::npos || s.rfind("vl_", 0) == 0) return true;
  return false;
}

RecipeSetup recipe_setup(const Catalog& catalog, const RecipeEntry& entry) {
  RecipeSetup s;
  s.entry = &entry;
  auto resolved = catalog.resolved(entry.recipe.name);
  s.recipe = resolved ? *resolved : entry.recipe;
  auto tree = catalog.resolved_tree(entry.recipe.name);
  const YNode& t = tree ? *tree : entry.tree;
  if (auto m = catalog.find_model(s.recipe.model)) s.model = *m;
  if (auto h = catalog.find_hardware(s.recipe.gpu)) s.hardware = *h;
  const bool dense = s.model && s.model->has_architecture && !s.model->is_moe();
  s.layout_known = s.recipe.layout_known ||
                   (has_path(t, "layout.tp") && has_path(t, "layout.pp") && has_path(t, "layout.cp"));
  s.ep_known = has_path(t, "layout.ep") || dense;
  s.layout_recorded = record_layout_known(t, s.model ? &*s.model : nullptr);
  if (const YNode* v = node_at(t, "variant"); v != nullptr && v->is_scalar()) s.variant = v->text;
  s.seq = s.recipe.seq > 0 ? s.recipe.seq : variant_seq(s.variant);
  return s;
}

ModelFacts model_facts(const Catalog& catalog, const Model& m) {
  ModelFacts f;
  f.name = m.name;
  f.family = m.family;
  f.has_architecture = m.has_architecture;
  f.vision = m.vision.layers > 0;
  if (m.has_architecture) {
    f.params = static_cast<double>(count_params(m).total);
    f.moe = m.is_moe() ? 1 : 0;
    return f;
  }
  if (m.published_total_params > 0) {
    f.params = static_cast<double>(m.published_total_params);
    if (m.published_active_params > 0) f.moe = m.published_active_params < m.published_total_params ? 1 : 0;
  }
  if (const ModelEntry* e = catalog.model_entry(m.name)) {
    const YNode* like = e->tree.get("architecture_like");
    if (f.params <= 0 && like != nullptr && like->is_scalar())
      if (const ModelEntry* l = catalog.model_entry(like->text); l != nullptr && l->model.has_architecture) {
        f.params = static_cast<double>(count_params(l->model).total);
        f.moe = l->model.is_moe() ? 1 : 0;
      }
  }
  return f;
}

GpuFacts gpu_facts(const Hardware& hw) {
  GpuFacts g;
  g.name = hw.name;
  g.memory_bytes = hw.has_specs ? hw.memory_bytes : 0;
  g.arch = gpu_arch(hw);
  g.nvlink_domain = hw.nvlink_domain;
  return g;
}

RecipeCandidate recipe_candidate(const Catalog& catalog, const RecipeSetup& s) {
  RecipeCandidate c;
  const Recipe& r = s.recipe;
  c.name = r.name;
  c.kind = r.kind;
  c.mode = r.mode;
  c.framework = r.framework;
  if (s.model) c.model = model_facts(catalog, *s.model);
  else c.model.name = r.model;
  // A vision-language recipe: the model has a vision tower, or the recipe is Bridge's *_vl_* one
  // (as the rules' RB-VLM-NO-IMAGES reads it).
  c.model.vision = c.model.vision || vl_recipe(r);
  if (s.hardware) c.gpu = gpu_facts(*s.hardware);
  else c.gpu.name = r.gpu;
  c.gpus = r.gpus;
  c.seq = s.seq;
  if (r.precision_known) c.precision = r.layout.precision;
  c.layout_known = s.layout_known;
  c.measured = r.tokens_per_s_per_gpu.value_or(0.0) > 0 ||
               std::any_of(r.measurements.begin(), r.measurements.end(),
                           [](const Measurement& m) { return m.current && m.tokens_per_s_per_gpu > 0; });
  c.variant = !s.variant.empty() && variant_seq(s.variant) == 0;
  return c;
}


std::vector<RankedRecipe> rank_catalog_recipes(const Catalog& catalog, const MatchRequest& req,
                                               std::vector<RecipeSetup>& setups, std::vector<RecipeCandidate>& cands) {
  setups.clear();
  cands.clear();
  setups.reserve(catalog.recipes().size());
  // Megatron-Bridge entry points that are current recipes (the library and performance records).
  std::set<std::string> current;
  for (const RecipeEntry& e : catalog.recipes())
    if (e.recipe.kind == RecipeKind::kLibrary || e.recipe.kind == RecipeKind::kPerformance)
      current.insert(e.recipe.entry_point.empty() ? e.recipe.name : e.recipe.entry_point);
  for (const RecipeEntry& e : catalog.recipes()) {
    setups.push_back(recipe_setup(catalog, e));
    cands.push_back(recipe_candidate(catalog, setups.back()));
    const Recipe& rec = setups.back().recipe;
    if (rec.framework == "megatron-bridge")
      cands.back().runnable = current.count(rec.entry_point.empty() ? rec.name : rec.entry_point) > 0;
    else
      cands.back().runnable = node_at(e.tree, "run") != nullptr;
  }
  return rank_recipes(req, cands);
}

}  // namespace rb
