#include "recipebook/catalog/model_yaml.hpp"

#include <chrono>
#include <tuple>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "recipebook/catalog/model_layers.hpp"

namespace rb {
namespace {

using ::testing::HasSubstr;

std::optional<Model> convert(const std::string& text, Diagnostics& ds) {
  auto tree = parse_yaml(text, "m.yaml");
  EXPECT_TRUE(tree) << tree.error().str();
  return model_from_yaml(*tree, ds);
}

std::string all(const Diagnostics& ds) {
  std::string out;
  for (const auto& d : ds) out += d.str() + "\n";
  return out;
}

TEST(ModelYaml, DenseModelWithDefaults) {
  Diagnostics ds;
  const auto m = convert(R"(
name: Llama-3-8B
hf_id: meta-llama/Meta-Llama-3-8B
family: llama
aliases: [llama3_8b]
source: test
architecture:
  hidden: 4096
  vocab: 128256
  ffn: 14336
  attention: {heads: 32, kv_heads: 8}
  layers: {count: 32}
published: {total_params: 8030261248}
)",
                         ds);
  ASSERT_TRUE(m) << all(ds);
  EXPECT_TRUE(ds.empty());
  EXPECT_TRUE(m->has_architecture);
  EXPECT_EQ(m->attn.head_dim, 128);  // hidden / heads when absent
  EXPECT_EQ(m->num_layers(), 32);
  EXPECT_EQ(m->count_layers(MixerKind::kAttention), 32);
  EXPECT_EQ(m->count_layers(FfnKind::kDense), 32);
  EXPECT_EQ(m->aliases, std::vector<std::string>{"llama3_8b"});
  EXPECT_EQ(m->published_total_params, 8030261248);
  EXPECT_EQ(m->norm, NormKind::kRms);
  EXPECT_EQ(m->activation, Activation::kSwiglu);
}

TEST(ModelYaml, PatternsRepeatAndFirstDenseLayersAreDense) {
  Diagnostics ds;
  const auto m = convert(R"(
name: hybrid
source: test
architecture:
  hidden: 2048
  vocab: 1000
  attention: {heads: 16, kv_heads: 2, head_dim: 256}
  gdn: {key_heads: 16, value_heads: 32, key_dim: 128, value_dim: 128, conv_kernel: 4}
  moe: {experts: 64, top_k: 8, ffn: 512}
  layers:
    count: 10
    mixer_pattern: [gdn, gdn, gdn, attention]
    window_pattern: [0, 128]
    first_dense: 2
)",
                         ds);
  ASSERT_TRUE(m) << all(ds);
  ASSERT_EQ(m->num_layers(), 10);
  EXPECT_EQ(m->layers[3].mixer, MixerKind::kAttention);
  EXPECT_EQ(m->layers[3].window, 128);  // index 3 of [0, 128] repeated
  EXPECT_EQ(m->layers[7].mixer, MixerKind::kAttention);
  EXPECT_EQ(m->layers[7].window, 128);
  EXPECT_EQ(m->layers[2].window, 0);  // gdn layers carry no window
  EXPECT_EQ(m->layers[1].ffn, FfnKind::kDense);
  EXPECT_EQ(m->layers[2].ffn, FfnKind::kMoe);
  EXPECT_EQ(m->count_layers(MixerKind::kGdn), 8);
  EXPECT_EQ(m->count_layers(FfnKind::kMoe), 8);
}

TEST(ModelYaml, HybridPatternGivesOneBlockPerLayer) {
  Diagnostics ds;
  const auto m = convert(R"(
name: nemo
source: test
architecture:
  hidden: 4096
  vocab: 131072
  ffn: 21504
  activation: squared_relu
  attention: {heads: 32, kv_heads: 8, head_dim: 128}
  mamba: {heads: 128, head_dim: 64, state: 128, groups: 8, conv_kernel: 4}
  layers: {count: 6, hybrid_pattern: 'M-M*-M'}
)",
                         ds);
  ASSERT_TRUE(m) << all(ds);
  ASSERT_EQ(m->num_layers(), 7 - 1);
  EXPECT_EQ(m->layers[0], (LayerSpec{MixerKind::kMamba2, 0, FfnKind::kNone}));
  EXPECT_EQ(m->layers[1], (LayerSpec{MixerKind::kNone, 0, FfnKind::kDense}));
  EXPECT_EQ(m->layers[3], (LayerSpec{MixerKind::kAttention, 0, FfnKind::kNone}));
  EXPECT_EQ(m->activation, Activation::kSquaredRelu);
}

TEST(ModelYaml, StubHasNoArchitecture) {
  Diagnostics ds;
  auto m = convert("name: DeepSeek-V2\nsource: named by recipes\naliases: [deepseek_v2]\n", ds);
  ASSERT_TRUE(m) << all(ds);
  EXPECT_FALSE(m->has_architecture);
  EXPECT_TRUE(m->layers.empty());
  m = convert("name: X\nsource: y\narchitecture: null\n", ds);
  ASSERT_TRUE(m);
  EXPECT_FALSE(m->has_architecture);
}

