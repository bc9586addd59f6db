// Keys an older model file format had and where each went (model_yaml.hpp explain_moved_model_keys).
#include <array>
#include <string_view>

#include "recipebook/catalog/model_yaml.hpp"

namespace rb {
namespace {

struct MovedKey {
  std::string_view section;  // the map under `architecture` that held it
  std::string_view key;
  std::string_view fix;
};

// Dropout left `architecture.numerics`: it is a training setting, the layout's (core/layout.hpp
// hidden_dropout / attention_dropout; docs/catalog-format.md, "Dropout is not here"), not the model's.
constexpr auto kMoved = std::to_array<MovedKey>({
    {"numerics", "attention_dropout",
     "dropout moved to the layout: remove it here and give it as a recipe's `features.attention_dropout`, or "
     "`--attention-dropout` on estimate / plan / launch (default 0)"},
    {"numerics", "hidden_dropout",
     "dropout moved to the layout: remove it here and give it as a recipe's `features.hidden_dropout`, or "
     "`--hidden-dropout` on estimate / plan / launch (default 0)"},
});

}  // namespace

void explain_moved_model_keys(const YNode& doc, Diagnostics& findings) {
  const YNode* arch = doc.is_map() ? doc.get("architecture") : nullptr;
  if (arch == nullptr || !arch->is_map()) return;
  for (const MovedKey& m : kMoved) {
    const YNode* section = arch->get(m.section);
    if (section == nullptr || !section->is_map()) continue;
    for (const auto& [key, value] : section->map) {
      if (key.text != m.key) continue;
      for (Diagnostic& d : findings)
        if (d.rule_id == "RB-SCHEMA-UNKNOWN-KEY" && d.where.line == key.where.line && d.where.col == key.where.col)
          d.fix = std::string(m.fix);
    }
  }
}

}  // namespace rb
