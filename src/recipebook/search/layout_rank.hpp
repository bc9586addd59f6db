// Where one given layout (a catalog recipe's) ranks among a search's results: its own estimate,
// scored by the search's objective against the kept candidates. `plan --recipe` reports it and
// bench/agreement.cpp does it for every performance recipe. Pure.
#pragma once

#include "recipebook/search/planner.hpp"

namespace rb {

struct LayoutRank {
  Estimate estimate;  // the layout's own, on `gpus` GPUs of the search's workload
  bool ranked = false;  // valid and fits: `rank` is set
  int rank = 0;         // 1 = at least as good as the best; kept + 1 = below every kept candidate
  bool below_kept = false;  // no kept candidate scores worse: the rank is a lower bound
  double best_tokens_per_s_per_gpu = 0;  // the search's best (0: it found nothing)
};

// `l` with dp set for `gpus`. The score is objective_score(req.objective, ...), as the search's.
LayoutRank rank_layout(const PlanInputs& in, const PlanRequest& req, const PlanResult& result, int gpus, Layout l);

}  // namespace rb
