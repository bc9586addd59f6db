#include "recipebook/search/fleet_walk.hpp"

#include <algorithm>
#include <atomic>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>

namespace rb {
namespace {

// One node (GPUs, precision, TP, CP, PP/VP) and the types whose outer walk reached it.
struct JoinedTask {
  Task task;
  std::vector<size_t> searches;  // ascending
  std::vector<int> count_index;  // the node's GPU count in each search's list
};

class FleetWalker {
 public:
  explicit FleetWalker(const std::deque<SearchSetup>& s) : s_(s), l_(base_layout()) {
    for (const SearchSetup& x : s) {
      counts_.emplace_back();
      cols_.emplace_back(x.req.top_k, x.axis, static_cast<int>(x.req.gpu_counts.size()), true);
    }
    c_.resize(s.size());
  }

  void run(const JoinedTask& t);
  [[nodiscard]] const PlanCounts& counts(size_t i) const { return counts_[i]; }
  [[nodiscard]] const Collector& collector(size_t i) const { return cols_[i]; }
  [[nodiscard]] uint64_t seen() const {
    uint64_t n = 0;
    for (const PlanCounts& c : counts_) n += c.seen;
    return n;
  }
  [[nodiscard]] uint64_t fit() const {
    uint64_t n = 0;
    for (const PlanCounts& c : counts_) n += c.fit;
    return n;
  }

 private:
  // The members (indices into the task's searches) of `in` that pass the rules of level d; the
  // others count `below` rejected layouts.
  void pass(SearchDim d, const std::vector<size_t>& in, std::vector<size_t>& out, uint64_t below) {
    out.clear();
    for (size_t m : in) {
      const size_t i = task_->searches[m];
      const SearchSetup& s = s_[i];
      const int r = first_failing(s.levels, d, *s.in.rules, s.req.workload, c_[i], l_, s.facts);
      if (r >= 0)
        counts_[i].reject(r, below);
      else
        out.push_back(m);
    }
  }
  void mbs_chain(const std::vector<size_t>& members, int recompute_option);

