// The built-in catalog: every file under catalog/ compiled into the binary by
// cmake/embed_catalog.cmake, with its path relative to catalog/ ("models/llama3-8b.yaml").
#pragma once

#include <span>
#include <string_view>

namespace rb {

struct EmbeddedFile {
  std::string_view path;
  std::string_view text;
};

std::span<const EmbeddedFile> embedded_catalog();

}  // namespace rb
