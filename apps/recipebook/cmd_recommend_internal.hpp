// Internal to `recommend`: the recommendation as plain values (built in cmd_recommend.cpp, printed as
// text or JSON in cmd_recommend_output.cpp).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "recipebook/cmd_recommend.hpp"
#include "recipebook/estimate/estimate.hpp"
#include "recipebook/rules/rule.hpp"
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
};

// What runs the recipe: Megatron-Bridge run_recipe.py under torchrun (seed 004's form), or the
// record's own `run` for another framework.
struct CommandLine {
  std::string framework;
  std::vector<std::pair<std::string, std::string>> env;  // exported before Python starts
  std::vector<std::string> launcher;   // uv run python -m torch.distributed.run --nproc_per_node=8 ...
  std::string recipe;                  // run_recipe.py --recipe NAME
  std::string dataset;                 // "" = none (benchmark recipes reject --dataset)
  std::vector<std::string> overrides;  // Hydra KEY=VALUE for what changed
  std::string verbatim;                // another framework: the record's `run` text
  std::vector<std::string> notes;

  [[nodiscard]] std::vector<std::string> argv() const;  // launcher ... overrides (no env)
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
  double measured_tokens_per_s = 0;  // the recipe's best current measurement, 0 = none
  std::vector<std::pair<std::string, std::string>> known_issues;  // the record's known_issues: rule, note

  bool sized = false;
  std::string unsized_reason;
  Resized resized;
  PlanComparison plan;
  std::vector<Finding> pitfalls;
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
