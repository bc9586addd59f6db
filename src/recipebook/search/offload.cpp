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

std::optional<OffloadFit> fit_with_offload(const SearchSetup& s, const Cluster& c, const Layout& l,
                                           const Estimate* base) {
  const Hardware& hw = *s.in.hardware;
  if (s.req.offload != OffloadSearch::kAlways || !hw.has_host()) return std::nullopt;
  const PreparedModel& pm = *s.in.model;
  if (base != nullptr && base->valid) {
    // What the variants of offload_variants can take off the worst stage at most: all of it.
    const MemoryBreakdown& w = base->memory.worst;
    const double movable = (s.req.workload.mode != Mode::kPeft ? w.optimizer_bytes : 0.0) +
                           (l.recompute != Recompute::kFull ? w.activations_bytes : 0.0) + w.fragmentation_bytes;
    if (w.overshoot_bytes() > movable) return std::nullopt;
  }
  const std::vector<Layout> variants = offload_variants(l, s.req.workload.mode, pm.experts > 0);
  if (variants.empty()) return std::nullopt;
  auto allowed = [&](const Layout& v) { return first_failing_any(s.levels, *s.in.rules, s.req.workload, c, v, s.facts) < 0; };
  // The last variant moves everything the others do (the whole optimizer state and the activations;
  // neither raises another part: estimate/memory.cpp): when its GPU memory does not fit, no other
  // variant's does, and they are not estimated. (Its host memory may be what does not fit: then the
  // smaller ones are tried.)
  std::optional<Estimate> most;
  if (allowed(variants.back())) {
    most = estimate(pm, hw, s.req.workload, c, variants.back());
    if (most->valid && !most->memory.worst.fits) return std::nullopt;
  }
  std::optional<OffloadFit> best;
  for (size_t i = 0; i < variants.size(); ++i) {
    const Layout& v = variants[i];
    const bool last = i + 1 == variants.size();
    if (last ? !most : !allowed(v)) continue;
    Estimate e = last ? *most : estimate(pm, hw, s.req.workload, c, v);
    if (!e.fits()) continue;
    if (!best || e.step_time_s < best->estimate.step_time_s) best = OffloadFit{v, e};
  }
  return best;
}

}  // namespace rb
