// The built-in catalog's config.json files (catalog/models/hf) that the reader once refused, each read
// as published: Ministral 3 (a Pixtral vision_config without `depth`), Qwen2.5-VL (use_sliding_window
// false beside layer_types), EXAONE 4.5 (num_kv_heads beside num_key_value_heads, an L/G
// sliding_window_pattern beside layer_types) and Nemotron 3 Super (a latent MoE, moe_latent_size).
// What such a file may not say: hf_config_refusal_test.cpp.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/catalog/hf_config.hpp"
#include "recipebook/catalog/hf_config_test_support.hpp"
#include "recipebook/estimate/flops.hpp"
#include "recipebook/estimate/params.hpp"

namespace rb {
namespace {

using ::testing::HasSubstr;

Model read_ok(const std::string& text, const std::string& file) {
  auto m = model_from_hf_config_text(text, file);
  EXPECT_TRUE(m) << file << ": " << (m ? "" : m.error().str());
  return m ? *m : Model{};
}

TEST(HfCatalogConfig, Ministral3ReadsItsPixtralVisionConfig) {
  // Failed before: "config.json has no `vision_config.depth`".
  const Model m = read_ok(catalog_config("ministral-3-3b"), "ministral-3-3b.json");
  EXPECT_EQ(m.num_layers(), 26);
  EXPECT_EQ(m.hidden, 3072);
  EXPECT_TRUE(m.tied_embeddings);
  EXPECT_EQ(m.vision.layers, 24);
  EXPECT_EQ(m.vision.hidden, 1024);
  EXPECT_EQ(m.vision.heads, 16);
  EXPECT_EQ(m.vision.patch, 14);
  EXPECT_EQ(m.vision.spatial_merge, 2);  // the top-level spatial_merge_size
  EXPECT_EQ(m.vision.out_hidden, 3072);
}

TEST(HfCatalogConfig, Qwen25VlWithoutSlidingWindows) {
  // Failed before: "`text_config.use_sliding_window` changes the architecture".
  const std::string text = catalog_config("qwen2.5-vl-7b");
  const Model m = read_ok(text, "qwen2.5-vl-7b.json");
  ASSERT_EQ(m.num_layers(), 28);
  for (const auto& l : m.layers) EXPECT_EQ(l.window, 0);
  // Its language model is the Qwen2.5-7B shape: 7,615,487,488 parameters.
  EXPECT_EQ(count_params(m).total, 7615487488);
  EXPECT_EQ(m.vision.layers, 32);
  // use_sliding_window false wins over a layer_types entry that says sliding (Qwen2Config drops the
  // window); with it true, the layer slides.
  const std::string sliding = with(text, "/text_config/layer_types/27", "sliding_attention");
  EXPECT_EQ(read_ok(sliding, "s.json").layers[27].window, 0);
  const std::string on = with(with(sliding, "/text_config/use_sliding_window", true), "/text_config/sliding_window", 32768);
  EXPECT_EQ(read_ok(on, "s.json").layers[27].window, 32768);
}

TEST(HfCatalogConfig, Exaone45KvHeadsTwiceAndALocalGlobalPattern) {
  // Failed before: "`text_config.num_kv_heads` changes the architecture" (then sliding_window_pattern).
  const std::string text = catalog_config("exaone-4.5-33b");
  const Model m = read_ok(text, "exaone-4.5-33b.json");
  ASSERT_EQ(m.num_layers(), 64);
  EXPECT_EQ(m.attn.kv_heads, 8);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(m.layers[static_cast<size_t>(i)].window, i % 4 == 3 ? 0 : 4096) << i;
  EXPECT_EQ(m.vision.layers, 28);

  // Without layer_types the pattern places the windows.
  auto j = nlohmann::json::parse(text);
  j["text_config"].erase("layer_types");
  const Model p = read_ok(j.dump(), "p.json");
  for (int i = 0; i < 64; ++i) EXPECT_EQ(p.layers[static_cast<size_t>(i)].window, i % 4 == 3 ? 0 : 4096) << i;
}

TEST(HfCatalogConfig, NemotronSuperIsALatentMoe) {
  // Failed before: "`moe_latent_size` changes the architecture".
  const std::string text = catalog_config("nemotron-3-super-120b-a12b");
  const Model m = read_ok(text, "nemotron-3-super-120b-a12b.json");
  EXPECT_EQ(m.num_layers(), 88);
  EXPECT_EQ(m.count_layers(MixerKind::kMamba2), 40);
  EXPECT_EQ(m.count_layers(FfnKind::kMoe), 40);
  EXPECT_EQ(m.count_layers(MixerKind::kAttention), 8);
  EXPECT_EQ(m.moe.experts, 512);
  EXPECT_EQ(m.moe.top_k, 22);
  EXPECT_EQ(m.moe.latent, 1024);
  EXPECT_EQ(m.mtp_layers, 1);
  // Published: the BF16 checkpoint's safetensors headers hold 123,611,012,096 parameters of which the
  // MTP block is 2,942,324,736 (nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16, as summed in a public
  // parameter-count test the code index holds, stored file id 70181782850): 120,668,687,360 without
  // MTP, the figure counted here to the parameter. Active: "A12B".
  const ParamCounts c = count_params(m);
  EXPECT_EQ(c.total, 120668687360);
  EXPECT_NEAR(static_cast<double>(c.active) / 12e9, 1.0, 0.05);
  // Without the latent projection the experts would be four times as wide: 458B in all.
  Model wide = m;
  wide.moe.latent = 0;
  EXPECT_GT(count_params(wide).total, 3 * c.total);
  EXPECT_GT(megatron_flops_per_token(wide, 4096, FlopsOptions{}), megatron_flops_per_token(m, 4096, FlopsOptions{}));
}

// The catalog models these configs size, against published figures (within 1%). Each figure is of
// the language model as the catalog counts it (text: embedding, layers, head, no MTP or vision
// tower), of its layers without the embedding and head, of the parameters a token activates with
// its embedding row, of the language model with its vision tower, or with its MTP block, as the
// source gives it.
enum class Counted { kTotal, kWithoutEmbeddings, kActiveWithEmbedding, kTotalWithVision, kTotalWithMtp };
struct PublishedText {
  const char* model;
  double figure;
  Counted counted;
  const char* source;
};

double counted_params(const ParamCounts& pc, Counted what) {
  switch (what) {
    case Counted::kWithoutEmbeddings: return static_cast<double>(pc.total - pc.embedding - pc.lm_head);
    case Counted::kActiveWithEmbedding: return static_cast<double>(pc.active + pc.embedding);
    case Counted::kTotalWithVision: return static_cast<double>(pc.total + pc.vision);
    case Counted::kTotalWithMtp: return static_cast<double>(pc.total + pc.mtp);
    case Counted::kTotal: break;
  }
  return static_cast<double>(pc.total);
}

TEST(HfCatalogConfig, SizedModelsMatchTheirPublishedFigures) {
  const PublishedText cases[] = {
      {"Ministral-3-3B", 3.4e9, Counted::kTotal,
       "Megatron-Bridge docs models/vlm/ministral3 (3.4B; vision encoder ~0.4B apart); apxml.com/models/ministral-3-3b: "
       "a 3.4 billion parameter language decoder with a 410 million parameter ViT"},
      {"Qwen2.5-VL-7B", 7.61e9, Counted::kTotal,
       "its language model is the Qwen2.5-7B shape (hidden 3584, 28 layers, ffn 18944, vocab 152064, untied): "
       "the Qwen/Qwen2.5-7B model card, Number of Parameters 7.61B"},
      {"Qwen2.5-VL-3B", 3.09e9, Counted::kTotal,
       "its language model is the Qwen2.5-3B shape (hidden 2048, 36 layers, ffn 11008, 16/2 heads, tied, vocab "
       "151936): the Qwen/Qwen2.5-3B model card, Number of Parameters 3.09B"},
      {"EXAONE-4.5-33B", 30.95e9, Counted::kWithoutEmbeddings,
       "its text layers are the EXAONE 4.0 32B stack (64 layers, hidden 5120, 40/8 heads, ffn 27392): the "
       "LGAI-EXAONE/EXAONE-4.0-32B model card, Number of Parameters (without embeddings) 30.95B"},
      {"Nemotron-3-Super-120B-A12B", 123611012096.0 - 2942324736.0, Counted::kTotal,
       "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16 safetensors: 123,611,012,096 of which MTP 2,942,324,736"},
      // Issue 13 part 6: the stubs sized from a config.json.
      {"Qwen2.5-VL-32B", 31.0e9, Counted::kWithoutEmbeddings,
       "its language model is the Qwen2.5-32B shape: the Qwen/Qwen2.5-32B model card, Number of Parameters "
       "(Non-Embedding) 31.0B (32.5B in all)"},
      {"Qwen2.5-VL-72B", 72.7e9, Counted::kTotal,
       "its language model is the Qwen2-72B shape (hidden 8192, 80 layers, ffn 29568, 64/8 heads, vocab 152064, "
       "untied): Qwen2 report arXiv:2407.10671 Table 1, 72.7B"},
      {"Ministral-3-8B", 8.92e9 - 0.4e9, Counted::kTotal,
       "mistralai/Ministral-3-8B-Instruct-2512 8.92B in all, less its ~0.4B vision encoder (Megatron-Bridge docs "
       "models/mistral/ministral3.md: 8.9B, vision encoder ~0.4B)"},
      {"Ministral-3-14B", 13.5e9, Counted::kTotal,
       "a public Ministral 14B guide (arealicehole/know ministral-14b-complete-prompting-guide): 13.5B language core "
       "+ 0.4B vision encoder; Megatron-Bridge docs: 13.9B with the ~0.4B vision encoder"},
      {"Kimi-K2.5", 32.86e9, Counted::kActiveWithEmbedding,
       "NVIDIA technical blog on Kimi K2.5 (2026-02-04): active parameters 32.86B, total 1T"},
      {"Qwen3.8-27B", 27e9, Counted::kTotal,
       "its name, 27B (xtuner builds it with its Qwen3.5-27B class); the vision tower counted apart"},
      {"Qwen3.6-35B-A3B", 35e9, Counted::kTotalWithVision,
       "its name and a public LoRA provenance note: ~35B total (qwen3_5_moe), with its vision tower (its MTP layer apart)"},
      {"Qwen3-Omni-30B-A3B", 30.5e9, Counted::kTotal,
       "its thinker's language model is the Qwen3-30B-A3B shape (48 layers, hidden 2048, 128 experts top-8, expert "
       "FFN 768, 32/4 heads; vocab 152064 for 151936): Qwen3-30B-A3B, 30.5B (shared/data/models.csv)"},
      {"Step-3.5-Flash", 196e9, Counted::kTotal,
       "the stepfun-ai/Step-3.5-Flash model card: 196B total parameters, 11B active (its 3 MTP layers apart)"},
      {"Step-3.5-Flash", (398768626944.0 - 3167748096.0) / 2, Counted::kTotalWithMtp,
       "the Hub checkpoint's 398,768,626,944 BF16 bytes less its three 3,167,748,096-byte copies of lm_head for "
       "the MTP layers (Megatron-Bridge examples/model_verification_cards/step35-flash/card.yaml)"},
      {"GLM-5.1", 753864139008.0, Counted::kTotalWithMtp,
       "the zai-org/GLM-5.1 checkpoint's per-tensor table (282 safetensors files, 753,864,139,008 parameters with "
       "its MTP layer and the DSA indexers) in a public model report, stored file id 62604838642"},
      {"Nemotron-3.5-Lightning", 31.6e9, Counted::kTotal,
       "the Nemotron 3 Nano architecture (Megatron-Bridge lightning README): 31.6 billion total parameters "
       "(replicate.com/nvidia/nemotron-3-nano-30b-a3b readme), its MTP block apart"},
  };
  auto cat = Catalog::load();
  ASSERT_TRUE(cat) << cat.error().str();
  for (const auto& c : cases) {
    auto m = cat->find_model(c.model);
    ASSERT_TRUE(m) << c.model;
    ASSERT_TRUE(m->has_architecture) << c.model;
    const ParamCounts pc = count_params(*m);
    const double counted = counted_params(pc, c.counted);
    EXPECT_NEAR(counted / c.figure, 1.0, 0.01) << c.model << ": counted " << counted << "; " << c.source;
  }
}

// Qwen2-Audio: the language model is read from text_config (a sparse config that leans on the Qwen2Config
// defaults, written out in the file); audio_config is left to the note, not read as a vision tower. No
// published figure isolates the language model, so it is checked to the parameter by hand: embedding and
// head 2 x 156032 x 4096, per layer q/k/v with biases 3 x (4096^2 + 4096), o 4096^2, SwiGLU 3 x 4096 x 11008,
// two norms; the final norm.
TEST(HfCatalogConfig, Qwen2AudioSizesItsLanguageModelOnly) {
  const Model m = read_ok(catalog_config("qwen2-audio-7b"), "qwen2-audio-7b.json");
  EXPECT_EQ(m.num_layers(), 32);
  EXPECT_EQ(m.attn.kv_heads, 32);
  EXPECT_EQ(m.vocab, 156032);
  EXPECT_EQ(m.vision.layers, 0);
  const int64_t per_layer = 3 * (4096LL * 4096 + 4096) + 4096LL * 4096 + 3 * 4096LL * 11008 + 2 * 4096;
  EXPECT_EQ(count_params(m).total, 2 * 156032LL * 4096 + 32 * per_layer + 4096);
}

// Nemotron 3.5 Lightning: the Nemotron 3 Nano stack plus one native MTP block (*E); the main stack
// counts exactly as the catalog's Nemotron-3-Nano-30B-A3B entry.
TEST(HfCatalogConfig, LightningIsNanoWithOneMtpBlock) {
  const Model m = read_ok(catalog_config("nemotron-3.5-lightning"), "nemotron-3.5-lightning.json");
  EXPECT_EQ(m.mtp_layers, 1);
  EXPECT_EQ(m.count_layers(MixerKind::kMamba2), 23);
  EXPECT_EQ(m.count_layers(FfnKind::kMoe), 23);
  EXPECT_EQ(m.count_layers(MixerKind::kAttention), 6);
  auto cat = Catalog::load();
  ASSERT_TRUE(cat) << cat.error().str();
  auto nano = cat->find_model("Nemotron-3-Nano-30B-A3B");
  ASSERT_TRUE(nano);
  EXPECT_EQ(count_params(m).total, count_params(*nano).total);
  EXPECT_GT(count_params(m).mtp, 0);
}

// Qwen3.8-27B and Qwen3.6-35B-A3B: later releases with the Qwen3.5-27B / -35B-A3B architectures, and
// Nemotron-Nano-12B-v2-VL: the Nemotron-Nano-12B-v2 language model (its RADIO tower not modelled). Each
// config.json counts exactly as the catalog entry of the architecture it shares. Failed before: the
// three were stubs without an architecture; Qwen3.8's text_config.mamba_ssm_dtype (the dtype of the
// GDN state, an inference setting) was refused as a field that changes the architecture.
TEST(HfCatalogConfig, LaterReleasesCountAsTheArchitectureTheyShare) {
  auto cat = Catalog::load();
  ASSERT_TRUE(cat) << cat.error().str();
  const struct {
    const char* model;
    const char* shares;
  } cases[] = {{"Qwen3.8-27B", "Qwen3.5-27B"},
               {"Qwen3.6-35B-A3B", "Qwen3.5-35B-A3B"},
               {"Nemotron-Nano-12B-v2-VL", "Nemotron-Nano-12B-v2"}};
  for (const auto& c : cases) {
    auto m = cat->find_model(c.model);
    auto like = cat->find_model(c.shares);
    ASSERT_TRUE(m && like) << c.model;
    ASSERT_TRUE(m->has_architecture) << c.model;
    EXPECT_EQ(count_params(*m).total, count_params(*like).total) << c.model;
    EXPECT_EQ(count_params(*m).active, count_params(*like).active) << c.model;
  }
  const Model q38 = read_ok(catalog_config("qwen3.8-27b"), "qwen3.8-27b.json");
  EXPECT_EQ(q38.count_layers(MixerKind::kGdn), 48);
  EXPECT_EQ(q38.mtp_layers, 1);
  EXPECT_EQ(q38.vision.layers, 27);
}

// Qwen3-Omni: the language model is under thinker_config (beside the talker and code2wav), and
// transformers prints the PretrainedConfig defaults into every sub-config (add_cross_attention false,
// is_encoder_decoder false, tie_encoder_decoder false), which name no part that is there. Failed before:
// "config.json describes no layers" (no top-level text_config), then `add_cross_attention` refused.
TEST(HfCatalogConfig, OmniConfigSizesItsThinker) {
  const std::string text = catalog_config("qwen3-omni-30b-a3b");
  const Model m = read_ok(text, "qwen3-omni-30b-a3b.json");
  EXPECT_EQ(m.num_layers(), 48);
  EXPECT_EQ(m.hidden, 2048);
  EXPECT_EQ(m.moe.experts, 128);
  EXPECT_EQ(m.moe.top_k, 8);
  EXPECT_EQ(m.vocab, 152064);
  EXPECT_TRUE(m.attn.qk_norm);
  EXPECT_EQ(m.vision.layers, 27);
  EXPECT_THAT(m.assumptions, ::testing::Contains(HasSubstr("thinker_config is the model sized")));
  // mlp_only_layers is read, not skipped: a listed layer is dense.
  const Model dense =
      read_ok(with(text, "/thinker_config/text_config/mlp_only_layers", nlohmann::json::array({0})), "d.json");
  EXPECT_EQ(dense.count_layers(FfnKind::kDense), 1);
}

// Step-3.5-Flash (model_type step3p5, which no reader knows: read by its parts). Its sliding layers
// have their own head count (attention_other_setting: 96 heads, 64 on the full layers), every layer a
// per-head output gate (use_head_wise_attn_gate), layer_types lists the 3 MTP layers after the 45
// decoder layers, and moe_layers_enum places the experts. Failed before: "`attention_other_setting`
// changes the architecture" (the catalog entry was unsized).
TEST(HfCatalogConfig, Step35SlidingLayersHaveTheirOwnHeadsAndAGatePerHead) {
  const Model m = read_ok(catalog_config("step-3.5-flash"), "step-3.5-flash.json");
  ASSERT_EQ(m.num_layers(), 45);
  EXPECT_EQ(m.mtp_layers, 3);
  for (int i = 0; i < 45; ++i) {
    const LayerSpec& l = m.layers[static_cast<size_t>(i)];
    EXPECT_EQ(l.window, i % 4 == 0 ? 0 : 512) << i;
    EXPECT_EQ(l.ffn, i < 3 ? FfnKind::kDense : FfnKind::kMoe) << i;
    EXPECT_EQ(attention_of(m, l).heads, i % 4 == 0 ? 64 : 96) << i;
  }
  EXPECT_EQ(m.attn.kv_heads, 8);  // num_attention_groups
  EXPECT_TRUE(m.attn.head_gate);
  EXPECT_EQ(m.sliding_attn.kv_heads, 8);
  EXPECT_EQ(m.sliding_attn.head_dim, 128);
  EXPECT_TRUE(m.sliding_attn.head_gate);
  EXPECT_EQ(m.moe.experts, 288);
  EXPECT_EQ(m.moe.top_k, 8);
  EXPECT_EQ(m.moe.ffn, 1280);
  EXPECT_EQ(m.moe.shared_ffn, 1280);  // share_expert_dim: one ungated shared expert
  EXPECT_FALSE(m.moe.shared_gate);
  EXPECT_EQ(m.ffn, 11264);
  EXPECT_FALSE(m.tied_embeddings);
  EXPECT_TRUE(m.mtp_dense);  // moe_layers_enum lists none of the MTP layers 45-47
  // To the parameter, by hand (Step3p5Attention: q/k/v/o without bias, g_proj hidden -> heads;
  // Step3p5MoEMLP: router and 288 SwiGLU experts; share_expert; two RMSNorms a layer).
  const int64_t h = 4096;
  const auto attn = [h](int64_t heads) { return h * (heads * 128 + 2 * 8 * 128) + heads * 128 * h + h * heads; };
  const int64_t moe = 288 * 3 * h * 1280 + 3 * h * 1280 + h * 288;
  const int64_t total = 2 * 128896 * h + h + 12 * attn(64) + 33 * attn(96) + 3 * (3 * h * 11264) + 42 * moe + 45 * 2 * h;
  EXPECT_EQ(count_params(m).total, total);
  // The sliding layers' heads and the gates are in the FLOPs too.
  Model plain = m;
  plain.sliding_attn = AttentionDims{};
  plain.attn.head_gate = false;
  const double q_extra = 32.0 * 128;  // 96 - 64 heads of 128 on each sliding layer
  const double fwd_gemm = 33 * 2.0 * (h * q_extra + q_extra * h) + 33 * 2.0 * h * 32 + 45 * 2.0 * h * 64;
  const double flops = megatron_flops_per_token(m, 4096, FlopsOptions{});
  const double plain_flops = megatron_flops_per_token(plain, 4096, FlopsOptions{});
  EXPECT_GT(flops - plain_flops, 3.0 * fwd_gemm);  // and the sliding layers' larger core attention
  EXPECT_LT(flops - plain_flops, 3.0 * fwd_gemm * 1.2);
}

// GLM-5.1 (glm_moe_dsa, read by its parts): MLA with a DSA lightning indexer on every layer. The
// indexer's weights (0.1% of the model) and FLOPs are counted. Failed before: "`index_n_heads`
// changes the architecture" (the catalog entry was unsized).
TEST(HfCatalogConfig, Glm51CountsItsLightningIndexers) {
  const Model m = read_ok(catalog_config("glm-5.1"), "glm-5.1.json");
  ASSERT_EQ(m.num_layers(), 78);
  EXPECT_EQ(m.count_layers(MixerKind::kMla), 78);
  EXPECT_EQ(m.count_layers(FfnKind::kDense), 3);
  EXPECT_EQ(m.mla.index_heads, 32);
  EXPECT_EQ(m.mla.index_head_dim, 128);
  EXPECT_EQ(m.mla.index_topk, 2048);
  EXPECT_EQ(m.attn.head_dim, 256);  // qk_head_dim; the config's head_dim 64 sizes nothing
  // Per layer, as the report's tensor table lists them: wq_b [4096, 2048], wk [128, 6144],
  // weights_proj [32, 6144], k_norm weight and bias [128].
  Model plain = m;
  plain.mla.index_heads = plain.mla.index_head_dim = 0;
  const int64_t per_layer = 4096 * 2048 + 128 * 6144 + 32 * 6144 + 2 * 128;
  EXPECT_EQ(count_params(m).total - count_params(plain).total, 78 * per_layer);
  EXPECT_GT(megatron_flops_per_token(m, 4096, FlopsOptions{}), megatron_flops_per_token(plain, 4096, FlopsOptions{}));
  // The top-k selection is not timed: the reader says so where estimate prints its assumptions.
  EXPECT_THAT(m.assumptions, ::testing::Contains(HasSubstr("past index_topk 2048 tokens")));
}

}  // namespace
}  // namespace rb
