#include "recipebook/cmd_plan_recipe.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "recipebook/core/units.hpp"
#include "recipebook/search/recommend.hpp"

namespace rb::cli {
namespace {

// "64" -> 64; a range or a list -> 0 (the recipe's own count is then ranked when searched).
int single_count(const std::string& text) {
  int v = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  return ec == std::errc() && p == text.data() + text.size() && v > 0 ? v : 0;
}

}  // namespace

Result<Setup> apply_plan_recipe(PlanOptions& o, const Catalog& catalog) {
  LayoutArgs a;
  a.recipe = o.recipe;
  a.model = o.model;
  a.gpu = o.gpu;
  a.gpus = single_count(o.gpus);
  a.gpus_per_node = o.gpus_per_node;
  a.mode = o.mode;
  a.seq = o.seq;
  a.gbs = o.gbs;
  a.lora_rank = o.lora_rank;
  a.headroom = o.headroom;
  // One precision asked for is the recipe layout's too; a list searches each around the recipe's own.
  const std::string& precision = o.searched("precision");
  if (!precision.empty() && precision.find(',') == std::string::npos) a.layout.precision = precision;
  auto s = resolve_setup(a, catalog);
  if (!s) return s;
  if (o.model.empty()) o.model = s->model.name;
  if (o.gpu.empty()) o.gpu = s->hardware.name;
  if (o.gpus.empty()) o.gpus = std::to_string(s->cluster.gpus);
  if (o.gpus_per_node == 0) o.gpus_per_node = s->cluster.gpus_per_node;
  if (o.mode.empty()) o.mode = std::string(mode_name(s->workload.mode));
  if (o.seq == 0) o.seq = s->workload.seq;
  if (o.gbs == 0) o.gbs = s->workload.gbs;
  if (o.searched("precision").empty()) o.search["precision"] = std::string(precision_name(s->layout.precision));
  // The recipe's stack (overlaps, CUDA graphs, optimizer, loss, ...) in every layout searched, as if
  // its flags were given (a flag given wins): its layout is ranked among layouts of the same stack,
  // not against the defaults (its TP overlap made it "beat every layout searched").
  fill_unset(o.layout, fixed_features(s->layout));
  if (Layout shown; apply_layout_flags(o.layout, shown, /*from_flags_only=*/true))
    if (const std::string text = fixed_flags_text(shown); !text.empty())
      s->notes.push_back("every layout searched has the recipe's stack: " + text + " (a flag given overrides the recipe)");
  return s;
}

RecipeRank rank_recipe(const Setup& recipe, const PlanInputs& in, const PlanRequest& req, const PlanResult& result) {
  RecipeRank r{recipe, {}, false, result.counts.fit};
  const auto& counts = req.gpu_counts;
  r.in_search = std::find(counts.begin(), counts.end(), recipe.cluster.gpus) != counts.end();
  r.rank = rank_layout(in, req, result, recipe.cluster.gpus, recipe.layout);
  return r;
}

std::string recipe_rank_text(const RecipeRank& r) {
  const Setup& s = r.recipe;
  const Estimate& e = r.rank.estimate;
  std::string out = fmt::format("\nRecipe {}: {} on {} GPUs\n", s.recipe, layout_summary(s.layout), s.cluster.gpus);
  for (const auto& n : s.notes) out += "  note: " + n + "\n";
  if (!r.in_search) return out + "  not ranked: the plan did not search its GPU count\n";
  if (!e.valid) return out + "  not ranked: the estimator refuses its layout (" + std::string(invalid_reason_name(e.reason)) + ")\n";
  if (!r.rank.ranked)
    return out + fmt::format("  not ranked: it does not fit by the estimate (peak {} of {} less headroom)\n",
                             format_bytes(e.memory.worst.peak_bytes), format_bytes(e.memory.worst.capacity_bytes));
  const double best = r.rank.best_tokens_per_s_per_gpu;
  out += fmt::format("  rank {}{} of {} layouts that fit: {:.0f} tokens/s/GPU predicted", r.rank.below_kept ? "> " : "",
                     r.rank.below_kept ? r.rank.rank - 1 : r.rank.rank, r.fit, e.tokens_per_s_per_gpu);
  if (best > 0) out += fmt::format(", the plan's best {:.0f} ({:.2f}x the recipe's)", best, best / e.tokens_per_s_per_gpu);
  return out + "\n";
}

Json recipe_rank_json(const RecipeRank& r) {
  const Setup& s = r.recipe;
  const Estimate& e = r.rank.estimate;
  Json j;
  j["name"] = s.recipe;
  j["gpus"] = s.cluster.gpus;
  j["layout"] = layout_json(s.layout);
  j["notes"] = s.notes;
  j["status"] = !r.in_search ? "gpu count not searched" : !e.valid ? "estimator refuses" : !r.rank.ranked ? "does not fit" : "ranked";
  j["rank"] = r.rank.ranked && r.in_search ? Json(r.rank.rank) : Json(nullptr);
  j["rank_below_kept"] = r.rank.below_kept;  // every kept layout is better: the rank is a lower bound
  j["fit_layouts"] = r.fit;
  j["tokens_per_s_per_gpu"] = e.valid ? Json(e.tokens_per_s_per_gpu) : Json(nullptr);
  j["best_tokens_per_s_per_gpu"] = r.rank.best_tokens_per_s_per_gpu > 0 ? Json(r.rank.best_tokens_per_s_per_gpu) : Json(nullptr);
  j["best_over_recipe"] = e.valid && e.tokens_per_s_per_gpu > 0 && r.rank.best_tokens_per_s_per_gpu > 0
                              ? Json(r.rank.best_tokens_per_s_per_gpu / e.tokens_per_s_per_gpu)
                              : Json(nullptr);
  j["fits"] = e.valid && e.fits();
  return j;
}

}  // namespace rb::cli
