// Speed of `plan` (search/planner.hpp): wall time of three scenarios from the issue and the
// candidates counted per second, on one thread. Models and GPUs come from the built-in catalog.
// Figures go to BENCHMARKS.md ("Planner speed"):
//   cmake --preset release -B build/plan-rel -DRB_BUILD_BENCH=ON
//   cmake --build build/plan-rel -j2 --target bench_plan_speed
//   build/plan-rel/bench/bench_plan_speed --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// Counters: seen = layouts of the space considered (rejected prefixes counted, not visited);
// estimated = full estimate() calls; fit = layouts that fit and were ranked; the *_per_s rates are
// per second of wall time on one thread.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <iostream>
#include <optional>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/estimate/prepared.hpp"
#include "recipebook/rules/prepared.hpp"
#include "recipebook/search/brute_force.hpp"
#include "recipebook/search/planner.hpp"
#include "stale_catalog.hpp"

namespace {

using namespace rb;

const Catalog& catalog() {
  static const Catalog cat = [] {
    rb::bench::warn_if_stale_catalog();
    auto c = Catalog::load();
    if (!c) {
      std::cerr << "catalog: " << c.error().str() << "\n";
      std::exit(1);
    }
    return std::move(*c);
  }();
  return cat;
}

struct Scenario {
  Model model;
  Hardware hw;
  PreparedModel pm;
  PreparedRuleModel rules;
  PlanRequest req;

  // `lo`..`hi`: one count when equal, else gpu_counts_in_range().
  Scenario(const std::string& model_name, const std::string& gpu, int lo, int hi, int64_t seq, int64_t gbs)
      : model(*catalog().find_model(model_name)), hw(*catalog().find_hardware(gpu)), pm(prepare(model)) {
    rules = prepare_rule_model(model, &hw);
    req.gpu_counts = lo == hi ? std::vector<int>{lo} : gpu_counts_in_range(lo, hi, hw.gpus_per_node);
    req.workload.seq = seq;
    req.workload.gbs = gbs;
    req.threads = 1;
  }
  Scenario(const Scenario&) = delete;  // `rules` points at `model` and `hw`
  Scenario& operator=(const Scenario&) = delete;
  [[nodiscard]] PlanInputs inputs() const { return {&pm, &rules, &hw}; }
};

void run(benchmark::State& state, Scenario& s, bool brute = false) {
  PlanCounts last;
  for (auto _ : state) {
    auto r = brute ? plan_brute_force(s.inputs(), s.req) : plan(s.inputs(), s.req);
    if (!r) {
      state.SkipWithError(r.error().str().c_str());
      return;
    }
    last = r->counts;
    benchmark::DoNotOptimize(r->top);
  }
  const auto iters = static_cast<double>(state.iterations());
  state.counters["seen"] = static_cast<double>(last.seen);
  state.counters["estimated"] = static_cast<double>(last.estimates);
  state.counters["fit"] = static_cast<double>(last.fit);
  state.counters["seen_per_s"] =
      benchmark::Counter(static_cast<double>(last.seen) * iters, benchmark::Counter::kIsRate);
  state.counters["estimated_per_s"] =
      benchmark::Counter(static_cast<double>(last.estimates) * iters, benchmark::Counter::kIsRate);
}

// (a) Llama-3.1-405B on 16,384 H100, seq 8192, GBS 2048.
void BM_Llama405B_16384xH100(benchmark::State& state) {
  static Scenario s("Llama-3.1-405B", "h100", 16384, 16384, 8192, 2048);
  run(state, s);
}
BENCHMARK(BM_Llama405B_16384xH100)->Unit(benchmark::kMillisecond)->UseRealTime();

// (b) DeepSeek-V3 on 2,048 H100, seq 4096, GBS 15,360.
void BM_DeepSeekV3_2048xH100(benchmark::State& state) {
  static Scenario s("DeepSeek-V3", "h100", 2048, 2048, 4096, 15360);
  run(state, s);
}
BENCHMARK(BM_DeepSeekV3_2048xH100)->Unit(benchmark::kMillisecond)->UseRealTime();

// (c) Qwen3-30B-A3B on 8 H100, seq 4096, GBS 512.
void BM_Qwen3_30B_A3B_8xH100(benchmark::State& state) {
  static Scenario s("Qwen3-30B-A3B", "h100", 8, 8, 4096, 512);
  run(state, s);
}
BENCHMARK(BM_Qwen3_30B_A3B_8xH100)->Unit(benchmark::kMillisecond)->UseRealTime();

// The same space without pruning: what the prefix and memory pruning save.
void BM_Qwen3_30B_A3B_8xH100_BruteForce(benchmark::State& state) {
  static Scenario s("Qwen3-30B-A3B", "h100", 8, 8, 4096, 512);
  run(state, s, true);
}
BENCHMARK(BM_Qwen3_30B_A3B_8xH100_BruteForce)->Unit(benchmark::kMillisecond)->UseRealTime();

// A range: Llama-3-70B on 64..1024 H100 (the powers of two and whole-node counts in between).
void BM_Llama70B_64to1024xH100(benchmark::State& state) {
  static Scenario s("Llama-3-70B", "h100", 64, 1024, 8192, 512);
  run(state, s);
}
BENCHMARK(BM_Llama70B_64to1024xH100)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
