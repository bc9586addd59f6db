#include "recipebook/cmd_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <ostream>

#include "recipebook/catalog/record_check.hpp"
#include "recipebook/catalog/record_facts.hpp"
#include "recipebook/catalog_access.hpp"
#include "recipebook/emit/catalog_json.hpp"
#include "recipebook/rules/check_layout.hpp"

namespace rb::cli {
namespace {

// Checks files and catalog records, keeping the findings a record accepts under `known_issues` apart.
class Checker {
 public:
  explicit Checker(const Catalog& catalog) : catalog_(catalog) {}

  // All findings for one file of the user's: parse, schema and conversion (Catalog::check_file), then
  // for a recipe that converted cleanly its semantic checks and layout rules.
  Diagnostics check_file(const std::string& path) {
    FileCheck fc = catalog_.check_file(path);
    Diagnostics ds = std::move(fc.findings);
    if (fc.recipe) append(ds, check_recipe(fc.tree, fc.recipe->recipe));
    return ds;
  }

  // The semantic checks and the layout rules of one schema-valid recipe record, less what its
  // `known_issues` accept.
  Diagnostics check_recipe(const YNode& tree, const Recipe& recipe) {
    Diagnostics ds = check_record(tree, catalog_);
    const bool layout_consistent = std::none_of(ds.begin(), ds.end(), [](const Diagnostic& d) {
      return d.rule_id == "RB-LAYOUT-PRODUCT" || d.rule_id == "RB-MODEL-UNKNOWN" || d.rule_id == "RB-GPU-UNKNOWN";
    });
    if (layout_consistent && recipe.layout_known) append(ds, layout_findings(tree, recipe));
    return accept_known(tree, std::move(ds));
  }

  [[nodiscard]] const Diagnostics& accepted() const { return accepted_; }

 private:
  static void append(Diagnostics& to, Diagnostics from) {
    to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
  }

  Diagnostics layout_findings(const YNode& tree, const Recipe& recipe) const {
    auto model = catalog_.find_model(recipe.model);
    if (!model || !model->has_architecture) return {};
    auto hw = catalog_.find_hardware(recipe.gpu);
    RuleInput in;
    in.model = &*model;
    in.hardware = hw && hw->has_specs ? &*hw : nullptr;
    in.workload.mode = recipe.mode;
    in.workload.seq = recipe.seq;
    in.workload.gbs = recipe.gbs;
    in.cluster.gpus = recipe.gpus;
    in.cluster.gpus_per_node = recipe.gpus_per_node;
    in.layout = recipe.layout;
    in.facts = record_facts(tree, recipe, &catalog_);
    return to_diagnostics(check_layout(in), [&tree](std::string_view field) -> std::optional<Where> {
      if (const YNode* n = node_at(tree, field)) return n->where;
      return std::nullopt;
    });
  }

  // Moves the findings a record lists under `known_issues` into accepted_; a listed rule that no
  // longer fires is itself a warning, so the list cannot silently outlive its reason.
  Diagnostics accept_known(const YNode& tree, Diagnostics ds) {
    const YNode* known = tree.get("known_issues");
    if (known == nullptr || !known->is_seq()) return ds;
    Diagnostics kept;
    std::vector<bool> used(known->seq.size(), false);
    for (auto& d : ds) {
      bool match = false;
      for (size_t i = 0; i < known->seq.size(); ++i) {
        const YNode* rule = known->seq[i].get("rule");
        if (rule != nullptr && rule->text == d.rule_id) {
          used[i] = true;
          match = true;
        }
      }
      (match ? accepted_ : kept).push_back(std::move(d));
    }
    for (size_t i = 0; i < known->seq.size(); ++i) {
      if (used[i]) continue;
      const YNode* rule = known->seq[i].get("rule");
      kept.push_back(Diagnostic{Severity::kWarning, "RB-KNOWN-ISSUE-STALE", known->seq[i].where,
                                "known_issues lists " + (rule ? rule->text : std::string("a rule")) +
                                    ", which no longer fires on this record",
                                "remove the entry"});
    }
    return kept;
  }

  const Catalog& catalog_;
  Diagnostics accepted_;  // findings accepted by the records' known_issues
};

bool before(const Diagnostic& a, const Diagnostic& b) {
  if (a.where.file != b.where.file) return a.where.file < b.where.file;
  if (a.where.line != b.where.line) return a.where.line < b.where.line;
  return a.where.col < b.where.col;
}

Json diagnostic_json(const Diagnostic& d) {
  Json j;
  j["file"] = d.where.file;
  j["line"] = d.where.line;
  j["col"] = d.where.col;
  j["severity"] = severity_name(d.severity);
  j["rule"] = d.rule_id;
  j["message"] = d.message;
  j["fix"] = d.fix;
  return j;
}

}  // namespace

int run_check(const CheckOptions& o, const Context& ctx) {
  if (o.files.empty() && !o.builtin) {
    ctx.err << "recipebook: check: give one or more files, or --builtin (see 'recipebook check --help')\n";
    return kExitUsage;
  }
  auto cat = load_catalog(ctx);
  if (!cat) return kExitUsage;
  Checker checker(*cat);

  Diagnostics all;
  size_t checked = 0;
  if (o.builtin) {
    all = cat->problems();
    for (const auto& e : cat->recipes()) {
      auto ds = checker.check_recipe(e.tree, e.recipe);
      all.insert(all.end(), ds.begin(), ds.end());
    }
    checked += cat->recipes().size() + cat->models().size() + cat->hardware().size();
  }
  for (const auto& f : o.files) {
    auto ds = checker.check_file(f);
    all.insert(all.end(), ds.begin(), ds.end());
    ++checked;
  }
  std::stable_sort(all.begin(), all.end(), before);

  const auto errors = static_cast<size_t>(
      std::count_if(all.begin(), all.end(), [](const Diagnostic& d) { return d.severity == Severity::kError; }));
  const size_t warnings = all.size() - errors;
  if (ctx.json) {
    Json j;
    j["checked"] = checked;
    j["errors"] = errors;
    j["warnings"] = warnings;
    j["accepted"] = checker.accepted().size();
    j["findings"] = Json::array();
    for (const auto& d : all) j["findings"].push_back(diagnostic_json(d));
    j["accepted_findings"] = Json::array();
    for (const auto& d : checker.accepted()) j["accepted_findings"].push_back(diagnostic_json(d));
    ctx.out << j.dump(2) << "\n";
  } else if (o.summary) {
    std::map<std::string, size_t> by_rule;
    for (const auto& d : all) ++by_rule[d.rule_id];
    ctx.out << fmt::format("checked {} entries: {} errors, {} warnings, {} accepted by known_issues\n", checked,
                           errors, warnings, checker.accepted().size());
    for (const auto& [id, n] : by_rule) ctx.out << fmt::format("  {:<28} {}\n", id, n);
  } else {
    for (const auto& d : all) ctx.out << d.str() << "\n";
    if (o.show_accepted)
      for (const auto& d : checker.accepted()) ctx.out << d.str() << " (accepted: known_issues)\n";
  }
  const bool failed = errors > 0 || (o.strict && warnings > 0);
  return failed ? kExitFindings : kExitOk;
}

}  // namespace rb::cli
