#include "recipebook/search/fleet_walk.hpp"

#include <algorithm>
#include <atomic>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <tuple>

#include "recipebook/search/offload.hpp"

namespace rb {
namespace {

// One node (GPUs, precision, TP, CP, PP/VP) and the types whose outer walk reached it.
struct JoinedTask {
  Task task;
  std::vector<size_t> searches;  // ascending
  std::vector<int> count_index;  // the node's GPU count in each search's list
};

// The most tokens/s per GPU found so far at each search and count, shared by the workers: a layout
// whose ceiling (estimate.hpp tokens_per_s_per_gpu_ceiling) is below it cannot be the best of its
// count, so its time is not computed. Which layouts are skipped depends on the order the workers
// meet them; the best of each count does not (only strictly slower layouts are skipped).
class BestSoFar {
 public:
  explicit BestSoFar(const std::deque<SearchSetup>& s) {
    size_t n = 0;
    for (const SearchSetup& x : s) {
      first_.push_back(n);
      n += x.req.gpu_counts.size();
    }
    tps_ = std::make_unique<std::atomic<double>[]>(n);
    for (size_t i = 0; i < n; ++i) tps_[i].store(0.0, std::memory_order_relaxed);
  }
  [[nodiscard]] double get(size_t search, int count_index) const {
    return slot(search, count_index).load(std::memory_order_relaxed);
  }
  void raise(size_t search, int count_index, double tps) {
    std::atomic<double>& a = slot(search, count_index);
    double cur = a.load(std::memory_order_relaxed);
    while (tps > cur && !a.compare_exchange_weak(cur, tps, std::memory_order_relaxed)) {
    }
  }

