#include "recipebook/price_label.hpp"

#include <fmt/format.h>

#include <string_view>

namespace rb::cli {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string_view instance_of(std::string_view source) {
  if (const size_t open = source.find('('); open != std::string_view::npos) {
    const std::string_view inner = trim(source.substr(open + 1));
    const std::string_view first = inner.substr(0, inner.find_first_of(" \t;,)"));
    if (!first.empty()) return first;
  }
  return trim(source.substr(0, source.find(';')));
}

}  // namespace

std::string price_used(const Hardware& hw) {
  if (hw.usd_per_gpu_hour <= 0) return "";
  std::string where(instance_of(hw.price_source));
  if (!hw.price_date.empty()) where += (where.empty() ? "" : ", ") + hw.price_date;
  // {} prints the catalog's figure as written (6.88, 14.2416), not rounded to cents.
  return fmt::format("at ${} per GPU-hour{}", hw.usd_per_gpu_hour, where.empty() ? "" : " (" + where + ")");
}

}  // namespace rb::cli
