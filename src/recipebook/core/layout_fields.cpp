// The layout field table (layout_fields.hpp): the rows. The functions over them are
// layout_fields_ops.cpp's; plan's readers of the searched fields are layout_fields_search.cpp's; the
// row builders are layout_fields_rows.hpp's.
//
// To add a layout option:
//   1. Add its member to Layout (core/layout.hpp) and to LayoutFlags (layout_fields.hpp).
//   2. Add one row to kLayoutFields below: key, help, where it lives, record path, Bridge key,
//      Megatron-LM flag, what plan does with it and the search dimension that sets it (kNone for
//      a field plan keeps at the request's value), and, when it means something only beside other
//      fields, its in_force (when_in_force) and whether a layout's JSON shows it only when set
//      (when_set). The flags of estimate, plan and launch, --help, the JSON readers, the recipe
//      reader, the launch writers that write it one-to-one, the layout's JSON (emit/layout_json.cpp)
//      and `flags_text` follow from the row; tests/layout_fields_test.cpp fails until the row has
//      its round-trip case.
//   3. Add its term in the model (estimate/memory.cpp, estimate/time.cpp).
//   4. Rules that read it name its key in their `reads` (rules/rule_table.cpp); the planner
//      evaluates each rule at the deepest search dimension of the fields it reads.
// To let plan search it (one row + its value list + its term in the model):
//   5. Wrap the row in plan_flag(help, row[, read, set, default]): plan's --<key> flag (a value
//      fixes it, a comma list narrows it, any searches the search's own list), the serve API's
//      "<key>" and search Constraints (search/space.hpp, by the row's key) follow from it; so do
//      the infeasibility advice's fixed dimensions (search/advice.cpp) and the planner's checks of
//      fixed values (search/rule_levels.hpp). A named field gives its reader and setter
//      (layout_fields_search.cpp); an int or bool row needs neither.
//   6. Its value list: Space (search/space.cpp) enumerates a field of an existing SearchDim with
//      that dimension's loop; a new dimension is a SearchDim here (in enumeration order), its list
//      in Space and its loop in search/walk.cpp, search/fleet_walk.cpp and search/brute_force.cpp.
//
// Spellings: Megatron-Bridge override keys are ConfigContainer fields (src/megatron/bridge/training/
// config.py, REFERENCES.md D); Megatron-LM flags are megatron/training/arguments.py's (the table in
// emit/entry_points.cpp checks every word written); record paths are docs/catalog-format.md's, as
// catalog/recipe_layout.cpp reads them.
#include "recipebook/core/layout_fields.hpp"

#include <array>
#include <utility>

#include "recipebook/core/layout_fields_rows.hpp"

