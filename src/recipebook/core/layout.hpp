// A parallel layout and the features that change memory or time: what `estimate` evaluates and
// `plan` enumerates. Field names follow the field (tp, pp, vp, cp, ep, etp, dp, mbs).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "recipebook/core/pipeline_layout.hpp"
#include "recipebook/core/precision.hpp"

namespace rb {

enum class Recompute { kNone, kSelective, kFull };
enum class RecomputeMethod { kUniform, kBlock };

// Selective-recompute modules (Megatron-Core `recompute_modules`), as a bit set.
enum RecomputeModule : uint32_t {
  kRcCoreAttn = 1u << 0,
  kRcMoeAct = 1u << 1,
  kRcLayernorm = 1u << 2,
  kRcMlaUpProj = 1u << 3,
  kRcMlp = 1u << 4,
  kRcMoe = 1u << 5,
  kRcSharedExperts = 1u << 6,
  kRcGdnNormOut = 1u << 7,
  kRcMhc = 1u << 8,
};
// Megatron-Core's default for selective recompute is core_attn alone.
inline constexpr uint32_t kRcDefault = kRcCoreAttn;

// Fine-grained activation offloading modules (Megatron-Core TransformerConfig `offload_modules`):
// each offloads its input to the host in forward and reloads it before backward, as a bit set.
enum OffloadModule : uint32_t {
  kOfAttnNorm = 1u << 0,
  kOfQkvLinear = 1u << 1,
  kOfCoreAttn = 1u << 2,
  kOfAttnProj = 1u << 3,
  kOfMlpNorm = 1u << 4,
  kOfExpertFc1 = 1u << 5,
  kOfMoeAct = 1u << 6,
};

// GEMM modules a per-module precision config can run at another precision than their layer's
// (Megatron-Core TransformerConfig quant_recipe, matched by module name: megatron/core/quantization/
// quant_config.py GlobMatcher, extensions/transformer_engine.py TEQuantizationParams), by the
// Megatron-Core module names they stand for. Bits 0-7 are also slots of the per-module FLOP sums
// (estimate/prepared.hpp LayerSums::module_flops); kGmMtp is a place (every GEMM under `mtp.`).
enum GemmModule : uint32_t {
  kGmLinearQkv = 1u << 0,      // self_attention.linear_qkv (GQA/MHA q, k, v and gates)
  kGmLinearProj = 1u << 1,     // self_attention.linear_proj (the attention output projection)
  kGmInProj = 1u << 2,         // mixer.in_proj (Mamba-2)
  kGmOutProj = 1u << 3,        // mixer.out_proj (Mamba-2)
  kGmMlp = 1u << 4,            // mlp.linear_fc1 / linear_fc2 of a dense MLP
  kGmSharedExperts = 1u << 5,  // mlp.shared_experts
  kGmExperts = 1u << 6,        // mlp.experts (the routed experts' grouped GEMMs)
  kGmLatentProj = 1u << 7,     // mlp.fc1_latent_proj / fc2_latent_proj (a latent MoE's projections)
  kGmMtp = 1u << 8,            // mtp.* (the multi-token-prediction block)
};

enum class Dispatcher { kAlltoall, kAllgather, kFlexDeepep, kFlexHybridep };

// How context parallelism exchanges K/V (Megatron-Core cp_comm_type, Transformer Engine's
// attention/dot_product_attention/context_parallel.py): TE's ring of K/V blocks (p2p,
// AttnFuncWithCPAndKVP2P, Megatron's default); Ulysses all-to-alls that trade the sequence shard
// for a head shard (a2a, AttnFuncWithCPAndQKVOA2A); or all-gathered K/V (allgather,
// AttnFuncWithCPAndKVAllGather). TE's hierarchical a2a+p2p is not a Layout value (see docs/model.md).
enum class CpComm { kP2p, kA2a, kAllGather };

enum class CudaGraph { kNone, kTransformerEngine, kLocal, kFullIteration };

// The fused cross-entropy implementation (Megatron-Core ModelParallelConfig cross_entropy_fusion_impl,
// used when cross_entropy_loss_fusion is on): Transformer Engine's parallel cross entropy, or
// Megatron-Core's own fused kernel (fusions/fused_cross_entropy.py).
enum class CrossEntropyImpl { kTe, kNative };

// The optimizer of the weights. Muon (Megatron-Core emerging optimizers, megatron/core/optimizer/
// muon.py) orthogonalizes each 2-D weight's momentum by Newton-Schulz iterations and keeps one fp32
// momentum; embeddings, the output layer and 1-D parameters keep Adam (muon_scalar_optimizer).
enum class Optimizer { kAdam, kMuon };

// CUDA-graph scope modules (cuda_graph_scope / cuda_graph_modules), as a bit set.
enum CudaGraphScope : uint32_t {
  kCgAttn = 1u << 0,
  kCgMlp = 1u << 1,
  kCgMoe = 1u << 2,
  kCgMoeRouter = 1u << 3,
  kCgMoePreprocess = 1u << 4,
  kCgMamba = 1u << 5,
};

struct Layout {
  int tp = 1;
  int pp = 1;
  int vp = 1;  // virtual pipeline stages per rank; 1 = plain 1F1B
  int cp = 1;
  CpComm cp_comm = CpComm::kP2p;  // with CP > 1
  int ep = 1;
  int etp = 1;
  int dp = 1;  // derived: gpus / (tp * pp * cp)
  int mbs = 1;
  bool sp = false;    // sequence parallel
  bool fsdp = false;  // Megatron-FSDP (optim_grads_params) instead of DDP + distributed optimizer

