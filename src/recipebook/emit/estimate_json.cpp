#include "recipebook/emit/estimate_json.hpp"

namespace rb {

Json memory_parts_json(const MemoryBreakdown& m) {
  Json p;
  for (const MemoryPart& part : kMemoryParts) p[std::string(part.key)] = m.*part.bytes;
  return p;
}

Json host_memory_json(const MemoryReport& r) {
  Json h;
  h["optimizer_bytes"] = r.worst.host_optimizer_bytes;
  h["activations_bytes"] = r.worst.host_activations_bytes;
  h["per_gpu_bytes"] = r.host_gpu_bytes;
  h["node_bytes"] = r.host_node_bytes;
  h["capacity_bytes"] = r.host_capacity_bytes;
  h["fits"] = r.host_fits;
  return h;
}

Json stage_memory_json(const MemoryBreakdown& m) {
  return {{"stage", m.stage},
          {"peak_bytes", m.peak_bytes},
          {"headroom_bytes", m.headroom_bytes()},
          {"fits", m.fits},
          {"parts", memory_parts_json(m)}};
}

Json time_parts_json(const TimeBreakdown& t) {
  Json p;
  for (const TimePart& part : kTimeParts) p[std::string(part.key)] = t.*part.seconds;
  return p;
}

}  // namespace rb
