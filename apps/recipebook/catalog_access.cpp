#include "recipebook/catalog_access.hpp"

#include <ostream>

namespace rb::cli {

std::optional<Catalog> load_catalog(const Context& ctx) {
  auto cat = Catalog::load(ctx.catalog_dirs);
  if (!cat) {
    report(ctx, cat.error());
    return std::nullopt;
  }
  return std::move(*cat);
}

int report(const Context& ctx, const Error& e) {
  ctx.err << "recipebook: " << e.str() << "\n";
  return kExitUsage;
}

}  // namespace rb::cli
