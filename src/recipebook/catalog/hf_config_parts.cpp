// A config.json read by its parts rather than by its model_type: each component is recognized by
// the fields that describe it in the transformers configuration classes, so that a model_type this
// file never heard of is sized when its fields are all understood. What a field-less default
// decided is written to Model::assumptions; a field that changes the architecture and is not
// understood is an error that names it.
//
// Parts and their fields (configuration_<type>.py of each class that introduced them):
//   core       hidden_size | n_embd | d_model, vocab_size, num_hidden_layers | n_layer | num_layers,
//              max_position_embeddings, tie_word_embeddings, num_nextn_predict_layers
//   attention  num_attention_heads, num_key_value_heads (multi_query: 1), head_dim, attention_bias,
//              use_qk_norm; MLA by kv_lora_rank (q_lora_rank, qk_nope/rope_head_dim, v_head_dim);
//              sliding_window with layer_types | sliding_window_pattern | use_sliding_window;
//              attn_logit_softcapping / final_logit_softcapping / query_pre_attn_scalar (no weights)
//   MLP        intermediate_size, hidden_act | hidden_activation | activation_function, mlp_bias
//   MoE        num_experts | n_routed_experts | num_local_experts, num_experts_per_tok, moe_intermediate_size,
//              n_shared_experts, shared_expert_intermediate_size, first_k_dense_replace + moe_layer_freq
//              (DeepSeek), decoder_sparse_step + mlp_only_layers (Qwen-MoE), expert_layer_period/offset (Jamba)
//   SSM        Mamba-1: state_size, conv_kernel, intermediate_size | expand, time_step_rank, use_bias,
//              use_conv_bias (MambaConfig, FalconMambaConfig); mamba_d_state, mamba_d_conv,
//              mamba_expand, mamba_dt_rank, mamba_proj_bias, mamba_conv_bias (JambaConfig).
//              Mamba-2: num_heads, head_dim, n_groups, state_size, conv_kernel (Mamba2Config)
//   hybrids    layers_block_type, attn_layer_period/offset (Jamba), hybrid_override_pattern
// Checked against: google/gemma-2-{2b,9b,27b}, microsoft/Phi-3-mini-4k-instruct,
// allenai/OLMoE-1B-7B-0924, tiiuae/falcon-mamba-7b, ai21labs/AI21-Jamba-1.5-Mini (tests/data/hf).
#include <cmath>
#include <limits>
#include <string>
#include <string_view>

#include "recipebook/catalog/hf_config_internal.hpp"
#include "recipebook/catalog/model_layers.hpp"

namespace rb {
namespace {

using Json = nlohmann::json;

// What a published config leaves to its configuration class, for the types read here by parts.
struct TypeFacts {
  const char* type;
  bool tied;               // tie_word_embeddings default
  bool gated_gelu;         // a gelu activation on a gate/up MLP (GeGLU)
  bool alternate_windows;  // sliding on even layers, global on odd (Gemma2Config.layer_types)
  bool qk_norm;            // q/k RMSNorm on every attention layer (OlmoeAttention)
  bool ssm_only;           // every layer is one Mamba mixer and its norm (MambaBlock)
};

constexpr TypeFacts kFacts[] = {
    {"gemma2", true, true, true, false, false},   // Gemma2Config; GeGLU (gelu_pytorch_tanh)
    {"phi3", false, false, false, false, false},  // Phi3Config: fused qkv/gate_up, same sizes
    {"olmoe", false, false, false, true, false},  // OlmoeConfig: every layer MoE, intermediate_size per expert
    {"mamba", true, false, false, false, true},   // MambaConfig
    {"falcon_mamba", true, false, false, false, true}, {"jamba", false, false, false, false, false},  // JambaConfig
};

const TypeFacts* facts_of(const std::string& type) {
  for (const auto& f : kFacts)
    if (type == f.type) return &f;
  return nullptr;
}

class PartsReader {
 public:
  PartsReader(HfReader& r, Model& m) : r_(r), m_(m), facts_(facts_of(r.model_type())) {}

  void read() {
    read_core();
    if (r_.failed()) return;
    read_layout();
    if (r_.failed()) return;
    if (m_.count_layers(MixerKind::kAttention) + m_.count_layers(MixerKind::kMla) > 0) read_attention();
    if (m_.count_layers(FfnKind::kNone) < m_.num_layers()) read_mlp();
    if (!r_.failed()) read_moe();
  }

