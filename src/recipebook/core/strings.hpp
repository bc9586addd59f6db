// Small string helpers shared by every module: case folding, edit distance for "did you mean".
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rb {

std::string to_lower(std::string_view s);
// Lower-cases and drops '-', '_', '.', ' ' and '/': "Qwen3-30B-A3B" and "qwen3_30b_a3b" compare equal.
std::string fold_name(std::string_view s);
// "`path`", as findings quote a field path; built by appending (GCC 12 warns falsely on
// "literal" + std::string&&, bug 105651).
std::string backquoted(std::string_view path);
// Levenshtein distance.
size_t edit_distance(std::string_view a, std::string_view b);
// The candidate nearest to `word` (by edit distance on folded names), if it is near enough to be a
// plausible typo (distance <= max(2, len/3)); empty otherwise.
std::string nearest(std::string_view word, const std::vector<std::string>& candidates);
// The parts of `s` between `sep`s, each without its leading and trailing spaces; empty parts are
// dropped ("h100, b200,," is {"h100", "b200"}).
std::vector<std::string> split_trimmed(std::string_view s, char sep);

}  // namespace rb

namespace rb {

// Up to `max_n` candidates that the user may have meant: first those containing every
// '_'/'-'-separated token of `word` (shortest first: "qwen3_30b_a3b_sft_config" suggests
// "qwen3_30b_a3b_sft_8gpu_h100_bf16_config"), then the nearest by edit distance.
std::vector<std::string> suggestions(std::string_view word, const std::vector<std::string>& candidates,
                                     size_t max_n = 3);

}  // namespace rb
