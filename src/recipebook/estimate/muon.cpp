#include "recipebook/estimate/muon.hpp"

#include <algorithm>

#include "recipebook/estimate/params.hpp"

namespace rb {
namespace {

double d(int64_t x) { return static_cast<double>(x); }

void add(std::vector<MuonMatrix>& v, MuonMatrix w) {
  if (w.out <= 0 || w.in <= 0 || w.count <= 0) return;
  for (MuonMatrix& x : v)
    if (x.out == w.out && x.in == w.in && x.column_parallel == w.column_parallel && x.expert == w.expert) {
      x.count += w.count;
      return;
    }
  v.push_back(w);
}

// An MLP's two weights: fc1 (in -> up x ffn, one matrix for a gated MLP, as Megatron-Core fuses it)
// and fc2 (ffn -> in).
void add_mlp(std::vector<MuonMatrix>& v, const Model& m, double in, double ffn, double count, bool expert) {
  const double up = is_gated(m.activation) ? 2.0 : 1.0;
  add(v, {up * ffn, in, count, true, expert});
  add(v, {in, ffn, count, false, expert});
}

void add_layer(std::vector<MuonMatrix>& v, const Model& m, const LayerSpec& spec, double count) {
  const double h = d(m.hidden);
  switch (spec.mixer) {
    case MixerKind::kAttention: {
      const auto& a = m.attn;
      const double v_hd = a.v_head_dim > 0 ? a.v_head_dim : a.head_dim;
      add(v, {d(a.heads) * a.head_dim * (a.output_gate ? 2.0 : 1.0), h, count, true, false});  // Q (and gate)
      add(v, {d(a.kv_heads) * a.head_dim, h, count, true, false});                           // K
      add(v, {d(a.kv_heads) * v_hd, h, count, true, false});                                 // V
      add(v, {h, d(a.heads) * v_hd, count, false, false});                                   // output
      break;
    }
    case MixerKind::kMla: {
      const auto& l = m.mla;
      const double heads = m.attn.heads;
      const double qk = d(l.qk_nope_dim) + l.qk_rope_dim;
      if (l.q_lora_rank > 0) {
        add(v, {d(l.q_lora_rank), h, count, true, false});
        add(v, {heads * qk, d(l.q_lora_rank), count, true, false});
      } else {
        add(v, {heads * qk, h, count, true, false});
      }
      add(v, {d(l.kv_lora_rank) + l.qk_rope_dim, h, count, true, false});
      add(v, {heads * (d(l.qk_nope_dim) + l.v_dim), d(l.kv_lora_rank), count, true, false});
      add(v, {h, heads * l.v_dim, count, false, false});
      break;
    }
    case MixerKind::kGdn:
    case MixerKind::kMamba2: {
      // The input and output projections, as one column-parallel h-wide block (their shapes are
      // the mixer's own; the split between them changes the FLOPs by a small factor).
      const LayerSpec mixer_only{spec.mixer, spec.window, FfnKind::kNone};
      const double p = d(layer_params(m, mixer_only).mixer_matrices);
      add(v, {p / h, h, count, true, false});
      break;
    }
    case MixerKind::kNone: break;
  }
  if (spec.ffn == FfnKind::kDense) add_mlp(v, m, h, d(m.ffn), count, false);
  if (spec.ffn == FfnKind::kMoe) {
    const auto& e = m.moe;
    const double in = e.latent > 0 ? d(e.latent) : h;
    add_mlp(v, m, in, d(e.ffn), count * e.experts, true);
    if (e.shared_ffn > 0) add_mlp(v, m, h, d(e.shared_ffn), count, false);
    if (e.latent > 0) {
      add(v, {d(e.latent), h, count, true, false});
      add(v, {h, d(e.latent), count, false, false});
    }
  }
}

}  // namespace

double newton_schulz_flops(double rows, double cols) {
  const double m = std::min(rows, cols), n = std::max(rows, cols);
  return kMuonNsSteps * (4.0 * m * m * n + 2.0 * m * m * m);
}

std::vector<MuonMatrix> muon_matrices(const Model& m) {
  std::vector<MuonMatrix> v;
  for (const LayerSpec& spec : m.layers) add_layer(v, m, spec, 1.0);
  if (m.mtp_layers > 0) {
    add_layer(v, m, mtp_layer_spec(m), m.mtp_layers);
    add(v, {d(m.hidden), 2.0 * d(m.hidden), d(m.mtp_layers), true, false});  // eh_proj
  }
  return v;
}

double muon_rank_flops(const std::vector<MuonMatrix>& matrices, const Layout& l) {
  const double dense_share = 1.0 / (static_cast<double>(l.pp) * l.dp * l.cp);
  const double expert_share = 1.0 / (static_cast<double>(l.pp) * l.ep * std::max(1, l.edp()));
  double flops = 0;
  for (const MuonMatrix& w : matrices) {
    const double t = w.expert ? std::max(1, l.etp) : l.tp;
    const double out = w.column_parallel ? w.out / t : w.out;
    const double in = w.column_parallel ? w.in : w.in / t;
    flops += newton_schulz_flops(out, in) * w.count * (w.expert ? expert_share : dense_share);
  }
  return flops;
}

}  // namespace rb
