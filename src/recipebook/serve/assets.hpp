// The page's files, compiled into the binary at build time (embed_web.cmake): web/index.html and
// the bundle esbuild made of web/src/ (or, where `npm ci` has not run, a note saying so). Nothing is
// fetched at run time.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace rb::serve {

struct WebAsset {
  std::string_view path;  // "/index.html", "/app.js"
  std::string_view text;
};

std::span<const WebAsset> web_assets();

// The asset a GET path names ("/" is "/index.html"), with its Content-Type.
struct FoundAsset {
  std::string_view text;
  std::string_view content_type;
};
std::optional<FoundAsset> find_asset(std::string_view path);

}  // namespace rb::serve
