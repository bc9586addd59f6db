// What a record's layout takes from its model once the catalog links them (recipe_layout.hpp
// link_recipe_model): an omitted ETP and a whole-layer (`full`) CUDA-graph scope.
#include <gtest/gtest.h>

#include "../../../tests/test_support.hpp"
#include "recipebook/catalog/catalog.hpp"

namespace rb {
namespace {

std::string record(const std::string& name, const std::string& framework, const std::string& layout) {
  return "name: " + name + "\nframework: " + framework +
         "\nmodel: Qwen3-30B-A3B\ngpu: {type: h100, count: 32}\nlayout: {" + layout +
         "}\nworkload: {row_tokens: 4096, global_batch: 256, precision: bf16}\n";
}

// Before: an omitted ETP read as 1 whatever the degrees. Megatron-Core's default is TP; Megatron-Bridge
// sets 1 when EP > 1 and leaves Megatron-Core's TP otherwise.
TEST(RecipeLink, OmittedEtpIsMegatronsDefaultForTheModel) {
  test::TempDir dir;
  dir.write("recipes/x/bridge_ep.yaml", record("bridge_ep", "megatron-bridge", "tp: 4, pp: 1, cp: 1, ep: 8"));
  dir.write("recipes/x/bridge_no_ep.yaml", record("bridge_no_ep", "megatron-bridge", "tp: 4, pp: 1, cp: 1, ep: 1"));
  dir.write("recipes/x/lm_ep.yaml", record("lm_ep", "megatron-lm", "tp: 4, pp: 1, cp: 1, ep: 8"));
  dir.write("recipes/x/given.yaml", record("given", "megatron-lm", "tp: 4, pp: 1, cp: 1, ep: 8, etp: 2"));
  dir.write("recipes/x/child.yaml", "extends: lm_ep\nlayout: {tp: 2}\n");
  dir.write("recipes/x/dense.yaml",
            "name: dense\nframework: megatron-lm\nmodel: Llama-3-8B\ngpu: {type: h100, count: 8}\n"
            "layout: {tp: 4, pp: 1, cp: 1, ep: 1}\nworkload: {row_tokens: 4096, global_batch: 64, precision: bf16}\n");
  auto cat = Catalog::load({dir.path()});
  ASSERT_TRUE(cat) << cat.error().str();
  auto etp = [&](const std::string& name) {
    auto r = cat->resolved(name);
    EXPECT_TRUE(r) << name;
    return r ? r->layout.etp : -1;
  };
  EXPECT_EQ(etp("bridge_ep"), 1);
  EXPECT_EQ(etp("bridge_no_ep"), 4);
  EXPECT_EQ(etp("lm_ep"), 4);
  EXPECT_EQ(etp("given"), 2);
  EXPECT_EQ(etp("child"), 2);  // follows the TP the child sets
  EXPECT_EQ(etp("dense"), 1);
  // The loaded entries are linked too (what `list`, `check` and the benches read).
  for (const auto& e : cat->recipes()) {
    if (e.recipe.name == "lm_ep") {
      EXPECT_EQ(e.recipe.layout.etp, 4);
    }
  }
}

// Before: `scope: full` read as every module a layer can hold, so a dense model's whole-layer graph
// named moe and mamba scopes and RB-CUDA-GRAPH-SCOPE refused Megatron-Bridge's Llama-3-70B recipe.
TEST(RecipeLink, WholeLayerGraphScopeKeepsTheModelsLayerKinds) {
  test::TempDir dir;
  const std::string tail = "\nlayout: {tp: 4, pp: 1, cp: 1, ep: 1}\nworkload: {row_tokens: 4096, global_batch: 64, "
                           "precision: bf16}\nfeatures: {cuda_graph: {impl: transformer_engine, scope: full}}\n";
  dir.write("recipes/x/dense_full.yaml",
            "name: dense_full\nmodel: Llama-3-8B\ngpu: {type: h100, count: 8}" + tail);
  dir.write("recipes/x/moe_full.yaml", "name: moe_full\nmodel: Qwen3-30B-A3B\ngpu: {type: h100, count: 8}" + tail);
  auto cat = Catalog::load({dir.path()});
  ASSERT_TRUE(cat) << cat.error().str();
  auto dense = cat->resolved("dense_full");
  auto moe = cat->resolved("moe_full");
  ASSERT_TRUE(dense && moe);
  EXPECT_EQ(dense->layout.cuda_graph_scope, static_cast<uint32_t>(kCgAttn | kCgMlp));
  EXPECT_EQ(moe->layout.cuda_graph_scope, static_cast<uint32_t>(kCgAttn | kCgMoe));
}

}  // namespace
}  // namespace rb
