// Which layout rules the planner can decide at which depth of its enumeration.
//
// The planner enumerates the dimensions in the order of `SearchDim` (core/layout_fields.hpp). A
// rule that reads only the outer dimensions is evaluated as soon as they are chosen; when it fails,
// every completion of that prefix is rejected at once and counted arithmetically. For the counts
// to mean the same in the pruned and the brute-force search, a rejected layout is attributed to the
// first failing rule in (level, table order), where a rule's level is the deepest dimension it reads.
//
// A rule's dimensions follow from two tables: the layout fields its row says it reads
// (rules/rule_table.cpp `reads`) and the search dimension of each field's row
// (core/layout_fields.cpp). A rule naming a field that is not a row is evaluated at the innermost
// level (always correct, only slower); one that reads a field it does not name makes the pruned
// search disagree with brute force (search/rule_levels_test.cpp and brute_force_test.cpp catch it).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "recipebook/core/layout.hpp"
#include "recipebook/core/layout_fields.hpp"  // SearchDim, dim_bit
#include "recipebook/rules/facts.hpp"
#include "recipebook/rules/prepared.hpp"
#include "recipebook/rules/rule.hpp"

namespace rb {

// The dimensions rule `id` reads (0 = none the planner varies), or kUnknownRuleDims for a rule
// not in the table or one whose `reads` names a field the layout table lacks.
inline constexpr uint32_t kUnknownRuleDims = 0xFFFFFFFFu;
uint32_t rule_dims(std::string_view id);

// The level a rule is evaluated at: its deepest dimension (kPrecision for none, kMbs for unknown).
int rule_level(std::string_view id);

// The planner's error rules (PreparedRuleModel::fast_rules) grouped by level, table order within.
struct RuleLevels {
  std::array<std::vector<uint8_t>, kNumSearchDims> by_level;
  std::array<int8_t, kRuleCapacity> level_of{};  // by rule index; -1 = not evaluated by the planner

  [[nodiscard]] bool empty(SearchDim d) const { return by_level[static_cast<size_t>(d)].empty(); }
};

RuleLevels rule_levels(const PreparedRuleModel& pm);

// The first failing rule of `level` (table order), or -1. Allocation-free.
int first_failing(const RuleLevels& levels, SearchDim level, const PreparedRuleModel& pm, const Workload& w,
                  const Cluster& c, const Layout& l, const RecordFacts& facts);

// The first failing rule of the whole layout in (level, table order), or -1: what the planner's
// counts attribute a rejected layout to (the brute-force search's definition).
int first_failing_any(const RuleLevels& levels, const PreparedRuleModel& pm, const Workload& w, const Cluster& c,
                      const Layout& l, const RecordFacts& facts);

}  // namespace rb
