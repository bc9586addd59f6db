#include "recipebook/catalog/hf_config.hpp"

#include <chrono>
#include <cmath>
#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <nlohmann/json.hpp>

#include "../../../tests/test_support.hpp"
#include "recipebook/catalog/catalog.hpp"
#include "recipebook/catalog/model_limits.hpp"
#include "recipebook/catalog/yaml_tree.hpp"
#include "recipebook/estimate/flops.hpp"
#include "recipebook/estimate/params.hpp"
#include "recipebook/catalog/test_catalog.hpp"

namespace rb {
namespace {

using ::testing::HasSubstr;

std::string fixture(const std::string& name) { return std::string(RB_SOURCE_DIR) + "/tests/data/hf/" + name; }

Model load_ok(const std::string& name) {
  auto m = load_hf_config(fixture(name));
  EXPECT_TRUE(m) << name << ": " << (m ? "" : m.error().str());
  return m ? *m : Model{};
}

// The shape the estimator reads: every dimension and the per-layer list. `ffn` only matters when some
// layer has a dense MLP.
void expect_same_shape(const Model& hf, const Model& yaml) {
  SCOPED_TRACE(yaml.name);
  EXPECT_EQ(hf.layers, yaml.layers);
  EXPECT_EQ(hf.hidden, yaml.hidden);
  EXPECT_EQ(hf.vocab, yaml.vocab);
  if (hf.count_layers(FfnKind::kDense) > 0) {
    EXPECT_EQ(hf.ffn, yaml.ffn);
  }
  EXPECT_EQ(hf.tied_embeddings, yaml.tied_embeddings);
  EXPECT_EQ(hf.norm, yaml.norm);
  EXPECT_EQ(hf.activation, yaml.activation);
  EXPECT_EQ(hf.mlp_bias, yaml.mlp_bias);
  EXPECT_EQ(hf.learned_position_embedding, yaml.learned_position_embedding);
  EXPECT_EQ(hf.max_position, yaml.max_position);
  EXPECT_EQ(hf.attn.heads, yaml.attn.heads);
  EXPECT_EQ(hf.attn.kv_heads, yaml.attn.kv_heads);
  EXPECT_EQ(hf.attn.head_dim, yaml.attn.head_dim);
  EXPECT_EQ(hf.attn.v_head_dim ? hf.attn.v_head_dim : hf.attn.head_dim,
            yaml.attn.v_head_dim ? yaml.attn.v_head_dim : yaml.attn.head_dim);
  EXPECT_EQ(hf.attn.output_gate, yaml.attn.output_gate);
  EXPECT_EQ(hf.attn.qkv_bias, yaml.attn.qkv_bias);
  EXPECT_EQ(hf.attn.out_bias, yaml.attn.out_bias);
  EXPECT_EQ(hf.attn.qk_norm, yaml.attn.qk_norm);
  EXPECT_EQ(hf.attn.sinks, yaml.attn.sinks);
  EXPECT_EQ(hf.mla.q_lora_rank, yaml.mla.q_lora_rank);
  EXPECT_EQ(hf.mla.kv_lora_rank, yaml.mla.kv_lora_rank);
  EXPECT_EQ(hf.mla.qk_nope_dim, yaml.mla.qk_nope_dim);
  EXPECT_EQ(hf.mla.qk_rope_dim, yaml.mla.qk_rope_dim);
  EXPECT_EQ(hf.mla.v_dim, yaml.mla.v_dim);
  EXPECT_EQ(hf.gdn.key_heads, yaml.gdn.key_heads);
  EXPECT_EQ(hf.gdn.value_heads, yaml.gdn.value_heads);
  EXPECT_EQ(hf.gdn.key_dim, yaml.gdn.key_dim);
  EXPECT_EQ(hf.gdn.value_dim, yaml.gdn.value_dim);
  EXPECT_EQ(hf.gdn.conv_kernel, yaml.gdn.conv_kernel);
  EXPECT_EQ(hf.mamba.heads, yaml.mamba.heads);
  EXPECT_EQ(hf.mamba.head_dim, yaml.mamba.head_dim);
  EXPECT_EQ(hf.mamba.state, yaml.mamba.state);
  EXPECT_EQ(hf.mamba.groups, yaml.mamba.groups);
  EXPECT_EQ(hf.mamba.conv_kernel, yaml.mamba.conv_kernel);
  EXPECT_EQ(hf.moe.experts, yaml.moe.experts);
  EXPECT_EQ(hf.moe.top_k, yaml.moe.top_k);
  EXPECT_EQ(hf.moe.ffn, yaml.moe.ffn);
  EXPECT_EQ(hf.moe.shared_experts, yaml.moe.shared_experts);
  EXPECT_EQ(hf.moe.shared_ffn, yaml.moe.shared_ffn);
  EXPECT_EQ(hf.moe.shared_gate, yaml.moe.shared_gate);
  EXPECT_EQ(hf.moe.expert_bias, yaml.moe.expert_bias);
  EXPECT_EQ(hf.moe.router_bias, yaml.moe.router_bias);
  EXPECT_EQ(hf.vision.layers, yaml.vision.layers);
  EXPECT_EQ(hf.vision.hidden, yaml.vision.hidden);
  EXPECT_EQ(hf.vision.ffn, yaml.vision.ffn);
  EXPECT_EQ(hf.vision.heads, yaml.vision.heads);
  EXPECT_EQ(hf.vision.patch, yaml.vision.patch);
  EXPECT_EQ(hf.vision.temporal_patch, yaml.vision.temporal_patch);
  EXPECT_EQ(hf.vision.spatial_merge, yaml.vision.spatial_merge);
  EXPECT_EQ(hf.vision.out_hidden, yaml.vision.out_hidden);
  EXPECT_EQ(hf.mtp_layers, yaml.mtp_layers);
}

struct SameAsCatalog {
  const char* fixture;
  const char* catalog_name;
};

class HfMatchesCatalog : public ::testing::TestWithParam<SameAsCatalog> {};

TEST_P(HfMatchesCatalog, LayersAndDims) {
  const Model hf = load_ok(GetParam().fixture);
  auto yaml = builtin().find_model(GetParam().catalog_name);
  ASSERT_TRUE(yaml) << yaml.error().str();
  ASSERT_TRUE(yaml->has_architecture);
  expect_same_shape(hf, *yaml);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, HfMatchesCatalog,
                         ::testing::Values(SameAsCatalog{"llama-3-8b.json", "Llama-3-8B"},
                                           SameAsCatalog{"qwen3-30b-a3b.json", "Qwen3-30B-A3B"},
                                           SameAsCatalog{"qwen3.5-397b-a17b.json", "Qwen3.5-397B-A17B"},
                                           SameAsCatalog{"deepseek-v3.json", "DeepSeek-V3"},
                                           SameAsCatalog{"gpt-oss-120b.json", "gpt-oss-120b"},
                                           SameAsCatalog{"gemma-3-4b.json", "Gemma-3-4B"},
                                           SameAsCatalog{"nemotron-h-8b.json", "Nemotron-H-8B"}));

TEST(HfConfig, NamesAndIds) {
  const Model m = load_ok("qwen3-30b-a3b.json");
  EXPECT_EQ(m.name, "Qwen3-30B-A3B");
  EXPECT_EQ(m.hf_id, "Qwen/Qwen3-30B-A3B");
  EXPECT_EQ(m.family, "qwen3_moe");
  EXPECT_TRUE(m.has_architecture);
  const Model g = load_ok("gemma-3-4b.json");  // no _name_or_path, not named config.json: its stem
  EXPECT_EQ(g.name, "gemma-3-4b");
  EXPECT_EQ(g.family, "gemma3");
  const Model f = load_ok("falcon-mamba-7b.json");  // _name_or_path "./" names nothing
  EXPECT_EQ(f.name, "falcon-mamba-7b");
}

// `--model ./config.json` named the model "." (the parent of a relative path): the folder is named.
TEST(HfConfig, ConfigJsonInTheCurrentFolderIsNamedByTheFolder) {
  test::TempDir dir;
  dir.write("Mistral-7B/config.json", R"({"model_type": "mistral", "hidden_size": 256, "vocab_size": 1000,
      "num_attention_heads": 4, "intermediate_size": 512, "num_hidden_layers": 2})");
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir.path() + "/Mistral-7B");
  auto m = load_hf_config("./config.json");
  auto from_dot = load_hf_config(".");
  std::filesystem::current_path(cwd);
  ASSERT_TRUE(m) << m.error().str();
  EXPECT_EQ(m->name, "Mistral-7B");
  ASSERT_TRUE(from_dot) << from_dot.error().str();
  EXPECT_EQ(from_dot->name, "Mistral-7B");
  auto named = model_from_hf_config_text(R"({"_name_or_path": "mistralai/Mistral-7B-v0.1", "model_type": "mistral",
      "hidden_size": 256, "vocab_size": 1000, "num_attention_heads": 4, "intermediate_size": 512,
      "num_hidden_layers": 2})",
                                         "./config.json");
  ASSERT_TRUE(named);
  EXPECT_EQ(named->name, "Mistral-7B-v0.1");
  EXPECT_EQ(named->hf_id, "mistralai/Mistral-7B-v0.1");
}

