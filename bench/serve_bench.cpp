// CPU cost of one `/api/estimate` request in the request handler (no sockets): JSON body in, the
// CLI's `estimate --json` out, on the server's loaded catalog. What the server pays per request
// before HTTP; the latency under load is web/test/load_bench.mjs (BENCHMARKS.md has both).
//   cmake --build build/ci --target bench_serve_bench
//   build/ci/bench/bench_serve_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <sstream>

#include "recipebook/cmd_estimate.hpp"
#include "recipebook/layout_args.hpp"
#include "recipebook/report.hpp"
#include "recipebook/serve/api.hpp"
#include "recipebook/serve/request_json.hpp"

namespace {

using namespace rb;

constexpr const char* kBody = R"({"model":"llama3-70b","gpu":"h100","gpus":64,"seq":8192,"gbs":256,"tp":4,"pp":8})";

const serve::Api& api() {
  static const serve::Api a = std::move(*serve::Api::create(serve::ApiConfig{}));
  return a;
}

// The whole handler: parse, resolve, rules, estimate, serialize.
void BM_ApiEstimate(benchmark::State& state) {
  const serve::Api& a = api();
  for (auto _ : state) {
    auto r = a.handle("POST", "/api/estimate", {}, kBody);
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_ApiEstimate)->Threads(1)->Threads(2)->UseRealTime();

// Its parts: the body into options, and the catalog lookups with the layout flags (resolve_setup).
void BM_BodyToOptions(benchmark::State& state) {
  const auto j = nlohmann::json::parse(kBody);
  for (auto _ : state) {
    auto o = serve::estimate_options_from_json(j);
    benchmark::DoNotOptimize(o);
  }
}
BENCHMARK(BM_BodyToOptions);

void BM_ResolveSetup(benchmark::State& state) {
  auto cat = Catalog::load({});
  const auto o = serve::estimate_options_from_json(nlohmann::json::parse(kBody));
  for (auto _ : state) {
    auto s = cli::resolve_setup(o->args, *cat);
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_ResolveSetup);

}  // namespace

BENCHMARK_MAIN();
