#include "recipebook/catalog/measured_points.hpp"

#include <gtest/gtest.h>

namespace rb {
namespace {

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
    // Neutral efficiencies: nothing fitted leaks into a leave-one-out start.
    EXPECT_DOUBLE_EQ(p.point.hardware.eff(p.point.layout.precision).gemm, Efficiency{}.gemm) << p.label;
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

}  // namespace
}  // namespace rb
