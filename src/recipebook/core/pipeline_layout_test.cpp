#include "recipebook/core/pipeline_layout.hpp"

#include <gtest/gtest.h>

namespace rb {
namespace {

std::string err(std::string_view text) {
  auto r = parse_pipeline_layout(text);
  return r ? std::string("ok") : r.error().message;
}
int err_col(std::string_view text) {
  auto r = parse_pipeline_layout(text);
  return r ? 0 : r.error().where.col;
}

// Megatron-Core parse_str_to_list's own example: "Ettt|(tt|)*29,m|L".
TEST(PipelineLayout, ParsesMegatronExample) {
  auto r = parse_pipeline_layout("Ettt|(tt|)*29,m|L");
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->size(), 32u);
  EXPECT_EQ((*r)[0], (PipelineStage{3, 0, true, false}));
  for (size_t i = 1; i < 30; ++i) EXPECT_EQ((*r)[i], (PipelineStage{2, 0, false, false})) << i;
  EXPECT_EQ((*r)[30], (PipelineStage{0, 1, false, false}));  // "(tt|)*29" then "m": the m joins stage 30
  EXPECT_EQ((*r)[31], (PipelineStage{0, 0, false, true}));
  EXPECT_EQ(pipeline_layout_decoders(*r), 61);
}

TEST(PipelineLayout, LetterRepeatsAndCommas) {
  auto r = parse_pipeline_layout("Et*3,|t*4,|*2tL");  // `|*2`: two breaks, an empty stage between
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->size(), 4u);
  EXPECT_EQ((*r)[0].decoder, 3);
  EXPECT_EQ((*r)[1].decoder, 4);
  EXPECT_EQ((*r)[2], PipelineStage{});
  EXPECT_TRUE((*r)[3].loss);
  EXPECT_EQ((*r)[3].decoder, 1);
}

TEST(PipelineLayout, ErrorsNameTheColumn) {
  EXPECT_EQ(err_col("Ett|tx|L"), 6);
  EXPECT_NE(err("Ett|tx|L").find("unknown layer letter 'x' at column 6"), std::string::npos);
  EXPECT_EQ(err_col("Et|(tt|)|L"), 4);  // a group without *n
  EXPECT_EQ(err_col("Et|((t|)*2)*2|L"), 5);  // nested
  EXPECT_EQ(err_col("Et|t*|L"), 5);      // * without a count
  EXPECT_EQ(err_col("tE|L"), 1);         // E not first
  EXPECT_EQ(err_col("Et|L|t"), 6);       // after the loss
  EXPECT_EQ(err_col("EtL|L"), 5);        // a second loss
  EXPECT_EQ(err_col("Et|mt|L"), 5);      // t after m
  EXPECT_EQ(err_col("Et|(t|"), 4);       // not closed
  EXPECT_NE(err("Et|t").find("no loss"), std::string::npos);
  EXPECT_NE(err("").find("empty"), std::string::npos);
  EXPECT_NE(err("E(t|)*100000000L").find("more than"), std::string::npos);
}

TEST(PipelineLayout, ValidatesAgainstModelAndPipeline) {
  auto r = parse_pipeline_layout("Et*4|(t*4|)*14tmL");  // DeepSeek-V3 PP 16 (Bridge deepseek_v3.py)
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(validate_pipeline_layout(*r, 16, 1, 61, 1));
  EXPECT_TRUE(validate_pipeline_layout(*r, 8, 2, 61, 1));
  EXPECT_TRUE(validate_pipeline_layout(*r, 4, 4, 61, 1));
  EXPECT_FALSE(validate_pipeline_layout(*r, 16, 2, 61, 1));  // 16 stages are not PP 16 x VP 2
  EXPECT_FALSE(validate_pipeline_layout(*r, 5, 0, 61, 1));   // not a multiple of PP
  auto v = validate_pipeline_layout(*r, 16, 1, 60, 1);
  ASSERT_FALSE(v);
  EXPECT_NE(v.error().message.find("61 transformer layers"), std::string::npos);
  EXPECT_FALSE(validate_pipeline_layout(*r, 16, 1, 61, 0));  // m without MTP in the model
  // MTP must sit in a rank's last chunk: stage 1 is rank 1's chunk 0 of 2.
  auto early = parse_pipeline_layout("Et|tm|L|");
  ASSERT_TRUE(early) << early.error().message;
  EXPECT_FALSE(validate_pipeline_layout(*early, 2, 2, 2, 1));
  auto standalone = parse_pipeline_layout("Et|t|m|L");  // stage 2 = rank 0's last chunk: allowed
  ASSERT_TRUE(standalone);
  EXPECT_TRUE(validate_pipeline_layout(*standalone, 2, 2, 2, 1));
  EXPECT_FALSE(validate_pipeline_layout(*standalone, 4, 1, 2, 0));
}

TEST(PipelineLayout, StringRoundTrips) {
  for (const char* text : {"Et*4|(t*4|)*14tmL", "Ettt|(tt|)*29,m|L", "EtL", "E|t|t|L", "E|(tt|)*3|L", "Et|m|L"}) {
    auto r = parse_pipeline_layout(text);
    ASSERT_TRUE(r) << text;
    const std::string s = pipeline_layout_str(*r);
    auto back = parse_pipeline_layout(s);
    ASSERT_TRUE(back) << s << ": " << back.error().message;
    EXPECT_EQ(*back, *r) << text << " -> " << s;
  }
  EXPECT_EQ(pipeline_layout_str(*parse_pipeline_layout("Et*4|(t*4|)*14tmL")), "Et*4(|t*4)*14|tmL");
}

// Kimi-K2 at PP 4 x VP 4 (61 layers): 63 layer loads over 16 stages, E and L one each.
TEST(PipelineLayout, BalancedLayoutCountsEmbeddingAndLoss) {
  const auto k2 = balanced_pipeline_layout(61, 16, 0);
  EXPECT_EQ(pipeline_layout_str(k2), "Et*3(|t*4)*14|t*2L");
  EXPECT_TRUE(validate_pipeline_layout(k2, 4, 4, 61, 0));
  const auto ds = balanced_pipeline_layout(61, 16, 1);  // the MTP layer joins the loss
  EXPECT_TRUE(validate_pipeline_layout(ds, 16, 1, 61, 1));
  EXPECT_EQ(ds.back(), (PipelineStage{2, 1, false, true}));
  EXPECT_TRUE(balanced_pipeline_layout(2, 8, 0).empty());  // too few layers for the ends' loads
}

}  // namespace
}  // namespace rb
