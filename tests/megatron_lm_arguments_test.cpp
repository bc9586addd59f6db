// Every flag the Megatron-LM writer can emit is one Megatron-LM's parser accepts. The writer's own
// table (emit/entry_points.cpp pretrain_gpt_entry) is hand-kept; this holds it to the list read from
// megatron/training/arguments.py itself (tests/data/megatron_lm_arguments.txt, with its source commit,
// written by scripts/megatron_lm_arguments.py), so a flag misspelt or renamed in the table fails here.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>

#include "recipebook/core/layout_fields.hpp"
#include "recipebook/emit/entry_points.hpp"
#include "recipebook/emit/launch.hpp"

namespace rb {
namespace {

struct ArgumentList {
  std::set<std::string> flags;
  std::string commit;
};

const ArgumentList& megatron_lm_arguments() {
  static const ArgumentList list = [] {
    ArgumentList out;
    std::ifstream in(std::string(RB_SOURCE_DIR) + "/tests/data/megatron_lm_arguments.txt");
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("--", 0) == 0) out.flags.insert(line);
      const size_t at = line.find("at commit ");
      if (line.rfind('#', 0) == 0 && at != std::string::npos) out.commit = line.substr(at + 10, 40);
    }
    return out;
  }();
  return list;
}

TEST(MegatronLmArguments, TheListIsReadAtTheTablesCommit) {
  const ArgumentList& list = megatron_lm_arguments();
  ASSERT_GT(list.flags.size(), 500u) << "tests/data/megatron_lm_arguments.txt is missing or short";
  ASSERT_EQ(list.commit.size(), 40u);
  // The writer's table names the commit it was read from; both lists must be of the same one.
  EXPECT_NE(std::string(pretrain_gpt_entry().source).find(list.commit.substr(0, 12)), std::string::npos)
      << pretrain_gpt_entry().source << " vs " << list.commit;
}

TEST(MegatronLmArguments, EveryFlagTheWriterCanEmitIsAnArgument) {
  const auto& known = megatron_lm_arguments().flags;
  for (std::string_view f : megatron_flags()) {
    EXPECT_TRUE(known.contains(std::string(f))) << f;
  }
  // The layout field table's Megatron-LM spellings, which the writer writes through add_field.
  for (const LayoutField& r : layout_fields()) {
    if (r.megatron.empty()) continue;
    EXPECT_TRUE(known.contains(std::string(r.megatron))) << r.key << ": " << r.megatron;
  }
}

}  // namespace
}  // namespace rb
