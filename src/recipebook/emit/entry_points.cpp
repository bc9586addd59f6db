// The entry-point tables (entry_points.hpp says why they are C++). Each was read from the file and
// commit in its `source`; to move to a newer commit, run scripts/check_entry_points.py on checkouts of
// Megatron-Bridge and Megatron-LM (it lists every row or choice the source no longer has), update
// the rows, and the tests (tests/entry_points_catalog_test.cpp) re-check every command written.
//
// Megatron-Bridge at 067f987df03b8355b03192d88d70f1709fedf51a (2026-08-22):
//  - scripts/training/run_recipe.py _build_parser: --model | --recipe (one required), --mode
//    {pretrain,sft,lora,dora} (inferred from a conventional recipe name), --step-func, --dataset
//    (choices sorted(DATASET_PRESETS)), the convenience flags, runtime switches. Unknown words go
//    through _collect_overrides: a word starting with '-' is an error, every other must be KEY=VALUE.
//    There is no --hf_path: it existed from f9738626e (2026-03-10) and was removed with the H100 recipe
//    namespace in 4d7ce7908 (#4622, 2026-07-03); the `llm-pretrain-mock` / `llm-finetune` / `vlm-hf`
//    dataset types were replaced by the presets below in e28e1ca37 (#4856, 2026-07-15). The catalog's
//    recipe names (the H100 namespace, megatron.bridge.perf_recipes) exist only after both.
//  - src/megatron/bridge/recipes/utils/dataset_utils.py DATASET_PRESETS and dataset_train_mode.
//  - recipe_runner.py load_recipe passes a recipe only `peft_scheme` and `seq_length`; no recipe
//    function (recipes/, perf_recipes/) takes `hf_path`: each builds its model from its own HF id.
//  - recipe_metadata.py validate_benchmark_recipe_scope: a benchmark recipe rejects --dataset.
//  - scripts/performance/argument_parser.py (run_script.py's parser).
// Megatron-LM at d98e8a64ddf34856e74b24714e3bedb2f5a39553 (2026-08-22): megatron/training/arguments.py
// and the config dataclasses its ArgumentGroupFactory turns into flags (argument_utils.py: a field
// `foo_bar` is --foo-bar, a bool defaulting to True is --no-foo-bar / --disable-foo-bar, a Literal
// gives the choices): core/transformer/transformer_config.py, core/model_parallel_config.py,
// training/config/*.py. --cuda-graph-scope is the hidden, deprecated spelling of --cuda-graph-modules
// (still accepted and migrated by validate_args, including "full_iteration"); recipebook keeps it
// because older Megatron-LM releases know only that one.
#include "recipebook/emit/entry_points.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>

#include "recipebook/emit/launch_script.hpp"

