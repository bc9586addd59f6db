#include "recipebook/search/advice.hpp"

#include <algorithm>

#include "recipebook/search/rule_levels.hpp"
#include "recipebook/search/walk.hpp"

namespace rb {

uint32_t fixed_search_dims(const Space& space) {
  uint32_t searched = 0;
  uint32_t open = 0;
  for (const LayoutField& r : layout_fields()) {
    if (!plan_searches(r)) continue;
    searched |= dim_bit(r.search);
    if (!space.single(r)) open |= dim_bit(r.search);
  }
  return searched & ~open;
}

namespace {

std::string degrees_str(const Constraints& f) {
  std::string s;
  auto add = [&](const char* name, int v) {
    if (v <= 0) return;
    if (!s.empty()) s += " x ";
    s += std::string(name) + " " + std::to_string(v);
  };
  add("TP", f.fixed("tp"));
  add("CP", f.fixed("cp"));
  add("PP", f.fixed("pp"));
  add("DP", f.dp);
  return s;
}

int64_t fixed_product(const Constraints& f) {
  return static_cast<int64_t>(std::max(1, f.fixed("tp"))) * std::max(1, f.fixed("cp")) * std::max(1, f.fixed("pp")) *
         std::max(1, f.dp);
}

}  // namespace

std::vector<Finding> fixed_conflicts(const PlanInputs& in, const PlanRequest& req) {
  std::vector<Finding> out;
  const Constraints& f = req.fixed;
  const int64_t product = fixed_product(f);
  // With DP fixed too, the degrees multiply out to the GPU count; else their product divides it.
  auto fits = [&](int n) { return f.dp > 0 ? n == product : n % product == 0; };
  if (product > 1 && std::none_of(req.gpu_counts.begin(), req.gpu_counts.end(), fits)) {
    Finding x;
    x.rule_id = "RB-WORLD-DIVISIBLE";
    x.severity = Severity::kError;
    const std::string counts =
        req.gpu_counts.size() == 1 ? std::to_string(req.gpu_counts.front()) + " GPUs" : "any GPU count of the range";
    x.message = "the fixed degrees " + degrees_str(f) + " = " + std::to_string(product) +
                (f.dp > 0 ? " are not " : " do not divide ") + counts;
    x.fix = f.dp > 0 ? "give degrees whose product with DP is the GPU count, or leave DP free"
                     : "fix degrees whose product divides the GPU count, or leave some of them free";
    x.field = "--gpus";
    out.push_back(x);
    return out;
  }
  const SearchSetup s(in, req);
  const uint32_t known = fixed_search_dims(s.space);
  const auto rules = all_rules();
  std::vector<int> failing_everywhere;
  bool first = true;
  std::vector<Finding> first_findings;
  for (const int n : req.gpu_counts) {
    if (product > 1 && !fits(n)) continue;
    // Each searched field at its first allowed value (the base layout's where the user gave none),
    // then what follows from them: SP, the stage split, DP, the recompute option.
    Layout l = req.fixed.base;
    for (const LayoutField& r : layout_fields())
      if (const auto& v = f.values(r.key); plan_searches(r) && !v.empty()) set_search_value(r, l, v.front());
    l.sp = l.tp > 1;
    l.vp = s.space.vp(l.pp).front();
    const StageSplit split = stage_split(s.space.layers(), l.pp, l.vp);
    apply_stage_split(l, split);
    l.dp = std::max(1, n / (l.tp * l.cp * l.pp));
    apply_recompute(l, s.space.recompute().front());
    const Cluster c = s.cluster(n);
    const RuleContext ctx(*in.rules, req.workload, c, l, s.facts);
    std::vector<int> failing;
    for (int i = 0; i < in.rules->fast_count; ++i) {
      const uint8_t idx = in.rules->fast_rules[static_cast<size_t>(i)];
      const uint32_t dims = rule_dims(rules[idx].id);
      if (dims == kUnknownRuleDims || (dims & ~known) != 0) continue;
      Finding x;
      if (!rules[idx].check(ctx, &x)) continue;
      failing.push_back(idx);
      if (first) {
        x.rule_id = std::string(rules[idx].id);
        x.severity = rules[idx].severity;
        if (x.fix.empty()) x.fix = std::string(rules[idx].fix);
        if (x.message.empty()) x.message = std::string(rules[idx].summary);
        first_findings.push_back(x);
      }
    }
    if (first) {
      failing_everywhere = failing;
    } else {
      std::erase_if(failing_everywhere,
                    [&](int idx) { return std::find(failing.begin(), failing.end(), idx) == failing.end(); });
    }
    first = false;
  }
  for (const Finding& x : first_findings)
    if (std::find(failing_everywhere.begin(), failing_everywhere.end(), rule_index(x.rule_id)) !=
        failing_everywhere.end())
      out.push_back(x);
  return out;
}

namespace {

// Searches a relaxed request; records it when something fits.
void try_relaxed(const PlanInputs& in, PlanRequest req, std::string change, PlanAdvice& advice) {
  req.top_k = 1;
  req.stop_at = StopAt::kNever;
  auto r = plan(in, req);
  // What fits counts what fits with host offload (a relaxed search that finds nothing else offloads).
  if (!r || r->counts.fit + r->counts.offloaded == 0) return;
  Relaxation x;
  x.change = std::move(change);
  x.fit = r->counts.fit + r->counts.offloaded;
  if (!r->top.empty()) x.best = r->top.front();
  advice.relaxations.push_back(std::move(x));
}

bool exists(const PlanInputs& in, PlanRequest req, int gpus, StopAt what) {
  req.gpu_counts = {gpus};
  req.stop_at = what;
  auto r = plan(in, req);
  return r && r->found;
}

}  // namespace

bool wants_advice(const PlanResult& result) {
  return result.top.empty() || (result.counts.fit == 0 && result.counts.offloaded > 0);
}

PlanAdvice advise(const PlanInputs& in, const PlanRequest& asked, const PlanResult& result) {
  PlanAdvice a;
  a.rules_block_all = result.counts.rules == result.counts.seen;
  // Everything that fits is offloaded: what would fit on the GPU alone (the relaxed searches would
  // otherwise offload again and answer the question the plan already answered).
  a.without_offload = !result.top.empty() && result.counts.fit == 0 && result.counts.offloaded > 0;
  PlanRequest req = asked;
  if (a.without_offload) req.offload = OffloadSearch::kNever;
  const Constraints& f = req.fixed;
  const int largest = *std::max_element(req.gpu_counts.begin(), req.gpu_counts.end());
  if (a.rules_block_all) {
    const int smallest = *std::min_element(req.gpu_counts.begin(), req.gpu_counts.end());
    for (int n = smallest - 1; n >= std::max(1, smallest - 64) && a.usable_below == 0; --n)
      if (exists(in, req, n, StopAt::kFirstValid)) a.usable_below = n;
    for (int n = largest + 1; n <= largest + 64 && a.usable_above == 0; ++n)
      if (exists(in, req, n, StopAt::kFirstValid)) a.usable_above = n;
  }
  const auto& rc = f.values("recompute");
  if (!rc.empty() && std::none_of(rc.begin(), rc.end(),
                                  [](SearchValue v) { return recompute_value_kind(v) == Recompute::kFull; })) {
    PlanRequest r = req;
    r.fixed.unfix("recompute");
    try_relaxed(in, r, "allow every recompute option (full recompute included)", a);
  }
  if (const int mbs = f.fixed("mbs"); mbs > 1) {
    PlanRequest r = req;
    r.fixed.unfix("mbs");
    r.fixed.max_mbs = mbs - 1;
    try_relaxed(in, r, "a micro batch below " + std::to_string(mbs), a);
  }
  if (f.values("fsdp") == std::vector<SearchValue>{0}) {
    PlanRequest r = req;
    r.fixed.unfix("fsdp");
    try_relaxed(in, r, "allow FSDP", a);
  }
  constexpr std::string_view kDegrees[] = {"tp", "cp", "pp", "vp", "ep", "etp"};
  if (f.dp > 0 || std::any_of(std::begin(kDegrees), std::end(kDegrees), [&](auto k) { return !f.values(k).empty(); })) {
    PlanRequest r = req;
    for (const std::string_view k : kDegrees) r.fixed.unfix(k);
    r.fixed.dp = 0;
    try_relaxed(in, r, "leave TP, CP, PP, VP, EP, ETP and DP free", a);
  }
  // More GPUs: the first doubling of the largest count where a layout fits (fixed degrees kept).
  // Not when the rules reject every layout: the nearest usable counts answer that.
  for (int k = 1; k <= 6 && !a.rules_block_all; ++k) {
    const int64_t n = static_cast<int64_t>(largest) << k;
    if (n > (1 << 20)) break;
    a.most_gpus_tried = static_cast<int>(n);
    if (!exists(in, req, static_cast<int>(n), StopAt::kFirstFit)) continue;
    PlanRequest r = req;
    r.gpu_counts = {static_cast<int>(n)};
    try_relaxed(in, r, std::to_string(n) + " GPUs", a);
    break;
  }
  return a;
}

}  // namespace rb
