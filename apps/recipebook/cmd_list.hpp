// `recipebook list`: the catalog's recipes (default), models or hardware, filtered; table or JSON.
#pragma once

#include <string>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/context.hpp"

namespace rb::cli {

struct ListOptions {
  std::string what = "recipes";  // recipes | models | hardware
  std::string model;             // name, alias or family (substring, case-insensitive)
  std::string mode;              // pretrain | sft | peft
  std::string gpu;
  int gpus = 0;
  std::string kind;  // library | performance | verified | measured
  bool measured = false;
  int limit = 0;  // 0 = all
};

int run_list(const ListOptions& opts, const Context& ctx);
// The same on a catalog already loaded (`serve`, which answers many requests from one catalog).
int run_list(const ListOptions& opts, const Context& ctx, const Catalog& catalog);

}  // namespace rb::cli
