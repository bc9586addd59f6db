// Which price a cost figure used: the hardware entry's `price` (USD per GPU-hour, the date of the
// snapshot and its source, catalog/hardware/*.yaml), said in one way by estimate, plan and recommend.
#pragma once

#include <string>

#include "recipebook/core/hardware.hpp"

namespace rb::cli {

// "at $6.88 per GPU-hour (p5.48xlarge, 2026-01-21)", or "" when the GPU has no price. The instance
// is the source's first word inside its parentheses (the catalog writes "6.88 (p5.48xlarge
// us-east-1 $55.04/h / 8; ...)"); a source without them is given up to its first ';'.
std::string price_used(const Hardware& hw);

}  // namespace rb::cli
