// `recommend`'s matching: which catalog recipe is the closest start for a user's model, GPUs and
// goal (seed 004 "Recommendation Decision Tree": the model's own recipe, else the closest size;
// the mode's recipe; then the GPU), and how two layouts differ, in words. Pure: the CLI turns
// catalog entries into RecipeCandidates and prints what comes back.
//
// The order (lexicographic, lower is better; MatchScore):
//   1. model: the same model, else the same family by nearest parameter count, else a model of the
//      same kind (dense or MoE) by nearest size, else any model by size; another model's recipe of
//      the same modality (text, or vision-language) first;
//   2. mode: the same mode (pretrain / sft / peft) first;
//   3. GPU: the same GPU, else the nearest by memory and generation (gpu_distance);
//   4. precision: the one asked for (bf16 when none is asked);
//   5. sequence: the recipe's sequence nearest the one asked (<= 8K when none is asked);
//   6. a command that runs today (a verification card may name a recipe Megatron-Bridge renamed);
//   7. a recorded layout; 8. GPU count nearest the user's (a recipe for the asked count outranks a
//   measured one of another count: its layout needs no resizing); 9. measured throughput;
//   10. no special-purpose variant; then the shorter name (the plain recipe), then the name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "recipebook/core/layout.hpp"
#include "recipebook/core/recipe.hpp"
#include "recipebook/rules/gpu_arch.hpp"

namespace rb {

enum class ModelMatch { kSame = 0, kFamily = 1, kSameKind = 2, kOther = 3 };
std::string_view model_match_name(ModelMatch m);  // same | family | same-kind | other

// A model as matching sees it.
struct ModelFacts {
  std::string name;    // catalog name ("" for a config.json the catalog does not know)
  std::string family;  // Hugging Face model_type
  double params = 0;   // total parameters; 0 = unknown
  int moe = -1;        // 1 MoE, 0 dense, -1 unknown
  bool has_architecture = false;
  bool vision = false;  // a vision-language model (or its recipes are)
};

// A GPU as matching sees it.
struct GpuFacts {
  std::string name;           // catalog name
  double memory_bytes = 0;    // 0 = no specs
  GpuArch arch = GpuArch::kUnknown;
  int nvlink_domain = 0;
};

// One catalog recipe, reduced to what matching reads.
struct RecipeCandidate {
  std::string name;
  RecipeKind kind = RecipeKind::kLibrary;
  Mode mode = Mode::kPretrain;
  std::string framework;
  ModelFacts model;
  GpuFacts gpu;
  int gpus = 0;
  int64_t seq = 0;                      // 0 = not recorded
  std::optional<Precision> precision;   // nullopt = not recorded
  bool layout_known = false;
  bool runnable = true;                 // its entry point is a current recipe (or it records its own command)
  bool measured = false;                // a result or a current measurement
  bool variant = false;                 // a special-purpose variant (deterministic, fsdp, mock, ...)
};

struct MatchRequest {
  ModelFacts model;
  Mode mode = Mode::kPretrain;
  GpuFacts gpu;
  int gpus = 0;
  int64_t seq = 0;  // 0 = the default (recipes at <= 8K preferred)
  std::optional<Precision> precision;
};

struct MatchScore {
  ModelMatch model = ModelMatch::kOther;
  bool modality_differs = false;  // a vision-language recipe for a text model, or the reverse
  double size_distance = 0;   // |ln(params ratio)|; 0 for the same model
  bool mode_differs = false;
  double gpu_distance = 0;
  bool precision_differs = false;
  double seq_distance = 0;    // |log2(seq ratio)|
  bool not_runnable = false;
  bool layout_unknown = false;
  double count_distance = 0;  // |log2(GPU count ratio)|
  bool unmeasured = false;
  bool variant = false;

  friend bool operator==(const MatchScore&, const MatchScore&) = default;
};

// Lexicographic, in the order of the fields.
bool score_less(const MatchScore& a, const MatchScore& b);

struct RankedRecipe {
  size_t index = 0;  // into the candidates
  MatchScore score;
};

// A size for models without an architecture: total parameters unknown, the distance is this.
inline constexpr double kUnknownSizeDistance = 5.0;

MatchScore match_score(const MatchRequest& req, const RecipeCandidate& c);
// Every candidate, best first (ties: shorter name, then name).
std::vector<RankedRecipe> rank_recipes(const MatchRequest& req, const std::vector<RecipeCandidate>& cands);
// Why this candidate, one phrase per criterion: "same model", "nearest GPU: h100 (80 GB, Hopper)", ...
std::vector<std::string> match_reasons(const MatchRequest& req, const RecipeCandidate& c, const MatchScore& s);

// Distance between two GPUs for matching: 0 for the same GPU; otherwise |ln(memory ratio)| (1 when
// either has no figure) + 0.5 per generation apart + 0.25 when one is an NVL72 rack and the other not
// + 2 across vendors.
double gpu_distance(const GpuFacts& want, const GpuFacts& have);

// "TP2 PP4 VP5 CP2 EP1 DP4 MBS1 SP, bf16, recompute none" (the fields a reader compares).
std::string layout_summary(const Layout& l);
// The fields in which `a` differs from `b`, as "TP 2 vs 1" (a's value first), in layout order.
std::vector<std::string> layout_differences(const Layout& a, const Layout& b);

}  // namespace rb
