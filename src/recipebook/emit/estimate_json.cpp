#include "recipebook/emit/estimate_json.hpp"

namespace rb {

Json memory_parts_json(const MemoryBreakdown& m) {
  Json p;
  p["weights_bytes"] = m.weights_bytes;
  p["quantized_weights_bytes"] = m.quantized_weights_bytes;
  p["grads_bytes"] = m.grads_bytes;
  p["optimizer_bytes"] = m.optimizer_bytes;
  p["activations_bytes"] = m.activations_bytes;
  p["logits_bytes"] = m.logits_bytes;
  p["fsdp_buffers_bytes"] = m.fsdp_buffers_bytes;
  p["cuda_context_bytes"] = m.cuda_context_bytes;
  p["nccl_buffers_bytes"] = m.nccl_buffers_bytes;
  p["cuda_graphs_bytes"] = m.cuda_graphs_bytes;
  p["fragmentation_bytes"] = m.fragmentation_bytes;
  return p;
}

Json time_parts_json(const TimeBreakdown& t) {
  Json p;
  p["gemm_s"] = t.gemm_s;
  p["attention_s"] = t.attention_s;
  p["memory_bound_s"] = t.memory_bound_s;
  p["recompute_s"] = t.recompute_s;
  p["tp_comm_s"] = t.tp_comm_s;
  p["cp_comm_s"] = t.cp_comm_s;
  p["ep_comm_s"] = t.ep_comm_s;
  p["pp_p2p_s"] = t.pp_p2p_s;
  p["bubble_s"] = t.bubble_s;
  p["dp_comm_s"] = t.dp_comm_s;
  p["optimizer_s"] = t.optimizer_s;
  p["overhead_s"] = t.overhead_s;
  return p;
}

}  // namespace rb
