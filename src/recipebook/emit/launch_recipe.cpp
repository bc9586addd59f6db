// Recipe records: the draft `launch --target recipe` writes (docs/catalog-format.md, seed 002's
// field names; everything but the measured result), and the `result:` block `calibrate --recipe`
// puts into a record by editing its text, so that the rest of the file and its comments stay.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>

#include "recipebook/core/layout_fields.hpp"
#include "recipebook/emit/launch.hpp"
#include "recipebook/emit/launch_script.hpp"

namespace rb {
namespace {

std::string q(std::string_view s) { return nlohmann::json(std::string(s)).dump(); }

std::string yaml_bool(bool b) { return b ? "true" : "false"; }

std::string scope_names(uint32_t mask) {
  std::string out;
  for (std::string_view s : {"attn", "mlp", "moe", "moe_router", "moe_preprocess", "mamba"})
    if ((mask & *parse_cuda_graph_scope(s)) != 0) out += (out.empty() ? "" : ", ") + std::string(s);
  return "[" + out + "]";
}

void append_block_scalar(std::string& out, std::string_view key, const std::string& text, int ind) {
  const std::string p(static_cast<size_t>(ind), ' ');
  out += p + std::string(key) + ": |\n";
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string_view line(text.data() + start, end - start);
    out += line.empty() ? std::string("\n") : p + "  " + std::string(line) + "\n";
    start = end + 1;
  }
}

// A plain field of the layout block or of `features`, as `key: value` with the last part of its
// record path from the layout field table ("layout.rows_per_microbatch" -> "  rows_per_microbatch: 2").
std::string yaml_line(std::string_view field, const Layout& l) {
  const LayoutField& r = layout_field(field);
  return fmt::format("  {}: {}\n", r.yaml.substr(r.yaml.rfind('.') + 1), field_text(r, l));
}

std::string num(double v, int decimals) { return fmt::format("{:.{}f}", v, decimals); }

}  // namespace

