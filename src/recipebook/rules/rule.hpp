// Every layout rule and pitfall as data: one row per rule in a static table (rule_table.cpp), each
// row naming the check function that detects it. `check_layout` (full findings, for `check`,
// `estimate` and `recommend`) and `layout_allowed` (the planner's allocation-free fast path) both
// walk this one table, so they cannot disagree about what a rule means.
//
// How to add a rule (three steps, nothing else to touch):
//   1. Write its check function in the checks_*.cpp file of its group and declare it in checks.hpp:
//        bool check_my_rule(const RuleContext& ctx, Finding* out);
//      It returns true when the rule is violated. Only when `out` is non-null does it fill
//      out->message / out->fix / out->field with the actual numbers; with `out == nullptr` it must
//      not allocate (the planner calls it millions of times a second).
//   2. Add one row to kRules in rule_table.cpp: id, severity, scope, summary, generic fix, source,
//      check function, and the layout fields its verdict reads (keys of core/layout_fields.cpp, "dp"
//      for DP). Put it after the rules it depends on (the planner attributes a rejected layout to the
//      first failing error rule in table order, and evaluates it as soon as the search dimensions of
//      those fields are chosen: search/rule_levels.hpp).
//   3. Add tests/invalid/<ID>.yaml (a recipe record violating exactly that rule, first line
//      `# expect: <ID> line N`) and a violating case plus a passing neighbour in
//      rule_cases_test.cpp. rules_test.cpp fails until all three exist and docs/rules.md lists
//      the id (UPDATE_RULES_DOC=1 regenerates the table there).
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "recipebook/core/diagnostic.hpp"

namespace rb {

// What a rule needs to be evaluated. The planner evaluates kLayout and kHardware error rules on
// every candidate; kRecord rules need facts only a recipe record carries (env, kernels, stack
// versions, framework settings, the catalog) and never fire when those facts are absent.
enum class RuleScope {
  kLayout,    // model + workload + cluster + layout
  kHardware,  // also needs the GPU type (a null Hardware skips the rule)
  kRecord,    // also needs record facts
};

inline const char* rule_scope_name(RuleScope s) {
  switch (s) {
    case RuleScope::kLayout: return "layout";
    case RuleScope::kHardware: return "hardware";
    case RuleScope::kRecord: return "record";
  }
  return "layout";
}

// One finding of one rule on one input, with the actual numbers.
struct Finding {
  std::string rule_id;
  Severity severity = Severity::kError;
  std::string message;  // "TP 3 does not divide 32 attention heads"
  std::string fix;      // "use TP in {1, 2, 4, 8}"
  // The record path the finding concerns, dot-separated as in docs/catalog-format.md
  // ("layout.tp", "workload.global_batch", "features.settings.cp_comm_type", "env.NCCL_X").
  // `field_alt` is a second place to point at when `field` is absent from the record (for example
  // "layout.dispatcher" when "features.flex_backend" is not written).
  std::string field;
  std::string field_alt;
};

struct RuleContext;  // prepared.hpp
using RuleCheck = bool (*)(const RuleContext& ctx, Finding* out);

struct Rule {
  std::string_view id;        // "RB-TP-HEADS"
  Severity severity;          // error: the framework refuses or it cannot fit;
                              // warning: it runs badly or fails later
  RuleScope scope;
  std::string_view summary;   // what it detects, one sentence (docs/rules.md, `check --explain`)
  std::string_view fix;       // the generic fix; findings carry a specific one
  std::string_view source;    // file/function of the framework, or seed + section
  RuleCheck check;
  // The layout fields the verdict reads (`check` with a null Finding), as keys of the layout field
  // table ("tp,etp"; "dp" for DP): a layout or hardware rule's. Record rules, which the planner
  // does not evaluate, give none. A field missing here makes the planner judge the rule before
  // that field is chosen (search/rule_levels_test.cpp catches it).
  std::string_view reads;
};

// Upper bound on the table size, so per-rule counters can live in fixed arrays.
inline constexpr size_t kRuleCapacity = 128;

// The whole table, in evaluation order.
std::span<const Rule> all_rules();
// The rule with this id, or nullptr.
const Rule* find_rule(std::string_view id);
// Index of the rule in all_rules(), or -1.
int rule_index(std::string_view id);

}  // namespace rb
