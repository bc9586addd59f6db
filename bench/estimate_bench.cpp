// Speed of one full estimate (memory of every pipeline rank, step time, derived figures) on a
// prepared model: what the planner pays per candidate layout. Figures go to BENCHMARKS.md.
//   cmake --preset release -B build/rel && cmake --build build/rel --target bench_estimate_bench
//   build/rel/bench/bench_estimate_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include "recipebook/estimate/estimate.hpp"
#include "recipebook/estimate/test_hardware.hpp"
#include "recipebook/estimate/test_models.hpp"

namespace {

using namespace rb;

void run(benchmark::State& state, const Model& model, const Hardware& hw, const Layout& l, int64_t seq, int64_t gbs) {
  const PreparedModel pm = prepare(model);
  Workload w;
  w.seq = seq;
  w.gbs = gbs;
  Cluster c;
  c.gpus = l.world();
  for (auto _ : state) {
    Estimate e = estimate(pm, hw, w, c, l);
    benchmark::DoNotOptimize(e);
  }
}

void BM_Llama70bTp4Pp4Vp5(benchmark::State& state) {
  Layout l;
  l.tp = 4;
  l.sp = true;
  l.pp = 4;
  l.vp = 5;
  l.dp = 4;
  l.precision = Precision::kFp8Cs;
  run(state, test::llama3_70b(), test::h100(), l, 8192, 256);
}
BENCHMARK(BM_Llama70bTp4Pp4Vp5);

void BM_DeepSeekV3Pp16Ep64(benchmark::State& state) {
  Layout l;
  l.pp = 16;
  l.ep = 64;
  l.dp = 64;
  l.recompute = Recompute::kSelective;
  l.recompute_modules = kRcMlaUpProj;
  l.precision = Precision::kMxfp8;
  run(state, test::deepseek_v3(), test::gb200(), l, 4096, 4096);
}
BENCHMARK(BM_DeepSeekV3Pp16Ep64);

void BM_Seed002Qwen35(benchmark::State& state) {
  run(state, test::qwen35_397b(), test::b200(), test::seed002_layout(), 8192, 128);
}
BENCHMARK(BM_Seed002Qwen35);

}  // namespace

BENCHMARK_MAIN();
