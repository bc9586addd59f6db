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

}  // namespace
}  // namespace rb
