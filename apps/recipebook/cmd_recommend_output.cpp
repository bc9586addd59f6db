// `recommend` output: the text sections (Recipe, Changes, Layout, Prediction, Pitfalls, Command) and
// the JSON document with the same facts. JSON field names are stable; add fields, never rename.
#include <fmt/format.h>

#include <ostream>

#include "recipebook/cmd_recommend_internal.hpp"
#include "recipebook/core/units.hpp"
#include "recipebook/emit/catalog_json.hpp"
#include "recipebook/emit/launch.hpp"
#include "recipebook/price_label.hpp"
#include "recipebook/rules/pipeline_split.hpp"

namespace rb::cli {
namespace {

using Json = nlohmann::ordered_json;

std::string join(const std::vector<std::string>& v, std::string_view sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : std::string(sep)) + s;
  return out;
}

// "12,345"
std::string grouped(double v) {
  std::string digits = fmt::format("{:.0f}", v);
  std::string out;
  const size_t neg = !digits.empty() && digits[0] == '-' ? 1 : 0;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > neg && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}


std::string recipe_headline(const Recommendation& r) {
  const Recipe& rec = r.setup.recipe;
  std::string p = rec.precision_known ? std::string(precision_name(rec.layout.precision)) : "precision not recorded";
  return fmt::format("{}  ({} {} recipe for {} on {} x {}, {}, {})", rec.name, recipe_kind_name(rec.kind),
                     mode_name(rec.mode), rec.model, rec.gpus, rec.gpu, p, rec.framework);
}

void section(std::ostream& out, const char* title) { out << "\n" << title << "\n"; }

void kv(std::ostream& out, std::string_view key, const std::string& value) {
  out << fmt::format("  {:<13}{}\n", key, value);
}

// The planner's best for the same request, or what would fit when nothing does.
void print_plan_comparison(const Recommendation& r, std::ostream& out) {
  const PlanComparison& p = r.plan;
  if (p.ran) {
    const std::string diff = p.differences.empty() ? "the same layout" : "differs in " + join(p.differences, ", ") + " (this layout's value first)";
    // Below 1: the recipe sets what the search leaves out (a pipeline layout in code, features the
    // plan keeps fixed) and beats every layout searched.
    const std::string ratio = p.ratio <= 0  ? "this layout does not fit"
                              : p.ratio < 1 ? fmt::format("{:.2f}x this layout, which beats every layout searched", p.ratio)
                                            : fmt::format("{:.2f}x this layout", p.ratio);
    kv(out, "vs plan", fmt::format("the planner's best is {}: {} tokens/s/GPU, {}; {}", layout_summary(p.layout),
                                   grouped(p.estimate.tokens_per_s_per_gpu), ratio, diff));
    if (!p.note.empty()) kv(out, "", p.note);
    if (!r.resized.estimate.fits() && p.estimate.fits())
      kv(out, "", "the resized recipe does not fit but the planner's layout does: start from it (`recipebook plan`)");
  } else if (!p.note.empty()) {
    kv(out, "vs plan", p.note);
  }
  for (const Relaxation& x : p.would_fit) {
    std::string line = fmt::format("{}: {} layouts fit", x.change, grouped(static_cast<double>(x.fit)));
    if (x.best)
      line += fmt::format("; best {} on {} GPUs, {} tokens/s/GPU, peak {}", layout_summary(x.best->layout), x.best->gpus,
                          grouped(x.best->estimate.tokens_per_s_per_gpu), format_bytes(x.best->estimate.memory.worst.peak_bytes));
    kv(out, "would fit", line);
  }
  if (!p.ran && p.would_fit.empty() && p.most_gpus_tried > 0)
    kv(out, "would fit", fmt::format("nothing fits on up to {} GPUs with these settings", p.most_gpus_tried));
}

void print_prediction(const Recommendation& r, std::ostream& out) {
  const Estimate& e = r.resized.estimate;
  if (!r.sized) {
    kv(out, "not sized", r.unsized_reason);
    return;
  }
  if (!e.valid) {
    kv(out, "invalid", std::string("the estimator refuses this layout: ") + std::string(invalid_reason_name(e.reason)));
    print_plan_comparison(r, out);
    return;
  }
  const auto& m = e.memory.worst;
  if (e.fits()) {
    kv(out, "fits", fmt::format("yes: peak {} of {} (pipeline rank {}), headroom {} (needs {})", format_bytes(m.peak_bytes),
                                format_bytes(m.capacity_bytes), m.stage, format_bytes(m.headroom_bytes()),
                                format_bytes(m.required_headroom_bytes)));
  } else {
    kv(out, "fits", fmt::format("NO: peak {} of {} on pipeline rank {}, over by {} with {} "
                                "headroom; weights, gradients and optimizer state alone {}",
                                format_bytes(m.peak_bytes), format_bytes(m.capacity_bytes), m.stage,
                                format_bytes(m.overshoot_bytes()), format_bytes(m.required_headroom_bytes),
                                format_bytes(m.weights_bytes + m.quantized_weights_bytes + m.grads_bytes + m.optimizer_bytes)));
  }
  const int gpus = r.resized.cluster.gpus;
  kv(out, "throughput", fmt::format("{} tokens/s/GPU, {} tokens/s on {} GPU{}", grouped(e.tokens_per_s_per_gpu),
                                    grouped(e.tokens_per_s_per_gpu * gpus), gpus, gpus == 1 ? "" : "s"));
  kv(out, "step time", fmt::format("{:.3f} s ({} micro-batches per pipeline)", e.step_time_s, e.microbatches));
  kv(out, "MFU", fmt::format("{:.1f}% ({:.0f} model TFLOP/s/GPU)", 100 * e.mfu, e.model_tflops_per_gpu));
  const double price = r.hardware.usd_per_gpu_hour;
  if (price > 0)
    kv(out, "cost", fmt::format("${:.3f} per million tokens {}, ${:.2f} per hour for {} GPU{}", e.usd_per_million_tokens,
                                price_used(r.hardware), price * gpus, gpus, gpus == 1 ? "" : "s"));
  else
    kv(out, "cost", fmt::format("no public price for {} in the catalog; {:.4f} GPU-hours per million tokens", r.hardware.name,
                                e.tokens_per_s_per_gpu > 0 ? 1e6 / (e.tokens_per_s_per_gpu * 3600) : 0.0));
  print_plan_comparison(r, out);
  if (r.measured) {
    const auto& mm = *r.measured;
    kv(out, "measured", fmt::format("{} tokens/s/GPU on {} x {}, {}, sequence {}, global batch {} ({})",
                                    grouped(mm.m.tokens_per_s_per_gpu), mm.run.cluster.gpus,
                                    mm.m.gpu.empty() ? r.setup.recipe.gpu : mm.m.gpu, layout_summary(mm.run.layout),
                                    mm.run.work.seq, mm.run.work.gbs, mm.m.release));
    if (mm.predicted_tokens_per_s > 0)
      kv(out, "", fmt::format("predicted {} tokens/s/GPU for that layout (measured / predicted {:.2f})",
                              grouped(mm.predicted_tokens_per_s), mm.m.tokens_per_s_per_gpu / mm.predicted_tokens_per_s));
  } else if (!r.measured_note.empty()) {
    kv(out, "measured", r.measured_note);
  }
}

}  // namespace

