#include "recipebook/emit/launch_spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "recipebook/catalog/recipe_layout.hpp"
#include "recipebook/catalog/recipe_match.hpp"
#include "recipebook/catalog/record_check.hpp"
#include "recipebook/catalog/record_facts.hpp"
#include "recipebook/catalog/yaml_tree.hpp"
#include "recipebook/core/strings.hpp"
#include "recipebook/emit/atomic_file.hpp"
#include "recipebook/emit/launch_script.hpp"
#include "recipebook/rules/check_layout.hpp"

namespace rb {
namespace {

// Job and file names: letters, digits, '_', '-', '.'.
std::string safe_name(std::string_view s) {
  std::string out;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    out += (std::isalnum(u) || c == '_' || c == '-' || c == '.') ? c : '-';
  }
  while (!out.empty() && (out.front() == '-' || out.front() == '.')) out.erase(out.begin());
  return out.empty() ? "recipebook-job" : out;
}

bool has_path(const YNode& tree, std::string_view section, std::string_view key) {
  const YNode* s = tree.get(section);
  return s != nullptr && s->is_map() && s->get(key) != nullptr && !s->get(key)->is_null();
}

// The record's layout is launched as recorded when it gives it whole (the generated Bridge records
// leave EP out for a dense model): record_check.hpp record_layout_known, as `check` and `estimate`.
bool layout_recorded(const Catalog& catalog, const RecipeEntry& e, const std::optional<Model>& model) {
  auto tree = catalog.resolved_tree(e.recipe.name);
  return record_layout_known(tree ? *tree : e.tree, model ? &*model : nullptr);
}

// features.env_gates: env vars a library reads once at import (seed 000's NVTE_CUTEDSL_FUSED_GROUPED_MLP).
void add_env_gates(const YNode& tree, std::vector<std::pair<std::string, std::string>>& env) {
  const YNode* f = tree.get("features");
  const YNode* g = f != nullptr && f->is_map() ? f->get("env_gates") : nullptr;
  if (g == nullptr || !g->is_map()) return;
  for (const auto& [k, v] : g->map) {
    const bool present = std::any_of(env.begin(), env.end(), [&](const auto& kv) { return kv.first == k.text; });
    if (!present && v.is_scalar()) env.emplace_back(k.text, v.text);
  }
}

// The Megatron-Bridge recipe of the same model to start run_recipe.py from: the one `recommend`
// would choose for the same model, mode, GPU, GPU count, sequence and precision (catalog/recipe_match),
// among the runnable Bridge recipes of this model.
const RecipeEntry* find_bridge_base(const Catalog& catalog, const LaunchSpec& spec, const Result<Hardware>& hw) {
  if (!spec.model_ir) return nullptr;
  const ModelEntry* me = catalog.model_entry(spec.model_ir->name);
  MatchRequest req;
  req.model = model_facts(catalog, *spec.model_ir);
  req.model.name = me != nullptr ? me->model.name : spec.model_ir->name;
  req.mode = spec.mode;
  if (hw) req.gpu = gpu_facts(*hw);
  else req.gpu.name = spec.gpu;
  req.gpus = spec.gpus;
  req.seq = spec.seq;
  if (spec.precision_given) req.precision = spec.layout.precision;
  std::vector<RecipeSetup> setups;
  std::vector<RecipeCandidate> cands;
  for (const RankedRecipe& r : rank_catalog_recipes(catalog, req, setups, cands)) {
    const RecipeCandidate& c = cands[r.index];
    if (r.score.model == ModelMatch::kSame && c.framework == "megatron-bridge" && c.runnable) return setups[r.index].entry;
  }
  return nullptr;
}

std::string bridge_entry(const Recipe& r) { return r.entry_point.empty() ? r.name : r.entry_point; }

// `name` when a draft can extend it without inheriting anything the launch does not do: the record
// carries no result, measurements or correctness evidence (another run's figures), and when the
// launch has no recompute the record sets none (a recipe record cannot write "no recompute" to
// override a base's).
std::string extendable(const Catalog& catalog, const std::string& name, const LaunchSpec& spec) {
  auto tree = catalog.resolved_tree(name);
  if (!tree || !tree->is_map()) return {};
  for (const char* key : {"result", "measurements", "correctness", "comparisons"})
    if (tree->get(key) != nullptr && !tree->get(key)->is_null()) return {};
  if (!spec.layout_given) return {};
  if (spec.layout.recompute == Recompute::kNone && has_path(*tree, "layout", "recompute")) return {};
  return name;
}

}  // namespace

