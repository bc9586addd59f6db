#include "recipebook/catalog/recipe_yaml.hpp"

#include "recipebook/catalog/recipe_layout.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace rb {
namespace {

using ::testing::HasSubstr;

std::optional<Recipe> convert(const std::string& text, Diagnostics& ds, const std::string& stem = "stem") {
  auto tree = parse_yaml(text, "r.yaml");
  EXPECT_TRUE(tree) << tree.error().str();
  return recipe_from_yaml(*tree, stem, ds);
}

std::string all(const Diagnostics& ds) {
  std::string out;
  for (const auto& d : ds) out += d.str() + "\n";
  return out;
}

// Seed 002's keys (abridged to the typed ones).
constexpr const char* kSeed002 = R"(
schema_version: 1
model: Qwen3.5-397B-A17B
gpu: {type: B200, memory_gb: 180, count: 48, per_node: 8}
status: verified
stack:
  framework: slime with local patches, not pinned
workload: {row_tokens: 8192, rows: SFT conversations, global_batch: 128, precision: bf16}
layout:
  tp: 2
  pp: 6
  vpp: 1
  cp: 1
  ep: 8
  etp: 1
  dp: 4
  sequence_parallel: true
  rows_per_microbatch: 1
  recompute: {granularity: full, method: uniform, num_layers: 1}
  offload: null
  dispatcher: alltoall
result: {tokens_per_s_per_gpu: 1075.50, usd_per_million_tokens: 3.68, mfu: 0.0468}
env: {CUDA_DEVICE_MAX_CONNECTIONS: '1', N: 2}
notes: |
  B200 runs need the FLA guard.
)";

TEST(RecipeYaml, Seed002Record) {
  Diagnostics ds;
  const auto r = convert(kSeed002, ds, "attune-48gpu-tp2-pp6-ep8");
  ASSERT_TRUE(r) << all(ds);
  EXPECT_EQ(r->name, "attune-48gpu-tp2-pp6-ep8");  // the file stem
  EXPECT_EQ(r->kind, RecipeKind::kVerified);       // from status: verified
  EXPECT_EQ(r->model, "Qwen3.5-397B-A17B");
  EXPECT_EQ(r->gpu, "B200");
  EXPECT_EQ(r->gpus, 48);
  EXPECT_EQ(r->gpus_per_node, 8);
  EXPECT_EQ(r->framework, "slime with local patches, not pinned");
  EXPECT_TRUE(r->layout_known);
  EXPECT_EQ(r->layout.tp, 2);
  EXPECT_EQ(r->layout.pp, 6);
  EXPECT_EQ(r->layout.ep, 8);
  EXPECT_EQ(r->layout.dp, 4);
  EXPECT_TRUE(r->layout.sp);
  EXPECT_EQ(r->layout.recompute, Recompute::kFull);
  EXPECT_EQ(r->layout.recompute_method, RecomputeMethod::kUniform);
  EXPECT_EQ(r->layout.recompute_layers, 1);
  EXPECT_EQ(r->layout.dispatcher, Dispatcher::kAlltoall);
  EXPECT_EQ(r->seq, 8192);
  EXPECT_EQ(r->gbs, 128);
  EXPECT_TRUE(r->precision_known);
  EXPECT_EQ(r->layout.precision, Precision::kBf16);
  EXPECT_DOUBLE_EQ(r->tokens_per_s_per_gpu.value(), 1075.5);
  EXPECT_DOUBLE_EQ(r->mfu.value(), 0.0468);
  EXPECT_EQ(r->env.at("CUDA_DEVICE_MAX_CONNECTIONS"), "1");
  EXPECT_EQ(r->env.at("N"), "2");
  EXPECT_EQ(r->notes, "B200 runs need the FLA guard.\n");
  EXPECT_EQ(r->where.file, "r.yaml");
}

