// THE RULE TABLE: every layout rule and pitfall recipebook knows, one row each.
//
// To add a rule: (1) write `bool check_<name>(const RuleContext&, Finding*)` in the checks_*.cpp of
// its group and declare it in checks.hpp; (2) add one row below, ending in the layout fields its
// verdict reads (for the planner's levels, search/rule_levels.hpp); (3) add the fixture
// tests/invalid/<ID>.yaml and a case in rule_cases_test.cpp. Nothing else changes: check_layout,
// the planner's fast path, docs/rules.md (UPDATE_RULES_DOC=1 regenerates its table) and the
// fixture driver all read this table. Order matters only for the planner's rejection counts (the
// first failing error rule is charged), so keep prerequisites (world size, heads) first.
//
// Severity: error = the framework refuses the configuration or it cannot work; warning = it runs
// badly, silently differently from what the record says, or fails later.
// Sources: REFERENCES.md section C (Megatron-Core / Megatron-LM / Megatron-Bridge checks), seed 004
// ("Parallelism Resizing Rules", "Batch Size Tuning", "Common Pitfalls"), seeds 000 and 002 notes.
#include <array>

#include "recipebook/rules/checks.hpp"
#include "recipebook/rules/rule.hpp"

namespace rb {
namespace {

constexpr Severity E = Severity::kError;
constexpr Severity W = Severity::kWarning;
constexpr RuleScope kL = RuleScope::kLayout;
constexpr RuleScope kH = RuleScope::kHardware;
constexpr RuleScope kR = RuleScope::kRecord;

constexpr std::array kRules = std::to_array<Rule>({
    // ---- world size, tensor and sequence parallelism ----
    {"RB-WORLD-DIVISIBLE", E, kL, "TP x PP x CP does not divide the GPU count, so DP = GPUs / (TP PP CP) is fractional",
     "choose TP, PP and CP whose product divides the GPU count",
     "Bridge training/config.py get_data_parallel_size; MCore parallel_state.py initialize_model_parallel; "
     "seed 004 resizing rule 7",
     check_world_divisible, "tp,cp,pp"},
    {"RB-TP-HEADS", E, kL, "TP does not divide the number of attention heads",
     "use a TP that divides the attention heads", "MCore transformer_config.py (num_attention_heads % TP)",
     check_tp_heads, "tp"},
    {"RB-TP-KV-GROUPS", E, kL, "TP neither divides the KV heads (query groups) nor is a multiple of them",
     "use a TP that divides the KV heads, or a multiple of them", "MCore transformer_config.py (num_query_groups)",
     check_tp_kv_groups, "tp"},
    {"RB-TP-FFN", E, kL, "TP does not divide the MLP width (or ETP the expert MLP width)",
     "use a TP (ETP) that divides the FFN hidden size",
     "MCore tensor_parallel/layers.py ColumnParallelLinear (divide(output_size, world_size))", check_tp_ffn, "tp,etp"},
    {"RB-TP-MAMBA-HEADS", E, kL, "TP does not divide the Mamba-2 heads or groups",
     "use a TP that divides the Mamba heads and groups", "MCore ssm/mamba_mixer.py (nheads % TP, ngroups % TP)",
     check_tp_mamba_heads, "tp"},
    {"RB-GDN-HEADS-TPCP", E, kL, "TP x CP does not divide the Gated DeltaNet key and value heads",
     "use TP x CP dividing both GDN head counts",
     "MCore transformer_config.py (linear_num_key_heads / linear_num_value_heads % TP CP)", check_gdn_heads_tpcp,
     "tp,cp"},
    {"RB-SP-NEEDS-TP", E, kL, "sequence parallelism is set with TP 1", "set sequence_parallel: false or TP > 1",
     "MCore model_parallel_config.py (ValueError)", check_sp_needs_tp, "sp,tp"},
    {"RB-SP-REQUIRED", E, kL, "an MoE model with TP > 1 runs without sequence parallelism",
     "set sequence_parallel: true",
     "MCore model_parallel_config.py (EP > 1 and TP > 1 need SP); MLM yaml_arguments.py (MoE and TP > 1 need SP)",
     check_sp_required, "tp,sp"},
    {"RB-CP-SEQ", E, kL, "with CP > 1 the sequence length is not a multiple of 2 x CP",
     "use a sequence length divisible by 2 x CP", "Bridge training/config.py; MLM training/arguments.py", check_cp_seq,
     "cp"},
    {"RB-SP-SEQ", E, kL, "with sequence parallelism the sequence length is not a multiple of TP x CP",
     "use a sequence length divisible by TP x CP",
     "MCore tensor_parallel/mappings.py (_split_along_first_dim); Bridge SFT collate pads to lcm(2 CP, TP CP)",
     check_sp_seq, "sp,tp,cp"},

    // ---- pipeline, virtual pipeline, batch ----
    {"RB-PP-LAYERS", E, kL, "the decoder layers do not split evenly over the pipeline stages",
     "use a PP that divides the layers, or set first/last stage layer counts (or account_for_* splits)",
     "MCore transformer_config.py; MLM arguments.py; Bridge models/gpt_provider.py", check_pp_layers,
     "pp,vp,first_stage_layers,last_stage_layers,pipeline_layout,account_for_embedding,account_for_loss"},
    {"RB-VP-NEEDS-PP", E, kL, "virtual pipeline stages are set with PP 1", "set VP 1, or PP > 1",
     "MCore parallel_state.py", check_vp_needs_pp, "vp,pp"},
    {"RB-VP-LAYERS", E, kL, "the layers of a pipeline stage do not divide by VP",
     "use a VP that divides the layers per stage", "Bridge models/gpt_provider.py ((num_layers // PP) % VP)",
     check_vp_layers,
     "vp,pp,first_stage_layers,last_stage_layers,pipeline_layout,account_for_embedding,account_for_loss"},
    {"RB-GBS-DIVISIBLE", E, kL, "the global batch is not a multiple of MBS x DP",
     "use a global batch that is a multiple of MBS x DP",
     "MCore num_microbatches_calculator.py; seed 004 batch size tuning", check_gbs_divisible, "mbs,dp"},
    {"RB-VP-MICROBATCHES", E, kL, "interleaved pipeline with fewer micro batches than PP, or not a multiple of PP",
     "make GBS / (MBS DP) a multiple of PP (at least PP)",
     "MCore pipeline_parallel/schedules.py (microbatch_group_size_per_vp_stage defaults to PP)", check_vp_microbatches,
     "vp,pp,mbs,dp"},

    // ---- experts and token dispatch ----
    {"RB-EP-NEEDS-MOE", E, kL, "expert parallelism is set on a model without experts", "set EP 1",
     "MCore transformer_config.py (num_moe_experts must be set for EP)", check_ep_needs_moe, "ep"},
    {"RB-EXPERTS-EP", E, kL, "EP does not divide the number of routed experts", "use an EP that divides the experts",
     "MLM training/arguments.py (num_experts % EP)", check_experts_ep, "ep"},
    {"RB-EP-DIVISIBLE", E, kL, "EP x ETP x PP does not divide the GPU count (expert DP is fractional)",
     "choose EP x ETP dividing TP x CP x DP", "MCore parallel_state.py (world % (ETP EP PP)); REFERENCES.md C.2",
     check_ep_divisible, "ep,etp,pp,tp,cp"},
    {"RB-OPTIMIZER-INSTANCES", E, kL, "distributed optimizer instances that do not split DP x CP and expert DP, or without a sharded optimizer",
     "use instances dividing DP x CP and expert DP, with the distributed optimizer or FSDP",
     "MCore parallel_state.py (intra / inter partial data-parallel groups); Megatron-LM arguments.py",
     check_optimizer_instances, "distributed_optimizer_instances,fsdp,distributed_optimizer,dp,tp,cp,pp,ep,etp"},
    {"RB-MOE-BIAS-ETP", E, kL, "experts with bias terms run with ETP > 1", "set ETP 1",
     "MCore transformer_config.py (MoE bias requires expert_tensor_parallel_size 1)", check_moe_bias_etp, "etp"},
    {"RB-DISPATCHER-GPU", E, kH, "the flex dispatcher backend is not supported on this GPU",
     "use HybridEP (or alltoall) on GB200/GB300; alltoall off NVIDIA",
     "Bridge training/flex_dispatcher_backend.py (DeepEP: sm80/sm90, B200, B300; HybridEP: sm80/90/100)",
     check_dispatcher_gpu, "dispatcher"},
    {"RB-EP-A2A-OVERLAP", E, kL, "EP all-to-all overlap is set without what it requires",
     "EP > 1, alltoall or flex dispatcher, VP when PP > 1, no full recompute or moe recompute, MTP <= 1",
     "MCore transformer_config.py; Bridge training/comm_overlap.py (overlap_moe_expert_parallel_comm)",
     check_ep_a2a_overlap,
     "ep_a2a_overlap,ep,dispatcher,pp,vp,recompute,recompute_modules,cuda_graph,cuda_graph_scope"},
    {"RB-DELAY-WGRAD", E, kR, "delay_wgrad_compute is set without EP all-to-all overlap",
     "enable ep_a2a_overlap or drop delay_wgrad_compute", "MCore transformer_config.py; Bridge comm_overlap.py",
     check_delay_wgrad, ""},
    {"RB-SHARED-EXPERT-OVERLAP", E, kR, "moe_shared_expert_overlap is set with the allgather dispatcher",
     "use the alltoall or flex dispatcher, or turn the overlap off", "MCore transformer_config.py",
     check_shared_expert_overlap, ""},
    {"RB-ALLGATHER-VARLEN", E, kR, "the allgather dispatcher is used with variable sequence lengths",
     "use the alltoall dispatcher", "MCore transformer_config.py (allgather dispatcher and variable_seq_lengths)",
     check_allgather_varlen, ""},
    {"RB-MOE-ROUTER-PADDING", E, kR,
     "moe_router_padding_for_quantization is set without FP8/FP4, or with the allgather dispatcher",
     "use it only with FP8/FP4 and the alltoall or flex dispatcher", "MCore transformer_config.py",
     check_moe_router_padding, ""},

    // ---- CUDA graphs ----
    {"RB-CUDA-GRAPH-RNG", E, kL, "CUDA graphs are enabled without the Transformer Engine RNG tracker",
     "set model.use_te_rng_tracker and rng.te_rng_tracker to true",
     "Bridge models/gpt_provider.py (assert); seed 004 pitfall \"use_te_rng_tracker not set\"", check_cuda_graph_rng,
     "cuda_graph"},
    {"RB-CUDA-GRAPH-LOCAL-SCOPE", E, kL, "the local CUDA-graph implementation is used with a module scope",
     "use transformer_engine for scoped graphs, or local/full_iteration with no scope",
     "Bridge utils/cuda_graph.py (local only for full-iteration graphs)", check_cuda_graph_local_scope,
     "cuda_graph,cuda_graph_scope"},
    {"RB-CUDA-GRAPH-SCOPE", E, kL, "the CUDA-graph scope names modules the model lacks or an invalid combination",
     "drop the offending scope entries",
     "MCore transformer_config.py (moe vs moe_router, moe_preprocess needs moe_router, MoE/dense/mamba scopes)",
     check_cuda_graph_scope, "cuda_graph,cuda_graph_scope"},
    {"RB-CUDA-GRAPH-FULL-RECOMPUTE", E, kL, "full activation recompute with scoped (Transformer Engine) CUDA graphs",
     "use selective recompute, or full-iteration (local) graphs, or no graphs",
     "MCore transformer_config.py (full recompute only with full iteration CUDA graph); seed 004 pitfall",
     check_cuda_graph_full_recompute, "recompute,cuda_graph"},
    {"RB-CUDA-GRAPH-RECOMPUTE-MOE", E, kL, "moe recompute combined with a moe_router Transformer Engine graph",
     "drop moe from recompute_modules or moe_router from the graph scope",
     "MCore transformer_config.py (recomputed modules must be wholly inside or outside the graph)",
     check_cuda_graph_recompute_moe, "cuda_graph,cuda_graph_scope,recompute,recompute_modules"},
    {"RB-CUDA-GRAPH-OFFLOAD", E, kL, "CPU activation offloading with scoped CUDA graphs",
     "use full-iteration graphs or turn offloading off", "MCore transformer_config.py", check_cuda_graph_offload,
     "cpu_offload_layers,cuda_graph"},
    {"RB-CUDA-GRAPH-PACKED", E, kR, "packed sequences with scoped CUDA graphs (or without padding to max length)",
     "disable packing, or use local full-iteration graphs with pad_to_max_length",
     "seed 004 pitfall (\"CUDA graph accepts only Tensor inputs\"); Bridge training/config.py", check_cuda_graph_packed,
     ""},
    {"RB-CUDA-GRAPH-NAN-CHECK", E, kR, "full-iteration CUDA graphs with check_for_nan_in_loss",
     "set rerun_state_machine.check_for_nan_in_loss: false", "Bridge training/config.py", check_cuda_graph_nan_check,
     ""},

    // ---- recompute, offload, precision, FSDP, CP settings ----
    {"RB-RECOMPUTE-MODULE", E, kL, "a recompute module names a layer kind the model does not have",
     "drop the module (mla_up_proj needs MLA, moe_act/moe/shared_experts need MoE, gdn_norm_out needs GDN)",
     "MCore transformer_config.py (recompute_modules)", check_recompute_module, "recompute,recompute_modules"},
    {"RB-RECOMPUTE-LAYERS", E, kL, "full recompute num_layers is outside [1, layers per pipeline stage]",
     "set recompute num_layers between 1 and the layers per stage", "MCore transformer_config.py",
     check_recompute_layers, "recompute,recompute_layers,pp"},
    {"RB-RECOMPUTE-FP8-DS", E, kL, "FP8 delayed scaling with moe_act or layernorm recompute",
     "use FP8 current scaling or drop those modules", "MCore transformer_config.py", check_recompute_fp8_ds,
     "precision,recompute,recompute_modules"},
    {"RB-MUON-FSDP", E, kL, "the Muon optimizer with Megatron-FSDP",
     "use DDP with the (layer-wise) distributed optimizer, or adam",
     "Megatron-LM arguments.py (emerging optimizer check); Bridge training/config.py", check_muon_fsdp,
     "optimizer,fsdp"},
    {"RB-OFFLOAD-PP", E, kL, "CPU activation offloading with PP > 1", "set PP 1 or turn offloading off",
     "MCore transformer_config.py (no pipeline parallelism with CPU offloading)", check_offload_pp,
     "cpu_offload_layers,pp"},
    {"RB-OFFLOAD-RECOMPUTE", E, kL, "CPU activation offloading combined with activation recompute",
     "use one of offloading or recompute", "MCore transformer_config.py", check_offload_recompute,
     "cpu_offload_layers,recompute"},
    {"RB-OFFLOAD-LAYERS", E, kL, "cpu_offloading_num_layers is not below the number of layers",
     "offload fewer layers than the model has", "MCore transformer_config.py (cpu_offloading_num_layers in [0, L))",
     check_offload_layers, "cpu_offload_layers"},
    {"RB-DISTRIBUTE-SAVED-SP", E, kR, "distribute_saved_activations with sequence parallelism", "turn one of them off",
     "MCore transformer_config.py", check_distribute_saved_sp, ""},
    {"RB-FINE-GRAINED-OFFLOAD", E, kR, "fine-grained activation offloading set without what it requires",
     "no CPU offloading, attn_proj only with core_attn, no expert modules with 'moe' recompute, graphs via "
     "transformer_engine or full_iteration",
     "MCore transformer_config.py; Bridge training/config.py", check_fine_grained_offload, ""},
    {"RB-OFFLOAD-FRACTION", E, kL, "an optimizer or activation offload fraction outside [0, 1]",
     "use a fraction from 0 to 1",
     "Megatron-LM arguments.py --optimizer-offload-fraction; MCore transformer_config.py activation_offload_fraction",
     check_offload_fraction, "optimizer_offload_fraction,offload_modules,activation_offload_fraction"},
    {"RB-OPTIMIZER-OFFLOAD", E, kL, "optimizer CPU offload without what it requires",
     "DDP with the distributed optimizer, not Megatron-FSDP; no FP8/FP4 parameter gather except delayed scaling",
     "Megatron-LM arguments.py (--optimizer-cpu-offload); MCore optimizer/__init__.py, fully_sharded_optimizer.py",
     check_optimizer_offload, "optimizer_offload_fraction,fsdp,distributed_optimizer,precision"},
    {"RB-OFFLOAD-HOST", W, kH, "offload to the host on a GPU whose host link and memory the catalog lacks",
     "add the node's host figures to the catalog, or turn offloading off", "catalog/hardware/*.yaml `host:`",
     check_offload_host, "optimizer_offload_fraction,offload_modules"},
    {"RB-FP8-GPU", E, kH, "the precision is not supported by this GPU (the recipe's, or mxfp8_modules' MXFP8)",
     "FP8 needs Hopper or newer (or MI300X); MXFP8 and NVFP4 need Blackwell; drop mxfp8_modules on Hopper",
     "Transformer Engine recipe support by architecture; Bridge training/mixed_precision.py", check_fp8_gpu,
     "precision,mxfp8_modules"},
    {"RB-FP8-BF16-LAYERS", E, kR, "BF16 first/last layers with FP8 delayed scaling, or more BF16 layers than a stage",
     "drop first_last_layers_bf16 with delayed scaling; keep the BF16 layer counts <= layers per stage",
     "MCore transformer_config.py", check_fp8_bf16_layers, ""},
    {"RB-FP8-PARAM", E, kR, "FP8 parameters (fp8_param_gather) with a non-FP8 precision",
     "use an FP8 precision recipe or drop fp8_param_gather", "MCore transformer_config.py (fp8_param needs fp8)",
     check_fp8_param, ""},
    {"RB-MXFP8-PARAM-GATHER", E, kR, "MXFP8 parameter gather without FSDP needs reuse_grad_buf_for_mxfp8_param_ag",
     "set reuse_grad_buf_for_mxfp8_param_ag: true", "Bridge training/config.py", check_mxfp8_param_gather, ""},
    {"RB-FSDP-V2", E, kR, "Megatron-FSDP v2 with a feature it does not support",
     "v2 is BF16 only, dense only, no VP, no CUDA graphs, no precision-aware optimizer; use v1 otherwise",
     "Bridge training/config.py (Megatron-FSDP v2 restrictions)", check_fsdp_v2, ""},
    {"RB-FSDP-EXCLUSIVE", E, kR, "Megatron-FSDP and torch FSDP2 are both enabled", "enable only one of them",
     "Bridge training/config.py", check_fsdp_exclusive, ""},
    {"RB-FSDP-CONNECTIONS", E, kR, "Megatron-FSDP with CUDA_DEVICE_MAX_CONNECTIONS=1",
     "unset CUDA_DEVICE_MAX_CONNECTIONS or set it above 1", "Bridge training/config.py (Megatron-FSDP v1)",
     check_fsdp_connections, ""},
    {"RB-CP-COMM-TYPE", E, kR, "cp_comm_type is unknown, or a2a+p2p without hierarchical sizes whose product is CP",
     "use p2p, a2a, allgather or a2a+p2p with hierarchical_context_parallel_sizes multiplying to CP",
     "Bridge training/config.py _validate_cp_comm_type; MCore parallel_state.py", check_cp_comm_type, ""},
    {"RB-CP-A2A-HEADS", E, kL, "all-to-all CP with heads (or KV heads) per TP rank not divisible by CP",
     "use p2p or a2a+p2p (hierarchical) CP, or a CP dividing the heads per rank",
     "Transformer Engine a2a context parallelism (inferred); seed 004 resizing rule 6", check_cp_a2a_heads,
     "tp,cp,cp_comm_type"},
    {"RB-CP-SFT-LOSS", E, kR, "SFT with CP > 1 without per-token loss (or with average_in_collective)",
     "set calculate_per_token_loss: true and average_in_collective: false", "Bridge training/config.py",
     check_cp_sft_loss, ""},

    // ---- pitfalls (seed 004 resizing rules and pitfall table): warnings ----
    {"RB-TP-KV-REPLICATED", W, kL, "TP exceeds the KV heads, so KV projections are replicated across TP ranks",
     "reduce TP to a divisor of num_kv_heads", "seed 004 resizing rule 1 and pitfall \"TP > num_kv_heads\"",
     check_tp_kv_replicated, "tp"},
    {"RB-TP-CROSS-NODE", W, kH, "the TP group spans beyond one NVLink domain",
     "keep TP within the NVLink domain (8 on HGX; 72 on NVL72)", "seed 004 resizing rule 2", check_tp_cross_node, "tp"},
    {"RB-SP-RECOMMENDED", W, kL, "TP > 1 without sequence parallelism", "set sequence_parallel: true",
     "seed 004 resizing rule 5", check_sp_recommended, "tp,sp,tp_comm_overlap"},
    {"RB-TP-COMM-OVERLAP", W, kL, "TP communication overlap with TP > 1 but without SP (Bridge turns it off)",
     "set sequence_parallel: true", "Bridge training/comm_overlap.py (auto-disable); MLM arguments.py (assert)",
     check_tp_comm_overlap, "tp_comm_overlap,tp,sp"},
    {"RB-PP-NO-VP", W, kL, "PP > 1 without virtual pipeline stages: a large pipeline bubble",
     "set virtual_pipeline_model_parallel_size", "seed 004 resizing rule 3 and pitfall \"PP without VP\"",
     check_pp_no_vp, "pp,vp,mbs,dp"},
    {"RB-LONG-CONTEXT-NO-CP", W, kL, "sequence longer than 8K without context parallelism",
     "add CP 2/4/8, or start from a *_16k/_64k/_128k recipe",
     "seed 004 decision tree and pitfall \"Long context without CP\"", check_long_context_no_cp, "cp,tp,sp"},
    {"RB-EP-TOO-LOW", W, kH, "expert weights, gradients and optimizer state take most of the GPU memory",
     "increase EP first (not TP)", "seed 004 resizing rule 4 and pitfall \"EP too low for large MoE\"",
     check_ep_too_low, "ep,etp,pp,fsdp,precision_aware_optimizer,distributed_optimizer,grad_reduce_in_fp32"},
    {"RB-FSDP-TP-H100", W, kH, "FSDP with TP > 2 on Hopper: possible communication bottleneck",
     "prefer FSDP with TP 1 or 2 on H100/H200", "seed 004 pitfall \"FSDP + TP > 1 on H100\"", check_fsdp_tp_h100,
     "fsdp,tp"},
    {"RB-MOE-OVERLAP-GRAD-H100", W, kR, "MoE with overlap_grad_reduce on Hopper may hurt throughput",
     "set ddp.overlap_grad_reduce: false", "seed 004 pitfall \"MoE overlap_grad_reduce on H100\"",
     check_moe_overlap_grad_h100, ""},
    {"RB-QWEN35-VL-FSDP-H100", W, kH, "Qwen3.5-VL MoE with FSDP was tested on Blackwell only",
     "validate on this GPU first, or use a Blackwell GPU", "seed 004 pitfall \"Qwen35-VL MoE FSDP\"",
     check_qwen35_vl_fsdp_h100, "fsdp"},

    // ---- record pitfalls (seeds 000, 002, 004): warnings ----
    {"RB-VLM-NO-IMAGES", W, kR, "a VLM is trained on a dataset without images: it runs but learns garbage",
     "use a multimodal dataset (energon, local-vlm, ...) or the mock VLM data",
     "seed 004 pitfall \"VLM SFT missing image data\"", check_vlm_no_images, ""},
    {"RB-VISION-GRAPH-CAP", W, kR, "the image budget can exceed the vision CUDA-graph patch cap",
     "keep max_pixels and MBS as measured, or re-measure the cap", "seed 000 (qwen35_vl GB300 8-GPU MXFP8 recipe)",
     check_vision_graph_cap, ""},
    {"RB-ENV-AT-IMPORT", W, kR, "an env var read once at import is not exported before Python starts",
     "export it in the launch environment, or launch through scripts/training/run_recipe.py",
     "seed 000 (NVTE_CUTEDSL_FUSED_GROUPED_MLP read when Transformer Engine is imported)", check_env_at_import, ""},
    {"RB-KERNEL-BACKEND-MCORE", W, kR, "cuDNN GDN is selected but the stack may not provide it (silently FLA)",
     "pin a Megatron-Core that declares gdn_kernel_backend (NVIDIA/Megatron-LM#7583) and TE >= 2.19",
     "seed 000; Bridge perf_recipes/qwen_vl/common.py _select_gdn_kernel_backend", check_kernel_backend_mcore, ""},
    {"RB-FLA-BLACKWELL-GUARD", W, kR, "GDN on Blackwell with FLA 0.4.1 and Triton 3.6 without the FLA guard patch",
     "import patches/fla_blackwell_guard.py in every process before FLA, or use a newer FLA",
     "seed 002 notes (FLA autotuner races on Blackwell)", check_fla_blackwell_guard, ""},
    {"RB-RECIPE-NAME-COLLISION", W, kR,
     "the entry point is the name of another catalog recipe, which bare lookup picks",
     "give the recipe a distinct name (seed 000 added a _library suffix)", "seed 000 (_library suffix note)",
     check_recipe_name_collision, ""},
    {"RB-NCCL-GRAPH-REGISTER", W, kR, "expandable_segments with CUDA graphs without NCCL_GRAPH_REGISTER=0",
     "export NCCL_GRAPH_REGISTER=0", "Megatron-Bridge performance guide; MCore (local graphs below sm100)",
     check_nccl_graph_register, ""},
});

static_assert(kRules.size() <= kRuleCapacity, "raise kRuleCapacity in rule.hpp");

}  // namespace

std::span<const Rule> all_rules() { return {kRules.data(), kRules.size()}; }

const Rule* find_rule(std::string_view id) {
  for (const Rule& r : kRules)
    if (r.id == id) return &r;
  return nullptr;
}

int rule_index(std::string_view id) {
  for (size_t i = 0; i < kRules.size(); ++i)
    if (kRules[i].id == id) return static_cast<int>(i);
  return -1;
}

}  // namespace rb
