#include "recipebook/cmd_estimate.hpp"

#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <ostream>

#include "recipebook/catalog_access.hpp"
#include "recipebook/emit/catalog_json.hpp"
#include "recipebook/emit/estimate_json.hpp"
#include "recipebook/emit/table.hpp"
#include "recipebook/estimate/estimate.hpp"
#include "recipebook/estimate/params.hpp"
#include "recipebook/estimate/prepared.hpp"
#include "recipebook/rules/check_layout.hpp"
#include "recipebook/price_label.hpp"

namespace rb::cli {
namespace {

struct Outcome {
  std::vector<Finding> findings;  // the rules' errors and warnings
  std::optional<Estimate> estimate;
  std::vector<MemoryBreakdown> stages;  // every pipeline rank's memory, in its parts (--json)
  ParamCounts params;
  std::string invalid;  // the estimator's own refusal, when the rules let something through
};

bool has_error(const std::vector<Finding>& fs) {
  return std::any_of(fs.begin(), fs.end(), [](const Finding& f) { return f.severity == Severity::kError; });
}

Outcome evaluate(const Setup& s) {
  Outcome o;
  o.findings = check_layout(rule_input(s));
  const PreparedModel pm = prepare(s.model);
  o.params = pm.params;
  if (has_error(o.findings)) return o;
  Estimate e = estimate(pm, s.hardware, s.workload, s.cluster, s.layout);
  if (!e.valid) {
    o.invalid = std::string(invalid_reason_name(e.reason));
    return o;
  }
  o.estimate = e;
  o.stages = stage_memory(pm, s.hardware, s.workload, s.cluster, s.layout);
  return o;
}

Json finding_json(const Finding& f) {
  Json j;
  j["rule"] = f.rule_id;
  j["severity"] = severity_name(f.severity);
  j["message"] = f.message;
  j["fix"] = f.fix;
  j["field"] = f.field;
  return j;
}

Json outcome_json(const Setup& s, const Outcome& o) {
  Json j;
  j["model"] = s.model.name;
  j["gpu"] = s.hardware.name;
  j["gpus"] = s.cluster.gpus;
  j["mode"] = std::string(mode_name(s.workload.mode));
  j["seq"] = s.workload.seq;
  j["gbs"] = s.workload.gbs;
  j["layout"] = layout_json(s.layout);
  if (s.layout.dp < 1) j["layout"]["dp"] = nullptr;  // the GPUs do not divide by TP x PP x CP (a rule error)
  j["params_total"] = o.params.total;
  j["params_active"] = o.params.active;
  j["assumptions"] = s.model.assumptions;  // what a config.json of an unknown model_type left open
  if (!s.recipe.empty())  // the record it started from, what it left open, and its layout as flags
    j["recipe"] = {{"name", s.recipe}, {"notes", s.notes}, {"flags", flags_text(s.layout, s.workload.image)}};
  j["warnings"] = Json::array();
  j["errors"] = Json::array();
  for (const auto& f : o.findings) j[f.severity == Severity::kError ? "errors" : "warnings"].push_back(finding_json(f));
  if (!o.invalid.empty()) {
    Json e;
    e["rule"] = "RB-ESTIMATE-INVALID";
    e["severity"] = "error";
    e["message"] = "the estimator cannot evaluate this layout: " + o.invalid;
    j["errors"].push_back(e);
  }
  if (!o.estimate) return j;
  const Estimate& e = *o.estimate;
  j["tokens_per_s_per_gpu"] = e.tokens_per_s_per_gpu;
  j["step_time_s"] = e.step_time_s;
  j["model_tflops_per_gpu"] = e.model_tflops_per_gpu;
  j["mfu"] = e.mfu;  // against the dense peak of the layout's precision class (docs/model.md)
  j["mfu_peak"] = std::string(precision_class_label(s.layout.precision));
  j["mfu_bf16"] = e.mfu_bf16;
  j["flops_per_token"] = e.model_flops_per_token;
  j["microbatches"] = e.microbatches;
  j["memory"] = {{"allocated_bytes", e.memory.worst.allocated_bytes()},
                 {"reserved_bytes", e.memory.worst.reserved_bytes()},
                 {"peak_bytes", e.memory.worst.peak_bytes},
                 {"capacity_bytes", e.memory.worst.capacity_bytes},
                 {"headroom_bytes", e.memory.worst.headroom_bytes()},
                 {"required_headroom_bytes", e.memory.worst.required_headroom_bytes},
                 {"fits", e.memory.worst.fits},
                 {"stage", e.memory.worst.stage},
                 {"parts", memory_parts_json(e.memory.worst)},
                 {"host", host_memory_json(e.memory)},
                 {"stages", Json::array()}};
  for (const MemoryBreakdown& m : o.stages) j["memory"]["stages"].push_back(stage_memory_json(m));
  j["time"] = {{"step_time_s", e.time.step_time_s}, {"parts", time_parts_json(e.time)}};
  j["usd_per_million_tokens"] = e.usd_per_million_tokens > 0 ? Json(e.usd_per_million_tokens) : Json(nullptr);
  if (s.workload.tokens_budget > 0) {
    j["gpu_hours"] = e.gpu_hours;
    j["days"] = e.days;
  }
  return j;
}

std::string gib(double bytes) { return fmt::format("{:.1f} GiB", bytes / (1024.0 * 1024.0 * 1024.0)); }

// "DP 4", or why there is none: DP is derived as gpus / (TP x PP x CP), never printed as 0.
std::string dp_text(const Setup& s) {
  const Layout& l = s.layout;
  if (l.dp >= 1) return fmt::format("DP {}", l.dp);
  return fmt::format("no DP ({} GPUs are not a multiple of TP x PP x CP = {})", s.cluster.gpus,
                     static_cast<int64_t>(l.tp) * l.pp * l.cp);
}

// A layout is a runnable answer only when it fits: estimate's exit code and --batch's failures.
bool runs(const Outcome& o) { return o.estimate && o.estimate->fits(); }

void print_findings(const std::vector<Finding>& fs, const Context& ctx) {
  for (const auto& f : fs)
    ctx.out << fmt::format("{} [{}] {}{}\n", severity_name(f.severity), f.rule_id, f.message,
                           f.fix.empty() ? "" : " (fix: " + f.fix + ")");
}

void print_outcome(const Setup& s, const Outcome& o, const Context& ctx) {
  const Layout& l = s.layout;
  ctx.out << fmt::format("{} on {} x {}, {} seq {} gbs {}\n", s.model.name, s.cluster.gpus, s.hardware.name,
                         mode_name(s.workload.mode), s.workload.seq, s.workload.gbs);
  for (const auto& a : s.model.assumptions) ctx.out << "assumed: " << a << "\n";
  if (!s.recipe.empty()) {
    ctx.out << "recipe: " << s.recipe << "\n";
    for (const auto& n : s.notes) ctx.out << "note: " << n << "\n";
    ctx.out << "as flags: " << flags_text(s.layout, s.workload.image) << "\n";
  }
  const std::string split = l.first_stage_layers > 0 || l.last_stage_layers > 0
                                ? fmt::format(" (first/last stage {}/{} layers)", l.first_stage_layers, l.last_stage_layers)
                                : "";
  ctx.out << fmt::format("layout: TP {} PP {}{} VP {} CP {} EP {} ETP {} {}, micro batch {}{}{}, {}, recompute {}\n",
                         l.tp, l.pp, split, l.vp, cp_text(l), l.ep, l.etp, dp_text(s), l.mbs, l.sp ? ", SP" : "",
                         l.fsdp ? ", FSDP" : "", precision_name(l.precision), recompute_name(l.recompute));
  ctx.out << fmt::format("params: {:.3f} B total, {:.3f} B active\n\n", static_cast<double>(o.params.total) / 1e9,
                         static_cast<double>(o.params.active) / 1e9);
  if (!o.estimate) {
    print_findings(o.findings, ctx);
    if (!o.invalid.empty()) ctx.out << "error [RB-ESTIMATE-INVALID] the estimator cannot evaluate this layout: " << o.invalid << "\n";
    return;
  }
  const Estimate& e = *o.estimate;
  Table summary({{"figure"}, {"value", Align::kRight}});
  summary.add_row({"tokens/s/GPU", fmt::format("{:.0f}", e.tokens_per_s_per_gpu)});
  summary.add_row({"step time", fmt::format("{:.3f} s", e.step_time_s)});
  summary.add_row({"model TFLOP/s/GPU", fmt::format("{:.0f}", e.model_tflops_per_gpu)});
  summary.add_row({fmt::format("MFU ({} peak)", precision_class_label(l.precision)), fmt::format("{:.1f}%", 100 * e.mfu)});
  summary.add_row({"GFLOP/token", fmt::format("{:.1f}", e.model_flops_per_token / 1e9)});
  summary.add_row({"USD / M tokens", e.usd_per_million_tokens > 0 ? fmt::format("{:.3f}", e.usd_per_million_tokens) : "no price"});
  if (s.workload.tokens_budget > 0) {
    summary.add_row({"GPU-hours", fmt::format("{:.0f}", e.gpu_hours)});
    summary.add_row({"days", fmt::format("{:.1f}", e.days)});
  }
  ctx.out << summary.render();
  if (e.usd_per_million_tokens > 0) ctx.out << "USD / M tokens " << price_used(s.hardware) << "\n";
  ctx.out << "\n";

  const MemoryBreakdown& m = e.memory.worst;
  ctx.out << fmt::format("memory (worst rank: pipeline stage {}): {} of {}, headroom {} (needs {}) — {}\n", m.stage,
                         gib(m.peak_bytes), gib(m.capacity_bytes), gib(m.headroom_bytes()),
                         gib(m.required_headroom_bytes), m.fits ? "fits" : "DOES NOT FIT");
  ctx.out << fmt::format("  as PyTorch reports it: allocated {}, reserved {}; on the device {}\n", gib(m.allocated_bytes()),
                         gib(m.reserved_bytes()), gib(m.peak_bytes));
  Table mem({{"part"}, {"size", Align::kRight}});
  const Json mem_parts = memory_parts_json(m);
  for (const auto& [k, v] : mem_parts.items())
    if (v.get<double>() > 0) mem.add_row({k.substr(0, k.size() - 6), gib(v.get<double>())});
  ctx.out << mem.render() << "\n";
  if (e.memory.host_node_bytes > 0) {
    const MemoryReport& r = e.memory;
    ctx.out << fmt::format(
        "host memory (offload): {} per GPU (worst stage: optimizer {}, activations {}), {} per node of {} ({:.0f}% usable) — {}\n\n",
        gib(r.host_gpu_bytes), gib(m.host_optimizer_bytes), gib(m.host_activations_bytes), gib(r.host_node_bytes),
        gib(r.host_capacity_bytes), 100 * kHostUsableFraction,
        r.host_capacity_bytes <= 0 ? "the catalog has no host figures for this GPU" : r.host_fits ? "fits" : "DOES NOT FIT");
  }

  ctx.out << fmt::format("step time: {:.3f} s ({} micro batches per pipeline)\n", e.time.step_time_s, e.microbatches);
  Table tt({{"part"}, {"seconds", Align::kRight}, {"share", Align::kRight}});
  const Json time_parts = time_parts_json(e.time);
  for (const auto& [k, v] : time_parts.items()) {
    const double sec = v.get<double>();
    if (sec <= 0) continue;
    tt.add_row({k.substr(0, k.size() - 2), fmt::format("{:.3f}", sec),
                fmt::format("{:.0f}%", 100 * sec / std::max(e.time.step_time_s, 1e-12))});
  }
  ctx.out << tt.render();
  if (!o.findings.empty()) {
    ctx.out << "\n";
    print_findings(o.findings, ctx);
  }
}

int run_batch(const EstimateOptions& opts, const Catalog& cat, const Context& ctx) {
  std::ifstream file;
  std::istream* in = &std::cin;
  if (opts.batch_file != "-") {
    file.open(opts.batch_file);
    if (!file) return report(ctx, Error("--batch: cannot read " + opts.batch_file));
    in = &file;
  }
  std::string line;
  int n = 0;
  int failed = 0;
  while (std::getline(*in, line)) {
    ++n;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    // Every error of the line at once, each naming its key.
    auto fail_line = [&](const std::vector<Error>& errors) {
      ++failed;
      Json j;
      j["line"] = n;
      j["errors"] = Json::array();
      for (const Error& e : errors)
        j["errors"].push_back(
            {{"rule", "RB-INPUT"}, {"severity", "error"}, {"message", e.message}, {"fix", e.fix}, {"where", e.where.str()}});
      ctx.out << j.dump() << "\n";
    };
    auto parsed = parse_json_body(line);
    if (!parsed) {
      std::vector<Error> errors = parsed.error();
      for (Error& e : errors) e.message = opts.batch_file + ":" + std::to_string(n) + ": " + e.message;
      fail_line(errors);
      continue;
    }
    auto args = layout_args_from_json(*parsed, opts.args);
    if (!args) {
      fail_line(args.error());
      continue;
    }
    auto setup = resolve_setup(*args, cat, true);
    if (!setup) {
      fail_line({setup.error()});
      continue;
    }
    const Outcome o = evaluate(*setup);
    Json j = outcome_json(*setup, o);
    j["line"] = n;
    if (!runs(o)) ++failed;
    ctx.out << j.dump() << "\n";
  }
  return failed > 0 ? kExitFindings : kExitOk;
}

}  // namespace

int run_estimate(const EstimateOptions& opts, const Context& ctx) {
  auto cat = load_catalog(ctx);
  if (!cat) return kExitUsage;
  return run_estimate(opts, ctx, *cat);
}

int run_estimate(const EstimateOptions& opts, const Context& ctx, const Catalog& catalog) {
  const Catalog* cat = &catalog;
  if (!opts.batch_file.empty()) return run_batch(opts, *cat, ctx);
  auto setup = resolve_setup(opts.args, *cat, ctx.request_keys);
  if (!setup) return report(ctx, setup.error());
  const Outcome o = evaluate(*setup);
  if (ctx.json)
    ctx.out << outcome_json(*setup, o).dump(2) << "\n";
  else
    print_outcome(*setup, o, ctx);
  return runs(o) ? kExitOk : kExitFindings;
}

}  // namespace rb::cli
