// `recipebook recommend`: match (search/recommend.hpp), resize (search/resize.hpp), compare with the
// planner (search/planner.hpp), check (rules/check_layout.hpp) and the command (emit/launch.hpp).
#include "recipebook/cmd_recommend.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <ostream>
#include <thread>

#include "recipebook/catalog/model_source.hpp"
#include "recipebook/catalog/record_check.hpp"
#include "recipebook/catalog/record_facts.hpp"
#include "recipebook/catalog_access.hpp"
#include "recipebook/cmd_plan_fleet.hpp"
#include "recipebook/cmd_recommend_internal.hpp"
#include "recipebook/core/strings.hpp"
#include "recipebook/core/units.hpp"
#include "recipebook/emit/catalog_json.hpp"
#include "recipebook/emit/launch.hpp"
#include "recipebook/emit/launch_spec.hpp"
#include "recipebook/launch_request.hpp"
#include "recipebook/layout_args.hpp"
#include "recipebook/estimate/params.hpp"
#include "recipebook/rules/check_layout.hpp"
#include "recipebook/search/planner.hpp"

namespace rb::cli {
namespace {

// The launch recommend's answer is: the recipe it starts from and the resized layout, batch and
// sequence, as the JSON `recommend --json` writes under "launch". `recipebook launch FILE.json`
// reads the same object back (launch_request.cpp), so the command printed here and the one launch
// writes come from one LaunchSpec.
nlohmann::json launch_request(const Recommendation& r, const std::string& dataset, bool own_recipe) {
  nlohmann::json j;
  const Recipe& rec = r.setup.recipe;
  // The recipe trains its own model only: for another model the layout runs on Megatron-LM's
  // pretrain_gpt.py, whose model arguments come from the architecture.
  if (own_recipe) j["recipe"] = rec.name;
  else j["framework"] = "megatron-lm";
  j["model"] = r.options.model;
  j["gpu"] = r.hardware.name;
  j["gpus"] = r.options.gpus;
  j["gpus_per_node"] = r.gpus_per_node;
  j["mode"] = std::string(mode_name(r.mode));
  if (r.resized.workload.seq > 0) j["seq"] = r.resized.workload.seq;
  if (r.resized.workload.gbs > 0) j["gbs"] = r.resized.workload.gbs;
  if (!dataset.empty()) j["dataset"] = dataset;
  // The layout when it is sized or recorded (a recipe that records none keeps its own).
  if (r.sized || r.setup.layout_known) {
    nlohmann::json l = layout_json(r.resized.layout);
    l.erase("dp");  // derived, not a flag
    j["layout"] = l;
  }
  return j;
}

CommandLine launch_command(const Recommendation& r, const Catalog& catalog) {
  CommandLine c;
  SpecRequest req;
  if (auto ok = read_launch_request(r.launch, r.launch, req); !ok) {
    c.notes.push_back("no command: " + ok.error().message);
    return c;
  }
  std::vector<std::string> notes;
  auto spec = build_launch_spec(req, catalog, notes);
  if (!spec) {
    c.notes.push_back("no command: " + spec.error().message);
    return c;
  }
  c.framework = std::string(framework_name(spec->framework));
  if (spec->framework == Framework::kMegatronLm) {
    if (auto ok = megatron_model_args(*spec); !ok) {
      c.notes.push_back("no runnable command: " + ok.error().message);
      return c;
    }
    if (auto ok = check_megatron_mode(*spec); !ok) {
      c.notes.push_back("no runnable command: " + ok.error().message);
      return c;
    }
  }
  const int per_node = spec->gpus_per_node;
  const int gpus = spec->gpus;
  c.launcher = spec->framework == Framework::kBridge
                   ? std::vector<std::string>{"uv", "run", "python", "-m", "torch.distributed.run"}
                   : std::vector<std::string>{"torchrun"};
  c.launcher.push_back("--nproc_per_node=" + std::to_string(spec->procs_per_node()));
  if (gpus > per_node) {
    c.launcher.push_back("--nnodes=" + std::to_string(spec->nodes()));
    c.launcher.push_back("--node_rank=$NODE_RANK");
    c.launcher.push_back("--master_addr=$MASTER_ADDR");
    c.launcher.push_back("--master_port=29500");
    c.notes.push_back("run on every node with its NODE_RANK and the first node's MASTER_ADDR (or `recipebook launch --target slurm`)");
  }
  c.args = entry_args(*spec);
  c.env = spec->env;
  c.dataset = spec->dataset;
  if (spec->framework == Framework::kBridge) c.overrides = bridge_overrides(*spec);
  if (r.setup.recipe.kind == RecipeKind::kPerformance)
    c.notes.push_back("a performance recipe: benchmark settings on mock data, not validated for convergence (seed 004)");
  c.notes.push_back(std::string("the same command: `recipebook recommend ... --json > rec.json && recipebook launch rec.json --target ") +
                    (spec->framework == Framework::kBridge ? "bridge" : "megatron-lm") + "`");
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
  req.fixed.fix("precision", static_cast<SearchValue>(r.resized.layout.precision));
  // The searched layouts have the recipe's stack (overlaps, CUDA graphs, optimizer, ...), so the two
  // figures differ by the layout alone (with the defaults, a recipe's TP overlap beat every layout).
  if (auto ok = apply_layout_flags(fixed_features(r.resized.layout), req.fixed.base, /*from_flags_only=*/true); !ok)
    req.fixed.base = Layout{};
  req.top_k = 1;
  req.threads = r.options.threads > 0 ? r.options.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // `recommend` answers in about a second: a search space larger than the budget is narrowed to the
  // resized layout's dispatcher and FSDP choice, then to smaller micro batches (`plan` searches it all).
  std::vector<std::string> narrowed;
  const int gpus = r.options.gpus;
  if (Space(r.model, req).size(gpus) > kCompareBudget) {
    req.fixed.fix("fsdp", r.resized.layout.fsdp ? 1 : 0);
    if (r.model.is_moe()) req.fixed.fix("dispatcher", static_cast<SearchValue>(r.resized.layout.dispatcher));
    narrowed.push_back(std::string(r.model.is_moe() ? "the dispatcher and " : "") + "FSDP as in this layout");
  }
  while (Space(r.model, req).size(gpus) > kCompareBudget && req.fixed.max_mbs > 1) req.fixed.max_mbs /= 2;
  if (req.fixed.max_mbs < Constraints{}.max_mbs) narrowed.push_back("MBS <= " + std::to_string(req.fixed.max_mbs));
  if (!narrowed.empty())
    out.note = "planner search narrowed to " + join_words(narrowed) + " to answer quickly; `recipebook plan` searches them all";
  const PlanInputs in{&pm, &prm, &r.hardware};
  auto res = plan(in, req);
  if (!res) {
    out.note = res.error().message;
    return out;
  }
  if (res->top.empty()) {
    out.note = "the planner finds no layout that fits either" + (out.note.empty() ? "" : " (" + out.note + ")");
    // plan's own answer to "what would fit" (more GPUs first among its relaxations).
    const PlanAdvice a = advise(in, req, *res);
    out.would_fit = a.relaxations;
    out.most_gpus_tried = a.most_gpus_tried;
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

// The recipe's best current measurement with the prediction of the layout it measured, when the
// measurement is of the user's model (a figure of another model is never shown as this one's).
void attach_measurement(Recommendation& r, const Catalog& catalog, const PreparedModel& pm) {
  const Recipe& rec = r.setup.recipe;
  const Measurement* best = nullptr;
  for (const Measurement& m : rec.measurements)
    if (m.current && m.tokens_per_s_per_gpu > 0 && (best == nullptr || m.tokens_per_s_per_gpu > best->tokens_per_s_per_gpu))
      best = &m;
  if (best == nullptr) return;
  const bool same_model = !r.model_catalog.empty() && r.setup.model && fold_name(r.setup.model->name) == fold_name(r.model_catalog);
  if (!same_model) {
    r.measured_note = "the recipe's measurements are of " + (r.setup.model ? r.setup.model->name : rec.model) + ", not shown";
    return;
  }
  auto run = measured_run(rec, *best, r.model);
  if (!run) return;
  Recommendation::Measured out{*best, *run, 0};
  auto hw = catalog.find_hardware(best->gpu.empty() ? rec.gpu : best->gpu);
  if (r.model.has_architecture && hw && hw->has_specs) {
    const Estimate e = estimate(pm, *hw, run->work, run->cluster, run->layout);
    if (e.valid) out.predicted_tokens_per_s = e.tokens_per_s_per_gpu;
  }
  r.measured = out;
}

}  // namespace

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
  if (is_fleet_gpu_list(opts.gpu)) return run_recommend_fleet(opts, ctx, catalog);
  // One GPU type: --gpus and --mode are required (CLI11's words: they are optional for several types).
  for (const auto& [flag, missing] : {std::pair{"--gpus", opts.gpus == 0}, std::pair{"--mode", opts.mode.empty()}})
    if (missing)
      return report_errors(ctx, {Error{std::string(flag) + " is required", {}, "run 'recipebook --help' or 'recipebook <command> --help'", "RB-USAGE"}},
                           kExitUsage);
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
  const auto ranked = rank_catalog_recipes(catalog, req, setups, cands);
  if (ranked.empty()) return report(ctx, Error{"the catalog has no recipes", {"--catalog"}});
  const RankedRecipe& best = ranked.front();
  r.setup = setups[best.index];
  r.candidate = cands[best.index];
  r.score = best.score;
  r.reasons = match_reasons(req, r.candidate, r.score);
  for (size_t i = 1; i < ranked.size() && static_cast<int>(i) <= opts.alternatives; ++i)
    r.alternatives.push_back(cands[ranked[i].index].name);
  r.known_issues = record_known_issues(r.setup.entry->tree);

  // Resize, when the model has a shape and the GPU has figures.
  const Recipe& rec = r.setup.recipe;
  if (!r.model.has_architecture) {
    r.unsized_reason = r.model.kind.empty()
                           ? r.model.name + " has no architecture in the catalog, so the layout cannot be sized or "
                                            "estimated; give its Hugging Face config.json as --model to size it"
                           : no_architecture_reason(r.model) + ", so the layout cannot be sized or estimated";
  } else if (!r.hardware.has_specs || r.hardware.memory_bytes <= 0) {
    r.unsized_reason = "the catalog has no memory or peak figures for " + r.hardware.name +
                       ", so the layout cannot be sized or estimated";
  }
  const PreparedModel pm = r.model.has_architecture ? prepare(r.model) : PreparedModel{};
  const PreparedRuleModel prm = prepare_rule_model(r.model, &r.hardware);
  if (r.unsized_reason.empty()) {
    r.sized = true;
    ResizeFrom from;
    // Another model's recipe runs on Megatron-LM's pretrain_gpt.py (launch_request): the layout
    // sized and estimated is the one that script runs (its loss: megatron_lm_layout), so the fit
    // verdict holds for the command printed.
    from.layout = r.score.model == ModelMatch::kSame ? rec.layout : megatron_lm_layout(rec.layout);
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
    r.resized.workload = Workload{r.mode, opts.seq > 0 ? opts.seq : r.setup.seq, opts.gbs > 0 ? opts.gbs : rec.gbs, 16, 0, rec.image};
    r.resized.cluster = Cluster{opts.gpus, opts.gpus_per_node};
  }

  attach_measurement(r, catalog, pm);

  // Command, then the rules on what it runs.
  const bool bridge = rec.framework == "megatron-bridge";
  std::string dataset = opts.dataset;
  if (bridge && dataset.empty()) {
    const YNode* d = node_at(r.setup.entry->tree, "workload.dataset.name");
    dataset = bridge_dataset(r.mode, r.model, rec, d != nullptr && d->is_scalar() ? std::string_view(d->text) : std::string_view());
  }
  const std::string recipe_model = r.setup.model ? r.setup.model->name : rec.model;
  const bool own_recipe = r.score.model == ModelMatch::kSame;
  if (r.sized && !r.resized.fits()) {
    r.command.framework = rec.framework;
    r.command.notes.push_back(
        r.resized.estimate.valid
            ? fmt::format("no runnable command: the layout needs {} of the {} of one {} (see Prediction)",
                          format_bytes(r.resized.estimate.memory.worst.peak_bytes),
                          format_bytes(r.resized.estimate.memory.worst.capacity_bytes), r.hardware.name)
            : "no runnable command: the estimator refuses this layout (see Prediction)");
  } else if (own_recipe && !bridge) {
    r.command = other_command(r);
  } else if (!own_recipe && !r.sized) {
    r.command.framework = rec.framework;
    r.command.notes.push_back("no runnable command: " + rec.name + " trains " + recipe_model + ", not " +
                              (r.model_catalog.empty() ? r.model.name : r.model_catalog) +
                              ", and without an architecture no Megatron-LM model arguments can be written");
  } else {
    r.launch = launch_request(r, own_recipe ? dataset : "", own_recipe);
    r.command = launch_command(r, catalog);
    if (!own_recipe && !r.command.args.empty())  // a refused command says why on its own
      r.command.notes.insert(r.command.notes.begin(),
                             rec.name + " trains " + recipe_model + ", not " +
                                 (r.model_catalog.empty() ? r.model.name : r.model_catalog) +
                                 " (run_recipe.py builds each recipe's own model): this is its layout on Megatron-LM's "
                                 "pretrain_gpt.py, with the model's own architecture");
    if (!r.sized) r.command.notes.push_back("the layout is not sized: check TP x PP x CP divides the GPUs");
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
