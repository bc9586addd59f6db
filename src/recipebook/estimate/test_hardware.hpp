// Test-only: GPUs from ../shared/data/gpus.csv (memory, HBM bandwidth, dense peaks, NVLink and
// scale-out bandwidth per GPU and direction, NVLink domain, price), with default efficiencies.
#pragma once

#include <string>

#include "recipebook/core/hardware.hpp"

namespace rb::test {

inline Hardware make_gpu(std::string name, double mem_gb, double hbm_tbps, double bf16_tf, double fp8_tf,
                         double fp4_tf, double nvlink_gbit, int domain, double scaleout_gbit, int per_node,
                         double usd) {
  Hardware hw;
  hw.name = std::move(name);
  hw.memory_bytes = mem_gb * 1e9;
  hw.hbm_bytes_per_s = hbm_tbps * 1e12;
  hw.bf16_flops_per_s = bf16_tf * 1e12;
  hw.fp8_flops_per_s = fp8_tf * 1e12;
  hw.fp4_flops_per_s = fp4_tf * 1e12;
  hw.nvlink_bytes_per_s = nvlink_gbit * 1e9 / 8;
  hw.nvlink_domain = domain;
  hw.scaleout_bytes_per_s = scaleout_gbit * 1e9 / 8;
  hw.gpus_per_node = per_node;
  hw.usd_per_gpu_hour = usd;
  return hw;
}

inline Hardware a100() { return make_gpu("a100", 80, 2.039, 312, 0, 0, 2400, 8, 50, 8, 3.431); }
inline Hardware h100() { return make_gpu("h100", 80, 3.35, 989.4, 1978.9, 0, 3600, 8, 400, 8, 6.88); }
inline Hardware h200() { return make_gpu("h200", 141, 4.8, 989.4, 1978.9, 0, 3600, 8, 400, 8, 7.912); }
inline Hardware b200() { return make_gpu("b200", 180, 8.0, 2250, 4500, 9000, 7200, 8, 400, 8, 14.2416); }
inline Hardware b300() { return make_gpu("b300", 270, 8.0, 2250, 4500, 14000, 7200, 8, 800, 8, 17.802); }
inline Hardware gb200() { return make_gpu("gb200", 186, 8.0, 2500, 5000, 10000, 7200, 72, 400, 4, 0); }
inline Hardware gb300() { return make_gpu("gb300", 279, 8.0, 2500, 5000, 15000, 7200, 72, 800, 4, 0); }

}  // namespace rb::test