TEST(HfConfig, LayerPatterns) {
  const Model ds = load_ok("deepseek-v3.json");
  ASSERT_EQ(ds.num_layers(), 61);
  EXPECT_EQ(ds.layers[2].ffn, FfnKind::kDense);
  EXPECT_EQ(ds.layers[3].ffn, FfnKind::kMoe);
  EXPECT_EQ(ds.count_layers(MixerKind::kMla), 61);
  EXPECT_EQ(ds.attn.head_dim, 192);
  EXPECT_EQ(ds.mtp_layers, 1);
  const Model q = load_ok("qwen3.5-397b-a17b.json");
  EXPECT_EQ(q.layers[0].mixer, MixerKind::kGdn);
  EXPECT_EQ(q.layers[3].mixer, MixerKind::kAttention);
  EXPECT_EQ(q.count_layers(MixerKind::kAttention), 15);
  EXPECT_EQ(q.count_layers(FfnKind::kMoe), 60);
  EXPECT_EQ(q.vision.layers, 27);
  const Model oss = load_ok("gpt-oss-120b.json");
  EXPECT_EQ(oss.layers[0].window, 128);
  EXPECT_EQ(oss.layers[1].window, 0);
  const Model gemma = load_ok("gemma-3-4b.json");
  EXPECT_EQ(gemma.layers[4].window, 1024);
  EXPECT_EQ(gemma.layers[5].window, 0);
  EXPECT_EQ(gemma.vocab, 262208);  // Gemma3TextConfig default
  const Model nemo = load_ok("nemotron-h-8b.json");
  EXPECT_EQ(nemo.count_layers(MixerKind::kMamba2), 24);
  EXPECT_EQ(nemo.count_layers(MixerKind::kAttention), 4);
  EXPECT_EQ(nemo.count_layers(FfnKind::kDense), 24);
}

