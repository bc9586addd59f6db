// CUDA-graph constraints (REFERENCES.md C.15; seed 004 pitfalls). CudaGraph::kLocal without a
// scope is Bridge's older spelling of a full-iteration graph (impl local + scope full_iteration).
#include "recipebook/rules/check_util.hpp"
#include "recipebook/rules/checks.hpp"

#include <string_view>
#include <utility>

namespace rb {
namespace {

bool graphs_on(const Layout& l) { return l.cuda_graph != CudaGraph::kNone; }
bool scoped_te(const Layout& l) { return l.cuda_graph == CudaGraph::kTransformerEngine; }

std::string scope_names(uint32_t scope) {
  static constexpr std::pair<uint32_t, std::string_view> kNames[] = {
      {kCgAttn, "attn"},         {kCgMlp, "mlp"},
      {kCgMoe, "moe"},           {kCgMoeRouter, "moe_router"},
      {kCgMoePreprocess, "moe_preprocess"}, {kCgMamba, "mamba"}};
  std::string names;
  for (const auto& [bit, name] : kNames) {
    if (!has_bits(scope, bit)) continue;
    if (!names.empty()) names += ", ";
    names += name;
  }
  return names;
}

}  // namespace

// Bridge gpt_provider.py asserts use_te_rng_tracker when cuda_graph_impl != none.
bool check_cuda_graph_rng(const RuleContext& ctx, Finding* out) {
  if (!graphs_on(ctx.layout) || ctx.layout.te_rng_tracker) return false;
  if (out == nullptr) return true;
  return report(out,
                "CUDA graphs (" + std::string(cuda_graph_name(ctx.layout.cuda_graph)) +
                    ") need the Transformer Engine RNG tracker, which is off",
                "set model.use_te_rng_tracker: true and rng.te_rng_tracker: true (features.te_rng_tracker: true)",
                "features.te_rng_tracker", "features.cuda_graph.impl");
}

// Bridge utils/cuda_graph.py: impl local only for full-iteration graphs.
bool check_cuda_graph_local_scope(const RuleContext& ctx, Finding* out) {
  if (ctx.layout.cuda_graph != CudaGraph::kLocal || ctx.layout.cuda_graph_scope == 0) return false;
  if (out == nullptr) return true;
  return report(out, "the local CUDA-graph implementation captures the full iteration only; it cannot take a module scope",
                "use impl transformer_engine for scoped graphs, or local/full_iteration with no scope",
                "features.cuda_graph.scope", "features.cuda_graph.impl");
}

// MCore transformer_config.py: scope combinations and the layer kinds they need.
bool check_cuda_graph_scope(const RuleContext& ctx, Finding* out) {
  const Layout& l = ctx.layout;
  if (!graphs_on(l) || l.cuda_graph_scope == 0) return false;
  const uint32_t s = l.cuda_graph_scope;
  const bool moe_and_router = has_bits(s, kCgMoe) && has_bits(s, kCgMoeRouter);
  const bool preprocess = has_bits(s, kCgMoePreprocess) && !has_bits(s, kCgMoeRouter);
  const bool moe_dense = has_bits(s, kCgMoe | kCgMoeRouter | kCgMoePreprocess) && ctx.pm.moe_layers == 0;
  const bool mlp_moe = has_bits(s, kCgMlp) && ctx.pm.dense_ffn_layers == 0;
  const bool mamba = has_bits(s, kCgMamba) && ctx.pm.mamba_layers == 0;
  const bool dropless = has_bits(s, kCgMoe) && ctx.pm.moe_layers > 0 &&
                        !setting_bool(ctx.facts, "moe_pad_expert_input_to_capacity").value_or(false);
  if (!moe_and_router && !preprocess && !moe_dense && !mlp_moe && !mamba && !dropless) return false;
  if (out == nullptr) return true;
  std::vector<std::string> why;
  if (moe_and_router) why.push_back("moe and moe_router cannot both be graphed");
  if (preprocess) why.push_back("moe_preprocess needs moe_router");
  if (moe_dense) why.push_back(ctx.model().name + " has no MoE layers for the moe/moe_router/moe_preprocess scopes");
  if (mlp_moe) why.push_back(ctx.model().name + " has no dense MLP layers for the mlp scope");
  if (mamba) why.push_back(ctx.model().name + " has no Mamba layers for the mamba scope");
  if (dropless) why.push_back("the moe scope needs drop-and-pad MoE (moe_pad_expert_input_to_capacity), not dropless");
  return report(out, "CUDA-graph scope [" + scope_names(s) + "]: " + join_words(why, "; "),
                "drop the offending scope entries", "features.cuda_graph.scope");
}

// MCore transformer_config.py: "full recompute is only supported with full iteration CUDA graph".
bool check_cuda_graph_full_recompute(const RuleContext& ctx, Finding* out) {
  if (ctx.layout.recompute != Recompute::kFull || !scoped_te(ctx.layout)) return false;
  if (out == nullptr) return true;
  return report(out, "full activation recompute with transformer_engine (scoped) CUDA graphs: Megatron asserts "
                     "\"full recompute is only supported with full iteration CUDA graph\"",
                "use selective recompute, or full-iteration (local) graphs, or no CUDA graphs",
                "layout.recompute.granularity", "features.cuda_graph.impl");
}

// MCore transformer_config.py: a recomputed module must be wholly inside or outside the graph, so
// moe recompute cannot be combined with a moe_router TE graph.
bool check_cuda_graph_recompute_moe(const RuleContext& ctx, Finding* out) {
  if (!scoped_te(ctx.layout) || !has_bits(ctx.layout.cuda_graph_scope, kCgMoeRouter)) return false;
  if (!has_bits(ctx.recompute_modules(), kRcMoe)) return false;
  if (out == nullptr) return true;
  return report(out, "moe is recomputed while moe_router is inside a transformer_engine CUDA graph",
                "drop moe from recompute_modules (moe_act recomputes the activation only), or moe_router from the "
                "graph scope",
                "features.recompute_modules", "features.cuda_graph.scope");
}

// MCore transformer_config.py: CPU offloading is incompatible with CUDA graphs unless full-iteration.
bool check_cuda_graph_offload(const RuleContext& ctx, Finding* out) {
  if (ctx.layout.cpu_offload_layers <= 0 || !scoped_te(ctx.layout)) return false;
  if (out == nullptr) return true;
  return report(out,
                "CPU activation offloading (" + str(ctx.layout.cpu_offload_layers) +
                    " layers) with transformer_engine CUDA graphs",
                "use full-iteration graphs, or turn offloading off", "features.cpu_offload_layers",
                "features.cuda_graph.impl");
}

// Seed 004 pitfall: TE-scoped graphs cannot capture packed_seq_params ("CUDA graph accepts only
// Tensor inputs"); Bridge config.py: offline-packed data with graphs needs pad_to_max_length.
bool check_cuda_graph_packed(const RuleContext& ctx, Finding* out) {
  if (!ctx.facts.packed_sequences || !graphs_on(ctx.layout)) return false;
  const bool te = scoped_te(ctx.layout);
  const bool unpadded = setting_bool(ctx.facts, "pad_to_max_length") == std::optional<bool>(false);
  if (!te && !unpadded) return false;
  if (out == nullptr) return true;
  if (te)
    return report(out,
                  "packed sequences with transformer_engine CUDA graphs: Megatron asserts \"CUDA graph accepts only "
                  "Tensor inputs\" (packed_seq_params cannot be captured)",
                  "disable packing, or use local full-iteration graphs", "features.packed_sequences",
                  "features.cuda_graph.impl");
  return report(out, "packed sequences with CUDA graphs need pad_to_max_length: true",
                "set pad_to_max_length: true", "features.settings.pad_to_max_length", "features.packed_sequences");
}

// Bridge config.py: full-iteration graphs require check_for_nan_in_loss=False.
bool check_cuda_graph_nan_check(const RuleContext& ctx, Finding* out) {
  const CudaGraph g = ctx.layout.cuda_graph;
  const bool full = g == CudaGraph::kFullIteration || (g == CudaGraph::kLocal && ctx.layout.cuda_graph_scope == 0);
  if (!full || !setting_bool(ctx.facts, "check_for_nan_in_loss").value_or(false)) return false;
  if (out == nullptr) return true;
  return report(out, "full-iteration CUDA graphs cannot run the NaN-in-loss check",
                "set rerun_state_machine.check_for_nan_in_loss: false", "features.settings.check_for_nan_in_loss");
}

}  // namespace rb
