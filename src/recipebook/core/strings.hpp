// Small string helpers shared by every module: case folding, edit distance for "did you mean".
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rb {

std::string to_lower(std::string_view s);
// Lower-cases and drops '-', '_', '.', ' ' and '/': "Qwen3-30B-A3B" and "qwen3_30b_a3b" compare equal.
std::string fold_name(std::string_view s);
// Levenshtein distance.
size_t edit_distance(std::string_view a, std::string_view b);
// The candidate nearest to `word` (by edit distance on folded names), if it is near enough to be a
// plausible typo (distance <= max(2, len/3)); empty otherwise.
std::string nearest(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace rb
