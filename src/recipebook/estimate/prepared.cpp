#include "recipebook/estimate/prepared.hpp"

#include <algorithm>

#include "recipebook/estimate/flops.hpp"
#include "recipebook/estimate/routing.hpp"

namespace rb {
namespace {

double d(int64_t x) { return static_cast<double>(x); }

// Activation bytes per token of one layer, by component. The base is Korthikanti et al. 2022
// (arXiv 2205.05198) Sec. 4.1 / Table 2, written per tensor so that GQA, MLA, GDN, Mamba and MoE
// layers get their own sizes: flash attention keeps Q, K, V and the output (no s^2 term); every
// 16-bit tensor a backward needs is 2 bytes per element; dropout is off (0.0 in the LLM recipes),
// so there are no masks. Per token and layer this gives 34 h for a GPT layer (ffn = 4h, GeLU),
// Megatron's `compute_activation_memory` figure s b h (18 + 4 ffn / h).
void layer_activations(const Model& m, const LayerSpec& spec, ActVec& a, ActVec& gin) {
  const double h = d(m.hidden);
  const double up = is_gated(m.activation) ? 2.0 : 1.0;
  switch (spec.mixer) {
    case MixerKind::kAttention: {
      const auto& at = attention_of(m, spec);
      const double q = d(at.heads) * at.head_dim;
      const double kv = d(at.kv_heads) * at.head_dim;
      const double v_hd = at.v_head_dim > 0 ? at.v_head_dim : at.head_dim;
      const double gate = at.output_gate ? q : (at.head_gate ? d(at.heads) : 0.0);
      a[kActAttn] += 2.0 * (q + kv + d(at.kv_heads) * v_hd + gate) + 2.0 * d(at.heads) * v_hd;
      gin[kActAttn] += 2.0 * d(at.heads) * v_hd;  // core output = o_proj input
      break;
    }
    case MixerKind::kMla: {
      const auto& l = m.mla;
      const double heads = m.attn.heads;
      const double qk = d(l.qk_nope_dim) + l.qk_rope_dim;
      a[kActAttn] += 2.0 * (2.0 * l.q_lora_rank + (l.kv_lora_rank + l.qk_rope_dim) + l.kv_lora_rank);
      a[kActAttn] += 2.0 * heads * l.v_dim;  // core output = o_proj input
      gin[kActAttn] += 2.0 * (2.0 * l.q_lora_rank / 2.0 + l.kv_lora_rank) + 2.0 * heads * l.v_dim;
      a[kActMlaUp] += 2.0 * heads * (2.0 * qk + l.v_dim);
      break;
    }
    case MixerKind::kGdn: {
      const auto& g = m.gdn;
      const double qk = d(g.key_heads) * g.key_dim;
      const double vd = d(g.value_heads) * g.value_dim;
      a[kActGdn] += 2.0 * (2.0 * qk + 2.0 * vd + 2.0 * g.value_heads) + 2.0 * (2.0 * qk + vd) + 2.0 * vd;
      a[kActGdnNorm] += 2.0 * vd;
      gin[kActGdnNorm] += 2.0 * vd;  // out_proj input
      break;
    }
    case MixerKind::kMamba2: {
      const auto& s = m.mamba;
      const double din = d(s.heads) * s.head_dim;
      const double bc = 2.0 * s.groups * d(s.state);
      if (s.version == 2) {
        // Megatron-Core MambaMixer._ssm_training runs mamba_ssm's fused
        // mamba_split_conv1d_scan_combined (use_mamba_mem_eff_path, the default), whose autograd
        // function saves the in_proj output zxBCdt and the ungated scan output out_x and recomputes
        // the conv1d output in its backward (ssd_combined.py MambaSplitConv1dScanCombinedFn:
        // save_for_backward(zxbcdt, ..., out_x, ...); backward: "xBC_conv = causal_conv1d_fwd(...)");
        // then the mixer's RMSNorm keeps its input (the gated output y) and out_proj its input (the
        // norm's output). No conv output (d_inner + 2 groups state) is kept.
        a[kActMamba] += 2.0 * (2.0 * din + bc + s.heads) + 2.0 * din + 2.0 * din + 2.0 * din;
      } else {
        // Mamba-1 (not Megatron's): in_proj output, conv output, scan output, out_proj input.
        a[kActMamba] += 2.0 * (2.0 * din + bc + s.heads) + 2.0 * (din + bc) + 2.0 * din + 2.0 * din;
      }
      gin[kActMamba] += 2.0 * din;  // out_proj input
      break;
    }
    case MixerKind::kNone: break;
  }
  if (spec.mixer != MixerKind::kNone) {
    a[kActNormIn] += 2.0 * h;
    a[kActNormOut] += 2.0 * h;
    gin[kActNormOut] += 2.0 * h;
  }
  if (spec.ffn == FfnKind::kDense) {
    a[kActNormIn] += 2.0 * h;
    a[kActNormOut] += 2.0 * h;
    gin[kActNormOut] += 2.0 * h;
    a[kActMlp] += 2.0 * up * d(m.ffn) + 2.0 * d(m.ffn);
    gin[kActMlp] += 2.0 * d(m.ffn);  // fc2 input
  } else if (spec.ffn == FfnKind::kMoe) {
    const auto& e = m.moe;
    const double k = e.top_k;
    // The routed tokens' width: a latent MoE dispatches them at its latent size, after the
    // hidden -> latent projection (whose output, and the latent -> hidden projection's input, are
    // kept once per token).
    const double eh = e.latent > 0 ? d(e.latent) : h;
    a[kActNormIn] += 2.0 * h;
    a[kActNormOut] += 2.0 * h;
    gin[kActNormOut] += 2.0 * h;
    a[kActMoe] += 4.0 * e.experts + k * 2.0 * eh + k * 2.0 * up * d(e.ffn) + k * 2.0 * eh +
                  (e.latent > 0 ? 4.0 * eh : 0.0);
    gin[kActMoe] += k * 2.0 * eh;  // permuted tokens = expert fc1 input
    a[kActMoeAct] += k * 2.0 * d(e.ffn);
    gin[kActMoeAct] += k * 2.0 * d(e.ffn);
    if (e.shared_ffn > 0) {
      a[kActShared] += 2.0 * up * d(e.shared_ffn) + 2.0 * d(e.shared_ffn);
      gin[kActShared] += 2.0 * d(e.shared_ffn);
    }
  }
}

LayerSums layer_sums(const Model& m, const LayerSpec& param_spec, const LayerSpec& flops_spec, bool hybrid) {
  LayerSums s;
  const LayerParams p = layer_params(m, param_spec);
  s.p_sharded = d(p.tp_sharded);
  s.p_replicated = d(p.replicated);
  s.p_expert = d(p.expert);

  // Core attention per token of causal context: evaluate at context 1 (seq = core = 2, no window).
  LayerSpec unit = flops_spec;
  unit.window = 0;
  const LayerFlops f = layer_forward_flops(m, unit, 2.0, 2.0, hybrid);
  s.gemm_flops = f.gemm;
  s.expert_flops = f.expert;
  s.module_flops = f.by_module;
  const double glu = is_gated(m.activation) ? 3.0 : 2.0;
  if (flops_spec.ffn == FfnKind::kDense) s.mlp_flops = 2.0 * d(m.hidden) * d(m.ffn) * glu;
  if (flops_spec.ffn == FfnKind::kMoe) s.shared_flops = 2.0 * d(m.hidden) * d(m.moe.shared_ffn) * glu;
  if (flops_spec.mixer == MixerKind::kAttention || flops_spec.mixer == MixerKind::kMla) {
    const bool windowed = flops_spec.window > 0 && flops_spec.mixer == MixerKind::kAttention && !hybrid;
    (windowed ? s.swa_core : s.full_core) = f.core_attn;
  } else {
    s.fixed_core = f.core_attn;
    s.gdn_delta = f.delta_rule;
  }

  const bool has_mixer = param_spec.mixer != MixerKind::kNone;
  s.sub_blocks = (has_mixer ? 1.0 : 0.0) + (param_spec.ffn == FfnKind::kDense ? 1.0 : 0.0) +
                 (param_spec.ffn == FfnKind::kMoe && m.moe.shared_ffn > 0 ? 1.0 : 0.0);
  if (param_spec.mixer == MixerKind::kAttention) {
    s.attn_layers = 1;
    s.kv_bytes = 2.0 * 2.0 * attention_of(m, param_spec).kv_heads * d(attention_of(m, param_spec).head_dim);
  } else if (param_spec.mixer == MixerKind::kMla) {
    s.attn_layers = 1;
    s.kv_bytes = 2.0 * m.attn.heads * (d(m.mla.qk_nope_dim) + m.mla.qk_rope_dim + m.mla.v_dim);
  } else if (has_mixer) {
    s.linear_layers = 1;
  }
  s.moe_layers = param_spec.ffn == FfnKind::kMoe ? 1.0 : 0.0;
  layer_activations(m, param_spec, s.act, s.act_gemm_in);
  // Norms that are modules of their own in Megatron-Core's TE layer specs (gpt_layer_specs.py
  // `pre_mlp_layernorm=backend.layer_norm() if num_experts else IdentityOp`, MLA's
  // `input_layernorm=backend.layer_norm(...)` without mla_down_proj_fusion; hybrid_layer_specs.py
  // moe_layer `pre_mlp_layernorm=TENorm`, mla_layer `input_layernorm=TENorm`). Attention's, the dense
  // MLP's, Mamba's and GDN's norms are fused into their first linear (TELayerNormColumnParallelLinear).
  s.norm_out_own = 2.0 * d(m.hidden) * ((param_spec.ffn == FfnKind::kMoe ? 1.0 : 0.0) +
                                        (param_spec.mixer == MixerKind::kMla ? 1.0 : 0.0));
  return s;
}

}  // namespace

void accumulate(LayerSums& a, const LayerSums& b, double scale) {
  a.p_sharded += scale * b.p_sharded;
  a.p_replicated += scale * b.p_replicated;
  a.p_expert += scale * b.p_expert;
  a.gemm_flops += scale * b.gemm_flops;
  a.expert_flops += scale * b.expert_flops;
  a.mlp_flops += scale * b.mlp_flops;
  a.shared_flops += scale * b.shared_flops;
  for (size_t i = 0; i < a.module_flops.size(); ++i) a.module_flops[i] += scale * b.module_flops[i];
  a.full_core += scale * b.full_core;
  a.swa_core += scale * b.swa_core;
  a.fixed_core += scale * b.fixed_core;
  a.gdn_delta += scale * b.gdn_delta;
  a.sub_blocks += scale * b.sub_blocks;
  a.attn_layers += scale * b.attn_layers;
  a.linear_layers += scale * b.linear_layers;
  a.moe_layers += scale * b.moe_layers;
  a.kv_bytes += scale * b.kv_bytes;
  a.norm_out_own += scale * b.norm_out_own;
  for (size_t i = 0; i < static_cast<size_t>(kNumActParts); ++i) {
    a.act[i] += scale * b.act[i];
    a.act_gemm_in[i] += scale * b.act_gemm_in[i];
  }
}

LayerSums PreparedModel::range(int begin, int end) const {
  LayerSums out = prefix[static_cast<size_t>(end)];
  accumulate(out, prefix[static_cast<size_t>(begin)], -1.0);
  return out;
}

LayerSums chunk_sums(const PreparedModel& pm, const StagePlan& plan, int c) {
  if (plan.sums != nullptr) return plan.sums->chunk[static_cast<size_t>(c)];
  return pm.range(plan.begin[static_cast<size_t>(c)], plan.begin[static_cast<size_t>(c + 1)]);
}

LayerSums rank_sums(const PreparedModel& pm, const StagePlan& plan, int rank) {
  if (plan.sums != nullptr) return plan.sums->rank[static_cast<size_t>(rank)];
  LayerSums s;
  for (int k = 0; k < plan.vp; ++k) accumulate(s, chunk_sums(pm, plan, k * plan.pp + rank));
  return s;
}

LayerSums mean_rank_sums(const PreparedModel& pm, const StagePlan& plan) {
  if (plan.sums != nullptr) return plan.sums->mean_rank;
  LayerSums all = pm.range(plan.begin[0], plan.begin[static_cast<size_t>(plan.virtual_stages())]);
  accumulate(all, pm.mtp);
  LayerSums mean;
  accumulate(mean, all, 1.0 / plan.pp);
  return mean;
}

bool has_bf16_layers(const Layout& l) {
  return l.precision != Precision::kBf16 && (l.bf16_layers_at_start > 0 || l.bf16_layers_at_end > 0);
}

// Layers [b, e) that run in BF16: their overlap with [0, start) and with [n - end, n).
LayerSums bf16_range_sums(const PreparedModel& pm, const Layout& l, int b, int e) {
  LayerSums out;
  if (!has_bf16_layers(l)) return out;
  const int n = static_cast<int>(pm.prefix.size()) - 1;
  const int head = std::clamp(l.bf16_layers_at_start, 0, n);
  const int tail = std::max(head, n - std::max(0, l.bf16_layers_at_end));
  if (const int hi = std::min(e, head); hi > b) accumulate(out, pm.range(b, hi));
  if (const int lo = std::max(b, tail); e > lo) accumulate(out, pm.range(lo, e));
  return out;
}

namespace {

// Chunk c's layers that run in BF16.
LayerSums bf16_chunk_sums(const PreparedModel& pm, const StagePlan& plan, const Layout& l, int c) {
  return bf16_range_sums(pm, l, plan.begin[static_cast<size_t>(c)], plan.begin[static_cast<size_t>(c + 1)]);
}

}  // namespace

LayerSums bf16_rank_sums(const PreparedModel& pm, const StagePlan& plan, const Layout& l, int rank) {
  LayerSums s;
  if (!has_bf16_layers(l)) return s;
  for (int k = 0; k < plan.vp; ++k) accumulate(s, bf16_chunk_sums(pm, plan, l, k * plan.pp + rank));
  return s;
}

LayerSums bf16_mean_rank_sums(const PreparedModel& pm, const StagePlan& plan, const Layout& l) {
  LayerSums mean;
  if (!has_bf16_layers(l)) return mean;
  LayerSums all;
  for (int c = 0; c < plan.virtual_stages(); ++c) accumulate(all, bf16_chunk_sums(pm, plan, l, c));
  accumulate(mean, all, 1.0 / plan.pp);
  return mean;
}

StageSums stage_sums(const PreparedModel& pm, const StagePlan& plan) {
  StageSums out;
  if (!plan.ok) return out;
  StagePlan bare = plan;
  bare.sums = nullptr;
  for (int c = 0; c < plan.virtual_stages(); ++c) out.chunk.push_back(chunk_sums(pm, bare, c));
  for (int r = 0; r < plan.pp; ++r) out.rank.push_back(rank_sums(pm, bare, r));
  out.mean_rank = mean_rank_sums(pm, bare);
  return out;
}

PreparedModel prepare(const Model& m) {
  PreparedModel p;
  p.model = m;
  p.params = count_params(m);
  p.hybrid = uses_hybrid_path(m);
  p.hidden = d(m.hidden);
  p.vocab = d(m.vocab);
  p.dense_ffn = d(m.ffn);
  p.moe_ffn = d(m.moe.ffn);
  p.expert_hidden = m.moe.latent > 0 ? d(m.moe.latent) : p.hidden;
  p.q_dim = d(m.attn.heads) * m.attn.head_dim;
  p.experts = m.moe.experts;
  p.top_k = m.moe.top_k;
  p.num_layers = m.num_layers();
  p.prefix.assign(m.layers.size() + 1, LayerSums{});
  for (size_t i = 0; i < m.layers.size(); ++i) {
    p.prefix[i + 1] = p.prefix[i];
    accumulate(p.prefix[i + 1], layer_sums(m, m.layers[i], m.layers[i], p.hybrid));
    if (m.layers[i].window > 0) p.window = std::max(p.window, m.layers[i].window);
  }
  const double h = p.hidden;
  for (int k = 0; k < m.mtp_layers; ++k)
    accumulate(p.mtp, layer_sums(m, mtp_layer_spec(m), mtp_flops_spec(m, k), p.hybrid));
  if (m.mtp_layers > 0) {
    // eh_proj (2h -> h, column-parallel) and the enorm, hnorm and final norm of each MTP block.
    p.mtp.p_sharded += m.mtp_layers * 2.0 * h * h;
    p.mtp.p_replicated += m.mtp_layers * 3.0 * (m.norm == NormKind::kLayer ? 2.0 * h : h);
    p.mtp_extra_flops = p.hybrid ? 0.0 : m.mtp_layers * 2.0 * (3.0 * h + 2.0 * h * h);
  }
  p.muon = muon_matrices(m);
  for (int ep = 2; ep <= p.experts; ++ep)
    if (p.experts % ep == 0) p.route_z.emplace_back(ep, busiest_rank_z(ep));
  return p;
}

double PreparedModel::route_load_factor(double tokens, int ep) const {
  for (const auto& [ranks, z] : route_z)
    if (ranks == ep) return busiest_rank_load_factor(tokens, top_k, experts, ep, z);
  return busiest_rank_load_factor(tokens, top_k, experts, ep);
}

}  // namespace rb
