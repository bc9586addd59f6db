#include "recipebook/cmd_launch.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <ostream>

#include "recipebook/catalog/measured_points.hpp"
#include "recipebook/catalog_access.hpp"
#include "recipebook/core/strings.hpp"
#include "recipebook/core/units.hpp"
#include "recipebook/emit/atomic_file.hpp"
#include "recipebook/estimate/estimate.hpp"
#include "recipebook/estimate/prepared.hpp"
#include "recipebook/launch_request.hpp"
#include "recipebook/layout_args.hpp"
#include "recipebook/rules/check_layout.hpp"

namespace rb::cli {
namespace {

bool is_recipe_file(const std::string& s) {
  return (s.ends_with(".yaml") || s.ends_with(".yml")) && std::filesystem::is_regular_file(s);
}

SpecRequest request_of(const LaunchOptions& o, const std::string& source) {
  SpecRequest r;
  r.source = source;
  r.model = o.model;
  r.gpu = o.gpu;
  r.mode = o.mode;
  r.gpus = o.gpus;
  r.gpus_per_node = o.gpus_per_node;
  r.seq = o.seq;
  r.gbs = o.gbs;
  r.layout = o.layout;
  r.dataset = o.dataset;
  r.framework = o.framework;
  r.bridge_recipe = o.bridge_recipe;
  r.name = o.name;
  return r;
}

// The run options: everything the user adds on top of what is launched.
Result<void> apply_run_options(const LaunchOptions& o, LaunchSpec& spec) {
  spec.train_iters = o.train_iters;
  spec.extra_args = o.extra;
  spec.workdir = o.workdir;
  spec.probe = o.probe;
  spec.master_port = o.master_port;
  for (const auto& kv : o.env) {
    const size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) return fail("--env takes NAME=VALUE, got '" + kv + "'", {"--env"});
    const std::string k = kv.substr(0, eq);
    const std::string v = kv.substr(eq + 1);
    auto it = std::find_if(spec.env.begin(), spec.env.end(), [&](const auto& p) { return p.first == k; });
    if (it != spec.env.end())
      it->second = v;
    else
      spec.env.emplace_back(k, v);
  }
  spec.slurm = o.slurm;
  if (!o.k8s_operator.empty()) {
    auto op = parse_k8s_operator(o.k8s_operator);
    if (!op) return fail("unknown operator '" + o.k8s_operator + "'", {"--operator"}, "use pytorchjob or jobset");
    spec.k8s.op = *op;
  }
  spec.k8s.image = o.image.empty() ? o.slurm.container_image : o.image;
  spec.k8s.ns = o.k8s_namespace;
  return {};
}

// The memory of what the launch trains, estimated as `recipebook estimate` estimates the same recipe
// and flags (resolve_setup: the record's sequence, batch, image budget and modelled pipeline split),
// so launch refuses exactly what estimate says does not fit. Called where the rules ran (the layout
// and the model are known). Empty when it cannot be estimated here, with the reason in `why` (a
// recipe file; an estimator refusal).
struct MemoryCheck {
  std::optional<Estimate> estimate;
  bool ran_as_recorded = false;  // the record's own measured run used this very layout
  // A built-in Megatron-Bridge recipe launched as it ships: the estimate is not evidence enough to
  // refuse what NVIDIA publishes (a warning instead; --ignore-memory is not needed).
  bool as_shipped = false;
  std::string why;
};

// `megatron_lm`: a target renders pretrain_gpt.py, whose layout (megatron_lm_layout: the native fused
// loss for TE's) is the one estimated, so the verdict holds for every script written.
MemoryCheck check_memory(const SpecRequest& req, const LaunchSpec& spec, const Catalog& catalog, bool megatron_lm) {
  MemoryCheck out;
  if (req.recipe_file != nullptr) {
    out.why = "a recipe file is not in the catalog (recipebook estimate --catalog DIR --recipe NAME estimates it)";
    return out;
  }
  LayoutArgs a;
  a.recipe = spec.source_recipe;
  a.model = req.model;
  a.gpu = req.gpu;
  a.gpus = req.gpus;
  a.gpus_per_node = req.gpus_per_node;
  a.mode = req.mode;
  a.seq = req.seq;
  a.gbs = req.gbs;
  a.layout = req.layout;
  auto setup = resolve_setup(a, catalog);
  if (!setup) {
    out.why = setup.error().message;
    return out;
  }
  if (megatron_lm) setup->layout = megatron_lm_layout(setup->layout);
  const PreparedModel pm = prepare(setup->model);
  Estimate e = estimate(pm, setup->hardware, setup->workload, setup->cluster, setup->layout);
  if (!e.valid) {
    out.why = "the estimator refuses the layout (" + std::string(invalid_reason_name(e.reason)) + ")";
    return out;
  }
  out.estimate = e;
  // A measurement is a run that completed: when the launch is the record unchanged and one of its
  // measurements ran the record's own layout, batch and GPU count, the layout fits whatever the
  // estimate says.
  const bool unchanged = !spec.source_recipe.empty() && !req.layout.any() && req.model.empty() && req.gpu.empty() &&
                         req.gpus == 0 && req.mode.empty() && req.seq == 0 && req.gbs == 0;
  if (unchanged) {
    if (auto entry = catalog.find_recipe(spec.source_recipe))
      out.as_shipped = (*entry)->origin == "builtin" && ((*entry)->recipe.kind == RecipeKind::kLibrary ||
                                                         (*entry)->recipe.kind == RecipeKind::kPerformance);
    if (auto rec = catalog.resolved(spec.source_recipe)) {
      // A record's own `result` (seed 001's form: your run, measured) is a run of the record as written.
      if (rec->tokens_per_s_per_gpu && *rec->tokens_per_s_per_gpu > 0 && rec->layout_known) out.ran_as_recorded = true;
      for (const Measurement& m : rec->measurements) {
        if (!m.current || m.tokens_per_s_per_gpu <= 0 || (!m.gpu.empty() && fold_name(m.gpu) != fold_name(rec->gpu)))
          continue;
        auto run = measured_run(*rec, m, setup->model);
        if (run && run->exact && run->cluster.gpus == rec->gpus) out.ran_as_recorded = true;
      }
    }
  }
  return out;
}

// "the worst rank (pipeline stage 0) needs 548.1 GiB of the 80.0 GiB of one h100, with 2.0 GiB kept free"
std::string memory_shortfall(const Estimate& e, const std::string& gpu) {
  const MemoryBreakdown& w = e.memory.worst;
  if (!w.fits)
    return fmt::format("the worst rank (pipeline stage {}) needs {} of the {} of one {}, with {} kept free", w.stage,
                       format_bytes(w.peak_bytes), format_bytes(w.capacity_bytes), gpu,
                       format_bytes(w.required_headroom_bytes));
  return fmt::format("the offloaded state needs {} of host memory per node, more than {:.0f}% of its {}",
                     format_bytes(e.memory.host_node_bytes), 100 * kHostUsableFraction,
                     format_bytes(e.memory.host_capacity_bytes));
}

}  // namespace

