// Per-family config.json field mappings. Field names and defaults follow the transformers
// configuration classes (src/transformers/models/<type>/configuration_<type>.py) and modeling files;
// each reader was checked against public config.json copies:
//   llama      meta-llama/Meta-Llama-3-8B config.json (attention_bias, mlp_bias, head_dim optional)
//   qwen3_moe  Qwen/Qwen3-30B-A3B config.json (decoder_sparse_step, mlp_only_layers, moe_intermediate_size)
//   qwen3_next Qwen/Qwen3-Next-80B-A3B-Instruct config.json (full_attention_interval 4, linear_* GDN dims,
//              shared_expert_intermediate_size); Qwen3.5 VL configs (text_config.layer_types with
//              linear_attention/full_attention, mtp_num_hidden_layers; vision_config depth, num_heads,
//              out_hidden_size, spatial_merge_size, temporal_patch_size)
//   deepseek   deepseek-ai/DeepSeek-V3 config.json (first_k_dense_replace, moe_layer_freq, n_shared_experts,
//              q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim,
//              num_nextn_predict_layers); Kimi K2 uses the same class (model_type kimi_k2); zai-org/GLM-4.5
//              (glm4_moe: head_dim, attention_bias = q/k/v biases, use_qk_norm)
//   gpt_oss    openai/gpt-oss-20b/120b config.json (num_local_experts, experts_per_token, layer_types,
//              sliding_window 128, attention_bias on q/k/v/o, sinks, expert and router biases)
//   gemma3     google/gemma-3-4b-it config.json, whose text_config names only a few keys: the rest are
//              Gemma3TextConfig defaults (vocab 262208, 8 heads, 4 KV heads, head_dim 256, sliding window
//              pattern 6, tied embeddings); GeGLU (gelu_pytorch_tanh), q/k RMSNorm
//   nemotron_h nvidia/Nemotron-H-8B-Base-8K config.json (hybrid_override_pattern, attention_head_dim,
//              mamba_num_heads, mamba_head_dim, ssm_state_size, n_groups, conv_kernel, mlp_hidden_act relu2;
//              vocab_size defaults to NemotronHConfig's 131072)
//   gpt2       openai-community/gpt2 config.json (n_embd, n_layer, n_head, n_positions, n_inner null =
//              4 x n_embd)
//   gpt_neox   EleutherAI/pythia config.json (use_parallel_residual, rotary_pct; biases on, untied by
//              default)
// The vision towers are hf_config_vision.cpp's.
#include <limits>

#include "recipebook/catalog/hf_config_internal.hpp"
#include "recipebook/catalog/model_layers.hpp"

