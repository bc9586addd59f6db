// Internal to recipe_yaml: reading a record's `layout` and `features` into Recipe::layout.
#pragma once

#include "recipebook/catalog/yaml_read.hpp"
#include "recipebook/core/model.hpp"
#include "recipebook/core/recipe.hpp"

namespace rb {

// Fills rec.layout (all but precision) and rec.layout_known; `gpus` is gpu.count (0 = unknown), for dp.
void read_layout(YamlReader& r, const YNode& doc, int gpus, Recipe& rec);

// A measurement's `layout_overrides` (at `path`, e.g. "measurements[2]"): the settings the run used
// that its recipe record does not, each unset where the entry does not give it.
Measurement::LayoutOverrides read_layout_overrides(YamlReader& r, const YNode* measurement, const std::string& path);

// The dispatcher a Megatron-Bridge record runs, from its recorded `dispatcher` (read statically from
// the recipe's moe_token_dispatcher_type) and `features.flex_backend`. Bridge runs the flex
// dispatcher whenever a recipe sets moe_flex_dispatcher_backend to deepep or hybridep on a MoE
// model: from 0.4.0 (NeMo 26.04; docs/releases/software-versions.md) its
// scripts/performance/utils/overrides.py set_workload_base_configs calls apply_flex_dispatcher_backend
// with the workload's backend and sets alltoall otherwise (#2837, cherry-picked into r0.4.0 as
// bde8388ed, 2026-04-03; tags v0.4.0 to v0.6.0 hold it, v0.3.1 does not); main's run_recipe.py does the
// same in utils.py finalize_config_overrides (cce495373). So a record with `alltoall` and a backend
// ran flex in those releases (the verification cards too, run on 26.06 and later containers).
// Earlier releases chose per model and GPU in their scripts (25.09 run_script.py: DeepEP for
// DeepSeek-V3 on H100 only): their measurements keep the record's dispatcher. DeepEP falls back to
// alltoall on GB200/GB300 (training/flex_dispatcher_backend.py apply_flex_dispatcher_backend: DeepEP
// only on sm80/sm90 and devices named B200/B300).
constexpr int kFlexBackendAppliedFrom = 2604;  // YYMM of NeMo 26.04
std::optional<int> release_yymm(const std::string& release);  // "26.04.01", "card (...nemo:26.08.rc5)" -> 2604, 2608

// What the record runs on `gpu` (a catalog GPU name) with the release `yymm` (nullopt: Bridge main,
// the release a performance record's own layout is read from). A record other than a Bridge one with
// a recorded alltoall and a backend runs its recorded dispatcher. Its own layout (Recipe::layout, what
// estimate, check, recommend, plan --recipe and the Megatron-LM launch use) is this on its own GPU for
// a performance record (scripts/performance runs it) and for a library record whose recipe function
// calls apply_flex_dispatcher_backend itself (Recipe::applies_flex_backend, e.g. Bridge
// recipes/qwen/h100/qwen3_moe.py: "moe_token_dispatcher_type may be overridden by
// apply_flex_dispatcher_backend at the end"); another library record keeps its recorded one.
Dispatcher record_dispatcher(const Recipe& rec, std::string_view gpu, std::optional<int> yymm = std::nullopt);
// The dispatcher the record's own layout runs on `gpu`: record_dispatcher for a performance record or
// one whose recipe function applies the flex backend itself (the code decides per GPU), else the
// recorded one. What a record's layout holds on its own GPU, and on another GPU for estimate and launch.
Dispatcher own_dispatcher(const Recipe& rec, std::string_view gpu);
// The dispatcher a measured run used where it is not the record's layout's: the run's release and
// GPU, as record_dispatcher; a run of no known release keeps the recorded dispatcher.
std::optional<Dispatcher> release_dispatcher(const Recipe& rec, const Measurement& m);
// Sets the record's layout dispatcher (a performance record's, record_dispatcher on its GPU) and then
// every measurement's overrides.dispatcher (where its own layout_overrides give none).
void apply_release_dispatchers(Recipe& rec);

// What a record's layout takes from its model once the catalog links the two (after `extends`):
// an ETP the record omits becomes Megatron's default for a MoE model (core/layout.hpp default_etp,
// Megatron-Bridge's for a Bridge record) and stays 1 for a dense one; a CUDA-graph scope given as
// `full` keeps the modules of the layer kinds the model has (Megatron-Core's whole-layer graph).
// Nothing changes for a model without an architecture.
void link_recipe_model(Recipe& rec, const Model& m);

}  // namespace rb
