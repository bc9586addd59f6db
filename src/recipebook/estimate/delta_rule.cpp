#include "recipebook/estimate/delta_rule.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rb {
namespace {

double log_ratio(double a, double b) { return std::abs(std::log(std::max(a, 1e-9) / std::max(b, 1e-9))); }

const DeltaRuleFigure* nearest(const Microbenchmarks& mb, bool backward, double v_heads, double seq, double qk_heads) {
  const DeltaRuleFigure* best = nullptr;
  double best_v = std::numeric_limits<double>::max();
  double best_seq = best_v, best_qk = best_v;
  for (const DeltaRuleFigure& f : mb.delta_rule) {
    if (f.backward != backward || f.time_s <= 0 || f.seq <= 0 || f.v_heads <= 0) continue;
    const double dv = log_ratio(v_heads, f.v_heads);
    const double ds = log_ratio(seq, f.seq);
    const double dq = log_ratio(qk_heads, std::max(1, f.qk_heads));
    // Lexicographic (value heads, sequence, query/key heads); the first of equal figures wins.
    if (dv < best_v || (dv == best_v && (ds < best_seq || (ds == best_seq && dq < best_qk)))) {
      best = &f;
      best_v = dv;
      best_seq = ds;
      best_qk = dq;
    }
  }
  return best;
}

}  // namespace

double delta_rule_counted_flops(const DeltaRuleFigure& f) {
  const double d = f.head_dim;
  return 8.0 * f.v_heads * d * d * f.seq * std::max(1, f.sequences);
}

DeltaRuleRate delta_rule_rate(const Microbenchmarks& mb, double v_heads_per_rank, double seq,
                              double qk_heads_per_rank) {
  DeltaRuleRate r;
  if (const DeltaRuleFigure* f = nearest(mb, false, v_heads_per_rank, seq, qk_heads_per_rank))
    r.fwd_flops_per_s = delta_rule_counted_flops(*f) / f->time_s;
  if (const DeltaRuleFigure* f = nearest(mb, true, v_heads_per_rank, seq, qk_heads_per_rank))
    r.bwd_flops_per_s = delta_rule_counted_flops(*f) / f->time_s;
  return r;
}

}  // namespace rb
