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

// The same files parsed when the binary was built (packed_tree.hpp), one per embedded_catalog()
// entry in its order; an empty view for a file that is not YAML. The whole span is empty in the
// program that packs them (apps/pack_catalog), which parses the text instead.
std::span<const std::string_view> embedded_trees();

// The name of the recipe each embedded file holds, as the build's load of the whole catalog gave it
// (`name:` or the file's stem), one per embedded_catalog() entry in its order; empty for a file that
// is not a recipe. Empty as a whole in apps/pack_catalog. Lets a start answer "is there a built-in
// recipe named X?" without making the recipes ready (Catalog::find_recipe).
std::span<const std::string_view> embedded_recipe_names();

}  // namespace rb
