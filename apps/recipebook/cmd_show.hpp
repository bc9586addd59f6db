// `recipebook show NAME`: one recipe, model or GPU, readable or JSON. Exact names only; a near miss
// gets "did you mean", never a substitute.
#pragma once

#include <string>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/context.hpp"

namespace rb::cli {

struct ShowOptions {
  std::string name;
  bool resolved = false;  // apply `extends` before showing
};

int run_show(const ShowOptions& opts, const Context& ctx);
// The same on a catalog already loaded (`serve`, which answers many requests from one catalog).
int run_show(const ShowOptions& opts, const Context& ctx, const Catalog& catalog);

}  // namespace rb::cli
