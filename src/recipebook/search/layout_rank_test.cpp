// rank_layout: a planned layout ranks where the plan put it; one that does not fit is not ranked;
// one below every kept candidate gets a lower bound.
#include "recipebook/search/layout_rank.hpp"

#include <gtest/gtest.h>

#include "recipebook/estimate/test_hardware.hpp"
#include "recipebook/estimate/test_models.hpp"
#include "recipebook/search/test_plan.hpp"

namespace rb {
namespace {

TEST(LayoutRank, APlannedLayoutRanksWhereThePlanPutIt) {
  const test::PlanSetup s(test::llama3_8b(), test::h100());
  PlanRequest req = test::request(8, 4096, 64);
  req.top_k = 50;
  req.fixed.max_mbs = 2;
  const auto res = plan(s.inputs(), req);
  ASSERT_TRUE(res.has_value());
  ASSERT_GE(res->top.size(), 10u);
  for (size_t i : {size_t{0}, size_t{3}, size_t{9}}) {
    const Candidate& c = res->top[i];
    const LayoutRank r = rank_layout(s.inputs(), req, *res, c.gpus, c.layout);
    ASSERT_TRUE(r.ranked) << i;
    EXPECT_DOUBLE_EQ(r.estimate.tokens_per_s_per_gpu, c.estimate.tokens_per_s_per_gpu) << i;
    // Its rank counts the kept candidates that score strictly better (ties share a rank).
    int better = 0;
    for (const Candidate& o : res->top) better += o.score < c.score ? 1 : 0;
    EXPECT_EQ(r.rank, better + 1) << i;
    EXPECT_LE(r.rank, static_cast<int>(i) + 1) << i;
    EXPECT_FALSE(r.below_kept);
    EXPECT_DOUBLE_EQ(r.best_tokens_per_s_per_gpu, res->top.front().estimate.tokens_per_s_per_gpu);
  }
  // Kept to 3: a layout worse than all of them ranks "> 3".
  PlanRequest few = req;
  few.top_k = 3;
  const auto top3 = plan(s.inputs(), few);
  ASSERT_TRUE(top3.has_value());
  const Candidate& tenth = res->top[9];
  if (tenth.score > top3->top.back().score) {
    const LayoutRank r = rank_layout(s.inputs(), few, *top3, tenth.gpus, tenth.layout);
    EXPECT_EQ(r.rank, 4);
    EXPECT_TRUE(r.below_kept);
  }
}

TEST(LayoutRank, ALayoutThatDoesNotFitIsNotRanked) {
  const test::PlanSetup s(test::llama3_70b(), test::h100());
  PlanRequest req = test::request(8, 8192, 64);
  req.fixed.max_mbs = 1;
  const auto res = plan(s.inputs(), req);
  ASSERT_TRUE(res.has_value());
  Layout l;  // TP 1, DP 8: 70B of weights and optimizer state on each GPU
  const LayoutRank r = rank_layout(s.inputs(), req, *res, 8, l);
  EXPECT_TRUE(r.estimate.valid);
  EXPECT_FALSE(r.estimate.fits());
  EXPECT_FALSE(r.ranked);
  EXPECT_EQ(r.rank, 0);
}

}  // namespace
}  // namespace rb
