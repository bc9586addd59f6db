// The entry-point tables and what the renderers make of them: each written command holds to its
// table, a value an entry point would reject is refused before a script is written, and no command
// trains another model than the one asked for.
#include "recipebook/emit/entry_points.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "recipebook/emit/launch.hpp"
#include "recipebook/emit/launch_test_util.hpp"

namespace rb {
namespace {

using test::sample_spec;

std::vector<std::string> words(std::initializer_list<const char*> w) { return {w.begin(), w.end()}; }

TEST(EntryPoints, CheckerHoldsWordsToTheTable) {
  const EntryPoint& rr = run_recipe_entry();
  EXPECT_TRUE(check_entry_words(rr, words({"scripts/training/run_recipe.py", "--recipe", "x_pretrain_config", "--dataset",
                                           "mock", "-sl", "4096", "model.tensor_model_parallel_size=2"}),
                                true));
  // The dataset types of an older run_recipe.py (before Megatron-Bridge e28e1ca37) are not presets.
  auto old = check_entry_words(rr, words({"scripts/training/run_recipe.py", "--recipe", "x", "--dataset", "llm-finetune"}), false);
  ASSERT_FALSE(old);
  EXPECT_NE(old.error().message.find("squad"), std::string::npos);  // says what it takes
  EXPECT_FALSE(check_entry_words(rr, words({"scripts/training/run_recipe.py", "--recipe", "x", "--hf_path", "org/m"}), false));
  EXPECT_FALSE(check_entry_words(rr, words({"scripts/training/run_recipe.py", "--recipe", "x", "-gb", "many"}), false));
  EXPECT_FALSE(check_entry_words(rr, words({"scripts/training/run_recipe.py", "--recipe", "x", "bare"}), false));
  EXPECT_FALSE(check_entry_words(rr, words({"scripts/training/run_recipe.py", "--recipe", "x", "model.made_up=1"}), true));
  EXPECT_TRUE(check_entry_words(rr, words({"scripts/training/run_recipe.py", "--recipe", "x", "model.made_up=1"}), false));
  EXPECT_FALSE(check_entry_words(rr, words({"pretrain_gpt.py", "--recipe", "x"}), false));  // not its script

  const EntryPoint& mlm = pretrain_gpt_entry();
  EXPECT_TRUE(check_entry_words(mlm, words({"pretrain_gpt.py", "--recompute-granularity", "selective", "--recompute-modules",
                                            "core_attn", "mlp", "--bf16", "--lr", "1.0e-4"}),
                                true));
  EXPECT_FALSE(check_entry_words(mlm, words({"pretrain_gpt.py", "--recompute-modules", "core_attn", "attention"}), true));
  EXPECT_FALSE(check_entry_words(mlm, words({"pretrain_gpt.py", "--normalization", "rmsnorm"}), true));
  EXPECT_FALSE(check_entry_words(mlm, words({"pretrain_gpt.py", "key=value"}), true));  // no overrides

  const EntryPoint& rs = run_script_entry();
  EXPECT_TRUE(check_entry_words(rs, words({"scripts/performance/run_script.py", "-m", "llama", "-mr", "llama3_8b", "-ng",
                                           "8", "-g", "gb200", "-c", "fp8_mx", "--data", "mock"}),
                                false));
  EXPECT_FALSE(check_entry_words(rs, words({"scripts/performance/run_script.py", "-g", "a100"}), false));
}

// Muon as each entry point spells it: Megatron-LM --optimizer muon beside --use-distributed-optimizer
// (its layer-wise distributed optimizer) and blockwise TP, Bridge optimizer dist_muon with DDP's
// distributed optimizer off, as its Kimi-K2 recipes set them; both held to their tables.
TEST(EntryPoints, MuonAsEachEntryPointSpellsIt) {
  LaunchSpec spec = sample_spec();
  spec.base.reset();
  spec.layout.optimizer = Optimizer::kMuon;
  spec.layout.tp = 2;
  spec.layout.sp = true;
  const std::vector<std::string> lm = megatron_args(spec);
  auto has = [](const std::vector<std::string>& w, const std::vector<std::string>& run) {
    return std::search(w.begin(), w.end(), run.begin(), run.end()) != w.end();
  };
  EXPECT_TRUE(has(lm, {"--optimizer", "muon"}));
  EXPECT_TRUE(has(lm, {"--muon-tp-mode", "blockwise"}));
  EXPECT_TRUE(has(lm, {"--use-distributed-optimizer"}));
  EXPECT_TRUE(check_entry_words(pretrain_gpt_entry(), lm, true));
  const std::vector<std::string> br = bridge_overrides(spec);
  EXPECT_TRUE(has(br, {"optimizer.optimizer=dist_muon"}));
  EXPECT_TRUE(has(br, {"ddp.use_distributed_optimizer=False"}));
  for (const std::string& w : br) EXPECT_NE(w, "ddp.use_distributed_optimizer=True");
  spec.layout.distributed_optimizer = false;  // unsharded Muon
  EXPECT_TRUE(has(bridge_overrides(spec), {"optimizer.optimizer=muon"}));
}

TEST(EntryPoints, EveryPresetHasATrainingLoop) {
  const EntryArg* d = find_arg(run_recipe_entry(), "--dataset");
  ASSERT_NE(d, nullptr);
  for (auto p : d->choices) {
    const auto mode = bridge_dataset_train_mode(p);
    EXPECT_TRUE(mode == "pretrain" || mode == "finetune" || (mode.empty() && p == "energon")) << p;
  }
  EXPECT_EQ(bridge_dataset_train_mode("mock"), "pretrain");
  EXPECT_EQ(bridge_dataset_train_mode("squad"), "finetune");
  EXPECT_TRUE(bridge_dataset_is_vlm("cord-v2"));
  EXPECT_FALSE(bridge_dataset_is_vlm("squad"));
}

TEST(BridgeDataset, OneChoiceForEveryModeAndModel) {
  Recipe lib;
  lib.name = "llama3_8b_sft_2gpu_h100_bf16_config";
  const Model text = test::dense_model();
  EXPECT_EQ(bridge_dataset(Mode::kPretrain, text, lib), "mock");
  EXPECT_EQ(bridge_dataset(Mode::kSft, text, lib), "squad");
  EXPECT_EQ(bridge_dataset(Mode::kPeft, text, lib), "squad");
  EXPECT_EQ(bridge_dataset(Mode::kSft, text, lib, "gsm8k"), "gsm8k");               // a recorded preset
  EXPECT_EQ(bridge_dataset(Mode::kSft, text, lib, "Tulu 3 SFT mixture"), "squad");  // not a preset
  Recipe vl = lib;
  vl.name = "qwen3_vl_8b_sft_2gpu_h100_bf16_config";
  EXPECT_EQ(bridge_dataset(Mode::kSft, text, vl), "cord-v2");
  EXPECT_EQ(bridge_dataset(Mode::kPretrain, text, vl), "");  // the VLM recipe's own data, not text mock
  Recipe perf = lib;
  perf.kind = RecipeKind::kPerformance;
  EXPECT_EQ(bridge_dataset(Mode::kSft, text, perf), "");  // benchmark recipes reject --dataset
  // Whatever it chooses, run_recipe.py accepts it for that mode.
  const EntryArg* d = find_arg(run_recipe_entry(), "--dataset");
  for (Mode m : {Mode::kPretrain, Mode::kSft, Mode::kPeft})
    for (const Recipe* r : {&lib, &vl}) {
      const std::string ds = bridge_dataset(m, text, *r);
      if (ds.empty()) continue;
      EXPECT_TRUE(has_choice(*d, ds)) << ds;
      EXPECT_EQ(bridge_dataset_train_mode(ds), m == Mode::kPretrain ? "pretrain" : "finetune") << ds;
    }
}

TEST(BridgeEntry, RefusesToTrainAnotherModelThanAsked) {
  // Old code: hf_path did not exist, and a Llama recipe's command was printed for any model.
  LaunchSpec s = sample_spec();
  s.hf_path = "mistralai/Mistral-7B-v0.3";
  auto r = render_bridge(s);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("mistralai/Mistral-7B-v0.3"), std::string::npos);
  EXPECT_NE(r.error().message.find("hf_path"), std::string::npos);
  EXPECT_NE(r.error().fix.find("megatron-lm"), std::string::npos);
  for (auto t : {LaunchTarget::kSlurm, LaunchTarget::kK8s, LaunchTarget::kTorchrun}) {
    s.gpus = 8;
    s.layout.pp = 1;
    s.layout.vp = 1;
    EXPECT_FALSE(render_launch(t, s)) << launch_target_name(t);
  }
  // Megatron-LM trains the model its architecture flags describe: hf_path does not stop it, and
  // names the tokenizer when the model has no HF id of its own.
  s.framework = Framework::kMegatronLm;
  s.dataset = "/data/mistral_text_document";
  s.model_ir->hf_id.clear();
  auto mlm = render_megatron(s);
  ASSERT_TRUE(mlm) << mlm.error().str();
  EXPECT_NE(mlm->find("--tokenizer-model mistralai/Mistral-7B-v0.3"), std::string::npos) << *mlm;
}

TEST(BridgeEntry, RefusesWhatRunRecipeRejects) {
  LaunchSpec s = sample_spec();
  s.dataset = "llm-pretrain-mock";  // old code wrote it as it was
  auto bad = render_bridge(s);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("mock"), std::string::npos);
  s.dataset = "squad";  // a fine-tuning preset on a pretraining launch
  EXPECT_FALSE(render_bridge(s));
  s.dataset = "mock";
  EXPECT_TRUE(render_bridge(s));
  s.bridge_benchmark = true;  // benchmark recipes own their data
  EXPECT_FALSE(render_bridge(s));
  s.bridge_benchmark = false;
  s.mode = Mode::kSft;  // llama3_8b_pretrain_config is a pretraining recipe
  s.dataset.clear();
  auto mode = render_bridge(s);
  ASSERT_FALSE(mode);
  EXPECT_NE(mode.error().message.find("pretrain"), std::string::npos);
  s.mode = Mode::kPretrain;
  s.extra_args = {"--not-a-flag"};
  EXPECT_FALSE(render_bridge(s));
  s.extra_args = {"logger.log_interval=5"};  // any ConfigContainer key the user names is passed
  EXPECT_TRUE(render_bridge(s));
}

