// A number flag given out of its range says what it must be in a short line, with non-zero exit:
// the old message was CLI11's "Value 0 not in range 0.000000 to <DBL_MAX written out in 309 digits>".
#include <gtest/gtest.h>

#include "recipebook/emit/launch_test_util.hpp"

namespace rb {
namespace {

TEST(CliNumberFlags, OutOfRangeSaysWhatTheFlagMustBe) {
  const std::string base = std::string(RB_BINARY) + " estimate --model llama3_8b --gpu h100 --gpus 8 --gbs 128";
  auto r = test::run_shell(base + " --seq 0 2>&1");
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.out.find("--seq: must be more than 0, not 0"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("000000000000"), std::string::npos) << r.out;
  EXPECT_LT(r.out.size(), 200u) << r.out;
  r = test::run_shell(base + " --tp -2 2>&1");
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.out.find("--tp: must be more than 0, not -2"), std::string::npos) << r.out;
  r = test::run_shell(std::string(RB_BINARY) + " list --limit -1 2>&1");
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.out.find("--limit: must be 0 or more, not -1"), std::string::npos) << r.out;
}


// A count of 0 given with a recipe is an error, not "the recipe's" (estimate used the recipe's 64
// GPUs and exited 0), and a node shape the count cannot fill is refused as launch refuses it
// (estimate and plan took 64 GPUs in nodes of 3).
TEST(CliNumberFlags, ZeroCountsAndPartialNodesAreRefused) {
  const std::string recipe = std::string(RB_BINARY) + " estimate llama3_70b_pretrain_64gpu_h100_bf16_config";
  for (const char* flag : {" --gpus 0", " --gbs 0", " --gpus-per-node 0"}) {
    auto r = test::run_shell(recipe + flag + " 2>&1");
    EXPECT_EQ(r.rc, 2) << flag << ": " << r.out;
    EXPECT_NE(r.out.find("must be more than 0, not 0"), std::string::npos) << r.out;
  }
  auto r = test::run_shell(std::string(RB_BINARY) + " estimate --model llama3-8b --gpu h100 --gpus 64 --gbs 64 --gpus-per-node 3 2>&1");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("--gpus-per-node: 64 GPUs do not fill whole nodes of 3"), std::string::npos) << r.out;
  r = test::run_shell(std::string(RB_BINARY) + " plan --model llama3-8b --gpu h100 --gpus 64 --gbs 64 --gpus-per-node 3 2>&1");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("64 GPUs do not fill whole nodes of 3"), std::string::npos) << r.out;
  r = test::run_shell(std::string(RB_BINARY) + " estimate --model llama3-8b --gpu h100 --gpus 2 --gbs 64 --gpus-per-node 4 2>&1");
  EXPECT_NE(r.rc, 2) << r.out;  // part of one node: estimated
  EXPECT_NE(r.out.find("tokens/s/GPU"), std::string::npos) << r.out;
}


// list's recipe filters with --models or --hardware were ignored without a word (and --models
// --hardware listed GPUs): they are usage errors now. --model still narrows --models.
TEST(CliNumberFlags, ListFiltersThatWouldBeIgnoredAreRefused) {
  const std::string list = std::string(RB_BINARY) + " list";
  for (const char* args : {" --models --gpu h100", " --models --hardware", " --hardware --model qwen3", " --models --measured"}) {
    auto r = test::run_shell(list + args + " 2>&1");
    EXPECT_EQ(r.rc, 2) << args << ": " << r.out;
    EXPECT_NE(r.out.find("excludes"), std::string::npos) << r.out;
  }
  auto r = test::run_shell(list + " --models --model qwen3 2>&1");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("Qwen3-0.6B"), std::string::npos) << r.out;
}

// estimate --tokens takes the counts plan takes ("1T" failed with CLI11's "Could not convert").
TEST(CliNumberFlags, EstimateTokensTakesTheSuffixPlanTakes) {
  const std::string base = std::string(RB_BINARY) + " estimate --model llama3-8b --gpu h100 --gpus 8 --gbs 128 --json";
  const auto t = test::run_shell(base + " --tokens 1T");
  const auto e = test::run_shell(base + " --tokens 1e12");
  ASSERT_EQ(t.rc, 0) << t.out;
  EXPECT_EQ(t.out, e.out);
  const auto bad = test::run_shell(base + " --tokens lots 2>&1");
  EXPECT_EQ(bad.rc, 2) << bad.out;
  EXPECT_NE(bad.out.find("not a token count"), std::string::npos) << bad.out;
}

}  // namespace
}  // namespace rb
