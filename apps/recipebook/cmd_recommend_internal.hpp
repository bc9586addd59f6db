// Internal to `recommend`: the recommendation as plain values (built in cmd_recommend.cpp, printed as
// text or JSON in cmd_recommend_output.cpp).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "recipebook/catalog/measured_points.hpp"
#include "recipebook/cmd_recommend.hpp"
#include "recipebook/estimate/estimate.hpp"
#include "recipebook/rules/rule.hpp"
#include "recipebook/search/advice.hpp"
#include "recipebook/search/resize.hpp"

namespace rb::cli {

// The planner's best layout for the same request, against the resized recipe.
struct PlanComparison {
  bool ran = false;
  std::string note;  // why it did not run, or that nothing fits
  Layout layout;
  Estimate estimate;
  double ratio = 0;  // plan's tokens/s/GPU over the resized recipe's
  std::vector<std::string> differences;  // "TP 2 vs 1": the recipe's value first
  // When no layout fits the asked GPUs: what would (plan's advice: more GPUs, recompute, ...).
  std::vector<Relaxation> would_fit;
  int most_gpus_tried = 0;
};

// What runs the recipe: Megatron-Bridge run_recipe.py under torchrun (seed 004's form), or the
// record's own `run` for another framework.
struct CommandLine {
  std::string framework;
  std::vector<std::pair<std::string, std::string>> env;  // exported before Python starts
  std::vector<std::string> launcher;   // uv run python -m torch.distributed.run --nproc_per_node=8 ...
  std::vector<std::string> args;       // the entry point and its arguments (emit/launch.hpp entry_args)
  std::string dataset;                 // run_recipe.py --dataset, "" = none
  std::vector<std::string> overrides;  // the Hydra KEY=VALUE words among args
  std::string verbatim;                // another framework: the record's `run` text
  std::vector<std::string> notes;

  [[nodiscard]] std::vector<std::string> argv() const;  // launcher + args (no env)
  [[nodiscard]] std::string one_line() const;          // env exports and the command on one line each
  [[nodiscard]] std::string multi_line() const;        // seed 004's layout: one argument group a line
};

struct Recommendation {
  RecommendOptions options;
  Mode mode = Mode::kPretrain;
  Model model;                 // the user's model (from the catalog or a config.json)
  std::string model_catalog;   // the catalog model it is, "" when the catalog does not know it
  Hardware hardware;
  int gpus_per_node = 0;

  RecipeSetup setup;
  RecipeCandidate candidate;
  MatchScore score;
  std::vector<std::string> reasons;
  std::vector<std::string> alternatives;
  // The recipe's best current measurement, shown only when it measured the user's model, beside the
  // prediction of the layout it measured (never of the resized one: like with like).
  struct Measured {
    Measurement m;
    MeasuredRun run;
    double predicted_tokens_per_s = 0;  // 0 = the measured run cannot be estimated
  };
  std::optional<Measured> measured;
  std::string measured_note;  // why a recipe's measurement is not shown ("" = none or shown)
  std::vector<std::pair<std::string, std::string>> known_issues;  // the record's known_issues: rule, note

  bool sized = false;
  std::string unsized_reason;
  Resized resized;
  PlanComparison plan;
  std::vector<Finding> pitfalls;
  nlohmann::json launch;  // what `recipebook launch` reads back (cmd_recommend.cpp launch_request)
  CommandLine command;
  std::vector<std::string> notes;

  // A finding of a rule the record lists under known_issues (a static read of its source that the
  // recipe may override at run time): printed, marked, and not held against the exit code.
  [[nodiscard]] bool known_issue(const Finding& f) const;
  [[nodiscard]] bool rules_reject() const;
  [[nodiscard]] int exit_code() const;
};

void print_recommendation(const Recommendation& r, const Context& ctx);
nlohmann::ordered_json recommendation_json(const Recommendation& r);

}  // namespace rb::cli
