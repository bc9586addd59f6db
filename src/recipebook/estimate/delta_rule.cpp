#include "recipebook/estimate/delta_rule.hpp"

#include <algorithm>
#include <limits>

namespace rb {
namespace {

// How far apart two sizes are, as a factor >= 1: the order of |log(a / b)| without the logarithm
// (delta_rule_rate runs in every estimate of a GDN model, the planner's inner loop).
double size_factor(double a, double b) {
  const double r = std::max(a, 1e-9) / std::max(b, 1e-9);
  return r >= 1.0 ? r : 1.0 / r;
}

const DeltaRuleFigure* nearest(const Microbenchmarks& mb, bool backward, double v_heads, double seq, double qk_heads) {
  const DeltaRuleFigure* best = nullptr;
  double best_v = std::numeric_limits<double>::max();
  double best_seq = best_v, best_qk = best_v;
  for (const DeltaRuleFigure& f : mb.delta_rule) {
    if (f.backward != backward || f.time_s <= 0 || f.seq <= 0 || f.v_heads <= 0) continue;
    const double dv = size_factor(v_heads, f.v_heads);
    const double ds = size_factor(seq, f.seq);
    const double dq = size_factor(qk_heads, std::max(1, f.qk_heads));
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
