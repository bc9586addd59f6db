#include "recipebook/search/collect.hpp"

#include <algorithm>

namespace rb {

LayoutKey layout_key(int gpus, const Layout& l, int recompute_option) {
  return {gpus,
          static_cast<int>(l.precision),
          l.tp,
          l.cp,
          static_cast<int>(l.cp_comm),
          l.pp,
          l.vp,
          l.ep,
          l.etp,
          static_cast<int>(l.dispatcher),
          recompute_option,
          l.fsdp ? 1 : 0,
          l.mbs};
}

double objective_score(Objective o, const Estimate& e, int gpus, const Hardware& hw, const Workload& w) {
  const double tps = e.tokens_per_s_per_gpu;
  switch (o) {
    case Objective::kThroughput:
      return -tps;
    case Objective::kCost:
      if (hw.usd_per_gpu_hour > 0) return e.usd_per_million_tokens;
      return 1e6 / (tps * 3600.0);  // GPU-hours per million tokens
    case Objective::kTime:
      if (w.tokens_budget > 0) return e.days;
      return 1.0 / (tps * gpus);  // seconds per token
  }
  return -tps;
}

double overshoot_bytes(const Estimate& e) { return e.memory.worst.overshoot_bytes(); }

bool better(const Candidate& a, const Candidate& b) {
  if (a.score != b.score) return a.score < b.score;
  return a.key < b.key;
}

bool closer(const Candidate& a, const Candidate& b) {
  const double oa = overshoot_bytes(a.estimate);
  const double ob = overshoot_bytes(b.estimate);
  if (oa != ob) return oa < ob;
  return a.key < b.key;
}

void PlanCounts::merge(const PlanCounts& o) {
  seen += o.seen;
  for (size_t i = 0; i < by_rule.size(); ++i) by_rule[i] += o.by_rule[i];
  rules += o.rules;
  memory += o.memory;
  memory_inferred += o.memory_inferred;
  offloaded += o.offloaded;
  for (size_t i = 0; i < by_estimator.size(); ++i) by_estimator[i] += o.by_estimator[i];
  estimator += o.estimator;
  fit += o.fit;
  estimates += o.estimates;
}

Collector::Collector(int top_k, ParetoAxis axis, int gpu_counts, bool best_only)
    : k_(static_cast<size_t>(std::max(1, top_k))), axis_(axis), best_only_(best_only), best_(static_cast<size_t>(std::max(0, gpu_counts))) {}

double Collector::pareto_b(const Candidate& c) const {
  if (axis_ == ParetoAxis::kHeadroom) return c.headroom_bytes();
  return c.estimate.tokens_per_s_per_gpu * c.gpus;
}

namespace {

struct ParetoPoint {
  double a;
  double b;
  const LayoutKey* key;
};

// q removes p: q dominates p, or q is the same point with a smaller key (one layout per point).
bool removes(const ParetoPoint& q, const ParetoPoint& p) {
  if (q.a >= p.a && q.b >= p.b && (q.a > p.a || q.b > p.b)) return true;
  return q.a == p.a && q.b == p.b && *q.key < *p.key;
}

}  // namespace

void Collector::add_fit(int count_index, int gpus, const Layout& l, int recompute_option, double score,
                        const Estimate& e) {
  const LayoutKey key = layout_key(gpus, l, recompute_option);
  auto beats = [&](const Candidate& o) { return score != o.score ? score < o.score : key < o.key; };
  const size_t ci = static_cast<size_t>(count_index);
  const bool to_best = ci < best_.size() && (best_[ci].gpus == 0 || beats(best_[ci]));
  if (best_only_) {
    if (to_best) best_[ci] = Candidate{gpus, l, recompute_option, key, score, e};
    return;
  }
  const bool to_top = top_.size() < k_ || beats(top_.front());
  const double a = e.tokens_per_s_per_gpu;
  const double b = axis_ == ParetoAxis::kHeadroom ? e.memory.worst.headroom_bytes()
                                                  : e.tokens_per_s_per_gpu * gpus;
  const ParetoPoint p{a, b, &key};
  bool to_pareto = true;
  for (const Candidate& q : pareto_) {
    if (removes({q.estimate.tokens_per_s_per_gpu, pareto_b(q), &q.key}, p)) {
      to_pareto = false;
      break;
    }
  }
  if (!to_top && !to_best && !to_pareto) return;
  Candidate c;
  c.gpus = gpus;
  c.layout = l;
  c.recompute_option = recompute_option;
  c.key = key;
  c.score = score;
  c.estimate = e;
  if (to_top) offer_top(c);
  if (to_best) best_[ci] = c;
  if (to_pareto) offer_pareto(c);
}

void Collector::offer_top(const Candidate& c) {
  if (top_.size() < k_) {
    top_.push_back(c);
    std::push_heap(top_.begin(), top_.end(), better);
    return;
  }
  if (!better(c, top_.front())) return;
  std::pop_heap(top_.begin(), top_.end(), better);
  top_.back() = c;
  std::push_heap(top_.begin(), top_.end(), better);
}

void Collector::offer_pareto(const Candidate& c) {
  const ParetoPoint p{c.estimate.tokens_per_s_per_gpu, pareto_b(c), &c.key};
  for (const Candidate& q : pareto_)
    if (removes({q.estimate.tokens_per_s_per_gpu, pareto_b(q), &q.key}, p)) return;
  std::erase_if(pareto_, [&](const Candidate& q) {
    return removes(p, {q.estimate.tokens_per_s_per_gpu, pareto_b(q), &q.key});
  });
  pareto_.push_back(c);
}

void Collector::offer_best(size_t count_index, const Candidate& c) {
  if (count_index >= best_.size()) return;
  if (best_[count_index].gpus == 0 || better(c, best_[count_index])) best_[count_index] = c;
}

bool Collector::closest_could_take(double overshoot, const LayoutKey& key) const {
  if (best_only_) return false;
  if (closest_.size() < k_) return true;
  const Candidate& worst = closest_.front();
  const double ow = overshoot_bytes(worst.estimate);
  return overshoot < ow || (overshoot == ow && key < worst.key);
}

void Collector::add_nonfit(int gpus, const Layout& l, int recompute_option, const Estimate& e) {
  const LayoutKey key = layout_key(gpus, l, recompute_option);
  if (!closest_could_take(overshoot_bytes(e), key)) return;
  Candidate c;
  c.gpus = gpus;
  c.layout = l;
  c.recompute_option = recompute_option;
  c.key = key;
  c.estimate = e;
  offer_closest(c);
}

void Collector::offer_closest(const Candidate& c) {
  if (closest_.size() < k_) {
    closest_.push_back(c);
    std::push_heap(closest_.begin(), closest_.end(), closer);
    return;
  }
  if (!closer(c, closest_.front())) return;
  std::pop_heap(closest_.begin(), closest_.end(), closer);
  closest_.back() = c;
  std::push_heap(closest_.begin(), closest_.end(), closer);
}

void Collector::merge(const Collector& o) {
  for (const Candidate& c : o.top_) offer_top(c);
  for (const Candidate& c : o.pareto_) offer_pareto(c);
  for (const Candidate& c : o.closest_) offer_closest(c);
  for (size_t i = 0; i < o.best_.size(); ++i)
    if (o.best_[i].gpus != 0) offer_best(i, o.best_[i]);
}

std::vector<Candidate> Collector::top() const {
  std::vector<Candidate> out = top_;
  std::sort(out.begin(), out.end(), better);
  return out;
}

std::vector<Candidate> Collector::pareto() const {
  std::vector<Candidate> out = pareto_;
  std::sort(out.begin(), out.end(), [](const Candidate& a, const Candidate& b) {
    if (a.estimate.tokens_per_s_per_gpu != b.estimate.tokens_per_s_per_gpu)
      return a.estimate.tokens_per_s_per_gpu > b.estimate.tokens_per_s_per_gpu;
    return a.key < b.key;
  });
  return out;
}

std::vector<Candidate> Collector::closest() const {
  std::vector<Candidate> out = closest_;
  std::sort(out.begin(), out.end(), closer);
  return out;
}

std::vector<Candidate> Collector::best_per_count() const {
  std::vector<Candidate> out;
  for (const Candidate& c : best_)
    if (c.gpus != 0) out.push_back(c);
  return out;
}

}  // namespace rb
