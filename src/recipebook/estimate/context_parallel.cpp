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

  // CP as Transformer Engine runs it (attention/dot_product_attention/context_parallel.py; docs/model.md
  // "Time"), by Megatron-Core's cp_comm_type (Layout::cp_comm). Every scheme splits the sequence into
  // 2 cp chunks (rank r holds chunks r and 2 cp - 1 - r) so that causal work is balanced.
  // - p2p (AttnFuncWithCPAndKVP2P, Megatron's default): each attention layer walks cp steps of equal
  //   FLOPs (the diagonal step a causal block of the rank's 2 chunks, each other step a half block:
  //   all its queries against one chunk, or half its queries against two). Forward step i posts the
  //   K/V exchange for step i + 1, then runs its own attention: cp - 1 exchanges, each hidden only
  //   under its own step. Backward step i sends K/V (step 0), K/V and dK/dV as one tensor (steps
  //   1 .. cp - 2) or dK/dV (the last step), each under that step's attention backward; the last step
  //   waits for its dK/dV before it accumulates. A step exposes what its exchange takes beyond
  //   `overlap` of its attention.
  // - a2a (AttnFuncWithCPAndQKVOA2A, Ulysses): all-to-alls trade the sequence shard of Q, K and V for
  //   a head shard (heads / cp), the attention runs over the whole sequence, and O goes back the same
  //   way; backward, dO in and dQ, dK, dV out. Nothing runs beside them: exposed.
  // - allgather (AttnFuncWithCPAndKVAllGather, "KV all-gather between CP ranks is exposed"): K and V
  //   are gathered whole, the rank's two query chunks run against their causal prefix (two calls on
  //   two streams); backward gathers K and V again and reduce-scatters the full-length dK and dV.
  // GDN/Mamba layers all-to-all their projections (2 forward, 2 backward) under every scheme.
  if (l.cp > 1) {
    const double cp = l.cp;
    const CpComm scheme = l.cp_comm;
    // Per token O and dQ are q_dim wide (Q too), K/V and dK/dV kv_bytes; bytes of this rank's tokens.
    const double o_bytes = tokens * s.attn_layers * pm.q_dim * 2.0 / tp;
    const double kv_bytes = tokens * s.kv_bytes / tp;
    // The memory-bound kernels each scheme adds (bf16), forward and backward.
    double extra_mem_fwd = 0.0, extra_mem_bwd = 0.0;
    switch (scheme) {
      case CpComm::kP2p:
        // Forward, the K/V copy into the send buffer (read + write), the first step's output scaled
        // into place (read + write) and every later step's output merged into it (read both, write:
        // flash_attn_fwd_out_correction); backward, the K/V copy into the ring buffer, and per step dQ
        // and dK/dV copied (first step) or added into their accumulators.
        extra_mem_fwd = (2.0 + 3.0 * (cp - 1.0)) * o_bytes + 2.0 * kv_bytes;
        extra_mem_bwd = (3.0 * cp - 1.0) * (o_bytes + kv_bytes) + 2.0 * kv_bytes;
        break;
      case CpComm::kA2a:
        // The layout changes around the all-to-alls (flash_attn_a2a_communicate: read + write of
        // Q, K, V and O forward; dO, dQ, dK, dV backward).
        extra_mem_fwd = extra_mem_bwd = 2.0 * (2.0 * o_bytes + kv_bytes);
        break;
      case CpComm::kAllGather:
        // Forward, the gathered K/V reordered by chunk (index_select: read + write of cp x K/V) and
        // the two chunks' outputs copied into place; backward, the same reorder of the regathered
        // K/V, and the full-length dK/dV accumulators written and read for the reduce-scatter.
        extra_mem_fwd = 2.0 * cp * kv_bytes + 2.0 * o_bytes;
        extra_mem_bwd = 4.0 * cp * kv_bytes + 2.0 * o_bytes;
        break;
    }
    t.mem += (extra_mem_fwd + extra_mem_bwd) / hbm;
    const double again = l.recompute == Recompute::kFull ? recompute_fraction : (mods & kRcCoreAttn) ? 1.0 : 0.0;
    t.recompute += again * extra_mem_fwd / hbm;
    // The kernels run over shorter blocks than CP 1's causal block of the whole sequence S: under p2p
    // the diagonal step a causal block of S / cp, the others (on the rank that computes all its
    // queries against one chunk in every one of them, the slowest) non-causal over S / (2 cp) keys;
    // equal FLOPs each, so the time is the mean of 1 / rate over the steps (kFlashHalf*). Under
    // allgather each of the rank's two calls is n = S / (2 cp) queries against their prefix: n x n
    // causal blocks (the two triangles, 1 / (2 cp) of the work) and non-causal n-wide blocks (the
    // rest). a2a runs CP 1's causal block over fewer heads.
    const double seq_len = static_cast<double>(in.seq);
    const auto rate = [](double n, double half) { return n / (n + half); };
    const double whole = rate(seq_len, kFlashHalfCausal);
    double slowdown = 1.0;
    if (scheme == CpComm::kP2p)
      slowdown = (1.0 / rate(seq_len / cp, kFlashHalfCausal) +
                  (cp - 1.0) / rate(seq_len / (2.0 * cp), kFlashHalfNonCausal)) /
                 cp * whole;
    else if (scheme == CpComm::kAllGather)
      slowdown = ((2.0 * cp - 1.0) / rate(seq_len / (2.0 * cp), kFlashHalfNonCausal) +
                  1.0 / rate(seq_len / (2.0 * cp), kFlashHalfCausal)) /
                 (2.0 * cp) * whole;
    const double full_fwd = tok_tp * s.full_core * seq_len / 2.0 / (x.peak_bf16 * eff.attention);
    const double extra_fwd = (slowdown - 1.0) * full_fwd;
    t.attn += kAttnPasses * extra_fwd;
    t.recompute += again * extra_fwd;
    if (x.comm) {
      const Links& links = x.links;
      const Groups& groups = x.groups;
      const double linear = s.linear_layers * 4.0 * all_to_all_s(x.act_bytes / tp, groups.cp, links);
      double cp_fwd = 0.0, cp_bwd = 0.0;  // exposed exchange time of the attention layers
      const double layers = s.attn_layers;
      if (scheme == CpComm::kP2p) {
        // A ring that leaves the NVLink domain runs at the pace of its scale-out hops.
        const int ring_distance = l.cp * groups.cp.stride > links.domain ? links.domain : groups.cp.stride;
        const double call_latency = ring_distance < links.domain ? links.nvlink_latency_s : links.scaleout_latency_s;
        // One K/V block of every attention layer on this rank, and one send/recv call per layer.
        const double block = kv_bytes > 0 ? p2p_s(kv_bytes, ring_distance, links) - call_latency : 0.0;
        const double calls = layers * call_latency;
        // Each step's softmax attention (the scan layers' time is no cover: the ring is per attention layer).
        const double ring_attn_fwd =
            tok_tp * (s.full_core * seq_len / 2.0 + s.swa_core * x.swa_ctx) / (x.peak_bf16 * eff.attention) + extra_fwd;
        const double step_fwd = eff.overlap * ring_attn_fwd / cp;
        const double step_bwd = eff.overlap * (kAttnPasses - 1.0) * ring_attn_fwd / cp;
        cp_fwd = (cp - 1.0) * std::max(0.0, calls + block - step_fwd);
        cp_bwd = 2.0 * std::max(0.0, calls + block - step_bwd) + (cp - 2.0) * std::max(0.0, calls + 2.0 * block - step_bwd);
      } else if (layers > 0) {
        // Per layer, as the calls go (each with its own latency).
        const double per_layer_kv = kv_bytes / layers, per_layer_o = o_bytes / layers;
        if (scheme == CpComm::kA2a) {
          // Q, K and V in and O out forward; dO in and dQ, dK, dV out backward: the same bytes.
          cp_fwd = layers * (all_to_all_s(per_layer_o + per_layer_kv, groups.cp, links) +
                             all_to_all_s(per_layer_o, groups.cp, links));
          cp_bwd = cp_fwd;
        } else {
          const double gathered = cp * per_layer_kv;  // the full-length K/V buffer
          cp_fwd = layers * all_gather_s(gathered, groups.cp, links);
          cp_bwd = layers * (all_gather_s(gathered, groups.cp, links) + reduce_scatter_s(gathered, groups.cp, links));
        }
      }
      t.cp = cp_fwd + cp_bwd + linear;
      t.recompute += again * (cp_fwd + 0.5 * linear);
    }
  }
}

}  // namespace rb