TEST(RecipeYaml, LibraryRecordWithFeatures) {
  Diagnostics ds;
  const auto r = convert(R"(
name: qwen3_30b_a3b_pretrain_8gpu_h100_bf16_config
kind: performance
mode: pretrain
framework: megatron-bridge
model: Qwen3-30B-A3B
gpu: {type: h100, count: 16}
workload: {row_tokens: 4096, global_batch: 512, precision: fp8_cs}
layout: {tp: 1, pp: 2, cp: 1, ep: 8, rows_per_microbatch: 2, dispatcher: flex,
         recompute: {granularity: selective}}
features:
  cuda_graph: {impl: transformer_engine, scope: [attn, moe_router, moe_preprocess]}
  recompute_modules: [core_attn, moe_act]
  flex_backend: hybridep
  fsdp: true
  cpu_offload_layers: 4
  ep_a2a_overlap: true
  tp_comm_overlap: true
  precision_aware_optimizer: true
  te_rng_tracker: true
  pipeline_layout: {first_stage_layers: 23, last_stage_layers: 25}
measurements:
  - {release: '26.04.01', source: docs, current: false, gpus: 16, precision: FP8-CS, gbs: 512, mbs: 2,
     seq: 4096, layout: {tp: 1, pp: 2, cp: 1, vp: null, ep: 8}, tokens_per_s_per_gpu: 12345.5}
pitfalls: [RB-X]
)",
                         ds);
  ASSERT_TRUE(r) << all(ds);
  EXPECT_EQ(r->kind, RecipeKind::kPerformance);
  EXPECT_EQ(r->layout.dp, 8);  // 16 / (1 x 2 x 1)
  EXPECT_EQ(r->layout.vp, 1);
  EXPECT_EQ(r->layout.etp, 1);
  EXPECT_EQ(r->layout.mbs, 2);
  EXPECT_EQ(r->layout.precision, Precision::kFp8Cs);
  EXPECT_EQ(r->layout.dispatcher, Dispatcher::kFlexHybridep);
  EXPECT_EQ(r->layout.cuda_graph, CudaGraph::kTransformerEngine);
  EXPECT_EQ(r->layout.cuda_graph_scope, kCgAttn | kCgMoeRouter | kCgMoePreprocess);
  EXPECT_EQ(r->layout.recompute, Recompute::kSelective);
  EXPECT_EQ(r->layout.recompute_modules, kRcCoreAttn | kRcMoeAct);
  EXPECT_TRUE(r->layout.fsdp);
  EXPECT_EQ(r->layout.cpu_offload_layers, 4);
  EXPECT_TRUE(r->layout.ep_a2a_overlap);
  EXPECT_TRUE(r->layout.tp_comm_overlap);
  EXPECT_TRUE(r->layout.precision_aware_optimizer);
  EXPECT_EQ(r->layout.first_stage_layers, 23);
  EXPECT_EQ(r->layout.last_stage_layers, 25);
  ASSERT_EQ(r->measurements.size(), 1u);
  EXPECT_EQ(r->measurements[0].release, "26.04.01");
  EXPECT_FALSE(r->measurements[0].current);
  EXPECT_EQ(r->measurements[0].ep, 8);
  EXPECT_EQ(r->measurements[0].vp, 0);
  EXPECT_DOUBLE_EQ(r->measurements[0].tokens_per_s_per_gpu, 12345.5);
  EXPECT_EQ(r->pitfalls, std::vector<std::string>{"RB-X"});
}

// FP32 gradient reduction: Megatron-Bridge library recipes (and runs on them) set it, its perf
// recipes do not, other frameworks default off; `features.grad_reduce_in_fp32` overrides.
TEST(RecipeYaml, GradReduceInFp32FollowsTheKindUnlessGiven) {
  auto read = [](const std::string& head, const std::string& features) {
    Diagnostics ds;
    const auto r = convert(head + "\nmodel: Llama-3-8B\ngpu: {type: h100, count: 8}\n"
                                  "layout: {tp: 1, pp: 1, cp: 1, ep: 1}\n" + features, ds);
    EXPECT_TRUE(r) << all(ds);
    return r && r->layout.grad_reduce_in_fp32;
  };
  EXPECT_TRUE(read("kind: library\nframework: megatron-bridge", ""));
  EXPECT_TRUE(read("kind: measured\nframework: megatron-bridge", ""));
  EXPECT_FALSE(read("kind: performance\nframework: megatron-bridge", ""));
  EXPECT_FALSE(read("kind: library\nframework: slime", ""));
  EXPECT_FALSE(read("kind: library\nframework: megatron-bridge", "features: {grad_reduce_in_fp32: false}"));
  EXPECT_TRUE(read("kind: performance\nframework: megatron-bridge", "features: {grad_reduce_in_fp32: true}"));
}

