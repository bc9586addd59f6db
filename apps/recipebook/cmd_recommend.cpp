// `recipebook recommend`: match (search/recommend.hpp), resize (search/resize.hpp), compare with the
// planner (search/planner.hpp), check (rules/check_layout.hpp) and the command (emit/launch.hpp).
#include "recipebook/cmd_recommend.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <ostream>
#include <thread>

#include "recipebook/catalog/record_check.hpp"
#include "recipebook/catalog/record_facts.hpp"
#include "recipebook/catalog_access.hpp"
#include "recipebook/cmd_recommend_internal.hpp"
#include "recipebook/core/strings.hpp"
#include "recipebook/emit/catalog_json.hpp"
#include "recipebook/emit/launch.hpp"
#include "recipebook/layout_args.hpp"
#include "recipebook/estimate/params.hpp"
#include "recipebook/rules/check_layout.hpp"
#include "recipebook/search/planner.hpp"

namespace rb::cli {
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

bool vl_recipe(const Recipe& r) {
  for (const std::string& s : {r.name, r.entry_point})
    if (s.find("_vl_") != std::string::npos || s.rfind("vl_", 0) == 0) return true;
  return false;
}

// The dataset run_recipe.py gets (REFERENCES.md E lists its names): mock data for pretraining, SQuAD
// for text fine-tuning, CORD-v2 (images) for a vision-language model.
std::string default_dataset(Mode mode, const Model& m, const RecipeSetup& s) {
  if (mode == Mode::kPretrain) return "mock";
  const bool vlm = m.vision.layers > 0 || vl_recipe(s.recipe);
  return vlm ? "cord-v2" : "squad";
}

CommandLine bridge_command(const Recommendation& r, const std::string& dataset) {
  CommandLine c;
  const RecipeSetup& s = r.setup;
  c.framework = s.recipe.framework;
  const std::string entry = s.recipe.entry_point.empty() ? s.recipe.name : s.recipe.entry_point;
  c.recipe = "scripts/training/run_recipe.py --recipe " + entry;
  const int per_node = r.gpus_per_node;
  const int gpus = r.options.gpus;
  c.launcher = {"uv", "run", "python", "-m", "torch.distributed.run",
                "--nproc_per_node=" + std::to_string(std::min(gpus, per_node))};
  if (gpus > per_node) {
    c.launcher.push_back("--nnodes=" + std::to_string((gpus + per_node - 1) / per_node));
    c.launcher.push_back("--node_rank=$NODE_RANK");
    c.launcher.push_back("--master_addr=$MASTER_ADDR");
    c.launcher.push_back("--master_port=29500");
    c.notes.push_back("run on every node with its NODE_RANK and the first node's MASTER_ADDR (or `recipebook launch --target slurm`)");
  }
  c.dataset = dataset;
  for (const auto& [k, v] : s.recipe.env) c.env.emplace_back(k, v);
  if (const YNode* gates = node_at(s.entry->tree, "features.env_gates"); gates != nullptr && gates->is_map())
    for (const auto& [k, v] : gates->map)
      if (std::none_of(c.env.begin(), c.env.end(), [&](const auto& kv) { return kv.first == k.text; }))
        c.env.emplace_back(k.text, v.text);

  // Hydra overrides for what changed: the renderer's overrides for the resized layout less those it
  // writes for the recipe as recorded (emit/launch_bridge.cpp writes the degrees always, features
  // only where they differ from the recipe's own).
  LaunchSpec before;
  before.framework = Framework::kBridge;
  before.bridge_recipe = entry;
  before.model_ir = r.model;
  before.gpus = gpus;
  before.gpus_per_node = per_node;
  before.layout = s.layout_known ? s.recipe.layout : r.resized.layout;
  before.layout_given = s.layout_known;
  before.precision_given = true;
  before.base = s.layout_known ? s.recipe.layout : r.resized.layout;
  if (!s.recipe.precision_known) before.base->precision = r.resized.layout.precision;
  if (!s.recipe.precision_known) before.layout.precision = r.resized.layout.precision;
  LaunchSpec after = before;
  after.layout = r.resized.layout;

  after.layout_given = r.sized || s.layout_known;
  // The batch when it was asked for or changed from a recorded one (a default we chose for a recipe
  // that records none would override the recipe's own).
  if ((s.recipe.gbs > 0 || r.options.gbs > 0) && r.resized.workload.gbs != s.recipe.gbs) after.gbs = r.resized.workload.gbs;
  // Benchmark recipes scale GBS by the DP ratio when the GPU count differs (run_recipe.py weak
  // scaling, REFERENCES.md C.3): the batch the prediction assumes is written out.
  const int dp0 = s.recipe.gpus > 0 && s.recipe.layout.model_parallel() > 0 ? s.recipe.gpus / s.recipe.layout.model_parallel() : 0;
  if (s.recipe.kind == RecipeKind::kPerformance && r.sized && dp0 != r.resized.layout.dp && r.resized.workload.gbs > 0) {
    after.gbs = r.resized.workload.gbs;
    c.notes.push_back("the batch is given explicitly: a benchmark recipe would otherwise scale GBS with DP (weak scaling)");
  }
  // The sequence only when it was asked for and differs from the recipe's (or the recipe has none).
  if (r.options.seq > 0 && r.options.seq != s.seq) after.seq = r.options.seq;
  const auto old_words = bridge_overrides(before);
  for (auto& w : bridge_overrides(after))
    if (std::find(old_words.begin(), old_words.end(), w) == old_words.end()) c.overrides.push_back(std::move(w));
  if (s.recipe.kind == RecipeKind::kPerformance)
    c.notes.push_back("a performance recipe: benchmark settings on mock data, not validated for convergence (seed 004)");
  return c;
}

CommandLine other_command(const Recommendation& r) {
  CommandLine c;
  c.framework = r.setup.recipe.framework;
  const YNode* run = node_at(r.setup.entry->tree, "run");
  c.verbatim = run != nullptr && run->is_scalar() ? run->text : "";
  c.notes.push_back("the recipe runs on " + c.framework + ": its own command, with the changes above to apply by hand");
  return c;
}

// Layouts (of the planner's space, rejected prefixes included) a comparison searches at most.
constexpr uint64_t kCompareBudget = 2'000'000;

std::string join_words(const std::vector<std::string>& v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i == 0 ? "" : (i + 1 == v.size() ? " and " : ", ")) + v[i];
  return out;
}

