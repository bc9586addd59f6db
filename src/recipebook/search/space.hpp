// The planner's search space: what `plan` may choose for each dimension of a layout, and what the
// user fixed. Both the pruned search (planner.cpp) and the brute-force reference (brute_force.cpp)
// enumerate exactly these lists, so "seen" means the same thing in both.
//
// For one GPU count N, a model with L decoder layers and E routed experts (docs/plan.md):
//   precision  the requested list (default bf16)
//   TP         divisors of N                     (SP is on whenever TP > 1, as Megatron-Bridge sets it)
//   CP         divisors of N / TP
//   CP exchange p2p, a2a when CP > 1 (Layout::cp_comm; allgather only when asked)
//   PP         divisors of N / (TP CP)           DP = N / (TP CP PP) is derived
//   VP         1 when PP = 1, else 1 .. L / PP   (the pipeline split is a function of PP and VP:
//                                                 uniform when it divides, else stage_split())
//   EP         divisors of E (1 for a dense model)
//   ETP        divisors of TP (1 for a dense model)
//   dispatcher alltoall, flex-hybridep when EP > 1 (DeepEP only when fixed); alltoall when EP = 1
//   recompute  recompute_options(model)
//   FSDP       off, on
//   MBS        1 .. max_mbs (default 16)
// What the user allows for a field (Constraints, by the layout field's key) narrows its list to
// those values: one fixes it (TP, CP, PP only when they divide what is left of N; EP, ETP, VP and
// MBS as given), a list keeps those of it; a fixed DP keeps the PP that gives it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "recipebook/core/layout.hpp"
#include "recipebook/core/layout_fields.hpp"
#include "recipebook/core/model.hpp"
#include "recipebook/rules/pipeline_split.hpp"  // StageSplit, stage_split

namespace rb {

enum class Objective {
  kThroughput,  // tokens/s per GPU, higher is better
  kCost,        // USD per million tokens (GPU-hours per million tokens when the GPU has no price)
  kTime,        // days to the token budget (seconds per token when no budget is given)
};

std::string_view objective_name(Objective o);
std::optional<Objective> parse_objective(std::string_view s);

// One activation-recompute choice.
struct RecomputeOption {
  Recompute kind = Recompute::kNone;
  uint32_t modules = 0;  // kSelective: the recompute_modules bit set (never 0)
};

// "none", "selective(core_attn)", "selective(core_attn,layernorm,moe_act)", "full".
std::string recompute_option_name(const RecomputeOption& o);

// The options the planner tries for a model: none; selective with Megatron's default (core_attn);
// selective with the extra modules that free memory on this model (layernorm always, mla_up_proj
// with MLA layers, moe_act with MoE layers, gdn_norm_out with Gated DeltaNet layers); full (uniform,
// one layer per checkpoint: the least activation memory).
std::vector<RecomputeOption> recompute_options(const Model& m);

// Sets the recompute fields of `l` from an option (full: uniform, one layer per checkpoint).
void apply_recompute(Layout& l, const RecomputeOption& o);

// What the user fixed or narrowed.
struct Constraints {
  // The values the search may choose for each searched layout field, by the field's key
  // (core/layout_fields.hpp: the rows plan has a flag for), as SearchValues: absent or empty = the
  // search's own list, one value = fixed, several = those of them. Plan's flags and the serve
  // API fill it from the rows (read_plan_values); Space, advice and the planner read it.
  std::map<std::string, std::vector<SearchValue>, std::less<>> allowed;
  int dp = 0;        // a fixed DP (no field of its own: world / TP CP PP); 0 = free
  int max_mbs = 16;  // upper end of the free micro-batch list
  // Every field the search does not enumerate (CUDA graphs, overlaps, optimizer, offload): each
  // layout starts from it. base_layout() unless `plan` fixes fields (core/layout_fields.hpp PlanRole).
  Layout base{};

