#include "recipebook/estimate/params.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <string>

#include "recipebook/estimate/test_models.hpp"

namespace rb {
namespace {

// Seed 002: Qwen3.5-397B-A17B active parameters 16,331,407,360. The figure comes out exactly when the
// GDN depthwise conv1d kernels and the shared-expert gate count (they are weight tensors), and the MTP
// block and the vision tower do not: with MTP the count would grow by ~3.4e9, with the tower by 4.5e8.
TEST(Params, Seed002ActiveCountIsExact) {
  const ParamCounts c = count_params(test::qwen35_397b());
  EXPECT_EQ(c.active, 16'331'407'360);
  // The parts: 45 GDN + 15 gated-attention mixers, 60 MoE layers (router, 10 of 512 experts, shared
  // expert and its gate), LM head 248,320 x 4,096.
  const int64_t gdn = 4096 * (2 * 2048 + 2 * 8192 + 2 * 64) + (2 * 2048 + 8192) * 4 + 8192 * 4096;
  const int64_t attn = 4096 * (2 * 8192 + 512 + 512) + 8192 * 4096;
  const int64_t moe = 4096 * 512 + 10 * 3 * 4096 * 1024 + 3 * 4096 * 1024 + 4096;
  EXPECT_EQ(c.active, 45 * gdn + 15 * attn + 60 * moe + int64_t{248320} * 4096);
}

// The seed-002 MFU formula with this count: 6 x 16,331,407,360 x 1075.5 / 2.25e15 = 0.0468.
TEST(Params, Seed002MfuReproduces) {
  const double active = static_cast<double>(count_params(test::qwen35_397b()).active);
  EXPECT_NEAR(6.0 * active * 1075.5 / 2.25e15, 0.0468, 5e-5);
}

// gpt-oss publishes "active excluding input embedding" with its 1-D parameters included
// (models.csv: 5,132,849,472): our active count plus the biases, sinks and norms of the parts a
// token uses must give the same number.
TEST(Params, GptOssActiveWithOneDParamsMatchesPublished) {
  const Model m = test::gpt_oss_120b();
  const ParamCounts c = count_params(m);
  const int64_t h = m.hidden;
  const int64_t per_layer_1d = (4096 + 512 + 512) + h + 64 + 128 + 4 * (2 * 2880 + h) + 2 * h;
  EXPECT_EQ(c.active + 36 * per_layer_1d + h, 5'132'849'472);
}

struct TotalCase {
  const char* name;
  double published;    // models.csv total_params_published (the computed figure where it gives one)
  const char* which;   // "text", "text+mtp" or "text+vision"
  double tolerance;    // relative
  const char* note;
};

// models.csv total_params_published, row by row. Every model whose architecture the CSV gives
// (Qwen3.5-0.8B is left out: its GDN head counts are marked "NOT verified" there).
const TotalCase kTotals[] = {
    {"Llama-3-8B", 8.030e9, "text", 0.01, "computed 8.030B"},
    {"Llama-3-70B", 70.554e9, "text", 0.01, "computed 70.554B"},
    {"Llama-3.1-405B", 405.853e9, "text", 0.01, "computed 405.853B"},
    {"Qwen3-0.6B", 0.596e9, "text", 0.01, "computed 0.596B"},
    {"Qwen3-1.7B", 1.721e9, "text", 0.01, "computed 1.721B"},
    {"Qwen3-4B", 4.022e9, "text", 0.01, "computed 4.022B"},
    {"Qwen3-8B", 8.191e9, "text", 0.01, "computed 8.191B"},
    {"Qwen3-14B", 14.768e9, "text", 0.01, "computed 14.768B"},
    {"Qwen3-32B", 32.762e9, "text", 0.01, "computed 32.762B"},
    {"Qwen3-30B-A3B", 30.532e9, "text", 0.01, "computed 30.532B"},
    {"Qwen3-235B-A22B", 235.094e9, "text", 0.01, "computed 235.094B"},
    {"Qwen3-Next-80B-A3B", 79.67e9, "text", 0.01, "computed 79.67B excl. MTP"},
    {"Qwen3.5-397B-A17B", 396.35e9 + 0.456e9, "text+vision", 0.01, "text 396.35B + ViT 0.456B"},
    {"Qwen3.5-122B-A10B", 122'111'526'912.0, "text", 0.01, "computed text 122,111,526,912"},
    {"Qwen3.5-35B-A3B", 34.66e9 + 0.447e9, "text+vision", 0.01, "text 34.66B + ViT 0.447B"},
    {"Qwen3.5-27B", 26.90e9 + 0.46e9, "text+vision", 0.01, "text 26.90B + ViT 0.46B"},
    {"Qwen3.5-9B", 8.95e9, "text", 0.01, "computed text 8.95B"},
    {"Qwen3.5-4B", 4.21e9, "text", 0.01, "computed text 4.21B"},
    {"DeepSeek-V3", 671.03e9, "text", 0.01, "computed main 671.03B (HF 685B adds MTP with its own copies)"},
    {"Kimi-K2", 1.026e12, "text", 0.01, "computed 1.026T"},
    {"GLM-4.5", 352.8e9 + 4.0e9, "text+mtp", 0.01, "computed 352.8B + MTP 4.0B"},
    {"GLM-4.5-Air", 106.85e9 + 2.4e9, "text+mtp", 0.01, "computed 106.85B + MTP 2.4B"},
    {"gpt-oss-120b", 116'829'156'672.0, "text", 0.01, "computed 116,829,156,672"},
    {"gpt-oss-20b", 20'914'757'184.0, "text", 0.01, "computed 20,914,757,184"},
    {"Mixtral-8x7B", 46.70e9, "text", 0.01, "computed 46.70B"},
    // Headline figures without a computed count: the name rounds (Gemma 3 "4B" is 4.3B with its
    // SigLIP tower), so the bound is half a unit of the last digit plus 1%.
    {"Gemma-3-4B", 4e9, "text+vision", 0.5 / 4 + 0.01, "headline 4B"},
    {"Gemma-3-12B", 12e9, "text+vision", 0.5 / 12 + 0.01, "headline 12B"},
    {"Gemma-3-27B", 27e9, "text+vision", 0.5 / 27 + 0.01, "headline 27B"},
    {"Nemotron-H-8B", 8e9, "text", 0.5 / 8 + 0.01, "headline 8B"},
    {"Nemotron-H-56B", 56e9, "text", 0.5 / 56 + 0.01, "headline 56B"},
    // models.csv says "30B" (the name); NVIDIA's model card gives 31.6B total (replicate.com readme
    // of nvidia/nemotron-3-nano-30b-a3b), which is what the architecture adds up to.
    {"Nemotron-3-Nano-30B-A3B", 31.6e9, "text", 0.01, "model card 31.6B (name says 30B)"},
};

class TotalsTest : public ::testing::TestWithParam<TotalCase> {};

TEST_P(TotalsTest, TotalWithinToleranceOfPublished) {
  const TotalCase& tc = GetParam();
  Model found;
  for (const Model& m : test::all_test_models())
    if (m.name == tc.name) found = m;
  ASSERT_EQ(found.name, tc.name) << "no test model named " << tc.name;
  const ParamCounts c = count_params(found);
  const std::string which = tc.which;
  double ours = static_cast<double>(c.total);
  if (which == "text+mtp") ours += static_cast<double>(c.mtp);
  if (which == "text+vision") ours += static_cast<double>(c.vision);
  EXPECT_NEAR(ours / tc.published, 1.0, tc.tolerance) << tc.name << ": ours " << ours << " vs " << tc.note;
}

INSTANTIATE_TEST_SUITE_P(ModelsCsv, TotalsTest, ::testing::ValuesIn(kTotals),
                         [](const ::testing::TestParamInfo<TotalCase>& row) {
                           std::string n = row.param.name;
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

TEST(Params, BreakdownsAddUp) {
  for (const Model& m : test::all_test_models()) {
    const ParamCounts c = count_params(m);
    EXPECT_EQ(c.tp_sharded + c.replicated + c.expert + c.embedding + c.lm_head + c.final_norm, c.total) << m.name;
    EXPECT_LE(c.active, c.total + c.embedding) << m.name;
    EXPECT_GT(c.active, 0) << m.name;
  }
}

TEST(Params, DenseModelActiveIsTotalLessEmbeddingAndOneD) {
  const Model m = test::llama3_8b();
  const ParamCounts c = count_params(m);
  // untied: total - embedding - norms(2 per layer + final) = active
  EXPECT_EQ(c.active, c.total - c.embedding - (2 * 32 + 1) * 4096);
}

TEST(Params, MtpBlockFollowsLastLayer) {
  const Model ds = test::deepseek_v3();
  EXPECT_EQ(mtp_layer_spec(ds).mixer, MixerKind::kMla);
  EXPECT_EQ(mtp_layer_spec(ds).ffn, FfnKind::kMoe);
  // DeepSeek-V3's MTP module without its own embedding and head copies: 685B - 671B - 2 x 0.93B.
  const double mtp = static_cast<double>(count_params(ds).mtp);
  EXPECT_NEAR(mtp / 11.6e9, 1.0, 0.01);
  const Model q = test::qwen35_397b();
  EXPECT_EQ(mtp_layer_spec(q).mixer, MixerKind::kAttention);
}

TEST(Params, PaddedVocabIsMultipleOf128TimesTp) {
  EXPECT_EQ(padded_vocab(128256, 1), 128256);
  EXPECT_EQ(padded_vocab(128256, 8), 129024);
  EXPECT_EQ(padded_vocab(50257, 1), 50304);
  EXPECT_EQ(padded_vocab(151936, 4), 152064);
}

TEST(Params, LoraAdaptersAreSmallAndScaleWithRank) {
  const Model m = test::llama3_70b();
  const int64_t r16 = lora_params(m, 16);
  EXPECT_EQ(lora_params(m, 32), 2 * r16);
  EXPECT_LT(static_cast<double>(r16), 0.005 * static_cast<double>(count_params(m).total));
  // Per layer: qkv 16 x (8192 + 10240), proj 16 x (8192 + 8192), fc1 16 x (8192 + 57344), fc2 16 x (28672 + 8192).
  EXPECT_EQ(r16, 80 * 16 * ((8192 + 10240) + (8192 + 8192) + (8192 + 57344) + (28672 + 8192)));
}

}  // namespace
}  // namespace rb
