// `launch` says which entry point a script runs when no --workdir is given. A recipe that runs on
// Megatron-Bridge launched with --target megatron-lm writes pretrain_gpt.py (render_megatron), and the
// note must name that, not run_recipe.py (the old note followed the recipe's framework: this failed).
#include <gtest/gtest.h>

#include <sstream>

#include "test_support.hpp"  // TempDir
#include "recipebook/cmd_launch.hpp"

namespace rb::cli {
namespace {

std::string notes_of(const std::vector<std::string>& targets) {
  LaunchOptions o;
  o.source = "llama3_8b_pretrain_8gpu_h100_bf16_config";  // a Megatron-Bridge performance recipe
  o.targets = targets;
  const test::TempDir dir;
  o.out_dir = dir.path();  // one file per target
  std::ostringstream out, err;
  Context ctx{out, err, {}, false, false};
  EXPECT_EQ(run_launch(o, ctx), 0) << err.str();
  return err.str();
}

TEST(LaunchEntryNote, NamesTheEntryTheTargetRuns) {
  const std::string lm = notes_of({"megatron-lm"});
  EXPECT_NE(lm.find("no --workdir: the script runs pretrain_gpt.py from"), std::string::npos) << lm;
  EXPECT_EQ(lm.find("run_recipe.py"), std::string::npos) << lm;
  const std::string both = notes_of({"bridge", "megatron-lm"});
  EXPECT_NE(both.find("the script runs scripts/training/run_recipe.py / pretrain_gpt.py from"), std::string::npos)
      << both;
}

}  // namespace
}  // namespace rb::cli
