// Properties of the estimator over the whole built-in catalog, and its LoRA FLOPs against every
// measured LoRA row.
//
// 1. Every recipe whose model has an architecture and whose GPU has figures, with its recorded
//    layout, in each mode (pretrain, sft, peft): where the layout rules and the estimator accept it,
//    MFU < 1, tokens/s x FLOPs/token = model FLOP/s, the memory parts add up to the peak, the time
//    parts to the step, and the step time is positive. The number evaluated must be large, so the
//    test cannot pass on an empty loop.
// 2. Every LoRA measurement in the catalog (from ../shared/data/measured_megatron_bridge.csv, the
//    `lora` rows) that publishes model TFLOP/s: TFLOP/s / tokens/s is the GFLOP/token Megatron-Bridge
//    counted. The performance-summary rows (Llama-3-70B, packed SQuAD) use flop_utils.py's LoRA
//    branch, the frozen-base count (forward + dgrad of every frozen weight, 3 x the attention core
//    over the packed sequences); the verification cards' rows go through the generic branch, the full
//    training count (3 x forward) over the real tokens. Either way the linear terms per token do not
//    depend on the lengths, so the measured figure lies between the count with no attention core and
//    the count with the whole row as one sequence (vision towers excluded: the IR has no image budget).
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "recipebook/cmd_estimate.hpp"
#include "recipebook/cmd_plan.hpp"
#include "recipebook/emit/launch_test_util.hpp"
#include "recipebook/estimate/estimate.hpp"
#include "recipebook/estimate/flops.hpp"
#include "recipebook/estimate/prepared.hpp"
#include "recipebook/rules/check_layout.hpp"
#include "cli_support.hpp"