TEST(HfConfig, Gpt2IsLayerNormGeluLearnedPositions) {
  const Model m = load_ok("gpt2.json");
  EXPECT_EQ(m.hidden, 768);
  EXPECT_EQ(m.num_layers(), 12);
  EXPECT_EQ(m.ffn, 3072);  // n_inner null: 4 x n_embd
  EXPECT_EQ(m.attn.head_dim, 64);
  EXPECT_EQ(m.norm, NormKind::kLayer);
  EXPECT_EQ(m.activation, Activation::kGelu);
  EXPECT_TRUE(m.learned_position_embedding);
  EXPECT_TRUE(m.attn.qkv_bias);
  EXPECT_TRUE(m.mlp_bias);
  EXPECT_TRUE(m.tied_embeddings);
  EXPECT_EQ(m.max_position, 1024);
}

TEST(HfConfig, SmallFamiliesFromText) {
  auto neox = model_from_hf_config_text(
      R"({"model_type": "gpt_neox", "hidden_size": 512, "num_hidden_layers": 6, "num_attention_heads": 8,
          "intermediate_size": 2048, "vocab_size": 50304, "max_position_embeddings": 2048, "hidden_act": "gelu"})",
      "neox.json");
  ASSERT_TRUE(neox) << neox.error().str();
  EXPECT_EQ(neox->norm, NormKind::kLayer);
  EXPECT_FALSE(neox->learned_position_embedding);
  EXPECT_FALSE(neox->tied_embeddings);
  EXPECT_TRUE(neox->attn.qkv_bias);
  auto mixtral = model_from_hf_config_text(
      R"({"model_type": "mixtral", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
          "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 32000, "num_local_experts": 8,
          "num_experts_per_tok": 2, "sliding_window": null})",
      "mixtral.json");
  ASSERT_TRUE(mixtral) << mixtral.error().str();
  EXPECT_EQ(mixtral->count_layers(FfnKind::kMoe), 32);
  EXPECT_EQ(mixtral->moe.ffn, 14336);
  EXPECT_EQ(mixtral->layers[0].window, 0);
  auto qwen2 = model_from_hf_config_text(
      R"({"model_type": "qwen2", "hidden_size": 896, "num_hidden_layers": 24, "num_attention_heads": 14,
          "num_key_value_heads": 2, "intermediate_size": 4864, "vocab_size": 151936, "tie_word_embeddings": true})",
      "qwen2.json");
  ASSERT_TRUE(qwen2) << qwen2.error().str();
  EXPECT_TRUE(qwen2->attn.qkv_bias);
  EXPECT_FALSE(qwen2->attn.out_bias);
  EXPECT_TRUE(qwen2->tied_embeddings);
  auto glm = model_from_hf_config_text(
      R"({"model_type": "glm4_moe", "hidden_size": 5120, "num_hidden_layers": 92, "num_attention_heads": 96,
          "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 12288, "moe_intermediate_size": 1536,
          "vocab_size": 151552, "n_routed_experts": 160, "n_shared_experts": 1, "num_experts_per_tok": 8,
          "first_k_dense_replace": 3, "attention_bias": true, "use_qk_norm": true, "num_nextn_predict_layers": 1})",
      "glm.json");
  ASSERT_TRUE(glm) << glm.error().str();
  EXPECT_EQ(glm->count_layers(MixerKind::kAttention), 92);
  EXPECT_EQ(glm->count_layers(FfnKind::kDense), 3);
  EXPECT_TRUE(glm->attn.qkv_bias);
  EXPECT_FALSE(glm->attn.out_bias);
  EXPECT_EQ(glm->moe.shared_ffn, 1536);
  EXPECT_EQ(glm->mtp_layers, 1);
}

