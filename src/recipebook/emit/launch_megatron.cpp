// Megatron-LM: `pretrain_gpt.py` and its arguments for the layout. Flag names and choices are those of
// megatron/training/arguments.py (NVIDIA/Megatron-LM main, read 2026-11): _add_distributed_args,
// _add_training_args (recompute), _add_transformer_engine_args (fp8/fp4), _add_inference_args (CUDA
// graphs), _add_moe_args, _add_network_size_args, _add_mla_args. Every flag written here, with its
// values, must be in pretrain_gpt.py's table (entry_points.cpp, with the source commit), which
// check_megatron_entry and the tests check.
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "recipebook/core/layout_fields.hpp"
#include "recipebook/emit/entry_points.hpp"
#include "recipebook/emit/launch.hpp"
#include "recipebook/emit/launch_script.hpp"
#include "recipebook/rules/gpu_arch.hpp"

namespace rb {
namespace {

void add(std::vector<std::string>& out, std::string_view flag) { out.emplace_back(flag); }
template <typename T>
void add(std::vector<std::string>& out, std::string_view flag, const T& value) {
  out.emplace_back(flag);
  out.push_back(fmt::format("{}", value));
}

// A plain field as its row of the layout field table spells it for Megatron-LM: an int as flag and
// value, a switch as the flag when on.
void add_field(std::vector<std::string>& out, std::string_view field, const Layout& l) {
  const LayoutField& r = layout_field(field);
  if (r.kind == FieldKind::kBool) {
    if (l.*r.bool_member) add(out, r.megatron);
  } else {
    add(out, r.megatron, field_text(r, l));
  }
}

bool is_moe(const LaunchSpec& spec) {
  if (spec.model_ir && spec.model_ir->has_architecture) return spec.model_ir->is_moe();
  return spec.layout.ep > 1;
}

// A Megatron pattern list ("[1,0,1,...]"), the form --moe-layer-freq and --window-attn-skip-freq
// accept (arguments.py moe_freq_type / _eval_pattern).
template <typename Pred>
std::string pattern(const Model& m, Pred pred) {
  std::string out = "[";
  for (size_t i = 0; i < m.layers.size(); ++i) {
    if (i > 0) out += ',';
    out += pred(m.layers[i]) ? '1' : '0';
  }
  out += ']';
  return out;
}

void add_precision(std::vector<std::string>& out, const Layout& l) {
  // The settings of Megatron-Bridge's named mixed-precision recipes (REFERENCES.md D), in Megatron-LM flags.
  add(out, "--bf16");
  switch (l.precision) {
    case Precision::kBf16: break;
    // bf16_with_fp8_current_scaling_mixed: hybrid, tensorwise. Its first/last BF16 layers are the
    // layout's (below), as Bridge's performance recipes turn them off (perf_recipes/_common.py
    // _perf_precision): a bare --first-last-layers-bf16 would keep Megatron-Core's default one layer
    // at each end in BF16 (transformer_config.py), which the layout does not have.
    case Precision::kFp8Cs:
      add(out, "--fp8-format", "hybrid");
      add(out, "--fp8-recipe", "tensorwise");
      add(out, "--fp8-param-gather");
      break;
    case Precision::kFp8Ds:  // bf16_with_fp8_delayed_scaling_mixed: hybrid, delayed, amax history 1024, max
      add(out, "--fp8-format", "hybrid");
      add(out, "--fp8-recipe", "delayed");
      add(out, "--fp8-amax-history-len", 1024);
      add(out, "--fp8-amax-compute-algo", "max");
      break;
    case Precision::kFp8Blockwise:  // bf16_with_fp8_subchannel_scaling_mixed: hybrid, blockwise
      add(out, "--fp8-format", "hybrid");
      add(out, "--fp8-recipe", "blockwise");
      break;
    case Precision::kMxfp8:  // bf16_with_mxfp8_mixed: e4m3, mxfp8, fp8 param gather, reuse grad buffer
      add(out, "--fp8-format", "e4m3");
      add(out, "--fp8-recipe", "mxfp8");
      add(out, "--fp8-param-gather");
      add(out, "--reuse-grad-buf-for-mxfp8-param-ag");
      break;
    case Precision::kNvfp4:  // bf16_with_nvfp4_mixed: e2m1, nvfp4, fp4 param gather unless the record turns it off
      add(out, "--fp4-format", "e2m1");
      add(out, "--fp4-recipe", "nvfp4");
      if (l.fp4_param_gather) add(out, "--fp4-param-gather");
      break;
  }
}

}  // namespace

std::span<const std::string_view> megatron_flags() {
  static const std::vector<std::string_view> flags = [] {
    std::vector<std::string_view> out;
    for (const auto& a : pretrain_gpt_entry().args) out.push_back(a.flag);
    return out;
  }();
  return flags;
}

Result<std::vector<std::string>> megatron_model_args(const LaunchSpec& spec) {
  if (!spec.model_ir) return fail("the model's architecture is not known to recipebook");
  const Model& m = *spec.model_ir;
  if (!m.has_architecture) return fail(fmt::format("the catalog has no architecture for {}", m.name));
  if (m.layers.empty()) return fail(fmt::format("{} has no layers", m.name));
  // A config.json whose model_type recipebook does not know is sized by its fields, but what those
  // do not say (LayerNorm or RMSNorm, pre- or post-norm, parallel blocks, QK norm) would be guessed
  // here: the flags are not written (a Cohere or Phi-MoE config trained as an RMSNorm Llama).
  if (!m.assumptions.empty())
    return fail(fmt::format("{}'s architecture was read with assumptions ({}), which model flags would turn into guesses",
                            m.name, m.assumptions.front()));
  const MixerKind mixer = m.layers.front().mixer;
  for (const auto& l : m.layers) {
    if (l.mixer != MixerKind::kAttention && l.mixer != MixerKind::kMla)
      return fail(fmt::format("{} mixes GDN or Mamba layers, which pretrain_gpt.py flags do not describe", m.name));
    if (l.mixer != mixer) return fail(fmt::format("{} mixes attention kinds across layers", m.name));
  }
  if (m.activation == Activation::kGeglu) return fail(fmt::format("{} uses GeGLU, which has no flag", m.name));
  if (m.attn.output_gate) return fail(fmt::format("{} uses gated attention, which has no flag", m.name));
  if (m.vision.layers > 0) return fail(fmt::format("{} is a vision-language model (pretrain_gpt.py is text only)", m.name));

  std::vector<std::string> out;
  add(out, "--num-layers", m.num_layers());
  add(out, "--hidden-size", m.hidden);
  if (m.ffn > 0) add(out, "--ffn-hidden-size", m.ffn);
  add(out, "--num-attention-heads", m.attn.heads);
  if (mixer == MixerKind::kMla) {
    add(out, "--multi-latent-attention");
    if (m.mla.q_lora_rank > 0) add(out, "--q-lora-rank", m.mla.q_lora_rank);
    add(out, "--kv-lora-rank", m.mla.kv_lora_rank);
    add(out, "--qk-head-dim", m.mla.qk_nope_dim);
    add(out, "--qk-pos-emb-head-dim", m.mla.qk_rope_dim);
    add(out, "--v-head-dim", m.mla.v_dim);
  } else {
    if (m.attn.kv_heads > 0 && m.attn.kv_heads < m.attn.heads) {
      add(out, "--group-query-attention");
      add(out, "--num-query-groups", m.attn.kv_heads);
    }
    if (m.attn.head_dim > 0 && m.attn.heads > 0 && m.attn.head_dim * m.attn.heads != m.hidden)
      add(out, "--kv-channels", m.attn.head_dim);
  }
  int window = 0;
  bool mixed_windows = false;
  for (const auto& l : m.layers) {
    if (l.window > 0 && window > 0 && l.window != window) return fail(fmt::format("{} uses several window sizes", m.name));
    if (l.window > 0) window = l.window;
    if (l.window == 0) mixed_windows = true;
  }
  if (window > 0) {
    // A Hugging Face sliding_window counts the token itself; Megatron-Core's window_size is (left,
    // right) tokens besides it: (W - 1, 0), as Megatron-Bridge converts it (models/conversion/utils.py
    // mcore_to_hf_window_size; gpt_oss_bridge.py, gemma2_bridge.py).
    add(out, "--window-size", fmt::format("{},0", window - 1));
    if (mixed_windows) add(out, "--window-attn-skip-freq", pattern(m, [](const LayerSpec& l) { return l.window > 0; }));
  }
  if (m.attn.sinks) add(out, "--softmax-type", "learnable");
  add(out, "--max-position-embeddings", std::max<int64_t>(m.max_position, spec.seq));
  const MegatronNumerics numerics = megatron_numerics(m);
  add(out, "--position-embedding-type", numerics.position_type);
  out.insert(out.end(), numerics.args.begin(), numerics.args.end());
  add(out, "--normalization", m.norm == NormKind::kRms ? "RMSNorm" : "LayerNorm");
  out.insert(out.end(), numerics.activation.begin(), numerics.activation.end());
  if (!m.tied_embeddings) add(out, "--untie-embeddings-and-output-weights");
  if (!m.mlp_bias && !m.attn.out_bias) add(out, "--disable-bias-linear");
  if (m.attn.qkv_bias) add(out, "--add-qkv-bias");
  // MLA's q_a_layernorm and kv_a_layernorm (which the parameter count holds) exist in Megatron-Core
  // only under --qk-layernorm (gpt_layer_specs.py: the q/kv up projections become layer-norm linears),
  // as Megatron-Bridge's DeepSeek, Kimi and GLM-5 bridges set qk_layernorm = True.
  if (m.attn.qk_norm || mixer == MixerKind::kMla) add(out, "--qk-layernorm");
  if (m.is_moe()) {
    add(out, "--num-experts", m.moe.experts);
    add(out, "--moe-router-topk", m.moe.top_k);
    add(out, "--moe-ffn-hidden-size", m.moe.ffn);
    if (m.moe.shared_experts > 0 && m.moe.shared_ffn > 0)
      add(out, "--moe-shared-expert-intermediate-size", m.moe.shared_ffn);
    if (m.count_layers(FfnKind::kMoe) != m.num_layers())
      add(out, "--moe-layer-freq", pattern(m, [](const LayerSpec& l) { return l.ffn == FfnKind::kMoe; }));
    add(out, "--moe-grouped-gemm");
  }
  if (m.mtp_layers > 0) add(out, "--mtp-num-layers", m.mtp_layers);
  return out;
}

Layout megatron_lm_layout(Layout l) {
  // arguments.py L1697: `assert not (args.cross_entropy_loss_fusion and args.cross_entropy_fusion_impl == 'te')`.
  if (l.cross_entropy_loss_fusion) l.cross_entropy_fusion_impl = CrossEntropyImpl::kNative;
  return l;
}

std::string megatron_lm_layout_note(const Layout& l) {
  if (megatron_lm_layout(l).cross_entropy_fusion_impl == l.cross_entropy_fusion_impl || !l.cross_entropy_loss_fusion)
    return {};
  return "\n# The loss: the layout fuses it with Transformer Engine's cross entropy, which Megatron-LM refuses\n"
         "# (arguments.py: \"disabled due to stability issues\"), so TRAIN_ARGS fuses it with Megatron-Core's\n"
         "# native implementation, whose logits take 4n + 2 bytes per token and vocabulary entry, not TE's 2n\n"
         "# (the memory launch estimated is this one's).\n";
}

std::vector<std::string> megatron_args(const LaunchSpec& spec) {
  std::vector<std::string> out{"pretrain_gpt.py"};
  if (auto model_args = megatron_model_args(spec))
    out.insert(out.end(), model_args->begin(), model_args->end());
  else
    out.emplace_back(kModelArgsWord);
  const Layout l = megatron_lm_layout(spec.layout);
  add_field(out, "tp", l);
  add_field(out, "pp", l);
  // --pipeline-model-parallel-layout sets VP itself and excludes --num-virtual-stages-per-pipeline-rank
  // (megatron/training/arguments.py).
  if (!l.pipeline_layout.empty())
    add_field(out, "pipeline_layout", l);
  else if (l.vp > 1)
    add_field(out, "vp", l);
  if (l.first_stage_layers > 0) add_field(out, "first_stage_layers", l);
  if (l.last_stage_layers > 0) add_field(out, "last_stage_layers", l);
  for (std::string_view f : {"account_for_embedding", "account_for_loss", "cp"}) add_field(out, f, l);
  if (cp_exchange(l) != CpComm::kP2p) add_field(out, "cp_comm_type", l);
  if (is_moe(spec)) {
    add_field(out, "ep", l);
    add_field(out, "etp", l);
  }
  // validate_args (arguments.py, "Disabling sequence parallelism because tensor model parallelism
  // is disabled") turns SP off at TP 1: it is not written there.
  const bool sp = l.sp && l.tp > 1;
  if (sp) add_field(out, "sp", l);
  add_field(out, "mbs", l);
  add(out, "--global-batch-size", spec.gbs);
  add(out, "--seq-length", spec.seq);
  add(out, "--train-iters", spec.train_iters > 0 ? spec.train_iters : 100);
  add_precision(out, l);
  // BF16 first/last layers: the switch and both counts, since Megatron-Core's default count is 1 at
  // each end (transformer_config.py).
  if (l.precision != Precision::kBf16 && (l.bf16_layers_at_start > 0 || l.bf16_layers_at_end > 0)) {
    add(out, "--first-last-layers-bf16");
    add_field(out, "bf16_layers_at_start", l);
    add_field(out, "bf16_layers_at_end", l);
  }
  switch (l.recompute) {
    case Recompute::kNone: break;
    case Recompute::kSelective:
      add(out, layout_field("recompute").megatron, "selective");
      add(out, layout_field("recompute_modules").megatron);
      for (uint32_t bit = 1; bit != 0 && bit <= kRcMhc; bit <<= 1)
        if (((l.recompute_modules == 0 ? kRcDefault : l.recompute_modules) & bit) != 0)
          out.push_back(recompute_modules_str(bit));
      break;
    case Recompute::kFull:
      add(out, layout_field("recompute").megatron, "full");
      add_field(out, "recompute_method", l);
      add_field(out, "recompute_layers", l);
      break;
  }
  if (l.cpu_offload_layers > 0) add_field(out, "cpu_offload_layers", l);
  // Fine-grained activation offloading (Megatron-LM flags from TransformerConfig, docs/user-guide/
  // features/fine_grained_activation_offloading.md).
  if (l.offload_modules != 0) {
    add(out, "--fine-grained-activation-offloading");
    add(out, "--offload-modules");
    for (uint32_t bit = 1; bit != 0 && bit <= kOfMoeAct; bit <<= 1)
      if ((l.offload_modules & bit) != 0) out.push_back(offload_modules_str(bit));
    if (l.activation_offload_fraction < 1.0)
      add(out, "--activation-offload-fraction", fmt::format("{:g}", l.activation_offload_fraction));
  }
  if (is_moe(spec)) {
    switch (l.dispatcher) {
      case Dispatcher::kAlltoall: add(out, layout_field("dispatcher").megatron, "alltoall"); break;
      case Dispatcher::kAllgather: add(out, layout_field("dispatcher").megatron, "allgather"); break;
      case Dispatcher::kFlexDeepep:
      case Dispatcher::kFlexHybridep:
        add(out, layout_field("dispatcher").megatron, "flex");
        add(out, "--moe-flex-dispatcher-backend", dispatcher_name(l.dispatcher));
        break;
    }
    add_field(out, "ep_a2a_overlap", l);
    // TE's fused grouped MLP (its env gate is the launch's: launch_spec.cpp). FP8 attention has no
    // Megatron-LM flag (arguments.py), so launch notes it instead (launch_spec.cpp).
    add_field(out, "fused_grouped_mlp", l);
  }
  switch (l.cuda_graph) {
    case CudaGraph::kNone: break;
    case CudaGraph::kTransformerEngine:
      add(out, layout_field("cuda_graph").megatron, "transformer_engine");
      if (l.cuda_graph_scope != 0) {
        add(out, layout_field("cuda_graph_scope").megatron);
        for (std::string_view s : {"attn", "mlp", "moe", "moe_router", "moe_preprocess", "mamba"})
          if ((l.cuda_graph_scope & *parse_cuda_graph_scope(s)) != 0) out.emplace_back(s);
      }
      break;
    case CudaGraph::kLocal: add(out, layout_field("cuda_graph").megatron, "local"); break;
    case CudaGraph::kFullIteration:
      // arguments.py: "full_iteration scope is only supported with --cuda-graph-impl=local"; full
      // graphs need the NaN check off (Bridge training/config.py, REFERENCES.md C 15).
      add(out, layout_field("cuda_graph").megatron, "local");
      add(out, "--cuda-graph-scope", "full_iteration");
      add(out, "--no-check-for-nan-in-loss-and-grad");
      break;
  }
  if (l.cuda_graph != CudaGraph::kNone) add(out, "--te-rng-tracker");  // required for CUDA graphs
  // Muon: with --use-distributed-optimizer Megatron-LM runs its layer-wise distributed optimizer
  // (arguments.py, "emerging optimizer check").
  // Each TP rank orthogonalizes its own shard, as Bridge's Muon recipes run and the estimate models
  // (Megatron-LM's default, duplicated, gathers each matrix and repeats the work on every TP rank).
  if (l.optimizer != Optimizer::kAdam) {
    add_field(out, "optimizer", l);
    if (l.tp > 1 || l.etp > 1) add(out, "--muon-tp-mode", "blockwise");
  }
  if (l.distributed_optimizer || l.fsdp) add(out, "--use-distributed-optimizer");
  if (l.fsdp) {
    // Megatron-FSDP as Megatron-LM's examples run it (ZeRO-3 sharding, fsdp_dtensor checkpoints).
    add(out, layout_field("fsdp").megatron);
    add(out, "--data-parallel-sharding-strategy", "optim_grads_params");
    add(out, "--no-gradient-accumulation-fusion");
    add(out, "--ckpt-format", "fsdp_dtensor");
  }
  // Distributed optimizer instances: under Megatron-FSDP, HSDP with the optimizer sharded across them
  // (--outer-dp-sharding-strategy optim, as Bridge's HSDP recipe runs and the estimate models).
  if (l.distributed_optimizer_instances > 1) {
    add_field(out, "distributed_optimizer_instances", l);
    if (l.fsdp) add(out, "--outer-dp-sharding-strategy", "optim");
  }
  // Optimizer CPU offload (docs/user-guide/features/optimizer_cpu_offload.md): the hybrid device
  // optimizer needs --use-precision-aware-optimizer; the copies overlap the CPU step as recommended.
  const bool opt_offload = l.optimizer_offload_fraction > 0;
  if (l.precision_aware_optimizer || opt_offload) add(out, "--use-precision-aware-optimizer");
  if (opt_offload) {
    add(out, "--optimizer-cpu-offload");
    add(out, "--optimizer-offload-fraction", fmt::format("{:g}", l.optimizer_offload_fraction));
    add(out, "--overlap-cpu-optimizer-d2h-h2d");
  }
  // The gradient reduction dtype, both ways: under --bf16 validate_args turns FP32 accumulation and
  // reduction on unless --grad-reduce-in-bf16 is given (arguments.py L1204-1217).
  if (l.grad_reduce_in_fp32)
    add_field(out, "grad_reduce_in_fp32", l);
  else
    add(out, "--grad-reduce-in-bf16");
  // A recipe's TP overlap is kept only where it runs (validate_args refuses it elsewhere).
  if (l.tp_comm_overlap_runs()) add_field(out, "tp_comm_overlap", l);
  // The loss: fused as the layout asks, in the implementation Megatron-LM accepts (megatron_lm_layout).
  if (l.cross_entropy_loss_fusion) {
    add_field(out, "cross_entropy_loss_fusion", l);
    add_field(out, "cross_entropy_fusion_impl", l);
  }
  // Dropout is the layout's (the estimate's; 0 as Bridge's recipes run), always written: Megatron-LM's
  // own default is 0.1.
  for (std::string_view f : {"hidden_dropout", "attention_dropout"}) add_field(out, f, l);
  if (spec.dataset.empty() || spec.dataset == "mock") {
    add(out, "--mock-data");
    add(out, "--tokenizer-type", "NullTokenizer");
    if (spec.model_ir && spec.model_ir->vocab > 0) add(out, "--vocab-size", spec.model_ir->vocab);
  } else {
    add(out, "--data-path", spec.dataset);
    add(out, "--tokenizer-type", "HuggingFaceTokenizer");
    add(out, "--tokenizer-model", spec.model_ir && !spec.model_ir->hf_id.empty() ? spec.model_ir->hf_id
                                  : !spec.hf_path.empty()                       ? spec.hf_path
                                                                                : spec.model);
  }
  // One line per iteration with TFLOP/s/GPU: what `recipebook calibrate` reads back.
  add(out, "--log-interval", 1);
  add(out, "--log-throughput");
  // Learning-rate settings: placeholders for a throughput run, not a tuned schedule.
  add(out, "--lr", "1.0e-4");
  add(out, "--min-lr", "1.0e-5");
  add(out, "--lr-decay-style", "cosine");
  add(out, "--lr-warmup-fraction", "0.01");
  add(out, "--weight-decay", "0.1");
  add(out, "--clip-grad", "1.0");
  for (const auto& a : spec.extra_args) out.push_back(a);
  return out;
}

Result<void> check_megatron_mode(const LaunchSpec& spec) {
  const Where where{"--target"};
  switch (spec.mode) {
    case Mode::kPretrain: return {};
    // Megatron-LM has no LoRA: pretrain_gpt.py would train every weight (full pretraining). PEFT is
    // Megatron-Bridge's (src/megatron/bridge/peft/lora.py; run_recipe.py --mode lora).
    case Mode::kPeft:
      return fail("a peft run cannot be launched on Megatron-LM (--target megatron-lm, --framework megatron-lm): "
                  "pretrain_gpt.py has no LoRA and would train every weight",
                  where, "launch it with --target bridge (Megatron-Bridge's run_recipe.py trains LoRA)");
    // pretrain_gpt.py --sft (arguments.py L3773) builds an SFTDataset (pretrain_gpt.py L468), which
    // reads a JSONL conversation file through an SFTTokenizer prompt format
    // (training/datasets/sft_dataset.py; core/tokenizers/utils/build_tokenizer.py): mock data builds
    // none (blended_megatron_dataset_builder.py passes it no path) and the prompt format is not the
    // model's to guess, so no command written here trains SFT.
    case Mode::kSft:
      return fail("an sft run cannot be launched on Megatron-LM (--target megatron-lm, --framework megatron-lm): "
                  "pretrain_gpt.py --sft needs a JSONL conversation dataset and an SFTTokenizer prompt format, "
                  "and without it would pretrain",
                  where, "launch it with --target bridge (Megatron-Bridge's run_recipe.py trains SFT)");
  }
  return {};
}

Result<void> check_megatron_entry(const LaunchSpec& spec) {
  if (auto ok = check_megatron_mode(spec); !ok) return ok;
  const EntryArg* presets = find_arg(run_recipe_entry(), "--dataset");
  if (spec.dataset != "mock" && presets != nullptr && has_choice(*presets, spec.dataset))
    return fail(fmt::format("'{}' is a Megatron-Bridge dataset preset; pretrain_gpt.py's --data-path takes the path "
                            "prefix of an indexed dataset",
                            spec.dataset),
                {"--dataset"}, "give the prefix (e.g. /data/my_text_document), or mock");
  // The words recipebook writes (the user's --extra are passed as they are).
  LaunchSpec own = spec;
  own.extra_args.clear();
  return check_entry_words(pretrain_gpt_entry(), megatron_args(own), true);
}

void add_megatron_env(LaunchSpec& spec) {
  // validate_args: TP or CP > 1 with get_device_arch_version() < 10 asserts CUDA_DEVICE_MAX_CONNECTIONS
  // is "1", unless Megatron-FSDP or the EP A2A overlap is on (then it only warns).
  const Layout& l = spec.layout;
  const GpuArch arch = gpu_arch_from_name(spec.gpu);
  if ((l.tp > 1 || l.cp > 1) && !l.fsdp && !l.ep_a2a_overlap && (arch == GpuArch::kAmpere || arch == GpuArch::kHopper) &&
      std::none_of(spec.env.begin(), spec.env.end(), [](const auto& kv) { return kv.first == "CUDA_DEVICE_MAX_CONNECTIONS"; }))
    spec.env.emplace_back("CUDA_DEVICE_MAX_CONNECTIONS", "1");
}

Result<std::string> render_megatron(const LaunchSpec& spec) {
  LaunchSpec s = spec;
  s.framework = Framework::kMegatronLm;
  add_megatron_env(s);
  if (auto ok = check_entry(s); !ok) return tl::unexpected(ok.error());
  return render_shell_script(s, {"torchrun"}, "megatron-lm");
}

}  // namespace rb
