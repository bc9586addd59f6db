// `plan` through run_plan on the built-in catalog: a feasible search (text and JSON), the same
// output for any thread count, a range of GPU counts, nothing fitting, a GPU count no layout can
// use, and the usage errors (exit 2).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <set>
#include <sstream>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/cmd_plan.hpp"
#include "cli_support.hpp"

namespace rb::cli {
namespace {

using Json = nlohmann::json;

using Out = test::CliOut;

const Catalog& catalog() { return test::builtin_catalog(); }

Out run(const PlanOptions& o, bool json) {
  return test::run_cli([&](const Context& ctx) { return run_plan(o, ctx, catalog()); }, json);
}

PlanOptions qwen_moe_8() {
  PlanOptions o;
  o.model = "Qwen/Qwen3-30B-A3B";
  o.gpu = "h100";
  o.gpus = "8";
  o.seq = 4096;
  o.gbs = 256;
  o.max_mbs = 4;
  return o;
}

TEST(PlanCli, RanksLayoutsWithBreakdowns) {
  const Out r = run(qwen_moe_8(), false);
  ASSERT_EQ(r.rc, 0) << r.err;
  for (const char* part : {"Top 5 of", "Memory per GPU", "Step time (s)", "Pareto front",
                           "Candidates:", "removed by rules", "removed by memory", "fit and ranked"})
    EXPECT_NE(r.out.find(part), std::string::npos) << part;
}

TEST(PlanCli, JsonHasEveryPart) {
  const Out r = run(qwen_moe_8(), true);
  ASSERT_EQ(r.rc, 0) << r.err;
  const Json j = Json::parse(r.out);
  EXPECT_EQ(j["model"], "Qwen3-30B-A3B");
  EXPECT_TRUE(j["feasible"].get<bool>());
  const Json& c = j["counts"];
  EXPECT_EQ(c["seen"].get<uint64_t>(), c["rejected_by_rules"].get<uint64_t>() + c["removed_by_memory"].get<uint64_t>() +
                                           c["refused_by_estimator"].get<uint64_t>() + c["fit"].get<uint64_t>());
  uint64_t by_rule = 0;
  for (const auto& [id, n] : c["by_rule"].items()) by_rule += n.get<uint64_t>();
  EXPECT_EQ(by_rule, c["rejected_by_rules"].get<uint64_t>());
  ASSERT_EQ(j["top"].size(), 5u);
  double previous = 1e300;
  for (const Json& t : j["top"]) {
    const Json& l = t["layout"];
    EXPECT_EQ(l["tp"].get<int>() * l["pp"].get<int>() * l["cp"].get<int>() * l["dp"].get<int>(), 8);
    EXPECT_LE(t["memory"]["peak_bytes"].get<double>(), t["memory"]["capacity_bytes"].get<double>());
    EXPECT_LE(t["tokens_per_s_per_gpu"].get<double>(), previous);
    previous = t["tokens_per_s_per_gpu"].get<double>();
    EXPECT_GT(t["time"]["step_time_s"].get<double>(), 0.0);
  }
  EXPECT_FALSE(j["pareto"]["layouts"].empty());
  EXPECT_EQ(j["pareto"]["axes"][1], "headroom_bytes");
}

// A searched field's flag takes a comma list: the plan keeps only those values (the flag is the
// field's row, core/layout_fields.cpp plan_flag). Before the rows drove plan's flags, --tp took one
// integer and "2,4" was a usage error.
TEST(PlanCli, ACommaListNarrowsASearchedField) {
  PlanOptions o = qwen_moe_8();
  o.search["tp"] = "2,4";
  o.search["dispatcher"] = "alltoall";
  o.search["fsdp"] = "off";
  o.top = 50;
  const Out r = run(o, true);
  ASSERT_EQ(r.rc, 0) << r.err;
  const Json j = Json::parse(r.out);
  ASSERT_FALSE(j["top"].empty());
  for (const Json& t : j["top"]) {
    EXPECT_TRUE(std::set<int>({2, 4}).contains(t["layout"]["tp"].get<int>())) << t["layout"].dump();
    EXPECT_EQ(t["layout"]["dispatcher"], "alltoall");
    EXPECT_FALSE(t["layout"].value("fsdp", false));
  }
  // Both values were searched: the list's space is the sum of each value's.
  auto seen = [&](const char* tp) {
    PlanOptions one = o;
    one.search["tp"] = tp;
    const Out each = run(one, true);
    return Json::parse(each.out)["counts"]["seen"].get<uint64_t>();
  };
  EXPECT_EQ(j["counts"]["seen"].get<uint64_t>(), seen("2") + seen("4"));
}

TEST(PlanCli, SameOutputForAnyThreadCount) {
  PlanOptions o = qwen_moe_8();
  const Out one = run(o, true);
  o.threads = 3;
  const Out three = run(o, true);
  ASSERT_EQ(one.rc, 0);
  EXPECT_EQ(one.out, three.out);
}

TEST(PlanCli, RangeGivesTheBestOfEachCount) {
  PlanOptions o;
  o.model = "llama3-8b";
  o.gpu = "h100";
  o.gpus = "8..32";
  o.gbs = 128;
  o.max_mbs = 2;
  o.objective = "time";
  o.tokens = "1T";
  const Out r = run(o, true);
  ASSERT_EQ(r.rc, 0) << r.err;
  const Json j = Json::parse(r.out);
  EXPECT_EQ(j["gpu_counts"], Json::array({8, 16, 24, 32}));
  EXPECT_EQ(j["best_per_gpu_count"].size(), 4u);
  EXPECT_EQ(j["pareto"]["axes"][1], "tokens_per_s");
  EXPECT_GT(j["top"][0]["days"].get<double>(), 0.0);
}

TEST(PlanCli, NothingFitsSaysWhatWould) {
  PlanOptions o;
  o.model = "Llama-3.1-405B";
  o.gpu = "h100";
  o.gpus = "8";
  o.seq = 8192;
  o.gbs = 64;
  o.max_mbs = 2;
  const Out text = run(o, false);
  EXPECT_EQ(text.rc, 1);
  EXPECT_NE(text.out.find("No layout fits"), std::string::npos);
  EXPECT_NE(text.out.find("Closest layouts"), std::string::npos);
  EXPECT_NE(text.out.find("What would fit"), std::string::npos);
  const Out r = run(o, true);
  EXPECT_EQ(r.rc, 1);
  const Json j = Json::parse(r.out);
  EXPECT_FALSE(j["feasible"].get<bool>());
  ASSERT_FALSE(j["closest"].empty());
  EXPECT_GT(j["closest"][0]["memory"]["peak_bytes"].get<double>(),
            j["closest"][0]["memory"]["capacity_bytes"].get<double>());
  ASSERT_FALSE(j["advice"]["relaxations"].empty());
  const Json& more = j["advice"]["relaxations"].back();
  EXPECT_GT(more["best"]["gpus"].get<int>(), 8);
}

TEST(PlanCli, AGpuCountNoLayoutCanUse) {
  PlanOptions o;
  o.model = "llama3-8b";
  o.gpu = "h100";
  o.gpus = "37";
  o.gbs = 512;
  const Out r = run(o, true);
  EXPECT_EQ(r.rc, 1);
  const Json j = Json::parse(r.out);
  EXPECT_TRUE(j["advice"]["rules_block_all"].get<bool>());
  EXPECT_EQ(j["advice"]["usable_gpus_below"], 36);
  EXPECT_EQ(j["advice"]["usable_gpus_above"], 38);
}

TEST(PlanCli, UsageErrorsExitTwo) {
  PlanOptions o = qwen_moe_8();
  o.model = "qwen9-30b";
  Out r = run(o, false);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("unknown model"), std::string::npos);