TEST(HfConfig, KimiK2MatchesTheCatalog) {
  // moonshotai/Kimi-K2-Instruct config.json (architecture fields): DeepSeek-V3's class, 384 experts.
  auto kimi = model_from_hf_config_text(
      R"({"model_type": "kimi_k2", "architectures": ["DeepseekV3ForCausalLM"], "hidden_size": 7168,
          "intermediate_size": 18432, "moe_intermediate_size": 2048, "n_routed_experts": 384, "n_shared_experts": 1,
          "num_experts_per_tok": 8, "first_k_dense_replace": 1, "moe_layer_freq": 1, "num_hidden_layers": 61,
          "num_attention_heads": 64, "num_key_value_heads": 64, "q_lora_rank": 1536, "kv_lora_rank": 512,
          "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128, "vocab_size": 163840,
          "max_position_embeddings": 131072, "num_nextn_predict_layers": 0, "tie_word_embeddings": false})",
      "kimi.json");
  ASSERT_TRUE(kimi) << kimi.error().str();
  auto yaml = builtin().find_model("Kimi-K2");
  ASSERT_TRUE(yaml);
  expect_same_shape(*kimi, *yaml);
}

TEST(HfConfig, QwenNextWithoutLayerTypesAndQwen35Dense) {
  auto next = model_from_hf_config_text(
      R"({"model_type": "qwen3_next", "hidden_size": 2048, "num_hidden_layers": 8, "num_attention_heads": 16,
          "num_key_value_heads": 2, "head_dim": 256, "intermediate_size": 5120, "vocab_size": 151936,
          "linear_num_key_heads": 16, "linear_num_value_heads": 32, "linear_key_head_dim": 128,
          "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4, "full_attention_interval": 4,
          "num_experts": 512, "num_experts_per_tok": 10, "moe_intermediate_size": 512,
          "shared_expert_intermediate_size": 512, "decoder_sparse_step": 1, "mlp_only_layers": [1]})",
      "next.json");
  ASSERT_TRUE(next) << next.error().str();
  EXPECT_EQ(next->layers[2].mixer, MixerKind::kGdn);
  EXPECT_EQ(next->layers[3].mixer, MixerKind::kAttention);
  EXPECT_EQ(next->layers[7].mixer, MixerKind::kAttention);
  EXPECT_EQ(next->layers[1].ffn, FfnKind::kDense);  // mlp_only_layers
  EXPECT_EQ(next->count_layers(FfnKind::kMoe), 7);
  EXPECT_TRUE(next->attn.output_gate);
  EXPECT_TRUE(next->moe.shared_gate);
  EXPECT_EQ(next->ffn, 5120);
  auto dense = model_from_hf_config_text(
      R"({"model_type": "qwen3_5", "tie_word_embeddings": true,
          "text_config": {"model_type": "qwen3_5_text", "hidden_size": 2560, "num_hidden_layers": 32,
            "num_attention_heads": 16, "num_key_value_heads": 4, "head_dim": 256, "intermediate_size": 9216,
            "vocab_size": 248320, "linear_num_key_heads": 16, "linear_num_value_heads": 32,
            "linear_key_head_dim": 128, "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4,
            "full_attention_interval": 4},
          "vision_config": {"depth": 24, "hidden_size": 1024, "intermediate_size": 4096, "num_heads": 16,
            "patch_size": 16, "temporal_patch_size": 2, "spatial_merge_size": 2, "out_hidden_size": 2560}})",
      "q35.json");
  ASSERT_TRUE(dense) << dense.error().str();
  EXPECT_FALSE(dense->is_moe());
  EXPECT_EQ(dense->count_layers(FfnKind::kDense), 32);
  EXPECT_TRUE(dense->tied_embeddings);  // from the top of the VL config
  EXPECT_EQ(dense->vision.layers, 24);
  EXPECT_EQ(dense->vision.out_hidden, 2560);
  EXPECT_EQ(dense->family, "qwen3_5");
}