Result<std::string> render_recipe_draft(const LaunchSpec& spec) {
  if (auto ok = validate_spec(spec); !ok) return tl::unexpected(ok.error());
  const Layout& l = spec.layout;
  std::string out;
  out += fmt::format("# {}: a recipe draft written by `recipebook launch --target recipe`{}.\n", spec.name,
                     spec.source_recipe.empty() ? "" : " from " + spec.source_recipe);
  out += "# Everything but the measured result is filled in. Run it, then\n"
         "#   recipebook calibrate TRAINING_LOG... --recipe THIS_FILE\n"
         "# writes `result` (tokens/s/GPU, step-time CV, MFU, USD per million tokens, GPU-hours).\n";
  out += "schema_version: 1\n";
  out += "name: " + q(spec.name) + "\n";
  out += "kind: measured\n";
  out += fmt::format("mode: {}\n", mode_name(spec.mode));
  out += fmt::format("framework: {}\n", framework_name(spec.framework));
  out += "entry_point: " +
         q(spec.framework == Framework::kBridge && !spec.bridge_recipe.empty() ? spec.bridge_recipe
                                                                             : std::string("pretrain_gpt.py")) +
         "\n";
  if (!spec.draft_extends.empty()) out += "extends: " + q(spec.draft_extends) + "\n";
  const std::string from = !spec.source_recipe.empty() ? spec.source_recipe : spec.draft_extends;
  out += "source: " + q("recipebook launch draft" + (from.empty() ? std::string() : " from " + from)) + "\n";
  out += "model: " + q(spec.model) + "\n";
  out += "gpu:\n  type: " + q(spec.gpu) + fmt::format("\n  count: {}\n  per_node: {}\n", spec.gpus, spec.gpus_per_node);
  out += "status: draft\n";

  out += "workload:\n";
  if (spec.seq > 0) out += fmt::format("  row_tokens: {}\n", spec.seq);
  if (spec.gbs > 0) out += fmt::format("  global_batch: {}\n", spec.gbs);
  if (spec.precision_given) out += fmt::format("  precision: {}\n", precision_name(l.precision));
  if (!spec.dataset.empty()) out += "  dataset:\n    name: " + q(spec.dataset) + "\n";

  if (spec.layout_given) {
    out += "layout:\n  label: " + q(layout_label(spec)) + "\n";
    for (std::string_view f : {"tp", "pp", "vp", "cp", "ep", "etp"}) out += yaml_line(f, l);
    out += fmt::format("  dp: {}\n", l.dp);
    for (std::string_view f : {"sp", "mbs"}) out += yaml_line(f, l);
    switch (l.recompute) {
      case Recompute::kNone: break;  // no `recompute` map: none
      case Recompute::kSelective: out += "  recompute:\n    granularity: selective\n"; break;
      case Recompute::kFull:
        out += fmt::format("  recompute:\n    granularity: full\n    method: {}\n    num_layers: {}\n",
                           l.recompute_method == RecomputeMethod::kBlock ? "block" : "uniform", l.recompute_layers);
        break;
    }
    const bool flex = l.dispatcher == Dispatcher::kFlexDeepep || l.dispatcher == Dispatcher::kFlexHybridep;
    out += fmt::format("  dispatcher: {}\n", flex ? "flex" : dispatcher_name(l.dispatcher));

    out += "features:\n";
    out += fmt::format("  cuda_graph:\n    impl: {}\n", cuda_graph_name(l.cuda_graph));
    if (l.cuda_graph == CudaGraph::kTransformerEngine && l.cuda_graph_scope != 0)
      out += "    scope: " + scope_names(l.cuda_graph_scope) + "\n";
    if (l.recompute == Recompute::kSelective)
      out += "  recompute_modules: [" +
             recompute_modules_str(l.recompute_modules == 0 ? kRcDefault : l.recompute_modules) + "]\n";
    if (spec.precision_given) out += fmt::format("  precision_recipe: {}\n", bridge_precision_recipe(l.precision));
    out += yaml_line("fsdp", l);
    if (l.fsdp) out += "  fsdp_strategy: optim_grads_params\n";
    out += yaml_line("cpu_offload_layers", l);
    if (l.optimizer_offload_fraction > 0)
      out += fmt::format("  optimizer_offload_fraction: {:g}\n", l.optimizer_offload_fraction);
    if (l.offload_modules != 0)
      out += "  fine_grained_offload: true\n  offload_modules: [" + offload_modules_str(l.offload_modules) + "]\n";
    // Per-module precision (a quantization recipe's module lists), under an FP8/FP4 recipe.
    if (l.precision != Precision::kBf16) {
      if (l.bf16_modules != 0) out += "  bf16_modules: [" + gemm_modules_str(l.bf16_modules) + "]\n";
      if (l.mxfp8_modules != 0) out += "  mxfp8_modules: [" + gemm_modules_str(l.mxfp8_modules) + "]\n";
    }
    out += fmt::format("  flex_backend: {}\n", flex ? dispatcher_name(l.dispatcher) : "null");
    for (std::string_view f : {"ep_a2a_overlap", "tp_comm_overlap", "precision_aware_optimizer", "grad_reduce_in_fp32"})
      out += yaml_line(f, l);
    for (std::string_view f : {"fused_grouped_mlp", "fp8_attention"})
      if (field_in_force(layout_field(f), l) && l.*layout_field(f).bool_member) out += yaml_line(f, l);
    if (l.optimizer != Optimizer::kAdam) out += yaml_line("optimizer", l);
    // The loss and dropout, where they are not the defaults.
    for (std::string_view f : {"cross_entropy_loss_fusion", "cross_entropy_fusion_impl", "hidden_dropout", "attention_dropout"}) {
      const LayoutField& r = layout_field(f);
      if (field_in_force(r, l) && field_text(r, l) != field_text(r, Layout{})) out += yaml_line(f, l);
    }
    out += "  te_rng_tracker: " + yaml_bool(l.te_rng_tracker || l.cuda_graph != CudaGraph::kNone) + "\n";
    if (!l.pipeline_layout.empty())
      out += "  pipeline_layout: '" + pipeline_layout_str(l.pipeline_layout) + "'\n";
    else if (l.first_stage_layers > 0 || l.last_stage_layers > 0)
      out += fmt::format("  pipeline_layout:\n    first_stage_layers: {}\n    last_stage_layers: {}\n",
                         l.first_stage_layers, l.last_stage_layers);
    // Settings the renderers write that the layout does not model (by their Megatron names).
    std::vector<std::string> settings;
    if (!l.distributed_optimizer && !l.fsdp) settings.emplace_back("use_distributed_optimizer: false");
    if (l.distributed_optimizer_instances > 1)
      settings.emplace_back(fmt::format("num_distributed_optimizer_instances: {}", l.distributed_optimizer_instances));
    if (cp_exchange(l) != CpComm::kP2p)
      settings.emplace_back(fmt::format("cp_comm_type: {}", cp_comm_name(l.cp_comm)));
    if (l.account_for_embedding) settings.emplace_back("account_for_embedding_in_pipeline_split: true");
    if (l.account_for_loss) settings.emplace_back("account_for_loss_in_pipeline_split: true");
    if (l.cuda_graph == CudaGraph::kFullIteration) settings.emplace_back("check_for_nan_in_loss: false");
    if (l.precision == Precision::kNvfp4 && !l.fp4_param_gather) settings.emplace_back("fp4_param_gather: false");
    if (l.precision != Precision::kBf16 && (l.bf16_layers_at_start > 0 || l.bf16_layers_at_end > 0)) {
      settings.emplace_back("first_last_layers_bf16: true");
      for (std::string_view f : {"bf16_layers_at_start", "bf16_layers_at_end"}) {
        std::string line = yaml_line(f, l);  // "  num_layers_at_..._in_bf16: N\n"
        settings.push_back(line.substr(2, line.size() - 3));
      }
    }
    if (!settings.empty()) {
      out += "  settings:\n";
      for (const auto& kv : settings) out += "    " + kv + "\n";
    }
  }
  if (!spec.known_issues.empty()) {
    out += "known_issues:\n";
    for (const auto& [rule, note] : spec.known_issues) out += "  - rule: " + q(rule) + "\n    note: " + q(note) + "\n";
  }
  if (!spec.env.empty()) {
    out += "env:\n";
    for (const auto& [k, v] : spec.env) out += "  " + k + ": " + q(v) + "\n";
  }
  // The command, as the bridge / megatron-lm target writes it.
  LaunchSpec run = spec;
  run.probe = false;
  if (check_entry(run)) {
    const std::vector<std::string> launcher =
        spec.framework == Framework::kBridge ? std::vector<std::string>{"uv", "run", "python", "-m", "torch.distributed.run"}
                                             : std::vector<std::string>{"torchrun"};
    append_block_scalar(out, "run", render_shell_script(run, launcher, "recipe"), 0);
  }
  out += "# result: written by `recipebook calibrate`\n";
  return out;
}

