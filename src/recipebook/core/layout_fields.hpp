// The layout fields in one table: for each field of Layout a user can set, its JSON key and flag,
// its --help text, its type, where it lives in Layout and in LayoutFlags, its path in a recipe
// record, its Megatron-Bridge override key and Megatron-LM flag, and what `plan` does with it.
// The flags of estimate, plan and launch (apps/recipebook/main.cpp), the JSON readers (estimate
// --batch lines, the serve API, `launch plan.json`: emit/layout_flags.cpp) and the launch writers
// (emit/launch_*.cpp) all read their spellings from here.
//
// The recipe for adding a layout option is at the top of layout_fields.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "recipebook/core/layout.hpp"
#include "recipebook/core/result.hpp"

namespace rb {

// The layout as a user gives it in flags (or a batch line, or a plan entry): every field optional,
// applied over a Layout that holds the defaults or a recipe's values. Named values (precision,
// recompute, ...) stay text until applied, so their errors name the flag. `estimate`, `plan` and
// `launch` read their layout this way, so a flag means the same in each.
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
  std::optional<int> distributed_optimizer_instances;  // HSDP / partial distributed optimizer
  std::string dispatcher;         // alltoall | allgather | deepep | hybridep
  std::string cp_comm_type;       // p2p | a2a | allgather (CP > 1)
  std::string optimizer;          // adam | muon
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
  // The loss and dropout (Layout's last four members).
  std::optional<bool> cross_entropy_loss_fusion;
  std::string cross_entropy_fusion_impl;  // te | native
  std::optional<double> hidden_dropout, attention_dropout;
  // Decoder layers kept in BF16 at the start and the end under FP8/FP4 (first_last_layers_bf16).
  std::optional<int> bf16_layers_at_start, bf16_layers_at_end;
  // GEMM modules run in BF16 / in MXFP8 inside the quantized layers (a quantization recipe).
  std::string bf16_modules, mxfp8_modules;

  // TE's fused grouped expert MLP (use_transformer_engine_op_fuser) and FP8 core attention.
  std::optional<bool> fused_grouped_mlp, fp8_attention;
  std::optional<bool> fp4_param_gather;  // under NVFP4 (on by default, as Bridge's bf16_with_nvfp4_mixed)

  [[nodiscard]] bool any() const;
};

enum class FieldKind {
  kInt,   // a number: --tp 2, "tp": 2
  kBool,  // a switch: --sp / --no-sp, "sp": true
  kText,  // a named value or a list: --precision fp8_cs, "precision": "fp8_cs"
  kNumber,  // a real number (a share 0..1): --optimizer-offload-fraction 0.5, "optimizer_offload_fraction": 0.5
};

// The smallest value an int flag takes on the command line (CLI11 checks it; wider ranges are
// resolve_setup's, which names the GPU count).
enum class FieldMin { kAny, kZero, kOne };

// What `plan` does with a field.
enum class PlanRole {
  kFixed,     // plan takes the same flag, and every layout it searches has that value
  kSearched,  // plan searches it and has its own flag for it (a list, "any", 0 = searched)
  kDerived,   // the search derives it from what it searches (SP from TP, the split from PP and VP)
};

// The planner's search dimensions, in the order it enumerates them, outermost first
// (search/walk.cpp). kPipeline is PP, VP and the stage split (and DP, derived from TP, CP and PP).
// Each row names the dimension that sets its field in every layout the planner tries (kNone: the
// request's base layout gives it); each rule names the fields it reads (rules/rule_table.cpp), so
// the level the planner evaluates a rule at follows from the two tables (search/rule_levels.hpp).
enum class SearchDim : uint8_t {
  kPrecision,
  kTp,
  kCp,
  kPipeline,
  kEp,
  kEtp,
  kDispatcher,
  kRecompute,
  kFsdp,
  kMbs,
  kNone
};
inline constexpr int kNumSearchDims = 10;

inline constexpr uint32_t dim_bit(SearchDim d) { return d == SearchDim::kNone ? 0u : 1u << static_cast<uint32_t>(d); }

// One value of a searched field, as plan's flags read it and the search's Constraints keep it
// (search/space.hpp): an int field's value, 0 or 1 for a switch, the enum's number for a named
// field (Precision, Dispatcher), a recompute option's kind and modules (recompute_value).
using SearchValue = int64_t;
// Selective with modules 0 is "every selective option the search tries" (search/space.cpp).
constexpr SearchValue recompute_value(Recompute kind, uint32_t modules) {
  return static_cast<SearchValue>((static_cast<uint64_t>(kind) << 32) | modules);
}
constexpr Recompute recompute_value_kind(SearchValue v) { return static_cast<Recompute>(static_cast<uint64_t>(v) >> 32); }
constexpr uint32_t recompute_value_modules(SearchValue v) { return static_cast<uint32_t>(static_cast<uint64_t>(v)); }

// When a layout's JSON (emit/layout_json.cpp) shows a field that is in force.
enum class FieldShown {
  kAlways,   // every layout has it: "tp": 1
  kWhenSet,  // only when it is not Layout's default ("tp_comm_overlap": true)
};

