// `recipebook launch`: the command, script or manifest that runs a recipe, a plan entry or a layout
// on an engine people already use (emit/launch.hpp lists the targets). The layout is checked by the
// rules first; a layout the rules reject is refused with the rule (exit 1), and so is one the
// memory estimate says does not fit (RB-LAUNCH-MEMORY, as `recipebook estimate` with the same
// recipe and flags), unless the record's own measured run shows it did or --ignore-memory is given.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "recipebook/context.hpp"
#include "recipebook/emit/launch_spec.hpp"

namespace rb::cli {

struct LaunchOptions {
  // What to launch: a catalog recipe name, a recipe .yaml file, or a `plan --json` file; or nothing
  // and the layout flags. Flags given with a recipe override its values.
  std::string source;
  int pick = 0;  // --pick N: which plan entry (1 = the first; 0 = the plan's answer)
  std::string model, gpu, mode;
  int gpus = 0, gpus_per_node = 0;
  int64_t seq = 0, gbs = 0;
  LayoutFlags layout;

  std::vector<std::string> targets;  // --target, repeatable; none = the framework's own
  std::string framework;             // --framework bridge | megatron-lm
  std::string bridge_recipe;         // --bridge-recipe NAME
  std::string name;                  // --name: job name
  std::string dataset;               // --dataset
  int64_t train_iters = 0;           // --train-iters
  std::vector<std::string> env;      // --env NAME=VALUE, repeatable (added to the recipe's)
  std::vector<std::string> extra;    // words after `--`: extra Hydra overrides or Megatron-LM flags
  std::string workdir;               // --workdir
  bool probe = false;                // --probe
  int master_port = 29500;           // --master-port

  SlurmSettings slurm;       // --partition --account --time --slurm-output --container-image
                             // --container-mounts --no-gres
  std::string k8s_operator;  // --operator pytorchjob | jobset
  std::string image;         // --image
  std::string k8s_namespace; // --namespace

  std::string out_dir;  // -o DIR; empty = stdout
  bool force = false;   // --force: replace existing files
  // --ignore-memory: write the launch even when the estimate says the layout does not fit (a
  // warning instead of the refusal; the memory model can be wrong for a stack it does not know).
  bool ignore_memory = false;
};

int run_launch(const LaunchOptions& opts, const Context& ctx);

}  // namespace rb::cli
