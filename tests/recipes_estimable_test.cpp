// Every performance recipe whose model has an architecture and whose GPU has figures is estimable
// by name: `estimate --recipe NAME` (run_estimate on the built-in catalog, the command's own path)
// gets an estimate, refused by no rule except one its record declares in `known_issues` (the
// source, as written, breaks a Megatron rule: a real disagreement, with a note), and not by the
// estimator. The failure lists every refused recipe with the rule and its message.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <set>

#include "cli_support.hpp"
#include "recipebook/catalog/recipe_match.hpp"
#include "recipebook/catalog/record_facts.hpp"
#include "recipebook/cmd_estimate.hpp"

namespace rb {
namespace {

TEST(RecipesEstimable, EveryPerformanceRecipeByName) {
  const Catalog& cat = test::builtin_catalog();
  std::string refused;
  int estimated = 0, accepted = 0;
  for (const RecipeEntry& e : cat.recipes()) {
    if (e.recipe.kind != RecipeKind::kPerformance) continue;
    const RecipeSetup s = recipe_setup(cat, e);
    if (!s.model || !s.model->has_architecture || !s.hardware || !s.hardware->has_specs) continue;
    cli::EstimateOptions o;
    o.args.recipe = e.recipe.name;
    const auto out = test::run_cli([&](const cli::Context& ctx) { return cli::run_estimate(o, ctx, cat); }, true);
    const auto j = nlohmann::json::parse(out.out, nullptr, false);
    if (j.is_discarded() || !j.contains("errors")) {
      refused += e.recipe.name + ": " + out.out + out.err + "\n";
      continue;
    }
    std::set<std::string> known;
    if (auto tree = cat.resolved_tree(e.recipe.name))
      for (const auto& [rule, note] : record_known_issues(*tree)) known.insert(rule);
    bool ok = true;
    for (const auto& err : j["errors"]) {
      const std::string rule = err.value("rule", "");
      if (known.count(rule) > 0) {
        ok = false;
        ++accepted;
        continue;
      }
      ok = false;
      refused += e.recipe.name + ": [" + rule + "] " + err.value("message", "") + "\n";
    }
    if (ok) {
      EXPECT_TRUE(j.contains("tokens_per_s_per_gpu")) << e.recipe.name;
      ++estimated;
    }
  }
  EXPECT_TRUE(refused.empty()) << "refused by a rule or the estimator:\n" << refused;
  std::printf("[ info ] %d performance recipes estimated, %d refusals accepted as their records' known_issues say\n", estimated,
              accepted);
  EXPECT_GT(estimated, 300);
}

}  // namespace
}  // namespace rb
