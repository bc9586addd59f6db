// Every value a finding's fix suggests must work: applied to the failing fixture
// (tests/invalid/<ID>.yaml), the rule no longer fires and no other error rule does. And check's
// recomputed figures read as numbers to paste (15728640, never 1.57286e+07), and pasting them
// clears the finding.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "recipebook/cmd_check.hpp"
#include "test_support.hpp"

namespace rb::cli {
namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

test::CliOut check_text(const std::string& text) {
  test::TempDir dir;
  const std::string path = dir.write("record.yaml", text);
  CheckOptions o;
  o.files = {path};
  return test::run_cli([&](const Context& ctx) { return run_check(o, ctx); }, false);
}

struct Line {
  std::string severity, rule, fix;
};

std::vector<Line> findings(const std::string& out) {
  std::vector<Line> v;
  const std::regex re(R"((error|warning) \[([A-Z0-9-]+)\] .*?(?:\(fix: (.*)\))?$)");
  std::istringstream in(out);
  std::string l;
  std::smatch m;
  while (std::getline(in, l))
    if (std::regex_search(l, m, re)) v.push_back({m[1], m[2], m[3]});
  return v;
}

// `section.key: value` in a record's text: the key's line replaced, or added under its section.
std::string with_field(const std::string& text, const std::string& section, const std::string& key,
                       const std::string& value) {
  std::istringstream in(text);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  size_t header = lines.size();
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i] == section + ":") header = i;
    if (header < lines.size() && i > header && !lines[i].empty() && lines[i][0] != ' ') break;
    if (header < lines.size() && i > header && lines[i].rfind("  " + key + ":", 0) == 0) {
      lines[i] = "  " + key + ": " + value;
      header = lines.size() + 1;  // done
      break;
    }
  }
  if (header < lines.size()) lines.insert(lines.begin() + static_cast<long>(header) + 1, "  " + key + ": " + value);
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

struct Suggestion {
  std::string section, key;
  std::vector<std::string> values;
};

std::vector<std::string> numbers(const std::string& list) {
  std::vector<std::string> v;
  const std::regex num("[0-9]+");
  for (auto it = std::sregex_iterator(list.begin(), list.end(), num); it != std::sregex_iterator(); ++it)
    v.push_back(it->str());
  return v;
}

// The values a fix suggests, by the field they go in.
std::vector<Suggestion> suggestions(const std::string& fix) {
  std::vector<Suggestion> out;
  const std::pair<const char*, std::pair<const char*, const char*>> sets[] = {
      {R"((?:use|set) TP in \{([0-9, ]+)\})", {"layout", "tp"}},
      {R"((?:use|set) PP in \{([0-9, ]+)\})", {"layout", "pp"}},
      {R"((?:use|set) VP in \{([0-9, ]+)\})", {"layout", "vpp"}},
      {R"((?:use|set) EP in \{([0-9, ]+)\})", {"layout", "ep"}},
      {R"((?:use|set) ETP in \{([0-9, ]+)\})", {"layout", "etp"}},
      {R"((?:or|use) CP in \{([0-9, ]+)\})", {"layout", "cp"}},
      {R"(raise EP to ([0-9]+))", {"layout", "ep"}},
      {R"(MBS in \{([0-9, ]+)\})", {"layout", "rows_per_microbatch"}},
      {R"(use a sequence length of ([0-9]+ or [0-9]+))", {"workload", "row_tokens"}},
      {R"(global batch that is a multiple of .*?\(e\.g\. ([0-9]+(?: or [0-9]+)?)\))", {"workload", "global_batch"}},
      {R"(use a global batch of ([0-9]+))", {"workload", "global_batch"}},
  };
  std::smatch m;
  for (const auto& [re, field] : sets)
    if (std::regex_search(fix, m, std::regex(re))) out.push_back({field.first, field.second, numbers(m[1])});
  return out;
}

