// The training entry points recipebook writes commands for, each as a table of the arguments it
// accepts (flag, value kind, choices), read from the entry point's source at a named commit, and a
// checker that holds an argument list to that table. Every command a launch renderer writes (and
// the one `recommend` prints, built by the same renderers) is checked against it: in the tests for
// every catalog recipe, and at render time for the values a user gave (--dataset, the model).
//
// Why a C++ table and not a YAML file under catalog/: the tables describe programs, not recipes; the
// renderers and the checker need them with no catalog loaded (unit tests build specs by hand), and
// a compiled table cannot drift from the flag words the renderers spell (both are reviewed in one
// diff). The source file and commit of each table are in entry_points.cpp, beside the rows.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "recipebook/core/result.hpp"

namespace rb {

enum class ArgValue {
  kNone,     // a switch: store_true / store_false
  kInt,      // type=int
  kFloat,    // type=float
  kText,     // a string (a path, a name, a Megatron pattern such as "[1,0,1]")
  kChoice,   // one of `choices`
  kChoices,  // nargs='+', each one of `choices`
  kTexts,    // nargs='*' or '+', free strings
};

struct EntryArg {
  std::string_view flag;   // the long spelling recipebook writes, e.g. "--dataset"
  std::string_view alias;  // another spelling argparse accepts ("-sl", "--dry_run"); "" when none
  ArgValue value = ArgValue::kNone;
  std::span<const std::string_view> choices = {};
};

struct EntryPoint {
  std::string_view script;  // the word the command names, e.g. "scripts/training/run_recipe.py"
  std::string_view source;  // "owner/repo@commit:path" the table was read from
  std::span<const EntryArg> args;
  // Trailing KEY=VALUE words (Megatron-Bridge's Hydra overrides on the ConfigContainer), and the keys
  // recipebook itself writes (ConfigContainer fields, src/megatron/bridge/training/config.py).
  bool overrides = false;
  std::span<const std::string_view> override_keys = {};
};

// Megatron-Bridge scripts/training/run_recipe.py.
const EntryPoint& run_recipe_entry();
// Megatron-LM pretrain_gpt.py (its parser is megatron/training/arguments.py); only the arguments
// recipebook writes are listed, not the whole parser.
const EntryPoint& pretrain_gpt_entry();
// Megatron-Bridge scripts/performance/run_script.py (its parser: scripts/performance/argument_parser.py):
// the benchmark launcher the published performance figures were measured with. recipebook writes no
// run_script.py command; the table lets a check recognise one (and the arguments shared with it).
const EntryPoint& run_script_entry();

const EntryArg* find_arg(const EntryPoint& e, std::string_view flag);  // by flag or alias
bool has_choice(const EntryArg& a, std::string_view value);

// `words` (the script, then its arguments, as the process gets them) against `e`: every flag is in
// the table and has values of its kind and among its choices; for an entry point with overrides,
// every other word is KEY=VALUE, and with `known_keys` its key is one recipebook writes. Words
// recipebook leaves to the user (the Megatron-LM "${MODEL_ARGS[@]}" placeholder) are skipped. The
// error names the word and what the entry point accepts.
Result<void> check_entry_words(const EntryPoint& e, std::span<const std::string> words, bool known_keys);

// --- what Megatron-Bridge accepts, as data -------------------------------------------------------

// The run_recipe.py --dataset presets (DATASET_PRESETS), and which training loop each needs:
// "pretrain", "finetune", or "" for either (energon). dataset_utils.py dataset_train_mode.
std::string_view bridge_dataset_train_mode(std::string_view preset);
// Presets that build a vision-language (direct-HF) dataset and need a VLM recipe.
bool bridge_dataset_is_vlm(std::string_view preset);
// The Bridge recipe functions that take a `hf_path` argument run_recipe.py forwards (empty at the
// table's commit: every recipe builds its own model; see entry_points.cpp).
std::span<const std::string_view> bridge_hf_path_recipes();

}  // namespace rb