std::vector<std::string> CommandLine::argv() const {
  std::vector<std::string> out = launcher;
  if (!args.empty()) out.insert(out.end(), args.begin(), args.end());
  return out;
}

namespace {

// The entry-point words in groups: the script, each flag with its values on its line
// (`--recompute-modules moe_act layernorm`), then each override.
std::vector<std::string> arg_groups(const std::vector<std::string>& args) {
  const auto is_value = [](const std::string& w) { return !w.starts_with("--") && w.find('=') == std::string::npos; };
  std::vector<std::string> out;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string line = shell_quote(args[i]);
    if (args[i].starts_with("--"))
      while (i + 1 < args.size() && is_value(args[i + 1])) line.append(" ").append(shell_quote(args[++i]));
    out.push_back(std::move(line));
  }
  if (out.size() > 1 && args.size() > 2 && args[1] == "--recipe") {  // "run_recipe.py --recipe NAME" on one line
    out[0] += " " + out[1];
    out.erase(out.begin() + 1);
  }
  return out;
}

}  // namespace

std::string CommandLine::one_line() const {
  if (!verbatim.empty()) return verbatim;
  if (args.empty()) return {};
  std::string out;
  for (const auto& [k, v] : env) out += export_line(k, v) + "\n";
  std::vector<std::string> words = launcher;
  for (const auto& a : args) words.push_back(shell_quote(a));
  return out + join(words, " ");
}