  Precision precision = Precision::kBf16;
  Recompute recompute = Recompute::kNone;
  uint32_t recompute_modules = 0;  // for kSelective; 0 = kRcDefault
  RecomputeMethod recompute_method = RecomputeMethod::kUniform;
  int recompute_layers = 1;  // for kFull

  Dispatcher dispatcher = Dispatcher::kAlltoall;
  CudaGraph cuda_graph = CudaGraph::kNone;
  uint32_t cuda_graph_scope = 0;
  bool te_rng_tracker = true;

  Optimizer optimizer = Optimizer::kAdam;
  // The optimizer state sharded over DP: Megatron-Core's distributed optimizer, or for Muon its
  // layer-wise distributed optimizer (each DP rank owns whole weights: Megatron-LM
  // --optimizer muon --use-distributed-optimizer, Megatron-Bridge optimizer dist_muon).
  bool distributed_optimizer = true;
  // Megatron-Core num_distributed_optimizer_instances: the DP x CP ranks (and the expert-DP ranks)
  // split into this many groups of consecutive ranks. With the distributed optimizer its state is
  // sharded inside a group and replicated across the groups, whose gradients are all-reduced once
  // per step; with Megatron-FSDP it is HSDP: weights and gradients sharded inside a group (gathered
  // and reduced per micro-batch over it), the optimizer state over all of DP (Megatron-FSDP's
  // outer_dp_sharding_strategy "optim", which the launch writers set), and the gradients reduced and
  // the weights gathered across the groups once per step. 1 = off.
  int distributed_optimizer_instances = 1;
  bool precision_aware_optimizer = false;  // bf16 moments and bf16-stored masters
  // FP32 main gradients, reduced in FP32 (Megatron-Core DDP grad_reduce_in_fp32; Megatron-LM
  // --accumulate-allreduce-grads-in-fp32): Bridge's library recipes set it, its perf recipes do not.
  bool grad_reduce_in_fp32 = false;
  int cpu_offload_layers = 0;              // activation offload
  // Megatron-Core optimizer CPU offload (OptimizerConfig optimizer_cpu_offload +
  // optimizer_offload_fraction: the HybridDeviceOptimizer keeps and steps this share of the rank's
  // optimizer state on the host); 0 = off.
  double optimizer_offload_fraction = 0;
  // Fine-grained activation offloading (TransformerConfig fine_grained_activation_offloading with
  // offload_modules, OffloadModule bits; 0 = off) and activation_offload_fraction (the share of the
  // eligible offload groups, in forward order, that are offloaded).
  uint32_t offload_modules = 0;
  double activation_offload_fraction = 1.0;
  bool ep_a2a_overlap = false;
  bool tp_comm_overlap = false;
  // Megatron-Core account_for_embedding/loss_in_pipeline_split: the embedding (the loss) counts as one
  // layer of the first (last) virtual stage, so (layers + 1 + 1) splits evenly over PP x VP.
  bool account_for_embedding = false;
  bool account_for_loss = false;
  int first_stage_layers = 0;  // 0 = uniform split
  int last_stage_layers = 0;
  // Megatron-Core pipeline_model_parallel_layout, parsed (core/pipeline_layout.hpp): what each of the
  // PP x VP virtual stages builds. Empty = no explicit layout (the split above applies). Not
  // combinable with first/last stage counts or account_for_*.
  std::vector<PipelineStage> pipeline_layout{};
  // The loss and dropout as the run sets them (docs/model.md "Memory"). The defaults are Megatron-
  // Bridge's performance recipes: cross_entropy_loss_fusion on (GPTModelProvider) with the TE
  // implementation (perf_recipes/_common.py), dropout 0. Megatron-LM's own defaults differ: fusion
  // off (the unfused vocab_parallel_cross_entropy), dropout 0.1 (TransformerConfig).
  bool cross_entropy_loss_fusion = true;
  CrossEntropyImpl cross_entropy_fusion_impl = CrossEntropyImpl::kTe;
  double hidden_dropout = 0;     // TransformerConfig hidden_dropout: the bias-dropout-add after each sub-block
  double attention_dropout = 0;  // TransformerConfig attention_dropout: on the attention probabilities
  // Megatron-Core first_last_layers_bf16 with num_layers_at_start/end_in_bf16: the first and the last
  // decoder layers (by global layer number) run outside the FP8/FP4 autocast, their GEMMs in BF16
  // (fp8_utils.py / fp4_utils.py get_fp8_context / get_fp4_context). 0 and 0 = every layer quantized.
  int bf16_layers_at_start = 0;
  int bf16_layers_at_end = 0;
  // Per-module precision inside the quantized layers (Megatron-Core quant_recipe, GemmModule bits):
  // the modules run in BF16 and those run in MXFP8 (BF16 wins where both name one); the rest at
  // `precision`. The BF16 layers above stay BF16 whole (a module config does not turn quantization
  // on outside the autocast: TEQuantizationRecipe override_nonquantized_autocast defaults to False).
  uint32_t bf16_modules = 0;
  uint32_t mxfp8_modules = 0;

