// The plan across GPU types as text and JSON (cmd_plan_fleet.hpp).
#include <fmt/format.h>

#include <algorithm>

#include "recipebook/cmd_plan_fleet.hpp"
#include "recipebook/emit/table.hpp"
#include "recipebook/price_label.hpp"

namespace rb::cli {
namespace {

std::string grouped(double v) {
  std::string s = fmt::format("{:.0f}", v);
  const int first = s.front() == '-' ? 1 : 0;
  for (int i = static_cast<int>(s.size()) - 3; i > first; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

std::string tokens_str(double n) {
  if (n >= 1e12) return fmt::format("{:.4g}T", n / 1e12);
  if (n >= 1e9) return fmt::format("{:.4g}B", n / 1e9);
  if (n >= 1e6) return fmt::format("{:.4g}M", n / 1e6);
  return fmt::format("{:.0f}", n);
}

std::string layout_text(const FleetResult& r, const Candidate& c) {
  const Layout& l = c.layout;
  std::string s = fmt::format("{} TP {} PP {} VP {} CP {}", precision_name(l.precision), l.tp, l.pp, l.vp, cp_text(l));
  if (l.ep > 1 || l.etp > 1) s += fmt::format(" EP {} ETP {}", l.ep, l.etp);
  s += fmt::format(" DP {} MBS {}", l.dp, l.mbs);
  if (l.fsdp) s += " FSDP";
  const size_t ri = static_cast<size_t>(c.recompute_option);
  if (l.recompute != Recompute::kNone && ri < r.recompute_options.size())
    s += " " + recompute_option_name(r.recompute_options[ri]);
  // Host offload (search/offload.hpp): the step time above includes its transfers.
  if (l.optimizer_offload_fraction > 0) s += fmt::format(" optimizer offload {:g}", l.optimizer_offload_fraction);
  if (l.offload_modules != 0) s += " activation offload [" + offload_modules_str(l.offload_modules) + "]";
  return s;
}

std::string_view objective_text(Objective o) {
  switch (o) {
    case Objective::kCost: return "cost (fewest USD for the token budget)";
    case Objective::kTime: return "time (fewest days to the token budget)";
    case Objective::kThroughput: return "throughput (most tokens/s per GPU)";
  }
  return "";
}

std::string usd_text(const FleetEntry& e) { return e.usd > 0 ? "$" + grouped(e.usd) : "-"; }

std::string why_text(uint32_t why) {
  std::string out;
  for (const std::string& p : fleet_why_phrases(why)) out += (out.empty() ? "" : "; ") + p;
  return out;
}

const Hardware& hw_of(const FleetSetup& s, const FleetEntry& e) { return s.gpus[e.gpu].hardware; }

}  // namespace

std::string fleet_reason(const FleetSetup& s, const FleetResult& r) {
  size_t feasible = 0;
  std::array<size_t, kFleetWhyCount> by{};
  for (const FleetEntry& e : r.entries) {
    if (e.feasible()) ++feasible;
    for (uint32_t b = 0; b < kFleetWhyCount; ++b)
      if ((e.why & (1u << b)) != 0) ++by[b];
  }
  std::string out;
  switch (s.request.objective) {
    case Objective::kCost: out = "the fewest USD"; break;
    case Objective::kTime: out = "the fewest days"; break;
    case Objective::kThroughput: out = "the most tokens/s per GPU"; break;
  }
  out += fmt::format(" of {} feasible GPU type and count combination{}", feasible, feasible == 1 ? "" : "s");
  std::string excluded;
  for (uint32_t b = 0; b < kFleetWhyCount; ++b)
    if (by[b] > 0) excluded += fmt::format("{}{} ({})", excluded.empty() ? "" : ", ", fleet_why_phrases(1u << b).front(), by[b]);
  if (!excluded.empty()) out += " (excluded: " + excluded + ")";
  return out;
}

std::string fleet_text(const FleetSetup& s, const FleetResult& r) {
  const FleetRequest& q = s.request;
  const Workload& w = q.plan.workload;
  std::string out = fmt::format("plan across {} GPU type{}: {}, {}, sequence {}, global batch {}, {} tokens\n", s.gpus.size(),
                                s.gpus.size() == 1 ? "" : "s",
                                s.model.name, mode_name(w.mode), w.seq, w.gbs, tokens_str(w.tokens_budget));
  out += fmt::format("objective {}", objective_text(q.objective));
  if (q.deadline_days > 0) out += fmt::format("; deadline {:g} days", q.deadline_days);
  if (q.budget_usd > 0) out += "; budget $" + grouped(q.budget_usd);
  out += "\nprices:";
  for (size_t g = 0; g < s.gpus.size(); ++g) {
    const Hardware& hw = s.gpus[g].hardware;
    const std::string p = price_used(hw);
    out += fmt::format("{} {} {}", g == 0 ? "" : ";", hw.name, p.empty() ? "no price" : p);
  }
  out += "\n";

  Table t({{"GPU"}, {"GPUs", Align::kRight}, {"layout"}, {"tok/s/GPU", Align::kRight}, {"days", Align::kRight},
           {"GPU-hours", Align::kRight}, {"USD", Align::kRight}, {"status"}});
  for (size_t i = 0; i < r.entries.size(); ++i) {
    const FleetEntry& e = r.entries[i];
    std::string status = e.feasible() ? "ok" : why_text(e.why);
    if (static_cast<int>(i) == r.best) status = "answer";
    if (std::find(r.pareto.begin(), r.pareto.end(), i) != r.pareto.end()) status += ", Pareto";
    if (!e.has_layout) {
      t.add_row({hw_of(s, e).name, std::to_string(e.gpus), "-", "", "", "", "", status});
      continue;
    }
    t.add_row({hw_of(s, e).name, std::to_string(e.gpus), layout_text(r, e.best), fmt::format("{:.0f}", e.tokens_per_s_per_gpu),
               fmt::format("{:.2f}", e.days), grouped(e.gpu_hours), usd_text(e), status});
  }
  out += "\n" + t.render();

  if (r.best < 0) {
    out += "\nno GPU type and count meets the request: " + fleet_reason(s, r) + "\n";
    return out;
  }
  const FleetEntry& b = r.entries[static_cast<size_t>(r.best)];
  out += fmt::format("\nanswer: {} x {}, {}: {:.0f} tokens/s per GPU, {:.2f} days, {} GPU-hours, {}\n", b.gpus,
                     hw_of(s, b).name, layout_text(r, b.best), b.tokens_per_s_per_gpu, b.days, grouped(b.gpu_hours),
                     b.usd > 0 ? usd_text(b) : "no price");
  out += "  " + fleet_reason(s, r) + "\n";
  if (!r.pareto.empty()) {
    out += "\nPareto front, days against USD (feasible and priced; fewer days cost more):\n";
    for (size_t i : r.pareto) {
      const FleetEntry& e = r.entries[i];
      out += fmt::format("  {:>4} x {:<6} {:>8.2f} days  {:>14}\n", e.gpus, hw_of(s, e).name, e.days, usd_text(e));
    }
  }
  return out;
}

Json fleet_entry_json(const FleetSetup& s, const FleetResult& r, const FleetEntry& e) {
  Json j;
  j["gpu"] = hw_of(s, e).name;
  j["gpus"] = e.gpus;
  j["feasible"] = e.feasible();
  j["why"] = fleet_why_keys(e.why);
  j["reasons"] = fleet_why_phrases(e.why);
  if (!e.has_layout) {
    j["layout"] = nullptr;
    return j;
  }
  j["layout"] = layout_json(e.best.layout);
  const size_t ri = static_cast<size_t>(e.best.recompute_option);
  j["recompute"] = ri < r.recompute_options.size() ? recompute_option_name(r.recompute_options[ri]) : "";
  j["tokens_per_s_per_gpu"] = e.tokens_per_s_per_gpu;
  j["tokens_per_s"] = e.tokens_per_s_per_gpu * e.gpus;
  j["mfu"] = e.best.estimate.mfu;
  j["step_time_s"] = e.best.estimate.step_time_s;
  j["days"] = e.days;
  j["gpu_hours"] = e.gpu_hours;
  j["usd"] = e.usd > 0 ? Json(e.usd) : Json(nullptr);
  return j;
}

Json fleet_json(const FleetSetup& s, const FleetResult& r) {
  const FleetRequest& q = s.request;
  Json j;
  j["model"] = s.model.name;
  j["mode"] = mode_name(q.plan.workload.mode);
  j["seq"] = q.plan.workload.seq;
  j["gbs"] = q.plan.workload.gbs;
  j["tokens"] = q.plan.workload.tokens_budget;
  j["objective"] = objective_name(q.objective);
  j["deadline_days"] = q.deadline_days > 0 ? Json(q.deadline_days) : Json(nullptr);
  j["budget_usd"] = q.budget_usd > 0 ? Json(q.budget_usd) : Json(nullptr);
  Json types = Json::array();
  for (size_t g = 0; g < s.gpus.size(); ++g) {
    const Hardware& hw = s.gpus[g].hardware;
    Json t;
    t["gpu"] = hw.name;
    t["display"] = hw.display;
    t["gpus_per_node"] = q.plan.gpus_per_node > 0 ? q.plan.gpus_per_node : hw.gpus_per_node;
    t["usd_per_gpu_hour"] = hw.usd_per_gpu_hour > 0 ? Json(hw.usd_per_gpu_hour) : Json(nullptr);
    t["price_source"] = hw.usd_per_gpu_hour <= 0 ? Json(nullptr) : Json(s.price_given[g] ? "--price" : "catalog");
    t["price_used"] = price_used(hw);
    t["available"] = s.gpus[g].available > 0 ? Json(s.gpus[g].available) : Json(nullptr);
    types.push_back(t);
  }
  j["gpu_types"] = types;
  Json entries = Json::array();
  for (const FleetEntry& e : r.entries) entries.push_back(fleet_entry_json(s, r, e));
  j["entries"] = entries;
  if (r.best >= 0) {
    Json a = fleet_entry_json(s, r, r.entries[static_cast<size_t>(r.best)]);
    a["reason"] = fleet_reason(s, r);
    j["answer"] = a;
  } else {
    j["answer"] = nullptr;
    j["reason"] = fleet_reason(s, r);
  }
  Json front = Json::array();
  for (size_t i : r.pareto) front.push_back(fleet_entry_json(s, r, r.entries[i]));
  j["pareto"] = front;
  return j;
}

}  // namespace rb::cli
