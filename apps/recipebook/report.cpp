#include "recipebook/report.hpp"

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>

namespace rb::cli {

namespace {

nlohmann::ordered_json entry(std::string_view rule, const std::string& message, const std::string& fix,
                             const Where& where, Severity severity) {
  nlohmann::ordered_json o;
  o["rule"] = rule;
  o["message"] = message;
  o["fix"] = fix;
  o["where"] = where.str();
  o["severity"] = severity_name(severity);
  return o;
}

int print_json(const Context& ctx, nlohmann::ordered_json errors, int exit_code) {
  nlohmann::ordered_json j;
  j["errors"] = std::move(errors);
  j["exit_code"] = exit_code;
  ctx.out << j.dump(2) << "\n";
  return exit_code;
}

}  // namespace

int report_errors(const Context& ctx, const std::vector<Error>& errors, int exit_code, std::string_view default_rule) {
  if (ctx.json) {
    auto list = nlohmann::ordered_json::array();
    for (const auto& e : errors)
      list.push_back(entry(e.code.empty() ? default_rule : std::string_view(e.code), e.message, e.fix, e.where,
                           Severity::kError));
    return print_json(ctx, std::move(list), exit_code);
  }
  for (const auto& e : errors) ctx.err << "recipebook: " << e.str() << "\n";
  return exit_code;
}

int report_findings(const Context& ctx, const Diagnostics& findings, const std::optional<Error>& conclusion,
                    int exit_code, std::string_view prefix, std::string_view default_rule) {
  auto rule = [&](const std::string& id) { return id.empty() ? default_rule : std::string_view(id); };
  if (ctx.json) {
    auto list = nlohmann::ordered_json::array();
    for (const auto& d : findings) list.push_back(entry(rule(d.rule_id), d.message, d.fix, d.where, d.severity));
    if (conclusion)
      list.push_back(entry(rule(conclusion->code),
                           conclusion->message, conclusion->fix, conclusion->where, Severity::kError));
    return print_json(ctx, std::move(list), exit_code);
  }
  for (const auto& d : findings) ctx.err << prefix << d.str() << "\n";
  if (conclusion) ctx.err << "recipebook: " << conclusion->str() << "\n";
  return exit_code;
}

int report(const Context& ctx, const Error& e) { return report_errors(ctx, {e}, kExitUsage); }

}  // namespace rb::cli
