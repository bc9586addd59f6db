#include "recipebook/estimate/fused_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rb {
namespace {

// MXFP8 quantization output per element: E4M3 rowwise and columnwise (1 + 1 byte) and one E8M0 scale
// per 32 elements in each direction (TE MXFP8Quantizer, MXFP8_BLOCK_SCALING_SIZE 32).
constexpr double kMxfp8RowColBytesPerElement = 2.0 * (1.0 + 1.0 / 32.0);

// The attention figure of `precision`, `backward`, causal, at the head dimension and sequence
// nearest the asked ones (sequence in ratio, |log(seq / figure)|); nullptr when there is none.
const AttentionFigure* nearest(const Microbenchmarks& mb, Precision precision, bool backward, double seq,
                               double head_dim) {
  const AttentionFigure* best = nullptr;
  double best_hd = std::numeric_limits<double>::max();
  double best_seq = std::numeric_limits<double>::max();
  for (const AttentionFigure& f : mb.attention) {
    if (f.precision != precision || f.backward != backward || !f.causal || f.seq <= 0) continue;
    const double hd = std::abs(f.head_dim - head_dim);
    const double sq = std::abs(std::log(f.seq / std::max(1.0, seq)));
    if (hd < best_hd || (hd == best_hd && sq < best_seq)) {
      best = &f;
      best_hd = hd;
      best_seq = sq;
    }
  }
  return best;
}

// BF16 throughput over FP8 throughput at the FP8 figure's own shape (the BF16 figure of the same
// sequence, head dimension, heads and batch), or 1 without the pair.
double pass_ratio(const Microbenchmarks& mb, Precision attn, bool backward, double seq, double head_dim) {
  const AttentionFigure* q = nearest(mb, attn, backward, seq, head_dim);
  if (q == nullptr || q->flops_per_s <= 0) return 1.0;
  for (const AttentionFigure& b : mb.attention) {
    if (b.precision == Precision::kBf16 && b.backward == backward && b.causal && b.seq == q->seq &&
        b.head_dim == q->head_dim && b.heads == q->heads && b.kv_heads == q->kv_heads && b.batch == q->batch &&
        b.flops_per_s > 0)
      return b.flops_per_s / q->flops_per_s;
  }
  return 1.0;
}

}  // namespace

bool fused_grouped_mlp_runs(const Layout& l, Activation act) {
  const bool block_scaled = l.precision == Precision::kMxfp8 || l.precision == Precision::kNvfp4;
  const bool kernel = is_gated(act) || act == Activation::kSquaredRelu;
  return l.fused_grouped_mlp && block_scaled && kernel;
}

FusedMlpSaving fused_grouped_mlp_saving(double ffn, bool gated, Precision p) {
  const double f = std::max(0.0, ffn);
  const double fc1 = (gated ? 2.0 : 1.0) * f;  // FC1 output elements per routed token copy
  FusedMlpSaving s;
  // The activation kernels, BF16 (2 bytes per element).
  s.fwd_bytes = 2.0 * fc1 + 2.0 * f;             // read the FC1 output, write the FC2 input
  s.bwd_bytes = 2.0 * f + 2.0 * fc1 + 2.0 * fc1;  // read dY and the FC1 output, write dFC1
  if (p == Precision::kMxfp8) {
    // The quantizations the epilogues take over: read BF16, write MXFP8 rowwise + columnwise.
    s.fwd_bytes += 2.0 * f + kMxfp8RowColBytesPerElement * f;
    s.bwd_bytes += 2.0 * fc1 + kMxfp8RowColBytesPerElement * fc1;
  }
  return s;
}

AttentionRatio fp8_attention_ratio(const Microbenchmarks& mb, Precision linear, double seq, double head_dim) {
  const Precision attn = linear == Precision::kMxfp8 ? Precision::kMxfp8 : Precision::kFp8Cs;
  return {pass_ratio(mb, attn, false, seq, head_dim), pass_ratio(mb, attn, true, seq, head_dim)};
}

double fp8_attention_quant_bytes_per_byte(Precision linear) {
  // Per BF16 byte: read it (1) and write half a byte of E4M3 (0.5).
  const double base = 1.0 + 0.5;
  switch (linear) {
    case Precision::kMxfp8: return base + 1.0 / 64.0;  // one E8M0 scale byte per 32 elements (64 bytes)
    case Precision::kFp8Ds: return base;                // delayed scaling: the amax comes with the cast
    default: return base + 1.0;                         // current scaling: an amax pass reads it first
  }
}

}  // namespace rb