TEST(HfConfig, ErrorsNameTheProblemAndTheFile) {
  // An unknown model_type is read by its fields: a missing one is named.
  auto unknown = model_from_hf_config_text(R"({"model_type": "bloom"})", "c.json");
  ASSERT_FALSE(unknown);
  EXPECT_THAT(unknown.error().message, HasSubstr("no `hidden_size` (needed for model_type bloom)"));
  auto missing = model_from_hf_config_text(R"({"model_type": "llama", "hidden_size": 64})", "dir/c.json");
  ASSERT_FALSE(missing);
  EXPECT_THAT(missing.error().str(), HasSubstr("dir/c.json: config.json has no `vocab_size`"));
  auto bad_json =
      model_from_hf_config_text("{\n  \"model_type\": \"llama\",\n  \"hidden_size\": 64,,\n}", "c.json");
  ASSERT_FALSE(bad_json);
  EXPECT_THAT(bad_json.error().str(), HasSubstr("c.json:3:"));
  EXPECT_THAT(bad_json.error().message, HasSubstr("invalid JSON"));
  auto wrong_type = model_from_hf_config_text(
      R"({"model_type": "llama", "hidden_size": "big", "vocab_size": 10, "num_attention_heads": 2,
          "intermediate_size": 8, "num_hidden_layers": 2})",
      "c.json");
  ASSERT_FALSE(wrong_type);
  EXPECT_THAT(wrong_type.error().message, HasSubstr("`hidden_size` must be a non-negative integer"));
  auto layer_types = model_from_hf_config_text(
      R"({"model_type": "gpt_oss", "hidden_size": 64, "vocab_size": 10, "num_attention_heads": 2,
          "intermediate_size": 8, "num_hidden_layers": 3, "num_local_experts": 4, "num_experts_per_tok": 2,
          "sliding_window": 8, "layer_types": ["full_attention"]})",
      "c.json");
  ASSERT_FALSE(layer_types);
  EXPECT_THAT(layer_types.error().message, HasSubstr("has 1 entries but num_hidden_layers is 3"));
  EXPECT_FALSE(model_from_hf_config_text("[1, 2]", "c.json"));
  EXPECT_FALSE(model_from_hf_config_text("", "c.json"));
  auto nofile = load_hf_config("/nonexistent/config.json");
  ASSERT_FALSE(nofile);
  EXPECT_THAT(nofile.error().message, HasSubstr("/nonexistent/config.json"));
}

TEST(HfConfig, FolderHoldingConfigJsonAndCatalogPathLookup) {
  test::TempDir dir;
  dir.write("My-Model/config.json",
            R"({"model_type": "llama", "hidden_size": 256, "vocab_size": 1000, "num_attention_heads": 4,
                "intermediate_size": 512, "num_hidden_layers": 3})");
  auto m = load_hf_config(dir.path() + "/My-Model");
  ASSERT_TRUE(m) << m.error().str();
  EXPECT_EQ(m->name, "My-Model");
  EXPECT_EQ(m->num_layers(), 3);
  auto via_catalog = builtin().find_model(dir.path() + "/My-Model/config.json");
  ASSERT_TRUE(via_catalog) << via_catalog.error().str();
  EXPECT_EQ(via_catalog->hidden, 256);
}

// Published totals (and active counts where published) of the models whose public config.json files
// are in tests/data/hf (README.md there says where each copy is from).
struct Published {
  const char* fixture;
  double total;
  double active;  // 0 = not checked
  double active_tolerance;
};

class HfSizedAsPublished : public ::testing::TestWithParam<Published> {};

TEST_P(HfSizedAsPublished, TotalWithinOnePercent) {
  const Published& p = GetParam();
  const Model m = load_ok(p.fixture);
  const ParamCounts c = count_params(m);
  const double total = static_cast<double>(c.total + c.mtp + c.vision);
  EXPECT_NEAR(total / p.total, 1.0, 0.01) << p.fixture << ": " << total;
  if (p.active > 0) {
    EXPECT_NEAR(static_cast<double>(c.active) / p.active, 1.0, p.active_tolerance) << p.fixture << ": " << c.active;
  }
  EXPECT_TRUE(m.assumptions.empty()) << p.fixture << ": " << m.assumptions.front();
}

// Gemma 2: arXiv 2408.00118 Table 2 (embedding + non-embedding parameters). DeepSeek-V2: arXiv
// 2405.04434 (236B total, 21B activated; V2-Lite 15.7B, 2.4B, Appendix B). Phi-3-mini and -medium:
// arXiv 2404.14219 (3.8B; 14B). OLMoE-1B-7B: arXiv 2409.02060 (6.9B total, 1.3B active).
// Falcon-Mamba-7B: the tiiuae/falcon-mamba-7b model card (7.27B). Jamba-1.5-Mini: the ai21labs/AI21-Jamba-1.5-Mini
// model card (52B total, 12B active). Mixtral-8x7B: Mistral AI, "Mixtral of experts" (46.7B, 12.9B
// per token; shared/data/models.csv). Mistral-7B: Mistral AI, "Mistral 7B" (7.3B). Qwen2: arXiv
// 2407.10671 Table 1 (7.6B; 72.7B). Active counts are rounded in the sources, hence the tolerance;
// ours count the LM head once and no embedding lookup.
// clang-format off
INSTANTIATE_TEST_SUITE_P(
    Fixtures, HfSizedAsPublished,
    ::testing::Values(Published{"gemma-2-2b.json", 590118912.0 + 2024517888.0, 0, 0},
                      Published{"gemma-2-9b.json", 917962752.0 + 8324201984.0, 0, 0},
                      Published{"gemma-2-27b.json", 1180237824.0 + 26047480320.0, 0, 0},
                      Published{"deepseek-v2.json", 236e9, 21e9, 0.05},
                      Published{"deepseek-v2-lite.json", 15.7e9, 2.4e9, 0.10},
                      Published{"phi-3-mini-4k.json", 3.8e9, 0, 0},
                      Published{"phi-3-medium-4k.json", 14e9, 0, 0},
                      Published{"olmoe-1b-7b.json", 6.9e9, 1.3e9, 0.12},
                      Published{"falcon-mamba-7b.json", 7.27e9, 0, 0},
                      Published{"jamba-1.5-mini.json", 52e9, 12e9, 0.05},
                      Published{"mixtral-8x7b.json", 46.7e9, 12.9e9, 0.02},
                      Published{"mistral-7b.json", 7.3e9, 0, 0},
                      Published{"qwen2-7b.json", 7.6e9, 0, 0},
                      Published{"qwen2-72b.json", 72.7e9, 0, 0}));
