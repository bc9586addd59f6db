// The check function of every rule (see rule.hpp for the contract): returns true when the rule is
// violated; fills `out` (message, fix, field) only when it is non-null, and allocates nothing
// otherwise. Grouped by file: checks_parallel.cpp (world, TP, SP, CP, PP, VP, batch),
// checks_moe.cpp (EP and dispatch), checks_graphs.cpp (CUDA graphs), checks_memory.cpp (recompute,
// offload, precision, FSDP, CP settings), checks_pitfalls.cpp (seed 004 warnings),
// checks_record.cpp (env, kernels, patches, vision, catalog).
#pragma once

#include "recipebook/rules/prepared.hpp"
#include "recipebook/rules/rule.hpp"

namespace rb {

// checks_parallel.cpp
bool check_world_divisible(const RuleContext& ctx, Finding* out);
bool check_tp_heads(const RuleContext& ctx, Finding* out);
bool check_tp_kv_groups(const RuleContext& ctx, Finding* out);
bool check_tp_ffn(const RuleContext& ctx, Finding* out);
bool check_tp_mamba_heads(const RuleContext& ctx, Finding* out);
bool check_gdn_heads_tpcp(const RuleContext& ctx, Finding* out);
bool check_sp_needs_tp(const RuleContext& ctx, Finding* out);
bool check_sp_required(const RuleContext& ctx, Finding* out);
bool check_cp_seq(const RuleContext& ctx, Finding* out);
bool check_sp_seq(const RuleContext& ctx, Finding* out);
bool check_pp_layers(const RuleContext& ctx, Finding* out);
bool check_vp_needs_pp(const RuleContext& ctx, Finding* out);
bool check_vp_layers(const RuleContext& ctx, Finding* out);
bool check_gbs_divisible(const RuleContext& ctx, Finding* out);
bool check_vp_microbatches(const RuleContext& ctx, Finding* out);

// checks_moe.cpp
bool check_ep_needs_moe(const RuleContext& ctx, Finding* out);
bool check_experts_ep(const RuleContext& ctx, Finding* out);
bool check_ep_divisible(const RuleContext& ctx, Finding* out);
bool check_moe_bias_etp(const RuleContext& ctx, Finding* out);
bool check_dispatcher_gpu(const RuleContext& ctx, Finding* out);
bool check_ep_a2a_overlap(const RuleContext& ctx, Finding* out);
bool check_delay_wgrad(const RuleContext& ctx, Finding* out);
bool check_shared_expert_overlap(const RuleContext& ctx, Finding* out);
bool check_allgather_varlen(const RuleContext& ctx, Finding* out);
bool check_moe_router_padding(const RuleContext& ctx, Finding* out);

// checks_graphs.cpp
bool check_cuda_graph_rng(const RuleContext& ctx, Finding* out);
bool check_cuda_graph_local_scope(const RuleContext& ctx, Finding* out);
bool check_cuda_graph_scope(const RuleContext& ctx, Finding* out);
bool check_cuda_graph_full_recompute(const RuleContext& ctx, Finding* out);
bool check_cuda_graph_recompute_moe(const RuleContext& ctx, Finding* out);
bool check_cuda_graph_offload(const RuleContext& ctx, Finding* out);
bool check_cuda_graph_packed(const RuleContext& ctx, Finding* out);
bool check_cuda_graph_nan_check(const RuleContext& ctx, Finding* out);

// checks_memory.cpp
bool check_recompute_module(const RuleContext& ctx, Finding* out);
bool check_recompute_layers(const RuleContext& ctx, Finding* out);
bool check_recompute_fp8_ds(const RuleContext& ctx, Finding* out);
bool check_offload_pp(const RuleContext& ctx, Finding* out);
bool check_offload_recompute(const RuleContext& ctx, Finding* out);
bool check_offload_layers(const RuleContext& ctx, Finding* out);
bool check_distribute_saved_sp(const RuleContext& ctx, Finding* out);
bool check_fine_grained_offload(const RuleContext& ctx, Finding* out);

// checks_offload.cpp
bool check_offload_fraction(const RuleContext& ctx, Finding* out);
bool check_optimizer_offload(const RuleContext& ctx, Finding* out);
bool check_optimizer_instances(const RuleContext& ctx, Finding* out);  // checks_parallel.cpp
bool check_offload_host(const RuleContext& ctx, Finding* out);
bool check_fp8_gpu(const RuleContext& ctx, Finding* out);
bool check_fp8_bf16_layers(const RuleContext& ctx, Finding* out);
bool check_fp8_param(const RuleContext& ctx, Finding* out);
bool check_mxfp8_param_gather(const RuleContext& ctx, Finding* out);
bool check_fsdp_v2(const RuleContext& ctx, Finding* out);
bool check_fsdp_exclusive(const RuleContext& ctx, Finding* out);
bool check_muon_fsdp(const RuleContext& ctx, Finding* out);
bool check_fsdp_connections(const RuleContext& ctx, Finding* out);
bool check_cp_comm_type(const RuleContext& ctx, Finding* out);
bool check_cp_a2a_heads(const RuleContext& ctx, Finding* out);
bool check_cp_sft_loss(const RuleContext& ctx, Finding* out);

// checks_pitfalls.cpp
bool check_tp_kv_replicated(const RuleContext& ctx, Finding* out);
bool check_tp_cross_node(const RuleContext& ctx, Finding* out);
bool check_sp_recommended(const RuleContext& ctx, Finding* out);
bool check_tp_comm_overlap(const RuleContext& ctx, Finding* out);
bool check_pp_no_vp(const RuleContext& ctx, Finding* out);
bool check_long_context_no_cp(const RuleContext& ctx, Finding* out);
bool check_ep_too_low(const RuleContext& ctx, Finding* out);
bool check_fsdp_tp_h100(const RuleContext& ctx, Finding* out);
bool check_moe_overlap_grad_h100(const RuleContext& ctx, Finding* out);
bool check_qwen35_vl_fsdp_h100(const RuleContext& ctx, Finding* out);

// checks_record.cpp
bool check_vlm_no_images(const RuleContext& ctx, Finding* out);
bool check_vision_graph_cap(const RuleContext& ctx, Finding* out);
bool check_env_at_import(const RuleContext& ctx, Finding* out);
bool check_kernel_backend_mcore(const RuleContext& ctx, Finding* out);
bool check_fla_blackwell_guard(const RuleContext& ctx, Finding* out);
bool check_recipe_name_collision(const RuleContext& ctx, Finding* out);
bool check_nccl_graph_register(const RuleContext& ctx, Finding* out);

}  // namespace rb
