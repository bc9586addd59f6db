// The one path every error of every subcommand leaves by: CLI11's usage errors (main.cpp), input
// errors (an unknown model, an unreadable file) and refusals. Without --json each is a line
//   recipebook: file:line:col: message (fix: ...)
// on stderr; with --json the errors are one JSON object on stdout (the exit code as well):
//   {"errors": [{"rule": "RB-INPUT", "message": "...", "fix": "...", "where": "--model"}], "exit_code": 2}
// `rule` is the Error's code, else RB-INPUT (RB-USAGE for the command line itself).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "recipebook/context.hpp"
#include "recipebook/core/diagnostic.hpp"
#include "recipebook/core/result.hpp"

namespace rb::cli {

// Reports every error and returns `exit_code`; `default_rule` names an error that has no code.
int report_errors(const Context& ctx, const std::vector<Error>& errors, int exit_code,
                  std::string_view default_rule = "RB-INPUT");

// Findings that stop a command (a rule rejecting a layout, a record's errors), then `conclusion` if
// any. Text: each finding as `prefix` + Diagnostic::str() on stderr, then "recipebook: <conclusion>";
// JSON: each finding (and the conclusion) an entry of "errors", with its severity.
int report_findings(const Context& ctx, const Diagnostics& findings, const std::optional<Error>& conclusion,
                    int exit_code, std::string_view prefix = "", std::string_view default_rule = "RB-INPUT");

// One error, exit code kExitUsage (2).
int report(const Context& ctx, const Error& e);

}  // namespace rb::cli
