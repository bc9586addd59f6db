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
  for (const TimePart& part : kTimeParts) p[std::string(part.key)] = t.*part.seconds;
  return p;
}

}  // namespace rb
