#include "recipebook/catalog_access.hpp"

#include <utility>

namespace rb::cli {
namespace {

Result<std::shared_ptr<const Catalog>> load_shared(const std::vector<std::string>& dirs) {
  auto cat = Catalog::load(dirs);
  if (!cat) return tl::unexpected(cat.error());
  return std::make_shared<const Catalog>(std::move(*cat));
}

}  // namespace

std::shared_ptr<const Catalog> load_catalog(const Context& ctx) {
  if (ctx.catalog_dirs.empty()) {
    // Loaded on the first call and never freed: the commands of one process share it (the test
    // suites and serve run many), and a command run from the shell does not spend its last
    // milliseconds (a quarter of a recipe command's CPU) freeing the catalog's trees. It stays
    // reachable from here, so leak checkers do not count it.
    static const auto* const builtin = new Result<std::shared_ptr<const Catalog>>(load_shared({}));
    if (*builtin) return **builtin;
    report(ctx, builtin->error());
    return nullptr;
  }
  auto cat = load_shared(ctx.catalog_dirs);
  if (!cat) {
    report(ctx, cat.error());
    return nullptr;
  }
  return std::move(*cat);
}

}  // namespace rb::cli
