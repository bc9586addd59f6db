// `recommend --gpu h100,b200 --tokens 1T`: which GPU type and count to use (cmd_plan_fleet.hpp).
#include <fmt/format.h>

#include <ostream>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/catalog/recipe_match.hpp"
#include "recipebook/cmd_plan_fleet.hpp"
#include "recipebook/report.hpp"

namespace rb::cli {

int run_recommend_fleet(const RecommendOptions& r, const Context& ctx, const Catalog& catalog) {
  PlanOptions o;
  o.model = r.model;
  o.gpu = r.gpu;
  o.gpus = r.gpus > 0 ? std::to_string(r.gpus) : "8..1024";
  o.gpus_per_node = r.gpus_per_node;
  o.mode = r.mode.empty() ? "pretrain" : r.mode;
  o.seq = r.seq;
  o.gbs = r.gbs;
  o.search["precision"] = r.precision;
  o.tokens = r.tokens;
  o.headroom = r.headroom;
  o.threads = r.threads;
  o.threads_given = r.threads > 0;
  if (o.tokens.empty())
    return report(ctx, Error{"recommend across GPU types needs the token budget", {"--tokens"}, "e.g. --tokens 1T"});

  // The sequence and batch the user left out: the best-matching catalog recipe's.
  std::string from;
  if (o.seq == 0 || o.gbs == 0) {
    auto model = catalog.find_model(o.model);
    if (!model) return report(ctx, Error{model.error().message, {"--model"}, model.error().fix});
    auto hw = catalog.find_hardware(o.gpu.substr(0, o.gpu.find(',')) == "all" ? "h100" : o.gpu.substr(0, o.gpu.find(',')));
    if (!hw) return report(ctx, Error{hw.error().message, {"--gpu"}, hw.error().fix});
    MatchRequest req;
    req.model = model_facts(catalog, *model);
    const auto mode = parse_mode(o.mode);
    if (!mode) return report(ctx, Error{"unknown mode '" + o.mode + "'", {"--mode"}, "use pretrain, sft or peft"});
    req.mode = *mode;
    req.gpu = gpu_facts(*hw);
    req.gpus = r.gpus;
    req.seq = o.seq;
    std::vector<RecipeSetup> setups;
    std::vector<RecipeCandidate> cands;
    const auto ranked = rank_catalog_recipes(catalog, req, setups, cands);
    if (ranked.empty()) return report(ctx, Error{"the catalog has no recipes", {"--catalog"}});
    const RecipeSetup& s = setups[ranked.front().index];
    if (o.seq == 0 && s.seq > 0) o.seq = s.seq;
    if (o.gbs == 0) o.gbs = s.recipe.gbs;
    from = cands[ranked.front().index].name;
    if (o.gbs <= 0) return report(ctx, Error{"the matching recipe " + from + " records no global batch", {"--gbs"}});
  }

  auto setup = fleet_setup(o, catalog);
  if (!setup) return report(ctx, setup.error());
  bool priced = false;
  for (const FleetGpu& g : setup->gpus) priced = priced || g.hardware.usd_per_gpu_hour > 0;
  setup->request.objective = priced ? Objective::kCost : Objective::kTime;
  auto res = run_fleet_search(*setup, ctx, false);
  if (!res) return report(ctx, res.error());
  const FleetResult& f = *res;

  // The best of each type, by the same objective.
  std::vector<int> per_type(setup->gpus.size(), -1);
  for (size_t i = 0; i < f.entries.size(); ++i) {
    const FleetEntry& e = f.entries[i];
    int& b = per_type[e.gpu];
    if (e.feasible() && (b < 0 || fleet_better(setup->request.objective, e, f.entries[static_cast<size_t>(b)])))
      b = static_cast<int>(i);
  }
  const std::string reason = fleet_reason(*setup, f);
  if (ctx.json) {
    Json j;
    j["recommendation"] = f.best >= 0 ? fleet_entry_json(*setup, f, f.entries[static_cast<size_t>(f.best)]) : Json(nullptr);
    j["reason"] = reason;
    j["batch_from_recipe"] = from.empty() ? Json(nullptr) : Json(from);
    Json types = Json::array();
    for (size_t g = 0; g < per_type.size(); ++g) {
      Json t = per_type[g] >= 0 ? fleet_entry_json(*setup, f, f.entries[static_cast<size_t>(per_type[g])]) : Json();
      t["gpu"] = setup->gpus[g].hardware.name;
      types.push_back(t);
    }
    j["best_per_type"] = types;
    j["plan"] = fleet_json(*setup, f);
    ctx.out << j.dump(2) << "\n";
    return f.best >= 0 ? kExitOk : kExitFindings;
  }
  const Workload& w = setup->request.plan.workload;
  std::string out = fmt::format("recommend across {} GPU types: {}, {}, sequence {}, global batch {}{}\n", setup->gpus.size(),
                                setup->model.name, mode_name(w.mode), w.seq, w.gbs,
                                from.empty() ? "" : " (from recipe " + from + ")");
  if (f.best < 0) {
    out += "no GPU type and count fits: " + reason + "\n";
    ctx.out << out;
    return kExitFindings;
  }
  const FleetEntry& b = f.entries[static_cast<size_t>(f.best)];
  const std::string name = setup->gpus[b.gpu].hardware.name;
  out += fmt::format("recommended: {} x {}: {:.0f} tokens/s per GPU, {:.2f} days, {:.0f} GPU-hours{}\n", b.gpus, name,
                     b.tokens_per_s_per_gpu, b.days, b.gpu_hours, b.usd > 0 ? fmt::format(", ${:.0f}", b.usd) : "");
  out += "  because it is " + reason + "\n";
  out += "best of each type:\n";
  for (size_t g = 0; g < per_type.size(); ++g) {
    if (per_type[g] < 0) {
      out += fmt::format("  {:<6} nothing fits\n", setup->gpus[g].hardware.name);
      continue;
    }
    const FleetEntry& e = f.entries[static_cast<size_t>(per_type[g])];
    out += fmt::format("  {:<6} {:>5} GPUs  {:>8.2f} days  {:>12.0f} GPU-hours  {}\n", setup->gpus[g].hardware.name, e.gpus,
                       e.days, e.gpu_hours, e.usd > 0 ? fmt::format("${:.0f}", e.usd) : "no price");
  }
  // The answer is the planner's best layout at that count: `plan` with the same workload prints it
  // as its first row (and `launch plan.json` its command); `recommend` at that count starts from the
  // closest recipe instead, whose resized layout and figure are its own.
  std::string same = fmt::format("--model {} --gpu {} --gpus {} --mode {} --seq {} --gbs {}", r.model, name, b.gpus,
                                 mode_name(w.mode), w.seq, w.gbs);
  if (!r.precision.empty()) same += " --precision " + r.precision;
  if (r.gpus_per_node > 0) same += fmt::format(" --gpus-per-node {}", r.gpus_per_node);
  if (r.headroom != kDefaultHeadroom) same += " --headroom " + r.headroom;
  out += fmt::format("this layout: recipebook plan {} (its first row; `launch plan.json` writes its command)\n", same);
  out += fmt::format("the closest recipe, resized: recipebook recommend {}\n", same);
  ctx.out << out;
  return kExitOk;
}

}  // namespace rb::cli
