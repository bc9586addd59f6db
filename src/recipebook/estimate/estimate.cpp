#include "recipebook/estimate/estimate.hpp"

#include <cmath>

#include "recipebook/estimate/params.hpp"
#include "recipebook/estimate/vision.hpp"

namespace rb {

std::string_view invalid_reason_name(InvalidReason r) {
  switch (r) {
    case InvalidReason::kNone: return "none";
    case InvalidReason::kNoArchitecture: return "the model has no architecture";
    case InvalidReason::kNoHardwareSpecs: return "the GPU has no memory or peak figures";
    case InvalidReason::kPrecisionUnsupported: return "the GPU has no dense peak for this precision";
    case InvalidReason::kZeroDegree: return "a parallel degree or the micro batch is below 1";
    case InvalidReason::kGpuCountMismatch: return "tp x pp x cp x dp is not the GPU count";
    case InvalidReason::kSequence: return "the sequence length is not positive";
    case InvalidReason::kBatch: return "the global batch is not a positive multiple of mbs x dp";
    case InvalidReason::kStages: return "the layers do not split into pp x vp stages";
    case InvalidReason::kExperts: return "the experts do not divide by EP (or the model has none)";
    case InvalidReason::kExpertGroups: return "tp x cp x dp is not divisible by ep x etp";
    case InvalidReason::kHeads: return "the attention heads do not divide by TP";
    case InvalidReason::kOptimizerInstances:
      return "the distributed optimizer instances do not divide dp x cp and the expert data-parallel size";
  }
  return "unknown";
}

double prepared_flops_per_token(const PreparedModel& pm, int64_t seq, int tp, Mode mode) {
  const LayerSums& all = pm.prefix.back();
  const double s = static_cast<double>(seq);
  const double w = pm.window;
  const double swa_ctx = (pm.window > 0 && w < s) ? w - w * (w - 1.0) / (2.0 * s) : s / 2.0;
  // Forward FLOPs per token of the weighted GEMMs and of the weightless cores (attention, scans).
  auto weights = [&](const LayerSums& x) { return x.gemm_flops + x.expert_flops; };
  auto cores = [&](const LayerSums& x) { return x.full_core * s / 2.0 + x.swa_core * swa_ctx + x.fixed_core; };
  const double logits = 2.0 * pm.hidden * static_cast<double>(padded_vocab(pm.model.vocab, tp)) *
                        (1 + pm.model.mtp_layers);
  const double weight_fwd = weights(all) + weights(pm.mtp) + pm.mtp_extra_flops + logits;
  const double core_fwd = cores(all) + cores(pm.mtp);
  // LoRA freezes every base weight: no weight-gradient GEMM, so the weighted terms count forward +
  // dgrad (2 x) and the cores 3 x (lora_flops_per_token, flops.hpp).
  const double weight_passes = mode == Mode::kPeft ? 2.0 : 3.0;
  return weight_passes * weight_fwd + 3.0 * core_fwd;
}

namespace {

// The model and the GPU (the part of check() that differs between GPU types).
InvalidReason check_gpu(const PreparedModel& pm, const Hardware& hw, const Layout& l) {
  const Model& m = pm.model;
  if (!m.has_architecture || m.layers.empty() || m.hidden <= 0 || m.vocab <= 0 || pm.prefix.size() != m.layers.size() + 1)
    return InvalidReason::kNoArchitecture;
  if (!hw.has_specs || hw.memory_bytes <= 0 || hw.bf16_flops_per_s <= 0 || hw.hbm_bytes_per_s <= 0 ||
      hw.nvlink_bytes_per_s <= 0 || hw.scaleout_bytes_per_s <= 0)
    return InvalidReason::kNoHardwareSpecs;
  if (hw.peak_flops_per_s(l.precision) <= 0) return InvalidReason::kPrecisionUnsupported;
  return InvalidReason::kNone;
}

// The layout against the model and the GPU count.
InvalidReason check_layout(const PreparedModel& pm, const Workload& w, const Cluster& c, const Layout& l) {
  const Model& m = pm.model;
  if (l.tp < 1 || l.pp < 1 || l.vp < 1 || l.cp < 1 || l.ep < 1 || l.etp < 1 || l.dp < 1 || l.mbs < 1 ||
      l.recompute_layers < 1)
    return InvalidReason::kZeroDegree;
  if (c.gpus > 0 && static_cast<int64_t>(l.tp) * l.pp * l.cp * l.dp != c.gpus) return InvalidReason::kGpuCountMismatch;
  if (w.seq <= 0) return InvalidReason::kSequence;
  const int64_t per_step = static_cast<int64_t>(l.mbs) * l.dp;
  if (w.gbs <= 0 || w.gbs % per_step != 0) return InvalidReason::kBatch;
  if (m.is_moe()) {
    if (m.moe.experts % l.ep != 0) return InvalidReason::kExperts;
    if ((static_cast<int64_t>(l.tp) * l.cp * l.dp) % (static_cast<int64_t>(l.ep) * l.etp) != 0)
      return InvalidReason::kExpertGroups;
  } else if (l.ep > 1 || l.etp > 1) {
    return InvalidReason::kExperts;
  }
  if (m.attn.heads > 0 && m.attn.heads % l.tp != 0) return InvalidReason::kHeads;
  if (m.sliding_attn.heads > 0 && m.sliding_attn.heads % l.tp != 0) return InvalidReason::kHeads;
  if (const int r = l.distributed_optimizer_instances;
      r < 1 || (l.dp * l.cp) % r != 0 || (m.is_moe() && l.edp() % r != 0))
    return InvalidReason::kOptimizerInstances;
  return InvalidReason::kNone;
}

// MemoryInputs and TimeInputs share these fields (the workload, the model, the GPU and the node).
template <typename Inputs>
Inputs step_inputs(const PreparedModel& pm, const Hardware& hw, const Workload& work, int microbatches,
                   int gpus_per_node) {
  Inputs in;
  in.model = &pm;
  in.hw = &hw;
  in.mode = work.mode;
  in.seq = work.seq;
  in.lora_rank = work.lora_rank;
  in.microbatches = microbatches;
  in.gpus_per_node = gpus_per_node;
  in.image = work.image;
  return in;
}

MemoryInputs memory_inputs(const PreparedModel& pm, const Hardware& hw, const Workload& work, int microbatches,
                           int gpus_per_node) {
  return step_inputs<MemoryInputs>(pm, hw, work, microbatches, gpus_per_node);
}

TimeInputs time_inputs(const PreparedModel& pm, const Hardware& hw, const Workload& work, int microbatches,
                       int gpus_per_node) {
  return step_inputs<TimeInputs>(pm, hw, work, microbatches, gpus_per_node);
}

int microbatches_of(const Workload& work, const Layout& layout) {
  return static_cast<int>(work.gbs / (static_cast<int64_t>(layout.mbs) * layout.dp));
}

// The time and the figures derived from it, once e.memory and e.microbatches are set.
void finish_estimate(Estimate& e, const PreparedModel& pm, const Hardware& hw, const Workload& work,
                     const Cluster& cluster, const Layout& layout, const StagePlan& plan);

}  // namespace

LayoutMemory layout_memory(const PreparedModel& pm, const Workload& work, const Cluster& cluster, const Layout& layout,
                           const Hardware& hw) {
  return layout_memory(pm, work, cluster, layout, hw, plan_stages(pm.num_layers, layout));
}

LayoutMemory layout_memory(const PreparedModel& pm, const Workload& work, const Cluster& cluster, const Layout& layout,
                           const Hardware& hw, const StagePlan& plan) {
  LayoutMemory lm;
  lm.reason = check_layout(pm, work, cluster, layout);
  if (lm.reason != InvalidReason::kNone) return lm;
  lm.plan = plan;
  if (!lm.plan.ok) {
    lm.reason = InvalidReason::kStages;
    return lm;
  }
  lm.microbatches = microbatches_of(work, layout);
  lm.memory = memory_report(memory_inputs(pm, hw, work, lm.microbatches, cluster.gpus_per_node), layout, lm.plan);
  return lm;
}

Estimate estimate(const PreparedModel& pm, const Hardware& hw, const Workload& work, const Cluster& cluster,
                  const Layout& layout) {
  Estimate e;
  e.reason = check_gpu(pm, hw, layout);
  if (e.reason == InvalidReason::kNone) e.reason = check_layout(pm, work, cluster, layout);
  if (e.reason != InvalidReason::kNone) return e;
  const StagePlan plan = plan_stages(pm.num_layers, layout);
  if (!plan.ok) {
    e.reason = InvalidReason::kStages;
    return e;
  }
  e.microbatches = microbatches_of(work, layout);
  e.memory = memory_report(memory_inputs(pm, hw, work, e.microbatches, cluster.gpus_per_node), layout, plan);
  finish_estimate(e, pm, hw, work, cluster, layout, plan);
  return e;
}

MemoryVerdict memory_verdict(const PreparedModel& pm, const Hardware& hw, const Layout& layout, const LayoutMemory& lm) {
  MemoryVerdict v;
  v.reason = check_gpu(pm, hw, layout);
  if (v.reason == InvalidReason::kNone) v.reason = lm.reason;
  // The memory is this GPU's but for the capacity and the headroom (memory.cpp rank_memory).
  v.fits = lm.memory.worst.peak_bytes <= hw.memory_bytes - hw.headroom_bytes();
  return v;
}

Estimate estimate(const PreparedModel& pm, const Hardware& hw, const Workload& work, const Cluster& cluster,
                  const Layout& layout, const LayoutMemory& lm) {
  Estimate e;
  const MemoryVerdict v = memory_verdict(pm, hw, layout, lm);
  e.reason = v.reason;
  if (e.reason != InvalidReason::kNone) return e;
  e.microbatches = lm.microbatches;
  e.memory = lm.memory;
  MemoryBreakdown& worst = e.memory.worst;
  worst.capacity_bytes = hw.memory_bytes;
  worst.required_headroom_bytes = hw.headroom_bytes();
  worst.fits = v.fits;
  // The host memory is this GPU's node's (memory.cpp memory_report).
  set_host_fit(e.memory, hw, cluster.gpus_per_node, layout.world());
  finish_estimate(e, pm, hw, work, cluster, layout, lm.plan);
  return e;
}

double tokens_per_s_per_gpu_ceiling(const PreparedModel& pm, const Hardware& hw, const Workload& work,
                                    const Cluster& cluster, const Layout& layout, const LayoutMemory& lm) {
  const double floor_s = step_time_floor_s(time_inputs(pm, hw, work, lm.microbatches, cluster.gpus_per_node), layout,
                                           lm.plan);
  // As finish_estimate divides: a smaller step time gives at least as many tokens/s.
  return static_cast<double>(work.gbs) * static_cast<double>(work.seq) / floor_s / layout.world();
}

namespace {

void finish_estimate(Estimate& e, const PreparedModel& pm, const Hardware& hw, const Workload& work,
                     const Cluster& cluster, const Layout& layout, const StagePlan& plan) {
  e.time = step_time(time_inputs(pm, hw, work, e.microbatches, cluster.gpus_per_node), layout, plan);

  const double world = layout.world();
  e.tokens_per_step = static_cast<double>(work.gbs) * static_cast<double>(work.seq);
  e.step_time_s = e.time.step_time_s;
  if (!(e.step_time_s > 0) || !std::isfinite(e.step_time_s)) {
    e.reason = InvalidReason::kNoHardwareSpecs;
    return;
  }
  e.tokens_per_s_per_gpu = e.tokens_per_step / e.step_time_s / world;
  // A VLM run's tower counts as Megatron-Bridge counts it (estimate/vision.hpp vision_model_flops).
  const double vision_flops = vision_model_flops(pm.model.vision, vision_work(pm.model.vision, work.image, layout.mbs));
  e.model_flops_per_token = prepared_flops_per_token(pm, work.seq, layout.tp, work.mode) +
                            vision_flops / (static_cast<double>(layout.mbs) * static_cast<double>(work.seq));
  e.model_tflops_per_gpu = e.model_flops_per_token * e.tokens_per_s_per_gpu / 1e12;
  e.mfu = e.model_flops_per_token * e.tokens_per_s_per_gpu / hw.peak_flops_per_s(layout.precision);
  e.mfu_bf16 = e.model_flops_per_token * e.tokens_per_s_per_gpu / hw.bf16_flops_per_s;
  e.mfu_6n = 6.0 * static_cast<double>(pm.params.active) * e.tokens_per_s_per_gpu / hw.bf16_flops_per_s;
  if (hw.usd_per_gpu_hour > 0)
    e.usd_per_million_tokens = hw.usd_per_gpu_hour / (e.tokens_per_s_per_gpu * 3600.0) * 1e6;
  if (work.tokens_budget > 0) {
    e.gpu_hours = work.tokens_budget / (e.tokens_per_s_per_gpu * 3600.0);
    e.days = e.gpu_hours / world / 24.0;
  }
  e.valid = true;
}

}  // namespace

std::vector<MemoryBreakdown> stage_memory(const PreparedModel& pm, const Hardware& hw, const Workload& work,
                                          const Cluster& cluster, const Layout& layout) {
  std::vector<MemoryBreakdown> out;
  const LayoutMemory lm = layout_memory(pm, work, cluster, layout, hw);
  if (check_gpu(pm, hw, layout) != InvalidReason::kNone || lm.reason != InvalidReason::kNone) return out;
  const MemoryInputs mi = memory_inputs(pm, hw, work, lm.microbatches, cluster.gpus_per_node);
  out.reserve(static_cast<size_t>(layout.pp));
  for (int rank = 0; rank < layout.pp; ++rank) out.push_back(rank_memory(mi, layout, lm.plan, rank));
  return out;
}

}  // namespace rb
