// The numerics of a model (core/model.hpp Numerics) from a config.json and from the catalog YAML:
// what the file gives is read, what it does not stays unknown, and the catalog's values agree with
// the config.json copies they cite.
#include <gtest/gtest.h>

#include "recipebook/catalog/hf_config.hpp"
#include "recipebook/catalog/test_catalog.hpp"

namespace rb {
namespace {

std::string fixture(const std::string& name) { return std::string(RB_SOURCE_DIR) + "/tests/data/hf/" + name; }

Model load_ok(const std::string& path) {
  auto m = load_hf_config(path);
  EXPECT_TRUE(m) << path << ": " << (m ? "" : m.error().str());
  return m ? *m : Model{};
}

TEST(HfNumerics, DeepSeekV3RouterAndYarn) {
  const Numerics n = load_ok(fixture("deepseek-v3.json")).numerics;
  EXPECT_EQ(n.rope_theta, 10000.0);
  EXPECT_EQ(n.rope_scaling, RopeScalingKind::kYarn);
  EXPECT_EQ(n.rope_factor, 40.0);
  EXPECT_EQ(n.rope_original_max_position, 4096);
  EXPECT_EQ(n.yarn_beta_fast, 32.0);
  EXPECT_EQ(n.yarn_mscale_all_dim, 1.0);
  EXPECT_EQ(n.norm_eps, 1e-6);
  EXPECT_EQ(n.router_score, "sigmoid");
  EXPECT_EQ(n.router_expert_bias, true);  // topk_method noaux_tc
  EXPECT_EQ(n.router_topk_scaling, 2.5);
  EXPECT_EQ(n.router_groups, 8);
  EXPECT_EQ(n.router_group_topk, 4);
  EXPECT_EQ(n.router_norm_topk, true);
  EXPECT_FALSE(n.source.empty());
}

TEST(HfNumerics, LlamaAndGptOssRope) {
  const Numerics l = load_ok(fixture("llama-3-8b.json")).numerics;
  EXPECT_EQ(l.rope_theta, 500000.0);
  EXPECT_EQ(l.rope_scaling, RopeScalingKind::kNone);  // "rope_scaling": null
  EXPECT_EQ(l.norm_eps, 1e-5);
  EXPECT_TRUE(l.router_score.empty());

  const Numerics g = load_ok(fixture("gpt-oss-120b.json")).numerics;
  EXPECT_EQ(g.rope_scaling, RopeScalingKind::kYarn);
  EXPECT_EQ(g.rope_factor, 32.0);
  EXPECT_EQ(g.yarn_truncate, false);

  const Numerics llama32 = load_ok(std::string(RB_SOURCE_DIR) + "/catalog/models/hf/llama-3.2-1b.json").numerics;
  EXPECT_EQ(llama32.rope_scaling, RopeScalingKind::kLlama3);
  EXPECT_EQ(llama32.rope_factor, 32.0);
  EXPECT_EQ(llama32.rope_original_max_position, 8192);
}

TEST(HfNumerics, OtherSpellingsAndAbsence) {
  const Numerics gpt2 = load_ok(fixture("gpt2.json")).numerics;  // layer_norm_epsilon
  EXPECT_EQ(gpt2.norm_eps, 1e-5);
  // Qwen3-MoE has no scoring_func: its softmax comes from transformers' Qwen3MoeSparseMoeBlock.
  const Numerics q = load_ok(fixture("qwen3-30b-a3b.json")).numerics;
  EXPECT_EQ(q.router_score, "softmax");
  EXPECT_EQ(q.router_norm_topk, true);
  EXPECT_EQ(q.norm_eps, 1e-6);
  // A file without these fields: nothing is known.
  auto bare = model_from_hf_config_text(
      R"({"model_type": "llama", "hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 2,
          "num_attention_heads": 4, "num_key_value_heads": 4, "vocab_size": 1000})",
      "bare.json");
  ASSERT_TRUE(bare) << bare.error().str();
  EXPECT_FALSE(bare->numerics.any());
  EXPECT_EQ(bare->numerics.rope_scaling, RopeScalingKind::kUnknown);
}

// The catalog YAML's numerics are those of the config.json copies its source names.
TEST(CatalogNumerics, YamlAgreesWithConfigCopies) {
  struct Case {
    const char* model;
    const char* fixture;
  };
  for (const Case c : {Case{"DeepSeek-V3", "deepseek-v3.json"}, Case{"Llama-3-8B", "llama-3-8b.json"},
                       Case{"Qwen3-30B-A3B", "qwen3-30b-a3b.json"}}) {
    SCOPED_TRACE(c.model);
    auto y = builtin().find_model(c.model);
    ASSERT_TRUE(y);
    const Numerics a = y->numerics, b = load_ok(fixture(c.fixture)).numerics;
    EXPECT_EQ(a.rope_theta, b.rope_theta);
    EXPECT_EQ(a.rope_scaling, b.rope_scaling);
    EXPECT_EQ(a.rope_factor, b.rope_factor);
    EXPECT_EQ(a.rope_original_max_position, b.rope_original_max_position);
    EXPECT_EQ(a.yarn_mscale, b.yarn_mscale);
    EXPECT_EQ(a.yarn_mscale_all_dim, b.yarn_mscale_all_dim);
    EXPECT_EQ(a.norm_eps, b.norm_eps);
    EXPECT_EQ(a.router_score, b.router_score);
    EXPECT_EQ(a.router_expert_bias, b.router_expert_bias);
    EXPECT_EQ(a.router_topk_scaling, b.router_topk_scaling);
    EXPECT_EQ(a.router_groups, b.router_groups);
    EXPECT_EQ(a.router_group_topk, b.router_group_topk);
    EXPECT_EQ(a.router_norm_topk, b.router_norm_topk);
    EXPECT_FALSE(a.source.empty());
  }
  // A catalog model whose numerics the catalog does not have stays unknown.
  auto glm = builtin().find_model("GLM-4.5");
  ASSERT_TRUE(glm);
  EXPECT_FALSE(glm->numerics.any());
}

}  // namespace
}  // namespace rb