 private:
  // A default the configuration class of a known type supplies is not an assumption; for an unknown
  // model_type it is, and the user is told.
  void assume(const std::string& what) {
    if (facts_ == nullptr) m_.assumptions.push_back(what);
  }
  const char* key(std::initializer_list<const char*> keys) {
    const char* k = r_.first_of(keys);
    return k != nullptr ? k : *keys.begin();
  }

  void read_core() {
    hidden_key_ = key({"hidden_size", "n_embd", "d_model"});
    m_.hidden = r_.req_int(hidden_key_);
    m_.vocab = r_.req_int("vocab_size");
    layers_ = r_.req_layers(key({"num_hidden_layers", "n_layer", "num_layers"}));
    m_.max_position = r_.int32_or(key({"max_position_embeddings", "n_positions"}), 0);
    m_.mtp_layers = r_.int32_or("num_nextn_predict_layers", r_.int32_or("mtp_num_hidden_layers", 0));
    if (r_.has("tie_word_embeddings")) {
      m_.tied_embeddings = r_.bool_or("tie_word_embeddings", false);
    } else {
      m_.tied_embeddings = facts_ != nullptr && facts_->tied;
      assume("no `tie_word_embeddings`: untied input and output embeddings");
    }
  }

  // Which mixer each layer has: attention, Mamba (pure SSM or a hybrid layout), MLA.
  void read_layout() {
    read_ssm();
    m_.layers = layers_from_pattern(layers_, {}, {}, 0, false);
    if (r_.failed()) return;
    const bool attention = r_.has("num_attention_heads") || r_.has("n_head");
    if (r_.has("hybrid_override_pattern")) {
      size_t bad = 0;
      auto built = layers_from_hybrid(r_.opt_str("hybrid_override_pattern").value_or(""), &bad);
      if (!built || static_cast<int>(built->size()) != layers_)
        return r_.fail_at("hybrid_override_pattern",
                          "`" + r_.prefix() + "hybrid_override_pattern` must have one of M, *, -, E per layer");
      m_.layers = std::move(*built);
    } else if (auto types = r_.opt_str_list("layers_block_type")) {
      if (static_cast<int>(types->size()) != layers_)
        return r_.fail_at("layers_block_type", "`" + r_.prefix() + "layers_block_type` has " +
                                                   std::to_string(types->size()) + " entries for " +
                                                   std::to_string(layers_) + " layers");
      for (size_t i = 0; i < types->size(); ++i) {
        const std::string& t = (*types)[i];
        if (t != "attention" && t != "mamba")
          return r_.fail_at("layers_block_type",
                            "`" + r_.prefix() + "layers_block_type` has '" + t + "'; understood: attention, mamba");
        m_.layers[i].mixer = t == "mamba" ? MixerKind::kMamba2 : MixerKind::kAttention;
      }
    } else if (ssm_ && (r_.has("attn_layer_period") || r_.model_type() == "jamba")) {
      // JambaConfig.layers_block_type: attention where i % attn_layer_period == attn_layer_offset.
      const int period = r_.int32_or("attn_layer_period", 8);
      const int offset = r_.int32_or("attn_layer_offset", 4);
      if (period < 1) return r_.fail_at("attn_layer_period", "`attn_layer_period` must be at least 1");
      for (int i = 0; i < layers_; ++i)
        m_.layers[static_cast<size_t>(i)].mixer = i % period == offset ? MixerKind::kAttention : MixerKind::kMamba2;
    } else if (ssm_) {
      if (attention && (facts_ == nullptr || !facts_->ssm_only))
        return r_.fail_at("num_attention_heads", "config.json has Mamba fields and attention heads but no layer layout",
                          "give `layers_block_type` or `attn_layer_period` / `attn_layer_offset`");
      for (auto& l : m_.layers) l = {MixerKind::kMamba2, 0, FfnKind::kNone};  // MambaBlock: mixer + norm
    }
    if (r_.has("kv_lora_rank"))
      for (auto& l : m_.layers)
        if (l.mixer == MixerKind::kAttention) l.mixer = MixerKind::kMla;
  }