TEST(RecipeYaml, LayoutIsKnownOnlyWithAllFourDegrees) {
  Diagnostics ds;
  auto r = convert("gpu: {type: h100, count: 8}\nlayout: {tp: 2, pp: 1, cp: 1}\n", ds);
  ASSERT_TRUE(r) << all(ds);
  EXPECT_FALSE(r->layout_known);
  EXPECT_EQ(r->kind, RecipeKind::kLibrary);
  EXPECT_FALSE(r->precision_known);
  r = convert("gpu: {type: h100, count: 8}\nlayout: {tp: 2, pp: 1, cp: 1, ep: 1}\n", ds);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->layout_known);
  EXPECT_EQ(r->layout.dp, 4);
}

TEST(RecipeYaml, FlexWithoutBackendIsDeepepAndGraphVariants) {
  Diagnostics ds;
  auto r = convert(
      "layout: {dispatcher: flex}\nfeatures: {cuda_graph: {impl: local, scope: full_iteration}}\n", ds);
  ASSERT_TRUE(r) << all(ds);
  EXPECT_EQ(r->layout.dispatcher, Dispatcher::kFlexDeepep);
  EXPECT_EQ(r->layout.cuda_graph, CudaGraph::kFullIteration);
  r = convert("features: {cuda_graph: {impl: none, scope: [attn]}}\n", ds);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->layout.cuda_graph, CudaGraph::kNone);
  EXPECT_EQ(r->layout.cuda_graph_scope, 0u);
  r = convert("features: {cuda_graph: {enabled: true}}\n", ds);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->layout.cuda_graph, CudaGraph::kLocal);
}

TEST(RecipeYaml, UnparseableValuesAreFindingsWithPositions) {
  Diagnostics ds;
  const auto r = convert(R"(
kind: verifed
mode: train
workload: {precision: fp7}
layout: {tp: two, dispatcher: ring, recompute: {granularity: most}}
features:
  cuda_graph: {impl: cudnn, scope: [attention]}
  recompute_modules: [core_attn, everything]
)",
                         ds);
  EXPECT_FALSE(r);
  const std::string text = all(ds);
  EXPECT_THAT(text, HasSubstr("r.yaml:2:7: error [RB-RECIPE-VALUE] `kind` is 'verifed'"));
  EXPECT_THAT(text, HasSubstr("r.yaml:3:7: error [RB-RECIPE-VALUE] `mode` is 'train'"));
  EXPECT_THAT(text, HasSubstr("r.yaml:4:23: error [RB-RECIPE-VALUE] `workload.precision` is 'fp7'"));
  EXPECT_THAT(text, HasSubstr("`layout.tp` must be an integer, found a string ('two')"));
  EXPECT_THAT(text, HasSubstr("`layout.dispatcher` is 'ring'"));
  EXPECT_THAT(text, HasSubstr("`layout.recompute.granularity` is 'most'"));
  EXPECT_THAT(text, HasSubstr("`features.cuda_graph.impl` is 'cudnn'"));
  EXPECT_THAT(text, HasSubstr("unknown module 'attention'"));
  EXPECT_THAT(text, HasSubstr("r.yaml:8:34: error [RB-RECIPE-VALUE] `features.recompute_modules` has an "
                              "unknown module 'everything'"));
}

// features.pipeline_layout as a Megatron-Core layout string: parsed into the stages; a phrase (the
// generator's "set in code by ...") is not a layout; a typo is a finding with the layout's column.
TEST(RecipeYaml, PipelineLayoutStringIsParsed) {
  Diagnostics ds;
  auto r = convert("layout: {tp: 2, pp: 4, vpp: 4, cp: 1, ep: 32}\nfeatures: {pipeline_layout: 'Et*3|(t*4|)*14t*2L'}\n", ds);
  ASSERT_TRUE(r) << all(ds);
  ASSERT_EQ(r->layout.pipeline_layout.size(), 16u);
  EXPECT_TRUE(r->layout.pipeline_layout[0].embedding);
  EXPECT_EQ(r->layout.pipeline_layout[0].decoder, 3);
  EXPECT_EQ(pipeline_layout_decoders(r->layout.pipeline_layout), 61);
  r = convert("features: {pipeline_layout: set in code by a_helper}\n", ds);
  ASSERT_TRUE(r) << all(ds);
  EXPECT_TRUE(r->layout.pipeline_layout.empty());
  Diagnostics bad;
  EXPECT_FALSE(convert("features: {pipeline_layout: 'Et|tq|L'}\n", bad));
  EXPECT_THAT(all(bad), HasSubstr("unknown layer letter 'q' at column 5"));
}

