// Evaluating the rules: the full check (every rule, findings with numbers and a record path) and
// the planner's fast path (error rules only, allocation-free, counting which rule rejected what).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "recipebook/core/diagnostic.hpp"
#include "recipebook/core/hardware.hpp"
#include "recipebook/core/layout.hpp"
#include "recipebook/core/model.hpp"
#include "recipebook/rules/facts.hpp"
#include "recipebook/rules/prepared.hpp"
#include "recipebook/rules/rule.hpp"

namespace rb {

struct RuleInput {
  const Model* model = nullptr;        // required; a null model gives no findings
  const Hardware* hardware = nullptr;  // may be null: kHardware rules are skipped
  Workload workload;
  Cluster cluster;  // cluster.gpus = 0 means "the layout's own product"
  Layout layout;    // layout.dp is not read: DP is derived as gpus / (tp pp cp)
  RecordFacts facts;
};

// Every rule, in table order; at most one finding per rule.
std::vector<Finding> check_layout(const RuleInput& in);
// The same with a prepared model (the caller reuses it across many inputs).
std::vector<Finding> check_layout(const PreparedRuleModel& pm, const Workload& w, const Cluster& c,
                                  const Layout& l, const RecordFacts& facts);

// Maps a record path ("layout.tp") to its position in the file; nullopt when the path is absent.
// Called with "" for the record itself.
using FieldLocator = std::function<std::optional<Where>(std::string_view field)>;

// The finding as a Diagnostic. Position: `field`, else `field_alt`, else the nearest present parent
// of `field` ("features.settings.x" -> "features.settings" -> "features"), else the record ("").
Diagnostic to_diagnostic(const Finding& f, const FieldLocator& locate);
Diagnostics to_diagnostics(const std::vector<Finding>& fs, const FieldLocator& locate);

// How many candidate layouts each rule removed. A rejected layout is attributed to the first
// failing error rule in table order, so the counts partition `rejected`.
struct RejectCounts {
  std::array<uint64_t, kRuleCapacity> by_rule{};  // indexed like all_rules()
  uint64_t seen = 0;
  uint64_t rejected = 0;

  void merge(const RejectCounts& o);
  [[nodiscard]] uint64_t count(std::string_view rule_id) const;
};

// True when no error rule of scope kLayout or kHardware rejects the layout (record-scope rules
// need facts a candidate does not have). Agrees with check_layout(pm, w, c, l, RecordFacts{}) on
// "has an error". Allocation-free; `counts` may be null.
bool layout_allowed(const PreparedRuleModel& pm, const Workload& w, const Cluster& c, const Layout& l,
                    RejectCounts* counts);

}  // namespace rb
