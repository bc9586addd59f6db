#include "recipebook/cmd_calibrate.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <ostream>

#include "recipebook/catalog/training_log.hpp"
#include "recipebook/catalog/yaml_tree.hpp"
#include "recipebook/catalog_access.hpp"
#include "recipebook/emit/atomic_file.hpp"
#include "recipebook/emit/launch.hpp"
#include "recipebook/estimate/flops.hpp"
#include "recipebook/estimate/params.hpp"

namespace rb::cli {
namespace {

Result<std::optional<std::pair<int64_t, int64_t>>> parse_window(const std::string& s) {
  if (s.empty()) return std::nullopt;
  const size_t colon = s.find(':');
  auto num = [](std::string_view t) -> std::optional<int64_t> {
    if (t.empty() || t.size() > 12) return std::nullopt;
    int64_t v = 0;
    for (char c : t) {
      if (c < '0' || c > '9') return std::nullopt;
      v = v * 10 + (c - '0');
    }
    return v;
  };
  if (colon == std::string::npos) return fail("--window takes A:B (iterations), got '" + s + "'", {"--window"});
  auto a = num(std::string_view(s).substr(0, colon));
  auto b = num(std::string_view(s).substr(colon + 1));
  if (!a || !b) return fail("--window takes A:B (iterations), got '" + s + "'", {"--window"});
  return std::pair(*a, *b);
}

// What a recipe record says about the run.
struct RecordInfo {
  std::string text;
  int64_t seq = 0, gbs = 0;
  int gpus = 0;
  std::string model, gpu, precision;
  RunClaims::Layout layout;  // what `layout:` states (0 = not stated)
};

Result<RecordInfo> read_record(const std::string& path) {
  RecordInfo r;
  auto text = read_text_file(path);
  if (!text) return tl::unexpected(text.error());
  r.text = std::move(*text);
  auto tree = parse_yaml(r.text, path);
  if (!tree) return tl::unexpected(tree.error());
  if (!tree->is_map()) return fail("the recipe is not a YAML map", {path});
  auto str = [](const YNode* n) { return n != nullptr && n->is_scalar() ? n->text : std::string(); };
  r.model = str(tree->get("model"));
  if (const YNode* g = tree->get("gpu"); g != nullptr && g->is_map()) {
    r.gpu = str(g->get("type"));
    if (const YNode* c = g->get("count")) r.gpus = static_cast<int>(c->as_int().value_or(0));
  }
  if (const YNode* w = tree->get("workload"); w != nullptr && w->is_map()) {
    if (const YNode* s = w->get("row_tokens")) r.seq = s->as_int().value_or(0);
    if (const YNode* b = w->get("global_batch")) r.gbs = b->as_int().value_or(0);
    r.precision = str(w->get("precision"));
  }
  if (const YNode* l = tree->get("layout"); l != nullptr && l->is_map()) {
    auto degree = [&](const char* key) {
      const YNode* n = l->get(key);
      return n != nullptr ? static_cast<int>(n->as_int().value_or(0)) : 0;
    };
    r.layout = {degree("tp"), degree("pp"), degree("vpp"), degree("cp"), degree("ep"), degree("rows_per_microbatch")};
  }
  return r;
}

std::string fmt_opt(const std::optional<double>& v, const char* spec) {
  return v ? fmt::format(fmt::runtime(spec), *v) : "n/a";
}

}  // namespace

int run_calibrate(const CalibrateOptions& o, const Context& ctx) {
  if (o.logs.empty()) return report(ctx, Error{"no training log given", {"LOG"}, "recipebook calibrate run.log ..."});
  auto window = parse_window(o.window);
  if (!window) return report(ctx, window.error());

  RecordInfo rec;
  if (!o.recipe.empty()) {
    auto r = read_record(o.recipe);
    if (!r) return report(ctx, r.error());
    rec = std::move(*r);
  }

  std::vector<TrainingLog> logs;
  for (const auto& path : o.logs) {
    auto text = read_text_file(path);
    if (!text) return report(ctx, text.error());
    auto log = parse_training_log(*text, path);
    if (!log) return report(ctx, log.error());
    for (const auto& w : log->warnings) ctx.err << "warning: " << w << "\n";
    logs.push_back(std::move(*log));
  }
  std::vector<RunWindow> runs;
  for (const auto& log : logs) {
    auto w = steady_window(log, *window);
    if (!w) return report(ctx, w.error());
    runs.push_back({&log, *w});
  }

  // Sequence length, GPUs and batch: flags, else the record, else the log's argument dump.
  const TrainingLog& first = logs.front();
  RunClaims claims;
  auto from = [&](bool flag, bool record, const char* name) {
    return flag ? std::string("--") + name : record ? "the recipe " + o.recipe : std::string("the log");
  };
  const int64_t seq = o.seq > 0 ? o.seq : rec.seq > 0 ? rec.seq : first.arg_int("seq_length").value_or(0);
  const int gpus = o.gpus > 0 ? o.gpus : rec.gpus > 0 ? rec.gpus : static_cast<int>(first.arg_int("world_size").value_or(0));
  const int64_t gbs = o.gbs > 0 ? o.gbs : rec.gbs > 0 ? rec.gbs : first.arg_int("global_batch_size").value_or(0);
  claims.seq = seq;
  claims.seq_from = from(o.seq > 0, rec.seq > 0, "seq");
  claims.gpus = gpus;
  claims.gpus_from = from(o.gpus > 0, rec.gpus > 0, "gpus");
  // --gbs is only the fallback for lines that print none; the record's batch is what it claims.
  claims.gbs = rec.gbs > 0 ? rec.gbs : o.gbs;
  claims.gbs_from = from(rec.gbs <= 0 && o.gbs > 0, rec.gbs > 0, "gbs");
  claims.layout = rec.layout;
  claims.layout_from = "the recipe " + o.recipe;
  auto summary = summarize_runs(runs, seq, gbs);
  if (!summary) return report(ctx, summary.error());

  CalibrationInputs in;
  in.gpus = gpus;
  const std::string gpu_ref = !o.gpu.empty() ? o.gpu : rec.gpu;
  const std::string model_ref = !o.model.empty() ? o.model : rec.model;
  const std::string precision_ref = !o.precision.empty() ? o.precision : !rec.precision.empty() ? rec.precision : "bf16";
  auto precision = parse_precision(precision_ref);
  if (!precision) return report(ctx, Error{"unknown precision '" + precision_ref + "'", {"--precision"}});
  if (!gpu_ref.empty() || !model_ref.empty()) {
    auto catalog = load_catalog(ctx);
    if (!catalog) return kExitUsage;
    if (!gpu_ref.empty()) {
      if (auto hw = catalog->find_hardware(gpu_ref)) {
        if (hw->peak_flops_per_s(*precision) > 0) in.peak_flops_per_s = hw->peak_flops_per_s(*precision);
        if (hw->usd_per_gpu_hour > 0) in.usd_per_gpu_hour = hw->usd_per_gpu_hour;
      } else {
        ctx.err << "warning: " << hw.error().str() << "\n";
      }
    }
    if (!model_ref.empty()) {
      if (auto m = catalog->find_model(model_ref); m && m->has_architecture) {
        in.active_params = static_cast<double>(count_params(*m).active);
        if (seq > 0) in.flops_per_token = megatron_flops_per_token(*m, seq);
        claims.model = m->name;
        claims.hidden = m->hidden;
        claims.layers = m->num_layers();
        claims.flops_per_token = in.flops_per_token;
      } else if (!m) {
        ctx.err << "warning: " << m.error().str() << "\n";
      }
    }
  }
  if (o.peak_tflops > 0) in.peak_flops_per_s = o.peak_tflops * 1e12;
  if (o.usd_per_gpu_hour > 0) in.usd_per_gpu_hour = o.usd_per_gpu_hour;
  if (o.active_params > 0) in.active_params = o.active_params;

  auto cal = calibrate(*summary, in);
  if (!cal) return report(ctx, cal.error());
  const RunSummary& s = cal->run;

  // A log of another run than the one named (other GPUs, batch, sequence or model) would write a
  // result that `check` rejects, or worse one it accepts: refuse it, naming every difference.
  claims.tokens_per_s_per_gpu = cal->tokens_per_s_per_gpu;
  std::vector<const TrainingLog*> log_ptrs;
  for (const auto& log : logs) log_ptrs.push_back(&log);
  if (auto mismatches = cross_check(log_ptrs, s, claims); !mismatches.empty()) {
    if (!o.force) {
      std::vector<Error> errors;
      for (const auto& m : mismatches)
        errors.push_back(Error{m.message, {m.file}, "calibrate the log of this run, correct the flags or the recipe, or give --force",
                               "RB-CALIBRATE-MISMATCH"});
      errors.push_back(Error{o.recipe.empty() ? "the log does not match the run described; nothing reported"
                                              : "the log does not match the run described; " + o.recipe + " is unchanged",
                             {}, "", "RB-CALIBRATE-MISMATCH"});
      return report_errors(ctx, errors, kExitFindings);
    }
    for (const auto& m : mismatches)
      ctx.err << "warning: " << (m.file.empty() ? "" : m.file + ": ") << m.message << " (--force: kept)\n";
  }
  for (const auto& r : runs)
    if (auto left = excluded_lines(*r.log, r.window); !left.empty()) ctx.err << "note: " << left << "\n";
  for (const auto& [name, v] : {std::pair{"MFU", cal->mfu}, std::pair{"MFU with Megatron's FLOPs count", cal->mfu_megatron}})
    if (v && *v > kMaxPlausibleMfu)
      ctx.err << fmt::format("warning: {} {:.2f} is implausibly high (Megatron-LM reports up to 0.47 on H100): check "
                             "the GPU count, batch, model and --gpu / --precision\n",
                             name, *v);
  if (s.nan_iterations > 0)
    ctx.err << fmt::format("warning: {} iteration(s) with a NaN loss: the run may not be sound\n", s.nan_iterations);
  if (s.skipped_iterations > 0)
    ctx.err << fmt::format("warning: {} skipped iteration(s) (loss-scale overflow)\n", s.skipped_iterations);

  if (!o.recipe.empty()) {
    const std::string edited = with_result_block(rec.text, render_result_block(*cal));
    if (o.dry_run) {
      ctx.out << edited;
      return kExitOk;
    }
    if (auto ok = write_file_atomic({o.recipe, edited, false}, true); !ok) return report(ctx, ok.error());
  }

  if (ctx.json) {
    nlohmann::ordered_json j;
    j["logs"] = o.logs;
    j["runs"] = s.runs;
    j["window"] = {s.window_start, s.window_end};
    j["window_automatic"] = !window->has_value();
    j["window_steps"] = s.window_steps;
    j["window_tokens"] = static_cast<int64_t>(std::llround(s.window_tokens));
    j["seq"] = seq;
    j["gpus"] = gpus;
    j["tokens_per_s_per_gpu"] = cal->tokens_per_s_per_gpu;
    j["step_time_s"] = s.step_time_mean_s;
    j["step_time_cv_percent"] = s.step_time_cv ? nlohmann::ordered_json(*s.step_time_cv * 100.0) : nullptr;
    j["mfu"] = cal->mfu ? nlohmann::ordered_json(*cal->mfu) : nullptr;
    j["mfu_megatron"] = cal->mfu_megatron ? nlohmann::ordered_json(*cal->mfu_megatron) : nullptr;
    j["mfu_note"] = cal->mfu_note;
    j["log_tflops_per_gpu"] = s.log_tflops_per_gpu ? nlohmann::ordered_json(*s.log_tflops_per_gpu) : nullptr;
    j["usd_per_million_tokens"] =
        cal->usd_per_million_tokens ? nlohmann::ordered_json(*cal->usd_per_million_tokens) : nullptr;
    j["gpu_hours"] = cal->gpu_hours;
    j["first_loss"] = s.first_loss ? nlohmann::ordered_json(*s.first_loss) : nullptr;
    j["last_loss"] = s.last_loss ? nlohmann::ordered_json(*s.last_loss) : nullptr;
    j["nan_iterations"] = s.nan_iterations;
    j["skipped_iterations"] = s.skipped_iterations;
    j["excluded"] = nlohmann::ordered_json::array();
    for (const auto& r : runs)
      for (size_t i = 0; i < r.log->iterations.size(); ++i)
        if (i < r.window.first || i > r.window.last)
          j["excluded"].push_back({{"log", r.log->file}, {"iteration", r.log->iterations[i].iteration},
                                   {"step_time_s", r.log->iterations[i].step_time_s},
                                   {"reason", r.window.automatic ? "warm-up" : "outside --window"}});
    j["measured"] = s.measured_date.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s.measured_date);
    if (!o.recipe.empty() && !o.dry_run) j["recipe"] = o.recipe;
    ctx.out << j.dump(2) << "\n";
    return kExitOk;
  }
  ctx.out << fmt::format("window            iterations {}..{} ({}, {} steps, {} run(s))\n", s.window_start,
                         s.window_end, window->has_value() ? "as asked" : "after warm-up", s.window_steps, s.runs);
  ctx.out << fmt::format("step time         {:.3f} s (CV {})\n", s.step_time_mean_s,
                         s.step_time_cv ? fmt::format("{:.2f}%", *s.step_time_cv * 100.0) : "n/a");
  ctx.out << fmt::format("tokens/s/GPU      {:.2f}  ({} GPUs, seq {})\n", cal->tokens_per_s_per_gpu, gpus, seq);
  ctx.out << fmt::format("MFU               {}  ({})\n", fmt_opt(cal->mfu, "{:.4f}"), cal->mfu_note);
  ctx.out << fmt::format("USD per M tokens  {}\n", fmt_opt(cal->usd_per_million_tokens, "{:.2f}"));
  ctx.out << fmt::format("GPU-hours         {:.2f}\n", cal->gpu_hours);
  ctx.out << fmt::format("loss              {} -> {}\n", fmt_opt(s.first_loss, "{:.4f}"), fmt_opt(s.last_loss, "{:.4f}"));
  if (!o.recipe.empty()) ctx.out << "wrote result to " << o.recipe << "\n";
  return kExitOk;
}

}  // namespace rb::cli