namespace rb {

namespace {

using namespace field_rows;

// Parses `text` with `parse` into `out`, or fails naming the flag, the value (`bad_part`, when the
// parser names the one item of a list it refused) and the choices.
template <typename T, typename Parse>
Result<void> parse_into(const std::string& text, Parse parse, T& out, const char* flag, const char* what,
                        const std::string& choices, const std::string* bad_part = nullptr) {
  auto v = parse(text);
  if (!v) {
    const std::string& shown = bad_part != nullptr ? *bad_part : text;
    return fail("unknown " + std::string(what) + " '" + shown + "'", {flag}, "use " + choices);
  }
  out = *v;
  return {};
}

std::optional<RecomputeMethod> parse_recompute_method(std::string_view s) {
  if (s == "uniform") return RecomputeMethod::kUniform;
  if (s == "block") return RecomputeMethod::kBlock;
  return std::nullopt;
}

// --pipeline-layout: parsed (errors at their column), VP from the stage count unless --vp is given;
// it replaces a recipe's first/last stage counts and embedding/loss accounting (Megatron-Core
// refuses them together, transformer_config.py).
Result<void> apply_pipeline_layout(const LayoutFlags& f, Layout& l) {
  if (f.pipeline_layout == "none") {
    l.pipeline_layout.clear();
    return {};
  }
  if (f.first_stage_layers || f.last_stage_layers || f.account_for_embedding.value_or(false) ||
      f.account_for_loss.value_or(false))
    return fail("--pipeline-layout cannot be combined with first/last stage layer counts or embedding/loss accounting",
                {"--pipeline-layout"}, "give one of them");
  auto stages = parse_pipeline_layout(f.pipeline_layout);
  if (!stages) {
    Error e = stages.error();
    e.message = "'" + f.pipeline_layout + "': " + e.message;
    return tl::unexpected(std::move(e));
  }
  const int n = static_cast<int>(stages->size());
  if (l.pp < 1 || n % l.pp != 0)
    return fail("the layout has " + std::to_string(n) + " stages, not a multiple of PP " + std::to_string(l.pp),
                {"--pipeline-layout"}, "give PP x VP stages separated by |, or set --pp");
  if (!f.vp) l.vp = n / l.pp;
  l.pipeline_layout = std::move(*stages);
  l.first_stage_layers = l.last_stage_layers = 0;
  l.account_for_embedding = l.account_for_loss = false;
  return {};
}

Result<void> apply_precision(const LayoutFlags& f, Layout& l) {
  return parse_into(f.precision, parse_precision, l.precision, "--precision", "precision",
                    "bf16, fp8_cs, fp8_ds, fp8_blockwise, mxfp8 or nvfp4");
}
Result<void> apply_recompute(const LayoutFlags& f, Layout& l) {
  return parse_into(f.recompute, parse_recompute, l.recompute, "--recompute", "recompute", "none, selective or full");
}
// A module list without --recompute means selective recompute.
Result<void> apply_recompute_modules(const LayoutFlags& f, Layout& l) {
  std::string bad;
  auto modules = [&](const std::string& t) { return parse_recompute_modules(t, &bad); };
  if (auto ok = parse_into(f.recompute_modules, modules, l.recompute_modules, "--recompute-modules",
                           "recompute module", recompute_module_choices(), &bad);
      !ok)
    return ok;
  if (f.recompute.empty()) l.recompute = Recompute::kSelective;
  return {};
}
Result<void> apply_recompute_method(const LayoutFlags& f, Layout& l) {
  return parse_into(f.recompute_method, parse_recompute_method, l.recompute_method, "--recompute-method",
                    "recompute method", "uniform or block");
}
Result<void> apply_cp_comm(const LayoutFlags& f, Layout& l) {
  return parse_into(f.cp_comm_type, parse_cp_comm, l.cp_comm, "--cp-comm-type", "CP communication type",
                    "p2p, a2a or allgather");
}
Result<void> apply_dispatcher(const LayoutFlags& f, Layout& l) {
  return parse_into(f.dispatcher, parse_dispatcher, l.dispatcher, "--dispatcher", "dispatcher",
                    "alltoall, allgather, deepep or hybridep");
}
Result<void> apply_optimizer(const LayoutFlags& f, Layout& l) {
  return parse_into(f.optimizer, parse_optimizer, l.optimizer, "--optimizer", "optimizer", "adam or muon");
}
// No graph captures no scope.
Result<void> apply_cuda_graph(const LayoutFlags& f, Layout& l) {
  if (auto ok = parse_into(f.cuda_graph, parse_cuda_graph, l.cuda_graph, "--cuda-graph", "CUDA-graph implementation",
                           "none, transformer_engine, local or full_iteration");
      !ok)
    return ok;
  if (l.cuda_graph == CudaGraph::kNone) l.cuda_graph_scope = 0;
  return {};
}
Result<void> apply_cuda_graph_scope(const LayoutFlags& f, Layout& l) {
  std::string bad;
  auto scopes = [&](const std::string& t) { return parse_cuda_graph_scopes(t, &bad); };
  return parse_into(f.cuda_graph_scope, scopes, l.cuda_graph_scope, "--cuda-graph-scope", "CUDA-graph scope",
                    cuda_graph_scope_choices(), &bad);
}

// --offload-modules: a list of Megatron-Core OffloadModule names; "none" turns a recipe's off.
Result<void> apply_offload_modules(const LayoutFlags& f, Layout& l) {
  if (f.offload_modules == "none") {
    l.offload_modules = 0;
    return {};
  }
  std::string bad;
  auto modules = [&](const std::string& t) { return parse_offload_modules(t, &bad); };
  return parse_into(f.offload_modules, modules, l.offload_modules, "--offload-modules", "offload module",
                    offload_module_choices(), &bad);
}
std::string offload_modules_text(const Layout& l) {
  return l.offload_modules != 0 ? offload_modules_str(l.offload_modules) : std::string();
}

std::string precision_text(const Layout& l) { return std::string(precision_name(l.precision)); }
std::string recompute_text(const Layout& l) { return std::string(recompute_name(l.recompute)); }
// Selective recompute without a module list runs Megatron-Core's default (core_attn), as the
// launch writers spell it.
std::string recompute_modules_text(const Layout& l) {
  if (l.recompute == Recompute::kSelective && l.recompute_modules == 0) return recompute_modules_str(kRcDefault);
  return l.recompute_modules != 0 ? recompute_modules_str(l.recompute_modules) : std::string();
}
std::string recompute_method_text(const Layout& l) {
  return l.recompute_method == RecomputeMethod::kBlock ? "block" : "uniform";
}
std::string cp_comm_text(const Layout& l) { return std::string(cp_comm_name(l.cp_comm)); }
bool cp_on(const Layout& l) { return l.cp > 1; }
std::string dispatcher_text(const Layout& l) { return std::string(dispatcher_name(l.dispatcher)); }
std::string cuda_graph_text(const Layout& l) { return std::string(cuda_graph_name(l.cuda_graph)); }
std::string optimizer_text(const Layout& l) { return std::string(optimizer_name(l.optimizer)); }
// The scope's module names, in the order cuda_graph_scope_choices() lists them.
std::string cuda_graph_scope_text(const Layout& l) {
  std::string out;
  const std::string choices = cuda_graph_scope_choices();
  for (size_t start = 0; start < choices.size();) {
    size_t end = choices.find(',', start);
    if (end == std::string::npos) end = choices.size();
    std::string name = choices.substr(start, end - start);
    name.erase(0, name.find_first_not_of(' '));
    if (auto bit = parse_cuda_graph_scope(name); bit && (l.cuda_graph_scope & *bit) == *bit)
      out += (out.empty() ? "" : ",") + name;
    start = end + 1;
  }
  return out;
}
std::string pipeline_layout_text(const Layout& l) {
  return l.pipeline_layout.empty() ? std::string() : pipeline_layout_str(l.pipeline_layout);
}

bool even_split_counts(const Layout& l) { return l.pipeline_layout.empty(); }
bool selective(const Layout& l) { return l.recompute == Recompute::kSelective; }
bool full_recompute(const Layout& l) { return l.recompute == Recompute::kFull; }
bool graphs_on(const Layout& l) { return l.cuda_graph != CudaGraph::kNone; }
bool offloads_activations(const Layout& l) { return l.offload_modules != 0; }
// TP is always spelled out; SP defaults to TP > 1 (seed 004, apply_layout_flags); unset, ETP
// follows TP for a MoE model (Megatron-Core) or is 1 (Megatron-Bridge, a dense model): only 1 with
// TP 1 is the same in every case.
bool never(const Layout&) { return false; }
bool sp_follows_tp(const Layout& l) { return l.sp == (l.tp > 1); }
bool etp_default(const Layout& l) { return l.tp == 1 && l.etp == 1; }
// Selective recompute without a list runs Megatron-Core's default modules.
bool no_module_list(const Layout& l) { return l.recompute_modules == 0; }

// The loss and dropout rows: the fused cross-entropy implementation, and whether it is in force.
Result<void> apply_cross_entropy_impl(const LayoutFlags& f, Layout& l) {
  return parse_into(f.cross_entropy_fusion_impl, parse_cross_entropy_impl, l.cross_entropy_fusion_impl,
                    "--cross-entropy-fusion-impl", "cross-entropy implementation", "te or native");
}
std::string cross_entropy_impl_text(const Layout& l) {
  return std::string(cross_entropy_impl_name(l.cross_entropy_fusion_impl));
}
bool cross_entropy_fused(const Layout& l) { return l.cross_entropy_loss_fusion; }
// The BF16 first/last layers mean something only under an FP8 or FP4 recipe.
bool quantized(const Layout& l) { return l.precision != Precision::kBf16; }
bool nvfp4(const Layout& l) { return l.precision == Precision::kNvfp4; }
bool sharded_optimizer(const Layout& l) { return l.fsdp || l.distributed_optimizer; }
// --bf16-modules / --mxfp8-modules: lists of GemmModule names; "none" clears a recipe's.
Result<void> apply_module_list(const std::string& text, uint32_t& out, const char* flag) {
  if (text == "none") {
    out = 0;
    return {};
  }
  std::string bad;
  auto modules = [&](const std::string& t) { return parse_gemm_modules(t, &bad); };
  return parse_into(text, modules, out, flag, "GEMM module", gemm_module_choices(), &bad);
}
Result<void> apply_bf16_modules(const LayoutFlags& f, Layout& l) {
  return apply_module_list(f.bf16_modules, l.bf16_modules, "--bf16-modules");
}
Result<void> apply_mxfp8_modules(const LayoutFlags& f, Layout& l) {
  return apply_module_list(f.mxfp8_modules, l.mxfp8_modules, "--mxfp8-modules");
}
std::string bf16_modules_text(const Layout& l) { return gemm_modules_str(l.bf16_modules); }
std::string mxfp8_modules_text(const Layout& l) { return gemm_modules_str(l.mxfp8_modules); }

const std::array kLayoutFields{
    plan_flag("Tensor parallel degree",
              implied_when(never, int_row("tp", "Tensor parallel size (default 1)", M::kOne, &F::tp, &L::tp,
                                          "layout.tp", "model.tensor_model_parallel_size",
                                          "--tensor-model-parallel-size", P::kSearched, D::kTp))),
    plan_flag("Pipeline parallel degree",
              int_row("pp", "Pipeline parallel size (default 1)", M::kOne, &F::pp, &L::pp, "layout.pp",
                      "model.pipeline_model_parallel_size", "--pipeline-model-parallel-size", P::kSearched,
                      D::kPipeline)),
    plan_flag("Virtual pipeline stages",
              int_row("vp", "Virtual pipeline stages per rank (interleaved 1F1B; default 1)", M::kOne, &F::vp,
                      &L::vp, "layout.vpp", "model.virtual_pipeline_model_parallel_size",
                      "--num-virtual-stages-per-pipeline-rank", P::kSearched, D::kPipeline)),
    plan_flag("Context parallel degree",
              int_row("cp", "Context parallel size (default 1)", M::kOne, &F::cp, &L::cp, "layout.cp",
                      "model.context_parallel_size", "--context-parallel-size", P::kSearched, D::kCp)),
    // TE's three CP schemes (core/layout.hpp CpComm); Megatron-LM reads --cp-comm-type per layer or once.
    plan_flag("any (default: p2p and a2a with CP > 1) | p2p | a2a | allgather, or a comma list",
              when_in_force(cp_on, when_set(text_row("cp_comm_type",
                                                     "CP exchange: p2p (default: TE's K/V ring) | a2a (Ulysses: heads "
                                                     "over CP) | allgather (K/V gathered, exposed)",
                                                     &F::cp_comm_type, cp_comm_text, apply_cp_comm,
                                                     "features.settings.cp_comm_type", "model.cp_comm_type",
                                                     "--cp-comm-type", P::kSearched, D::kCp))),
              cp_comm_values, set_cp_comm),
    plan_flag("Expert parallel degree",
              int_row("ep", "Expert parallel size (default 1)", M::kOne, &F::ep, &L::ep, "layout.ep",
                      "model.expert_model_parallel_size", "--expert-model-parallel-size", P::kSearched, D::kEp)),
    plan_flag("Expert tensor parallel degree",
              implied_when(etp_default,
                           int_row("etp", "Expert tensor parallel size (default: TP for a MoE model, as Megatron)",
                                   M::kOne, &F::etp, &L::etp, "layout.etp", "model.expert_tensor_parallel_size",
                                   "--expert-tensor-parallel-size", P::kSearched, D::kEtp))),
    plan_flag("Micro batch (default 1 .. --max-mbs)",
              int_row("mbs", "Micro batch size in sequences (default 1)", M::kOne, &F::mbs, &L::mbs,
                      "layout.rows_per_microbatch", "train.micro_batch_size", "--micro-batch-size", P::kSearched,
                      D::kMbs)),
    when_in_force(
        even_split_counts,
        int_row("first_stage_layers", "Layers on the first pipeline stage, when PP does not divide the layers",
                M::kZero, &F::first_stage_layers, &L::first_stage_layers, "features.pipeline_layout.first_stage_layers",
                "model.num_layers_in_first_pipeline_stage", "--decoder-first-pipeline-num-layers", P::kDerived,
                D::kPipeline)),
    when_in_force(even_split_counts,
                  int_row("last_stage_layers", "Layers on the last pipeline stage", M::kZero, &F::last_stage_layers,
                          &L::last_stage_layers, "features.pipeline_layout.last_stage_layers",
                          "model.num_layers_in_last_pipeline_stage", "--decoder-last-pipeline-num-layers", P::kDerived,
                          D::kPipeline)),
    when_set(text_row(
        "pipeline_layout",
        "Megatron-Core pipeline_model_parallel_layout, e.g. 'Et*3|(t*4|)*2t*3L' (sets VP; none drops a recipe's)",
        &F::pipeline_layout, pipeline_layout_text, apply_pipeline_layout, "features.pipeline_layout",
        "model.pipeline_model_parallel_layout", "--pipeline-model-parallel-layout", P::kDerived, D::kPipeline)),
    when_set(bool_row(
        "account_for_embedding",
        "Count the embedding as a layer of the first pipeline stage (account_for_embedding_in_pipeline_split)",
        &F::account_for_embedding, &L::account_for_embedding,
        "features.settings.account_for_embedding_in_pipeline_split", "model.account_for_embedding_in_pipeline_split",
        "--account-for-embedding-in-pipeline-split", P::kDerived, D::kPipeline)),
    when_set(bool_row(
        "account_for_loss", "Count the loss as a layer of the last pipeline stage (account_for_loss_in_pipeline_split)",
        &F::account_for_loss, &L::account_for_loss, "features.settings.account_for_loss_in_pipeline_split",
        "model.account_for_loss_in_pipeline_split", "--account-for-loss-in-pipeline-split", P::kDerived, D::kPipeline)),
    implied_when(sp_follows_tp, bool_row("sp", "Sequence parallel (default: on when TP > 1)", &F::sp, &L::sp,
                                         "layout.sequence_parallel", "model.sequence_parallel", "--sequence-parallel",
                                         P::kDerived, D::kTp)),
    plan_flag("Megatron-FSDP: any | on | off",
              bool_row("fsdp", "Megatron-FSDP (optim_grads_params) instead of DDP + distributed optimizer", &F::fsdp,
                       &L::fsdp, "features.fsdp", "ddp.use_megatron_fsdp", "--use-megatron-fsdp", P::kSearched,
                       D::kFsdp)),
    // Muon's Megatron-LM spelling is --optimizer muon (with --use-distributed-optimizer for the
    // layer-wise sharding); Bridge names the sharded one dist_muon (launch_bridge.cpp).
    when_set(text_row("optimizer", "adam (default) | muon: Muon on the 2-D weights, Adam on embeddings, head and norms",
                      &F::optimizer, optimizer_text, apply_optimizer, "features.optimizer", "optimizer.optimizer",
                      "--optimizer", P::kFixed, D::kNone)),
    when_set(bool_row("distributed_optimizer", "Distributed optimizer (default on)", &F::distributed_optimizer,
                      &L::distributed_optimizer, "features.settings.use_distributed_optimizer",
                      "ddp.use_distributed_optimizer", "--use-distributed-optimizer", P::kFixed, D::kNone)),
    // Megatron-FSDP's HSDP needs outer_dp_sharding_strategy beside it, which the writers add
    // (launch_bridge.cpp, launch_megatron.cpp): Bridge's HSDP recipes set "optim".
    when_in_force(sharded_optimizer,
                  when_set(int_row("distributed_optimizer_instances",
                                   "Shard the optimizer (with --fsdp: HSDP, the weights and gradients too) inside this "
                                   "many groups of the DP ranks, replicated across them (default 1)",
                                   M::kOne, &F::distributed_optimizer_instances, &L::distributed_optimizer_instances,
                                   "features.settings.num_distributed_optimizer_instances",
                                   "ddp.num_distributed_optimizer_instances", "--num-distributed-optimizer-instances",
                                   P::kFixed, D::kNone))),
    when_set(bool_row("precision_aware_optimizer", "Precision-aware optimizer: BF16 moments and masters",
                      &F::precision_aware_optimizer, &L::precision_aware_optimizer,
                      "features.precision_aware_optimizer", "optimizer.use_precision_aware_optimizer",
                      "--use-precision-aware-optimizer", P::kFixed, D::kNone)),
    when_set(bool_row("grad_reduce_in_fp32",
                      "FP32 main gradients, reduced in FP32 (Bridge library recipes' default; adds 2 B/param)",
                      &F::grad_reduce_in_fp32, &L::grad_reduce_in_fp32, "features.grad_reduce_in_fp32",
                      "ddp.grad_reduce_in_fp32", "--accumulate-allreduce-grads-in-fp32", P::kFixed, D::kNone)),
    when_set(bool_row("ep_a2a_overlap", "Overlap the EP all-to-all with compute", &F::ep_a2a_overlap,
                      &L::ep_a2a_overlap, "features.ep_a2a_overlap", "comm_overlap.overlap_moe_expert_parallel_comm",
                      "--overlap-moe-expert-parallel-comm", P::kFixed, D::kNone)),
    when_set(bool_row("tp_comm_overlap", "Overlap TP communication with GEMMs", &F::tp_comm_overlap,
                      &L::tp_comm_overlap, "features.tp_comm_overlap", "comm_overlap.tp_comm_overlap",
                      "--tp-comm-overlap", P::kFixed, D::kNone)),
    // Precision names a Bridge mixed-precision recipe and a set of Megatron-LM flags (launch_*.cpp).
    plan_flag("Precisions to try, comma list: bf16,fp8_cs,mxfp8,nvfp4,... (default: the recipe's, else bf16)",
              text_row("precision", "bf16 (default) | fp8_cs | fp8_ds | fp8_blockwise | mxfp8 | nvfp4",
                       &F::precision, precision_text, apply_precision, "workload.precision", "mixed_precision", "",
                       P::kSearched, D::kPrecision),
              precision_values, set_precision, "bf16"),
    plan_flag("any (default) | none | selective | full | a module list",
              text_row("recompute", "none (default) | selective | full", &F::recompute, recompute_text,
                       apply_recompute, "layout.recompute.granularity", "model.recompute_granularity",
                       "--recompute-granularity", P::kSearched, D::kRecompute),
              recompute_values, set_recompute),
    implied_when(
        no_module_list,
        when_in_force(selective,
                      text_row("recompute_modules", "Selective recompute modules: core_attn,moe_act,mla_up_proj,...",
                               &F::recompute_modules, recompute_modules_text, apply_recompute_modules,
                               "features.recompute_modules", "model.recompute_modules", "--recompute-modules",
                               P::kSearched, D::kRecompute))),
    when_in_force(full_recompute,
                  when_set(text_row("recompute_method", "uniform | block (full recompute)", &F::recompute_method,
                                    recompute_method_text, apply_recompute_method, "layout.recompute.method",
                                    "model.recompute_method", "--recompute-method", P::kSearched, D::kRecompute))),
    when_in_force(full_recompute,
                  int_row("recompute_layers", "Layers per recompute unit (full recompute; default 1)", M::kAny,
                          &F::recompute_layers, &L::recompute_layers, "layout.recompute.num_layers",
                          "model.recompute_num_layers", "--recompute-num-layers", P::kSearched, D::kRecompute)),
    // The dispatcher is a type and, for flex, a backend (launch_*.cpp).
    plan_flag("any (default) | alltoall | flex_deepep | flex_hybridep, or a comma list",
              text_row("dispatcher", "MoE dispatcher: alltoall (default) | allgather | deepep | hybridep",
                       &F::dispatcher, dispatcher_text, apply_dispatcher, "layout.dispatcher",
                       "model.moe_token_dispatcher_type", "--moe-token-dispatcher-type", P::kSearched,
                       D::kDispatcher),
              dispatcher_values, set_dispatcher),
    text_row("cuda_graph", "none (default) | transformer_engine | local | full_iteration", &F::cuda_graph,
             cuda_graph_text, apply_cuda_graph, "features.cuda_graph.impl", "model.cuda_graph_impl",
             "--cuda-graph-impl", P::kFixed, D::kNone),
    when_in_force(graphs_on, when_set(text_row("cuda_graph_scope", "attn,mlp,moe,moe_router,moe_preprocess,mamba",
                                               &F::cuda_graph_scope, cuda_graph_scope_text, apply_cuda_graph_scope,
                                               "features.cuda_graph.scope", "model.cuda_graph_scope",
                                               "--cuda-graph-scope", P::kFixed, D::kNone))),
    when_set(int_row("cpu_offload_layers", "Activation offload layers", M::kAny, &F::cpu_offload_layers,
                     &L::cpu_offload_layers, "features.cpu_offload_layers", "model.cpu_offloading_num_layers",
                     "--cpu-offloading-num-layers", P::kFixed, D::kNone)),
    // Host offload (docs/model.md "Offload"). Each also sets a switch beside its value (Bridge
    // optimizer.optimizer_cpu_offload, model.fine_grained_activation_offloading; Megatron-LM
    // --optimizer-cpu-offload, --fine-grained-activation-offloading): the writers add those
    // (launch_bridge.cpp, launch_megatron.cpp). plan searches offload itself (--offload auto) when no
    // layout fits without it (search/offload.hpp), so it takes none of these flags.
    when_set(number_row("optimizer_offload_fraction",
                        "Optimizer CPU offload: share of the optimizer state on the host, 0..1 (default 0 = off)",
                        &F::optimizer_offload_fraction, &L::optimizer_offload_fraction,
                        "features.optimizer_offload_fraction", "optimizer.optimizer_offload_fraction",
                        "--optimizer-offload-fraction", P::kDerived, D::kNone)),
    when_set(text_row(
        "offload_modules",
        "Fine-grained activation offloading: attn_norm,qkv_linear,core_attn,attn_proj,mlp_norm,expert_fc1,moe_act",
        &F::offload_modules, offload_modules_text, apply_offload_modules, "", "model.offload_modules",
        "--offload-modules", P::kDerived, D::kNone)),
    when_in_force(
        offloads_activations,
        number_row("activation_offload_fraction", "Share of the offload groups offloaded, 0..1 (default 1)",
                   &F::activation_offload_fraction, &L::activation_offload_fraction, "",
                   "model.activation_offload_fraction", "--activation-offload-fraction", P::kDerived, D::kNone)),
    // The loss and dropout (docs/model.md "Memory"; flags of Megatron-Core ModelParallelConfig and
    // TransformerConfig, which Megatron-LM's arguments.py generates). Defaults: Bridge's performance
    // recipes (GPTModelProvider cross_entropy_loss_fusion=True, perf_recipes/_common.py
    // cross_entropy_fusion_impl="te", dropout 0), not Megatron-LM's (fusion off, dropout 0.1).
    when_set(bool_row("cross_entropy_loss_fusion",
                      "Fused cross entropy (default on; off: Megatron-Core's unfused loss, an fp32 softmax per logit)",
                      &F::cross_entropy_loss_fusion, &L::cross_entropy_loss_fusion,
                      "features.cross_entropy_loss_fusion", "model.cross_entropy_loss_fusion",
                      "--cross-entropy-loss-fusion", P::kFixed, D::kNone)),
    when_in_force(cross_entropy_fused,
                  when_set(text_row("cross_entropy_fusion_impl",
                                    "Fused cross entropy: te (default; in place in the 16-bit logits) | native (fp32)",
                                    &F::cross_entropy_fusion_impl, cross_entropy_impl_text, apply_cross_entropy_impl,
                                    "features.cross_entropy_fusion_impl", "model.cross_entropy_fusion_impl",
                                    "--cross-entropy-fusion-impl", P::kFixed, D::kNone))),
    when_set(number_row("hidden_dropout", "Hidden dropout probability, 0..1 (default 0; Megatron-LM's own is 0.1)",
                        &F::hidden_dropout, &L::hidden_dropout, "features.hidden_dropout", "model.hidden_dropout",
                        "--hidden-dropout", P::kFixed, D::kNone)),
    when_set(number_row("attention_dropout",
                        "Attention dropout probability, 0..1 (default 0; Megatron-LM's own is 0.1)",
                        &F::attention_dropout, &L::attention_dropout, "features.attention_dropout",
                        "model.attention_dropout", "--attention-dropout", P::kFixed, D::kNone)),
    // Megatron-Core first_last_layers_bf16 (TransformerConfig; Bridge MixedPrecisionConfig): one row per
    // count; the writers add the switch and write both counts when either is set (Megatron-Core's own
    // default count is 1, Bridge's 0: launch_megatron.cpp, launch_bridge.cpp).
    when_in_force(quantized,
                  when_set(int_row("bf16_layers_at_start",
                                   "Decoder layers at the start kept in BF16 under FP8/FP4 (first_last_layers_bf16)",
                                   M::kZero, &F::bf16_layers_at_start, &L::bf16_layers_at_start,
                                   "features.settings.num_layers_at_start_in_bf16",
                                   "mixed_precision.num_layers_at_start_in_bf16", "--num-layers-at-start-in-bf16",
                                   P::kFixed, D::kNone))),
    when_in_force(quantized,
                  when_set(int_row("bf16_layers_at_end",
                                   "Decoder layers at the end kept in BF16 under FP8/FP4 (first_last_layers_bf16)",
                                   M::kZero, &F::bf16_layers_at_end, &L::bf16_layers_at_end,
                                   "features.settings.num_layers_at_end_in_bf16",
                                   "mixed_precision.num_layers_at_end_in_bf16", "--num-layers-at-end-in-bf16",
                                   P::kFixed, D::kNone))),
    // Per-module precision (Megatron-Core quant_recipe, a TE quantization config of module-name
    // matchers): no one-to-one Bridge key or Megatron-LM flag. Bridge recipes build it in code
    // (model.quant_recipe = load_quantization_recipe(...)); pretrain_gpt.py reads it from a file
    // (--te-precision-config-file): launch_bridge.cpp, launch_megatron.cpp.
    when_in_force(quantized, when_set(text_row("bf16_modules",
                                               "GEMM modules kept in BF16 inside the FP8/FP4 layers: linear_qkv,linear_proj,in_proj,out_proj,mlp,shared_experts,experts,latent_proj,mtp",
                                               &F::bf16_modules, bf16_modules_text, apply_bf16_modules,
                                               "features.bf16_modules", "", "", P::kFixed, D::kNone))),
    when_in_force(quantized, when_set(text_row("mxfp8_modules",
                                               "GEMM modules run in MXFP8 inside the FP8/FP4 layers: linear_qkv,linear_proj,in_proj,out_proj,mlp,shared_experts,experts,latent_proj,mtp",
                                               &F::mxfp8_modules, mxfp8_modules_text, apply_mxfp8_modules,
                                               "features.mxfp8_modules", "", "", P::kFixed, D::kNone))),

    // TE's fused grouped MLP: Megatron-Core use_transformer_engine_op_fuser (Megatron-LM's flag comes
    // from TransformerConfig, arguments.py ArgumentGroupFactory); the launch also exports TE's gate
    // NVTE_CUTEDSL_FUSED_GROUPED_MLP=1 (emit/launch_spec.cpp), as Bridge's perf recipes do.
    when_set(bool_row("fused_grouped_mlp",
                      "TE fused grouped expert MLP: FC1 + activation + quantization in one kernel "
                      "(use_transformer_engine_op_fuser; MXFP8/NVFP4 on Blackwell)",
                      &F::fused_grouped_mlp, &L::fused_grouped_mlp, "features.fused_grouped_mlp",
                      "model.use_transformer_engine_op_fuser", "--use-transformer-engine-op-fuser", P::kFixed,
                      D::kNone)),
    // Megatron-Core fp8_dot_product_attention, a MixedPrecisionConfig field in Bridge. Megatron-LM has
    // no flag for it (arguments.py excludes it from the TransformerConfig flags: "no CLI argument
    // exists for these"), so the Megatron-LM writer cannot express it (launch_megatron.cpp).
    when_in_force(quantized,
                  when_set(bool_row("fp8_attention",
                                    "Core attention in FP8 under an FP8/FP4 recipe (fp8_dot_product_attention)",
                                    &F::fp8_attention, &L::fp8_attention, "features.fp8_attention",
                                    "mixed_precision.fp8_dot_product_attention", "", P::kFixed, D::kNone))),
    // Under NVFP4, the parameters all-gathered in FP4 (Layout::fp4_param_gather): on as Bridge's
    // bf16_with_nvfp4_mixed sets it, off in the Nemotron 3 Super performance recipes. A flag, so an
    // estimate's "as flags" line gives those recipes back (--no-fp4-param-gather).
    when_in_force(nvfp4,
                  when_set(bool_row("fp4_param_gather",
                                    "Under NVFP4: all-gather the parameters in FP4 (default on; off keeps BF16 weights "
                                    "and their gather)",
                                    &F::fp4_param_gather, &L::fp4_param_gather, "features.settings.fp4_param_gather",
                                    "mixed_precision.fp4_param_gather", "--fp4-param-gather", P::kFixed, D::kNone))),
};
}  // namespace

std::span<const LayoutField> layout_fields() { return kLayoutFields; }

}  // namespace rb
