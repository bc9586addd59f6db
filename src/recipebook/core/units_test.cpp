#include "recipebook/core/units.hpp"

#include <gtest/gtest.h>

#include "recipebook/core/precision.hpp"
#include "recipebook/core/strings.hpp"

namespace rb {
namespace {

TEST(Units, ParsesBytesBandwidthAndCompute) {
  EXPECT_DOUBLE_EQ(*parse_quantity("80 GiB", UnitKind::kBytes), 80.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(*parse_quantity("180 GB", UnitKind::kBytes), 180e9);
  EXPECT_DOUBLE_EQ(*parse_quantity("3.35 TB/s", UnitKind::kBytesPerSecond), 3.35e12);
  EXPECT_DOUBLE_EQ(*parse_quantity("400 Gbit/s", UnitKind::kBytesPerSecond), 50e9);
  EXPECT_DOUBLE_EQ(*parse_quantity("989.4 TFLOP/s", UnitKind::kFlopsPerSecond), 989.4e12);
}

TEST(Units, RejectsWrongKindMissingUnitAndJunk) {
  std::string why;
  EXPECT_FALSE(parse_quantity("80 GB/s", UnitKind::kBytes, &why));
  EXPECT_NE(why.find("measures something else"), std::string::npos);
  EXPECT_FALSE(parse_quantity("80", UnitKind::kBytes, &why));
  EXPECT_NE(why.find("missing unit"), std::string::npos);
  EXPECT_FALSE(parse_quantity("lots", UnitKind::kBytes, &why));
  EXPECT_FALSE(parse_quantity("-3 GB", UnitKind::kBytes, &why));
  EXPECT_FALSE(parse_quantity("80 parsecs", UnitKind::kBytes, &why));
  EXPECT_NE(why.find("unknown unit"), std::string::npos);
}

TEST(Units, TokenCountsTakeTheirSuffix) {
  EXPECT_EQ(parse_token_count("15T"), 15e12);
  EXPECT_EQ(parse_token_count("500b"), 500e9);
  EXPECT_EQ(parse_token_count("2M"), 2e6);
  EXPECT_EQ(parse_token_count("1.2e12"), 1.2e12);
  EXPECT_EQ(parse_token_count(""), 0.0);
  for (const char* bad : {"lots", "0", "-1T", "1X", "T", "inf"}) EXPECT_FALSE(parse_token_count(bad)) << bad;
}

TEST(Units, FormatsHumanReadable) {
  EXPECT_EQ(format_bytes(80.0 * 1024 * 1024 * 1024), "80.0 GiB");
  EXPECT_EQ(format_flops(989.4e12), "989 TFLOP/s");
}

TEST(Strings, NearestFindsTyposOnly) {
  const std::vector<std::string> names{"llama3-8b", "llama3-70b", "qwen3-30b-a3b"};
  EXPECT_EQ(nearest("llama3_8", names), "llama3-8b");
  EXPECT_EQ(nearest("qwen3-30b-a3", names), "qwen3-30b-a3b");
  EXPECT_EQ(nearest("mistral-large", names), "");
}

TEST(Precision, ParsesEveryPublishedSpelling) {
  EXPECT_EQ(parse_precision("BF16"), Precision::kBf16);
  EXPECT_EQ(parse_precision("FP8-CS"), Precision::kFp8Cs);
  EXPECT_EQ(parse_precision("fp8mx"), Precision::kMxfp8);
  EXPECT_EQ(parse_precision("MXFP8"), Precision::kMxfp8);
  EXPECT_EQ(parse_precision("fp8_sc"), Precision::kFp8Blockwise);
  EXPECT_EQ(parse_precision("NVFP4"), Precision::kNvfp4);
  EXPECT_FALSE(parse_precision("int4"));
}

}  // namespace
}  // namespace rb

namespace rb {
namespace {

TEST(Strings, SuggestionsPreferTokenSupersets) {
  const std::vector<std::string> names{"qwen3_30b_a3b_sft_16gpu_h100_bf16_config",
                                       "qwen3_30b_a3b_sft_8gpu_h100_bf16_config",
                                       "qwen3_30b_a3b_pretrain_8gpu_h100_bf16_config", "llama3_8b_sft_config"};
  const auto s = suggestions("qwen3_30b_a3b_sft_config", names);
  ASSERT_GE(s.size(), 2u);
  EXPECT_EQ(s[0], "qwen3_30b_a3b_sft_8gpu_h100_bf16_config");
  EXPECT_EQ(s[1], "qwen3_30b_a3b_sft_16gpu_h100_bf16_config");
  EXPECT_TRUE(suggestions("gemini_ultra", names).empty());
}

}  // namespace
}  // namespace rb
