#include "recipebook/search/rule_levels.hpp"

#include <algorithm>
#include <bit>

#include "recipebook/rules/rule.hpp"

namespace rb {
namespace {

constexpr uint32_t kPrec = dim_bit(SearchDim::kPrecision);
constexpr uint32_t kTp = dim_bit(SearchDim::kTp);
constexpr uint32_t kCp = dim_bit(SearchDim::kCp);
constexpr uint32_t kPipe = dim_bit(SearchDim::kPipeline);
constexpr uint32_t kEp = dim_bit(SearchDim::kEp);
constexpr uint32_t kEtp = dim_bit(SearchDim::kEtp);
constexpr uint32_t kDisp = dim_bit(SearchDim::kDispatcher);
constexpr uint32_t kRc = dim_bit(SearchDim::kRecompute);
constexpr uint32_t kFsdp = dim_bit(SearchDim::kFsdp);
constexpr uint32_t kMbs = dim_bit(SearchDim::kMbs);
// DP is derived from the GPU count, TP, CP and PP; the micro-batch count also from MBS.
constexpr uint32_t kDp = kTp | kCp | kPipe;

struct RuleDims {
  std::string_view id;
  uint32_t dims;
};

// What each error rule of scope layout/hardware reads of the dimensions the planner varies (the
// check functions in rules/checks_*.cpp). Fields the planner keeps fixed (CUDA graphs, offload,
// overlap flags, RNG tracker) are not dimensions: a rule reading only those has no bit here.
// Sequence parallelism follows TP (on when TP > 1).
constexpr RuleDims kRuleDims[] = {
    {"RB-WORLD-DIVISIBLE", kTp | kCp | kPipe},
    {"RB-TP-HEADS", kTp},
    {"RB-TP-KV-GROUPS", kTp},
    {"RB-TP-FFN", kTp | kEtp},
    {"RB-TP-MAMBA-HEADS", kTp},
    {"RB-GDN-HEADS-TPCP", kTp | kCp},
    {"RB-SP-NEEDS-TP", kTp},
    {"RB-SP-REQUIRED", kTp},
    {"RB-CP-SEQ", kCp},
    {"RB-SP-SEQ", kTp | kCp},
    {"RB-PP-LAYERS", kPipe},
    {"RB-VP-NEEDS-PP", kPipe},
    {"RB-VP-LAYERS", kPipe},
    {"RB-GBS-DIVISIBLE", kDp | kMbs},
    {"RB-VP-MICROBATCHES", kDp | kMbs},
    {"RB-EP-NEEDS-MOE", kEp},
    {"RB-EXPERTS-EP", kEp},
    {"RB-EP-DIVISIBLE", kDp | kEp | kEtp},
    {"RB-MOE-BIAS-ETP", kEtp},
    {"RB-DISPATCHER-GPU", kDisp},
    {"RB-EP-A2A-OVERLAP", kEp | kDisp | kPipe | kRc},
    {"RB-CUDA-GRAPH-RNG", 0},
    {"RB-CUDA-GRAPH-LOCAL-SCOPE", 0},
    {"RB-CUDA-GRAPH-SCOPE", 0},
    {"RB-CUDA-GRAPH-FULL-RECOMPUTE", kRc},
    {"RB-CUDA-GRAPH-RECOMPUTE-MOE", kRc},
    {"RB-CUDA-GRAPH-OFFLOAD", 0},
    {"RB-RECOMPUTE-MODULE", kRc},
    {"RB-OFFLOAD-FRACTION", 0},
    {"RB-OPTIMIZER-OFFLOAD", kPrec | kFsdp},
    {"RB-OFFLOAD-HOST", 0},
    {"RB-RECOMPUTE-LAYERS", kPipe | kRc},
    {"RB-RECOMPUTE-FP8-DS", kPrec | kRc},
    {"RB-OFFLOAD-PP", kPipe},
    {"RB-OFFLOAD-RECOMPUTE", kRc},
    {"RB-OFFLOAD-LAYERS", 0},
    {"RB-FP8-GPU", kPrec},
};

}  // namespace

uint32_t rule_dims(std::string_view id) {
  for (const RuleDims& r : kRuleDims)
    if (r.id == id) return r.dims;
  return kUnknownRuleDims;
}

int rule_level(std::string_view id) {
  const uint32_t d = rule_dims(id);
  if (d == kUnknownRuleDims) return kNumSearchDims - 1;
  if (d == 0) return 0;
  return 31 - std::countl_zero(d);
}

RuleLevels rule_levels(const PreparedRuleModel& pm) {
  RuleLevels out;
  out.level_of.fill(-1);
  const auto rules = all_rules();
  for (int i = 0; i < pm.fast_count; ++i) {
    const uint8_t idx = pm.fast_rules[static_cast<size_t>(i)];
    const int level = rule_level(rules[idx].id);
    out.by_level[static_cast<size_t>(level)].push_back(idx);
    out.level_of[idx] = static_cast<int8_t>(level);
  }
  for (auto& v : out.by_level) std::sort(v.begin(), v.end());
  return out;
}

int first_failing(const RuleLevels& levels, SearchDim level, const PreparedRuleModel& pm, const Workload& w,
                  const Cluster& c, const Layout& l, const RecordFacts& facts) {
  const auto& list = levels.by_level[static_cast<size_t>(level)];
  if (list.empty()) return -1;
  const RuleContext ctx(pm, w, c, l, facts);
  const auto rules = all_rules();
  for (const uint8_t idx : list)
    if (rules[idx].check(ctx, nullptr)) return idx;
  return -1;
}

int first_failing_any(const RuleLevels& levels, const PreparedRuleModel& pm, const Workload& w, const Cluster& c,
                      const Layout& l, const RecordFacts& facts) {
  const RuleContext ctx(pm, w, c, l, facts);
  const auto rules = all_rules();
  for (const auto& list : levels.by_level)
    for (const uint8_t idx : list)
      if (rules[idx].check(ctx, nullptr)) return idx;
  return -1;
}

}  // namespace rb