std::string CommandLine::multi_line() const {
  if (!verbatim.empty()) return verbatim;
  if (args.empty()) return {};
  std::string out;
  for (const auto& [k, v] : env) out += export_line(k, v) + "\n";
  std::vector<std::string> lines{join(launcher, " ")};
  for (auto& g : arg_groups(args)) lines.push_back(std::move(g));
  for (size_t i = 0; i < lines.size(); ++i)
    out += (i == 0 ? "" : "    ") + lines[i] + (i + 1 < lines.size() ? " \\\n" : "\n");
  return out;
}

void print_recommendation(const Recommendation& r, const Context& ctx) {
  std::ostream& out = ctx.out;
  const Recipe& rec = r.setup.recipe;
  out << "Recipe\n";
  out << "  " << recipe_headline(r) << "\n";
  kv(out, "why", join(r.reasons, "; "));
  if (r.setup.layout_known)
    kv(out, "as recorded", fmt::format("{}; sequence {}, global batch {}", layout_summary(rec.layout),
                                       r.setup.seq > 0 ? std::to_string(r.setup.seq) : "not recorded",
                                       rec.gbs > 0 ? std::to_string(rec.gbs) : "not recorded"));
  for (const auto& [rule, note] : r.known_issues) kv(out, "known issue", (rule.empty() ? "" : "[" + rule + "] ") + note);
  if (!r.alternatives.empty()) kv(out, "next matches", join(r.alternatives, ", "));
  kv(out, "source", rec.source);

  section(out, "Changes");
  if (!r.sized) out << "  (not sized: the recipe's layout as recorded)\n";
  else if (r.resized.changes.empty()) out << "  (none: the recipe runs as recorded)\n";
  for (const auto& c : r.resized.changes) out << "  " << c.text() << "\n";

  section(out, "Layout");
  const Layout& l = r.resized.layout;
  out << "  " << layout_summary(l) << "\n";
  const int per_node = r.gpus_per_node;
  out << fmt::format("  on {} x {} ({} per node), sequence {}, global batch {}\n", r.options.gpus, r.hardware.name, per_node,
                     r.resized.workload.seq, r.resized.workload.gbs);

  section(out, "Prediction");
  print_prediction(r, out);

  section(out, "Pitfalls");
  if (!r.sized) out << "  (not checked: the layout is not sized)\n";
  else if (r.pitfalls.empty()) out << "  (none found by the rules)\n";
  for (const auto& f : r.pitfalls) {
    out << fmt::format("  {} [{}] {}", severity_name(f.severity), f.rule_id, f.message);
    if (!f.fix.empty()) out << " (fix: " << f.fix << ")";
    if (r.known_issue(f)) out << " [a known issue of the record: its source may set other values at run time]";
    out << "\n";
  }

  section(out, "Command");
  std::string text = r.command.multi_line();
  if (text.empty()) text = r.command.framework == "megatron-bridge" || r.sized ? "(no runnable command)\n" : "(the record has no command)\n";
  size_t start = 0;
  while (start < text.size()) {
    const size_t nl = text.find('\n', start);
    const size_t end = nl == std::string::npos ? text.size() : nl;
    out << "  " << text.substr(start, end - start) << "\n";
    start = end + 1;
  }
  for (const auto& n : r.command.notes) out << "  note: " << n << "\n";
  if (!r.resized.notes.empty() || !r.notes.empty()) {
    section(out, "Notes");
    for (const auto& n : r.notes) out << "  " << n << "\n";
    for (const auto& n : r.resized.notes) out << "  " << n << "\n";
  }
}

