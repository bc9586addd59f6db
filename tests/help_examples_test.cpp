// Every example a subcommand's --help shows runs, through the built binary, and exits 0: the
// examples are what a new user types first. Examples that need a file the user would bring (a
// config.json, a training log, a JSON Lines or plan file), write files, or are shown as a pattern
// ("...", a shell pipe or glob) are listed but not run.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "recipebook/emit/launch_test_util.hpp"

namespace rb {
namespace {

const std::vector<std::string> kCommands{"list", "show", "check", "estimate", "plan", "recommend", "launch", "calibrate"};

// The example command lines of `recipebook <cmd> --help`: the lines after "Examples:" that start
// with "recipebook", with "\" continuations joined.
std::vector<std::string> examples(const std::string& help) {
  std::vector<std::string> out;
  std::istringstream in(help);
  bool on = false;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("Examples:", 0) == 0) {
      on = true;
      continue;
    }
    if (!on) continue;
    const size_t at = line.find_first_not_of(' ');
    if (at == std::string::npos) continue;
    std::string text = line.substr(at);
    if (!out.empty() && out.back().back() == '\\') {
      out.back().pop_back();
      out.back() += text;
    } else if (text.rfind("recipebook ", 0) == 0) {
      out.push_back(text);
    }
  }
  return out;
}

bool runnable(const std::string& cmd) {
  for (const char* skip : {"config.json", ".log", ".jsonl", "plan.json", ".yaml", "...", "|", "*", " -o ", "--write"})
    if (cmd.find(skip) != std::string::npos) return false;
  return true;
}

class HelpExamples : public ::testing::TestWithParam<std::string> {};

TEST_P(HelpExamples, EveryRunnableExampleExitsZero) {
  const std::string& c = GetParam();
  const test::Run help = test::run_shell(std::string(RB_BINARY) + " " + c + " --help");
  ASSERT_EQ(help.rc, 0) << c;
  const std::vector<std::string> ex = examples(help.out);
  EXPECT_FALSE(ex.empty()) << c << " --help shows no example";
  for (const std::string& e : ex) {
    if (!runnable(e)) continue;
    const test::Run r = test::run_shell(std::string(RB_BINARY) + e.substr(std::string("recipebook").size()));
    EXPECT_EQ(r.rc, 0) << e << "\n" << r.out.substr(0, 2000);
  }
}

INSTANTIATE_TEST_SUITE_P(Subcommands, HelpExamples, ::testing::ValuesIn(kCommands),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
}  // namespace rb
