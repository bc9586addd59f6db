#pragma once

namespace rb::cli {
// The tool's version, from CMake's project(VERSION).
const char* version();
}  // namespace rb::cli
