#include "recipebook/search/fleet.hpp"

#include <algorithm>
#include <array>
#include <string_view>

#include "recipebook/rules/prepared.hpp"
#include "recipebook/search/fleet_walk.hpp"

namespace rb {
namespace {

constexpr std::array<std::string_view, kFleetWhyCount> kWhyPhrases{
    "the catalog has no figures for this GPU", "more GPUs than available", "no layout passes the rules",
    "does not fit in memory",                  "misses the deadline",      "over budget",
    "no price (give --price GPU=USD)"};
constexpr std::array<std::string_view, kFleetWhyCount> kWhyKeys{"no_specs", "unavailable", "no_layout", "no_fit",
                                                                 "deadline", "budget",      "no_price"};

template <typename Names>
std::vector<std::string> names_of(uint32_t why, const Names& names) {
  std::vector<std::string> out;
  for (uint32_t b = 0; b < kFleetWhyCount; ++b)
    if ((why & (1u << b)) != 0) out.emplace_back(names[b]);
  return out;
}

// Fewer days, then fewer USD, then the type order, then fewer GPUs.
bool tie_break(const FleetEntry& a, const FleetEntry& b) {
  if (a.days != b.days) return a.days < b.days;
  if (a.usd != b.usd) return a.usd < b.usd;
  if (a.gpu != b.gpu) return a.gpu < b.gpu;
  return a.gpus < b.gpus;
}

}  // namespace

std::vector<int> FleetCounts::for_node(int gpus_per_node) const {
  if (hi > 0) return gpu_counts_in_range(lo, hi, gpus_per_node);
  std::vector<int> out = list;
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::string> fleet_why_phrases(uint32_t why) { return names_of(why, kWhyPhrases); }
std::vector<std::string> fleet_why_keys(uint32_t why) { return names_of(why, kWhyKeys); }

bool fleet_better(Objective o, const FleetEntry& a, const FleetEntry& b) {
  switch (o) {
    case Objective::kCost:
      if (a.usd != b.usd) return a.usd < b.usd;
      break;
    case Objective::kTime:
      break;  // days first: the tie-break
    case Objective::kThroughput:
      if (a.tokens_per_s_per_gpu != b.tokens_per_s_per_gpu) return a.tokens_per_s_per_gpu > b.tokens_per_s_per_gpu;
      break;
  }
  return tie_break(a, b);
}

std::vector<size_t> fleet_pareto(const std::vector<FleetEntry>& entries) {
  std::vector<size_t> order;
  for (size_t i = 0; i < entries.size(); ++i)
    if (entries[i].feasible() && entries[i].usd > 0) order.push_back(i);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const FleetEntry& x = entries[a];
    const FleetEntry& y = entries[b];
    if (x.days != y.days) return x.days < y.days;
    if (x.usd != y.usd) return x.usd < y.usd;
    return a < b;
  });
  std::vector<size_t> front;
  for (size_t i : order)  // days ascending: a point is on the front when it is cheaper than all before
    if (front.empty() || entries[i].usd < entries[front.back()].usd) front.push_back(i);
  return front;
}

Result<FleetResult> plan_fleet(const PreparedModel& model, const std::vector<FleetGpu>& gpus, const FleetRequest& req,
                               const ProgressFn& progress) {
  if (gpus.empty()) return fail("no GPU type to plan for", {"--gpu"});
  if (!(req.plan.workload.tokens_budget > 0))
    return fail("a plan across GPU types needs the token budget", {"--tokens"}, "e.g. --tokens 1T");
  if (req.counts.hi <= 0 && req.counts.list.empty()) return fail("no GPU count to plan for", {"--gpus"});

  FleetResult out;
  // The searches: one per type with specs and at least one count within what is available.
  std::vector<PreparedRuleModel> rules;
  rules.reserve(gpus.size());
  std::vector<PlanInputs> inputs;
  std::vector<PlanRequest> requests;
  std::vector<size_t> search_of(gpus.size(), SIZE_MAX);
  for (size_t g = 0; g < gpus.size(); ++g) {
    const Hardware& hw = gpus[g].hardware;
    const int per_node = req.plan.gpus_per_node > 0 ? req.plan.gpus_per_node : hw.gpus_per_node;
    PlanRequest r = req.plan;
    r.gpu_counts.clear();
    r.objective = Objective::kThroughput;  // the same layout as cost or time at one count (fleet.hpp)
    r.top_k = 1;
    r.stop_at = StopAt::kNever;
    r.best_only = true;
    const bool specs = hw.has_specs && hw.memory_bytes > 0 && hw.bf16_flops_per_s > 0;
    for (const int n : req.counts.for_node(per_node)) {
      FleetEntry e;
      e.gpu = g;
      e.gpus = n;
      if (!specs) e.why |= kFleetNoSpecs;
      if (gpus[g].available > 0 && n > gpus[g].available) e.why |= kFleetUnavailable;
      e.searched = e.why == 0;
      if (e.searched) r.gpu_counts.push_back(n);
      out.entries.push_back(e);
    }
    rules.push_back(prepare_rule_model(model.model, &hw));
    if (r.gpu_counts.empty()) continue;
    search_of[g] = inputs.size();
    inputs.push_back(PlanInputs{&model, &rules.back(), &hw});
    requests.push_back(std::move(r));
  }

  auto results = plan_joined(inputs, requests, req.plan.threads, progress);
  if (!results) return tl::unexpected(results.error());

  out.counts.resize(gpus.size());
  for (size_t g = 0; g < gpus.size(); ++g)
    if (search_of[g] != SIZE_MAX) out.counts[g] = (*results)[search_of[g]].counts;
  if (!results->empty()) out.recompute_options = results->front().recompute_options;

  for (FleetEntry& e : out.entries) {
    if (!e.searched) continue;
    const Hardware& hw = gpus[e.gpu].hardware;
    const PlanResult& r = (*results)[search_of[e.gpu]];
    const auto it = std::find_if(r.best_per_count.begin(), r.best_per_count.end(),
                                 [&](const Candidate& c) { return c.gpus == e.gpus; });
    if (it == r.best_per_count.end()) {
      // Whether the type's search had any layout pass the rules (counted over all its counts).
      e.why |= r.counts.memory > 0 || r.counts.fit > 0 ? kFleetNoFit : kFleetNoLayout;
      continue;
    }
    e.has_layout = true;
    e.best = *it;
    e.tokens_per_s_per_gpu = it->estimate.tokens_per_s_per_gpu;
    e.gpu_hours = it->estimate.gpu_hours;
    e.days = it->estimate.days;
    e.usd = hw.usd_per_gpu_hour > 0 ? e.gpu_hours * hw.usd_per_gpu_hour : 0;
    if (req.deadline_days > 0 && e.days > req.deadline_days) e.why |= kFleetDeadline;
    const bool needs_price = req.objective == Objective::kCost || req.budget_usd > 0;
    if (needs_price && hw.usd_per_gpu_hour <= 0) e.why |= kFleetNoPrice;
    if (req.budget_usd > 0 && hw.usd_per_gpu_hour > 0 && e.usd > req.budget_usd) e.why |= kFleetBudget;
  }

  for (size_t i = 0; i < out.entries.size(); ++i) {
    if (!out.entries[i].feasible()) continue;
    if (out.best < 0 || fleet_better(req.objective, out.entries[i], out.entries[static_cast<size_t>(out.best)]))
      out.best = static_cast<int>(i);
  }
  out.pareto = fleet_pareto(out.entries);
  return out;
}

}  // namespace rb
