// `recommend` through run_recommend on the built-in catalog: one case per row of seed 004's "Quick
// Reference" table (what a user in that situation types), each checked for structure: a catalog
// recipe of the asked model and mode, a layout whose product is the GPU count and that fits, a
// positive throughput and cost, the pitfalls as findings, and a run_recipe.py command for it.
// To add a situation, add a row to kQuickReference.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cctype>
#include <sstream>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/cmd_launch.hpp"
#include "recipebook/cmd_recommend.hpp"
#include "cli_support.hpp"
#include "test_support.hpp"

namespace rb::cli {
namespace {

using Json = nlohmann::json;

using Out = test::CliOut;

const Catalog& catalog() { return test::builtin_catalog(); }

Out recommend(const RecommendOptions& o, bool json) {
  return test::run_cli([&](const Context& ctx) { return run_recommend(o, ctx, catalog()); }, json);
}

struct Row {
  const char* situation;  // seed 004 "I want to..."
  const char* model;
  const char* mode;
  const char* gpu;
  int gpus;
  int64_t seq;
  const char* catalog_model;  // the catalog model the recipe must be of
};

std::ostream& operator<<(std::ostream& os, const Row& r) {
  return os << r.situation << " (" << r.model << ", " << r.mode << ", " << r.gpus << " x " << r.gpu << ")";
}

// Seed 004 "Quick Reference: Which Recipe for My Situation?", GPU counts from its "GPUs needed"
// column. The VLM row uses Gemma 3 (gemma3_vl_*), whose architecture the catalog has.
const Row kQuickReference[] = {
    {"Try Bridge for the first time", "llama3_8b", "sft", "h100", 2, 0, "Llama-3-8B"},
    {"Fine-tune a 7-8B model", "Llama-3-8B", "sft", "h100", 8, 0, "Llama-3-8B"},
    {"Fine-tune a 7-8B model", "Qwen/Qwen3-8B", "sft", "h100", 4, 0, "Qwen3-8B"},
    {"LoRA on 1 GPU", "llama3-8b", "peft", "h100", 1, 0, "Llama-3-8B"},
    {"LoRA on 1 GPU", "qwen3-8b", "peft", "h100", 1, 0, "Qwen3-8B"},
    {"Pretrain a dense 70B", "llama3-70b", "pretrain", "h100", 32, 0, "Llama-3-70B"},
    {"Pretrain a dense 70B", "llama3-70b", "pretrain", "h100", 64, 0, "Llama-3-70B"},
    {"Train a small MoE", "qwen3-30b-a3b", "pretrain", "h100", 8, 0, "Qwen3-30B-A3B"},
    {"Train a large MoE (235B+)", "qwen3-235b-a22b", "pretrain", "h100", 256, 0, "Qwen3-235B-A22B"},
    {"Train a large MoE (235B+)", "qwen3-235b-a22b", "pretrain", "h100", 512, 0, "Qwen3-235B-A22B"},
    {"Long-context training", "llama3-8b", "pretrain", "h100", 16, 131072, "Llama-3-8B"},
    {"Long-context training", "llama3-8b", "pretrain", "h100", 32, 65536, "Llama-3-8B"},
    {"VLM fine-tuning", "gemma-3-12b", "sft", "h100", 4, 0, "Gemma-3-12B"},
    {"VLM fine-tuning", "gemma-3-27b", "sft", "h100", 8, 0, "Gemma-3-27B"},
};

class QuickReference : public ::testing::TestWithParam<Row> {};

TEST_P(QuickReference, RecommendsARecipeThatFits) {
  const Row& row = GetParam();
  RecommendOptions o;
  o.model = row.model;
  o.mode = row.mode;
  o.gpu = row.gpu;
  o.gpus = row.gpus;
  o.seq = row.seq;
  const Out r = recommend(o, true);
  ASSERT_EQ(r.rc, 0) << r.err << r.out;
  const Json j = Json::parse(r.out);

  // A recipe that exists, of the asked model and mode (matched by model + mode, never by name).
  const std::string name = j["recipe"]["name"];
  auto entry = catalog().find_recipe(name);
  ASSERT_TRUE(entry.has_value()) << name;
  EXPECT_EQ(j["recipe"]["model"], row.catalog_model);
  EXPECT_EQ(j["recipe"]["mode"], row.mode);
  EXPECT_EQ(j["recipe"]["match"]["model"], "same");

  // A layout for these GPUs that fits.
  const Json& l = j["layout"];
  EXPECT_EQ(l["tp"].get<int>() * l["pp"].get<int>() * l["cp"].get<int>() * l["dp"].get<int>(), row.gpus) << l.dump();
  EXPECT_EQ(l["gpus"], row.gpus);
  EXPECT_EQ(l["gbs"].get<int64_t>() % (l["mbs"].get<int64_t>() * l["dp"].get<int64_t>()), 0);
  if (row.seq > 0) {
    EXPECT_EQ(l["seq"], row.seq);
  }
  EXPECT_TRUE(j["sized"].get<bool>());
  const Json& p = j["prediction"];
  EXPECT_TRUE(p["fits"].get<bool>()) << p.dump();
  EXPECT_GT(p["tokens_per_s_per_gpu"].get<double>(), 0);
  EXPECT_GT(p["step_time_s"].get<double>(), 0);
  EXPECT_LE(p["peak_bytes"].get<double>(), p["capacity_bytes"].get<double>());
  EXPECT_GT(p["usd_per_million_tokens"].get<double>(), 0);
  EXPECT_GT(p["usd_per_gpu_hour"].get<double>(), 0);
  EXPECT_GT(p["mfu"].get<double>(), 0);
  EXPECT_LT(p["mfu"].get<double>(), 1);

  // Every change says why; every pitfall is a finding with a rule id; no rule rejects the layout.
  for (const auto& c : j["changes"]) EXPECT_FALSE(c["reason"].get<std::string>().empty()) << c.dump();
  for (const auto& f : j["pitfalls"]) {
    EXPECT_EQ(f["rule"].get<std::string>().rfind("RB-", 0), 0u) << f.dump();
    EXPECT_TRUE(f["severity"] == "warning" || f["known_issue"].get<bool>()) << f.dump();
  }

  // The planner comparison ran.
  EXPECT_TRUE(j["plan"]["compared"].get<bool>()) << j["plan"].dump();
  EXPECT_GT(j["plan"]["ratio"].get<double>(), 0);

  // The command: seed 004's torchrun + run_recipe.py --recipe <the recipe's entry point>.
  const std::string entry_point = j["recipe"]["entry_point"];
  const std::string text = j["command"]["text"];
  EXPECT_NE(text.find("run_recipe.py --recipe " + entry_point), std::string::npos) << text;
  EXPECT_NE(text.find("torch.distributed.run --nproc_per_node=" + std::to_string(std::min(row.gpus, 8))), std::string::npos)
      << text;
  for (const auto& word : j["command"]["overrides"]) EXPECT_NE(text.find(word.get<std::string>()), std::string::npos);
}

std::string row_name(const ::testing::TestParamInfo<Row>& info) {
  std::string out = std::string(info.param.model) + "_" + info.param.mode + "_" + std::to_string(info.param.gpus) + "x" + info.param.gpu;
  if (info.param.seq > 0) out += "_seq" + std::to_string(info.param.seq);
  for (char& c : out)
    if (std::isalnum(static_cast<unsigned char>(c)) == 0) c = '_';
  return out;
}

INSTANTIATE_TEST_SUITE_P(Seed004, QuickReference, ::testing::ValuesIn(kQuickReference), row_name);

TEST(Recommend, TextHasTheSectionsInOrder) {
  RecommendOptions o;
  o.model = "llama3-70b";
  o.mode = "pretrain";
  o.gpu = "h100";
  o.gpus = 32;  // 16 H100 cannot hold 70B pretraining: a layout that does not fit gets no command
  const Out r = recommend(o, false);
  size_t at = 0;
  for (const char* s : {"Recipe\n", "\nChanges\n", "\nLayout\n", "\nPrediction\n", "\nPitfalls\n", "\nCommand\n"}) {
    const size_t found = r.out.find(s, at);
    ASSERT_NE(found, std::string::npos) << s << " in\n" << r.out;
    at = found;
  }
  EXPECT_NE(r.out.find("scripts/training/run_recipe.py --recipe "), std::string::npos);
}

TEST(Recommend, ChangesAreWrittenAsOverrides) {
  // Gemma 3 27B SFT records TP 8 on 8-GPU nodes; on 4-GPU nodes TP stays inside the node (rule 2)
  // and the command carries the new TP.
  RecommendOptions o;
  o.model = "gemma-3-27b";
  o.mode = "sft";
  o.gpu = "h100";
  o.gpus = 16;
  o.gpus_per_node = 4;
  const Out r = recommend(o, true);
  ASSERT_EQ(r.rc, 0) << r.err << r.out;
  const Json j = Json::parse(r.out);
  ASSERT_EQ(j["recipe"]["layout"]["tp"], 8) << "the case needs a recipe with TP 8";
  EXPECT_LE(j["layout"]["tp"].get<int>(), 4);
  const std::string text = j["command"]["text"];
  int tp_changes = 0;
  for (const auto& c : j["changes"])
    if (c["field"] == "tp") {
      ++tp_changes;
      EXPECT_EQ(c["from"], "8");
      EXPECT_NE(c["rule"].get<std::string>().find("rule 2"), std::string::npos) << c.dump();
      EXPECT_NE(c["reason"].get<std::string>().find("4 GPUs per node"), std::string::npos) << c.dump();
      EXPECT_NE(text.find(" model.tensor_model_parallel_size=" + c["to"].get<std::string>() + " "), std::string::npos) << text;
    }
  EXPECT_EQ(tp_changes, 1);
  EXPECT_NE(text.find("--nproc_per_node=4 --nnodes=4"), std::string::npos) << text;
}

TEST(Recommend, UnsizedModelSaysSo) {
  // Qwen3.5-2B has no architecture (no complete public config.json: `unsized`): its recipe is found, but
  // it cannot be sized.
  RecommendOptions o;
  o.model = "qwen35_vl_2b";
  o.mode = "sft";
  o.gpu = "h100";
  o.gpus = 4;
  const Out r = recommend(o, true);
  ASSERT_EQ(r.rc, 0) << r.err;
  const Json j = Json::parse(r.out);
  EXPECT_FALSE(j["sized"].get<bool>());
  EXPECT_NE(j["unsized_reason"].get<std::string>().find("no architecture"), std::string::npos);
  EXPECT_TRUE(j["prediction"].is_null());
  EXPECT_EQ(j["recipe"]["model"], "Qwen3.5-2B");
  EXPECT_NE(j["command"]["text"].get<std::string>().find("--recipe " + j["recipe"]["entry_point"].get<std::string>()),
            std::string::npos);
  const Out text = recommend(o, false);
  EXPECT_NE(text.out.find("cannot be sized"), std::string::npos) << text.out;
}

TEST(Recommend, ConfigJsonOfAnUnknownModelUsesItsFamily) {
  // A Hugging Face config of a Qwen3 dense model the catalog does not name: same family, nearest size.
  const test::TempDir dir;
  const std::string path = dir.write("my-qwen3/config.json", R"({
    "model_type": "qwen3", "hidden_size": 3584, "intermediate_size": 14336, "num_hidden_layers": 32,
    "num_attention_heads": 28, "num_key_value_heads": 4, "head_dim": 128, "vocab_size": 151936,
    "max_position_embeddings": 32768, "rms_norm_eps": 1e-6, "tie_word_embeddings": false,
    "hidden_act": "silu", "attention_bias": false})");
  RecommendOptions o;
  o.model = path;
  o.mode = "sft";
  o.gpu = "h100";
  o.gpus = 8;
  const Out r = recommend(o, true);
  ASSERT_EQ(r.rc, 0) << r.err << r.out;
  const Json j = Json::parse(r.out);
  EXPECT_EQ(j["recipe"]["match"]["model"], "family");
  EXPECT_EQ(j["recipe"]["model"], "Qwen3-8B") << "about 7.6B parameters: nearest is Qwen3-8B";
  EXPECT_TRUE(j["prediction"]["fits"].get<bool>());
}

TEST(Recommend, BadInputIsAUsageError) {
  RecommendOptions o;
  o.model = "no-such-model";
  o.mode = "sft";
  o.gpu = "h100";
  o.gpus = 8;
  Out r = recommend(o, false);
  EXPECT_EQ(r.rc, kExitUsage);
  EXPECT_NE(r.err.find("--model"), std::string::npos) << r.err;
  o.model = "llama3-8b";
  o.mode = "finetune";
  r = recommend(o, false);
  EXPECT_EQ(r.rc, kExitUsage);
  EXPECT_NE(r.err.find("--mode"), std::string::npos) << r.err;
  o.mode = "sft";
  o.gpus = 0;
  EXPECT_EQ(recommend(o, false).rc, kExitUsage);
}

TEST(Recommend, DoesNotFitIsExitOne) {
  // A 235B MoE on 8 H100: nothing fits; the output says so and exits 1.
  RecommendOptions o;
  o.model = "qwen3-235b-a22b";
  o.mode = "pretrain";
  o.gpu = "h100";
  o.gpus = 8;
  o.compare = false;
  const Out r = recommend(o, true);
  EXPECT_EQ(r.rc, kExitFindings) << r.out;
  const Json j = Json::parse(r.out);
  EXPECT_FALSE(j["prediction"]["fits"].get<bool>());
}

}  // namespace
}  // namespace rb::cli

