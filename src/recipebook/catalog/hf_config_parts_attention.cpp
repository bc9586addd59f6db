// The attention part of the by-parts reader (hf_config_parts.hpp): heads and KV heads under their
// several names, head dims, MLA, biases, q/k norms, output gates, sliding windows (layer_types,
// sliding_window_pattern, use_sliding_window) and the sliding layers' own shape
// (attention_other_setting). Sources per field: the comment at the top of hf_config_parts.cpp.
#include <algorithm>
#include <string>

#include "recipebook/catalog/hf_config_parts.hpp"

namespace rb {
namespace {

using Json = nlohmann::json;

// sliding_window_pattern: a period (every n-th layer global: Gemma3TextConfig) or a string of L
// (local, sliding) and G (global) repeated over the layers (EXAONE 4: "LLLG", local:global 3:1).
struct WindowPattern {
  int period = 0;
  std::string local_global;
  [[nodiscard]] bool given() const { return period > 0 || !local_global.empty(); }
  [[nodiscard]] bool sliding(int i) const {
    if (!local_global.empty()) return local_global[static_cast<size_t>(i) % local_global.size()] == 'L';
    return (i + 1) % period != 0;
  }
};
WindowPattern window_pattern(HfReader& r_) {
  WindowPattern p;
  const Json* v = r_.get("sliding_window_pattern");
  if (v == nullptr || !v->is_string()) {
    p.period = r_.int32_or("sliding_window_pattern", 0);
    return p;
  }
  p.local_global = v->get<std::string>();
  const bool ok = !p.local_global.empty() && static_cast<int64_t>(p.local_global.size()) <= kMaxLayers &&
                  p.local_global.find_first_not_of("LG") == std::string::npos;
  if (!ok) {
    r_.fail_at("sliding_window_pattern", "`" + r_.prefix() +
                                             "sliding_window_pattern` must be a period or a string of L (sliding) "
                                             "and G (global) layers, at most " + std::to_string(kMaxLayers) + " long");
    p.local_global.clear();
  }
  return p;
}

}  // namespace

void PartsReader::read_attention() {
  auto& a = m_.attn;
  const char* heads_key = key({"num_attention_heads", "n_head"});
  a.heads = r_.req_int32(heads_key);
  // num_attention_groups: Step-3.5's name for the KV head groups (Megatron-Bridge Step35Config).
  if (const char* kv = r_.first_of({"num_key_value_heads", "num_kv_heads", "num_attention_groups"}))
    a.kv_heads = r_.int32_or(kv, a.heads);
  else
    a.kv_heads = r_.bool_or("multi_query", false) ? 1 : a.heads;
  // Some configs spell the KV head count twice (EXAONE 4.5's text_config: num_key_value_heads and
  // num_kv_heads); both are read, and two different counts are refused rather than one picked.
  if (r_.has("num_key_value_heads") && r_.has("num_kv_heads")) {
    const int other = r_.int32_or("num_kv_heads", a.kv_heads);
    if (!r_.failed() && other != a.kv_heads)
      return r_.fail_at("num_kv_heads", "`" + r_.prefix() + "num_kv_heads` (" + std::to_string(other) +
                                            ") and `" + r_.prefix() + "num_key_value_heads` (" +
                                            std::to_string(a.kv_heads) + ") disagree");
  }
  if (r_.failed()) return;
  if (r_.has("kv_lora_rank")) {  // MLA (DeepseekV2/V3Config)
    auto& d = m_.mla;
    d.q_lora_rank = r_.int32_or("q_lora_rank", 0);
    d.kv_lora_rank = r_.req_int32("kv_lora_rank");
    d.qk_nope_dim = r_.req_int32("qk_nope_head_dim");
    d.qk_rope_dim = r_.req_int32("qk_rope_head_dim");
    d.v_dim = r_.req_int32("v_head_dim");
    a.head_dim = d.qk_nope_dim + d.qk_rope_dim;
    a.v_head_dim = d.v_dim;
    // GlmMoeDsaConfig spells the q/k head dim as qk_head_dim; its head_dim (64 in GLM-5.1, 192 in
    // GLM-5.2) sizes no MLA module, so it is read and left.
    if (auto qk = r_.opt_int("qk_head_dim"); qk && *qk != a.head_dim)
      return r_.fail_at("qk_head_dim", "`" + r_.prefix() + "qk_head_dim` (" + std::to_string(*qk) +
                                           ") is not qk_nope_head_dim + qk_rope_head_dim (" +
                                           std::to_string(a.head_dim) + ")");
    (void)r_.get("head_dim");
    read_indexer();
  } else {
    a.head_dim = head_dim_or_split(r_, {"head_dim", "attention_head_dim", "kv_channels"}, hidden_key_, m_.hidden,
                                   heads_key, a.heads);
    a.v_head_dim = a.head_dim;
  }
  a.qkv_bias = a.out_bias = r_.bool_or("attention_bias", false);
  if (r_.has("qkv_bias")) a.qkv_bias = r_.bool_or("qkv_bias", false);
  a.qk_norm = r_.bool_or("use_qk_norm", r_.bool_or("qk_layernorm", facts_ != nullptr && facts_->qk_norm));
  // Step3p5Attention: g_proj hidden -> heads, sigmoid(g) scales each head's output before o_proj.
  a.head_gate = r_.bool_or("use_head_wise_attn_gate", false);
  // att_impl_type names the attention kind of Step-3 configs; only GQA is this reader's.
  if (auto impl = r_.opt_str("att_impl_type"); impl && *impl != "GQA")
    return r_.fail_at("att_impl_type", "`" + r_.prefix() + "att_impl_type` is '" + *impl +
                                           "'; understood: GQA (MLA configs give kv_lora_rank)");
  // Soft-capping and the query scale change no weight and no GEMM.
  for (const char* k : {"attn_logit_softcapping", "final_logit_softcapping", "query_pre_attn_scalar"})
    (void)r_.get(k);
  read_windows();
}

void PartsReader::read_windows() {
  int window = r_.int32_or(key({"sliding_window", "sliding_window_size"}), 0);
  (void)r_.get("sliding_window_size");
  // Qwen2Config and its VL text configs: use_sliding_window false means no layer slides (the
  // configuration class sets sliding_window to None), whatever sliding_window says.
  if (!r_.bool_or("use_sliding_window", true)) window = 0;
  auto types = layer_types(r_, layers_, m_.mtp_layers);
  const WindowPattern pattern = window_pattern(r_);
  if (r_.failed()) return;
  if (types) {
    apply_layer_types(r_, *types, window, m_);
    read_sliding_shape(std::any_of(m_.layers.begin(), m_.layers.end(), [](const LayerSpec& l) { return l.window > 0; }));
    // A pattern given beside layer_types must say the same.
    for (int i = 0; pattern.given() && i < layers_ && !r_.failed(); ++i)
      if (pattern.sliding(i) != ((*types)[static_cast<size_t>(i)] == "sliding_attention"))
        r_.fail_at("sliding_window_pattern", "`" + r_.prefix() + "sliding_window_pattern` and `" + r_.prefix() +
                                                 "layer_types` disagree at layer " + std::to_string(i));
    return;
  }
  read_sliding_shape(window > 0);
  if (window <= 0) return;
  for (int i = 0; i < layers_; ++i) {
    LayerSpec& l = m_.layers[static_cast<size_t>(i)];
    if (l.mixer != MixerKind::kAttention) continue;
    if (pattern.given())
      l.window = pattern.sliding(i) ? window : 0;
    else if (facts_ != nullptr && facts_->alternate_windows)
      l.window = (i + 1) % 2 != 0 ? window : 0;
    else
      l.window = window;
  }
  if (!pattern.given()) assume("`sliding_window` with no layer pattern: a window on every attention layer");
}


// The DSA lightning indexer of every MLA layer (GlmMoeDsaConfig, DeepseekV32Config: index_n_heads,
// index_head_dim, index_topk). An indexer shared across layers (index_topk_freq, indexer_types with
// other than "full") is not modelled and is refused naming the field.
void PartsReader::read_indexer() {
  if (!r_.has("index_n_heads")) return;
  auto& d = m_.mla;
  d.index_heads = r_.req_int32("index_n_heads");
  d.index_head_dim = r_.req_int32("index_head_dim");
  d.index_topk = r_.int32_or("index_topk", 0);
  (void)r_.get("indexer_rope_interleave");
  if (r_.failed()) return;
  const auto range = [&](const char* k, int v, int64_t hi) {
    if (!r_.failed() && (v < 1 || v > hi))
      r_.fail_at(k, "`" + r_.prefix() + k + "` is " + std::to_string(v) + "; it must be 1.." + std::to_string(hi));
  };
  range("index_n_heads", d.index_heads, kMaxHeads);
  range("index_head_dim", d.index_head_dim, kMaxHeadDim);
  if (!r_.failed() && (d.index_topk < 0 || d.index_topk > kMaxPositions))
    r_.fail_at("index_topk", "`" + r_.prefix() + "index_topk` must be 0.." + std::to_string(kMaxPositions));
  if (!r_.failed() && r_.int_or("index_topk_freq", 1) != 1)
    r_.fail_at("index_topk_freq", "`" + r_.prefix() + "index_topk_freq`: indexers shared across layers are not "
                                  "modelled");
  if (auto types = r_.opt_str_list("indexer_types"))
    for (const auto& t : *types)
      if (t != "full" && !r_.failed())
        r_.fail_at("indexer_types", "`" + r_.prefix() + "indexer_types` has '" + t + "'; understood: full");
  // What the estimator does with it (flops.cpp, context_parallel.cpp; docs/model.md "Open points").
  if (!r_.failed() && d.index_topk > 0)
    assume("DSA sparse attention is timed as dense MLA over the whole causal context, and its CP exchange as "
           "Transformer Engine's of full K/V (Megatron-Core's DSA runs its own all-gather CP, whose buffers are not "
           "counted in memory): past index_topk " +
           std::to_string(d.index_topk) + " tokens the attention and CP times are upper bounds");
}

// attention_other_setting (Step-3.5-Flash): the sliding-attention layers' own head count, KV groups
// and head dim (Step3p5Attention takes num_attention_heads / num_attention_groups from it on a layer
// whose layer_types entry is its attention_type; Megatron-Bridge step35_provider.py sliding_attention_
// setting the same). Everything else about those layers (biases, norms, gate) is the full layers'.
// `any_sliding`: some layer has a window, so there are layers for it to describe (a sliding_attention
// entry without a sliding_window does not slide, and would not take the setting).
void PartsReader::read_sliding_shape(bool any_sliding) {
  const char* k = "attention_other_setting";
  const Json* obj = r_.object(k);
  if (r_.failed() || obj == nullptr) return;
  const std::string name = r_.prefix() + k;
  HfReader s(*obj, r_.file(), r_.model_type(), name + ".");
  if (auto type = s.opt_str("attention_type"); type && *type != "sliding_attention")
    return r_.fail_at(k, "`" + name + ".attention_type` is '" + *type + "'; understood: sliding_attention");
  if (!any_sliding)
    return r_.fail_at(k, "`" + name + "` describes the sliding-attention layers, but no layer slides",
                      "give `layer_types` with sliding_attention layers and a `sliding_window`");
  AttentionDims& d = m_.sliding_attn;
  d = m_.attn;
  d.heads = s.int32_or("num_attention_heads", m_.attn.heads);
  d.kv_heads = s.int32_or("num_attention_groups", s.int32_or("num_key_value_heads", m_.attn.kv_heads));
  d.head_dim = s.int32_or("head_dim", m_.attn.head_dim);
  d.v_head_dim = d.head_dim;
  const int true_dim = s.int32_or("true_head_dim", d.head_dim);
  if (s.failed()) return r_.fail_at(k, s.error().message);
  const auto bad = [&](const std::string& what) { r_.fail_at(k, "`" + name + "`: " + what); };
  if (d.heads < 1 || d.heads > kMaxHeads) return bad("num_attention_heads must be 1.." + std::to_string(kMaxHeads));
  if (d.kv_heads < 1 || d.kv_heads > d.heads || d.heads % d.kv_heads != 0)
    return bad("num_attention_groups (" + std::to_string(d.kv_heads) + ") must divide num_attention_heads (" +
               std::to_string(d.heads) + ")");
  if (d.head_dim < 1 || d.head_dim > kMaxHeadDim) return bad("head_dim must be 1.." + std::to_string(kMaxHeadDim));
  if (true_dim != d.head_dim) return bad("true_head_dim differs from head_dim, which recipebook does not model");
  // A key of the setting other than these changes those layers in a way not modelled here.
  for (auto it = obj->begin(); it != obj->end(); ++it)
    if (s.read_keys().count(it.key()) == 0)
      return bad("field `" + it.key() + "` changes the sliding layers and recipebook does not understand it");
}

}  // namespace rb
