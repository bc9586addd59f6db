#include "recipebook/estimate/flops.hpp"

#include "recipebook/estimate/params.hpp"

namespace rb {
namespace {

double d(int64_t x) { return static_cast<double>(x); }

// Megatron's GLU factor: "3x (SwiGLU enabled): h->2*ffn_h GEMM and ffn_h->h GEMM are stacked;
// 2x (SwiGLU disabled)" (training.py `ffn_expansion_factor`; flop_utils.py the same; the hybrid
// path's mlp_layer_flops uses 4 x expansion x 1.5, the same number).
double glu_factor(const Model& m) { return is_gated(m.activation) ? 3.0 : 2.0; }

// Mamba-1 (Falcon-Mamba, Jamba), which Megatron does not build: its GEMMs as shaped (in_proj
// h -> 2 d_inner, x_proj d_inner -> dt_rank + 2 state, dt_proj dt_rank -> d_inner, out_proj
// d_inner -> h) at 2 FLOPs per multiply-add, and the selective scan at Megatron's mamba_layer_flops
// rate of 7 d_inner state per token.
void mamba1_forward_flops(const Model& m, LayerFlops& f) {
  const auto& s = m.mamba;
  const double h = d(m.hidden);
  const double d_in = d(s.heads) * s.head_dim;
  const double r = s.dt_rank;
  f.gemm = 2.0 * (h * 2.0 * d_in + d_in * (r + 2.0 * s.state) + r * d_in + d_in * h);
  f.core_attn = 7.0 * d_in * s.state;
}

}  // namespace

bool uses_hybrid_path(const Model& m) {
  for (const LayerSpec& l : m.layers)
    if (l.mixer == MixerKind::kMamba2 || l.mixer == MixerKind::kNone) return true;
  return false;
}

LayerFlops layer_forward_flops(const Model& m, const LayerSpec& spec, double seq, double core_seq, bool hybrid) {
  LayerFlops f;
  const double h = d(m.hidden);
  switch (spec.mixer) {
    case MixerKind::kAttention: {
      // flop_utils.py transformer_flops, "MHA or GQA": proj_per_layer = h (q + k + v + gate) + q h;
      // core = q x (causal context) x 2 (QK^T and AV); all x 2 (FMA). The hybrid path's
      // attn_layer_flops = 4 b s h p (h + h g / a + s / 2) is the same without the gate.
      // A per-head gate (Step-3.5 g_proj) adds h x heads, fused into linear_qkv like the output gate.
      const auto& a = attention_of(m, spec);
      const double q = d(a.heads) * a.head_dim;
      const double kv = d(a.kv_heads) * a.head_dim;
      const double gate = (a.output_gate && !hybrid) ? q : 0.0;
      const double head_gate = a.head_gate ? d(a.heads) : 0.0;
      f.gemm = 2.0 * (h * (q + 2.0 * kv + gate + head_gate) + q * h);
      f.by_module[0] = 2.0 * h * (q + 2.0 * kv + gate + head_gate);  // linear_qkv (gates fused into it)
      f.by_module[1] = 2.0 * q * h;                                   // linear_proj
      // Causal context per token: core_seq / 2; sliding window W < s: the exact average
      // W - W (W - 1) / (2 s) (flop_utils.py `swa_context`; not in the hybrid path).
      const double w = spec.window;
      double ctx = core_seq / 2.0;
      if (!hybrid && spec.window > 0 && w < seq) ctx = w - w * (w - 1.0) / (2.0 * seq);
      f.core_attn = 4.0 * q * ctx;
      break;
    }
    case MixerKind::kMla: {
      // flop_utils.py / training.py "MLA": q LoRA + rope + q norm, kv LoRA + rope + kv norm, o proj,
      // core attention with (qk + rope) for QK^T and v for AV, each over half the context.
      const auto& a = m.mla;
      const double heads = m.attn.heads;
      const double qk = d(a.qk_nope_dim) + a.qk_rope_dim;
      const double q_term = a.q_lora_rank > 0 ? a.q_lora_rank * (h + heads * qk + 1.0) : h * heads * qk;
      f.gemm = 2.0 * (q_term + a.kv_lora_rank * (h + heads * (d(a.qk_nope_dim) + a.v_dim) + 1.0) +
                      h * a.qk_rope_dim + heads * a.v_dim * h);
      f.core_attn = 2.0 * (core_seq * heads * qk / 2.0 + core_seq * heads * a.v_dim / 2.0);
      f.by_module[1] = 2.0 * heads * a.v_dim * h;  // linear_proj; the q/kv projections are unnamed
      // The DSA indexer: its three projections, and its scores (q . k per indexer head, then the
      // per-head weights) over the causal context. The MLA core above stays dense: the FLOPs the
      // top-k selection saves beyond index_topk tokens are not subtracted.
      if (a.index_heads > 0) {
        const double ih = a.index_heads;
        const double q_in = a.q_lora_rank > 0 ? a.q_lora_rank : h;
        f.gemm += 2.0 * (q_in * ih * a.index_head_dim + h * a.index_head_dim + h * ih);
        f.core_attn += 2.0 * ih * (a.index_head_dim + 1.0) * core_seq / 2.0;
      }
      break;
    }
    case MixerKind::kGdn: {
      // gdn_layer_flops / the gated_delta_net branch: in_proj h -> (2 qk + 2 v + 2 nv), conv1d over
      // (2 qk + v), the delta rule 4 nv dv^2 (KK^T, VK^T, S(a(I - bKK^T)), SQ), out_proj v -> h.
      const auto& g = m.gdn;
      const double qk = d(g.key_heads) * g.key_dim;
      const double v = d(g.value_heads) * g.value_dim;
      f.gemm = 2.0 * (h * (2.0 * qk + 2.0 * v + 2.0 * g.value_heads) + h * v);
      f.delta_rule = 2.0 * g.value_heads * d(g.value_dim) * g.value_dim * 4.0;
      f.core_attn = 2.0 * g.conv_kernel * (2.0 * qk + v) + f.delta_rule;
      break;
    }
    case MixerKind::kMamba2: {
      if (m.mamba.version == 1) {
        mamba1_forward_flops(m, f);
        break;
      }
      // mamba_layer_flops: d_in = 2 h (Megatron's convention, whatever heads x head_dim is);
      // in_proj 2 h (2 d_in + 2 groups state + heads), scan 7 d_in state, out_proj 2 d_in h.
      const auto& s = m.mamba;
      const double d_in = 2.0 * h;
      const double nheads = s.heads > 0 ? d(s.heads) : (s.head_dim > 0 ? d_in / s.head_dim : 0.0);
      f.gemm = 2.0 * h * (2.0 * d_in + 2.0 * s.groups * d(s.state) + nheads) + 2.0 * d_in * h;
      f.by_module[2] = 2.0 * h * (2.0 * d_in + 2.0 * s.groups * d(s.state) + nheads);  // in_proj
      f.by_module[3] = 2.0 * d_in * h;                                                 // out_proj
      f.core_attn = 7.0 * d_in * s.state;
      break;
    }
    case MixerKind::kNone: break;
  }
  if (spec.ffn == FfnKind::kDense) {
    f.gemm += 2.0 * h * d(m.ffn) * glu_factor(m);
    f.by_module[4] = 2.0 * h * d(m.ffn) * glu_factor(m);
  } else if (spec.ffn == FfnKind::kMoe) {
    // Routed: 2 h moe_ffn top_k x GLU factor; shared: 2 h shared_ffn x GLU factor (router not counted).
    // A latent MoE runs the experts at the latent width and adds its two projections, 2 x 2 h latent,
    // to the routed term (Megatron-Bridge flop_utils.py moe_layer_flops with moe_latent_size).
    const double latent = d(m.moe.latent);
    const double expert_in = latent > 0.0 ? latent : h;
    f.expert += 2.0 * expert_in * d(m.moe.ffn) * m.moe.top_k * glu_factor(m) + 4.0 * h * latent;
    f.gemm += 2.0 * h * d(m.moe.shared_ffn) * glu_factor(m);
    f.by_module[5] = 2.0 * h * d(m.moe.shared_ffn) * glu_factor(m);
    f.by_module[6] = 2.0 * expert_in * d(m.moe.ffn) * m.moe.top_k * glu_factor(m);
    f.by_module[7] = 4.0 * h * latent;  // fc1_latent_proj h -> latent, fc2_latent_proj latent -> h
  }
  // What no named module holds (MLA's q/kv projections, the DSA indexer, GDN, Mamba-1).
  double named = 0.0;
  for (int i = 0; i < kGemmOtherSlot; ++i)
    if (((1u << i) & kDenseGemmSlots) != 0) named += f.by_module[static_cast<size_t>(i)];
  f.by_module[kGemmOtherSlot] = f.gemm - named;
  return f;
}

LayerSpec mtp_flops_spec(const Model& m, int k) {
  if (m.layers.empty()) return mtp_layer_spec(m);
  const size_t n = m.layers.size();
  LayerSpec s = m.layers[(n + static_cast<size_t>(k)) % n];
  // MoE or dense "to match the last layer" (training.py: num_moe_layers += last_layer_is_moe x mtp).
  s.ffn = m.layers.back().ffn == FfnKind::kMoe && !m.mtp_dense ? FfnKind::kMoe : FfnKind::kDense;
  if (uses_hybrid_path(m)) s = mtp_layer_spec(m);
  return s;
}

namespace {

void add_layer(FlopsBreakdown& b, const Model& m, const LayerSpec& spec, const LayerFlops& f) {
  // Attribute the 3 x forward of each part to its term.
  const double h = d(m.hidden);
  double ffn_gemm = 0.0;
  if (spec.ffn == FfnKind::kDense) ffn_gemm = 2.0 * h * d(m.ffn) * glu_factor(m);
  if (spec.ffn == FfnKind::kMoe) ffn_gemm = 2.0 * h * d(m.moe.shared_ffn) * glu_factor(m);
  const double mixer_gemm = f.gemm - ffn_gemm;
  switch (spec.mixer) {
    case MixerKind::kAttention:
      b.attention_proj += 3.0 * mixer_gemm;
      b.attention_core += 3.0 * f.core_attn;
      break;
    case MixerKind::kMla: b.mla += 3.0 * (mixer_gemm + f.core_attn); break;
    case MixerKind::kGdn: b.gdn += 3.0 * (mixer_gemm + f.core_attn); break;
    case MixerKind::kMamba2: b.mamba += 3.0 * (mixer_gemm + f.core_attn); break;
    case MixerKind::kNone: break;
  }
  if (spec.ffn == FfnKind::kDense) b.dense_mlp += 3.0 * ffn_gemm;
  if (spec.ffn == FfnKind::kMoe) {
    b.moe_shared += 3.0 * ffn_gemm;
    b.moe_routed += 3.0 * f.expert;
  }
}

}  // namespace

FlopsBreakdown megatron_flops_breakdown(const Model& m, int64_t seq, const FlopsOptions& opt) {
  FlopsBreakdown b;
  const bool hybrid = uses_hybrid_path(m);
  const double s = d(seq);
  const double core = opt.core_attn_seq_factor > 0 ? opt.core_attn_seq_factor : s;
  for (const LayerSpec& spec : m.layers) add_layer(b, m, spec, layer_forward_flops(m, spec, s, core, hybrid));
  for (int k = 0; k < m.mtp_layers; ++k) {
    const LayerSpec spec = mtp_flops_spec(m, k);
    add_layer(b, m, spec, layer_forward_flops(m, spec, s, core, hybrid));
  }
  const double h = d(m.hidden);
  // "MTP norms and proj": 3 x 2 x mtp x (3 h + 2 h^2) (transformer path only).
  if (!hybrid) b.mtp_extra = 6.0 * m.mtp_layers * (3.0 * h + 2.0 * h * h);
  // "Logit": 3 x 2 x h x padded_vocab x (mtp + 1).
  b.logits = 6.0 * h * d(padded_vocab(m.vocab, opt.tp, opt.vocab_divisible_by)) * (m.mtp_layers + 1);
  b.total = b.attention_proj + b.attention_core + b.mla + b.gdn + b.mamba + b.dense_mlp + b.moe_routed +
            b.moe_shared + b.mtp_extra + b.logits;
  return b;
}

double megatron_flops_per_token(const Model& m, int64_t seq, const FlopsOptions& opt) {
  return megatron_flops_breakdown(m, seq, opt).total;
}

double lora_flops_per_token(const Model& m, int64_t seq, const FlopsOptions& opt) {
  // Weightless core terms keep 3 x forward; everything with frozen weights gets 2 x forward.
  const bool hybrid = uses_hybrid_path(m);
  const double s = d(seq);
  const double core = opt.core_attn_seq_factor > 0 ? opt.core_attn_seq_factor : s;
  double core_fwd = 0.0;
  for (const LayerSpec& spec : m.layers) core_fwd += layer_forward_flops(m, spec, s, core, hybrid).core_attn;
  for (int k = 0; k < m.mtp_layers; ++k)
    core_fwd += layer_forward_flops(m, mtp_flops_spec(m, k), s, core, hybrid).core_attn;
  const double total = megatron_flops_per_token(m, seq, opt);
  return (total - 3.0 * core_fwd) * (2.0 / 3.0) + 3.0 * core_fwd;
}

}  // namespace rb
