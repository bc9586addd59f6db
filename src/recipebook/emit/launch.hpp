// `recipebook launch`: what runs a recipe on the engines people already use. A LaunchSpec (built
// from a catalog recipe, a plan entry or layout flags) is rendered for one target:
//   bridge       Megatron-Bridge scripts/training/run_recipe.py with Hydra overrides (launch_bridge.cpp)
//   megatron-lm  Megatron-LM pretrain_gpt.py arguments (launch_megatron.cpp)
//   torchrun     one node, either framework (launch_shell.cpp)
//   slurm        an sbatch script: one srun task per node, torchrun rendezvous (launch_slurm.cpp)
//   k8s          a Kubeflow PyTorchJob or a JobSet manifest (launch_k8s.cpp)
//   recipe       a recipe draft in the catalog's format (launch_recipe.cpp)
//
// To add a target: add it to LaunchTarget and the two name functions in launch_shell.cpp, write
// render_<target> in its own launch_<target>.cpp, dispatch it in render_launch, and add a structural
// test beside it (the output parses, names only known keys or flags).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "recipebook/catalog/training_log.hpp"
#include "recipebook/core/layout.hpp"
#include "recipebook/core/model.hpp"
#include "recipebook/core/recipe.hpp"
#include "recipebook/core/result.hpp"

namespace rb {

enum class LaunchTarget { kBridge, kMegatronLm, kTorchrun, kSlurm, kK8s, kRecipe };
enum class Framework { kBridge, kMegatronLm };
enum class K8sOperator { kPyTorchJob, kJobSet };

std::optional<LaunchTarget> parse_launch_target(std::string_view s);  // bridge | megatron-lm | ...
std::string_view launch_target_name(LaunchTarget t);
std::optional<Framework> parse_framework(std::string_view s);  // bridge | megatron-bridge | megatron-lm
std::string_view framework_name(Framework f);                  // "megatron-bridge" | "megatron-lm"
std::optional<K8sOperator> parse_k8s_operator(std::string_view s);  // pytorchjob | jobset

struct SlurmSettings {
  std::string partition;         // #SBATCH --partition (empty: the cluster's default)
  std::string account;           // #SBATCH --account
  std::string time_limit;        // #SBATCH --time, e.g. "04:00:00"
  std::string output;            // #SBATCH --output pattern; empty: "<name>-%j.out"
  std::string container_image;   // pyxis --container-image on srun
  std::string container_mounts;  // pyxis --container-mounts on srun
  bool gres = true;              // request the GPUs (--gpus-per-node); off for GPU-less probes
};

struct K8sSettings {
  K8sOperator op = K8sOperator::kPyTorchJob;
  std::string image;      // container image (required)
  std::string ns;         // metadata.namespace; empty: none written
};

// Everything a launch needs, as plain values. `layout.dp` is derived (gpus / (tp pp cp)).
struct LaunchSpec {
  std::string name;  // job name and the draft's recipe name
  Framework framework = Framework::kBridge;
  std::string bridge_recipe;  // the Megatron-Bridge recipe function `--recipe` names
  // The --recipe is a Megatron-Bridge benchmark (performance) recipe: run_recipe.py rejects --dataset
  // for it (the recipe owns its data) and weak-scales its batch (recipe_metadata.py).
  bool bridge_benchmark = false;
  // The Hugging Face id or local config folder of the model to train when it is not the Bridge
  // recipe's own model. Rendering refuses it unless run_recipe.py and the recipe take `hf_path`
  // (entry_points.hpp bridge_hf_path_recipes: none do at the table's commit), so that no command
  // trains another model than the one asked for.
  std::string hf_path;
  std::string source_recipe;  // the catalog recipe the spec came from ("" for layout flags)
  std::string base_recipe;    // the catalog recipe the training starts from (the source, or the
                              // Bridge recipe run_recipe.py runs); "" for plain Megatron-LM
  // The catalog recipe a draft may `extends` (the Bridge recipe the launch starts from), when
  // inheriting from it cannot change the draft: it has no result or measurements of its own, and
  // every field it sets the draft sets too. Empty: the draft stands alone.
  std::string draft_extends;
  std::string model;          // model reference as the user or the recipe wrote it
  std::optional<Model> model_ir;  // the architecture, for Megatron-LM's model arguments
  std::string gpu;                // GPU catalog name
  Mode mode = Mode::kPretrain;
  int gpus = 0;
  // GPUs per node: the one source of every node shape a renderer writes (nodes(), procs_per_node():
  // sbatch --nodes / --gpus-per-node, GPUS_PER_NODE and so torchrun's --nproc_per_node,
  // nvidia.com/gpu and replicas). 0 = not known (validate_spec refuses it); build_launch_spec fills
  // it from --gpus-per-node, else the target GPU's node.
  int gpus_per_node = 0;

