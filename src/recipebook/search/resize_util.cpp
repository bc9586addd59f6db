// The small pieces of resizing that stand on their own: NVLink reach, precision support, the VP
// rule 3 asks for, the modelled pipeline split and batch rounding.
#include <algorithm>
#include <cmath>
#include <limits>

#include "recipebook/rules/gpu_arch.hpp"
#include "recipebook/search/resize.hpp"
#include "recipebook/search/resize_internal.hpp"

namespace rb {

std::optional<StageSplit> split_for(int layers, int pp, int vp) {
  if (pp <= 1) return vp == 1 ? std::optional<StageSplit>(StageSplit{}) : std::nullopt;
  if (layers < pp * vp) return std::nullopt;
  if (layers % pp == 0 && (layers / pp) % vp == 0) return StageSplit{};
  const StageSplit s = stage_split(layers, pp, vp);
  if (s.any()) return s;
  return std::nullopt;
}

int nvlink_limit(const Hardware& hw, int gpus_per_node) {
  const int per_node = gpus_per_node > 0 ? gpus_per_node : hw.gpus_per_node;
  if (hw.nvlink_domain > 0 && per_node > 0 && hw.nvlink_domain <= hw.gpus_per_node)
    return std::min(per_node, hw.nvlink_domain);
  if (hw.nvlink_domain > 0) return hw.nvlink_domain;
  return per_node > 0 ? per_node : 8;
}

bool precision_supported(const Hardware& hw, Precision p) {
  if (hw.peak_flops_per_s(p) <= 0) return false;
  if (p == Precision::kMxfp8 || p == Precision::kNvfp4) {
    const GpuArch a = gpu_arch(hw);
    return a == GpuArch::kUnknown || is_blackwell_family(a) || a == GpuArch::kRubin;
  }
  return true;
}

int choose_vp(const PreparedRuleModel& rules, int pp) {
  if (pp <= 1 || rules.layers <= 0) return 1;
  int best = 1;
  double best_d = std::numeric_limits<double>::max();
  for (bool uniform_only : {true, false}) {
    for (int vp = 2; vp <= 16 && pp * vp <= rules.layers; ++vp) {
      const bool uniform = rules.layers % pp == 0 && (rules.layers / pp) % vp == 0;
      if (uniform_only ? !uniform : !split_for(rules.layers, pp, vp)) continue;
      const double d = std::fabs(static_cast<double>(rules.layers) / (pp * vp) - 4.0);
      if (d < best_d - 1e-9) best = vp, best_d = d;
    }
    if (best > 1) break;
  }
  return best;
}

Layout modelled_layout(int layers, Layout l) {
  // A split the layout gives (first/last stage counts, embedding/loss accounting or an explicit
  // pipeline_model_parallel_layout) is the one that runs: Megatron-Core refuses any two together.
  if (l.pp <= 1 || l.first_stage_layers > 0 || l.last_stage_layers > 0 || l.account_for_embedding ||
      l.account_for_loss || !l.pipeline_layout.empty() || layers <= 0)
    return l;
  if (layers % l.pp == 0 && (layers / l.pp) % l.vp == 0) return l;
  // The most balanced split (smallest largest stage); at equal balance the larger VP.
  int best_load = 0;
  Layout best = l;
  for (int vp = l.vp; vp >= 1; --vp) {
    const auto split = split_for(layers, l.pp, vp);
    if (!split) continue;
    // The most decoder layers on a pipeline rank.
    int load = layers / l.pp;
    if (split->account_for_embedding || split->account_for_loss) {
      const int emb = split->account_for_embedding ? 1 : 0;
      const int loss = split->account_for_loss ? 1 : 0;
      const int per_rank = (layers + emb + loss) / l.pp;
      load = std::max({per_rank - emb, per_rank - loss, l.pp > 2 ? per_rank : 0});
    } else if (split->first > 0) {
      const int middle = l.pp > 2 ? (layers - split->first - split->last) / (l.pp - 2) : 0;
      load = std::max({split->first, split->last, middle});
    }
    if (best_load == 0 || load < best_load) {
      best_load = load;
      best = l;
      best.vp = vp;
      apply_stage_split(best, *split);
    }
  }
  return best;
}

int64_t round_batch(int64_t gbs, int64_t unit) {
  if (unit <= 0) return gbs;
  if (gbs <= unit) return unit;
  const int64_t down = gbs / unit * unit;
  return gbs - down <= down + unit - gbs ? down : down + unit;
}

}  // namespace rb