// clang-format on

TEST(HfConfig, PartsOfTheNewFixtures) {
  const Model g = load_ok("gemma-2-9b.json");
  EXPECT_EQ(g.activation, Activation::kGeglu);
  EXPECT_TRUE(g.tied_embeddings);  // Gemma2Config default
  EXPECT_EQ(g.layers[0].window, 4096);
  EXPECT_EQ(g.layers[1].window, 0);
  EXPECT_EQ(g.attn.head_dim, 256);
  const Model fm = load_ok("falcon-mamba-7b.json");
  EXPECT_EQ(fm.count_layers(MixerKind::kMamba2), 64);
  EXPECT_EQ(fm.count_layers(FfnKind::kNone), 64);
  EXPECT_EQ(fm.mamba.version, 1);
  EXPECT_EQ(fm.mamba.heads, 8192);  // intermediate_size, not expand (16) x hidden
  EXPECT_EQ(fm.mamba.dt_rank, 256);
  const Model j = load_ok("jamba-1.5-mini.json");
  EXPECT_EQ(j.count_layers(MixerKind::kAttention), 4);
  EXPECT_EQ(j.layers[4].mixer, MixerKind::kAttention);
  EXPECT_EQ(j.layers[1].ffn, FfnKind::kMoe);
  EXPECT_EQ(j.layers[0].ffn, FfnKind::kDense);
  EXPECT_EQ(j.count_layers(FfnKind::kMoe), 16);
  const Model o = load_ok("olmoe-1b-7b.json");
  EXPECT_EQ(o.count_layers(FfnKind::kMoe), 16);
  EXPECT_EQ(o.moe.ffn, 1024);
  EXPECT_TRUE(o.attn.qk_norm);
  const Model lite = load_ok("deepseek-v2-lite.json");
  EXPECT_EQ(lite.mla.q_lora_rank, 0);
  EXPECT_EQ(lite.count_layers(FfnKind::kDense), 1);
  const Model phi = load_ok("phi-3-medium-4k.json");
  EXPECT_EQ(phi.attn.kv_heads, 10);
  EXPECT_EQ(phi.layers[7].window, 2047);  // Phi3Attention: the window on every layer
  EXPECT_FALSE(phi.tied_embeddings);
}

// Falcon-Mamba's FLOPs: its Mamba-1 GEMMs at d_inner = intermediate_size (8192), not Megatron's
// Mamba-2 in_proj (which adds a dt head per channel), plus the scan and the logits.
TEST(HfConfig, MambaOneFlopsCountItsOwnGemms) {
  const Model m = load_ok("falcon-mamba-7b.json");
  const double h = 4096, d = 8192, r = 256, n = 16, layers = 64, seq = 4096;
  const double gemm = 2 * (h * 2 * d + d * (r + 2 * n) + r * d + d * h);
  const double logits = 2 * h * 65024;  // 65024 is a multiple of 128
  const double expected = 3 * layers * (gemm + 7 * d * n) + 3 * logits;
  EXPECT_NEAR(megatron_flops_per_token(m, static_cast<int64_t>(seq), FlopsOptions{}) / expected, 1.0, 1e-9);
}

