// `launch` and `calibrate` through their run_* functions, on the built-in catalog: what the user
// types, what comes out, what is refused.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <sstream>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/catalog/record_check.hpp"
#include "recipebook/cmd_calibrate.hpp"
#include "recipebook/cmd_check.hpp"
#include "recipebook/cmd_launch.hpp"
#include "recipebook/emit/launch.hpp"
#include "recipebook/emit/launch_test_util.hpp"
#include "recipebook/estimate/params.hpp"

namespace rb::cli {
namespace {

struct Out {
  int rc = -1;
  std::string out, err;
};

Out launch(const LaunchOptions& o) {
  std::ostringstream out, err;
  Context ctx{out, err, {}, false, false};
  Out r;
  r.rc = run_launch(o, ctx);
  r.out = out.str();
  r.err = err.str();
  return r;
}

Out calibrate_cmd(const CalibrateOptions& o, bool json) {
  std::ostringstream out, err;
  Context ctx{out, err, {}, json, false};
  Out r;
  r.rc = run_calibrate(o, ctx);
  r.out = out.str();
  r.err = err.str();
  return r;
}

const Catalog& catalog() {
  static const Catalog c = *Catalog::load();
  return c;
}

std::string log_path(const std::string& name) { return std::string(RB_SOURCE_DIR) + "/tests/data/logs/" + name; }

// The --recipe value and the KEY=VALUE words of a bridge script's TRAIN_ARGS.
std::pair<std::string, std::vector<std::string>> bridge_parts(const std::string& script) {
  std::string recipe;
  std::vector<std::string> overrides;
  for (const auto& l : test::lines_of(script)) {
    if (l.rfind("  --recipe ", 0) == 0) recipe = l.substr(11);
    if (l.rfind("  ", 0) == 0 && l.find('=') != std::string::npos && l.rfind("  --", 0) != 0) {
      std::string w = l.substr(2);
      if (w.front() == '\'') w = w.substr(1, w.size() - 2);
      overrides.push_back(w);
    }
  }
  return {recipe, overrides};
}

void expect_known_bridge_command(const std::string& script) {
  const auto [recipe, overrides] = bridge_parts(script);
  ASSERT_FALSE(recipe.empty()) << script;
  const auto& recipes = catalog().recipes();
  EXPECT_TRUE(std::any_of(recipes.begin(), recipes.end(), [&](const RecipeEntry& e) {
    return e.recipe.name == recipe || e.recipe.entry_point == recipe;
  })) << "--recipe " << recipe << " is not a catalog recipe";
  const auto keys = bridge_override_keys();
  for (const auto& o : overrides) {
    const std::string key = o.substr(0, o.find('='));
    EXPECT_NE(std::find(keys.begin(), keys.end(), key), keys.end()) << key;
  }
  EXPECT_EQ(test::bash_syntax(script).rc, 0) << script;
}

TEST(LaunchCli, CatalogRecipeByNameForBridge) {
  LaunchOptions o;
  o.source = "llama3_8b_pretrain_8gpu_b200_bf16_config";
  o.targets = {"bridge"};
  const Out r = launch(o);
  ASSERT_EQ(r.rc, 0) << r.err;
  expect_known_bridge_command(r.out);
  EXPECT_NE(r.out.find("--recipe llama3_8b_pretrain_8gpu_b200_bf16_config"), std::string::npos);
  EXPECT_NE(r.out.find("train.global_batch_size=128"), std::string::npos);
}

TEST(LaunchCli, LayoutFlagsStartFromABridgeRecipeOfTheModel) {
  LaunchOptions o;
  o.model = "Llama-3-8B";
  o.gpu = "h100";
  o.gpus = 16;
  o.layout.tp = 2;
  o.layout.pp = 2;
  o.seq = 8192;
  o.gbs = 128;
  o.targets = {"bridge"};
  const Out r = launch(o);
  ASSERT_EQ(r.rc, 0) << r.err;
  expect_known_bridge_command(r.out);
  EXPECT_NE(r.err.find("starting from recipe"), std::string::npos) << r.err;
  const auto overrides = bridge_parts(r.out).second;
  EXPECT_NE(std::find(overrides.begin(), overrides.end(), "model.tensor_model_parallel_size=2"), overrides.end());
  EXPECT_NE(std::find(overrides.begin(), overrides.end(), "model.sequence_parallel=True"), overrides.end());
}

// A MoE layout from flags with no --etp: the ETP written is the one launch's memory check estimated
// (core/recipe.hpp apply_unset_etp: Megatron-Core's default, TP), on both entry points, and an
// --etp given is kept. Before, the check estimated ETP 4 and the scripts wrote ETP 1.
TEST(LaunchCli, AnUnsetEtpIsWrittenAsEstimated) {
  LaunchOptions o;
  o.model = "Qwen3-30B-A3B";
  o.gpu = "h100";
  o.gpus = 16;
  o.layout.tp = 4;
  o.seq = 4096;
  o.gbs = 128;
  o.targets = {"megatron-lm"};
  const Out lm = launch(o);
  ASSERT_EQ(lm.rc, 0) << lm.err;
  EXPECT_NE(lm.out.find("TP4 PP1 CP1 EP1 ETP4 DP4"), std::string::npos) << lm.out;
  EXPECT_NE(lm.out.find("--expert-tensor-parallel-size 4\n"), std::string::npos) << lm.out;
  o.targets = {"bridge"};
  const Out bridge = launch(o);
  ASSERT_EQ(bridge.rc, 0) << bridge.err;
  EXPECT_NE(bridge.out.find("model.expert_tensor_parallel_size=4"), std::string::npos) << bridge.out;
  // ETP 1 given: estimated as given, where the experts' state does not fit (what the old scripts ran).
  o.layout.etp = 1;
  o.targets = {"megatron-lm"};
  EXPECT_EQ(launch(o).rc, kExitFindings);
  o.ignore_memory = true;
  const Out given = launch(o);
  ASSERT_EQ(given.rc, 0) << given.err;
  EXPECT_NE(given.out.find("--expert-tensor-parallel-size 1\n"), std::string::npos) << given.out;
}

TEST(LaunchCli, LayoutTheRulesRejectIsRefusedWithTheRule) {
  LaunchOptions o;
  o.model = "Llama-3-8B";
  o.gpu = "h100";
  o.gpus = 24;
  o.layout.tp = 3;  // 32 heads are not divisible by 3
  o.seq = 8192;
  o.gbs = 96;
  o.targets = {"megatron-lm"};
  const Out r = launch(o);
  EXPECT_EQ(r.rc, kExitFindings);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("[RB-TP-HEADS]"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("refusing to launch"), std::string::npos) << r.err;
}

TEST(LaunchCli, FilesAreWrittenOnceAndNotOverwrittenWithoutForce) {
  test::TempDir tmp;
  LaunchOptions o;
  o.model = "Llama-3-8B";
  o.gpu = "h100";
  o.gpus = 16;
  o.layout.tp = 2;
  o.seq = 4096;
  o.gbs = 64;
  o.framework = "megatron-lm";
  o.targets = {"slurm", "k8s", "recipe", "megatron-lm"};
  o.image = "nvcr.io/nvidia/pytorch:26.04-py3";
  o.out_dir = tmp.path();
  Out r = launch(o);
  ASSERT_EQ(r.rc, 0) << r.err;
  const std::string base = tmp.file("Llama-3-8B-16gpu-pretrain");
  for (const char* ext : {".sbatch", ".pytorchjob.yaml", ".recipe.yaml", ".megatron.sh"})
    EXPECT_TRUE(std::filesystem::exists(base + ext)) << ext;
  EXPECT_EQ(test::bash_syntax(test::read_text(base + ".sbatch")).rc, 0);
  EXPECT_NO_THROW(YAML::LoadFile(base + ".pytorchjob.yaml"));
  test::write_text(base + ".sbatch", "mine\n");
  r = launch(o);
  EXPECT_EQ(r.rc, kExitUsage);
  EXPECT_NE(r.err.find(base), std::string::npos) << r.err;  // names the file
  EXPECT_EQ(test::read_text(base + ".sbatch"), "mine\n");
  o.force = true;
  r = launch(o);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(test::read_text(base + ".sbatch"), "mine\n");
  o.out_dir.clear();
  EXPECT_EQ(launch(o).rc, kExitUsage);  // several targets need -o
}

TEST(LaunchCli, Seed002RecordForSlurmExportsItsEnv) {
  LaunchOptions o;
  o.source = "attune-48gpu-tp2-pp6-ep8";
  o.mode = "pretrain";  // the record's SFT is not one pretrain_gpt.py trains (check_megatron_mode)
  o.targets = {"slurm"};
  const Out r = launch(o);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(test::bash_syntax(r.out).rc, 0);
  EXPECT_NE(r.out.find("#SBATCH --nodes=6\n"), std::string::npos);
  EXPECT_NE(r.out.find("export NCCL_NVLS_ENABLE=\"$([ \"$NVLINK_COUNT\" -gt 0 ] && echo 1 || echo 0)\""), std::string::npos);
  EXPECT_NE(r.out.find("export CUDA_DEVICE_MAX_CONNECTIONS=1"), std::string::npos);
  EXPECT_NE(r.out.find("--tensor-model-parallel-size 2"), std::string::npos);  // slime: Megatron-LM flags
  EXPECT_NE(r.out.find("--expert-model-parallel-size 8"), std::string::npos);
  EXPECT_NE(r.out.find("--accumulate-allreduce-grads-in-fp32"), std::string::npos);  // as the run did
}

TEST(LaunchCli, Seed000EnvGateIsExportedBeforePython) {
  LaunchOptions o;
  o.source = "qwen35_vl_35b_a3b_pretrain_8gpu_gb300_fp8mx_library_config";
  o.targets = {"torchrun"};
  Out r = launch(o);
  EXPECT_EQ(r.rc, kExitUsage);  // 8 GB300 are two nodes of 4: torchrun is one node
  EXPECT_NE(r.err.find("one node"), std::string::npos) << r.err;
  o.targets = {"bridge"};
  r = launch(o);
  ASSERT_EQ(r.rc, 0) << r.err;
  const size_t gate = r.out.find("export NVTE_CUTEDSL_FUSED_GROUPED_MLP=1");
  ASSERT_NE(gate, std::string::npos) << r.out;
  EXPECT_LT(gate, r.out.find("\nuv run python -m torch.distributed.run "));
  expect_known_bridge_command(r.out);
}

TEST(LaunchCli, RecipeFileIsCheckedThenLaunched) {
  test::TempDir tmp;
  LaunchOptions draft;
  draft.model = "Llama-3-8B";
  draft.gpu = "h100";
  draft.gpus = 8;
  draft.layout.tp = 2;
  draft.seq = 4096;
  draft.gbs = 64;
  draft.name = "from-file";
  draft.targets = {"recipe"};
  draft.out_dir = tmp.path();
  ASSERT_EQ(launch(draft).rc, 0);
  LaunchOptions o;
  o.source = tmp.file("from-file.recipe.yaml");
  o.targets = {"megatron-lm"};
  Out r = launch(o);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("# from-file: Llama-3-8B on 8 x h100, TP2 PP1 CP1 EP1 ETP1 DP4 SP"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--global-batch-size 64"), std::string::npos);
  // A record the schema rejects is not launched.
  test::write_text(tmp.file("bad.yaml"), "name: bad\nkind: measured\nmode: pretrain\nmodel: Llama-3-8B\n"
                                         "gpu: {type: h100, count: 8}\nlayout: {tp: two}\n");
  o.source = tmp.file("bad.yaml");
  r = launch(o);
  EXPECT_EQ(r.rc, kExitUsage);
  EXPECT_NE(r.err.find("not launching"), std::string::npos) << r.err;
}

TEST(LaunchCli, PlanEntryIsLaunched) {
  test::TempDir tmp;
  test::write_text(tmp.file("plan.json"), R"({"model": "Llama-3-8B", "gpu": "h100", "gpus": 8, "mode": "pretrain",
    "seq": 8192, "gbs": 64, "plans": [
      {"layout": {"tp": 2, "pp": 1, "vp": 1, "cp": 1, "ep": 1, "etp": 1, "dp": 4, "mbs": 1, "sp": true,
                  "precision": "bf16", "recompute": "none", "dispatcher": "alltoall", "cuda_graph": "none"}},
      {"layout": {"tp": 4, "pp": 1, "vp": 1, "cp": 1, "ep": 1, "etp": 1, "dp": 2, "mbs": 2, "sp": true,
                  "precision": "bf16", "recompute": "selective", "dispatcher": "alltoall", "cuda_graph": "none"}}]})");
  LaunchOptions o;
  o.source = tmp.file("plan.json");
  o.pick = 2;
  o.targets = {"megatron-lm"};
  const Out r = launch(o);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("--tensor-model-parallel-size 4"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--micro-batch-size 2"), std::string::npos);
  EXPECT_NE(r.out.find("--recompute-granularity selective"), std::string::npos);
  o.pick = 3;
  EXPECT_EQ(launch(o).rc, kExitUsage);
}

// A PEFT plan launched on Megatron-LM is refused (exit 2) with the Bridge target as the fix, and
// nothing is written; on Bridge it launches. Before, it wrote pretrain_gpt.py (full pretraining).
TEST(LaunchCli, APeftPlanIsNotLaunchedOnMegatronLm) {
  test::TempDir tmp;
  test::write_text(tmp.file("peft.json"), R"({"model": "Llama-3-8B", "gpu": "h100", "gpus": 8, "gpu_counts": [8],
    "workload": {"mode": "peft", "seq": 4096, "gbs": 64}, "top": [
      {"gpus": 8, "layout": {"tp": 1, "pp": 1, "cp": 1, "ep": 1, "etp": 1, "dp": 8, "mbs": 1}}]})");
  LaunchOptions o;
  o.source = tmp.file("peft.json");
  o.targets = {"megatron-lm"};
  o.out_dir = tmp.file("jobs");
  const Out r = launch(o);
  EXPECT_EQ(r.rc, kExitUsage) << r.err;
  EXPECT_NE(r.err.find("a peft run cannot be launched on Megatron-LM"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--target bridge"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(o.out_dir));
  o.targets = {"bridge"};
  o.out_dir.clear();
  const Out bridge = launch(o);
  ASSERT_EQ(bridge.rc, 0) << bridge.err;
  EXPECT_NE(bridge.out.find("--recipe llama3_8b_peft_"), std::string::npos) << bridge.out;
}

TEST(LaunchCli, PlanEntryReadsEveryLayoutFlagAndRefusesAMistypedOne) {
  // A plan entry's layout is read by the same reader as `estimate --batch` lines: a switch the
  // planner does not write (TP overlap) still reaches the command, and a flag of the wrong type is
  // an error naming it, not a silently dropped value.
  test::TempDir tmp;
  test::write_text(tmp.file("plan.json"), R"({"model": "Llama-3-8B", "gpu": "h100", "gpus": 8, "seq": 8192,
    "gbs": 64, "layout": {"tp": 2, "dp": 4, "mbs": 1, "tp_comm_overlap": true}})");
  LaunchOptions o;
  o.source = tmp.file("plan.json");
  o.targets = {"megatron-lm"};
  const Out r = launch(o);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("--tp-comm-overlap"), std::string::npos) << r.out;
  test::write_text(tmp.file("plan.json"), R"({"model": "Llama-3-8B", "gpu": "h100", "gpus": 8, "seq": 8192,
    "gbs": 64, "layout": {"tp": "2", "dp": 4}})");
  const Out bad = launch(o);
  EXPECT_EQ(bad.rc, kExitUsage);
  EXPECT_NE(bad.err.find("\"tp\" must be an integer"), std::string::npos) << bad.err;
}

TEST(LaunchCli, AnotherPipelineNeedsItsOwnSplit) {
  // The DeepSeek-V3 recipe sets its pipeline layout in code for its own PP; at PP 4 the 61 layers
  // need a first/last split, which the rule names and the command then carries.
  LaunchOptions o;
  o.model = "deepseek-v3";
  o.gpu = "h100";
  o.gpus = 256;
  o.layout.tp = 2;
  o.layout.pp = 4;
  o.layout.ep = 32;
  o.seq = 4096;
  o.gbs = 1024;
  o.targets = {"megatron-lm"};
  o.ignore_memory = true;  // the split is the point here; at PP 4 the state does not fit in 80 GB
  const Out bad = launch(o);
  EXPECT_EQ(bad.rc, kExitFindings);
  EXPECT_TRUE(bad.out.empty());
  EXPECT_NE(bad.err.find("[RB-PP-LAYERS]"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("--first-stage-layers 14 --last-stage-layers 15"), std::string::npos) << bad.err;
  o.layout.first_stage_layers = 14;
  o.layout.last_stage_layers = 15;
  const Out good = launch(o);
  ASSERT_EQ(good.rc, 0) << good.err;
  EXPECT_NE(good.out.find("--decoder-first-pipeline-num-layers 14"), std::string::npos) << good.out;
  EXPECT_NE(good.out.find("--decoder-last-pipeline-num-layers 15"), std::string::npos);
}

TEST(LaunchCli, ExplicitPipelineLayoutReachesBothTargets) {
  // --pipeline-layout: PP 4 x VP 2 over DeepSeek-V3's 61 layers (one layer moved from Bridge
  // deepseek_v3.py's (4, 2) layout, which the recipe it starts from already sets in code).
  // Megatron-LM takes it instead of --num-virtual-stages-per-pipeline-rank (arguments.py); Bridge as a
  // quoted Hydra string, with VP to match.
  LaunchOptions o;
  o.model = "deepseek-v3";
  o.gpu = "h100";
  o.gpus = 256;
  o.layout.tp = 2;
  o.layout.pp = 4;
  o.layout.ep = 32;
  o.layout.pipeline_layout = "Et*7|(t*8|)*6t*6mL";
  o.seq = 4096;
  o.gbs = 1024;
  o.targets = {"megatron-lm"};
  o.ignore_memory = true;  // the layout string is the point here; at PP 4 the state does not fit in 80 GB
  const Out mlm = launch(o);
  ASSERT_EQ(mlm.rc, 0) << mlm.err;
  EXPECT_NE(mlm.out.find("--pipeline-model-parallel-layout"), std::string::npos) << mlm.out;
  EXPECT_NE(mlm.out.find("Et*7(|t*8)*6|t*6mL"), std::string::npos) << mlm.out;
  EXPECT_EQ(mlm.out.find("--num-virtual-stages-per-pipeline-rank"), std::string::npos) << mlm.out;
  o.targets = {"bridge"};
  const Out br = launch(o);
  ASSERT_EQ(br.rc, 0) << br.err;
  expect_known_bridge_command(br.out);
  const auto overrides = bridge_parts(br.out).second;
  EXPECT_NE(std::find(overrides.begin(), overrides.end(),
                      "model.pipeline_model_parallel_layout=\"Et*7(|t*8)*6|t*6mL\""),
            overrides.end())
      << br.out;
  EXPECT_NE(std::find(overrides.begin(), overrides.end(), "model.virtual_pipeline_model_parallel_size=2"),
            overrides.end());
  // A layout that misses a layer is the rule's finding, with the count.
  o.layout.pipeline_layout = "Et*8|(t*8|)*6t*4mL";
  const Out bad = launch(o);
  EXPECT_EQ(bad.rc, kExitFindings);
  EXPECT_NE(bad.err.find("[RB-PP-LAYERS]"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("60 transformer layers"), std::string::npos) << bad.err;
  // A grammar error names its column.
  o.layout.pipeline_layout = "Et*8|(t*8|)*6t*5xL";
  const Out typo = launch(o);
  EXPECT_EQ(typo.rc, kExitUsage);
  EXPECT_NE(typo.err.find("unknown layer letter 'x' at column 17"), std::string::npos) << typo.err;
}

// A base recipe whose function builds its pipeline layout in code (the record says "set in code
// by set_deepseek_v3_pipeline_model_parallel_layout"): a launch with another PP, VP or split clears
// that layout (Megatron-Core refuses it beside stage counts, and it was built for the recipe's own
// PP); with the recipe's own pipeline the recipe keeps it.
TEST(LaunchCli, ALayoutTheRecipeBuildsInCodeIsClearedForAnotherPipeline) {
  LaunchOptions o;
  o.source = "deepseek_v3_pretrain_64gpu_h100_bf16_config";
  o.targets = {"bridge"};
  o.ignore_memory = true;
  auto overrides = [](const Out& r) { return bridge_parts(r.out).second; };
  auto has = [](const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); };
  const Out own = launch(o);
  ASSERT_EQ(own.rc, 0) << own.err;
  EXPECT_FALSE(has(overrides(own), "model.pipeline_model_parallel_layout=null")) << own.out;
  o.layout.pp = 4;
  o.layout.vp = 1;
  o.layout.ep = 16;
  o.layout.first_stage_layers = 14;
  o.layout.last_stage_layers = 15;
  const Out other = launch(o);
  ASSERT_EQ(other.rc, 0) << other.err;
  EXPECT_TRUE(has(overrides(other), "model.pipeline_model_parallel_layout=null")) << other.out;
  EXPECT_TRUE(has(overrides(other), "model.num_layers_in_first_pipeline_stage=14")) << other.out;
}

TEST(LaunchCli, Llama405bRecipeCountsEmbeddingAndLossAsPipelineLayers) {
  // Bridge's 405B recipes set account_for_embedding/loss_in_pipeline_split in code; the record says
  // so (features.settings) and the Megatron-LM command carries both.
  LaunchOptions o;
  o.source = "llama31_405b_pretrain_128gpu_b200_fp8cs_config";
  o.targets = {"megatron-lm"};
  const Out r = launch(o);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("--account-for-embedding-in-pipeline-split"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--account-for-loss-in-pipeline-split"), std::string::npos);
  EXPECT_NE(r.out.find("--num-virtual-stages-per-pipeline-rank 4"), std::string::npos);
}

TEST(LaunchCli, PlanEntryKeepsItsUnevenSplit) {
  test::TempDir tmp;
  test::write_text(tmp.file("plan.json"), R"({"model": "Llama-3-8B", "gpu": "h100", "gpus": 6, "mode": "pretrain",
    "seq": 8192, "gbs": 12, "top": [
      {"layout": {"tp": 2, "pp": 3, "vp": 1, "cp": 1, "ep": 1, "etp": 1, "dp": 1, "first_stage_layers": 10,
                  "last_stage_layers": 11, "mbs": 1, "sp": true, "precision": "bf16", "recompute": "none",
                  "dispatcher": "alltoall", "cuda_graph": "none"}}]})");
  LaunchOptions o;
  o.source = tmp.file("plan.json");
  o.targets = {"megatron-lm"};
  const Out r = launch(o);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("--decoder-first-pipeline-num-layers 10"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--decoder-last-pipeline-num-layers 11"), std::string::npos);
}

TEST(CalibrateCli, JsonFromALogWithItsArguments) {
  CalibrateOptions o;
  o.logs = {log_path("megatron_normal.log")};
  o.gpu = "h100";
  o.model = "Llama-3-8B";
  const Out r = calibrate_cmd(o, true);
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["window"][0], 4);
  EXPECT_EQ(j["window"][1], 30);
  EXPECT_EQ(j["gpus"], 8);
  EXPECT_EQ(j["seq"], 4096);
  const double steady_s = (14 * 7.6 + 13 * 7.7);
  EXPECT_NEAR(j["tokens_per_s_per_gpu"].get<double>(), 27.0 * 128 * 4096 / steady_s / 8, 1e-6);
  EXPECT_TRUE(j["mfu"].is_number());
  EXPECT_TRUE(j["mfu_megatron"].is_number());
  EXPECT_TRUE(j["usd_per_million_tokens"].is_number());
  EXPECT_NEAR(j["last_loss"].get<double>(), 7.6, 1e-9);
}

TEST(CalibrateCli, ClearErrors) {
  CalibrateOptions o;
  o.logs = {log_path("no_iterations.log")};
  Out r = calibrate_cmd(o, false);
  EXPECT_EQ(r.rc, kExitUsage);
  EXPECT_NE(r.err.find("no training iteration lines"), std::string::npos) << r.err;
  o.logs = {log_path("megatron_normal.log")};
  o.window = "500:600";
  r = calibrate_cmd(o, false);
  EXPECT_EQ(r.rc, kExitUsage);
  EXPECT_NE(r.err.find("outside the log"), std::string::npos) << r.err;
  o.window = "5-9";
  EXPECT_EQ(calibrate_cmd(o, false).rc, kExitUsage);
  o.window.clear();
  o.logs = {log_path("bridge_interval5.log")};  // no seq, no GPU count anywhere
  r = calibrate_cmd(o, false);
  EXPECT_EQ(r.rc, kExitUsage);
  EXPECT_NE(r.err.find("sequence length"), std::string::npos) << r.err;
}

// The whole loop: launch --target recipe writes a draft; calibrate --recipe fills its result; the
// record then passes `check` (schema and derived figures) and everything else in it is unchanged.
TEST(CalibrateCli, DraftFromLaunchTakesTheResultAndPassesCheck) {
  test::TempDir tmp;
  LaunchOptions lo;
  lo.model = "Llama-3-8B";
  lo.gpu = "h100";
  lo.gpus = 8;
  lo.seq = 4096;
  lo.gbs = 128;
  lo.name = "llama3-8b-calibrated";
  lo.targets = {"recipe"};
  lo.out_dir = tmp.path();
  ASSERT_EQ(launch(lo).rc, 0);
  const std::string file = tmp.file("llama3-8b-calibrated.recipe.yaml");
  const std::string draft = test::read_text(file);
  FileCheck before = catalog().check_text(draft, file, EntryKind::kRecipe);
  for (const auto& d : before.findings) EXPECT_NE(d.severity, Severity::kError) << d.str();

  CalibrateOptions o;
  o.logs = {log_path("megatron_normal.log")};
  o.recipe = file;
  const Out r = calibrate_cmd(o, false);
  ASSERT_EQ(r.rc, 0) << r.err;
  const std::string after = test::read_text(file);
  EXPECT_EQ(after.substr(0, draft.size()), draft);
  const YAML::Node doc = YAML::Load(after);
  EXPECT_GT(doc["result"]["tokens_per_s_per_gpu"].as<double>(), 0);
  EXPECT_EQ(doc["result"]["window_tokens"].as<int64_t>(), 27LL * 128 * 4096);
  EXPECT_EQ(doc["result"]["active_params"]["count"].as<int64_t>(), count_params(*catalog().find_model("Llama-3-8B")).active);
  EXPECT_FALSE(doc["result"]["mfu"].IsNull());
  FileCheck checked = catalog().check_text(after, file, EntryKind::kRecipe);
  for (const auto& d : checked.findings) EXPECT_NE(d.severity, Severity::kError) << d.str();
  for (const auto& d : check_record(checked.tree, catalog())) EXPECT_NE(d.severity, Severity::kError) << d.str();
  // `recipebook check --strict`: schema, derived figures (window tokens, MFU, USD) and the rules,
  // warnings included.
  std::ostringstream out, err;
  Context ctx{out, err, {}, false, false};
  CheckOptions co;
  co.files = {file};
  co.strict = true;
  EXPECT_EQ(run_check(co, ctx), kExitOk) << out.str() << err.str();
}

}  // namespace
}  // namespace rb::cli