// features.fine_grained_offload + offload_modules (Megatron-Bridge's fine_grained_activation_offloading
// and offload_modules, as gen_catalog.py and `launch --target recipe` write them) reach the layout;
// the modules without the switch offload nothing (Megatron-Core reads them only with it on);
// Megatron's unmodelled fused_group_mlp is no error, an unknown name is.
TEST(RecipeYaml, FineGrainedOffloadModulesReachTheLayout) {
  Diagnostics ds;
  auto r = convert("layout: {tp: 1, pp: 1, cp: 1, ep: 8}\n"
                   "features: {fine_grained_offload: true, offload_modules: [core_attn, attn_proj]}\n",
                   ds);
  ASSERT_TRUE(r) << all(ds);
  EXPECT_EQ(r->layout.offload_modules, kOfCoreAttn | kOfAttnProj);
  EXPECT_DOUBLE_EQ(r->layout.activation_offload_fraction, 1.0);
  r = convert("features: {offload_modules: [expert_fc1]}\n", ds);
  ASSERT_TRUE(r) << all(ds);
  EXPECT_EQ(r->layout.offload_modules, 0u);
  // fused_group_mlp offloads the whole fused grouped expert MLP: read as expert_fc1 and moe_act
  // (before: as nothing, so Nemotron-3 Ultra's GB200/GB300 recipes were estimated without offload).
  r = convert("features: {fine_grained_offload: true, offload_modules: [fused_group_mlp]}\n", ds);
  ASSERT_TRUE(r) << all(ds);
  EXPECT_EQ(r->layout.offload_modules, kOfExpertFc1 | kOfMoeAct);
  r = convert("features: {fine_grained_offload: true, offload_modules: [gdp_qkv, expert_fc1]}\n", ds);
  ASSERT_TRUE(r) << all(ds);
  EXPECT_EQ(r->layout.offload_modules, kOfExpertFc1);
  // Megatron-Core activation_offload_fraction (before: not read, always 1.0).
  r = convert("features: {fine_grained_offload: true, offload_modules: [expert_fc1], activation_offload_fraction: 0.5}\n",
              ds);
  ASSERT_TRUE(r) << all(ds);
  EXPECT_DOUBLE_EQ(r->layout.activation_offload_fraction, 0.5);
  Diagnostics bad;
  EXPECT_FALSE(convert("features: {fine_grained_offload: true, offload_modules: [core_attn, qkv]}\n", bad));
  EXPECT_THAT(all(bad), HasSubstr("`features.offload_modules` has an unknown module 'qkv'"));
}

// Megatron-Core defaults only an unset recompute_modules to core_attn: selective over [] recomputes
// nothing (before: read as core_attn, as an unset list).
TEST(RecipeYaml, SelectiveOverNoModulesRecomputesNothing) {
  Diagnostics ds;
  auto r = convert("layout: {tp: 1, pp: 1, cp: 1, ep: 8, recompute: {granularity: selective}}\n"
                   "features: {recompute_modules: []}\n",
                   ds);
  ASSERT_TRUE(r) << all(ds);
  EXPECT_EQ(r->layout.recompute, Recompute::kNone);
  r = convert("layout: {tp: 1, pp: 1, cp: 1, ep: 8, recompute: {granularity: selective}}\n", ds);
  ASSERT_TRUE(r) << all(ds);
  EXPECT_EQ(r->layout.recompute, Recompute::kSelective);
  EXPECT_EQ(r->layout.recompute_modules, 0u);  // unset: Megatron's default, core_attn
}