TEST(ModelYaml, ReportsEveryProblemWithItsPosition) {
  Diagnostics ds;
  const auto m = convert(R"(
name: bad
source: test
architecture:
  hidden: 4096
  vocab: 1000
  norm: batch
  activation: relu
  attention: {heads: 32}
  layers:
    count: 4
    mixer_pattern: [attention, gdn, mamba]
    window_pattern: [-1]
)",
                         ds);
  EXPECT_FALSE(m);
  const std::string text = all(ds);
  EXPECT_THAT(text, HasSubstr("m.yaml:7:9: error [RB-MODEL-VALUE] `architecture.norm` is 'batch'"));
  EXPECT_THAT(text, HasSubstr("m.yaml:8:15: error [RB-MODEL-VALUE] `architecture.activation` is 'relu'"));
  EXPECT_THAT(text,
              HasSubstr("m.yaml:13:22: error [RB-MODEL-VALUE] `architecture.layers.window_pattern[0]`"));
  EXPECT_THAT(text, HasSubstr("the layers use gdn but `architecture.gdn` is missing"));
  EXPECT_THAT(text, HasSubstr("the layers use mamba2 but `architecture.mamba` is missing"));
}

TEST(ModelYaml, HybridPatternMustMatchCountAndAlphabet) {
  Diagnostics ds;
  EXPECT_FALSE(
      convert("name: a\nsource: b\narchitecture:\n  hidden: 8\n  vocab: 8\n  attention: {heads: 1}\n"
              "  layers: {count: 3, hybrid_pattern: '*-'}\n",
              ds));
  EXPECT_THAT(all(ds), HasSubstr("has 2 layers but `count` is 3"));
  ds.clear();
  EXPECT_FALSE(
      convert("name: a\nsource: b\narchitecture:\n  hidden: 8\n  vocab: 8\n  attention: {heads: 1}\n"
              "  layers: {count: 2, hybrid_pattern: '*x'}\n",
              ds));
  EXPECT_THAT(all(ds), HasSubstr("has 'x' at index 1"));
}

TEST(ModelYaml, LayerHelpers) {
  EXPECT_EQ(layers_from_pattern(0, {}, {}, 0, false).size(), 0u);
  const auto l = layers_from_pattern(3, {}, {}, 1, true);
  ASSERT_EQ(l.size(), 3u);
  EXPECT_EQ(l[0].ffn, FfnKind::kDense);
  EXPECT_EQ(l[2].ffn, FfnKind::kMoe);
  size_t bad = 99;
  EXPECT_FALSE(layers_from_hybrid("ME*-?", &bad));
  EXPECT_EQ(bad, 4u);
  EXPECT_EQ(parse_mixer("mamba2"), MixerKind::kMamba2);
  EXPECT_FALSE(parse_mixer("ssm"));
}

}  // namespace
}  // namespace rb

