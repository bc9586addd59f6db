// Seed 004's resizing rules and pitfall table as warnings: the framework accepts the layout but it
// runs badly (or was only tested elsewhere).
#include "recipebook/rules/check_util.hpp"
#include "recipebook/rules/checks.hpp"
#include "recipebook/rules/pipeline_split.hpp"

namespace rb {

// Seed 004 rule 1 / pitfall "TP > num_kv_heads": TP beyond the KV heads replicates them (accepted
// by current Megatron-Core when TP % groups == 0; older code crashed). Silent when TP is invalid
// anyway (an error rule reports it).
bool check_tp_kv_replicated(const RuleContext& ctx, Finding* out) {
  const int tp = ctx.layout.tp;
  const int kv = ctx.pm.kv_heads;
  if (ctx.pm.attention_layers == 0 || kv <= 0 || tp <= kv || !tp_valid(ctx.pm, tp)) return false;
  if (out == nullptr) return true;
  std::vector<int> ok;
  for (int t : tp_candidates(ctx.pm, kv)) ok.push_back(t);
  return report(out,
                "TP " + str(tp) + " exceeds the " + str(kv) + " KV heads: each KV head is replicated on " +
                    str(tp / kv) + " TP ranks (extra KV memory and compute; older Megatron crashes with \"TP must "
                    "divide num_query_groups\")",
                "reduce TP to a divisor of num_kv_heads: " + join_set(ok), "layout.tp");
}

// Seed 004 rule 2: TP should stay within one NVLink domain (8 on HGX nodes, 72 on NVL72).
bool check_tp_cross_node(const RuleContext& ctx, Finding* out) {
  const int domain = ctx.nvlink_domain();
  const int tp = ctx.layout.tp;
  if (domain <= 0 || tp <= domain) return false;
  if (out == nullptr) return true;
  const std::string gpu = ctx.hardware() != nullptr ? ctx.hardware()->name : std::string("this cluster");
  return report(out,
                "TP " + str(tp) + " spans beyond the NVLink domain of " + str(domain) + " GPUs on " + gpu +
                    ": its collectives on every layer cross the scale-out network",
                "use TP <= " + str(domain) + " (add PP or EP instead)", "layout.tp");
}

// Seed 004 rule 5: SP whenever TP > 1 (removes redundant activation copies, essentially free).
bool check_sp_recommended(const RuleContext& ctx, Finding* out) {
  // MoE: RB-SP-REQUIRED; with tp_comm_overlap: RB-TP-COMM-OVERLAP says it more precisely.
  if (ctx.layout.tp <= 1 || ctx.layout.sp || ctx.pm.moe_layers > 0 || ctx.layout.tp_comm_overlap) return false;
  if (out == nullptr) return true;
  return report(out,
                "TP " + str(ctx.layout.tp) + " without sequence parallelism keeps a full copy of the norm and "
                                             "dropout activations on every TP rank",
                "set sequence_parallel: true", "layout.sequence_parallel", "layout.tp");
}

// Bridge comm_overlap.py turns tp_comm_overlap off when SP is off (MLM asserts). With TP 1 there
// is no TP communication to overlap, so the flag is moot and not reported; for MoE models
// RB-SP-REQUIRED reports the missing SP as an error.
bool check_tp_comm_overlap(const RuleContext& ctx, Finding* out) {
  const Layout& l = ctx.layout;
  if (!l.tp_comm_overlap || l.tp < 2 || l.sp || ctx.pm.moe_layers > 0) return false;
  if (out == nullptr) return true;
  return report(out,
                "TP communication overlap with TP " + str(l.tp) +
                    " needs sequence parallelism; Megatron-Bridge silently turns the overlap off",
                "set sequence_parallel: true", "features.tp_comm_overlap", "layout.sequence_parallel");
}

// Seed 004 rule 3 / pitfall "PP without VP": the 1F1B bubble is (PP-1)/M of the step; VP divides
// it by VP. Only when a VP is possible (a divisor of the stage layers, and M a multiple of PP).
bool check_pp_no_vp(const RuleContext& ctx, Finding* out) {
  const Layout& l = ctx.layout;
  if (l.pp <= 1 || l.vp > 1) return false;
  const PipelineSplit s = pipeline_split(ctx);
  if (!s.known || !s.ok) return false;
  const int64_t g = gcd64(gcd64(s.first, s.last), s.per_stage);
  if (g < 2) return false;
  const int64_t m = ctx.microbatches;
  if (m > 0 && (m < l.pp || m % l.pp != 0)) return false;
  if (out == nullptr) return true;
  std::vector<int> vps;
  for (int v : divisors(g))
    if (v > 1) vps.push_back(v);
  std::string bubble = m > 0 ? "(PP-1)/M = " + str(l.pp - 1) + "/" + str(m) + " = " +
                                   percent(static_cast<double>(l.pp - 1) / static_cast<double>(m)) + " of the step"
                             : str(l.pp - 1) + " micro-batch times per step";
  return report(out, "PP " + str(l.pp) + " without virtual pipeline stages: the pipeline bubble is " + bubble,
                "set VP in " + join_set(vps) + " (the bubble shrinks by the factor VP)", "layout.vpp", "layout.pp");
}

// Seed 004 decision tree / pitfall "Long context without CP": > 8K tokens needs CP.
bool check_long_context_no_cp(const RuleContext& ctx, Finding* out) {
  constexpr int64_t kLongContext = 8192;
  if (ctx.workload.seq <= kLongContext || ctx.layout.cp > 1) return false;
  if (out == nullptr) return true;
  std::vector<int> cps;
  for (int c : cp_candidates(ctx.pm, ctx.workload.seq, ctx.layout.tp, ctx.layout.sp, 8))
    if (c > 1) cps.push_back(c);
  return report(out,
                "sequence length " + str(ctx.workload.seq) +
                    " (> 8K) without context parallelism: activations grow with the sequence and can run out of memory",
                "add CP in " + join_set(cps) + ", or start from a *_16k / *_64k / *_128k recipe", "layout.cp",
                "workload.row_tokens");
}

namespace {

// Bytes per GPU of routed-expert weights, gradients and optimizer state at a given EP, as the memory
// estimate counts them (estimate/memory.cpp): 2 (bf16 weight) + the main gradient (2, or 4 with
// grad_reduce_in_fp32: gradient_bytes) + 12 / expert-DP (Adam with the distributed optimizer; 6 with
// the precision-aware optimizer: bf16 moments, bf16 + remainder masters); FSDP shards them all;
// PEFT keeps the frozen bf16 weights only. It used 4 B gradients whatever the layout, and so warned
// of more expert state than the estimate's whole weights, gradients and optimizer.
double expert_bytes_per_gpu(const RuleContext& ctx, int ep) {
  const Layout& l = ctx.layout;
  const int64_t shard = static_cast<int64_t>(ep) * l.etp * l.pp;
  if (shard <= 0) return 0;
  const int64_t edp = ctx.world > 0 && ctx.world % shard == 0 ? ctx.world / shard : 1;
  const double params = ctx.pm.expert_params / static_cast<double>(shard);
  if (ctx.workload.mode == Mode::kPeft) return params * 2.0;
  const double opt = l.precision_aware_optimizer ? 6.0 : 12.0;
  const double held = 2.0 + gradient_bytes(l);
  if (l.fsdp) return params * (held + opt) / static_cast<double>(edp);
  return params * (held + (l.distributed_optimizer ? opt / static_cast<double>(edp) : opt));
}

}  // namespace

// Seed 004 rule 4 / pitfall "EP too low for large MoE": warn when expert state alone takes more
// than 3/4 of the GPU memory (the rest must hold dense weights, activations and buffers).
bool check_ep_too_low(const RuleContext& ctx, Finding* out) {
  constexpr double kShare = 0.75;
  const Hardware* hw = ctx.hardware();
  if (hw == nullptr || hw->memory_bytes <= 0 || ctx.pm.expert_params <= 0) return false;
  const int64_t shard = static_cast<int64_t>(ctx.layout.ep) * ctx.layout.etp * ctx.layout.pp;
  if (shard <= 0 || (ctx.world > 0 && ctx.world % shard != 0)) return false;  // RB-EP-DIVISIBLE
  const double bytes = expert_bytes_per_gpu(ctx, ctx.layout.ep);
  if (bytes <= kShare * hw->memory_bytes) return false;
  if (out == nullptr) return true;
  std::string fix;
  for (int ep : ep_candidates(ctx.pm, ctx.world > 0 ? static_cast<int>(ctx.world) : 1024)) {
    const int64_t s = static_cast<int64_t>(ep) * ctx.layout.etp * ctx.layout.pp;
    if (ep <= ctx.layout.ep || (ctx.world > 0 && ctx.world % s != 0)) continue;
    const double b = expert_bytes_per_gpu(ctx, ep);
    if (b <= kShare * hw->memory_bytes) {
      fix = "raise EP to " + str(ep) + " (" + format_bytes(b) + " of expert state per GPU)";
      break;
    }
  }
  if (fix.empty()) fix = "add GPUs (or PP): no EP on " + str(ctx.world) + " GPUs brings the expert state under " +
                         percent(kShare) + " of memory";
  return report(out,
                "expert weights, gradients and optimizer state take " + format_bytes(bytes) + " per GPU at EP " +
                    str(ctx.layout.ep) + " (" + percent(bytes / hw->memory_bytes) + " of " +
                    format_bytes(hw->memory_bytes) + " on " + hw->name + ")",
                fix, "layout.ep");
}

// Seed 004 pitfall "FSDP + TP > 1 on H100": prefer TP 1 or 2 with FSDP on Hopper.
bool check_fsdp_tp_h100(const RuleContext& ctx, Finding* out) {
  if (!ctx.layout.fsdp || ctx.layout.tp <= 2 || ctx.pm.arch != GpuArch::kHopper) return false;
  if (out == nullptr) return true;
  return report(out,
                "FSDP with TP " + str(ctx.layout.tp) + " on " + ctx.hardware()->name +
                    ": FSDP all-gathers and TP collectives compete for the links (FSDP shines on B/GB-series)",
                "prefer FSDP with TP 1 or 2 on H100/H200", "layout.tp", "features.fsdp");
}

// Seed 004 pitfall "MoE overlap_grad_reduce on H100" (False in many H100 presets).
bool check_moe_overlap_grad_h100(const RuleContext& ctx, Finding* out) {
  if (ctx.pm.moe_layers == 0 || ctx.pm.arch != GpuArch::kHopper) return false;
  if (!setting_bool(ctx.facts, "overlap_grad_reduce").value_or(false)) return false;
  if (out == nullptr) return true;
  return report(out, "MoE with overlap_grad_reduce on " + ctx.hardware()->name + " may hurt throughput",
                "set ddp.overlap_grad_reduce: false", "features.settings.overlap_grad_reduce");
}

// Seed 004 pitfall "Qwen35-VL MoE FSDP": tested on Blackwell only.
bool check_qwen35_vl_fsdp_h100(const RuleContext& ctx, Finding* out) {
  const GpuArch a = ctx.pm.arch;
  if (!ctx.layout.fsdp || !ctx.pm.qwen35_moe || a == GpuArch::kUnknown || is_blackwell_family(a)) return false;
  if (out == nullptr) return true;
  return report(out,
                "Qwen3.5-VL MoE with FSDP was tested on Blackwell only; " + ctx.hardware()->name + " is " +
                    std::string(gpu_arch_name(a)),
                "validate on this GPU first (a short run with a loss check), or run on B200/B300/GB200/GB300",
                "features.fsdp", "gpu.type");
}

}  // namespace rb
