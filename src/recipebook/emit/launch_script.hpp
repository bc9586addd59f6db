// Internal to the launch renderers: the bash building blocks the script targets share
// (launch_shell.cpp defines them). Not for use outside emit/launch_*.cpp.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "recipebook/emit/launch.hpp"

namespace rb {

// A Megatron-LM argument list holds this word where the model's shape arguments go when recipebook
// cannot write them (a hybrid GDN / Mamba model): the script defines MODEL_ARGS=() for the user.
inline constexpr std::string_view kModelArgsWord = "\"${MODEL_ARGS[@]}\"";
// Words written as they are, never quoted (kModelArgsWord).
bool is_raw_word(std::string_view word);

// validate_spec plus what the spec's framework needs to write its entry point: a Bridge recipe name,
// or (Megatron-LM) the whole layout, the sequence length and the global batch.
Result<void> check_entry(const LaunchSpec& spec);
// What check_entry asks of each framework: the spec's values against the entry point's table
// (entry_points.hpp), the model it trains, the mode and dataset (launch_bridge.cpp, launch_megatron.cpp).
Result<void> check_bridge_entry(const LaunchSpec& spec);
Result<void> check_megatron_entry(const LaunchSpec& spec);
// The entry point's script, relative to the folder the command runs in.
std::string_view entry_script(const LaunchSpec& spec);
// Lines that stop the script with a message when the entry point is not in the working folder (no
// single quotes: they fit in bash -c '...'); none for a probe, which runs no training.
std::vector<std::string> entry_guard_lines(const LaunchSpec& spec);
// "# Warning: ..." lines for what the user did not give: the working folder (and, for Slurm, the
// container image), each saying what the script assumes instead.
std::string missing_settings_comment(const LaunchSpec& spec, bool container_target, bool has_image);

// torchrun's rendezvous flags, read from NNODES, NODE_RANK, GPUS_PER_NODE, MASTER_ADDR, MASTER_PORT.
std::string torchrun_rendezvous_args();
// "TP2 PP1 CP1 EP8 ETP1 DP4 SP" for headers and the draft.
std::string layout_label(const LaunchSpec& spec);

void append_header(std::string& out, const LaunchSpec& spec, std::string_view target);
void append_env(std::string& out, const LaunchSpec& spec);  // the `export` block, or nothing
// NAME=( one flag and its values per line ).
void append_args_array(std::string& out, std::string_view name, const std::vector<std::string>& args);
// MODEL_ARGS=() with the reason, for a Megatron-LM model whose shape flags recipebook cannot write;
// else the comment naming the model's numerics that the arguments do not carry (megatron_numerics).
void append_model_args_note(std::string& out, const LaunchSpec& spec);
// Per-module precision (launch_quant.cpp): Megatron-LM's TE quantization config (the text of the
// file --te-precision-config-file reads) and the script's comment with it; for Bridge, a warning
// where the layout's module lists are not the recipe's (run_recipe.py cannot set them).
std::string te_precision_config(const Layout& l);
std::string module_precision_note(const LaunchSpec& spec);

// The model's numerics as pretrain_gpt.py arguments (launch_megatron_numerics.cpp): `args` for what
// the source gave and the flags can say, `notes` for each value not known or not expressible (the
// script's comment), `position_type` for --position-embedding-type (yarn for a non-MLA YaRN model).
struct MegatronNumerics {
  std::vector<std::string> args;
  std::vector<std::string> notes;
  std::string position_type;
  std::vector<std::string> activation;  // the MLP activation's flags (--swiglu, --squared-relu, ...)
};
MegatronNumerics megatron_numerics(const Model& m);
// The environment pretrain_gpt.py asserts on, added to spec.env when absent: CUDA_DEVICE_MAX_CONNECTIONS=1
// for TP or CP > 1 before Blackwell (launch_megatron.cpp).
void add_megatron_env(LaunchSpec& spec);

// A one-node-at-a-time bash script: env, rendezvous, TRAIN_ARGS, then `<launcher> <rendezvous>
// "${TRAIN_ARGS[@]}"` (or the probe).
std::string render_shell_script(const LaunchSpec& spec, const std::vector<std::string>& launcher,
                                std::string_view target);

}  // namespace rb
