#include "recipebook/emit/estimate_json.hpp"

namespace rb {

Json memory_parts_json(const MemoryBreakdown& m) {
  Json p;
  for (const MemoryPart& part : kMemoryParts) p[std::string(part.key)] = m.*part.bytes;
  return p;
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
