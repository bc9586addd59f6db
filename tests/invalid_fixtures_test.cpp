// One failing fixture per rule id: tests/invalid/<RULE-ID>.yaml starts with
//   # expect: <RULE-ID> line <N>
// and `recipebook check` on it must report that rule at that line (other rules may fire too only if
// the fixture says so with more `# expect:` lines). A newcomer adds a rule's fixture by adding a file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "recipebook/cmd_check.hpp"

namespace rb::cli {
namespace {

struct Expect {
  std::string rule;
  int line;
};

std::vector<std::string> fixtures() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(RB_SOURCE_DIR "/tests/invalid"))
    if (e.path().extension() == ".yaml") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<Expect> expectations(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::vector<Expect> out;
  const std::regex re("^# expect: (RB-[A-Z0-9-]+) line ([0-9]+)");
  std::smatch m;
  while (std::getline(in, line) && line.rfind('#', 0) == 0)
    if (std::regex_search(line, m, re)) out.push_back({m[1], std::stoi(m[2])});
  return out;
}

class InvalidFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(InvalidFixture, ReportsItsRuleAtItsLine) {
  const std::string path = GetParam();
  const auto want = expectations(path);
  ASSERT_FALSE(want.empty()) << path << " has no '# expect: RB-ID line N' header";
  std::ostringstream out;
  std::ostringstream err;
  Context ctx{out, err, {}, false, false};
  CheckOptions o;
  o.files = {path};
  o.strict = true;  // a warning-level rule's fixture must still make check fail
  EXPECT_EQ(run_check(o, ctx), kExitFindings) << out.str() << err.str();
  std::vector<std::string> ids;
  std::istringstream lines(out.str());
  std::string l;
  while (std::getline(lines, l)) {
    const auto open = l.find(" [");
    const auto close = l.find("] ", open);
    if (open != std::string::npos && close != std::string::npos) ids.push_back(l.substr(open + 2, close - open - 2));
  }
  for (const auto& w : want) {
    const std::string at = path + ":" + std::to_string(w.line) + ":";
    const bool found = out.str().find(at) != std::string::npos &&
                       std::any_of(ids.begin(), ids.end(), [&](const std::string& id) { return id == w.rule; });
    EXPECT_TRUE(found) << "expected [" << w.rule << "] at " << at << "\ngot:\n" << out.str() << err.str();
  }
  // Only the expected rules fire: a fixture violates exactly its rule(s).
  for (const auto& id : ids)
    EXPECT_TRUE(std::any_of(want.begin(), want.end(), [&](const Expect& w) { return w.rule == id; }))
        << path << ": unexpected [" << id << "]\n" << out.str();
}

INSTANTIATE_TEST_SUITE_P(Rules, InvalidFixture, ::testing::ValuesIn(fixtures()),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           std::string n = std::filesystem::path(p.param).stem().string();
                           for (auto& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

}  // namespace
}  // namespace rb::cli
