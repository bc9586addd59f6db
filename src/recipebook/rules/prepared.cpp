#include "recipebook/rules/prepared.hpp"

#include "recipebook/core/strings.hpp"
#include "recipebook/rules/pipeline_split.hpp"

namespace rb {

PreparedRuleModel prepare_rule_model(const Model& model, const Hardware* hardware) {
  PreparedRuleModel pm;
  pm.model = &model;
  pm.hardware = hardware;
  if (hardware != nullptr) {
    pm.arch = gpu_arch(*hardware);
    pm.nvlink_domain = hardware->nvlink_domain;
    pm.gpus_per_node = hardware->gpus_per_node;
  }

  pm.layers = model.num_layers();
  pm.attention_layers = model.count_layers(MixerKind::kAttention);
  pm.mla_layers = model.count_layers(MixerKind::kMla);
  pm.gdn_layers = model.count_layers(MixerKind::kGdn);
  pm.mamba_layers = model.count_layers(MixerKind::kMamba2);
  pm.moe_layers = model.count_layers(FfnKind::kMoe);
  pm.dense_ffn_layers = model.count_layers(FfnKind::kDense);
  pm.mtp_layers = model.mtp_layers;
  pm.heads = model.attn.heads;
  pm.kv_heads = model.attn.kv_heads > 0 ? model.attn.kv_heads : model.attn.heads;
  pm.experts = model.moe.experts;
  pm.gated_factor = is_gated(model.activation) ? 1.5 : 1.0;

  // Routed-expert weights: fc1 (2x wide when gated) and fc2 per expert, per MoE layer
  // (Megatron theoretical_memory_usage.py: 2 * h * moe_ffn * E * 3/2 for SwiGLU; a latent MoE's experts
  // are latent wide instead of h, Megatron-Bridge theoretical_memory_utils.py moe_latent_size).
  const int64_t expert_in = model.moe.latent > 0 ? model.moe.latent : model.hidden;
  pm.expert_params = static_cast<double>(pm.moe_layers) * static_cast<double>(model.moe.experts) * 2.0 *
                     pm.gated_factor * static_cast<double>(expert_in) * static_cast<double>(model.moe.ffn);

  // Qwen3.5 / Qwen3.6 MoE: Hugging Face model_type qwen3_5_moe (or the catalog name).
  const std::string fam = fold_name(model.family);
  const std::string name = fold_name(model.name);
  pm.qwen35_moe = model.is_moe() && (fam.rfind("qwen35", 0) == 0 || fam.rfind("qwen36", 0) == 0 ||
                                     name.rfind("qwen35", 0) == 0 || name.rfind("qwen36", 0) == 0);

  const auto rules = all_rules();
  for (size_t i = 0; i < rules.size(); ++i) {
    const Rule& r = rules[i];
    if (r.severity != Severity::kError || r.scope == RuleScope::kRecord) continue;
    if (r.scope == RuleScope::kHardware && hardware == nullptr) continue;
    pm.fast_rules[static_cast<size_t>(pm.fast_count++)] = static_cast<uint8_t>(i);
  }
  return pm;
}

RuleContext::RuleContext(const PreparedRuleModel& p, const Workload& w, const Cluster& c, const Layout& l,
                         const RecordFacts& f)
    : pm(p), workload(w), cluster(c), layout(l), facts(f) {
  model_parallel = static_cast<int64_t>(l.tp) * l.pp * l.cp;
  world = c.gpus > 0 ? c.gpus : static_cast<int64_t>(l.world());
  if (model_parallel > 0 && world > 0 && world % model_parallel == 0) dp = world / model_parallel;
  const int64_t per_step = static_cast<int64_t>(l.mbs) * dp;
  if (w.gbs > 0 && per_step > 0 && w.gbs % per_step == 0) microbatches = w.gbs / per_step;
}

bool RuleContext::pipeline_split_ok() const { return pipeline_split(*this).ok; }

int RuleContext::layers_per_stage() const { return pipeline_split(*this).per_stage; }

int RuleContext::nvlink_domain() const {
  const int per_node = cluster.gpus_per_node > 0 ? cluster.gpus_per_node : pm.gpus_per_node;
  // A domain wider than a node (NVL72) spans nodes; otherwise NVLink ends at the node boundary.
  if (pm.nvlink_domain > 0 && per_node > 0 && pm.nvlink_domain <= pm.gpus_per_node)
    return per_node < pm.nvlink_domain ? per_node : pm.nvlink_domain;
  if (pm.nvlink_domain > 0) return pm.nvlink_domain;
  return per_node;
}

}  // namespace rb
