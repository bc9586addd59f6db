// The model's numerics (core/model.hpp Numerics) as pretrain_gpt.py arguments, NVIDIA/Megatron-LM at
// d98e8a64 (entry_points.cpp):
//  - arguments.py _add_network_size_args: --rotary-base (type=int, default 10000), --rotary-percent,
//    --use-rope-scaling / --rope-scaling-factor (llama3), --rotary-seq-len-interpolation-factor
//    (type=int: linear scaling), --position-embedding-type yarn with --yarn-original-max-position-
//    embeddings, --yarn-beta-fast, --yarn-beta-slow, --no-yarn-correction-range-round-to-int;
//    _add_mla_args: --rotary-scaling-factor (default 1.0), --mscale, --mscale-all-dim; --rope-type
//    {rope, yarn} and --no-rope-fusion; the rest from TransformerConfig fields: --norm-epsilon
//    (layernorm_epsilon, default 1e-5), (dropout is the layout's, launch_megatron.cpp),
//    --moe-router-score-function, --moe-router-enable-expert-bias, --moe-router-topk-scaling-factor,
//    --moe-router-num-groups, --moe-router-group-topk, --moe-router-pre-softmax.
//  - What the flags cannot say, and so is written as a note instead of a guess:
//    gpt_builders.py passes GPTModel only rope_scaling=args.use_rope_scaling, not the factor, and
//    RotaryEmbedding._apply_scaling fixes factor 8, low_freq_factor 1, high_freq_factor 4 and
//    original_max_position_embeddings 8192 (rotary_pos_embedding.py): other llama3 values cannot be
//    passed. MLATransformerConfig takes original_max_position_embeddings (4096), beta_fast (32) and
//    beta_slow (1) from no argument (argument_utils.py core_transformer_config_from_args copies only
//    fields named as arguments). moe_utils.py topk_routing_with_score_function renormalises sigmoid
//    top-k scores always (top_k > 1), and softmax ones unless --moe-router-pre-softmax.
#include <fmt/format.h>

#include <cmath>

#include "recipebook/emit/launch_script.hpp"

