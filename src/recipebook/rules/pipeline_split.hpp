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

// First/last pipeline-stage layer counts for an uneven split (0, 0 = uniform).
struct StageSplit {
  int first = 0;
  int last = 0;
};

// The split for PP and VP: uniform when VP divides L / PP; otherwise the most balanced
// num_layers_in_first/last_pipeline_stage split (Megatron-Core transformer_config.py) whose stage
// counts all divide by VP: the middle stages get m layers, the two ends share the rest, the
// smaller part on the first stage (it holds the most micro-batches in flight). Among such splits it
// minimises the largest stage, then prefers lighter ends. Uniform (which the rules then reject) when
// none exists.
StageSplit stage_split(int layers, int pp, int vp);

}  // namespace rb
