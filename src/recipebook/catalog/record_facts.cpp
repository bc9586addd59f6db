#include "recipebook/catalog/record_facts.hpp"

#include <set>

#include "recipebook/catalog/record_check.hpp"

namespace rb {
namespace {

std::string scalar_text(const YNode* n) {
  if (n == nullptr || !n->is_scalar()) return {};
  return n->text;
}

// A scalar, or a sequence of scalars comma-joined (the form RecordFacts keeps lists in).
std::string value_text(const YNode& n) {
  if (n.is_seq()) {
    std::string out;
    for (const auto& item : n.seq) out += (out.empty() ? "" : ",") + item.text;
    return out;
  }
  return n.text;
}

std::vector<KeyValue> key_values(const YNode* map) {
  std::vector<KeyValue> out;
  if (map == nullptr || !map->is_map()) return out;
  for (const auto& [k, v] : map->map) out.push_back({k.text, value_text(v)});
  return out;
}

std::vector<std::string> strings(const YNode* seq) {
  std::vector<std::string> out;
  if (seq == nullptr || !seq->is_seq()) return out;
  for (const auto& item : seq->seq)
    if (item.is_scalar()) out.push_back(item.text);
  return out;
}

}  // namespace

RecordFacts record_facts(const YNode& tree, const Recipe& recipe, const Catalog* catalog) {
  RecordFacts f;
  f.name = recipe.name;
  f.framework = recipe.framework;
  f.entry_point = recipe.entry_point;
  f.dataset = scalar_text(node_at(tree, "workload.dataset.name"));
  if (auto b = node_at(tree, "features.packed_sequences")) f.packed_sequences = b->as_bool().value_or(false);
  if (auto v = node_at(tree, "features.fsdp_version")) f.fsdp_version = static_cast<int>(v->as_int().value_or(1));
  if (auto v = node_at(tree, "features.mtp_layers")) f.mtp_layers = static_cast<int>(v->as_int().value_or(-1));
  if (auto v = node_at(tree, "features.pipeline_layout"); v && v->is_scalar() && !v->is_null())
    f.explicit_pipeline_layout = true;
  f.env = key_values(node_at(tree, "env"));
  f.env_gates = key_values(node_at(tree, "features.env_gates"));
  f.kernels = strings(node_at(tree, "features.kernels"));
  f.patches = strings(node_at(tree, "patches"));
  f.settings = key_values(node_at(tree, "features.settings"));
  // Typed feature keys that are Megatron settings under another name.
  const std::pair<const char*, const char*> kTypedSettings[] = {
      {"features.fp8_param_gather", "fp8_param_gather"},
      {"features.fine_grained_offload", "fine_grained_activation_offloading"},
      {"features.offload_modules", "offload_modules"},
  };
  for (const auto& [path, setting] : kTypedSettings)
    if (const YNode* n = node_at(tree, path); n != nullptr && !n->is_null()) f.settings.push_back({setting, value_text(*n)});
  f.stack.megatron_core = scalar_text(node_at(tree, "stack.megatron_core"));
  if (f.stack.megatron_core.empty()) f.stack.megatron_core = scalar_text(node_at(tree, "stack.megatron_lm"));
  f.stack.transformer_engine = scalar_text(node_at(tree, "stack.transformer_engine"));
  f.stack.fla = scalar_text(node_at(tree, "stack.fla"));
  f.stack.triton = scalar_text(node_at(tree, "stack.triton"));
  if (auto v = node_at(tree, "vision.max_pixels")) f.vision.max_pixels = v->as_int().value_or(0);
  if (auto v = node_at(tree, "vision.cuda_graph_max_patches")) f.vision.cuda_graph_max_patches = v->as_int().value_or(0);
  if (auto v = node_at(tree, "vision.images_per_sample"))
    f.vision.images_per_sample = static_cast<int>(v->as_int().value_or(1));
  if (catalog != nullptr) {
    std::set<std::string> seen{recipe.name};
    std::string base = recipe.extends;
    while (!base.empty() && seen.insert(base).second) {
      f.extends_chain.push_back(base);
      auto e = catalog->find_recipe(base);
      if (!e) break;
      base = (*e)->recipe.extends;
    }
    // The name-collision rule only asks for a recipe named like this record's entry point: look
    // that one up instead of copying the whole catalog into every record's facts.
    if (!recipe.entry_point.empty() && recipe.entry_point != recipe.name) {
      if (auto e = catalog->find_recipe(recipe.entry_point))
        f.catalog.push_back({(*e)->recipe.name, (*e)->recipe.entry_point, recipe_kind_name((*e)->recipe.kind)});
    }
  }
  return f;
}

std::vector<std::pair<std::string, std::string>> record_known_issues(const YNode& tree) {
  std::vector<std::pair<std::string, std::string>> out;
  const YNode* known = tree.is_map() ? tree.get("known_issues") : nullptr;
  if (known == nullptr || !known->is_seq()) return out;
  for (const YNode& k : known->seq) {
    const YNode* rule = k.is_map() ? k.get("rule") : nullptr;
    const YNode* note = k.is_map() ? k.get("note") : nullptr;
    if (rule != nullptr && rule->is_scalar())
      out.emplace_back(rule->text, note != nullptr && note->is_scalar() ? note->text : "");
  }
  return out;
}

}  // namespace rb