namespace rb {
namespace {

void add(std::vector<std::string>& out, std::string_view flag) { out.emplace_back(flag); }
void add(std::vector<std::string>& out, std::string_view flag, std::string value) {
  out.emplace_back(flag);
  out.push_back(std::move(value));
}

std::string num(double v) { return fmt::format("{:g}", v); }
bool is_integral(double v) { return std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9e15; }
std::string integer(double v) { return fmt::format("{}", static_cast<int64_t>(v)); }
bool equals(const std::optional<double>& v, double want) { return v && std::fabs(*v - want) <= 1e-12 * std::fabs(want); }

void rope_scaling_args(const Model& m, bool mla, MegatronNumerics& out, std::string& position_type) {
  const Numerics& n = m.numerics;
  auto& a = out.args;
  auto& notes = out.notes;
  switch (n.rope_scaling) {
    case RopeScalingKind::kUnknown:
      notes.push_back(mla ? "rope scaling not known: MLA's default YaRN applies with --rotary-scaling-factor 1"
                          : "rope scaling not known: none is passed");
      if (mla) add(a, "--rope-type", "yarn");
      return;
    case RopeScalingKind::kNone:
      if (mla) {
        // MLATransformerConfig defaults to YaRN, and its fused RoPE works only with YaRN.
        add(a, "--rope-type", "rope");
        add(a, "--no-rope-fusion");
      }
      return;
    case RopeScalingKind::kLlama3:
      if (!mla && equals(n.rope_factor, 8) && equals(n.rope_low_freq_factor, 1) &&
          equals(n.rope_high_freq_factor, 4) && n.rope_original_max_position == 8192) {
        add(a, "--use-rope-scaling");
        add(a, "--rope-scaling-factor", num(*n.rope_factor));
      } else {
        notes.push_back(fmt::format(
            "llama3 rope scaling (factor {}, low_freq_factor {}, high_freq_factor {}, original {}) cannot be passed: "
            "pretrain_gpt.py applies only factor 8, 1, 4, 8192, so none is passed",
            n.rope_factor ? num(*n.rope_factor) : "?", n.rope_low_freq_factor ? num(*n.rope_low_freq_factor) : "?",
            n.rope_high_freq_factor ? num(*n.rope_high_freq_factor) : "?",
            n.rope_original_max_position ? std::to_string(*n.rope_original_max_position) : "?"));
      }
      return;
    case RopeScalingKind::kLinear:
      if (!mla && n.rope_factor && is_integral(*n.rope_factor)) {
        add(a, "--rotary-seq-len-interpolation-factor", integer(*n.rope_factor));
      } else {
        notes.push_back("linear rope scaling" + (n.rope_factor ? " by " + num(*n.rope_factor) : std::string()) +
                        " cannot be passed (--rotary-seq-len-interpolation-factor takes an integer): none is passed");
      }
      return;
    case RopeScalingKind::kYarn: {
      if (!n.rope_factor) {
        notes.push_back("yarn rope scaling without a factor: none is passed");
        return;
      }
      if (mla) {
        add(a, "--rope-type", "yarn");
        // MLATransformerConfig's own defaults for what no argument sets.
        if (n.rope_original_max_position && *n.rope_original_max_position != 4096)
          notes.push_back(fmt::format("yarn original_max_position_embeddings {} cannot be passed for MLA (4096 applies)",
                                      *n.rope_original_max_position));
        if (n.yarn_beta_fast && !equals(n.yarn_beta_fast, 32))
          notes.push_back(fmt::format("yarn beta_fast {} cannot be passed for MLA (32 applies)", num(*n.yarn_beta_fast)));
        if (n.yarn_beta_slow && !equals(n.yarn_beta_slow, 1))
          notes.push_back(fmt::format("yarn beta_slow {} cannot be passed for MLA (1 applies)", num(*n.yarn_beta_slow)));
      } else {
        position_type = "yarn";
        if (n.rope_original_max_position)
          add(a, "--yarn-original-max-position-embeddings", std::to_string(*n.rope_original_max_position));
        else
          notes.push_back("yarn original_max_position_embeddings not known: Megatron-LM's 4096 applies");
        if (n.yarn_beta_fast) add(a, "--yarn-beta-fast", num(*n.yarn_beta_fast));
        if (n.yarn_beta_slow) add(a, "--yarn-beta-slow", num(*n.yarn_beta_slow));
        if (n.yarn_truncate && !*n.yarn_truncate) add(a, "--no-yarn-correction-range-round-to-int");
      }
      add(a, "--rotary-scaling-factor", num(*n.rope_factor));
      // Without mscale keys HF's attention factor is 0.1 ln(factor) + 1, which is Megatron's default
      // (mscale 1, mscale_all_dim 0) too.
      if (n.yarn_mscale) add(a, "--mscale", num(*n.yarn_mscale));
      if (n.yarn_mscale_all_dim) add(a, "--mscale-all-dim", num(*n.yarn_mscale_all_dim));
      return;
    }
    case RopeScalingKind::kOther:
      notes.push_back("rope scaling '" + n.rope_scaling_name + "' has no pretrain_gpt.py flag: none is passed");
      return;
  }
}

void router_args(const Model& m, MegatronNumerics& out) {
  const Numerics& n = m.numerics;
  auto& a = out.args;
  auto& notes = out.notes;
  if (n.router_score.empty()) {
    notes.push_back("router score function not known: Megatron-LM's softmax applies");
  } else {
    add(a, "--moe-router-score-function", n.router_score);
  }
  const bool sigmoid = n.router_score == "sigmoid";
  if (n.router_expert_bias) {
    if (*n.router_expert_bias && sigmoid)
      add(a, "--moe-router-enable-expert-bias");
    else if (*n.router_expert_bias)
      notes.push_back("the expert bias needs a sigmoid router in Megatron-LM: not passed");
  } else if (sigmoid) {
    notes.push_back("whether the router has an expert bias (topk_method noaux_tc) is not known: none is passed");
  }
  if (n.router_topk_scaling && !equals(n.router_topk_scaling, 1))
    add(a, "--moe-router-topk-scaling-factor", num(*n.router_topk_scaling));
  else if (!n.router_topk_scaling)
    notes.push_back("routed scaling factor not known: none is passed");
  if (n.router_groups && *n.router_groups > 1) {
    if (n.router_group_topk) {
      add(a, "--moe-router-num-groups", std::to_string(*n.router_groups));
      add(a, "--moe-router-group-topk", std::to_string(*n.router_group_topk));
    } else {
      notes.push_back("group-limited routing without topk_group: not passed");
    }
  }
  // Softmax after top-k renormalises; before it (pre-softmax) does not. TransformerConfig requires
  // pre-softmax at top-1 (a softmax over one score has no gradient).
  if (!sigmoid && !n.router_score.empty()) {
    if (m.moe.top_k == 1 || (n.router_norm_topk && !*n.router_norm_topk)) add(a, "--moe-router-pre-softmax");
    if (m.moe.top_k == 1 && n.router_norm_topk && *n.router_norm_topk)
      notes.push_back("a renormalised top-1 softmax router cannot be passed: --moe-router-pre-softmax is");
  }
  if (sigmoid && n.router_norm_topk && !*n.router_norm_topk && m.moe.top_k > 1)
    notes.push_back("Megatron-LM renormalises sigmoid top-k weights; this model does not (norm_topk_prob false)");
}

// The MLP activation. gpt-oss gates a clamped quick GELU and offsets the linear half (transformers
// modeling_gpt_oss.py GptOssExperts: clamp(gate, max=7) * sigmoid(1.702 gate) * (clamp(up, -7, 7) + 1),
// limit: config.json swiglu_limit 7.0), which Megatron-Bridge builds as activation_func quick_gelu,
// activation_func_clamp_value 7.0, glu_linear_offset 1.0 (models/gpt_oss/gpt_oss_bridge.py L81-84):
// in Megatron-LM --quick-geglu (gated quick_gelu, argument_utils.py core_transformer_config_from_args)
// and the two TransformerConfig fields as flags. --swiglu would build a plain SiLU GLU.
void activation_args(const Model& m, MegatronNumerics& out) {
  if (m.family == "gpt_oss") {
    add(out.activation, "--quick-geglu");
    add(out.activation, "--glu-linear-offset", "1.0");
    add(out.activation, "--activation-func-clamp-value", "7.0");
    return;
  }
  if (m.activation == Activation::kSwiglu) add(out.activation, "--swiglu");
  if (m.activation == Activation::kSquaredRelu) add(out.activation, "--squared-relu");
}

}  // namespace

MegatronNumerics megatron_numerics(const Model& m) {
  MegatronNumerics out;
  const Numerics& n = m.numerics;
  const bool mla = !m.layers.empty() && m.layers.front().mixer == MixerKind::kMla;
  out.position_type = m.learned_position_embedding ? "learned_absolute" : "rope";
  if (!m.learned_position_embedding) {
    if (!n.rope_theta)
      out.notes.push_back("rotary base not known: Megatron-LM's 10000 applies");
    else if (is_integral(*n.rope_theta))
      add(out.args, "--rotary-base", integer(*n.rope_theta));
    else
      out.notes.push_back("rotary base " + num(*n.rope_theta) + " cannot be passed (--rotary-base takes an integer)");
    if (n.rotary_percent && !equals(n.rotary_percent, 1)) add(out.args, "--rotary-percent", num(*n.rotary_percent));
    rope_scaling_args(m, mla, out, out.position_type);
  }
  if (n.norm_eps)
    add(out.args, "--norm-epsilon", num(*n.norm_eps));
  else
    out.notes.push_back("norm epsilon not known: Megatron-LM's 1e-5 applies");
  // Dropout is a training setting: the layout writes it (launch_megatron.cpp), not the model.
  if (m.is_moe()) router_args(m, out);
  activation_args(m, out);
  return out;
}

}  // namespace rb
