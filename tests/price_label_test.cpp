// Which price a cost used: price_used() on its own, and estimate, plan and recommend saying it (the
// built-in H100's catalog price, instance and date) beside their USD figures.
#include <gtest/gtest.h>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/cmd_estimate.hpp"
#include "recipebook/cmd_plan.hpp"
#include "recipebook/cmd_recommend.hpp"
#include "recipebook/price_label.hpp"
#include "cli_support.hpp"

namespace rb::cli {
namespace {

Hardware priced(double usd, std::string date, std::string source) {
  Hardware hw;
  hw.name = "x";
  hw.usd_per_gpu_hour = usd;
  hw.price_date = std::move(date);
  hw.price_source = std::move(source);
  return hw;
}

TEST(PriceUsed, NamesPriceInstanceAndDate) {
  EXPECT_EQ(price_used(priced(6.88, "2026-01-21", "6.88 (p5.48xlarge us-east-1 $55.04/h / 8; AWS list price)")),
            "at $6.88 per GPU-hour (p5.48xlarge, 2026-01-21)");
  // The figure as the catalog writes it, not rounded to cents.
  EXPECT_EQ(price_used(priced(14.2416, "2026-01-21", "14.2416 (p6-b200.48xlarge us-east-1; x)")),
            "at $14.2416 per GPU-hour (p6-b200.48xlarge, 2026-01-21)");
  // A source without parentheses (a user's --catalog entry) is given up to its first ';'.
  EXPECT_EQ(price_used(priced(2.5, "2025-12-01", "our cluster ; internal rate")),
            "at $2.5 per GPU-hour (our cluster, 2025-12-01)");
  EXPECT_EQ(price_used(priced(2.5, "", "")), "at $2.5 per GPU-hour");
  EXPECT_EQ(price_used(priced(0, "2026-01-21", "n/a")), "");
}

const Hardware& h100() {
  static const Hardware hw = *test::builtin_catalog().find_hardware("h100");
  return hw;
}

TEST(PriceUsed, EstimatePlanAndRecommendSayWhichPrice) {
  ASSERT_GT(h100().usd_per_gpu_hour, 0);
  const std::string said = price_used(h100());
  EXPECT_NE(said.find(h100().price_date), std::string::npos) << said;

  EstimateOptions e;
  e.args.model = "llama3-8b";
  e.args.gpu = "h100";
  e.args.gpus = 8;
  e.args.layout.tp = 2;
  e.args.seq = 8192;
  e.args.gbs = 64;
  const auto est = test::run_cli([&](const Context& ctx) { return run_estimate(e, ctx); }, false);
  EXPECT_NE(est.out.find("USD / M tokens " + said + "\n"), std::string::npos) << est.out;

  PlanOptions p;
  p.model = "Qwen/Qwen3-30B-A3B";
  p.gpu = "h100";
  p.gpus = "8";
  p.seq = 4096;
  p.gbs = 256;
  p.max_mbs = 4;
  const auto plan = test::run_cli([&](const Context& ctx) { return run_plan(p, ctx, test::builtin_catalog()); }, false);
  ASSERT_EQ(plan.rc, 0) << plan.err;
  EXPECT_NE(plan.out.find("USD/Mtok " + said + "\n"), std::string::npos) << plan.out;

  RecommendOptions r;
  r.model = "llama3-8b";
  r.gpu = "h100";
  r.gpus = 8;
  r.mode = "sft";
  const auto rec =
      test::run_cli([&](const Context& ctx) { return run_recommend(r, ctx, test::builtin_catalog()); }, false);
  ASSERT_EQ(rec.rc, 0) << rec.err;
  EXPECT_NE(rec.out.find("per million tokens " + said + ", $"), std::string::npos) << rec.out;
}

}  // namespace
}  // namespace rb::cli
