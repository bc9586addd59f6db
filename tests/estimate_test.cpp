// `estimate` through run_estimate on the built-in catalog: the tables, the JSON an issue asks for,
// a layout the rules forbid (its rule, no number), usage errors naming the flag (exit 2), the uneven
// pipeline split flags, and `--batch` (one JSON line per input line, in order; a bad line gets an
// error object and the rest go on).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <regex>
#include <set>
#include <sstream>
#include <vector>

#include "recipebook/cmd_estimate.hpp"
#include "recipebook/context.hpp"
#include "recipebook/emit/launch_test_util.hpp"
#include "recipebook/layout_args.hpp"
#include "cli_support.hpp"

namespace rb::cli {
namespace {

using Json = nlohmann::json;
using Out = test::CliOut;

Out run(const EstimateOptions& o, bool json = false) {
  return test::run_cli([&](const Context& ctx) { return run_estimate(o, ctx); }, json);
}

EstimateOptions llama8b_on_8() {
  EstimateOptions o;
  o.args.model = "llama3-8b";
  o.args.gpu = "h100";
  o.args.gpus = 8;
  o.args.layout.tp = 2;
  o.args.seq = 8192;
  o.args.gbs = 64;
  return o;
}

// ETP a layout leaves unset is Megatron's default for the degrees as given. Flags only: Megatron-Core's
// TP. Over a Megatron-Bridge record that omits ETP (GLM-4.5 355B SFT: TP 2, EP 16): Bridge's, 1 with
// EP > 1 and TP once --ep 1 is given (before: the record's 1 stayed whatever the flags).
TEST(EstimateCli, UnsetEtpIsMegatronsDefaultForTheDegreesGiven) {
  auto etp_of = [](const EstimateOptions& o) {
    const Out r = run(o, true);
    const Json j = Json::parse(r.out, nullptr, false);
    return j.is_discarded() ? -1 : j["layout"].value("etp", -1);
  };
  EstimateOptions flags;
  flags.args.model = "qwen3-30b-a3b";
  flags.args.gpu = "h100";
  flags.args.gpus = 16;
  flags.args.layout.tp = 4;
  flags.args.layout.ep = 4;
  flags.args.gbs = 64;
  EXPECT_EQ(etp_of(flags), 4);
  EstimateOptions rec;
  rec.args.recipe = "glm45_355b_sft_128gpu_h100_bf16_config";
  EXPECT_EQ(etp_of(rec), 1);
  rec.args.layout.ep = 1;
  EXPECT_EQ(etp_of(rec), 2);
  rec.args.layout.etp = 1;
  EXPECT_EQ(etp_of(rec), 1);
}

TEST(EstimateCli, TablesNameEveryPart) {
  const Out r = run(llama8b_on_8());
  ASSERT_EQ(r.rc, kExitOk) << r.err;
  for (const char* part : {"layout: TP 2 PP 1", "tokens/s/GPU", "MFU", "USD / M tokens", "memory (worst rank",
                           "fits", "weights", "optimizer", "step time:", "gemm"})
    EXPECT_NE(r.out.find(part), std::string::npos) << part << "\n" << r.out;
}

TEST(EstimateCli, JsonHasTheFiguresAndBreakdowns) {
  EstimateOptions o = llama8b_on_8();
  o.args.tokens = 1e12;
  const Out r = run(o, true);
  ASSERT_EQ(r.rc, kExitOk) << r.err;
  const Json j = Json::parse(r.out);
  for (const char* key : {"tokens_per_s_per_gpu", "step_time_s", "model_tflops_per_gpu", "mfu", "flops_per_token",
                          "params_total", "params_active", "usd_per_million_tokens", "gpu_hours", "days"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_GT(j["tokens_per_s_per_gpu"].get<double>(), 0.0);
  EXPECT_TRUE(j["memory"]["fits"].get<bool>());
  EXPECT_LT(j["memory"]["peak_bytes"].get<double>(), j["memory"]["capacity_bytes"].get<double>());
  double parts = 0;
  for (const auto& [k, v] : j["time"]["parts"].items()) parts += v.get<double>();
  EXPECT_NEAR(parts, j["step_time_s"].get<double>(), 1e-9 * parts);
  EXPECT_TRUE(j["errors"].empty());
  EXPECT_TRUE(j["warnings"].is_array());
}

// The loss and dropout are layout flags that reach the memory model (docs/model.md "Memory"): the
// native or unfused cross entropy holds 6 B per logit instead of TE's 2, hidden dropout its masks;
// attention dropout keeps no mask under fused attention. Before, estimate had no such flags.
TEST(EstimateCli, CrossEntropyAndDropoutFlagsReachTheMemory) {
  auto parts = [](const EstimateOptions& o) {
    const Out r = run(o, true);
    EXPECT_EQ(r.rc, kExitOk) << r.err;
    return Json::parse(r.out)["memory"]["parts"];
  };
  const Json te = parts(llama8b_on_8());
  EstimateOptions native = llama8b_on_8();
  native.args.layout.cross_entropy_fusion_impl = "native";
  EXPECT_DOUBLE_EQ(parts(native)["logits_bytes"].get<double>(), 3.0 * te["logits_bytes"].get<double>());
  EstimateOptions unfused = llama8b_on_8();
  unfused.args.layout.cross_entropy_loss_fusion = false;
  EXPECT_DOUBLE_EQ(parts(unfused)["logits_bytes"].get<double>(), 3.0 * te["logits_bytes"].get<double>());
  EstimateOptions dropout = llama8b_on_8();
  dropout.args.layout.hidden_dropout = 0.1;
  EXPECT_GT(parts(dropout)["activations_bytes"].get<double>(), te["activations_bytes"].get<double>());
  EstimateOptions attention = llama8b_on_8();
  attention.args.layout.attention_dropout = 0.1;
  EXPECT_EQ(parts(attention)["activations_bytes"], te["activations_bytes"]);
  EstimateOptions bad = llama8b_on_8();
  bad.args.layout.cross_entropy_fusion_impl = "apex";
  EXPECT_EQ(run(bad).rc, kExitUsage);
  EstimateOptions range = llama8b_on_8();
  range.args.layout.hidden_dropout = 1.5;
  EXPECT_EQ(run(range).rc, kExitUsage);
}

TEST(EstimateCli, ForbiddenLayoutGetsItsRuleNotANumber) {
  EstimateOptions o = llama8b_on_8();
  o.args.gpus = 24;
  o.args.layout.tp = 3;  // 32 heads over TP 3
  o.args.gbs = 96;
  const Out r = run(o, true);
  EXPECT_EQ(r.rc, kExitFindings);
  const Json j = Json::parse(r.out);
  EXPECT_FALSE(j.contains("tokens_per_s_per_gpu"));
  ASSERT_FALSE(j["errors"].empty());
  EXPECT_EQ(j["errors"][0]["rule"], "RB-TP-HEADS");
}

TEST(EstimateCli, UsageErrorsNameTheFlag) {
  struct Case {
    const char* flag;
    void (*edit)(LayoutArgs&);
  };
  const std::vector<Case> cases{
      {"--gpus", [](LayoutArgs& a) { a.gpus = 0; }},
      {"--seq", [](LayoutArgs& a) { a.seq = 1'000'000'000'000; }},
      {"--model", [](LayoutArgs& a) { a.model = "no-such-model-xyz"; }},
      {"--gpu", [](LayoutArgs& a) { a.gpu = "abacus"; }},
      {"--precision", [](LayoutArgs& a) { a.layout.precision = "fp7"; }},
      {"--first-stage-layers", [](LayoutArgs& a) { a.layout.first_stage_layers = -1; }},
  };
  for (const Case& c : cases) {
    EstimateOptions o = llama8b_on_8();
    c.edit(o.args);
    const Out r = run(o);
    EXPECT_EQ(r.rc, kExitUsage) << c.flag;
    EXPECT_NE(r.err.find(c.flag), std::string::npos) << c.flag << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << c.flag;
  }
}

// A catalog model sized from its config.json (hf_config) estimates like any other; a diffusion model
// says what it is instead of "not in the catalog yet".
TEST(EstimateCli, ModelsFromConfigJsonAreSizedAndDiffusionModelsSaySo) {
  EstimateOptions o = llama8b_on_8();
  o.args.model = "llama31_8b";
  const Out sized = run(o, true);
  ASSERT_EQ(sized.rc, kExitOk) << sized.err;
  EXPECT_NE(sized.out.find("8030261248"), std::string::npos) << sized.out.substr(0, 2000);

  o.args.model = "flux_12b";
  const Out flux = run(o);
  EXPECT_EQ(flux.rc, kExitUsage);
  EXPECT_NE(flux.err.find("FLUX-12B is a diffusion model: the estimator models decoder-only language models"),
            std::string::npos)
      << flux.err;
}

TEST(EstimateCli, UnevenPipelineSplitIsSuggestedThenAccepted) {
  // 32 layers over PP 3: the rule names the most balanced first/last split as flags to pass.
  EstimateOptions o = llama8b_on_8();
  o.args.gpus = 6;
  o.args.layout.tp = 2;
  o.args.layout.pp = 3;
  o.args.gbs = 12;
  const Out bad = run(o);
  EXPECT_EQ(bad.rc, kExitFindings);
  EXPECT_NE(bad.out.find("[RB-PP-LAYERS]"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("--first-stage-layers 10 --last-stage-layers 11"), std::string::npos) << bad.out;
  o.args.layout.first_stage_layers = 10;
  o.args.layout.last_stage_layers = 11;
  const Out good = run(o);
  ASSERT_EQ(good.rc, kExitOk) << good.out << good.err;
  EXPECT_NE(good.out.find("PP 3 (first/last stage 10/11 layers)"), std::string::npos) << good.out;
  const Json j = Json::parse(run(o, true).out);
  EXPECT_EQ(j["layout"]["first_stage_layers"], 10);
  EXPECT_EQ(j["layout"]["last_stage_layers"], 11);
}

TEST(EstimateCli, EmbeddingAndLossAccountingSplits126LayersOverPp16) {
  EstimateOptions o;
  o.args.model = "llama3.1-405b";
  o.args.gpu = "b200";
  o.args.gpus = 128;
  o.args.layout.tp = 4;
  o.args.layout.pp = 16;
  o.args.layout.vp = 4;
  o.args.seq = 8192;
  o.args.gbs = 64;
  o.args.layout.precision = "fp8_cs";
  const Out bad = run(o);
  EXPECT_EQ(bad.rc, kExitFindings);
  EXPECT_NE(bad.out.find("`--account-for-embedding --account-for-loss`"), std::string::npos) << bad.out;
  o.args.layout.account_for_embedding = true;
  o.args.layout.account_for_loss = true;
  o.args.layout.recompute = "full";  // without it the split runs but needs 191 GiB of 180: exit 1
  const Out good = run(o);
  EXPECT_EQ(good.rc, kExitOk) << good.out << good.err;
}

TEST(EstimateCli, BatchAnswersEveryLineInOrder) {
  test::TempDir tmp;
  const std::string file = tmp.write("layouts.jsonl",
                                     R"({"tp": 2}
not json
{"tp": 2, "pipeline": 2}

{"tp": 3, "gpus": 24, "gbs": 96}
{"tp": 1, "pp": 2, "mbs": 2}
{"precision": "fp7"}
{"tp": 4, "tp_comm_overlap": true}
{"tp": 4, "tp": 8}
{"tp": 0, "mbs": 0}
)");
  EstimateOptions o = llama8b_on_8();
  o.batch_file = file;
  const Out r = run(o);
  EXPECT_EQ(r.rc, kExitFindings);  // some lines failed
  std::vector<Json> lines;
  std::istringstream in(r.out);
  for (std::string l; std::getline(in, l);) lines.push_back(Json::parse(l));
  ASSERT_EQ(lines.size(), 9u) << r.out;  // the blank line gets no answer
  const std::vector<int> numbers{1, 2, 3, 5, 6, 7, 8, 9, 10};
  for (size_t i = 0; i < lines.size(); ++i) EXPECT_EQ(lines[i]["line"], numbers[i]);
  EXPECT_GT(lines[0]["tokens_per_s_per_gpu"].get<double>(), 0.0);
  EXPECT_NE(lines[1]["errors"][0]["message"].get<std::string>().find("not valid JSON"), std::string::npos);
  EXPECT_NE(lines[2]["errors"][0]["message"].get<std::string>().find("\"pipeline\""), std::string::npos);
  EXPECT_EQ(lines[3]["errors"][0]["rule"], "RB-TP-HEADS");
  EXPECT_EQ(lines[4]["layout"]["pp"], 2);
  EXPECT_GT(lines[4]["tokens_per_s_per_gpu"].get<double>(), 0.0);
  EXPECT_EQ(lines[5]["errors"][0]["message"].get<std::string>().rfind("\"precision\": unknown precision", 0), 0u)
      << lines[5];
  EXPECT_GT(lines[6]["tokens_per_s_per_gpu"].get<double>(), 0.0);
  // A key given twice is refused (it was estimated with the last value), naming the key.
  ASSERT_TRUE(lines[7].contains("errors")) << lines[7];
  EXPECT_EQ(lines[7]["errors"][0]["where"], "tp") << lines[7];
  EXPECT_NE(lines[7]["errors"][0]["message"].get<std::string>().find("given twice"), std::string::npos) << lines[7];
  // Every value out of range is named (the line named only the first).
  const std::string both = lines[8]["errors"].dump();
  EXPECT_NE(both.find("\\\"tp\\\" 0"), std::string::npos) << both;
  EXPECT_NE(both.find("\\\"mbs\\\" 0"), std::string::npos) << both;
}

TEST(EstimateCli, OverlapAndGraphFlagsReachTheEstimate) {
  // The switches `launch` writes are estimated too: TP overlap hides TP communication, CUDA graphs
  // remove launch overhead (none here: Llama-3-8B at TP 4 keeps the GPU busier than the host, so its
  // micro-batch is GPU-bound; host_test.cpp checks what graphs take off a host-bound one).
  EstimateOptions o = llama8b_on_8();
  o.args.layout.tp = 4;
  const Json plain = Json::parse(run(o, true).out);
  o.args.layout.tp_comm_overlap = true;
  o.args.layout.cuda_graph = "full_iteration";
  const Json tuned = Json::parse(run(o, true).out);
  EXPECT_LT(tuned["time"]["parts"]["tp_comm_s"].get<double>(), plain["time"]["parts"]["tp_comm_s"].get<double>());
  EXPECT_EQ(tuned["time"]["parts"]["overhead_s"].get<double>(), 0.0);
  // GPU-bound: the host work hides under the GPU, so nothing is left for graphs to take off (an
  // additive launch term, as before the host floor, would show here).
  EXPECT_EQ(plain["time"]["parts"]["overhead_s"].get<double>(), 0.0);
  EXPECT_GT(tuned["tokens_per_s_per_gpu"].get<double>(), plain["tokens_per_s_per_gpu"].get<double>());
}

TEST(EstimateCli, EveryFlagIsABatchKey) {
  // `--batch` lines take "the same keys as the flags, dashes as underscores": every long flag that
  // `estimate --help` lists (the --no- forms and --batch itself aside) is a key the reader knows. A
  // null value is a type error for each of them, never "unknown key".
  const test::Run help = test::run_shell(std::string(RB_BINARY) + " estimate --help");
  ASSERT_EQ(help.rc, 0);
  std::set<std::string> keys;
  const std::regex flag(R"(^\s+(?:-\w, ?)?--([a-z0-9-]+))");
  std::istringstream in(help.out);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, flag)) continue;
    std::string name = m[1];
    if (name == "batch" || name == "help" || name.rfind("no-", 0) == 0) continue;
    for (char& c : name) c = c == '-' ? '_' : c;
    keys.insert(name);
  }
  ASSERT_GT(keys.size(), 30u) << help.out;
  for (const std::string& key : keys) {
    const auto r = layout_args_from_json(Json{{key, nullptr}}, LayoutArgs{});
    ASSERT_FALSE(r.has_value()) << key;
    ASSERT_EQ(r.error().size(), 1u) << key;
    EXPECT_EQ(r.error()[0].message.find("unknown key"), std::string::npos) << key << ": " << r.error()[0].message;
    EXPECT_EQ(r.error()[0].where.str(), key);  // the key is where (the server's 4xx bodies say it)
  }
  const auto unknown = layout_args_from_json(Json{{"tensor_parallel", 2}}, LayoutArgs{});
  ASSERT_FALSE(unknown.has_value());
  EXPECT_NE(unknown.error()[0].message.find("unknown key"), std::string::npos);
  EXPECT_EQ(unknown.error()[0].where.str(), "tensor_parallel");
  // Every bad key at once, each naming itself (a batch line or a 400 body stopped at the first).
  const auto many = layout_args_from_json(
      Json{{"tp", "two"}, {"tensor_parallel", 2}, {"seq", -5}, {"gbs", 64}}, LayoutArgs{});
  ASSERT_FALSE(many.has_value());
  std::set<std::string> where;
  for (const Error& e : many.error()) where.insert(e.where.str());
  EXPECT_EQ(where, (std::set<std::string>{"tp", "tensor_parallel", "seq"}));
}

}  // namespace
}  // namespace rb::cli

