#include "recipebook/catalog/measured_points.hpp"
#include "recipebook/estimate/microbench.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "recipebook/catalog/test_catalog.hpp"
#include "recipebook/search/resize.hpp"

namespace rb {
namespace {

// A record of the built-in catalog with its model, for the tests of one record's runs.
struct RecordWithModel {
  Recipe rec;
  Model model;
};

std::optional<RecordWithModel> record_with_model(const std::string& name) {
  auto rec = builtin().resolved(name);
  if (!rec) return std::nullopt;
  auto model = builtin().find_model(rec->model);
  if (!model) return std::nullopt;
  return RecordWithModel{*rec, *model};
}

// The layout measured_run gives the record's measurement of `release` (the current one when
// `current_only`); every measurement of the record must yield a run.
std::optional<Layout> run_layout(const RecordWithModel& r, const std::string& release, bool current_only) {
  std::optional<Layout> found;
  for (const Measurement& m : r.rec.measurements) {
    auto run = measured_run(r.rec, m, r.model);
    if (!run) {
      ADD_FAILURE() << "no run for " << m.release;
      continue;
    }
    if (!found && m.release == release && (m.current || !current_only)) found = run->layout;
  }
  return found;
}

// Only benchmark runs are calibrated on: performance-table rows and the cards' pretrain_performance
// items. Card rows that train on a dataset (SFT, PEFT, real-data pretraining) are predicted, not fitted.
TEST(MeasuredPoints, BenchmarkRunsAreTablesAndPerformanceCardItems) {
  auto cat = Catalog::load();
  ASSERT_TRUE(cat.has_value());
  const MeasuredPoints mp = measured_points(*cat, /*neutral_efficiency=*/true);
  int tables = 0, perf_cards = 0, dataset_cards = 0;
  for (const MeasuredPoint& p : mp.points) {
    if (!p.card) {
      EXPECT_TRUE(p.benchmark) << p.label;
      ++tables;
    } else if (p.benchmark) {
      ++perf_cards;
    } else {
      ++dataset_cards;
    }
    EXPECT_FALSE(p.release.empty()) << p.label;
    EXPECT_NE(p.label.find(p.release), std::string::npos) << p.label;
    // Neutral efficiencies: nothing fitted leaks into a leave-one-out start; the GPU's published
    // microbenchmarks (not end-to-end fits) set it.
    EXPECT_DOUBLE_EQ(p.point.hardware.eff(p.point.layout.precision).gemm,
                     prior_efficiency(p.point.hardware, p.point.layout.precision).gemm)
        << p.label;
  }
  EXPECT_GT(tables, 100);
  EXPECT_GT(perf_cards, 0);
  EXPECT_GT(dataset_cards, 0);
  // Every SFT or PEFT card row comes from a dataset.
  for (const MeasuredPoint& p : mp.points) {
    if (p.card && p.point.work.mode != Mode::kPretrain) {
      EXPECT_FALSE(p.benchmark) << p.label;
    }
  }
}

// Before: measured_points estimated a PP that does not divide the layers (and that the run splits
// in code) raw, while show, recommend and `estimate --recipe` split it (modelled_layout); now
// measured_run gives the modelled layout to all of them.
TEST(MeasuredPoints, RunsAreModelledAsEstimateRecipeModelsThem) {
  auto cat = Catalog::load();
  ASSERT_TRUE(cat.has_value());
  auto model = cat->find_model("DeepSeek-V3");  // 61 layers
  ASSERT_TRUE(model);
  Recipe rec;
  rec.model = model->name;
  rec.gpus = 256;
  rec.layout.pp = 8;
  rec.layout.ep = 32;
  rec.layout_known = true;
  Measurement m;
  m.gpus = 256;
  m.pp = 16;
  m.tokens_per_s_per_gpu = 1;
  auto run = measured_run(rec, m, *model);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->layout.pp, 16);
  EXPECT_GT(run->layout.first_stage_layers, 0);
  const Layout again = modelled_layout(model->num_layers(), run->layout);
  EXPECT_EQ(again.first_stage_layers, run->layout.first_stage_layers);
  EXPECT_EQ(again.vp, run->layout.vp);
  // A recipe's explicit layout is its own PP's: a measurement at another PP drops it.
  auto stages = parse_pipeline_layout("Et*8|(t*8|)*6t*5mL");
  ASSERT_TRUE(stages);
  rec.layout.pipeline_layout = *stages;
  auto other = measured_run(rec, m, *model);
  ASSERT_TRUE(other);
  EXPECT_TRUE(other->layout.pipeline_layout.empty());
  EXPECT_GT(other->layout.first_stage_layers, 0);

