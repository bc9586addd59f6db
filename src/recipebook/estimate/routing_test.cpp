#include "recipebook/estimate/routing.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "recipebook/estimate/prepared.hpp"
#include "recipebook/estimate/test_models.hpp"

namespace rb {
namespace {

// The busiest rank's load under random top-k routing, simulated: each token picks k distinct
// experts uniformly (what random logits and a top-k give), experts / ranks per rank.
double simulated_factor(int tokens, int k, int experts, int ranks, int trials) {
  std::mt19937 gen(12345);
  std::vector<int> ids(static_cast<size_t>(experts));
  double sum = 0;
  for (int t = 0; t < trials; ++t) {
    std::vector<int> load(static_cast<size_t>(ranks), 0);
    for (int i = 0; i < tokens; ++i) {
      std::iota(ids.begin(), ids.end(), 0);
      for (int j = 0; j < k; ++j) {
        std::uniform_int_distribution<int> pick(j, experts - 1);
        std::swap(ids[static_cast<size_t>(j)], ids[static_cast<size_t>(pick(gen))]);
        ++load[static_cast<size_t>(ids[static_cast<size_t>(j)] / (experts / ranks))];
      }
    }
    sum += *std::max_element(load.begin(), load.end());
  }
  const double mean = static_cast<double>(tokens) * k / ranks;
  return sum / trials / mean;
}

TEST(Routing, NothingToBalanceIsOne) {
  EXPECT_EQ(busiest_rank_load_factor(4096, 8, 128, 1), 1.0);  // one rank holds every expert
  EXPECT_EQ(busiest_rank_load_factor(4096, 8, 8, 8), 1.0);    // every token visits every expert
  EXPECT_EQ(busiest_rank_load_factor(0, 8, 128, 8), 1.0);
}

TEST(Routing, MatchesRandomRoutingSimulated) {
  // Small groups, where the excess is large enough to measure: within 1% of the simulated mean maximum.
  for (const auto& [tokens, k, experts, ranks] :
       {std::tuple{256, 8, 128, 8}, std::tuple{512, 2, 64, 16}, std::tuple{512, 8, 256, 32}}) {
    const double sim = simulated_factor(tokens, k, experts, ranks, 400);
    EXPECT_NEAR(busiest_rank_load_factor(tokens, k, experts, ranks), sim, 0.01 * sim)
        << tokens << " tokens, top-" << k << " of " << experts << " over " << ranks;
  }
}

TEST(Routing, ShrinksWithTokensAndGrowsWithRanks) {
  // The excess falls as 1 / sqrt(tokens): a training micro-batch (4096 tokens x EP 8, top-8 of 128)
  // is within 1% of balanced.
  const double small = busiest_rank_load_factor(2048, 8, 128, 8) - 1.0;
  const double large = busiest_rank_load_factor(8192, 8, 128, 8) - 1.0;
  EXPECT_NEAR(small / large, 2.0, 1e-9);
  EXPECT_LT(busiest_rank_load_factor(32768, 8, 128, 8), 1.01);
  EXPECT_GT(busiest_rank_load_factor(32768, 8, 256, 64), busiest_rank_load_factor(32768, 8, 256, 8));
}

// The prepared model keeps z per EP size (computed once, not per estimate): its factor is the
// direct one to the bit, for every EP size that divides the experts, and for one that does not.
TEST(Routing, PreparedFactorIsTheDirectOne) {
  const PreparedModel pm = prepare(test::qwen3_30b_a3b());  // 128 experts, top 8
  EXPECT_FALSE(pm.route_z.empty());
  for (int ep : {1, 2, 4, 8, 16, 32, 64, 128, 3, 6})
    for (double tokens : {512.0, 4096.0, 65536.0})
      EXPECT_EQ(pm.route_load_factor(tokens, ep), busiest_rank_load_factor(tokens, 8, 128, ep)) << ep << " " << tokens;
}

}  // namespace
}  // namespace rb
