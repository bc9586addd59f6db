#include "recipebook/report.hpp"

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>

namespace rb::cli {

int report_errors(const Context& ctx, const std::vector<Error>& errors, int exit_code, std::string_view default_rule) {
  if (ctx.json) {
    nlohmann::ordered_json j;
    j["errors"] = nlohmann::ordered_json::array();
    for (const auto& e : errors) {
      nlohmann::ordered_json o;
      o["rule"] = e.code.empty() ? std::string(default_rule) : e.code;
      o["message"] = e.message;
      o["fix"] = e.fix;
      o["where"] = e.where.str();
      j["errors"].push_back(std::move(o));
    }
    j["exit_code"] = exit_code;
    ctx.out << j.dump(2) << "\n";
    return exit_code;
  }
  for (const auto& e : errors) ctx.err << "recipebook: " << e.str() << "\n";
  return exit_code;
}

int report(const Context& ctx, const Error& e) { return report_errors(ctx, {e}, kExitUsage); }

}  // namespace rb::cli
