// Expert parallelism, token dispatch and MoE communication overlap (REFERENCES.md C.2, C.12-C.14).
#include "recipebook/rules/check_util.hpp"
#include "recipebook/rules/checks.hpp"

namespace rb {

// MCore transformer_config.py: EP > 1 needs num_moe_experts.
bool check_ep_needs_moe(const RuleContext& ctx, Finding* out) {
  if (ctx.layout.ep <= 1 || ctx.pm.experts > 0) return false;
  if (out == nullptr) return true;
  return report(out, "EP " + str(ctx.layout.ep) + " is set but " + ctx.model().name + " has no experts", "set EP 1",
                "layout.ep");
}

// MLM arguments.py: num_experts % EP == 0.
bool check_experts_ep(const RuleContext& ctx, Finding* out) {
  if (ctx.pm.experts <= 0 || ep_divides_experts(ctx.pm, ctx.layout.ep)) return false;
  if (out == nullptr) return true;
  return report(out, "EP " + str(ctx.layout.ep) + " does not divide the " + str(ctx.pm.experts) + " experts",
                "use EP in " + join_set(keep_fitting(ep_candidates(ctx.pm, degree_cap(ctx)), [&](int ep) {
                  const Layout& l = ctx.layout;
                  return world_holds(ctx.world, ctx.model_parallel, static_cast<int64_t>(ep) * l.etp * l.pp);
                })),
                "layout.ep");
}

// MCore parallel_state.py: world % (ETP EP PP) == 0, i.e. (TP CP DP) % (EP ETP) == 0.
bool check_ep_divisible(const RuleContext& ctx, Finding* out) {
  const Layout& l = ctx.layout;
  const int64_t expert_mp = static_cast<int64_t>(l.etp) * l.ep * l.pp;
  if (ctx.world <= 0 || expert_mp <= 0 || ctx.world % expert_mp == 0) return false;
  if (ctx.model_parallel > 0 && ctx.world % ctx.model_parallel != 0) return false;  // RB-WORLD-DIVISIBLE
  if (out == nullptr) return true;
  const int64_t dense = static_cast<int64_t>(l.tp) * l.cp * ctx.dp;  // TP CP DP
  std::vector<int> eps;
  for (int e : divisors(dense / (l.etp > 0 && dense % l.etp == 0 ? l.etp : 1)))
    if (ep_divides_experts(ctx.pm, e)) eps.push_back(e);
  return report(out,
                "EP " + str(l.ep) + " x ETP " + str(l.etp) + " x PP " + str(l.pp) + " = " + str(expert_mp) +
                    " does not divide " + str(ctx.world) + " GPUs (the smallest GPU count for this layout is PP x " +
                    "lcm(TP x CP, EP x ETP) = " + str(min_gpus(l)) + ")",
                "use EP in " + join_set(eps) + " (EP x ETP must divide TP x CP x DP = " + str(dense) + ")",
                "layout.ep");
}

// MCore transformer_config.py: a bias in MoE experts requires expert_tensor_parallel_size == 1.
bool check_moe_bias_etp(const RuleContext& ctx, Finding* out) {
  if (ctx.pm.experts <= 0 || !ctx.model().moe.expert_bias || ctx.layout.etp <= 1) return false;
  if (out == nullptr) return true;
  return report(out, ctx.model().name + " has expert biases, which need ETP 1; ETP is " + str(ctx.layout.etp),
                "set ETP 1", "layout.etp");
}

// Bridge flex_dispatcher_backend.py: DeepEP only on sm80/sm90 and devices named B200/B300 (GB200
// and GB300 fall back to alltoall with only a warning); HybridEP on sm80/90/100.
bool check_dispatcher_gpu(const RuleContext& ctx, Finding* out) {
  const Dispatcher d = ctx.layout.dispatcher;
  if (ctx.pm.experts <= 0 || ctx.hardware() == nullptr) return false;
  if (d != Dispatcher::kFlexDeepep && d != Dispatcher::kFlexHybridep) return false;
  const GpuArch a = ctx.pm.arch;
  bool bad = false;
  if (d == Dispatcher::kFlexDeepep)
    bad = a == GpuArch::kGraceBlackwell || a == GpuArch::kAmd || a == GpuArch::kTpu;
  else
    bad = a == GpuArch::kAmd || a == GpuArch::kTpu;
  if (!bad) return false;
  if (out == nullptr) return true;
  const std::string gpu = ctx.hardware()->name;
  if (d == Dispatcher::kFlexDeepep && a == GpuArch::kGraceBlackwell)
    return report(out,
                  "DeepEP is not supported on " + gpu +
                      ": Megatron-Bridge falls back to the alltoall dispatcher with only a warning",
                  "use the flex dispatcher with HybridEP (moe_flex_dispatcher_backend: hybridep)",
                  "features.flex_backend", "layout.dispatcher");
  return report(out,
                std::string(d == Dispatcher::kFlexDeepep ? "DeepEP" : "HybridEP") + " needs an NVIDIA GPU (sm80/90/100); " +
                    gpu + " is " + std::string(gpu_arch_name(a)),
                "use the alltoall dispatcher", "features.flex_backend", "layout.dispatcher");
}

// MCore transformer_config.py + Bridge comm_overlap.py: overlap_moe_expert_parallel_comm needs
// EP > 1, alltoall/flex dispatch, VP when PP > 1, no full recompute and no moe recompute, no
// shared-expert overlap, MTP <= 1 layer; with it, TE graphs may not include moe or mlp.
bool check_ep_a2a_overlap(const RuleContext& ctx, Finding* out) {
  const Layout& l = ctx.layout;
  if (!l.ep_a2a_overlap) return false;
  const bool ep = l.ep > 1;
  const bool disp = l.dispatcher != Dispatcher::kAllgather;
  const bool vp = l.pp <= 1 || l.vp > 1;
  const bool full = l.recompute != Recompute::kFull;
  const bool moe_rc = !has_bits(ctx.recompute_modules(), kRcMoe);
  const bool shared = !setting_bool(ctx.facts, "moe_shared_expert_overlap").value_or(false);
  const bool mtp = ctx.mtp_layers() <= 1;
  const bool graph = l.cuda_graph != CudaGraph::kTransformerEngine || !has_bits(l.cuda_graph_scope, kCgMoe | kCgMlp);
  if (ep && disp && vp && full && moe_rc && shared && mtp && graph) return false;
  if (out == nullptr) return true;
  std::vector<std::string> why;
  if (!ep) why.push_back("EP > 1 (EP is " + str(l.ep) + ")");
  if (!disp) why.push_back("the alltoall or flex dispatcher (not allgather)");
  if (!vp) why.push_back("VP > 1 when PP > 1 (PP " + str(l.pp) + ", VP 1)");
  if (!full) why.push_back("no full recompute");
  if (!moe_rc) why.push_back("no moe in recompute_modules");
  if (!shared) why.push_back("moe_shared_expert_overlap off");
  if (!mtp) why.push_back("at most 1 MTP layer (" + str(ctx.mtp_layers()) + ")");
  if (!graph) why.push_back("no moe or mlp in the transformer_engine CUDA-graph scope");
  return report(out, "EP all-to-all overlap needs " + join_words(why, "; "),
                "meet those requirements or set ep_a2a_overlap: false", "features.ep_a2a_overlap");
}

// MCore transformer_config.py: delay_wgrad_compute requires overlap_moe_expert_parallel_comm.
bool check_delay_wgrad(const RuleContext& ctx, Finding* out) {
  if (!setting_bool(ctx.facts, "delay_wgrad_compute").value_or(false) || ctx.layout.ep_a2a_overlap) return false;
  if (out == nullptr) return true;
  return report(out, "delay_wgrad_compute is set without EP all-to-all overlap",
                "set ep_a2a_overlap: true, or drop delay_wgrad_compute", "features.settings.delay_wgrad_compute");
}

// MCore transformer_config.py: moe_shared_expert_overlap only with the alltoall or flex dispatcher.
bool check_shared_expert_overlap(const RuleContext& ctx, Finding* out) {
  if (!setting_bool(ctx.facts, "moe_shared_expert_overlap").value_or(false)) return false;
  if (ctx.layout.dispatcher != Dispatcher::kAllgather) return false;
  if (out == nullptr) return true;
  return report(out, "moe_shared_expert_overlap works only with the alltoall or flex dispatcher, not allgather",
                "use the alltoall dispatcher or turn the overlap off", "features.settings.moe_shared_expert_overlap",
                "layout.dispatcher");
}

// MCore: the allgather token dispatcher cannot be used with variable sequence lengths.
bool check_allgather_varlen(const RuleContext& ctx, Finding* out) {
  if (ctx.pm.experts <= 0 || ctx.layout.dispatcher != Dispatcher::kAllgather) return false;
  if (!setting_bool(ctx.facts, "variable_seq_lengths").value_or(false)) return false;
  if (out == nullptr) return true;
  return report(out, "the allgather dispatcher cannot handle variable sequence lengths",
                "use the alltoall dispatcher", "layout.dispatcher", "features.settings.variable_seq_lengths");
}

// MCore transformer_config.py: moe_router_padding_for_quantization needs fp8/fp4 and not allgather.
bool check_moe_router_padding(const RuleContext& ctx, Finding* out) {
  if (!setting_bool(ctx.facts, "moe_router_padding_for_quantization").value_or(false)) return false;
  const bool low = ctx.layout.precision != Precision::kBf16;
  const bool disp = ctx.layout.dispatcher != Dispatcher::kAllgather;
  if (low && disp) return false;
  if (out == nullptr) return true;
  return report(out,
                std::string("moe_router_padding_for_quantization needs ") +
                    (!low ? "an FP8 or FP4 precision (precision is bf16)" : "a dispatcher other than allgather"),
                "drop moe_router_padding_for_quantization", "features.settings.moe_router_padding_for_quantization");
}

}  // namespace rb
