// The mixed-precision settings each writer passes: the named recipe, the BF16 first/last layers and
// the FP4 parameter gather, as Megatron-Bridge's override handling and Megatron-LM's flags take them.
#include <gtest/gtest.h>

#include <algorithm>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/emit/launch.hpp"
#include "recipebook/emit/launch_spec.hpp"
#include "recipebook/emit/launch_test_util.hpp"

namespace rb {
namespace {

using test::sample_spec;

bool has(const std::vector<std::string>& words, const std::string& w) {
  return std::find(words.begin(), words.end(), w) != words.end();
}

size_t count_prefix(const std::vector<std::string>& words, const std::string& prefix) {
  return static_cast<size_t>(
      std::count_if(words.begin(), words.end(), [&](const std::string& w) { return w.rfind(prefix, 0) == 0; }));
}

// Megatron-Bridge run_recipe.py applies its trailing overrides with training/utils/omegaconf_utils.py
// parse_hydra_overrides on a struct-mode config, and Hydra applies each change override as
// OmegaConf.update(cfg, key, value, merge=True) (hydra/_internal/config_loader_impl.py
// _apply_overrides_to_config). `mixed_precision=NAME` makes the node a string; a later
// `mixed_precision.KEY=V` then has OmegaConf.update replace that string by an empty map and struct
// mode refuses the key ("Could not override ..."); an earlier one is replaced by the name. Neither
// order holds, so a new precision is written as the name alone, and the keys only on the recipe's
// own config. The old writer wrote the name and then the keys (this test failed on it).
TEST(LaunchPrecision, BridgeNeverWritesAMixedPrecisionKeyBesideTheRecipeName) {
  LaunchSpec s = sample_spec();
  s.base = s.layout;  // the recipe at BF16
  s.layout.precision = Precision::kFp8Cs;
  s.layout.bf16_layers_at_start = 1;  // what bf16_with_fp8_current_scaling_mixed sets
  s.layout.bf16_layers_at_end = 1;
  auto o = bridge_overrides(s);
  EXPECT_TRUE(has(o, "mixed_precision=bf16_with_fp8_current_scaling_mixed"));
  EXPECT_EQ(count_prefix(o, "mixed_precision."), 0u);
  EXPECT_TRUE(render_bridge(s));

  // Settings the named recipe does not have, which no override can add after it: refused, with why.
  s.layout.bf16_layers_at_start = 2;
  s.layout.bf16_layers_at_end = 2;
  o = bridge_overrides(s);
  EXPECT_EQ(count_prefix(o, "mixed_precision."), 0u);
  auto script = render_bridge(s);
  ASSERT_FALSE(script);
  EXPECT_NE(script.error().message.find("mixed_precision=bf16_with_fp8_current_scaling_mixed"), std::string::npos)
      << script.error().message;
  EXPECT_NE(script.error().message.find("Could not override"), std::string::npos) << script.error().message;

  // The recipe's own precision: the keys on its MixedPrecisionConfig, with no name.
  s.base->precision = Precision::kFp8Cs;
  o = bridge_overrides(s);
  EXPECT_EQ(count_prefix(o, "mixed_precision="), 0u);
  EXPECT_TRUE(has(o, "mixed_precision.first_last_layers_bf16=True"));
  EXPECT_TRUE(has(o, "mixed_precision.num_layers_at_start_in_bf16=2"));
  EXPECT_TRUE(has(o, "mixed_precision.num_layers_at_end_in_bf16=2"));
  EXPECT_TRUE(render_bridge(s)) << render_bridge(s).error().str();
}

// Megatron-LM writes --fp4-param-gather (Bridge's bf16_with_nvfp4_mixed) only where the layout keeps
// the FP4 gather; Bridge turns it off on a recipe of its own precision with a key.
TEST(LaunchPrecision, Fp4ParamGatherFollowsTheLayout) {
  LaunchSpec s = sample_spec();
  s.framework = Framework::kMegatronLm;
  s.layout.precision = Precision::kNvfp4;
  EXPECT_TRUE(has(megatron_args(s), "--fp4-param-gather"));
  s.layout.fp4_param_gather = false;
  const auto lm = megatron_args(s);
  EXPECT_FALSE(has(lm, "--fp4-param-gather"));
  EXPECT_TRUE(has(lm, "--fp4-recipe"));

  s.framework = Framework::kBridge;
  s.base = s.layout;
  s.base->fp4_param_gather = true;
  EXPECT_TRUE(has(bridge_overrides(s), "mixed_precision.fp4_param_gather=False"));
  s.base->fp4_param_gather = false;
  EXPECT_EQ(count_prefix(bridge_overrides(s), "mixed_precision"), 0u);
}

// The catalog's Nemotron 3 Super NVFP4 performance records: Bridge's recipes turn the FP4 parameter
// gather off (perf_recipes/nemotronh/common.py _nemotron_3_super_nvfp4_precision, "Disabled until MCore
// PR 4358 lands"), so the record says so and no writer turns it back on. Failed on the old catalog
// and writer (the layout had no such setting; Megatron-LM got --fp4-param-gather).
TEST(LaunchPrecision, NemotronSuperNvfp4RecordsKeepTheFp4GatherOff) {
  const Catalog cat = *Catalog::load();
  int seen = 0;
  for (const auto& e : cat.recipes()) {
    const Recipe& r = e.recipe;
    if (r.kind != RecipeKind::kPerformance || r.layout.precision != Precision::kNvfp4 ||
        r.entry_point.rfind("nemotron_3_super_", 0) != 0)
      continue;
    ++seen;
    SCOPED_TRACE(r.name);
    EXPECT_FALSE(r.layout.fp4_param_gather);
    LaunchSpec s = sample_spec();
    s.framework = Framework::kMegatronLm;
    s.layout = r.layout;
    EXPECT_FALSE(has(megatron_args(s), "--fp4-param-gather"));
    // Launched at its own precision, Bridge's run keeps the recipe's setting: no override.
    s.framework = Framework::kBridge;
    s.base = r.layout;
    EXPECT_EQ(count_prefix(bridge_overrides(s), "mixed_precision"), 0u);
  }
  EXPECT_GE(seen, 4);
}

// FP8 current scaling keeps BF16 layers only where the layout has them: a bare --first-last-layers-bf16
// keeps Megatron-Core's default one at each end (transformer_config.py num_layers_at_start_in_bf16 = 1),
// which a performance record does not run (perf_recipes/_common.py _perf_precision turns it off) and
// the estimate does not count. The old writer always wrote it for fp8_cs (this failed on it).
TEST(LaunchPrecision, MegatronFp8CurrentScalingKeepsOnlyTheLayoutsBf16Layers) {
  LaunchSpec s = sample_spec();
  s.framework = Framework::kMegatronLm;
  s.layout.precision = Precision::kFp8Cs;
  EXPECT_FALSE(has(megatron_args(s), "--first-last-layers-bf16"));
  s.layout.bf16_layers_at_start = 1;
  s.layout.bf16_layers_at_end = 2;
  const auto a = megatron_args(s);
  EXPECT_TRUE(has(a, "--first-last-layers-bf16"));
  EXPECT_EQ(std::count(a.begin(), a.end(), "--first-last-layers-bf16"), 1);
  auto at = std::find(a.begin(), a.end(), "--num-layers-at-end-in-bf16");
  ASSERT_NE(at, a.end());
  EXPECT_EQ(*(at + 1), "2");
}

}  // namespace
}  // namespace rb
