// `recipebook check` reports every finding it can in one run: a schema error on one field does not
// stop the checks that read other fields, and RB-LAYOUT-PRODUCT does not silence the per-degree
// layout rules. A field the schema rejected is unknown, never defaulted: a rule whose verdict
// depends on it is not reported.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "cli_support.hpp"
#include "recipebook/cmd_check.hpp"
#include "test_support.hpp"

namespace rb::cli {
namespace {

const char* kSeveral = RB_SOURCE_DIR "/tests/data/check/several_mistakes.yaml";

// The rule ids of `check`'s text output, one per finding line.
std::multiset<std::string> rule_ids(const std::string& out) {
  std::multiset<std::string> ids;
  std::istringstream lines(out);
  std::string l;
  while (std::getline(lines, l)) {
    const auto open = l.find(" [");
    const auto close = l.find("] ", open);
    if (open != std::string::npos && close != std::string::npos) ids.insert(l.substr(open + 2, close - open - 2));
  }
  return ids;
}

test::CliOut check_path(const std::string& path) {
  CheckOptions o;
  o.files = {path};
  return test::run_cli([&](const Context& ctx) { return run_check(o, ctx); }, false);
}

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(CheckOnePass, ReportsEveryMistakeOfARecordAtOnce) {
  const auto r = check_path(kSeveral);
  EXPECT_EQ(r.rc, kExitFindings) << r.err;
  const auto ids = rule_ids(r.out);
  for (const char* want : {"RB-SCHEMA-TYPE", "RB-LAYOUT-PRODUCT", "RB-TP-HEADS", "RB-TP-KV-GROUPS", "RB-SP-RECOMMENDED",
                           "RB-VP-LAYERS"})
    EXPECT_EQ(ids.count(want), 1U) << want << " missing or repeated in one run:\n" << r.out;
  // The schema still names the bad field at its line.
  EXPECT_NE(r.out.find("several_mistakes.yaml:31:24: error [RB-SCHEMA-TYPE] `layout.rows_per_microbatch`"),
            std::string::npos)
      << r.out;
}

// A key given twice is one finding among the others: the file's layout rules still run (on the
// first value), where the duplicate stopped the check at the parser.
TEST(CheckOnePass, ARepeatedKeyIsOneFindingAmongTheOthers) {
  test::TempDir dir;
  const std::string text = read_all(kSeveral);
  const std::string path = dir.write("dup.yaml", replaced(text, "\nlayout:\n", "\nmode: sft\nlayout:\n"));
  const auto r = check_path(path);
  EXPECT_EQ(r.rc, kExitFindings) << r.err;
  const auto ids = rule_ids(r.out);
  EXPECT_EQ(ids.count("RB-YAML-DUPLICATE-KEY"), 1U) << r.out;
  for (const char* want : {"RB-LAYOUT-PRODUCT", "RB-TP-HEADS", "RB-VP-LAYERS"}) EXPECT_EQ(ids.count(want), 1U) << want << "\n" << r.out;
  EXPECT_NE(r.out.find("dup.yaml:"), std::string::npos) << r.out;
}

TEST(CheckOnePass, FixingEachReportedMistakeLeavesNoNewOne) {
  // With every mistake of the fixture fixed, the record is clean: the first run named them all.
  std::string text = read_all(kSeveral);
  text = replaced(text, "rows_per_microbatch: \"one\"", "rows_per_microbatch: 1");
  text = replaced(text, "tp: 3", "tp: 2");
  text = replaced(text, "vpp: 3", "vpp: 2");
  text = replaced(text, "dp: 2", "dp: 4");
  text = replaced(text, "sequence_parallel: false", "sequence_parallel: true");
  test::TempDir dir;
  const auto r = check_path(dir.write("fixed.yaml", text));
  EXPECT_EQ(r.rc, kExitOk) << r.out << r.err;
  EXPECT_TRUE(rule_ids(r.out).empty()) << r.out;
}

TEST(CheckOnePass, ARuleNeedingARejectedFieldIsSkippedNotDefaulted) {
  // TP is unreadable: sequence parallelism on TP 1 (RB-SP-NEEDS-TP) would fire only on a TP read
  // as its default 1; the TP rules cannot be judged. A rule that needs no TP still runs.
  std::string text = read_all(kSeveral);
  text = replaced(text, "tp: 3", "tp: three");
  text = replaced(text, "sequence_parallel: false", "sequence_parallel: true");
  test::TempDir dir;
  const auto r = check_path(dir.write("tp_unknown.yaml", text));
  const auto ids = rule_ids(r.out);
  for (const char* never : {"RB-SP-NEEDS-TP", "RB-TP-HEADS", "RB-TP-KV-GROUPS", "RB-SP-RECOMMENDED", "RB-LAYOUT-PRODUCT"})
    EXPECT_EQ(ids.count(never), 0U) << never << " judged on an unknown TP:\n" << r.out;
  EXPECT_EQ(ids.count("RB-VP-LAYERS"), 1U) << r.out;
  EXPECT_GE(ids.count("RB-SCHEMA-TYPE"), 2U) << r.out;  // tp and rows_per_microbatch
}

TEST(CheckOnePass, AMisspeltKeyDoubtsOnlyTheFieldsItCouldBe) {
  // `tpp` may be any layout field the record leaves out, never TP or PP, which it writes: the TP
  // rules are judged (a misspelt key in `layout` hid every layout rule until the key was fixed). A
  // rule reading a field the key could be, with no probe to vary it, is still skipped.
  std::string text = read_all(kSeveral);
  text = replaced(text, "tp: 3", "tp: 3\n  tpp: 4");
  test::TempDir dir;
  const auto r = check_path(dir.write("misspelt.yaml", text));
  const auto ids = rule_ids(r.out);
  EXPECT_EQ(ids.count("RB-SCHEMA-UNKNOWN-KEY"), 1U) << r.out;
  EXPECT_EQ(ids.count("RB-TP-HEADS"), 1U) << r.out;
  // A misspelt top-level key other than `kind` could be `mode` or `framework`: nothing judged.
  text = read_all(kSeveral) + "modee: sft\n";
  const auto top = check_path(dir.write("top.yaml", text));
  EXPECT_EQ(rule_ids(top.out).count("RB-SCHEMA-UNKNOWN-KEY"), 1U) << top.out;
  EXPECT_EQ(rule_ids(top.out).count("RB-TP-HEADS"), 0U) << top.out;
}

TEST(CheckOnePass, AnUnknownGpuSkipsOnlyTheRulesThatNeedOne) {
  // RB-GPU-UNKNOWN used to hide every layout rule; TP 3 on Llama-3-8B needs no GPU to be wrong.
  std::string text = read_all(RB_SOURCE_DIR "/tests/invalid/RB-GPU-UNKNOWN.yaml");
  text = replaced(text, "  tp: 1", "  tp: 3");
  test::TempDir dir;
  const auto r = check_path(dir.write("gpu_unknown.yaml", text));
  const auto ids = rule_ids(r.out);
  EXPECT_EQ(ids.count("RB-GPU-UNKNOWN"), 1U) << r.out;
  EXPECT_EQ(ids.count("RB-TP-HEADS"), 1U) << r.out;
}

TEST(CheckOnePass, AnUnreadableFileIsAFindingThatNamesIt) {
  CheckOptions o;
  o.files = {"/no/such/record.yaml"};
  const auto r = test::run_cli([&](const Context& ctx) { return run_check(o, ctx); }, true);
  EXPECT_EQ(r.rc, kExitFindings);
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["findings"].size(), 1U) << r.out;
  EXPECT_EQ(j["findings"][0]["rule"], "RB-FILE-READ");
  EXPECT_EQ(j["findings"][0]["file"], "/no/such/record.yaml");
  EXPECT_EQ(j["findings"][0]["where"], "/no/such/record.yaml");
}

}  // namespace
}  // namespace rb::cli
