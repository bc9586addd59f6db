#include "recipebook/catalog/model_yaml.hpp"

#include <algorithm>

#include "recipebook/catalog/model_layers.hpp"
#include "recipebook/catalog/model_limits.hpp"
#include "recipebook/catalog/yaml_read.hpp"

namespace rb {
namespace {

constexpr const char* kRule = "RB-MODEL-VALUE";

void read_attention(YamlReader& r, const YNode* a, int64_t hidden, AttentionDims& out) {
  const std::string p = "architecture.attention";
  out.heads = r.int32(a, "heads", p, 1).value_or(0);
  out.kv_heads = r.int32(a, "kv_heads", p, 1).value_or(out.heads);
  const int64_t default_head_dim = out.heads > 0 ? hidden / out.heads : 0;
  out.head_dim = r.int32(a, "head_dim", p, 1).value_or(static_cast<int>(default_head_dim));
  out.v_head_dim = r.int32(a, "v_head_dim", p, 0).value_or(0);
  out.output_gate = r.boolean(a, "output_gate", p).value_or(false);
  out.head_gate = r.boolean(a, "head_gate", p).value_or(false);
  out.qkv_bias = r.boolean(a, "qkv_bias", p).value_or(false);
  out.out_bias = r.boolean(a, "out_bias", p).value_or(false);
  out.qk_norm = r.boolean(a, "qk_norm", p).value_or(false);
  out.sinks = r.boolean(a, "sinks", p).value_or(false);
  if (a != nullptr && out.heads == 0 && a->get("heads") == nullptr)
    r.error(*a, "`architecture.attention` needs `heads`");
}

// architecture.sliding_attention (Step-3.5 attention_other_setting): the sliding-window layers' own
// heads, KV heads and head dim; every other option is the full layers' (`attention`), as
// hf_config_parts_attention.cpp read_sliding_shape takes it from a config.json.
void read_sliding_attention(YamlReader& r, const YNode* arch, Model& m) {
  const std::string p = "architecture.sliding_attention";
  const YNode* s = r.map(arch, "sliding_attention", "architecture");
  if (s == nullptr) return;
  AttentionDims& d = m.sliding_attn;
  d = m.attn;
  d.heads = r.int32(s, "heads", p, 1).value_or(m.attn.heads);
  d.kv_heads = r.int32(s, "kv_heads", p, 1).value_or(m.attn.kv_heads);
  d.head_dim = r.int32(s, "head_dim", p, 1).value_or(m.attn.head_dim);
  d.v_head_dim = d.head_dim;
  if (d.heads > kMaxHeads || d.head_dim > kMaxHeadDim)  // model_limits.hpp
    r.error(*s, "`" + p + "`: heads must be 1.." + std::to_string(kMaxHeads) + " and head_dim 1.." +
                    std::to_string(kMaxHeadDim));
  else if (d.kv_heads > d.heads || (d.kv_heads > 0 && d.heads % d.kv_heads != 0))
    r.error(*s, "`" + p + ".kv_heads` (" + std::to_string(d.kv_heads) + ") must divide `" + p + ".heads` (" +
                    std::to_string(d.heads) + ")");
  const bool slides = std::any_of(m.layers.begin(), m.layers.end(), [](const LayerSpec& l) { return l.window > 0; });
  if (!slides)
    r.error(*s, "`" + p + "` describes the sliding-window layers, but no layer slides",
            "give `architecture.layers.window_pattern` with a window, or remove it");
}

void read_sections(YamlReader& r, const YNode* arch, Model& m) {
  const std::string p = "architecture";
  if (const YNode* s = r.map(arch, "mla", p)) {
    const std::string q = "architecture.mla";
    m.mla.q_lora_rank = r.int32(s, "q_lora_rank", q).value_or(0);
    m.mla.kv_lora_rank = r.int32(s, "kv_lora_rank", q).value_or(0);
    m.mla.qk_nope_dim = r.int32(s, "qk_nope_dim", q).value_or(0);
    m.mla.qk_rope_dim = r.int32(s, "qk_rope_dim", q).value_or(0);
    m.mla.v_dim = r.int32(s, "v_dim", q).value_or(0);
    // The DSA lightning indexer (model.hpp MlaDims; hf_config_parts_attention.cpp read_indexer).
    m.mla.index_heads = r.int32(s, "index_heads", q).value_or(0);
    m.mla.index_head_dim = r.int32(s, "index_head_dim", q).value_or(0);
    m.mla.index_topk = r.int32(s, "index_topk", q).value_or(0);
    if (m.mla.index_heads > 0 && m.mla.index_head_dim == 0)
      r.error(*s, "`architecture.mla.index_heads` needs `index_head_dim`");
    if (m.mla.index_heads > kMaxHeads || m.mla.index_head_dim > kMaxHeadDim || m.mla.index_topk > kMaxPositions)
      r.error(*s, "`architecture.mla` indexer: index_heads must be at most " + std::to_string(kMaxHeads) +
                      ", index_head_dim " + std::to_string(kMaxHeadDim) + ", index_topk " +
                      std::to_string(kMaxPositions));
  }
  if (const YNode* s = r.map(arch, "gdn", p)) {
    const std::string q = "architecture.gdn";
    m.gdn.key_heads = r.int32(s, "key_heads", q).value_or(0);
    m.gdn.value_heads = r.int32(s, "value_heads", q).value_or(0);
    m.gdn.key_dim = r.int32(s, "key_dim", q).value_or(0);
    m.gdn.value_dim = r.int32(s, "value_dim", q).value_or(0);
    m.gdn.conv_kernel = r.int32(s, "conv_kernel", q).value_or(0);
  }
  if (const YNode* s = r.map(arch, "mamba", p)) {
    const std::string q = "architecture.mamba";
    m.mamba.heads = r.int32(s, "heads", q).value_or(0);
    m.mamba.head_dim = r.int32(s, "head_dim", q).value_or(0);
    m.mamba.state = r.int32(s, "state", q).value_or(0);
    m.mamba.groups = r.int32(s, "groups", q).value_or(0);
    m.mamba.conv_kernel = r.int32(s, "conv_kernel", q).value_or(0);
  }
  if (const YNode* s = r.map(arch, "moe", p)) {
    const std::string q = "architecture.moe";
    m.moe.experts = r.int32(s, "experts", q).value_or(0);
    m.moe.top_k = r.int32(s, "top_k", q).value_or(0);
    m.moe.ffn = r.int64(s, "ffn", q).value_or(0);
    m.moe.shared_experts = r.int32(s, "shared_experts", q).value_or(0);
    m.moe.shared_ffn = r.int64(s, "shared_ffn", q).value_or(0);
    m.moe.latent = r.int64(s, "latent", q).value_or(0);
    m.moe.shared_gate = r.boolean(s, "shared_gate", q).value_or(false);
    m.moe.expert_bias = r.boolean(s, "expert_bias", q).value_or(false);
    m.moe.router_bias = r.boolean(s, "router_bias", q).value_or(false);
    if (m.moe.experts > 0 && m.moe.top_k == 0) r.error(*s, "`architecture.moe` has experts but no `top_k`");
  }
  if (const YNode* s = r.map(arch, "vision", p)) {
    const std::string q = "architecture.vision";
    m.vision.layers = r.int32(s, "layers", q).value_or(0);
    m.vision.hidden = r.int32(s, "hidden", q).value_or(0);
    m.vision.ffn = r.int32(s, "ffn", q).value_or(0);
    m.vision.heads = r.int32(s, "heads", q).value_or(0);
    m.vision.patch = r.int32(s, "patch", q).value_or(0);
    m.vision.temporal_patch = r.int32(s, "temporal_patch", q).value_or(0);
    m.vision.spatial_merge = r.int32(s, "spatial_merge", q).value_or(0);
    m.vision.out_hidden = r.int32(s, "out_hidden", q).value_or(0);
  }
}

// architecture.numerics (catalog/schema/model.schema.yaml): each value as the model's config.json
// gives it; one not written stays unknown (core/model.hpp Numerics).
void read_numerics(YamlReader& r, const YNode* arch, Model& m) {
  const std::string p = "architecture.numerics";
  const YNode* s = r.map(arch, "numerics", "architecture");
  if (s == nullptr) return;
  Numerics& n = m.numerics;
  n.rope_theta = r.number(s, "rope_theta", p);
  n.rotary_percent = r.number(s, "rotary_percent", p);
  n.norm_eps = r.number(s, "norm_eps", p);
  n.source = r.string(s, "source", p).value_or("");
  if (const YNode* rs = s->get("rope_scaling"); rs != nullptr && !rs->is_null()) {
    if (rs->is_scalar() && rs->text == "none") {
      n.rope_scaling = RopeScalingKind::kNone;
    } else if (const YNode* o = r.map(s, "rope_scaling", p)) {
      const std::string q = p + ".rope_scaling";
      n.rope_scaling_name = r.string(o, "type", q).value_or("");
      n.rope_scaling = n.rope_scaling_name == "llama3" ? RopeScalingKind::kLlama3
                       : n.rope_scaling_name == "yarn" ? RopeScalingKind::kYarn
                       : n.rope_scaling_name == "linear" ? RopeScalingKind::kLinear
                                                          : RopeScalingKind::kOther;
      n.rope_factor = r.number(o, "factor", q);
      n.rope_low_freq_factor = r.number(o, "low_freq_factor", q);
      n.rope_high_freq_factor = r.number(o, "high_freq_factor", q);
      n.rope_original_max_position = r.int32(o, "original_max_position", q, 1);
      n.yarn_beta_fast = r.number(o, "beta_fast", q);
      n.yarn_beta_slow = r.number(o, "beta_slow", q);
      n.yarn_mscale = r.number(o, "mscale", q);
      n.yarn_mscale_all_dim = r.number(o, "mscale_all_dim", q);
      n.yarn_truncate = r.boolean(o, "truncate", q);
    }
  }
  if (const YNode* o = r.map(s, "router", p)) {
    const std::string q = p + ".router";
    n.router_score = r.string(o, "score", q).value_or("");
    if (!n.router_score.empty() && n.router_score != "softmax" && n.router_score != "sigmoid")
      r.error(*o->get("score"), "`" + q + ".score` is '" + n.router_score + "'; allowed: softmax, sigmoid");
    n.router_expert_bias = r.boolean(o, "expert_bias", q);
    n.router_topk_scaling = r.number(o, "topk_scaling", q);
    n.router_groups = r.int32(o, "groups", q, 1);
    n.router_group_topk = r.int32(o, "group_topk", q, 1);
    n.router_norm_topk = r.boolean(o, "norm_topk", q);
  }
}

// A layer kind the pattern uses must have its dimensions.
void check_layer_dims(YamlReader& r, const YNode& at, const Model& m, const YNode* arch) {
  bool used[5] = {false, false, false, false, false};
  for (const auto& l : m.layers) used[static_cast<int>(l.mixer)] = true;
  auto need = [&](MixerKind k, const char* section) {
    if (used[static_cast<int>(k)] && (arch == nullptr || arch->get(section) == nullptr))
      r.error(at, std::string("the layers use ") + std::string(mixer_name(k)) + " but `architecture." +
                      section + "` is missing");
  };
  need(MixerKind::kAttention, "attention");
  need(MixerKind::kMla, "mla");
  need(MixerKind::kGdn, "gdn");
  need(MixerKind::kMamba2, "mamba");
  if (used[static_cast<int>(MixerKind::kMla)] && m.attn.heads == 0)
    r.error(at, "the layers use mla but `architecture.attention.heads` is missing");
  if (m.count_layers(FfnKind::kMoe) > 0 && m.moe.experts == 0)
    r.error(at, "the layers use MoE but `architecture.moe` has no experts");
}

void read_layers(YamlReader& r, const YNode* arch, Model& m) {
  const std::string p = "architecture.layers";
  const YNode* layers = r.map(arch, "layers", "architecture");
  if (layers == nullptr) {
    if (arch != nullptr) r.error(*arch, "`architecture.layers` is missing", "add `layers: {count: N}`");
    return;
  }
  const auto count = r.int32(layers, "count", p, 1);
  if (!count) {
    if (layers->get("count") == nullptr) r.error(*layers, "`architecture.layers.count` is missing");
    return;
  }
  if (*count > kMaxLayers) {  // before any layer list is built (model_limits.hpp)
    r.error(*layers->get("count"), "`" + p + ".count` is " + std::to_string(*count) + "; a model has 1 to " +
                                       std::to_string(kMaxLayers) + " layers");
    return;
  }
  if (const YNode* hybrid = layers->get("hybrid_pattern"); hybrid != nullptr && !hybrid->is_null()) {
    const auto text = r.string(layers, "hybrid_pattern", p);
    if (!text) return;
    size_t bad = 0;
    auto built = layers_from_hybrid(*text, &bad);
    if (!built) {
      r.error(*hybrid, "`" + p + ".hybrid_pattern` has '" + std::string(1, (*text)[bad]) + "' at index " +
                           std::to_string(bad) +
                           "; allowed: M (mamba2), * (attention), - (dense MLP), E (MoE)");
      return;
    }
    if (static_cast<int>(built->size()) != *count) {
      r.error(*hybrid, "`" + p + ".hybrid_pattern` has " + std::to_string(built->size()) +
                           " layers but `count` is " + std::to_string(*count));
      return;
    }
    m.layers = std::move(*built);
    return;
  }
  std::vector<MixerKind> mixers;
  const bool mla_only = arch->get("mla") != nullptr && arch->get("attention") == nullptr;
  if (const YNode* mp = layers->get("mixer_pattern"); mp != nullptr && !mp->is_null()) {
    const auto names = r.string_list(layers, "mixer_pattern", p);
    for (size_t i = 0; i < names.size(); ++i) {
      if (auto k = parse_mixer(names[i])) {
        mixers.push_back(*k);
      } else {
        r.error(mp->is_seq() && i < mp->seq.size() ? mp->seq[i] : *mp,
                "`" + p + ".mixer_pattern[" + std::to_string(i) + "]` is '" + names[i] +
                    "'; allowed: attention, mla, gdn, mamba2, none");
      }
    }
    if (mp->is_seq() && mp->seq.empty()) r.error(*mp, "`" + p + ".mixer_pattern` is empty");
  } else {
    mixers.push_back(mla_only ? MixerKind::kMla : MixerKind::kAttention);
  }
  std::vector<int> windows;
  if (const YNode* wp = layers->get("window_pattern"); wp != nullptr && !wp->is_null()) {
    if (!wp->is_seq()) {
      r.error(*wp, "`" + p + ".window_pattern` must be a list of window sizes (0 = full attention)");
    } else {
      for (size_t i = 0; i < wp->seq.size(); ++i) {
        const auto w = wp->seq[i].as_int();
        if (!w || *w < 0 || *w > 1'000'000'000) {
          r.error(wp->seq[i], "`" + p + ".window_pattern[" + std::to_string(i) +
                                  "]` must be a window size in tokens (0 = full attention)");
          continue;
        }
        windows.push_back(static_cast<int>(*w));
      }
    }
  }
  const int first_dense = r.int32(layers, "first_dense", p).value_or(0);
  if (first_dense > *count) r.error(*layers->get("first_dense"), "`" + p + ".first_dense` exceeds `count`");
  m.layers = layers_from_pattern(*count, mixers, windows, first_dense, m.moe.experts > 0);
}

// The YAML path of each value check_architecture can be about.
std::string yaml_key(ArchKey k) {
  switch (k) {
    case ArchKey::kHidden: return "architecture.hidden";
    case ArchKey::kVocab: return "architecture.vocab";
    case ArchKey::kLayers: return "architecture.layers.count";
    case ArchKey::kFfn: return "architecture.ffn";
    case ArchKey::kMaxPosition: return "architecture.max_position";
    case ArchKey::kMtpLayers: return "architecture.mtp_layers";
    case ArchKey::kHeads: return "architecture.attention.heads";
    case ArchKey::kKvHeads: return "architecture.attention.kv_heads";
    case ArchKey::kHeadDim: return "architecture.attention.head_dim";
    case ArchKey::kVHeadDim: return "architecture.attention.v_head_dim";
    case ArchKey::kWindow: return "architecture.layers.window_pattern";
    case ArchKey::kMlaQLora: return "architecture.mla.q_lora_rank";
    case ArchKey::kMlaKvLora: return "architecture.mla.kv_lora_rank";
    case ArchKey::kMlaQkNope: return "architecture.mla.qk_nope_dim";
    case ArchKey::kMlaQkRope: return "architecture.mla.qk_rope_dim";
    case ArchKey::kMlaV: return "architecture.mla.v_dim";
    case ArchKey::kGdnKeyHeads: return "architecture.gdn.key_heads";
    case ArchKey::kGdnValueHeads: return "architecture.gdn.value_heads";
    case ArchKey::kGdnKeyDim: return "architecture.gdn.key_dim";
    case ArchKey::kGdnValueDim: return "architecture.gdn.value_dim";
    case ArchKey::kGdnConv: return "architecture.gdn.conv_kernel";
    case ArchKey::kMambaHeads: return "architecture.mamba.heads";
    case ArchKey::kMambaHeadDim: return "architecture.mamba.head_dim";
    case ArchKey::kMambaState: return "architecture.mamba.state";
    case ArchKey::kMambaGroups: return "architecture.mamba.groups";
    case ArchKey::kMambaConv: return "architecture.mamba.conv_kernel";
    case ArchKey::kMambaDtRank: return "architecture.mamba.dt_rank";
    case ArchKey::kExperts: return "architecture.moe.experts";
    case ArchKey::kTopK: return "architecture.moe.top_k";
    case ArchKey::kMoeFfn: return "architecture.moe.ffn";
    case ArchKey::kSharedExperts: return "architecture.moe.shared_experts";
    case ArchKey::kSharedFfn: return "architecture.moe.shared_ffn";
    case ArchKey::kMoeLatent: return "architecture.moe.latent";
    case ArchKey::kVisionLayers: return "architecture.vision.layers";
    case ArchKey::kVisionHidden: return "architecture.vision.hidden";
    case ArchKey::kVisionFfn: return "architecture.vision.ffn";
    case ArchKey::kVisionHeads: return "architecture.vision.heads";
    case ArchKey::kVisionPatch: return "architecture.vision.patch";
  }
  return "architecture";
}

// The checks both loaders share (model_limits.hpp: the frameworks' divisibility and range rules and
// the size bounds), reported at the deepest node of the key's path that the file has. Also: without
// a head_dim, the hidden size must split evenly over the heads.
void check_architecture_values(YamlReader& r, const YNode& doc, const Model& m) {
  const YNode* arch = doc.get("architecture");
  const YNode* attn = arch != nullptr ? arch->get("attention") : nullptr;
  if (attn != nullptr && attn->is_map() && attn->get("head_dim") == nullptr && m.attn.heads > 0 &&
      m.hidden % m.attn.heads != 0) {
    r.error(*attn, "`architecture.hidden` (" + std::to_string(m.hidden) +
                       ") is not a multiple of `architecture.attention.heads` (" + std::to_string(m.attn.heads) +
                       ") and `architecture.attention.head_dim` is not given");
    return;
  }
  const auto problem = check_architecture(m, yaml_key);
  if (!problem) return;
  const YNode* at = &doc;
  std::string path = yaml_key(problem->key);
  for (size_t start = 0; at != nullptr;) {
    const size_t dot = path.find('.', start);
    const YNode* next = at->is_map() ? at->get(path.substr(start, dot - start)) : nullptr;
    if (next == nullptr) break;
    at = next;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  r.error(*at, problem->message);
}

}  // namespace

std::optional<Model> model_from_yaml(const YNode& doc, Diagnostics& diags) {
  YamlReader r(diags, kRule);
  Model m;
  if (!doc.is_map()) {
    r.error(doc, "a model file must be a map, found " + doc.type_name());
    return std::nullopt;
  }
  m.name = r.string(&doc, "name", "").value_or("");
  if (m.name.empty()) r.error(doc, "the model has no `name`");
  m.hf_id = r.string(&doc, "hf_id", "").value_or("");
  m.family = r.string(&doc, "family", "").value_or("");
  m.source = r.string(&doc, "source", "").value_or("");
  m.aliases = r.string_list(&doc, "aliases", "");
  if (const YNode* pub = r.map(&doc, "published", "")) {
    m.published_total_params = r.int64(pub, "total_params", "published").value_or(0);
    m.published_active_params = r.int64(pub, "active_params", "published").value_or(0);
  }
  const YNode* arch = r.map(&doc, "architecture", "");
  if (arch == nullptr) {
    m.has_architecture = false;
    if (r.failed()) return std::nullopt;
    return m;
  }
  const std::string p = "architecture";
  m.hidden = r.int64(arch, "hidden", p, 1).value_or(0);
  m.vocab = r.int64(arch, "vocab", p, 1).value_or(0);
  if (arch->get("hidden") == nullptr) r.error(*arch, "`architecture.hidden` is missing");
  if (arch->get("vocab") == nullptr) r.error(*arch, "`architecture.vocab` is missing");
  m.ffn = r.int64(arch, "ffn", p).value_or(0);
  m.tied_embeddings = r.boolean(arch, "tied_embeddings", p).value_or(false);
  m.mlp_bias = r.boolean(arch, "mlp_bias", p).value_or(false);
  m.learned_position_embedding = r.boolean(arch, "learned_position_embedding", p).value_or(false);
  m.max_position = r.int32(arch, "max_position", p).value_or(0);
  m.mtp_layers = r.int32(arch, "mtp_layers", p).value_or(0);
  m.mtp_dense = r.boolean(arch, "mtp_dense", p).value_or(false);
  if (m.mtp_dense && m.mtp_layers == 0) r.error(*arch->get("mtp_dense"), "`architecture.mtp_dense` needs `mtp_layers`");
  if (auto norm = r.string(arch, "norm", p)) {
    if (*norm == "rms")
      m.norm = NormKind::kRms;
    else if (*norm == "layer")
      m.norm = NormKind::kLayer;
    else
      r.error(*arch->get("norm"), "`architecture.norm` is '" + *norm + "'; allowed: rms, layer");
  }
  if (auto act = r.string(arch, "activation", p)) {
    if (*act == "swiglu")
      m.activation = Activation::kSwiglu;
    else if (*act == "geglu")
      m.activation = Activation::kGeglu;
    else if (*act == "gelu")
      m.activation = Activation::kGelu;
    else if (*act == "squared_relu")
      m.activation = Activation::kSquaredRelu;
    else
      r.error(*arch->get("activation"),
              "`architecture.activation` is '" + *act + "'; allowed: swiglu, geglu, gelu, squared_relu");
  }
  const YNode* attn = r.map(arch, "attention", p);
  read_attention(r, attn, m.hidden, m.attn);
  if (attn == nullptr && arch->get("mla") == nullptr && arch->get("mamba") == nullptr)
    r.error(*arch, "`architecture` needs `attention` (or `mla`)");
  read_sections(r, arch, m);
  read_numerics(r, arch, m);
  read_layers(r, arch, m);
  read_sliding_attention(r, arch, m);  // after the layers: it needs a sliding one
  check_layer_dims(r, *arch, m, arch);
  if (r.failed()) return std::nullopt;
  check_architecture_values(r, doc, m);
  if (r.failed()) return std::nullopt;
  return m;
}

}  // namespace rb
