#include "recipebook/rules/check_layout.hpp"

namespace rb {

std::vector<Finding> check_layout(const PreparedRuleModel& pm, const Workload& w, const Cluster& c,
                                  const Layout& l, const RecordFacts& facts) {
  std::vector<Finding> out;
  const RuleContext ctx(pm, w, c, l, facts);
  for (const Rule& r : all_rules()) {
    if (r.scope == RuleScope::kHardware && pm.hardware == nullptr) continue;
    Finding f;
    if (!r.check(ctx, &f)) continue;
    f.rule_id = std::string(r.id);
    f.severity = r.severity;
    if (f.fix.empty()) f.fix = std::string(r.fix);
    if (f.message.empty()) f.message = std::string(r.summary);
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<Finding> check_layout(const RuleInput& in) {
  if (in.model == nullptr) return {};
  const PreparedRuleModel pm = prepare_rule_model(*in.model, in.hardware);
  return check_layout(pm, in.workload, in.cluster, in.layout, in.facts);
}

Diagnostic to_diagnostic(const Finding& f, const FieldLocator& locate) {
  Diagnostic d;
  d.severity = f.severity;
  d.rule_id = f.rule_id;
  d.message = f.message;
  d.fix = f.fix;
  if (!locate) return d;
  std::optional<Where> w;
  if (!f.field.empty()) w = locate(f.field);
  if (!w && !f.field_alt.empty()) w = locate(f.field_alt);
  std::string_view path = f.field;
  while (!w && !path.empty()) {
    const size_t dot = path.rfind('.');
    path = dot == std::string_view::npos ? std::string_view() : path.substr(0, dot);
    if (!path.empty()) w = locate(path);
  }
  if (!w) w = locate("");
  if (w) d.where = *w;
  return d;
}

Diagnostics to_diagnostics(const std::vector<Finding>& fs, const FieldLocator& locate) {
  Diagnostics out;
  out.reserve(fs.size());
  for (const auto& f : fs) out.push_back(to_diagnostic(f, locate));
  return out;
}

void RejectCounts::merge(const RejectCounts& o) {
  for (size_t i = 0; i < by_rule.size(); ++i) by_rule[i] += o.by_rule[i];
  seen += o.seen;
  rejected += o.rejected;
}

uint64_t RejectCounts::count(std::string_view rule_id) const {
  const int i = rule_index(rule_id);
  return i < 0 ? 0 : by_rule[static_cast<size_t>(i)];
}

bool layout_allowed(const PreparedRuleModel& pm, const Workload& w, const Cluster& c, const Layout& l,
                    RejectCounts* counts) {
  static const RecordFacts kNoFacts{};
  const RuleContext ctx(pm, w, c, l, kNoFacts);
  const auto rules = all_rules();
  if (counts != nullptr) ++counts->seen;
  for (int i = 0; i < pm.fast_count; ++i) {
    const size_t idx = pm.fast_rules[static_cast<size_t>(i)];
    if (!rules[idx].check(ctx, nullptr)) continue;
    if (counts != nullptr) {
      ++counts->by_rule[idx];
      ++counts->rejected;
    }
    return false;
  }
  return true;
}

}  // namespace rb