  // Every calibration point is a modelled layout, and some needed the split.
  const MeasuredPoints mp = measured_points(*cat, /*neutral_efficiency=*/true);
  int split = 0;
  for (const MeasuredPoint& p : mp.points) {
    const Layout mod = modelled_layout(p.point.model->num_layers, p.point.layout);
    EXPECT_EQ(mod.first_stage_layers, p.point.layout.first_stage_layers) << p.label;
    EXPECT_EQ(mod.vp, p.point.layout.vp) << p.label;
    split += p.point.layout.first_stage_layers > 0 ? 1 : 0;
  }
  EXPECT_GT(split, 0);
}

// A run at the recipe's own TP ran the recipe's sequence parallelism: Qwen3.5-VL-27B SFT on 16 H100
// sets TP 4 with sequence_parallel False (recipes/qwen_vl/h100/qwen35_vl.py) and its card measured
// that. A run at another TP is a performance script's, which turns SP on whenever TP > 1. Before,
// every run with TP > 1 was estimated with SP.
TEST(MeasuredPoints, RunsKeepTheRecipesSequenceParallelism) {
  const auto r = record_with_model("qwen35_vl_27b_sft_16gpu_h100_bf16_config");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->rec.layout.tp, 4);
  ASSERT_FALSE(r->rec.layout.sp);
  ASSERT_FALSE(r->rec.measurements.empty());
  Measurement m = r->rec.measurements.front();
  auto same = measured_run(r->rec, m, r->model);
  ASSERT_TRUE(same);
  EXPECT_EQ(same->layout.tp, 4);
  EXPECT_FALSE(same->layout.sp);
  m.tp = 2;
  m.pp = 4;
  auto other = measured_run(r->rec, m, r->model);
  ASSERT_TRUE(other);
  EXPECT_TRUE(other->layout.sp);
}

// A performance-table row whose VP column says "n/a" ran without virtual pipeline stages: the
// DeepSeek-V3 256 x B300 MXFP8 row of 26.06 (MBS 2, PP 8, VP n/a; the recipe moved to VP 2 and
// MBS 1 later, Megatron-Bridge ecfcd8460) is modelled at VP 1 without the recipe's 16-stage layout
// (before: VP 2 with it, predicted 326 of 290 GB).
TEST(MeasuredPoints, VpNotApplicableIsOneVirtualStage) {
  const auto r = record_with_model("deepseek_v3_pretrain_256gpu_b300_fp8mx_config");
  ASSERT_TRUE(r);
  const Recipe& rec = r->rec;
  const Model& model = r->model;
  ASSERT_EQ(rec.layout.vp, 2);
  const auto m = std::find_if(rec.measurements.begin(), rec.measurements.end(),
                              [](const Measurement& x) { return x.release == "26.06"; });
  ASSERT_NE(m, rec.measurements.end());
  EXPECT_EQ(m->vp, 1);
  auto run = measured_run(rec, *m, model);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->layout.vp, 1);
  EXPECT_TRUE(run->layout.pipeline_layout.empty());
  EXPECT_EQ(run->layout.mbs, 2);
}

// A run is estimated with the settings it used: DeepSeek-V3 256 x GB300 MXFP8 at 26.04.01 ran the
// GB300_V2 workload config (MBS 2, recompute_modules [mla_up_proj]); the recipe now runs MBS 1
// without recompute. Before: the run was estimated without recompute (and predicted not to fit).
TEST(MeasuredPoints, RunsUseTheirOwnRecompute) {
  const auto r = record_with_model("deepseek_v3_pretrain_256gpu_gb300_fp8mx_config");
  ASSERT_TRUE(r);
  const Recipe& rec = r->rec;
  EXPECT_EQ(rec.layout.recompute, Recompute::kNone);  // selective over [] recomputes nothing
  const auto older = run_layout(*r, "26.04.01", true);
  const auto newer = run_layout(*r, "26.08", false);
  ASSERT_TRUE(older);
  ASSERT_TRUE(newer);
  EXPECT_EQ(older->mbs, 2);
  EXPECT_EQ(older->recompute, Recompute::kSelective);
  EXPECT_EQ(older->recompute_modules, kRcMlaUpProj);
  EXPECT_EQ(newer->recompute, Recompute::kNone);
}

// A run is estimated at the micro batch its release's config set where the published column
// disagrees: Llama-3-70B 64 x GB200 MXFP8 at 25.09 is published with MBS 2 and GA 16 (= MBS 1 at
// DP 8), and llama3_70b_llm_pretrain.yaml@v0.1.0rc3 runs MBS 1 (`layout_overrides.rows_per_microbatch`).
// Before: estimated at MBS 2 and predicted not to fit (212 of 184 GiB).
TEST(MeasuredPoints, RunsUseTheMicroBatchTheirReleaseRan) {
  const auto r = record_with_model("llama3_70b_pretrain_64gpu_gb200_fp8mx_config");
  ASSERT_TRUE(r);
  const auto run = run_layout(*r, "25.09", true);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->mbs, 1);
}

