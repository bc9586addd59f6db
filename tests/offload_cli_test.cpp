// Host offload end to end through the built binary: estimate with the offload flags, plan offloading
// a full fine-tune that does not fit, and launch writing Megatron-LM's and Megatron-Bridge's flags.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

#include "recipebook/emit/launch_test_util.hpp"

namespace rb {
namespace {

using Json = nlohmann::json;

std::string bin() { return std::string(RB_BINARY); }

// stdout alone (run_shell captures both streams): the command in a subshell with stderr dropped.
std::string json_of(const std::string& command) { return test::run_shell("(" + command + " 2>/dev/null)").out; }

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Llama-3-70B full fine-tuning on one 8 x H100 node does not fit without offload.
const std::string kSetup = " --model llama3-70b --gpu h100 --gpus 8 --mode sft --seq 4096 --gbs 32";

TEST(OffloadCli, EstimateReportsHostMemoryAndTheTransferTime) {
  const Json p = Json::parse(json_of(bin() + " estimate" + kSetup + " --tp 8 --json"));
  EXPECT_FALSE(p["memory"]["fits"].get<bool>());
  EXPECT_EQ(p["memory"]["host"]["node_bytes"].get<double>(), 0.0);
  EXPECT_EQ(p["time"]["parts"]["offload_s"].get<double>(), 0.0);

  const Json j = Json::parse(json_of(bin() + " estimate" + kSetup + " --tp 8 --optimizer-offload-fraction 1 --json"));
  EXPECT_TRUE(j["memory"]["fits"].get<bool>());
  EXPECT_EQ(j["memory"]["parts"]["optimizer_bytes"].get<double>(), 0.0);
  EXPECT_GT(j["memory"]["host"]["node_bytes"].get<double>(), 0.0);
  EXPECT_EQ(j["memory"]["host"]["capacity_bytes"].get<double>(), 2e12);  // DGX H100, catalog `host:`
  EXPECT_TRUE(j["memory"]["host"]["fits"].get<bool>());
  EXPECT_GT(j["time"]["parts"]["offload_s"].get<double>(), 0.0);

  const test::Run table = test::run_shell(bin() + " estimate" + kSetup + " --tp 8 --optimizer-offload-fraction 1");
  EXPECT_TRUE(has(table.out, "host memory (offload):")) << table.out;
  EXPECT_TRUE(has(table.out, "offload")) << table.out;
  // Out-of-range fractions are refused at the flag.
  EXPECT_NE(test::run_shell(bin() + " estimate" + kSetup + " --optimizer-offload-fraction 1.5").rc, 0);
}

TEST(OffloadCli, PlanOffloadsWhatDoesNotFitAndLaunchWritesTheFlags) {
  test::TempDir dir;
  const std::string plan_file = dir.file("plan.json");
  const test::Run plan = test::run_shell("(" + bin() + " plan" + kSetup + " --top 2 --json > " + plan_file + ")");
  ASSERT_EQ(plan.rc, 0) << plan.out;
  const Json j = Json::parse(test::run_shell("cat " + plan_file).out);
  ASSERT_FALSE(j["top"].empty());
  const Json& best = j["top"][0];
  EXPECT_GT(best["layout"].value("optimizer_offload_fraction", 0.0), 0.0) << best.dump(1);
  EXPECT_GT(best["time"]["offload_s"].get<double>(), 0.0);
  EXPECT_GT(j["counts"]["fit_with_offload"].get<int>(), 0);

  // The plan entry launches with its offload: Bridge overrides, and Megatron-LM flags.
  const test::Run bridge = test::run_shell(bin() + " launch " + plan_file + " --target bridge 2>&1");
  ASSERT_EQ(bridge.rc, 0) << bridge.out;
  EXPECT_TRUE(has(bridge.out, "optimizer.optimizer_cpu_offload=True")) << bridge.out;
  EXPECT_TRUE(has(bridge.out, "optimizer.use_precision_aware_optimizer=True")) << bridge.out;
  // pretrain_gpt.py trains no SFT (check_megatron_mode): the same layout, pretrained.
  const test::Run mlm = test::run_shell(bin() + " launch " + plan_file + " --framework megatron-lm --mode pretrain 2>&1");
  ASSERT_EQ(mlm.rc, 0) << mlm.out;
  for (const char* flag : {"--optimizer-cpu-offload", "--optimizer-offload-fraction", "--use-precision-aware-optimizer",
                           "--overlap-cpu-optimizer-d2h-h2d"})
    EXPECT_TRUE(has(mlm.out, flag)) << flag << "\n" << mlm.out;
}

TEST(OffloadCli, ActivationOffloadFlagsReachMegatron) {
  const test::Run r = test::run_shell(bin() +
                                      " launch --model llama3-8b --gpu h100 --gpus 8 --seq 8192 --gbs 64 "
                                      "--offload-modules core_attn,attn_proj --framework megatron-lm --tp 2 2>&1");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_TRUE(has(r.out, "--fine-grained-activation-offloading")) << r.out;
  EXPECT_TRUE(has(r.out, "--offload-modules core_attn attn_proj")) << r.out;
  EXPECT_TRUE(has(r.out, "NVTE_CPU_OFFLOAD_V1")) << r.out;
  EXPECT_NE(test::run_shell(bin() + " estimate --model llama3-8b --gpu h100 --gpus 8 --gbs 64 --offload-modules bogus").rc, 0);
}

}  // namespace
}  // namespace rb
