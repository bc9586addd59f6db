// recipebook's command line: flags (CLI11, included here only) wired to one run_<name>() per
// subcommand (cmd_<name>.cpp). To add a subcommand: write cmd_<name>.{hpp,cpp} with an Options
// struct and run_<name>(), then add one add_<name>() function below and call it from main().
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "recipebook/cmd_calibrate.hpp"
#include "recipebook/cmd_calibrate_fit.hpp"
#include "recipebook/cmd_check.hpp"
#include "recipebook/cmd_estimate.hpp"
#include "recipebook/cmd_launch.hpp"
#include "recipebook/cmd_list.hpp"
#include "recipebook/cmd_plan.hpp"
#include "recipebook/cmd_recommend.hpp"
#include "recipebook/cmd_show.hpp"
#include "recipebook/context.hpp"
#include "recipebook/core/layout_fields.hpp"
#include "recipebook/core/units.hpp"
#include "recipebook/report.hpp"
#include "recipebook/serve/server.hpp"
#include "recipebook/version.hpp"

namespace {

using rb::cli::Context;

// A number that must be above zero (or at least zero), with a message that says so: CLI11's own
// PositiveNumber / NonNegativeNumber print "Value 0 not in range 0.000000 to <DBL_MAX in 309 digits>".
CLI::Validator at_least(bool zero_ok) {
  return CLI::Validator(
      [zero_ok](std::string& text) -> std::string {
        double v = 0;
        if (!CLI::detail::lexical_cast(text, v)) return "must be a number, not '" + text + "'";
        if (zero_ok ? v >= 0 : v > 0) return {};
        return std::string("must be ") + (zero_ok ? "0 or more" : "more than 0") + ", not " + text;
      },
      zero_ok ? "NONNEGATIVE" : "POSITIVE");
}
const CLI::Validator kPositive = at_least(false);
const CLI::Validator kNonNegative = at_least(true);

struct Globals {
  std::vector<std::string> catalog_dirs;
  bool json = false;
};

// The action chosen by the parsed subcommand, run after parsing succeeds.
using Action = std::function<int(const Context&)>;

void add_list(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("list", "List the catalog's recipes (or --models, --hardware)");
  auto opts = std::make_shared<rb::cli::ListOptions>();
  auto flags = std::make_shared<std::pair<bool, bool>>(false, false);
  auto* models = cmd->add_flag("--models", flags->first, "List models instead of recipes");
  auto* hardware = cmd->add_flag("--hardware", flags->second, "List GPUs instead of recipes");
  models->excludes(hardware);
  cmd->add_option("--model", opts->model, "Model name, alias, Hugging Face id or family (substring)")->excludes(hardware);
  // The recipe filters: with --models or --hardware they would be ignored, so they are refused.
  for (CLI::Option* recipe_filter :
       {cmd->add_option("--mode", opts->mode, "pretrain | sft | peft"),
        cmd->add_option("--gpu", opts->gpu, "GPU type: h100, b200, gb300, ..."),
        cmd->add_option("--gpus", opts->gpus, "Exact GPU count")->check(kPositive),
        cmd->add_option("--kind", opts->kind, "library | performance | verified | measured"),
        cmd->add_flag("--measured", opts->measured, "Only recipes with a measured result")})
    recipe_filter->excludes(models)->excludes(hardware);
  cmd->add_option("--limit", opts->limit, "Print at most N rows (default 0: all)")->check(kNonNegative);
  cmd->footer(
      "Examples:\n"
      "  recipebook list --model qwen3 --mode sft\n"
      "  recipebook list --gpu gb300 --gpus 64 --measured\n"
      "  recipebook list --models\n"
      "  recipebook list --json | jq length");
  cmd->callback([opts, flags, &action] {
    if (flags->first) opts->what = "models";
    if (flags->second) opts->what = "hardware";
    action = [opts](const Context& ctx) { return rb::cli::run_list(*opts, ctx); };
  });
}

void add_show(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("show", "Show one recipe, model or GPU by exact name");
  auto opts = std::make_shared<rb::cli::ShowOptions>();
  cmd->add_option("name", opts->name, "Recipe, model or GPU name")->required();
  cmd->add_flag("--resolved", opts->resolved, "Apply the recipe's `extends` chain first");
  cmd->footer(
      "Examples:\n"
      "  recipebook show qwen3_30b_a3b_sft_8gpu_h100_bf16_config\n"
      "  recipebook show Qwen3-30B-A3B\n"
      "  recipebook show gb300 --json");
  cmd->callback([opts, &action] {
    action = [opts](const Context& ctx) { return rb::cli::run_show(*opts, ctx); };
  });
}

void add_check(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("check", "Check recipe records: schema, derived figures, layout rules");
  auto opts = std::make_shared<rb::cli::CheckOptions>();
  cmd->add_option("files", opts->files, "Recipe, model or hardware YAML files");
  cmd->add_flag("--builtin", opts->builtin, "Check every entry of the built-in catalog (and --catalog folders)");
  cmd->add_flag("--strict", opts->strict, "Warnings also make the exit code 1");
  cmd->add_flag("--summary", opts->summary, "Print counts instead of every finding");
  cmd->add_flag("--show-accepted", opts->show_accepted, "Also print findings records accept in known_issues");
  cmd->footer(
      "Output: one line per finding, all at once:\n"
      "  file:line:col: error|warning [RULE-ID] message (fix: ...)\n"
      "Exit codes: 0 no errors, 1 findings, 2 usage.\n"
      "Examples:\n"
      "  recipebook check my_recipe.yaml\n"
      "  recipebook check catalog/recipes/*/*/*.yaml --json\n"
      "  recipebook check --builtin --summary");
  cmd->callback([opts, &action] {
    action = [opts](const Context& ctx) { return rb::cli::run_check(*opts, ctx); };
  });
}


// The layout flags, one per row of the layout field table (core/layout_fields.hpp), with its help
// text. Unset, each keeps Layout's default for estimate, the recipe's value for launch and the
// search's default for plan. `plan_fixed`: only the fields plan fixes (PlanRole::kFixed; plan has
// its own flags for what it searches).
void add_layout_options(CLI::App* cmd, rb::LayoutFlags& f, const std::string& group = "Layout",
                        bool plan_fixed = false) {
  for (const rb::LayoutField& r : rb::layout_fields()) {
    if (plan_fixed && r.plan != rb::PlanRole::kFixed) continue;
    const std::string flag = rb::flag_name(r);
    const std::string help(r.help);
    switch (r.kind) {
      case rb::FieldKind::kInt: {
        auto* o = cmd->add_option(flag, f.*r.given_int, help)->group(group);
        if (r.min == rb::FieldMin::kOne) o->check(kPositive);
        if (r.min == rb::FieldMin::kZero) o->check(kNonNegative);
        break;
      }
      case rb::FieldKind::kBool: {
        // On/off switches: unset keeps the default (optional<bool>), so each side sets it.
        std::optional<bool>& value = f.*r.given_bool;
        cmd->add_flag_callback(flag, [&value] { value = true; }, help)->group(group);
        cmd->add_flag_callback("--no-" + flag.substr(2), [&value] { value = false; }, "")->group(group);
        break;
      }
      case rb::FieldKind::kText: cmd->add_option(flag, f.*r.given_text, help)->group(group); break;
      case rb::FieldKind::kNumber: cmd->add_option(flag, f.*r.given_number, help)->group(group); break;
    }
  }
}

// The flags that describe one setup for estimate: model, GPUs, workload, then the layout.
void add_layout_flags(CLI::App* cmd, rb::cli::LayoutArgs& a) {
  auto* r = cmd->add_option("--recipe", a.recipe,
                            "Catalog recipe (exact name): its model, GPUs, workload and whole layout; other flags override");
  cmd->add_option("recipe", a.recipe, "The same as --recipe")->excludes(r);
  cmd->add_option("--model", a.model, "Catalog name, alias, Hugging Face id, or path to a config.json");
  cmd->add_option("--gpu", a.gpu, "GPU type: h100, h200, b200, b300, gb200, gb300, a100, mi300x, ...");
  cmd->add_option("--gpus", a.gpus, "Total GPU count")->check(kPositive);
  cmd->add_option("--gpus-per-node", a.gpus_per_node, "GPUs per node (default: the GPU's usual node)")->check(kPositive);
  cmd->add_option("--mode", a.mode, "pretrain | sft | peft (default: the recipe's, else pretrain)");
  cmd->add_option("--seq", a.seq, "Sequence length in tokens (default: the recipe's, else 4096)")->check(kPositive);
  cmd->add_option("--gbs", a.gbs, "Global batch in sequences")->check(kPositive);
  cmd->add_option("--max-pixels", a.max_pixels, "VLM image budget: pixels per image (default: the recipe's vision.max_pixels, else no images)")->check(kNonNegative);
  cmd->add_option("--images-per-sample", a.images_per_sample, "VLM images per sequence (default: the recipe's, else 1)")->check(kPositive);
  cmd->add_option("--vision-graph-patches", a.vision_graph_patches, "Patches per micro batch the vision CUDA graph pads to (default: the recipe's vision.cuda_graph_max_patches, else no vision graph)")->check(kNonNegative);
  cmd->add_option("--tokens", a.tokens, "Token budget, for GPU-hours and days: 15T, 500B, 1.2e12")
      ->transform(CLI::Validator([](std::string& text) -> std::string {
        // The counts plan takes ("1T"), as the number the option holds.
        const auto n = rb::parse_token_count(text);
        if (!n) return "'" + text + "' is not a token count (e.g. 15T, 500B, 1.2e12)";
        char number[32];
        std::snprintf(number, sizeof number, "%.17g", *n);
        text = number;
        return {};
      }, "TOKENS"));
  cmd->add_option("--lora-rank", a.lora_rank, "LoRA rank for --mode peft")->capture_default_str();
  cmd->add_option("--headroom", a.headroom, "Memory each GPU must keep free: GiB (2, 512MiB) or a share of its memory (5%); a layout fits when peak <= memory - headroom")->capture_default_str();
  add_layout_options(cmd, a.layout);
}

void add_estimate(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("estimate", "Memory, step time, throughput and cost of one layout");
  auto opts = std::make_shared<rb::cli::EstimateOptions>();
  add_layout_flags(cmd, opts->args);
  cmd->add_option("--batch", opts->batch_file,
                  "JSON Lines file ('-' = stdin): one layout per line, the flags' keys with underscores; "
                  "one JSON line out per non-blank line in, with its line number as `line`");
  cmd->footer(
      "Examples:\n"
      "  recipebook estimate --model Qwen3.5-397B-A17B --gpu b200 --gpus 48 --tp 2 --pp 6 --ep 8 --etp 1 \\\n"
      "      --mode sft --seq 8192 --gbs 128 --recompute full --precision-aware-optimizer\n"
      "  recipebook estimate --model llama3-70b --gpu h100 --gpus 64 --tp 4 --pp 8 --vp 5 --seq 8192 --gbs 256 --json\n"
      "  recipebook estimate --model ./config.json --gpu gb300 --gpus 8 --ep 8 --seq 4096 --gbs 512 --tokens 1e12\n"
      "  recipebook estimate --batch layouts.jsonl --model llama3-8b --gpu h100\n"
      "  recipebook estimate --recipe qwen3_235b_a22b_pretrain_256gpu_gb300_fp8mx_config --gpus 128 --gbs 4096\n"
      "Exit codes: 0 estimated and fits, 1 a rule forbids the layout (its rule is printed) or it does not fit\n"
      "in memory less --headroom (the estimate is printed), 2 usage.");
  cmd->callback([opts, &action] {
    action = [opts](const Context& ctx) { return rb::cli::run_estimate(*opts, ctx); };
  });
}

void add_launch(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("launch", "Write the command, script or manifest that runs a recipe, plan entry or layout");
  auto o = std::make_shared<rb::cli::LaunchOptions>();
  auto* source = cmd->add_option("source", o->source, "Catalog recipe name, recipe .yaml file, or `plan --json` output (.json)");
  cmd->add_option("--recipe", o->source, "Catalog recipe name (the same as the positional source)")->excludes(source);
  cmd->add_option("--pick", o->pick, "Which plan entry to launch (1 = the first; default: the plan's answer)")->check(kPositive);
  auto* g = "What to launch (flags override a recipe's values)";
  cmd->add_option("--model", o->model, "Model: catalog name, alias or Hugging Face id")->group(g);
  cmd->add_option("--gpu", o->gpu, "GPU type: h100, b200, gb300, ...")->group(g);
  cmd->add_option("--gpus", o->gpus, "GPU count")->check(kPositive)->group(g);
  cmd->add_option("--gpus-per-node", o->gpus_per_node, "GPUs per node (default: the GPU's node)")->check(kPositive)->group(g);
  cmd->add_option("--mode", o->mode, "pretrain | sft | peft")->group(g);
  cmd->add_option("--seq", o->seq, "Sequence length")->check(kPositive)->group(g);
  cmd->add_option("--gbs", o->gbs, "Global batch size")->check(kPositive)->group(g);
  add_layout_options(cmd, o->layout);
  auto* t = "Output";
  cmd->add_option("--target", o->targets, "bridge | megatron-lm | torchrun | slurm | k8s | recipe (repeatable)")
      ->delimiter(',')->group(t);
  cmd->add_option("--framework", o->framework, "bridge | megatron-lm, for torchrun, slurm, k8s and recipe")->group(t);
  cmd->add_option("--bridge-recipe", o->bridge_recipe, "Megatron-Bridge recipe run_recipe.py starts from")->group(t);
  cmd->add_option("--name", o->name, "Job name (default: the recipe's)")->group(t);
  cmd->add_option("--dataset", o->dataset, "Bridge --dataset / Megatron-LM --data-path (default: the recipe's / mock)")->group(t);
  cmd->add_option("--train-iters", o->train_iters, "Training iterations")->check(kPositive)->group(t);
  cmd->add_option("--env", o->env, "NAME=VALUE exported before Python starts (repeatable)")->group(t);
  cmd->add_option("--extra", o->extra, "A word appended to the training command (repeatable; --extra=--flag)")->group(t);
  cmd->add_option("--workdir", o->workdir, "Folder to run in (Megatron-Bridge or Megatron-LM checkout)")->group(t);
  cmd->add_flag("--probe", o->probe, "Print the rendezvous and the exported env instead of training")->group(t);
  cmd->add_option("--master-port", o->master_port, "torchrun rendezvous port")->check(CLI::Range(1, 65535))->group(t);
  cmd->add_option("-o,--out-dir", o->out_dir, "Write files here (made if missing; all files or none) instead of printing")->group(t);
  cmd->add_flag("--force", o->force, "Replace existing files")->group(t);
  cmd->add_flag("--ignore-memory", o->ignore_memory,
                "Write the launch even when the memory estimate says the layout does not fit (a warning instead)")
      ->group(t);
  auto* s = "Slurm";
  cmd->add_option("--partition", o->slurm.partition, "sbatch --partition")->group(s);
  cmd->add_option("--account", o->slurm.account, "sbatch --account")->group(s);
  cmd->add_option("--time", o->slurm.time_limit, "sbatch --time, e.g. 04:00:00")->group(s);
  cmd->add_option("--slurm-output", o->slurm.output, "sbatch --output pattern (default NAME-%j.out)")->group(s);
  cmd->add_option("--container-image", o->slurm.container_image, "pyxis srun --container-image")->group(s);
  cmd->add_option("--container-mounts", o->slurm.container_mounts, "pyxis srun --container-mounts")->group(s);
  cmd->add_flag("!--no-gres", o->slurm.gres, "Do not request GPUs (probes on CPU-only clusters)")->group(s);
  auto* k = "Kubernetes";
  cmd->add_option("--operator", o->k8s_operator, "pytorchjob (Kubeflow, default) | jobset")->group(k);
  cmd->add_option("--image", o->image, "Container image (k8s; default --container-image)")->group(k);
  cmd->add_option("--namespace", o->k8s_namespace, "metadata.namespace")->group(k);
  cmd->footer(
      "Examples:\n"
      "  recipebook launch llama3_8b_pretrain_8gpu_b200_bf16_config --target bridge\n"
      "  recipebook launch --model Llama-3-8B --gpu h100 --gpus 16 --tp 2 --seq 8192 --gbs 128 --target slurm\n"
      "  recipebook launch plan.json --pick 2 --target k8s --operator jobset --image nvcr.io/nvidia/nemo:26.04\n"
      "  recipebook launch attune-48gpu-tp2-pp6-ep8 --target slurm,recipe -o jobs/\n"
      "  recipebook launch ... --target slurm --probe --no-gres   (check rendezvous and env without GPUs)\n"
      "Exit codes: 0 ok, 1 the rules reject the layout or it does not fit in memory, 2 usage or input error.");
  cmd->callback([o, &action] {
    action = [o](const Context& ctx) { return rb::cli::run_launch(*o, ctx); };
  });
}

void add_calibrate(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("calibrate", "Measure a run from its Megatron training logs; fill a recipe's result");
  auto o = std::make_shared<rb::cli::CalibrateOptions>();
  auto fit = std::make_shared<rb::cli::CalibrateFitOptions>();
  auto fitting = std::make_shared<bool>(false);
  cmd->add_option("logs", o->logs, "Training logs (Megatron-LM or Megatron-Bridge), one per run")->check(CLI::ExistingFile);
  cmd->add_flag("--fit", *fitting,
                "Fit the estimator's efficiencies (no logs): to the built-in benchmark measurements, or with "
                "--catalog DIR only to the measured runs recorded in DIR (your cluster; the built-in records are not "
                "fitted), writing the hardware file <gpu>-<cluster>");
  cmd->add_option("--write", fit->write_dir, "With --fit, without --catalog: rewrite the efficiency block of DIR/<gpu>.yaml");
  cmd->add_option("--out", fit->out, "With --fit --catalog DIR: the hardware file to write (default DIR/hardware/<gpu>-<cluster>.yaml)");
  cmd->add_option("--cluster", fit->cluster, "With --fit --catalog DIR: the cluster's name in <gpu>-<cluster> (default DIR's folder name)");
  cmd->add_option("--window", o->window, "Iterations A:B to measure (default: after warm-up)");
  cmd->add_option("--recipe", o->recipe, "Recipe record: read its seq/GPUs/batch/model/GPU, write its `result`")->check(CLI::ExistingFile);
  cmd->add_option("--seq", o->seq, "Sequence length (default: the recipe's, else the log's)")->check(kPositive);
  cmd->add_option("--gpus", o->gpus, "GPU count (default: the recipe's, else the log's world_size)")->check(kPositive);
  cmd->add_option("--gbs", o->gbs, "Global batch, for logs that print none")->check(kPositive);
  cmd->add_option("--gpu", o->gpu, "GPU type, for the dense peak and the price; with --fit --catalog: the runs' GPU to fit");
  cmd->add_option("--model", o->model, "Model, for active parameters and FLOPs per token");
  cmd->add_option("--precision", o->precision, "Precision of the dense peak (default: the recipe's, else bf16)");
  cmd->add_option("--peak-tflops", o->peak_tflops, "Dense peak TFLOP/s per GPU (overrides the GPU's)")->check(kPositive);
  cmd->add_option("--usd-per-gpu-hour", o->usd_per_gpu_hour, "Price (overrides the GPU's)")->check(kPositive);
  cmd->add_option("--active-params", o->active_params, "Active parameters (overrides the model's)")->check(kPositive);
  cmd->add_flag("--dry-run", o->dry_run, "With --recipe: print the edited record instead of writing it");
  cmd->add_flag("--force", o->force, "Write even when the log's GPUs, batch, sequence or model differ from the recipe's");
  cmd->footer(
      "Examples:\n"
      "  recipebook calibrate run.log --gpu h100 --model Llama-3-8B\n"
      "  recipebook calibrate run1.log run2.log --window 20:120 --recipe jobs/my_run.recipe.yaml\n"
      "  recipebook calibrate run.log --seq 8192 --gpus 64 --json\n"
      "  recipebook calibrate --fit --write catalog/hardware\n"
      "  recipebook calibrate --fit --catalog my_runs/ --gpu h100   # writes my_runs/hardware/h100-my-runs.yaml");
  cmd->callback([o, fit, fitting, &action] {
    if (*fitting) {
      fit->gpu = o->gpu;
      action = [fit](const Context& ctx) { return rb::cli::run_calibrate_fit(*fit, ctx); };
    } else {
      action = [o](const Context& ctx) { return rb::cli::run_calibrate(*o, ctx); };
    }
  });
}


void add_plan(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("plan", "Search every valid layout; rank those that fit by throughput, cost or time");
  auto o = std::make_shared<rb::cli::PlanOptions>();
  cmd->add_option("--recipe", o->recipe,
                  "Catalog recipe (exact name): model, GPUs, mode, seq, batch and precision the flags leave unset; "
                  "its layout is ranked among the plan's");
  cmd->add_option("--model", o->model, "Catalog name, alias, Hugging Face id, or path to a config.json (required without --recipe)");
  cmd->add_option("--gpu", o->gpu, "GPU type: h100, b200, gb300, ... (required without --recipe)");
  cmd->add_option("--gpus", o->gpus, "GPU count: 64, a range 8..512 (powers of two and whole nodes), or a list 64,96");
  cmd->add_option("--gpus-per-node", o->gpus_per_node, "GPUs per node (default: the GPU's node)")->check(kPositive);
  cmd->add_option("--mode", o->mode, "pretrain | sft | peft (default: the recipe's, else pretrain)");
  cmd->add_option("--seq", o->seq, "Sequence length in tokens (default: the recipe's, else 4096)")->check(kPositive);
  cmd->add_option("--gbs", o->gbs, "Global batch in sequences (required without --recipe)");
  cmd->add_option("--lora-rank", o->lora_rank, "LoRA rank for --mode peft")->capture_default_str();
  // The searched layout fields' flags, one per row plan has a flag for (core/layout_fields.hpp).
  auto* searched = "Searched layout (a value fixes it, a comma list narrows it; unset, any or 0: searched)";
  for (const rb::LayoutField& r : rb::layout_fields())
    if (rb::plan_searches(r))
      cmd->add_option(rb::flag_name(r), o->search[std::string(r.key)], std::string(r.plan_help))->group(searched);
  cmd->add_option("--dp", o->dp, "Data parallel degree (0 = searched)")->group(searched);
  cmd->add_option("--max-mbs", o->max_mbs, "Largest micro batch searched")->capture_default_str();
  cmd->add_option("--objective", o->objective, "throughput | cost | time (seconds per token; with --tokens, days to train)")->capture_default_str();
  cmd->add_option("--offload", o->offload,
                  "auto: when no layout fits, try optimizer and activation offload to host memory | never")
      ->capture_default_str();
  cmd->add_option("--tokens", o->tokens, "Training budget: 15T, 500B, 1.2e12");
  cmd->add_option("--top", o->top, "How many layouts to print")->capture_default_str();
  cmd->add_option("--headroom", o->headroom, "Memory each GPU must keep free: GiB (2, 512MiB) or a share of its memory (5%); a layout fits when peak <= memory - headroom")->capture_default_str();
  cmd->add_option("--threads", o->threads, "Worker threads (0 = one per core); results do not depend on it")
      ->capture_default_str();
  cmd->add_flag("--progress", o->progress, "Draw the progress line even when stderr is not a terminal");
  add_layout_options(cmd, o->layout, "Fixed features (default: the search's)", /*plan_fixed=*/true);
  auto* fleet = "Across GPU types (--gpu h100,b200,gb200 or all; needs --tokens)";
  cmd->add_option("--deadline", o->deadline, "Latest finish: 30d, 12h, 2w")->group(fleet);
  cmd->add_option("--budget", o->budget, "Most USD to spend: 2e6, 2M, 500k")->group(fleet);
  cmd->add_option("--price", o->price, "USD per GPU-hour over the catalog's: gb200=6.5,h100=7")->group(fleet);
  cmd->add_option("--gpus-available", o->gpus_available, "GPUs on hand per type: h100=512,b200=256")->group(fleet);
  cmd->footer(
      "Examples:\n"
      "  recipebook plan --model llama3-70b --gpu gb300 --gpus 64 --seq 8192 --gbs 512 --top 10\n"
      "  recipebook plan --model DeepSeek-V3 --gpu h100 --gpus 2048 --seq 4096 --gbs 15360 --precision bf16,fp8_cs\n"
      "  recipebook plan --model Qwen3-30B-A3B --gpu h100 --gpus 8..64 --gbs 512 --objective cost\n"
      "  recipebook plan --model ./config.json --gpu b200 --gpus 48 --tp 2 --gbs 128 --json\n"
      "  recipebook plan --recipe llama3_8b_pretrain_8gpu_h100_bf16_config --top 3\n"
      "  recipebook plan --model Qwen3-30B-A3B --gpu h100 --gpus 16 --gbs 256 --cuda-graph te --ep-a2a-overlap\n"
      "  recipebook plan --model llama3-70b --gpu h100,b200,gb200 --gpus 64..256 --gbs 512 --tokens 1T --price gb200=6.5 --objective cost\n"
      "Exit codes: 0 layouts found, 1 nothing fits (the closest layouts and what would fit are printed), 2 usage.");
  cmd->callback([o, cmd, &action] {
    o->threads_given = cmd->count("--threads") > 0;
    action = [o](const Context& ctx) { return rb::cli::run_plan(*o, ctx); };
  });
}

void add_recommend(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("recommend", "Pick the closest catalog recipe and fit it to your GPUs");
  auto o = std::make_shared<rb::cli::RecommendOptions>();
  cmd->add_option("--model", o->model, "Catalog name, alias, Hugging Face id, or path to a config.json")->required();
  cmd->add_option("--gpu", o->gpu, "GPU type: h100, b200, gb300, ...")->required();
  cmd->add_option("--gpus", o->gpus, "GPU count (required for one --gpu type)")->check(kPositive);
  cmd->add_option("--gpus-per-node", o->gpus_per_node, "GPUs per node (default: the GPU's node)")->check(kPositive);
  cmd->add_option("--mode", o->mode, "pretrain | sft | peft (required for one --gpu type)");
  cmd->add_option("--tokens", o->tokens, "With several --gpu types (h100,b200): the training budget the type and count are chosen for");
  cmd->add_option("--seq", o->seq, "Sequence length (default: the recipe's)");
  cmd->add_option("--gbs", o->gbs, "Global batch (default: the recipe's)");
  cmd->add_option("--precision", o->precision, "Precision (default: the recipe's)");
  cmd->add_option("--dataset", o->dataset,
                  "Dataset for the command (default: mock for pretraining, squad for SFT/PEFT, cord-v2 for "
                  "vision-language recipes; none for performance recipes, which reject --dataset)");
  cmd->add_option("--alternatives", o->alternatives, "Also name the next N matching recipes")->capture_default_str();
  cmd->add_flag_callback("--no-compare", [o] { o->compare = false; }, "Skip the comparison with plan's best layout");
  cmd->add_option("--threads", o->threads, "Planner threads (0 = one per core)");
  cmd->add_option("--headroom", o->headroom, "Memory each GPU must keep free: GiB (2, 512MiB) or a share of its memory (5%); a layout fits when peak <= memory - headroom")->capture_default_str();
  cmd->footer(
      "Examples:\n"
      "  recipebook recommend --model Qwen/Qwen3-30B-A3B --gpu h100 --gpus 16 --mode sft --seq 8192\n"
      "  recipebook recommend --model llama3-70b --gpu h100 --gpus 64 --mode pretrain\n"
      "  recipebook recommend --model Llama-3-8B --gpu h100 --gpus 1 --mode peft\n"
      "  recipebook recommend --model ./config.json --gpu b200 --gpus 8 --mode sft --json\n"
      "  recipebook recommend --model llama3-70b --gpu h100,b200 --gpus 64 --tokens 1T\n"
      "Exit codes: 0 a recommendation that fits (or a model that cannot be sized, said so), 1 the resized layout\n"
      "does not fit or a rule rejects it, 2 usage or input errors.");
  cmd->callback([o, &action] {
    action = [o](const Context& ctx) { return rb::cli::run_recommend(*o, ctx); };
  });
}

void add_serve(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("serve", "Serve a local web page and JSON API over the same core (docs/serve.md)");
  auto o = std::make_shared<rb::serve::ServeOptions>();
  cmd->add_option("--port", o->port, "TCP port (0 = any free port)")->capture_default_str()->check(CLI::Range(0, 65535));
  cmd->add_option("--host", o->host, "Address to listen on; anything but loopback is warned about")->capture_default_str();
  cmd->add_flag("--open", o->open, "Open the page in the desktop's browser");
  cmd->add_option("--workers", o->workers, "Requests served at once")->capture_default_str()->check(CLI::Range(1, 256));
  cmd->add_option("--timeout", o->timeout_s, "Socket read/write limit per request, seconds")->capture_default_str();
  cmd->footer(
      "Examples:\n"
      "  recipebook serve                      (http://127.0.0.1:8080/)\n"
      "  recipebook serve --port 0 --open\n"
      "  curl -s localhost:8080/api/estimate -d '{\"model\":\"llama3-8b\",\"gpu\":\"h100\",\"gpus\":8,\"gbs\":64}'");
  cmd->callback([o, &action] {
    action = [o](const Context& ctx) { return rb::serve::run_serve(*o, ctx); };
  });
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"recipebook: pick, size, check and launch LLM training recipes before you spend GPU-hours"};
  app.set_version_flag("--version", rb::cli::version());
  app.require_subcommand(1);
  Globals g;
  app.add_option("--catalog", g.catalog_dirs, "Add a catalog folder (repeatable); its entries override built-in ones")
      ->check(CLI::ExistingDirectory);
  app.add_flag("--json", g.json, "Print JSON for scripts (stable field names)");
  app.footer(
      "Examples:\n"
      "  recipebook list --model llama3 --mode pretrain\n"
      "  recipebook show llama3_70b_pretrain_64gpu_h100_bf16_config\n"
      "  recipebook check my_recipe.yaml\n"
      "Run 'recipebook <command> --help' for a command's flags.");
  // Global flags are accepted after the subcommand too.
  app.fallthrough();