// A measurement's own settings (`layout_overrides`) are read beside its degrees; unset fields stay
// unset (before: the key was not in the schema and the run was estimated with the recipe's).
TEST(RecipeYaml, MeasurementLayoutOverrides) {
  Diagnostics ds;
  auto r = convert("layout: {tp: 1, pp: 2, cp: 1, ep: 32}\n"
                   "measurements:\n"
                   "  - {release: '26.04', current: true, gpus: 256, precision: MXFP8, tokens_per_s_per_gpu: 1,\n"
                   "     layout_overrides: {recompute: {granularity: selective}, recompute_modules: [mla_up_proj],\n"
                   "                        fine_grained_offload: true, offload_modules: [fused_group_mlp], source: s}}\n"
                   "  - {release: '26.06', current: true, gpus: 256, precision: MXFP8, tokens_per_s_per_gpu: 1}\n",
                   ds);
  ASSERT_TRUE(r) << all(ds);
  ASSERT_EQ(r->measurements.size(), 2u);
  const Measurement::LayoutOverrides& o = r->measurements[0].overrides;
  EXPECT_EQ(o.recompute, Recompute::kSelective);
  EXPECT_EQ(o.recompute_modules, kRcMlaUpProj);
  EXPECT_EQ(o.offload_modules, kOfExpertFc1 | kOfMoeAct);
  EXPECT_FALSE(o.recompute_method.has_value());
  EXPECT_FALSE(o.cpu_offload_layers.has_value());
  EXPECT_FALSE(r->measurements[1].overrides.recompute.has_value());
  EXPECT_FALSE(r->measurements[1].overrides.recompute_modules.has_value());
  EXPECT_FALSE(o.cuda_graph.has_value());
  EXPECT_FALSE(o.ep_a2a_overlap.has_value());
  EXPECT_FALSE(o.mbs.has_value());
}

// The micro batch a run's release config set where the published column disagrees (before: not in
// the schema; the run was estimated at the published micro batch).
TEST(RecipeYaml, MeasurementMicroBatchOverride) {
  Diagnostics ds;
  auto r = convert(
      "layout: {tp: 2, pp: 4, cp: 1}\n"
      "measurements:\n"
      "  - {release: '25.09', current: true, gpus: 64, mbs: 2, precision: MXFP8, tokens_per_s_per_gpu: 1,\n"
      "     layout_overrides: {rows_per_microbatch: 1, source: s}}\n",
      ds);
  ASSERT_TRUE(r) << all(ds);
  ASSERT_EQ(r->measurements.size(), 1u);
  EXPECT_EQ(r->measurements[0].mbs, 2);
  EXPECT_EQ(r->measurements[0].overrides.mbs, 1);
}

// A measurement's CUDA graphs and EP overlap (before: not in the schema, the run was estimated with
// the recipe's).
TEST(RecipeYaml, MeasurementGraphAndEpOverlapOverrides) {
  Diagnostics ds;
  auto r = convert("layout: {tp: 1, pp: 1, cp: 1, ep: 8}\n"
                   "features: {cuda_graph: {impl: full_iteration, scope: []}, ep_a2a_overlap: true}\n"
                   "measurements:\n"
                   "  - {release: '26.04', current: true, gpus: 8, precision: MXFP8, tokens_per_s_per_gpu: 1,\n"
                   "     layout_overrides: {cuda_graph: {impl: transformer_engine, scope: [moe_router, moe_preprocess]},\n"
                   "                        ep_a2a_overlap: false, source: s}}\n",
                   ds);
  ASSERT_TRUE(r) << all(ds);
  ASSERT_EQ(r->measurements.size(), 1u);
  const Measurement::LayoutOverrides& o = r->measurements[0].overrides;
  EXPECT_EQ(o.cuda_graph, CudaGraph::kTransformerEngine);
  EXPECT_EQ(o.cuda_graph_scope, kCgMoeRouter | kCgMoePreprocess);
  EXPECT_EQ(o.ep_a2a_overlap, false);
  EXPECT_EQ(r->layout.cuda_graph, CudaGraph::kFullIteration);
}

