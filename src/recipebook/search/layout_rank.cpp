#include "recipebook/search/layout_rank.hpp"

namespace rb {

LayoutRank rank_layout(const PlanInputs& in, const PlanRequest& req, const PlanResult& result, int gpus, Layout l) {
  LayoutRank r;
  if (!result.top.empty()) r.best_tokens_per_s_per_gpu = result.top.front().estimate.tokens_per_s_per_gpu;
  l.dp = l.model_parallel() > 0 ? gpus / l.model_parallel() : 0;
  const Cluster c{gpus, req.gpus_per_node};
  r.estimate = estimate(*in.model, *in.hardware, req.workload, c, l);
  if (!r.estimate.valid || !r.estimate.fits()) return r;
  const double score = objective_score(req.objective, r.estimate, gpus, *in.hardware, req.workload);
  int better = 0;
  for (const Candidate& cand : result.top) better += cand.score < score ? 1 : 0;
  r.ranked = true;
  r.rank = better + 1;
  r.below_kept = better == static_cast<int>(result.top.size()) && better >= req.top_k;
  return r;
}

}  // namespace rb
