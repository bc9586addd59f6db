// The memory tests' fixture (memory_test.cpp, memory_megatron_test.cpp): a GPT-3 layer model and
// one pipeline rank's memory of a layout.
#pragma once

#include <gtest/gtest.h>

#include "recipebook/estimate/memory.hpp"
#include "recipebook/estimate/test_models.hpp"

namespace rb::test {

// A GPT-3 style layer (MHA, GeLU, ffn = 4h), the shape Korthikanti et al. 2022 Table 2 counts.
inline Model gpt_layer_model(int layers) {
  Model m = dense_gqa("gpt", 4096, layers, 32, 32, 128, 4 * 4096, 51200, false);
  m.activation = Activation::kGelu;
  return m;
}

inline MemoryInputs memory_inputs(const PreparedModel& pm, const Hardware& hw, int64_t seq, int microbatches,
                                  Mode mode = Mode::kPretrain) {
  MemoryInputs in;
  in.model = &pm;
  in.hw = &hw;
  in.seq = seq;
  in.microbatches = microbatches;
  in.mode = mode;
  return in;
}

// DeepSeek-V3's 61 layers over PP 4 (13 first, 12 last, 18 in each middle rank), EP 8, DP 8: the
// split the embedding, MTP and head placement tests use.
inline Layout deepseek_v3_pp4_layout() {
  Layout l;
  l.pp = 4;
  l.ep = 8;
  l.dp = 8;
  l.first_stage_layers = 13;
  l.last_stage_layers = 12;
  return l;
}

// Pipeline rank `rank` of `l` (an even split, or the layout's own) with `m` micro-batches per step.
inline MemoryBreakdown rank_memory_of(const PreparedModel& pm, const Hardware& hw, const Layout& l, int64_t seq, int m,
                                      int rank = 0, Mode mode = Mode::kPretrain) {
  const StagePlan plan = plan_stages(pm.num_layers, l);
  EXPECT_TRUE(plan.ok);
  return rank_memory(memory_inputs(pm, hw, seq, m, mode), l, plan, rank);
}

}  // namespace rb::test
