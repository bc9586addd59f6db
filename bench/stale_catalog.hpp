// A bench measures the catalog compiled into it. After `recipebook calibrate --fit --write` (or any
// edit under catalog/) the binary holds the old files until it is rebuilt, and its figures belong to
// the previous commit. warn_if_stale_catalog() compares the embedded files with catalog/ on disk and
// says so on stderr before the run.
#pragma once

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "recipebook/catalog/embedded.hpp"

namespace rb::bench {

inline void warn_if_stale_catalog() {
  const std::filesystem::path root = std::filesystem::path(RB_SOURCE_DIR) / "catalog";
  if (!std::filesystem::is_directory(root)) return;  // run away from its source tree: nothing to compare
  int differ = 0;
  std::string first;
  for (const EmbeddedFile& f : embedded_catalog()) {
    std::ifstream in(root / std::string(f.path), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (in && text.str() == f.text) continue;
    if (differ++ == 0) first = std::string(f.path);
  }
  if (differ > 0)
    std::fprintf(stderr,
                 "warning: the built-in catalog differs from %s in %d file(s) (first: %s): rebuild before "
                 "measuring, or the figures are those of the catalog last built\n",
                 root.c_str(), differ, first.c_str());
}

}  // namespace rb::bench
