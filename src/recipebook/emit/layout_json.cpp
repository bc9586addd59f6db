#include "recipebook/emit/layout_json.hpp"

#include "recipebook/core/layout_fields.hpp"

namespace rb {

Json layout_json(const Layout& l) {
  Json j;
  const Layout defaults;
  for (const LayoutField& r : layout_fields()) {
    if (!field_in_force(r, l)) continue;
    if (r.shown == FieldShown::kWhenSet && field_text(r, l) == field_text(r, defaults)) continue;
    const std::string key(r.key);
    switch (r.kind) {
      case FieldKind::kInt: j[key] = l.*r.int_member; break;
      case FieldKind::kBool: j[key] = l.*r.bool_member; break;
      case FieldKind::kText: j[key] = field_text(r, l); break;
      case FieldKind::kNumber: j[key] = l.*r.number_member; break;
    }
    // DP (not a flag: the GPU count gives it) beside the degrees.
    if (r.int_member == &Layout::etp) j["dp"] = l.dp;
  }
  return j;
}

}  // namespace rb
