// libFuzzer target for `recipebook serve`'s request handler (src/recipebook/serve/api.hpp): the
// first byte picks a method and route, the rest is the body. Any bytes must get a response with a
// JSON body and a status the API documents, never a crash, a hang or a 500. Replayed over
// fuzz/serve_corpus/ as an ordinary test (serve_fuzz_replay), built with libFuzzer by the fuzz preset.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "recipebook/serve/api.hpp"

namespace {

struct Route {
  std::string_view method;
  std::string_view path;
};

constexpr std::array<Route, 10> kRoutes{{{"POST", "/api/estimate"},
                                         {"POST", "/api/plan"},
                                         {"POST", "/api/recommend"},
                                         {"POST", "/api/launch"},
                                         {"POST", "/api/check"},
                                         {"GET", "/api/catalog"},
                                         {"GET", "/api/hardware"},
                                         {"GET", "/api/models/llama3-8b"},
                                         {"POST", "/api/nothing"},
                                         {"DELETE", "/api/plan"}}};

const rb::serve::Api& api() {
  static const rb::serve::Api a = [] {
    rb::serve::ApiConfig cfg;
    cfg.max_concurrent_plans = 4;
    // Plans are small in the fuzzer: one GPU count, few micro batches.
    cfg.plan_limits.max_gpu_counts = 1;
    cfg.plan_limits.max_gpus = 512;
    cfg.plan_limits.max_mbs = 4;
    auto made = rb::serve::Api::create(cfg);
    if (!made) std::abort();
    return std::move(*made);
  }();
  return a;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const Route& r = kRoutes[data[0] % kRoutes.size()];
  const std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
  const rb::serve::ApiResponse res = api().handle(r.method, r.path, {}, body);
  // Every response is JSON, and an error is a 4xx (a 500 is a defect the fuzzer should find).
  const auto j = nlohmann::json::parse(res.body, nullptr, false);
  if (j.is_discarded() || res.status >= 500 || res.status < 200) std::abort();
  return 0;
}
