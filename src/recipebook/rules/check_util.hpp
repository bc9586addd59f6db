// Private helpers shared by the checks_*.cpp files.
#pragma once

#include <string>
#include <vector>

#include "recipebook/core/units.hpp"
#include "recipebook/rules/prepared.hpp"
#include "recipebook/rules/rule.hpp"
#include "recipebook/rules/text.hpp"
#include "recipebook/rules/valid_degrees.hpp"

namespace rb {

// Fills a finding; always returns true so a check can `return report(out, ...)`.
inline bool report(Finding* out, std::string message, std::string fix, std::string field,
                   std::string field_alt = {}) {
  out->message = std::move(message);
  out->fix = std::move(fix);
  out->field = std::move(field);
  out->field_alt = std::move(field_alt);
  return true;
}

// The largest degree worth suggesting for this input: the GPU count when known, else 64.
inline int degree_cap(const RuleContext& ctx) {
  return ctx.world > 0 && ctx.world < 64 ? static_cast<int>(ctx.world) : 64;
}

// The values of one degree a fix may suggest: of `candidates` (each satisfies the rule itself), those
// `fits` accepts (the other rules the rule knows of: the world size, SP, EP, VP), else all of them,
// so a fix always names a value.
template <typename Fits>
std::vector<int> keep_fitting(const std::vector<int>& candidates, Fits fits) {
  std::vector<int> out;
  for (int v : candidates)
    if (fits(v)) out.push_back(v);
  return out.empty() ? candidates : out;
}

// True when `n` GPUs hold a layout whose TP x PP x CP and EP x ETP x PP are `dense` and `expert`
// (RB-WORLD-DIVISIBLE, RB-EP-DIVISIBLE); an unknown world (0) holds anything.
inline bool world_holds(int64_t world, int64_t dense, int64_t expert) {
  return world <= 0 || (dense > 0 && world % dense == 0 && expert > 0 && world % expert == 0);
}

inline bool has_bits(uint32_t mask, uint32_t bits) { return (mask & bits) != 0; }

inline bool is_fp8(Precision p) { return precision_class(p) == PrecisionClass::kFp8; }

}  // namespace rb
