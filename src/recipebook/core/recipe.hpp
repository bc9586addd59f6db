// A recipe record as typed values: what `list`, `show`, `recommend` and `launch` read. The record's
// full text (every field, with positions) stays in the catalog's YAML tree; `check` works on that.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "recipebook/core/layout.hpp"
#include "recipebook/core/result.hpp"

namespace rb {

enum class RecipeKind { kLibrary, kPerformance, kVerified, kMeasured };

inline const char* recipe_kind_name(RecipeKind k) {
  switch (k) {
    case RecipeKind::kLibrary: return "library";
    case RecipeKind::kPerformance: return "performance";
    case RecipeKind::kVerified: return "verified";
    case RecipeKind::kMeasured: return "measured";
  }
  return "library";
}

// One measured throughput figure attached to a recipe (a row of a published performance table, a
// verification card, or a run of our own turned into a record by `calibrate`).
struct Measurement {
  std::string release;  // e.g. "26.04.01", "card (nvcr.io/nvidia/nemo:26.06)"
  std::string source;   // file@commit it was read from
  bool current = true;  // false for SUPERSEDED / DRAFT rows: kept, not calibrated on
  bool benchmark = true;  // false: a run on a dataset whose tokens per step are not stated (not calibrated on)
  int gpus = 0;
  std::string gpu;        // GPU catalog name
  std::string precision;  // as published
  int64_t gbs = 0;
  int64_t mbs = 0;
  int64_t seq = 0;
  int tp = 0, pp = 0, cp = 0, vp = 0, ep = 0, etp = 0, fsdp = 0;  // 0 = not published
  double tokens_per_s_per_gpu = 0;
  double model_tflops_per_gpu = 0;  // 0 = not published
  std::string notes;
  // What the run set that its recipe record does not (`layout_overrides`: the settings of the run's
  // own release, scripts/gen_catalog.py MEASURED_RUN_SETTINGS), applied over the recipe's layout by
  // measured_run (catalog/measured_points.hpp). Unset: the recipe's.
  struct LayoutOverrides {
    std::optional<Recompute> recompute;
    std::optional<RecomputeMethod> recompute_method;
    std::optional<int> recompute_layers;
    std::optional<uint32_t> recompute_modules;
    std::optional<int> cpu_offload_layers;
    std::optional<uint32_t> offload_modules;  // with fine_grained_offload false: 0
    std::optional<double> activation_offload_fraction;
    // The dispatcher the run's release ran where it is not the record's: the recorded alltoall on a
    // release before the flex switch, flex on one from it (catalog/recipe_layout.hpp release_dispatcher).
    std::optional<Dispatcher> dispatcher;
    std::optional<CudaGraph> cuda_graph;          // with cuda_graph_scope: the run's CUDA graphs
    std::optional<uint32_t> cuda_graph_scope;
    std::optional<bool> ep_a2a_overlap;           // overlap_moe_expert_parallel_comm of the run
    // The micro batch the run's release config set where the published column disagrees with it
    // (`rows_per_microbatch`); wins over the measurement's published `mbs`.
    std::optional<int> mbs;
    std::optional<bool> fused_grouped_mlp;        // use_transformer_engine_op_fuser (TE fused grouped MLP)
    std::optional<bool> fp8_attention;            // fp8_dot_product_attention of the run
  } overrides;
};

// When a record gives its whole layout: TP, PP and CP, and EP for a MoE model (a dense one has none
// to give: the generated Bridge records leave it out), or it runs on one GPU (every degree 1,
// written or not). Recipe::layout_known (from the parsed record) and `check`'s record_layout_known
// (from its tree, a doubted field counted as given) both ask this.
constexpr bool whole_layout_given(bool tp, bool pp, bool cp, bool ep, bool moe, bool one_gpu) {
  return one_gpu || (tp && pp && cp && (ep || !moe));
}

struct Recipe {
  std::string name;  // unique in the catalog
  RecipeKind kind = RecipeKind::kLibrary;
  Mode mode = Mode::kPretrain;
  std::string model;  // model reference as written (catalog name, alias or HF id)
  std::string gpu;    // GPU reference as written
  int gpus = 0;
  int gpus_per_node = 0;
  std::string framework;    // "megatron-bridge", "slime", ...
  std::string entry_point;  // the recipe function or script
  std::string extends;      // base recipe name, or empty
  std::string source;       // where the record's facts come from
  std::string status;       // "verified", "draft", ... (seed 002's `status`)

