#include "recipebook/serve/api.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "recipebook/cmd_check.hpp"
#include "recipebook/cmd_estimate.hpp"
#include "recipebook/cmd_launch.hpp"
#include "recipebook/cmd_list.hpp"
#include "recipebook/cmd_plan.hpp"
#include "recipebook/cmd_recommend.hpp"
#include "recipebook/cmd_show.hpp"
#include "recipebook/report.hpp"

namespace rb::serve {
namespace {

using Json = nlohmann::json;

// The HTTP status of a CLI exit code: an answer (0, or 1 with findings) is 200; a usage or input
// error is 400; anything else (3: internal) is 500.
int status_of(int exit_code) {
  if (exit_code == cli::kExitOk || exit_code == cli::kExitFindings) return 200;
  if (exit_code == cli::kExitUsage) return 400;
  return 500;
}

// Runs one CLI subcommand with --json into a string: its stdout is the response body.
template <typename Fn>
ApiResponse run_cli(const std::vector<std::string>& catalog_dirs, Fn&& fn) {
  std::ostringstream out;
  std::ostringstream err;
  const cli::Context ctx{out, err, catalog_dirs, /*json=*/true, /*color=*/false, /*request_keys=*/true};
  ApiResponse r;
  try {
    r.exit_code = fn(ctx);
  } catch (const std::exception& e) {  // as main.cpp's last resort
    std::ostringstream o2;
    const cli::Context c2{o2, err, catalog_dirs, true, false};
    r.exit_code = cli::report_errors(c2, {Error{std::string("internal error: ") + e.what(), {}, {}, "RB-INTERNAL"}}, 3);
    r.status = 500;
    r.body = o2.str();
    return r;
  }
  r.status = status_of(r.exit_code);
  r.body = out.str();
  return r;
}

// Holds one plan slot for as long as it lives; `ok` is false when none came free in `wait_ms`.
class PlanSlot {
 public:
  PlanSlot(PlanQueue& s, int wait_ms) : s_(s) { ok = s_.acquire(std::chrono::milliseconds(wait_ms)); }
  ~PlanSlot() {
    if (ok) s_.release();
  }
  PlanSlot(const PlanSlot&) = delete;
  PlanSlot& operator=(const PlanSlot&) = delete;
  bool ok = false;

