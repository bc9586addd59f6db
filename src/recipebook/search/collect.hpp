// What a search keeps while it runs: the counts, the top-k by objective, the Pareto front, the
// best layout of each GPU count and, for the infeasible case, the layouts closest to fitting.
// Every ordering is total (score, then the layout tuple), so a Collector's contents do not depend
// on the order candidates arrive in, and merging the collectors of several threads gives the same
// result for any thread count.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "recipebook/core/hardware.hpp"
#include "recipebook/estimate/estimate.hpp"
#include "recipebook/rules/rule.hpp"
#include "recipebook/search/space.hpp"

namespace rb {

// The layout tuple that breaks ties: GPUs, precision, TP, CP, PP, VP, EP, ETP, dispatcher,
// recompute option, FSDP, MBS (the enumeration order).
using LayoutKey = std::array<int, 13>;
LayoutKey layout_key(int gpus, const Layout& l, int recompute_option);

struct Candidate {
  int gpus = 0;
  Layout layout;
  int recompute_option = 0;  // index into PlanResult::recompute_options
  LayoutKey key{};
  double score = 0;  // lower is better (objective.hpp)
  Estimate estimate;

  [[nodiscard]] double headroom_bytes() const { return estimate.memory.worst.headroom_bytes(); }
};

// Lower is better: -tokens/s/GPU, USD (or GPU-hours) per million tokens, days (or s) per token.
double objective_score(Objective o, const Estimate& e, int gpus, const Hardware& hw, const Workload& w);

// The two axes of the Pareto front, both "higher is better": tokens/s per GPU, and memory headroom
// (one GPU count) or total tokens/s (a range of counts: the time/cost trade-off).
enum class ParetoAxis { kHeadroom, kTotalThroughput };

struct PlanCounts {
  uint64_t seen = 0;  // full layouts of the space considered (rejected prefixes counted arithmetically)
  std::array<uint64_t, kRuleCapacity> by_rule{};  // by rule index (all_rules())
  uint64_t rules = 0;                             // rejected by a rule (the sum of by_rule)
  uint64_t memory = 0;                            // passed the rules, did not fit in GPU memory
  uint64_t memory_inferred = 0;                   // of those, not evaluated: a smaller micro batch already did not fit
  std::array<uint64_t, 16> by_estimator{};        // by InvalidReason: passed the rules, the estimator refused
  uint64_t estimator = 0;
  uint64_t fit = 0;        // fit in memory and were ranked
  uint64_t offloaded = 0;  // of `memory`: fit with host offload (search/offload.hpp), the variant ranked
  uint64_t estimates = 0;  // calls to estimate() (fit + evaluated non-fits + refusals)

  void merge(const PlanCounts& o);
  void reject(int rule, uint64_t n) {
    by_rule[static_cast<size_t>(rule)] += n;
    rules += n;
    seen += n;
  }
};

class Collector {
 public:
  // best_only: keep the best layout of each GPU count and nothing else (PlanRequest::best_only).
  Collector(int top_k, ParetoAxis axis, int gpu_counts, bool best_only = false);

  // A layout that passed the rules and fits; `count_index` is its GPU count's position.
  void add_fit(int count_index, int gpus, const Layout& l, int recompute_option, double score, const Estimate& e);
  // A layout that passed the rules but does not fit (for the closest list).
  void add_nonfit(int gpus, const Layout& l, int recompute_option, const Estimate& e);
  // Whether a non-fitting layout with at least this overshoot and a key after `key` could still
  // enter the closest list.
  [[nodiscard]] bool closest_could_take(double overshoot_bytes, const LayoutKey& key) const;

  void merge(const Collector& o);

  [[nodiscard]] std::vector<Candidate> top() const;             // best first
  [[nodiscard]] std::vector<Candidate> pareto() const;          // tokens/s per GPU descending, then key
  [[nodiscard]] std::vector<Candidate> closest() const;         // smallest memory overshoot first
  [[nodiscard]] std::vector<Candidate> best_per_count() const;  // by GPU count

 private:
  void offer_top(const Candidate& c);
  void offer_pareto(const Candidate& c);
  void offer_closest(const Candidate& c);
  void offer_best(size_t count_index, const Candidate& c);
  [[nodiscard]] double pareto_b(const Candidate& c) const;

  size_t k_;
  ParetoAxis axis_;
  bool best_only_ = false;
  std::vector<Candidate> top_;      // heap: the worst kept candidate at the front
  std::vector<Candidate> pareto_;   // the current non-dominated set
  std::vector<Candidate> closest_;  // heap: the largest kept overshoot at the front
  std::vector<Candidate> best_;     // one per GPU count (gpus == 0: none yet)
};

// Total orders.
bool better(const Candidate& a, const Candidate& b);  // score, then key
bool closer(const Candidate& a, const Candidate& b);  // overshoot, then key
double overshoot_bytes(const Estimate& e);            // peak - (capacity - headroom) of the worst rank

}  // namespace rb
