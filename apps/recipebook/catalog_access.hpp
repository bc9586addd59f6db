// Loading the catalog for a subcommand: the built-in files plus the user's --catalog folders.
// A folder that fails to load is a usage error (exit 2), reported by report() (report.hpp).
#pragma once

#include <memory>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/context.hpp"
#include "recipebook/report.hpp"

namespace rb::cli {

// The catalog, or null after printing "recipebook: <error>" to ctx.err. Without --catalog folders
// every call of a process shares one built-in catalog.
std::shared_ptr<const Catalog> load_catalog(const Context& ctx);

}  // namespace rb::cli
