// Record facts: what a recipe record says beyond the model, the GPUs, the workload and the layout,
// which some rules need (env vars, kernels, patches, stack versions, framework settings, the rest
// of the catalog). A planner candidate has none of these; every kRecord rule stays silent when its
// facts are absent. docs/rules.md ("Filling RuleInput from a record") maps each field to its
// record key.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rb {

struct KeyValue {
  std::string key;
  std::string value;
};

// Versions as the record writes them ("2.10.0", "0.4.1 (flash-linear-attention)",
// "commit 1dcf0daf (megatron-core 0.16.0rc0)"); empty = not pinned.
struct StackVersions {
  std::string megatron_core;       // stack.megatron_core, else stack.megatron_lm
  std::string transformer_engine;  // stack.transformer_engine
  std::string fla;                 // stack.fla
  std::string triton;              // stack.triton
};

struct VisionFacts {
  int64_t max_pixels = 0;              // vision.max_pixels: image budget per image; 0 = unknown
  int64_t cuda_graph_max_patches = 0;  // vision.cuda_graph_max_patches; 0 = no vision graph cap
  int images_per_sample = 1;           // vision.images_per_sample
};

// Another recipe of the catalog, for the name-collision check.
struct CatalogRecipeRef {
  std::string name;
  std::string entry_point;
  std::string kind;  // library | performance | verified | measured
};

struct RecordFacts {
  std::string name;           // name
  std::string framework;      // framework: megatron-bridge | megatron-lm | slime | ...
  std::string entry_point;    // entry_point
  std::string launch_script;  // the script the record's `run` starts; empty = the framework's default
  std::string dataset;        // workload.dataset.name (or run_recipe.py --dataset)
  bool packed_sequences = false;   // features.packed_sequences
  int fsdp_version = 1;            // features.fsdp_version: 1 = Megatron-FSDP, 2 = Megatron-FSDP v2
  int mtp_layers = -1;             // features.mtp_layers; -1 = the model's own count
  bool explicit_pipeline_layout = false;  // features.pipeline_layout is an explicit layout string

  std::vector<KeyValue> env;        // env: exported before Python starts
  std::vector<KeyValue> env_gates;  // features.env_gates: env vars a library reads once at import
  std::vector<std::string> kernels;  // features.kernels: kernel backends selected (cudnn_gdn, ...)
  std::vector<std::string> patches;  // patches: runtime patches imported by every process
  StackVersions stack;
  VisionFacts vision;
  // features.settings: framework settings the layout does not model, by their Megatron name
  // (cp_comm_type, moe_shared_expert_overlap, check_for_nan_in_loss, ...). A YAML list value is
  // stored comma-joined ("a2a,p2p" or "2,4").
  std::vector<KeyValue> settings;

  std::vector<std::string> extends_chain;  // names of the bases, nearest first
  std::vector<CatalogRecipeRef> catalog;   // other catalog recipes the record's names may collide with

  [[nodiscard]] bool empty() const;
};

// Lookups (case-sensitive keys, as Megatron spells them).
const std::string* find_value(const std::vector<KeyValue>& kv, std::string_view key);
const std::string* setting(const RecordFacts& f, std::string_view key);
// true/false/1/0/yes/no (case-insensitive); nullopt when absent or not a boolean.
std::optional<bool> setting_bool(const RecordFacts& f, std::string_view key);
std::optional<int64_t> setting_int(const RecordFacts& f, std::string_view key);
// A list setting: "[a, b]", "a,b" or "a b" split into trimmed, unquoted items.
std::vector<std::string> setting_list(const RecordFacts& f, std::string_view key);
// Splits a list value the same way.
std::vector<std::string> split_list(std::string_view value);

// The first dotted version number in a text ("commit 1dcf0daf (megatron-core 0.16.0rc0)" gives
// {0, 16, 0}; "3.6.0" gives {3, 6, 0}); empty when there is none.
std::vector<int> parse_version(std::string_view text);
// -1, 0 or 1 comparing two parsed versions (missing components count as 0).
int compare_versions(const std::vector<int>& a, const std::vector<int>& b);

}  // namespace rb