  Action action;
  add_list(app, action);
  add_show(app, action);
  add_check(app, action);
  add_estimate(app, action);
  add_plan(app, action);
  add_recommend(app, action);
  add_launch(app, action);
  add_calibrate(app, action);
  add_serve(app, action);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    // A command line that did not parse may not have set g.json: look for the flag itself.
    bool json = false;
    for (int i = 1; i < argc && std::string_view(argv[i]) != "--"; ++i) json = json || std::string_view(argv[i]) == "--json";
    const Context usage{std::cout, std::cerr, {}, json, false};
    return rb::cli::report_errors(
        usage, {rb::Error{e.what(), {}, "run 'recipebook --help' or 'recipebook <command> --help'", "RB-USAGE"}},
        rb::cli::kExitUsage);
  }
  const char* no_color = std::getenv("NO_COLOR");
  Context ctx{std::cout, std::cerr, g.catalog_dirs, g.json,
              isatty(STDOUT_FILENO) != 0 && (no_color == nullptr || *no_color == '\0')};
  try {
    return action ? action(ctx) : rb::cli::kExitUsage;
  } catch (const std::exception& e) {  // last resort: the library reports expected failures itself
    return rb::cli::report_errors(ctx, {rb::Error{std::string("internal error: ") + e.what(), {}, {}, "RB-INTERNAL"}}, 3);
  }
}