  void read_ssm() {
    auto& s = m_.mamba;
    if (r_.has("num_heads") && r_.has("n_groups") && r_.has("state_size")) {  // Mamba2Config
      ssm_ = true;
      s.version = 2;
      s.heads = r_.req_int32("num_heads");
      s.head_dim = r_.req_int32("head_dim");
      s.groups = r_.req_int32("n_groups");
      s.state = r_.req_int32("state_size");
      s.conv_kernel = r_.int32_or("conv_kernel", 4);
      return;
    }
    const bool jamba = r_.has("mamba_d_state") || r_.has("mamba_dt_rank") || r_.has("mamba_expand");
    const bool mamba1 = r_.has("time_step_rank") || r_.has("state_size") || (facts_ != nullptr && facts_->ssm_only);
    if (!jamba && !mamba1 && r_.model_type() != "jamba") return;
    ssm_ = true;
    s.version = 1;
    s.head_dim = 1;
    s.groups = 1;
    int64_t inner = 0;
    if (jamba || r_.model_type() == "jamba") {
      s.state = r_.int32_or("mamba_d_state", 16);
      s.conv_kernel = r_.int32_or("mamba_d_conv", 4);
      inner = mul_sat(r_.int_or("mamba_expand", 2), m_.hidden);
      s.dt_rank = dt_rank("mamba_dt_rank");
      s.in_proj_bias = r_.bool_or("mamba_proj_bias", false);
      (void)r_.bool_or("mamba_conv_bias", true);
    } else {
      s.state = r_.int32_or("state_size", 16);
      s.conv_kernel = r_.int32_or("conv_kernel", 4);
      // MambaMixer sizes d_inner by intermediate_size (= expand x hidden in MambaConfig).
      inner =
          r_.has("intermediate_size") ? r_.int_or("intermediate_size", 0) : mul_sat(r_.int_or("expand", 2), m_.hidden);
      (void)r_.get("expand");
      s.dt_rank = dt_rank("time_step_rank");
      s.in_proj_bias = r_.bool_or("use_bias", false);
      (void)r_.bool_or("use_conv_bias", true);
    }
    if (inner < 0 || inner > kMaxFfn)
      return r_.fail_at(
          r_.has("mamba_expand") ? "mamba_expand" : (r_.has("intermediate_size") ? "intermediate_size" : "expand"),
          "the Mamba inner width is " + std::to_string(inner) + "; at most " + std::to_string(kMaxFfn));
    s.heads = static_cast<int>(inner);
  }

  // An integer, or "auto" = ceil(hidden / 16) (MambaConfig, JambaConfig).
  int dt_rank(const char* k) {
    if (const Json* v = r_.get(k); v != nullptr && v->is_string()) {
      if (v->get<std::string>() != "auto") {
        r_.fail_at(k, "`" + r_.prefix() + k + "` must be an integer or \"auto\"");
        return 0;
      }
      return static_cast<int>((std::min(m_.hidden, kMaxHidden) + 15) / 16);
    }
    if (!r_.has(k)) return static_cast<int>((std::min(m_.hidden, kMaxHidden) + 15) / 16);
    return r_.int32_or(k, 0);
  }

