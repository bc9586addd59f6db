#pragma once
// The two numeric pieces both efficiency fits use (calibrate.cpp over the catalog's benchmark rows,
// calibrate_cluster.cpp over one user's runs): the soft-L1 loss of one log-ratio residual and a
// golden-section line search.

#include <cmath>

namespace rb {

// Soft-L1 (pseudo-Huber) loss of a residual r already divided by `scale`: quadratic near 0, linear
// far out, so a few rows far off do not set the fit.
inline double soft_l1(double r, double scale) { return 2.0 * (std::sqrt(1.0 + r * r) - 1.0) * scale * scale; }

// The minimum of a unimodal f over [lo, hi] by golden-section search (40 steps: the bracket shrinks
// by 0.618^40, about 4e-9 of its width).
template <typename F>
double golden_section_min(F f, double lo, double hi) {
  const double ratio = (std::sqrt(5.0) - 1.0) / 2.0;
  double a = lo, b = hi;
  double c = b - ratio * (b - a), d = a + ratio * (b - a);
  double fc = f(c), fd = f(d);
  for (int it = 0; it < 40; ++it) {
    if (fc < fd) {
      b = d;
      d = c;
      fd = fc;
      c = b - ratio * (b - a);
      fc = f(c);
    } else {
      a = c;
      c = d;
      fc = fd;
      d = a + ratio * (b - a);
      fd = f(d);
    }
  }
  return (a + b) / 2.0;
}

}  // namespace rb
