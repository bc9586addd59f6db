// `recipebook check FILE...`: schema errors, then semantic checks that recompute every derived
// figure, then the layout rules and pitfalls. One line per finding:
//   file:line:col: error|warning [ID] message (fix: ...)
// Exit 0 when there is no error (warnings are printed; --strict makes them count), 1 on findings,
// 2 on usage errors.
#pragma once

#include <string>
#include <vector>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/context.hpp"

namespace rb::cli {

struct CheckOptions {
  std::vector<std::string> files;
  bool builtin = false;  // check every entry of the built-in catalog (and --catalog folders)
  bool strict = false;   // warnings count as findings for the exit code
  bool summary = false;  // print one summary line instead of every finding
  bool show_accepted = false;  // also print the findings that records accept in `known_issues`
};

int run_check(const CheckOptions& opts, const Context& ctx);
// The same on a catalog already loaded (`serve`, which answers many requests from one catalog).
int run_check(const CheckOptions& opts, const Context& ctx, const Catalog& catalog);

}  // namespace rb::cli
