// Recompute, offload, precision, FSDP and context-parallel settings (REFERENCES.md C.11, C.16-C.18).
#include <cstdlib>

#include "recipebook/rules/check_util.hpp"
#include "recipebook/rules/checks.hpp"

namespace rb {

// MCore transformer_config.py: mla_up_proj needs MLA, moe_act needs MoE (grouped GEMM),
// gdn_norm_out needs GDN; moe and shared_experts recompute need MoE layers (shared experts).
bool check_recompute_module(const RuleContext& ctx, Finding* out) {
  const uint32_t m = ctx.recompute_modules();
  if (m == 0) return false;
  const PreparedRuleModel& pm = ctx.pm;
  const bool grouped_off = setting_bool(ctx.facts, "moe_grouped_gemm") == std::optional<bool>(false);
  uint32_t bad = 0;
  if (has_bits(m, kRcMlaUpProj) && pm.mla_layers == 0) bad |= kRcMlaUpProj;
  if (has_bits(m, kRcMoeAct) && (pm.moe_layers == 0 || grouped_off)) bad |= kRcMoeAct;
  if (has_bits(m, kRcMoe) && pm.moe_layers == 0) bad |= kRcMoe;
  if (has_bits(m, kRcSharedExperts) && (pm.moe_layers == 0 || ctx.model().moe.shared_experts == 0))
    bad |= kRcSharedExperts;
  if (has_bits(m, kRcGdnNormOut) && pm.gdn_layers == 0) bad |= kRcGdnNormOut;
  if (bad == 0) return false;
  if (out == nullptr) return true;
  std::vector<std::string> why;
  if (has_bits(bad, kRcMlaUpProj)) why.push_back("mla_up_proj needs MLA attention");
  if (has_bits(bad, kRcMoeAct))
    why.push_back(pm.moe_layers == 0 ? "moe_act needs MoE layers" : "moe_act needs moe_grouped_gemm");
  if (has_bits(bad, kRcMoe)) why.push_back("moe needs MoE layers");
  if (has_bits(bad, kRcSharedExperts)) why.push_back("shared_experts needs shared experts");
  if (has_bits(bad, kRcGdnNormOut)) why.push_back("gdn_norm_out needs Gated DeltaNet layers");
  return report(out, "recompute modules [" + recompute_modules_str(bad) + "] do not apply to " + ctx.model().name +
                         ": " + join_words(why, "; "),
                "keep recompute modules in [" + recompute_modules_str(m & ~bad) + "]", "features.recompute_modules");
}

// MCore transformer_config.py: full recompute needs recompute_num_layers in [1, layers / PP].
bool check_recompute_layers(const RuleContext& ctx, Finding* out) {
  const Layout& l = ctx.layout;
  if (l.recompute != Recompute::kFull || ctx.pm.layers <= 0 || l.pp <= 0) return false;
  const int per_stage = ctx.pm.layers / l.pp;
  if (l.recompute_layers >= 1 && l.recompute_layers <= per_stage) return false;
  if (out == nullptr) return true;
  return report(out,
                "full recompute num_layers " + str(l.recompute_layers) + " is outside [1, " + str(per_stage) +
                    "] (layers per pipeline stage)",
                "set num_layers between 1 and " + str(per_stage), "layout.recompute.num_layers",
                "layout.recompute");
}

// MCore transformer_config.py: fp8 delayed scaling rejects moe_act and layernorm recompute.
bool check_recompute_fp8_ds(const RuleContext& ctx, Finding* out) {
  if (ctx.layout.precision != Precision::kFp8Ds) return false;
  const uint32_t bad = ctx.recompute_modules() & (kRcMoeAct | kRcLayernorm);
  if (bad == 0) return false;
  if (out == nullptr) return true;
  return report(out, "FP8 delayed scaling cannot recompute [" + recompute_modules_str(bad) + "]",
                "use FP8 current scaling (fp8_cs), or drop those recompute modules", "features.recompute_modules",
                "workload.precision");
}

// MCore transformer_config.py: no pipeline parallelism with CPU offloading.
bool check_offload_pp(const RuleContext& ctx, Finding* out) {
  if (ctx.layout.cpu_offload_layers <= 0 || ctx.layout.pp <= 1) return false;
  if (out == nullptr) return true;
  return report(out,
                "CPU activation offloading (" + str(ctx.layout.cpu_offload_layers) + " layers) with PP " +
                    str(ctx.layout.pp) + ": Megatron has no pipeline support for CPU offloading",
                "set PP 1, or turn offloading off", "features.cpu_offload_layers", "layout.pp");
}

// Megatron-LM arguments.py ("Emerging optimizer does not support Megatron-FSDP for now") and Bridge
// training/config.py (Megatron-FSDP v2 refuses the layer-wise distributed optimizer).
bool check_muon_fsdp(const RuleContext& ctx, Finding* out) {
  if (ctx.layout.optimizer != Optimizer::kMuon || !ctx.layout.fsdp) return false;
  if (out == nullptr) return true;
  return report(out, "Muon with Megatron-FSDP: Megatron's emerging optimizers do not support FSDP",
                "use DDP with the (layer-wise) distributed optimizer, or the adam optimizer", "features.optimizer",
                "features.fsdp");
}

// MCore transformer_config.py: CPU offloading and activation recompute are exclusive.
bool check_offload_recompute(const RuleContext& ctx, Finding* out) {
  if (ctx.layout.cpu_offload_layers <= 0 || ctx.layout.recompute == Recompute::kNone) return false;
  if (out == nullptr) return true;
  return report(out,
                "CPU activation offloading with " + std::string(recompute_name(ctx.layout.recompute)) + " recompute",
                "use either offloading or recompute", "features.cpu_offload_layers", "layout.recompute.granularity");
}

// MCore transformer_config.py: cpu_offloading_num_layers in [0, num_layers).
bool check_offload_layers(const RuleContext& ctx, Finding* out) {
  if (ctx.pm.layers <= 0 || ctx.layout.cpu_offload_layers < ctx.pm.layers) return false;
  if (out == nullptr) return true;
  return report(out,
                "cpu_offload_layers " + str(ctx.layout.cpu_offload_layers) + " is not below the " +
                    str(ctx.pm.layers) + " layers",
                "offload at most " + str(ctx.pm.layers - 1) + " layers", "features.cpu_offload_layers");
}

// MCore transformer_config.py: distribute_saved_activations cannot be combined with SP.
bool check_distribute_saved_sp(const RuleContext& ctx, Finding* out) {
  if (!ctx.layout.sp || !setting_bool(ctx.facts, "distribute_saved_activations").value_or(false)) return false;
  if (out == nullptr) return true;
  return report(out, "distribute_saved_activations cannot be combined with sequence parallelism",
                "drop distribute_saved_activations (SP already shards the saved activations)",
                "features.settings.distribute_saved_activations", "layout.sequence_parallel");
}

// MCore transformer_config.py / Bridge config.py: fine-grained activation offloading, as a record's
// settings give it or as the layout sets it (Layout::offload_modules).
bool check_fine_grained_offload(const RuleContext& ctx, Finding* out) {
  const Layout& l = ctx.layout;
  if (l.offload_modules == 0 && !setting_bool(ctx.facts, "fine_grained_activation_offloading").value_or(false))
    return false;
  const bool cpu = l.cpu_offload_layers > 0;
  bool attn_proj = has_bits(l.offload_modules, kOfAttnProj);
  bool core_attn = has_bits(l.offload_modules, kOfCoreAttn);
  bool experts = has_bits(l.offload_modules, kOfExpertFc1 | kOfMoeAct);
  for (const auto& m : setting_list(ctx.facts, "offload_modules")) {
    attn_proj = attn_proj || m == "attn_proj";
    core_attn = core_attn || m == "core_attn";
    experts = experts || m == "expert_fc1" || m == "moe_act" || m == "fused_group_mlp";
  }
  const bool proj = attn_proj && !core_attn;
  // "Cannot offload {moe_act, expert_fc1, fused_group_mlp} while recomputing the entire MoE layer".
  const bool moe = experts && has_bits(ctx.recompute_modules(), kRcMoe);
  const bool local = l.cuda_graph == CudaGraph::kLocal;
  if (!cpu && !proj && !moe && !local) return false;
  if (out == nullptr) return true;
  std::vector<std::string> why;
  if (cpu) why.push_back("it excludes CPU offloading (cpu_offload_layers " + str(l.cpu_offload_layers) + ")");
  if (proj) why.push_back("offloading attn_proj needs core_attn offloaded too");
  if (moe) why.push_back("expert modules cannot be offloaded while 'moe' is recomputed");
  if (local) why.push_back("with CUDA graphs it needs the transformer_engine or full_iteration impl, not local");
  return report(out, "fine-grained activation offloading: " + join_words(why, "; "), "adjust the settings as listed",
                "features.fine_grained_offload", "features.settings.fine_grained_activation_offloading");
}

// Transformer Engine precision support by GPU generation (Bridge mixed_precision.py recipes). The
// GEMM modules a layout runs in MXFP8 inside its FP8/FP4 layers (mxfp8_modules, Megatron-Core's
// quant_recipe) need MXFP8 like an MXFP8 recipe does.
bool check_fp8_gpu(const RuleContext& ctx, Finding* out) {
  const Hardware* hw = ctx.hardware();
  const Precision recipe = ctx.layout.precision;
  if (hw == nullptr || recipe == Precision::kBf16) return false;
  const bool mx_modules = ctx.layout.mxfp8_modules != 0 && recipe != Precision::kMxfp8 && recipe != Precision::kNvfp4;
  // The most demanding precision the GEMMs run: the modules' MXFP8 needs what an MXFP8 recipe needs.
  const Precision p = mx_modules ? Precision::kMxfp8 : recipe;
  const GpuArch a = ctx.pm.arch;
  bool ok = true;
  const char* need = nullptr;
  if (p == Precision::kMxfp8 || p == Precision::kNvfp4) {
    need = "Blackwell (B200, B300, GB200, GB300)";
    ok = a == GpuArch::kUnknown ? (p == Precision::kNvfp4 ? hw->fp4_flops_per_s > 0 : hw->fp8_flops_per_s > 0)
                                : (is_blackwell_family(a) || a == GpuArch::kRubin);
  } else {
    need = "Hopper or newer (H100, H200, B*, GB*) or MI300X";
    ok = a == GpuArch::kUnknown ? hw->fp8_flops_per_s > 0 : (a != GpuArch::kAmpere && a != GpuArch::kTpu);
  }
  if (ok) return false;
  if (out == nullptr) return true;
  if (mx_modules)
    return report(out,
                  "mxfp8_modules [" + gemm_modules_str(ctx.layout.mxfp8_modules) + "] run in MXFP8, which needs " +
                      std::string(need) + "; " + hw->name + " is " + std::string(gpu_arch_name(a)),
                  "drop mxfp8_modules (those GEMMs then run in " + std::string(precision_name(recipe)) + ")",
                  "features.mxfp8_modules");
  return report(out,
                std::string(precision_name(p)) + " needs " + std::string(need) + "; " + hw->name + " is " +
                    std::string(gpu_arch_name(a)),
                is_fp8(p) && p != Precision::kMxfp8 ? "use bf16 on this GPU"
                                                    : "use bf16, or fp8_cs where the GPU supports FP8",
                "workload.precision");
}

// MCore transformer_config.py: delayed scaling does not support BF16 first/last layers, and the
// BF16 start/end layer counts must fit in a pipeline stage.
bool check_fp8_bf16_layers(const RuleContext& ctx, Finding* out) {
  const bool ds_first_last = ctx.layout.precision == Precision::kFp8Ds &&
                             setting_bool(ctx.facts, "first_last_layers_bf16").value_or(false);
  const int per_stage = ctx.pm.layers > 0 && ctx.layout.pp > 0 ? ctx.pm.layers / ctx.layout.pp : 0;
  const int64_t start = setting_int(ctx.facts, "num_layers_at_start_in_bf16").value_or(0);
  const int64_t end = setting_int(ctx.facts, "num_layers_at_end_in_bf16").value_or(0);
  const bool too_many = per_stage > 0 && (start > per_stage || end > per_stage);
  if (!ds_first_last && !too_many) return false;
  if (out == nullptr) return true;
  if (ds_first_last)
    return report(out, "FP8 delayed scaling does not support BF16 first/last layers",
                  "drop first_last_layers_bf16, or use FP8 current scaling",
                  "features.settings.first_last_layers_bf16", "workload.precision");
  return report(out,
                "BF16 layer counts (start " + str(start) + ", end " + str(end) + ") exceed the " + str(per_stage) +
                    " layers of a pipeline stage",
                "keep num_layers_at_start/end_in_bf16 at most " + str(per_stage),
                start > per_stage ? "features.settings.num_layers_at_start_in_bf16"
                                  : "features.settings.num_layers_at_end_in_bf16");
}

// MCore transformer_config.py: fp8_param needs fp8 (fp4_param needs fp4).
bool check_fp8_param(const RuleContext& ctx, Finding* out) {
  const bool fp8_param = setting_bool(ctx.facts, "fp8_param_gather").value_or(false) ||
                         setting_bool(ctx.facts, "fp8_param").value_or(false);
  if (!fp8_param || is_fp8(ctx.layout.precision)) return false;
  if (out == nullptr) return true;
  return report(out,
                "FP8 parameters are requested with precision " + std::string(precision_name(ctx.layout.precision)),
                "use an FP8 precision recipe, or drop fp8_param_gather", "features.fp8_param_gather",
                setting(ctx.facts, "fp8_param") != nullptr ? "features.settings.fp8_param"
                                                           : "features.settings.fp8_param_gather");
}

// Bridge config.py: MXFP8 with fp8_param_gather and no FSDP needs reuse_grad_buf_for_mxfp8_param_ag.
bool check_mxfp8_param_gather(const RuleContext& ctx, Finding* out) {
  if (ctx.layout.precision != Precision::kMxfp8 || ctx.layout.fsdp) return false;
  if (!setting_bool(ctx.facts, "fp8_param_gather").value_or(true)) return false;  // on in bf16_with_mxfp8_mixed
  if (setting_bool(ctx.facts, "reuse_grad_buf_for_mxfp8_param_ag") != std::optional<bool>(false)) return false;
  if (out == nullptr) return true;
  return report(out, "MXFP8 parameter all-gather without FSDP needs reuse_grad_buf_for_mxfp8_param_ag",
                "set reuse_grad_buf_for_mxfp8_param_ag: true",
                "features.settings.reuse_grad_buf_for_mxfp8_param_ag");
}

// Bridge config.py: Megatron-FSDP v2 is BF16 only, no MoE, no VP, no CUDA graphs, no
// precision-aware optimizer, no gradient clipping.
bool check_fsdp_v2(const RuleContext& ctx, Finding* out) {
  const Layout& l = ctx.layout;
  if (!l.fsdp || ctx.facts.fsdp_version != 2) return false;
  const bool prec = l.precision != Precision::kBf16;
  const bool moe = ctx.pm.moe_layers > 0;
  const bool vp = l.vp > 1;
  const bool graphs = l.cuda_graph != CudaGraph::kNone;
  const bool pao = l.precision_aware_optimizer;
  const auto clip = setting(ctx.facts, "clip_grad");
  const bool clipping = clip != nullptr && *clip != "0" && *clip != "0.0";
  if (!prec && !moe && !vp && !graphs && !pao && !clipping) return false;
  if (out == nullptr) return true;
  std::vector<std::string> why;
  if (prec) why.push_back("precision " + std::string(precision_name(l.precision)) + " (BF16 only)");
  if (moe) why.push_back("MoE layers");
  if (vp) why.push_back("VP " + str(l.vp) + " (multiple model chunks)");
  if (graphs) why.push_back("CUDA graphs");
  if (pao) why.push_back("the precision-aware optimizer");
  if (clipping) why.push_back("gradient clipping");
  return report(out, "Megatron-FSDP v2 does not support " + join_words(why, ", "),
                "use Megatron-FSDP v1 (features.fsdp_version: 1) or remove those features",
                "features.fsdp_version", "features.fsdp");
}

// Bridge config.py: Megatron-FSDP and torch FSDP2 are mutually exclusive.
bool check_fsdp_exclusive(const RuleContext& ctx, Finding* out) {
  if (!ctx.layout.fsdp || !setting_bool(ctx.facts, "use_torch_fsdp2").value_or(false)) return false;
  if (out == nullptr) return true;
  return report(out, "Megatron-FSDP and torch FSDP2 are both enabled", "enable only one of them",
                "features.settings.use_torch_fsdp2", "features.fsdp");
}

// Bridge config.py: Megatron-FSDP (v1) needs CUDA_DEVICE_MAX_CONNECTIONS != 1.
bool check_fsdp_connections(const RuleContext& ctx, Finding* out) {
  if (!ctx.layout.fsdp || ctx.facts.fsdp_version == 2) return false;
  const std::string* v = find_value(ctx.facts.env, "CUDA_DEVICE_MAX_CONNECTIONS");
  if (v == nullptr || *v != "1") return false;
  if (out == nullptr) return true;
  return report(out, "Megatron-FSDP cannot run with CUDA_DEVICE_MAX_CONNECTIONS=1",
                "unset CUDA_DEVICE_MAX_CONNECTIONS or set it above 1 (e.g. 8)", "env.CUDA_DEVICE_MAX_CONNECTIONS");
}

// Bridge config.py _validate_cp_comm_type, MCore parallel_state.py.
bool check_cp_comm_type(const RuleContext& ctx, Finding* out) {
  const std::vector<std::string> types = setting_list(ctx.facts, "cp_comm_type");
  if (types.empty() || ctx.layout.cp <= 1) return false;
  std::string bad;
  for (const auto& t : types)
    if (t != "p2p" && t != "a2a" && t != "allgather" && t != "a2a+p2p") bad = t;
  const bool list = types.size() > 1;
  const bool list_len = list && ctx.pm.layers > 0 && static_cast<int>(types.size()) != ctx.pm.layers;
  bool hier = false;
  int64_t product = 1;
  if (!list && types[0] == "a2a+p2p") {
    const auto sizes = setting_list(ctx.facts, "hierarchical_context_parallel_sizes");
    for (const auto& s : sizes) product *= std::atoll(s.c_str());
    hier = sizes.empty() || product != ctx.layout.cp;
  }
  if (bad.empty() && !list_len && !hier) return false;
  if (out == nullptr) return true;
  if (!bad.empty())
    return report(out, "cp_comm_type " + bad + " is not one of p2p, a2a, allgather, a2a+p2p",
                  "use p2p, a2a, allgather or a2a+p2p", "features.settings.cp_comm_type");
  if (list_len)
    return report(out,
                  "cp_comm_type lists " + str(static_cast<int64_t>(types.size())) + " entries for " +
                      str(ctx.pm.layers) + " layers",
                  "give one entry per layer, or a single value", "features.settings.cp_comm_type");
  return report(out,
                "cp_comm_type a2a+p2p needs hierarchical_context_parallel_sizes whose product is CP " +
                    str(ctx.layout.cp) + (product != 1 ? " (product is " + str(product) + ")" : ""),
                "set hierarchical_context_parallel_sizes, e.g. [2, " + str(ctx.layout.cp / 2 > 0 ? ctx.layout.cp / 2 : 1) +
                    "]",
                "features.settings.hierarchical_context_parallel_sizes", "features.settings.cp_comm_type");
}

// Ulysses-style a2a CP scatters heads over the CP ranks: heads and KV heads per TP rank must divide
// by CP (inferred from Transformer Engine; seed 004 rule 6: a2a+p2p allows CP > num_kv_heads).
bool check_cp_a2a_heads(const RuleContext& ctx, Finding* out) {
  const int cp = ctx.layout.cp;
  const int tp = ctx.layout.tp;
  if (cp <= 1 || ctx.layout.cp_comm != CpComm::kA2a || ctx.pm.heads <= 0 || tp <= 0) return false;
  const int heads = ctx.pm.heads / tp;
  const int kv = ctx.pm.attention_layers > 0 ? (ctx.pm.kv_heads >= tp ? ctx.pm.kv_heads / tp : 1) : heads;
  if (heads % cp == 0 && kv % cp == 0) return false;
  if (out == nullptr) return true;
  return report(out,
                "a2a context parallelism scatters heads over CP " + str(cp) + ", but each TP rank has " + str(heads) +
                    " heads and " + str(kv) + " KV heads",
                "use cp_comm_type p2p or allgather (a record may set a2a+p2p with hierarchical sizes), or CP in " +
                    join_set(divisors(gcd64(heads, kv))),
                "features.settings.cp_comm_type", "layout.cp");
}

// Bridge config.py: SFT with CP > 1 needs calculate_per_token_loss and not average_in_collective.
bool check_cp_sft_loss(const RuleContext& ctx, Finding* out) {
  if (ctx.workload.mode != Mode::kSft || ctx.layout.cp <= 1) return false;
  const bool per_token_off = setting_bool(ctx.facts, "calculate_per_token_loss") == std::optional<bool>(false);
  const bool avg = setting_bool(ctx.facts, "average_in_collective").value_or(false);
  if (!per_token_off && !avg) return false;
  if (out == nullptr) return true;
  return report(out,
                "SFT with CP " + str(ctx.layout.cp) +
                    (per_token_off ? " needs calculate_per_token_loss: true" : " needs average_in_collective: false"),
                "set calculate_per_token_loss: true and average_in_collective: false",
                per_token_off ? "features.settings.calculate_per_token_loss"
                              : "features.settings.average_in_collective");
}

}  // namespace rb
