#include "recipebook/search/walk.hpp"

#include "recipebook/search/offload.hpp"

namespace rb {

SearchSetup::SearchSetup(const PlanInputs& in_, const PlanRequest& req_)
    : in(in_),
      req(req_),
      space(in_.model->model, req_),
      levels(rule_levels(*in_.rules)),
      axis(req_.gpu_counts.size() > 1 ? ParetoAxis::kTotalThroughput : ParetoAxis::kHeadroom),
      gpus_per_node(req_.gpus_per_node > 0 ? req_.gpus_per_node : in_.hardware->gpus_per_node) {}

Walker::Walker(const SearchSetup& s)
    : s_(s), col_(s.req.top_k, s.axis, static_cast<int>(s.req.gpu_counts.size()), s.req.best_only), l_(s.req.fixed.base) {}

int Walker::fail(SearchDim d) const {
  return first_failing(s_.levels, d, *s_.in.rules, s_.req.workload, c_, l_, s_.facts);
}

void Walker::walk_outer(std::vector<Task>& tasks) {
  const Space& sp = s_.space;
  for (size_t ci = 0; ci < s_.req.gpu_counts.size(); ++ci) {
    const int n = s_.req.gpu_counts[ci];
    c_ = s_.cluster(n);
    for (const Precision prec : sp.precisions()) {
      l_ = s_.req.fixed.base;
      l_.precision = prec;
      if (const int r = fail(SearchDim::kPrecision); r >= 0) {
        counts_.reject(r, sp.below_precision(n));
        continue;
      }
      for (const int tp : sp.tp(n)) {
        l_.tp = tp;
        l_.sp = tp > 1;
        l_.cp = l_.pp = l_.vp = 1;
        apply_stage_split(l_, {});
        if (const int r = fail(SearchDim::kTp); r >= 0) {
          counts_.reject(r, sp.below_tp(n, tp));
          continue;
        }
        for (const int cp : sp.cp(n, tp)) {
          for (const CpComm cc : sp.cp_comms(cp)) {
            l_.cp = cp;
            l_.cp_comm = cc;
            l_.pp = l_.vp = 1;
            apply_stage_split(l_, {});
            if (const int r = fail(SearchDim::kCp); r >= 0) {
              counts_.reject(r, sp.below_cp_comm(n, tp, cp));
              continue;
            }
            const uint64_t below = sp.below_pipeline(tp);
            for (const int pp : sp.pp(n, tp, cp)) {
              for (const int vp : sp.vp(pp)) {
                const StageSplit split = stage_split(sp.layers(), pp, vp);
                l_.pp = pp;
                l_.vp = vp;
                l_.dp = n / (tp * cp * pp);
                apply_stage_split(l_, split);
                if (const int r = fail(SearchDim::kPipeline); r >= 0) {
                  counts_.reject(r, below);
                  continue;
                }
                tasks.push_back({static_cast<int>(ci), n, prec, tp, cp, pp, vp, cc, split});
              }
            }
          }
        }
      }
    }
  }
}

Layout task_layout(const Task& t, const Layout& base) {
  Layout l = base;
  l.precision = t.precision;
  l.tp = t.tp;
  l.sp = t.tp > 1;
  l.cp = t.cp;
  l.cp_comm = t.cp_comm;
  l.pp = t.pp;
  l.vp = t.vp;
  l.dp = t.gpus / (t.tp * t.cp * t.pp);
  apply_stage_split(l, t.split);
  return l;
}

void Walker::set_task(const Task& t) {
  c_ = s_.cluster(t.gpus);
  l_ = task_layout(t, s_.req.fixed.base);
}

void Walker::run(const Task& t, const std::atomic<bool>& stop) {
  const Space& sp = s_.space;
  set_task(t);
  const std::vector<int> etps = sp.etp(t.tp);
  const auto& rcs = sp.recompute();
  for (const int ep : sp.ep()) {
    if (stop.load(std::memory_order_relaxed)) return;
    const std::vector<Dispatcher> disps = sp.dispatchers(ep);
    l_.ep = ep;
    l_.etp = etps.empty() ? 1 : etps.front();
    l_.dispatcher = disps.front();
    apply_recompute(l_, rcs.front());
    l_.fsdp = false;
    l_.mbs = 1;
    if (const int r = fail(SearchDim::kEp); r >= 0) {
      counts_.reject(r, sp.below_ep(t.tp, ep));
      continue;
    }
    for (const int etp : etps) {
      l_.etp = etp;
      l_.dispatcher = disps.front();
      if (const int r = fail(SearchDim::kEtp); r >= 0) {
        counts_.reject(r, sp.below_etp(ep));
        continue;
      }
      for (const Dispatcher d : disps) {
        l_.dispatcher = d;
        apply_recompute(l_, rcs.front());
        if (const int r = fail(SearchDim::kDispatcher); r >= 0) {
          counts_.reject(r, sp.below_dispatcher());
          continue;
        }
        for (size_t ri = 0; ri < rcs.size(); ++ri) {
          apply_recompute(l_, rcs[ri]);
          l_.fsdp = false;
          if (const int r = fail(SearchDim::kRecompute); r >= 0) {
            counts_.reject(r, sp.below_recompute());
            continue;
          }
          for (const int f : sp.fsdp()) {
            l_.fsdp = f != 0;
            if (const int r = fail(SearchDim::kFsdp); r >= 0) {
              counts_.reject(r, sp.below_fsdp());
              continue;
            }
            mbs_chain(t.count_index, static_cast<int>(ri));
            if (found_) return;
          }
        }
      }
    }
  }
}

void Walker::mbs_chain(int count_index, int recompute_option) {
  const PlanRequest& req = s_.req;
  const PreparedModel& pm = *s_.in.model;
  const Hardware& hw = *s_.in.hardware;
  bool over = false;      // a smaller micro batch did not fit
  double over_bytes = 0;  // by how much it did not
  for (const int mbs : s_.space.mbs()) {
    l_.mbs = mbs;
    if (const int r = fail(SearchDim::kMbs); r >= 0) {
      counts_.reject(r, 1);
      continue;
    }
    ++counts_.seen;
    if (req.stop_at == StopAt::kFirstValid) {
      found_ = true;
      return;
    }
    if (over) {
      ++counts_.memory;
      ++counts_.memory_inferred;
      // Its overshoot is at least `over_bytes`; estimate it only if the closest list could take it.
      if (col_.closest_could_take(over_bytes, layout_key(c_.gpus, l_, recompute_option))) {
        const Estimate e = estimate(pm, hw, req.workload, c_, l_);
        if (e.valid && !e.memory.worst.fits) col_.add_nonfit(c_.gpus, l_, recompute_option, e);
      }
      if (add_offloaded(count_index, recompute_option)) return;
      continue;
    }
    const Estimate e = estimate(pm, hw, req.workload, c_, l_);
    ++counts_.estimates;
    if (!e.valid) {
      ++counts_.estimator;
      ++counts_.by_estimator[static_cast<size_t>(e.reason)];
      continue;
    }
    if (!e.memory.worst.fits) {
      ++counts_.memory;
      over = true;
      over_bytes = overshoot_bytes(e);
      col_.add_nonfit(c_.gpus, l_, recompute_option, e);
      if (add_offloaded(count_index, recompute_option, &e)) return;
      continue;
    }
    ++counts_.fit;
    col_.add_fit(count_index, c_.gpus, l_, recompute_option,
                 objective_score(req.objective, e, c_.gpus, hw, req.workload), e);
    if (req.stop_at == StopAt::kFirstFit) {
      found_ = true;
      return;
    }
  }
}

// A layout that does not fit, offloaded (search/offload.hpp): the counts stay the base layout's (a
// memory reject), the fitting variant joins the candidates. True when the search may stop.
bool Walker::add_offloaded(int count_index, int recompute_option, const Estimate* base) {
  const std::optional<OffloadFit> o = fit_with_offload(s_, c_, l_, base);
  if (!o) return false;
  ++counts_.offloaded;
  col_.add_fit(count_index, c_.gpus, o->layout, recompute_option,
               objective_score(s_.req.objective, o->estimate, c_.gpus, *s_.in.hardware, s_.req.workload), o->estimate);
  if (s_.req.stop_at == StopAt::kFirstFit) found_ = true;
  return found_;
}

}  // namespace rb
