// What the check functions read: the model's figures the rules use, computed once per model and
// GPU (PreparedRuleModel), and one evaluation's context (RuleContext) with the derived layout
// quantities every rule would otherwise recompute (world size, DP, number of micro batches).
#pragma once

#include <array>
#include <cstdint>

#include "recipebook/core/hardware.hpp"
#include "recipebook/core/layout.hpp"
#include "recipebook/core/model.hpp"
#include "recipebook/rules/facts.hpp"
#include "recipebook/rules/gpu_arch.hpp"
#include "recipebook/rules/rule.hpp"

namespace rb {

struct PreparedRuleModel {
  const Model* model = nullptr;        // never null once prepared; the caller keeps it alive
  const Hardware* hardware = nullptr;  // may be null: kHardware rules are then skipped
  GpuArch arch = GpuArch::kUnknown;
  int nvlink_domain = 0;  // GPUs on one NVLink fabric (hardware), 0 = unknown
  int gpus_per_node = 0;  // hardware default, 0 = unknown

  int layers = 0;
  int attention_layers = 0;  // softmax attention (MHA / GQA, sliding or full)
  int mla_layers = 0;
  int gdn_layers = 0;
  int mamba_layers = 0;
  int moe_layers = 0;
  int dense_ffn_layers = 0;
  int mtp_layers = 0;
  int heads = 0;     // attention heads (0 = no attention shape known)
  int kv_heads = 0;  // query groups of softmax attention
  int experts = 0;
  bool qwen35_moe = false;    // a Qwen3.5 / Qwen3.6 MoE (VL) model (seed 004 pitfall)
  double expert_params = 0;   // routed-expert weights of all MoE layers
  double gated_factor = 1.0;  // 1.5 for SwiGLU/GeGLU MLPs (fc1 is doubled), else 1

  // The error rules the planner evaluates (kLayout and kHardware), as indices into all_rules().
  std::array<uint8_t, kRuleCapacity> fast_rules{};
  int fast_count = 0;
};

PreparedRuleModel prepare_rule_model(const Model& model, const Hardware* hardware);

struct RuleContext {
  const PreparedRuleModel& pm;
  const Workload& workload;
  const Cluster& cluster;
  const Layout& layout;
  const RecordFacts& facts;

  // Derived once per evaluation.
  int64_t world = 0;         // cluster.gpus, else the layout's own product
  int64_t model_parallel = 0;  // tp * pp * cp
  int64_t dp = 0;            // world / (tp pp cp) when that divides, else 0
  int64_t microbatches = 0;  // gbs / (mbs dp) when known and integral, else 0

  RuleContext(const PreparedRuleModel& p, const Workload& w, const Cluster& c, const Layout& l,
              const RecordFacts& f);

  [[nodiscard]] const Model& model() const { return *pm.model; }
  [[nodiscard]] const Hardware* hardware() const { return pm.hardware; }
  // Selective-recompute modules in effect (Megatron's default core_attn when none is named).
  [[nodiscard]] uint32_t recompute_modules() const {
    if (layout.recompute != Recompute::kSelective) return 0;
    return layout.recompute_modules != 0 ? layout.recompute_modules : kRcDefault;
  }
  [[nodiscard]] int mtp_layers() const { return facts.mtp_layers >= 0 ? facts.mtp_layers : pm.mtp_layers; }
  // The uniform (or first/last-stage) pipeline split is valid: what RB-PP-LAYERS checks.
  [[nodiscard]] bool pipeline_split_ok() const;
  // Layers on each middle pipeline stage (uniform split: layers / pp), 0 when not integral.
  [[nodiscard]] int layers_per_stage() const;
  // GPUs that share one NVLink fabric for this cluster (0 = unknown).
  [[nodiscard]] int nvlink_domain() const;
};

}  // namespace rb