Json recommendation_json(const Recommendation& r) {
  Json j;
  const Recipe& rec = r.setup.recipe;
  Json& q = j["request"];
  q["model"] = r.options.model;
  q["model_catalog"] = r.model_catalog.empty() ? Json(nullptr) : Json(r.model_catalog);
  q["gpu"] = r.hardware.name;
  q["gpus"] = r.options.gpus;
  q["gpus_per_node"] = r.gpus_per_node;
  q["mode"] = std::string(mode_name(r.mode));
  q["seq"] = r.options.seq > 0 ? Json(r.options.seq) : Json(nullptr);
  q["gbs"] = r.options.gbs > 0 ? Json(r.options.gbs) : Json(nullptr);
  q["precision"] = r.options.precision.empty() ? Json(nullptr) : Json(r.options.precision);

  Json& rj = j["recipe"];
  rj["name"] = rec.name;
  rj["kind"] = recipe_kind_name(rec.kind);
  rj["mode"] = std::string(mode_name(rec.mode));
  rj["model"] = rec.model;
  rj["gpu"] = rec.gpu;
  rj["gpus"] = rec.gpus;
  rj["framework"] = rec.framework;
  rj["entry_point"] = rec.entry_point.empty() ? rec.name : rec.entry_point;
  rj["source"] = rec.source;
  rj["precision"] = rec.precision_known ? Json(std::string(precision_name(rec.layout.precision))) : Json(nullptr);
  rj["seq"] = r.setup.seq > 0 ? Json(r.setup.seq) : Json(nullptr);
  rj["gbs"] = rec.gbs > 0 ? Json(rec.gbs) : Json(nullptr);
  rj["layout"] = r.setup.layout_known ? layout_json(rec.layout) : Json(nullptr);
  // Set on j at the end: j is an ordered map whose references (rj) a new key would invalidate.
  Json measured = nullptr;
  if (r.measured) {
    const auto& m = *r.measured;
    Json mj;
    mj["tokens_per_s_per_gpu"] = m.m.tokens_per_s_per_gpu;
    mj["release"] = m.m.release;
    mj["gpu"] = m.m.gpu.empty() ? r.setup.recipe.gpu : m.m.gpu;
    mj["gpus"] = m.run.cluster.gpus;
    mj["seq"] = m.run.work.seq;
    mj["gbs"] = m.run.work.gbs;
    mj["layout"] = layout_json(m.run.layout);
    mj["predicted_tokens_per_s_per_gpu"] = m.predicted_tokens_per_s > 0 ? Json(m.predicted_tokens_per_s) : Json(nullptr);
    measured = mj;
  }
  const MatchScore& s = r.score;
  rj["match"] = {{"model", std::string(model_match_name(s.model))}, {"modality_differs", s.modality_differs},
                 {"size_distance", s.size_distance},
                 {"mode_differs", s.mode_differs}, {"gpu_distance", s.gpu_distance},
                 {"precision_differs", s.precision_differs}, {"seq_distance", s.seq_distance},
                 {"not_runnable", s.not_runnable},
                 {"layout_unknown", s.layout_unknown}, {"unmeasured", s.unmeasured}, {"variant", s.variant},
                 {"count_distance", s.count_distance}};
  rj["reasons"] = r.reasons;
  Json& ki = rj["known_issues"] = Json::array();
  for (const auto& [rule, note] : r.known_issues) ki.push_back({{"rule", rule}, {"note", note}});
  j["alternatives"] = r.alternatives;

  j["sized"] = r.sized;
  j["unsized_reason"] = r.sized ? Json(nullptr) : Json(r.unsized_reason);
  Json& ch = j["changes"] = Json::array();
  for (const auto& c : r.resized.changes)
    ch.push_back({{"field", c.field}, {"from", c.from}, {"to", c.to}, {"reason", c.reason}, {"rule", c.rule}, {"text", c.text()}});

  Json lay = layout_json(r.resized.layout);
  lay["gpus"] = r.options.gpus;
  lay["gpus_per_node"] = r.gpus_per_node;
  lay["seq"] = r.resized.workload.seq;
  lay["gbs"] = r.resized.workload.gbs;
  lay["summary"] = layout_summary(r.resized.layout);
  const Layout& m = r.resized.modelled;
  if (r.sized && (m.vp != r.resized.layout.vp || stage_split_of(m) != stage_split_of(r.resized.layout))) {
    lay["modelled"] = layout_json(m);
  } else {
    lay["modelled"] = nullptr;
  }
  j["layout"] = lay;

  const Estimate& e = r.resized.estimate;
  if (r.sized) {
    Json p;
    p["valid"] = e.valid;
    p["invalid_reason"] = e.valid ? Json(nullptr) : Json(std::string(invalid_reason_name(e.reason)));
    p["fits"] = e.fits();
    p["tokens_per_s_per_gpu"] = e.tokens_per_s_per_gpu;
    p["tokens_per_s"] = e.tokens_per_s_per_gpu * r.options.gpus;
    p["step_time_s"] = e.step_time_s;
    p["microbatches"] = e.microbatches;
    p["mfu"] = e.mfu;
    p["model_tflops_per_gpu"] = e.model_tflops_per_gpu;
    p["peak_bytes"] = e.memory.worst.peak_bytes;
    p["capacity_bytes"] = e.memory.worst.capacity_bytes;
    p["peak_stage"] = e.memory.worst.stage;
    p["usd_per_gpu_hour"] = r.hardware.usd_per_gpu_hour > 0 ? Json(r.hardware.usd_per_gpu_hour) : Json(nullptr);
    p["usd_per_million_tokens"] = e.usd_per_million_tokens > 0 ? Json(e.usd_per_million_tokens) : Json(nullptr);
    j["prediction"] = p;
  } else {
    j["prediction"] = nullptr;
  }
  Json& pl = j["plan"];
  pl["compared"] = r.plan.ran;
  pl["note"] = r.plan.note.empty() ? Json(nullptr) : Json(r.plan.note);
  if (r.plan.ran) {
    pl["layout"] = layout_json(r.plan.layout);
    pl["summary"] = layout_summary(r.plan.layout);
    pl["tokens_per_s_per_gpu"] = r.plan.estimate.tokens_per_s_per_gpu;
    pl["ratio"] = r.plan.ratio;
    pl["differences"] = r.plan.differences;
    pl["fits"] = r.plan.estimate.fits();
  }
  Json& wf = pl["would_fit"] = Json::array();
  for (const Relaxation& x : r.plan.would_fit) {
    Json w{{"change", x.change}, {"fit", x.fit}};
    if (x.best) {
      w["gpus"] = x.best->gpus;
      w["layout"] = layout_json(x.best->layout);
      w["tokens_per_s_per_gpu"] = x.best->estimate.tokens_per_s_per_gpu;
      w["peak_bytes"] = x.best->estimate.memory.worst.peak_bytes;
    }
    wf.push_back(w);
  }
  Json& pf = j["pitfalls"] = Json::array();
  for (const auto& f : r.pitfalls)
    pf.push_back({{"rule", f.rule_id}, {"severity", severity_name(f.severity)}, {"message", f.message}, {"fix", f.fix},
                  {"known_issue", r.known_issue(f)}});
  Json& cmd = j["command"];
  cmd["framework"] = r.command.framework;
  cmd["argv"] = r.command.verbatim.empty() ? Json(r.command.argv()) : Json::array();
  cmd["text"] = r.command.one_line();
  Json env = Json::object();
  for (const auto& [k, v] : r.command.env) env[k] = v;
  cmd["env"] = env;
  cmd["dataset"] = r.command.dataset.empty() ? Json(nullptr) : Json(r.command.dataset);
  cmd["overrides"] = r.command.overrides;
  j["launch"] = r.launch.is_null() ? Json(nullptr) : Json(r.launch);
  cmd["notes"] = r.command.notes;
  std::vector<std::string> notes = r.notes;
  notes.insert(notes.end(), r.resized.notes.begin(), r.resized.notes.end());
  j["notes"] = notes;
  j["exit_code"] = r.exit_code();
  j["measured"] = measured;
  if (!r.measured_note.empty()) j["measured_note"] = r.measured_note;
  return j;
}

}  // namespace rb::cli
