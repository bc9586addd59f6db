#include "recipebook/emit/layout_flags.hpp"

#include <limits>
#include <map>
#include <utility>

#include <nlohmann/json.hpp>

namespace rb {

namespace {

// The flags by JSON key and type.
const std::map<std::string, std::optional<int> LayoutFlags::*> kIntFlags{
    {"tp", &LayoutFlags::tp}, {"pp", &LayoutFlags::pp}, {"vp", &LayoutFlags::vp}, {"cp", &LayoutFlags::cp},
    {"ep", &LayoutFlags::ep}, {"etp", &LayoutFlags::etp}, {"mbs", &LayoutFlags::mbs},
    {"first_stage_layers", &LayoutFlags::first_stage_layers}, {"last_stage_layers", &LayoutFlags::last_stage_layers},
    {"recompute_layers", &LayoutFlags::recompute_layers}, {"cpu_offload_layers", &LayoutFlags::cpu_offload_layers}};
const std::map<std::string, std::optional<bool> LayoutFlags::*> kBoolFlags{
    {"sp", &LayoutFlags::sp}, {"fsdp", &LayoutFlags::fsdp},
    {"distributed_optimizer", &LayoutFlags::distributed_optimizer},
    {"precision_aware_optimizer", &LayoutFlags::precision_aware_optimizer},
    {"grad_reduce_in_fp32", &LayoutFlags::grad_reduce_in_fp32},
    {"account_for_embedding", &LayoutFlags::account_for_embedding},
    {"account_for_loss", &LayoutFlags::account_for_loss},
    {"ep_a2a_overlap", &LayoutFlags::ep_a2a_overlap}, {"tp_comm_overlap", &LayoutFlags::tp_comm_overlap}};
const std::map<std::string, std::optional<double> LayoutFlags::*> kDoubleFlags{
    {"optimizer_offload_fraction", &LayoutFlags::optimizer_offload_fraction},
    {"activation_offload_fraction", &LayoutFlags::activation_offload_fraction}};
const std::map<std::string, std::string LayoutFlags::*> kStringFlags{
    {"offload_modules", &LayoutFlags::offload_modules},
    {"precision", &LayoutFlags::precision}, {"recompute", &LayoutFlags::recompute},
    {"recompute_modules", &LayoutFlags::recompute_modules}, {"recompute_method", &LayoutFlags::recompute_method},
    {"dispatcher", &LayoutFlags::dispatcher}, {"cuda_graph", &LayoutFlags::cuda_graph},
    {"cuda_graph_scope", &LayoutFlags::cuda_graph_scope}, {"pipeline_layout", &LayoutFlags::pipeline_layout}};

// Parses `text` with `parse` into `out`, or fails naming the flag, the value (`bad_part`, when the
// parser names the one item of a list it refused) and the choices.
template <typename T, typename Parse>
Result<void> parse_into(const std::string& text, Parse parse, T& out, const char* flag, const char* what,
                        const std::string& choices, const std::string* bad_part = nullptr) {
  auto v = parse(text);
  if (!v) {
    const std::string& shown = bad_part != nullptr ? *bad_part : text;
    return fail("unknown " + std::string(what) + " '" + shown + "'", {flag}, "use " + choices);
  }
  out = *v;
  return {};
}

std::optional<RecomputeMethod> parse_recompute_method(std::string_view s) {
  if (s == "uniform") return RecomputeMethod::kUniform;
  if (s == "block") return RecomputeMethod::kBlock;
  return std::nullopt;
}

// --pipeline-layout: parsed (errors at their column), VP from the stage count unless --vp is given;
// it replaces a recipe's first/last stage counts and embedding/loss accounting (Megatron-Core
// refuses them together, transformer_config.py).
Result<void> apply_pipeline_layout(const LayoutFlags& f, Layout& l) {
  if (f.pipeline_layout == "none") {
    l.pipeline_layout.clear();
    return {};
  }
  if (f.first_stage_layers || f.last_stage_layers || f.account_for_embedding.value_or(false) ||
      f.account_for_loss.value_or(false))
    return fail("--pipeline-layout cannot be combined with first/last stage layer counts or embedding/loss accounting",
                {"--pipeline-layout"}, "give one of them");
  auto stages = parse_pipeline_layout(f.pipeline_layout);
  if (!stages) {
    Error e = stages.error();
    e.message = "'" + f.pipeline_layout + "': " + e.message;
    return tl::unexpected(std::move(e));
  }
  const int n = static_cast<int>(stages->size());
  if (l.pp < 1 || n % l.pp != 0)
    return fail("the layout has " + std::to_string(n) + " stages, not a multiple of PP " + std::to_string(l.pp),
                {"--pipeline-layout"}, "give PP x VP stages separated by |, or set --pp");
  if (!f.vp) l.vp = n / l.pp;
  l.pipeline_layout = std::move(*stages);
  l.first_stage_layers = l.last_stage_layers = 0;
  l.account_for_embedding = l.account_for_loss = false;
  return {};
}

}  // namespace

const std::vector<std::string>& layout_flag_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k;
    for (const auto& e : kIntFlags) k.push_back(e.first);
    for (const auto& e : kBoolFlags) k.push_back(e.first);
    for (const auto& e : kDoubleFlags) k.push_back(e.first);
    for (const auto& e : kStringFlags) k.push_back(e.first);
    return k;
  }();
  return keys;
}