namespace rb {
namespace {

using A = EntryArg;
using V = ArgValue;

// --- Megatron-Bridge scripts/training/run_recipe.py -----------------------------------------------

constexpr auto kModes = std::to_array<std::string_view>({"pretrain", "sft", "lora", "dora"});

struct Preset {
  std::string_view name;
  std::string_view train_mode;  // dataset_train_mode: "pretrain", "finetune", "" (either)
  bool vlm;
};
constexpr auto kPresets = std::to_array<Preset>({
    {"cord-v2", "finetune", true},        {"energon", "", false},
    {"gsm8k", "finetune", false},         {"llava-video-178k", "finetune", true},
    {"local-jsonl", "finetune", false},   {"local-vlm", "finetune", true},
    {"medpix", "finetune", true},         {"megatron-indexed", "pretrain", false},
    {"mock", "pretrain", false},          {"openmathinstruct2", "finetune", false},
    {"openmathinstruct2-thinking", "finetune", false},
    {"raven", "finetune", true},          {"rdr", "finetune", true},
    {"squad", "finetune", false},         {"tulu3", "finetune", false},
});
constexpr auto kPresetNames = [] {
  std::array<std::string_view, kPresets.size()> out{};
  for (size_t i = 0; i < kPresets.size(); ++i) out[i] = kPresets[i].name;
  return out;
}();

constexpr auto kRunRecipeArgs = std::to_array<EntryArg>({
    A{"--model", "", V::kText},
    A{"--recipe", "", V::kText},
    A{"--mode", "", V::kChoice, kModes},
    A{"--step-func", "--step_func", V::kText},
    A{"--dataset", "", V::kChoice, kPresetNames},
    A{"--max_steps", "-ms", V::kInt},
    A{"--global_batch_size", "-gb", V::kInt},
    A{"--micro_batch_size", "-mb", V::kInt},
    A{"--seq_length", "-sl", V::kInt},
    A{"--tensor_model_parallel_size", "-tp", V::kInt},
    A{"--pipeline_model_parallel_size", "-pp", V::kInt},
    A{"--context_parallel_size", "-cp", V::kInt},
    A{"--virtual_pipeline_model_parallel_size", "-vp", V::kInt},
    A{"--expert_model_parallel_size", "-ep", V::kInt},
    A{"--expert_tensor_parallel_size", "-etp", V::kInt},
    A{"--lr", "", V::kFloat},
    A{"--min_lr", "", V::kFloat},
    A{"--warmup_iters", "", V::kInt},
    A{"--pretrained_checkpoint", "", V::kText},
    A{"--save_dir", "", V::kText},
    A{"--load_dir", "", V::kText},
    A{"--save_interval", "", V::kInt},
    A{"--dry-run", "--dry_run", V::kNone},
    A{"--deterministic", "", V::kNone},
    A{"--dump-env", "--dump_env", V::kNone},
});

// The ConfigContainer fields (src/megatron/bridge/training/config.py) bridge_overrides writes.
constexpr auto kOverrideKeys = std::to_array<std::string_view>({
    // cfg.model: layout (MCore ModelParallelConfig via GPTModelProvider)
    "model.tensor_model_parallel_size", "model.pipeline_model_parallel_size",
    "model.virtual_pipeline_model_parallel_size", "model.context_parallel_size", "model.cp_comm_type",
    "model.expert_model_parallel_size", "model.expert_tensor_parallel_size", "model.sequence_parallel",
    "model.num_layers_in_first_pipeline_stage", "model.num_layers_in_last_pipeline_stage",
    "model.pipeline_model_parallel_layout",
    "model.seq_length",
    // recompute and offload
    "model.recompute_granularity", "model.recompute_method", "model.recompute_num_layers",
    "model.recompute_modules", "model.cpu_offloading", "model.cpu_offloading_num_layers",
    "model.fine_grained_activation_offloading", "model.offload_modules", "model.activation_offload_fraction",
    "optimizer.optimizer_cpu_offload", "optimizer.optimizer_offload_fraction",
    "optimizer.overlap_cpu_optimizer_d2h_h2d",
    // MoE dispatcher
    "model.moe_token_dispatcher_type", "model.moe_flex_dispatcher_backend",
    // CUDA graphs: impl, scope (seed 004's spelling; Bridge's utils/cuda_graph.py maps it to
    // cuda_graph_modules on newer Megatron-Core), and the TE RNG tracker they require
    "model.cuda_graph_impl", "model.cuda_graph_scope", "model.use_te_rng_tracker", "rng.te_rng_tracker",
    "rerun_state_machine.check_for_nan_in_loss",
    // train, dataset
    "train.global_batch_size", "train.micro_batch_size", "train.train_iters", "dataset.seq_length",
    // ddp, optimizer, comm_overlap, mixed_precision
    "ddp.use_distributed_optimizer", "optimizer.use_distributed_optimizer", "optimizer.optimizer", "ddp.use_megatron_fsdp",
    "ddp.data_parallel_sharding_strategy", "ddp.grad_reduce_in_fp32", "optimizer.use_precision_aware_optimizer",
    "ddp.num_distributed_optimizer_instances", "ddp.outer_dp_sharding_strategy",
    "model.account_for_embedding_in_pipeline_split", "model.account_for_loss_in_pipeline_split",
    "comm_overlap.overlap_moe_expert_parallel_comm", "comm_overlap.tp_comm_overlap", "mixed_precision",
    "mixed_precision.first_last_layers_bf16", "mixed_precision.num_layers_at_start_in_bf16",
    "mixed_precision.num_layers_at_end_in_bf16", "mixed_precision.fp8_dot_product_attention",
    "mixed_precision.fp4_param_gather", "model.use_transformer_engine_op_fuser",
    // the loss and dropout (MCore ModelParallelConfig, TransformerConfig)
    "model.cross_entropy_loss_fusion", "model.cross_entropy_fusion_impl", "model.hidden_dropout",
    "model.attention_dropout",
});

// --- Megatron-LM pretrain_gpt.py ---------------------------------------------------------------

constexpr auto kPositionEmbedding =
    std::to_array<std::string_view>({"learned_absolute", "rope", "yarn", "mrope", "relative", "none"});
constexpr auto kNormalization = std::to_array<std::string_view>({"LayerNorm", "RMSNorm"});
constexpr auto kSoftmax = std::to_array<std::string_view>({"vanilla", "off-by-one", "learnable"});
constexpr auto kFp8Format = std::to_array<std::string_view>({"e4m3", "hybrid"});
constexpr auto kFp8Recipe = std::to_array<std::string_view>({"tensorwise", "delayed", "mxfp8", "blockwise", "custom"});
constexpr auto kAmaxAlgo = std::to_array<std::string_view>({"most_recent", "max"});
constexpr auto kFp4Format = std::to_array<std::string_view>({"e2m1"});
constexpr auto kFp4Recipe = std::to_array<std::string_view>({"nvfp4", "custom"});
constexpr auto kGranularity = std::to_array<std::string_view>({"full", "selective"});
constexpr auto kRecomputeMethod = std::to_array<std::string_view>({"uniform", "block"});
// TransformerConfig.__post_init__ allowed_modules for selective recompute.
constexpr auto kRecomputeModules = std::to_array<std::string_view>(
    {"core_attn", "moe_act", "layernorm", "mla_up_proj", "mlp", "moe", "shared_experts", "gdn_norm_out",
     "gdp_in_proj", "gdp_qkv", "mhc"});
// TransformerConfig offload_modules (transformer_config.py allowed_modules).
constexpr auto kOffloadModules = std::to_array<std::string_view>(
    {"attn_norm", "qkv_linear", "core_attn", "attn_proj", "mlp_norm", "expert_fc1", "moe_act", "fused_group_mlp",
     "gdp_qkv"});
constexpr auto kDispatcher = std::to_array<std::string_view>({"allgather", "alltoall", "flex"});
// Megatron-Core cp_comm_type values (arguments.py --cp-comm-type; TE context_parallel.py).
constexpr auto kCpComm = std::to_array<std::string_view>({"p2p", "a2a", "allgather", "a2a+p2p"});
constexpr auto kFlexBackend = std::to_array<std::string_view>({"deepep", "hybridep", "ncclep"});
constexpr auto kGraphImpl = std::to_array<std::string_view>({"none", "local", "transformer_engine", "full_iteration"});
// _parse_cuda_graph_modules_arg: CudaGraphModule names, and the deprecated whole-graph spellings.
constexpr auto kGraphScope = std::to_array<std::string_view>(
    {"attn", "mlp", "moe", "moe_router", "moe_preprocess", "mamba", "full", "full_iteration", "full_iteration_inference"});
// arguments.py --optimizer choices.
constexpr auto kOptimizer = std::to_array<std::string_view>({"adam", "sgd", "muon", "dist_muon", "lion", "soap", "adaptive_muon"});
constexpr auto kMuonTpMode = std::to_array<std::string_view>({"blockwise", "duplicated", "distributed"});
constexpr auto kSharding = std::to_array<std::string_view>({"no_shard", "optim", "optim_grads", "optim_grads_params"});
constexpr auto kOuterSharding = std::to_array<std::string_view>({"no_shard", "optim"});
constexpr auto kCkptFormat = std::to_array<std::string_view>({"torch", "torch_dist", "torch_dcp", "fsdp_dtensor"});
constexpr auto kTokenizer = std::to_array<std::string_view>(
    {"BertWordPieceLowerCase", "BertWordPieceCase", "GPT2BPETokenizer", "SentencePieceTokenizer",
     "GPTSentencePieceTokenizer", "HuggingFaceTokenizer", "Llama2Tokenizer", "TikTokenizer", "MultimodalTokenizer",
     "NullTokenizer", "NullMultimodalTokenizer", "SFTTokenizer"});
constexpr auto kCrossEntropyImpl = std::to_array<std::string_view>({"native", "te"});
constexpr auto kRopeType = std::to_array<std::string_view>({"rope", "yarn"});
constexpr auto kRouterScore = std::to_array<std::string_view>({"softmax", "sigmoid", "sqrtsoftplus"});
constexpr auto kDecay = std::to_array<std::string_view>({"constant", "linear", "cosine", "inverse-square-root", "WSD"});

constexpr auto kPretrainGptArgs = std::to_array<EntryArg>({
    // network size, attention, MLA, MoE shape
    A{"--num-layers", "", V::kInt}, A{"--hidden-size", "", V::kInt}, A{"--ffn-hidden-size", "", V::kInt},
    A{"--num-attention-heads", "", V::kInt}, A{"--group-query-attention", "", V::kNone},
    A{"--num-query-groups", "", V::kInt}, A{"--kv-channels", "", V::kInt},
    A{"--max-position-embeddings", "", V::kInt},
    A{"--position-embedding-type", "", V::kChoice, kPositionEmbedding},
    A{"--normalization", "", V::kChoice, kNormalization}, A{"--swiglu", "", V::kNone},
    A{"--quick-geglu", "", V::kNone}, A{"--glu-linear-offset", "", V::kFloat},
    A{"--activation-func-clamp-value", "", V::kFloat},
    A{"--squared-relu", "", V::kNone}, A{"--untie-embeddings-and-output-weights", "", V::kNone},
    A{"--disable-bias-linear", "", V::kNone}, A{"--add-qkv-bias", "", V::kNone}, A{"--qk-layernorm", "", V::kNone},
    A{"--window-size", "", V::kText}, A{"--window-attn-skip-freq", "", V::kText},
    A{"--softmax-type", "", V::kChoice, kSoftmax}, A{"--multi-latent-attention", "", V::kNone},
    A{"--q-lora-rank", "", V::kInt}, A{"--kv-lora-rank", "", V::kInt}, A{"--qk-head-dim", "", V::kInt},
    A{"--qk-pos-emb-head-dim", "", V::kInt}, A{"--v-head-dim", "", V::kInt}, A{"--mtp-num-layers", "", V::kInt},
    A{"--num-experts", "", V::kInt}, A{"--moe-router-topk", "", V::kInt}, A{"--moe-ffn-hidden-size", "", V::kInt},
    A{"--moe-shared-expert-intermediate-size", "", V::kInt}, A{"--moe-layer-freq", "", V::kText},
    A{"--moe-grouped-gemm", "", V::kNone},
    // numerics: rotary base and scaling (_add_network_size_args, _add_mla_args, --rope-type and
    // --no-rope-fusion from _add_training_args), norm epsilon, dropout and router scoring
    // (TransformerConfig layernorm_epsilon, attention_dropout, hidden_dropout, moe_router_*)
    A{"--rotary-base", "", V::kInt}, A{"--rotary-percent", "", V::kFloat}, A{"--use-rope-scaling", "", V::kNone},
    A{"--rope-scaling-factor", "", V::kFloat}, A{"--rotary-seq-len-interpolation-factor", "", V::kInt},
    A{"--rotary-scaling-factor", "", V::kFloat}, A{"--mscale", "", V::kFloat}, A{"--mscale-all-dim", "", V::kFloat},
    A{"--yarn-original-max-position-embeddings", "", V::kInt}, A{"--yarn-beta-fast", "", V::kFloat},
    A{"--yarn-beta-slow", "", V::kFloat}, A{"--no-yarn-correction-range-round-to-int", "", V::kNone},
    A{"--rope-type", "", V::kChoice, kRopeType}, A{"--no-rope-fusion", "", V::kNone},
    A{"--norm-epsilon", "", V::kFloat}, A{"--attention-dropout", "", V::kFloat}, A{"--hidden-dropout", "", V::kFloat},
    A{"--moe-router-score-function", "", V::kChoice, kRouterScore}, A{"--moe-router-enable-expert-bias", "", V::kNone},
    A{"--moe-router-topk-scaling-factor", "", V::kFloat}, A{"--moe-router-num-groups", "", V::kInt},
    A{"--moe-router-group-topk", "", V::kInt}, A{"--moe-router-pre-softmax", "", V::kNone},
    // layout
    A{"--tensor-model-parallel-size", "", V::kInt}, A{"--pipeline-model-parallel-size", "", V::kInt},
    A{"--num-virtual-stages-per-pipeline-rank", "", V::kInt},
    A{"--pipeline-model-parallel-layout", "", V::kText},
    A{"--decoder-first-pipeline-num-layers", "", V::kInt}, A{"--decoder-last-pipeline-num-layers", "", V::kInt},
    A{"--account-for-embedding-in-pipeline-split", "", V::kNone},
    A{"--account-for-loss-in-pipeline-split", "", V::kNone}, A{"--context-parallel-size", "", V::kInt},
    A{"--cp-comm-type", "", V::kChoice, kCpComm},
    A{"--expert-model-parallel-size", "", V::kInt}, A{"--expert-tensor-parallel-size", "", V::kInt},
    A{"--sequence-parallel", "", V::kNone},
    // batch and schedule
    A{"--micro-batch-size", "", V::kInt}, A{"--global-batch-size", "", V::kInt}, A{"--seq-length", "", V::kInt},
    A{"--train-iters", "", V::kInt},
    // precision
    A{"--bf16", "", V::kNone}, A{"--fp8-format", "", V::kChoice, kFp8Format},
    A{"--fp8-recipe", "", V::kChoice, kFp8Recipe}, A{"--fp8-param-gather", "", V::kNone},
    A{"--first-last-layers-bf16", "", V::kNone}, A{"--num-layers-at-start-in-bf16", "", V::kInt},
    A{"--num-layers-at-end-in-bf16", "", V::kInt}, A{"--fp8-amax-history-len", "", V::kInt},
    A{"--fp8-amax-compute-algo", "", V::kChoice, kAmaxAlgo}, A{"--reuse-grad-buf-for-mxfp8-param-ag", "", V::kNone},
    A{"--fp4-format", "", V::kChoice, kFp4Format}, A{"--fp4-recipe", "", V::kChoice, kFp4Recipe},
    A{"--fp4-param-gather", "", V::kNone},
    // recompute, offload
    A{"--recompute-granularity", "", V::kChoice, kGranularity},
    A{"--recompute-method", "", V::kChoice, kRecomputeMethod}, A{"--recompute-num-layers", "", V::kInt},
    A{"--recompute-modules", "", V::kChoices, kRecomputeModules}, A{"--cpu-offloading-num-layers", "", V::kInt},
    A{"--fine-grained-activation-offloading", "", V::kNone}, A{"--offload-modules", "", V::kChoices, kOffloadModules},
    A{"--activation-offload-fraction", "", V::kFloat}, A{"--optimizer-cpu-offload", "", V::kNone},
    A{"--optimizer-offload-fraction", "", V::kFloat}, A{"--overlap-cpu-optimizer-d2h-h2d", "", V::kNone},
    // MoE dispatch and overlap
    A{"--moe-token-dispatcher-type", "", V::kChoice, kDispatcher},
    A{"--moe-flex-dispatcher-backend", "", V::kChoice, kFlexBackend},
    A{"--overlap-moe-expert-parallel-comm", "", V::kNone}, A{"--use-transformer-engine-op-fuser", "", V::kNone},
    // CUDA graphs
    A{"--cuda-graph-impl", "", V::kChoice, kGraphImpl}, A{"--cuda-graph-scope", "", V::kChoices, kGraphScope},
    A{"--te-rng-tracker", "", V::kNone}, A{"--no-check-for-nan-in-loss-and-grad", "", V::kNone},
    // data parallel, optimizer, overlap
    A{"--optimizer", "", V::kChoice, kOptimizer}, A{"--muon-tp-mode", "", V::kChoice, kMuonTpMode},
    A{"--use-distributed-optimizer", "", V::kNone}, A{"--use-megatron-fsdp", "", V::kNone},
    A{"--data-parallel-sharding-strategy", "", V::kChoice, kSharding},
    A{"--num-distributed-optimizer-instances", "", V::kInt}, A{"--outer-dp-sharding-strategy", "", V::kChoice, kOuterSharding},
    A{"--no-gradient-accumulation-fusion", "", V::kNone}, A{"--ckpt-format", "", V::kChoice, kCkptFormat},
    A{"--use-precision-aware-optimizer", "", V::kNone}, A{"--accumulate-allreduce-grads-in-fp32", "", V::kNone},
    A{"--grad-reduce-in-bf16", "", V::kNone},
    A{"--tp-comm-overlap", "", V::kNone},
    // the loss and dropout (ModelParallelConfig cross_entropy_*, TransformerConfig *_dropout)
    A{"--cross-entropy-loss-fusion", "", V::kNone}, A{"--cross-entropy-fusion-impl", "", V::kChoice, kCrossEntropyImpl},
    A{"--hidden-dropout", "", V::kFloat}, A{"--attention-dropout", "", V::kFloat},
    // data, tokenizer, logging, learning rate
    A{"--mock-data", "", V::kNone}, A{"--data-path", "", V::kTexts},
    A{"--tokenizer-type", "", V::kChoice, kTokenizer}, A{"--tokenizer-model", "", V::kText},
    A{"--vocab-size", "", V::kInt}, A{"--log-interval", "", V::kInt}, A{"--log-throughput", "", V::kNone},
    A{"--lr", "", V::kFloat}, A{"--min-lr", "", V::kFloat}, A{"--lr-decay-style", "", V::kChoice, kDecay},
    A{"--lr-warmup-fraction", "", V::kFloat}, A{"--weight-decay", "", V::kFloat}, A{"--clip-grad", "", V::kFloat},
});

// --- Megatron-Bridge scripts/performance/run_script.py (argument_parser.py), the arguments of
// REFERENCES.md E's list -----------------------------------------------------------------------

constexpr auto kPerfGpus = std::to_array<std::string_view>({"h100", "b200", "b300", "gb200", "gb300", "vr200", "r100"});
constexpr auto kPerfDtype = std::to_array<std::string_view>({"bf16", "fp8_cs", "fp8_mx", "fp8_sc", "nvfp4"});
constexpr auto kPerfData = std::to_array<std::string_view>({"mock", "rp2", "squad", "squad_packed", "c4"});
constexpr auto kPerfTask = std::to_array<std::string_view>({"pretrain", "sft", "peft"});
constexpr auto kPerfDomain = std::to_array<std::string_view>({"llm", "vlm", "qwen3vl", "diffusion"});
constexpr auto kBoolArg = std::to_array<std::string_view>({"true", "1", "t", "yes", "y", "false", "0", "f", "no", "n"});

constexpr auto kRunScriptArgs = std::to_array<EntryArg>({
    A{"--domain", "", V::kChoice, kPerfDomain}, A{"--model_family_name", "-m", V::kText},
    A{"--model_recipe_name", "-mr", V::kText}, A{"--use_recipes", "", V::kNone},
    A{"--num_gpus", "-ng", V::kInt}, A{"--gpus_per_node", "-gn", V::kInt},
    A{"--gpu", "-g", V::kChoice, kPerfGpus}, A{"--compute_dtype", "-c", V::kChoice, kPerfDtype},
    A{"--task", "", V::kChoice, kPerfTask}, A{"--config_variant", "-cv", V::kText},
    A{"--data", "", V::kChoice, kPerfData}, A{"--max_steps", "-ms", V::kInt},
    A{"--global_batch_size", "-gb", V::kInt}, A{"--micro_batch_size", "-mb", V::kInt},
    A{"--seq_length", "-sl", V::kInt}, A{"--tensor_model_parallel_size", "-tp", V::kInt},
    A{"--pipeline_model_parallel_size", "-pp", V::kInt}, A{"--context_parallel_size", "-cp", V::kInt},
    A{"--virtual_pipeline_model_parallel_size", "-vp", V::kText},  // an int or "None"
    A{"--expert_model_parallel_size", "-ep", V::kInt}, A{"--expert_tensor_parallel_size", "-et", V::kInt},
    A{"--cuda_graph_impl", "", V::kText}, A{"--cuda_graph_scope", "", V::kText},
    A{"--moe_flex_dispatcher_backend", "", V::kText}, A{"--moe_a2a_overlap", "", V::kChoice, kBoolArg},
    A{"--recompute_num_layers", "-rl", V::kInt}, A{"--activation_offload_layers", "-ol", V::kInt},
    A{"--recompute_modules", "", V::kText}, A{"--use_megatron_fsdp", "", V::kChoice, kBoolArg},
    A{"--nccl_ub", "", V::kChoice, kBoolArg}, A{"--use_tokendrop", "", V::kChoice, kBoolArg},
    A{"--hf_token", "-hf", V::kText}, A{"--container_image", "-i", V::kText}, A{"--account", "-a", V::kText},
    A{"--partition", "-p", V::kText}, A{"--time_limit", "-t", V::kText}, A{"--dryrun", "-d", V::kNone},
    A{"--enable_nsys", "-en", V::kNone}, A{"--dump_env", "", V::kNone}, A{"--deterministic", "", V::kNone},
});

bool is_int(std::string_view s) {
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

bool is_float(std::string_view s) {
  if (s.empty()) return false;
  size_t used = 0;
  try {
    (void)std::stod(std::string(s), &used);
  } catch (...) {
    return false;
  }
  return used == s.size();
}

bool looks_like_flag(std::string_view w) { return w.size() > 1 && w[0] == '-' && !is_float(w); }

std::string choices_text(const EntryArg& a) {
  std::string out;
  for (auto c : a.choices) out += (out.empty() ? "" : ", ") + std::string(c);
  return out;
}

Result<void> check_value(const EntryPoint& e, const EntryArg& a, std::string_view v) {
  auto bad = [&](std::string_view what) {
    return fail(fmt::format("{} {} takes {}, not '{}'", e.script, a.flag, what, v), {std::string(e.source)});
  };
  switch (a.value) {
    case V::kNone: return {};
    case V::kInt: return is_int(v) ? Result<void>{} : bad("an integer");
    case V::kFloat: return is_float(v) ? Result<void>{} : bad("a number");
    case V::kText:
    case V::kTexts: return v.empty() ? bad("a value") : Result<void>{};
    case V::kChoice:
    case V::kChoices: return has_choice(a, v) ? Result<void>{} : bad("one of " + choices_text(a));
  }
  return {};
}

}  // namespace

const EntryPoint& run_recipe_entry() {
  static const EntryPoint e{"scripts/training/run_recipe.py",
                            "NVIDIA-NeMo/Megatron-Bridge@067f987df03b8355b03192d88d70f1709fedf51a:scripts/training/run_recipe.py",
                            kRunRecipeArgs, true, kOverrideKeys};
  return e;
}

const EntryPoint& pretrain_gpt_entry() {
  static const EntryPoint e{"pretrain_gpt.py",
                            "NVIDIA/Megatron-LM@d98e8a64ddf34856e74b24714e3bedb2f5a39553:megatron/training/arguments.py",
                            kPretrainGptArgs, false, {}};
  return e;
}

const EntryPoint& run_script_entry() {
  static const EntryPoint e{"scripts/performance/run_script.py",
                            "NVIDIA-NeMo/Megatron-Bridge@067f987df03b8355b03192d88d70f1709fedf51a:scripts/performance/argument_parser.py",
                            kRunScriptArgs, true, {}};
  return e;
}

const EntryArg* find_arg(const EntryPoint& e, std::string_view flag) {
  for (const auto& a : e.args)
    if (a.flag == flag || (!a.alias.empty() && a.alias == flag)) return &a;
  return nullptr;
}

bool has_choice(const EntryArg& a, std::string_view value) {
  return std::find(a.choices.begin(), a.choices.end(), value) != a.choices.end();
}

Result<void> check_entry_words(const EntryPoint& e, std::span<const std::string> words, bool known_keys) {
  if (words.empty() || words[0] != e.script)
    return fail(fmt::format("the command does not start with {}", e.script), {std::string(e.source)});
  size_t i = 1;
  while (i < words.size()) {
    const std::string& w = words[i++];
    if (is_raw_word(w)) continue;
    if (looks_like_flag(w)) {
      const size_t eq = w.find('=');
      const std::string flag = w.substr(0, eq);
      const EntryArg* a = find_arg(e, flag);
      if (a == nullptr)
        return fail(fmt::format("{} has no argument {}", e.script, flag), {std::string(e.source)});
      if (eq != std::string::npos) {  // --flag=value
        if (a->value == V::kNone) return fail(fmt::format("{} {} takes no value", e.script, flag), {std::string(e.source)});
        if (auto ok = check_value(e, *a, std::string_view(w).substr(eq + 1)); !ok) return ok;
        continue;
      }
      if (a->value == V::kNone) continue;
      const bool many = a->value == V::kChoices || a->value == V::kTexts;
      size_t n = 0;
      // A value word is anything that is not a flag; a list stops at the next flag or override.
      while (i < words.size() && !looks_like_flag(words[i]) && !is_raw_word(words[i]) &&
             !(e.overrides && words[i].find('=') != std::string::npos)) {
        if (auto ok = check_value(e, *a, words[i]); !ok) return ok;
        ++i;
        ++n;
        if (!many) break;
      }
      if (n == 0 && a->value != V::kTexts)
        return fail(fmt::format("{} {} is missing its value", e.script, flag), {std::string(e.source)});
      continue;
    }
    if (!e.overrides)
      return fail(fmt::format("{} takes no positional argument '{}'", e.script, w), {std::string(e.source)});
    const size_t eq = w.find('=');
    if (eq == std::string::npos || eq == 0)
      return fail(fmt::format("{} takes trailing overrides as KEY=VALUE, not '{}'", e.script, w), {std::string(e.source)});
    std::string_view key = std::string_view(w).substr(0, eq);
    while (!key.empty() && (key[0] == '+' || key[0] == '~')) key.remove_prefix(1);
    if (known_keys && std::find(e.override_keys.begin(), e.override_keys.end(), key) == e.override_keys.end())
      return fail(fmt::format("'{}' is not a ConfigContainer key recipebook knows", key), {std::string(e.source)});
  }
  return {};
}

std::string_view bridge_dataset_train_mode(std::string_view preset) {
  for (const auto& p : kPresets)
    if (p.name == preset) return p.train_mode;
  return {};
}

bool bridge_dataset_is_vlm(std::string_view preset) {
  for (const auto& p : kPresets)
    if (p.name == preset) return p.vlm;
  return false;
}

std::span<const std::string_view> bridge_hf_path_recipes() {
  // None at the table's commit (see the file's header). Between f9738626e and 4d7ce7908 run_recipe.py had
  // --hf_path and forwarded it to a recipe whose signature named `hf_path` (or took **kwargs).
  return {};
}

}  // namespace rb
