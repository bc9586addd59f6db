// Matching a request to recipes, criterion by criterion: each case holds every other criterion equal
// and checks that the one it is about decides.
#include "recipebook/search/recommend.hpp"

#include <gtest/gtest.h>

namespace rb {
namespace {

GpuFacts gpu(const std::string& name) {
  if (name == "h100") return {"h100", 80e9, GpuArch::kHopper, 8};
  if (name == "h200") return {"h200", 141e9, GpuArch::kHopper, 8};
  if (name == "b200") return {"b200", 180e9, GpuArch::kBlackwell, 8};
  if (name == "gb200") return {"gb200", 186e9, GpuArch::kGraceBlackwell, 72};
  if (name == "a100") return {"a100", 80e9, GpuArch::kAmpere, 8};
  if (name == "mi300x") return {"mi300x", 192e9, GpuArch::kAmd, 8};
  return {name, 0, GpuArch::kUnknown, 0};
}

ModelFacts model(const std::string& name, const std::string& family, double params, int moe = 0) {
  return {name, family, params, moe, true};
}

RecipeCandidate cand(const std::string& name, const ModelFacts& m, Mode mode, const std::string& g, int gpus) {
  RecipeCandidate c;
  c.name = name;
  c.kind = RecipeKind::kPerformance;
  c.mode = mode;
  c.framework = "megatron-bridge";
  c.model = m;
  c.gpu = gpu(g);
  c.gpus = gpus;
  c.seq = 4096;
  c.precision = Precision::kBf16;
  c.layout_known = true;
  return c;
}

MatchRequest request(const ModelFacts& m, Mode mode, const std::string& g, int gpus) {
  MatchRequest r;
  r.model = m;
  r.mode = mode;
  r.gpu = gpu(g);
  r.gpus = gpus;
  return r;
}

std::string best(const MatchRequest& req, const std::vector<RecipeCandidate>& cands) {
  const auto ranked = rank_recipes(req, cands);
  return ranked.empty() ? "" : cands[ranked.front().index].name;
}

const ModelFacts kLlama8 = model("Llama-3-8B", "llama", 8.03e9);
const ModelFacts kLlama70 = model("Llama-3-70B", "llama", 70.6e9);
const ModelFacts kQwen8 = model("Qwen3-8B", "qwen3", 8.2e9);
const ModelFacts kQwen14 = model("Qwen3-14B", "qwen3", 14.8e9);
const ModelFacts kQwen32 = model("Qwen3-32B", "qwen3", 32.8e9);
const ModelFacts kMoe30 = model("Qwen3-30B-A3B", "qwen3_moe", 30.5e9, 1);

TEST(RecommendMatch, SameModelBeatsEverythingElse) {
  // The same model on another GPU, mode and count still beats a family sibling that matches those.
  const auto req = request(kLlama8, Mode::kSft, "h100", 8);
  EXPECT_EQ(best(req, {cand("other", kLlama70, Mode::kSft, "h100", 8), cand("same", kLlama8, Mode::kPretrain, "b200", 64)}),
            "same");
}

TEST(RecommendMatch, FamilyByNearestSize) {
  // A config.json the catalog does not know: family qwen3, 12B parameters -> Qwen3-14B's recipe.
  const auto req = request(model("", "qwen3", 12e9), Mode::kSft, "h100", 8);
  const std::vector<RecipeCandidate> cands{cand("q8", kQwen8, Mode::kSft, "h100", 8), cand("q14", kQwen14, Mode::kSft, "h100", 8),
                                           cand("q32", kQwen32, Mode::kSft, "h100", 8), cand("l8", kLlama8, Mode::kSft, "h100", 8)};
  EXPECT_EQ(best(req, cands), "q14");
  const auto ranked = rank_recipes(req, cands);
  EXPECT_EQ(ranked.front().score.model, ModelMatch::kFamily);
  EXPECT_EQ(cands[ranked.back().index].name, "l8") << "another family ranks last";
}

TEST(RecommendMatch, AnotherFamilyOfTheSameKind) {
  // No recipe of the family: a dense request gets the nearest dense model, not the MoE of equal size.
  const auto req = request(model("", "mistral", 30e9), Mode::kPretrain, "h100", 8);
  EXPECT_EQ(best(req, {cand("moe", kMoe30, Mode::kPretrain, "h100", 8), cand("dense", kQwen32, Mode::kPretrain, "h100", 8)}),
            "dense");
}

TEST(RecommendMatch, SameModalityBeforeSize) {
  // A text MoE borrows a text recipe before a vision-language one nearer in size.
  const auto req = request(model("", "mixtral", 46.7e9, 1), Mode::kPretrain, "h100", 16);
  ModelFacts vl = model("Qwen3.5-35B-A3B", "qwen3_5_moe", 34.7e9, 1);
  vl.vision = true;
  const ModelFacts text = model("Qwen3-235B-A22B", "qwen3_moe", 235e9, 1);
  EXPECT_EQ(best(req, {cand("vl", vl, Mode::kPretrain, "h100", 16), cand("text", text, Mode::kPretrain, "h100", 16)}), "text");
}

TEST(RecommendMatch, SameModeFirst) {
  const auto req = request(kLlama8, Mode::kPeft, "h100", 1);
  EXPECT_EQ(best(req, {cand("sft", kLlama8, Mode::kSft, "h100", 1), cand("peft", kLlama8, Mode::kPeft, "h100", 8)}), "peft");
}

TEST(RecommendMatch, NearestGpu) {
  // H200 (141 GB Hopper): H100 (same generation) is nearer than B200 (nearer in memory, next generation).
  const auto req = request(kLlama8, Mode::kPretrain, "h200", 8);
  EXPECT_EQ(best(req, {cand("b200", kLlama8, Mode::kPretrain, "b200", 8), cand("h100", kLlama8, Mode::kPretrain, "h100", 8)}),
            "h100");
  EXPECT_EQ(gpu_distance(gpu("h100"), gpu("h100")), 0);
  EXPECT_LT(gpu_distance(gpu("a100"), gpu("h100")), gpu_distance(gpu("a100"), gpu("mi300x")));
  EXPECT_LT(gpu_distance(gpu("b200"), gpu("gb200")), gpu_distance(gpu("b200"), gpu("h100")));
}

TEST(RecommendMatch, PrecisionAskedFor) {
  auto req = request(kLlama8, Mode::kPretrain, "h100", 8);
  RecipeCandidate fp8 = cand("fp8", kLlama8, Mode::kPretrain, "h100", 8);
  fp8.precision = Precision::kFp8Cs;
  const RecipeCandidate bf16 = cand("bf16", kLlama8, Mode::kPretrain, "h100", 8);
  EXPECT_EQ(best(req, {fp8, bf16}), "bf16") << "bf16 when none is asked";
  req.precision = Precision::kFp8Cs;
  EXPECT_EQ(best(req, {fp8, bf16}), "fp8");
}

TEST(RecommendMatch, SequenceVariant) {
  auto req = request(kLlama8, Mode::kPretrain, "h100", 16);
  RecipeCandidate longer = cand("128k", kLlama8, Mode::kPretrain, "h100", 64);
  longer.seq = 131072;
  const RecipeCandidate plain = cand("plain", kLlama8, Mode::kPretrain, "h100", 16);
  EXPECT_EQ(best(req, {longer, plain}), "plain") << "<= 8K when no sequence is asked";
  req.seq = 131072;
  EXPECT_EQ(best(req, {longer, plain}), "128k");
}

TEST(RecommendMatch, RecordedLayoutThenCountThenMeasured) {
  const auto req = request(kLlama8, Mode::kPretrain, "h100", 8);
  RecipeCandidate renamed = cand("renamed", kLlama8, Mode::kPretrain, "h100", 8);
  renamed.runnable = false;
  renamed.measured = true;
  RecipeCandidate unknown = cand("unknown", kLlama8, Mode::kPretrain, "h100", 8);
  unknown.layout_known = false;
  unknown.measured = true;
  RecipeCandidate measured = cand("measured", kLlama8, Mode::kPretrain, "h100", 64);
  measured.measured = true;
  const RecipeCandidate near = cand("near", kLlama8, Mode::kPretrain, "h100", 8);
  EXPECT_EQ(best(req, {renamed, unknown}), "unknown") << "a command that runs first";
  EXPECT_EQ(best(req, {unknown, near}), "near") << "then a recorded layout";
  // Issue "answers a user can copy" 6: a recipe for the asked GPU count outranks a measured recipe
  // of another count (DeepSeek-V3 on 64 GPUs picked the 1,024-GPU recipe).
  EXPECT_EQ(best(req, {measured, near}), "near") << "then the count";
  RecipeCandidate measured_here = cand("measured_here", kLlama8, Mode::kPretrain, "h100", 8);
  measured_here.measured = true;
  EXPECT_EQ(best(req, {near, measured_here}), "measured_here") << "then measured";
}

TEST(RecommendMatch, PlainRecipeBeforeVariantsAndShorterNames) {
  const auto req = request(kLlama70, Mode::kPretrain, "h100", 32);
  RecipeCandidate det = cand("llama3_70b_pretrain_32gpu_h100_bf16_config_a", kLlama70, Mode::kPretrain, "h100", 32);
  det.variant = true;
  const RecipeCandidate plain = cand("llama3_70b_pretrain_32gpu_h100_bf16_config_b", kLlama70, Mode::kPretrain, "h100", 32);
  EXPECT_EQ(best(req, {det, plain}), plain.name);
  const RecipeCandidate shorter = cand("llama3_70b_pretrain_32gpu_h100_bf16_config", kLlama70, Mode::kPretrain, "h100", 32);
  EXPECT_EQ(best(req, {plain, shorter}), shorter.name);
}

TEST(RecommendMatch, ReasonsNameEachCriterion) {
  const auto req = request(kLlama8, Mode::kSft, "h200", 4);
  const RecipeCandidate c = cand("x", kLlama8, Mode::kSft, "h100", 8);
  const auto reasons = match_reasons(req, c, match_score(req, c));
  ASSERT_GE(reasons.size(), 3u);
  EXPECT_EQ(reasons[0], "same model");
  EXPECT_EQ(reasons[1], "same mode");
  EXPECT_NE(reasons[2].find("nearest GPU: h100"), std::string::npos);
  EXPECT_NE(reasons.back().find("asked 4"), std::string::npos);
}

TEST(RecommendMatch, LayoutDifferences) {
  Layout a, b;
  a.tp = 2, a.dp = 4, a.sp = true;
  b.tp = 1, b.dp = 8, b.mbs = 2, b.recompute = Recompute::kSelective;
  const auto d = layout_differences(a, b);
  const std::vector<std::string> want{"TP 2 vs 1", "DP 4 vs 8", "MBS 1 vs 2", "SP on vs off", "recompute none vs selective(core_attn)"};
  EXPECT_EQ(d, want);
  EXPECT_TRUE(layout_differences(a, a).empty());
  EXPECT_EQ(layout_summary(a), "TP2 PP1 CP1 EP1 DP4 MBS1 SP, bf16, recompute none");
}

}  // namespace
}  // namespace rb
