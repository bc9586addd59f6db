// JSON of the estimator's named parts, shared by `estimate`, `plan` and `recommend` so that every
// command spells a part the same way (SI units: bytes, seconds).
#pragma once

#include "recipebook/emit/catalog_json.hpp"
#include "recipebook/estimate/memory.hpp"
#include "recipebook/estimate/time.hpp"

namespace rb {

// weights_bytes, quantized_weights_bytes, grads_bytes, ..., fragmentation_bytes (parts only).
Json memory_parts_json(const MemoryBreakdown& m);
// The host memory offload fills: per GPU (the largest rank's), per node, the node's, fits.
Json host_memory_json(const MemoryReport& r);
// One pipeline rank's memory: {"stage", "peak_bytes", "headroom_bytes", "fits", "parts"} (estimate
// --json's "memory.stages", one per rank).
Json stage_memory_json(const MemoryBreakdown& m);
// gemm_s, attention_s, ..., overhead_s (parts only).
Json time_parts_json(const TimeBreakdown& t);

}  // namespace rb
