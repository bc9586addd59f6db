// The pieces every script target shares: names, bash quoting, the env block, the probe, the
// torchrun rendezvous, and the one-node script used by the bridge, megatron-lm and torchrun targets.
#include <fmt/format.h>

#include <cctype>

#include "recipebook/core/strings.hpp"
#include "recipebook/emit/launch.hpp"
#include "recipebook/emit/launch_script.hpp"

namespace rb {

std::optional<LaunchTarget> parse_launch_target(std::string_view s) {
  const std::string f = to_lower(s);
  if (f == "bridge" || f == "megatron-bridge") return LaunchTarget::kBridge;
  if (f == "megatron-lm" || f == "megatron" || f == "mlm") return LaunchTarget::kMegatronLm;
  if (f == "torchrun") return LaunchTarget::kTorchrun;
  if (f == "slurm" || f == "sbatch") return LaunchTarget::kSlurm;
  if (f == "k8s" || f == "kubernetes") return LaunchTarget::kK8s;
  if (f == "recipe") return LaunchTarget::kRecipe;
  return std::nullopt;
}

std::string_view launch_target_name(LaunchTarget t) {
  switch (t) {
    case LaunchTarget::kBridge: return "bridge";
    case LaunchTarget::kMegatronLm: return "megatron-lm";
    case LaunchTarget::kTorchrun: return "torchrun";
    case LaunchTarget::kSlurm: return "slurm";
    case LaunchTarget::kK8s: return "k8s";
    case LaunchTarget::kRecipe: return "recipe";
  }
  return "bridge";
}

std::optional<Framework> parse_framework(std::string_view s) {
  const std::string f = to_lower(s);
  if (f == "bridge" || f == "megatron-bridge" || f == "megatron_bridge") return Framework::kBridge;
  if (f == "megatron-lm" || f == "megatron_lm" || f == "megatron" || f == "mlm") return Framework::kMegatronLm;
  return std::nullopt;
}

std::string_view framework_name(Framework f) {
  return f == Framework::kBridge ? "megatron-bridge" : "megatron-lm";
}

std::optional<K8sOperator> parse_k8s_operator(std::string_view s) {
  const std::string f = to_lower(s);
  if (f == "pytorchjob" || f == "kubeflow") return K8sOperator::kPyTorchJob;
  if (f == "jobset") return K8sOperator::kJobSet;
  return std::nullopt;
}

Result<void> validate_spec(const LaunchSpec& spec) {
  if (spec.name.empty()) return fail("the launch has no name");
  for (char c : spec.name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'))
      return fail("the job name '" + spec.name + "' has a character other than letters, digits, '_', '-' and '.'",
                  {"--name"});
  if (spec.gpus <= 0) return fail("the GPU count is not known", {}, "give --gpus N");
  if (spec.gpus_per_node <= 0) return fail("the GPUs per node are not known", {}, "give --gpus-per-node N");
  if (!fills_whole_nodes(spec.gpus, spec.gpus_per_node))
    return fail(fmt::format("{} GPUs do not fill whole nodes of {}", spec.gpus, spec.gpus_per_node), {},
                "use a multiple of --gpus-per-node");
  const Layout& l = spec.layout;
  if (spec.layout_given) {
    if (l.tp < 1 || l.pp < 1 || l.cp < 1 || l.vp < 1 || l.ep < 1 || l.etp < 1 || l.mbs < 1)
      return fail("every parallel degree and the micro batch must be at least 1");
    if (spec.gpus % l.model_parallel() != 0)
      return fail(fmt::format("{} GPUs are not divisible by TP x PP x CP = {}", spec.gpus, l.model_parallel()));
    if (l.dp != spec.gpus / l.model_parallel())
      return fail(fmt::format("DP {} does not match {} GPUs / (TP x PP x CP)", l.dp, spec.gpus));
  }
  if (spec.master_port <= 0 || spec.master_port > 65535) return fail("the master port must be in 1..65535");
  for (const auto& [k, v] : spec.env) {
    if (k.empty() || !(std::isalpha(static_cast<unsigned char>(k[0])) || k[0] == '_'))
      return fail(fmt::format("'{}' is not an environment variable name", k));
    for (char c : k)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_'))
        return fail(fmt::format("'{}' is not an environment variable name", k));
    if (v.find('\n') != std::string::npos) return fail(fmt::format("the value of {} spans lines", k));
  }
  return {};
}

Result<void> check_entry(const LaunchSpec& spec) {
  if (auto ok = validate_spec(spec); !ok) return ok;
  if (spec.framework == Framework::kBridge) {
    if (spec.bridge_recipe.empty())
      return fail("no Megatron-Bridge recipe to start from: run_recipe.py needs --recipe NAME", {},
                  "launch a catalog recipe of framework megatron-bridge, give --bridge-recipe NAME, or use "
                  "--framework megatron-lm");
    return check_bridge_entry(spec);
  }
  if (!spec.layout_given)
    return fail("the recipe does not record its whole layout, which Megatron-LM needs as flags", {},
                "give the layout flags (--tp --pp --cp --ep --mbs ...)");
  if (spec.seq <= 0) return fail("Megatron-LM needs the sequence length", {}, "give --seq N");
  if (spec.gbs <= 0) return fail("Megatron-LM needs the global batch size", {}, "give --gbs N");
  return check_megatron_entry(spec);
}

std::string_view entry_script(const LaunchSpec& spec) {
  return spec.framework == Framework::kBridge ? "scripts/training/run_recipe.py" : "pretrain_gpt.py";
}

std::vector<std::string> entry_guard_lines(const LaunchSpec& spec) {
  if (spec.probe) return {};
  const std::string_view script = entry_script(spec);
  const std::string_view repo = spec.framework == Framework::kBridge ? "Megatron-Bridge" : "Megatron-LM";
  return {fmt::format("if [ ! -f {0} ]; then echo \"{1}: no {0} in $PWD: run from the {2} checkout or give "
                      "recipebook launch --workdir DIR\" >&2; exit 1; fi",
                      script, spec.name, repo)};
}

std::string missing_settings_comment(const LaunchSpec& spec, bool container_target, bool has_image) {
  std::string out;
  if (container_target && !has_image)
    out += "# Warning: no container image given (--container-image): each node runs torchrun in its own\n"
           "# environment, which must have Megatron-Bridge / Megatron-LM and their Python packages.\n";
  if (spec.workdir.empty())
    out += fmt::format("# Warning: no working folder given (--workdir): {} is relative, so this runs from the\n"
                       "# folder it is started in, which must be the {} checkout.\n",
                       entry_script(spec), spec.framework == Framework::kBridge ? "Megatron-Bridge" : "Megatron-LM");
  return out;
}

std::string shell_quote(std::string_view word) {
  if (is_raw_word(word)) return std::string(word);
  bool safe = !word.empty();
  for (char c : word) {
    const auto u = static_cast<unsigned char>(c);
    if (!(std::isalnum(u) || c == '_' || c == '-' || c == '.' || c == '/' || c == ':' || c == '=' || c == ',' ||
          c == '+' || c == '@' || c == '%'))
      safe = false;
  }
  if (safe) return std::string(word);
  std::string out = "'";
  for (char c : word) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  out += "'";
  return out;
}

bool is_shell_expression(std::string_view value) {
  return value.find("$(") != std::string_view::npos || value.find("${") != std::string_view::npos ||
         value.find('`') != std::string_view::npos;
}

std::string export_line(const std::string& name, const std::string& value) {
  // A shell expression goes in double quotes so that it runs when the script does; `$(...)`
  // opens a new quoting context, so its own double quotes need no escaping. Literals are
  // single-quoted: nothing in them is evaluated.
  if (is_shell_expression(value)) return fmt::format("export {}=\"{}\"", name, value);
  return fmt::format("export {}={}", name, shell_quote(value));
}

bool is_raw_word(std::string_view word) { return word == kModelArgsWord; }

std::vector<std::string> probe_lines(const LaunchSpec& spec, std::string_view command) {
  std::vector<std::string> out;
  out.emplace_back("# --probe: prints the rendezvous and the exported environment instead of training.");
  out.emplace_back(
      "echo \"RB_PROBE host=${HOSTNAME} NNODES=${NNODES} NODE_RANK=${NODE_RANK} MASTER_ADDR=${MASTER_ADDR} "
      "MASTER_PORT=${MASTER_PORT} WORLD_SIZE=${WORLD_SIZE} GPUS_PER_NODE=${GPUS_PER_NODE}\"");
  if (!spec.env.empty()) {
    std::string names;
    for (const auto& [k, v] : spec.env) names += (names.empty() ? "" : " ") + k;
    out.push_back(fmt::format(
        "for rb_var in {}; do echo \"RB_PROBE_ENV ${{rb_var}}=$(printenv \"${{rb_var}}\" || echo \"<unset>\")\"; done",
        names));
  }
  out.push_back(fmt::format("echo RB_PROBE_CMD {}", command));
  return out;
}

std::vector<std::string> entry_args(const LaunchSpec& spec) {
  return spec.framework == Framework::kBridge ? bridge_args(spec) : megatron_args(spec);
}

std::string torchrun_rendezvous_args() {
  return "--nnodes=\"$NNODES\" --node_rank=\"$NODE_RANK\" --nproc_per_node=\"$GPUS_PER_NODE\" "
         "--master_addr=\"$MASTER_ADDR\" --master_port=\"$MASTER_PORT\"";
}

std::string layout_label(const LaunchSpec& spec) {
  if (!spec.layout_given) return "the recipe's own layout";
  const Layout& l = spec.layout;
  std::string s = fmt::format("TP{} PP{}", l.tp, l.pp);
  if (l.vp > 1) s += fmt::format(" VP{}", l.vp);
  s += fmt::format(" CP{} EP{} ETP{} DP{}", cp_text(l), l.ep, l.etp, l.dp);
  if (l.sp) s += " SP";
  if (l.fsdp) s += " FSDP";
  return s;
}

void append_header(std::string& out, const LaunchSpec& spec, std::string_view target) {
  out += fmt::format("# {}: {} on {} x {}, {} ({})\n", spec.name, spec.model.empty() ? "model" : spec.model,
                     spec.gpus, spec.gpu.empty() ? "GPU" : spec.gpu, layout_label(spec), framework_name(spec.framework));
  out += fmt::format("# Written by `recipebook launch --target {}`{}.\n", target,
                     spec.probe ? " --probe: it runs a probe in place of training" : "");
}

void append_env(std::string& out, const LaunchSpec& spec) {
  if (spec.env.empty()) return;
  out += "\n# The recipe's environment, exported before Python starts: some of it (Transformer Engine's\n"
         "# NVTE_* gates, for one) is read once at import, and setting it later changes nothing.\n";
  for (const auto& [k, v] : spec.env) out += export_line(k, v) + "\n";
}

void append_args_array(std::string& out, std::string_view name, const std::vector<std::string>& args) {
  out += fmt::format("{}=(\n", name);
  size_t i = 0;
  while (i < args.size()) {
    std::string line = shell_quote(args[i]);
    const bool is_flag = args[i].size() > 1 && args[i][0] == '-';
    ++i;
    // A flag keeps its values on its line: `--recompute-modules core_attn moe_act`.
    while (is_flag && i < args.size() && !(args[i].size() > 1 && args[i][0] == '-') &&
           args[i].find('=') == std::string::npos && !is_raw_word(args[i]))
      line.append(" ").append(shell_quote(args[i++]));
    out.append("  ").append(line).append("\n");
  }
  out += ")\n";
}

void append_model_args_note(std::string& out, const LaunchSpec& spec) {
  out += module_precision_note(spec);
  if (spec.framework != Framework::kMegatronLm) return;
  out += megatron_lm_layout_note(spec.layout);
  auto model_args = megatron_model_args(spec);
  if (model_args) {
    const auto notes = megatron_numerics(*spec.model_ir).notes;
    if (notes.empty()) return;
    out += fmt::format("\n# Numerics of {} that TRAIN_ARGS does not set (the source did not give them, or\n"
                       "# pretrain_gpt.py has no flag for them):\n",
                       spec.model_ir->name);
    for (const auto& n : notes) out += "#   - " + n + "\n";
    return;
  }
  out += fmt::format("\n# The model's shape arguments: {}.\n# Fill them in here before running.\nMODEL_ARGS=()\n",
                     model_args.error().message);
  // As written the command is not one pretrain_gpt.py runs (validate_args needs --num-layers,
  // --hidden-size, ...): the script stops before starting any GPU process until they are filled in.
  out += fmt::format("if [ ${{#MODEL_ARGS[@]}} -eq 0 ]; then echo {} >&2; exit 1; fi\n",
                     shell_quote(spec.name + ": MODEL_ARGS is empty: fill in the model's shape arguments (see the "
                                             "comment above it) before running"));
}

std::string render_shell_script(const LaunchSpec& spec, const std::vector<std::string>& launcher,
                                std::string_view target) {
  const int nodes = spec.nodes();
  std::string out = "#!/usr/bin/env bash\n";
  append_header(out, spec, target);
  out += missing_settings_comment(spec, false, false);
  out += "set -eo pipefail\n";
  if (!spec.workdir.empty()) out += "\ncd " + shell_quote(spec.workdir) + "\n";
  append_env(out, spec);
  out += "\n# torchrun rendezvous.";
  if (nodes > 1)
    out += fmt::format(" Run this script once on each of the {} nodes with NODE_RANK (0..{}) and\n"
                       "# MASTER_ADDR (the address of node 0) set.\n",
                       nodes, nodes - 1);
  else
    out += "\n";
  out += fmt::format("export NNODES={}\n", nodes);
  out += fmt::format("export GPUS_PER_NODE={}\n", spec.procs_per_node());
  if (nodes > 1) {
    out += "export NODE_RANK=\"${NODE_RANK:?set NODE_RANK on each node}\"\n";
    out += "export MASTER_ADDR=\"${MASTER_ADDR:?set MASTER_ADDR to the address of node 0}\"\n";
  } else {
    out += "export NODE_RANK=\"${NODE_RANK:-0}\"\n";
    out += "export MASTER_ADDR=\"${MASTER_ADDR:-127.0.0.1}\"\n";
  }
  out += fmt::format("export MASTER_PORT=\"${{MASTER_PORT:-{}}}\"\n", spec.master_port);
  out += "export WORLD_SIZE=$((NNODES * GPUS_PER_NODE))\n";
  append_model_args_note(out, spec);
  out += "\n";
  append_args_array(out, "TRAIN_ARGS", entry_args(spec));
  out += "\n";
  std::string command;
  for (const auto& w : launcher) {
    if (!command.empty()) command += ' ';
    command += shell_quote(w);
  }
  command += " " + torchrun_rendezvous_args() + " \"${TRAIN_ARGS[@]}\"";
  if (spec.probe) {
    for (const auto& line : probe_lines(spec, command)) out += line + "\n";
  } else {
    for (const auto& line : entry_guard_lines(spec)) out += line + "\n";
    out += command + "\n";
  }
  return out;
}

Result<std::string> render_torchrun(const LaunchSpec& spec) {
  if (auto ok = check_entry(spec); !ok) return tl::unexpected(ok.error());
  if (spec.nodes() > 1)
    return fail(fmt::format("the torchrun target runs one node, and {} GPUs need {} nodes of {}", spec.gpus,
                            spec.nodes(), spec.gpus_per_node),
                {}, "use --target slurm or --target k8s, or --target bridge/megatron-lm once per node");
  return render_shell_script(spec, {"torchrun"}, "torchrun");
}

Result<std::string> render_launch(LaunchTarget t, const LaunchSpec& spec) {
  switch (t) {
    case LaunchTarget::kBridge: return render_bridge(spec);
    case LaunchTarget::kMegatronLm: return render_megatron(spec);
    case LaunchTarget::kTorchrun: return render_torchrun(spec);
    case LaunchTarget::kSlurm: return render_slurm(spec);
    case LaunchTarget::kK8s: return render_k8s(spec);
    case LaunchTarget::kRecipe: return render_recipe_draft(spec);
  }
  return fail("unknown launch target");
}

std::string launch_file_name(LaunchTarget t, const LaunchSpec& spec) {
  switch (t) {
    case LaunchTarget::kBridge: return spec.name + ".bridge.sh";
    case LaunchTarget::kMegatronLm: return spec.name + ".megatron.sh";
    case LaunchTarget::kTorchrun: return spec.name + ".torchrun.sh";
    case LaunchTarget::kSlurm: return spec.name + ".sbatch";
    case LaunchTarget::kK8s:
      return spec.name + (spec.k8s.op == K8sOperator::kJobSet ? ".jobset.yaml" : ".pytorchjob.yaml");
    case LaunchTarget::kRecipe: return spec.name + ".recipe.yaml";
  }
  return spec.name;
}

}  // namespace rb
