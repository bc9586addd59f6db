#include "recipebook/version.hpp"

namespace rb::cli {
const char* version() { return "0.1.0"; }
}  // namespace rb::cli
