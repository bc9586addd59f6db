// record_layout_known: the one rule `check`, `estimate --recipe`, `launch` and the agreement bench
// apply to decide whether a record gives its layout.
#include "recipebook/catalog/record_check.hpp"
#include "recipebook/catalog/test_catalog.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>


namespace rb {
namespace {

YNode tree(const std::string& text) {
  auto t = parse_yaml(text, "r.yaml");
  EXPECT_TRUE(t) << t.error().str();
  return t ? std::move(*t) : YNode{};
}

TEST(RecordLayoutKnown, DegreesWrittenOrDoubtedAndEpOnlyForMoe) {
  const auto dense = builtin().find_model("Llama-3.1-8B");
  const auto moe = builtin().find_model("Qwen3-30B-A3B");
  ASSERT_TRUE(dense && dense->has_architecture && !dense->is_moe());
  ASSERT_TRUE(moe && moe->has_architecture && moe->is_moe());
  const YNode no_ep = tree("layout: {tp: 2, pp: 1, cp: 1}\n");
  EXPECT_TRUE(record_layout_known(no_ep, &*dense));   // a dense model has no EP to record
  EXPECT_FALSE(record_layout_known(no_ep, &*moe));    // a MoE model's EP is part of its layout
  EXPECT_FALSE(record_layout_known(no_ep, nullptr));  // unknown model: EP asked for
  const std::vector<std::string> doubted{"layout.ep"};
  EXPECT_TRUE(record_layout_known(no_ep, &*moe, doubted));
  EXPECT_FALSE(record_layout_known(tree("layout: {tp: 2, pp: null, cp: 1, ep: 4}\n"), &*moe));
  EXPECT_FALSE(record_layout_known(tree("name: x\n"), &*dense));
  EXPECT_TRUE(record_layout_known(tree("layout: {tp: 1, pp: 4, cp: 2, ep: 8}\n"), &*moe));
}

}  // namespace
}  // namespace rb