Result<LaunchSpec> build_launch_spec(const SpecRequest& req, const Catalog& catalog, std::vector<std::string>& notes) {
  LaunchSpec spec;
  spec.gpus_per_node = 0;  // decided below: the flag, else the recipe's on its own GPU, else the target GPU's node
  spec.dataset = req.dataset;
  const RecipeEntry* entry = req.recipe_file;
  Recipe r;  // the record launched, when there is one (resolved when it is the catalog's)
  if (entry != nullptr || !req.source.empty()) {
    if (entry == nullptr) {
      auto found = catalog.find_recipe(req.source);
      if (!found) return tl::unexpected(found.error());
      entry = *found;
      auto resolved = catalog.resolved(entry->recipe.name);
      if (!resolved) return tl::unexpected(resolved.error());
      r = *resolved;
      spec.source_recipe = r.name;
    } else {
      r = entry->recipe;  // a file outside the catalog: its `extends` is not applied
      if (!r.extends.empty())
        notes.push_back("the recipe file extends " + r.extends + ": only the fields the file itself sets are used");
    }
    spec.model = r.model;
    spec.gpu = r.gpu;
    spec.gpus = r.gpus;
    // The record's node shape holds for its own GPU only (a launch on another GPU takes that GPU's).
    if (req.gpu.empty() || fold_name(req.gpu) == fold_name(r.gpu)) spec.gpus_per_node = r.gpus_per_node;
    spec.mode = r.mode;
    spec.layout = r.layout;
    // The dispatcher the record runs is its own GPU's: on another, what Bridge makes of it there
    // (DeepEP falls back to alltoall on GB200/GB300; catalog/recipe_layout.hpp record_dispatcher).
    if (!req.gpu.empty()) spec.layout.dispatcher = own_dispatcher(r, req.gpu);
    spec.precision_given = r.precision_known;
    spec.seq = r.seq;
    spec.gbs = r.gbs;
    for (const auto& [k, v] : r.env) spec.env.emplace_back(k, v);
    auto tree = catalog.resolved_tree(r.name);  // env gates may come from an `extends` base
    add_env_gates(tree ? *tree : entry->tree, spec.env);
    spec.framework = r.framework == "megatron-bridge" ? Framework::kBridge : Framework::kMegatronLm;
    if (spec.framework == Framework::kBridge) {
      spec.bridge_recipe = bridge_entry(r);
      spec.bridge_benchmark = r.kind == RecipeKind::kPerformance;
    }
  }

  // Flags override the recipe or plan entry.
  if (!req.model.empty()) spec.model = req.model;
  if (!req.gpu.empty()) spec.gpu = req.gpu;
  if (req.gpus > 0) spec.gpus = req.gpus;
  if (req.gpus_per_node > 0) spec.gpus_per_node = req.gpus_per_node;
  if (!req.mode.empty()) {
    auto m = parse_mode(req.mode);
    if (!m) return fail("unknown mode '" + req.mode + "'", {"--mode"}, "use pretrain, sft or peft");
    spec.mode = *m;
  }
  if (req.seq > 0) spec.seq = req.seq;
  if (req.gbs > 0) spec.gbs = req.gbs;
  if (spec.model.empty()) return fail("no model to launch", {"--model"}, "give a recipe name or --model NAME");
  if (spec.gpu.empty()) return fail("no GPU type", {"--gpu"}, "give --gpu NAME (h100, b200, gb300, ...)");
  if (spec.gpus <= 0) return fail("no GPU count", {"--gpus"}, "give --gpus N");

  if (auto m = catalog.find_model(spec.model)) {
    spec.model_ir = *m;
  } else {
    notes.push_back("the model's architecture is not in the catalog (" + m.error().message +
                    "): Megatron-LM model flags and the layout rules are skipped");
  }
  auto hw = catalog.find_hardware(spec.gpu);
  // A recipe's node shape is its own GPU's: the launch's is the target GPU's (GB200 and GB300 nodes
  // hold 4), whatever the recipe the training starts from was written for.
  if (spec.gpus_per_node <= 0) {
    spec.gpus_per_node = hw ? hw->gpus_per_node : 8;
    if (!hw) notes.push_back(fmt::format("GPU '{}' is not in the catalog: assuming 8 GPUs per node", spec.gpu));
  }

  if (entry != nullptr) {
    spec.layout_given = layout_recorded(catalog, *entry, spec.model_ir);
    spec.check_rules = entry->recipe.layout_known || req.layout.any();
    if (spec.framework == Framework::kBridge && spec.layout_given) {
      spec.base = spec.layout;
      spec.base_layout_in_code = entry->recipe.pipeline_layout_in_code;
    }
    if (req.layout.any() && !spec.layout_given) {
      notes.push_back("the recipe does not record its whole layout: degrees not given as flags are taken as 1");
      spec.layout_given = true;
    }
    if (auto ok = apply_layout_flags(req.layout, spec.layout, false); !ok) return tl::unexpected(ok.error());
    if (!req.layout.precision.empty()) spec.precision_given = true;
  } else {
    if (auto ok = apply_layout_flags(req.layout, spec.layout, true); !ok) return tl::unexpected(ok.error());
    spec.precision_given = true;
    if (req.layout.precision.empty()) notes.push_back("precision not given: bf16");
    spec.layout_given = true;
  }
  // An ETP neither the flags nor the record give: the one `estimate` and launch's memory check take.
  if (spec.model_ir)
    apply_unset_etp(spec.layout, spec.model_ir->is_moe(), req.layout.etp.has_value(), entry != nullptr ? &r : nullptr);
  if (spec.layout.model_parallel() > 0 && spec.gpus % spec.layout.model_parallel() == 0)
    spec.layout.dp = spec.gpus / spec.layout.model_parallel();
  // Megatron-LM arguments.py: fine-grained activation offloading with TE >= 2.10 asserts
  // NVTE_CPU_OFFLOAD_V1=1 (so TE does not offload weights); Bridge's perf recipes set it too.
  if (spec.layout.offload_modules != 0 &&
      std::none_of(spec.env.begin(), spec.env.end(), [](const auto& kv) { return kv.first == "NVTE_CPU_OFFLOAD_V1"; }))
    spec.env.emplace_back("NVTE_CPU_OFFLOAD_V1", "1");
  // TE's fused grouped MLP: TE registers the fusion only when NVTE_CUTEDSL_FUSED_GROUPED_MLP is set
  // at import (transformer_engine/pytorch/ops/fused/grouped_mlp.py is_supported); Bridge's perf
  // recipes export it beside use_transformer_engine_op_fuser (perf_recipes/qwen/gb200/qwen3_moe.py).
  if (spec.layout.fused_grouped_mlp && std::none_of(spec.env.begin(), spec.env.end(), [](const auto& kv) {
        return kv.first == "NVTE_CUTEDSL_FUSED_GROUPED_MLP";
      }))
    spec.env.emplace_back("NVTE_CUTEDSL_FUSED_GROUPED_MLP", "1");

  // The framework: asked for, else the recipe's, else Megatron-Bridge when the catalog has a recipe
  // of this model to start run_recipe.py from.
  std::optional<Framework> forced;
  if (!req.framework.empty()) {
    forced = parse_framework(req.framework);
    if (!forced) return fail("unknown framework '" + req.framework + "'", {"--framework"}, "use bridge or megatron-lm");
  }
  if (!req.bridge_recipe.empty()) {
    auto b = catalog.find_recipe(req.bridge_recipe);
    if (!b) return tl::unexpected(b.error());
    spec.bridge_recipe = bridge_entry((*b)->recipe);
    spec.bridge_benchmark = (*b)->recipe.kind == RecipeKind::kPerformance;
    if (entry == nullptr) {
      spec.base = layout_recorded(catalog, **b, spec.model_ir) ? std::optional((*b)->recipe.layout) : std::nullopt;
      spec.base_layout_in_code = spec.base && (*b)->recipe.pipeline_layout_in_code;
    }
    spec.framework = Framework::kBridge;
  } else if (entry == nullptr && forced.value_or(Framework::kBridge) == Framework::kBridge) {
    if (const RecipeEntry* base = find_bridge_base(catalog, spec, hw)) {
      spec.bridge_recipe = bridge_entry(base->recipe);
      spec.bridge_benchmark = base->recipe.kind == RecipeKind::kPerformance;
      if (layout_recorded(catalog, *base, spec.model_ir)) {
        spec.base = base->recipe.layout;
        spec.base_layout_in_code = base->recipe.pipeline_layout_in_code;
      }
      if (req.renders_bridge)
        notes.push_back("Megatron-Bridge: starting from recipe " + base->recipe.name +
                        " with the layout, batch and features as overrides");
      spec.framework = Framework::kBridge;
    } else {
      spec.framework = Framework::kMegatronLm;
      if (!forced) notes.push_back("no Megatron-Bridge recipe of this model and mode in the catalog: Megatron-LM");
    }
  }
  if (forced) spec.framework = *forced;
  if (spec.framework == Framework::kMegatronLm && spec.layout.fp8_attention && spec.layout.precision != Precision::kBf16)
    notes.push_back("fp8_attention: Megatron-LM has no flag for fp8_dot_product_attention (arguments.py): the "
                    "script runs the attention in BF16");
  if (spec.framework == Framework::kMegatronLm) add_megatron_env(spec);

  // The draft extends the Bridge recipe the launch starts from, when that is safe.
  spec.base_recipe = spec.source_recipe;  // a recipe file is not in the catalog: its Bridge recipe is
  if (spec.framework == Framework::kBridge) {
    if (spec.base_recipe.empty() && !spec.bridge_recipe.empty()) {
      for (const auto& e : catalog.recipes())
        if (e.recipe.name == spec.bridge_recipe || e.recipe.entry_point == spec.bridge_recipe) {
          spec.base_recipe = e.recipe.name;
          if (e.recipe.name == spec.bridge_recipe) break;
        }
    }
    if (!spec.base_recipe.empty()) spec.draft_extends = extendable(catalog, spec.base_recipe, spec);
  }

  // The base record's known_issues hold for its own pipeline (they are about how its source splits
  // the layers): the launch keeps them when it keeps that pipeline, and the draft carries them.
  if (!spec.base_recipe.empty() && spec.base && spec.base->pp == spec.layout.pp && spec.base->vp == spec.layout.vp) {
    if (auto tree = catalog.resolved_tree(spec.base_recipe)) spec.known_issues = record_known_issues(*tree);
  }

  spec.name = safe_name(!req.name.empty()                ? req.name
                        : !spec.source_recipe.empty() ? spec.source_recipe
                        : entry != nullptr            ? entry->recipe.name
                                                      : fmt::format("{}-{}gpu-{}", spec.model_ir ? spec.model_ir->name : spec.model, spec.gpus,
                                                                    mode_name(spec.mode)));
  return spec;
}

