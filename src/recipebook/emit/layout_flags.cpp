#include "recipebook/emit/layout_flags.hpp"

#include <utility>

namespace rb {

bool LayoutFlags::any() const {
  return tp || pp || vp || cp || ep || etp || mbs || first_stage_layers || last_stage_layers || sp || fsdp ||
         distributed_optimizer || precision_aware_optimizer || ep_a2a_overlap || tp_comm_overlap || grad_reduce_in_fp32 ||
         account_for_embedding || account_for_loss ||
         !precision.empty() || !recompute.empty() || !recompute_modules.empty() || !recompute_method.empty() ||
         recompute_layers || !dispatcher.empty() || !cuda_graph.empty() || !cuda_graph_scope.empty() ||
         cpu_offload_layers;
}

Result<void> apply_layout_flags(const LayoutFlags& f, Layout& l, bool from_flags_only) {
  const int old_tp = l.tp;
  const bool old_sp = l.sp;
  const std::pair old_pipeline{l.pp, l.vp};
  if (f.tp) l.tp = *f.tp;
  if (f.pp) l.pp = *f.pp;
  if (f.vp) l.vp = *f.vp;
  // A recipe's uneven split belongs to its PP and VP: another pipeline starts even unless given.
  if (std::pair{l.pp, l.vp} != old_pipeline) l.first_stage_layers = l.last_stage_layers = 0;
  if (f.first_stage_layers) l.first_stage_layers = *f.first_stage_layers;
  if (f.last_stage_layers) l.last_stage_layers = *f.last_stage_layers;
  if (f.account_for_embedding) l.account_for_embedding = *f.account_for_embedding;
  if (f.account_for_loss) l.account_for_loss = *f.account_for_loss;
  if (f.cp) l.cp = *f.cp;
  if (f.ep) l.ep = *f.ep;
  if (f.etp) l.etp = *f.etp;
  if (f.mbs) l.mbs = *f.mbs;
  // Seed 004: "SP should be True whenever TP > 1"; Megatron refuses SP with TP 1.
  if (f.sp)
    l.sp = *f.sp;
  else
    l.sp = l.tp > 1 && (from_flags_only || old_sp || old_tp == 1);
  if (f.fsdp) l.fsdp = *f.fsdp;
  if (f.distributed_optimizer) l.distributed_optimizer = *f.distributed_optimizer;
  if (f.precision_aware_optimizer) l.precision_aware_optimizer = *f.precision_aware_optimizer;
  if (f.grad_reduce_in_fp32) l.grad_reduce_in_fp32 = *f.grad_reduce_in_fp32;
  if (f.ep_a2a_overlap) l.ep_a2a_overlap = *f.ep_a2a_overlap;
  if (f.tp_comm_overlap) l.tp_comm_overlap = *f.tp_comm_overlap;
  if (f.cpu_offload_layers) l.cpu_offload_layers = *f.cpu_offload_layers;
  if (!f.precision.empty()) {
    auto p = parse_precision(f.precision);
    if (!p) return fail("unknown precision '" + f.precision + "'", {"--precision"}, "use bf16, fp8_cs, fp8_ds, fp8_blockwise, mxfp8 or nvfp4");
    l.precision = *p;
  }
  if (!f.recompute.empty()) {
    auto r = parse_recompute(f.recompute);
    if (!r) return fail("unknown recompute '" + f.recompute + "'", {"--recompute"}, "use none, selective or full");
    l.recompute = *r;
  }
  std::string bad;
  if (!f.recompute_modules.empty()) {
    auto mask = parse_recompute_modules(f.recompute_modules, &bad);
    if (!mask)
      return fail("unknown recompute module '" + bad + "'", {"--recompute-modules"}, "use " + recompute_module_choices());
    l.recompute_modules = *mask;
    if (f.recompute.empty()) l.recompute = Recompute::kSelective;
  }
  if (!f.recompute_method.empty()) {
    if (f.recompute_method == "uniform") l.recompute_method = RecomputeMethod::kUniform;
    else if (f.recompute_method == "block") l.recompute_method = RecomputeMethod::kBlock;
    else return fail("unknown recompute method '" + f.recompute_method + "'", {"--recompute-method"}, "use uniform or block");
  }
  if (f.recompute_layers) l.recompute_layers = *f.recompute_layers;
  if (!f.dispatcher.empty()) {
    auto d = parse_dispatcher(f.dispatcher);
    if (!d) return fail("unknown dispatcher '" + f.dispatcher + "'", {"--dispatcher"}, "use alltoall, allgather, deepep or hybridep");
    l.dispatcher = *d;
  }
  if (!f.cuda_graph.empty()) {
    auto g = parse_cuda_graph(f.cuda_graph);
    if (!g) return fail("unknown CUDA-graph implementation '" + f.cuda_graph + "'", {"--cuda-graph"},
                        "use none, transformer_engine, local or full_iteration");
    l.cuda_graph = *g;
    if (*g == CudaGraph::kNone) l.cuda_graph_scope = 0;
  }
  if (!f.cuda_graph_scope.empty()) {
    auto mask = parse_cuda_graph_scopes(f.cuda_graph_scope, &bad);
    if (!mask)
      return fail("unknown CUDA-graph scope '" + bad + "'", {"--cuda-graph-scope"}, "use " + cuda_graph_scope_choices());
    l.cuda_graph_scope = *mask;
  }
  return {};
}

}  // namespace rb