int run_launch(const LaunchOptions& o, const Context& ctx) {
  std::vector<LaunchTarget> targets;
  for (const auto& t : o.targets) {
    auto target = parse_launch_target(t);
    if (!target)
      return report(ctx, Error{"unknown target '" + t + "'", {"--target"}, "use bridge, megatron-lm, torchrun, slurm, k8s or recipe"});
    targets.push_back(*target);
  }
  if (o.out_dir.empty() && targets.size() > 1 && !ctx.json)
    return report(ctx, Error{"more than one target prints to stdout", {"--target"}, "give -o DIR to write one file each"});

  auto catalog = load_catalog(ctx);
  if (!catalog) return kExitUsage;
  // A recipe file is read and checked like `recipebook check FILE`; one with errors is not launched.
  std::optional<FileCheck> file;
  if (is_recipe_file(o.source)) {
    file = catalog->check_file(o.source, EntryKind::kRecipe);
    Diagnostics errors;
    for (const auto& d : file->findings)
      if (d.severity == Severity::kError) errors.push_back(d);
    if (!errors.empty() || !file->recipe)
      return report_findings(ctx, errors, Error{"the recipe file has errors; not launching it", {o.source}, "recipebook check " + o.source},
                             kExitUsage);
  }

  std::vector<std::string> notes;
  SpecRequest req = request_of(o, file ? std::string() : o.source);
  if (file) req.recipe_file = &*file->recipe;
  req.renders_bridge = targets.empty() || std::any_of(targets.begin(), targets.end(), [](LaunchTarget t) {
                         return t != LaunchTarget::kMegatronLm;
                       });
  // A plan (or recommend) JSON entry is a request of its own, under the flags given with it.
  if (!file && is_plan_file(o.source))
    if (auto ok = read_plan_request(o.source, o.pick, req, notes); !ok) return report(ctx, ok.error());
  auto spec = build_launch_spec(req, *catalog, notes);
  if (!spec) return report(ctx, spec.error());
  if (auto ok = apply_run_options(o, *spec); !ok) return report(ctx, ok.error());
  if (targets.empty()) targets.push_back(spec->framework == Framework::kBridge ? LaunchTarget::kBridge : LaunchTarget::kMegatronLm);
  // What the scripts assume for settings the user did not give (they say so in a comment too).
  const bool to_cluster = std::any_of(targets.begin(), targets.end(), [](LaunchTarget t) {
    return t == LaunchTarget::kSlurm || t == LaunchTarget::kK8s;
  });
  const bool slurm = std::find(targets.begin(), targets.end(), LaunchTarget::kSlurm) != targets.end();
  if (slurm && spec->slurm.container_image.empty())
    notes.push_back("no --container-image: the Slurm job runs torchrun in each node's own environment");
  const bool scripts = std::any_of(targets.begin(), targets.end(), [](LaunchTarget t) { return t != LaunchTarget::kRecipe; });
  // The entry each script runs: --target bridge / megatron-lm render that framework whatever the
  // spec's (render_bridge, render_megatron); the others run the spec's.
  auto runs_bridge = [&](LaunchTarget t) {
    return t == LaunchTarget::kBridge || (t != LaunchTarget::kMegatronLm && spec->framework == Framework::kBridge);
  };
  // A mode pretrain_gpt.py does not train is refused before anything is checked or written.
  for (LaunchTarget t : targets)
    if (t != LaunchTarget::kRecipe && !runs_bridge(t))
      if (auto ok = check_megatron_mode(*spec); !ok) return report(ctx, ok.error());
  std::string entries;
  for (const bool bridge : {true, false})
    if (std::any_of(targets.begin(), targets.end(), [&](LaunchTarget t) { return t != LaunchTarget::kRecipe && runs_bridge(t) == bridge; }))
      entries += std::string(entries.empty() ? "" : " / ") + (bridge ? "scripts/training/run_recipe.py" : "pretrain_gpt.py");
  if (spec->workdir.empty() && scripts && !spec->probe)
    notes.push_back("no --workdir: the script runs " + entries + " from the folder it starts in" +
                    (to_cluster ? " (on each node)" : "") + ", and stops if it is not there");
  for (const auto& n : notes) ctx.err << "note: " << n << "\n";

  // The rules: an error refuses the launch, a warning is printed.
  std::string skipped;
  const auto findings = check_launch_rules(*spec, *catalog, skipped, req.recipe_file);
  // The memory estimate needs what the rules need: a layout skipped there is skipped here too.
  const bool check_mem = !spec->probe && skipped.empty();
  if (!skipped.empty())
    ctx.err << "note: layout rules " << (spec->probe ? "" : "and memory ") << "not checked: " << skipped << "\n";
  const Diagnostics found = to_diagnostics(findings, [](std::string_view) { return std::optional<Where>(); });
  if (has_errors(found))
    return report_findings(ctx, found, Error{"refusing to launch " + spec->name + ": the rules above reject its layout"},
                           kExitFindings, spec->name + ": ");
  for (const auto& d : found) ctx.err << spec->name << ": " << d.str() << "\n";

  // Memory: a layout the estimate says does not fit is refused like a rule error (a probe trains
  // nothing and is not checked).
  MemoryCheck mem;
  if (check_mem) {
    const bool megatron_lm = std::any_of(targets.begin(), targets.end(), [&](LaunchTarget t) {
      return t != LaunchTarget::kRecipe && !runs_bridge(t);
    });
    mem = check_memory(req, *spec, *catalog, megatron_lm);
    if (!mem.estimate) {
      ctx.err << "note: memory not estimated: " << mem.why << "\n";
    } else if (!mem.estimate->fits()) {
      const std::string what = memory_shortfall(*mem.estimate, spec->gpu);
      if (mem.ran_as_recorded || mem.as_shipped || o.ignore_memory) {
        ctx.err << "warning: " << spec->name << ": the memory estimate says the layout does not fit: " << what
                << (mem.ran_as_recorded ? "; the record's measured run completed on this layout, so the estimate is off here"
                    : mem.as_shipped    ? "; written as Megatron-Bridge ships the recipe (recipebook estimate " +
                                           spec->source_recipe + " shows the parts)"
                                        : "; writing it anyway (--ignore-memory)")
                << "\n";
      } else {
        const std::string plan = fmt::format("recipebook plan --model {} --gpu {} --gpus {} --gbs {}{}",
                                             spec->model_ir ? spec->model_ir->name : spec->model, spec->gpu, spec->gpus,
                                             spec->gbs, spec->seq > 0 ? fmt::format(" --seq {}", spec->seq) : "");
        return report_errors(ctx,
                             {Error{"refusing to launch " + spec->name +
                                        ": the memory estimate says the layout does not fit: " + what,
                                    {}, "`" + plan + "` lists layouts that fit; --ignore-memory writes it anyway",
                                    "RB-LAUNCH-MEMORY"}},
                             kExitFindings);
      }
    }
  }

  std::vector<FileToWrite> files;
  for (LaunchTarget t : targets) {
    auto text = render_launch(t, *spec);
    if (!text) return report(ctx, text.error());
    FileToWrite f;
    f.text = std::move(*text);
    f.executable = t != LaunchTarget::kK8s && t != LaunchTarget::kRecipe;
    if (!o.out_dir.empty()) f.path = (std::filesystem::path(o.out_dir) / launch_file_name(t, *spec)).string();
    files.push_back(std::move(f));
  }

  if (!o.out_dir.empty()) {
    if (auto ok = write_files_atomic(files, o.force); !ok) return report(ctx, ok.error());
  }
  if (ctx.json) {
    nlohmann::ordered_json j;
    j["name"] = spec->name;
    j["framework"] = std::string(framework_name(spec->framework));
    j["gpus"] = spec->gpus;
    j["nodes"] = spec->nodes();
    j["gpus_per_node"] = spec->procs_per_node();
    j["probe"] = spec->probe;
    auto& outs = j["outputs"] = nlohmann::ordered_json::array();
    for (size_t i = 0; i < files.size(); ++i) {
      nlohmann::ordered_json e;
      e["target"] = std::string(launch_target_name(targets[i]));
      if (!files[i].path.empty()) e["file"] = files[i].path;
      else e["text"] = files[i].text;
      outs.push_back(e);
    }
    j["notes"] = notes;
    // The memory estimate of the worst rank (null when it was not checked: see the notes on stderr).
    if (mem.estimate) {
      const MemoryBreakdown& w = mem.estimate->memory.worst;
      j["memory"] = {{"peak_bytes", w.peak_bytes},
                     {"capacity_bytes", w.capacity_bytes},
                     {"stage", w.stage},
                     {"fits", mem.estimate->fits()},
                     {"ran_as_recorded", mem.ran_as_recorded}};
    } else {
      j["memory"] = nullptr;
    }
    auto& fs = j["findings"] = nlohmann::ordered_json::array();
    for (const auto& f : findings) fs.push_back({{"rule", f.rule_id}, {"severity", severity_name(f.severity)}, {"message", f.message}});
    ctx.out << j.dump(2) << "\n";
    return kExitOk;
  }
  if (o.out_dir.empty()) {
    ctx.out << files.front().text;
  } else {
    for (const auto& f : files) ctx.out << "wrote " << f.path << "\n";
  }
  return kExitOk;
}

}  // namespace rb::cli
