// Helpers for the CLI suites in tests/ (cli_tests only: it links the subcommands): run a subcommand
// with string streams, and one built-in catalog per test process.
#pragma once

#include <sstream>
#include <string>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/context.hpp"

namespace rb::test {

// What a subcommand printed and returned.
struct CliOut {
  int rc = -1;
  std::string out;
  std::string err;
};

// Runs `f(const cli::Context&)` with string streams for its output.
template <typename F>
CliOut run_cli(F&& f, bool json) {
  std::ostringstream out;
  std::ostringstream err;
  const cli::Context ctx{out, err, {}, json, false};
  CliOut r;
  r.rc = f(ctx);
  r.out = out.str();
  r.err = err.str();
  return r;
}

// The built-in catalog, loaded once per test process.
inline const Catalog& builtin_catalog() {
  static const Catalog c = *Catalog::load();
  return c;
}

}  // namespace rb::test
