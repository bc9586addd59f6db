// The architecture checks of model_limits.hpp. Each rule is one the frameworks make when they build
// the model (cited per rule); the upper bounds are ours (model_limits.hpp says why).
#include "recipebook/catalog/model_limits.hpp"

#include <string_view>

namespace rb {
namespace {

class Checker {
 public:
  Checker(const ArchNamer& name) : name_(name) {}

  [[nodiscard]] bool failed() const { return problem_.has_value(); }
  std::optional<ArchProblem> take() { return std::move(problem_); }

  void fail(ArchKey key, std::string message) {
    if (!problem_) problem_ = ArchProblem{key, std::move(message)};
  }
  // lo <= v <= hi, with a message naming the field, its value and the range.
  void range(ArchKey key, int64_t v, int64_t lo, int64_t hi, std::string_view why = {}) {
    if (failed() || (v >= lo && v <= hi)) return;
    std::string msg = q(key) + " is " + std::to_string(v) + "; it must be ";
    if (v < lo)
      msg += lo == 1 ? "at least 1" : ">= " + std::to_string(lo);
    else
      msg += "at most " + std::to_string(hi);
    if (!why.empty()) msg += " (" + std::string(why) + ")";
    fail(key, msg);
  }
  // `key`'s value must divide `of`'s.
  void divides(ArchKey key, int64_t v, ArchKey of, int64_t w, std::string_view why) {
    if (failed() || v <= 0 || w % v == 0) return;
    fail(key, q(key) + " (" + std::to_string(v) + ") must divide " + q(of) + " (" + std::to_string(w) +
                  "): " + std::string(why));
  }
  std::string q(ArchKey key) const { return "`" + name_(key) + "`"; }