namespace rb {
namespace {

bool has_error(const std::vector<Finding>& fs) {
  for (const Finding& f : fs)
    if (f.severity == Severity::kError) return true;
  return false;
}

TEST(EstimateProperties, EveryCatalogRecipeInEveryMode) {
  const Catalog& cat = test::builtin_catalog();
  int evaluated = 0;
  int refused_by_rules = 0;
  int refused_by_estimator = 0;
  int skipped = 0;  // no architecture, no GPU figures, no recorded layout, or GPUs not dividing
  for (const RecipeEntry& entry : cat.recipes()) {
    const Recipe& rec = entry.recipe;
    auto model = cat.find_model(rec.model);
    auto hw = cat.find_hardware(rec.gpu);
    if (!model || !model->has_architecture || model->layers.empty() || !hw || !hw->has_specs || !rec.layout_known ||
        rec.gpus <= 0) {
      ++skipped;
      continue;
    }
    Layout l = rec.layout;
    const int mp = l.model_parallel();
    if (mp <= 0 || rec.gpus % mp != 0) {
      ++skipped;
      continue;
    }
    l.dp = rec.gpus / mp;
    const PreparedModel pm = prepare(*model);
    for (Mode mode : {Mode::kPretrain, Mode::kSft, Mode::kPeft}) {
      RuleInput in;
      in.model = &*model;
      in.hardware = &*hw;
      in.workload.mode = mode;
      in.workload.seq = rec.seq > 0 ? rec.seq : 4096;
      in.workload.gbs = rec.gbs > 0 ? rec.gbs : static_cast<int64_t>(l.mbs) * l.dp * 8;
      in.cluster.gpus = rec.gpus;
      in.cluster.gpus_per_node = rec.gpus_per_node;
      in.layout = l;
      if (has_error(check_layout(in))) {
        ++refused_by_rules;
        continue;
      }
      const Estimate e = estimate(pm, *hw, in.workload, in.cluster, l);
      if (!e.valid) {
        ++refused_by_estimator;
        continue;
      }
      ++evaluated;
      const std::string what = rec.name + " " + std::string(mode_name(mode));
      EXPECT_GT(e.step_time_s, 0.0) << what;
      EXPECT_GT(e.mfu, 0.0) << what;
      EXPECT_LT(e.mfu, 1.0) << what << ": MFU " << e.mfu << " at " << e.model_flops_per_token / 1e9 << " GFLOP/token";
      EXPECT_NEAR(e.tokens_per_s_per_gpu * e.model_flops_per_token, e.model_tflops_per_gpu * 1e12,
                  1e-9 * e.model_tflops_per_gpu * 1e12)
          << what;
      EXPECT_NEAR(e.mfu * hw->peak_flops_per_s(l.precision), e.model_tflops_per_gpu * 1e12,
                  1e-9 * e.model_tflops_per_gpu * 1e12)
          << what;
      const MemoryBreakdown& m = e.memory.worst;
      EXPECT_NEAR(m.sum(), m.peak_bytes, 1e-9 * m.peak_bytes) << what;
      EXPECT_EQ(m.fits, m.peak_bytes <= m.capacity_bytes - m.required_headroom_bytes) << what;
      EXPECT_NEAR(e.time.sum(), e.step_time_s, 1e-9 * e.step_time_s) << what;
      if (mode == Mode::kPeft) {
        // Frozen base: fewer FLOPs per token than the full count.
        EXPECT_LT(e.model_flops_per_token, prepared_flops_per_token(pm, in.workload.seq, l.tp)) << what;
      }
    }
  }
  std::cout << "[ properties ] evaluated " << evaluated << " (recipe, mode) pairs; refused by the rules "
            << refused_by_rules << ", by the estimator " << refused_by_estimator << "; recipes skipped " << skipped
            << "\n";
  EXPECT_GT(evaluated, 300) << "too few layouts evaluated for the properties to mean anything";
}

// FLOPs per token with the attention core counted over `core` tokens of context (1e-9: none).
double count(const Model& m, int64_t seq, int tp, bool frozen, double core) {
  FlopsOptions o;
  o.tp = tp;
  o.core_attn_seq_factor = core;
  return frozen ? lora_flops_per_token(m, seq, o) : megatron_flops_per_token(m, seq, o);
}

TEST(EstimateProperties, LoraRowsMatchTheFrozenOrTheFullCount) {
  const Catalog& cat = test::builtin_catalog();
  int checked = 0;
  int frozen_rows = 0;
  int no_architecture = 0;  // stubs in the catalog: name and aliases only
  for (const RecipeEntry& entry : cat.recipes()) {
    const Recipe& rec = entry.recipe;
    if (rec.mode != Mode::kPeft) continue;
    for (const Measurement& ms : rec.measurements) {
      if (!(ms.model_tflops_per_gpu > 0) || !(ms.tokens_per_s_per_gpu > 0)) continue;
      auto model = cat.find_model(rec.model);
      if (!model || !model->has_architecture || model->layers.empty()) {
        ++no_architecture;
        std::cout << "[ lora rows  ] " << rec.name << " " << ms.release << ": " << rec.model
                  << " has no architecture in the catalog, not checked\n";
        continue;
      }
      // The MTP depth the recipe ran (features.mtp_layers): Nemotron 3 Super's one MTP block runs twice
      // (mtp_num_layers 2, mtp_use_repeated_layer), and the measured FLOPs count both passes.
      if (const YNode* f = entry.tree.get("features"); f != nullptr)
        if (const YNode* v = f->get("mtp_layers"); v != nullptr && v->as_int().value_or(0) > 0)
          model->mtp_layers = static_cast<int>(*v->as_int());
      const int64_t seq = ms.seq > 0 ? ms.seq : (rec.seq > 0 ? rec.seq : 4096);
      const int tp = ms.tp > 0 ? ms.tp : std::max(1, rec.layout.tp);
      const double measured = ms.model_tflops_per_gpu * 1e12 / ms.tokens_per_s_per_gpu;
      const bool card = ms.source.find("card") != std::string::npos || ms.release.find("card") != std::string::npos;
      // Performance-summary LoRA rows: flop_utils.py's frozen-base branch; cards: the generic count.
      const bool frozen = !card;
      const double lo = count(*model, seq, tp, frozen, 1e-9);
      const double hi = count(*model, seq, tp, frozen, static_cast<double>(seq));
      std::cout << "[ lora rows  ] " << rec.name << " " << ms.release << " " << ms.gpu << " seq " << seq
                << ": measured " << measured / 1e9 << " GFLOP/token, " << (frozen ? "frozen" : "full") << " count "
                << lo / 1e9 << " .. " << hi / 1e9 << " (frozen at the row: "
                << count(*model, seq, tp, true, static_cast<double>(seq)) / 1e9 << ")\n";
      ++checked;
      frozen_rows += frozen ? 1 : 0;
      if (model->vision.layers == 0) {
        EXPECT_GE(measured, lo * 0.99) << rec.name << " " << ms.release;
        EXPECT_LE(measured, hi * 1.01) << rec.name << " " << ms.release;
      }
    }
  }
  EXPECT_GE(frozen_rows, 5) << "the five Llama-3-70B LoRA rows of the performance summaries";
  EXPECT_GE(checked, frozen_rows);
  // measured_megatron_bridge.csv has 19 lora rows; those with an architecture are all checked.
  EXPECT_EQ(checked + no_architecture, 19);
}

}  // namespace
}  // namespace rb

