// `recipebook plan --json`: stable field names, SI units (bytes, seconds), every candidate with its
// full memory and time breakdown.
#include "recipebook/cmd_plan_output.hpp"
#include "recipebook/core/layout_fields.hpp"
#include "recipebook/emit/estimate_json.hpp"
#include "recipebook/rules/rule.hpp"

namespace rb::cli {
namespace {

Json memory_json(const MemoryBreakdown& b) {
  Json j;
  j["stage"] = b.stage;
  j.update(memory_parts_json(b));
  j["peak_bytes"] = b.peak_bytes;
  j["capacity_bytes"] = b.capacity_bytes;
  j["headroom_bytes"] = b.headroom_bytes();
  j["required_headroom_bytes"] = b.required_headroom_bytes;
  j["fits"] = b.fits;
  return j;
}

Json time_json(const TimeBreakdown& b) {
  Json j = time_parts_json(b);
  j["step_time_s"] = b.step_time_s;
  j["microbatch_s"] = b.microbatch_s;
  j["microbatches"] = b.microbatches;
  j["bottleneck_stage"] = b.bottleneck_stage;
  return j;
}

Json candidate_json(const PlanView& v, const Candidate& c, bool with_time) {
  Json j;
  j["gpus"] = c.gpus;
  j["layout"] = layout_json(c.layout);  // every field not at its default: `launch plan.json` reads them back
  const auto& opts = v.result.recompute_options;
  const size_t ri = static_cast<size_t>(c.recompute_option);
  j["recompute"] = ri < opts.size() ? recompute_option_name(opts[ri]) : "";
  const Estimate& e = c.estimate;
  if (with_time) {
    j["score"] = c.score;
    j["tokens_per_s_per_gpu"] = e.tokens_per_s_per_gpu;
    j["tokens_per_s"] = e.tokens_per_s_per_gpu * c.gpus;
    j["mfu"] = e.mfu;  // against the dense peak of the layout's precision class
    j["mfu_bf16"] = e.mfu_bf16;
    j["model_tflops_per_gpu"] = e.model_tflops_per_gpu;
    j["step_time_s"] = e.step_time_s;
    j["usd_per_million_tokens"] = v.hw.usd_per_gpu_hour > 0 ? Json(e.usd_per_million_tokens) : Json(nullptr);
    j["gpu_hours"] = v.req.workload.tokens_budget > 0 ? Json(e.gpu_hours) : Json(nullptr);
    j["days"] = v.req.workload.tokens_budget > 0 ? Json(e.days) : Json(nullptr);
  }
  j["memory"] = memory_json(e.memory.worst);
  if (with_time) j["time"] = time_json(e.time);
  return j;
}

Json list_json(const PlanView& v, const std::vector<Candidate>& cs, bool with_time) {
  Json a = Json::array();
  for (const Candidate& c : cs) a.push_back(candidate_json(v, c, with_time));
  return a;
}

Json counts_json(const PlanCounts& c) {
  Json j;
  j["seen"] = c.seen;
  j["rejected_by_rules"] = c.rules;
  Json by = Json::object();
  const auto rules = all_rules();
  for (size_t i = 0; i < c.by_rule.size() && i < rules.size(); ++i)
    if (c.by_rule[i] > 0) by[std::string(rules[i].id)] = c.by_rule[i];
  j["by_rule"] = by;
  j["removed_by_memory"] = c.memory;
  j["memory_inferred"] = c.memory_inferred;
  j["refused_by_estimator"] = c.estimator;
  Json est = Json::object();
  for (size_t i = 0; i < c.by_estimator.size(); ++i)
    if (c.by_estimator[i] > 0) est[std::string(invalid_reason_name(static_cast<InvalidReason>(i)))] = c.by_estimator[i];
  j["by_estimator"] = est;
  j["fit"] = c.fit;
  j["fit_with_offload"] = c.offloaded;  // of removed_by_memory: ranked with host offload
  return j;
}

}  // namespace

Json plan_json(const PlanView& v) {
  const PlanResult& r = v.result;
  const Workload& w = v.req.workload;
  Json j;
  j["model"] = v.model.name;
  j["gpu"] = v.hw.name;
  j["gpu_counts"] = v.req.gpu_counts;
  j["gpus_per_node"] = v.gpus_per_node;
  j["required_headroom_bytes"] = v.hw.headroom_bytes();
  Json wj;
  wj["mode"] = std::string(mode_name(w.mode));
  wj["seq"] = w.seq;
  wj["gbs"] = w.gbs;
  wj["tokens_budget"] = w.tokens_budget > 0 ? Json(w.tokens_budget) : Json(nullptr);
  j["workload"] = wj;
  Json precisions = Json::array();
  for (Precision p : searched_precisions(v.req.fixed))
    precisions.push_back(std::string(precision_name(p)));
  j["precisions"] = precisions;
  j["objective"] = std::string(objective_name(v.req.objective));
  j["feasible"] = !r.top.empty();
  j["counts"] = counts_json(r.counts);
  j["top"] = list_json(v, r.top, true);
  Json p;
  p["axes"] = r.pareto_axis == ParetoAxis::kHeadroom ? Json::array({"tokens_per_s_per_gpu", "headroom_bytes"})
                                                     : Json::array({"tokens_per_s_per_gpu", "tokens_per_s"});
  p["layouts"] = list_json(v, r.pareto, true);
  j["pareto"] = p;
  j["best_per_gpu_count"] = list_json(v, r.best_per_count, true);
  if (r.top.empty()) j["closest"] = list_json(v, r.closest, false);
  {
    if (v.advice != nullptr) {
      Json a;
      a["rules_block_all"] = v.advice->rules_block_all;
      a["usable_gpus_below"] = v.advice->usable_below > 0 ? Json(v.advice->usable_below) : Json(nullptr);
      a["usable_gpus_above"] = v.advice->usable_above > 0 ? Json(v.advice->usable_above) : Json(nullptr);
      Json rel = Json::array();
      for (const Relaxation& x : v.advice->relaxations) {
        Json rj;
        rj["change"] = x.change;
        rj["fit"] = x.fit;
        rj["best"] = x.best ? candidate_json(v, *x.best, true) : Json(nullptr);
        rel.push_back(rj);
      }
      a["relaxations"] = rel;
      a["most_gpus_tried"] = v.advice->most_gpus_tried;
      if (v.advice->without_offload) a["without_offload"] = true;
      j["advice"] = a;
    }
  }
  return j;
}

}  // namespace rb::cli