namespace rb::cli {
namespace {

// Seed 000's recipe records its image budget (vision: max_pixels 200704, cap 3712): the estimate
// runs the vision tower and says on how many patches; twice the budget at MBS 4 is slower and
// warns that it exceeds the vision CUDA graph's cap.
TEST(EstimateCli, RecipeImageBudgetRunsTheVisionTower) {
  EstimateOptions o;
  o.args.recipe = "qwen35_vl_35b_a3b_pretrain_8gpu_gb300_fp8mx_library_config";
  const Out seed = run(o, true);
  ASSERT_EQ(seed.rc, 0) << seed.err;
  const Json a = Json::parse(seed.out);
  EXPECT_NE(a["recipe"]["notes"].dump().find("784 patches per image, 3136 per micro batch (the vision CUDA graph computes 3712)"),
            std::string::npos)
      << a["recipe"]["notes"].dump();
  EXPECT_EQ(seed.out.find("RB-VISION-GRAPH-CAP"), std::string::npos);
  o.args.max_pixels = 401408;
  const Out big = run(o, true);
  ASSERT_EQ(big.rc, 0) << big.err;
  const Json b = Json::parse(big.out);
  EXPECT_LT(b["tokens_per_s_per_gpu"].get<double>(), a["tokens_per_s_per_gpu"].get<double>());
  EXPECT_GT(b["memory"]["peak_bytes"].get<double>(), a["memory"]["peak_bytes"].get<double>());
  EXPECT_NE(big.out.find("RB-VISION-GRAPH-CAP"), std::string::npos);
}

}  // namespace
}  // namespace rb::cli
