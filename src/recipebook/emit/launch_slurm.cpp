// Slurm: an sbatch script with one srun task per node; each task starts torchrun for its node.
// The rendezvous comes from Slurm's own variables: MASTER_ADDR is the first host of
// SLURM_JOB_NODELIST (`scontrol show hostnames`), NNODES is SLURM_NNODES, and each task's
// NODE_RANK is its SLURM_NODEID. The recipe's env is exported in the batch script, before srun,
// so every task inherits it before Python starts (srun's default --export=ALL; pyxis passes the
// environment into the container).
#include <fmt/format.h>

#include "recipebook/core/check.hpp"
#include "recipebook/emit/launch.hpp"
#include "recipebook/emit/launch_script.hpp"

namespace rb {

Result<std::string> render_slurm(const LaunchSpec& spec) {
  if (auto ok = check_entry(spec); !ok) return tl::unexpected(ok.error());
  const SlurmSettings& sl = spec.slurm;
  const int nodes = spec.nodes();
  const bool container = !sl.container_image.empty();

  std::string out = "#!/bin/bash\n";
  out += fmt::format("#SBATCH --job-name={}\n", spec.name);
  out += fmt::format("#SBATCH --nodes={}\n", nodes);
  out += "#SBATCH --ntasks-per-node=1\n";
  if (sl.gres) out += fmt::format("#SBATCH --gpus-per-node={}\n", spec.procs_per_node());
  if (!sl.partition.empty()) out += fmt::format("#SBATCH --partition={}\n", sl.partition);
  if (!sl.account.empty()) out += fmt::format("#SBATCH --account={}\n", sl.account);
  if (!sl.time_limit.empty()) out += fmt::format("#SBATCH --time={}\n", sl.time_limit);
  out += fmt::format("#SBATCH --output={}\n", sl.output.empty() ? spec.name + "-%j.out" : sl.output);
  append_header(out, spec, "slurm");
  if (!sl.gres) out += "# No GPUs requested (--no-gres): for probes on clusters without GPU GRES.\n";
  out += missing_settings_comment(spec, true, container);
  out += "set -eo pipefail\n";
  if (!spec.workdir.empty() && !container) out += "\ncd " + shell_quote(spec.workdir) + "\n";
  append_env(out, spec);

  out += "\n# torchrun rendezvous from the allocation: node 0 is the master.\n";
  out += "export MASTER_ADDR=\"$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)\"\n";
  out += fmt::format("export MASTER_PORT={}\n", spec.master_port);
  out += "export NNODES=\"$SLURM_NNODES\"\n";
  out += fmt::format("export GPUS_PER_NODE={}\n", spec.procs_per_node());
  out += "export WORLD_SIZE=$((NNODES * GPUS_PER_NODE))\n";
  append_model_args_note(out, spec);
  out += "\n";
  append_args_array(out, "TRAIN_ARGS", entry_args(spec));

  // The per-node part runs inside `bash -c '...'` with TRAIN_ARGS as its "$@".
  const std::string command = "torchrun " + torchrun_rendezvous_args() + " \"$@\"";
  std::vector<std::string> node{"export NODE_RANK=\"$SLURM_NODEID\""};
  if (spec.probe) {
    node.emplace_back(
        "echo \"RB_PROBE_SLURM job=${SLURM_JOB_ID} nodeid=${SLURM_NODEID} procid=${SLURM_PROCID} "
        "ntasks=${SLURM_NTASKS} nnodes=${SLURM_NNODES} nodelist=${SLURM_JOB_NODELIST}\"");
    for (auto& line : probe_lines(spec, command)) node.push_back(std::move(line));
  } else {
    for (auto& line : entry_guard_lines(spec)) node.push_back(std::move(line));
    node.push_back("exec " + command);
  }

  out += fmt::format("\n# One task per node; each runs torchrun with NODE_RANK = its SLURM_NODEID.\n");
  std::string srun = "srun --nodes=\"$SLURM_NNODES\" --ntasks-per-node=1 --kill-on-bad-exit=1";
  if (container) {
    srun += " --container-image=" + shell_quote(sl.container_image);
    if (!sl.container_mounts.empty()) srun += " --container-mounts=" + shell_quote(sl.container_mounts);
    if (!spec.workdir.empty()) srun += " --container-workdir=" + shell_quote(spec.workdir);
  }
  out += srun + " bash -c '\n";
  for (const auto& line : node) {
    RB_CHECK(line.find('\'') == std::string::npos);  // the block is single-quoted
    out += line + "\n";
  }
  out += "' rb-node \"${TRAIN_ARGS[@]}\"\n";
  return out;
}

}  // namespace rb
