// What a catalog config.json may not say, each refused naming the field; the files read as published
// are hf_config_catalog_test.cpp's.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "recipebook/catalog/hf_config.hpp"
#include "recipebook/catalog/hf_config_test_support.hpp"

namespace rb {
namespace {

using ::testing::HasSubstr;

// What a config.json may not say, each refused naming the field (and, for a value out of range,
// why). One row per refusal: the catalog file, the value changed (a json_pointer), and the message.
TEST(HfCatalogConfig, ImpossibleOrUnknownFieldsAreRefusedNamingThem) {
  const struct {
    const char* stem;
    const char* path;
    nlohmann::json value;
    const char* says;
  } cases[] = {
      // Two different KV head counts: the second is named.
      {"exaone-4.5-33b", "/text_config/num_kv_heads", 4,
       "`text_config.num_kv_heads` (4) and `text_config.num_key_value_heads` (8) disagree"},
      // A window pattern that contradicts layer_types, or that is not L/G.
      {"exaone-4.5-33b", "/text_config/sliding_window_pattern", "LLGG",
       "`text_config.sliding_window_pattern` and `text_config.layer_types` disagree at layer 2"},
      {"exaone-4.5-33b", "/text_config/sliding_window_pattern", "LLX",
       "must be a period or a string of L (sliding) and G (global)"},
      // A latent size above the hidden-size bound; an MTP block with a Mamba layer (not modelled).
      {"nemotron-3-super-120b-a12b", "/moe_latent_size", int64_t{1} << 40, "`moe_latent_size`"},
      {"nemotron-3-super-120b-a12b", "/mtp_hybrid_override_pattern", "M*E", "`mtp_hybrid_override_pattern`"},
      // A PretrainedConfig default left on: cross-attention layers would change the architecture.
      {"qwen3-omni-30b-a3b", "/thinker_config/text_config/add_cross_attention", true, "add_cross_attention"},
      // Step-3.5: the sliding layers' shape must be one Megatron-Core and transformers build, for
      // sliding layers that exist, with no field this reader does not know; the MoE layers must exist.
      {"step-3.5-flash", "/attention_other_setting/num_attention_groups", 5,
       "`attention_other_setting`: num_attention_groups (5) must divide num_attention_heads (96)"},
      {"step-3.5-flash", "/attention_other_setting/num_attention_heads", 0, "num_attention_heads must be 1.."},
      {"step-3.5-flash", "/attention_other_setting/attention_type", "full_attention",
       "`attention_other_setting.attention_type` is 'full_attention'; understood: sliding_attention"},
      {"step-3.5-flash", "/attention_other_setting/gqa_v_norm", true,
       "field `gqa_v_norm` changes the sliding layers and recipebook does not understand it"},
      {"step-3.5-flash", "/sliding_window", nullptr, "`attention_other_setting` describes the sliding-attention "
                                                     "layers, but no layer slides"},
      {"step-3.5-flash", "/moe_layers_enum", "3,4,x", "`moe_layers_enum` must be layer indices separated by commas"},
      {"step-3.5-flash", "/moe_layers_enum", "3,48", "`moe_layers_enum` names layer 48 of 45"},
      {"step-3.5-flash", "/att_impl_type", "MFA", "`att_impl_type` is 'MFA'; understood: GQA"},
      {"step-3.5-flash", "/layer_types/47", nullptr, "`layer_types`"},
      // GLM-5.x: an indexer shared across layers is not modelled; q/k head dims that do not add up.
      {"glm-5.1", "/index_topk_freq", 4, "`index_topk_freq`: indexers shared across layers are not modelled"},
      {"glm-5.1", "/index_n_heads", 0, "`index_n_heads` is 0; it must be 1.."},
      {"glm-5.1", "/qk_head_dim", 192, "`qk_head_dim` (192) is not qk_nope_head_dim + qk_rope_head_dim (256)"},
  };
  for (const auto& c : cases) {
    auto m = model_from_hf_config_text(with(catalog_config(c.stem), c.path, c.value), "x.json");
    ASSERT_FALSE(m) << c.stem << " " << c.path;
    EXPECT_THAT(m.error().message, HasSubstr(c.says)) << c.stem << " " << c.path << ": " << m.error().str();
  }
}

// Issue item 7's hostile configs, for a model_type no reader knows (read by its parts, as any new
// model is): each refused naming the field. hf_config_test.cpp covers the llama/mixtral readers.
TEST(HfCatalogConfig, HostileConfigsReadByPartsAreRefusedNamingTheField) {
  struct Case {
    const char* fields;
    const char* key;
  };
  const Case cases[] = {
      {R"("hidden_size": 4097)", "hidden_size"},
      {R"("num_key_value_heads": 64)", "num_key_value_heads"},
      {R"("num_key_value_heads": 5)", "num_key_value_heads"},
      {R"("num_key_value_heads": 0)", "num_key_value_heads"},
      {R"("num_experts_per_tok": 9)", "num_experts_per_tok"},
      {R"("num_experts_per_tok": 0)", "num_experts_per_tok"},
      {R"("hidden_size": 1000000000000000)", "hidden_size"},
      {R"("vocab_size": 10000000000000)", "vocab_size"},
      {R"("num_hidden_layers": 1000000000)", "num_hidden_layers"},
  };
  for (const Case& c : cases) {
    const std::string text = std::string(R"({"model_type": "brand_new_moe", "hidden_size": 4096, "vocab_size": 32000,
"num_attention_heads": 32, "intermediate_size": 11008, "num_hidden_layers": 32, "hidden_act": "silu",
"tie_word_embeddings": false, "num_experts": 8, "num_experts_per_tok": 2, "moe_intermediate_size": 1024,
)") + c.fields + "}";
    auto m = model_from_hf_config_text(text, "hostile.json");
    ASSERT_FALSE(m) << c.fields;
    EXPECT_THAT(m.error().message, HasSubstr(std::string("`") + c.key + "`")) << c.fields << ": " << m.error().str();
    EXPECT_THAT(m.error().where.str(), HasSubstr("hostile.json:4:")) << c.fields << ": " << m.error().str();
  }
}

}  // namespace
}  // namespace rb
