#include "recipebook/estimate/context_parallel.hpp"

#include <algorithm>

namespace rb {
namespace {

// Flash attention's rate against the length n its blocks run over, fraction = n / (n + half) of one
// asymptote: FlashAttention-4's forward on Blackwell, head dim 128, a fixed 32k tokens per call
// (github.com/Dao-AILab/flash-attention/pull/2605 table): non-causal 1540 / 1706 / 1796 / 1837 / 1882
// TFLOP/s at n = 1k-16k and causal 829 / 1172 / 1431 at 1k-4k fit 1900 n / (n + 240) and
// 1900 n / (n + 1310) within 1%. Only the ratio of two such rates is used (CP's steps against the
// whole sequence's causal block), so the level, fitted as eff.attention, is kept.
constexpr double kFlashHalfNonCausal = 240.0;
constexpr double kFlashHalfCausal = 1310.0;

}  // namespace

void add_context_parallel(RankTime& t, const StepTerms& x, const LayerSums& s, double recompute_fraction) {
  const TimeInputs& in = *x.in;
  const Layout& l = *x.l;
  const PreparedModel& pm = *in.model;
  const Efficiency& eff = *x.eff;
  const double tp = x.tp, tokens = x.tokens, tok_tp = x.tok_tp, hbm = x.hbm;
  const uint32_t mods = x.mods;

  // CP as Transformer Engine runs it (AttnFuncWithCPAndKVP2P, cp_comm_type p2p, Megatron's default;
  // docs/model.md "Time"): each attention layer splits the sequence into 2 cp chunks (rank r holds
  // chunks r and 2 cp - 1 - r), and walks cp steps of equal FLOPs (the diagonal step a causal block of
  // the rank's 2 chunks, each other step a half block: all its queries against one chunk, or half its
  // queries against two). Forward step i posts the K/V exchange for step i + 1, then runs its own
  // attention: cp - 1 exchanges, each hidden only under its own step. Backward step i sends K/V
  // (step 0), K/V and dK/dV as one tensor (steps 1 .. cp - 2) or dK/dV (the last step), each under
  // that step's attention backward; the last step waits for its dK/dV before it accumulates. A step
  // exposes what its exchange takes beyond `overlap` of its attention. GDN/Mamba layers all-to-all
  // their projections (2 forward, 2 backward).
  if (l.cp > 1) {
    const double cp = l.cp;
    // The merge kernels CP adds (memory-bound, bf16): forward, the K/V copy into the send buffer
    // (read + write), the first step's output scaled into place (read + write) and every later
    // step's output merged into it (read both, write: flash_attn_fwd_out_correction); backward, the
    // K/V copy into the ring buffer, and per step dQ and dK/dV copied (first step) or added into
    // their accumulators. Per token O and dQ are q_dim wide, K/V and dK/dV kv_bytes.
    const double o_bytes = tokens * s.attn_layers * pm.q_dim * 2.0 / tp;
    const double kv_bytes = tokens * s.kv_bytes / tp;
    const double merge_fwd = (2.0 + 3.0 * (cp - 1.0)) * o_bytes + 2.0 * kv_bytes;
    const double merge_bwd = (3.0 * cp - 1.0) * (o_bytes + kv_bytes) + 2.0 * kv_bytes;
    t.mem += (merge_fwd + merge_bwd) / hbm;
    const double again = l.recompute == Recompute::kFull ? recompute_fraction : (mods & kRcCoreAttn) ? 1.0 : 0.0;
    t.recompute += again * merge_fwd / hbm;
    // The steps' kernels run over shorter blocks than CP 1's causal block of the whole sequence S: the
    // diagonal a causal block of S / cp, the others (on the rank that computes all its queries
    // against one chunk in every one of them, the slowest) non-causal over S / (2 cp) keys; equal
    // FLOPs each, so the time is the mean of 1 / rate over the steps (kFlashHalf*).
    const double seq_len = static_cast<double>(in.seq);
    const auto rate = [](double n, double half) { return n / (n + half); };
    const double slowdown = (1.0 / rate(seq_len / cp, kFlashHalfCausal) +
                             (cp - 1.0) / rate(seq_len / (2.0 * cp), kFlashHalfNonCausal)) /
                            cp * rate(seq_len, kFlashHalfCausal);
    const double full_fwd = tok_tp * s.full_core * seq_len / 2.0 / (x.peak_bf16 * eff.attention);
    const double extra_fwd = (slowdown - 1.0) * full_fwd;
    t.attn += kAttnPasses * extra_fwd;
    t.recompute += again * extra_fwd;
    if (x.comm) {
      const Links& links = x.links;
      const Groups& groups = x.groups;
      // A ring that leaves the NVLink domain runs at the pace of its scale-out hops.
      const int ring_distance = l.cp * groups.cp.stride > links.domain ? links.domain : groups.cp.stride;
      const double call_latency = ring_distance < links.domain ? links.nvlink_latency_s : links.scaleout_latency_s;
      // One K/V block of every attention layer on this rank, and one send/recv call per layer.
      const double block = kv_bytes > 0 ? p2p_s(kv_bytes, ring_distance, links) - call_latency : 0.0;
      const double calls = s.attn_layers * call_latency;
      // Each step's softmax attention (the scan layers' time is no cover: the ring is per attention layer).
      const double ring_attn_fwd =
          tok_tp * (s.full_core * seq_len / 2.0 + s.swa_core * x.swa_ctx) / (x.peak_bf16 * eff.attention) + extra_fwd;
      const double step_fwd = eff.overlap * ring_attn_fwd / cp;
      const double step_bwd = eff.overlap * (kAttnPasses - 1.0) * ring_attn_fwd / cp;
      const double exposed_fwd = (cp - 1.0) * std::max(0.0, calls + block - step_fwd);
      const double exposed_bwd = 2.0 * std::max(0.0, calls + block - step_bwd) +
                                 (cp - 2.0) * std::max(0.0, calls + 2.0 * block - step_bwd);
      const double linear = s.linear_layers * 4.0 * all_to_all_s(x.act_bytes / tp, groups.cp, links);
      t.cp = exposed_fwd + exposed_bwd + linear;
      t.recompute += again * (exposed_fwd + 0.5 * linear);
    }
  }
}

}  // namespace rb
