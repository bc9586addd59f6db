// The layout as a user gives it in flags (or a batch line, or a plan entry): every field optional,
// applied over a Layout that holds the defaults or a recipe's values. `estimate` and `launch` both
// read their layout this way, so a flag means the same in each.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "recipebook/core/layout.hpp"
#include "recipebook/core/result.hpp"

namespace rb {

// Layout flags; unset ones keep the recipe's (or plan entry's) value, or Layout's default.
struct LayoutFlags {
  std::optional<int> tp, pp, vp, cp, ep, etp, mbs;
  std::optional<int> first_stage_layers, last_stage_layers;  // uneven pipeline split
  std::optional<bool> sp, fsdp, distributed_optimizer, precision_aware_optimizer, ep_a2a_overlap, tp_comm_overlap;
  std::optional<bool> grad_reduce_in_fp32, account_for_embedding, account_for_loss;
  std::string precision;          // bf16 | fp8_cs | fp8_ds | fp8_blockwise | mxfp8 | nvfp4
  std::string recompute;          // none | selective | full
  std::string recompute_modules;  // core_attn,moe_act (selective)
  std::string recompute_method;   // uniform | block (full)
  std::optional<int> recompute_layers;
  std::string dispatcher;         // alltoall | allgather | deepep | hybridep
  std::string cuda_graph;         // none | transformer_engine | local | full_iteration
  std::string cuda_graph_scope;   // attn,moe_router,...
  std::optional<int> cpu_offload_layers;
  // Host offload (docs/model.md "Offload"): --optimizer-offload-fraction (0 = off), --offload-modules
  // (fine-grained activation offloading; "none" turns a recipe's off), --activation-offload-fraction.
  std::optional<double> optimizer_offload_fraction, activation_offload_fraction;
  std::string offload_modules;
  // Megatron-Core pipeline_model_parallel_layout ("Et*3|t*4|t*4|t*3L"); "none" drops a recipe's.
  // Sets VP to stages / PP unless --vp is given.
  std::string pipeline_layout;

  [[nodiscard]] bool any() const;
};

// The JSON keys of the layout flags: each flag's name with underscores (`--first-stage-layers` is
// "first_stage_layers"), as `estimate --batch` lines and `plan --json` layouts spell them.
const std::vector<std::string>& layout_flag_keys();

// Reads `value` into the flag that `key` names: false when `key` is not a layout flag; an Error
// naming the key when the value has the wrong JSON type or does not fit an int.
Result<bool> read_layout_flag(const std::string& key, const nlohmann::json& value, LayoutFlags& f);

// Sets each flag of `f` that is unset to its value in `from` (flags given on the command line win
// over those of a plan entry).
void fill_unset(LayoutFlags& f, const LayoutFlags& from);

// Applies the flags that are set over `l`. `from_flags_only`: SP defaults to TP > 1 (seed 004);
// over a recipe, SP stays the recipe's unless TP moves away from 1 (or to 1).
Result<void> apply_layout_flags(const LayoutFlags& f, Layout& l, bool from_flags_only);

}  // namespace rb