std::vector<Finding> check_launch_rules(const LaunchSpec& spec, const Catalog& catalog, std::string& skipped,
                                        const RecipeEntry* recipe_file) {
  if (!spec.layout_given || !spec.check_rules) {
    skipped = "the recipe's layout is not fully recorded in the catalog (as for `recipebook check`)";
    return {};
  }
  if (!spec.model_ir || !spec.model_ir->has_architecture) {
    skipped = "the model's architecture is not known";
    return {};
  }
  auto hw = catalog.find_hardware(spec.gpu);
  RuleInput in;
  in.model = &*spec.model_ir;
  in.hardware = hw ? &*hw : nullptr;
  in.workload.mode = spec.mode;
  if (spec.seq > 0) in.workload.seq = spec.seq;
  in.workload.gbs = spec.gbs;
  in.cluster.gpus = spec.gpus;
  in.cluster.gpus_per_node = spec.gpus_per_node;
  in.layout = spec.layout;
  // What the renderers write with CUDA graphs: the TE RNG tracker on, and for full-iteration
  // graphs the NaN check off (emit/launch_bridge.cpp, launch_megatron.cpp).
  if (spec.layout.cuda_graph != CudaGraph::kNone) in.layout.te_rng_tracker = true;
  // The record facts of the recipe the training starts from (its settings, kernels, patches,
  // stack, vision budget: run_recipe.py keeps them), with the launch's env on top.
  bool from_record = false;
  if (recipe_file != nullptr) {
    in.facts = record_facts(recipe_file->tree, recipe_file->recipe, &catalog);
    from_record = true;
  } else if (!spec.base_recipe.empty()) {
    auto tree = catalog.resolved_tree(spec.base_recipe);
    auto rec = catalog.resolved(spec.base_recipe);
    if (tree && rec) {
      in.facts = record_facts(*tree, *rec, &catalog);
      from_record = true;
    }
  }
  if (!from_record) {
    in.facts.name = spec.name;
    in.facts.framework = std::string(framework_name(spec.framework));
    in.facts.entry_point = spec.framework == Framework::kBridge ? spec.bridge_recipe : "pretrain_gpt.py";
  }
  // A pipeline layout the recipe sets (in code, or as a setting) is for its own PP and VP: with
  // another pipeline the launch writes none, so the rules check the split the command will have.
  if (from_record && spec.base && (spec.base->pp != spec.layout.pp || spec.base->vp != spec.layout.vp)) {
    in.facts.explicit_pipeline_layout = false;
    std::erase_if(in.facts.settings, [](const KeyValue& kv) { return kv.key == "pipeline_model_parallel_layout"; });
  }
  if (spec.layout.cuda_graph == CudaGraph::kFullIteration) {
    auto& st = in.facts.settings;
    std::erase_if(st, [](const KeyValue& kv) { return kv.key == "check_for_nan_in_loss"; });
    st.push_back({"check_for_nan_in_loss", "false"});
  }
  if (!spec.dataset.empty()) in.facts.dataset = spec.dataset;
  for (const auto& [k, v] : spec.env) {
    auto it = std::find_if(in.facts.env.begin(), in.facts.env.end(), [&](const KeyValue& kv) { return kv.key == k; });
    if (it != in.facts.env.end())
      it->value = v;
    else
      in.facts.env.push_back({k, v});
  }
  std::vector<Finding> found = check_layout(in);
  // A rule the record the training starts from lists under known_issues (a static read of its
  // source that the recipe overrides at run time, scripts/known_issues.tsv) is accepted, as `check`
  // and `recommend` accept it.
  for (Finding& f : found)
    for (const auto& [rule, note] : spec.known_issues)
      if (rule == f.rule_id && f.severity == Severity::kError) {
        f.severity = Severity::kWarning;
        f.message += " [accepted: a known issue of " + spec.base_recipe + (note.empty() ? "" : ": " + note) + "]";
      }
  return found;
}

}  // namespace rb
