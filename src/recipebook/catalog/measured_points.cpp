#include "recipebook/catalog/measured_points.hpp"

#include "recipebook/estimate/estimate.hpp"
#include "recipebook/estimate/microbench.hpp"
#include "recipebook/rules/pipeline_split.hpp"
#include "recipebook/search/resize.hpp"

namespace rb {
namespace {

// "MXFP8 (inferred ...)", "FP8-blockwise 128x128", "FP8-CS" -> the first word, parsed.
std::optional<Precision> measured_precision(const std::string& s) { return parse_precision(s.substr(0, s.find(' '))); }

int pick(int measured, int recipe) { return measured > 0 ? measured : recipe; }

// The settings the run used where its release's differ from the recipe's (Measurement::overrides).
void apply_overrides(const Measurement::LayoutOverrides& o, Layout& l) {
  if (o.recompute) l.recompute = *o.recompute;
  if (o.recompute_method) l.recompute_method = *o.recompute_method;
  if (o.recompute_layers) l.recompute_layers = *o.recompute_layers;
  if (o.recompute_modules) l.recompute_modules = *o.recompute_modules;
  // Selective over an empty module list recomputes nothing (as the recipe reader reads it).
  if (o.recompute_modules && *o.recompute_modules == 0 && l.recompute == Recompute::kSelective) l.recompute = Recompute::kNone;
  if (o.cpu_offload_layers) l.cpu_offload_layers = *o.cpu_offload_layers;
  if (o.offload_modules) l.offload_modules = *o.offload_modules;
  if (o.activation_offload_fraction) l.activation_offload_fraction = *o.activation_offload_fraction;
  if (o.dispatcher) l.dispatcher = *o.dispatcher;
  if (o.cuda_graph) l.cuda_graph = *o.cuda_graph;
  if (o.cuda_graph_scope) l.cuda_graph_scope = *o.cuda_graph_scope;
  if (o.ep_a2a_overlap) l.ep_a2a_overlap = *o.ep_a2a_overlap;
  if (o.fused_grouped_mlp) l.fused_grouped_mlp = *o.fused_grouped_mlp;
  if (o.fp8_attention) l.fp8_attention = *o.fp8_attention;
  if (o.mbs && *o.mbs > 0) l.mbs = *o.mbs;
}

}  // namespace

std::optional<MeasuredRun> measured_run(const Recipe& rec, const Measurement& m, const Model& model) {
  MeasuredRun run;
  Layout& l = run.layout;
  l = rec.layout;
  l.tp = pick(m.tp, l.tp);
  const int recipe_pp = l.pp;
  l.pp = pick(m.pp, l.pp);
  l.cp = pick(m.cp, l.cp);
  const int recipe_vp = l.vp;
  l.vp = m.vp > 0 ? m.vp : (l.pp == recipe_pp ? l.vp : 1);
  // The recipe's split (stage counts or explicit layout) belongs to its own PP and VP, as for
  // apply_layout_flags: another measured pipeline is modelled below.
  if (l.pp != recipe_pp || l.vp != recipe_vp) {
    apply_stage_split(l, {});  // first/last counts and embedding/loss accounting
    l.pipeline_layout.clear();
  }
  l.ep = pick(m.ep, l.ep);
  if (m.etp > 0)
    l.etp = m.etp;
  else if (!rec.etp_recorded && model.is_moe())
    l.etp = default_etp(l, rec.framework == "megatron-bridge" ? EtpDefault::kMegatronBridge : EtpDefault::kMegatronCore);
  l.mbs = static_cast<int>(m.mbs > 0 ? m.mbs : l.mbs);
  if (m.fsdp > 0) l.fsdp = true;
  // A run at the recipe's own TP used the recipe's SP (a library recipe may set it off under TP > 1:
  // qwen_vl/h100/qwen35_vl.py); another TP is a performance-script run, and those set SP whenever
  // TP > 1.
  if (l.tp != rec.layout.tp) l.sp = l.tp > 1;
  if (auto p = measured_precision(m.precision)) l.precision = *p;
  apply_overrides(m.overrides, l);
  const int gpus = m.gpus > 0 ? m.gpus : rec.gpus;
  if (l.model_parallel() <= 0 || gpus <= 0 || gpus % l.model_parallel() != 0) return std::nullopt;
  l.dp = gpus / l.model_parallel();
  run.work.mode = rec.mode;
  run.work.seq = m.seq > 0 ? m.seq : rec.seq;
  run.work.gbs = m.gbs > 0 ? m.gbs : rec.gbs;
  run.work.image = rec.image;  // a VLM recipe's recorded image budget (its vision tower's work)
  run.cluster.gpus = gpus;
  run.cluster.gpus_per_node = rec.gpus_per_node;
  l = modelled_layout(model.num_layers(), l);
  run.exact = rec.layout_known && m.tp == rec.layout.tp && m.pp == rec.layout.pp && (m.ep == 0 || m.ep == rec.layout.ep) &&
              m.mbs == rec.layout.mbs && m.gbs == rec.gbs;
  return run;
}

MeasuredPoints measured_points(const Catalog& catalog, bool neutral_efficiency) {
  MeasuredPoints out;
  for (const RecipeEntry& entry : catalog.recipes()) {
    const Recipe& rec = entry.recipe;
    for (const Measurement& m : rec.measurements) {
      if (!m.current || !(m.tokens_per_s_per_gpu > 0)) continue;
      auto model = catalog.find_model(rec.model);
      if (!model || !model->has_architecture || model->layers.empty()) {
        ++out.skipped_model;
        continue;
      }
      auto hw = catalog.find_hardware(m.gpu.empty() ? rec.gpu : m.gpu);
      if (!hw || !hw->has_specs) {
        ++out.skipped_invalid;
        continue;
      }
      // Neutral: each precision starts from the GPU's published microbenchmarks, else the defaults.
      if (neutral_efficiency)
        for (int p = 0; p < kNumPrecisions; ++p)
          hw->efficiency[static_cast<size_t>(p)] = prior_efficiency(*hw, static_cast<Precision>(p));
      auto& pm = out.models[model->name];
      if (!pm) pm = std::make_unique<PreparedModel>(prepare(*model));
      auto run = measured_run(rec, m, *model);
      if (!run) {
        ++out.skipped_invalid;
        continue;
      }
      const Layout& l = run->layout;
      MeasuredPoint r;
      r.model = model->name;
      r.family = model->family.empty() ? model->name : model->family;
      r.release = m.release;
      r.label = rec.name + "@" + m.release + " " + hw->name + " " + std::string(precision_name(l.precision));
      r.point.model = pm.get();
      r.point.hardware = *hw;
      r.point.work = run->work;
      r.point.cluster = run->cluster;
      r.point.layout = l;
      r.point.measured_tokens_per_s_per_gpu = m.tokens_per_s_per_gpu;
      r.card = m.source.find("card") != std::string::npos || m.release.find("card") != std::string::npos;
      r.benchmark = m.benchmark;
      r.exact = run->exact;
      if (!estimate(*r.point.model, r.point.hardware, r.point.work, r.point.cluster, l).valid) {
        ++out.skipped_invalid;
        continue;
      }
      out.points.push_back(std::move(r));
    }
  }
  return out;
}

}  // namespace rb
