// Internal to core/layout_fields*.cpp: the builders the row table (layout_fields.cpp) is written
// with, and the readers of plan's flags for the named searched fields (layout_fields_search.cpp).
#pragma once

#include <vector>

#include "recipebook/core/layout_fields.hpp"

namespace rb::field_rows {

using F = LayoutFlags;
using L = Layout;
using K = FieldKind;
using M = FieldMin;
using P = PlanRole;
using D = SearchDim;

// A row of each kind: key, help, min, where it lives, record path, Bridge key, Megatron-LM flag,
// what plan does, the search dimension that sets it. The default is Layout's (core/layout.hpp).
constexpr LayoutField row(std::string_view key, K kind, std::string_view help, std::string_view yaml,
                          std::string_view bridge, std::string_view megatron, P plan, D dim) {
  LayoutField f{};
  f.key = key;
  f.kind = kind;
  f.help = help;
  f.min = M::kAny;
  f.yaml = yaml;
  f.bridge = bridge;
  f.megatron = megatron;
  f.plan = plan;
  f.search = dim;
  return f;
}
constexpr LayoutField int_row(std::string_view key, std::string_view help, M min, std::optional<int> F::*given,
                              int L::*member, std::string_view yaml, std::string_view bridge, std::string_view megatron,
                              P plan, D dim) {
  LayoutField f = row(key, K::kInt, help, yaml, bridge, megatron, plan, dim);
  f.min = min;
  f.given_int = given;
  f.int_member = member;
  return f;
}
constexpr LayoutField bool_row(std::string_view key, std::string_view help, std::optional<bool> F::*given,
                               bool L::*member, std::string_view yaml, std::string_view bridge,
                               std::string_view megatron, P plan, D dim) {
  LayoutField f = row(key, K::kBool, help, yaml, bridge, megatron, plan, dim);
  f.given_bool = given;
  f.bool_member = member;
  return f;
}
constexpr LayoutField text_row(std::string_view key, std::string_view help, std::string F::*given,
                               std::string (*text_of)(const Layout&), Result<void> (*apply)(const F&, L&),
                               std::string_view yaml, std::string_view bridge, std::string_view megatron, P plan,
                               D dim) {
  LayoutField f = row(key, K::kText, help, yaml, bridge, megatron, plan, dim);
  f.given_text = given;
  f.text_of = text_of;
  f.apply = apply;
  return f;
}
constexpr LayoutField number_row(std::string_view key, std::string_view help, std::optional<double> F::*given,
                                 double L::*member, std::string_view yaml, std::string_view bridge,
                                 std::string_view megatron, P plan, D dim) {
  LayoutField f = row(key, K::kNumber, help, yaml, bridge, megatron, plan, dim);
  f.given_number = given;
  f.number_member = member;
  return f;
}

// A row that means something only when `in_force` holds.
constexpr LayoutField when_in_force(bool (*in_force)(const Layout&), LayoutField f) {
  f.in_force = in_force;
  return f;
}
// A row a layout's JSON shows only when it is not Layout's default.
constexpr LayoutField when_set(LayoutField f) {
  f.shown = FieldShown::kWhenSet;
  return f;
}
// A row whose flag `flags_text` leaves out when `implied` says estimate takes the value without it.
constexpr LayoutField implied_when(bool (*implied)(const Layout&), LayoutField f) {
  f.implied = implied;
  return f;
}
// A searched row plan takes a flag of its own for (`plan_help`, its --help text): an int row's
// flag takes degrees ("2", "2,4"), a switch's any | on | off; a named row gives `read` (its
// values as SearchValues) and `set` (one value into a Layout). `plan_default`: the flag's text
// when it is not given ("" = the search's own list).
constexpr LayoutField plan_flag(std::string_view plan_help, LayoutField f,
                                Result<std::vector<SearchValue>> (*read)(std::string_view) = nullptr,
                                void (*set)(Layout&, SearchValue) = nullptr, std::string_view plan_default = {}) {
  f.plan_help = plan_help;
  f.plan_values = read;
  f.set_value = set;
  f.plan_default = plan_default;
  return f;
}

// The named searched fields' readers and setters (layout_fields_search.cpp).
Result<std::vector<SearchValue>> precision_values(std::string_view text);
void set_precision(Layout& l, SearchValue v);
Result<std::vector<SearchValue>> recompute_values(std::string_view text);
void set_recompute(Layout& l, SearchValue v);
Result<std::vector<SearchValue>> dispatcher_values(std::string_view text);
void set_dispatcher(Layout& l, SearchValue v);
Result<std::vector<SearchValue>> cp_comm_values(std::string_view text);
void set_cp_comm(Layout& l, SearchValue v);

}  // namespace rb::field_rows
