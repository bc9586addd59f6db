#include "recipebook/estimate/routing.hpp"

#include <cmath>

namespace rb {
namespace {

// Phi^-1(p) for p in (0.5, 1): bisection on the normal CDF 0.5 erfc(-x / sqrt 2).
double normal_quantile(double p) {
  double lo = 0.0, hi = 10.0;
  for (int i = 0; i < 80; ++i) {
    const double mid = 0.5 * (lo + hi);
    (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

}  // namespace

double busiest_rank_z(int ranks) {
  if (ranks <= 1) return 0.0;
  const double n = ranks;
  return normal_quantile((n - 0.375) / (n + 0.25));
}

double busiest_rank_load_factor(double tokens, int top_k, int experts, int ranks, double z) {
  if (ranks <= 1 || top_k <= 0 || experts <= top_k || tokens <= 0) return 1.0;
  const double n = ranks, k = top_k, e = experts;
  const double mean = tokens * k / n;
  const double var = tokens * k * (1.0 / n) * (1.0 - 1.0 / n) * (e - k) / (e - 1.0);
  return 1.0 + z * std::sqrt(var) / mean;
}

double busiest_rank_load_factor(double tokens, int top_k, int experts, int ranks) {
  return busiest_rank_load_factor(tokens, top_k, experts, ranks, busiest_rank_z(ranks));
}

}  // namespace rb
