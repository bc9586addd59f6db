// Result<T>: the one error channel for expected failures (missing file, bad YAML, unknown model,
// no feasible layout). Defined here alone so it can move to std::expected later.
#pragma once

#include <string>
#include <utility>

#include <tl/expected.hpp>

namespace rb {

// Where something is: a file position (line and column are 1-based; 0 = unknown) or, for input
// that has no file, a flag name or JSON pointer carried in `file`.
struct Where {
  std::string file;
  int line = 0;
  int col = 0;

  [[nodiscard]] std::string str() const {
    if (line <= 0) return file;
    return file + ":" + std::to_string(line) + ":" + std::to_string(col);
  }
};

struct Error {
  Error() = default;
  Error(std::string message_, Where where_ = {}, std::string fix_ = {}, std::string code_ = {})
      : message(std::move(message_)), where(std::move(where_)), fix(std::move(fix_)), code(std::move(code_)) {}

  std::string message;  // one line, no trailing period needed
  Where where;          // may be empty
  std::string fix;      // optional: what to do about it
  std::string code;     // optional: the rule id when this error is also a finding (RB-YAML-SYNTAX, ...)

  // "file:line:col: message (fix: ...)" or just the message when there is no position.
  [[nodiscard]] std::string str() const {
    std::string out;
    std::string w = where.str();
    if (!w.empty()) out = w + ": ";
    out += message;
    if (!fix.empty()) out += " (fix: " + fix + ")";
    return out;
  }
};

template <typename T>
using Result = tl::expected<T, Error>;

inline tl::unexpected<Error> fail(std::string message, Where where = {}, std::string fix = {}) {
  return tl::unexpected<Error>(Error{std::move(message), std::move(where), std::move(fix)});
}

}  // namespace rb
