#include "recipebook/search/offload.hpp"

namespace rb {
namespace {

constexpr uint32_t kDenseModules = kOfAttnNorm | kOfQkvLinear | kOfCoreAttn | kOfAttnProj | kOfMlpNorm;
constexpr uint32_t kExpertModules = kOfExpertFc1 | kOfMoeAct;

}  // namespace

std::optional<PlanRequest> offload_retry(const PlanRequest& req, uint64_t first_fit, const Hardware& hw) {
  if (req.offload != OffloadSearch::kWhenNothingFits || first_fit > 0 || !hw.has_host()) return std::nullopt;
  PlanRequest again = req;
  again.offload = OffloadSearch::kAlways;
  return again;
}

std::vector<Layout> offload_variants(const Layout& l, Mode mode, bool moe) {
  std::vector<Layout> out;
  // LoRA trains adapters only: their optimizer state is too small to be worth the host round trip.
  const bool optimizer = mode != Mode::kPeft;
  // Full recompute keeps only layer inputs; there is nothing left for module offloading to move.
  const bool activations = l.recompute != Recompute::kFull;
  // Megatron-Core refuses expert offload modules while 'moe' recompute wraps the MoE layer.
  const bool moe_recomputed = l.recompute == Recompute::kSelective && (l.recompute_modules & kRcMoe) != 0;
  const uint32_t modules = kDenseModules | (moe && !moe_recomputed ? kExpertModules : 0u);
  if (optimizer) {
    for (const double f : {0.5, 1.0}) {
      Layout v = l;
      v.optimizer_offload_fraction = f;
      out.push_back(v);
    }
  }
  if (activations) {
    Layout v = l;
    v.offload_modules = modules;
    v.activation_offload_fraction = 1.0;
    out.push_back(v);
    if (optimizer) {
      v.optimizer_offload_fraction = 1.0;
      out.push_back(v);
    }
  }
  return out;
}

std::optional<OffloadFit> fit_with_offload(const SearchSetup& s, const Cluster& c, const Layout& l) {
  const Hardware& hw = *s.in.hardware;
  if (s.req.offload != OffloadSearch::kAlways || !hw.has_host()) return std::nullopt;
  const PreparedModel& pm = *s.in.model;
  std::optional<OffloadFit> best;
  for (const Layout& v : offload_variants(l, s.req.workload.mode, pm.experts > 0)) {
    if (first_failing_any(s.levels, *s.in.rules, s.req.workload, c, v, s.facts) >= 0) continue;
    Estimate e = estimate(pm, hw, s.req.workload, c, v);
    if (!e.fits()) continue;
    if (!best || e.step_time_s < best->estimate.step_time_s) best = OffloadFit{v, e};
  }
  return best;
}

}  // namespace rb
