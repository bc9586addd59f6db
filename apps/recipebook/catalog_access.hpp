// Loading the catalog for a subcommand: the built-in files plus the user's --catalog folders.
// A folder that fails to load is a usage error (exit 2) with the reason on stderr.
#pragma once

#include <optional>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/context.hpp"

namespace rb::cli {

// The catalog, or nullopt after printing "recipebook: <error>" to ctx.err.
std::optional<Catalog> load_catalog(const Context& ctx);

// Prints "recipebook: <error.str()>" to ctx.err and returns kExitUsage.
int report(const Context& ctx, const Error& e);

}  // namespace rb::cli
