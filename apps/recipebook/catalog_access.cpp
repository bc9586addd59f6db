#include "recipebook/catalog_access.hpp"

#include <ostream>

namespace rb::cli {

std::optional<Catalog> load_catalog(const Context& ctx) {
  // The built-in catalog alone is parsed once per process and copied after that (the test suites
  // run many subcommands in one process; copying is far cheaper than parsing ~900 files).
  if (ctx.catalog_dirs.empty()) {
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
