// Megatron-Bridge: `scripts/training/run_recipe.py --recipe NAME [--dataset D] KEY=VALUE ...`, run by
// torchrun (seed 004's form: `uv run python -m torch.distributed.run --nproc_per_node=8
// scripts/training/run_recipe.py --recipe ... 'model.tensor_model_parallel_size=2'`).
// Trailing KEY=VALUE words are Hydra overrides on the ConfigContainer (REFERENCES.md E: parsed by
// training/utils/omegaconf_utils.py:parse_hydra_overrides; a trailing override wins over a flag).
// The keys are ConfigContainer fields (REFERENCES.md D, src/megatron/bridge/training/config.py);
// every word written here is checked against run_recipe.py's table (entry_points.cpp): its flags
// and their choices, and the override keys recipebook knows (tests/entry_points_catalog_test.cpp
// renders every catalog recipe).
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "recipebook/core/layout_fields.hpp"
#include "recipebook/emit/entry_points.hpp"
#include "recipebook/emit/launch.hpp"
#include "recipebook/emit/launch_bridge_precision.hpp"
#include "recipebook/emit/launch_script.hpp"

namespace rb {
namespace {

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

// A plain field (an int or a switch) as its row of the layout field table spells it for Bridge.
void add_field(std::vector<std::string>& out, std::string_view field, const Layout& l) {
  const LayoutField& r = layout_field(field);
  add(out, r.bridge, r.kind == FieldKind::kBool ? py_bool(l.*r.bool_member) : field_text(r, l));
}

}  // namespace

std::span<const std::string_view> bridge_override_keys() { return run_recipe_entry().override_keys; }

std::vector<std::string> bridge_overrides(const LaunchSpec& spec) {
  std::vector<std::string> out;
  const Layout& l = spec.layout;
  const std::optional<Layout>& base = spec.base;
  // The parallel layout and the batch are always written (they are what a launch is about, and
  // the catalog has them exactly); features only where they differ from the recipe's own.
  if (spec.layout_given) {
    add_field(out, "tp", l);
    add_field(out, "pp", l);
    add(out, layout_field("vp").bridge, l.vp > 1 ? std::to_string(l.vp) : "null");
    for (std::string_view f : {"cp", "ep", "etp", "sp", "mbs"}) add_field(out, f, l);
  }
  if (spec.gbs > 0) add(out, "train.global_batch_size", std::to_string(spec.gbs));
  if (spec.seq > 0) {
    add(out, "model.seq_length", std::to_string(spec.seq));
    add(out, "dataset.seq_length", std::to_string(spec.seq));
  }
  if (spec.train_iters > 0) add(out, "train.train_iters", std::to_string(spec.train_iters));
  if (!spec.layout_given) return out;

  auto differs = [&](auto field) { return !base || field(*base) != field(l); };
  // A plain field written where it differs from the recipe's.
  auto differs_field = [&](std::string_view field) {
    const LayoutField& r = layout_field(field);
    return !base || field_text(r, *base) != field_text(r, l);
  };
  if (l.cp > 1 && (base ? differs_field("cp_comm_type") : cp_exchange(l) != CpComm::kP2p)) add_field(out, "cp_comm_type", l);
  // A new precision is Bridge's named recipe for it; the BF16 first/last layers and the FP4 gather are
  // keys on the recipe's own config, never after the name (precision_key_overrides).
  if (writes_precision_group(spec))
    add(out, layout_field("precision").bridge, std::string(bridge_precision_recipe(l.precision)));
  for (auto& o : precision_key_overrides(spec)) out.push_back(std::move(o));
  if (!base || !same_recompute(*base, l)) {
    switch (l.recompute) {
      case Recompute::kNone: add(out, layout_field("recompute").bridge, "null"); break;
      case Recompute::kSelective:
        add(out, layout_field("recompute").bridge, "selective");
        add(out, layout_field("recompute_modules").bridge, fmt::format("[{}]", recompute_modules_str(selective_modules(l))));
        break;
      case Recompute::kFull:
        add(out, layout_field("recompute").bridge, "full");
        add(out, layout_field("recompute_method").bridge, l.recompute_method == RecomputeMethod::kBlock ? "block" : "uniform");
        add_field(out, "recompute_layers", l);
        break;
    }
  }
  if (is_moe(spec) && differs([](const Layout& x) { return x.dispatcher; })) {
    switch (l.dispatcher) {
      case Dispatcher::kAlltoall: add(out, layout_field("dispatcher").bridge, "alltoall"); break;
      case Dispatcher::kAllgather: add(out, layout_field("dispatcher").bridge, "allgather"); break;
      case Dispatcher::kFlexDeepep:
      case Dispatcher::kFlexHybridep:
        add(out, layout_field("dispatcher").bridge, "flex");
        add(out, "model.moe_flex_dispatcher_backend", std::string(dispatcher_name(l.dispatcher)));
        break;
    }
  }
  if (differs([](const Layout& x) { return std::pair(x.cuda_graph, x.cuda_graph_scope); })) {
    add(out, layout_field("cuda_graph").bridge, std::string(cuda_graph_name(l.cuda_graph)));
    if (l.cuda_graph == CudaGraph::kTransformerEngine && l.cuda_graph_scope != 0)
      add(out, layout_field("cuda_graph_scope").bridge, scope_list(l.cuda_graph_scope));
    if (l.cuda_graph != CudaGraph::kNone) {
      // CUDA graphs need the TE RNG tracker (asserted in gpt_provider; seed 004's pitfall table).
      add(out, "model.use_te_rng_tracker", "True");
      add(out, "rng.te_rng_tracker", "True");
    }
    // Full-iteration graphs require check_for_nan_in_loss=False (Bridge training/config.py).
    if (l.cuda_graph == CudaGraph::kFullIteration) add(out, "rerun_state_machine.check_for_nan_in_loss", "False");
  }
  if (differs_field("fsdp")) {
    add_field(out, "fsdp", l);
    if (l.fsdp) add(out, "ddp.data_parallel_sharding_strategy", "optim_grads_params");
  }
  // Distributed optimizer instances; under Megatron-FSDP that is HSDP with the optimizer state sharded
  // across the instances too (outer strategy "optim", as perf_recipes/deepseek/gb300/deepseek_v3.py
  // sets it; Megatron-FSDP wants "no_shard" with one instance, perf_recipes/nemotronh/common.py).
  if (differs([](const Layout& x) { return std::pair(x.distributed_optimizer_instances, x.fsdp); })) {
    add_field(out, "distributed_optimizer_instances", l);
    if (l.fsdp) add(out, "ddp.outer_dp_sharding_strategy", l.distributed_optimizer_instances > 1 ? "optim" : "no_shard");
  }
  const bool muon = l.optimizer == Optimizer::kMuon;
  if (differs_field("optimizer") || (muon && differs_field("distributed_optimizer"))) {
    // Bridge builds Muon's layer-wise distributed optimizer when the name starts with dist_
    // (training/optim.py); its Muon recipes keep DDP's distributed optimizer off beside it
    // (recipes/kimi/h100/kimi_k2.py _apply_kimi_k2_optimizer).
    add(out, layout_field("optimizer").bridge, muon ? (l.distributed_optimizer ? "dist_muon" : "muon") : "adam");
    if (muon) {
      add(out, layout_field("distributed_optimizer").bridge, "False");
      add(out, "optimizer.use_distributed_optimizer", "False");
    }
  }
  if (!muon && differs_field("distributed_optimizer")) {
    // Bridge force-syncs the two copies of this switch; write both so neither warns.
    add_field(out, "distributed_optimizer", l);
    add(out, "optimizer.use_distributed_optimizer", py_bool(l.distributed_optimizer));
  }
  const bool opt_offload = l.optimizer_offload_fraction > 0;
  if (differs([](const Layout& x) { return x.precision_aware_optimizer || x.optimizer_offload_fraction > 0; }))
    add(out, "optimizer.use_precision_aware_optimizer", py_bool(l.precision_aware_optimizer || opt_offload));
  // Optimizer CPU offload: MCore OptimizerConfig keys (Bridge perf_recipes/deepseek/gb200/deepseek_v4.py
  // sets optimizer.optimizer_offload_fraction).
  if (differs([](const Layout& x) { return x.optimizer_offload_fraction; })) {
    add(out, "optimizer.optimizer_cpu_offload", py_bool(opt_offload));
    if (opt_offload) {
      add(out, "optimizer.optimizer_offload_fraction", fmt::format("{:g}", l.optimizer_offload_fraction));
      add(out, "optimizer.overlap_cpu_optimizer_d2h_h2d", "True");
    }
  }
  // Fine-grained activation offloading: model (TransformerConfig) keys, as Bridge's perf recipes set
  // them (perf_recipes/nemotronh/h100/nemotronh.py).
  if (differs([](const Layout& x) { return std::pair(x.offload_modules, x.activation_offload_fraction); })) {
    add(out, "model.fine_grained_activation_offloading", py_bool(l.offload_modules != 0));
    if (l.offload_modules != 0) {
      add(out, "model.offload_modules", fmt::format("[{}]", offload_modules_str(l.offload_modules)));
      add(out, "model.activation_offload_fraction", fmt::format("{:g}", l.activation_offload_fraction));
    }
  }
  if (differs_field("grad_reduce_in_fp32")) add_field(out, "grad_reduce_in_fp32", l);
  if (differs([](const Layout& x) { return x.cpu_offload_layers; })) {
    add(out, "model.cpu_offloading", py_bool(l.cpu_offload_layers > 0));
    if (l.cpu_offload_layers > 0) add_field(out, "cpu_offload_layers", l);
  }
  if (is_moe(spec) && differs_field("ep_a2a_overlap")) add_field(out, "ep_a2a_overlap", l);
  if (differs_field("tp_comm_overlap")) add_field(out, "tp_comm_overlap", l);
  // TE's fused grouped MLP (its env gate is the launch's: launch_spec.cpp) and FP8 attention, after
  // the precision recipe they modify: against the recipe's, or without one where they are on.
  if (is_moe(spec) && (base ? differs_field("fused_grouped_mlp") : l.fused_grouped_mlp))
    add_field(out, "fused_grouped_mlp", l);
  if (l.precision != Precision::kBf16 && (base ? differs_field("fp8_attention") : l.fp8_attention))
    add_field(out, "fp8_attention", l);
  // The loss and dropout: against the recipe's, or without one where they are not the defaults.
  for (std::string_view f : {"cross_entropy_loss_fusion", "cross_entropy_fusion_impl", "hidden_dropout", "attention_dropout"}) {
    const LayoutField& r = layout_field(f);
    if (base ? differs_field(f) : field_text(r, l) != field_text(r, Layout{})) add_field(out, f, l);
  }
  // An explicit layout: Megatron-Core refuses it beside first/last stage counts or embedding/loss
  // accounting (transformer_config.py), so those are cleared with it; quoted for Hydra's grammar,
  // where `(`, `)` and `|` are not plain characters.
  // A layout the recipe builds in code for its own pipeline is cleared when this one differs.
  const bool in_code_stale = spec.base_layout_in_code && base &&
                             (differs([](const Layout& x) { return std::pair(x.pp, x.vp); }) ||
                              differs([](const Layout& x) { return std::pair(x.first_stage_layers, x.last_stage_layers); }));
  const bool layout_changed = in_code_stale || differs([](const Layout& x) { return x.pipeline_layout; });
  if (layout_changed)
    add(out, layout_field("pipeline_layout").bridge,
        l.pipeline_layout.empty() ? "null" : "\"" + pipeline_layout_str(l.pipeline_layout) + "\"");
  const bool clear_split = layout_changed && !l.pipeline_layout.empty();
  for (std::string_view f : {"account_for_embedding", "account_for_loss"})
    if (clear_split || differs_field(f)) add_field(out, f, l);
  if (clear_split || differs([](const Layout& x) { return std::pair(x.first_stage_layers, x.last_stage_layers); })) {
    add(out, layout_field("first_stage_layers").bridge,
        l.first_stage_layers > 0 ? std::to_string(l.first_stage_layers) : "null");
    add(out, layout_field("last_stage_layers").bridge,
        l.last_stage_layers > 0 ? std::to_string(l.last_stage_layers) : "null");
  }
  return out;
}

std::string_view bridge_mode_name(Mode m) {
  switch (m) {
    case Mode::kPretrain: return "pretrain";
    case Mode::kSft: return "sft";
    case Mode::kPeft: return "lora";
  }
  return "pretrain";
}

namespace {

// recipe_metadata.py infer_recipe_mode: the mode a conventional recipe name encodes, "" when none.
std::string_view recipe_name_mode(std::string_view recipe) {
  const std::string n = "_" + std::string(recipe) + "_";
  if (n.find("_pretrain_") != std::string::npos) return "pretrain";
  if (n.find("_sft_") != std::string::npos || n.find("_finetune_") != std::string::npos) return "sft";
  if (n.find("_dora_") != std::string::npos) return "dora";
  if (n.find("_peft_") != std::string::npos || n.find("_lora_") != std::string::npos) return "lora";
  return {};
}

// recipe_metadata.py recipe_task: lora and dora are both PEFT.
std::string_view task_of(std::string_view mode) { return mode == "lora" || mode == "dora" ? "peft" : mode; }

bool vl_recipe_name(std::string_view name) {
  return name.find("_vl_") != std::string_view::npos || name.rfind("vl_", 0) == 0;
}

}  // namespace

std::string bridge_dataset(Mode mode, const Model& model, const Recipe& recipe, std::string_view recorded) {
  if (recipe.kind == RecipeKind::kPerformance) return {};
  const EntryArg* dataset = find_arg(run_recipe_entry(), "--dataset");
  if (!recorded.empty() && dataset != nullptr && has_choice(*dataset, recorded)) return std::string(recorded);
  const bool vlm = model.vision.layers > 0 || vl_recipe_name(recipe.name) || vl_recipe_name(recipe.entry_point);
  if (mode == Mode::kPretrain) return vlm ? std::string() : "mock";
  return vlm ? "cord-v2" : "squad";
}

std::vector<std::string> bridge_args(const LaunchSpec& spec) {
  std::vector<std::string> out{"scripts/training/run_recipe.py", "--recipe", spec.bridge_recipe};
  // run_recipe.py infers the mode from a conventional recipe name and fails without one.
  if (recipe_name_mode(spec.bridge_recipe).empty()) {
    out.emplace_back("--mode");
    out.emplace_back(bridge_mode_name(spec.mode));
  }
  if (!spec.dataset.empty()) {
    out.emplace_back("--dataset");
    out.push_back(spec.dataset);
  }
  if (!spec.hf_path.empty()) {  // refused by check_bridge_entry unless the recipe takes it
    out.emplace_back("--hf_path");
    out.push_back(spec.hf_path);
  }
  for (auto& o : bridge_overrides(spec)) out.push_back(std::move(o));
  for (const auto& a : spec.extra_args) out.push_back(a);
  return out;
}

Result<void> check_bridge_entry(const LaunchSpec& spec) {
  const EntryPoint& e = run_recipe_entry();
  const std::string& recipe = spec.bridge_recipe;
  if (!spec.hf_path.empty()) {
    const auto takes = bridge_hf_path_recipes();
    if (find_arg(e, "--hf_path") == nullptr || std::find(takes.begin(), takes.end(), recipe) == takes.end())
      return fail(fmt::format("Megatron-Bridge recipe {} builds its own model, and run_recipe.py takes no --hf_path "
                              "({}): a command from it would train that recipe's model, not {}",
                              recipe, e.source, spec.hf_path),
                  {}, "use --framework megatron-lm (pretrain_gpt.py with the model's architecture as flags), or "
                      "a catalog recipe of this model");
  }
  const std::string_view named = recipe_name_mode(recipe);
  if (!named.empty() && task_of(named) != task_of(bridge_mode_name(spec.mode)))
    return fail(fmt::format("Megatron-Bridge recipe {} is a {} recipe, and run_recipe.py refuses it for {}", recipe,
                            task_of(named), mode_name(spec.mode)),
                {}, "choose a recipe of this mode (--bridge-recipe) or give --mode " + std::string(task_of(named)));
  if (!spec.dataset.empty()) {
    const EntryArg* d = find_arg(e, "--dataset");
    if (d == nullptr || !has_choice(*d, spec.dataset)) {
      std::string names;
      for (auto c : d != nullptr ? d->choices : std::span<const std::string_view>{}) names += (names.empty() ? "" : ", ") + std::string(c);
      return fail(fmt::format("run_recipe.py's --dataset takes a preset ({}), not '{}'", names, spec.dataset), {"--dataset"},
                  "name a preset, or set the data with overrides (--extra 'dataset.KEY=VALUE')");
    }
    if (spec.bridge_benchmark)
      return fail(fmt::format("{} is a benchmark recipe: run_recipe.py rejects --dataset for it (the recipe owns its data)", recipe),
                  {"--dataset"}, "omit --dataset, or launch a library recipe of this model");
    const std::string_view need = bridge_dataset_train_mode(spec.dataset);
    const std::string_view have = spec.mode == Mode::kPretrain ? "pretrain" : "finetune";
    if (!need.empty() && need != have)
      return fail(fmt::format("dataset {} is for {}, and the launch is {}", spec.dataset,
                              need == "pretrain" ? "pretraining" : "fine-tuning", mode_name(spec.mode)),
                  {"--dataset"}, spec.mode == Mode::kPretrain ? "use mock or megatron-indexed" : "use squad, gsm8k, tulu3, ...");
  }
  if (auto ok = check_bridge_precision(spec); !ok) return ok;
  // The words recipebook wrote (not the user's --extra, which may name keys the table does not) hold
  // to the table; the user's words must still be KEY=VALUE or a run_recipe.py flag.
  LaunchSpec own = spec;
  own.extra_args.clear();
  if (auto ok = check_entry_words(e, bridge_args(own), true); !ok) return ok;
  return check_entry_words(e, bridge_args(spec), false);
}

Result<std::string> render_bridge(const LaunchSpec& spec) {
  LaunchSpec s = spec;
  s.framework = Framework::kBridge;
  if (auto ok = check_entry(s); !ok) return tl::unexpected(ok.error());
  return render_shell_script(s, {"uv", "run", "python", "-m", "torch.distributed.run"}, "bridge");
}

}  // namespace rb
