#include "recipebook/catalog/yaml_scalar.hpp"

#include <charconv>
#include <limits>
#include <string>

#include "recipebook/core/strings.hpp"

namespace rb {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_octal(char c) { return c >= '0' && c <= '7'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

bool all_of(std::string_view s, bool (*pred)(char)) {
  if (s.empty()) return false;
  for (char c : s)
    if (!pred(c)) return false;
  return true;
}

std::string_view strip_sign(std::string_view s) {
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) s.remove_prefix(1);
  return s;
}

bool is_int_form(std::string_view s) {
  if (s.size() > 2 && s[0] == '0' && s[1] == 'o') return all_of(s.substr(2), is_octal);
  if (s.size() > 2 && s[0] == '0' && s[1] == 'x') return all_of(s.substr(2), is_hex);
  return all_of(strip_sign(s), is_digit);
}

bool is_special_float(std::string_view s) {
  const std::string_view m = strip_sign(s);
  if (m == ".inf" || m == ".Inf" || m == ".INF") return true;
  return s == ".nan" || s == ".NaN" || s == ".NAN";
}

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool is_float_form(std::string_view s) {
  s = strip_sign(s);
  size_t i = 0;
  size_t int_digits = 0;
  while (i < s.size() && is_digit(s[i])) ++i, ++int_digits;
  size_t frac_digits = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && is_digit(s[i])) ++i, ++frac_digits;
  }
  if (int_digits == 0 && frac_digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    size_t exp_digits = 0;
    while (i < s.size() && is_digit(s[i])) ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  return i == s.size();
}

}  // namespace

YNode::ScalarType core_schema_type(std::string_view s) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return YNode::ScalarType::kNone;
  if (parse_core_bool(s)) return YNode::ScalarType::kBool;
  if (is_int_form(s)) return parse_core_int(s) ? YNode::ScalarType::kInt : YNode::ScalarType::kFloat;
  if (is_special_float(s) || is_float_form(s)) return YNode::ScalarType::kFloat;
  return YNode::ScalarType::kString;
}

std::optional<int64_t> parse_core_int(std::string_view s) {
  if (!is_int_form(s)) return std::nullopt;
  int base = 10;
  bool negative = false;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'o' || s[1] == 'x')) {
    base = s[1] == 'o' ? 8 : 16;
    s.remove_prefix(2);
  } else if (s.front() == '-' || s.front() == '+') {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  uint64_t magnitude = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), magnitude, base);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  constexpr auto kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (negative) {
    if (magnitude > kMax + 1) return std::nullopt;
    return magnitude == kMax + 1 ? std::numeric_limits<int64_t>::min() : -static_cast<int64_t>(magnitude);
  }
  if (magnitude > kMax) return std::nullopt;
  return static_cast<int64_t>(magnitude);
}

std::optional<double> parse_core_float(std::string_view s) {
  if (auto i = parse_core_int(s)) return static_cast<double>(*i);
  if (is_special_float(s)) {
    if (strip_sign(s).size() == s.size() && (s == ".nan" || s == ".NaN" || s == ".NAN"))
      return std::numeric_limits<double>::quiet_NaN();
    return s.front() == '-' ? -std::numeric_limits<double>::infinity()
                            : std::numeric_limits<double>::infinity();
  }
  if (!is_float_form(s) && !is_int_form(s)) return std::nullopt;
  bool negative = false;
  if (s.front() == '-' || s.front() == '+') {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  double v = 0;
  // from_chars has no octal/hex floats; a big 0x/0o integer lands here only when it overflows int64.
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'o' || s[1] == 'x')) {
    const double base = s[1] == 'o' ? 8.0 : 16.0;
    for (char c : s.substr(2)) {
      const int d = is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10;
      v = v * base + d;
    }
    return v;
  }
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (end != s.data() + s.size()) return std::nullopt;
  if (ec == std::errc::result_out_of_range) {
    // Overflow gives +-inf in spirit; underflow gives 0. from_chars leaves v unchanged then.
    const bool tiny = s.find("e-") != std::string_view::npos || s.find("E-") != std::string_view::npos ||
                      s.front() == '0' || s.front() == '.';
    v = tiny ? 0.0 : std::numeric_limits<double>::infinity();
  } else if (ec != std::errc()) {
    return std::nullopt;
  }
  return negative ? -v : v;
}

std::optional<bool> parse_core_bool(std::string_view s) {
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  return std::nullopt;
}

bool is_yaml11_bool(std::string_view s) {
  const std::string f = to_lower(s);
  return f == "y" || f == "n" || f == "yes" || f == "no" || f == "on" || f == "off";
}

std::optional<size_t> find_invalid_utf8(std::string_view text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    const unsigned char c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len = 0;
    uint32_t cp = 0;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
      cp = c & 0x1Fu;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      cp = c & 0x0Fu;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      cp = c & 0x07u;
    } else {
      return i;  // continuation byte out of place, overlong lead (C0/C1) or F5..FF
    }
    if (i + len > n) return i;
    for (size_t k = 1; k < len; ++k) {
      if ((p[i + k] & 0xC0u) != 0x80u) return i;
      cp = (cp << 6) | (p[i + k] & 0x3Fu);
    }
    const bool overlong = (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000);
    const bool surrogate = cp >= 0xD800 && cp <= 0xDFFF;
    if (overlong || surrogate || cp > 0x10FFFF) return i;
    i += len;
  }
  return std::nullopt;
}

Where position_of(std::string_view text, size_t offset, const std::string& file) {
  Where w{file, 1, 1};
  if (offset > text.size()) offset = text.size();
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++w.line;
      w.col = 1;
    } else {
      ++w.col;
    }
  }
  return w;
}

}  // namespace rb