// A Megatron-Bridge record whose `dispatcher` (read statically) is alltoall but which sets
// `features.flex_backend` ran flex from NeMo 26.04 on (overrides.py set_workload_base_configs,
// finalize_config_overrides on main), cards included; earlier releases keep the record's alltoall, and
// DeepEP falls back to alltoall on GB200/GB300. Before: every measurement ran alltoall.
TEST(RecipeYaml, ReleaseAppliesTheRecordedFlexBackend) {
  Diagnostics ds;
  const std::string head = "framework: megatron-bridge\ngpu: {type: b200, count: 256, per_node: 8}\n"
                           "layout: {tp: 1, pp: 8, cp: 1, ep: 32, dispatcher: alltoall}\n";
  const std::string ms = "measurements:\n"
                         "  - {release: '25.09', gpus: 256, tokens_per_s_per_gpu: 1}\n"
                         "  - {release: 26.04.01, gpus: 256, tokens_per_s_per_gpu: 1}\n"
                         "  - {release: 'card (nvcr.io/nvidia/nemo:26.08.rc5)', gpus: 256, tokens_per_s_per_gpu: 1}\n"
                         "  - {release: '26.06', gpu: gb200, gpus: 256, tokens_per_s_per_gpu: 1}\n";
  auto r = convert(head + "features: {flex_backend: deepep}\n" + ms, ds);
  ASSERT_TRUE(r) << all(ds);
  EXPECT_EQ(r->layout.dispatcher, Dispatcher::kAlltoall);  // the recipe as recorded
  ASSERT_EQ(r->measurements.size(), 4u);
  EXPECT_FALSE(r->measurements[0].overrides.dispatcher.has_value());
  EXPECT_EQ(r->measurements[1].overrides.dispatcher, Dispatcher::kFlexDeepep);
  EXPECT_EQ(r->measurements[2].overrides.dispatcher, Dispatcher::kFlexDeepep);
  EXPECT_FALSE(r->measurements[3].overrides.dispatcher.has_value());  // DeepEP on GB200: alltoall
  r = convert(head + "features: {flex_backend: hybridep}\n" + ms, ds);
  ASSERT_TRUE(r) << all(ds);
  EXPECT_EQ(r->measurements[3].overrides.dispatcher, Dispatcher::kFlexHybridep);
  r = convert(head + ms, ds);  // no backend recorded: alltoall throughout
  ASSERT_TRUE(r) << all(ds);
  for (const Measurement& m : r->measurements) EXPECT_FALSE(m.overrides.dispatcher.has_value());
  EXPECT_EQ(release_yymm("26.04.01"), 2604);
  EXPECT_EQ(release_yymm("card (nvcr.io/nvidia/nemo:26.08.rc5)"), 2608);
  EXPECT_FALSE(release_yymm("main").has_value());
}

// A measurement's own dispatcher (`layout_overrides.dispatcher`, with `flex_backend` as a record's
// features) is the run's, and wins over the release rule; flex without a backend is DeepEP. Before:
// the key was not read and every run took the record's dispatcher or the release rule's.
TEST(RecipeYaml, MeasurementDispatcherOverrideWinsOverTheReleaseRule) {
  Diagnostics ds;
  auto r = convert("framework: megatron-bridge\ngpu: {type: h100, count: 1024, per_node: 8}\n"
                   "layout: {tp: 2, pp: 8, cp: 1, ep: 64, dispatcher: alltoall}\nfeatures: {flex_backend: hybridep}\n"
                   "measurements:\n"
                   "  - {release: '25.09', gpus: 1024, tokens_per_s_per_gpu: 1,\n"
                   "     layout_overrides: {dispatcher: flex, flex_backend: deepep, ep_a2a_overlap: true, source: s}}\n"
                   "  - {release: '25.11', gpus: 1024, tokens_per_s_per_gpu: 1, layout_overrides: {dispatcher: flex, source: s}}\n"
                   "  - {release: 26.04.01, gpus: 1024, tokens_per_s_per_gpu: 1, layout_overrides: {dispatcher: alltoall, source: s}}\n"
                   "  - {release: '26.06', gpus: 1024, tokens_per_s_per_gpu: 1}\n",
                   ds);
  ASSERT_TRUE(r) << all(ds);
  ASSERT_EQ(r->measurements.size(), 4u);
  EXPECT_EQ(r->measurements[0].overrides.dispatcher, Dispatcher::kFlexDeepep);
  EXPECT_EQ(r->measurements[0].overrides.ep_a2a_overlap, true);
  EXPECT_EQ(r->measurements[1].overrides.dispatcher, Dispatcher::kFlexDeepep);
  EXPECT_EQ(r->measurements[2].overrides.dispatcher, Dispatcher::kAlltoall);    // over the 26.04 rule
  EXPECT_EQ(r->measurements[3].overrides.dispatcher, Dispatcher::kFlexHybridep);  // the rule's
  EXPECT_EQ(r->layout.dispatcher, Dispatcher::kAlltoall);
  Diagnostics bad;
  convert("layout: {tp: 1, pp: 1, cp: 1, ep: 8}\nmeasurements:\n"
          "  - {release: '25.09', gpus: 8, tokens_per_s_per_gpu: 1, layout_overrides: {dispatcher: ring, source: s}}\n",
          bad);
  EXPECT_TRUE(has_errors(bad));
}

