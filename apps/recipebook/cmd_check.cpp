#include "recipebook/cmd_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <ostream>

#include "recipebook/catalog/record_check.hpp"
#include "recipebook/catalog/record_facts.hpp"
#include "recipebook/catalog_access.hpp"
#include "recipebook/emit/catalog_json.hpp"
#include "recipebook/core/layout_fields.hpp"
#include "recipebook/core/strings.hpp"
#include "recipebook/rules/check_layout.hpp"
#include "recipebook/rules/rule.hpp"

namespace rb::cli {
namespace {

// A field whose value the checks may not assume, tried at several values instead: a finding counts
// only when its rule fires at every value tried (so it holds whatever the record meant).
struct Probe {
  std::string_view path;
  void (*set)(RuleInput& in, int64_t v);
  std::array<int64_t, 5> values;
  size_t count;
};

int to_int(int64_t v) { return static_cast<int>(v); }

const std::array<Probe, 12> kProbes = {{
    {"layout.tp", [](RuleInput& in, int64_t v) { in.layout.tp = to_int(v); }, {1, 2, 3, 4, 8}, 5},
    {"layout.pp", [](RuleInput& in, int64_t v) { in.layout.pp = to_int(v); }, {1, 2, 3, 4, 8}, 5},
    {"layout.cp", [](RuleInput& in, int64_t v) { in.layout.cp = to_int(v); }, {1, 2, 3, 4}, 4},
    {"layout.ep", [](RuleInput& in, int64_t v) { in.layout.ep = to_int(v); }, {1, 2, 3, 8}, 4},
    {"layout.etp", [](RuleInput& in, int64_t v) { in.layout.etp = to_int(v); }, {1, 2, 4}, 3},
    {"layout.vpp", [](RuleInput& in, int64_t v) { in.layout.vp = to_int(v); }, {1, 2, 3, 4}, 4},
    {"layout.sequence_parallel", [](RuleInput& in, int64_t v) { in.layout.sp = v != 0; }, {0, 1}, 2},
    {"layout.rows_per_microbatch", [](RuleInput& in, int64_t v) { in.layout.mbs = to_int(v); }, {1, 2, 3}, 3},
    {"layout.dp", [](RuleInput&, int64_t) {}, {0}, 1},  // the rules derive DP from the GPU count
    {"workload.row_tokens", [](RuleInput& in, int64_t v) { in.workload.seq = v; }, {2048, 4095, 4096, 8192, 131072}, 5},
    {"workload.global_batch", [](RuleInput& in, int64_t v) { in.workload.gbs = v; }, {1, 63, 64, 1024, 1536}, 5},
    {"gpu.per_node", [](RuleInput& in, int64_t v) { in.cluster.gpus_per_node = to_int(v); }, {1, 4, 8}, 3},
}};

// Sections no layout rule reads (the rules see only RuleInput and record_facts).
constexpr std::array<std::string_view, 13> kPassive = {
    "result", "correctness", "measurements", "comparisons", "known_issues", "author", "source",
    "status", "schema_version", "notes", "pitfalls", "raw", "variant"};

bool under(std::string_view path, std::string_view section) {
  return path.starts_with(section) && (path.size() == section.size() || path[section.size()] == '.' ||
                                        path[section.size()] == '[');
}

// One dimension of doubt: the values one unknown field (or the GPU count) is tried at.
struct Doubt {
  std::vector<std::function<void(RuleInput&)>> values;
};

// The findings of `base` whose rules fire on every variant `doubts` spans (all of them when there
// is no doubt). Gives up (no findings) past kMaxVariants variants.
std::vector<Finding> robust_findings(const RuleInput& base, const std::vector<Doubt>& doubts) {
  constexpr size_t kMaxVariants = 4096;
  if (base.model == nullptr) return {};
  const PreparedRuleModel pm = prepare_rule_model(*base.model, base.hardware);
  auto run = [&](const RuleInput& in) { return check_layout(pm, in.workload, in.cluster, in.layout, in.facts); };
  std::vector<Finding> kept = run(base);
  size_t total = 1;
  for (const auto& d : doubts) total *= std::max<size_t>(1, d.values.size());
  if (doubts.empty()) return kept;
  if (total > kMaxVariants) return {};
  for (size_t k = 0; k < total && !kept.empty(); ++k) {
    RuleInput in = base;
    size_t rest = k;
    for (const auto& d : doubts) {
      d.values[rest % d.values.size()](in);
      rest /= d.values.size();
    }
    const auto fired = run(in);
    std::erase_if(kept, [&](const Finding& f) {
      return std::none_of(fired.begin(), fired.end(), [&](const Finding& g) { return g.rule_id == f.rule_id; });
    });
  }
  return kept;
}

// Checks files and catalog records, keeping the findings a record accepts under `known_issues` apart.
class Checker {
 public:
  explicit Checker(const Catalog& catalog) : catalog_(catalog) {}

