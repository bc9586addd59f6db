// The functions over the layout field table (layout_fields.hpp): lookups, spellings, and applying
// a LayoutFlags to a Layout. The rows themselves are layout_fields.cpp's.
#include "recipebook/core/layout_fields.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <utility>

namespace rb {

namespace {

// The shortest text that reads back to `v` ("0.5", "1").
std::string number_text(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

}  // namespace

const LayoutField* find_layout_field(std::string_view key) {
  for (const LayoutField& f : layout_fields())
    if (f.key == key || flag_name(f) == key) return &f;
  return nullptr;
}

const LayoutField& layout_field(std::string_view key) {
  const LayoutField* f = find_layout_field(key);
  if (f == nullptr) throw std::logic_error("no layout field '" + std::string(key) + "'");
  return *f;
}

std::string flag_name(const LayoutField& f) {
  std::string out = "--" + std::string(f.key);
  for (auto& c : out)
    if (c == '_') c = '-';
  return out;
}

std::string field_text(const LayoutField& f, const Layout& l) {
  switch (f.kind) {
    case FieldKind::kInt: return std::to_string(l.*f.int_member);
    case FieldKind::kBool: return l.*f.bool_member ? "true" : "false";
    case FieldKind::kText: return f.text_of(l);
    case FieldKind::kNumber: return number_text(l.*f.number_member);
  }
  return {};
}

bool field_given(const LayoutField& f, const LayoutFlags& flags) {
  switch (f.kind) {
    case FieldKind::kInt: return (flags.*f.given_int).has_value();
    case FieldKind::kBool: return (flags.*f.given_bool).has_value();
    case FieldKind::kText: return !(flags.*f.given_text).empty();
    case FieldKind::kNumber: return (flags.*f.given_number).has_value();
  }
  return false;
}

bool field_in_force(const LayoutField& f, const Layout& l) { return f.in_force == nullptr || f.in_force(l); }

std::optional<uint32_t> search_dims_of(std::string_view keys) {
  uint32_t dims = 0;
  while (!keys.empty()) {
    const size_t comma = keys.find(',');
    const std::string_view key = keys.substr(0, comma);
    keys = comma == std::string_view::npos ? std::string_view() : keys.substr(comma + 1);
    if (key == "dp") {  // world / (TP CP PP)
      dims |= dim_bit(SearchDim::kTp) | dim_bit(SearchDim::kCp) | dim_bit(SearchDim::kPipeline);
      continue;
    }
    const auto rows = layout_fields();
    const auto row = std::find_if(rows.begin(), rows.end(), [&](const LayoutField& f) { return f.key == key; });
    if (row == rows.end()) return std::nullopt;
    dims |= dim_bit(row->search);
  }
  return dims;
}

bool LayoutFlags::any() const {
  for (const LayoutField& f : layout_fields())
    if (field_given(f, *this)) return true;
  return false;
}

void fill_unset(LayoutFlags& f, const LayoutFlags& from) {
  for (const LayoutField& r : layout_fields()) {
    if (field_given(r, f)) continue;
    switch (r.kind) {
      case FieldKind::kInt: f.*r.given_int = from.*r.given_int; break;
      case FieldKind::kBool: f.*r.given_bool = from.*r.given_bool; break;
      case FieldKind::kText: f.*r.given_text = from.*r.given_text; break;
      case FieldKind::kNumber: f.*r.given_number = from.*r.given_number; break;
    }
  }
}

LayoutFlags fixed_features(const Layout& l) {
  const Layout defaults;
  LayoutFlags f;
  for (const LayoutField& r : layout_fields()) {
    if (r.plan != PlanRole::kFixed || field_text(r, l) == field_text(r, defaults)) continue;
    switch (r.kind) {
      case FieldKind::kInt: f.*r.given_int = l.*r.int_member; break;
      case FieldKind::kBool: f.*r.given_bool = l.*r.bool_member; break;
      case FieldKind::kText: f.*r.given_text = field_text(r, l); break;
      case FieldKind::kNumber: f.*r.given_number = l.*r.number_member; break;
    }
  }
  return f;
}

Result<void> apply_layout_flags(const LayoutFlags& f, Layout& l, bool from_flags_only) {
  const int old_tp = l.tp;
  const bool old_sp = l.sp;
  // A recipe's uneven split (or explicit layout) belongs to its PP and VP: another pipeline starts
  // even unless given.
  if (std::pair{f.pp.value_or(l.pp), f.vp.value_or(l.vp)} != std::pair{l.pp, l.vp}) {
    l.first_stage_layers = l.last_stage_layers = 0;
    l.pipeline_layout.clear();
  }
  if (f.pipeline_layout.empty() && (f.first_stage_layers || f.last_stage_layers ||
                                    f.account_for_embedding.value_or(false) || f.account_for_loss.value_or(false)))
    l.pipeline_layout.clear();  // another kind of split given over a recipe's layout replaces it
  // The plain fields, then the named ones in table order (the first unknown value is the error).
  for (const LayoutField& r : layout_fields()) {
    if (r.kind == FieldKind::kInt && (f.*r.given_int)) l.*r.int_member = *(f.*r.given_int);
    if (r.kind == FieldKind::kNumber && (f.*r.given_number)) l.*r.number_member = *(f.*r.given_number);
    if (r.kind == FieldKind::kBool && r.bool_member != &Layout::sp && (f.*r.given_bool))
      l.*r.bool_member = *(f.*r.given_bool);
  }
  // Seed 004: "SP should be True whenever TP > 1"; Megatron refuses SP with TP 1.
  if (f.sp)
    l.sp = *f.sp;
  else
    l.sp = l.tp > 1 && (from_flags_only || old_sp || old_tp == 1);
  for (const LayoutField& r : layout_fields())
    if (r.kind == FieldKind::kText && !(f.*r.given_text).empty())
      if (auto ok = r.apply(f, l); !ok) return ok;
  return {};
}

}  // namespace rb