// An unknown model_type whose fields are all understood is sized, and what was assumed is said.
TEST(HfConfig, UnknownModelTypeReadByItsParts) {
  auto m = model_from_hf_config_text(
      R"({"model_type": "my_new_moe", "hidden_size": 2048, "num_hidden_layers": 24, "num_attention_heads": 16,
          "num_key_value_heads": 4, "intermediate_size": 8192, "moe_intermediate_size": 1024, "vocab_size": 64000,
          "num_experts": 32, "num_experts_per_tok": 4, "first_k_dense_replace": 2, "n_shared_experts": 1,
          "hidden_act": "silu", "sliding_window": 4096, "rope_theta": 10000.0, "router_aux_loss_coef": 0.01})",
      "new.json");
  ASSERT_TRUE(m) << m.error().str();
  EXPECT_EQ(m->count_layers(FfnKind::kDense), 2);
  EXPECT_EQ(m->count_layers(FfnKind::kMoe), 22);
  EXPECT_EQ(m->moe.shared_ffn, 1024);
  EXPECT_EQ(m->attn.head_dim, 128);
  EXPECT_EQ(m->layers[5].window, 4096);
  ASSERT_GE(m->assumptions.size(), 3U);
  EXPECT_THAT(m->assumptions[0], HasSubstr("my_new_moe"));
  EXPECT_THAT(m->assumptions[1], HasSubstr("tie_word_embeddings"));
  EXPECT_THAT(m->assumptions[2], HasSubstr("every attention layer"));
  auto mla = model_from_hf_config_text(
      R"({"model_type": "my_mla", "hidden_size": 1024, "num_hidden_layers": 4, "num_attention_heads": 8,
          "intermediate_size": 4096, "vocab_size": 1000, "kv_lora_rank": 256, "q_lora_rank": null,
          "qk_nope_head_dim": 64, "qk_rope_head_dim": 32, "v_head_dim": 64, "tie_word_embeddings": true})",
      "mla.json");
  ASSERT_TRUE(mla) << mla.error().str();
  EXPECT_EQ(mla->count_layers(MixerKind::kMla), 4);
  EXPECT_EQ(mla->attn.head_dim, 96);
  // A field that shapes the model and is not understood is named, with its position.
  auto odd = model_from_hf_config_text(
      "{\"model_type\": \"my_odd\", \"hidden_size\": 1024, \"num_hidden_layers\": 4,\n"
      " \"num_attention_heads\": 8, \"intermediate_size\": 4096, \"vocab_size\": 1000,\n"
      " \"num_cross_attention_layers\": 2}",
      "odd.json");
  ASSERT_FALSE(odd);
  EXPECT_THAT(odd.error().message, HasSubstr("`num_cross_attention_layers` changes the architecture"));
  EXPECT_EQ(odd.error().where.str(), "odd.json:3:2");
  // The same for a known model_type whose reader has no use for the field: a llama config with
  // experts was sized as a dense model.
  auto llama_moe = model_from_hf_config_text(
      R"({"model_type": "llama", "hidden_size": 1024, "num_hidden_layers": 4, "num_attention_heads": 8,
          "intermediate_size": 4096, "vocab_size": 1000, "num_experts": 8, "num_experts_per_tok": 2})",
      "llama.json");
  ASSERT_FALSE(llama_moe);
  EXPECT_THAT(llama_moe.error().message, HasSubstr("`num_experts` changes the architecture"));
}

// Hostile configs (the issue's list): each is refused with exit-2 material, naming the field and
// its position, in well under a second.
struct Hostile {
  const char* name;
  const char* fields;  // spliced into a small valid Llama config, overriding its keys
  const char* key;     // the field the error must name
};

class HfHostile : public ::testing::TestWithParam<Hostile> {};

TEST_P(HfHostile, RefusedNamingTheField) {
  const Hostile& h = GetParam();
  // Later keys win in nlohmann::json, so the hostile fields come last.
  const std::string text = std::string("{\"model_type\": \"llama\", \"hidden_size\": 4096, \"vocab_size\": 32000,\n") +
                           "\"num_attention_heads\": 32, \"intermediate_size\": 11008, \"num_hidden_layers\": 32,\n" +
                           "\"num_local_experts\": 8, \"num_experts_per_tok\": 2, \"model_type\": \"mixtral\",\n" +
                           h.fields + "}";
  const auto t0 = std::chrono::steady_clock::now();
  auto m = model_from_hf_config_text(text, "hostile.json");
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_FALSE(m) << h.name;
  EXPECT_THAT(m.error().message, HasSubstr(std::string("`") + h.key + "`")) << m.error().str();
  EXPECT_THAT(m.error().where.str(), HasSubstr("hostile.json:4:")) << m.error().str();
  EXPECT_LT(ms, 200.0) << h.name;
}

INSTANTIATE_TEST_SUITE_P(
    Issue, HfHostile,
    ::testing::Values(Hostile{"hidden_not_split", R"("hidden_size": 4097)", "hidden_size"},
                      Hostile{"more_kv_than_heads", R"("num_key_value_heads": 64)", "num_key_value_heads"},
                      Hostile{"kv_not_dividing", R"("num_key_value_heads": 5)", "num_key_value_heads"},
                      Hostile{"zero_kv", R"("num_key_value_heads": 0)", "num_key_value_heads"},
                      Hostile{"top_k_above_experts", R"("num_experts_per_tok": 9)", "num_experts_per_tok"},
                      Hostile{"top_k_zero", R"("num_experts_per_tok": 0)", "num_experts_per_tok"},
                      Hostile{"hidden_1e15", R"("hidden_size": 1000000000000000)", "hidden_size"},
                      Hostile{"vocab_1e13", R"("vocab_size": 10000000000000)", "vocab_size"},
                      Hostile{"layers_1e9", R"("num_hidden_layers": 1000000000)", "num_hidden_layers"},
                      Hostile{"layers_zero", R"("num_hidden_layers": 0)", "num_hidden_layers"},
                      Hostile{"experts_huge", R"("num_local_experts": 100000000)", "num_local_experts"},
                      Hostile{"ffn_huge", R"("intermediate_size": 100000000000)", "intermediate_size"},
                      Hostile{"head_dim_huge", R"("head_dim": 100000000)", "head_dim"},
                      Hostile{"window_negative", R"("sliding_window": -1)", "sliding_window"}),
    [](const ::testing::TestParamInfo<Hostile>& p) { return std::string(p.param.name); });

