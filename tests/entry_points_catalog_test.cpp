// Every command the launch renderers write for the built-in catalog, parsed back from the script
// and held to its entry point's table (emit/entry_points.hpp): every Megatron-Bridge recipe through
// the bridge target, and a spread of them through Megatron-LM's pretrain_gpt.py.
#include <gtest/gtest.h>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/emit/entry_points.hpp"
#include "recipebook/emit/launch.hpp"
#include "recipebook/emit/launch_spec.hpp"
#include "recipebook/emit/launch_test_util.hpp"

namespace rb {
namespace {

const Catalog& catalog() {
  static const Catalog c = *Catalog::load();
  return c;
}

// A recipe that records no GPU count (a library recipe run at any size) is launched on 8.
Result<LaunchSpec> spec_of(const RecipeEntry& e, const std::string& framework = {}) {
  SpecRequest req;
  req.source = e.recipe.name;
  if (e.recipe.gpus <= 0) req.gpus = 8;
  req.framework = framework;
  std::vector<std::string> notes;
  return build_launch_spec(req, catalog(), notes);
}

TEST(EntryPointsCatalog, EveryBridgeRecipeCommandHoldsToRunRecipe) {
  int checked = 0, performance = 0;
  for (const auto& e : catalog().recipes()) {
    if (e.recipe.framework != "megatron-bridge") continue;
    auto spec = spec_of(e);
    ASSERT_TRUE(spec) << e.recipe.name << ": " << spec.error().str();
    spec->bridge_benchmark = e.recipe.kind == RecipeKind::kPerformance;
    auto script = render_bridge(*spec);
    ASSERT_TRUE(script) << e.recipe.name << ": " << script.error().str();
    const auto words = test::array_words(*script, "TRAIN_ARGS");
    ASSERT_FALSE(words.empty()) << e.recipe.name;
    EXPECT_EQ(words, bridge_args(*spec)) << e.recipe.name;  // the script passes what was rendered
    auto ok = check_entry_words(run_recipe_entry(), words, true);
    EXPECT_TRUE(ok) << e.recipe.name << ": " << ok.error().str();
    // With the dataset recommend would give it, the command still holds.
    spec->dataset = bridge_dataset(spec->mode, spec->model_ir.value_or(Model{}), e.recipe);
    auto with_data = render_bridge(*spec);
    EXPECT_TRUE(with_data) << e.recipe.name << " --dataset " << spec->dataset << ": " << with_data.error().str();
    ++checked;
    if (e.recipe.kind == RecipeKind::kPerformance) ++performance;
  }
  EXPECT_GT(performance, 400);  // the catalog's performance recipes were all rendered
  EXPECT_GT(checked, performance);
}

TEST(EntryPointsCatalog, MegatronCommandsHoldToPretrainGpt) {
  int checked = 0;
  for (const auto& e : catalog().recipes()) {
    if (e.recipe.framework != "megatron-bridge" || !e.recipe.layout_known || e.recipe.seq <= 0 || e.recipe.gbs <= 0) continue;
    if (checked >= 40 && e.recipe.layout.ep <= 1 && e.recipe.layout.cuda_graph == CudaGraph::kNone) continue;
    auto spec = spec_of(e, "megatron-lm");
    ASSERT_TRUE(spec) << e.recipe.name << ": " << spec.error().str();
    auto script = render_megatron(*spec);
    if (e.recipe.mode != Mode::kPretrain) {  // pretrain_gpt.py pretrains only (check_megatron_mode)
      EXPECT_FALSE(script) << e.recipe.name;
      continue;
    }
    ASSERT_TRUE(script) << e.recipe.name << ": " << script.error().str();
    const auto words = test::array_words(*script, "TRAIN_ARGS");
    auto ok = check_entry_words(pretrain_gpt_entry(), words, true);
    EXPECT_TRUE(ok) << e.recipe.name << ": " << ok.error().str();
    ++checked;
  }
  EXPECT_GT(checked, 40);
}

}  // namespace
}  // namespace rb
