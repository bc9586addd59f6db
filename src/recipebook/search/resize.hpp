// Resizing a catalog recipe's layout to the user's cluster and sequence length with seed 004's
// "Parallelism Resizing Rules" and "Batch Size Tuning" advice, one reasoned change at a time.
// Pure: the estimator judges memory; nothing is read or printed here.
//
// The steps, in order (each records a Change with its reason and rule):
//   1. precision: the one asked for, else the recipe's; a format the GPU lacks falls back.
//   2. sequence -> CP (rule 6, "long context"): CP such that seq / CP stays near the recipe's.
//   3. TP validity (rules 1, 2): TP divides the heads and KV groups, stays inside NVLink, <= GPUs.
//   4. GPU count (rule 7): when TP·PP·CP does not divide the GPUs, the smaller degrees that do are
//      estimated and the one that fits with the highest throughput is kept.
//   5. EP (rule 4, Megatron-Core parallel_state): EP·ETP divides TP·CP·DP (the GPUs of one stage).
//   6. VP (rule 3) when PP changed; SP whenever TP > 1 (rule 5); DP implicit; GBS kept and made a
//      multiple of MBS·DP (x PP when interleaved).
//   7. memory: while the estimate does not fit, MBS -> 1 (batch advice), EP up for MoE (rule 4),
//      TP up (rule 3: before PP), CP up for long context, PP up with VP (rule 3), then activation
//      recompute (Megatron's; not a seed 004 rule).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "recipebook/core/hardware.hpp"
#include "recipebook/core/layout.hpp"
#include "recipebook/estimate/estimate.hpp"
#include "recipebook/estimate/prepared.hpp"
#include "recipebook/rules/prepared.hpp"

namespace rb {

// One change from the recipe, with why.
struct Change {
  std::string field;   // tp, pp, vp, cp, ep, etp, dp, sp, mbs, gbs, seq, precision, recompute, mode, layout
  std::string from;    // "8", "off", "bf16"
  std::string to;
  std::string reason;  // "the cluster has 4 GPUs per node and TP should stay inside NVLink"
  std::string rule;    // "seed 004 rule 2", "seed 004 batch advice", ... (may be empty)

  // "TP 8 -> 4: the cluster has 4 GPUs per node and TP should stay inside NVLink (seed 004 rule 2)"
  [[nodiscard]] std::string text() const;
};

// The recipe as recorded.
struct ResizeFrom {
  Layout layout;              // dp is ignored
  bool layout_known = true;   // false: start from TP1 PP1 CP1 EP1
  bool ep_known = true;       // false (MoE): the record does not give EP; start from EP 1
  bool precision_known = true;
  Mode mode = Mode::kPretrain;
  int gpus = 0;               // 0 = unknown
  int64_t seq = 0;            // 0 = unknown
  int64_t gbs = 0;            // 0 = unknown
};

// What the user has and wants.
struct ResizeTo {
  int gpus = 0;
  int gpus_per_node = 0;  // 0 = the hardware's
  Mode mode = Mode::kPretrain;
  int64_t seq = 0;  // 0 = the recipe's (4096 when the recipe has none)
  int64_t gbs = 0;  // 0 = the recipe's
  std::optional<Precision> precision;
  int lora_rank = 16;
};

struct ResizeInputs {
  const PreparedModel* model = nullptr;      // required, with an architecture
  const PreparedRuleModel* rules = nullptr;  // prepared with the same model and hardware
  const Hardware* hardware = nullptr;        // required, with specs
};

struct Resized {
  Layout layout;    // what runs; dp set
  Layout modelled;  // what the estimate and the rules saw (modelled_layout of `layout`)
  Workload workload;
  Cluster cluster;
  Estimate estimate;
  std::vector<Change> changes;
  std::vector<std::string> notes;  // assumptions (a default sequence, an unknown batch, ...)
  [[nodiscard]] bool fits() const { return estimate.fits(); }
};

// The default sequence when neither the user nor the recipe gives one.
inline constexpr int64_t kDefaultSeq = 4096;
// Micro batches per DP rank when neither the user nor the recipe gives a global batch.
inline constexpr int kDefaultMicrobatches = 8;
// Seed 004 decision tree: "> 8K -> need CP".
inline constexpr int64_t kLongContextSeq = 8192;

Resized resize(const ResizeInputs& in, const ResizeFrom& from, const ResizeTo& to);

// GPUs that share NVLink for this cluster: the hardware's domain, cut at the node when the domain
// is one node (the same reading as the rules' RuleContext::nvlink_domain).
int nvlink_limit(const Hardware& hw, int gpus_per_node);

// Whether a GPU can run a precision: a dense peak for its class, MXFP8 and NVFP4 on Blackwell or newer.
bool precision_supported(const Hardware& hw, Precision p);

// The VP that seed 004 rule 3 asks for with PP > 1: the valid VP (layers per stage divisible) whose
// chunks are nearest to 4 layers, or 1 when no VP > 1 divides.
int choose_vp(const PreparedRuleModel& rules, int pp);

// The layout as the estimator and the rules can see it: a PP > 1 whose layers the layout does not
// split evenly (and gives no first/last-stage counts for) gets the balanced uneven split of
// search/space.hpp stage_split, with VP lowered until such a split exists. Recipes whose source
// splits uneven layer counts in code (Megatron-Bridge's account_for_embedding/loss_in_pipeline_split)
// are modelled this way; the layout that runs is unchanged.
Layout modelled_layout(int layers, Layout l);

// The smallest multiple of `unit` nearest to `gbs` (at least `unit`).
int64_t round_batch(int64_t gbs, int64_t unit);

}  // namespace rb