// A run is estimated with the dispatcher its release ran: DeepSeek-V3 256 x B200 MXFP8 at 26.04.01
// ran DEEPSEEK_V3_PRETRAIN_CONFIG_B200_FP8_MX_V2 (moe_flex_dispatcher_backend="deepep", applied by
// set_workload_base_configs); the record reads `dispatcher: alltoall` beside `flex_backend: deepep`.
// Before: the run was estimated with the alltoall dispatcher (-68% throughput).
TEST(MeasuredPoints, RunsUseTheDispatcherTheirReleaseRan) {
  const auto r = record_with_model("deepseek_v3_pretrain_256gpu_b200_fp8mx_config");
  ASSERT_TRUE(r);
  const Recipe& rec = r->rec;
  const Model& model = r->model;
  EXPECT_EQ(rec.dispatcher_recorded, Dispatcher::kAlltoall);  // as written; the record runs flex
  EXPECT_EQ(rec.layout.dispatcher, Dispatcher::kFlexDeepep);
  int seen = 0;
  for (const Measurement& m : rec.measurements) {
    if (m.release != "26.04.01") continue;
    auto run = measured_run(rec, m, model);
    ASSERT_TRUE(run) << m.release;
    EXPECT_EQ(run->layout.dispatcher, Dispatcher::kFlexDeepep);
    ++seen;
  }
  EXPECT_EQ(seen, 1);
}

// Before NeMo 26.04 each release's script chose the dispatcher per model and GPU, and the runs carry
// it (`layout_overrides.dispatcher`, scripts/gen_catalog.py): DeepSeek-V3 on 1,024 H100 at 25.09 ran
// DeepEP with 1F1B A2A overlap (run_script.py@v0.1.0rc3); Qwen3-30B-A3B on 8 B200 at 25.11 and
// 26.02 ran the provider's alltoall without overlap (no flex backend in their workload configs), the
// record's HybridEP only from 26.02.01. Before: the H100 runs were estimated with alltoall and no
// overlap, the B200 ones with HybridEP and overlap.
TEST(MeasuredPoints, RunsUseTheDispatcherTheirScriptChose) {
  for (const char* name : {"deepseek_v3_pretrain_1024gpu_h100_fp8cs_config", "deepseek_v3_pretrain_1024gpu_h100_fp8sc_config"}) {
    const auto r = record_with_model(name);
    ASSERT_TRUE(r) << name;
    EXPECT_EQ(r->rec.dispatcher_recorded, Dispatcher::kAlltoall);  // the record runs its flex_backend (record_dispatcher)
    const auto run = run_layout(*r, "25.09", true);
    ASSERT_TRUE(run) << name;
    EXPECT_EQ(run->dispatcher, Dispatcher::kFlexDeepep) << name;
    EXPECT_TRUE(run->ep_a2a_overlap) << name;
  }
  const auto q = record_with_model("qwen3_30b_a3b_pretrain_8gpu_b200_fp8mx_config");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->rec.layout.dispatcher, Dispatcher::kFlexHybridep);
  for (const char* release : {"25.11", "26.02"}) {
    const auto run = run_layout(*q, release, true);
    ASSERT_TRUE(run) << release;
    EXPECT_EQ(run->dispatcher, Dispatcher::kAlltoall) << release;
    EXPECT_FALSE(run->ep_a2a_overlap) << release;
  }
  const auto later = run_layout(*q, "26.02.01", true);
  ASSERT_TRUE(later);
  EXPECT_EQ(later->dispatcher, Dispatcher::kFlexHybridep);
}

// A run is estimated with the CUDA graphs and EP overlap of its release: Qwen3-30B-A3B 8 x GB200
// MXFP8 up to 26.04.01 ran QWEN3_30B_A3B_PRETRAIN_CONFIG_GB200_FP8_MX_V1 of Megatron-Bridge v0.4.2
// (TE graphs over [moe_router, moe_preprocess], moe_a2a_overlap off); v0.5.0 (26.06) moved it to a
// full-iteration graph with A2A overlap, as the recipe is now. Before: every release was estimated
// with the recipe's full-iteration graph and overlap.
TEST(MeasuredPoints, RunsUseTheirOwnCudaGraphsAndEpOverlap) {
  const auto r = record_with_model("qwen3_30b_a3b_pretrain_8gpu_gb200_fp8mx_config");
  ASSERT_TRUE(r);
  const Recipe& rec = r->rec;
  EXPECT_EQ(rec.layout.cuda_graph, CudaGraph::kFullIteration);
  EXPECT_TRUE(rec.layout.ep_a2a_overlap);
  const auto older = run_layout(*r, "26.04.01", true);
  const auto newer = run_layout(*r, "26.06", false);
  ASSERT_TRUE(older);
  ASSERT_TRUE(newer);
  EXPECT_EQ(older->cuda_graph, CudaGraph::kTransformerEngine);
  EXPECT_EQ(older->cuda_graph_scope, kCgMoeRouter | kCgMoePreprocess);
  EXPECT_FALSE(older->ep_a2a_overlap);
  EXPECT_EQ(newer->cuda_graph, CudaGraph::kFullIteration);
  EXPECT_TRUE(newer->ep_a2a_overlap);
}

}  // namespace
}  // namespace rb
