#include "recipebook/estimate/stages.hpp"

namespace rb {

namespace {

// The stage boundaries from the layers per virtual stage; ok when every stage has at least
// `min_layers` and together they hold the model's layers.
// (In place: plan_stages runs once per estimate, millions of times in a search.)
void close_plan(StagePlan& plan, const std::array<int, kMaxVirtualStages>& count, int num_layers, int min_layers) {
  const int stages = plan.virtual_stages();
  plan.begin[0] = 0;
  for (int c = 0; c < stages; ++c) {
    if (count[static_cast<size_t>(c)] < min_layers) return;
    plan.begin[static_cast<size_t>(c + 1)] = plan.begin[static_cast<size_t>(c)] + count[static_cast<size_t>(c)];
  }
  plan.ok = plan.begin[static_cast<size_t>(stages)] == num_layers;
}

// An explicit layout (megatron/core/transformer/pipeline_parallel_layer_layout.py
// get_num_layers_to_build / get_layer_offset: decoder layers numbered in virtual-stage order).
void plan_explicit(StagePlan& plan, int num_layers, const Layout& l) {
  const int stages = plan.virtual_stages();
  if (static_cast<int>(l.pipeline_layout.size()) != stages || stages > kMaxVirtualStages) return;
  std::array<int, kMaxVirtualStages> count{};
  for (int c = 0; c < stages; ++c) {
    const PipelineStage& s = l.pipeline_layout[static_cast<size_t>(c)];
    count[static_cast<size_t>(c)] = s.decoder;
    if (s.embedding) plan.embedding_stage = c;
    if (s.loss) plan.loss_stage = c;
    if (s.mtp > 0) plan.mtp_stage = c;
  }
  close_plan(plan, count, num_layers, /*min_layers=*/0);
  plan.uneven = true;
}

}  // namespace

StagePlan plan_stages(int num_layers, const Layout& l) {
  StagePlan plan;
  plan.pp = l.pp;
  plan.vp = l.vp;
  const int stages = l.pp * l.vp;
  plan.loss_stage = plan.mtp_stage = stages - 1;
  if (!l.pipeline_layout.empty()) {
    if (l.pp >= 1 && l.vp >= 1 && l.first_stage_layers == 0 && l.last_stage_layers == 0 && !l.account_for_embedding &&
        !l.account_for_loss)
      plan_explicit(plan, num_layers, l);
    return plan;
  }
  const int accounted = (l.account_for_embedding ? 1 : 0) + (l.account_for_loss ? 1 : 0);
  if (l.pp < 1 || l.vp < 1 || stages > kMaxVirtualStages || num_layers + accounted < stages) return plan;

  // Layers per virtual stage, rank by rank: chunk k of rank r is virtual stage k * pp + r.
  std::array<int, kMaxVirtualStages> count{};
  if (accounted > 0) {
    // Megatron-Core (transformer_config.py, transformer_block.py): the embedding and the loss count as
    // layers of the first and last virtual stages, the total splits evenly, and those two stages build
    // one decoder layer less — none at one layer per stage (allowed). Not combinable with first/last
    // stage counts.
    const int total = num_layers + accounted;
    if (l.first_stage_layers > 0 || l.last_stage_layers > 0 || total % stages != 0) return plan;
    for (int c = 0; c < stages; ++c) count[static_cast<size_t>(c)] = total / stages;
    count[0] -= l.account_for_embedding ? 1 : 0;
    count[static_cast<size_t>(stages - 1)] -= l.account_for_loss ? 1 : 0;
    close_plan(plan, count, num_layers, /*min_layers=*/0);
    return plan;
  }
  const bool first_set = l.first_stage_layers > 0 && l.pp > 1;
  const bool last_set = l.last_stage_layers > 0 && l.pp > 1;
  int rest = num_layers;
  int middle_ranks = l.pp;
  if (first_set) {
    if (l.first_stage_layers % l.vp != 0) return plan;
    rest -= l.first_stage_layers;
    --middle_ranks;
  }
  if (last_set) {
    if (l.last_stage_layers % l.vp != 0) return plan;
    rest -= l.last_stage_layers;
    --middle_ranks;
  }
  if (rest < 0 || (middle_ranks > 0 && rest < middle_ranks * l.vp) || (middle_ranks == 0 && rest != 0)) return plan;

  const int middle_chunks = middle_ranks * l.vp;
  const int base = middle_chunks > 0 ? rest / middle_chunks : 0;
  int extra = middle_chunks > 0 ? rest % middle_chunks : 0;
  plan.uneven = extra != 0;
  for (int k = 0; k < l.vp; ++k) {
    for (int r = 0; r < l.pp; ++r) {
      const bool is_first = r == 0 && first_set;
      const bool is_last = r == l.pp - 1 && last_set;
      count[static_cast<size_t>(k * l.pp + r)] =
          is_first ? l.first_stage_layers / l.vp : is_last ? l.last_stage_layers / l.vp : base;
    }
  }
  // The remainder (fewer than the middle chunks) goes one layer per chunk to the inner ranks first
  // (they hold neither the embedding nor the LM head), then to the outer ones.
  for (int pass = 0; pass < 2 && extra > 0; ++pass) {
    for (int k = 0; k < l.vp && extra > 0; ++k) {
      for (int r = 0; r < l.pp && extra > 0; ++r) {
        const bool set = (r == 0 && first_set) || (r == l.pp - 1 && last_set);
        const bool outer = r == 0 || r == l.pp - 1;
        if (set || outer != (pass == 1)) continue;
        ++count[static_cast<size_t>(k * l.pp + r)];
        --extra;
      }
    }
  }
  close_plan(plan, count, num_layers, /*min_layers=*/1);
  return plan;
}

Groups place_groups(const Layout& l) {
  Groups g;
  g.tp = {l.tp, 1};
  g.cp = {l.cp, l.tp};
  g.dp_cp = {l.dp * l.cp, l.tp};  // the distributed optimizer's group (data_parallel_group_with_cp)
  const int etp = l.etp > 0 ? l.etp : 1;
  g.ep = {l.ep, etp};
  const int edp = l.edp();
  g.edp = {edp > 0 ? edp : 1, etp * l.ep};
  g.pp = {l.pp, l.tp * l.cp * l.dp};
  return g;
}

}  // namespace rb
