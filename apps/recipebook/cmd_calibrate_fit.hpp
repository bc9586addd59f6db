// `recipebook calibrate --fit`, two ways:
// - without --catalog: fits the estimator's efficiency parameters (per GPU and precision) to every
//   current benchmark measurement of the built-in catalog, reports the estimator's error before and
//   after, and with `--write DIR` rewrites the `efficiency:` block of DIR/<gpu>.yaml for each fitted
//   GPU (`--write catalog/hardware` updates the built-in catalog's files; rebuild to embed them).
// - with --catalog DIR (the user's own cluster, cmd_calibrate_fit_cluster.cpp): fits only the
//   measured runs recorded in the --catalog folders (records with a `result.tokens_per_s_per_gpu` or
//   current `measurements`; the built-in records are not fitted), all on one GPU type (--gpu picks
//   one), starting from that GPU's catalog efficiencies (estimate/calibrate_cluster.hpp), prints each
//   run's predicted and measured tokens/s/GPU before and after, and writes a complete hardware file
//   `<gpu>-<cluster>` (the GPU's file with the fitted efficiencies) to --out, by default
//   DIR/hardware/<gpu>-<cluster>.yaml, where `--catalog DIR --gpu <gpu>-<cluster>` finds it.
#pragma once

#include <string>
#include <string_view>

#include "recipebook/context.hpp"
#include "recipebook/core/hardware.hpp"

namespace rb::cli {

struct CalibrateFitOptions {
  std::string write_dir;  // empty = report only (built-in fit)
  // The user's own cluster (with --catalog):
  std::string gpu;      // the GPU type of the runs to fit; empty = the one GPU type they share
  std::string out;      // the hardware file to write; empty = DIR/hardware/<name>.yaml
  std::string cluster;  // the name's suffix; empty = the last --catalog folder's name
};

int run_calibrate_fit(const CalibrateFitOptions& opts, const Context& ctx);
int run_calibrate_fit_cluster(const CalibrateFitOptions& opts, const Context& ctx);

// The `efficiency:` block for a GPU, one flow map per precision it supports, under `comment`.
std::string efficiency_block(const Hardware& h, std::string_view comment);
// `text` (a YAML document) with its top-level `key:` block (running to the next top-level key or the
// end) replaced by `block` (empty: removed), or `block` appended when there is none; everything
// else, comments included, is kept.
std::string replace_top_level(const std::string& text, std::string_view key, const std::string& block);

}  // namespace rb::cli
