// `recipebook calibrate --fit`: fits the estimator's efficiency parameters (per GPU and precision)
// to every current measurement in the catalog, reports the estimator's error before and after, and
// with `--write DIR` rewrites the `efficiency:` block of DIR/<gpu>.yaml for each fitted GPU
// (`--write catalog/hardware` updates the built-in catalog's files; rebuild to embed them).
#pragma once

#include <string>

#include "recipebook/context.hpp"

namespace rb::cli {

struct CalibrateFitOptions {
  std::string write_dir;  // empty = report only
};

int run_calibrate_fit(const CalibrateFitOptions& opts, const Context& ctx);

}  // namespace rb::cli
