// A config.json read by its parts rather than by its model_type: each component is recognized by
// the fields that describe it in the transformers configuration classes, so that a model_type this
// file never heard of is sized when its fields are all understood. What a field-less default
// decided is written to Model::assumptions; a field that changes the architecture and is not
// understood is an error that names it.
//
// Parts and their fields (configuration_<type>.py of each class that introduced them):
//   core       hidden_size | n_embd | d_model, vocab_size, num_hidden_layers | n_layer | num_layers,
//              max_position_embeddings, tie_word_embeddings, num_nextn_predict_layers
//   attention  num_attention_heads, num_key_value_heads | num_attention_groups (multi_query: 1),
//              head_dim, attention_bias, use_qk_norm; MLA by kv_lora_rank (q_lora_rank,
//              qk_nope/rope_head_dim, v_head_dim); a per-head output gate (use_head_wise_attn_gate);
//              sliding_window with layer_types | sliding_window_pattern | use_sliding_window, and the
//              sliding layers' own heads (attention_other_setting); attn_logit_softcapping /
//              final_logit_softcapping / query_pre_attn_scalar (no weights)
//              (hf_config_parts_attention.cpp)
//   MLP        intermediate_size, hidden_act | hidden_activation | activation_function, mlp_bias
//   MoE        num_experts | n_routed_experts | num_local_experts | moe_num_experts, num_experts_per_tok |
//              moe_top_k, moe_intermediate_size, n_shared_experts, shared_expert_intermediate_size |
//              share_expert_dim, use_moe; which layers: first_k_dense_replace + moe_layer_freq
//              (DeepSeek), decoder_sparse_step + mlp_only_layers (Qwen-MoE), expert_layer_period/offset
//              (Jamba), moe_layers_enum (Step-3.5)
//   SSM        Mamba-1: state_size, conv_kernel, intermediate_size | expand, time_step_rank, use_bias,
//              use_conv_bias (MambaConfig, FalconMambaConfig); mamba_d_state, mamba_d_conv,
//              mamba_expand, mamba_dt_rank, mamba_proj_bias, mamba_conv_bias (JambaConfig).
//              Mamba-2: num_heads, head_dim, n_groups, state_size, conv_kernel (Mamba2Config)
//   hybrids    layers_block_type, attn_layer_period/offset (Jamba), hybrid_override_pattern
// Checked against: google/gemma-2-{2b,9b,27b}, microsoft/Phi-3-mini-4k-instruct,
// allenai/OLMoE-1B-7B-0924, tiiuae/falcon-mamba-7b, ai21labs/AI21-Jamba-1.5-Mini,
// stepfun-ai/Step-3.5-Flash (tests/data/hf).
#include "recipebook/catalog/hf_config_parts.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <string_view>

#include "recipebook/catalog/model_layers.hpp"

