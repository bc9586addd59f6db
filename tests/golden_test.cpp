// Golden end-to-end cases: what a user types, and everything the tool answers, as data.
//
// Each folder tests/golden/<case>/ holds
//   cmd           shell lines run one after another by bash in a fresh empty folder, with the built
//                 `recipebook` first on PATH (redirections and `&&` work as in a terminal; lines
//                 starting with '#' are comments);
//   expected.txt  for each line: "$ <line>", its stdout, its stderr under "[stderr]" when there is
//                 any, and "[exit N]"; then every file the lines left in the folder, by name.
// $RB_SOURCE_DIR is the source tree (for test data). The folder's path is written as "<tmp>", the
// source tree's as "<src>". To add a case, add a folder with a `cmd` and run
// `UPDATE_GOLDEN=1 build/ci/tests/cli_tests --gtest_filter='Golden*'`, then review the diff of
// expected.txt as you would a code change: it is the answer a user copies.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace rb {
namespace {

namespace fs = std::filesystem;

fs::path golden_root() { return fs::path(RB_SOURCE_DIR) / "tests" / "golden"; }

std::vector<std::string> case_names() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(golden_root(), ec))
    if (e.is_directory() && fs::exists(e.path() / "cmd")) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

std::string shell_single_quoted(const std::string& s) { return "'" + replace_all(s, "'", "'\\''") + "'"; }

// Runs the case's lines in `dir` and returns the transcript (before normalizing the folder's path).
std::string transcript(const fs::path& case_dir, const test::TempDir& dir) {
  const std::string bin_dir = fs::path(RB_BINARY).parent_path().string();
  const std::string out_file = dir.file(".rb-golden-out"), err_file = dir.file(".rb-golden-err");
  std::istringstream lines(slurp(case_dir / "cmd"));
  std::string line, text;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    const std::string script = "cd " + shell_single_quoted(dir.path()) + " && export PATH=" +
                               shell_single_quoted(bin_dir) + ":\"$PATH\" NO_COLOR=1 RB_SOURCE_DIR=" +
                               shell_single_quoted(RB_SOURCE_DIR) + " && " + line;
    const std::string command = "bash -c " + shell_single_quoted(script) + " >" + shell_single_quoted(out_file) +
                                " 2>" + shell_single_quoted(err_file) + " </dev/null";
    const int status = std::system(command.c_str());
    const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    text += "$ " + line + "\n" + slurp(out_file);
    const std::string err = slurp(err_file);
    if (!err.empty()) text += "[stderr]\n" + err;
    text += "[exit " + std::to_string(rc) + "]\n";
  }
  fs::remove(out_file);
  fs::remove(err_file);
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(dir.path()))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) text += "=== file " + fs::relative(f, dir.path()).string() + " ===\n" + slurp(f);
  return text;
}

class Golden : public ::testing::TestWithParam<std::string> {};

TEST_P(Golden, MatchesExpected) {
  const fs::path case_dir = golden_root() / GetParam();
  test::TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  const std::string got = replace_all(replace_all(transcript(case_dir, dir), dir.path(), "<tmp>"), RB_SOURCE_DIR, "<src>");
  const fs::path expected = case_dir / "expected.txt";
  const char* update = std::getenv("UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(expected, std::ios::binary) << got;
    GTEST_SKIP() << "rewrote " << expected;
  }
  ASSERT_TRUE(fs::exists(expected)) << "no expected.txt: run with UPDATE_GOLDEN=1 and review it";
  EXPECT_EQ(got, slurp(expected)) << "the transcript differs from " << expected
                                  << " (UPDATE_GOLDEN=1 rewrites it; review the diff)";
}

INSTANTIATE_TEST_SUITE_P(Cases, Golden, ::testing::ValuesIn(case_names()),
                         [](const ::testing::TestParamInfo<std::string>& i) {
                           std::string n = i.param;
                           std::replace_if(n.begin(), n.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
                           return n;
                         });

// README's "A first session" runs as written, from a folder laid out as the clone's root for the
// paths it names (the sample log), with the built binary on PATH.
TEST(Readme, FirstSessionRunsAsWritten) {
  const std::string readme = slurp(fs::path(RB_SOURCE_DIR) / "README.md");
  const size_t section = readme.find("### A first session");
  ASSERT_NE(section, std::string::npos);
  const size_t open = readme.find("```sh\n", section);
  ASSERT_NE(open, std::string::npos);
  const size_t close = readme.find("```", open + 6);
  ASSERT_NE(close, std::string::npos);
  const std::string block = readme.substr(open + 6, close - open - 6);
  test::TempDir dir;
  for (size_t at = block.find("tests/"); at != std::string::npos; at = block.find("tests/", at + 1)) {
    const std::string rel = block.substr(at, block.find_first_of(" \n", at) - at);
    fs::create_directories(fs::path(dir.path()) / fs::path(rel).parent_path());
    fs::copy_file(fs::path(RB_SOURCE_DIR) / rel, fs::path(dir.path()) / rel, fs::copy_options::overwrite_existing);
  }
  const std::string bin_dir = fs::path(RB_BINARY).parent_path().string();
  const std::string script = "set -euo pipefail\ncd " + shell_single_quoted(dir.path()) + "\nexport PATH=" +
                             shell_single_quoted(bin_dir) + ":\"$PATH\"\n" + block;
  const std::string log = dir.file("readme.log");
  const int status = std::system(("bash -c " + shell_single_quoted(script) + " >" + shell_single_quoted(log) + " 2>&1").c_str());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << slurp(log);
  // The session ends with a record that holds the measured result.
  bool has_result = false;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(dir.path()) / "jobs"))
    if (e.path().string().ends_with(".recipe.yaml")) has_result = slurp(e.path()).find("\nresult:") != std::string::npos;
  EXPECT_TRUE(has_result) << slurp(log);
}

// There are golden cases at all (a typo in the folder would otherwise pass by running none).
TEST(GoldenCases, AtLeastThirty) { EXPECT_GE(case_names().size(), 30u); }

}  // namespace
}  // namespace rb
