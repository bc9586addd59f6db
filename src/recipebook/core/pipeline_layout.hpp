// Megatron-Core's explicit pipeline layout (`pipeline_model_parallel_layout`,
// megatron/core/transformer/pipeline_parallel_layer_layout.py, PipelineParallelLayerLayout):
// a string of virtual pipeline stages separated by `|`, each a run of layer letters:
//   E embedding, t transformer (decoder) layer, m multi-token-prediction layer, L loss;
//   `x*n` repeats one letter (or `|`) n times, `(...)*n` repeats a group; commas are cosmetic.
// Example: "Et*3|(tt|)*29,m|L". Stage i (0-based, in string order) is virtual stage
// i = chunk * PP + rank, so the string holds PP x VP stages and VP = stages / PP.
// Parsing and validation are ours (same grammar and checks as Megatron-Core's from_str and
// validate_layer_layout); errors name the 1-based column of the offending character.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "recipebook/core/result.hpp"

namespace rb {

// What one virtual pipeline stage builds.
struct PipelineStage {
  int decoder = 0;  // `t`
  int mtp = 0;      // `m`
  bool embedding = false;  // `E`
  bool loss = false;       // `L` (the output layer and the loss)

  bool operator==(const PipelineStage&) const = default;
};

inline constexpr int kMaxLayoutStages = 512;       // as estimate/stages.hpp kMaxVirtualStages
inline constexpr int64_t kMaxLayoutLayers = 100'000;  // letters after expansion

// Parses a layout string into its stages. Grammar errors (an unknown letter, `(` without `)*n`,
// nested groups, `*` without a count, too many stages or layers) fail with Where::col set.
Result<std::vector<PipelineStage>> parse_pipeline_layout(std::string_view text);

// Megatron-Core's checks against the model and the pipeline size: the stage count divides by PP
// (VP = stages / PP; when `vp` > 0 it must equal that), E first and L last exactly once, the `t`
// count equals `num_layers`, the `m` count equals `mtp_layers` and all MTP layers sit together
// after every decoder layer, in the last chunk of a rank.
Result<void> validate_pipeline_layout(const std::vector<PipelineStage>& stages, int pp, int vp, int num_layers,
                                      int mtp_layers);

// The layout as a string Megatron-Core parses back to the same stages: runs of equal stages
// folded as `(|...)*n`, runs of `t` as `t*n` ("Et*3|(|t*2)*29|mL").
std::string pipeline_layout_str(const std::vector<PipelineStage>& stages);

// A balanced layout for `stages` = PP x VP virtual stages: the embedding counts as one layer of the
// first stage, the loss and the MTP layers (kept with it, as Bridge's helpers do) as layers of the
// last, and the decoder layers fill every stage to the same load, the remainder going to the middle
// stages first. Empty when a stage would need fewer than no decoder layers.
std::vector<PipelineStage> balanced_pipeline_layout(int num_layers, int stages, int mtp_layers);

// Decoder layers over all stages.
int pipeline_layout_decoders(const std::vector<PipelineStage>& stages);

}  // namespace rb