  bool layout_known = false;  // whole_layout_given (else `layout` holds defaults)
  // TP, PP and CP were given: the whole layout of a dense model, which has no EP to give (the
  // generated Bridge records leave it out); link_recipe_model sets layout_known from it.
  bool dense_layout_given = false;
  Layout layout;
  // `features.pipeline_layout` is a phrase ("set in code by set_deepseek_v3_pipeline_model_parallel_
  // layout"): the Bridge recipe function builds a layout string for its own PP and VP that the
  // catalog does not know (`layout` has none). A launch with another pipeline clears it.
  bool pipeline_layout_in_code = false;
  // `features.flex_backend` as recorded (deepep or hybridep), whatever `layout.dispatcher` says.
  std::optional<Dispatcher> flex_backend;
  // The recipe function itself ends with Megatron-Bridge's apply_flex_dispatcher_backend (its
  // `helpers`: the Qwen3 MoE, DeepSeek-V3, Qwen3-Next and Step-3.5 H100 library recipes), so it runs
  // the flex dispatcher where the GPU supports its backend, as a performance record does.
  bool applies_flex_backend = false;
  // `layout.dispatcher` as the record writes it. `layout.dispatcher` is the one the record runs:
  // a Megatron-Bridge performance record's alltoall with a flex backend runs flex
  // (catalog/recipe_layout.hpp record_dispatcher); a launch through Bridge keeps the recorded one.
  Dispatcher dispatcher_recorded = Dispatcher::kAlltoall;
  // `layout.etp` was given. An omitted one reads as 1 until the catalog links the model, which sets
  // Megatron's default for a MoE model (catalog/recipe_layout.hpp link_recipe_model).
  bool etp_recorded = false;
  // The CUDA-graph scope was given as `full` (the whole layer): the catalog narrows it to the layer
  // kinds the model has once linked.
  bool cuda_graph_whole_layer = false;
  int64_t seq = 0;
  int64_t gbs = 0;
  ImageBudget image;  // the `vision:` block of a VLM recipe (max_pixels 0 = none recorded)
  bool precision_known = false;

  std::optional<double> tokens_per_s_per_gpu;  // result.tokens_per_s_per_gpu
  std::optional<double> mfu;
  std::optional<double> usd_per_million_tokens;
  std::vector<Measurement> measurements;

  std::map<std::string, std::string> env;
  std::string notes;
  std::vector<std::string> pitfalls;  // rule ids the record declares apply to it

  Where where;  // the file (and line of the record) it was loaded from; "builtin:..." for embedded
};

// The ETP of a layout that gives none (no --etp, and a record, if any, that omits it): Megatron's
// default for the degrees as given (layout.hpp default_etp): Megatron-Bridge's for a Bridge record,
// Megatron-Core's (TP) for flags alone or another framework's record. A dense model has no experts
// to split: 1. The catalog (recipe_layout.cpp link_recipe_model), `estimate` (layout_args.cpp
// resolve_setup) and `launch` (emit/launch_spec.cpp build_launch_spec) all apply it, so the ETP
// launch writes is the one its memory check estimated.
inline void apply_unset_etp(Layout& l, bool moe, bool etp_given, const Recipe* record) {
  if (etp_given || (record != nullptr && record->etp_recorded)) return;
  if (!moe) {
    l.etp = 1;
    return;
  }
  const bool bridge = record != nullptr && record->framework == "megatron-bridge";
  l.etp = default_etp(l, bridge ? EtpDefault::kMegatronBridge : EtpDefault::kMegatronCore);
}

}  // namespace rb
