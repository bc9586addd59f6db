#include "recipebook/estimate/estimate.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>

#include "recipebook/estimate/flops.hpp"
#include "recipebook/estimate/test_hardware.hpp"
#include "recipebook/estimate/test_models.hpp"

namespace rb {
namespace {

Estimate run(const PreparedModel& pm, const Hardware& hw, const Layout& l, int64_t seq, int64_t gbs,
             Mode mode = Mode::kPretrain, double budget = 0) {
  Workload w;
  w.mode = mode;
  w.seq = seq;
  w.gbs = gbs;
  w.tokens_budget = budget;
  Cluster c;
  c.gpus = l.world();
  return estimate(pm, hw, w, c, l);
}

TEST(Estimate, PreparedFlopsEqualMegatronCount) {
  for (const Model& m : test::all_test_models()) {
    const PreparedModel pm = prepare(m);
    for (int64_t seq : {2048, 8192}) {
      for (int tp : {1, 8}) {
        FlopsOptions opt;
        opt.tp = tp;
        const double want = megatron_flops_per_token(m, seq, opt);
        EXPECT_NEAR(prepared_flops_per_token(pm, seq, tp), want, 1e-9 * want) << m.name << " seq " << seq;
      }
    }
  }
}

// LoRA: the frozen base has no weight-gradient GEMMs, so the count is Megatron-Bridge's LoRA count
// (flop_utils.py: frozen terms x 2/3 plus the attention core), not the full training count. Before
// this, estimate reported 433 GFLOP/token for Llama-3-70B LoRA and MFU 110.6% on 8 H100 FP8.
TEST(Estimate, LoraCountsTheFrozenBase) {
  for (const Model& m : test::all_test_models()) {
    const PreparedModel pm = prepare(m);
    for (int64_t seq : {2048, 8192}) {
      FlopsOptions opt;
      opt.tp = 2;
      const double want = lora_flops_per_token(m, seq, opt);
      EXPECT_NEAR(prepared_flops_per_token(pm, seq, 2, Mode::kPeft), want, 1e-9 * want) << m.name << " seq " << seq;
    }
  }
  const PreparedModel pm = prepare(test::llama3_70b());
  const Layout l{.tp = 2, .pp = 4, .vp = 20, .dp = 1, .sp = true, .precision = Precision::kFp8Cs};
  const Estimate e = run(pm, test::h100(), l, 4096, 32, Mode::kPeft);
  ASSERT_TRUE(e.valid) << invalid_reason_name(e.reason);
  EXPECT_NEAR(e.model_flops_per_token / 1e9, 294.1, 0.1);  // 278 on packed SQuAD: the core term
  EXPECT_LT(e.mfu, 1.0);
  EXPECT_LT(e.mfu_bf16, 1.0);
}

TEST(Estimate, DerivedFiguresFollowTheirDefinitions) {
  const PreparedModel pm = prepare(test::qwen35_397b());
  const Hardware hw = test::b200();
  const Layout l = test::seed002_layout();
  const Estimate e = run(pm, hw, l, 8192, 128, Mode::kSft, 1e9);
  ASSERT_TRUE(e.valid) << invalid_reason_name(e.reason);
  EXPECT_TRUE(e.fits());
  EXPECT_EQ(e.microbatches, 32);
  EXPECT_DOUBLE_EQ(e.tokens_per_step, 128.0 * 8192);
  EXPECT_NEAR(e.tokens_per_s_per_gpu, e.tokens_per_step / e.step_time_s / 48, 1e-9);
  // Seed 002's formulas: MFU = 6 N_active tokens/s / BF16 peak; USD per 1M tokens = price / (tps 3600) 1e6.
  EXPECT_NEAR(e.mfu_6n, 6.0 * 16'331'407'360.0 * e.tokens_per_s_per_gpu / 2.25e15, 1e-12);
  EXPECT_NEAR(e.usd_per_million_tokens, 14.2416 / (e.tokens_per_s_per_gpu * 3600) * 1e6, 1e-9);
  EXPECT_NEAR(e.model_tflops_per_gpu, e.model_flops_per_token * e.tokens_per_s_per_gpu / 1e12, 1e-9);
  EXPECT_NEAR(e.mfu, e.model_tflops_per_gpu * 1e12 / 2.25e15, 1e-12);
  EXPECT_NEAR(e.gpu_hours, 1e9 / (e.tokens_per_s_per_gpu * 3600), 1e-9);
  EXPECT_NEAR(e.days, e.gpu_hours / 48 / 24, 1e-12);
  EXPECT_LT(e.mfu, 1.0);
}

TEST(Estimate, MfuDenominatorIsExplicit) {
  const PreparedModel pm = prepare(test::llama3_8b());
  const Hardware hw = test::h100();
  Layout l;
  l.dp = 8;
  l.precision = Precision::kFp8Cs;
  const Estimate e = run(pm, hw, l, 8192, 64);
  ASSERT_TRUE(e.valid);
  EXPECT_NEAR(e.mfu_bf16 / e.mfu, 1978.9 / 989.4, 1e-9);
}

TEST(Estimate, NonsenseGivesAReasonNotNan) {
  const PreparedModel pm = prepare(test::qwen3_30b_a3b());
  const Hardware hw = test::h100();
  Layout ok;
  ok.ep = 8;
  ok.dp = 8;
  ASSERT_TRUE(run(pm, hw, ok, 4096, 64).valid);

  Layout zero = ok;
  zero.tp = 0;
  EXPECT_EQ(run(pm, hw, zero, 4096, 64).reason, InvalidReason::kZeroDegree);
  EXPECT_EQ(run(pm, hw, ok, 0, 64).reason, InvalidReason::kSequence);
  EXPECT_EQ(run(pm, hw, ok, 4096, 60).reason, InvalidReason::kBatch);
  EXPECT_EQ(run(pm, hw, ok, 4096, 0).reason, InvalidReason::kBatch);
  Layout ep = ok;
  ep.ep = 3;
  EXPECT_EQ(run(pm, hw, ep, 4096, 64).reason, InvalidReason::kExperts);
  Layout egroups = ok;
  egroups.dp = 4;
  egroups.ep = 16;
  EXPECT_EQ(run(pm, hw, egroups, 4096, 64).reason, InvalidReason::kExpertGroups);
  Layout heads = ok;
  heads.tp = 3;
  heads.ep = 1;
  heads.dp = 1;
  EXPECT_EQ(run(pm, hw, heads, 4096, 64).reason, InvalidReason::kHeads);
  Layout stages = ok;
  stages.pp = 64;
  stages.dp = 1;
  stages.ep = 1;
  EXPECT_EQ(run(pm, hw, stages, 4096, 64).reason, InvalidReason::kStages);
  Workload w;
  w.gbs = 64;
  Cluster c;
  c.gpus = 16;
  EXPECT_EQ(estimate(pm, hw, w, c, ok).reason, InvalidReason::kGpuCountMismatch);
  Hardware none = hw;
  none.has_specs = false;
  EXPECT_EQ(run(pm, none, ok, 4096, 64).reason, InvalidReason::kNoHardwareSpecs);
  Layout fp4 = ok;
  fp4.precision = Precision::kNvfp4;
  EXPECT_EQ(run(pm, hw, fp4, 4096, 64).reason, InvalidReason::kPrecisionUnsupported);
  Model empty;
  EXPECT_EQ(run(prepare(empty), hw, ok, 4096, 64).reason, InvalidReason::kNoArchitecture);
  Model dense = test::llama3_8b();
  EXPECT_EQ(run(prepare(dense), hw, ok, 4096, 64).reason, InvalidReason::kExperts);
  for (auto r : {InvalidReason::kNone, InvalidReason::kHeads, InvalidReason::kBatch})
    EXPECT_FALSE(invalid_reason_name(r).empty());
}

TEST(Estimate, MoreGpusOnTheSameJobFinishSooner) {
  const PreparedModel pm = prepare(test::llama3_70b());
  const Hardware hw = test::gb200();
  Layout l;
  l.tp = 2;
  l.sp = true;
  l.pp = 4;
  l.vp = 5;
  l.dp = 8;
  const Estimate small = run(pm, hw, l, 8192, 256, Mode::kPretrain, 1e12);
  l.dp = 16;
  const Estimate large = run(pm, hw, l, 8192, 256, Mode::kPretrain, 1e12);
  ASSERT_TRUE(small.valid && large.valid);
  EXPECT_LT(large.step_time_s, small.step_time_s);
  EXPECT_LT(large.days, small.days);
}

// Every field finite for any layout the generator builds, valid or not.
RC_GTEST_PROP(EstimateProperty, AlwaysFinite, ()) {
  static const PreparedModel kModels[] = {prepare(test::deepseek_v3()), prepare(test::qwen35_35b()),
                                          prepare(test::nemotron_h_8b()), prepare(test::gpt_oss_120b())};
  const PreparedModel& pm = kModels[*rc::gen::element(0, 1, 2, 3)];
  const Hardware hw = *rc::gen::element(test::h100(), test::b200(), test::gb300());
  Layout l;
  l.tp = *rc::gen::element(0, 1, 2, 4, 8);
  l.pp = *rc::gen::element(1, 2, 3, 8, 16);
  l.vp = *rc::gen::element(1, 2, 4);
  l.cp = *rc::gen::element(1, 2, 8);
  l.ep = *rc::gen::element(1, 2, 8, 64);
  l.dp = *rc::gen::element(1, 2, 8, 32);
  l.mbs = *rc::gen::element(1, 2, 4);
  l.sp = *rc::gen::arbitrary<bool>();
  l.fsdp = *rc::gen::arbitrary<bool>();
  l.precision = *rc::gen::element(Precision::kBf16, Precision::kFp8Blockwise, Precision::kMxfp8, Precision::kNvfp4);
  l.recompute = *rc::gen::element(Recompute::kNone, Recompute::kSelective, Recompute::kFull);
  l.recompute_modules = *rc::gen::element(0u, kRcMoe | kRcMlaUpProj, kRcMlp | kRcLayernorm);
  l.recompute_method = *rc::gen::element(RecomputeMethod::kUniform, RecomputeMethod::kBlock);
  l.recompute_layers = *rc::gen::element(1, 2, 5);
  l.cuda_graph = *rc::gen::element(CudaGraph::kNone, CudaGraph::kTransformerEngine, CudaGraph::kFullIteration);
  l.dispatcher = *rc::gen::element(Dispatcher::kAlltoall, Dispatcher::kAllgather, Dispatcher::kFlexDeepep);
  l.tp_comm_overlap = *rc::gen::arbitrary<bool>();
  l.ep_a2a_overlap = *rc::gen::arbitrary<bool>();
  l.cpu_offload_layers = *rc::gen::element(0, 4);
  const Mode mode = *rc::gen::element(Mode::kPretrain, Mode::kSft, Mode::kPeft);
  const int64_t seq = *rc::gen::element<int64_t>(1024, 4096, 32768);
  const int64_t gbs = *rc::gen::element<int64_t>(64, 256, 1024);
  const Estimate e = run(pm, hw, l, seq, gbs, mode, 1e10);
  if (!e.valid) {
    RC_ASSERT(e.reason != InvalidReason::kNone);
    return;
  }
  RC_ASSERT(std::isfinite(e.step_time_s) && e.step_time_s > 0);
  RC_ASSERT(std::isfinite(e.tokens_per_s_per_gpu) && e.tokens_per_s_per_gpu > 0);
  RC_ASSERT(std::isfinite(e.mfu) && e.mfu > 0);
  RC_ASSERT(std::isfinite(e.memory.worst.peak_bytes) && e.memory.worst.peak_bytes > 0);
  RC_ASSERT(std::isfinite(e.days) && std::isfinite(e.usd_per_million_tokens));
  RC_ASSERT(std::abs(e.time.sum() - e.step_time_s) <= 1e-9 * e.step_time_s);
  RC_ASSERT(std::abs(e.memory.worst.sum() - e.memory.worst.peak_bytes) <= 1e-6 * e.memory.worst.peak_bytes);
}

}  // namespace
}  // namespace rb
