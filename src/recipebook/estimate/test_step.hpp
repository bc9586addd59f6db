// Test helper: the step time of one layout, its pipeline split planned as Megatron does (the
// time tests of host.cpp and fused_kernels.cpp share it).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>

#include "recipebook/estimate/stages.hpp"
#include "recipebook/estimate/time.hpp"

namespace rb::test {

inline TimeBreakdown run(const PreparedModel& pm, const Hardware& hw, const Layout& l, int64_t seq, int m) {
  TimeInputs in;
  in.model = &pm;
  in.hw = &hw;
  in.seq = seq;
  in.microbatches = m;
  const StagePlan plan = plan_stages(pm.num_layers, l);
  EXPECT_TRUE(plan.ok);
  return step_time(in, l, plan);
}

}  // namespace rb::test