// A Megatron-Bridge performance record runs what its scripts make of it: `dispatcher: alltoall`
// beside `features.flex_backend` is flex on Bridge main (scripts/performance/utils/utils.py
// finalize_config_overrides, overrides.py set_workload_base_configs from v0.4.0), so its own layout
// (what estimate, check, recommend and the Megatron-LM launch use) is flex, with DeepEP falling back
// to alltoall on GB200/GB300; the recorded dispatcher stays (Recipe::dispatcher_recorded), a run of
// a release before 26.04 keeps it, and a library record keeps its recorded one. Before: the
// performance record's layout was alltoall, and only its 26.04+ measurements ran flex.
TEST(RecipeYaml, PerformanceRecordRunsItsFlexBackend) {
  Diagnostics ds;
  const std::string head = "kind: performance\nframework: megatron-bridge\n";
  const std::string lay = "layout: {tp: 1, pp: 8, cp: 1, ep: 32, dispatcher: alltoall}\n";
  const std::string ms = "measurements:\n"
                         "  - {release: '25.09', gpus: 256, tokens_per_s_per_gpu: 1}\n"
                         "  - {release: 26.04.01, gpus: 256, tokens_per_s_per_gpu: 1}\n"
                         "  - {release: main, gpus: 256, tokens_per_s_per_gpu: 1}\n";
  auto r = convert(head + "gpu: {type: b200, count: 256, per_node: 8}\n" + lay + "features: {flex_backend: deepep}\n" + ms, ds);
  ASSERT_TRUE(r) << all(ds);
  EXPECT_EQ(r->layout.dispatcher, Dispatcher::kFlexDeepep);
  EXPECT_EQ(r->dispatcher_recorded, Dispatcher::kAlltoall);
  ASSERT_EQ(r->measurements.size(), 3u);
  EXPECT_EQ(r->measurements[0].overrides.dispatcher, Dispatcher::kAlltoall);  // 25.09: as recorded
  EXPECT_FALSE(r->measurements[1].overrides.dispatcher.has_value());         // the record's flex
  EXPECT_EQ(r->measurements[2].overrides.dispatcher, Dispatcher::kAlltoall);  // no known release
  // DeepEP on GB200 falls back; HybridEP runs there.
  r = convert(head + "gpu: {type: gb200, count: 256, per_node: 4}\n" + lay + "features: {flex_backend: deepep}\n", ds);
  ASSERT_TRUE(r) << all(ds);
  EXPECT_EQ(r->layout.dispatcher, Dispatcher::kAlltoall);
  r = convert(head + "gpu: {type: gb200, count: 256, per_node: 4}\n" + lay + "features: {flex_backend: hybridep}\n", ds);
  ASSERT_TRUE(r) << all(ds);
  EXPECT_EQ(r->layout.dispatcher, Dispatcher::kFlexHybridep);
  EXPECT_EQ(record_dispatcher(*r, "h100", 2509), Dispatcher::kAlltoall);
  // A library record runs its recipe function's choice: the recorded alltoall.
  r = convert("kind: library\nframework: megatron-bridge\ngpu: {type: b200, count: 256, per_node: 8}\n" + lay +
                  "features: {flex_backend: deepep}\n",
              ds);
  ASSERT_TRUE(r) << all(ds);
  EXPECT_EQ(r->layout.dispatcher, Dispatcher::kAlltoall);
}

// A library recipe function that ends with apply_flex_dispatcher_backend (its `helpers`; Bridge
// recipes/qwen/h100/qwen3_moe.py) runs flex where the GPU takes the backend, as a performance record
// does; on GB200 DeepEP falls back to alltoall. Before: the record's layout kept the static read's alltoall.
TEST(RecipeYaml, LibraryRecipeThatAppliesTheFlexBackendRunsIt) {
  Diagnostics ds;
  const std::string rec = "kind: library\nframework: megatron-bridge\ngpu: {type: h100, count: 8, per_node: 8}\n"
                          "layout: {tp: 1, pp: 1, cp: 1, ep: 8, dispatcher: alltoall}\n"
                          "features: {flex_backend: deepep}\n";
  auto r = convert(rec + "helpers: [apply_flex_dispatcher_backend]\n", ds);
  ASSERT_TRUE(r) << all(ds);
  EXPECT_TRUE(r->applies_flex_backend);
  EXPECT_EQ(r->layout.dispatcher, Dispatcher::kFlexDeepep);
  EXPECT_EQ(r->dispatcher_recorded, Dispatcher::kAlltoall);
  EXPECT_EQ(own_dispatcher(*r, "gb200"), Dispatcher::kAlltoall);
  r = convert(rec + "helpers: [_qwen3_common]\n", ds);  // another helper: the recorded dispatcher
  ASSERT_TRUE(r) << all(ds);
  EXPECT_EQ(r->layout.dispatcher, Dispatcher::kAlltoall);
}

