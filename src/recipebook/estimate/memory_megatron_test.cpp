// Memory terms that the measured Megatron peaks (bench/memory_peaks.cpp) showed missing, each checked
// against the code or paper it comes from: the fp32 softmax of Megatron-Core's cross entropy, the
// hidden-dropout masks of Korthikanti et al. 2022 Table 2, the MTP rank's own word embedding.
#include <gtest/gtest.h>

#include "recipebook/estimate/memory.hpp"
#include "recipebook/estimate/params.hpp"
#include "recipebook/estimate/test_hardware.hpp"
#include "recipebook/estimate/test_models.hpp"

namespace rb {
namespace {

MemoryBreakdown rank_of(const PreparedModel& pm, const Hardware& hw, const Layout& l, int64_t seq, int m, int rank,
                        CrossEntropy ce = CrossEntropy::kTe, double dropout = 0) {
  MemoryInputs in;
  in.cross_entropy = ce;
  in.hidden_dropout = dropout;
  in.model = &pm;
  in.hw = &hw;
  in.seq = seq;
  in.microbatches = m;
  const StagePlan plan = plan_stages(pm.num_layers, l);
  EXPECT_TRUE(plan.ok);
  return rank_memory(in, l, plan, rank);
}

// Megatron-Core tensor_parallel/cross_entropy.py (calculate_logits_max casts the logits to fp32 and
// the softmax is saved for the backward; fused_cross_entropy.py casts the gradient back to bf16):
// 4 + 2 bytes per logit at the loss, against TE's in-place 2 (language_module.py chooses between them).
TEST(MemoryMegatron, NativeCrossEntropyHoldsAnFp32Softmax) {
  const PreparedModel pm = prepare(test::llama3_8b());
  const Hardware hw = test::h100();
  Layout l;
  l.tp = 2;
  l.pp = 2;
  l.dp = 2;
  const double tokens = 2.0 * 4096;  // mbs 2
  l.mbs = 2;
  const double vpad = static_cast<double>(padded_vocab(pm.model.vocab, l.tp));
  const MemoryBreakdown te = rank_of(pm, hw, l, 4096, 4, 1);
  EXPECT_DOUBLE_EQ(te.logits_bytes, tokens * 2.0 * vpad / l.tp);
  const MemoryBreakdown native = rank_of(pm, hw, l, 4096, 4, 1, CrossEntropy::kNative);
  EXPECT_DOUBLE_EQ(native.logits_bytes, tokens * 6.0 * vpad / l.tp);
  EXPECT_EQ(rank_of(pm, hw, l, 4096, 4, 0, CrossEntropy::kNative).logits_bytes, 0.0);  // the loss lives on the last stage only
}

// Korthikanti et al. 2022 (arXiv 2205.05198) Table 2 with dropout: 34 s b h / t per GPT layer with
// TP + SP and flash attention (no 5 a s / h term), the 32 of dropout off plus one 1-byte mask after
// attention and one after the MLP; without SP, the masks stay whole like the norms: 10 + 24 / t.
TEST(MemoryMegatron, HiddenDropoutKeepsOneByteMaskPerSubBlock) {
  Model m = test::dense_gqa("gpt", 4096, 8, 32, 32, 128, 4 * 4096, 51200, false);
  m.activation = Activation::kGelu;
  const PreparedModel pm = prepare(m);
  const Hardware hw = test::h100();
  for (int tp : {1, 2, 8}) {
    Layout l;
    l.tp = tp;
    l.sp = true;
    const double expected = 8 * 34.0 * 2048 * 4096 / tp;
    EXPECT_NEAR(rank_of(pm, hw, l, 2048, 1, 0, CrossEntropy::kTe, 0.1).activations_bytes, expected, 1e-6 * expected) << "tp " << tp;
  }
  Layout l;
  l.tp = 4;
  EXPECT_NEAR(rank_of(pm, hw, l, 2048, 1, 0, CrossEntropy::kTe, 0.1).activations_bytes, 8 * 2048.0 * 4096 * (10 + 24.0 / 4),
              1.0);
  // torch's dropout at p = 0 returns its input: no mask
  EXPECT_NEAR(rank_of(pm, hw, l, 2048, 1, 0, CrossEntropy::kTe, 0.0).activations_bytes, 8 * 2048.0 * 4096 * (8 + 24.0 / 4), 1.0);
}

// Megatron-Core gpt_model.py builds `self.embedding` when `pre_process or mtp_process`: the rank of
// the MTP layers holds its own copy of the word embedding unless it is also the first stage.
TEST(MemoryMegatron, MtpRankHoldsItsOwnWordEmbedding) {
  const Model with = test::deepseek_v3();
  Model without = with;
  without.mtp_layers = 0;
  const PreparedModel pw = prepare(with);
  const PreparedModel po = prepare(without);
  const Hardware hw = test::gb300();
  Layout l;
  l.pp = 4;
  l.ep = 8;
  l.dp = 8;
  l.first_stage_layers = 13;
  l.last_stage_layers = 12;
  const double ep = static_cast<double>(l.ep) * l.etp;
  const double mtp_layer = (pw.mtp.p_sharded) / l.tp + pw.mtp.p_expert / ep + pw.mtp.p_replicated;
  const double embedding = static_cast<double>(padded_vocab(with.vocab, l.tp)) * static_cast<double>(with.hidden) / l.tp;
  const double diff = rank_of(pw, hw, l, 4096, 8, 3).params_on_rank - rank_of(po, hw, l, 4096, 8, 3).params_on_rank;
  EXPECT_NEAR(diff, mtp_layer + embedding, 1.0);
  // Without pipeline parallelism the MTP layers share the one embedding.
  Layout one;
  one.ep = 8;
  one.dp = 64;
  const double diff1 = rank_of(pw, hw, one, 4096, 8, 0).params_on_rank - rank_of(po, hw, one, 4096, 8, 0).params_on_rank;
  EXPECT_NEAR(diff1, mtp_layer, 1.0);
}

}  // namespace
}  // namespace rb
