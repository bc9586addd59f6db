// How the decoder layers fall onto pipeline stages, as Megatron-Core checks it
// (transformer_config.py, Bridge models/gpt_provider.py; REFERENCES.md C.9):
//   - uniform: (layers + account_for_embedding + account_for_loss) % PP == 0;
//   - num_layers_in_first/last_pipeline_stage: each set end > 0, and the middle layers divide
//     evenly over the PP - (set ends) middle stages;
//   - an explicit pipeline_model_parallel_layout (Layout::pipeline_layout): Megatron-Core's
//     validate_layer_layout (core/pipeline_layout.hpp), its message in `layout_error`; a layout
//     given only as a setting string is not read here.
// With VP > 1 every stage's layer count must also divide by VP.
#pragma once

#include <string>

#include "recipebook/rules/prepared.hpp"

namespace rb {

struct PipelineSplit {
  bool known = false;     // the model has layers and the split is not an explicit layout
  bool ok = true;         // PP divides the layers as configured
  bool vp_ok = true;      // every stage's layer count divides by VP
  int per_stage = 0;      // layers on a middle stage (uniform: total / pp); 0 if not integral
  int total = 0;          // layers counted for the split (with account_for_* additions)
  int first = 0;          // first-stage layers when set, else per_stage
  int last = 0;           // last-stage layers when set, else per_stage
  bool uneven = false;    // first/last stage counts are set
  bool explicit_layout = false;  // Layout::pipeline_layout is set (known stays false)
  std::string layout_error;      // why that layout does not fit the model or the pipeline; empty = fits
};

PipelineSplit pipeline_split(const RuleContext& ctx);

// How the planner splits the layers over PP x VP stages when the uniform split does not work:
// first/last pipeline-stage layer counts, or Megatron-Core's embedding/loss accounting (the
// embedding and/or the loss counted as one layer of the first/last virtual stage). All zero / false:
// uniform. Megatron-Core refuses the two kinds together (transformer_config.py), so at most one is set.
struct StageSplit {
  int first = 0;
  int last = 0;
  bool account_for_embedding = false;
  bool account_for_loss = false;

  [[nodiscard]] bool any() const { return first > 0 || last > 0 || account_for_embedding || account_for_loss; }
  bool operator==(const StageSplit&) const = default;
};

// The split for PP and VP: uniform when VP divides L / PP; otherwise the most balanced
// num_layers_in_first/last_pipeline_stage split (Megatron-Core transformer_config.py) whose stage
// counts all divide by VP: the middle stages get m layers, the two ends share the rest, the
// smaller part on the first stage (it holds the most micro-batches in flight). Among such splits it
// minimises the largest stage, then prefers lighter ends. When none exists (with VP > 1 whenever VP
// does not divide L), the embedding/loss accounting of accounted_split. Uniform (which the rules
// then reject) when neither exists.
StageSplit stage_split(int layers, int pp, int vp);

// Megatron-Core's account_for_embedding/loss_in_pipeline_split for PP and VP, if one fits:
// transformer_config.py requires (L + accounted) % PP == 0 and ((L + accounted) / PP) % VP == 0,
// i.e. PP x VP divides L + accounted; transformer_layer.py get_transformer_layer_offset and
// transformer_block.py then give every virtual stage (L + accounted) / (PP x VP) layers, the first
// (embedding) and last (loss) virtual stages one decoder layer less each. Both when L + 2 divides,
// else the loss alone when L + 1 does (the output layer and the loss cost more than the embedding
// lookup, so the last stage is the one to lighten). Uniform ({}) when neither divides or PP is 1.
StageSplit accounted_split(int layers, int pp, int vp);

// Sets the layout's split fields (first/last stage counts and both accounting switches) to `s`;
// stage_split_of reads them back.
void apply_stage_split(Layout& l, const StageSplit& s);
StageSplit stage_split_of(const Layout& l);

// The layout's split as the plan table shows it: "even", "14+2x16+15" (first + middle stages x
// layers + last), "16+16" (PP 2), or "E+L as layers" / "L as a layer" / "E as a layer" (accounting).
std::string stage_split_str(int layers, const Layout& l);
// The same in words, for notes: "first 6 and last 7 stage layers", "the embedding and the loss
// counted as layers (account_for_embedding/loss_in_pipeline_split)", "an even split".
std::string stage_split_words(const Layout& l);

}  // namespace rb
