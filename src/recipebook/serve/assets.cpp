#include "recipebook/serve/assets.hpp"

namespace rb::serve {

std::optional<FoundAsset> find_asset(std::string_view path) {
  if (path == "/" || path.empty()) path = "/index.html";
  for (const auto& a : web_assets()) {
    if (a.path != path) continue;
    std::string_view type = "application/octet-stream";
    if (path.ends_with(".html")) type = "text/html; charset=utf-8";
    else if (path.ends_with(".js")) type = "text/javascript; charset=utf-8";
    else if (path.ends_with(".css")) type = "text/css; charset=utf-8";
    else if (path.ends_with(".svg")) type = "image/svg+xml";
    return FoundAsset{a.text, type};
  }
  return std::nullopt;
}

}  // namespace rb::serve
