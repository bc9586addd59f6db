// Rendering a plan: the terminal text (tables) and the JSON document of `recipebook plan`.
#pragma once

#include <string>

#include "recipebook/core/hardware.hpp"
#include "recipebook/core/model.hpp"
#include "recipebook/emit/catalog_json.hpp"
#include "recipebook/search/advice.hpp"
#include "recipebook/search/planner.hpp"

namespace rb::cli {

struct PlanView {
  const Model& model;
  const Hardware& hw;
  const PlanRequest& req;
  const PlanResult& result;
  const PlanAdvice* advice = nullptr;  // set when nothing fits or nothing passes the rules
  int gpus_per_node = 0;
};

std::string plan_text(const PlanView& v);
Json plan_json(const PlanView& v);

}  // namespace rb::cli
