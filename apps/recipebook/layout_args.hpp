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
#include "recipebook/emit/layout_flags.hpp"
#include "recipebook/estimate/memory.hpp"

namespace rb::cli {

struct LayoutArgs {
  std::string model;
  std::string gpu;
  int gpus = 0;
  int gpus_per_node = 0;
  std::string mode = "pretrain";
  int64_t seq = 4096;
  int64_t gbs = 0;
  // The layout, as `launch` takes it (apply_layout_flags); what is unset keeps Layout's default:
  // degrees 1 (ETP: TP for a MoE model), micro batch 1, SP when TP > 1, bf16, no recompute,
  // alltoall, no CUDA graphs, distributed optimizer.
  LayoutFlags layout;
  double tokens = 0;  // token budget for GPU-hours and days
  int lora_rank = 16;
  std::string headroom{kDefaultHeadroom};  // --headroom: GiB or % of the GPU's memory left free
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

// Applies `--headroom` (parse_memory_headroom) to `hw`; the error names `flag_name`.
std::optional<Error> apply_headroom(const std::string& text, Hardware& hw, const std::string& flag_name = "--headroom");

// Reads one JSON object with the same keys as the flags (dashes as underscores) over `defaults`.
// An unknown key or a wrong type is an Error naming the key (with the nearest known key).
Result<LayoutArgs> layout_args_from_json(const nlohmann::json& j, const LayoutArgs& defaults = {});

}  // namespace rb::cli
