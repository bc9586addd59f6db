// The recipe draft, and the text-level edit of a record's `result` block.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "recipebook/catalog/yaml_tree.hpp"
#include "recipebook/emit/launch.hpp"
#include "recipebook/emit/launch_test_util.hpp"

namespace rb {
namespace {

Calibration sample_calibration() {
  Calibration c;
  c.run.runs = 1;
  c.run.window_start = 5;
  c.run.window_end = 19;
  c.run.steps_per_run = 20;
  c.run.window_tokens = 15.0 * 128 * 8192;
  c.run.step_time_cv = 0.0739;
  c.run.measured_date = "2026-10-18";
  c.run.first_loss = 1.25;
  c.run.last_loss = 0.75;
  c.tokens_per_s_per_gpu = 1075.5;
  c.mfu = 0.046842;
  c.active_params = 16331407360.0;
  c.mfu_note = "6 x active params x tokens/s/GPU / dense peak";
  c.usd_per_million_tokens = 3.6778;
  c.gpu_hours = 19.7312;
  c.gpu_hours_note = "note";
  return c;
}

TEST(LaunchRecipe, DraftIsACatalogRecordWithoutAResult) {
  const LaunchSpec s = test::sample_spec();
  auto text = render_recipe_draft(s);
  ASSERT_TRUE(text) << text.error().str();
  auto tree = parse_yaml(*text, "draft.yaml");  // the catalog's own parser: duplicates are errors
  ASSERT_TRUE(tree) << tree.error().str() << "\n" << *text;
  const YAML::Node doc = YAML::Load(*text);
  EXPECT_EQ(doc["name"].as<std::string>(), s.name);
  EXPECT_EQ(doc["kind"].as<std::string>(), "measured");
  EXPECT_EQ(doc["mode"].as<std::string>(), "pretrain");
  EXPECT_EQ(doc["framework"].as<std::string>(), "megatron-bridge");
  EXPECT_EQ(doc["entry_point"].as<std::string>(), "llama3_8b_pretrain_config");
  EXPECT_EQ(doc["gpu"]["count"].as<int>(), 16);
  EXPECT_EQ(doc["gpu"]["per_node"].as<int>(), 8);
  EXPECT_EQ(doc["workload"]["row_tokens"].as<int>(), 8192);
  EXPECT_EQ(doc["workload"]["global_batch"].as<int>(), 128);
  EXPECT_EQ(doc["layout"]["tp"].as<int>(), 2);
  EXPECT_EQ(doc["layout"]["vpp"].as<int>(), 2);
  EXPECT_EQ(doc["layout"]["dp"].as<int>(), 4);
  EXPECT_TRUE(doc["layout"]["sequence_parallel"].as<bool>());
  EXPECT_EQ(doc["layout"]["recompute"]["granularity"].as<std::string>(), "selective");
  EXPECT_EQ(doc["features"]["recompute_modules"][1].as<std::string>(), "mlp");
  EXPECT_EQ(doc["env"]["NCCL_NVLS_ENABLE"].as<std::string>(), s.env[2].second);
  EXPECT_NE(doc["run"].as<std::string>().find("--recipe llama3_8b_pretrain_config"), std::string::npos);
  EXPECT_FALSE(doc["result"]);
}

TEST(LaunchRecipe, ResultBlockIsAppendedWhenAbsent) {
  auto draft = render_recipe_draft(test::sample_spec());
  ASSERT_TRUE(draft);
  const std::string edited = with_result_block(*draft, render_result_block(sample_calibration()));
  EXPECT_EQ(edited.substr(0, draft->size()), *draft);  // nothing before it changed
  const YAML::Node doc = YAML::Load(edited);
  EXPECT_DOUBLE_EQ(doc["result"]["tokens_per_s_per_gpu"].as<double>(), 1075.5);
  EXPECT_DOUBLE_EQ(doc["result"]["mfu"].as<double>(), 0.0468);
  EXPECT_DOUBLE_EQ(doc["result"]["usd_per_million_tokens"].as<double>(), 3.68);
  EXPECT_DOUBLE_EQ(doc["result"]["step_time_cv_percent"].as<double>(), 7.39);
  EXPECT_EQ(doc["result"]["window"][0].as<int>(), 5);
  EXPECT_EQ(doc["result"]["window"][1].as<int>(), 19);
  EXPECT_EQ(doc["result"]["window_tokens"].as<int64_t>(), 15728640);  // seed 002's figure
  EXPECT_EQ(doc["result"]["measured"].as<std::string>(), "2026-10-18");
  EXPECT_DOUBLE_EQ(doc["result"]["gpu_hours"].as<double>(), 19.73);
  EXPECT_EQ(doc["result"]["active_params"]["count"].as<int64_t>(), 16331407360);
  EXPECT_EQ(doc["name"].as<std::string>(), test::sample_spec().name);
}

TEST(LaunchRecipe, ResultBlockIsReplacedKeepingEverythingElse) {
  const std::string before =
      "# a record\n"
      "name: x   # the name\n"
      "result:\n"
      "  tokens_per_s_per_gpu: 1.0   # old\n"
      "  window:\n"
      "  - 1\n"
      "  - 2\n"
      "\n"
      "  mfu: 0.1\n"
      "\n"
      "# correctness comes next\n"
      "correctness:\n"
      "  result: pass\n";
  const std::string block = render_result_block(sample_calibration());
  const std::string after = with_result_block(before, block);
  EXPECT_EQ(after, "# a record\nname: x   # the name\n" + block + "\n# correctness comes next\ncorrectness:\n  result: pass\n");
  // Inline values and a file without a final newline.
  EXPECT_EQ(with_result_block("name: y\nresult: null\nnotes: z", "result:\n  a: 1\n"), "name: y\nresult:\n  a: 1\nnotes: z");
  EXPECT_EQ(with_result_block("name: y", "result:\n  a: 1\n"), "name: y\nresult:\n  a: 1\n");
  // A nested `result:` (under correctness) is not the record's result.
  EXPECT_EQ(with_result_block("correctness:\n  result: pass\n", "result:\n  a: 1\n"),
            "correctness:\n  result: pass\nresult:\n  a: 1\n");
  // Editing twice gives the same file as editing once.
  EXPECT_EQ(with_result_block(after, block), after);
}

TEST(LaunchRecipe, MissingFiguresAreNull) {
  Calibration c = sample_calibration();
  c.mfu.reset();
  c.usd_per_million_tokens.reset();
  c.run.step_time_cv.reset();
  c.run.measured_date.clear();
  const YAML::Node doc = YAML::Load(render_result_block(c));
  EXPECT_TRUE(doc["result"]["mfu"].IsNull());
  EXPECT_TRUE(doc["result"]["usd_per_million_tokens"].IsNull());
  EXPECT_FALSE(doc["result"]["step_time_cv_percent"]);  // the schema wants a number or nothing
  EXPECT_FALSE(doc["result"]["measured"]);
}

}  // namespace
}  // namespace rb
