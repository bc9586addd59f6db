#include "recipebook/cmd_plan.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <ostream>
#include <thread>

#include "recipebook/catalog_access.hpp"
#include "recipebook/cmd_plan_fleet.hpp"
#include "recipebook/cmd_plan_output.hpp"
#include "recipebook/cmd_plan_recipe.hpp"
#include "recipebook/core/strings.hpp"
#include "recipebook/core/units.hpp"
#include "recipebook/layout_args.hpp"
#include "recipebook/estimate/prepared.hpp"
#include "recipebook/rules/prepared.hpp"
#include "recipebook/search/advice.hpp"
#include "recipebook/search/resize.hpp"

namespace rb::cli {
namespace {

// Layouts a search with --recipe keeps to rank the recipe's among (a rank below them is "> N").
constexpr int kRecipeRankDepth = 1000;

Error usage(std::string flag, std::string message, std::string fix = {}) {
  return Error{std::move(message), Where{std::move(flag)}, std::move(fix)};
}

std::optional<int> parse_int(std::string_view s) {
  int v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

// "64", "8..512", "64,96,128".
Result<std::vector<int>> parse_gpus(const std::string& text, int gpus_per_node) {
  if (text.empty()) return tl::unexpected(usage("--gpus", "give the GPU count: 64, a range 8..512, or a list 64,128"));
  const size_t dots = text.find("..");
  if (dots != std::string::npos) {
    const auto lo = parse_int(text.substr(0, dots));
    const auto hi = parse_int(text.substr(dots + 2));
    if (!lo || !hi || *lo < 1 || *hi < *lo)
      return tl::unexpected(usage("--gpus", "'" + text + "' is not a range LO..HI of positive GPU counts"));
    auto counts = gpu_counts_in_range(*lo, *hi, gpus_per_node);
    if (counts.empty())
      return tl::unexpected(usage("--gpus",
                                  fmt::format("{} holds no power of two and no whole {}-GPU node", text, gpus_per_node),
                                  "widen the range or list the counts: --gpus 12,14"));
    return counts;
  }
  std::vector<int> out;
  for (const std::string& part : split_trimmed(text, ',')) {
    const auto n = parse_int(part);
    if (!n || *n < 1) return tl::unexpected(usage("--gpus", "'" + part + "' is not a positive GPU count"));
    out.push_back(*n);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  if (out.empty()) return tl::unexpected(usage("--gpus", "no GPU count given"));
  return out;
}


// Everything from the flags that does not need the catalog.
Result<PlanRequest> make_request(const PlanOptions& o, const Hardware& hw) {
  PlanRequest req;
  const int per_node = o.gpus_per_node > 0 ? o.gpus_per_node : hw.gpus_per_node;
  auto counts = parse_gpus(o.gpus, per_node);
  if (!counts) return tl::unexpected(counts.error());
  req.gpu_counts = *counts;
  req.gpus_per_node = o.gpus_per_node;
  // A range keeps only counts that fill whole nodes already (gpu_counts_in_range); a list is checked.
  for (const int n : req.gpu_counts)
    if (!fills_whole_nodes(n, o.gpus_per_node))
      return tl::unexpected(usage("--gpus-per-node", fmt::format("{} GPUs do not fill whole nodes of {}", n, o.gpus_per_node),
                                  fmt::format("use GPU counts that are multiples of {}, or the nodes' real GPU count",
                                              o.gpus_per_node)));
  const auto mode = parse_mode(o.mode.empty() ? "pretrain" : o.mode);
  if (!mode) return tl::unexpected(usage("--mode", "unknown mode '" + o.mode + "'", "use pretrain, sft or peft"));
  req.workload.mode = *mode;
  if (o.seq < 0) return tl::unexpected(usage("--seq", "the sequence length must be positive"));
  if (o.gbs <= 0) return tl::unexpected(usage("--gbs", "give the global batch in sequences (--gbs 512)"));
  req.workload.seq = o.seq == 0 ? kDefaultSeq : o.seq;
  req.workload.gbs = o.gbs;
  req.workload.lora_rank = o.lora_rank;
  const auto tokens = parse_token_count(o.tokens);
  if (!tokens)
    return tl::unexpected(usage("--tokens", "'" + o.tokens + "' is not a token count", "e.g. 15T, 1.2e12, 500B"));
  req.workload.tokens_budget = *tokens;
  if (auto ok = apply_layout_flags(o.layout, req.fixed.base, /*from_flags_only=*/true); !ok)
    return tl::unexpected(ok.error());
  // Each searched field's flag, read by its row (core/layout_fields.hpp).
  for (const LayoutField& r : layout_fields()) {
    if (!plan_searches(r)) continue;
    auto values = read_plan_values(r, o.searched(r.key));
    if (!values) return tl::unexpected(values.error());
    if (!values->empty()) req.fixed.allow(r.key, std::move(*values));
  }
  if (o.dp < 0) return tl::unexpected(usage("--dp", "a degree must be positive (leave it out to search it)"));
  req.fixed.dp = o.dp;
  if (o.max_mbs < 1) return tl::unexpected(usage("--max-mbs", "must be at least 1"));
  req.fixed.max_mbs = o.max_mbs;
  const auto objective = parse_objective(o.objective);
  if (!objective)
    return tl::unexpected(
        usage("--objective", "unknown objective '" + o.objective + "'", "use throughput, cost or time"));
  req.objective = *objective;
  if (o.offload != "auto" && o.offload != "never")
    return tl::unexpected(usage("--offload", "unknown offload policy '" + o.offload + "'", "use auto or never"));
  req.offload = o.offload == "never" ? OffloadSearch::kNever : OffloadSearch::kWhenNothingFits;
  if (o.top < 1) return tl::unexpected(usage("--top", "must be at least 1"));
  req.top_k = o.top;
  if (o.threads < 0) return tl::unexpected(usage("--threads", "must be 0 (one per core) or more"));
  req.threads = o.threads > 0 ? o.threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  return req;
}

std::string grouped(uint64_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

// The progress line: on stderr, after the first second, at most 10 redraws a second, only on a
// TTY (or with --progress). Cleared at the end on a TTY; on a pipe each draw is its own line.
class ProgressLine {
 public:
  ProgressLine(const Context& ctx, bool forced) : ctx_(ctx), tty_(isatty(STDERR_FILENO) != 0), on_(forced || tty_) {}
  ~ProgressLine() {
    if (drawn_ && tty_) ctx_.err << "\r" << std::string(width_, ' ') << "\r" << std::flush;
  }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void update(const PlanProgress& p) {
    if (!on_) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - start_ < std::chrono::seconds(1) || (drawn_ && now - last_ < std::chrono::milliseconds(100))) return;
    last_ = now;
    const double pct =
        p.tasks_total > 0 ? 100.0 * static_cast<double>(p.tasks_done) / static_cast<double>(p.tasks_total) : 100.0;
    const std::string line = fmt::format("plan: {:5.1f}% of {} layout groups, {} candidates seen, {} fit", pct,
                                         p.tasks_total, grouped(p.seen), grouped(p.fit));
    width_ = std::max(width_, line.size());
    ctx_.err << (tty_ ? "\r" : "") << line << (tty_ ? "" : "\n") << std::flush;
    drawn_ = true;
  }

 private:
  const Context& ctx_;
  bool tty_;
  bool on_;
  bool drawn_ = false;
  size_t width_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_;
};

// The flag a finding's record path corresponds to ("layout.tp" -> "--tp: "), or "".
std::string flag_of(const std::string& field) {
  static constexpr std::pair<std::string_view, std::string_view> kFlags[] = {
      {"layout.tp", "--tp"},
      {"layout.pp", "--pp"},
      {"layout.vpp", "--vp"},
      {"layout.vp", "--vp"},
      {"layout.cp", "--cp"},
      {"layout.ep", "--ep"},
      {"layout.etp", "--etp"},
      {"layout.dp", "--dp"},
      {"layout.rows_per_microbatch", "--mbs"},
      {"workload.global_batch", "--gbs"},
      {"workload.row_tokens", "--seq"},
      {"workload.precision", "--precision"},
      {"layout.dispatcher", "--dispatcher"},
      {"features.recompute_modules", "--recompute"},
      {"--gpus", "--gpus"}};
  for (const auto& [path, flag] : kFlags)
    if (field == path) return std::string(flag) + ": ";
  // A field plan fixes with the layout flag of its row (core/layout_fields.hpp).
  for (const LayoutField& r : layout_fields())
    if (r.plan == PlanRole::kFixed && field == r.yaml) return flag_name(r) + ": ";
  return "";
}

}  // namespace

Result<PlanRequest> make_plan_request(const PlanOptions& opts, const Hardware& hw) {
  return make_request(opts, hw);
}

void with_progress_line(const Context& ctx, bool forced, const std::function<void(const ProgressFn&)>& search) {
  ProgressLine line(ctx, forced);
  search([&](const PlanProgress& p) { line.update(p); });
}

int run_plan(const PlanOptions& o, const Context& ctx) {
  if (o.model.empty() && o.recipe.empty())
    return report(ctx, usage("--model", "give the model: a catalog name, Hugging Face id or config.json path"));
  if (o.gpu.empty() && o.recipe.empty()) return report(ctx, usage("--gpu", "give the GPU type (recipebook list --hardware)"));
  auto cat = load_catalog(ctx);
  if (!cat) return kExitUsage;
  return run_plan(o, ctx, *cat);
}

int run_plan(const PlanOptions& given, const Context& ctx, const Catalog& catalog) {
  if (is_fleet_request(given)) return run_plan_fleet(given, ctx, catalog);
  PlanOptions o = given;
  std::optional<Setup> recipe;  // --recipe: its setup, whose layout is ranked below
  if (!o.recipe.empty()) {
    auto s = apply_plan_recipe(o, catalog);
    if (!s) return report(ctx, s.error());
    recipe = std::move(*s);
  }
  if (o.model.empty())
    return report(ctx, usage("--model", "give the model: a catalog name, Hugging Face id or config.json path"));
  if (o.gpu.empty()) return report(ctx, usage("--gpu", "give the GPU type (recipebook list --hardware)"));
  const Catalog* cat = &catalog;
  auto model = cat->find_model(o.model);
  if (!model) return report(ctx, model.error());
  auto hw = cat->find_hardware(o.gpu);
  if (!hw) return report(ctx, hw.error());
  if (auto e = apply_headroom(o.headroom, *hw)) return report(ctx, *e);
  auto req = make_request(o, *hw);
  if (!req) return report(ctx, req.error());

  const PreparedModel pm = prepare(*model);
  const PreparedRuleModel rules = prepare_rule_model(*model, &*hw);
  const PlanInputs in{&pm, &rules, &*hw};
  if (auto ok = validate_request(in, *req); !ok) return report(ctx, ok.error());
  if (const auto conflicts = fixed_conflicts(in, *req); !conflicts.empty()) {
    Diagnostics ds;
    for (const Finding& f : conflicts) {
      std::string flag = flag_of(f.field);
      if (flag.ends_with(": ")) flag.resize(flag.size() - 2);
      ds.push_back(Diagnostic{f.severity, f.rule_id, Where{flag}, f.message, f.fix});
    }
    return report_findings(ctx, ds, std::nullopt, kExitUsage, "recipebook: ", "RB-USAGE");
  }

  // With a recipe the search keeps enough layouts to rank it, then shows --top of them.
  if (recipe) req->top_k = std::max(req->top_k, kRecipeRankDepth);
  Result<PlanResult> result;
  {
    ProgressLine line(ctx, o.progress);
    result = plan(in, *req, [&](const PlanProgress& p) { line.update(p); });
  }
  if (!result) return report(ctx, result.error());
  std::optional<RecipeRank> ranked;
  if (recipe) {
    ranked.emplace(rank_recipe(*recipe, in, *req, *result));
    req->top_k = o.top;
    for (auto* list : {&result->top, &result->closest})
      if (list->size() > static_cast<size_t>(o.top)) list->resize(static_cast<size_t>(o.top));
  }
  std::optional<PlanAdvice> advice;
  if (wants_advice(*result)) advice = advise(in, *req, *result);
  const PlanView view{*model,
                      *hw,
                      *req,
                      *result,
                      advice ? &*advice : nullptr,
                      req->gpus_per_node > 0 ? req->gpus_per_node : hw->gpus_per_node};
  if (ctx.json) {
    Json j = plan_json(view);
    if (ranked) j["recipe"] = recipe_rank_json(*ranked);
    ctx.out << j.dump(2) << "\n";
  } else {
    ctx.out << plan_text(view) << (ranked ? recipe_rank_text(*ranked) : "");
  }
  return result->top.empty() ? kExitFindings : kExitOk;
}

}  // namespace rb::cli