namespace rb {
namespace {

using Json = nlohmann::json;

constexpr TypeFacts kFacts[] = {
    {"gemma2", true, true, true, false, false},   // Gemma2Config; GeGLU (gelu_pytorch_tanh)
    {"phi3", false, false, false, false, false},  // Phi3Config: fused qkv/gate_up, same sizes
    {"olmoe", false, false, false, true, false},  // OlmoeConfig: every layer MoE, intermediate_size per expert
    {"mamba", true, false, false, false, true},   // MambaConfig
    {"falcon_mamba", true, false, false, false, true},
    {"jamba", false, false, false, false, false},  // JambaConfig
};

const TypeFacts* facts_of(const std::string& type) {
  for (const auto& f : kFacts)
    if (type == f.type) return &f;
  return nullptr;
}

}  // namespace

PartsReader::PartsReader(HfReader& r, Model& m) : r_(r), m_(m), facts_(facts_of(r.model_type())) {}

void PartsReader::read() {
  read_core();
  if (r_.failed()) return;
  read_layout();
  if (r_.failed()) return;
  if (m_.count_layers(MixerKind::kAttention) + m_.count_layers(MixerKind::kMla) > 0) read_attention();
  if (m_.count_layers(FfnKind::kNone) < m_.num_layers()) read_mlp();
  if (!r_.failed()) read_moe();
}

void PartsReader::assume(const std::string& what) {
  if (facts_ == nullptr) m_.assumptions.push_back(what);
}
const char* PartsReader::key(std::initializer_list<const char*> keys) {
  const char* k = r_.first_of(keys);
  return k != nullptr ? k : *keys.begin();
}

void PartsReader::read_core() {
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
void PartsReader::read_layout() {
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

void PartsReader::read_ssm() {
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
int PartsReader::dt_rank(const char* k) {
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

void PartsReader::read_mlp() {
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

void PartsReader::read_moe() {
  auto& e = m_.moe;
  const char* ek = r_.first_of({"num_experts", "n_routed_experts", "num_local_experts", "moe_num_experts"});
  // use_moe false (Step-3.5's switch) keeps every layer dense, whatever the expert fields say.
  if (ek == nullptr || !r_.bool_or("use_moe", true)) return;
  const int experts = r_.int32_or(ek, 0);
  // JambaConfig: num_experts 1 means the expert layers hold a plain MLP.
  if (r_.failed() || (experts <= 1 && r_.model_type() == "jamba")) return;
  e.experts = experts;
  const char* tk = r_.first_of({"num_experts_per_tok", "experts_per_token", "moe_top_k", "num_selected_experts"});
  e.top_k = r_.req_int32(tk != nullptr ? tk : "num_experts_per_tok");
  const char* fk = r_.first_of({"moe_intermediate_size", "expert_intermediate_size"});
  e.ffn = fk != nullptr ? r_.int_or(fk, 0) : m_.ffn;  // Mixtral, OLMoE, Jamba: intermediate_size per expert
  // share_expert_dim: one shared expert of that width, ungated (Step3p5DecoderLayer share_expert).
  if (const char* sk = r_.first_of({"shared_expert_intermediate_size", "moe_shared_expert_intermediate_size",
                                    "share_expert_dim", "share_expert_dims"})) {
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
void PartsReader::place_moe_layers() {
  for (auto& l : m_.layers)
    if (l.ffn != FfnKind::kNone) l.ffn = FfnKind::kMoe;
  if (r_.has("moe_layers_enum")) {
    apply_moe_layers_enum();
  } else if (r_.has("first_k_dense_replace") || r_.has("moe_layer_freq")) {
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
// moe_layers_enum: the MoE layers' indices, "3,4,5" (the published Step-3.5-Flash file) or a list;
// the others are dense (Step3p5DecoderLayer; Megatron-Bridge Step35Config). Step3p5DecoderLayer
// reads no other placement field, so moe_every_n_layer / moe_layer_offset beside it decide nothing.
void PartsReader::apply_moe_layers_enum() {
  const char* k = "moe_layers_enum";
  std::vector<int64_t> ids;
  if (const Json* v = r_.get(k); v != nullptr && v->is_string()) {
    const std::string text = v->get<std::string>();
    size_t i = 0;
    while (i < text.size()) {
      const size_t end = std::min(text.find(',', i), text.size());
      const std::string item = text.substr(i, end - i);
      const size_t b = item.find_first_not_of(' '), e = item.find_last_not_of(' ');
      const std::string digits = b == std::string::npos ? "" : item.substr(b, e - b + 1);
      if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos)
        return r_.fail_at(k, "`" + r_.prefix() + k + "` must be layer indices separated by commas; found '" + item + "'");
      ids.push_back(std::stoll(digits));
      i = end + 1;
    }
  } else if (auto list = r_.opt_int_list(k)) {
    ids = std::move(*list);
  }
  if (r_.failed()) return;
  for (int i = 0; i < layers_; ++i) dense(i);
  for (const int64_t id : ids) {
    if (id >= layers_ && id < int64_t{layers_} + m_.mtp_layers) continue;  // an MTP layer
    if (id < 0 || id >= layers_)
      return r_.fail_at(k, "`" + r_.prefix() + k + "` names layer " + std::to_string(id) + " of " +
                               std::to_string(layers_));
    auto& l = m_.layers[static_cast<size_t>(id)];
    if (l.ffn != FfnKind::kNone) l.ffn = FfnKind::kMoe;
  }
  // The MTP layers follow the decoder's (indices layers_ .. layers_ + mtp - 1): dense unless listed.
  m_.mtp_dense = m_.mtp_layers > 0 && std::none_of(ids.begin(), ids.end(), [&](int64_t id) { return id >= layers_; });
  (void)r_.get("moe_every_n_layer");
  (void)r_.get("moe_layer_offset");
}

void PartsReader::dense(int i) {
  auto& l = m_.layers[static_cast<size_t>(i)];
  if (l.ffn != FfnKind::kNone) l.ffn = FfnKind::kDense;
}

void read_by_parts(HfReader& r, Model& m) { PartsReader(r, m).read(); }

}  // namespace rb
