#include "recipebook/catalog/hf_config.hpp"

namespace rb {

Result<Model> model_from_hf_config_text(std::string_view, const std::string& file) {
  return fail("config.json support is not built yet", Where{file, 0, 0});
}
Result<Model> load_hf_config(const std::string& path) { return fail("not yet: " + path); }
std::vector<std::string> supported_model_types() { return {}; }

}  // namespace rb
