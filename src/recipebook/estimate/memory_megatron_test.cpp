// Memory terms that the measured Megatron peaks (bench/memory_peaks.cpp) showed missing, each checked
// against the code or paper it comes from: the fp32 softmax of Megatron-Core's cross entropy, the
// hidden-dropout masks of Korthikanti et al. 2022 Table 2, the MTP rank's own word embedding; and one
// that the catalog's runs that ran (bench/catalog_fit.hpp) showed too large: a Mamba-2 layer's conv output.
#include <gtest/gtest.h>

#include "recipebook/estimate/memory.hpp"
#include "recipebook/estimate/memory_test_util.hpp"
#include "recipebook/estimate/params.hpp"
#include "recipebook/estimate/prepared.hpp"
#include "recipebook/estimate/test_hardware.hpp"
#include "recipebook/estimate/test_models.hpp"

namespace rb {
namespace {

using test::gpt_layer_model;
using test::rank_memory_of;

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
  const MemoryBreakdown te = rank_memory_of(pm, hw, l, 4096, 4, 1);
  EXPECT_DOUBLE_EQ(te.logits_bytes, tokens * 2.0 * vpad / l.tp);
  Layout native = l;
  native.cross_entropy_fusion_impl = CrossEntropyImpl::kNative;
  EXPECT_DOUBLE_EQ(rank_memory_of(pm, hw, native, 4096, 4, 1).logits_bytes, tokens * 6.0 * vpad / l.tp);
  EXPECT_EQ(rank_memory_of(pm, hw, native, 4096, 4, 0).logits_bytes, 0.0);  // the loss lives on the last stage only
  // Fusion off: the unfused vocab_parallel_cross_entropy, the same fp32 softmax, whichever implementation is named.
  Layout unfused = l;
  unfused.cross_entropy_loss_fusion = false;
  EXPECT_DOUBLE_EQ(rank_memory_of(pm, hw, unfused, 4096, 4, 1).logits_bytes, tokens * 6.0 * vpad / l.tp);
}

// Megatron-Core gpt_model.py _postprocess computes the MTP heads' losses before the LM head's (and
// their backward after it): the rank holds every head's fp32 softmax (4 B per logit each) and one
// 16-bit logits or gradient tensor at a time (2 B), 4 n + 2, not 6 n. TE's stays 2 per head.
TEST(MemoryMegatron, MtpHeadsShareOneSixteenBitLogitsBuffer) {
  const PreparedModel pm = prepare(test::deepseek_v3());
  ASSERT_EQ(pm.model.mtp_layers, 1);
  const Hardware hw = test::gb300();
  Layout l;  // one stage: the LM head and the MTP layer on rank 0
  l.ep = 8;
  l.dp = 64;
  l.cross_entropy_fusion_impl = CrossEntropyImpl::kNative;
  const double per_logit = 4096.0 * static_cast<double>(padded_vocab(pm.model.vocab, l.tp)) / l.tp;
  EXPECT_DOUBLE_EQ(rank_memory_of(pm, hw, l, 4096, 8, 0).logits_bytes, (4.0 * 2 + 2.0) * per_logit);
  l.cross_entropy_fusion_impl = CrossEntropyImpl::kTe;
  EXPECT_DOUBLE_EQ(rank_memory_of(pm, hw, l, 4096, 8, 0).logits_bytes, 2.0 * 2 * per_logit);
}

// Korthikanti et al. 2022 (arXiv 2205.05198) Table 2 with dropout: 34 s b h / t per GPT layer with
// TP + SP and flash attention (no 5 a s / h term), the 32 of dropout off plus one 1-byte mask after
// attention and one after the MLP; without SP, the masks stay whole like the norms: 10 + 24 / t.
TEST(MemoryMegatron, HiddenDropoutKeepsOneByteMaskPerSubBlock) {
  const PreparedModel pm = prepare(gpt_layer_model(8));
  const Hardware hw = test::h100();
  for (int tp : {1, 2, 8}) {
    Layout l;
    l.tp = tp;
    l.sp = true;
    l.hidden_dropout = 0.1;
    const double expected = 8 * 34.0 * 2048 * 4096 / tp;
    EXPECT_NEAR(rank_memory_of(pm, hw, l, 2048, 1).activations_bytes, expected, 1e-6 * expected) << "tp " << tp;
  }
  Layout l;
  l.tp = 4;
  l.hidden_dropout = 0.1;
  EXPECT_NEAR(rank_memory_of(pm, hw, l, 2048, 1).activations_bytes, 8 * 2048.0 * 4096 * (10 + 24.0 / 4), 1.0);
  // torch's dropout at p = 0 returns its input: no mask; attention dropout under flash attention keeps none
  l.hidden_dropout = 0;
  l.attention_dropout = 0.1;
  EXPECT_NEAR(rank_memory_of(pm, hw, l, 2048, 1).activations_bytes, 8 * 2048.0 * 4096 * (8 + 24.0 / 4), 1.0);
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
  Layout l = test::deepseek_v3_pp4_layout();
  const double ep = static_cast<double>(l.ep) * l.etp;
  const double mtp_layer = (pw.mtp.p_sharded) / l.tp + pw.mtp.p_expert / ep + pw.mtp.p_replicated;
  const double embedding = static_cast<double>(padded_vocab(with.vocab, l.tp)) * static_cast<double>(with.hidden) / l.tp;
  const double diff = rank_memory_of(pw, hw, l, 4096, 8, 3).params_on_rank - rank_memory_of(po, hw, l, 4096, 8, 3).params_on_rank;
  EXPECT_NEAR(diff, mtp_layer + embedding, 1.0);
  // Without pipeline parallelism the MTP layers share the one embedding.
  Layout one;
  one.ep = 8;
  one.dp = 64;
  const double diff1 = rank_memory_of(pw, hw, one, 4096, 8, 0).params_on_rank - rank_memory_of(po, hw, one, 4096, 8, 0).params_on_rank;
  EXPECT_NEAR(diff1, mtp_layer, 1.0);
}

// Megatron-Core MambaMixer trains through mamba_ssm's fused mamba_split_conv1d_scan_combined
// (use_mamba_mem_eff_path), which saves the in_proj output zxBCdt and the ungated scan output out_x
// and recomputes the conv1d output in its backward (mamba_ssm ops/triton/ssd_combined.py
// MambaSplitConv1dScanCombinedFn); the mixer's RMSNorm keeps the gated output and out_proj the
// norm's output. Per token: the pre-norm input and output (2 h each), zxBCdt 2 (2 d + 2 g N + heads)
// and three d-wide 16-bit tensors; the conv output (d + 2 g N) is not kept.
TEST(MemoryMegatron, Mamba2KeepsNoConvOutput) {
  MambaDims dims;
  dims.heads = 128;
  dims.head_dim = 64;
  dims.state = 128;
  dims.groups = 8;
  dims.conv_kernel = 4;
  const Model m = test::nemotron_h("mamba", 4096, "M", 32, 0, dims);
  const PreparedModel pm = prepare(m);
  const LayerSums s = pm.range(0, 1);
  double per_token = 0;
  for (double v : s.act) per_token += v;
  const double d = 128.0 * 64, gn = 2.0 * 8 * 128, h = 4096;
  EXPECT_DOUBLE_EQ(per_token, 2 * h + 2 * h + 2 * (2 * d + gn + 128) + 3 * 2 * d);
}

}  // namespace
}  // namespace rb
