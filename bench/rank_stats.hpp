// Rank statistics the accuracy benches share: average ranks (ties share the mean rank) and
// Spearman's rank correlation of two equally long series.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace rb::bench {

inline std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<size_t> idx(v.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (size_t i = 0; i < idx.size();) {
    size_t j = i;
    while (j + 1 < idx.size() && v[idx[j + 1]] == v[idx[i]]) ++j;
    for (size_t k = i; k <= j; ++k) r[idx[k]] = static_cast<double>(i + j) / 2.0 + 1.0;
    i = j + 1;
  }
  return r;
}

inline double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  const std::vector<double> ra = ranks(a), rb_ = ranks(b);
  const double n = static_cast<double>(a.size());
  double ma = 0, mb = 0;
  for (size_t i = 0; i < a.size(); ++i) ma += ra[i] / n, mb += rb_[i] / n;
  double cov = 0, va = 0, vb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    cov += (ra[i] - ma) * (rb_[i] - mb);
    va += (ra[i] - ma) * (ra[i] - ma);
    vb += (rb_[i] - mb) * (rb_[i] - mb);
  }
  return va > 0 && vb > 0 ? cov / std::sqrt(va * vb) : 0.0;
}

}  // namespace rb::bench