  // All findings for one file of the user's: parse, schema and conversion (Catalog::check_file), then
  // the record's semantic checks and layout rules. A record the schema rejected is checked on the
  // fields it accepted (FileCheck::partial_recipe): every finding a run can make comes in one run.
  Diagnostics check_file(const std::string& path) {
    FileCheck fc = catalog_.check_file(path);
    Diagnostics ds = std::move(fc.findings);
    if (fc.recipe) append(ds, check_recipe(fc.tree, fc.recipe->recipe, {}, &fc.tree));
    else if (fc.partial_recipe)
      append(ds, check_recipe(fc.partial_recipe->tree, fc.partial_recipe->recipe, fc.unknown_fields, &fc.tree));
    return ds;
  }

  // The semantic checks and the layout rules of one recipe record, less what its `known_issues`
  // accept. `unknown` names fields the schema rejected (absent from `tree`): a rule whose verdict
  // depends on one of them is not reported. `positions` is the tree to point into (default `tree`).
  Diagnostics check_recipe(const YNode& tree, const Recipe& recipe, const std::vector<std::string>& unknown = {},
                           const YNode* positions = nullptr) {
    Diagnostics ds = check_record(tree, catalog_);
    const bool model_unknown = std::any_of(ds.begin(), ds.end(), [](const Diagnostic& d) { return d.rule_id == "RB-MODEL-UNKNOWN"; });
    if (!model_unknown) append(ds, layout_findings(tree, recipe, unknown, positions ? *positions : tree));
    return accept_known(tree, std::move(ds));
  }

  [[nodiscard]] const Diagnostics& accepted() const { return accepted_; }

 private:
  static void append(Diagnostics& to, Diagnostics from) {
    to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
  }