TEST(HfConfig, HostileSizesOfOtherParts) {
  // MLA, Mamba and vision dims are bounded too, and a huge file is refused before it is parsed.
  auto mla = model_from_hf_config_text(
      R"({"model_type": "deepseek_v3", "hidden_size": 1024, "num_hidden_layers": 4, "num_attention_heads": 8,
          "intermediate_size": 4096, "moe_intermediate_size": 512, "vocab_size": 1000, "kv_lora_rank": 100000000,
          "qk_nope_head_dim": 64, "qk_rope_head_dim": 32, "v_head_dim": 64, "n_routed_experts": 8,
          "num_experts_per_tok": 2})",
      "m.json");
  ASSERT_FALSE(mla);
  EXPECT_THAT(mla.error().message, HasSubstr("`kv_lora_rank`"));
  auto mamba = model_from_hf_config_text(
      R"({"model_type": "mamba", "hidden_size": 1024, "num_hidden_layers": 4, "vocab_size": 1000,
          "state_size": 100000000, "intermediate_size": 2048})",
      "s.json");
  ASSERT_FALSE(mamba);
  EXPECT_THAT(mamba.error().message, HasSubstr("`state_size`"));
  auto list = model_from_hf_config_text(
      R"({"model_type": "qwen3_moe", "hidden_size": 1024, "num_hidden_layers": 4, "num_attention_heads": 8,
          "intermediate_size": 4096, "moe_intermediate_size": 512, "vocab_size": 1000, "num_experts": 8,
          "num_experts_per_tok": 2, "mlp_only_layers": [0, 99999999, -5]})",
      "l.json");
  ASSERT_TRUE(list) << list.error().str();
  EXPECT_EQ(list->layers[0].ffn, FfnKind::kDense);
  const std::string big(5u << 20, ' ');
  auto huge = model_from_hf_config_text(big, "big.json");
  ASSERT_FALSE(huge);
  EXPECT_THAT(huge.error().message, HasSubstr("at most 4 MiB"));
}

// Any integer in any field of a real config: refused, or sized without overflow (the bounds keep
// every product in int64), never a throw, never a long loop.
TEST(HfConfig, AnyValueInAnyFieldIsRefusedOrSizedSafely) {
  std::vector<nlohmann::json> configs;
  for (const char* f : {"gemma-2-9b.json", "deepseek-v2.json", "jamba-1.5-mini.json", "falcon-mamba-7b.json",
                        "olmoe-1b-7b.json", "qwen3.5-397b-a17b.json", "nemotron-h-8b.json", "gpt2.json"}) {
    auto text = read_text_file(fixture(f));
    ASSERT_TRUE(text);
    configs.push_back(nlohmann::json::parse(*text));
  }
  EXPECT_TRUE(rc::check("one integer field set to any value", [&] {
    nlohmann::json j = *rc::gen::elementOf(configs);
    nlohmann::json* obj = j.contains("text_config") ? &j["text_config"] : &j;
    std::vector<std::string> keys;
    for (auto it = obj->begin(); it != obj->end(); ++it)
      if (it->is_number_integer()) keys.push_back(it.key());
    RC_PRE(!keys.empty());
    const std::string key = *rc::gen::elementOf(keys);
    const int shift = *rc::gen::inRange(0, 63);
    (*obj)[key] = *rc::gen::inRange<int64_t>(0, int64_t{1} << shift);
    auto m = model_from_hf_config_text(j.dump(), "f.json");
    if (!m) return;
    const ParamCounts c = count_params(*m);
    RC_ASSERT(c.total > 0);
    RC_ASSERT(std::isfinite(megatron_flops_per_token(*m, 4096, FlopsOptions{})));
  }));
}

TEST(HfConfig, NeverThrowsOnArbitraryInput) {
  EXPECT_TRUE(
      rc::check("random text", [](const std::string& s) { (void)model_from_hf_config_text(s, "f.json"); }));
  EXPECT_TRUE(rc::check("random model_type and numbers", [] {
    const auto types = supported_model_types();
    const auto type = *rc::gen::elementOf(types);
    const int n = *rc::gen::inRange(-2, 70);
    const std::string text = R"({"model_type": ")" + type + R"(", "hidden_size": )" + std::to_string(n) +
                             R"(, "num_hidden_layers": )" + std::to_string(n) +
                             R"(, "num_attention_heads": 0})";
    (void)model_from_hf_config_text(text, "f.json");
  }));
}

}  // namespace
}  // namespace rb
