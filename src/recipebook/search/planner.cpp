#include "recipebook/search/planner.hpp"

#include <atomic>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>

#include "recipebook/search/rule_levels.hpp"
#include "recipebook/search/offload.hpp"
#include "recipebook/search/walk.hpp"

namespace rb {

Result<bool> validate_request(const PlanInputs& in, const PlanRequest& req) {
  if (in.model == nullptr || in.rules == nullptr || in.hardware == nullptr) return fail("plan: missing inputs");
  const Model& m = in.model->model;
  if (!m.has_architecture || m.layers.empty() || m.hidden <= 0)
    return fail(m.name + " has no architecture in the catalog", {}, "give the path to its Hugging Face config.json");
  const Hardware& hw = *in.hardware;
  if (!hw.has_specs || hw.memory_bytes <= 0 || hw.bf16_flops_per_s <= 0)
    return fail("the catalog has no memory or peak figures for " + hw.name, {},
                "choose a GPU with figures (recipebook list --hardware)");
  if (req.gpu_counts.empty()) return fail("no GPU count to plan for", {"--gpus"});
  for (int g : req.gpu_counts)
    if (g < 1) return fail("GPU count " + std::to_string(g) + " is not positive", {"--gpus"});
  if (req.workload.seq <= 0) return fail("the sequence length must be positive", {"--seq"});
  if (req.workload.gbs <= 0) return fail("the global batch must be positive", {"--gbs"});
  if (req.top_k < 1) return fail("--top must be at least 1", {"--top"});
  if (req.fixed.max_mbs < 1) return fail("--max-mbs must be at least 1", {"--max-mbs"});
  return true;
}

namespace {

// The progress shared by the workers.
struct ProgressState {
  std::mutex mutex;
  PlanProgress p;
};

}  // namespace

// Host offload only when nothing fits without it (search/offload.hpp): a plan that fits is never
// changed by it.
Result<PlanResult> plan(const PlanInputs& in, const PlanRequest& req, const ProgressFn& progress) {
  auto r = plan_many({in}, {req}, req.threads, progress);
  if (!r) return tl::unexpected(r.error());
  if (const auto again = offload_retry(req, r->front().counts.fit, *in.hardware)) {
    r = plan_many({in}, {*again}, req.threads, progress);
    if (!r) return tl::unexpected(r.error());
  }
  return std::move(r->front());
}

Result<std::vector<PlanResult>> plan_many(const std::vector<PlanInputs>& in, const std::vector<PlanRequest>& req,
                                          int threads, const ProgressFn& progress) {
  if (in.size() != req.size()) return fail("plan: one request per search");
  for (size_t i = 0; i < in.size(); ++i)
    if (auto ok = validate_request(in[i], req[i]); !ok) return tl::unexpected(ok.error());
  const size_t n = in.size();

  // The outer walk of each search (precision, TP, CP, PP/VP) is cheap: it yields the tasks and
  // counts the prefixes that a rule rejects. std::deque: the walkers keep references to the setups.
  std::deque<SearchSetup> setups;
  std::deque<Walker> outers;
  std::vector<std::vector<Task>> tasks(n);
  struct Job {
    size_t search;
    size_t task;
  };
  std::vector<Job> jobs;
  for (size_t i = 0; i < n; ++i) {
    setups.emplace_back(in[i], req[i]);
    outers.emplace_back(setups.back());
    outers.back().walk_outer(tasks[i]);
    for (size_t t = 0; t < tasks[i].size(); ++t) jobs.push_back({i, t});
  }

  const size_t workers = static_cast<size_t>(std::max(1, std::min<int>(threads, static_cast<int>(jobs.size()))));
  // walkers[w][i]: worker w's walker of search i, made when w first takes one of its tasks.
  std::vector<std::vector<std::optional<Walker>>> walkers(workers);
  for (auto& w : walkers) w.resize(n);

  std::atomic<size_t> next{0};
  std::vector<std::atomic<bool>> stop(n);
  for (size_t i = 0; i < n; ++i) stop[i].store(outers[i].found());
  ProgressState state;
  state.p.tasks_total = jobs.size();
  for (const Walker& o : outers) state.p.seen += o.counts().seen;
  auto work = [&](std::vector<std::optional<Walker>>& mine) {
    for (;;) {
      const size_t j = next.fetch_add(1, std::memory_order_relaxed);
      if (j >= jobs.size()) break;
      const Job job = jobs[j];
      if (stop[job.search].load(std::memory_order_relaxed)) continue;
      std::optional<Walker>& w = mine[job.search];
      if (!w) w.emplace(setups[job.search]);
      const uint64_t seen_before = w->counts().seen;
      const uint64_t fit_before = w->counts().fit;
      w->run(tasks[job.search][job.task], stop[job.search]);
      if (w->found()) stop[job.search].store(true, std::memory_order_relaxed);
      if (progress) {
        const std::lock_guard<std::mutex> lock(state.mutex);
        ++state.p.tasks_done;
        state.p.seen += w->counts().seen - seen_before;
        state.p.fit += w->counts().fit - fit_before;
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
    r.tasks = tasks[i].size();
    r.recompute_options = setups[i].space.recompute();
    r.pareto_axis = setups[i].axis;
    PlanCounts counts = outers[i].counts();
    Collector all = outers[i].collector();
    bool found = outers[i].found();
    for (const auto& mine : walkers) {
      if (!mine[i]) continue;
      counts.merge(mine[i]->counts());
      all.merge(mine[i]->collector());
      found = found || mine[i]->found();
    }
    r.counts = counts;
    r.found = found;
    r.stopped_early = req[i].stop_at != StopAt::kNever && found;
    r.top = all.top();
    r.pareto = all.pareto();
    r.best_per_count = all.best_per_count();
    r.closest = all.closest();
  }
  return out;
}

}  // namespace rb
