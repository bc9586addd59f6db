// `calibrate` cross-checks a log against the run it is said to measure (world size, batch, sequence,
// model shape, Megatron's own TFLOP/s) and refuses a mismatch, writing nothing; with --json every
// error, of calibrate and of every other command, is a JSON object on stdout.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <sstream>
#include <string>

#include "recipebook/cmd_calibrate.hpp"
#include "recipebook/cmd_check.hpp"
#include "recipebook/cmd_launch.hpp"
#include "recipebook/emit/launch_test_util.hpp"

namespace rb::cli {
namespace {

struct Out {
  int rc = -1;
  std::string out, err;
};

Out calibrate_cmd(const CalibrateOptions& o, bool json = false) {
  std::ostringstream out, err;
  const Context ctx{out, err, {}, json, false};
  Out r;
  r.rc = run_calibrate(o, ctx);
  r.out = out.str();
  r.err = err.str();
  return r;
}

std::string log_path(const std::string& name) { return std::string(RB_SOURCE_DIR) + "/tests/data/logs/" + name; }
const char* k70b = RB_SOURCE_DIR "/catalog/recipes/llama-3-70b/h100/llama3_70b_pretrain_64gpu_h100_bf16_config.yaml";

// A copy of the catalog's Llama-3-70B 64-GPU record, for calibrate to (not) write.
std::string copy_70b(const test::TempDir& tmp) {
  const std::string path = tmp.file("r70.yaml");
  test::write_text(path, test::read_text(k70b));
  return path;
}

TEST(CalibrateCrossCheck, RefusesTheLogOfAnotherRunNamingEachDifference) {
  // The log: 16 GPUs, global batch 128, hidden 4096, 32 layers. The record: 64 GPUs, 256, Llama-3-70B.
  test::TempDir tmp;
  const std::string rec = copy_70b(tmp);
  const std::string before = test::read_text(rec);
  CalibrateOptions o;
  o.logs = {log_path("llama8b_16gpu.log")};
  o.recipe = rec;
  const Out r = calibrate_cmd(o);
  EXPECT_EQ(r.rc, kExitFindings) << r.err;
  EXPECT_EQ(test::read_text(rec), before) << "a refused calibration wrote the record";
  for (const char* want : {"world_size is 16, but the GPU count", "is 64", "global_batch_size is 128", "is 256",
                           "hidden_size is 4096, but Llama-3-70B's hidden size is 8192",
                           "num_layers is 32, but Llama-3-70B's decoder layer count is 80",
                           "the log's throughput is 421.6 TFLOP/s/GPU", "is unchanged"})
    EXPECT_NE(r.err.find(want), std::string::npos) << want << "\n" << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(CalibrateCrossCheck, ForceWritesAndWarns) {
  test::TempDir tmp;
  const std::string rec = copy_70b(tmp);
  const std::string before = test::read_text(rec);
  CalibrateOptions o;
  o.logs = {log_path("llama8b_16gpu.log")};
  o.recipe = rec;
  o.force = true;
  const Out r = calibrate_cmd(o);
  EXPECT_EQ(r.rc, kExitOk) << r.err;
  EXPECT_NE(test::read_text(rec), before);
  EXPECT_NE(r.err.find("warning: " + log_path("llama8b_16gpu.log") + ": the log's world_size is 16"), std::string::npos)
      << r.err;
}

// A recipe draft (launch --target recipe) of llama8b_16gpu.log's workload (Llama-3-8B, 16 H100,
// sequence 8192, batch 128) on the layout given; its path in `tmp`.
std::string draft_of_the_8b_run(const test::TempDir& tmp, int tp, int pp, int vp) {
  LaunchOptions lo;
  lo.model = "Llama-3-8B";
  lo.gpu = "h100";
  lo.gpus = 16;
  lo.seq = 8192;
  lo.gbs = 128;
  lo.layout.tp = tp;
  lo.layout.pp = pp;
  lo.layout.vp = vp;
  lo.name = "llama3-8b-16gpu";
  lo.targets = {"recipe"};
  lo.out_dir = tmp.path();
  std::ostringstream out, err;
  EXPECT_EQ(run_launch(lo, Context{out, err, {}, false, false}), kExitOk) << err.str();
  return tmp.file("llama3-8b-16gpu.recipe.yaml");
}

TEST(CalibrateCrossCheck, TheRunItsLogDescribesIsWrittenAndPassesCheck) {
  // A draft for the run the log is of: its layout too (TP 2 PP 2).
  test::TempDir tmp;
  const std::string file = draft_of_the_8b_run(tmp, 2, 2, 1);
  ASSERT_TRUE(std::filesystem::exists(file));
  CalibrateOptions o;
  o.logs = {log_path("llama8b_16gpu.log")};
  o.recipe = file;
  const Out r = calibrate_cmd(o);
  ASSERT_EQ(r.rc, kExitOk) << r.err;
  // The warm-up lines it left out are listed.
  EXPECT_NE(r.err.find("left out 2 line(s), iterations 1..2 (20.00 s, 9.50 s per step): warm-up"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
  std::ostringstream out, err;
  CheckOptions co;
  co.files = {file};
  EXPECT_EQ(run_check(co, Context{out, err, {}, false, false}), kExitOk) << out.str() << err.str();
}

// The same model, GPUs, batch and sequence on another layout: a result is the measurement of its
// record's layout (show and the accuracy bench compare it with that layout's estimate), so a log of
// TP 2 PP 2 is refused for a TP 4 PP 2 VP 2 record, naming each degree (it was written).
TEST(CalibrateCrossCheck, RefusesTheLogOfAnotherLayout) {
  test::TempDir tmp;
  const std::string file = draft_of_the_8b_run(tmp, 4, 2, 2);
  ASSERT_TRUE(std::filesystem::exists(file));
  const std::string before = test::read_text(file);
  CalibrateOptions o;
  o.logs = {log_path("llama8b_16gpu.log")};
  o.recipe = file;
  const Out r = calibrate_cmd(o);
  EXPECT_EQ(r.rc, kExitFindings) << r.err;
  EXPECT_EQ(test::read_text(file), before);
  for (const char* want : {"the log's tensor_model_parallel_size is 2, but TP (the recipe ", ") is 4",
                           "the log's virtual_pipeline_model_parallel_size is 1, but VP (the recipe "})
    EXPECT_NE(r.err.find(want), std::string::npos) << want << "\n" << r.err;
  EXPECT_EQ(r.err.find("pipeline_model_parallel_size is 2, but PP"), std::string::npos) << r.err;  // PP 2 agrees
}

TEST(CalibrateCrossCheck, ImplausibleMfuIsAWarning) {
  CalibrateOptions o;
  o.logs = {log_path("llama8b_16gpu.log")};
  o.model = "Llama-3-8B";
  o.peak_tflops = 400;  // below the logged 421.6 TFLOP/s: an MFU above 1
  const Out r = calibrate_cmd(o);
  EXPECT_EQ(r.rc, kExitOk) << r.err;
  EXPECT_NE(r.err.find("warning: MFU with Megatron's FLOPs count 1.05 is implausibly high"), std::string::npos) << r.err;
}

TEST(CalibrateCrossCheck, JsonRefusalIsAnObjectPerDifferenceOnStdout) {
  test::TempDir tmp;
  CalibrateOptions o;
  o.logs = {log_path("llama8b_16gpu.log")};
  o.recipe = copy_70b(tmp);
  const Out r = calibrate_cmd(o, true);
  EXPECT_EQ(r.rc, kExitFindings);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["exit_code"], kExitFindings);
  ASSERT_GE(j["errors"].size(), 5U) << r.out;
  for (const auto& e : j["errors"]) {
    EXPECT_EQ(e["rule"], "RB-CALIBRATE-MISMATCH");
    EXPECT_TRUE(e["message"].is_string());
    EXPECT_TRUE(e["fix"].is_string());
    EXPECT_TRUE(e["where"].is_string());
  }
}

// With --json, stdout holds one JSON object naming the error for every kind of failure: usage errors
// CLI11 raises, input errors of the commands.
TEST(JsonErrors, EveryErrorPathPrintsJsonOnStdout) {
  const std::string bin = RB_BINARY;
  const struct {
    std::string args;
    std::string rule;
    int rc = kExitUsage;
  } cases[] = {
      {"--json launch --model Llama-3-8B --gpu h100 --gpus 8 --tp 3 --seq 4096 --gbs 64 --target bridge", "RB-TP-HEADS",
       kExitFindings},
      {"--json plan --model Llama-3-8B --gpu h100 --gpus 8 --gbs 64 --tp 3", "RB-WORLD-DIVISIBLE"},
      {"check --json --no-such-flag", "RB-USAGE", kExitUsage},
      {"--json estimate --model Llama-3-8B --gpu h100 --gpus", "RB-USAGE"},
      {"--json calibrate /no/such/run.log", "RB-USAGE"},
      {"--json check", "RB-USAGE"},
      {"--json estimate --model no-such-model --gpu h100 --gpus 8 --gbs 64", "RB-INPUT"},
      {"--json show no-such-thing", "RB-INPUT"},
      {"--json calibrate " + log_path("no_iterations.log"), "RB-INPUT"},
  };
  for (const auto& c : cases) {
    const test::Run r = test::run_shell("(" + bin + " " + c.args + " 2>/dev/null)");
    EXPECT_EQ(r.rc, c.rc) << c.args << "\n" << r.out;
    nlohmann::json j;
    ASSERT_NO_THROW(j = nlohmann::json::parse(r.out)) << c.args << "\n" << r.out;
    ASSERT_FALSE(j["errors"].empty()) << c.args;
    bool named = false;
    for (const auto& e : j["errors"]) {
      named = named || e["rule"] == c.rule;
      EXPECT_FALSE(e["message"].get<std::string>().empty()) << c.args;
    }
    EXPECT_TRUE(named) << c.rule << " not among the errors of " << c.args << "\n" << r.out;
    EXPECT_EQ(j["exit_code"], c.rc);
  }
}

}  // namespace
}  // namespace rb::cli
