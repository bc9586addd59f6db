// The Megatron-LM writer (launch_megatron.cpp, launch_megatron_numerics.cpp): the command is one
// pretrain_gpt.py accepts at TP 1, and it carries the model's numerics, saying which it could not.
#include <gtest/gtest.h>

#include <algorithm>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/emit/entry_points.hpp"
#include "recipebook/emit/launch.hpp"
#include "recipebook/emit/launch_script.hpp"
#include "recipebook/emit/launch_spec.hpp"
#include "recipebook/emit/launch_test_util.hpp"

namespace rb {
namespace {

using Words = std::vector<std::string>;

bool has(const Words& w, const std::string& flag) { return std::find(w.begin(), w.end(), flag) != w.end(); }
// The word after `flag`, or "" when the flag is absent.
std::string value(const Words& w, const std::string& flag) {
  auto it = std::find(w.begin(), w.end(), flag);
  return it == w.end() || it + 1 == w.end() ? std::string() : *(it + 1);
}

LaunchSpec megatron_spec(Model m) {
  LaunchSpec s = test::sample_spec();
  s.framework = Framework::kMegatronLm;
  s.model = m.name;
  s.model_ir = std::move(m);
  return s;
}

const Catalog& catalog() {
  static const Catalog c = *Catalog::load();
  return c;
}

LaunchSpec recipe_spec(const std::string& recipe) {
  SpecRequest req;
  req.source = recipe;
  req.framework = "megatron-lm";
  std::vector<std::string> notes;
  auto s = build_launch_spec(req, catalog(), notes);
  EXPECT_TRUE(s) << recipe << ": " << (s ? "" : s.error().str());
  return s ? *s : LaunchSpec{};
}

// Megatron-LM validate_args turns SP off at TP 1 and then asserts --tp-comm-overlap on SP: a TP 1
// layout with TP overlap (a Qwen3-30B-A3B recipe's) must write neither.
TEST(LaunchMegatron, NoSequenceParallelOrTpOverlapAtTp1) {
  LaunchSpec s = megatron_spec(test::moe_model());
  s.layout.tp = 1;
  s.layout.pp = 1;
  s.layout.vp = 1;
  s.layout.ep = 8;
  s.layout.dp = 16;
  s.layout.sp = true;
  s.layout.tp_comm_overlap = true;
  const Words w = megatron_args(s);
  EXPECT_FALSE(has(w, "--tp-comm-overlap"));
  EXPECT_FALSE(has(w, "--sequence-parallel"));
  s.layout.tp = 2;  // at TP 2 with SP both are kept
  s.layout.dp = 8;
  const Words w2 = megatron_args(s);
  EXPECT_TRUE(has(w2, "--tp-comm-overlap"));
  EXPECT_TRUE(has(w2, "--sequence-parallel"));
  s.layout.sp = false;  // TP overlap without SP is dropped, as Megatron-Bridge drops it
  EXPECT_FALSE(has(megatron_args(s), "--tp-comm-overlap"));
}

TEST(LaunchMegatron, LlamaRotaryBaseAndEpsilon) {
  const Words w = megatron_args(recipe_spec("llama3_8b_pretrain_8gpu_h100_bf16_config"));
  EXPECT_EQ(value(w, "--rotary-base"), "500000");
  EXPECT_EQ(value(w, "--norm-epsilon"), "1e-05");
  EXPECT_EQ(value(w, "--attention-dropout"), "0");
  EXPECT_FALSE(has(w, "--use-rope-scaling"));  // Llama-3 has none
}

TEST(LaunchMegatron, DeepSeekV3RouterAndYarn) {
  const LaunchSpec s = recipe_spec("deepseek_v3_pretrain_256gpu_gb300_fp8mx_config");
  const Words w = megatron_args(s);
  EXPECT_EQ(value(w, "--rotary-base"), "10000");
  EXPECT_EQ(value(w, "--rope-type"), "yarn");
  EXPECT_EQ(value(w, "--rotary-scaling-factor"), "40");
  EXPECT_EQ(value(w, "--mscale"), "1");
  EXPECT_EQ(value(w, "--mscale-all-dim"), "1");
  EXPECT_EQ(value(w, "--norm-epsilon"), "1e-06");
  EXPECT_EQ(value(w, "--moe-router-score-function"), "sigmoid");
  EXPECT_TRUE(has(w, "--moe-router-enable-expert-bias"));
  EXPECT_EQ(value(w, "--moe-router-topk-scaling-factor"), "2.5");
  EXPECT_EQ(value(w, "--moe-router-num-groups"), "8");
  EXPECT_EQ(value(w, "--moe-router-group-topk"), "4");
  EXPECT_EQ(value(w, "--position-embedding-type"), "rope");  // MLA keeps rope (YaRN is its rope_type)
  // q_a_layernorm and kv_a_layernorm: Megatron-Core builds them only under --qk-layernorm (it was
  // missing: a model without DeepSeek-V3's two latent norms).
  EXPECT_TRUE(has(w, "--qk-layernorm"));
  auto ok = check_entry_words(pretrain_gpt_entry(), w, true);
  EXPECT_TRUE(ok) << ok.error().str();
}

TEST(LaunchMegatron, QwenMoeEpsilonAndRouter) {
  const Words w = megatron_args(recipe_spec("qwen3_30b_a3b_pretrain_8gpu_b200_bf16_config"));
  EXPECT_EQ(value(w, "--rotary-base"), "1000000");
  EXPECT_EQ(value(w, "--norm-epsilon"), "1e-06");
  EXPECT_EQ(value(w, "--moe-router-score-function"), "softmax");
  EXPECT_FALSE(has(w, "--moe-router-pre-softmax"));  // norm_topk_prob true: softmax after top-k
}

// What the flags cannot carry or the source did not give is named in the script, never guessed.
TEST(LaunchMegatron, UnknownAndInexpressibleNumericsAreNamed) {
  Model m = test::dense_model();  // no numerics known
  auto script = render_megatron(megatron_spec(m));
  ASSERT_TRUE(script) << script.error().str();
  EXPECT_NE(script->find("rotary base not known: Megatron-LM's 10000 applies"), std::string::npos) << *script;
  EXPECT_NE(script->find("norm epsilon not known"), std::string::npos);
  EXPECT_EQ(script->find("--rotary-base"), std::string::npos);

  m.numerics.rope_theta = 500000;
  m.numerics.rope_scaling = RopeScalingKind::kLlama3;  // Llama-3.2: factor 32
  m.numerics.rope_factor = 32;
  m.numerics.rope_low_freq_factor = 1;
  m.numerics.rope_high_freq_factor = 4;
  m.numerics.rope_original_max_position = 8192;
  script = render_megatron(megatron_spec(m));
  ASSERT_TRUE(script) << script.error().str();
  EXPECT_EQ(script->find("--use-rope-scaling"), std::string::npos);
  EXPECT_NE(script->find("llama3 rope scaling (factor 32"), std::string::npos) << *script;
  m.numerics.rope_factor = 8;  // Llama-3.1: what pretrain_gpt.py applies
  const Words w = megatron_args(megatron_spec(m));
  EXPECT_TRUE(has(w, "--use-rope-scaling"));
  EXPECT_EQ(value(w, "--rope-scaling-factor"), "8");
}

// A config.json of a model_type recipebook does not know (Cohere's, Phi-MoE's) is sized by its
// fields; its norm kind and placement are not read, so no model flags are written (they trained an
// RMSNorm pre-norm Llama of its size) and the script stops, saying why.
TEST(LaunchMegatron, AnArchitectureReadWithAssumptionsGetsNoModelFlags) {
  Model m = test::dense_model();
  ASSERT_TRUE(megatron_model_args(megatron_spec(m)));
  m.assumptions.push_back("model_type 'cohere2' is not one recipebook knows: read by its fields");
  const auto args = megatron_model_args(megatron_spec(m));
  ASSERT_FALSE(args);
  EXPECT_NE(args.error().message.find("cohere2"), std::string::npos) << args.error().message;
  auto script = render_megatron(megatron_spec(m));
  ASSERT_TRUE(script) << script.error().str();
  EXPECT_NE(script->find("MODEL_ARGS=()"), std::string::npos) << *script;
  EXPECT_EQ(script->find("--normalization"), std::string::npos) << *script;
}

TEST(LaunchMegatron, YarnWithoutMlaUsesTheYarnPositionType) {
  Model m = test::dense_model();
  m.numerics.rope_theta = 150000;
  m.numerics.rope_scaling = RopeScalingKind::kYarn;
  m.numerics.rope_factor = 32;
  m.numerics.rope_original_max_position = 4096;
  m.numerics.yarn_beta_fast = 32;
  m.numerics.yarn_beta_slow = 1;
  m.numerics.yarn_truncate = false;
  const Words w = megatron_args(megatron_spec(m));
  EXPECT_EQ(value(w, "--position-embedding-type"), "yarn");
  EXPECT_EQ(value(w, "--rotary-scaling-factor"), "32");
  EXPECT_EQ(value(w, "--yarn-original-max-position-embeddings"), "4096");
  EXPECT_TRUE(has(w, "--no-yarn-correction-range-round-to-int"));
  EXPECT_FALSE(has(w, "--rope-type"));
  auto ok = check_entry_words(pretrain_gpt_entry(), w, true);
  EXPECT_TRUE(ok) << ok.error().str();
}

// Per-module precision: pretrain_gpt.py takes a quantization recipe only as a file
// (--te-precision-config-file, megatron/training/arguments.py), so the script carries the file's text
// (the TE quantization config: a bf16 and an mxfp8 config, one glob matcher per module, the MTP block
// first) as a comment and writes no flag for a file it does not write; the Bridge script says
// run_recipe.py cannot set lists other than the recipe's. Before, the lists did not exist.
TEST(LaunchMegatron, ModulePrecisionIsTheTeConfigFileNotAFlag) {
  LaunchSpec s = megatron_spec(test::moe_model());
  s.layout.precision = Precision::kNvfp4;
  s.layout.bf16_modules = kGmLinearQkv | kGmMtp;
  s.layout.mxfp8_modules = kGmOutProj;
  const std::string cfg = te_precision_config(s.layout);
  EXPECT_NE(cfg.find("pattern: \"mtp.*\""), std::string::npos) << cfg;
  EXPECT_LT(cfg.find("mtp.*"), cfg.find("*.linear_qkv")) << cfg;
  EXPECT_NE(cfg.find("config: \"mxfp8\"\n    type: \"glob\"\n    pattern: \"*mixer.out_proj\""), std::string::npos) << cfg;
  EXPECT_NE(cfg.find("fp8_quantization_recipe: \"mxfp8\""), std::string::npos) << cfg;
  const std::string note = module_precision_note(s);
  EXPECT_NE(note.find("--te-precision-config-file te_precision.yaml"), std::string::npos) << note;
  EXPECT_NE(note.find("\n# matchers:\n"), std::string::npos) << note;
  EXPECT_FALSE(has(megatron_args(s), "--te-precision-config-file"));
  s.layout.precision = Precision::kBf16;  // nothing quantized: nothing to say
  EXPECT_EQ(module_precision_note(s), "");
  s.layout.precision = Precision::kNvfp4;
  s.framework = Framework::kBridge;
  s.base = s.layout;
  EXPECT_EQ(module_precision_note(s), "");  // the recipe's own lists
  s.base->bf16_modules = 0;
  EXPECT_NE(module_precision_note(s).find("run_recipe.py has no override"), std::string::npos);
}

// Under --bf16 Megatron-LM accumulates and reduces gradients in FP32 unless --grad-reduce-in-bf16 is
// given (arguments.py L1204-1217): the command says which the layout (and its estimate) has. Before,
// a BF16-reduction layout wrote neither flag and ran FP32 reduction.
TEST(LaunchMegatron, GradientReductionDtypeIsTheLayouts) {
  LaunchSpec s = megatron_spec(test::dense_model());
  s.layout.grad_reduce_in_fp32 = false;
  const Words bf16 = megatron_args(s);
  EXPECT_TRUE(has(bf16, "--grad-reduce-in-bf16"));
  EXPECT_FALSE(has(bf16, "--accumulate-allreduce-grads-in-fp32"));
  s.layout.grad_reduce_in_fp32 = true;
  const Words fp32 = megatron_args(s);
  EXPECT_TRUE(has(fp32, "--accumulate-allreduce-grads-in-fp32"));
  EXPECT_FALSE(has(fp32, "--grad-reduce-in-bf16"));
  EXPECT_TRUE(check_megatron_entry(s)) << check_megatron_entry(s).error().str();
}

// A fused loss is written fused whichever implementation the layout names: Megatron-LM refuses TE's
// (arguments.py L1697), so the script runs the native one and its comment says so. Before, the
// default layout (fused, te) wrote no fusion and ran the unfused loss.
TEST(LaunchMegatron, AFusedLossRunsTheNativeFusion) {
  LaunchSpec s = megatron_spec(test::dense_model());
  ASSERT_TRUE(s.layout.cross_entropy_loss_fusion);
  ASSERT_EQ(s.layout.cross_entropy_fusion_impl, CrossEntropyImpl::kTe);
  const Words w = megatron_args(s);
  EXPECT_TRUE(has(w, "--cross-entropy-loss-fusion"));
  EXPECT_EQ(value(w, "--cross-entropy-fusion-impl"), "native");
  EXPECT_TRUE(check_megatron_entry(s)) << check_megatron_entry(s).error().str();
  EXPECT_EQ(megatron_lm_layout(s.layout).cross_entropy_fusion_impl, CrossEntropyImpl::kNative);
  auto script = render_megatron(s);
  ASSERT_TRUE(script) << script.error().str();
  EXPECT_NE(script->find("# The loss: the layout fuses it with Transformer Engine's cross entropy"), std::string::npos)
      << *script;
  s.layout.cross_entropy_fusion_impl = CrossEntropyImpl::kNative;  // asked for: nothing to say
  EXPECT_EQ(megatron_lm_layout_note(s.layout), "");
  EXPECT_EQ(value(megatron_args(s), "--cross-entropy-fusion-impl"), "native");
  s.layout.cross_entropy_loss_fusion = false;  // unfused: Megatron-LM's default, no flag
  EXPECT_FALSE(has(megatron_args(s), "--cross-entropy-loss-fusion"));
  EXPECT_EQ(megatron_lm_layout(s.layout).cross_entropy_loss_fusion, false);
}

// pretrain_gpt.py pretrains: a PEFT spec (no LoRA in Megatron-LM) or an SFT one (--sft needs a JSONL
// conversation set and an SFTTokenizer) is refused with the Bridge target as the fix. Before, both
// rendered a full pretraining command.
TEST(LaunchMegatron, OnlyPretrainingIsWritten) {
  LaunchSpec s = megatron_spec(test::dense_model());
  EXPECT_TRUE(render_megatron(s));
  for (Mode m : {Mode::kPeft, Mode::kSft}) {
    s.mode = m;
    auto script = render_megatron(s);
    ASSERT_FALSE(script) << mode_name(m);
    EXPECT_NE(script.error().message.find("cannot be launched on Megatron-LM (--target megatron-lm"), std::string::npos)
        << script.error().message;
    EXPECT_NE(script.error().fix.find("--target bridge"), std::string::npos) << script.error().fix;
  }
  s.mode = Mode::kPeft;
  EXPECT_NE(render_megatron(s).error().message.find("no LoRA"), std::string::npos);
}

// gpt-oss as Megatron-Bridge builds it (models/gpt_oss/gpt_oss_bridge.py): a gated quick GELU clamped
// at 7 with the linear half offset by 1, and YaRN x32 from 4096 positions without rounding the
// correction range; every numeric written, none left to a note. Before, --swiglu and plain RoPE at
// base 10000.
TEST(LaunchMegatron, GptOssClampedActivationAndYarn) {
  LaunchSpec s = recipe_spec("gpt_oss_120b_pretrain_64gpu_h100_bf16_config");
  const Words w = megatron_args(s);
  EXPECT_FALSE(has(w, "--swiglu"));
  EXPECT_TRUE(has(w, "--quick-geglu"));
  EXPECT_EQ(value(w, "--glu-linear-offset"), "1.0");
  EXPECT_EQ(value(w, "--activation-func-clamp-value"), "7.0");
  EXPECT_EQ(value(w, "--position-embedding-type"), "yarn");
  EXPECT_EQ(value(w, "--rotary-base"), "150000");
  EXPECT_EQ(value(w, "--rotary-scaling-factor"), "32");
  EXPECT_EQ(value(w, "--yarn-original-max-position-embeddings"), "4096");
  EXPECT_TRUE(has(w, "--no-yarn-correction-range-round-to-int"));
  EXPECT_FALSE(has(w, "--moe-router-pre-softmax"));  // Bridge: moe_router_pre_softmax False
  // config.json sliding_window 128 counts the token itself: Megatron's (left, right) is (127, 0), as
  // gpt_oss_bridge.py sets it (128,0 attended one token more).
  EXPECT_EQ(value(w, "--window-size"), "127,0");
  ASSERT_TRUE(s.model_ir);
  EXPECT_TRUE(megatron_numerics(*s.model_ir).notes.empty());
  EXPECT_TRUE(check_megatron_entry(s)) << check_megatron_entry(s).error().str();
  Model llama = test::dense_model();  // any other SwiGLU model keeps --swiglu
  EXPECT_EQ(megatron_numerics(llama).activation, Words{"--swiglu"});
}

}  // namespace
}  // namespace rb
