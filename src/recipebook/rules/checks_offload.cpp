// Optimizer CPU offload and fine-grained activation offloading set on the layout (Layout::
// optimizer_offload_fraction, offload_modules, activation_offload_fraction; docs/model.md "Offload").
#include <cmath>
#include <string>
#include <vector>

#include "recipebook/rules/check_util.hpp"
#include "recipebook/rules/checks.hpp"
#include "recipebook/rules/text.hpp"

namespace rb {
namespace {

bool in_unit(double x) { return std::isfinite(x) && x >= 0.0 && x <= 1.0; }

}  // namespace

// Megatron-LM arguments.py --optimizer-offload-fraction ("ratio of optimizer state to offload"),
// MCore transformer_config.py ("activation_offload_fraction must be in range [0, 1]").
bool check_offload_fraction(const RuleContext& ctx, Finding* out) {
  const Layout& l = ctx.layout;
  const bool opt = !in_unit(l.optimizer_offload_fraction);
  const bool act = l.offload_modules != 0 && !in_unit(l.activation_offload_fraction);
  if (!opt && !act) return false;
  if (out == nullptr) return true;
  std::vector<std::string> why;
  if (opt) why.push_back("optimizer_offload_fraction " + fixed(l.optimizer_offload_fraction, 2));
  if (act) why.push_back("activation_offload_fraction " + fixed(l.activation_offload_fraction, 2));
  return report(out, join_words(why, " and ") + " outside [0, 1]", "use a fraction from 0 to 1",
                opt ? "features.optimizer_offload_fraction" : "features.activation_offload_fraction");
}

// Megatron-LM arguments.py: --optimizer-cpu-offload asserts --use-precision-aware-optimizer (the
// hybrid device optimizer reuses its code path), which MCore optimizer/__init__.py accepts only with
// the distributed optimizer; with --fp8-param-gather it needs the delayed FP8 recipe (recipebook's
// current-scaling, MXFP8 and NVFP4 recipes gather the quantized parameter); MCore
// fully_sharded_optimizer.py: "MFSDP v2 does not currently support optimizer CPU offload".
bool check_optimizer_offload(const RuleContext& ctx, Finding* out) {
  const Layout& l = ctx.layout;
  if (!(l.optimizer_offload_fraction > 0)) return false;
  const bool fsdp = l.fsdp;
  const bool no_dist = !l.fsdp && !l.distributed_optimizer;
  const Precision p = l.precision;
  const bool gather = p == Precision::kFp8Cs || p == Precision::kMxfp8 || p == Precision::kNvfp4;
  if (!fsdp && !no_dist && !gather) return false;
  if (out == nullptr) return true;
  std::vector<std::string> why;
  if (fsdp) why.push_back("Megatron-FSDP does not support it");
  if (no_dist) why.push_back("it needs the precision-aware path, which needs the distributed optimizer");
  if (gather) why.push_back("with FP8/FP4 parameter gather it needs the delayed FP8 recipe (fp8_ds)");
  return report(out, "optimizer CPU offload: " + join_words(why, "; "),
                "use DDP with the distributed optimizer (and bf16, fp8_ds or fp8_blockwise), or turn the offload off",
                "features.optimizer_offload_fraction", fsdp ? "features.fsdp" : "features.distributed_optimizer");
}

// The host side the offload estimate needs is in the catalog (catalog/hardware/<gpu>.yaml `host:`).
bool check_offload_host(const RuleContext& ctx, Finding* out) {
  const Layout& l = ctx.layout;
  if (!(l.optimizer_offload_fraction > 0) && l.offload_modules == 0) return false;
  const Hardware* hw = ctx.hardware();
  if (hw == nullptr || hw->has_host()) return false;
  if (out == nullptr) return true;
  return report(out, "offload to host memory on " + hw->name + ", whose host link and host memory the catalog lacks",
                "add `host:` figures to catalog/hardware/" + hw->name + ".yaml, or turn offloading off",
                "features.optimizer_offload_fraction");
}

}  // namespace rb