// Megatron-Core first_last_layers_bf16 and its counts (features.settings, by their Megatron names)
// reach the layout; the counts alone, with the switch off, keep every layer quantized (Megatron-Core
// reads them only with the switch on: fp4_utils.py get_fp4_context). Before, the layout had no such
// field and the settings stayed settings for the rules.
TEST(RecipeYaml, Bf16FirstLastLayersReachTheLayoutWithTheirSwitch) {
  Diagnostics ds;
  auto r = convert("workload: {precision: nvfp4}\nlayout: {tp: 1, pp: 1, cp: 1, ep: 8}\n"
                   "features: {settings: {first_last_layers_bf16: true, num_layers_at_start_in_bf16: 0,\n"
                   "                      num_layers_at_end_in_bf16: 14}}\n",
                   ds);
  ASSERT_TRUE(r) << all(ds);
  EXPECT_EQ(r->layout.bf16_layers_at_start, 0);
  EXPECT_EQ(r->layout.bf16_layers_at_end, 14);
  r = convert("workload: {precision: nvfp4}\nlayout: {tp: 1, pp: 1, cp: 1, ep: 8}\n"
              "features: {settings: {first_last_layers_bf16: false, num_layers_at_end_in_bf16: 14}}\n",
              ds);
  ASSERT_TRUE(r) << all(ds);
  EXPECT_EQ(r->layout.bf16_layers_at_end, 0);
}

// features.bf16_modules / mxfp8_modules (a quantization recipe's module lists, by Megatron-Core
// module name) reach the layout; an unknown name is an error that names the choices.
TEST(RecipeYaml, ModulePrecisionListsReachTheLayout) {
  Diagnostics ds;
  auto r = convert("workload: {precision: nvfp4}\nlayout: {tp: 1, pp: 1, cp: 1, ep: 8}\n"
                   "features: {bf16_modules: [linear_qkv, linear_proj, latent_proj, mtp], mxfp8_modules: [out_proj]}\n",
                   ds);
  ASSERT_TRUE(r) << all(ds);
  EXPECT_EQ(r->layout.bf16_modules, kGmLinearQkv | kGmLinearProj | kGmLatentProj | kGmMtp);
  EXPECT_EQ(r->layout.mxfp8_modules, kGmOutProj);
  Diagnostics bad;
  convert("workload: {precision: nvfp4}\nlayout: {tp: 1, pp: 1, cp: 1, ep: 8}\nfeatures: {bf16_modules: [qkv]}\n", bad);
  EXPECT_NE(all(bad).find("unknown module 'qkv'"), std::string::npos) << all(bad);
}

TEST(RecipeYaml, NotAMap) {
  Diagnostics ds;
  EXPECT_FALSE(convert("- a\n", ds));
  EXPECT_THAT(all(ds), HasSubstr("a recipe file must be a map"));
}

}  // namespace
}  // namespace rb

namespace rb {
namespace {

// Seed 000's image budget: the `vision:` block reaches the typed record (Recipe::image), which the
// estimator runs the vision tower on; a record without one has none.
TEST(RecipeYaml, VisionBlockIsTheImageBudget) {
  Diagnostics ds;
  const auto r = convert(R"(
schema_version: 1
model: Qwen3.5-35B-A3B
gpu: {type: gb300, count: 8, per_node: 4}
workload: {global_batch: 2048, precision: mxfp8}
vision: {max_pixels: 200704, images_per_sample: 2, cuda_graph_max_patches: 3712}
)", ds);
  ASSERT_TRUE(r) << all(ds);
  EXPECT_EQ(r->image.max_pixels, 200704);
  EXPECT_EQ(r->image.images_per_sample, 2);
  EXPECT_EQ(r->image.graph_max_patches, 3712);
  const auto text = convert(kSeed002, ds);
  ASSERT_TRUE(text) << all(ds);
  EXPECT_EQ(text->image, ImageBudget{});
}

}  // namespace
}  // namespace rb