 private:
  [[nodiscard]] std::atomic<double>& slot(size_t search, int count_index) const {
    return tps_[first_[search] + static_cast<size_t>(count_index)];
  }
  std::vector<size_t> first_;
  std::unique_ptr<std::atomic<double>[]> tps_;
};

class FleetWalker {
 public:
  FleetWalker(const std::deque<SearchSetup>& s, BestSoFar& best) : s_(s), best_(best), l_(base_layout()) {
    for (const SearchSetup& x : s) {
      counts_.emplace_back();
      cols_.emplace_back(x.req.top_k, x.axis, static_cast<int>(x.req.gpu_counts.size()), true);
      // The ceiling bounds tokens/s per GPU, which is the objective plan_fleet() searches with.
      prune_.push_back(x.req.objective == Objective::kThroughput);
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
  [[nodiscard]] uint64_t skipped() const { return skipped_; }

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
  void add(size_t i, int count_index, const Layout& l, int recompute_option, const Estimate& e);
  void add_offloaded(size_t m, int recompute_option, const Estimate* base = nullptr);

  const std::deque<SearchSetup>& s_;
  BestSoFar& best_;
  std::vector<PlanCounts> counts_;
  std::vector<Collector> cols_;
  std::vector<bool> prune_;
  uint64_t skipped_ = 0;  // fitting layouts whose time was not computed (BestSoFar)
  std::vector<Cluster> c_;
  const JoinedTask* task_ = nullptr;
  Layout l_;
  StagePlan plan_;   // the task's (every layout below a PP/VP node has its stages)
  StageSums sums_;   // plan_.sums
  // Scratch member lists, one per level (no allocation once warm).
  std::vector<size_t> all_, at_ep_, at_etp_, at_disp_, at_rc_, at_fsdp_, at_mbs_, need_;
};

void FleetWalker::run(const JoinedTask& jt) {
  task_ = &jt;
  const Task& t = jt.task;
  const Space& sp = s_[jt.searches.front()].space;  // equal for every type (plan_joined's contract)
  for (size_t i : jt.searches) c_[i] = s_[i].cluster(t.gpus);
  l_ = task_layout(t, s_[jt.searches.front()].req.fixed.base);  // the fixed fields are equal for every type
  const PreparedModel& pm = *s_[jt.searches.front()].in.model;
  plan_ = plan_stages(pm.num_layers, l_);
  sums_ = stage_sums(pm, plan_);
  if (plan_.ok) plan_.sums = &sums_;
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

// As Walker::mbs_chain (walk.cpp) for every member: the same counts, the same candidates.
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
        add_offloaded(m, recompute_option);
      } else {
        need_.push_back(m);
      }
    }
    if (need_.empty()) continue;
    const size_t i0 = jt.searches[need_.front()];
    const LayoutMemory lm = layout_memory(pm, work, c_[i0], l_, *s_[i0].in.hardware, plan_);
    for (size_t m : need_) {
      const size_t i = jt.searches[m];
      const SearchSetup& s = s_[i];
      const Hardware& hw = *s.in.hardware;
      PlanCounts& n = counts_[i];
      const int ci = jt.count_index[m];
      ++n.estimates;
      if (prune_[i]) {
        const double best = best_.get(i, ci);
        const MemoryVerdict v = memory_verdict(pm, hw, l_, lm);
        if (best > 0 && v.reason == InvalidReason::kNone && v.fits &&
            tokens_per_s_per_gpu_ceiling(pm, hw, work, c_[i], l_, lm) < best) {
          ++n.fit;  // counted as the estimate would count it; it cannot be the best of its count
          ++skipped_;
          continue;
        }
      }
      const Estimate e = estimate(pm, hw, work, c_[i], l_, lm);
      if (!e.valid) {
        ++n.estimator;
        ++n.by_estimator[static_cast<size_t>(e.reason)];
        continue;
      }
      if (!e.memory.worst.fits) {
        ++n.memory;
        over |= 1u << m;
        add_offloaded(m, recompute_option, &e);
        continue;
      }
      ++n.fit;
      add(i, ci, l_, recompute_option, e);
    }
  }
}

void FleetWalker::add(size_t i, int count_index, const Layout& l, int recompute_option, const Estimate& e) {
  const SearchSetup& s = s_[i];
  cols_[i].add_fit(count_index, c_[i].gpus, l, recompute_option,
                   objective_score(s.req.objective, e, c_[i].gpus, *s.in.hardware, s.req.workload), e);
  best_.raise(i, count_index, e.tokens_per_s_per_gpu);
}

// Member m's layout did not fit: its offloaded variant (search/offload.hpp, each type on its own
// host memory and link) joins the candidates, as in Walker::add_offloaded.
void FleetWalker::add_offloaded(size_t m, int recompute_option, const Estimate* base) {
  const size_t i = task_->searches[m];
  const std::optional<OffloadFit> o = fit_with_offload(s_[i], c_[i], l_, base);
  if (!o) return;
  ++counts_[i].offloaded;
  add(i, task_->count_index[m], o->layout, recompute_option, o->estimate);
}

struct ProgressState {
  std::mutex mutex;
  PlanProgress p;
};

// One joined pass over the searches (no offload retry).
std::vector<PlanResult> walk_joined(const std::vector<PlanInputs>& in, const std::vector<PlanRequest>& req,
                                    int threads, const ProgressFn& progress, JoinedWork* work_done) {
  const size_t n = in.size();
  std::deque<SearchSetup> setups;
  std::deque<Walker> outers;
  // Join the tasks of equal nodes, in the order of the node tuple (deterministic).
  using NodeKey = std::tuple<int, int, int, int, int, int, int>;
  std::map<NodeKey, JoinedTask> joined;
  for (size_t i = 0; i < n; ++i) {
    setups.emplace_back(in[i], req[i]);
    outers.emplace_back(setups.back());
    std::vector<Task> tasks;
    outers.back().walk_outer(tasks);
    for (const Task& t : tasks) {
      JoinedTask& jt = joined[{t.gpus, static_cast<int>(t.precision), t.tp, t.cp, static_cast<int>(t.cp_comm), t.pp, t.vp}];
      if (jt.searches.empty()) jt.task = t;
      jt.searches.push_back(i);
      jt.count_index.push_back(t.count_index);
    }
  }
  std::vector<JoinedTask> jobs;
  jobs.reserve(joined.size());
  for (auto& [key, jt] : joined) jobs.push_back(std::move(jt));

  const size_t workers = static_cast<size_t>(std::max(1, std::min<int>(threads, static_cast<int>(jobs.size()))));
  BestSoFar best(setups);
  std::deque<FleetWalker> walkers;
  for (size_t k = 0; k < workers; ++k) walkers.emplace_back(setups, best);
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
  if (work_done != nullptr)
    for (const FleetWalker& w : walkers) work_done->estimates_skipped += w.skipped();
  return out;
}

}  // namespace

Result<std::vector<PlanResult>> plan_joined(const std::vector<PlanInputs>& in, const std::vector<PlanRequest>& req,
                                            int threads, const ProgressFn& progress, JoinedWork* work_done) {
  if (in.size() != req.size()) return fail("plan: one request per search");
  if (in.size() > 32) return fail("plan: at most 32 GPU types are searched together");
  for (size_t i = 0; i < in.size(); ++i) {
    if (auto ok = validate_request(in[i], req[i]); !ok) return tl::unexpected(ok.error());
    if (!req[i].best_only || req[i].stop_at != StopAt::kNever)
      return fail("plan: the joined search keeps the best per count and never stops early");
    if (in[i].model != in[0].model) return fail("plan: the joined search is of one model");
  }
  std::vector<PlanResult> out = walk_joined(in, req, threads, progress, work_done);
  // As plan(): a type on which nothing fits is searched again with host offload (search/offload.hpp),
  // all such types in one more joined pass.
  std::vector<size_t> again;
  std::vector<PlanInputs> in2;
  std::vector<PlanRequest> req2;
  for (size_t i = 0; i < in.size(); ++i) {
    if (auto r = offload_retry(req[i], out[i].counts.fit, *in[i].hardware)) {
      again.push_back(i);
      in2.push_back(in[i]);
      req2.push_back(std::move(*r));
    }
  }
  if (!again.empty()) {
    std::vector<PlanResult> second = walk_joined(in2, req2, threads, progress, work_done);
    for (size_t k = 0; k < again.size(); ++k) out[again[k]] = std::move(second[k]);
  }
  return out;
}

}  // namespace rb
