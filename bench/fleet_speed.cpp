// Speed of the plan across GPU types (search/fleet.hpp, issue 15) against the single-type plans it
// replaces, measured in the same run:
//   (a) Llama-3-70B, seq 8192, GBS 512, 64..1024 GPUs of h100, h200, b200, b300, gb200, gb300: one
//       plan_fleet() against the sum of six plan() calls (the same counts, today's defaults: top 5,
//       Pareto front, closest list), both on the same number of threads. Target: fleet <= 0.7 x sum.
//   (b) DeepSeek-V3, seq 4096, GBS 15,360, 256..2048 GPUs of the same six types: one plan_fleet().
//       Target: 10 s on the 2-core machine.
// Wall and process CPU time, the median of --reps runs (default 3). Figures go to BENCHMARKS.md:
//   cmake --build build/ci --target bench_fleet_speed
//   build/ci/bench/bench_fleet_speed [--threads N] [--reps N]
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/estimate/prepared.hpp"
#include "recipebook/rules/prepared.hpp"
#include "recipebook/search/fleet.hpp"
#include "recipebook/search/planner.hpp"
#include "stale_catalog.hpp"

namespace {

using namespace rb;

const std::vector<std::string> kTypes{"h100", "h200", "b200", "b300", "gb200", "gb300"};

struct Times {
  double wall_s = 0;
  double cpu_s = 0;
};

double cpu_now_s() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

template <typename F>
Times timed(F&& f) {
  const auto w0 = std::chrono::steady_clock::now();
  const double c0 = cpu_now_s();
  f();
  return {std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count(), cpu_now_s() - c0};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Scenario {
  Model model;
  std::vector<FleetGpu> gpus;
  PreparedModel pm;
  FleetRequest req;

  Scenario(const Catalog& cat, const std::string& name, int lo, int hi, int64_t seq, int64_t gbs, int threads)
      : model(*cat.find_model(name)), pm(prepare(model)) {
    for (const std::string& t : kTypes) {
      auto hw = cat.find_hardware(t);
      if (!hw) {
        std::cerr << hw.error().str() << "\n";
        std::exit(1);
      }
      hw->headroom_fraction = 0.05;  // what plan's default --headroom gives (kDefaultHeadroom)
      gpus.push_back({*hw, 0});
    }
    req.counts.lo = lo;
    req.counts.hi = hi;
    req.plan.workload.seq = seq;
    req.plan.workload.gbs = gbs;
    req.plan.workload.tokens_budget = 1e12;
    req.plan.threads = threads;
    req.objective = Objective::kTime;
  }

  [[nodiscard]] size_t fleet() const {
    auto r = plan_fleet(pm, gpus, req);
    if (!r) {
      std::cerr << r.error().str() << "\n";
      std::exit(1);
    }
    return r->entries.size();
  }

  // The six plans a user runs today, one `plan --gpu T --gpus lo..hi` each (the model prepared
  // once per plan, as the CLI does).
  [[nodiscard]] size_t singles() const {
    size_t found = 0;
    for (const FleetGpu& g : gpus) {
      const PreparedModel p = prepare(model);
      const PreparedRuleModel rules = prepare_rule_model(model, &g.hardware);
      PlanRequest r = req.plan;
      r.gpu_counts = gpu_counts_in_range(req.counts.lo, req.counts.hi, g.hardware.gpus_per_node);
      auto res = plan({&p, &rules, &g.hardware}, r);
      if (!res) {
        std::cerr << res.error().str() << "\n";
        std::exit(1);
      }
      found += res->best_per_count.size();
    }
    return found;
  }
};

}  // namespace

int main(int argc, char** argv) {
  int threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  int reps = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--threads") == 0) threads = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--reps") == 0) reps = std::atoi(argv[i + 1]);
  }
  rb::bench::warn_if_stale_catalog();
  auto cat = Catalog::load();
  if (!cat) {
    std::cerr << "catalog: " << cat.error().str() << "\n";
    return 1;
  }
  std::cout << "threads " << threads << ", repetitions " << reps << " (medians)\n";

  const Scenario a(*cat, "Llama-3-70B", 64, 1024, 8192, 512, threads);
  std::vector<double> sw, sc, fw, fc;
  for (int i = 0; i < reps; ++i) {  // alternated, so that a change of load hits both
    const Times s = timed([&] { (void)a.singles(); });
    const Times f = timed([&] { (void)a.fleet(); });
    sw.push_back(s.wall_s);
    sc.push_back(s.cpu_s);
    fw.push_back(f.wall_s);
    fc.push_back(f.cpu_s);
  }
  std::printf("(a) Llama-3-70B x 6 types x 64..1024: six plans %.3f s wall (%.3f s CPU), fleet %.3f s wall "
              "(%.3f s CPU): fleet / six = %.2f wall, %.2f CPU (target <= 0.70)\n",
              median(sw), median(sc), median(fw), median(fc), median(fw) / median(sw), median(fc) / median(sc));

  const Scenario b(*cat, "DeepSeek-V3", 256, 2048, 4096, 15360, threads);
  std::vector<double> bw, bc;
  size_t entries = 0;
  for (int i = 0; i < reps; ++i) {
    const Times f = timed([&] { entries = b.fleet(); });
    bw.push_back(f.wall_s);
    bc.push_back(f.cpu_s);
  }
  std::printf("(b) DeepSeek-V3 x 6 types x 256..2048 (%zu type/count entries): fleet %.3f s wall (%.3f s CPU) "
              "(target <= 10 s wall)\n",
              entries, median(bw), median(bc));
  return 0;
}
