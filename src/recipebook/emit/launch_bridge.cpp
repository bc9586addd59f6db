// Megatron-Bridge: `scripts/training/run_recipe.py --recipe NAME [--dataset D] KEY=VALUE ...`, run by
// torchrun (seed 004's form: `uv run python -m torch.distributed.run --nproc_per_node=8
// scripts/training/run_recipe.py --recipe ... 'model.tensor_model_parallel_size=2'`).
// Trailing KEY=VALUE words are Hydra overrides on the ConfigContainer (REFERENCES.md E: parsed by
// training/utils/omegaconf_utils.py:parse_hydra_overrides; a trailing override wins over a flag).
// The keys are ConfigContainer fields (REFERENCES.md D, src/megatron/bridge/training/config.py);
// every key written here must be in kOverrideKeys, which the tests check.
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "recipebook/emit/launch.hpp"
#include "recipebook/emit/launch_script.hpp"

namespace rb {
namespace {

constexpr auto kOverrideKeys = std::to_array<std::string_view>({
    // cfg.model: layout (MCore ModelParallelConfig via GPTModelProvider)
    "model.tensor_model_parallel_size", "model.pipeline_model_parallel_size",
    "model.virtual_pipeline_model_parallel_size", "model.context_parallel_size",
    "model.expert_model_parallel_size", "model.expert_tensor_parallel_size", "model.sequence_parallel",
    "model.num_layers_in_first_pipeline_stage", "model.num_layers_in_last_pipeline_stage",
    "model.seq_length",
    // recompute and offload
    "model.recompute_granularity", "model.recompute_method", "model.recompute_num_layers",
    "model.recompute_modules", "model.cpu_offloading", "model.cpu_offloading_num_layers",
    // MoE dispatcher
    "model.moe_token_dispatcher_type", "model.moe_flex_dispatcher_backend",
    // CUDA graphs: impl, scope (seed 004's spelling; Bridge's utils/cuda_graph.py maps it to
    // cuda_graph_modules on newer Megatron-Core), and the TE RNG tracker they require
    "model.cuda_graph_impl", "model.cuda_graph_scope", "model.use_te_rng_tracker", "rng.te_rng_tracker",
    "rerun_state_machine.check_for_nan_in_loss",
    // train, dataset
    "train.global_batch_size", "train.micro_batch_size", "train.train_iters", "dataset.seq_length",
    // ddp, optimizer, comm_overlap, mixed_precision
    "ddp.use_distributed_optimizer", "optimizer.use_distributed_optimizer", "ddp.use_megatron_fsdp",
    "ddp.data_parallel_sharding_strategy", "ddp.grad_reduce_in_fp32", "optimizer.use_precision_aware_optimizer",
    "model.account_for_embedding_in_pipeline_split", "model.account_for_loss_in_pipeline_split",
    "comm_overlap.overlap_moe_expert_parallel_comm", "comm_overlap.tp_comm_overlap", "mixed_precision",
});

std::string py_bool(bool b) { return b ? "True" : "False"; }

}  // namespace

std::string_view bridge_precision_recipe(Precision p) {
  switch (p) {
    case Precision::kBf16: return "bf16_mixed";
    case Precision::kFp8Cs: return "bf16_with_fp8_current_scaling_mixed";
    case Precision::kFp8Ds: return "bf16_with_fp8_delayed_scaling_mixed";
    case Precision::kFp8Blockwise: return "bf16_with_fp8_subchannel_scaling_mixed";
    case Precision::kMxfp8: return "bf16_with_mxfp8_mixed";
    case Precision::kNvfp4: return "bf16_with_nvfp4_mixed";
  }
  return "bf16_mixed";
}

namespace {

std::string scope_list(uint32_t mask) {
  static constexpr std::array<std::pair<std::string_view, uint32_t>, 6> kScopes{{
      {"attn", kCgAttn}, {"mlp", kCgMlp}, {"moe", kCgMoe}, {"moe_router", kCgMoeRouter},
      {"moe_preprocess", kCgMoePreprocess}, {"mamba", kCgMamba}}};
  std::string out = "[";
  for (const auto& [name, bit] : kScopes)
    if ((mask & bit) != 0) {
      if (out.size() > 1) out += ',';
      out += name;
    }
  out += ']';
  return out;
}

bool is_moe(const LaunchSpec& spec) {
  if (spec.model_ir && spec.model_ir->has_architecture) return spec.model_ir->is_moe();
  return spec.layout.ep > 1 || (spec.base && spec.base->ep > 1);
}

uint32_t selective_modules(const Layout& l) { return l.recompute_modules == 0 ? kRcDefault : l.recompute_modules; }

bool same_recompute(const Layout& a, const Layout& b) {
  if (a.recompute != b.recompute) return false;
  if (a.recompute == Recompute::kSelective) return selective_modules(a) == selective_modules(b);
  if (a.recompute == Recompute::kFull)
    return a.recompute_method == b.recompute_method && a.recompute_layers == b.recompute_layers;
  return true;
}

void add(std::vector<std::string>& out, std::string_view key, const std::string& value) {
  out.push_back(fmt::format("{}={}", key, value));
}

}  // namespace

std::span<const std::string_view> bridge_override_keys() { return kOverrideKeys; }

std::vector<std::string> bridge_overrides(const LaunchSpec& spec) {
  std::vector<std::string> out;
  const Layout& l = spec.layout;
  const std::optional<Layout>& base = spec.base;
  // The parallel layout and the batch are always written (they are what a launch is about, and
  // the catalog has them exactly); features only where they differ from the recipe's own.
  if (spec.layout_given) {
    add(out, "model.tensor_model_parallel_size", std::to_string(l.tp));
    add(out, "model.pipeline_model_parallel_size", std::to_string(l.pp));
    add(out, "model.virtual_pipeline_model_parallel_size", l.vp > 1 ? std::to_string(l.vp) : "null");
    add(out, "model.context_parallel_size", std::to_string(l.cp));
    add(out, "model.expert_model_parallel_size", std::to_string(l.ep));
    add(out, "model.expert_tensor_parallel_size", std::to_string(l.etp));
    add(out, "model.sequence_parallel", py_bool(l.sp));
    add(out, "train.micro_batch_size", std::to_string(l.mbs));
  }
  if (spec.gbs > 0) add(out, "train.global_batch_size", std::to_string(spec.gbs));
  if (spec.seq > 0) {
    add(out, "model.seq_length", std::to_string(spec.seq));
    add(out, "dataset.seq_length", std::to_string(spec.seq));
  }
  if (spec.train_iters > 0) add(out, "train.train_iters", std::to_string(spec.train_iters));
  if (!spec.layout_given) return out;

  auto differs = [&](auto field) { return !base || field(*base) != field(l); };
  if (spec.precision_given && differs([](const Layout& x) { return x.precision; }))
    add(out, "mixed_precision", std::string(bridge_precision_recipe(l.precision)));
  if (!base || !same_recompute(*base, l)) {
    switch (l.recompute) {
      case Recompute::kNone: add(out, "model.recompute_granularity", "null"); break;
      case Recompute::kSelective:
        add(out, "model.recompute_granularity", "selective");
        add(out, "model.recompute_modules", fmt::format("[{}]", recompute_modules_str(selective_modules(l))));
        break;
      case Recompute::kFull:
        add(out, "model.recompute_granularity", "full");
        add(out, "model.recompute_method", l.recompute_method == RecomputeMethod::kBlock ? "block" : "uniform");
        add(out, "model.recompute_num_layers", std::to_string(l.recompute_layers));
        break;
    }
  }
  if (is_moe(spec) && differs([](const Layout& x) { return x.dispatcher; })) {
    switch (l.dispatcher) {
      case Dispatcher::kAlltoall: add(out, "model.moe_token_dispatcher_type", "alltoall"); break;
      case Dispatcher::kAllgather: add(out, "model.moe_token_dispatcher_type", "allgather"); break;
      case Dispatcher::kFlexDeepep:
      case Dispatcher::kFlexHybridep:
        add(out, "model.moe_token_dispatcher_type", "flex");
        add(out, "model.moe_flex_dispatcher_backend", std::string(dispatcher_name(l.dispatcher)));
        break;
    }
  }
  if (differs([](const Layout& x) { return std::pair(x.cuda_graph, x.cuda_graph_scope); })) {
    add(out, "model.cuda_graph_impl", std::string(cuda_graph_name(l.cuda_graph)));
    if (l.cuda_graph == CudaGraph::kTransformerEngine && l.cuda_graph_scope != 0)
      add(out, "model.cuda_graph_scope", scope_list(l.cuda_graph_scope));
    if (l.cuda_graph != CudaGraph::kNone) {
      // CUDA graphs need the TE RNG tracker (asserted in gpt_provider; seed 004's pitfall table).
      add(out, "model.use_te_rng_tracker", "True");
      add(out, "rng.te_rng_tracker", "True");
    }
    // Full-iteration graphs require check_for_nan_in_loss=False (Bridge training/config.py).
    if (l.cuda_graph == CudaGraph::kFullIteration) add(out, "rerun_state_machine.check_for_nan_in_loss", "False");
  }
  if (differs([](const Layout& x) { return x.fsdp; })) {
    add(out, "ddp.use_megatron_fsdp", py_bool(l.fsdp));
    if (l.fsdp) add(out, "ddp.data_parallel_sharding_strategy", "optim_grads_params");
  }
  if (differs([](const Layout& x) { return x.distributed_optimizer; })) {
    // Bridge force-syncs the two copies of this switch; write both so neither warns.
    add(out, "ddp.use_distributed_optimizer", py_bool(l.distributed_optimizer));
    add(out, "optimizer.use_distributed_optimizer", py_bool(l.distributed_optimizer));
  }
  if (differs([](const Layout& x) { return x.precision_aware_optimizer; }))
    add(out, "optimizer.use_precision_aware_optimizer", py_bool(l.precision_aware_optimizer));
  if (differs([](const Layout& x) { return x.grad_reduce_in_fp32; }))
    add(out, "ddp.grad_reduce_in_fp32", py_bool(l.grad_reduce_in_fp32));
  if (differs([](const Layout& x) { return x.cpu_offload_layers; })) {
    add(out, "model.cpu_offloading", py_bool(l.cpu_offload_layers > 0));
    if (l.cpu_offload_layers > 0) add(out, "model.cpu_offloading_num_layers", std::to_string(l.cpu_offload_layers));
  }
  if (is_moe(spec) && differs([](const Layout& x) { return x.ep_a2a_overlap; }))
    add(out, "comm_overlap.overlap_moe_expert_parallel_comm", py_bool(l.ep_a2a_overlap));
  if (differs([](const Layout& x) { return x.tp_comm_overlap; }))
    add(out, "comm_overlap.tp_comm_overlap", py_bool(l.tp_comm_overlap));
  if (differs([](const Layout& x) { return x.account_for_embedding; }))
    add(out, "model.account_for_embedding_in_pipeline_split", py_bool(l.account_for_embedding));
  if (differs([](const Layout& x) { return x.account_for_loss; }))
    add(out, "model.account_for_loss_in_pipeline_split", py_bool(l.account_for_loss));
  if (differs([](const Layout& x) { return std::pair(x.first_stage_layers, x.last_stage_layers); })) {
    add(out, "model.num_layers_in_first_pipeline_stage",
        l.first_stage_layers > 0 ? std::to_string(l.first_stage_layers) : "null");
    add(out, "model.num_layers_in_last_pipeline_stage",
        l.last_stage_layers > 0 ? std::to_string(l.last_stage_layers) : "null");
  }
  return out;
}

std::vector<std::string> bridge_args(const LaunchSpec& spec) {
  std::vector<std::string> out{"scripts/training/run_recipe.py", "--recipe", spec.bridge_recipe};
  if (!spec.dataset.empty()) {
    out.emplace_back("--dataset");
    out.push_back(spec.dataset);
  }
  for (auto& o : bridge_overrides(spec)) out.push_back(std::move(o));
  for (const auto& a : spec.extra_args) out.push_back(a);
  return out;
}

Result<std::string> render_bridge(const LaunchSpec& spec) {
  LaunchSpec s = spec;
  s.framework = Framework::kBridge;
  if (auto ok = check_entry(s); !ok) return tl::unexpected(ok.error());
  return render_shell_script(s, {"uv", "run", "python", "-m", "torch.distributed.run"}, "bridge");
}

}  // namespace rb
