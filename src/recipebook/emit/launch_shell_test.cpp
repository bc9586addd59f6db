// The script targets (bridge, megatron-lm, torchrun) and the shell helpers they share.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <set>

#include "recipebook/emit/launch.hpp"
#include "recipebook/emit/launch_test_util.hpp"

namespace rb {
namespace {

using test::sample_spec;

bool contains(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

TEST(LaunchShell, QuotedWordsComeBackFromBashUnchanged) {
  const std::vector<std::string> words{"plain",         "model.x=[attn,moe_router]", "it's",       "a b",
                                       "$HOME",         "`id`",                      "back\\slash", "",
                                       "semi;colon&&x", "\"dq\"",                    "*glob?"};
  std::string script;
  for (const auto& w : words) script += "printf '%s\\n' " + shell_quote(w) + "\n";
  test::TempDir tmp;
  test::write_text(tmp.file("q.sh"), script);
  const auto r = test::run_shell("bash '" + tmp.file("q.sh") + "'");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(test::lines_of(r.out), words);
}

TEST(LaunchShell, QuotingRoundTripsAnyPrintableText) {
  rc::check("printf of shell_quote(w) prints w", [] {
    const auto w = *rc::gen::container<std::string>(rc::gen::inRange<char>(32, 127));
    test::TempDir tmp;
    test::write_text(tmp.file("q.sh"), "printf '%s' " + shell_quote(w) + "\n");
    const auto r = test::run_shell("bash '" + tmp.file("q.sh") + "'");
    RC_ASSERT(r.rc == 0);
    RC_ASSERT(r.out == w);
  });
}

TEST(LaunchShell, ShellExpressionsRunAndLiteralsDoNot) {
  EXPECT_TRUE(is_shell_expression("$([ \"$NVLINK_COUNT\" -gt 0 ] && echo 1 || echo 0)"));
  EXPECT_FALSE(is_shell_expression("expandable_segments:True"));
  EXPECT_FALSE(is_shell_expression("cost$5"));
  const std::string script = export_line("NCCL_NVLS_ENABLE", "$([ \"$NVLINK_COUNT\" -gt 0 ] && echo 1 || echo 0)") +
                             "\n" + export_line("LIT", "cost$5 'x'") + "\nprintenv NCCL_NVLS_ENABLE LIT\n";
  test::TempDir tmp;
  test::write_text(tmp.file("e.sh"), script);
  auto r = test::run_shell("NVLINK_COUNT=18 bash '" + tmp.file("e.sh") + "'");
  EXPECT_EQ(r.out, "1\ncost$5 'x'\n");
  r = test::run_shell("NVLINK_COUNT=0 bash '" + tmp.file("e.sh") + "'");
  EXPECT_EQ(r.out, "0\ncost$5 'x'\n");
}

TEST(LaunchBridge, CommandNamesTheRecipeAndOnlyKnownOverrideKeys) {
  const LaunchSpec s = sample_spec();
  const auto args = bridge_args(s);
  ASSERT_GE(args.size(), 3u);
  EXPECT_EQ(args[0], "scripts/training/run_recipe.py");
  EXPECT_EQ(args[1], "--recipe");
  EXPECT_EQ(args[2], "llama3_8b_pretrain_config");
  const auto keys = bridge_override_keys();
  const auto overrides = bridge_overrides(s);
  std::map<std::string, std::string> kv;
  for (const auto& o : overrides) {
    const size_t eq = o.find('=');
    ASSERT_NE(eq, std::string::npos) << o;
    const std::string key = o.substr(0, eq);
    EXPECT_NE(std::find(keys.begin(), keys.end(), key), keys.end()) << "not a known Hydra key: " << key;
    EXPECT_EQ(kv.count(key), 0u) << "written twice: " << key;
    kv[key] = o.substr(eq + 1);
  }
  EXPECT_EQ(kv["model.tensor_model_parallel_size"], "2");
  EXPECT_EQ(kv["model.pipeline_model_parallel_size"], "2");
  EXPECT_EQ(kv["model.virtual_pipeline_model_parallel_size"], "2");
  EXPECT_EQ(kv["model.sequence_parallel"], "True");
  EXPECT_EQ(kv["train.global_batch_size"], "128");
  EXPECT_EQ(kv["train.micro_batch_size"], "1");
  EXPECT_EQ(kv["model.seq_length"], "8192");
  EXPECT_EQ(kv["model.recompute_granularity"], "selective");
  EXPECT_EQ(kv["model.recompute_modules"], "[core_attn,mlp]");
  EXPECT_EQ(kv["mixed_precision"], "bf16_mixed");
  EXPECT_EQ(kv.count("model.moe_token_dispatcher_type"), 0u);  // a dense model
}

TEST(LaunchBridge, FeaturesTheRecipeAlreadySetsAreNotOverridden) {
  LaunchSpec s = sample_spec();
  s.base = s.layout;  // the recipe's own settings
  auto has_key = [](const std::vector<std::string>& os, const std::string& k) {
    return std::any_of(os.begin(), os.end(), [&](const std::string& o) { return o.rfind(k + "=", 0) == 0; });
  };
  auto o = bridge_overrides(s);
  EXPECT_TRUE(has_key(o, "model.tensor_model_parallel_size"));  // the layout is always written
  EXPECT_FALSE(has_key(o, "model.recompute_granularity"));
  EXPECT_FALSE(has_key(o, "mixed_precision"));
  EXPECT_FALSE(has_key(o, "model.cuda_graph_impl"));
  s.layout.cuda_graph = CudaGraph::kTransformerEngine;
  s.layout.cuda_graph_scope = kCgAttn | kCgMoeRouter;
  s.layout.precision = Precision::kMxfp8;
  o = bridge_overrides(s);
  EXPECT_NE(std::find(o.begin(), o.end(), "model.cuda_graph_impl=transformer_engine"), o.end());
  EXPECT_NE(std::find(o.begin(), o.end(), "model.cuda_graph_scope=[attn,moe_router]"), o.end());
  EXPECT_NE(std::find(o.begin(), o.end(), "model.use_te_rng_tracker=True"), o.end());
  EXPECT_NE(std::find(o.begin(), o.end(), "rng.te_rng_tracker=True"), o.end());
  EXPECT_NE(std::find(o.begin(), o.end(), "mixed_precision=bf16_with_mxfp8_mixed"), o.end());
  s.layout_given = false;  // the recipe's own layout: only batch and sequence
  o = bridge_overrides(s);
  EXPECT_FALSE(has_key(o, "model.tensor_model_parallel_size"));
  EXPECT_TRUE(has_key(o, "train.global_batch_size"));
}

TEST(LaunchBridge, ScriptParsesAndRunsTheSeedForm) {
  const LaunchSpec s = sample_spec();
  auto text = render_bridge(s);
  ASSERT_TRUE(text) << text.error().str();
  EXPECT_EQ(test::bash_syntax(*text).rc, 0) << *text;
  EXPECT_TRUE(contains(*text, "uv run python -m torch.distributed.run --nnodes=\"$NNODES\""));
  EXPECT_TRUE(contains(*text, "  --recipe llama3_8b_pretrain_config\n"));
  EXPECT_TRUE(contains(*text, "export NCCL_NVLS_ENABLE=\"$([ \"$NVLINK_COUNT\" -gt 0 ] && echo 1 || echo 0)\""));
  EXPECT_TRUE(contains(*text, "export NNODES=2\n"));
  EXPECT_TRUE(contains(*text, "NODE_RANK:?"));  // two nodes: each must say which it is
  LaunchSpec none = s;
  none.bridge_recipe.clear();
  EXPECT_FALSE(render_bridge(none));
}

TEST(LaunchBridge, ProbeRunsWithoutGpusAndChangesNothingElse) {
  LaunchSpec s = sample_spec();
  s.gpus = 8;
  s.layout.dp = 2;
  auto train = render_bridge(s);
  s.probe = true;
  auto probe = render_bridge(s);
  ASSERT_TRUE(train && probe);
  test::TempDir tmp;
  test::write_text(tmp.file("p.sh"), *probe);
  const auto r = test::run_shell("env -i PATH=\"$PATH\" NVLINK_COUNT=4 bash '" + tmp.file("p.sh") + "'");
  ASSERT_EQ(r.rc, 0) << r.out;
  const auto rv = test::tagged(r.out, "RB_PROBE ");
  ASSERT_EQ(rv.size(), 1u) << r.out;
  EXPECT_EQ(rv[0].at("NNODES"), "1");
  EXPECT_EQ(rv[0].at("NODE_RANK"), "0");
  EXPECT_EQ(rv[0].at("MASTER_ADDR"), "127.0.0.1");
  EXPECT_EQ(rv[0].at("MASTER_PORT"), "29500");
  EXPECT_EQ(rv[0].at("WORLD_SIZE"), "8");
  const auto env = test::tagged(r.out, "RB_PROBE_ENV ");
  std::map<std::string, std::string> seen;
  for (const auto& m : env) seen.insert(m.begin(), m.end());
  EXPECT_EQ(seen["CUDA_DEVICE_MAX_CONNECTIONS"], "1");
  EXPECT_EQ(seen["PYTORCH_CUDA_ALLOC_CONF"], "expandable_segments:True");
  EXPECT_EQ(seen["NCCL_NVLS_ENABLE"], "1");
  EXPECT_TRUE(contains(r.out, "RB_PROBE_CMD uv run python -m torch.distributed.run --nnodes=1 --node_rank=0"));
  EXPECT_TRUE(contains(r.out, "--recipe llama3_8b_pretrain_config"));
  // Everything but the header's probe remark and the launch lines (the entry-point guard, torchrun) is the same.
  auto strip = [](const std::string& t) {
    std::vector<std::string> keep;
    for (const auto& l : test::lines_of(t))
      if (l.rfind("# Written by", 0) != 0 && l.rfind("uv run", 0) != 0 && l.rfind("# --probe", 0) != 0 &&
          l.rfind("echo ", 0) != 0 && l.rfind("for rb_var", 0) != 0 && l.rfind("if [ ! -f ", 0) != 0)
        keep.push_back(l);
    return keep;
  };
  EXPECT_EQ(strip(*train), strip(*probe));
}

TEST(LaunchMegatron, ArgumentsAreKnownFlagsForTheLayoutAndModel) {
  LaunchSpec s = sample_spec();
  s.layout.precision = Precision::kFp8Cs;
  s.layout.cuda_graph = CudaGraph::kFullIteration;
  const auto args = megatron_args(s);
  const auto flags = megatron_flags();
  std::set<std::string> seen;
  for (const auto& a : args)
    if (a.rfind("--", 0) == 0) {
      EXPECT_NE(std::find(flags.begin(), flags.end(), a), flags.end()) << "not in megatron_flags(): " << a;
      seen.insert(a);
    }
  auto value_of = [&](const std::string& flag) {
    auto it = std::find(args.begin(), args.end(), flag);
    return it != args.end() && it + 1 != args.end() ? *(it + 1) : std::string("<absent>");
  };
  EXPECT_EQ(args.front(), "pretrain_gpt.py");
  EXPECT_EQ(value_of("--num-layers"), "32");
  EXPECT_EQ(value_of("--num-query-groups"), "8");
  EXPECT_EQ(value_of("--tensor-model-parallel-size"), "2");
  EXPECT_EQ(value_of("--num-virtual-stages-per-pipeline-rank"), "2");
  EXPECT_EQ(value_of("--seq-length"), "8192");
  EXPECT_EQ(value_of("--global-batch-size"), "128");
  EXPECT_EQ(value_of("--fp8-recipe"), "tensorwise");
  EXPECT_EQ(value_of("--cuda-graph-scope"), "full_iteration");
  EXPECT_EQ(value_of("--recompute-modules"), "core_attn");
  EXPECT_TRUE(seen.count("--sequence-parallel") && seen.count("--te-rng-tracker") && seen.count("--swiglu"));
  EXPECT_FALSE(seen.count("--expert-model-parallel-size"));  // dense
  auto text = render_megatron(s);
  ASSERT_TRUE(text) << text.error().str();
  EXPECT_EQ(test::bash_syntax(*text).rc, 0) << *text;
  EXPECT_TRUE(contains(*text, "\ntorchrun --nnodes="));
}

TEST(LaunchMegatron, MoeAndHybridModels) {
  LaunchSpec s = sample_spec();
  s.model_ir = test::moe_model();
  s.layout = Layout{};
  s.layout.ep = 8;
  s.layout.dp = 16;
  s.layout.dispatcher = Dispatcher::kFlexHybridep;
  const auto args = megatron_args(s);
  auto value_of = [&](const std::string& flag) {
    auto it = std::find(args.begin(), args.end(), flag);
    return it != args.end() && it + 1 != args.end() ? *(it + 1) : std::string("<absent>");
  };
  EXPECT_EQ(value_of("--num-experts"), "128");
  EXPECT_EQ(value_of("--expert-model-parallel-size"), "8");
  EXPECT_EQ(value_of("--moe-token-dispatcher-type"), "flex");
  EXPECT_EQ(value_of("--moe-flex-dispatcher-backend"), "hybridep");
  EXPECT_EQ(value_of("--moe-layer-freq").substr(0, 6), "[0,1,1");  // first layer dense
  s.model_ir = test::gdn_model();
  EXPECT_FALSE(megatron_model_args(s));
  auto text = render_megatron(s);
  ASSERT_TRUE(text);
  EXPECT_TRUE(contains(*text, "MODEL_ARGS=()"));
  EXPECT_TRUE(contains(*text, "  \"${MODEL_ARGS[@]}\"\n"));
  EXPECT_EQ(test::bash_syntax(*text).rc, 0) << *text;
  {
    // As written, the script stops before torchrun, saying why (the old one started pretrain_gpt.py
    // without the model's shape: this failed on it).
    test::TempDir tmp;
    test::write_text(tmp.file("m.sh"), *text);
    const auto r = test::run_shell("cd '" + tmp.path() + "' && touch pretrain_gpt.py && NODE_RANK=0 MASTER_ADDR=127.0.0.1 NVLINK_COUNT=0 PATH=/nonexistent /bin/bash m.sh 2>&1");
    EXPECT_EQ(r.rc, 1) << r.out;
    EXPECT_TRUE(contains(r.out, "MODEL_ARGS is empty")) << r.out;
  }
  s.seq = 0;
  EXPECT_FALSE(render_megatron(s));  // Megatron-LM needs --seq-length
}

TEST(LaunchTorchrun, OneNodeOnly) {
  LaunchSpec s = sample_spec();
  auto multi = render_torchrun(s);
  ASSERT_FALSE(multi);
  EXPECT_TRUE(contains(multi.error().fix, "slurm"));
  s.gpus = 4;
  s.layout.dp = 1;
  auto text = render_torchrun(s);
  ASSERT_TRUE(text) << text.error().str();
  EXPECT_EQ(test::bash_syntax(*text).rc, 0);
  EXPECT_TRUE(contains(*text, "export GPUS_PER_NODE=4\n"));
  EXPECT_TRUE(contains(*text, "\ntorchrun --nnodes="));
}

TEST(LaunchSpecCheck, InconsistentSpecsAreRefused) {
  LaunchSpec s = sample_spec();
  s.gpus = 12;  // not whole nodes of 8
  EXPECT_FALSE(validate_spec(s));
  s = sample_spec();
  s.layout.dp = 3;
  EXPECT_FALSE(validate_spec(s));
  s = sample_spec();
  s.env.emplace_back("BAD NAME", "1");
  EXPECT_FALSE(validate_spec(s));
  s = sample_spec();
  s.name = "x y";
  EXPECT_FALSE(validate_spec(s));
  EXPECT_TRUE(validate_spec(sample_spec()));
}

}  // namespace
}  // namespace rb