  // The values allowed for `key` (empty = every value of the search's list).
  [[nodiscard]] const std::vector<SearchValue>& values(std::string_view key) const;
  // The one value of an int field that is fixed, else 0.
  [[nodiscard]] int fixed(std::string_view key) const;
  void fix(std::string_view key, SearchValue v) { allowed[std::string(key)] = {v}; }
  void allow(std::string_view key, std::vector<SearchValue> v) { allowed[std::string(key)] = std::move(v); }
  void unfix(std::string_view key) { allowed.erase(std::string(key)); }
};

// The precisions a request searches ({bf16} when it names none), in its order.
std::vector<Precision> searched_precisions(const Constraints& c);

// When the search may stop before it has seen everything (the infeasibility advice uses these).
enum class StopAt {
  kNever,
  kFirstValid,  // a layout passes every rule (memory and time are not evaluated)
  kFirstFit,    // a layout passes every rule and fits in memory
};

// Host offload in the search (search/offload.hpp).
enum class OffloadSearch {
  kNever,
  kWhenNothingFits,  // when no layout fits without offload, search again with kAlways
  kAlways,           // every layout that does not fit is tried with offload (the second search)
};

struct PlanRequest {
  std::vector<int> gpu_counts;  // each is searched; more than one = a range
  int gpus_per_node = 0;        // 0 = the hardware's
  Workload workload;            // mode, seq, gbs, lora_rank, tokens_budget
  Constraints fixed;
  Objective objective = Objective::kThroughput;
  int top_k = 5;
  int threads = 1;  // worker threads; the result does not depend on it
  StopAt stop_at = StopAt::kNever;
  OffloadSearch offload = OffloadSearch::kWhenNothingFits;
  bool best_only = false;  // keep only the best layout of each count (no top, Pareto or closest list)
};

// GPU counts for a range lo..hi: every power of two in it, plus whole nodes: every multiple of the
// node size when that gives at most 32 counts, else node counts of the form 2^a and 3 x 2^a.
std::vector<int> gpu_counts_in_range(int lo, int hi, int gpus_per_node);

// The lists of one search (a model and a request), in enumeration order.
class Space {
 public:
  Space(const Model& model, const PlanRequest& req);

  [[nodiscard]] const std::vector<Precision>& precisions() const { return precisions_; }
  [[nodiscard]] const std::vector<RecomputeOption>& recompute() const { return recompute_; }
  [[nodiscard]] const std::vector<int>& ep() const { return ep_; }
  [[nodiscard]] const std::vector<int>& fsdp() const { return fsdp_; }  // 0 / 1
  [[nodiscard]] const std::vector<int>& mbs() const { return mbs_; }
  [[nodiscard]] std::vector<int> tp(int gpus) const;
  [[nodiscard]] std::vector<int> cp(int gpus, int tp) const;
  // CP's exchange (Layout::cp_comm): with CP > 1 the user's list, else p2p and a2a (allgather when
  // asked); at CP 1 (where it means nothing) one value, the user's first or the base layout's.
  [[nodiscard]] std::vector<CpComm> cp_comms(int cp) const;
  [[nodiscard]] std::vector<int> pp(int gpus, int tp, int cp) const;
  [[nodiscard]] std::vector<int> vp(int pp) const;
  [[nodiscard]] std::vector<int> etp(int tp) const;
  [[nodiscard]] std::vector<Dispatcher> dispatchers(int ep) const;
  [[nodiscard]] int layers() const { return layers_; }

  // Completions (full layouts) below a node of the enumeration, for counting rejected prefixes.
  [[nodiscard]] uint64_t below_fsdp() const { return mbs_.size(); }
  [[nodiscard]] uint64_t below_recompute() const { return fsdp_.size() * below_fsdp(); }
  [[nodiscard]] uint64_t below_dispatcher() const { return recompute_.size() * below_recompute(); }
  [[nodiscard]] uint64_t dispatcher_count(int ep) const;  // dispatchers(ep).size(), without the vector
  [[nodiscard]] uint64_t below_etp(int ep) const { return dispatcher_count(ep) * below_dispatcher(); }
  [[nodiscard]] uint64_t below_ep(int tp, int ep) const { return etp(tp).size() * below_etp(ep); }
  [[nodiscard]] uint64_t below_pipeline(int tp) const;
  [[nodiscard]] uint64_t below_cp_comm(int gpus, int tp, int cp) const;  // below one (CP, exchange)
  [[nodiscard]] uint64_t below_cp(int gpus, int tp, int cp) const;
  [[nodiscard]] uint64_t below_tp(int gpus, int tp) const;
  [[nodiscard]] uint64_t below_precision(int gpus) const;
  // Every layout of the space for one GPU count.
  [[nodiscard]] uint64_t size(int gpus) const { return precisions_.size() * below_precision(gpus); }
  // Whether the search takes one value for field `f` whatever the GPU count: the user gave one
  // (recompute: "selective" is each selective option), or VP with one PP given that has one VP.
  [[nodiscard]] bool single(const LayoutField& f) const;

 private:
  Constraints fixed_;
  // The values the user allows for each enumerated int field (empty = its own list).
  std::vector<int> tp_, cp_, pp_, vp_, etp_;
  std::vector<Dispatcher> dispatchers_;  // the user's (empty = by EP)
  std::vector<CpComm> cp_comms_;         // the user's (empty = kSearchedCpComms)
  int dp_ = 0;
  bool moe_ = false;
  int layers_ = 0;
  std::vector<Precision> precisions_;
  std::vector<RecomputeOption> recompute_;
  std::vector<int> ep_;
  std::vector<int> fsdp_;
  std::vector<int> mbs_;
};

// The layout with every field the planner does not enumerate at its default: SP with TP > 1,
// distributed optimizer, no CUDA graphs, no offload, no overlap flags.
Layout base_layout();

}  // namespace rb
