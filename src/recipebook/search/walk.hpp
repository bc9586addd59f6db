// The pruned enumeration itself (planner.hpp describes the strategy). Internal to search/: the
// planner drives one outer Walker and one Walker per worker thread.
#pragma once

#include <atomic>
#include <vector>

#include "recipebook/rules/facts.hpp"
#include "recipebook/search/collect.hpp"
#include "recipebook/search/planner.hpp"
#include "recipebook/search/rule_levels.hpp"
#include "recipebook/search/space.hpp"

namespace rb {

// Everything a search reads, built once per search.
struct SearchSetup {
  SearchSetup(const PlanInputs& in, const PlanRequest& req);

  const PlanInputs& in;
  const PlanRequest& req;
  Space space;
  RuleLevels levels;
  RecordFacts facts;  // empty: a candidate has no record facts
  ParetoAxis axis;
  int gpus_per_node;

  [[nodiscard]] Cluster cluster(int gpus) const { return Cluster{gpus, gpus_per_node}; }
};

// A PP/VP node that passed the outer rules: the unit of work of a worker.
struct Task {
  int count_index = 0;
  int gpus = 0;
  Precision precision = Precision::kBf16;
  int tp = 1, cp = 1, pp = 1, vp = 1;
  CpComm cp_comm = CpComm::kP2p;
  StageSplit split;
};

// The layout a task fixes (precision, TP, CP, PP, VP, DP, the stage split; SP with TP > 1) over
// `base`, the fields the request fixes: where Walker and the fleet walk start each task.
Layout task_layout(const Task& t, const Layout& base);

class Walker {
 public:
  explicit Walker(const SearchSetup& s);

  // Enumerates precision, TP, CP and PP/VP for every GPU count; rejected prefixes are counted,
  // the rest become tasks.
  void walk_outer(std::vector<Task>& tasks);
  // Enumerates EP, ETP, dispatcher, recompute, FSDP and MBS below one task.
  void run(const Task& t, const std::atomic<bool>& stop);

  [[nodiscard]] const PlanCounts& counts() const { return counts_; }
  [[nodiscard]] const Collector& collector() const { return col_; }
  [[nodiscard]] bool found() const { return found_; }

 private:
  int fail(SearchDim d) const;
  void mbs_chain(int count_index, int recompute_option);
  bool add_offloaded(int count_index, int recompute_option, const Estimate* base = nullptr);
  void set_task(const Task& t);

  const SearchSetup& s_;
  PlanCounts counts_;
  Collector col_;
  bool found_ = false;
  Layout l_;
  Cluster c_;
};

}  // namespace rb
