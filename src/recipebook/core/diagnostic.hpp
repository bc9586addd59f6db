// Findings from validation: all of them are returned at once, never one per run.
#pragma once

#include <string>
#include <vector>

#include "recipebook/core/result.hpp"

namespace rb {

enum class Severity { kError, kWarning };

inline const char* severity_name(Severity s) { return s == Severity::kError ? "error" : "warning"; }

struct Diagnostic {
  Severity severity = Severity::kError;
  std::string rule_id;  // e.g. "RB-TP-HEADS"; see docs/rules.md
  Where where;          // file:line:col, or a flag / JSON pointer in `where.file`
  std::string message;
  std::string fix;  // may be empty

  // "file:line:col: error [ID] message (fix: ...)"
  [[nodiscard]] std::string str() const {
    std::string out;
    std::string w = where.str();
    if (!w.empty()) out = w + ": ";
    out += severity_name(severity);
    out += " [" + rule_id + "] " + message;
    if (!fix.empty()) out += " (fix: " + fix + ")";
    return out;
  }
};

using Diagnostics = std::vector<Diagnostic>;

inline bool has_errors(const Diagnostics& ds) {
  for (const auto& d : ds)
    if (d.severity == Severity::kError) return true;
  return false;
}

}  // namespace rb