  Layout layout;
  bool layout_given = true;     // every degree and feature is known (else only batch/seq are emitted)
  bool precision_given = true;  // layout.precision is known
  // Run the layout rules before rendering. Off for a catalog record whose layout the catalog does
  // not count as fully recorded (as `check` does) when no layout flag changes it.
  bool check_rules = true;
  // The Bridge recipe's own recorded settings: features equal to these are not overridden (the
  // recipe sets them already), so an imprecise catalog field never changes a shipped recipe.
  std::optional<Layout> base;
  // The base recipe's function builds its own pipeline layout string (Recipe::pipeline_layout_in_code),
  // which `base` does not hold: a launch with another PP, VP or stage split clears it.
  bool base_layout_in_code = false;

  int64_t seq = 0;  // 0 = the recipe's own
  int64_t gbs = 0;  // 0 = the recipe's own
  int64_t train_iters = 0;
  // Bridge: a run_recipe.py --dataset preset (bridge_dataset chooses one). Megatron-LM: "mock" or the
  // --data-path prefix. Empty: the recipe's own data (Bridge) / mock data (Megatron-LM).
  std::string dataset;

  // The base record's known_issues (rule id, note) that hold for this launch (it keeps the record's
  // pipeline): the rules accept them, and the recipe draft carries them.
  std::vector<std::pair<std::string, std::string>> known_issues;
  std::vector<std::pair<std::string, std::string>> env;  // exported before Python starts, in order
  std::vector<std::string> extra_args;  // appended verbatim: Hydra overrides or Megatron-LM flags
  std::string workdir;                  // cd here before launching; empty = stay

  bool probe = false;  // print the rendezvous and exported env instead of training
  int master_port = 29500;
  SlurmSettings slurm;
  K8sSettings k8s;