 private:
  PlanQueue& s_;
};

ApiResponse busy() {
  return error_response(503, Error("the server is planning as many requests as it takes at once, and none finished in time", {},
                                   "retry in a moment, or run 'recipebook plan' locally", "RB-SERVE-BUSY"));
}

// A recipe record's text, checked as `recipebook check FILE` checks it: the text goes to a private
// temporary folder as record.yaml, and findings name "record.yaml:LINE:COL".
ApiResponse check_text(std::string_view text, const std::vector<std::string>& catalog_dirs, const Catalog& catalog) {
  std::error_code ec;
  const auto base = std::filesystem::temp_directory_path(ec);
  std::string templ = (ec ? std::filesystem::path("/tmp") : base).string() + "/recipebook-check-XXXXXX";
  if (mkdtemp(templ.data()) == nullptr)
    return error_response(500, Error("cannot make a temporary folder for the record", {}, {}, "RB-INTERNAL"));
  const std::filesystem::path dir(templ);
  const std::string file = (dir / "record.yaml").string();
  {
    std::ofstream f(file, std::ios::binary);
    f.write(text.data(), static_cast<std::streamsize>(text.size()));
  }
  cli::CheckOptions o;
  o.files = {file};
  ApiResponse r = run_cli(catalog_dirs, [&](const cli::Context& ctx) { return cli::run_check(o, ctx, catalog); });
  std::filesystem::remove_all(dir, ec);
  const std::string prefix = dir.string() + "/";
  for (size_t at = r.body.find(prefix); at != std::string::npos; at = r.body.find(prefix, at))
    r.body.erase(at, prefix.size());
  return r;
}

std::string query_value(const std::multimap<std::string, std::string>& q, const std::string& key) {
  const auto it = q.find(key);
  return it == q.end() ? std::string() : it->second;
}

}  // namespace

bool PlanQueue::acquire(std::chrono::milliseconds wait) {
  std::unique_lock lock(m_);
  const uint64_t me = next_++;
  line_.push_back(me);
  const bool ok = cv_.wait_for(lock, wait, [&] { return free_ > 0 && line_.front() == me; });
  line_.erase(std::find(line_.begin(), line_.end(), me));
  if (ok) --free_;
  cv_.notify_all();  // the next in line (or one behind a waiter that gave up) may go now
  return ok;
}

void PlanQueue::release() {
  {
    const std::lock_guard lock(m_);
    ++free_;
  }
  cv_.notify_all();
}

ApiResponse error_response(int status, const std::vector<Error>& errors, std::string_view default_rule) {
  std::ostringstream out;
  std::ostringstream err;
  const cli::Context ctx{out, err, {}, true, false};
  ApiResponse r;
  r.exit_code = cli::report_errors(ctx, errors, cli::kExitUsage, default_rule);
  r.status = status;
  r.body = out.str();
  return r;
}

Result<Api> Api::create(ApiConfig config) {
  auto cat = Catalog::load(config.catalog_dirs);
  if (!cat) return tl::unexpected(cat.error());
  return Api(std::move(config), std::move(*cat));
}

ApiResponse Api::handle(std::string_view method, std::string_view path,
                        const std::multimap<std::string, std::string>& query, std::string_view body) const {
  if (!path.starts_with("/api/"))
    return error_response(404, Error("no such route: " + std::string(path), {}, "see docs/serve.md", "RB-SERVE-ROUTE"));
  const std::string_view route = path.substr(5);
  if (body.size() > config_.max_body_bytes)
    return error_response(413, Error("the request body is larger than the server takes", {},
                                     "send at most " + std::to_string(config_.max_body_bytes) + " bytes",
                                     kRuleLimit));
  if (method == "POST") return post(route, body);
  if (method == "GET") return get(route, query);
  return error_response(405, Error("method " + std::string(method) + " is not allowed", {}, "use GET or POST",
                                   "RB-SERVE-ROUTE"));
}

ApiResponse Api::post(std::string_view route, std::string_view body) const {
  const auto& dirs = config_.catalog_dirs;
  if (route == "check") return check_text(body, dirs, catalog_);
  const bool known = route == "estimate" || route == "plan" || route == "recommend" || route == "launch";
  if (!known)
    return error_response(route == "catalog" || route == "hardware" || route.starts_with("recipes/") ||
                                  route.starts_with("models/")
                              ? 405
                              : 404,
                          Error("no POST route /api/" + std::string(route), {}, "see docs/serve.md", "RB-SERVE-ROUTE"));
  const auto parsed = cli::parse_json_body(body);
  if (!parsed) return error_response(400, parsed.error());
  const Json& j = *parsed;
  // Every error of the body at once: 422 when only the server's own limits refuse it, else 400.
  auto input_error = [](const std::vector<Error>& es) {
    const bool limits = std::all_of(es.begin(), es.end(), [](const Error& e) { return e.code == kRuleLimit; });
    return error_response(limits ? 422 : 400, es);
  };
  if (route == "estimate") {
    auto o = estimate_options_from_json(j);
    if (!o) return input_error(o.error());
    return run_cli(dirs, [&](const cli::Context& ctx) { return cli::run_estimate(*o, ctx, catalog_); });
  }
  if (route == "plan") {
    auto o = plan_options_from_json(j, config_.plan_limits, config_.plan_threads);
    if (!o) return input_error(o.error());
    const PlanSlot slot(*plan_slots_, config_.plan_wait_ms);
    if (!slot.ok) return busy();
    return run_cli(dirs, [&](const cli::Context& ctx) { return cli::run_plan(*o, ctx, catalog_); });
  }
  if (route == "recommend") {
    auto o = recommend_options_from_json(j, config_.plan_threads);
    if (!o) return input_error(o.error());
    const PlanSlot slot(*plan_slots_, config_.plan_wait_ms);
    if (!slot.ok) return busy();
    return run_cli(dirs, [&](const cli::Context& ctx) { return cli::run_recommend(*o, ctx, catalog_); });
  }
  auto o = launch_options_from_json(j);
  if (!o) return input_error(o.error());
  return run_cli(dirs, [&](const cli::Context& ctx) { return cli::run_launch(*o, ctx); });
}

ApiResponse Api::get(std::string_view route, const std::multimap<std::string, std::string>& query) const {
  const auto& dirs = config_.catalog_dirs;
  auto list = [&](const std::string& what) {
    cli::ListOptions o;
    o.what = what;
    o.model = query_value(query, "model");
    o.mode = query_value(query, "mode");
    o.gpu = query_value(query, "gpu");
    o.kind = query_value(query, "kind");
    o.measured = query_value(query, "measured") == "true";
    const std::string gpus = query_value(query, "gpus");
    if (!gpus.empty()) {
      char* end = nullptr;
      const long n = std::strtol(gpus.c_str(), &end, 10);
      if (*end != '\0' || n < 1 || n > (1 << 20))
        return error_response(400, Error("\"gpus\": '" + gpus + "' is not a GPU count"));
      o.gpus = static_cast<int>(n);
    }
    return run_cli(dirs, [&](const cli::Context& ctx) { return cli::run_list(o, ctx, catalog_); });
  };
  if (route == "catalog" || route == "recipes") return list("recipes");
  if (route == "models") return list("models");
  if (route == "hardware") return list("hardware");
  for (const std::string_view prefix : {"recipes/", "models/", "hardware/"}) {
    if (!route.starts_with(prefix) || route.size() == prefix.size()) continue;
    cli::ShowOptions o;
    o.name = std::string(route.substr(prefix.size()));
    o.resolved = query_value(query, "resolved") == "true";
    ApiResponse r = run_cli(dirs, [&](const cli::Context& ctx) { return cli::run_show(o, ctx, catalog_); });
    if (r.status == 400) r.status = 404;  // show's only input error is a name it does not know
    return r;
  }
  const bool post_only = route == "estimate" || route == "plan" || route == "recommend" || route == "launch" ||
                         route == "check";
  return error_response(post_only ? 405 : 404,
                        Error("no GET route /api/" + std::string(route), {}, "see docs/serve.md", "RB-SERVE-ROUTE"));
}

}  // namespace rb::serve
