// Request bodies of `recipebook serve`'s JSON API read into the CLI's own option structs, so each
// handler calls the same run_<name>() as the command line. A body's keys are the flags' names with
// underscores (as `estimate --batch` lines spell them). Each unknown key, wrong type or value past
// the server's limits is an Error naming the key, all of them at once; the handler reports them like
// the CLI does.
#pragma once

#include <nlohmann/json.hpp>

#include "recipebook/cmd_estimate.hpp"
#include "recipebook/cmd_launch.hpp"
#include "recipebook/cmd_plan.hpp"
#include "recipebook/cmd_recommend.hpp"
#include "recipebook/core/result.hpp"

namespace rb::serve {

// What one plan request may search: more GPU counts, micro batches, precisions or rows are refused
// (RB-SERVE-LIMIT, HTTP 422) instead of tying up a worker.
struct PlanLimits {
  int max_gpu_counts = 8;
  int max_gpus = 16384;
  int max_mbs = 64;
  int max_precisions = 4;
  int max_top = 50;
};

// The rule id of a request the server refuses by its own limits.
inline constexpr const char* kRuleLimit = "RB-SERVE-LIMIT";

// A body's options, or every error in it at once (each naming its key).
template <typename T>
using BodyRead = tl::expected<T, std::vector<Error>>;

BodyRead<cli::EstimateOptions> estimate_options_from_json(const nlohmann::json& body);
BodyRead<cli::PlanOptions> plan_options_from_json(const nlohmann::json& body, const PlanLimits& limits, int threads);
BodyRead<cli::RecommendOptions> recommend_options_from_json(const nlohmann::json& body, int threads);
BodyRead<cli::LaunchOptions> launch_options_from_json(const nlohmann::json& body);

}  // namespace rb::serve
