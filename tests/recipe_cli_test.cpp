// Recipes by name: `estimate --recipe` (and its batch key), `plan --recipe`, `show RECIPE`'s
// predictions, through the subcommands and the built binary on the built-in catalog.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "recipebook/cmd_estimate.hpp"
#include "recipebook/cmd_plan.hpp"
#include "recipebook/cmd_show.hpp"
#include "recipebook/context.hpp"
#include "recipebook/emit/launch_test_util.hpp"
#include "cli_support.hpp"

namespace rb::cli {
namespace {

using Json = nlohmann::json;
using Out = test::CliOut;

// A dense recipe with CP, VP, TP overlap and full-iteration CUDA graphs; a MoE one whose PP 4 does
// not divide its 94 layers (Bridge splits them in code); one with a recorded uneven split.
constexpr const char* kDense = "llama3_70b_pretrain_64gpu_b200_bf16_config";
constexpr const char* kMoe = "qwen3_235b_a22b_pretrain_256gpu_gb300_fp8mx_config";
constexpr const char* kUneven = "qwen35_vl_35b_a3b_pretrain_16gpu_h100_bf16_functional_config";

Out estimate_of(const EstimateOptions& o, bool json = true) {
  return test::run_cli([&](const Context& ctx) { return run_estimate(o, ctx); }, json);
}

EstimateOptions recipe(const std::string& name) {
  EstimateOptions o;
  o.args.recipe = name;
  return o;
}

// The figures two estimates must share to be "the same estimate".
void expect_same_figures(const Json& a, const Json& b, const std::string& what) {
  for (const char* key : {"model", "gpu", "gpus", "mode", "seq", "gbs", "layout", "tokens_per_s_per_gpu", "step_time_s",
                          "mfu", "memory", "time", "microbatches"})
    EXPECT_EQ(a[key], b[key]) << what << ": " << key;
}

Json binary_json(const std::string& args) {
  const test::Run r = test::run_shell(std::string(RB_BINARY) + " --json " + args);
  EXPECT_LE(r.rc, 1) << args << "\n" << r.out;
  return Json::parse(r.out, nullptr, false);
}

TEST(RecipeCli, EstimateRecipeEqualsItsLayoutAsFlags) {
  for (const char* name : {kDense, kMoe, kUneven}) {
    const Json from_recipe = binary_json(std::string("estimate --recipe ") + name);
    ASSERT_TRUE(from_recipe.contains("tokens_per_s_per_gpu")) << name << "\n" << from_recipe.dump(1);
    ASSERT_EQ(from_recipe["recipe"]["name"], name);
    // The same setup with no recipe: the model, GPUs and workload, and the layout as the printed flags.
    const Json& r = from_recipe;
    const std::string flags = r["recipe"]["flags"].get<std::string>();
    const Json spelled = binary_json(
        "estimate --model " + r["model"].get<std::string>() + " --gpu " + r["gpu"].get<std::string>() + " --gpus " +
        std::to_string(r["gpus"].get<int>()) + " --mode " + r["mode"].get<std::string>() + " --seq " +
        std::to_string(r["seq"].get<int64_t>()) + " --gbs " + std::to_string(r["gbs"].get<int64_t>()) + " " + flags);
    expect_same_figures(from_recipe, spelled, std::string(name) + " vs " + flags);
  }
  // The dense recipe's record, spelled by hand (catalog/recipes/llama-3-70b/b200/...): TP 2, PP 4,
  // VP 5, CP 2, SP, full-iteration CUDA graphs, TP overlap, 64 B200s (8 per node), seq 8192, gbs 256.
  EstimateOptions by_hand;
  LayoutArgs& a = by_hand.args;
  a.model = "Llama-3-70B";
  a.gpu = "b200";
  a.gpus = 64;
  a.gpus_per_node = 8;
  a.seq = 8192;
  a.gbs = 256;
  a.layout.tp = 2;
  a.layout.pp = 4;
  a.layout.vp = 5;
  a.layout.cp = 2;
  a.layout.cuda_graph = "full_iteration";
  a.layout.tp_comm_overlap = true;
  const Out hand = estimate_of(by_hand);
  const Out named = estimate_of(recipe(kDense));
  ASSERT_EQ(named.rc, kExitOk) << named.out << named.err;
  expect_same_figures(Json::parse(named.out), Json::parse(hand.out), "by hand");
}

TEST(RecipeCli, AFlagOverridesOneField) {
  const Json base = Json::parse(estimate_of(recipe(kMoe)).out);
  EstimateOptions o = recipe(kMoe);
  o.args.gpus = 128;
  o.args.gbs = 4096;
  const Out r = estimate_of(o);
  const Json j = Json::parse(r.out);
  EXPECT_EQ(j["gpus"], 128);
  EXPECT_EQ(j["gbs"], 4096);
  EXPECT_EQ(j["seq"], base["seq"]);
  Json layout = base["layout"];
  layout["dp"] = 32;  // DP follows the GPU count; every other degree and feature is the recipe's
  EXPECT_EQ(j["layout"], layout);
  EXPECT_EQ(j["recipe"]["flags"], base["recipe"]["flags"]);

  o = recipe(kMoe);
  o.args.layout.mbs = 1;
  const Json mbs = Json::parse(estimate_of(o).out);
  layout = base["layout"];
  layout["mbs"] = 1;
  EXPECT_EQ(mbs["layout"], layout);
  EXPECT_NE(mbs["tokens_per_s_per_gpu"], base["tokens_per_s_per_gpu"]);
}

TEST(RecipeCli, TextSaysTheRecipeAndHowItWasModelled) {
  const Out r = estimate_of(recipe(kMoe), false);
  ASSERT_EQ(r.rc, kExitOk) << r.err;
  EXPECT_NE(r.out.find(std::string("recipe: ") + kMoe), std::string::npos) << r.out;
  // The record brings the split Megatron-Bridge applies in code (embedding and loss accounted).
  EXPECT_NE(r.out.find("as flags: --tp 1 --pp 4"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--account-for-embedding --account-for-loss"), std::string::npos) << r.out;
}

TEST(RecipeCli, BatchLinesNameARecipe) {
  test::TempDir tmp;
  const std::string file = tmp.write("recipes.jsonl", std::string("{\"recipe\": \"") + kMoe + "\"}\n{\"recipe\": \"" +
                                                          kMoe + "\", \"gbs\": 4096}\n{\"recipe\": \"" + kMoe +
                                                          "x\"}\n{\"tp\": 2}\n");
  EstimateOptions o;
  o.args.gpus = 128;  // the flags are every line's defaults; a line's recipe starts below them
  o.args.gbs = 2048;
  o.batch_file = file;
  const Out r = estimate_of(o, false);
  std::vector<Json> lines;
  std::istringstream in(r.out);
  for (std::string l; std::getline(in, l);) lines.push_back(Json::parse(l));
  ASSERT_EQ(lines.size(), 4u) << r.out;
  // Line 1: the command line's GPUs and batch win over the recipe's; its model and layout stay.
  EXPECT_EQ(lines[0]["model"], "Qwen3-235B-A22B") << lines[0];
  EXPECT_EQ(lines[0]["recipe"]["name"], kMoe);
  EXPECT_EQ(lines[0]["gpus"], 128);
  EXPECT_EQ(lines[0]["gbs"], 2048);
  EXPECT_EQ(lines[1]["gbs"], 4096);  // the line's key wins over the flag
  EXPECT_NE(lines[2]["errors"][0]["message"].get<std::string>().find("\"recipe\": unknown recipe"), std::string::npos)
      << lines[2];
  EXPECT_NE(lines[2]["errors"][0]["fix"].get<std::string>().find(std::string("did you mean '") + kMoe), std::string::npos)
      << lines[2];
  EXPECT_NE(lines[3]["errors"][0]["message"].get<std::string>().find("\"model\" is required"), std::string::npos)
      << lines[3];

  // With nothing on the command line the line's recipe is the whole setup: the same as --recipe.
  const std::string alone = tmp.write("alone.jsonl", std::string("{\"recipe\": \"") + kMoe + "\"}\n");
  EstimateOptions b;
  b.batch_file = alone;
  const Json line = Json::parse(estimate_of(b, false).out);
  expect_same_figures(line, Json::parse(estimate_of(recipe(kMoe)).out), "batch line");
}

TEST(RecipeCli, UnknownRecipeAndUnsizableRecipesExitTwo) {
  Out r = estimate_of(recipe(std::string(kDense) + "_x"), false);
  EXPECT_EQ(r.rc, kExitUsage);
  EXPECT_NE(r.err.find("--recipe: unknown recipe"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(std::string("did you mean '") + kDense), std::string::npos) << r.err;

  // A recipe of a model the catalog has no architecture for, and one on a GPU without figures.
  r = estimate_of(recipe("measured-gemma-4-26b-a4b-sft-8xh100-bf16-card-nvcr-io-nvidia-pytorch-26-04-py3"), false);
  EXPECT_EQ(r.rc, kExitUsage);
  EXPECT_NE(r.err.find("the recipe's model: the catalog names Gemma-4-26B-A4B but has no architecture for it: no public config.json"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(r.out.empty());
  r = estimate_of(recipe("llama3_8b_pretrain_8gpu_vr200_bf16_config"), false);
  EXPECT_EQ(r.rc, kExitUsage);
  EXPECT_NE(r.err.find("the recipe's gpu: the catalog has no figures for vr200"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--gpu NAME"), std::string::npos) << r.err;
  // ... which another GPU given as a flag estimates.
  EstimateOptions o = recipe("llama3_8b_pretrain_8gpu_vr200_bf16_config");
  o.args.gpu = "b200";
  r = estimate_of(o);
  EXPECT_EQ(Json::parse(r.out)["gpu"], "b200") << r.out << r.err;
  EXPECT_TRUE(Json::parse(r.out).contains("tokens_per_s_per_gpu")) << r.out;
}

TEST(RecipeCli, PlanRanksTheRecipesLayout) {
  PlanOptions o;
  o.recipe = kDense;
  o.top = 3;
  o.max_mbs = 2;
  const Out r = test::run_cli([&](const Context& ctx) { return run_plan(o, ctx, test::builtin_catalog()); }, true);
  ASSERT_EQ(r.rc, kExitOk) << r.err;
  const Json j = Json::parse(r.out);
  EXPECT_EQ(j["gpu_counts"], Json::array({64}));  // the recipe's count, workload and precision
  EXPECT_EQ(j["top"].size(), 3u);
  const Json& rec = j["recipe"];
  EXPECT_EQ(rec["name"], kDense);
  EXPECT_EQ(rec["status"], "ranked") << rec;
  ASSERT_TRUE(rec["rank"].is_number_integer()) << rec;
  EXPECT_GE(rec["rank"].get<int>(), 1);
  const double best = j["top"][0]["tokens_per_s_per_gpu"].get<double>();
  EXPECT_DOUBLE_EQ(rec["best_tokens_per_s_per_gpu"].get<double>(), best);
  // The recipe's tokens/s/GPU is estimate --recipe's; the rank counts the plan's better layouts.
  const double own = Json::parse(estimate_of(recipe(kDense)).out)["tokens_per_s_per_gpu"].get<double>();
  EXPECT_DOUBLE_EQ(rec["tokens_per_s_per_gpu"].get<double>(), own);
  EXPECT_EQ(rec["rank"].get<int>() == 1, own >= best) << rec;
  EXPECT_EQ(rec["layout"]["precision"], "bf16");
  // Like with like: every layout searched has the recipe's stack (its TP overlap here), so the
  // recipe is ranked by its layout alone (the searched layouts had the defaults, overlap off).
  ASSERT_EQ(rec["layout"].value("tp_comm_overlap", false), true) << rec;
  for (const Json& c : j["top"]) EXPECT_EQ(c["layout"].value("tp_comm_overlap", false), true) << c;
  EXPECT_NE(rec["notes"].dump().find("every layout searched has the recipe's stack: "), std::string::npos) << rec;
  EXPECT_NE(rec["notes"].dump().find("--tp-comm-overlap"), std::string::npos) << rec;
  EXPECT_EQ(rec["notes"].dump().find("--tp "), std::string::npos) << rec;  // the searched degrees are not its stack

  const Out text = test::run_cli([&](const Context& ctx) { return run_plan(o, ctx, test::builtin_catalog()); }, false);
  EXPECT_NE(text.out.find(std::string("Recipe ") + kDense), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("layouts that fit"), std::string::npos) << text.out;

  o.recipe = "no_such_recipe_config";
  const Out bad = test::run_cli([&](const Context& ctx) { return run_plan(o, ctx, test::builtin_catalog()); }, false);
  EXPECT_EQ(bad.rc, kExitUsage);
  EXPECT_NE(bad.err.find("unknown recipe"), std::string::npos) << bad.err;
}

TEST(RecipeCli, ShowPredictsEachMeasurement) {
  ShowOptions o;
  o.name = "gpt_oss_120b_pretrain_64gpu_gb300_fp8mx_config";
  const Out text = test::run_cli([&](const Context& ctx) { return run_show(o, ctx); }, false);
  ASSERT_EQ(text.rc, kExitOk) << text.err;
  EXPECT_NE(text.out.find("predicted"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("meas/pred"), std::string::npos) << text.out;
  const Out json = test::run_cli([&](const Context& ctx) { return run_show(o, ctx); }, true);
  const Json j = Json::parse(json.out);
  ASSERT_FALSE(j["predictions"].empty());
  const Json& p = j["predictions"][0];
  ASSERT_TRUE(p["predicted_tokens_per_s_per_gpu"].is_number()) << p;
  // The measurement ran the recipe's own layout: its prediction is estimate --recipe's.
  const Json est = Json::parse(estimate_of(recipe(o.name)).out);
  EXPECT_DOUBLE_EQ(p["predicted_tokens_per_s_per_gpu"].get<double>(), est["tokens_per_s_per_gpu"].get<double>());
  EXPECT_DOUBLE_EQ(p["measured_over_predicted"].get<double>(),
                   p["measured_tokens_per_s_per_gpu"].get<double>() / p["predicted_tokens_per_s_per_gpu"].get<double>());

  // A model without an architecture: no predictions, and why.
  o.name = "measured-gemma-4-26b-a4b-sft-8xh100-bf16-card-nvcr-io-nvidia-pytorch-26-04-py3";
  const Out stub = test::run_cli([&](const Context& ctx) { return run_show(o, ctx); }, false);
  EXPECT_NE(stub.out.find("predicted: none (the recipe's model: the catalog names Gemma-4-26B-A4B"), std::string::npos)
      << stub.out;
}

TEST(RecipeCli, LaunchTakesRecipeAsASynonymOfTheSource) {
  const std::string tail = std::string(" --target bridge");
  const test::Run positional = test::run_shell(std::string(RB_BINARY) + " launch " + kDense + tail);
  const test::Run flag = test::run_shell(std::string(RB_BINARY) + " launch --recipe " + kDense + tail);
  EXPECT_EQ(positional.rc, 0) << positional.out;
  EXPECT_EQ(flag.rc, positional.rc);
  EXPECT_EQ(flag.out, positional.out);
  const test::Run both = test::run_shell(std::string(RB_BINARY) + " launch " + kDense + " --recipe " + kDense + tail);
  EXPECT_EQ(both.rc, kExitUsage) << both.out;
}

}  // namespace
}  // namespace rb::cli