  void read_attention() {
    auto& a = m_.attn;
    const char* heads_key = key({"num_attention_heads", "n_head"});
    a.heads = r_.req_int32(heads_key);
    if (const char* kv = r_.first_of({"num_key_value_heads", "num_kv_heads"}))
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
    } else {
      a.head_dim = head_dim_or_split(r_, {"head_dim", "attention_head_dim", "kv_channels"}, hidden_key_, m_.hidden,
                                     heads_key, a.heads);
      a.v_head_dim = a.head_dim;
    }
    a.qkv_bias = a.out_bias = r_.bool_or("attention_bias", false);
    if (r_.has("qkv_bias")) a.qkv_bias = r_.bool_or("qkv_bias", false);
    a.qk_norm = r_.bool_or("use_qk_norm", r_.bool_or("qk_layernorm", facts_ != nullptr && facts_->qk_norm));
    // Soft-capping and the query scale change no weight and no GEMM.
    for (const char* k : {"attn_logit_softcapping", "final_logit_softcapping", "query_pre_attn_scalar"})
      (void)r_.get(k);
    read_windows();
  }

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
  WindowPattern window_pattern() {
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

  void read_windows() {
    int window = r_.int32_or(key({"sliding_window", "sliding_window_size"}), 0);
    (void)r_.get("sliding_window_size");
    // Qwen2Config and its VL text configs: use_sliding_window false means no layer slides (the
    // configuration class sets sliding_window to None), whatever sliding_window says.
    if (!r_.bool_or("use_sliding_window", true)) window = 0;
    auto types = layer_types(r_, layers_);
    const WindowPattern pattern = window_pattern();
    if (r_.failed()) return;
    if (types) {
      apply_layer_types(r_, *types, window, m_);
      // A pattern given beside layer_types must say the same.
      for (int i = 0; pattern.given() && i < layers_ && !r_.failed(); ++i)
        if (pattern.sliding(i) != ((*types)[static_cast<size_t>(i)] == "sliding_attention"))
          r_.fail_at("sliding_window_pattern", "`" + r_.prefix() + "sliding_window_pattern` and `" + r_.prefix() +
                                                   "layer_types` disagree at layer " + std::to_string(i));
      return;
    }
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

  void read_mlp() {
    const char* act_key = r_.first_of({"hidden_act", "hidden_activation", "activation_function", "mlp_hidden_act"});
    (void)r_.get("hidden_activation");
    std::string act = act_key != nullptr ? r_.opt_str(act_key).value_or("silu") : "silu";
    if (act_key == nullptr) assume("no `hidden_act`: SwiGLU (silu on gate and up projections)");
    bool gated = act == "silu" || act == "swish";
    if (!gated && act.rfind("gelu", 0) == 0) {
      gated = facts_ != nullptr && facts_->gated_gelu;
      assume("`" + act + "` activation: a plain (not gated) MLP");
    }
    m_.activation = activation_of(act, r_, gated);
    m_.mlp_bias = r_.bool_or("mlp_bias", false);
    const char* ffn_key = key({"intermediate_size", "n_inner", "ffn_hidden_size"});
    if (m_.count_layers(FfnKind::kDense) > 0 && !r_.has(ffn_key) && !r_.has("moe_intermediate_size"))
      m_.ffn = r_.req_int(ffn_key);
    else
      m_.ffn = r_.int_or(ffn_key, 0);
  }

  void read_moe() {
    auto& e = m_.moe;
    const char* ek = r_.first_of({"num_experts", "n_routed_experts", "num_local_experts", "moe_num_experts"});
    if (ek == nullptr) return;
    const int experts = r_.int32_or(ek, 0);
    // JambaConfig: num_experts 1 means the expert layers hold a plain MLP.
    if (r_.failed() || (experts <= 1 && r_.model_type() == "jamba")) return;
    e.experts = experts;
    const char* tk = r_.first_of({"num_experts_per_tok", "experts_per_token", "moe_top_k", "num_selected_experts"});
    e.top_k = r_.req_int32(tk != nullptr ? tk : "num_experts_per_tok");
    const char* fk = r_.first_of({"moe_intermediate_size", "expert_intermediate_size"});
    e.ffn = fk != nullptr ? r_.int_or(fk, 0) : m_.ffn;  // Mixtral, OLMoE, Jamba: intermediate_size per expert
    if (const char* sk = r_.first_of({"shared_expert_intermediate_size", "moe_shared_expert_intermediate_size"})) {
      e.shared_ffn = r_.int_or(sk, 0);
      e.shared_experts = e.shared_ffn > 0 ? 1 : 0;
      e.shared_gate = e.shared_ffn > 0 && std::string_view(sk) == "shared_expert_intermediate_size";  // Qwen2-MoE
    } else if (r_.has("n_shared_experts")) {
      e.shared_experts = r_.int32_or("n_shared_experts", 0);
      e.shared_ffn = mul_sat(e.shared_experts, e.ffn);
    }
    if (r_.failed()) return;
    place_moe_layers();
    if (m_.ffn == 0) m_.ffn = e.ffn;
  }

  // Which layers hold the experts.
  void place_moe_layers() {
    for (auto& l : m_.layers)
      if (l.ffn != FfnKind::kNone) l.ffn = FfnKind::kMoe;
    if (r_.has("first_k_dense_replace") || r_.has("moe_layer_freq")) {
      // DeepseekV2/V3DecoderLayer: MoE where i >= first_k_dense_replace and i % moe_layer_freq == 0.
      const int first = r_.int32_or("first_k_dense_replace", 0);
      const int freq = r_.int32_or("moe_layer_freq", 1);
      for (int i = 0; i < layers_; ++i)
        if (i < first || freq <= 0 || i % freq != 0) dense(i);
    } else if (r_.has("decoder_sparse_step") || r_.has("mlp_only_layers")) {
      apply_qwen_moe_layers(r_, m_);
    } else if (r_.has("expert_layer_period") || r_.model_type() == "jamba") {
      // JambaConfig: experts where i % expert_layer_period == expert_layer_offset.
      const int period = r_.int32_or("expert_layer_period", 2);
      const int offset = r_.int32_or("expert_layer_offset", 1);
      if (period < 1) return r_.fail_at("expert_layer_period", "`expert_layer_period` must be at least 1");
      for (int i = 0; i < layers_; ++i)
        if (i % period != offset) dense(i);
    }
  }
  void dense(int i) {
    auto& l = m_.layers[static_cast<size_t>(i)];
    if (l.ffn != FfnKind::kNone) l.ffn = FfnKind::kDense;
  }

  HfReader& r_;
  Model& m_;
  const TypeFacts* facts_;
  const char* hidden_key_ = "hidden_size";
  int layers_ = 0;
  bool ssm_ = false;
};

}  // namespace

// A field no reader read whose name says it shapes the model is refused, named: sizing without it
// would be silently wrong. Settings that change no weight (routing, dropout, rope, kernels,
// activations of a part) have no such word in their names, or are listed as harmless.
void refuse_unread_shaping_fields(HfReader& r) {
  static constexpr std::string_view kShaping[] = {
      "expert",   "moe",       "mamba",           "ssm",         "lora",      "linear_", "layer_types", "block_type",
      "pattern",  "hybrid",    "cross_attention", "encoder",     "sparse",    "shared",  "window",      "kv_heads",
      "head_dim", "num_heads", "state_size",      "conv_kernel", "recurrent", "rwkv",    "nextn",       "intermediate",
      "ffn",      "_layers",   "n_layer",         "n_head",      "num_local",
  };
  static constexpr std::string_view kHarmless[] = {
      "use_mamba_kernels",
      "mamba_chunk_size",
      "mamba_hidden_act",
      "mamba_dt_min",
      "mamba_dt_max",
      "mamba_dt_limit",
      "mamba_dt_init_floor",
      "mamba_step_rank",
      "output_router_logits",
      "max_window_layers",
      "num_logits_to_keep",
      "cache_implementation",
      "moe_router_topk_scaling_factor",
      "moe_aux_loss_coeff",
      "mamba_ssm_cache_dtype",      // the dtype of the inference SSM cache (Nemotron-H)
      "mamba_ssm_dtype",            // the same for the GDN state (Qwen3.5 / Qwen3.8 text_config)
      "moe_shared_expert_overlap",  // Megatron's shared-expert communication overlap (a schedule)
  };
  // An unread field at false, 0 or empty turns its part off, so it shapes nothing: transformers'
  // PretrainedConfig writes its defaults out (add_cross_attention false, is_encoder_decoder false,
  // tie_encoder_decoder false) into every sub-config.
  const auto off = [](const nlohmann::json& v) {
    return v.is_null() || (v.is_boolean() && !v.get<bool>()) || (v.is_number() && v.get<double>() == 0.0) ||
           ((v.is_array() || v.is_object() || v.is_string()) && v.empty());
  };
  const nlohmann::json& j = r.json();
  if (r.failed() || !j.is_object()) return;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& k = it.key();
    if (off(*it) || r.read_keys().count(k) > 0 || k == "text_config" || k == "vision_config") continue;
    bool harmless = false;
    for (auto h : kHarmless) harmless = harmless || k == h;
    if (harmless) continue;
    for (auto word : kShaping) {
      if (k.find(word) == std::string::npos) continue;
      return r.fail_at(k.c_str(),
                       "config.json field `" + r.prefix() + k +
                           "` changes the architecture and "
                           "recipebook does not understand it (model_type " +
                           r.model_type() + ")",
                       "describe the model in a catalog YAML (docs/catalog-format.md), or remove the field "
                       "if it does not apply");
    }
  }
}

void read_by_parts(HfReader& r, Model& m) { PartsReader(r, m).read(); }

}  // namespace rb