 private:
  const ArchNamer& name_;
  std::optional<ArchProblem> problem_;
};

bool uses(const Model& m, MixerKind k) { return m.count_layers(k) > 0; }

void check_attention(Checker& c, const Model& m) {
  const auto& a = m.attn;
  c.range(ArchKey::kHeads, a.heads, 1, kMaxHeads);
  // Megatron-Core: num_query_groups defaults to num_attention_heads and each group serves
  // heads / groups query heads (attention.py divide(); transformers repeat_kv uses
  // num_attention_heads // num_key_value_heads), so the KV head count divides the head count.
  c.range(ArchKey::kKvHeads, a.kv_heads, 1, a.heads, "the key/value heads are at most the attention heads");
  c.divides(ArchKey::kKvHeads, a.kv_heads, ArchKey::kHeads, a.heads,
            "each key/value head serves the same number of query heads");
  c.range(ArchKey::kHeadDim, a.head_dim, 1, kMaxHeadDim);
  c.range(ArchKey::kVHeadDim, a.v_head_dim, 0, kMaxHeadDim);
  for (const auto& l : m.layers) c.range(ArchKey::kWindow, l.window, 0, kMaxWindow);
}

// MLA (Megatron-Core MLATransformerConfig, transformers DeepseekV3Attention): a KV compression
// rank, query/key head dims made of a no-RoPE and a RoPE part, value head dim.
void check_mla(Checker& c, const Model& m) {
  const auto& d = m.mla;
  c.range(ArchKey::kHeads, m.attn.heads, 1, kMaxHeads);
  c.range(ArchKey::kMlaKvLora, d.kv_lora_rank, 1, kMaxStateDim);
  c.range(ArchKey::kMlaQLora, d.q_lora_rank, 0, kMaxStateDim);
  c.range(ArchKey::kMlaQkNope, d.qk_nope_dim, 0, kMaxHeadDim);
  c.range(ArchKey::kMlaQkRope, d.qk_rope_dim, 1, kMaxHeadDim);
  c.range(ArchKey::kMlaV, d.v_dim, 1, kMaxHeadDim);
}

// Gated DeltaNet (transformers Qwen3NextGatedDeltaNet repeats the key heads num_v_heads //
// num_k_heads times; Megatron-Core gated_delta_net.py the same).
void check_gdn(Checker& c, const Model& m) {
  const auto& g = m.gdn;
  c.range(ArchKey::kGdnKeyHeads, g.key_heads, 1, kMaxHeads);
  c.range(ArchKey::kGdnValueHeads, g.value_heads, 1, kMaxHeads);
  c.divides(ArchKey::kGdnKeyHeads, g.key_heads, ArchKey::kGdnValueHeads, g.value_heads,
            "each key head serves the same number of value heads");
  c.range(ArchKey::kGdnKeyDim, g.key_dim, 1, kMaxHeadDim);
  c.range(ArchKey::kGdnValueDim, g.value_dim, 1, kMaxHeadDim);
  c.range(ArchKey::kGdnConv, g.conv_kernel, 1, kMaxConvKernel);
}

// Mamba: Megatron-Core MambaMixer asserts d_state > 0, headdim > 0, ngroups > 0, nheads > 0 and
// nheads % ngroups == 0 (megatron/core/ssm/mamba_mixer.py). A Mamba-1 mixer is stored as
// heads = d_inner, head_dim = 1, groups = 1 (model.hpp).
void check_mamba(Checker& c, const Model& m) {
  const auto& s = m.mamba;
  c.range(ArchKey::kMambaHeads, s.heads, 1, kMaxFfn);
  c.range(ArchKey::kMambaHeadDim, s.head_dim, 1, kMaxHeadDim);
  c.range(ArchKey::kMambaHeads, int64_t{s.heads} * s.head_dim, 1, kMaxFfn, "heads x head_dim is the inner width");
  c.range(ArchKey::kMambaState, s.state, 1, kMaxStateDim);
  c.range(ArchKey::kMambaGroups, s.groups, 1, s.heads, "groups share B and C among the heads");
  c.divides(ArchKey::kMambaGroups, s.groups, ArchKey::kMambaHeads, s.heads,
            "each group serves the same number of heads");
  c.range(ArchKey::kMambaConv, s.conv_kernel, 1, kMaxConvKernel);
  if (s.version == 1) c.range(ArchKey::kMambaDtRank, s.dt_rank, 1, kMaxHidden);
}

// MoE: top-k routing picks k distinct experts (torch.topk over the expert scores in Megatron-Core's
// router, moe/moe_utils.py, and in every transformers MoE block), so 1 <= top_k <= experts.
void check_moe(Checker& c, const Model& m) {
  const auto& e = m.moe;
  c.range(ArchKey::kExperts, e.experts, 1, kMaxExperts);
  c.range(ArchKey::kTopK, e.top_k, 1, e.experts, "top-k routing picks that many distinct experts");
  c.range(ArchKey::kMoeFfn, e.ffn, 1, kMaxFfn);
  c.range(ArchKey::kSharedExperts, e.shared_experts, 0, kMaxExperts);
  c.range(ArchKey::kSharedFfn, e.shared_ffn, 0, kMaxFfn);
  c.range(ArchKey::kMoeLatent, e.latent, 0, kMaxHidden);
}

void check_vision(Checker& c, const VisionDims& v) {
  c.range(ArchKey::kVisionLayers, v.layers, 0, kMaxLayers);
  if (v.layers == 0) return;
  c.range(ArchKey::kVisionHidden, v.hidden, 1, kMaxHidden);
  c.range(ArchKey::kVisionFfn, v.ffn, 1, kMaxFfn);
  c.range(ArchKey::kVisionHeads, v.heads, 1, kMaxHeads);
  c.divides(ArchKey::kVisionHeads, v.heads, ArchKey::kVisionHidden, v.hidden, "each head has hidden / heads channels");
  c.range(ArchKey::kVisionPatch, v.patch, 1, 4096);
}

}  // namespace

int64_t arch_limit(ArchKey key) {
  switch (key) {
    case ArchKey::kLayers:
    case ArchKey::kVisionLayers: return kMaxLayers;
    case ArchKey::kHidden:
    case ArchKey::kVisionHidden: return kMaxHidden;
    case ArchKey::kVocab: return kMaxVocab;
    default: return 0;
  }
}

std::optional<ArchProblem> check_architecture(const Model& m, const ArchNamer& name) {
  Checker c(name);
  c.range(ArchKey::kHidden, m.hidden, 1, kMaxHidden);
  c.range(ArchKey::kVocab, m.vocab, 1, kMaxVocab);
  c.range(ArchKey::kLayers, m.num_layers(), 1, kMaxLayers);
  c.range(ArchKey::kMaxPosition, m.max_position, 0, kMaxPositions);
  c.range(ArchKey::kMtpLayers, m.mtp_layers, 0, kMaxMtpLayers);
  c.range(ArchKey::kFfn, m.ffn, 0, kMaxFfn);
  if (uses(m, MixerKind::kAttention)) check_attention(c, m);
  if (uses(m, MixerKind::kMla)) check_mla(c, m);
  if (uses(m, MixerKind::kGdn)) check_gdn(c, m);
  if (uses(m, MixerKind::kMamba2)) check_mamba(c, m);
  if (m.moe.experts > 0 || m.count_layers(FfnKind::kMoe) > 0) check_moe(c, m);
  check_vision(c, m.vision);
  return c.take();
}

}  // namespace rb
