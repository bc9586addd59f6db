// Writing output files safely: the text goes to a temporary file in the destination's folder, is
// flushed to disk, then renamed over the destination, so a reader never sees half a file and a
// crash leaves the old file (or none). An existing file is never replaced unless asked.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "recipebook/core/result.hpp"

namespace rb {

struct FileToWrite {
  std::string path;
  std::string text;
  bool executable = false;  // mode 0755 instead of 0644 (before the umask)
};

// Writes one file atomically. Without `overwrite`, an existing `path` is an Error naming it and
// nothing is written (the final link is no-clobber, so a file created meanwhile is not replaced
// either). With `overwrite`, a replaced file keeps its permission bits.
Result<void> write_file_atomic(const FileToWrite& file, bool overwrite);

// Writes several files, all or none: first checks that none exists (unless `overwrite`) and that
// each folder is there or can be made (its nearest existing ancestor is a folder); then makes the
// missing folders, writes every file to a temporary beside it, and only when all are written puts
// them in place. On any failure the temporaries, the new files put in place and the folders it
// made are removed again (a file replaced under `overwrite` stays replaced).
Result<void> write_files_atomic(const std::vector<FileToWrite>& files, bool overwrite);

// (Reading files: read_text_file in catalog/yaml_tree.hpp.)

}  // namespace rb