// --- one decision: recommend, launch of its JSON, and launch by flags start from one recipe ----------

namespace rb::cli {
namespace {

// The words of a bridge script's TRAIN_ARGS=( ... ) block.
std::vector<std::string> train_args(const std::string& script) {
  std::vector<std::string> out;
  const size_t a = script.find("TRAIN_ARGS=(\n");
  if (a == std::string::npos) return out;
  std::istringstream in(script.substr(a + 13, script.find("\n)", a) - a - 13));
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string w;
    while (words >> w) out.push_back(w);
  }
  return out;
}

Out launch(const LaunchOptions& o) {
  return test::run_cli([&](const Context& ctx) { return run_launch(o, ctx); }, false);
}

// Issue "answers a user can copy" 4: `launch` of recommend's JSON picked another base recipe, added
// an override and dropped --dataset. Now the entry-point words are the same, word for word.
TEST(RecommendLaunch, LaunchOfTheJsonIsTheCommandRecommendPrinted) {
  struct Ask {
    const char* model;
    const char* gpu;
    int gpus;
    const char* mode;
    int64_t seq;
  };
  for (const Ask& a : {Ask{"Qwen/Qwen3-30B-A3B", "h100", 16, "sft", 8192}, Ask{"Llama-3-8B", "gb200", 16, "pretrain", 8192},
                       Ask{"gemma-3-27b", "h100", 8, "sft", 0}, Ask{"llama3-70b", "h100", 64, "pretrain", 0}}) {
    RecommendOptions o;
    o.model = a.model;
    o.gpu = a.gpu;
    o.gpus = a.gpus;
    o.mode = a.mode;
    o.seq = a.seq;
    const Out r = recommend(o, true);
    ASSERT_EQ(r.rc, 0) << a.model << r.err << r.out;
    const Json j = Json::parse(r.out);
    std::vector<std::string> argv = j["command"]["argv"].get<std::vector<std::string>>();
    auto entry = std::find(argv.begin(), argv.end(), "scripts/training/run_recipe.py");
    ASSERT_NE(entry, argv.end()) << r.out;
    const std::vector<std::string> printed(entry, argv.end());
    test::TempDir dir;
    LaunchOptions l;
    l.source = dir.write("rec.json", r.out);
    l.targets = {"bridge"};
    const Out s = launch(l);
    ASSERT_EQ(s.rc, 0) << a.model << s.err << s.out;
    EXPECT_EQ(train_args(s.out), printed) << a.model << "\n" << s.out;
    // Launch by flags (no JSON) starts from the recipe recommend chose, too.
    LaunchOptions f;
    f.model = a.model;
    f.gpu = a.gpu;
    f.gpus = a.gpus;
    f.mode = a.mode;
    f.seq = a.seq;
    f.layout.tp = j["layout"]["tp"].get<int>();
    f.targets = {"bridge"};
    const Out g = launch(f);
    const std::string chosen = j["recipe"]["name"];
    EXPECT_NE(g.err.find("starting from recipe " + chosen), std::string::npos) << a.model << ": " << g.err;
  }
}

// A recommendation whose layout does not fit prints no command, and its JSON's `launch` is null:
// launching that JSON is refused with recommend's reason and writes nothing (it wrote a script for
// the root's layout, without the global batch).
TEST(RecommendLaunch, NothingToLaunchWhenRecommendPrintedNoCommand) {
  RecommendOptions o;
  o.model = "llama3-70b";
  o.gpu = "h100";
  o.gpus = 2;
  o.mode = "pretrain";
  const Out r = recommend(o, true);
  ASSERT_EQ(r.rc, 1) << r.out;
  const Json j = Json::parse(r.out);
  ASSERT_TRUE(j["launch"].is_null()) << r.out;
  test::TempDir dir;
  LaunchOptions l;
  l.source = dir.write("rec.json", r.out);
  l.targets = {"bridge"};
  l.out_dir = dir.file("out");
  const Out s = launch(l);
  EXPECT_EQ(s.rc, kExitUsage) << s.out << s.err;  // an input launch cannot use, as any bad plan file
  EXPECT_NE(s.err.find("nothing to launch"), std::string::npos) << s.err;
  EXPECT_NE(s.err.find("GiB"), std::string::npos) << s.err;  // recommend's reason: the memory it needs
  EXPECT_FALSE(std::filesystem::exists(dir.file("out")));
}

// Issue "answers a user can copy" 6: Qwen3-30B-A3B SFT on 16 H100 showed "measured 459 tokens/s/GPU on
// 8 x h100" beside a 16-GPU prediction; the measurement was 16 GPUs, seq 32768, TP8 CP2 EP8.
TEST(RecommendLaunch, TheRecipeForTheAskedCountAndMeasurementsWithTheirLayout) {
  RecommendOptions o;
  o.model = "Qwen/Qwen3-30B-A3B";
  o.gpu = "h100";
  o.gpus = 16;
  o.mode = "sft";
  o.seq = 8192;
  const Out r = recommend(o, true);
  ASSERT_EQ(r.rc, 0) << r.err;
  const Json j = Json::parse(r.out);
  EXPECT_NE(j["recipe"]["name"].get<std::string>().find("_16gpu_"), std::string::npos) << j["recipe"]["name"];
  // Every measurement of the catalog shown is with its own layout and the prediction of that layout.
  for (const auto* model : {"Qwen/Qwen3-30B-A3B", "llama3-70b", "DeepSeek-V3"}) {
    o.model = model;
    o.gpus = 64;
    o.seq = 0;
    o.mode = "pretrain";
    const Out m = recommend(o, true);
    const Json mj = Json::parse(m.out);
    ASSERT_TRUE(mj.contains("measured")) << model;
    if (mj["measured"].is_null()) continue;
    EXPECT_TRUE(mj["measured"]["layout"].is_object()) << model;
    EXPECT_GT(mj["measured"]["gpus"].get<int>(), 0) << model;
    EXPECT_GT(mj["measured"]["seq"].get<int>(), 0) << model;
  }
}

// Issue "answers a user can copy" 2: a measured figure is never shown for a model other than the one
// measured (Mixtral got gpt-oss's 5,993 tokens/s/GPU).
TEST(RecommendLaunch, NoMeasuredFigureOfAnotherModel) {
  RecommendOptions o;
  o.model = "Mixtral-8x7B";
  o.gpu = "h100";
  o.gpus = 16;
  o.mode = "pretrain";
  o.compare = false;
  const Out r = recommend(o, true);
  const Json j = Json::parse(r.out);
  ASSERT_TRUE(j.contains("measured"));
  const std::string recipe_model = j["recipe"]["model"];
  ASSERT_EQ(recipe_model.find("ixtral"), std::string::npos) << "the case needs a model whose closest recipe is another model's";
  EXPECT_TRUE(j["measured"].is_null()) << j["measured"].dump();
  const Out t = recommend(o, false);
  EXPECT_EQ(t.out.find("tokens/s/GPU on "), std::string::npos) << t.out;
}

}  // namespace
}  // namespace rb::cli
