#include "recipebook/core/units.hpp"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace rb {
namespace {

struct Unit {
  std::string_view name;
  UnitKind kind;
  double scale;
};

constexpr std::array<Unit, 27> kUnits{{
    {"B", UnitKind::kBytes, 1.0},
    {"KB", UnitKind::kBytes, 1e3},
    {"MB", UnitKind::kBytes, 1e6},
    {"GB", UnitKind::kBytes, 1e9},
    {"TB", UnitKind::kBytes, 1e12},
    {"KiB", UnitKind::kBytes, 1024.0},
    {"MiB", UnitKind::kBytes, 1024.0 * 1024.0},
    {"GiB", UnitKind::kBytes, 1024.0 * 1024.0 * 1024.0},
    {"TiB", UnitKind::kBytes, 1024.0 * 1024.0 * 1024.0 * 1024.0},
    {"B/s", UnitKind::kBytesPerSecond, 1.0},
    {"KB/s", UnitKind::kBytesPerSecond, 1e3},
    {"MB/s", UnitKind::kBytesPerSecond, 1e6},
    {"GB/s", UnitKind::kBytesPerSecond, 1e9},
    {"TB/s", UnitKind::kBytesPerSecond, 1e12},
    {"Mbit/s", UnitKind::kBytesPerSecond, 1e6 / 8},
    {"Gbit/s", UnitKind::kBytesPerSecond, 1e9 / 8},
    {"Tbit/s", UnitKind::kBytesPerSecond, 1e12 / 8},
    {"Mb/s", UnitKind::kBytesPerSecond, 1e6 / 8},
    {"Gb/s", UnitKind::kBytesPerSecond, 1e9 / 8},
    {"Tb/s", UnitKind::kBytesPerSecond, 1e12 / 8},
    {"Gbps", UnitKind::kBytesPerSecond, 1e9 / 8},
    {"FLOP/s", UnitKind::kFlopsPerSecond, 1.0},
    {"GFLOP/s", UnitKind::kFlopsPerSecond, 1e9},
    {"TFLOP/s", UnitKind::kFlopsPerSecond, 1e12},
    {"PFLOP/s", UnitKind::kFlopsPerSecond, 1e15},
    {"TFLOPS", UnitKind::kFlopsPerSecond, 1e12},
    {"PFLOPS", UnitKind::kFlopsPerSecond, 1e15},
}};

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string human(double v, const char* const* names, int n, double step) {
  int i = 0;
  while (i + 1 < n && std::fabs(v) >= step) {
    v /= step;
    ++i;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, v >= 100 ? "%.0f %s" : (v >= 10 ? "%.1f %s" : "%.2f %s"), v, names[i]);
  return buf;
}

}  // namespace

std::optional<double> parse_quantity(std::string_view text, UnitKind kind, std::string* why) {
  auto set_why = [&](std::string w) {
    if (why) *why = std::move(w);
    return std::nullopt;
  };
  std::string_view s = trim(text);
  size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.' || s[i] == 'e' ||
                          s[i] == 'E' || s[i] == '+' || s[i] == '-'))
    ++i;
  // 'e' may start a unit only if nothing numeric follows; numbers here never end in 'e'.
  double value = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + i, value);
  if (ec != std::errc() || ptr != s.data() + i || i == 0)
    return set_why("expected a number followed by a unit, as in \"80 GiB\"");
  if (!std::isfinite(value) || value < 0) return set_why("the number must be finite and not negative");
  std::string_view unit = trim(s.substr(i));
  if (unit.empty()) return set_why("missing unit after the number");
  for (const auto& u : kUnits) {
    if (u.name == unit) {
      if (u.kind != kind) return set_why("unit '" + std::string(unit) + "' measures something else here");
      return value * u.scale;
    }
  }
  return set_why("unknown unit '" + std::string(unit) + "'");
}

std::string format_bytes(double bytes) {
  static const char* const kNames[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  return human(bytes, kNames, 6, 1024.0);
}

std::string format_rate(double bytes_per_s) {
  static const char* const kNames[] = {"B/s", "KB/s", "MB/s", "GB/s", "TB/s"};
  return human(bytes_per_s, kNames, 5, 1000.0);
}

std::string format_flops(double flops_per_s) {
  static const char* const kNames[] = {"FLOP/s", "KFLOP/s", "MFLOP/s", "GFLOP/s", "TFLOP/s", "PFLOP/s", "EFLOP/s"};
  return human(flops_per_s, kNames, 7, 1000.0);
}

std::optional<double> parse_token_count(std::string_view text) {
  if (text.empty()) return 0.0;
  double scale = 1;
  std::string num(text);
  switch (std::toupper(static_cast<unsigned char>(num.back()))) {
    case 'K': scale = 1e3; break;
    case 'M': scale = 1e6; break;
    case 'B':
    case 'G': scale = 1e9; break;
    case 'T': scale = 1e12; break;
    default: break;
  }
  if (scale != 1) num.pop_back();
  char* end = nullptr;
  const double v = std::strtod(num.c_str(), &end);
  if (end == num.c_str() || *end != '\0' || !(v > 0) || !std::isfinite(v)) return std::nullopt;
  return v * scale;
}

}  // namespace rb
