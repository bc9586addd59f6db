// `recipebook estimate`: one layout of one model on one cluster -> memory per rank, step time,
// throughput, MFU and cost, every part named. A layout the rules forbid gets its rule, not a number.
// `--batch FILE` reads JSON Lines (the flags' keys, dashes as underscores) and writes one JSON line
// per input line, in order; a bad line gets an error object and the rest go on.
#pragma once

#include <string>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/context.hpp"
#include "recipebook/layout_args.hpp"

namespace rb::cli {

struct EstimateOptions {
  LayoutArgs args;
  std::string batch_file;  // "-" = standard input
};

int run_estimate(const EstimateOptions& opts, const Context& ctx);
// The same on a catalog already loaded (`serve`, which answers many requests from one catalog).
int run_estimate(const EstimateOptions& opts, const Context& ctx, const Catalog& catalog);

}  // namespace rb::cli
