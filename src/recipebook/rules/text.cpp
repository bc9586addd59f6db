#include "recipebook/rules/text.hpp"

#include <cmath>
#include <cstdio>

#include "recipebook/core/strings.hpp"

namespace rb {

std::string join_set(const std::vector<int>& values) {
  std::string out = "{";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(values[i]);
  }
  return out + "}";
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string percent(double fraction) { return fixed(std::round(fraction * 100.0), 0) + "%"; }

std::string join_words(const std::vector<std::string>& words, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) {
    if (i > 0) out += sep;
    out += words[i];
  }
  return out;
}

bool contains_ci(std::string_view haystack, std::string_view needle) {
  return to_lower(haystack).find(to_lower(needle)) != std::string::npos;
}

}  // namespace rb