std::string render_result_block(const Calibration& c) {
  const RunSummary& r = c.run;
  std::string out = "result:\n";
  out += "  tokens_per_s_per_gpu: " + num(c.tokens_per_s_per_gpu, 2) + "\n";
  out += "  usd_per_million_tokens: " + (c.usd_per_million_tokens ? num(*c.usd_per_million_tokens, 2) : "null") + "\n";
  if (r.step_time_cv) out += "  step_time_cv_percent: " + num(*r.step_time_cv * 100.0, 2) + "\n";
  out += "  mfu: " + (c.mfu ? num(*c.mfu, 4) : "null") + "\n";
  out += "  mfu_note: " + q(c.mfu_note) + "\n";
  if (c.mfu && c.active_params) out += fmt::format("  active_params:\n    count: {:.0f}\n", *c.active_params);
  if (!r.measured_date.empty()) out += "  measured: " + r.measured_date + "\n";
  out += fmt::format("  steps_per_run: {}\n", r.steps_per_run);
  out += fmt::format("  window:\n  - {}\n  - {}\n", r.window_start, r.window_end);
  out += fmt::format("  window_tokens: {:.0f}\n", r.window_tokens);
  out += fmt::format("  runs: {}\n", r.runs);
  out += "  profiler: false\n";
  out += "  gpu_hours: " + num(c.gpu_hours, 2) + "\n";
  out += "  gpu_hours_note: " + q(c.gpu_hours_note) + "\n";
  return out;
}

std::string with_result_block(std::string_view text, std::string_view block) {
  auto is_result_key = [](std::string_view line) {
    if (!line.starts_with("result")) return false;
    size_t k = 6;
    while (k < line.size() && line[k] == ' ') ++k;
    return k < line.size() && line[k] == ':';
  };
  std::string out;
  size_t pos = 0;
  bool replaced = false;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    const size_t next = end == std::string_view::npos ? text.size() : end + 1;
    const std::string_view line = text.substr(pos, (end == std::string_view::npos ? text.size() : end) - pos);
    if (!replaced && is_result_key(line)) {
      // Skip the old block: lines that are indented, or blank and followed by more of the block.
      size_t p = next;
      size_t block_end = next;
      while (p < text.size()) {
        size_t e = text.find('\n', p);
        const size_t n = e == std::string_view::npos ? text.size() : e + 1;
        const std::string_view l = text.substr(p, (e == std::string_view::npos ? text.size() : e) - p);
        const bool blank = l.find_first_not_of(" \t\r") == std::string_view::npos;
        const bool indented = !l.empty() && (l[0] == ' ' || l[0] == '\t' || l.starts_with("- "));
        if (!blank && !indented) break;
        if (!blank) block_end = n;
        p = n;
      }
      out += block;
      pos = block_end;
      replaced = true;
      continue;
    }
    out.append(text.substr(pos, next - pos));
    pos = next;
  }
  if (!replaced) {
    if (!out.empty() && out.back() != '\n') out += '\n';
    out += block;
  }
  return out;
}

}  // namespace rb