// The answers `estimate` and `plan` print for the cases of the issue "Answers a user can copy".
namespace rb::cli {
namespace {

using Json = nlohmann::json;

test::CliOut run(const EstimateOptions& o, bool json = false) {
  return test::run_cli([&](const Context& ctx) { return run_estimate(o, ctx); }, json);
}

// The issue's example: Llama-3-70B LoRA on 8 H100, FP8. Before: 433 GFLOP/token (the full count)
// and "MFU (BF16 peak) 110.6%".
EstimateOptions llama70b_lora() {
  EstimateOptions o;
  o.args.model = "llama3-70b";
  o.args.gpu = "h100";
  o.args.gpus = 8;
  o.args.mode = "peft";
  o.args.seq = 4096;
  o.args.gbs = 32;
  o.args.layout.tp = 2;
  o.args.layout.pp = 4;
  o.args.layout.vp = 20;
  o.args.layout.precision = "fp8_cs";
  return o;
}

TEST(EstimateAnswers, LoraCountsTheFrozenBaseAndMfuStaysBelowOne) {
  const test::CliOut r = run(llama70b_lora(), true);
  ASSERT_EQ(r.rc, kExitOk) << r.out << r.err;
  const Json j = Json::parse(r.out);
  // Megatron-Bridge's LoRA rows for this model: 278 GFLOP/token on packed SQuAD (short documents);
  // with 4096-token documents the attention core adds 16 GFLOP.
  EXPECT_GT(j["flops_per_token"].get<double>(), 277e9);
  EXPECT_LT(j["flops_per_token"].get<double>(), 295e9);
  EXPECT_LT(j["mfu"].get<double>(), 1.0);
  EXPECT_EQ(j["mfu_peak"], "FP8");
  EXPECT_NEAR(j["mfu"].get<double>() * 1978.9e12, j["model_tflops_per_gpu"].get<double>() * 1e12, 1e9);
  const test::CliOut t = run(llama70b_lora());
  EXPECT_NE(t.out.find("MFU (FP8 peak)"), std::string::npos) << t.out;
}

EstimateOptions llama70b_on_64(int tp, int pp) {
  EstimateOptions o;
  o.args.model = "llama3-70b";
  o.args.gpu = "h100";
  o.args.gpus = 64;
  o.args.seq = 8192;
  o.args.gbs = 256;
  o.args.layout.tp = tp;
  o.args.layout.pp = pp;
  o.args.layout.vp = 5;
  return o;
}

TEST(EstimateAnswers, ALayoutThatDoesNotFitExitsOneWithItsFigures) {
  const EstimateOptions o = llama70b_on_64(4, 4);  // 82 GiB of 80
  const test::CliOut t = run(o);
  EXPECT_EQ(t.rc, kExitFindings);
  EXPECT_NE(t.out.find("DOES NOT FIT"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("tokens/s/GPU"), std::string::npos) << "the estimate is still printed";
  const test::CliOut j = run(o, true);
  EXPECT_EQ(j.rc, kExitFindings);
  const Json v = Json::parse(j.out);
  EXPECT_FALSE(v["memory"]["fits"].get<bool>());
  EXPECT_TRUE(v.contains("tokens_per_s_per_gpu"));
}

TEST(EstimateAnswers, HeadroomDecidesFitsAndIsShown) {
  EstimateOptions o = llama70b_on_64(4, 8);  // 76.0 GiB of 80: 4 GiB free
  o.args.headroom = "2";
  test::CliOut r = run(o, true);
  ASSERT_EQ(r.rc, kExitOk) << r.out << r.err;
  Json j = Json::parse(r.out);
  const Json& m = j["memory"];
  EXPECT_NEAR(m["headroom_bytes"].get<double>(), m["capacity_bytes"].get<double>() - m["peak_bytes"].get<double>(), 1);
  EXPECT_DOUBLE_EQ(m["required_headroom_bytes"].get<double>(), 2.0 * 1024 * 1024 * 1024);
  for (const char* h : {"6GiB", "10%"}) {
    o.args.headroom = h;
    r = run(o, true);
    EXPECT_EQ(r.rc, kExitFindings) << h;
    EXPECT_FALSE(Json::parse(r.out)["memory"]["fits"].get<bool>()) << h;
  }
  o.args.headroom = "0";
  const test::CliOut t = run(o);
  EXPECT_EQ(t.rc, kExitOk);
  EXPECT_NE(t.out.find("headroom 4.0 GiB (needs 0.0 GiB) — fits"), std::string::npos) << t.out;
  o.args.headroom = "lots";
  const test::CliOut bad = run(o);
  EXPECT_EQ(bad.rc, kExitUsage);
  EXPECT_NE(bad.err.find("--headroom"), std::string::npos) << bad.err;
}

TEST(EstimateAnswers, BatchTakesHeadroomAndCountsNonFitsAsFailures) {
  test::TempDir tmp;
  const std::string file = tmp.write("layouts.jsonl", R"({"pp": 8, "headroom": 2}
{"pp": 8, "headroom": "6GiB"}
)");
  EstimateOptions o = llama70b_on_64(4, 8);
  o.batch_file = file;
  const test::CliOut r = run(o);
  EXPECT_EQ(r.rc, kExitFindings);
  std::istringstream lines(r.out);
  std::string a, b;
  std::getline(lines, a);
  std::getline(lines, b);
  EXPECT_TRUE(Json::parse(a)["memory"]["fits"].get<bool>()) << a;
  EXPECT_FALSE(Json::parse(b)["memory"]["fits"].get<bool>()) << b;
}

TEST(EstimateAnswers, GpusThatDoNotDivideGiveNoDpZero) {
  EstimateOptions o;
  o.args.model = "llama3-8b";
  o.args.gpu = "h100";
  o.args.gpus = 24;
  o.args.gbs = 48;
  o.args.layout.tp = 8;
  o.args.layout.pp = 2;
  const test::CliOut t = run(o);
  EXPECT_EQ(t.rc, kExitFindings);
  EXPECT_EQ(t.out.find("DP 0"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("RB-WORLD-DIVISIBLE"), std::string::npos) << t.out;
  const test::CliOut j = run(o, true);
  EXPECT_TRUE(Json::parse(j.out)["layout"]["dp"].is_null()) << j.out;
}

TEST(EstimateAnswers, PlanShowsHeadroomInGibAndHonoursIt) {
  PlanOptions p;
  p.model = "llama3-8b";
  p.gpu = "h100";
  p.gpus = "8";
  p.gbs = 64;
  p.seq = 8192;
  p.top = 3;
  auto plan_run = [&](bool json) {
    return test::run_cli([&](const Context& ctx) { return run_plan(p, ctx, test::builtin_catalog()); }, json);
  };
  const test::CliOut t = plan_run(false);
  ASSERT_EQ(t.rc, kExitOk) << t.err;
  for (const char* s : {"headroom GiB", "peak GiB", "(GiB)", "2.0 GiB headroom"})
    EXPECT_NE(t.out.find(s), std::string::npos) << s << "\n" << t.out;
  EXPECT_EQ(t.out.find(" GB"), std::string::npos) << t.out;
  p.headroom = "30";
  const test::CliOut j = plan_run(true);
  ASSERT_EQ(j.rc, kExitOk) << j.err;
  const Json top = Json::parse(j.out).at("top");
  ASSERT_FALSE(top.empty());
  for (const Json& c : top) {
    EXPECT_GE(c["memory"]["headroom_bytes"].get<double>(), 30.0 * 1024 * 1024 * 1024);
    EXPECT_DOUBLE_EQ(c["memory"]["required_headroom_bytes"].get<double>(), 30.0 * 1024 * 1024 * 1024);
  }
}

}  // namespace
}  // namespace rb::cli