Result<bool> read_layout_flag(const std::string& key, const nlohmann::json& value, LayoutFlags& f) {
  auto type_error = [&](const char* want) {
    return fail("\"" + key + "\" must be " + want + ", found " + std::string(value.type_name()));
  };
  if (auto i = kIntFlags.find(key); i != kIntFlags.end()) {
    if (!value.is_number_integer()) return type_error("an integer");
    const auto wide = value.get<int64_t>();
    if (wide < std::numeric_limits<int>::min() || wide > std::numeric_limits<int>::max())
      return fail("\"" + key + "\" is out of range: " + std::to_string(wide));
    f.*(i->second) = static_cast<int>(wide);
  } else if (auto b = kBoolFlags.find(key); b != kBoolFlags.end()) {
    if (!value.is_boolean()) return type_error("true or false");
    f.*(b->second) = value.get<bool>();
  } else if (auto d = kDoubleFlags.find(key); d != kDoubleFlags.end()) {
    if (!value.is_number()) return type_error("a number");
    f.*(d->second) = value.get<double>();
  } else if (auto t = kStringFlags.find(key); t != kStringFlags.end()) {
    if (!value.is_string()) return type_error("a string");
    f.*(t->second) = value.get<std::string>();
  } else {
    return false;
  }
  return true;
}

void fill_unset(LayoutFlags& f, const LayoutFlags& from) {
  for (const auto& [key, member] : kIntFlags)
    if (!(f.*member)) f.*member = from.*member;
  for (const auto& [key, member] : kBoolFlags)
    if (!(f.*member)) f.*member = from.*member;
  for (const auto& [key, member] : kDoubleFlags)
    if (!(f.*member)) f.*member = from.*member;
  for (const auto& [key, member] : kStringFlags)
    if ((f.*member).empty()) f.*member = from.*member;
}

bool LayoutFlags::any() const {
  return tp || pp || vp || cp || ep || etp || mbs || first_stage_layers || last_stage_layers || sp || fsdp ||
         distributed_optimizer || precision_aware_optimizer || ep_a2a_overlap || tp_comm_overlap || grad_reduce_in_fp32 ||
         account_for_embedding || account_for_loss ||
         !precision.empty() || !recompute.empty() || !recompute_modules.empty() || !recompute_method.empty() ||
         recompute_layers || !dispatcher.empty() || !cuda_graph.empty() || !cuda_graph_scope.empty() ||
         cpu_offload_layers || !pipeline_layout.empty() || optimizer_offload_fraction || activation_offload_fraction ||
         !offload_modules.empty();
}