PlanComparison compare_with_plan(const Recommendation& r, const PreparedModel& pm, const PreparedRuleModel& prm) {
  PlanComparison out;
  PlanRequest req;
  req.gpu_counts = {r.options.gpus};
  req.gpus_per_node = r.options.gpus_per_node;
  req.workload = r.resized.workload;
  req.fixed.precisions = {r.resized.layout.precision};
  req.top_k = 1;
  req.threads = r.options.threads > 0 ? r.options.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // `recommend` answers in about a second: a search space larger than the budget is narrowed to the
  // resized layout's dispatcher and FSDP choice, then to smaller micro batches (`plan` searches it all).
  std::vector<std::string> narrowed;
  const int gpus = r.options.gpus;
  if (Space(r.model, req).size(gpus) > kCompareBudget) {
    req.fixed.fsdp = r.resized.layout.fsdp;
    if (r.model.is_moe()) req.fixed.dispatcher = r.resized.layout.dispatcher;
    narrowed.push_back(std::string(r.model.is_moe() ? "the dispatcher and " : "") + "FSDP as in this layout");
  }
  while (Space(r.model, req).size(gpus) > kCompareBudget && req.fixed.max_mbs > 1) req.fixed.max_mbs /= 2;
  if (req.fixed.max_mbs < Constraints{}.max_mbs) narrowed.push_back("MBS <= " + std::to_string(req.fixed.max_mbs));
  if (!narrowed.empty())
    out.note = "planner search narrowed to " + join_words(narrowed) + " to answer quickly; `recipebook plan` searches them all";
  auto res = plan(PlanInputs{&pm, &prm, &r.hardware}, req);
  if (!res) {
    out.note = res.error().message;
    return out;
  }
  if (res->top.empty()) {
    out.note = "the planner finds no layout that fits either" + (out.note.empty() ? "" : " (" + out.note + ")");
    return out;
  }
  out.ran = true;
  out.layout = res->top.front().layout;
  out.estimate = res->top.front().estimate;
  const double mine = r.resized.estimate.tokens_per_s_per_gpu;
  out.ratio = r.resized.fits() && mine > 0 ? out.estimate.tokens_per_s_per_gpu / mine : 0;
  out.differences = layout_differences(r.resized.layout, out.layout);
  return out;
}

}  // namespace

// --- catalog recipes as matching inputs --------------------------------------------------------------

