// The per-rule steps of resizing (resize.hpp lists them; resize.cpp drives them). Rule numbers
// refer to seed 004's "Parallelism Resizing Rules".
#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "recipebook/rules/check_layout.hpp"
#include "recipebook/rules/valid_degrees.hpp"
#include "recipebook/search/resize_internal.hpp"

namespace rb::resize_detail {

int64_t batch_unit(const Layout& l) {
  return static_cast<int64_t>(l.mbs) * std::max(1, l.dp) * (l.vp > 1 ? l.pp : 1);
}

// DP, SP and the batch follow from the degrees (rules 5 and 7; batch advice).
void settle(const State& s, Layout& l) {
  const int mp = l.model_parallel();
  l.dp = mp > 0 && s.gpus() % mp == 0 ? s.gpus() / mp : 1;
  l.sp = l.tp > 1;
}

Workload workload_for(const State& s, const Layout& l) {
  Workload w = s.w;
  w.gbs = round_batch(s.gbs_target, batch_unit(l));
  return w;
}

Estimate eval(const State& s, Layout l) {
  settle(s, l);
  const Workload w = workload_for(s, l);
  return estimate(*s.in.model, *s.in.hardware, w, s.c, modelled_layout(s.layers(), l));
}

bool allowed(const State& s, Layout l) {
  settle(s, l);
  if (s.gpus() % l.model_parallel() != 0) return false;
  const Workload w = workload_for(s, l);
  const Layout m = modelled_layout(s.layers(), l);
  if (layout_allowed(*s.in.rules, w, s.c, m, nullptr)) return true;
  if (s.baseline_errors.empty()) return false;
  // The recipe as recorded already breaks some rules (a static read of its source, for one): those
  // are reported at the end, not held against every resized candidate.
  for (const Finding& f : check_layout(*s.in.rules, w, s.c, m, RecordFacts{}))
    if (f.severity == Severity::kError &&
        std::find(s.baseline_errors.begin(), s.baseline_errors.end(), f.rule_id) == s.baseline_errors.end())
      return false;
  return true;
}

std::vector<std::string> error_rules(const PreparedRuleModel& pm, const Workload& w, const Cluster& c, const Layout& l) {
  std::vector<std::string> out;
  for (const Finding& f : check_layout(pm, w, c, l, RecordFacts{}))
    if (f.severity == Severity::kError) out.push_back(f.rule_id);
  return out;
}

// EP·ETP must divide TP·CP·DP = GPUs / PP (Megatron-Core parallel_state), and EP the experts.
bool ep_fits(const State& s, const Layout& l, int ep, int etp) {
  const int stage_gpus = s.gpus() / std::max(1, l.pp);
  return ep_divides_experts(*s.in.rules, ep) && stage_gpus % (ep * etp) == 0;
}

void fix_ep(State& s) {
  if (!s.moe()) return;
  Layout& l = s.l;
  const int stage_gpus = s.gpus() / std::max(1, l.pp);
  if (ep_fits(s, l, l.ep, l.etp)) return;
  if (l.etp > 1 && !ep_fits(s, l, l.ep, 1) && l.ep * l.etp > stage_gpus) {
    s.change("etp", num(l.etp), "1", "EP·ETP must divide the " + num(stage_gpus) + " GPUs of one pipeline stage",
             "Megatron-Core parallel_state");
    l.etp = 1;
  }
  int best = 1;
  for (int ep : ep_candidates(*s.in.rules, l.ep))
    if (ep_fits(s, l, ep, l.etp)) best = ep;
  s.change("ep", num(l.ep), num(best),
           "EP·ETP must divide TP·CP·DP = " + num(stage_gpus) + " (the GPUs of one pipeline stage) and the " +
               num(s.in.rules->experts) + " experts",
           "seed 004 rule 7; Megatron-Core parallel_state");
  l.ep = best;
}

// Sets the split for the layout's PP and VP; false when no split exists. A recipe's own
// embedding/loss accounting stays (its settings, which the rules read, keep it on too) unless the
// new split is an accounting one: a PP or VP it does not fit is the rules' to refuse.
bool set_split(const State& s, Layout& x) {
  auto split = split_for(s.layers(), x.pp, x.vp);
  if (!split) return false;
  if (!split->account_for_embedding && !split->account_for_loss) {
    split->account_for_embedding = x.account_for_embedding;
    split->account_for_loss = x.account_for_loss;
  }
  apply_stage_split(x, *split);
  return true;
}

void set_pp(State& s, int pp, const std::string& reason, const std::string& rule) {
  Layout& l = s.l;
  s.change("pp", num(l.pp), num(pp), reason, rule);
  l.pp = pp;
  const int vp = choose_vp(*s.in.rules, pp);
  if (vp != l.vp) {
    s.change("vp", num(l.vp), num(vp),
             pp > 1 ? (vp > 1 ? "PP " + num(pp) + " uses virtual stages to shrink the pipeline bubble"
                              : "no VP > 1 splits the " + num(s.layers()) + " layers over PP " + num(pp))
                    : "VP needs PP > 1",
             "seed 004 rule 3");
    l.vp = vp;
  }
  set_split(s, l);
  fix_ep(s);
}

// Step 2: CP so that seq / CP stays near the recipe's (rule 6 and the long-context branch).
void resize_cp(State& s, int64_t seq0, int64_t seq) {
  Layout& l = s.l;
  const std::vector<int> cands = cp_candidates(*s.in.rules, seq, l.tp, l.tp > 1, std::max(s.gpus(), l.cp));
  const bool valid = std::find(cands.begin(), cands.end(), l.cp) != cands.end();
  const double per_rank0 = static_cast<double>(seq0) / l.cp;
  // Up to 8K the recipe's CP stays (seed 004: "<= 8K: default recipes work"); beyond, CP keeps the
  // tokens per CP rank near the recipe's and at least 8K (its *_16k/_64k/_128k recipes hold 8K-16K).
  const bool resize = seq != seq0 && (seq > kLongContextSeq || l.cp > 1);
  if (!resize && valid) return;
  double want = l.cp;
  if (resize) want = std::max(1.0, static_cast<double>(seq) / std::max(per_rank0, static_cast<double>(kLongContextSeq)));
  int best = 1;
  double best_d = std::numeric_limits<double>::max();
  for (int cp : cands) {
    const double d = std::fabs(std::log2(cp / want));
    if (d < best_d - 1e-9 || (std::fabs(d - best_d) <= 1e-9 && cp > best)) best = cp, best_d = d;
  }
  if (!resize) {  // the sequence's CP stays, but TP changed: the nearest CP that splits it
    s.change("cp", num(l.cp), num(best), "CP must split the sequence " + num(seq) + " into 2 x CP chunks (and TP x CP with SP)",
             "Megatron-Core; REFERENCES.md C");
    l.cp = best;
    return;
  }
  std::string reason = "sequence " + num(seq0) + " -> " + num(seq) + ": CP " + num(best) + " gives about " + num(seq / best) +
                       " tokens per CP rank (the recipe has " + num(static_cast<int64_t>(per_rank0)) + ", at least 8K kept)";
  if (seq > kLongContextSeq && best > 1) reason += "; long context needs CP";
  s.change("cp", num(l.cp), num(best), reason, "seed 004 rule 6");
  l.cp = best;
}

// Step 3: TP must fit the heads and KV groups (rule 1), NVLink (rule 2) and the GPU count.
void resize_tp(State& s) {
  Layout& l = s.l;
  const PreparedRuleModel& pm = *s.in.rules;
  const int cap = std::min({l.tp, s.limit, s.gpus()});
  if (tp_valid(pm, l.tp) && l.tp <= cap) return;
  std::string reason, rule;
  if (!tp_fits_kv_groups(pm, l.tp)) {
    reason = "TP must divide the " + num(pm.kv_heads) + " KV heads", rule = "seed 004 rule 1";
  } else if (!tp_valid(pm, l.tp)) {
    reason = "TP must divide the attention heads, FFN width and SSM/GDN heads", rule = "Megatron-Core";
  } else if (l.tp > s.gpus()) {
    reason = "the cluster has only " + num(s.gpus()) + " GPUs", rule = "seed 004 rule 7";
  } else {
    const int per_node = s.c.gpus_per_node > 0 ? s.c.gpus_per_node : s.in.hardware->gpus_per_node;
    reason = s.limit == per_node ? "the cluster has " + num(per_node) + " GPUs per node and TP should stay inside NVLink"
                                 : "TP should stay inside the " + num(s.limit) + "-GPU NVLink domain";
    rule = "seed 004 rule 2";
  }
  const auto cands = tp_candidates(pm, cap);
  const int tp = cands.empty() ? 1 : cands.back();
  s.change("tp", num(l.tp), num(tp), reason, rule);
  l.tp = tp;
}

// Step 4: TP·PP·CP must divide the GPUs (rule 7). The smaller degrees that do are estimated; the one
// that fits with the highest throughput wins (else the one closest to fitting).
void resize_to_gpus(State& s, int64_t seq) {
  Layout& l = s.l;
  const int mp0 = l.model_parallel();
  if (s.gpus() % mp0 == 0) return;
  const PreparedRuleModel& pm = *s.in.rules;
  struct Best {
    Layout l;
    bool allowed = false;
    bool fits = false;
    double score = 0;
  };
  std::optional<Best> best;
  for (int tp : tp_candidates(pm, l.tp))
    for (int pp = 1; pp <= l.pp; ++pp)
      for (int cp : cp_candidates(pm, seq, tp, tp > 1, l.cp)) {
        if (s.gpus() % (tp * pp * cp) != 0) continue;
        Layout x = l;
        x.tp = tp, x.pp = pp, x.cp = cp;
        if (pp != l.pp) {
          x.vp = choose_vp(pm, pp);
          if (!set_split(s, x)) continue;
        }
        if (s.moe())
          for (int ep : ep_candidates(pm, l.ep))
            if (ep_fits(s, x, ep, x.etp)) x.ep = ep;
        const bool ok = allowed(s, x);
        if (!ok && (best && best->allowed)) continue;
        const Estimate e = eval(s, x);
        // A layout the estimator refuses has no peak to compare (0 would read as "closest to fitting").
        if (!e.valid && best) continue;
        const bool fits = e.fits();
        const double score = !e.valid ? std::numeric_limits<double>::max()
                             : fits   ? -e.tokens_per_s_per_gpu
                                      : e.memory.worst.peak_bytes - e.memory.worst.capacity_bytes;
        // Rule-allowed first (a product that divides beats none at all), then fitting, then the score.
        const auto key = [](bool a, bool f, double sc) { return std::tuple(!a, !f, sc); };
        if (!best || key(ok, fits, score) < key(best->allowed, best->fits, best->score)) best = Best{x, ok, fits, score};
      }
  if (!best) return;
  const std::string why = "TP·PP·CP = " + num(mp0) + " does not divide the " + num(s.gpus()) + " GPUs; of the smaller degrees that do, this one " +
                          (best->fits ? "fits and is predicted fastest" : "comes closest to fitting");
  const std::string rule = "seed 004 rule 7";
  s.change("tp", num(l.tp), num(best->l.tp), why, rule);
  s.change("cp", num(l.cp), num(best->l.cp), why, rule);
  if (best->l.pp != l.pp) {
    s.change("pp", num(l.pp), num(best->l.pp), why, rule);
    s.change("vp", num(l.vp), num(best->l.vp), best->l.pp > 1 ? "virtual stages for the new PP" : "VP needs PP > 1",
             "seed 004 rule 3");
  }
  s.change("ep", num(l.ep), num(best->l.ep), "EP·ETP must divide TP·CP·DP, the GPUs of one pipeline stage",
           "Megatron-Core parallel_state");
  l = best->l;
}

}  // namespace rb::resize_detail
