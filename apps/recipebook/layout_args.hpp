// The flags that describe one training setup (model, GPUs, workload, layout), shared by `estimate`,
// `launch` and the JSON Lines of `estimate --batch`, and their resolution against the catalog into
// the estimator's value types. Every error names the flag (or JSON key) it is about.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/core/hardware.hpp"
#include "recipebook/core/layout.hpp"
#include "recipebook/core/model.hpp"
#include "recipebook/core/result.hpp"

namespace rb::cli {

struct LayoutArgs {
  std::string model;
  std::string gpu;
  int gpus = 0;
  int gpus_per_node = 0;
  std::string mode = "pretrain";
  int64_t seq = 4096;
  int64_t gbs = 0;
  int mbs = 1;
  int tp = 1, pp = 1, vp = 1, cp = 1, ep = 1, etp = 0;  // etp 0 = Megatron's default (= TP)
  int first_stage_layers = 0, last_stage_layers = 0;     // uneven pipeline split; 0 = uniform
  bool fsdp = false;
  std::optional<bool> sp;  // default: on when TP > 1 (seed 004, resizing rule 5)
  std::string precision = "bf16";
  std::string recompute = "none";  // none | selective | full
  std::string recompute_modules;   // comma list for selective
  int recompute_layers = 1;        // for full
  std::string dispatcher = "alltoall";
  std::string cuda_graph = "none";
  bool distributed_optimizer = true;
  bool precision_aware_optimizer = false;
  double tokens = 0;  // token budget for GPU-hours and days
  int lora_rank = 16;
};

struct Setup {
  Model model;
  Hardware hardware;
  Workload workload;
  Cluster cluster;
  Layout layout;
};

// Resolves names against the catalog and checks each value's range. Errors name the flag as
// `--flag` (or, with `json_keys`, as the JSON key "flag_name").
Result<Setup> resolve_setup(const LayoutArgs& a, const Catalog& catalog, bool json_keys = false);

// Reads one JSON object with the same keys as the flags (dashes as underscores) over `defaults`.
// An unknown key or a wrong type is an Error naming the key (with the nearest known key).
Result<LayoutArgs> layout_args_from_json(const nlohmann::json& j, const LayoutArgs& defaults = {});

}  // namespace rb::cli