Result<void> apply_layout_flags(const LayoutFlags& f, Layout& l, bool from_flags_only) {
  const int old_tp = l.tp;
  const bool old_sp = l.sp;
  const std::pair old_pipeline{l.pp, l.vp};
  if (f.tp) l.tp = *f.tp;
  if (f.pp) l.pp = *f.pp;
  if (f.vp) l.vp = *f.vp;
  // A recipe's uneven split (or explicit layout) belongs to its PP and VP: another pipeline starts
  // even unless given.
  if (std::pair{l.pp, l.vp} != old_pipeline) {
    l.first_stage_layers = l.last_stage_layers = 0;
    l.pipeline_layout.clear();
  }
  if (!f.pipeline_layout.empty()) {
    if (auto ok = apply_pipeline_layout(f, l); !ok) return ok;
  } else if (f.first_stage_layers || f.last_stage_layers || f.account_for_embedding.value_or(false) ||
             f.account_for_loss.value_or(false)) {
    l.pipeline_layout.clear();  // another kind of split given over a recipe's layout replaces it
  }
  if (f.first_stage_layers) l.first_stage_layers = *f.first_stage_layers;
  if (f.last_stage_layers) l.last_stage_layers = *f.last_stage_layers;
  if (f.account_for_embedding) l.account_for_embedding = *f.account_for_embedding;
  if (f.account_for_loss) l.account_for_loss = *f.account_for_loss;
  if (f.cp) l.cp = *f.cp;
  if (f.ep) l.ep = *f.ep;
  if (f.etp) l.etp = *f.etp;
  if (f.mbs) l.mbs = *f.mbs;
  // Seed 004: "SP should be True whenever TP > 1"; Megatron refuses SP with TP 1.
  if (f.sp)
    l.sp = *f.sp;
  else
    l.sp = l.tp > 1 && (from_flags_only || old_sp || old_tp == 1);
  if (f.fsdp) l.fsdp = *f.fsdp;
  if (f.distributed_optimizer) l.distributed_optimizer = *f.distributed_optimizer;
  if (f.precision_aware_optimizer) l.precision_aware_optimizer = *f.precision_aware_optimizer;
  if (f.grad_reduce_in_fp32) l.grad_reduce_in_fp32 = *f.grad_reduce_in_fp32;
  if (f.ep_a2a_overlap) l.ep_a2a_overlap = *f.ep_a2a_overlap;
  if (f.tp_comm_overlap) l.tp_comm_overlap = *f.tp_comm_overlap;
  if (f.cpu_offload_layers) l.cpu_offload_layers = *f.cpu_offload_layers;
  if (f.optimizer_offload_fraction) l.optimizer_offload_fraction = *f.optimizer_offload_fraction;
  if (f.activation_offload_fraction) l.activation_offload_fraction = *f.activation_offload_fraction;
  // The named values: each parsed, or the first unknown one is the error.
  std::string bad;  // the list item a list parser refused
  auto modules = [&](const std::string& t) { return parse_recompute_modules(t, &bad); };
  auto scopes = [&](const std::string& t) { return parse_cuda_graph_scopes(t, &bad); };
  if (!f.precision.empty())
    if (auto ok = parse_into(f.precision, parse_precision, l.precision, "--precision", "precision",
                             "bf16, fp8_cs, fp8_ds, fp8_blockwise, mxfp8 or nvfp4");
        !ok)
      return ok;
  if (!f.recompute.empty())
    if (auto ok = parse_into(f.recompute, parse_recompute, l.recompute, "--recompute", "recompute",
                             "none, selective or full");
        !ok)
      return ok;
  if (!f.recompute_modules.empty()) {
    if (auto ok = parse_into(f.recompute_modules, modules, l.recompute_modules, "--recompute-modules",
                             "recompute module", recompute_module_choices(), &bad);
        !ok)
      return ok;
    if (f.recompute.empty()) l.recompute = Recompute::kSelective;
  }
  if (!f.recompute_method.empty())
    if (auto ok = parse_into(f.recompute_method, parse_recompute_method, l.recompute_method, "--recompute-method",
                             "recompute method", "uniform or block");
        !ok)
      return ok;
  if (f.recompute_layers) l.recompute_layers = *f.recompute_layers;
  if (!f.dispatcher.empty())
    if (auto ok = parse_into(f.dispatcher, parse_dispatcher, l.dispatcher, "--dispatcher", "dispatcher",
                             "alltoall, allgather, deepep or hybridep");
        !ok)
      return ok;
  if (!f.cuda_graph.empty()) {
    if (auto ok = parse_into(f.cuda_graph, parse_cuda_graph, l.cuda_graph, "--cuda-graph", "CUDA-graph implementation",
                             "none, transformer_engine, local or full_iteration");
        !ok)
      return ok;
    if (l.cuda_graph == CudaGraph::kNone) l.cuda_graph_scope = 0;
  }
  if (f.offload_modules == "none") {
    l.offload_modules = 0;
  } else if (!f.offload_modules.empty()) {
    auto offload = [&](const std::string& t) { return parse_offload_modules(t, &bad); };
    if (auto ok = parse_into(f.offload_modules, offload, l.offload_modules, "--offload-modules", "offload module",
                             offload_module_choices(), &bad);
        !ok)
      return ok;
  }
  if (!f.cuda_graph_scope.empty())
    return parse_into(f.cuda_graph_scope, scopes, l.cuda_graph_scope, "--cuda-graph-scope", "CUDA-graph scope",
                      cuda_graph_scope_choices(), &bad);
  return {};
}

}  // namespace rb
