// The request handler of `recipebook serve`, with no sockets: a method, a path, query parameters
// and a body in, a status and a JSON body out. Every handler runs the CLI's own run_<name>() with a
// Context that writes to a string and has --json on, so a response body IS what the CLI prints with
// --json (one serializer). Errors, the server's own included, are the CLI's error object
//   {"errors": [{"rule", "message", "fix", "where", "severity"}], "exit_code": N}
// with a 4xx status. Routes:
//   POST /api/estimate  /api/plan  /api/recommend  /api/launch   (JSON: the flags' keys)
//   POST /api/check     (a recipe record's YAML text)
//   GET  /api/catalog[?model=&mode=&gpu=&gpus=&kind=]  /api/models  /api/hardware
//   GET  /api/recipes/NAME  /api/models/NAME  /api/hardware/NAME
// Status: 200 with the CLI's exit code 0 or 1 (1: findings, infeasible; the answer is in the body),
// 400 exit code 2 (usage or input), 404 unknown route or name, 405 wrong method, 413 body too large,
// 422 past the server's limits (RB-SERVE-LIMIT), 503 busy (RB-SERVE-BUSY), 500 internal.
// The CLI's exit code is also in the X-Recipebook-Exit-Code header.
#pragma once

#include <algorithm>
#include <cstddef>
#include <map>
#include <memory>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/serve/request_json.hpp"

namespace rb::serve {

// Plan slots handed out first come, first served: a request waits its turn up to a time limit, so
// none is starved by later ones (as a plain semaphore allows).
class PlanQueue {
 public:
  explicit PlanQueue(int slots) : free_(slots) {}
  bool acquire(std::chrono::milliseconds wait);
  void release();

 private:
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<uint64_t> line_;
  uint64_t next_ = 0;
  int free_;
};

struct ApiConfig {
  std::vector<std::string> catalog_dirs;  // --catalog DIR, as the CLI takes it
  size_t max_body_bytes = size_t{1} << 20;
  int plan_threads = 1;          // planner threads per request (the worker pool bounds the rest)
  int max_concurrent_plans = 2;  // plan/recommend requests at once; more wait up to plan_wait_ms,
  int plan_wait_ms = 2000;       // then get 503
  PlanLimits plan_limits;
};

struct ApiResponse {
  int status = 200;
  std::string body;
  int exit_code = 0;
  std::string content_type = "application/json";
};

class Api {
 public:
  // Loads the catalog once (the built-in one plus catalog_dirs); fails as the CLI does.
  static Result<Api> create(ApiConfig config);

  ApiResponse handle(std::string_view method, std::string_view path, const std::multimap<std::string, std::string>& query,
                     std::string_view body) const;


 private:
  Api(ApiConfig config, Catalog catalog)
      : config_(std::move(config)), catalog_(std::move(catalog)),
        plan_slots_(std::make_shared<PlanQueue>(std::clamp(config_.max_concurrent_plans, 1, 1024))) {}
  ApiResponse post(std::string_view route, std::string_view body) const;
  ApiResponse get(std::string_view route, const std::multimap<std::string, std::string>& query) const;

  ApiConfig config_;
  Catalog catalog_;
  std::shared_ptr<PlanQueue> plan_slots_;  // one per plan or recommend request running
};

// The error response for one Error: the CLI's JSON error object (report.hpp), at `status`.
ApiResponse error_response(int status, const std::vector<Error>& errors, std::string_view default_rule = "RB-INPUT");
inline ApiResponse error_response(int status, const Error& e, std::string_view default_rule = "RB-INPUT") {
  return error_response(status, std::vector<Error>{e}, default_rule);
}

}  // namespace rb::serve