struct LayoutField {
  std::string_view key;   // JSON key; the flag is "--" + key with dashes (flag_name)
  FieldKind kind;
  std::string_view help;  // --help text of estimate and launch
  FieldMin min;
  // Where a given value is kept (one of the three, by kind).
  std::optional<int> LayoutFlags::*given_int;
  std::optional<bool> LayoutFlags::*given_bool;
  std::string LayoutFlags::*given_text;
  // Where it lands in Layout: a plain int or bool member, else `text_of` spells the Layout's value
  // and `apply` parses the text into it (its error names the flag).
  int Layout::*int_member;
  bool Layout::*bool_member;
  std::string (*text_of)(const Layout&);
  Result<void> (*apply)(const LayoutFlags&, Layout&);
  std::string_view yaml;      // the recipe record's path (catalog/recipe_layout.cpp), "" = none
  std::string_view bridge;    // Megatron-Bridge ConfigContainer override key, "" = not one-to-one
  std::string_view megatron;  // Megatron-LM pretrain_gpt.py flag, "" = not one-to-one
  PlanRole plan;
  // kNumber's: where a given value is kept and where it lands in Layout.
  std::optional<double> LayoutFlags::*given_number;
  double Layout::*number_member;
  // The planner's dimension that sets it (kNone for the fields it keeps at the request's value).
  SearchDim search = SearchDim::kNone;
  // Whether the field means anything in `l` (nullptr: always): recompute_layers only with full
  // recompute, the first/last stage counts only without an explicit layout. A field that does not
  // is left out of the layout's JSON and of `flags_text`.
  bool (*in_force)(const Layout& l) = nullptr;
  // Whether estimate takes `l`'s value when the flag is not given, so `flags_text` leaves it out
  // (nullptr: when it is Layout's default).
  bool (*implied)(const Layout& l) = nullptr;
  FieldShown shown = FieldShown::kAlways;
  // A searched field plan has a flag of its own for ("" = none: the planner derives it, or another
  // row's flag covers it, as --recompute covers the module list): the flag's --help text, the reader
  // of its text into the values plan may choose (nullptr: by kind, degrees "2" / "2,4" or a switch's
  // any | on | off), the setter of one value into a Layout (nullptr: by kind, the member), and the
  // text when the flag is not given ("" = the search's own list).
  std::string_view plan_help;
  Result<std::vector<SearchValue>> (*plan_values)(std::string_view text) = nullptr;
  void (*set_value)(Layout& l, SearchValue v) = nullptr;
  std::string_view plan_default;
};

// Every row, in the order flags are listed in --help and in `flags_text`.
std::span<const LayoutField> layout_fields();
// The row of `key` (JSON key "first_stage_layers" or flag "--first-stage-layers"), or nullptr.
const LayoutField* find_layout_field(std::string_view key);
// The row of `key`, which must be one (a program error otherwise: std::logic_error).
const LayoutField& layout_field(std::string_view key);
// "--first-stage-layers".
std::string flag_name(const LayoutField& f);
// The field's value in `l` as a flag or JSON value spells it ("2", "true", "fp8_cs").
std::string field_text(const LayoutField& f, const Layout& l);
// Whether `f` means anything in `l` (its in_force).
bool field_in_force(const LayoutField& f, const Layout& l);
// The search dimensions of the fields named in `keys` ("tp,etp"; "dp" is DP, derived from TP, CP and
// PP): the bits dim_bit() sets. nullopt when a name is neither a row's key nor "dp".
std::optional<uint32_t> search_dims_of(std::string_view keys);
// Whether `f` was given in `flags`.
bool field_given(const LayoutField& f, const LayoutFlags& flags);

// Whether plan takes a flag of its own for `f` (a searched field with plan_help).
inline bool plan_searches(const LayoutField& f) { return !f.plan_help.empty(); }
// The values plan's flag `text` for `f` allows, in the search's order without repeats: empty =
// "any" (the search's own list; also "" and, for a degree, 0). Errors name the flag.
Result<std::vector<SearchValue>> read_plan_values(const LayoutField& f, std::string_view text);
// Sets `f` to search value `v` in `l`.
void set_search_value(const LayoutField& f, Layout& l, SearchValue v);

// Sets each flag of `f` that is unset to its value in `from` (flags given on the command line win
// over those of a plan entry).
void fill_unset(LayoutFlags& f, const LayoutFlags& from);

// `l`'s value of every field each searched layout keeps at the request's (PlanRole::kFixed: the
// overlaps, CUDA graphs, optimizer, loss, ...) where it is not Layout's default, as the flags that
// set it: a search around a recipe compares its layout with layouts of the same stack.
LayoutFlags fixed_features(const Layout& l);

// Applies the flags that are set over `l`. `from_flags_only`: SP defaults to TP > 1 (seed 004);
// over a recipe, SP stays the recipe's unless TP moves away from 1 (or to 1).
Result<void> apply_layout_flags(const LayoutFlags& f, Layout& l, bool from_flags_only);

}  // namespace rb