  o = qwen_moe_8();
  o.search["ep"] = "3";
  r = run(o, false);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--ep: error [RB-EXPERTS-EP]"), std::string::npos) << r.err;

  o = qwen_moe_8();
  o.search["tp"] = "8";
  o.search["pp"] = "2";
  r = run(o, false);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("do not divide 8 GPUs"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("error [RB-WORLD-DIVISIBLE]"), std::string::npos) << r.err;  // was "error []"

  // DP fixed too: the degrees must multiply out to the GPU count (TP 2 x DP 2 = 4 divides 8 but is
  // not 8: this searched nothing and exited 1, "no layout passes the layout rules").
  o = qwen_moe_8();
  o.search["tp"] = "2";
  o.dp = 2;
  r = run(o, false);
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("= 4 are not 8 GPUs"), std::string::npos) << r.err;

  for (auto bad : {+[](PlanOptions& x) { x.gpus = "9..15"; }, +[](PlanOptions& x) { x.gbs = 0; },
                   +[](PlanOptions& x) { x.search["precision"] = "fp9"; }, +[](PlanOptions& x) { x.objective = "speed"; },
                   +[](PlanOptions& x) { x.search["recompute"] = "core_atn"; }, +[](PlanOptions& x) { x.search["fsdp"] = "maybe"; },
                   +[](PlanOptions& x) { x.tokens = "lots"; }, +[](PlanOptions& x) { x.gpu = "h1000"; }}) {
    o = qwen_moe_8();
    bad(o);
    r = run(o, false);
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find("recipebook: "), std::string::npos);
  }
}

}  // namespace
}  // namespace rb::cli