namespace rb {
namespace {

// A hostile catalog file is refused like a hostile config.json (model_limits.hpp), naming the path
// and the line, and a huge layer count is refused before any layer list is built.
struct HostileYaml {
  const char* name;
  const char* attention;
  const char* layers;
  const char* moe;
  const char* path;  // named in the message
  int line;          // of the node the finding is at
};

class ModelYamlHostile : public ::testing::TestWithParam<HostileYaml> {};

TEST_P(ModelYamlHostile, RefusedNamingThePath) {
  const HostileYaml& h = GetParam();
  const std::string text = std::string("name: hostile\nsource: test\narchitecture:\n  hidden: 4096\n  vocab: 32000\n") +
                           "  ffn: 11008\n  attention: " + h.attention + "\n  layers: " + h.layers +
                           "\n  moe: " + h.moe + "\n";
  Diagnostics ds;
  const auto t0 = std::chrono::steady_clock::now();
  const auto m = convert(text, ds);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_FALSE(m) << h.name;
  ASSERT_FALSE(ds.empty()) << h.name;
  EXPECT_THAT(ds.front().message, HasSubstr(h.path)) << all(ds);
  EXPECT_EQ(ds.front().where.line, h.line) << all(ds);
  EXPECT_LT(ms, 200.0);
}

INSTANTIATE_TEST_SUITE_P(
    Issue, ModelYamlHostile,
    ::testing::Values(HostileYaml{"layers_1e9", "{heads: 32}", "{count: 1000000000}",
                                  "{experts: 8, top_k: 2, ffn: 1024}", "architecture.layers.count", 8},
                      HostileYaml{"kv_not_dividing", "{heads: 32, kv_heads: 5}", "{count: 4}",
                                  "{experts: 8, top_k: 2, ffn: 1024}", "architecture.attention.kv_heads", 7},
                      HostileYaml{"more_kv_than_heads", "{heads: 32, kv_heads: 64}", "{count: 4}",
                                  "{experts: 8, top_k: 2, ffn: 1024}", "architecture.attention.kv_heads", 7},
                      HostileYaml{"top_k_above_experts", "{heads: 32}", "{count: 4}",
                                  "{experts: 8, top_k: 9, ffn: 1024}", "architecture.moe.top_k", 9},
                      HostileYaml{"hidden_not_split", "{heads: 30}", "{count: 4}", "{experts: 8, top_k: 2, ffn: 1024}",
                                  "architecture.hidden", 7},
                      HostileYaml{"experts_huge", "{heads: 32}", "{count: 4}",
                                  "{experts: 100000000, top_k: 2, ffn: 1024}", "architecture.moe.experts", 9}),
    [](const ::testing::TestParamInfo<HostileYaml>& p) { return std::string(p.param.name); });

TEST(ModelYaml, HugeSizesAreRefused) {
  Diagnostics ds;
  const auto m = convert(R"(
name: huge
source: test
architecture:
  hidden: 1000000000000000
  vocab: 10000000000000
  ffn: 11008
  attention: {heads: 32, head_dim: 128}
  layers: {count: 4}
)",
                         ds);
  EXPECT_FALSE(m);
  ASSERT_FALSE(ds.empty());
  EXPECT_THAT(ds.front().message, HasSubstr("`architecture.hidden` is 1000000000000000; it must be at most 131072"));
}

// Step-3.5-Flash's shape (catalog/models/hf/step-3.5-flash.json): 96 heads on the sliding layers, 64 on
// the full ones, a per-head output gate and dense MTP layers; and GLM-5.1's DSA indexer on its MLA
// layers. Before the reader took them they were silently dropped (the sliding layers sized with
// the full layers' heads, no indexer, MoE MTP layers).
TEST(ModelYaml, ReadsSlidingShapeIndexerAndDenseMtp) {
  Diagnostics ds;
  const auto step = convert(R"(
name: step-like
source: test
architecture:
  hidden: 4096
  vocab: 128896
  ffn: 11264
  attention: {heads: 64, kv_heads: 8, head_dim: 128, head_gate: true, qk_norm: true}
  sliding_attention: {heads: 96, kv_heads: 8}
  moe: {experts: 288, top_k: 8, ffn: 1280, shared_experts: 1, shared_ffn: 1280}
  layers: {count: 8, window_pattern: [0, 512, 512, 512], first_dense: 3}
  mtp_layers: 3
  mtp_dense: true
)",
                            ds);
  ASSERT_TRUE(step) << all(ds);
  EXPECT_TRUE(step->attn.head_gate);
  EXPECT_EQ(step->sliding_attn.heads, 96);
  EXPECT_EQ(step->sliding_attn.kv_heads, 8);
  EXPECT_EQ(step->sliding_attn.head_dim, 128);  // the full layers' where not given
  EXPECT_TRUE(step->sliding_attn.head_gate);    // and their options
  EXPECT_EQ(attention_of(*step, step->layers[1]).heads, 96);
  EXPECT_EQ(attention_of(*step, step->layers[4]).heads, 64);
  EXPECT_TRUE(step->mtp_dense);

  const auto dsa = convert(R"(
name: dsa-like
source: test
architecture:
  hidden: 6144
  vocab: 154880
  ffn: 12288
  attention: {heads: 64, kv_heads: 64, head_dim: 256, v_head_dim: 256}
  mla: {q_lora_rank: 2048, kv_lora_rank: 512, qk_nope_dim: 192, qk_rope_dim: 64, v_dim: 256,
        index_heads: 32, index_head_dim: 128, index_topk: 2048}
  layers: {count: 4, mixer_pattern: [mla]}
)",
                           ds);
  ASSERT_TRUE(dsa) << all(ds);
  EXPECT_EQ(dsa->mla.index_heads, 32);
  EXPECT_EQ(dsa->mla.index_head_dim, 128);
  EXPECT_EQ(dsa->mla.index_topk, 2048);
}

TEST(ModelYaml, SlidingShapeNeedsASlidingLayerAndDividingKvHeads) {
  for (const auto& [layers, shape, want] :
       {std::tuple{"{count: 4}", "{heads: 96}", "no layer slides"},
        std::tuple{"{count: 4, window_pattern: [0, 512]}", "{heads: 96, kv_heads: 7}", "must divide"}}) {
    Diagnostics ds;
    const auto m = convert(std::string(R"(
name: bad
source: test
architecture:
  hidden: 4096
  vocab: 1000
  ffn: 1024
  attention: {heads: 64, kv_heads: 8, head_dim: 128}
  sliding_attention: )") + shape + "\n  layers: " + layers + "\n",
                           ds);
    EXPECT_FALSE(m);
    EXPECT_THAT(all(ds), HasSubstr(want));
  }
}

}  // namespace
}  // namespace rb
