#include "recipebook/search/space.hpp"

#include <algorithm>
#include <array>

#include "recipebook/core/strings.hpp"
#include "recipebook/rules/valid_degrees.hpp"

namespace rb {

std::string_view objective_name(Objective o) {
  switch (o) {
    case Objective::kThroughput:
      return "throughput";
    case Objective::kCost:
      return "cost";
    case Objective::kTime:
      return "time";
  }
  return "throughput";
}

std::optional<Objective> parse_objective(std::string_view s) {
  const std::string f = to_lower(s);
  if (f == "throughput" || f == "tokens") return Objective::kThroughput;
  if (f == "cost" || f == "usd") return Objective::kCost;
  if (f == "time" || f == "days") return Objective::kTime;
  return std::nullopt;
}

std::string recompute_option_name(const RecomputeOption& o) {
  switch (o.kind) {
    case Recompute::kNone:
      return "none";
    case Recompute::kFull:
      return "full";
    case Recompute::kSelective:
      return "selective(" + recompute_modules_str(o.modules != 0 ? o.modules : kRcDefault) + ")";
  }
  return "none";
}

std::vector<RecomputeOption> recompute_options(const Model& m) {
  std::vector<RecomputeOption> out;
  out.push_back({Recompute::kNone, 0});
  out.push_back({Recompute::kSelective, kRcDefault});
  // Megatron-Core recompute_modules that free saved activations (memory.cpp selective_keep);
  // each is only valid when the model has the layer kind (RB-RECOMPUTE-MODULE).
  uint32_t extra = kRcDefault | kRcLayernorm;
  if (m.count_layers(MixerKind::kMla) > 0) extra |= kRcMlaUpProj;
  if (m.is_moe() && m.count_layers(FfnKind::kMoe) > 0) extra |= kRcMoeAct;
  if (m.count_layers(MixerKind::kGdn) > 0) extra |= kRcGdnNormOut;
  out.push_back({Recompute::kSelective, extra});
  out.push_back({Recompute::kFull, 0});
  return out;
}

void apply_recompute(Layout& l, const RecomputeOption& o) {
  l.recompute = o.kind;
  l.recompute_modules = o.kind == Recompute::kSelective ? o.modules : 0;
  l.recompute_method = RecomputeMethod::kUniform;
  l.recompute_layers = 1;
}

std::vector<int> gpu_counts_in_range(int lo, int hi, int gpus_per_node) {
  std::vector<int> out;
  if (lo < 1) lo = 1;
  if (hi < lo) return out;
  for (int64_t p = 1; p <= hi; p *= 2)
    if (p >= lo) out.push_back(static_cast<int>(p));
  const int node = gpus_per_node;
  if (node > 0) {
    const int64_t first = (static_cast<int64_t>(lo) + node - 1) / node;
    const int64_t last = hi / node;
    if (last - first + 1 <= 32) {
      for (int64_t k = first; k <= last; ++k) out.push_back(static_cast<int>(k * node));
    } else {
      for (int64_t p = 1; p <= last; p *= 2)
        for (int64_t f : {int64_t{1}, int64_t{3}})
          if (p * f >= first && p * f <= last) out.push_back(static_cast<int>(p * f * node));
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Layout base_layout() {
  Layout l;
  l.recompute_layers = 1;
  l.distributed_optimizer = true;
  l.te_rng_tracker = true;
  return l;
}

namespace {

std::vector<int> only(int fixed, const std::vector<int>& list) {
  if (fixed <= 0) return list;
  if (std::find(list.begin(), list.end(), fixed) != list.end()) return {fixed};
  return {};
}

}  // namespace

Space::Space(const Model& model, const PlanRequest& req) : fixed_(req.fixed) {
  moe_ = model.is_moe();
  layers_ = model.num_layers();
  precisions_ = fixed_.precisions.empty() ? std::vector<Precision>{Precision::kBf16} : fixed_.precisions;
  recompute_ = fixed_.recompute.empty() ? recompute_options(model) : fixed_.recompute;
  if (fixed_.ep > 0)
    ep_ = {fixed_.ep};
  else if (moe_)
    ep_ = divisors(model.moe.experts);
  else
    ep_ = {1};
  if (fixed_.fsdp)
    fsdp_ = {*fixed_.fsdp ? 1 : 0};
  else
    fsdp_ = {0, 1};
  if (fixed_.mbs > 0) {
    mbs_ = {fixed_.mbs};
  } else {
    for (int m = 1; m <= std::max(1, fixed_.max_mbs); ++m) mbs_.push_back(m);
  }
}

std::vector<int> Space::tp(int gpus) const { return only(fixed_.tp, divisors(gpus)); }

std::vector<int> Space::cp(int gpus, int tp) const {
  if (tp <= 0 || gpus % tp != 0) return {};
  return only(fixed_.cp, divisors(gpus / tp));
}

std::vector<int> Space::pp(int gpus, int tp, int cp) const {
  const int64_t tpcp = static_cast<int64_t>(tp) * cp;
  if (tpcp <= 0 || gpus % tpcp != 0) return {};
  const int64_t rest = gpus / tpcp;
  std::vector<int> out = only(fixed_.pp, divisors(rest));
  if (fixed_.dp > 0)
    out.erase(std::remove_if(out.begin(), out.end(), [&](int pp) { return rest / pp != fixed_.dp; }), out.end());
  return out;
}

std::vector<int> Space::vp(int pp) const {
  if (fixed_.vp > 0) return {fixed_.vp};
  if (pp <= 1) return {1};
  std::vector<int> out;
  const int most = std::max(1, layers_ / pp);
  for (int v = 1; v <= most; ++v) out.push_back(v);
  return out;
}

std::vector<int> Space::etp(int tp) const {
  if (fixed_.etp > 0) return {fixed_.etp};
  if (!moe_) return {1};
  return divisors(tp);
}

namespace {
// The dispatchers searched with EP > 1. One flex backend: the estimator prices DeepEP and HybridEP
// alike (FP8 dispatch), so offering both only listed every flex layout twice. HybridEP runs on every
// NVIDIA GPU the rules allow (DeepEP not on GB200/GB300); `--dispatcher deepep` still fixes DeepEP.
constexpr std::array kExpertDispatchers{Dispatcher::kAlltoall, Dispatcher::kFlexHybridep};
}  // namespace

std::vector<Dispatcher> Space::dispatchers(int ep) const {
  if (fixed_.dispatcher) return {*fixed_.dispatcher};
  if (ep > 1) return {kExpertDispatchers.begin(), kExpertDispatchers.end()};
  return {Dispatcher::kAlltoall};
}

uint64_t Space::dispatcher_count(int ep) const {
  return fixed_.dispatcher || ep <= 1 ? 1 : kExpertDispatchers.size();
}

uint64_t Space::below_pipeline(int tp) const {
  uint64_t n = 0;
  for (int e : ep_) n += below_ep(tp, e);
  return n;
}

uint64_t Space::below_cp(int gpus, int tp, int cp) const {
  const uint64_t per = below_pipeline(tp);
  uint64_t n = 0;
  for (int p : pp(gpus, tp, cp)) n += vp(p).size() * per;
  return n;
}

uint64_t Space::below_tp(int gpus, int tp) const {
  uint64_t n = 0;
  for (int c : cp(gpus, tp)) n += below_cp(gpus, tp, c);
  return n;
}

uint64_t Space::below_precision(int gpus) const {
  uint64_t n = 0;
  for (int t : tp(gpus)) n += below_tp(gpus, t);
  return n;
}

}  // namespace rb
