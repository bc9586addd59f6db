// Small formatting helpers for finding messages (recipebook_core links no fmt).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rb {

inline std::string str(int64_t v) { return std::to_string(v); }
// "{1, 2, 4, 8}"; "{}" when empty.
std::string join_set(const std::vector<int>& values);
// Fixed-point with `digits` decimals ("12.5").
std::string fixed(double v, int digits);
// "42%" of a fraction 0.42.
std::string percent(double fraction);
// Comma-joined strings: "a, b, c".
std::string join_words(const std::vector<std::string>& words, std::string_view sep = ", ");
// Case-insensitive substring test.
bool contains_ci(std::string_view haystack, std::string_view needle);

}  // namespace rb
