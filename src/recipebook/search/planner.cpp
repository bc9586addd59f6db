#include "recipebook/search/planner.hpp"

#include <atomic>
#include <mutex>
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
  for (const RecomputeOption& o : req.fixed.recompute)
    if (o.kind == Recompute::kSelective && o.modules == 0)
      return fail("a selective recompute option names no module", {"--recompute"});
  return true;
}

namespace {

// The progress shared by the workers.
struct ProgressState {
  std::mutex mutex;
  PlanProgress p;
};

}  // namespace

namespace {

Result<PlanResult> plan_once(const PlanInputs& in, const PlanRequest& req, const ProgressFn& progress) {
  const SearchSetup setup(in, req);

  // The outer walk (precision, TP, CP, PP/VP) is cheap: it yields the tasks and counts the
  // prefixes that a rule rejects.
  Walker outer(setup);
  std::vector<Task> tasks;
  outer.walk_outer(tasks);

  const size_t threads = static_cast<size_t>(std::max(1, std::min<int>(req.threads, static_cast<int>(tasks.size()))));
  std::vector<Walker> workers;
  workers.reserve(threads);
  for (size_t i = 0; i < threads; ++i) workers.emplace_back(setup);

  std::atomic<size_t> next{0};
  std::atomic<bool> stop{outer.found()};
  ProgressState state;
  state.p.tasks_total = tasks.size();
  state.p.seen = outer.counts().seen;
  auto work = [&](Walker& w) {
    uint64_t seen_before = 0;
    uint64_t fit_before = 0;
    for (;;) {
      if (stop.load(std::memory_order_relaxed)) break;
      const size_t i = next.fetch_add(1, std::memory_order_relaxed);
      if (i >= tasks.size()) break;
      w.run(tasks[i], stop);
      if (w.found()) stop.store(true, std::memory_order_relaxed);
      if (progress) {
        const std::lock_guard<std::mutex> lock(state.mutex);
        ++state.p.tasks_done;
        state.p.seen += w.counts().seen - seen_before;
        state.p.fit += w.counts().fit - fit_before;
        seen_before = w.counts().seen;
        fit_before = w.counts().fit;
        progress(state.p);
      }
    }
  };
  {
    std::vector<std::thread> pool;
    for (size_t i = 1; i < threads; ++i) pool.emplace_back(work, std::ref(workers[i]));
    work(workers[0]);
    for (auto& t : pool) t.join();
  }

  PlanResult r;
  r.tasks = tasks.size();
  r.recompute_options = setup.space.recompute();
  r.pareto_axis = setup.axis;
  PlanCounts counts = outer.counts();
  Collector all = outer.collector();
  bool found = outer.found();
  for (const Walker& w : workers) {
    counts.merge(w.counts());
    all.merge(w.collector());
    found = found || w.found();
  }
  r.counts = counts;
  r.found = found;
  r.stopped_early = req.stop_at != StopAt::kNever && found;
  r.top = all.top();
  r.pareto = all.pareto();
  r.best_per_count = all.best_per_count();
  r.closest = all.closest();
  return r;
}

}  // namespace

// Host offload only when nothing fits without it (search/offload.hpp): a plan that fits is never
// changed by it.
Result<PlanResult> plan(const PlanInputs& in, const PlanRequest& req, const ProgressFn& progress) {
  if (auto ok = validate_request(in, req); !ok) return tl::unexpected(ok.error());
  auto r = plan_once(in, req, progress);
  if (!r) return r;
  if (const auto again = offload_retry(req, r->counts.fit, *in.hardware)) return plan_once(in, *again, progress);
  return r;
}

}  // namespace rb