// Applies every value `rule`'s fix suggests on `text` and checks the result; returns how many.
size_t try_suggestions(const std::string& rule, const std::string& text) {
  size_t tried = 0;
  bool fired = false;
  for (const auto& f : findings(check_text(text).out)) {
    if (f.rule != rule) continue;
    fired = true;
    for (const auto& s : suggestions(f.fix)) {
      for (const auto& v : s.values) {
        ++tried;
        for (const auto& g : findings(check_text(with_field(text, s.section, s.key, v)).out)) {
          EXPECT_NE(g.rule, rule) << rule << ": the fix '" << f.fix << "' suggests " << s.key << " " << v
                                  << ", which still violates it";
          EXPECT_NE(g.severity, "error") << rule << ": " << s.key << " " << v << " (from '" << f.fix << "') breaks "
                                         << g.rule;
        }
      }
    }
  }
  EXPECT_TRUE(fired) << rule << " does not fire on its case";
  return tried;
}

TEST(CheckFixes, EverySuggestedValueClearsTheRuleAndBreaksNoOther) {
  size_t tried = 0;
  for (const auto& e : std::filesystem::directory_iterator(RB_SOURCE_DIR "/tests/invalid")) {
    const std::string rule = e.path().stem().string();
    const std::string text = read_all(e.path().string());
    if (findings(check_text(text).out).empty()) continue;  // RB-YAML-SYNTAX and the like
    tried += try_suggestions(rule, text);
  }
  EXPECT_GE(tried, 40U);  // the fixtures of the degree, sequence and batch rules all suggest values
}

TEST(CheckFixes, SuggestedValuesRespectTheNeighbouringRules) {
  const std::string dir = RB_SOURCE_DIR "/tests/invalid/";
  // CP 2 with SP on TP 4: a length that is a multiple of 2 x CP = 4 but not of TP x CP = 8 (4092)
  // would trade RB-CP-SEQ for RB-SP-SEQ.
  std::string cp = read_all(dir + "RB-CP-SEQ.yaml");
  cp = with_field(with_field(cp, "layout", "tp", "4"), "layout", "sequence_parallel", "true");
  EXPECT_GE(try_suggestions("RB-CP-SEQ", cp), 2U);
  // Interleaved PP 2 on DP 4: a batch that is a multiple of MBS x DP = 4 but gives an odd number of
  // micro batches (100) would trade RB-GBS-DIVISIBLE for RB-VP-MICROBATCHES.
  std::string gbs = read_all(dir + "RB-GBS-DIVISIBLE.yaml");
  gbs = with_field(with_field(with_field(gbs, "layout", "pp", "2"), "layout", "vpp", "2"), "workload", "global_batch", "102");
  EXPECT_GE(try_suggestions("RB-GBS-DIVISIBLE", gbs), 2U);
  // The same with MBS 3 and a batch of 104: of the micro batch sizes that divide it (1, 2, 13), MBS 2
  // gives 13 micro batches, not a multiple of PP 2, and is not offered.
  std::string mbs = read_all(dir + "RB-GBS-DIVISIBLE.yaml");
  mbs = with_field(with_field(with_field(with_field(mbs, "layout", "pp", "2"), "layout", "vpp", "2"), "workload",
                              "global_batch", "104"),
                   "layout", "rows_per_microbatch", "3");
  EXPECT_GE(try_suggestions("RB-GBS-DIVISIBLE", mbs), 4U);  // two batches, MBS 1 and 13
}

TEST(CheckFixes, RecomputedCountsArePlainIntegersThatClearTheFinding) {
  const std::string seed =
      read_all(RB_SOURCE_DIR "/catalog/recipes/qwen3.5-397b-a17b/b200/attune-48gpu-tp2-pp6-ep8.yaml");
  const std::string bad = std::regex_replace(seed, std::regex("window_tokens: [0-9]+"), "window_tokens: 15000000");
  const auto r = check_text(bad);
  EXPECT_EQ(r.out.find("e+"), std::string::npos) << r.out;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"(set result\.window_tokens to ([0-9]+),)"))) << r.out;
  EXPECT_EQ(m[1].str(), "15728640");
  const auto fixed = check_text(std::regex_replace(bad, std::regex("window_tokens: 15000000"), "window_tokens: " + m[1].str()));
  EXPECT_EQ(fixed.rc, kExitOk) << fixed.out;
}

}  // namespace
}  // namespace rb::cli
