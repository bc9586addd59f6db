// `recipebook check` on seed 002's record as restored in the catalog: clean as is, and exactly one
// finding, at the right line, for each single corruption (a derived figure changed, a field removed,
// a type changed, a key duplicated). The corruptions are made from the file's own text.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "recipebook/cmd_check.hpp"
#include "test_support.hpp"

namespace rb::cli {
namespace {

const char* kSeedPath = RB_SOURCE_DIR "/catalog/recipes/qwen3.5-397b-a17b/b200/attune-48gpu-tp2-pp6-ep8.yaml";

struct CheckRun {
  int code;
  std::string out;
  std::string err;
};

CheckRun check_text(const std::string& text, const std::string& name) {
  test::TempDir dir;
  const std::string path = dir.write(name, text);
  std::ostringstream out;
  std::ostringstream err;
  Context ctx{out, err, {}, false, false};
  CheckOptions o;
  o.files = {path};
  const int code = run_check(o, ctx);
  return {code, out.str(), err.str()};
}

// The 1-based line of the first line of `text` that matches `re`.
int line_of(const std::string& text, const std::string& re) {
  std::istringstream in(text);
  std::string line;
  int n = 0;
  const std::regex r(re);
  while (std::getline(in, line)) {
    ++n;
    if (std::regex_search(line, r)) return n;
  }
  return -1;
}

std::string replace_line(const std::string& text, const std::string& re, const std::string& with) {
  const std::regex r(re);
  std::istringstream in(text);
  std::string line;
  std::string out;
  bool done = false;
  while (std::getline(in, line)) {
    if (!done && std::regex_search(line, r)) {
      line = std::regex_replace(line, r, with);
      done = true;
    }
    out += line + "\n";
  }
  EXPECT_TRUE(done) << "no line matches " << re;
  return out;
}

class SeedCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ifstream in(kSeedPath);
    ASSERT_TRUE(in) << kSeedPath;
    std::stringstream ss;
    ss << in.rdbuf();
    seed_ = ss.str();
  }
  // Exactly one finding with `id` on `line`.
  void expect_one(const std::string& text, const std::string& id, int line) {
    const auto r = check_text(text, "seed.yaml");
    EXPECT_EQ(r.code, kExitFindings) << r.out << r.err;
    int lines = 0;
    std::istringstream in(r.out);
    std::string l;
    while (std::getline(in, l)) ++lines;
    EXPECT_EQ(lines, 1) << r.out;
    EXPECT_NE(r.out.find("seed.yaml:" + std::to_string(line) + ":"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("[" + id + "]"), std::string::npos) << r.out;
  }
  std::string seed_;
};

TEST_F(SeedCheck, RestoredSeedIsClean) {
  const auto r = check_text(seed_, "seed.yaml");
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  EXPECT_EQ(r.out, "");
}

TEST_F(SeedCheck, WindowTokensChanged) {
  expect_one(replace_line(seed_, "window_tokens: 15728640", "window_tokens: 15728641"), "RB-DERIVED-WINDOW-TOKENS",
             line_of(seed_, "window_tokens: 15728640"));
}

TEST_F(SeedCheck, MfuChanged) {
  expect_one(replace_line(seed_, "mfu: 0\\.0468", "mfu: 0.0512"), "RB-DERIVED-MFU", line_of(seed_, "mfu: 0\\.0468"));
}

TEST_F(SeedCheck, UsdChanged) {
  expect_one(replace_line(seed_, "usd_per_million_tokens: 3\\.68", "usd_per_million_tokens: 3.88"), "RB-DERIVED-USD",
             line_of(seed_, "usd_per_million_tokens: 3\\.68"));
}

TEST_F(SeedCheck, ActiveParamsChanged) {
  expect_one(replace_line(seed_, "count: 16331407360", "count: 16331407361"), "RB-ACTIVE-PARAMS",
             line_of(seed_, "count: 16331407360"));
}

TEST_F(SeedCheck, DataParallelChanged) {
  expect_one(replace_line(seed_, "^(\\s*)dp: 4", "$1dp: 5"), "RB-LAYOUT-PRODUCT", line_of(seed_, "^\\s*dp: 4"));
}

TEST_F(SeedCheck, RequiredFieldRemoved) {
  // Dropping `model:` leaves the record's map without a required key: reported at the map.
  const std::string text = replace_line(seed_, "^model: .*$", "");
  const auto r = check_text(text, "seed.yaml");
  EXPECT_EQ(r.code, kExitFindings);
  EXPECT_NE(r.out.find("[RB-SCHEMA-REQUIRED]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("'model'"), std::string::npos) << r.out;
}

TEST_F(SeedCheck, TypeChanged) {
  expect_one(replace_line(seed_, "^(\\s*)tp: 2", "$1tp: two"), "RB-SCHEMA-TYPE", line_of(seed_, "^\\s*tp: 2"));
}

TEST_F(SeedCheck, KeyDuplicated) {
  const int line = line_of(seed_, "^\\s*pp: 6");
  expect_one(replace_line(seed_, "^(\\s*)pp: 6", "$1pp: 6\n$1pp: 6"), "RB-YAML-DUPLICATE-KEY", line + 1);
}

}  // namespace
}  // namespace rb::cli