RecipeSetup recipe_setup(const Catalog& catalog, const RecipeEntry& entry) {
  RecipeSetup s;
  s.entry = &entry;
  auto resolved = catalog.resolved(entry.recipe.name);
  s.recipe = resolved ? *resolved : entry.recipe;
  auto tree = catalog.resolved_tree(entry.recipe.name);
  const YNode& t = tree ? *tree : entry.tree;
  if (auto m = catalog.find_model(s.recipe.model)) s.model = *m;
  if (auto h = catalog.find_hardware(s.recipe.gpu)) s.hardware = *h;
  const bool moe = s.model && s.model->has_architecture && s.model->is_moe();
  s.ep_known = has_path(t, "layout.ep");
  s.layout_known = s.recipe.layout_known ||
                   (has_path(t, "layout.tp") && has_path(t, "layout.pp") && has_path(t, "layout.cp"));
  if (!moe && s.layout_known) s.ep_known = true;
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
  c.measured = best_tokens_per_s(r) > 0;
  c.variant = !s.variant.empty() && variant_seq(s.variant) == 0;
  return c;
}

// --- the command ---------------------------------------------------------------------------------

bool Recommendation::known_issue(const Finding& f) const {
  return std::any_of(known_issues.begin(), known_issues.end(), [&](const auto& k) { return k.first == f.rule_id; });
}

bool Recommendation::rules_reject() const {
  return std::any_of(pitfalls.begin(), pitfalls.end(),
                     [&](const Finding& f) { return f.severity == Severity::kError && !known_issue(f); });
}

int Recommendation::exit_code() const {
  if (!sized) return kExitOk;
  return resized.fits() && !rules_reject() ? kExitOk : kExitFindings;
}

int run_recommend(const RecommendOptions& opts, const Context& ctx) {
  auto catalog = load_catalog(ctx);
  if (!catalog) return kExitUsage;
  return run_recommend(opts, ctx, *catalog);
}

