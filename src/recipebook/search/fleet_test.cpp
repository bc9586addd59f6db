#include "recipebook/search/fleet.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <optional>

#include "recipebook/estimate/test_hardware.hpp"
#include "recipebook/estimate/test_models.hpp"
#include "recipebook/search/fleet_walk.hpp"
#include "recipebook/search/test_plan.hpp"

namespace rb {
namespace {

using test::PlanSetup;

std::vector<FleetGpu> three_types() {
  std::vector<FleetGpu> g{{test::h100(), 0}, {test::b200(), 0}, {test::gb200(), 0}};
  for (FleetGpu& x : g) x.hardware.headroom_fraction = 0.05;
  return g;
}

FleetRequest small_request(std::vector<int> counts) {
  FleetRequest r;
  r.counts.list = std::move(counts);
  r.plan.workload.seq = 4096;
  r.plan.workload.gbs = 128;
  r.plan.workload.tokens_budget = 1e11;
  r.objective = Objective::kTime;
  return r;
}

// One search per type for plan_joined / plan_many: each type's inputs (sharing one prepared model,
// as plan_fleet() does) and a best-only request over `counts`.
struct PerType {
  std::vector<std::unique_ptr<PlanSetup>> setups;
  std::vector<PlanInputs> in;
  std::vector<PlanRequest> req;
  PerType(const Model& m, const std::vector<FleetGpu>& gpus, std::vector<int> counts, Objective objective) {
    for (const FleetGpu& g : gpus) {
      setups.push_back(std::make_unique<PlanSetup>(m, g.hardware));
      in.push_back(setups.back()->inputs());
      PlanRequest r = test::request(8, 4096, 128);
      r.gpu_counts = counts;
      r.best_only = true;
      r.objective = objective;
      req.push_back(r);
    }
    for (PlanInputs& x : in) x.model = in.front().model;
  }
};

// The joined walk (one enumeration for all types, memory once per layout) gives each type exactly
// what its own search gives: the counts and the best layout of each count.
TEST(Fleet, JoinedWalkEqualsOneSearchPerType) {
  const Model m = test::llama3_8b();
  std::vector<FleetGpu> gpus = three_types();
  PerType t(m, gpus, {4, 8, 16}, Objective::kThroughput);
  auto& in = t.in;
  auto& req = t.req;
  auto joined = plan_joined(in, req, 2);
  auto separate = plan_many(in, req, 1);
  ASSERT_TRUE(joined && separate);
  for (size_t i = 0; i < in.size(); ++i) {
    EXPECT_TRUE(test::same_result((*joined)[i], (*separate)[i])) << gpus[i].hardware.name;
    PlanRequest full = req[i];
    full.best_only = false;
    auto alone = plan(in[i], full);
    ASSERT_TRUE(alone);
    EXPECT_TRUE(test::same_candidates((*joined)[i].best_per_count, alone->best_per_count, "best per count"));
    EXPECT_FALSE(alone->best_per_count.empty());
  }
}

// The joined walk skips the time of fitting layouts that cannot beat the best found at their count
// (BestSoFar in fleet_walk.cpp); with and without that skip (plan_many never skips) the answer and
// the counts are the same. A MoE model with pipeline and several counts, so that the floor of the
// step time (its mean rank, the bubble) does prune.
TEST(Fleet, SkippingLayoutsThatCannotWinChangesNothing) {
  const Model m = test::qwen3_30b_a3b();
  std::vector<FleetGpu> gpus = three_types();
  PerType t(m, gpus, {8, 16}, Objective::kThroughput);
  auto& in = t.in;
  auto& req = t.req;
  for (int threads : {2}) {
    JoinedWork work;
    auto joined = plan_joined(in, req, threads, {}, &work);
    auto separate = plan_many(in, req, 1);
    ASSERT_TRUE(joined && separate);
    EXPECT_GT(work.estimates_skipped, 0u) << "the premise: the floor prunes here";
    for (size_t i = 0; i < in.size(); ++i) {
      EXPECT_TRUE(test::same_result((*joined)[i], (*separate)[i])) << gpus[i].hardware.name << ", " << threads;
      EXPECT_EQ((*joined)[i].counts.estimates, (*separate)[i].counts.estimates);
      EXPECT_EQ((*joined)[i].best_per_count.size(), 2u);
    }
  }
}

// The floor is below the step time for every layout the search meets (a sample of them here).
TEST(Fleet, StepTimeFloorIsBelowTheStepTime) {
  const PreparedModel pm = prepare(test::qwen3_30b_a3b());
  const Hardware hw = test::h100();
  Workload w;
  w.seq = 4096;
  w.gbs = 256;
  int checked = 0;
  for (const int pp : {1, 2, 4}) {
    for (const int vp : {1, 2}) {
      for (const int mbs : {1, 2}) {
        for (const Recompute rc : {Recompute::kNone, Recompute::kSelective, Recompute::kFull}) {
          Layout l;
          l.pp = pp;
          l.vp = pp > 1 ? vp : 1;
          l.tp = 2;
          l.sp = true;
          l.ep = 4;
          l.dp = 32 / (l.tp * pp);
          l.mbs = mbs;
          l.recompute = rc;
          const Cluster c{32, 8};
          const Estimate e = estimate(pm, hw, w, c, l);
          if (!e.valid) continue;
          const LayoutMemory lm = layout_memory(pm, w, c, l, hw);
          EXPECT_LE(e.tokens_per_s_per_gpu, tokens_per_s_per_gpu_ceiling(pm, hw, w, c, l, lm)) << pp << " " << vp;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 10);
}

TEST(Fleet, SameAnswerForAnyThreadCount) {
  const PreparedModel pm = prepare(test::llama3_8b());
  std::vector<FleetGpu> gpus = three_types();
  gpus[2].hardware.usd_per_gpu_hour = 6.5;
  FleetRequest req = small_request({4, 8, 16, 32});
  req.objective = Objective::kCost;
  std::optional<FleetResult> first;
  for (int threads : {1, 2, 4}) {
    req.plan.threads = threads;
    auto r = plan_fleet(pm, gpus, req);
    ASSERT_TRUE(r);
    ASSERT_GE(r->best, 0);
    if (!first) {
      first = *r;
      continue;
    }
    EXPECT_EQ(r->best, first->best) << threads;
    EXPECT_EQ(r->pareto, first->pareto) << threads;
    ASSERT_EQ(r->entries.size(), first->entries.size());
    for (size_t i = 0; i < r->entries.size(); ++i) {
      const FleetEntry& a = r->entries[i];
      const FleetEntry& b = first->entries[i];
      EXPECT_EQ(a.gpu, b.gpu);
      EXPECT_EQ(a.gpus, b.gpus);
      EXPECT_EQ(a.why, b.why);
      EXPECT_EQ(a.best.key, b.best.key) << threads << " threads, entry " << i;
      EXPECT_EQ(a.days, b.days);
      EXPECT_EQ(a.usd, b.usd);
    }
    for (size_t g = 0; g < gpus.size(); ++g) EXPECT_EQ(r->counts[g].seen, first->counts[g].seen);
  }
}

Hardware with_host(Hardware hw, double host_bytes) {
  hw.host_link_bytes_per_s = 64e9;  // PCIe Gen5 x16, one direction (catalog/hardware/h100.yaml)
  hw.host_memory_bytes = host_bytes;
  hw.host_memory_bytes_per_s = 614.4e9;
  return hw;
}

// Llama-3-70B full fine-tuning on 8 H100 fits only with host offload (search/offload_test.cpp). The
// plan across types retries such a type with offload, as plan() does, each type on its own host:
// here the first type's node has too little host memory for any offloaded layout, the second's
// enough. Before, the fleet never offloaded: both said "does not fit".
TEST(Fleet, EachTypeOffloadsOnItsOwnHost) {
  const Model m = test::llama3_70b();
  const PreparedModel pm = prepare(m);
  std::vector<FleetGpu> gpus{{with_host(test::h100(), 0.2e12), 0}, {with_host(test::h100(), 2e12), 0}};
  gpus[0].hardware.name = "H100 small host";
  for (FleetGpu& g : gpus) g.hardware.headroom_fraction = 0.05;
  FleetRequest req;
  req.counts.list = {8};
  req.plan.workload.seq = 4096;
  req.plan.workload.gbs = 32;
  req.plan.workload.mode = Mode::kSft;
  req.plan.workload.tokens_budget = 1e9;
  req.objective = Objective::kTime;
  auto r = plan_fleet(pm, gpus, req);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->entries.size(), 2u);
  for (size_t g = 0; g < gpus.size(); ++g) {
    const PlanSetup alone(m, gpus[g].hardware);
    PlanRequest p = req.plan;
    p.gpu_counts = {8};
    auto single = plan(alone.inputs(), p);
    ASSERT_TRUE(single);
    const FleetEntry& e = r->entries[g];
    ASSERT_EQ(e.has_layout, !single->best_per_count.empty()) << gpus[g].hardware.name;
    if (!e.has_layout) {
      EXPECT_EQ(e.why, kFleetNoFit);
      continue;
    }
    EXPECT_EQ(e.best.key, single->best_per_count.front().key);
    EXPECT_EQ(e.best.estimate.step_time_s, single->best_per_count.front().estimate.step_time_s);
    EXPECT_TRUE(e.best.layout.optimizer_offload_fraction > 0 || e.best.layout.offload_modules != 0);
    EXPECT_GT(e.best.estimate.time.offload_s, 0);  // priced with its transfers
    EXPECT_LE(e.best.estimate.memory.host_node_bytes, kHostUsableFraction * gpus[g].hardware.host_memory_bytes);
    EXPECT_GT(r->counts[g].offloaded, 0u);
  }
  EXPECT_FALSE(r->entries[0].has_layout) << "the premise: 0.2 TB of host memory holds no offloaded layout";
  EXPECT_TRUE(r->entries[1].has_layout);
  EXPECT_EQ(r->best, 1);

  // --offload never: no retry.
  req.plan.offload = OffloadSearch::kNever;
  auto never = plan_fleet(pm, gpus, req);
  ASSERT_TRUE(never);
  for (const FleetEntry& e : never->entries) EXPECT_EQ(e.why, kFleetNoFit);
}

// The memory of a layout, computed once for all types, takes each type's host memory and node.
TEST(Fleet, SharedMemoryTakesEachTypesHost) {
  const PreparedModel pm = prepare(test::llama3_70b());
  const Hardware small = with_host(test::h100(), 0.2e12);
  const Hardware big = with_host(test::h100(), 2e12);
  Workload w;
  w.seq = 4096;
  w.gbs = 32;
  w.mode = Mode::kSft;
  Layout l;
  l.tp = 8;
  l.sp = true;
  l.optimizer_offload_fraction = 1.0;
  const Cluster c{8, 8};
  const LayoutMemory lm = layout_memory(pm, w, c, l, small);
  const Estimate joined = estimate(pm, big, w, c, l, lm);
  const Estimate alone = estimate(pm, big, w, c, l);
  EXPECT_GT(alone.memory.host_gpu_bytes, 0);
  EXPECT_EQ(joined.memory.host_capacity_bytes, alone.memory.host_capacity_bytes);
  EXPECT_EQ(joined.memory.host_node_bytes, alone.memory.host_node_bytes);
  EXPECT_EQ(joined.memory.host_fits, alone.memory.host_fits);
  EXPECT_EQ(joined.fits(), alone.fits());
}

TEST(Fleet, FiguresAreConsistent) {
  const PreparedModel pm = prepare(test::llama3_8b());
  auto r = plan_fleet(pm, three_types(), small_request({8, 16}));
  ASSERT_TRUE(r);
  for (const FleetEntry& e : r->entries) {
    ASSERT_TRUE(e.has_layout);
    EXPECT_NEAR(e.gpu_hours, 1e11 / (e.tokens_per_s_per_gpu * 3600.0), 1e-9 * e.gpu_hours);
    EXPECT_NEAR(e.days * e.gpus * 24.0, e.gpu_hours, 1e-9 * e.gpu_hours);
    const double price = three_types()[e.gpu].hardware.usd_per_gpu_hour;
    EXPECT_NEAR(e.usd, e.gpu_hours * price, 1e-9 * e.gpu_hours * std::max(1.0, price));
  }
}

TEST(Fleet, ExclusionsSayWhy) {
  const PreparedModel pm = prepare(test::llama3_8b());
  std::vector<FleetGpu> gpus = three_types();
  // What each count gives without limits.
  auto free = plan_fleet(pm, gpus, small_request({1, 8, 16, 32}));
  ASSERT_TRUE(free);
  double min_days = 1e300, max_days = 0, min_usd = 1e300, max_usd = 0;
  for (const FleetEntry& e : free->entries) {
    if (e.gpus == 1 && e.gpu == 0) {  // 8B parameters with Adam state (~128 GB) do not fit on one H100
      EXPECT_FALSE(e.has_layout);
      EXPECT_EQ(e.why, kFleetNoFit) << gpus[e.gpu].hardware.name;
      EXPECT_EQ(fleet_why_phrases(e.why), std::vector<std::string>{"does not fit in memory"});
      continue;
    }
    if (e.gpus == 1) continue;
    ASSERT_TRUE(e.feasible());
    min_days = std::min(min_days, e.days);
    max_days = std::max(max_days, e.days);
    if (e.usd > 0) {
      min_usd = std::min(min_usd, e.usd);
      max_usd = std::max(max_usd, e.usd);
    }
  }

  FleetRequest req = small_request({1, 8, 16, 32});
  req.deadline_days = (min_days + max_days) / 2;
  req.budget_usd = (min_usd + max_usd) / 2;
  gpus[1].available = 8;  // b200: 16 and 32 are more than there are
  auto r = plan_fleet(pm, gpus, req);
  ASSERT_TRUE(r);
  bool saw_deadline = false, saw_budget = false, saw_unavailable = false;
  for (size_t i = 0; i < r->entries.size(); ++i) {
    const FleetEntry& e = r->entries[i];
    if (e.gpu == 1 && e.gpus > 8) {
      EXPECT_EQ(e.why, kFleetUnavailable);
      EXPECT_FALSE(e.searched);
      EXPECT_EQ(fleet_why_phrases(e.why), std::vector<std::string>{"more GPUs than available"});
      saw_unavailable = true;
      continue;
    }
    if (!e.has_layout) continue;
    const FleetEntry& f = free->entries[i];
    EXPECT_EQ(e.best.key, f.best.key);  // the limits exclude, they do not change the layout
    EXPECT_EQ((e.why & kFleetDeadline) != 0, e.days > req.deadline_days);
    if ((e.why & kFleetDeadline) != 0) saw_deadline = true;
    if (gpus[e.gpu].hardware.usd_per_gpu_hour > 0) {
      EXPECT_EQ((e.why & kFleetBudget) != 0, e.usd > req.budget_usd);
      if ((e.why & kFleetBudget) != 0) saw_budget = true;
    } else {
      EXPECT_EQ(e.why & kFleetNoPrice, kFleetNoPrice);  // a budget needs a price
    }
  }
  EXPECT_TRUE(saw_deadline && saw_budget && saw_unavailable);
  EXPECT_EQ(fleet_why_keys(kFleetDeadline | kFleetBudget), (std::vector<std::string>{"deadline", "budget"}));
  if (r->best >= 0) {
    const FleetEntry& b = r->entries[static_cast<size_t>(r->best)];
    EXPECT_TRUE(b.feasible());
    for (const FleetEntry& e : r->entries)
      if (e.feasible()) {
        EXPECT_LE(b.days, e.days);  // objective time
      }
  }
}

TEST(Fleet, CostObjectiveNeedsAPrice) {
  const PreparedModel pm = prepare(test::llama3_8b());
  FleetRequest req = small_request({8});
  req.objective = Objective::kCost;
  auto r = plan_fleet(pm, three_types(), req);  // gb200 has no price
  ASSERT_TRUE(r);
  ASSERT_EQ(r->entries.size(), 3u);
  EXPECT_EQ(r->entries[2].why, kFleetNoPrice);
  ASSERT_GE(r->best, 0);
  const FleetEntry& b = r->entries[static_cast<size_t>(r->best)];
  for (const FleetEntry& e : r->entries)
    if (e.feasible()) {
      EXPECT_LE(b.usd, e.usd);
    }
}

TEST(Fleet, NeedsTheTokenBudget) {
  const PreparedModel pm = prepare(test::llama3_8b());
  FleetRequest req = small_request({8});
  req.plan.workload.tokens_budget = 0;
  auto r = plan_fleet(pm, three_types(), req);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().where.str(), "--tokens");
}

FleetEntry point(size_t gpu, double days, double usd, uint32_t why = 0) {
  FleetEntry e;
  e.gpu = gpu;
  e.gpus = 8;
  e.has_layout = true;
  e.days = days;
  e.usd = usd;
  e.why = why;
  return e;
}

TEST(Fleet, ParetoFrontOfDaysAgainstUsd) {
  const std::vector<FleetEntry> entries{
      point(0, 10, 100),                  // 0: the cheapest
      point(0, 5, 200),                   // 1: the fastest
      point(1, 7, 150),                   // 2: between
      point(1, 8, 300),                   // 3: dominated by 2
      point(2, 5, 250),                   // 4: dominated by 1 (as fast, dearer)
      point(2, 3, 50, kFleetDeadline),    // 5: would dominate all, but is excluded
      point(2, 1, 0),                     // 6: no price: not on the front
      point(1, 7, 150),                   // 7: the same point as 2: the first is kept
      point(0, 12, 100),                  // 8: as cheap as 0, slower
  };
  EXPECT_EQ(fleet_pareto(entries), (std::vector<size_t>{1, 2, 0}));
}

TEST(Fleet, ObjectivesOrderAndBreakTies) {
  const FleetEntry fast = point(0, 5, 200);
  const FleetEntry cheap = point(1, 10, 100);
  EXPECT_TRUE(fleet_better(Objective::kCost, cheap, fast));
  EXPECT_TRUE(fleet_better(Objective::kTime, fast, cheap));
  FleetEntry same = point(1, 5, 200);
  EXPECT_TRUE(fleet_better(Objective::kCost, fast, same));  // type order breaks the tie
  FleetEntry a = fast, b = cheap;
  a.tokens_per_s_per_gpu = 1000;
  b.tokens_per_s_per_gpu = 2000;
  EXPECT_TRUE(fleet_better(Objective::kThroughput, b, a));
}

TEST(Fleet, RangeCountsFollowEachNodeSize) {
  FleetCounts c;
  c.lo = 64;
  c.hi = 128;
  EXPECT_EQ(c.for_node(8), gpu_counts_in_range(64, 128, 8));
  EXPECT_EQ(c.for_node(4), gpu_counts_in_range(64, 128, 4));
  FleetCounts l;
  l.list = {16, 8, 16};
  EXPECT_EQ(l.for_node(4), (std::vector<int>{8, 16}));
}

}  // namespace
}  // namespace rb