  // Transformer Engine's fused grouped MLP: Megatron-Core use_transformer_engine_op_fuser with TE's
  // NVTE_CUTEDSL_FUSED_GROUPED_MLP=1 (transformer_engine/pytorch/ops/fused/grouped_mlp.py): the
  // routed experts' FC1 + activation + quantization of the FC2 input run as one CuTe DSL grouped GEMM
  // (and FC2 dgrad + activation backward + quantization as another). TE registers the fusion only
  // on compute capability 10.x under an MXFP8 or NVFP4 recipe; elsewhere the ops run unfused.
  bool fused_grouped_mlp = false;
  // Megatron-Core fp8_dot_product_attention: the core attention in FP8 (TE's fp8_dpa; cuDNN's FP8 /
  // MXFP8 SDPA, forward and backward), under an FP8/FP4 recipe only.
  bool fp8_attention = false;
  // Under NVFP4: the parameters all-gathered in FP4 (MixedPrecisionConfig fp4_param_gather, Megatron-LM
  // --fp4-param-gather), as Bridge's bf16_with_nvfp4_mixed sets it; the Nemotron 3 Super performance
  // recipes turn it off (perf_recipes/nemotronh/common.py _nemotron_3_super_nvfp4_precision, "Disabled
  // until MCore PR 4358 lands"), which a record says as features.settings.fp4_param_gather: false.
  bool fp4_param_gather = true;