namespace rb {
namespace {

// hidden, vocab, attention heads / KV heads / head_dim, max positions, tied embeddings.
void read_core(HfReader& r, Model& m, bool tied_default) {
  m.hidden = r.req_int("hidden_size");
  m.vocab = r.req_int("vocab_size");
  m.attn.heads = r.req_int32("num_attention_heads");
  m.attn.kv_heads = r.int32_or("num_key_value_heads", m.attn.heads);
  m.attn.head_dim = head_dim_or_split(r, {"head_dim"}, "hidden_size", m.hidden, "num_attention_heads", m.attn.heads);
  m.attn.v_head_dim = m.attn.head_dim;
  m.max_position = r.int32_or("max_position_embeddings", 0);
  m.tied_embeddings = r.bool_or("tie_word_embeddings", tied_default);
  m.mtp_layers = r.int32_or("num_nextn_predict_layers", r.int32_or("mtp_num_hidden_layers", 0));
  if (!r.failed() && (m.attn.heads == 0 || m.hidden == 0))
    r.fail_with("config.json has zero hidden_size or num_attention_heads");
}

}  // namespace

// `gated`: the MLP has gate and up projections (Llama-style), so silu is SwiGLU and gelu GeGLU.
Activation activation_of(const std::string& act, HfReader& r, bool gated) {
  const bool gelu = act == "gelu_pytorch_tanh" || act == "gelu_new" || act == "gelu" || act == "gelu_fast";
  if (gated && (act == "silu" || act == "swish")) return Activation::kSwiglu;
  if (gated && gelu) return Activation::kGeglu;
  if (!gated && gelu) return Activation::kGelu;
  if (act == "relu2") return Activation::kSquaredRelu;
  r.fail_with("unsupported activation '" + act + "'");
  return Activation::kSwiglu;
}

// layer_types as written ("full_attention", "sliding_attention", "linear_attention"), else nullopt.
// A list of num_hidden_layers + `mtp_layers` entries names the MTP layers' types after the decoder's
// (Step-3.5-Flash: 45 + 3; Megatron-Bridge configuration_step35.py _split_mtp_layer_types): the
// decoder's are kept. Any other length is an error.
std::optional<std::vector<std::string>> layer_types(HfReader& r, int layers, int mtp_layers) {
  auto types = r.opt_str_list("layer_types");
  if (types && mtp_layers > 0 && static_cast<int64_t>(types->size()) == int64_t{layers} + mtp_layers)
    types->resize(static_cast<size_t>(layers));
  if (types && static_cast<int>(types->size()) != layers) {
    r.fail_with("`" + r.prefix() + "layer_types` has " + std::to_string(types->size()) +
                " entries but num_hidden_layers is " + std::to_string(layers));
    return std::nullopt;
  }
  return types;
}

// Applies layer_types: full_attention, sliding_attention (with `window`), linear_attention (GDN).
void apply_layer_types(HfReader& r, const std::vector<std::string>& types, int window, Model& m) {
  for (size_t i = 0; i < types.size(); ++i) {
    LayerSpec& l = m.layers[i];
    if (types[i] == "full_attention") {
      l.mixer = MixerKind::kAttention;
      l.window = 0;
    } else if (types[i] == "sliding_attention") {
      l.mixer = MixerKind::kAttention;
      l.window = window;
    } else if (types[i] == "linear_attention") {
      l.mixer = MixerKind::kGdn;
      l.window = 0;
    } else {
      r.fail_with("unsupported layer type '" + types[i] + "' in `" + r.prefix() + "layer_types`");
      return;
    }
  }
}

// Qwen2/3-MoE and Qwen3-Next: MoE where (i + 1) % decoder_sparse_step == 0 and i is not in
// mlp_only_layers (transformers Qwen3MoeDecoderLayer).
void apply_qwen_moe_layers(HfReader& r, Model& m) {
  const int step = r.int32_or("decoder_sparse_step", 1);
  for (size_t i = 0; i < m.layers.size(); ++i) {
    const bool dense = step <= 0 || (static_cast<int>(i) + 1) % step != 0;
    m.layers[i].ffn = dense ? FfnKind::kDense : FfnKind::kMoe;
  }
  // One pass over the list (its length is the input's, not bounded by the layer count).
  for (int64_t k : r.opt_int_list("mlp_only_layers").value_or(std::vector<int64_t>{}))
    if (k >= 0 && k < static_cast<int64_t>(m.layers.size())) m.layers[static_cast<size_t>(k)].ffn = FfnKind::kDense;
}

int head_dim_or_split(HfReader& r, std::initializer_list<const char*> head_dim_keys, const char* hidden_key,
                      int64_t hidden, const char* heads_key, int heads) {
  for (const char* k : head_dim_keys)
    if (r.has(k)) return r.int32_or(k, 0);
  if (r.failed() || heads <= 0) return 0;
  if (hidden % heads != 0) {
    r.fail_at(hidden_key,
              "`" + r.prefix() + hidden_key + "` (" + std::to_string(hidden) + ") is not a multiple of `" + r.prefix() +
                  heads_key + "` (" + std::to_string(heads) + ") and no head dimension is given",
              "give `head_dim`, or a head count that divides the hidden size");
    return 0;
  }
  const int64_t dim = hidden / heads;
  return dim > std::numeric_limits<int>::max() ? 0 : static_cast<int>(dim);
}

void read_llama_like(HfReader& r, Model& m) {
  const std::string& type = r.model_type();
  read_core(r, m, false);
  m.ffn = r.req_int("intermediate_size");
  const int n = r.req_layers("num_hidden_layers");
  if (r.failed()) return;
  const bool qwen2 = type == "qwen2";
  const bool qwen3 = type == "qwen3" || type == "qwen3_moe";
  // Llama/Mistral: attention_bias puts biases on q, k, v and o; Qwen2 always has q/k/v biases;
  // Qwen3 has attention_bias (q/k/v/o) and always q/k RMSNorm.
  const bool attention_bias = r.bool_or("attention_bias", false);
  m.attn.qkv_bias = qwen2 || attention_bias;
  m.attn.out_bias = !qwen2 && attention_bias;
  m.attn.qk_norm = qwen3;
  m.mlp_bias = r.bool_or("mlp_bias", false);
  if (auto act = r.opt_str("hidden_act")) m.activation = activation_of(*act, r, true);
  m.layers = layers_from_pattern(n, {}, {}, 0, false);
  // Sliding windows: Mistral/Mixtral on every layer; Qwen2/3 only with use_sliding_window, from
  // max_window_layers on (or as layer_types says).
  const int window = r.int32_or("sliding_window", 0);
  auto types = layer_types(r, n);
  if (types) {
    apply_layer_types(r, *types, window, m);
  } else if (type == "mistral" || type == "mixtral") {
    for (auto& l : m.layers) l.window = window;
  } else if ((qwen2 || qwen3) && r.bool_or("use_sliding_window", false)) {
    const int from = r.int32_or("max_window_layers", 0);
    for (int i = from; i < n; ++i) m.layers[static_cast<size_t>(i)].window = window;
  }
  if (type == "mixtral") {
    m.moe.experts = r.req_int32("num_local_experts");
    m.moe.top_k = r.req_int32("num_experts_per_tok");
    m.moe.ffn = m.ffn;
    for (auto& l : m.layers) l.ffn = FfnKind::kMoe;
  } else if (type == "qwen3_moe") {
    m.moe.experts = r.req_int32("num_experts");
    m.moe.top_k = r.req_int32("num_experts_per_tok");
    m.moe.ffn = r.req_int("moe_intermediate_size");
    apply_qwen_moe_layers(r, m);
  }
}

void read_qwen_next(HfReader& r, Model& m) {
  const std::string& type = r.model_type();
  read_core(r, m, false);
  const int n = r.req_layers("num_hidden_layers");
  if (r.failed()) return;
  // Gated attention (q_proj doubled for a sigmoid output gate) and q/k RMSNorm in every Qwen3-Next
  // and Qwen3.5 attention layer (attn_output_gate, default true in the Qwen3.5 configs).
  m.attn.output_gate = r.bool_or("attn_output_gate", true);
  m.attn.qk_norm = true;
  const bool attention_bias = r.bool_or("attention_bias", false);
  m.attn.qkv_bias = attention_bias;
  m.attn.out_bias = attention_bias;
  m.gdn.key_heads = r.req_int32("linear_num_key_heads");
  m.gdn.value_heads = r.req_int32("linear_num_value_heads");
  m.gdn.key_dim = r.req_int32("linear_key_head_dim");
  m.gdn.value_dim = r.req_int32("linear_value_head_dim");
  m.gdn.conv_kernel = r.req_int32("linear_conv_kernel_dim");
  m.layers = layers_from_pattern(n, {}, {}, 0, false);
  if (auto types = layer_types(r, n)) {
    apply_layer_types(r, *types, 0, m);
  } else {
    // transformers Qwen3NextConfig: linear_attention unless (i + 1) % full_attention_interval == 0.
    const int interval = r.int32_or("full_attention_interval", 4);
    for (int i = 0; i < n; ++i)
      m.layers[static_cast<size_t>(i)].mixer =
          interval > 0 && (i + 1) % interval == 0 ? MixerKind::kAttention : MixerKind::kGdn;
  }
  const bool moe = type == "qwen3_next" || type == "qwen3_5_moe" || type == "qwen3_5_moe_text";
  if (!moe) {
    m.ffn = r.req_int("intermediate_size");
    return;
  }
  m.ffn = r.int_or("intermediate_size", 0);
  m.moe.experts = r.req_int32("num_experts");
  m.moe.top_k = r.req_int32("num_experts_per_tok");
  m.moe.ffn = r.req_int("moe_intermediate_size");
  m.moe.shared_ffn = r.int_or("shared_expert_intermediate_size", 0);
  m.moe.shared_experts = m.moe.shared_ffn > 0 ? 1 : 0;
  m.moe.shared_gate = m.moe.shared_ffn > 0;  // Qwen2-MoE style sigmoid gate on the shared expert
  if (m.ffn == 0) m.ffn = m.moe.ffn;         // no dense layer uses it; keep a meaningful value
  apply_qwen_moe_layers(r, m);
}

void read_deepseek(HfReader& r, Model& m) {
  const bool glm = r.model_type() == "glm4_moe";
  read_core(r, m, false);
  m.ffn = r.req_int("intermediate_size");
  const int n = r.req_layers("num_hidden_layers");
  if (r.failed()) return;
  if (glm) {
    // GLM-4.5: GQA with q/k/v biases (attention_bias) and optional q/k norm.
    m.attn.qkv_bias = r.bool_or("attention_bias", false);
    m.attn.qk_norm = r.bool_or("use_qk_norm", false);
    m.layers = layers_from_pattern(n, {MixerKind::kAttention}, {}, 0, false);
  } else {
    m.mla.q_lora_rank = r.int32_or("q_lora_rank", 0);  // null in DeepSeek-V2-Lite: no query compression
    m.mla.kv_lora_rank = r.req_int32("kv_lora_rank");
    m.mla.qk_nope_dim = r.req_int32("qk_nope_head_dim");
    m.mla.qk_rope_dim = r.req_int32("qk_rope_head_dim");
    m.mla.v_dim = r.req_int32("v_head_dim");
    m.attn.head_dim = m.mla.qk_nope_dim + m.mla.qk_rope_dim;
    m.attn.v_head_dim = m.mla.v_dim;
    m.layers = layers_from_pattern(n, {MixerKind::kMla}, {}, 0, false);
  }
  m.moe.experts = r.req_int32("n_routed_experts");
  m.moe.top_k = r.req_int32("num_experts_per_tok");
  m.moe.ffn = r.req_int("moe_intermediate_size");
  m.moe.shared_experts = r.int32_or("n_shared_experts", 0);
  m.moe.shared_ffn = mul_sat(m.moe.shared_experts, m.moe.ffn);
  // transformers DeepseekV3DecoderLayer: MoE where i >= first_k_dense_replace and i % moe_layer_freq == 0.
  const int first_dense = r.int32_or("first_k_dense_replace", 0);
  const int freq = r.int32_or("moe_layer_freq", 1);
  for (int i = 0; i < n; ++i)
    m.layers[static_cast<size_t>(i)].ffn =
        m.moe.experts > 0 && i >= first_dense && freq > 0 && i % freq == 0 ? FfnKind::kMoe : FfnKind::kDense;
}

void read_gpt_oss(HfReader& r, Model& m) {
  read_core(r, m, false);
  m.ffn = r.req_int("intermediate_size");
  const int n = r.req_layers("num_hidden_layers");
  if (r.failed()) return;
  m.attn.qkv_bias = m.attn.out_bias = r.bool_or("attention_bias", true);
  m.attn.sinks = true;
  m.moe.experts = r.req_int32("num_local_experts");
  m.moe.top_k = r.int32_or("num_experts_per_tok", r.int32_or("experts_per_token", 0));
  if (m.moe.top_k == 0)
    r.fail_with("config.json has no `num_experts_per_tok` (needed for model_type gpt_oss)");
  m.moe.ffn = m.ffn;
  m.moe.expert_bias = true;
  m.moe.router_bias = true;
  m.layers = layers_from_pattern(n, {}, {}, 0, true);
  const int window = r.req_int32("sliding_window");
  if (auto types = layer_types(r, n)) {
    apply_layer_types(r, *types, window, m);
  } else {
    for (int i = 0; i < n; ++i) m.layers[static_cast<size_t>(i)].window = (i + 1) % 2 != 0 ? window : 0;
  }
}

void read_gemma3(HfReader& r, Model& m) {
  // Gemma3TextConfig defaults fill what the published config.json leaves out.
  m.hidden = r.int_or("hidden_size", 2304);
  m.vocab = r.int_or("vocab_size", 262208);
  m.ffn = r.int_or("intermediate_size", 9216);
  m.attn.heads = r.int32_or("num_attention_heads", 8);
  m.attn.kv_heads = r.int32_or("num_key_value_heads", 4);
  m.attn.head_dim = r.int32_or("head_dim", 256);
  m.attn.v_head_dim = m.attn.head_dim;
  m.attn.qk_norm = true;
  const bool attention_bias = r.bool_or("attention_bias", false);
  m.attn.qkv_bias = m.attn.out_bias = attention_bias;
  m.max_position = r.int32_or("max_position_embeddings", 131072);
  m.tied_embeddings = r.bool_or("tie_word_embeddings", true);
  m.activation = Activation::kGeglu;  // gelu_pytorch_tanh on a gated MLP
  const int n = r.layers_or("num_hidden_layers", 26);
  const int window = r.int32_or("sliding_window", 4096);
  if (r.failed()) return;
  m.layers = layers_from_pattern(n, {}, {}, 0, false);
  if (auto types = layer_types(r, n)) {
    apply_layer_types(r, *types, window, m);
  } else {
    // Every sliding_window_pattern-th layer is global (transformers Gemma3TextConfig).
    const int pattern = r.int32_or("sliding_window_pattern", 6);
    for (int i = 0; i < n; ++i)
      m.layers[static_cast<size_t>(i)].window = pattern > 0 && (i + 1) % pattern == 0 ? 0 : window;
  }
}

void read_nemotron_h(HfReader& r, Model& m) {
  m.hidden = r.req_int("hidden_size");
  m.vocab = r.int_or("vocab_size", 131072);
  m.ffn = r.req_int("intermediate_size");
  m.attn.heads = r.req_int32("num_attention_heads");
  m.attn.kv_heads = r.int32_or("num_key_value_heads", m.attn.heads);
  m.attn.head_dim = head_dim_or_split(r, {"attention_head_dim", "head_dim"}, "hidden_size", m.hidden,
                                      "num_attention_heads", m.attn.heads);
  m.attn.v_head_dim = m.attn.head_dim;
  m.attn.qkv_bias = m.attn.out_bias = r.bool_or("attention_bias", false);
  m.mlp_bias = r.bool_or("mlp_bias", false);
  m.max_position = r.int32_or("max_position_embeddings", 0);
  m.tied_embeddings = r.bool_or("tie_word_embeddings", false);
  m.activation = activation_of(r.opt_str("mlp_hidden_act").value_or("relu2"), r, false);
  m.mamba.heads = r.req_int32("mamba_num_heads");
  m.mamba.head_dim = r.req_int32("mamba_head_dim");
  m.mamba.state = r.req_int32("ssm_state_size");
  m.mamba.groups = r.int32_or("n_groups", 1);
  m.mamba.conv_kernel = r.int32_or("conv_kernel", 4);
  // Megatron-Core's MambaMixer asserts no in/out projection bias (mamba_mixer.py `assert not bias`).
  if (r.bool_or("mamba_proj_bias", false))
    r.fail_at("mamba_proj_bias", "`" + r.prefix() +
                                     "mamba_proj_bias` true: Mamba-2 projection biases are not modeled "
                                     "(Megatron-Core's MambaMixer builds none)");
  m.mtp_layers = r.int32_or("num_nextn_predict_layers", 0);
  // The MTP block's layers (Nemotron 3 Super: "*E", an attention layer and a MoE layer): sized as one
  // attention mixer with the last layer's FFN (params.cpp mtp_layer_spec), which is what "*E" holds;
  // a Mamba or other layer in it is not modeled.
  if (const auto mtp = r.opt_str("mtp_hybrid_override_pattern");
      mtp && m.mtp_layers > 0 && mtp->find_first_not_of("*E-") != std::string::npos)
    r.fail_at("mtp_hybrid_override_pattern", "`" + r.prefix() + "mtp_hybrid_override_pattern` '" +
                                                 mtp->substr(0, 40) +
                                                 "': an MTP block of other than attention and MLP/MoE layers is not modeled");
  const int n = r.req_layers("num_hidden_layers");
  const auto pattern = r.opt_str("hybrid_override_pattern");
  if (r.failed()) return;
  if (!pattern) {
    r.fail_with("config.json has no `" + r.prefix() +
                "hybrid_override_pattern` (needed for model_type nemotron_h)");
    return;
  }
  size_t bad = 0;
  auto layers = layers_from_hybrid(*pattern, &bad);
  if (!layers || static_cast<int>(layers->size()) != n) {
    r.fail_with("`hybrid_override_pattern` must have one of M, *, -, E per layer (" + std::to_string(n) +
                ")");
    return;
  }
  m.layers = std::move(*layers);
  if (m.count_layers(FfnKind::kMoe) > 0) {
    m.moe.experts = r.req_int32("n_routed_experts");
    m.moe.top_k = r.req_int32("num_experts_per_tok");
    m.moe.ffn = r.req_int("moe_intermediate_size");
    m.moe.shared_ffn = r.int_or("moe_shared_expert_intermediate_size", 0);
    m.moe.shared_experts = m.moe.shared_ffn > 0 ? r.int32_or("n_shared_experts", 1) : 0;
    // Latent MoE (Nemotron 3 Super): NemotronHMOE in the checkpoint's modeling_nemotron_h.py runs the
    // experts on fc1_latent_proj(x) (hidden -> moe_latent_size) and maps back with fc2_latent_proj.
    m.moe.latent = r.int_or("moe_latent_size", 0);
  }
}

void read_gpt2(HfReader& r, Model& m) {
  m.hidden = r.req_int("n_embd");
  m.vocab = r.req_int("vocab_size");
  m.attn.heads = r.req_int32("n_head");
  m.attn.kv_heads = m.attn.heads;
  const int n = r.req_layers("n_layer");
  if (r.failed()) return;
  m.attn.head_dim = m.attn.v_head_dim = head_dim_or_split(r, {}, "n_embd", m.hidden, "n_head", m.attn.heads);
  m.attn.qkv_bias = m.attn.out_bias = true;
  m.ffn = r.int_or("n_inner", mul_sat(4, m.hidden));
  m.mlp_bias = true;
  m.norm = NormKind::kLayer;
  m.activation = Activation::kGelu;
  m.learned_position_embedding = true;
  m.max_position = r.int32_or("n_positions", 1024);
  m.tied_embeddings = r.bool_or("tie_word_embeddings", true);
  m.layers = layers_from_pattern(n, {}, {}, 0, false);
}

void read_gpt_neox(HfReader& r, Model& m) {
  read_core(r, m, false);
  m.ffn = r.req_int("intermediate_size");
  const int n = r.req_layers("num_hidden_layers");
  if (r.failed()) return;
  m.attn.kv_heads = m.attn.heads;
  m.attn.head_dim = m.attn.v_head_dim =
      head_dim_or_split(r, {}, "hidden_size", m.hidden, "num_attention_heads", m.attn.heads);
  m.attn.qkv_bias = m.attn.out_bias = r.bool_or("attention_bias", true);
  m.mlp_bias = true;
  m.norm = NormKind::kLayer;
  m.activation = activation_of(r.opt_str("hidden_act").value_or("gelu"), r, false);
  m.layers = layers_from_pattern(n, {}, {}, 0, false);
}

}  // namespace rb