TEST(BridgeEntry, NamesTheModeOnlyWhenTheRecipeNameDoesNot) {
  LaunchSpec s = sample_spec();
  auto args = bridge_args(s);
  EXPECT_EQ(std::find(args.begin(), args.end(), "--mode"), args.end());
  s.bridge_recipe = "custom_recipe";
  s.mode = Mode::kPeft;
  args = bridge_args(s);
  auto it = std::find(args.begin(), args.end(), "--mode");
  ASSERT_NE(it, args.end());
  EXPECT_EQ(*(it + 1), "lora");
  EXPECT_TRUE(check_entry_words(run_recipe_entry(), args, true));
}

TEST(MegatronEntry, RefusesABridgePresetAsADataPath) {
  LaunchSpec s = sample_spec();
  s.dataset = "squad";
  EXPECT_FALSE(render_megatron(s));
  s.dataset = "/data/my_text_document";
  EXPECT_TRUE(render_megatron(s));
}

TEST(EntryGuard, ScriptsSayWhatTheyAssumeAndStopWithoutTheEntryPoint) {
  LaunchSpec s = sample_spec();
  s.gpus = 8;
  s.layout.pp = 1;
  s.layout.vp = 1;
  auto shell = render_bridge(s);
  ASSERT_TRUE(shell);
  EXPECT_NE(shell->find("# Warning: no working folder given (--workdir)"), std::string::npos);
  EXPECT_NE(shell->find("if [ ! -f scripts/training/run_recipe.py ]"), std::string::npos);
  auto sbatch = render_slurm(s);
  ASSERT_TRUE(sbatch);
  EXPECT_NE(sbatch->find("# Warning: no container image given"), std::string::npos);
  EXPECT_EQ(test::bash_syntax(*sbatch).rc, 0);
  s.workdir = "/opt/Megatron-Bridge";
  s.slurm.container_image = "nvcr.io/nvidia/nemo:26.04";
  sbatch = render_slurm(s);
  ASSERT_TRUE(sbatch);
  EXPECT_EQ(sbatch->find("# Warning"), std::string::npos);
  // Run from a folder without the entry point, the script stops before torchrun with the reason.
  s.workdir.clear();
  shell = render_bridge(s);
  ASSERT_TRUE(shell);
  test::TempDir tmp;
  test::write_text(tmp.file("job.sh"), *shell);
  auto run = test::run_shell("cd '" + tmp.path() + "' && /bin/bash '" + tmp.file("job.sh") + "'");
  EXPECT_EQ(run.rc, 1);
  EXPECT_NE(run.out.find("no scripts/training/run_recipe.py in"), std::string::npos) << run.out;
}

}  // namespace
}  // namespace rb
