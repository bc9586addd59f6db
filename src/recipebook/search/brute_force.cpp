#include "recipebook/search/brute_force.hpp"

#include "recipebook/search/offload.hpp"
#include "recipebook/search/walk.hpp"

namespace rb {

namespace {

// fit_with_offload without its shortcuts: every variant estimated, the fastest that fits.
std::optional<OffloadFit> every_offload_variant(const SearchSetup& s, const Cluster& c, const Layout& l) {
  if (s.req.offload != OffloadSearch::kAlways || !s.in.hardware->has_host()) return std::nullopt;
  std::optional<OffloadFit> best;
  for (const Layout& v : offload_variants(l, s.req.workload.mode, s.in.model->experts > 0)) {
    if (first_failing_any(s.levels, *s.in.rules, s.req.workload, c, v, s.facts) >= 0) continue;
    const Estimate e = estimate(*s.in.model, *s.in.hardware, s.req.workload, c, v);
    if (e.fits() && (!best || e.step_time_s < best->estimate.step_time_s)) best = OffloadFit{v, e};
  }
  return best;
}

Result<PlanResult> brute_force_once(const PlanInputs& in, const PlanRequest& req) {
  const SearchSetup s(in, req);
  const Space& sp = s.space;
  PlanCounts counts;
  Collector col(req.top_k, s.axis, static_cast<int>(req.gpu_counts.size()));
  for (size_t ci = 0; ci < req.gpu_counts.size(); ++ci) {
    const int n = req.gpu_counts[ci];
    const Cluster c = s.cluster(n);
    for (const Precision prec : sp.precisions())
      for (const int tp : sp.tp(n))
        for (const int cp : sp.cp(n, tp))
          for (const CpComm cc : sp.cp_comms(cp))
            for (const int pp : sp.pp(n, tp, cp))
              for (const int vp : sp.vp(pp))
                for (const int ep : sp.ep())
                  for (const int etp : sp.etp(tp))
                    for (const Dispatcher d : sp.dispatchers(ep))
                      for (size_t ri = 0; ri < sp.recompute().size(); ++ri)
                        for (const int f : sp.fsdp())
                          for (const int mbs : sp.mbs()) {
                            Layout l = req.fixed.base;
                            l.precision = prec;
                            l.tp = tp;
                            l.sp = tp > 1;
                            l.cp = cp;
                            l.cp_comm = cc;
                            l.pp = pp;
                            l.vp = vp;
                            l.dp = n / (tp * cp * pp);
                            const StageSplit split = stage_split(sp.layers(), pp, vp);
                            apply_stage_split(l, split);
                            l.ep = ep;
                            l.etp = etp;
                            l.dispatcher = d;
                            apply_recompute(l, sp.recompute()[ri]);
                            l.fsdp = f != 0;
                            l.mbs = mbs;
                            const int r = first_failing_any(s.levels, *in.rules, req.workload, c, l, s.facts);
                            if (r >= 0) {
                              counts.reject(r, 1);
                              continue;
                            }
                            ++counts.seen;
                            const Estimate e = estimate(*in.model, *in.hardware, req.workload, c, l);
                            ++counts.estimates;
                            const int opt = static_cast<int>(ri);
                            if (!e.valid) {
                              ++counts.estimator;
                              ++counts.by_estimator[static_cast<size_t>(e.reason)];
                            } else if (!e.memory.worst.fits) {
                              ++counts.memory;
                              col.add_nonfit(n, l, opt, e);
                              if (const auto o = every_offload_variant(s, c, l); o && ++counts.offloaded > 0)
                                col.add_fit(static_cast<int>(ci), n, o->layout, opt,
                                            objective_score(req.objective, o->estimate, n, *in.hardware, req.workload),
                                            o->estimate);
                            } else {
                              ++counts.fit;
                              col.add_fit(static_cast<int>(ci), n, l, opt,
                                          objective_score(req.objective, e, n, *in.hardware, req.workload), e);
                            }
                          }
  }
  PlanResult r;
  r.counts = counts;
  r.recompute_options = sp.recompute();
  r.pareto_axis = s.axis;
  r.top = col.top();
  r.pareto = col.pareto();
  r.best_per_count = col.best_per_count();
  r.closest = col.closest();
  return r;
}

}  // namespace

// As plan(): host offload only when nothing fits without it.
Result<PlanResult> plan_brute_force(const PlanInputs& in, const PlanRequest& req) {
  if (auto ok = validate_request(in, req); !ok) return tl::unexpected(ok.error());
  auto r = brute_force_once(in, req);
  if (!r) return r;
  if (const auto again = offload_retry(req, r->counts.fit, *in.hardware)) return brute_force_once(in, *again);
  return r;
}

}  // namespace rb
