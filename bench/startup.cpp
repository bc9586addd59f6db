// Start-up: what every command pays before it does its work, the built-in catalog made ready
// (Catalog::load). The phases are timed apart: yaml-cpp parsing of every embedded YAML file (what
// the build now does once, apps/pack_catalog), unpacking the trees it packed (what a start does
// instead), the whole load, the load as a command that reads no recipe pays it (the built-in recipes
// are made ready on first use since 2026-12-01; on an older tree this is the whole load), as one
// that reads recipes but not problems() pays it, and the schema check of every record alone.
// Figures go to BENCHMARKS.md ("Start-up"):
//   cmake --preset release -B build/rel -DRB_BUILD_BENCH=ON
//   cmake --build build/rel -j2 --target bench_startup
//   build/rel/bench/bench_startup --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <iostream>
#include <vector>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/catalog/embedded.hpp"
#if __has_include("recipebook/catalog/packed_tree.hpp")  // absent before 2026-12-01: build this on the old tree too
#include "recipebook/catalog/packed_tree.hpp"
#define RB_HAVE_PACKED_TREES 1
#endif
#include "recipebook/catalog/yaml_tree.hpp"
#include "stale_catalog.hpp"

namespace {

using namespace rb;

bool is_record(std::string_view path) {
  return path.size() > 5 && path.substr(path.size() - 5) == ".yaml" && path.rfind("schema/", 0) != 0 &&
         path.rfind("models/hf/", 0) != 0;
}

// Parsing the embedded YAML text with yaml-cpp, every record file.
void BM_ParseYaml(benchmark::State& state) {
  size_t bytes = 0;
  for (auto _ : state) {
    for (const EmbeddedFile& f : embedded_catalog()) {
      if (!is_record(f.path)) continue;
      auto tree = parse_yaml(f.text, std::string(f.path));
      if (!tree) state.SkipWithError("a built-in file does not parse");
      bytes += f.text.size();
      benchmark::DoNotOptimize(tree);
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}
BENCHMARK(BM_ParseYaml)->Unit(benchmark::kMillisecond);

#ifdef RB_HAVE_PACKED_TREES
// What replaced it: unpacking the trees the build parsed (embedded_trees()), every YAML file.
void BM_UnpackTrees(benchmark::State& state) {
  const auto files = embedded_catalog();
  const auto trees = embedded_trees();
  if (trees.size() != files.size()) {
    state.SkipWithError("no packed trees in this build");
    return;
  }
  for (auto _ : state) {
    for (size_t i = 0; i < files.size(); ++i) {
      if (trees[i].empty()) continue;
      auto tree = unpack_tree(trees[i], std::string(files[i].path));
      if (!tree) state.SkipWithError("a packed tree does not unpack");
      benchmark::DoNotOptimize(tree);
    }
  }
}
BENCHMARK(BM_UnpackTrees)->Unit(benchmark::kMillisecond);
#endif

// The built-in load as `show h100`, `estimate` or `list --hardware` pay it: no recipe read.
void BM_CatalogLoadNoRecipe(benchmark::State& state) {
  for (auto _ : state) {
    auto cat = Catalog::load();
    if (!cat || cat->models().empty()) state.SkipWithError("the built-in catalog does not load");
    benchmark::DoNotOptimize(cat);
  }
}
BENCHMARK(BM_CatalogLoadNoRecipe)->Unit(benchmark::kMillisecond);

// The built-in load as `list`, `show <recipe>` or `recommend` pay it: every recipe made ready, no
// problems() asked (since 2026-12-01 the built-in records' schema check, done by the build on the
// same trees, waits for problems(); on an older tree this is the whole load).
void BM_CatalogLoadRecipes(benchmark::State& state) {
  for (auto _ : state) {
    auto cat = Catalog::load();
    if (!cat || cat->recipes().empty()) state.SkipWithError("the built-in catalog does not load");
    benchmark::DoNotOptimize(cat);
  }
}
BENCHMARK(BM_CatalogLoadRecipes)->Unit(benchmark::kMillisecond);

// The whole built-in load with problems() (`check --builtin`): every recipe, every schema check.
void BM_CatalogLoad(benchmark::State& state) {
  for (auto _ : state) {
    auto cat = Catalog::load();
    if (!cat || !cat->problems().empty()) state.SkipWithError("the built-in catalog has problems");
    benchmark::DoNotOptimize(cat);
  }
}
BENCHMARK(BM_CatalogLoad)->Unit(benchmark::kMillisecond);

// Every built-in record checked against its schema again (what `check --builtin` adds).
void BM_SchemaCheckAll(benchmark::State& state) {
  auto cat = Catalog::load();
  if (!cat) {
    state.SkipWithError("catalog does not load");
    return;
  }
  for (auto _ : state) {
    size_t findings = 0;
    for (const auto& e : cat->models()) findings += cat->schema(EntryKind::kModel)->validate(e.tree).size();
    for (const auto& e : cat->hardware())
      findings += cat->schema(EntryKind::kHardware)->validate(e.tree).size();
    for (const auto& e : cat->recipes()) findings += cat->schema(EntryKind::kRecipe)->validate(e.tree).size();
    benchmark::DoNotOptimize(findings);
  }
}
BENCHMARK(BM_SchemaCheckAll)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  rb::bench::warn_if_stale_catalog();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