  [[nodiscard]] int nodes() const {
    return gpus_per_node > 0 ? (gpus + gpus_per_node - 1) / gpus_per_node : 1;
  }
  [[nodiscard]] int procs_per_node() const { return gpus < gpus_per_node ? gpus : gpus_per_node; }
};

// Consistency of the spec itself (not the layout rules, which live in rules/): GPU count, node
// split, degrees that divide the GPUs, a name. Returns the first problem.
Result<void> validate_spec(const LaunchSpec& spec);

// --- the pieces each target is built from ---------------------------------------------------------

// Megatron-Bridge: the Hydra overrides (KEY=VALUE, unquoted) and the run_recipe.py arguments.
std::vector<std::string> bridge_overrides(const LaunchSpec& spec);
std::vector<std::string> bridge_args(const LaunchSpec& spec);  // run_recipe.py --recipe ... overrides
// Megatron-Bridge's named mixed-precision recipe for a precision (training/mixed_precision.py;
// REFERENCES.md D): "bf16_mixed", "bf16_with_mxfp8_mixed", ...
std::string_view bridge_precision_recipe(Precision p);
// run_recipe.py's --mode for a mode ("pretrain", "sft", "lora" for PEFT).
std::string_view bridge_mode_name(Mode m);
// The run_recipe.py --dataset a recommendation or a launch uses when the user names none: `recorded`
// (the record's workload.dataset.name) when it is a preset; none for a benchmark recipe (it owns its
// data) or a vision-language pretraining recipe (its own mock multimodal data); else mock data for
// pretraining, SQuAD for text fine-tuning and CORD-v2 for a vision-language model (presets of
// recipes/utils/dataset_utils.py). "" = pass no --dataset.
std::string bridge_dataset(Mode mode, const Model& model, const Recipe& recipe, std::string_view recorded = {});

// Every Hydra key bridge_overrides may emit (Megatron-Bridge ConfigContainer fields, REFERENCES.md D/E).
std::span<const std::string_view> bridge_override_keys();

// Megatron-LM: pretrain_gpt.py and its arguments. The model's shape arguments come from model_ir;
// a model pretrain_gpt.py flags cannot describe (GDN, Mamba hybrids) gets none (see megatron_model_args).
std::vector<std::string> megatron_args(const LaunchSpec& spec);
// Model-shape arguments, or nullopt with the reason when the model is missing or not expressible.
Result<std::vector<std::string>> megatron_model_args(const LaunchSpec& spec);
// Every flag megatron_args may emit (megatron/training/arguments.py), for tests.
std::span<const std::string_view> megatron_flags();
// The layout pretrain_gpt.py runs for `l`: Megatron-LM refuses Transformer Engine's fused cross
// entropy (arguments.py validate_args, "disabled due to stability issues"), so a fused loss runs
// Megatron-Core's native one (fusions/fused_cross_entropy.py). megatron_args writes this layout and
// launch estimates its memory (4n + 2 bytes of logits per token and vocab entry, not TE's 2n:
// docs/model.md "Last rank").
Layout megatron_lm_layout(Layout l);
// The script's comment on what megatron_lm_layout changed ("" when nothing).
std::string megatron_lm_layout_note(const Layout& l);
// Whether pretrain_gpt.py trains what the spec's mode asks: pretraining only. An error naming the
// target and the fix (Megatron-Bridge) for PEFT and SFT; check_megatron_entry applies it.
Result<void> check_megatron_mode(const LaunchSpec& spec);

// The training entry point and its arguments for the spec's framework (bridge_args or megatron_args).
std::vector<std::string> entry_args(const LaunchSpec& spec);

// --- rendered targets -------------------------------------------------------------------------------

Result<std::string> render_bridge(const LaunchSpec& spec);     // a bash script
Result<std::string> render_megatron(const LaunchSpec& spec);   // a bash script
Result<std::string> render_torchrun(const LaunchSpec& spec);   // a bash script, one node only
Result<std::string> render_slurm(const LaunchSpec& spec);      // an sbatch script
Result<std::string> render_k8s(const LaunchSpec& spec);        // a YAML manifest
Result<std::string> render_recipe_draft(const LaunchSpec& spec);  // a catalog recipe record (YAML)
Result<std::string> render_launch(LaunchTarget t, const LaunchSpec& spec);

// The file name `-o DIR` writes a target to: "<name>.bridge.sh", "<name>.sbatch", "<name>.pytorchjob.yaml", ...
std::string launch_file_name(LaunchTarget t, const LaunchSpec& spec);

// --- recipe records: the draft's `result` (launch_recipe.cpp) ------------------------------------

// The `result:` block of a recipe record (seed 002's field names) from a calibration, ending in "\n".
std::string render_result_block(const Calibration& c);
// `text` with its top-level `result:` block (the `result:` line at column 0 and the indented or
// blank lines under it) replaced by `block`, or `block` appended when there is none. Every other
// line, comments included, is kept as it was.
std::string with_result_block(std::string_view text, std::string_view block);

// --- shell helpers shared by the script targets (launch_shell.cpp) --------------------------------

// A word for bash: left bare when it has only safe characters, else single-quoted.
std::string shell_quote(std::string_view word);
// True for an env value that is a shell expression to evaluate at run time, e.g. seed 002's
// NCCL_NVLS_ENABLE=$([ "$NVLINK_COUNT" -gt 0 ] && echo 1 || echo 0).
bool is_shell_expression(std::string_view value);
// `export NAME=value` with the value quoted so that a shell expression is evaluated and a literal is not.
std::string export_line(const std::string& name, const std::string& value);
// Bash lines that print the rendezvous variables, each env var as the process sees it and the
// command that would have run (`RB_PROBE ...`, `RB_PROBE_ENV NAME=value`, `RB_PROBE_CMD ...`).
// They use no single quotes, so they fit in bash -c '...'.
std::vector<std::string> probe_lines(const LaunchSpec& spec, std::string_view command);

}  // namespace rb
