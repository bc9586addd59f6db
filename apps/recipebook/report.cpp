#include "recipebook/report.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <ostream>
#include <string>

namespace rb::cli {

namespace {

// A where as the input spells it: the flag "--cp-comm-type" is the JSON body's "cp_comm_type" when the
// input came as one (Context::request_keys); files and keys stay as they are.
std::string where_text(const Where& where, bool request_keys) {
  std::string w = where.str();
  if (!request_keys || w.rfind("--", 0) != 0) return w;
  w.erase(0, 2);
  std::replace(w.begin(), w.end(), '-', '_');
  return w;
}

nlohmann::ordered_json entry(std::string_view rule, const std::string& message, const std::string& fix,
                             const std::string& where, Severity severity) {
  nlohmann::ordered_json o;
  o["rule"] = rule;
  o["message"] = message;
  o["fix"] = fix;
  o["where"] = where;
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
      list.push_back(entry(e.code.empty() ? default_rule : std::string_view(e.code), e.message, e.fix,
                           where_text(e.where, ctx.request_keys), Severity::kError));
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
    for (const auto& d : findings)
      list.push_back(entry(rule(d.rule_id), d.message, d.fix, where_text(d.where, ctx.request_keys), d.severity));
    if (conclusion)
      list.push_back(entry(rule(conclusion->code), conclusion->message, conclusion->fix,
                           where_text(conclusion->where, ctx.request_keys), Severity::kError));
    return print_json(ctx, std::move(list), exit_code);
  }
  for (const auto& d : findings) ctx.err << prefix << d.str() << "\n";
  if (conclusion) ctx.err << "recipebook: " << conclusion->str() << "\n";
  return exit_code;
}

int report(const Context& ctx, const Error& e) { return report_errors(ctx, {e}, kExitUsage); }

}  // namespace rb::cli
