// The flags that describe one training setup (model, GPUs, workload, layout), shared by `estimate`,
// `launch` and the JSON Lines of `estimate --batch`, and their resolution against the catalog into
// the estimator's value types. Every error names the flag (or JSON key) it is about.
// With `--recipe NAME` (a batch line's "recipe") the catalog record is the starting point: its
// model, GPU, GPU count, mode, sequence, batch and whole layout (features included), each replaced
// by the flag (or key) that gives it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/core/hardware.hpp"
#include "recipebook/core/layout.hpp"
#include "recipebook/core/model.hpp"
#include "recipebook/core/result.hpp"
#include "recipebook/emit/layout_flags.hpp"
#include "recipebook/estimate/memory.hpp"
#include "recipebook/rules/check_layout.hpp"

namespace rb::cli {

struct LayoutArgs {
  std::string recipe;  // catalog recipe name (exact): the values every unset field takes
  std::string model;
  std::string gpu;
  int gpus = 0;
  int gpus_per_node = 0;
  std::string mode;  // "" = the recipe's, else pretrain
  int64_t seq = 0;   // 0 = the recipe's, else 4096 (search/resize.hpp kDefaultSeq)
  int64_t gbs = 0;
  // The image budget of a VLM run (core/layout.hpp ImageBudget); 0 = the recipe's, else none / 1 / no graph.
  int64_t max_pixels = 0;
  int images_per_sample = 0;
  int64_t vision_graph_patches = 0;
  // The layout, as `launch` takes it (apply_layout_flags); what is unset keeps the recipe's value,
  // else Layout's default: degrees 1 (ETP: TP for a MoE model), micro batch 1, SP when TP > 1,
  // bf16, no recompute, alltoall, no CUDA graphs, distributed optimizer.
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
  std::string recipe;              // the recipe it started from, "" for flags only
  std::vector<std::string> notes;  // what the recipe left open and how it was filled
};

// Resolves names against the catalog and checks each value's range. Errors name the flag as
// `--flag` (or, with `json_keys`, as the JSON key "flag_name"). With a recipe: the record resolved
// (`extends` applied), its layout as the estimator models it (Megatron-Bridge's in-code split of
// layers its PP does not divide: search/resize.hpp modelled_layout; bf16 when it names no
// precision), the record's node shape on its own GPU only; an unknown name (with "did you mean"), a
// model without an architecture or a GPU without figures is an error naming the recipe and why.
Result<Setup> resolve_setup(const LayoutArgs& a, const Catalog& catalog, bool json_keys = false);

// The layout rules' input for a setup: its model, GPU, workload, cluster and layout, no record facts
// (what `estimate` checks; `check` and `launch` add a record's).
RuleInput rule_input(const Setup& s);

// The flags that spell `l` out (estimate over them gives the same figures), leaving out each flag
// whose value estimate takes without it and each that means nothing beside the others (the rows'
// `implied` and `in_force`, core/layout_fields.hpp): "--tp 1 --pp 4 --ep 32 --mbs 2 ... --cuda-graph
// full_iteration".
std::string flags_text(const Layout& l);
// Only the flags of the fields every searched layout keeps (PlanRole::kFixed: overlaps, CUDA graphs,
// optimizer, loss, ...) where `l` is not at Layout's default: "--tp-comm-overlap --cuda-graph local".
std::string fixed_flags_text(const Layout& l);
// The same, followed by the image budget's flags when there is one (--max-pixels, and
// --images-per-sample / --vision-graph-patches where they are not the defaults).
std::string flags_text(const Layout& l, const ImageBudget& image);

// Applies `--headroom` (parse_memory_headroom) to `hw`; the error names `flag_name`.
std::optional<Error> apply_headroom(const std::string& text, Hardware& hw, const std::string& flag_name = "--headroom");

// A JSON body (an `estimate --batch` line, a serve request): its value, or every error at once:
// the syntax error with its line and column, or each key an object repeats (nlohmann keeps the last
// one silently: "tp": 4, "tp": 8 estimated TP 8; a recipe's YAML refuses a duplicate key too).
tl::expected<nlohmann::json, std::vector<Error>> parse_json_body(std::string_view text);

// Reads one JSON object with the same keys as the flags (dashes as underscores) over `defaults`.
// Every unknown key, wrong type or value out of range is an Error naming its key (an unknown one
// with the nearest known key), all of them at once.
tl::expected<LayoutArgs, std::vector<Error>> layout_args_from_json(const nlohmann::json& j, const LayoutArgs& defaults = {});

}  // namespace rb::cli
