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

inline bool has_bits(uint32_t mask, uint32_t bits) { return (mask & bits) != 0; }

inline bool is_fp8(Precision p) { return precision_class(p) == PrecisionClass::kFp8; }

}  // namespace rb
