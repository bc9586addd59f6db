// `launch` estimates the memory of what it writes, as `estimate` does with the same recipe and flags:
// a layout that does not fit is refused (RB-LAUNCH-MEMORY, exit 1, nothing written) unless the
// record's own measured run shows it fits, the recipe is launched as Megatron-Bridge ships it (a
// warning), or --ignore-memory is given. Before, launch wrote a script for Llama-3-70B on 8 H100 at
// TP 1 (548 GiB per GPU) and exited 0.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <sstream>

#include "cli_support.hpp"   // run_cli
#include "test_support.hpp"  // TempDir
#include "recipebook/cmd_launch.hpp"

namespace rb::cli {
namespace {

using Out = test::CliOut;

Out launch(const LaunchOptions& o, bool json = false) {
  return test::run_cli([&](const Context& ctx) { return run_launch(o, ctx); }, json);
}

// Llama-3-70B on one node of 8 H100 with no model parallelism: 70 B parameters' weights, gradients
// and optimizer state cannot fit in 80 GB.
LaunchOptions llama70b_tp1(int tp) {
  LaunchOptions o;
  o.model = "llama3-70b";
  o.gpu = "h100";
  o.gpus = 8;
  o.layout.tp = tp;
  o.layout.pp = 1;
  o.seq = 8192;
  o.gbs = 64;
  o.targets = {"megatron-lm"};
  return o;
}

TEST(LaunchMemory, ALayoutThatDoesNotFitIsRefusedAndNothingIsWritten) {
  LaunchOptions o = llama70b_tp1(1);
  const test::TempDir dir;
  o.out_dir = dir.path() + "/jobs";
  const Out r = launch(o);
  EXPECT_EQ(r.rc, kExitFindings) << r.err;
  EXPECT_NE(r.err.find("refusing to launch"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("does not fit"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("of one h100"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("recipebook plan --model Llama-3-70B --gpu h100 --gpus 8 --gbs 64 --seq 8192"), std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(o.out_dir));
}

TEST(LaunchMemory, JsonRefusalCarriesTheRule) {
  const Out r = launch(llama70b_tp1(1), true);
  EXPECT_EQ(r.rc, kExitFindings);
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_FALSE(j["errors"].empty()) << r.out;
  EXPECT_EQ(j["errors"].back()["rule"], "RB-LAUNCH-MEMORY");
  EXPECT_EQ(j["exit_code"], kExitFindings);
}

TEST(LaunchMemory, IgnoreMemoryWritesItWithAWarning) {
  LaunchOptions o = llama70b_tp1(1);
  o.ignore_memory = true;
  const Out r = launch(o);
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("pretrain_gpt.py"), std::string::npos);
  EXPECT_NE(r.err.find("warning:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--ignore-memory"), std::string::npos) << r.err;
}

// Llama-3-8B on 8 H100 at TP 2: about 47 GiB of 80.
LaunchOptions llama8b_tp2() {
  LaunchOptions o = llama70b_tp1(2);
  o.model = "llama3-8b";
  return o;
}

TEST(LaunchMemory, ALayoutThatFitsReportsItsPeakInJson) {
  const LaunchOptions o = llama8b_tp2();
  const Out r = launch(o, true);
  ASSERT_EQ(r.rc, 0) << r.err << r.out;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j["memory"].is_object()) << r.out;
  EXPECT_TRUE(j["memory"]["fits"].get<bool>());
  EXPECT_LT(j["memory"]["peak_bytes"].get<double>(), j["memory"]["capacity_bytes"].get<double>());
}

TEST(LaunchMemory, AProbeTrainsNothingAndIsNotChecked) {
  LaunchOptions o = llama70b_tp1(1);
  o.probe = true;
  o.targets = {"torchrun"};
  const Out r = launch(o);
  EXPECT_EQ(r.rc, 0) << r.err;
}

// The --target megatron-lm script runs pretrain_gpt.py: no note names a Bridge recipe it starts from.
TEST(LaunchMemory, AMegatronLmTargetNamesNoBridgeRecipe) {
  LaunchOptions o = llama8b_tp2();
  const Out lm = launch(o);
  ASSERT_EQ(lm.rc, 0) << lm.err;
  EXPECT_EQ(lm.err.find("starting from recipe"), std::string::npos) << lm.err;
  o.targets = {"bridge"};
  const Out bridge = launch(o);
  ASSERT_EQ(bridge.rc, 0) << bridge.err;
  EXPECT_NE(bridge.err.find("Megatron-Bridge: starting from recipe"), std::string::npos) << bridge.err;
}

// A built-in Bridge recipe as it ships is written whatever the estimate says (a warning at most);
// the same recipe with a layout flag is the user's layout and is checked like one.
TEST(LaunchMemory, AShippedRecipeIsWrittenAndItsChangedLayoutIsChecked) {
  LaunchOptions o;
  o.source = "glm45_air_106b_sft_32gpu_h100_bf16_config";  // a library recipe whose layout the catalog records
  o.targets = {"bridge"};
  const Out shipped = launch(o);
  EXPECT_EQ(shipped.rc, 0) << shipped.err;
  EXPECT_EQ(shipped.err.find("memory not"), std::string::npos) << shipped.err;  // it was estimated
  // The estimate puts it over 80 GB (114 GiB at this commit): a warning, not a refusal.
  EXPECT_NE(shipped.err.find("written as Megatron-Bridge ships the recipe"), std::string::npos) << shipped.err;
  o.layout.pp = 1;  // 106 B parameters' state on 8 ranks of EP with no pipeline
  const Out changed = launch(o);
  EXPECT_EQ(changed.rc, kExitFindings) << changed.err;
  EXPECT_NE(changed.err.find("the memory estimate says the layout does not fit"), std::string::npos) << changed.err;
}

// A record of the user's own run (its `result`: a run that completed) launched as written: the
// measurement outweighs the estimate, so launch writes it with a warning that says so; the same
// record at another batch is the estimate's to judge.
TEST(LaunchMemory, ARecordWhoseOwnRunCompletedIsWrittenWithAWarning) {
  const test::TempDir cat;
  cat.write("recipes/llama70b_8xh100_tp1.yaml", R"(schema_version: 1
name: llama70b_8xh100_tp1
kind: measured
mode: pretrain
framework: megatron-lm
source: "test fixture: a run the estimate says cannot fit"
model: llama3-70b
gpu: {type: h100, count: 8, per_node: 8}
workload: {row_tokens: 8192, global_batch: 64, precision: bf16}
layout: {tp: 1, pp: 1, vpp: 1, cp: 1, ep: 1, dp: 8, rows_per_microbatch: 1}
result: {tokens_per_s_per_gpu: 100}
)");
  LaunchOptions o;
  o.source = "llama70b_8xh100_tp1";
  o.targets = {"megatron-lm"};
  auto run = [&](const LaunchOptions& opts) {
    std::ostringstream out, err;
    const Context ctx{out, err, {cat.path()}, false, false};
    const int rc = run_launch(opts, ctx);
    return Out{rc, out.str(), err.str()};
  };
  const Out as_run = run(o);
  EXPECT_EQ(as_run.rc, 0) << as_run.err;
  EXPECT_NE(as_run.err.find("the record's measured run completed on this layout"), std::string::npos) << as_run.err;
  o.gbs = 128;  // another batch: no longer the run that completed
  const Out changed = run(o);
  EXPECT_EQ(changed.rc, kExitFindings) << changed.err;
  EXPECT_NE(changed.err.find("refusing to launch"), std::string::npos) << changed.err;
}

// The memory launch checks is that of the layout the scripts run: with a pretrain_gpt.py target the
// native fused loss (4n + 2 bytes of logits per token and vocab entry) in place of TE's (2n), which
// Megatron-LM refuses (emit/launch.hpp megatron_lm_layout). Before, both targets were estimated
// with TE's loss, so a layout that fits on Bridge could be written for Megatron-LM and OOM.
TEST(LaunchMemory, AMegatronLmTargetIsEstimatedWithTheLossItRuns) {
  LaunchOptions o = llama8b_tp2();
  const Out lm = launch(o, true);
  ASSERT_EQ(lm.rc, 0) << lm.err << lm.out;
  o.targets = {"bridge"};
  const Out bridge = launch(o, true);
  ASSERT_EQ(bridge.rc, 0) << bridge.err << bridge.out;
  const double lm_peak = nlohmann::json::parse(lm.out)["memory"]["peak_bytes"].get<double>();
  const double bridge_peak = nlohmann::json::parse(bridge.out)["memory"]["peak_bytes"].get<double>();
  // One micro-batch of 8192 tokens x 128256 / TP 2 vocab entries at 4 more bytes each: 2 GiB.
  EXPECT_NEAR(lm_peak - bridge_peak, 8192.0 * 128256 / 2 * 4, 0.25 * 8192.0 * 128256 / 2 * 4);
}

}  // namespace
}  // namespace rb::cli