  Diagnostics layout_findings(const YNode& tree, const Recipe& recipe, const std::vector<std::string>& unknown,
                              const YNode& positions) const {
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

    std::vector<Doubt> doubts;
    std::vector<std::string> unvaried;  // record paths a rule may read at a default no probe varies
    bool misspelt = false;              // an unknown key: what it meant may be any field its section lacks
    auto doubt = [&](const std::string& path) {
      const auto probe = std::find_if(kProbes.begin(), kProbes.end(), [&](const Probe& p) { return p.path == path; });
      if (probe == kProbes.end()) {
        unvaried.push_back(path);
        return;
      }
      Doubt d;
      for (size_t i = 0; i < probe->count; ++i)
        d.values.emplace_back([probe, i](RuleInput& r) { probe->set(r, probe->values[i]); });
      doubts.push_back(std::move(d));
    };
    for (const auto& path : unknown) {
      if (std::any_of(kPassive.begin(), kPassive.end(), [&](std::string_view s) { return under(path, s); })) continue;
      if (path == "gpu.type") {  // an unknown GPU: the rules that need one are skipped
        in.hardware = nullptr;
        continue;
      }
      const bool known = std::any_of(kProbes.begin(), kProbes.end(), [&](const Probe& p) { return p.path == path; }) ||
                         std::any_of(layout_fields().begin(), layout_fields().end(),
                                     [&](const LayoutField& r) { return r.yaml == path; });
      if (known) {  // a field the schema rejected: tried at several values, or its readers skipped
        doubt(path);
        continue;
      }
      // An unknown key (`layout.tpp`) stands for a field its section does not write: each such
      // field is doubted; a field the record writes (tp: 3) is not what it meant.
      const size_t dot = path.rfind('.');
      if (dot == std::string::npos) {
        // `kind` (which table a record belongs to) feeds no layout rule; any other top-level key
        // (a misspelt `mode` or `framework`, which the ETP default reads) could: run none.
        if (path != "kind") return {};
        misspelt = true;
        continue;
      }
      const std::string section = path.substr(0, dot + 1);
      misspelt = true;
      for (const Probe& p : kProbes)
        if (p.path.starts_with(section) && node_at(tree, p.path) == nullptr) doubt(std::string(p.path));
      for (const LayoutField& r : layout_fields())
        if (!r.yaml.empty() && r.yaml.starts_with(section) && node_at(tree, r.yaml) == nullptr &&
            std::none_of(kProbes.begin(), kProbes.end(), [&](const Probe& p) { return p.path == r.yaml; }))
          unvaried.emplace_back(r.yaml);
    }
    // Degrees that are neither written nor doubted hold defaults: not a layout to judge (the same
    // test as `estimate --recipe`'s, record_check.hpp).
    if (!record_layout_known(tree, in.model, unknown)) return {};
    // A stated DP that does not multiply out (RB-LAYOUT-PRODUCT) leaves open whether gpu.count or
    // the degrees are wrong: a finding must hold at both GPU counts.
    const auto dp = node_at(tree, "layout.dp") ? node_at(tree, "layout.dp")->as_int() : std::nullopt;
    if (dp && *dp > 0 && in.cluster.gpus > 0 && *dp * in.layout.model_parallel() != in.cluster.gpus) {
      const int stated = to_int(*dp * in.layout.model_parallel());
      doubts.push_back(Doubt{{[](RuleInput&) {}, [stated](RuleInput& r) { r.cluster.gpus = stated; }}});
    }
    std::vector<Finding> found = robust_findings(in, doubts);
    // A rule that reads a field held at a default nothing varied is not judged; nor a record rule
    // (it reads the record's facts, not a list of layout fields) when a key was misspelt or a field
    // it may read was rejected.
    if (!unvaried.empty() || misspelt)
      std::erase_if(found, [&](const Finding& f) {
        const Rule* rule = find_rule(f.rule_id);
        if (rule == nullptr || rule->reads.empty()) return true;
        for (const std::string& key : split_trimmed(rule->reads, ',')) {
          const auto row = std::find_if(layout_fields().begin(), layout_fields().end(),
                                        [&](const LayoutField& r) { return r.key == key; });
          const std::string yaml = row != layout_fields().end() ? std::string(row->yaml) : "layout." + key;
          if (std::find(unvaried.begin(), unvaried.end(), yaml) != unvaried.end()) return true;
        }
        return false;
      });
    return to_diagnostics(found, [&positions](std::string_view field) -> std::optional<Where> {
      if (const YNode* n = node_at(positions, field)) return n->where;
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
  j["where"] = d.where.str();  // as in every command's --json errors (report.hpp)
  return j;
}

}  // namespace

namespace {
// Nothing to check: a usage error, before any catalog is loaded.
bool nothing_to_check(const CheckOptions& o) { return o.files.empty() && !o.builtin; }
int report_nothing_to_check(const Context& ctx) {
  return report_errors(ctx, {Error{"check: give one or more files, or --builtin", {}, "see 'recipebook check --help'"}},
                       kExitUsage, "RB-USAGE");
}
}  // namespace

int run_check(const CheckOptions& o, const Context& ctx) {
  if (nothing_to_check(o)) return report_nothing_to_check(ctx);
  auto cat = load_catalog(ctx);
  if (!cat) return kExitUsage;
  return run_check(o, ctx, *cat);
}

int run_check(const CheckOptions& o, const Context& ctx, const Catalog& catalog) {
  if (nothing_to_check(o)) return report_nothing_to_check(ctx);
  const Catalog* cat = &catalog;
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