  const std::deque<SearchSetup>& s_;
  std::vector<PlanCounts> counts_;
  std::vector<Collector> cols_;
  std::vector<Cluster> c_;
  const JoinedTask* task_ = nullptr;
  Layout l_;
  // Scratch member lists, one per level (no allocation once warm).
  std::vector<size_t> all_, at_ep_, at_etp_, at_disp_, at_rc_, at_fsdp_, at_mbs_, need_;
};

void FleetWalker::run(const JoinedTask& jt) {
  task_ = &jt;
  const Task& t = jt.task;
  const Space& sp = s_[jt.searches.front()].space;  // equal for every type (plan_joined's contract)
  for (size_t i : jt.searches) c_[i] = s_[i].cluster(t.gpus);
  l_ = task_layout(t, s_[jt.searches.front()].req.fixed.base);  // the fixed fields are equal for every type
  all_.clear();
  for (size_t m = 0; m < jt.searches.size(); ++m) all_.push_back(m);

  // The same order and the same layout fields at each check as Walker::run (walk.cpp).
  const std::vector<int> etps = sp.etp(t.tp);
  const auto& rcs = sp.recompute();
  for (const int ep : sp.ep()) {
    const std::vector<Dispatcher> disps = sp.dispatchers(ep);
    l_.ep = ep;
    l_.etp = etps.empty() ? 1 : etps.front();
    l_.dispatcher = disps.front();
    apply_recompute(l_, rcs.front());
    l_.fsdp = false;
    l_.mbs = 1;
    pass(SearchDim::kEp, all_, at_ep_, sp.below_ep(t.tp, ep));
    if (at_ep_.empty()) continue;
    for (const int etp : etps) {
      l_.etp = etp;
      l_.dispatcher = disps.front();
      pass(SearchDim::kEtp, at_ep_, at_etp_, sp.below_etp(ep));
      if (at_etp_.empty()) continue;
      for (const Dispatcher d : disps) {
        l_.dispatcher = d;
        apply_recompute(l_, rcs.front());
        pass(SearchDim::kDispatcher, at_etp_, at_disp_, sp.below_dispatcher());
        if (at_disp_.empty()) continue;
        for (size_t ri = 0; ri < rcs.size(); ++ri) {
          apply_recompute(l_, rcs[ri]);
          l_.fsdp = false;
          pass(SearchDim::kRecompute, at_disp_, at_rc_, sp.below_recompute());
          if (at_rc_.empty()) continue;
          for (const int f : sp.fsdp()) {
            l_.fsdp = f != 0;
            pass(SearchDim::kFsdp, at_rc_, at_fsdp_, sp.below_fsdp());
            if (at_fsdp_.empty()) continue;
            mbs_chain(at_fsdp_, static_cast<int>(ri));
          }
        }
      }
    }
  }
}

void FleetWalker::mbs_chain(const std::vector<size_t>& members, int recompute_option) {
  const JoinedTask& jt = *task_;
  const SearchSetup& first = s_[jt.searches[members.front()]];
  const PreparedModel& pm = *first.in.model;
  const Workload& work = first.req.workload;  // equal for every type
  uint32_t over = 0;  // bit m: member m's smaller micro batch did not fit
  for (const int mbs : first.space.mbs()) {
    l_.mbs = mbs;
    pass(SearchDim::kMbs, members, at_mbs_, 1);
    need_.clear();
    for (size_t m : at_mbs_) {
      PlanCounts& n = counts_[jt.searches[m]];
      ++n.seen;
      if ((over & (1u << m)) != 0) {  // inferred: the closest list is not kept (best_only)
        ++n.memory;
        ++n.memory_inferred;
      } else {
        need_.push_back(m);
      }
    }
    if (need_.empty()) continue;
    const size_t i0 = jt.searches[need_.front()];
    const LayoutMemory lm = layout_memory(pm, work, c_[i0], l_, *s_[i0].in.hardware);
    for (size_t m : need_) {
      const size_t i = jt.searches[m];
      const SearchSetup& s = s_[i];
      const Hardware& hw = *s.in.hardware;
      PlanCounts& n = counts_[i];
      const Estimate e = estimate(pm, hw, work, c_[i], l_, lm);
      ++n.estimates;
      if (!e.valid) {
        ++n.estimator;
        ++n.by_estimator[static_cast<size_t>(e.reason)];
        continue;
      }
      if (!e.memory.worst.fits) {
        ++n.memory;
        over |= 1u << m;
        continue;
      }
      ++n.fit;
      cols_[i].add_fit(jt.count_index[m], c_[i].gpus, l_, recompute_option,
                       objective_score(s.req.objective, e, c_[i].gpus, hw, work), e);
    }
  }
}

struct ProgressState {
  std::mutex mutex;
  PlanProgress p;
};

}  // namespace

Result<std::vector<PlanResult>> plan_joined(const std::vector<PlanInputs>& in, const std::vector<PlanRequest>& req,
                                            int threads, const ProgressFn& progress) {
  if (in.size() != req.size()) return fail("plan: one request per search");
  if (in.size() > 32) return fail("plan: at most 32 GPU types are searched together");
  for (size_t i = 0; i < in.size(); ++i) {
    if (auto ok = validate_request(in[i], req[i]); !ok) return tl::unexpected(ok.error());
    if (!req[i].best_only || req[i].stop_at != StopAt::kNever)
      return fail("plan: the joined search keeps the best per count and never stops early");
    if (in[i].model != in[0].model) return fail("plan: the joined search is of one model");
  }
  const size_t n = in.size();
  std::deque<SearchSetup> setups;
  std::deque<Walker> outers;
  // Join the tasks of equal nodes, in the order of the node tuple (deterministic).
  using NodeKey = std::tuple<int, int, int, int, int, int>;
  std::map<NodeKey, JoinedTask> joined;
  for (size_t i = 0; i < n; ++i) {
    setups.emplace_back(in[i], req[i]);
    outers.emplace_back(setups.back());
    std::vector<Task> tasks;
    outers.back().walk_outer(tasks);
    for (const Task& t : tasks) {
      JoinedTask& jt = joined[{t.gpus, static_cast<int>(t.precision), t.tp, t.cp, t.pp, t.vp}];
      if (jt.searches.empty()) jt.task = t;
      jt.searches.push_back(i);
      jt.count_index.push_back(t.count_index);
    }
  }
  std::vector<JoinedTask> jobs;
  jobs.reserve(joined.size());
  for (auto& [key, jt] : joined) jobs.push_back(std::move(jt));

  const size_t workers = static_cast<size_t>(std::max(1, std::min<int>(threads, static_cast<int>(jobs.size()))));
  std::deque<FleetWalker> walkers;
  for (size_t k = 0; k < workers; ++k) walkers.emplace_back(setups);
  std::atomic<size_t> next{0};
  ProgressState state;
  state.p.tasks_total = jobs.size();
  for (const Walker& o : outers) state.p.seen += o.counts().seen;
  auto work = [&](FleetWalker& w) {
    for (;;) {
      const size_t j = next.fetch_add(1, std::memory_order_relaxed);
      if (j >= jobs.size()) break;
      const uint64_t seen_before = w.seen();
      const uint64_t fit_before = w.fit();
      w.run(jobs[j]);
      if (progress) {
        const std::lock_guard<std::mutex> lock(state.mutex);
        ++state.p.tasks_done;
        state.p.seen += w.seen() - seen_before;
        state.p.fit += w.fit() - fit_before;
        progress(state.p);
      }
    }
  };
  {
    std::vector<std::thread> pool;
    for (size_t k = 1; k < workers; ++k) pool.emplace_back(work, std::ref(walkers[k]));
    work(walkers[0]);
    for (auto& t : pool) t.join();
  }

  std::vector<PlanResult> out(n);
  for (size_t i = 0; i < n; ++i) {
    PlanResult& r = out[i];
    r.recompute_options = setups[i].space.recompute();
    r.pareto_axis = setups[i].axis;
    PlanCounts counts = outers[i].counts();
    Collector all = outers[i].collector();
    for (const FleetWalker& w : walkers) {
      counts.merge(w.counts(i));
      all.merge(w.collector(i));
    }
    r.tasks = static_cast<uint64_t>(std::count_if(jobs.begin(), jobs.end(), [&](const JoinedTask& jt) {
      return std::find(jt.searches.begin(), jt.searches.end(), i) != jt.searches.end();
    }));
    r.counts = counts;
    r.best_per_count = all.best_per_count();
  }
  return out;
}

}  // namespace rb