int run_recommend(const RecommendOptions& opts, const Context& ctx, const Catalog& catalog) {
  Recommendation r;
  r.options = opts;
  auto mode = parse_mode(opts.mode);
  if (!mode) return report(ctx, Error{"unknown mode '" + opts.mode + "'", {"--mode"}, "use pretrain, sft or peft"});
  r.mode = *mode;
  if (opts.gpus <= 0) return report(ctx, Error{"the GPU count must be positive", {"--gpus"}});
  std::optional<Precision> precision;
  if (!opts.precision.empty()) {
    precision = parse_precision(opts.precision);
    if (!precision)
      return report(ctx, Error{"unknown precision '" + opts.precision + "'", {"--precision"},
                               "use bf16, fp8_cs, fp8_ds, fp8_blockwise, mxfp8 or nvfp4"});
  }
  auto model = catalog.find_model(opts.model);
  if (!model) return report(ctx, Error{model.error().message, {"--model"}, model.error().fix});
  r.model = *model;
  if (const ModelEntry* e = catalog.model_entry(opts.model)) {
    r.model_catalog = e->model.name;
  } else {
    for (const std::string& ref : {r.model.hf_id, r.model.name})
      if (const ModelEntry* k = ref.empty() ? nullptr : catalog.model_entry(ref)) {
        r.model_catalog = k->model.name;
        r.notes.push_back("the config is catalog model " + k->model.name + ": its recipes count as the same model");
        break;
      }
  }
  auto hw = catalog.find_hardware(opts.gpu);
  if (!hw) return report(ctx, Error{hw.error().message, {"--gpu"}, hw.error().fix});
  r.hardware = *hw;
  if (auto e = apply_headroom(opts.headroom, r.hardware)) return report(ctx, *e);
  r.gpus_per_node = opts.gpus_per_node > 0 ? opts.gpus_per_node : (hw->gpus_per_node > 0 ? hw->gpus_per_node : 8);

  // Match.
  MatchRequest req;
  req.model = model_facts(catalog, r.model);
  req.model.name = r.model_catalog;
  req.mode = r.mode;
  req.gpu = gpu_facts(r.hardware);
  req.gpus = opts.gpus;
  req.seq = opts.seq;
  req.precision = precision;
  std::vector<RecipeSetup> setups;
  std::vector<RecipeCandidate> cands;
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
  const auto ranked = rank_recipes(req, cands);
  if (ranked.empty()) return report(ctx, Error{"the catalog has no recipes", {"--catalog"}});
  const RankedRecipe& best = ranked.front();
  r.setup = setups[best.index];
  r.candidate = cands[best.index];
  r.score = best.score;
  r.reasons = match_reasons(req, r.candidate, r.score);
  for (size_t i = 1; i < ranked.size() && static_cast<int>(i) <= opts.alternatives; ++i)
    r.alternatives.push_back(cands[ranked[i].index].name);
  r.measured_tokens_per_s = best_tokens_per_s(r.setup.recipe);
  if (const YNode* ki = node_at(r.setup.entry->tree, "known_issues"); ki != nullptr && ki->is_seq())
    for (const YNode& item : ki->seq) {
      const YNode* rule = item.get("rule");
      const YNode* note = item.get("note");
      r.known_issues.emplace_back(rule != nullptr ? rule->text : "", note != nullptr ? note->text : "");
    }

  // Resize, when the model has a shape and the GPU has figures.
  const Recipe& rec = r.setup.recipe;
  if (!r.model.has_architecture) {
    r.unsized_reason = r.model.name + " has no architecture in the catalog, so the layout cannot be sized or "
                       "estimated; give its Hugging Face config.json as --model to size it";
  } else if (!r.hardware.has_specs || r.hardware.memory_bytes <= 0) {
    r.unsized_reason = "the catalog has no memory or peak figures for " + r.hardware.name +
                       ", so the layout cannot be sized or estimated";
  }
  const PreparedModel pm = r.model.has_architecture ? prepare(r.model) : PreparedModel{};
  const PreparedRuleModel prm = prepare_rule_model(r.model, &r.hardware);
  if (r.unsized_reason.empty()) {
    r.sized = true;
    ResizeFrom from;
    from.layout = rec.layout;
    from.layout_known = r.setup.layout_known;
    from.ep_known = r.setup.ep_known;
    from.precision_known = rec.precision_known;
    from.mode = rec.mode;
    from.gpus = rec.gpus;
    from.seq = r.setup.seq;
    from.gbs = rec.gbs;
    ResizeTo to;
    to.gpus = opts.gpus;
    to.gpus_per_node = opts.gpus_per_node;
    to.mode = r.mode;
    to.seq = opts.seq;
    to.gbs = opts.gbs;
    to.precision = precision;
    r.resized = resize(ResizeInputs{&pm, &prm, &r.hardware}, from, to);
    if (opts.compare) r.plan = compare_with_plan(r, pm, prm);
    else r.plan.note = "not compared (--no-compare)";
  } else {
    // Unsized: the recipe's own layout on the user's GPU count, batch and sequence as asked.
    r.resized.layout = rec.layout;
    r.resized.workload = Workload{r.mode, opts.seq > 0 ? opts.seq : r.setup.seq, opts.gbs > 0 ? opts.gbs : rec.gbs, 16, 0};
    r.resized.cluster = Cluster{opts.gpus, opts.gpus_per_node};
  }

  // Command, then the rules on what it runs.
  const bool bridge = rec.framework == "megatron-bridge";
  std::string dataset = opts.dataset;
  if (bridge && rec.kind != RecipeKind::kPerformance && dataset.empty()) {
    const YNode* d = node_at(r.setup.entry->tree, "workload.dataset.name");
    dataset = d != nullptr && d->is_scalar() ? d->text : default_dataset(r.mode, r.model, r.setup);
  }
  if (r.sized && !bridge) r.command = other_command(r);
  else if (bridge && r.sized) r.command = bridge_command(r, dataset);
  else if (bridge) {
    r.resized.layout.dp = std::max(1, opts.gpus / std::max(1, rec.layout.model_parallel()));
    r.command = bridge_command(r, dataset);
    r.command.notes.push_back("the layout overrides are not sized: check TP x PP x CP divides the GPUs");
  } else {
    r.command = other_command(r);
  }
  if (r.sized) {
    RuleInput in;
    in.model = &r.model;
    in.hardware = &r.hardware;
    in.workload = r.resized.workload;
    in.cluster = r.resized.cluster;
    in.layout = r.resized.modelled;
    auto tree = catalog.resolved_tree(rec.name);
    in.facts = record_facts(tree ? *tree : r.setup.entry->tree, rec, &catalog);
    if (bridge) in.facts.dataset = dataset;
    r.pitfalls = check_layout(in);
    std::stable_sort(r.pitfalls.begin(), r.pitfalls.end(),
                     [](const Finding& a, const Finding& b) { return a.severity == Severity::kError && b.severity != Severity::kError; });
  }

  if (ctx.json) ctx.out << recommendation_json(r).dump(2) << "\n";
  else print_recommendation(r, ctx);
  return r.exit_code();
}

}  // namespace rb::cli
