#include "recipebook/catalog_access.hpp"

#include <ostream>
#include <utility>

namespace rb::cli {

std::optional<Catalog> load_catalog(const Context& ctx) {
  // The built-in catalog alone: the first call of a process (the one call of a command run from the
  // shell) loads it and hands it over; a process that asks again (the test suites run many
  // subcommands in one) loads it once more and copies that copy after, which is cheaper still.
  if (ctx.catalog_dirs.empty()) {
    static bool first = true;
    if (std::exchange(first, false)) {
      auto cat = Catalog::load({});
      if (cat) return std::move(*cat);
      report(ctx, cat.error());
      return std::nullopt;
    }
    static const Result<Catalog> builtin = Catalog::load({});
    if (builtin) return *builtin;
    report(ctx, builtin.error());
    return std::nullopt;
  }
  auto cat = Catalog::load(ctx.catalog_dirs);
  if (!cat) {
    report(ctx, cat.error());
    return std::nullopt;
  }
  return std::move(*cat);
}

}  // namespace rb::cli