  [[nodiscard]] int model_parallel() const { return tp * pp * cp; }
  // Whether the TP overlap runs: Megatron-LM asserts it only with sequence parallelism, which it
  // turns off at TP 1 (arguments.py), and Megatron-Bridge drops it at TP < 2 or without SP
  // (training/comm_overlap.py _get_model_comm_overlap_cfgs).
  [[nodiscard]] bool tp_comm_overlap_runs() const { return tp_comm_overlap && tp > 1 && sp; }
  [[nodiscard]] int world() const { return tp * pp * cp * dp; }
  // Expert data parallelism (Megatron parallel_state): world / (etp * ep * pp).
  [[nodiscard]] int edp() const {
    const int d = etp * ep * pp;
    return d > 0 ? world() / d : 0;
  }
};

// The expert TP of a layout that sets none (expert_tensor_parallel_size unset). Megatron-Core
// resolves it to TP (core/model_parallel_config.py __post_init__, and parallel_state.py
// initialize_model_parallel). Megatron-Bridge, since PR #4579 (models/transformer_config.py
// _set_moe_expert_tensor_parallel_default, applied by its providers and training/initialize.py), sets
// 1 when EP > 1 and otherwise leaves Megatron-Core's TP. Only a MoE model has experts to split.
enum class EtpDefault { kMegatronCore, kMegatronBridge };
// Bytes per main gradient, held (memory, the RB-EP-TOO-LOW rule) and reduced over DP (time): the
// parameter dtype with Megatron-Core DDP grad_reduce_in_fp32=False (its default and every Bridge perf
// recipe), FP32 with it (Bridge's library recipes).
[[nodiscard]] inline double gradient_bytes(const Layout& l) { return l.grad_reduce_in_fp32 ? 4.0 : 2.0; }

[[nodiscard]] inline int default_etp(const Layout& l, EtpDefault d) {
  return d == EtpDefault::kMegatronBridge && l.ep > 1 ? 1 : l.tp;
}

// Training goal.
enum class Mode { kPretrain, kSft, kPeft };

inline std::string_view mode_name(Mode m) {
  switch (m) {
    case Mode::kPretrain: return "pretrain";
    case Mode::kSft: return "sft";
    case Mode::kPeft: return "peft";
  }
  return "pretrain";
}

// The image budget of a vision-language run: the recipe's `vision:` block, or estimate's
// --max-pixels / --images-per-sample / --vision-graph-patches (docs/model.md "Vision tower").
// max_pixels 0: no images (a text model, or a VLM trained on text); the vision tower is not run.
struct ImageBudget {
  int64_t max_pixels = 0;         // per image (Qwen-VL dataset.task_encoder.max_pixels)
  int images_per_sample = 1;      // images per row (sequence)
  int64_t graph_max_patches = 0;  // Bridge max_vision_cuda_graph_seq_length: the vision CUDA graph pads
                                  // every micro batch to this many patches; 0 = no vision graph
  friend bool operator==(const ImageBudget&, const ImageBudget&) = default;
};

struct Workload {
  Mode mode = Mode::kPretrain;
  int64_t seq = 4096;  // tokens per sequence (row)
  int64_t gbs = 0;     // global batch, sequences per step
  int lora_rank = 16;  // for kPeft
  double tokens_budget = 0;  // tokens to train, for GPU-hours and days; 0 = not asked
  ImageBudget image;         // vision-language runs only
};

// The cluster a layout runs on.
struct Cluster {
  int gpus = 0;
  int gpus_per_node = 0;  // 0 = the hardware's default
};

// torchrun starts the same number of ranks on every node: a GPU count past one node fills whole
// nodes (estimate, plan and launch refuse any other; 0 GPUs per node = not known, not judged).
constexpr bool fills_whole_nodes(int gpus, int gpus_per_node) {
  return gpus_per_node <= 0 || gpus <= gpus_per_node || gpus % gpus_per_node == 0;
}

std::optional<Mode> parse_mode(std::string_view s);  // pretrain | sft | peft | lora
std::optional<Dispatcher> parse_dispatcher(std::string_view s);
std::optional<CpComm> parse_cp_comm(std::string_view s);  // p2p | a2a | allgather
std::optional<CudaGraph> parse_cuda_graph(std::string_view s);
std::optional<Optimizer> parse_optimizer(std::string_view s);  // adam | muon (dist_muon reads as muon)
std::optional<Recompute> parse_recompute(std::string_view s);  // none | selective | full
std::optional<uint32_t> parse_recompute_module(std::string_view s);
std::optional<uint32_t> parse_cuda_graph_scope(std::string_view s);
// Lists ("core_attn,moe_act", "[attn, moe_router]") as a mask: items split at commas and spaces,
// brackets and quotes ignored. On an unknown name: nullopt, with the name in `*bad`.
std::optional<uint32_t> parse_recompute_modules(std::string_view list, std::string* bad);
std::optional<uint32_t> parse_cuda_graph_scopes(std::string_view list, std::string* bad);
// Every known name, for hints and "did you mean": {"core_attn", "moe_act", ...}, "core_attn, moe_act, ...".
std::vector<std::string> recompute_module_names();
std::string recompute_module_choices();
std::string cuda_graph_scope_choices();
std::string_view dispatcher_name(Dispatcher d);
std::string_view cp_comm_name(CpComm c);
// The exchange CP runs: the layout's with CP > 1, the ring (Megatron's default, nothing to exchange)
// at CP 1. What a launch writes, a layout prints and two layouts compare by.
CpComm cp_exchange(const Layout& l);
// The CP degree as layouts are printed: "4", or "4 (a2a)" where CP exchanges other than by the ring.
std::string cp_text(const Layout& l);
std::string_view cuda_graph_name(CudaGraph g);
std::optional<CrossEntropyImpl> parse_cross_entropy_impl(std::string_view s);  // te | native
std::string_view cross_entropy_impl_name(CrossEntropyImpl c);
std::string_view optimizer_name(Optimizer o);
std::string_view recompute_name(Recompute r);
std::string recompute_modules_str(uint32_t mask);  // "core_attn,moe_act"
// Offload modules, as the recompute modules above: "core_attn,attn_proj" <-> a mask of OffloadModule.
std::optional<uint32_t> parse_offload_modules(std::string_view list, std::string* bad);
std::string offload_modules_str(uint32_t mask);
std::string offload_module_choices();
// GEMM modules, as the lists above: "linear_qkv,mtp" <-> a mask of GemmModule.
std::optional<uint32_t> parse_gemm_modules(std::string_view list, std::string* bad);
std::string gemm_modules_str(uint32_t mask);
std::string gemm_module_choices();

}  // namespace rb
