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

// The walk sets recompute at every node of its inner loops: the row is looked up once.
void apply_recompute(Layout& l, const RecomputeOption& o) {
  static const LayoutField& row = layout_field("recompute");
  set_search_value(row, l, recompute_value(o.kind, o.modules));
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

std::vector<Precision> searched_precisions(const Constraints& c) {
  std::vector<Precision> out;
  for (const SearchValue v : c.values("precision")) out.push_back(static_cast<Precision>(v));
  if (out.empty()) out.push_back(Precision::kBf16);
  return out;
}

const std::vector<SearchValue>& Constraints::values(std::string_view key) const {
  static const std::vector<SearchValue> kAny;
  const auto it = allowed.find(key);
  return it == allowed.end() ? kAny : it->second;
}

int Constraints::fixed(std::string_view key) const {
  const auto& v = values(key);
  return v.size() == 1 ? static_cast<int>(v.front()) : 0;
}

namespace {

std::vector<int> ints(const std::vector<SearchValue>& values) {
  std::vector<int> out;
  for (const SearchValue v : values) out.push_back(static_cast<int>(v));
  return out;
}

// The values of `list` the user allows (all of it when `allowed` is empty), in the list's order.
std::vector<int> only(const std::vector<int>& allowed, std::vector<int> list) {
  if (allowed.empty()) return list;
  std::erase_if(list, [&](int v) { return std::find(allowed.begin(), allowed.end(), v) == allowed.end(); });
  return list;
}

// The user's values where given (as given), else the search's own list.
std::vector<int> given_or(const std::vector<int>& allowed, std::vector<int> list) {
  return allowed.empty() ? list : allowed;
}

}  // namespace

Space::Space(const Model& model, const PlanRequest& req) : fixed_(req.fixed) {
  moe_ = model.is_moe();
  layers_ = model.num_layers();
  tp_ = ints(fixed_.values("tp"));
  cp_ = ints(fixed_.values("cp"));
  pp_ = ints(fixed_.values("pp"));
  vp_ = ints(fixed_.values("vp"));
  etp_ = ints(fixed_.values("etp"));
  dp_ = fixed_.dp;
  for (const SearchValue v : fixed_.values("dispatcher")) dispatchers_.push_back(static_cast<Dispatcher>(v));
  for (const SearchValue v : fixed_.values("cp_comm_type")) cp_comms_.push_back(static_cast<CpComm>(v));
  precisions_ = searched_precisions(fixed_);
  // The user's recompute options; "selective" (modules 0) stands for each selective option of the model's.
  const std::vector<RecomputeOption> options = recompute_options(model);
  for (const SearchValue v : fixed_.values("recompute")) {
    const RecomputeOption o{recompute_value_kind(v), recompute_value_modules(v)};
    if (o.kind != Recompute::kSelective || o.modules != 0) {
      recompute_.push_back(o);
      continue;
    }
    for (const RecomputeOption& each : options)
      if (each.kind == Recompute::kSelective) recompute_.push_back(each);
  }
  if (recompute_.empty()) recompute_ = options;
  ep_ = given_or(ints(fixed_.values("ep")), moe_ ? divisors(model.moe.experts) : std::vector<int>{1});
  fsdp_ = given_or(ints(fixed_.values("fsdp")), {0, 1});
  std::vector<int> mbs;
  for (int m = 1; m <= std::max(1, fixed_.max_mbs); ++m) mbs.push_back(m);
  mbs_ = given_or(ints(fixed_.values("mbs")), std::move(mbs));
}

bool Space::single(const LayoutField& f) const {
  if (fixed_.values(f.key).empty()) return f.key == "vp" && pp_.size() == 1 && vp(pp_.front()).size() == 1;
  return f.key == "recompute" ? recompute_.size() == 1 : fixed_.values(f.key).size() == 1;
}

std::vector<int> Space::tp(int gpus) const { return only(tp_, divisors(gpus)); }

std::vector<int> Space::cp(int gpus, int tp) const {
  if (tp <= 0 || gpus % tp != 0) return {};
  return only(cp_, divisors(gpus / tp));
}

// The CP exchanges searched with CP > 1: the ring and Ulysses. All-gathered K/V exposes all of its
// traffic and only wins where the ring's steps are latency-bound (many CP ranks across nodes); it is
// searched when asked (--cp-comm-type allgather or a list), which keeps the CP subtrees at twice their
// size instead of three times.
constexpr std::array kSearchedCpComms{CpComm::kP2p, CpComm::kA2a};

std::vector<CpComm> Space::cp_comms(int cp) const {
  if (cp <= 1) return {cp_comms_.empty() ? fixed_.base.cp_comm : cp_comms_.front()};
  if (!cp_comms_.empty()) return cp_comms_;
  return {kSearchedCpComms.begin(), kSearchedCpComms.end()};
}

std::vector<int> Space::pp(int gpus, int tp, int cp) const {
  const int64_t tpcp = static_cast<int64_t>(tp) * cp;
  if (tpcp <= 0 || gpus % tpcp != 0) return {};
  const int64_t rest = gpus / tpcp;
  std::vector<int> out = only(pp_, divisors(rest));
  if (dp_ > 0) std::erase_if(out, [&](int pp) { return rest / pp != dp_; });
  return out;
}

std::vector<int> Space::vp(int pp) const {
  if (!vp_.empty()) return vp_;
  if (pp <= 1) return {1};
  std::vector<int> out;
  const int most = std::max(1, layers_ / pp);
  for (int v = 1; v <= most; ++v) out.push_back(v);
  return out;
}

std::vector<int> Space::etp(int tp) const {
  if (!etp_.empty()) return etp_;
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
  if (!dispatchers_.empty()) return dispatchers_;
  if (ep > 1) return {kExpertDispatchers.begin(), kExpertDispatchers.end()};
  return {Dispatcher::kAlltoall};
}

uint64_t Space::dispatcher_count(int ep) const {
  if (!dispatchers_.empty()) return dispatchers_.size();
  return ep <= 1 ? 1 : kExpertDispatchers.size();
}

uint64_t Space::below_pipeline(int tp) const {
  uint64_t n = 0;
  for (int e : ep_) n += below_ep(tp, e);
  return n;
}

uint64_t Space::below_cp_comm(int gpus, int tp, int cp) const {
  const uint64_t per = below_pipeline(tp);
  uint64_t n = 0;
  for (int p : pp(gpus, tp, cp)) n += vp(p).size() * per;
  return n;
}

uint64_t Space::below_cp(int gpus, int tp, int cp) const { return cp_comms(cp).size() * below_cp_comm(gpus, tp, cp); }

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
