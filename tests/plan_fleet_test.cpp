// `plan` across GPU types (cmd_plan_fleet.hpp) through run_plan on the built-in catalog: the JSON
// keys the web compare view reads, the figures agreeing with each other, --price over the
// catalog's, and the usage errors of the fleet flags.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <functional>
#include <vector>

#include "cli_support.hpp"
#include "test_support.hpp"  // TempDir
#include "recipebook/emit/launch_test_util.hpp"  // run_shell
#include "recipebook/catalog/catalog.hpp"
#include "recipebook/cmd_launch.hpp"
#include "recipebook/cmd_plan.hpp"
#include "recipebook/cmd_recommend.hpp"

namespace rb::cli {
namespace {

using Json = nlohmann::json;
using Out = test::CliOut;

Out run(const PlanOptions& o, bool json) {
  return test::run_cli([&](const Context& ctx) { return run_plan(o, ctx, test::builtin_catalog()); }, json);
}

PlanOptions llama8b_fleet() {
  PlanOptions o;
  o.model = "llama3-8b";
  o.gpu = "h100,b200,gb200";
  o.gpus = "8,16";
  o.seq = 4096;
  o.gbs = 128;
  o.max_mbs = 2;
  o.tokens = "100B";
  o.objective = "cost";
  o.price = "gb200=6.5";
  o.threads = 2;
  o.threads_given = true;
  return o;
}

TEST(PlanFleetCli, JsonKeys) {
  const Out r = run(llama8b_fleet(), true);
  ASSERT_EQ(r.rc, 0) << r.err;
  const Json j = Json::parse(r.out);
  for (const char* k : {"model", "mode", "seq", "gbs", "tokens", "objective", "deadline_days", "budget_usd",
                        "gpu_types", "entries", "answer", "pareto"})
    EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_EQ(j["objective"], "cost");
  ASSERT_EQ(j["gpu_types"].size(), 3u);
  const Json& gb200 = j["gpu_types"][2];
  EXPECT_EQ(gb200["gpu"], "gb200");
  EXPECT_EQ(gb200["usd_per_gpu_hour"].get<double>(), 6.5);
  EXPECT_EQ(gb200["price_source"], "--price");
  EXPECT_EQ(j["gpu_types"][0]["price_source"], "catalog");
  ASSERT_EQ(j["entries"].size(), 6u);
  for (const Json& e : j["entries"]) {
    for (const char* k : {"gpu", "gpus", "feasible", "why", "reasons", "layout", "recompute", "tokens_per_s_per_gpu",
                          "days", "gpu_hours", "usd"})
      EXPECT_TRUE(e.contains(k)) << k;
    const double gpus = e["gpus"].get<double>();
    EXPECT_NEAR(e["days"].get<double>() * gpus * 24.0, e["gpu_hours"].get<double>(), 1e-6 * e["gpu_hours"].get<double>());
    const Json& l = e["layout"];
    EXPECT_EQ(l["tp"].get<int>() * l["pp"].get<int>() * l["cp"].get<int>() * l["dp"].get<int>(), e["gpus"].get<int>());
  }
  const Json& a = j["answer"];
  ASSERT_TRUE(a.is_object());
  EXPECT_TRUE(a["feasible"].get<bool>());
  EXPECT_FALSE(a["reason"].get<std::string>().empty());
  for (const Json& e : j["entries"])
    if (e["feasible"].get<bool>()) {
      EXPECT_LE(a["usd"].get<double>(), e["usd"].get<double>());
    }
  ASSERT_FALSE(j["pareto"].empty());
  for (size_t i = 1; i < j["pareto"].size(); ++i) {  // days up, USD down
    EXPECT_GT(j["pareto"][i]["days"].get<double>(), j["pareto"][i - 1]["days"].get<double>());
    EXPECT_LT(j["pareto"][i]["usd"].get<double>(), j["pareto"][i - 1]["usd"].get<double>());
  }
}

// `launch fleet.json` without --pick launches the plan's answer (its best under the objective, not
// the table's first row) and says which entry and why; --pick still takes any row; a plan with no
// answer is refused. Before, the first row (8 x H100 here, against the answer's GB200) was launched.
TEST(PlanFleetCli, LaunchWithoutPickLaunchesTheAnswer) {
  const Out plan = run(llama8b_fleet(), true);
  ASSERT_EQ(plan.rc, 0) << plan.err;
  Json j = Json::parse(plan.out);
  const Json& a = j["answer"];
  ASSERT_TRUE(a.is_object());
  size_t answer = 0;
  while (answer < j["entries"].size() &&
         !(j["entries"][answer]["gpu"] == a["gpu"] && j["entries"][answer]["gpus"] == a["gpus"]))
    ++answer;
  ASSERT_LT(answer, j["entries"].size());
  ASSERT_GT(answer, 0u) << "the answer is the first row: the test shows nothing";
  const test::TempDir dir;
  const std::string file = dir.write("fleet.json", j.dump());
  LaunchOptions o;
  o.source = file;
  o.targets = {"megatron-lm"};
  auto launch = [&] { return test::run_cli([&](const Context& ctx) { return run_launch(o, ctx); }, false); };
  const Out r = launch();
  ASSERT_EQ(r.rc, 0) << r.err;
  const std::string gpu = a["gpu"].get<std::string>();
  const std::string gpus = std::to_string(a["gpus"].get<int>());
  EXPECT_NE(r.err.find(fmt::format("launching entry {} of {} in {}: the plan's answer, {} x {} ({})", answer + 1,
                                   j["entries"].size(), file, gpus, gpu, a["reason"].get<std::string>())),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("on " + gpus + " x " + gpu + ","), std::string::npos) << r.out;
  o.pick = 1;  // the first row, asked for
  const Out first = launch();
  ASSERT_EQ(first.rc, 0) << first.err;
  EXPECT_NE(first.out.find("on " + std::to_string(j["entries"][0]["gpus"].get<int>()) + " x " +
                           j["entries"][0]["gpu"].get<std::string>() + ","),
            std::string::npos)
      << first.out;
  j["answer"] = nullptr;
  j["reason"] = "no GPU type and count meets the budget";
  dir.write("fleet.json", j.dump());
  o.pick = 0;
  const Out none = launch();
  EXPECT_EQ(none.rc, kExitUsage) << none.err;
  EXPECT_NE(none.err.find("the plan has no answer: no GPU type and count meets the budget"), std::string::npos) << none.err;
}

TEST(PlanFleetCli, ExclusionsInJsonAndExitOneWhenNothingQualifies) {
  PlanOptions o = llama8b_fleet();
  o.deadline = "1h";
  const Out r = run(o, true);
  EXPECT_EQ(r.rc, 1) << r.err;
  const Json j = Json::parse(r.out);
  EXPECT_TRUE(j["answer"].is_null());
  for (const Json& e : j["entries"]) EXPECT_EQ(e["why"][0], "deadline");
}

TEST(PlanFleetCli, UsageErrorsExitTwo) {
  for (auto edit : std::vector<std::function<void(PlanOptions&)>>{
           [](PlanOptions& o) { o.tokens.clear(); },
           [](PlanOptions& o) { o.price = "b300=5"; },  // not one of the --gpu types
           [](PlanOptions& o) { o.price = "gb200"; },
           [](PlanOptions& o) { o.deadline = "soon"; },
           [](PlanOptions& o) { o.budget = "-5"; },
           [](PlanOptions& o) { o.gpus_available = "h100=1.5"; },
           [](PlanOptions& o) { o.gpu = "h100,nosuchgpu"; },
           [](PlanOptions& o) { o.recipe = "llama3_8b_pretrain_8gpu_h100_bf16_config"; }}) {
    PlanOptions o = llama8b_fleet();
    edit(o);
    const Out r = run(o, false);
    EXPECT_EQ(r.rc, 2) << r.out << r.err;
    EXPECT_FALSE(r.err.empty());
  }
}

Out recommend(const RecommendOptions& o, bool json) {
  return test::run_cli([&](const Context& ctx) { return run_recommend(o, ctx, test::builtin_catalog()); }, json);
}

// Llama-3-8B on 8 H100 or 8 B200 for 100B tokens, batch 128, at sequence `seq`.
RecommendOptions llama8b_two_types(int64_t seq) {
  RecommendOptions o;
  o.model = "llama3-8b";
  o.gpu = "h100,b200";
  o.gpus = 8;
  o.gbs = 128;
  o.seq = seq;
  o.tokens = "100B";
  o.threads = 2;
  return o;
}

TEST(RecommendFleetCli, NamesTheTypeAndCountWithItsReason) {
  const RecommendOptions o = llama8b_two_types(4096);
  const Out r = recommend(o, true);
  ASSERT_EQ(r.rc, 0) << r.err;
  const Json j = Json::parse(r.out);
  ASSERT_TRUE(j["recommendation"].is_object());
  EXPECT_EQ(j["recommendation"]["gpus"], 8);
  EXPECT_FALSE(j["reason"].get<std::string>().empty());
  ASSERT_EQ(j["best_per_type"].size(), 2u);
  const std::string gpu = j["recommendation"]["gpu"];
  for (const Json& t : j["best_per_type"])  // objective cost: both have a price
    EXPECT_LE(j["recommendation"]["usd"].get<double>(), t["usd"].get<double>()) << t["gpu"] << " vs " << gpu;
  EXPECT_EQ(j["plan"]["objective"], "cost");
}

// The commands the answer prints run as printed: `plan` with them puts the answer's layout first
// (the line dropped --seq and --gbs and named recommend, whose recipe-based layout differs).
TEST(RecommendFleetCli, ThePrintedPlanCommandGivesTheAnswer) {
  const RecommendOptions o = llama8b_two_types(8192);
  const Json j = Json::parse(recommend(o, true).out);
  const Out text = recommend(o, false);
  ASSERT_EQ(text.rc, 0) << text.err;
  const std::string lead = "this layout: recipebook plan ";
  const size_t at = text.out.find(lead);
  ASSERT_NE(at, std::string::npos) << text.out;
  const size_t end = text.out.find(" (its first row", at);
  ASSERT_NE(end, std::string::npos) << text.out;
  const std::string args = text.out.substr(at + lead.size(), end - at - lead.size());
  EXPECT_NE(args.find("--seq 8192 --gbs 128"), std::string::npos) << args;
  const auto r = test::run_shell(std::string(RB_BINARY) + " plan " + args + " --json --top 1");
  ASSERT_EQ(r.rc, 0) << r.out;
  const Json p = Json::parse(r.out);
  EXPECT_NEAR(p["top"][0]["tokens_per_s_per_gpu"].get<double>(),
              j["recommendation"]["tokens_per_s_per_gpu"].get<double>(), 0.5) << r.out;
  EXPECT_NE(text.out.find("the closest recipe, resized: recipebook recommend " + args), std::string::npos) << text.out;
}

TEST(RecommendFleetCli, OneTypeStillNeedsGpusAndMode) {
  RecommendOptions o;
  o.model = "llama3-8b";
  o.gpu = "h100";
  o.mode = "pretrain";
  const Out r = recommend(o, false);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--gpus is required"), std::string::npos) << r.err;
  RecommendOptions m = o;
  m.gpus = 8;
  m.mode.clear();
  const Out s = recommend(m, false);
  EXPECT_EQ(s.rc, 2);
  EXPECT_NE(s.err.find("--mode is required"), std::string::npos) << s.err;
}

}  // namespace
}  // namespace rb::cli
