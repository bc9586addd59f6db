#include "recipebook/search/rule_levels.hpp"

#include <algorithm>
#include <bit>

#include "recipebook/rules/rule.hpp"

namespace rb {
namespace {

// The dimensions of the fields a rule reads (rules/rule.hpp `reads`); a field the layout table
// lacks: unknown.
uint32_t dims_of(const Rule& r) { return search_dims_of(r.reads).value_or(kUnknownRuleDims); }

int level_of_dims(uint32_t d) {
  if (d == kUnknownRuleDims) return kNumSearchDims - 1;
  if (d == 0) return 0;
  return 31 - std::countl_zero(d);
}

}  // namespace

uint32_t rule_dims(std::string_view id) {
  const Rule* r = find_rule(id);
  return r == nullptr ? kUnknownRuleDims : dims_of(*r);
}

int rule_level(std::string_view id) { return level_of_dims(rule_dims(id)); }

RuleLevels rule_levels(const PreparedRuleModel& pm) {
  RuleLevels out;
  out.level_of.fill(-1);
  const auto rules = all_rules();
  for (int i = 0; i < pm.fast_count; ++i) {
    const uint8_t idx = pm.fast_rules[static_cast<size_t>(i)];
    const int level = level_of_dims(dims_of(rules[idx]));
    out.by_level[static_cast<size_t>(level)].push_back(idx);
    out.level_of[idx] = static_cast<int8_t>(level);
  }
  for (auto& v : out.by_level) std::sort(v.begin(), v.end());
  return out;
}

int first_failing(const RuleLevels& levels, SearchDim level, const PreparedRuleModel& pm, const Workload& w,
                  const Cluster& c, const Layout& l, const RecordFacts& facts) {
  const auto& list = levels.by_level[static_cast<size_t>(level)];
  if (list.empty()) return -1;
  const RuleContext ctx(pm, w, c, l, facts);
  const auto rules = all_rules();
  for (const uint8_t idx : list)
    if (rules[idx].check(ctx, nullptr)) return idx;
  return -1;
}

int first_failing_any(const RuleLevels& levels, const PreparedRuleModel& pm, const Workload& w, const Cluster& c,
                      const Layout& l, const RecordFacts& facts) {
  const RuleContext ctx(pm, w, c, l, facts);
  const auto rules = all_rules();
  for (const auto& list : levels.by_level)
    for (const uint8_t idx : list)
      if (rules[idx].check(ctx, nullptr)) return idx;
  return -1;
}

}  // namespace rb
