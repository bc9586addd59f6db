#include "recipebook/estimate/params.hpp"

#include "recipebook/estimate/vision.hpp"

namespace rb {
namespace {

// Parameter shapes follow the Hugging Face modeling files of each family and Megatron-Core's
// modules (megatron/core/transformer/{attention,multi_latent_attention,mlp}.py, moe/, ssm/
// mamba_mixer.py, the GDN module in ssm/gated_delta_net.py); Megatron's own closed form for the
// attention, MLA, MLP and expert terms is `compute_weight_and_optimizer_memory` in
// megatron/training/theoretical_memory_usage.py (REFERENCES.md B 2b).

struct Part {
  int64_t matrices = 0;    // 2-D weights (and conv kernels): active when the part is used
  int64_t sharded_1d = 0;  // biases/1-D parameters that TP shards with their matrix
  int64_t replicated = 0;  // 1-D parameters replicated across TP (norms, row-parallel biases)
  int64_t replicated_matrices = 0;  // matrices Megatron does not shard over TP (MLA down-projections)
};

int64_t norm_params(const Model& m, int64_t dim) { return m.norm == NormKind::kLayer ? 2 * dim : dim; }

Part attention_part(const Model& m, const AttentionDims& a) {
  const int64_t h = m.hidden;
  const int64_t v_hd = a.v_head_dim > 0 ? a.v_head_dim : a.head_dim;
  const int64_t q_out = int64_t{a.heads} * a.head_dim * (a.output_gate ? 2 : 1);  // gate doubles q_proj
  const int64_t k_out = int64_t{a.kv_heads} * a.head_dim;
  const int64_t v_out = int64_t{a.kv_heads} * v_hd;
  const int64_t o_in = int64_t{a.heads} * v_hd;
  Part p;
  p.matrices = h * (q_out + k_out + v_out) + o_in * h;
  if (a.head_gate) p.matrices += h * a.heads;  // g_proj: one gate logit per head
  if (a.qkv_bias) p.sharded_1d += q_out + k_out + v_out;
  if (a.sinks) p.sharded_1d += a.heads;  // one learned sink logit per head (gpt-oss)
  if (a.out_bias) p.replicated += h;
  if (a.qk_norm) p.replicated += 2 * int64_t{a.head_dim};
  return p;
}

// MLA (DeepSeek-V2/V3): q_a_proj, q_a_layernorm, q_b_proj (or q_proj without a q LoRA),
// kv_a_proj_with_mqa (h -> kv_lora + rope), kv_a_layernorm, kv_b_proj, o_proj.
Part mla_part(const Model& m) {
  const auto& d = m.mla;
  const int64_t h = m.hidden;
  const int64_t heads = m.attn.heads;
  const int64_t qk = int64_t{d.qk_nope_dim} + d.qk_rope_dim;
  Part p;
  if (d.q_lora_rank > 0) {
    p.replicated_matrices += h * d.q_lora_rank;
    p.replicated += d.q_lora_rank;
    p.matrices += int64_t{d.q_lora_rank} * heads * qk;
  } else {
    p.matrices += h * heads * qk;
  }
  p.replicated_matrices += h * (int64_t{d.kv_lora_rank} + d.qk_rope_dim);
  p.replicated += d.kv_lora_rank;
  p.matrices += int64_t{d.kv_lora_rank} * heads * (int64_t{d.qk_nope_dim} + d.v_dim);
  p.matrices += heads * d.v_dim * h;
  // The DSA indexer (transformers GlmMoeDsaIndexer / DeepseekV32 Indexer): wq_b from the query latent
  // (the hidden state without one), wk, weights_proj, and k_norm's weight and bias.
  if (d.index_heads > 0) {
    const int64_t q_in = d.q_lora_rank > 0 ? d.q_lora_rank : h;
    p.matrices += q_in * d.index_heads * d.index_head_dim + h * d.index_head_dim + h * d.index_heads;
    p.replicated += 2 * int64_t{d.index_head_dim};
  }
  return p;
}

// Gated DeltaNet (Qwen3-Next in_proj_qkvz + in_proj_ba; Qwen3.5 in_proj_qkv + in_proj_z + in_proj_b
// + in_proj_a: the same sizes), depthwise conv1d over q, k, v (no bias), A_log, dt_bias, the gated
// RMSNorm over one value head, out_proj.
Part gdn_part(const Model& m) {
  const auto& g = m.gdn;
  const int64_t h = m.hidden;
  const int64_t qk = int64_t{g.key_heads} * g.key_dim;
  const int64_t vd = int64_t{g.value_heads} * g.value_dim;
  Part p;
  p.matrices = h * (2 * qk + 2 * vd + 2 * int64_t{g.value_heads}) + (2 * qk + vd) * g.conv_kernel + vd * h;
  p.sharded_1d = 2 * int64_t{g.value_heads};  // A_log, dt_bias
  p.replicated = g.value_dim;                 // norm weight
  return p;
}

// Mamba-2 (mamba_ssm Mamba2 / Megatron MambaMixer): in_proj h -> (z, x, B, C, dt) =
// 2 d_inner + 2 groups state + heads, conv1d over (x, B, C) with bias, dt_bias, A_log, D,
// the gated RMSNorm over d_inner, out_proj.
Part mamba1_part(const Model& m);

Part mamba_part(const Model& m) {
  if (m.mamba.version == 1) return mamba1_part(m);
  const auto& s = m.mamba;
  const int64_t h = m.hidden;
  const int64_t d_in = int64_t{s.heads} * s.head_dim;
  const int64_t bc = 2 * int64_t{s.groups} * s.state;
  Part p;
  p.matrices = h * (2 * d_in + bc + s.heads) + (d_in + bc) * s.conv_kernel + d_in * h;
  p.sharded_1d = (d_in + bc) + 3 * int64_t{s.heads} + d_in;  // conv bias, dt_bias, A_log, D, norm
  return p;
}

// Mamba-1 (transformers MambaMixer / FalconMambaMixer, JambaMambaMixer; mamba_ssm Mamba): in_proj
// h -> 2 d_inner (x and z), depthwise conv1d over x with bias, x_proj d_inner -> dt_rank + 2 state,
// dt_proj dt_rank -> d_inner with bias, A_log d_inner x state, D, out_proj d_inner -> h; in/out
// biases with use_bias. Jamba's dt/B/C RMSNorm weights (dt_rank + 2 state) are not counted.
Part mamba1_part(const Model& m) {
  const auto& s = m.mamba;
  const int64_t h = m.hidden;
  const int64_t d_in = int64_t{s.heads} * s.head_dim;
  Part p;
  p.matrices = h * 2 * d_in + d_in * s.conv_kernel + d_in * (int64_t{s.dt_rank} + 2 * int64_t{s.state}) +
               int64_t{s.dt_rank} * d_in + d_in * h;
  p.sharded_1d = d_in + d_in + d_in * s.state + d_in;  // conv bias, dt_proj bias, A_log, D
  if (s.in_proj_bias) {
    p.sharded_1d += 2 * d_in;
    p.replicated += h;
  }
  return p;
}

// An MLP from width `in` (the hidden size; a latent MoE's latent size) to `ffn` and back.
int64_t ffn_matrices(const Model& m, int64_t ffn, int64_t in) { return (is_gated(m.activation) ? 3 : 2) * in * ffn; }
int64_t ffn_biases(const Model& m, int64_t ffn, int64_t in) { return (is_gated(m.activation) ? 2 * ffn : ffn) + in; }

Part mixer_part(const Model& m, const LayerSpec& spec) {
  switch (spec.mixer) {
    case MixerKind::kAttention: return attention_part(m, attention_of(m, spec));
    case MixerKind::kMla: return mla_part(m);
    case MixerKind::kGdn: return gdn_part(m);
    case MixerKind::kMamba2: return mamba_part(m);
    case MixerKind::kNone: return {};
  }
  return {};
}

}  // namespace

LayerParams layer_params(const Model& m, const LayerSpec& spec) {
  LayerParams lp;
  const int64_t h = m.hidden;
  const Part mix = mixer_part(m, spec);
  lp.mixer = mix.matrices + mix.replicated_matrices + mix.sharded_1d + mix.replicated;
  lp.mixer_matrices = mix.matrices + mix.replicated_matrices;
  lp.tp_sharded += mix.matrices + mix.sharded_1d;
  lp.replicated += mix.replicated_matrices + mix.replicated;
  lp.active += lp.mixer_matrices;

  // One pre-norm per sub-block (Nemotron-H layers have one sub-block each).
  const int n_norms = (spec.mixer != MixerKind::kNone ? 1 : 0) + (spec.ffn != FfnKind::kNone ? 1 : 0);
  lp.norms = n_norms * norm_params(m, h);
  lp.replicated += lp.norms;

  if (spec.ffn == FfnKind::kDense) {
    const int64_t w = ffn_matrices(m, m.ffn, h);
    const int64_t b = m.mlp_bias ? ffn_biases(m, m.ffn, h) : 0;
    lp.dense_ffn = w + b;
    lp.tp_sharded += w + (m.mlp_bias ? b - h : 0);
    lp.replicated += m.mlp_bias ? h : 0;
    lp.active += w;
  } else if (spec.ffn == FfnKind::kMoe) {
    const auto& e = m.moe;
    lp.router = h * e.experts + (e.router_bias ? e.experts : 0);
    // Latent MoE: the experts' width is the latent size, and every token passes the two latent
    // projections (Megatron-Bridge theoretical_memory_utils.py: routed = factor x latent x moe_ffn x
    // experts, plus 2 x hidden x latent per MoE layer counted with the dense part). Counted with the
    // shared expert here: dense, per token, outside the expert-parallel split.
    const int64_t expert_in = e.latent > 0 ? e.latent : h;
    const int64_t per_expert = ffn_matrices(m, e.ffn, expert_in);
    const int64_t per_expert_bias = e.expert_bias ? ffn_biases(m, e.ffn, expert_in) : 0;
    lp.routed = int64_t{e.experts} * (per_expert + per_expert_bias);
    lp.routed_active = int64_t{e.top_k} * per_expert;
    const int64_t latent_proj = e.latent > 0 ? 2 * h * e.latent : 0;
    const int64_t shared_w = (e.shared_ffn > 0 ? ffn_matrices(m, e.shared_ffn, h) : 0) + latent_proj;
    const int64_t gate = e.shared_gate ? h : 0;  // Linear(h, 1): a matrix, so active
    lp.shared = shared_w + gate;
    lp.tp_sharded += shared_w;
    lp.replicated += lp.router + gate;
    lp.expert += lp.routed;
    lp.active += h * e.experts + lp.routed_active + shared_w + gate;
  }
  return lp;
}

LayerSpec mtp_layer_spec(const Model& m) {
  LayerSpec s;
  s.mixer = m.count_layers(MixerKind::kMla) > 0 ? MixerKind::kMla : MixerKind::kAttention;
  s.window = 0;
  s.ffn = m.layers.empty() ? FfnKind::kDense : m.layers.back().ffn;
  if (s.ffn == FfnKind::kNone) s.ffn = m.is_moe() ? FfnKind::kMoe : FfnKind::kDense;
  if (m.mtp_dense) s.ffn = FfnKind::kDense;
  return s;
}

int64_t mtp_block_params(const Model& m) {
  const int64_t h = m.hidden;
  // enorm + hnorm + eh_proj (2h -> h) + the layer + the block's final norm (DeepSeek-V3 MTP module;
  // Megatron-Core multi_token_prediction.py; Qwen3.5 mtp.pre_fc_norm_* / mtp.fc / mtp.norm).
  return 3 * norm_params(m, h) + 2 * h * h + layer_params(m, mtp_layer_spec(m)).total();
}

ParamCounts count_params(const Model& m) {
  ParamCounts c;
  const int64_t h = m.hidden;
  c.embedding = m.vocab * h + (m.learned_position_embedding ? int64_t{m.max_position} * h : 0);
  c.lm_head = m.tied_embeddings ? 0 : m.vocab * h;
  c.final_norm = norm_params(m, h);
  for (const LayerSpec& spec : m.layers) {
    const LayerParams lp = layer_params(m, spec);
    switch (spec.mixer) {
      case MixerKind::kAttention: c.attention += lp.mixer; break;
      case MixerKind::kMla: c.mla += lp.mixer; break;
      case MixerKind::kGdn: c.gdn += lp.mixer; break;
      case MixerKind::kMamba2: c.mamba += lp.mixer; break;
      case MixerKind::kNone: break;
    }
    c.norms += lp.norms;
    c.dense_ffn += lp.dense_ffn;
    c.router += lp.router;
    c.routed_experts += lp.routed;
    c.shared_experts += lp.shared;
    c.tp_sharded += lp.tp_sharded;
    c.replicated += lp.replicated;
    c.expert += lp.expert;
    c.active += lp.active;
  }
  c.total = c.embedding + c.lm_head + c.final_norm + c.attention + c.mla + c.gdn + c.mamba + c.norms +
            c.dense_ffn + c.router + c.routed_experts + c.shared_experts;
  c.active += m.vocab * h;  // the LM head (the embedding matrix when tied) is used by every token
  c.mtp = m.mtp_layers * mtp_block_params(m);
  c.vision = vision_param_counts(m.vision).total;  // estimate/vision.hpp
  return c;
}

int64_t lora_params(const Model& m, int rank) {
  const int64_t r = rank;
  const int64_t h = m.hidden;
  int64_t n = 0;
  for (const LayerSpec& spec : m.layers) {
    switch (spec.mixer) {
      case MixerKind::kAttention: {
        const auto& a = attention_of(m, spec);
        const int64_t v_hd = a.v_head_dim > 0 ? a.v_head_dim : a.head_dim;
        const int64_t qkv = int64_t{a.heads} * a.head_dim * (a.output_gate ? 2 : 1) +
                            int64_t{a.kv_heads} * (a.head_dim + v_hd) + (a.head_gate ? a.heads : 0);
        n += r * (h + qkv) + r * (int64_t{a.heads} * v_hd + h);
        break;
      }
      case MixerKind::kMla: {
        const int64_t heads = m.attn.heads;
        n += r * (h + heads * (int64_t{m.mla.qk_nope_dim} + m.mla.qk_rope_dim)) + r * (heads * m.mla.v_dim + h);
        break;
      }
      case MixerKind::kGdn: {
        const int64_t qk = int64_t{m.gdn.key_heads} * m.gdn.key_dim;
        const int64_t vd = int64_t{m.gdn.value_heads} * m.gdn.value_dim;
        n += r * (h + 2 * qk + 2 * vd + 2 * m.gdn.value_heads) + r * (vd + h);
        break;
      }
      case MixerKind::kMamba2: {
        const int64_t d = int64_t{m.mamba.heads} * m.mamba.head_dim;
        n += r * (h + 2 * d + 2 * int64_t{m.mamba.groups} * m.mamba.state + m.mamba.heads) + r * (d + h);
        break;
      }
      case MixerKind::kNone: break;
    }
    const int64_t up = is_gated(m.activation) ? 2 : 1;
    if (spec.ffn == FfnKind::kDense) n += r * (h + up * m.ffn) + r * (m.ffn + h);
    if (spec.ffn == FfnKind::kMoe && m.moe.shared_ffn > 0)
      n += r * (h + up * m.moe.shared_ffn) + r * (m.moe.shared_ffn + h);
  }
  return n;
}

int64_t padded_vocab(int64_t vocab, int tp, int divisible_by) {
  const int64_t multiple = int64_t{divisible_by} * (tp > 0 ? tp : 1);
  if (multiple <= 0) return vocab;
  return (vocab + multiple - 1) / multiple * multiple;
}

}  // namespace rb
