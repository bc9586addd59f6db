// The layout flags applied over a layout, and one entry of a `recipebook plan --json` file: the two
// ways besides a catalog recipe that a launch gets its layout (launch_spec.cpp uses both).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <utility>

#include "recipebook/catalog/yaml_tree.hpp"
#include "recipebook/core/strings.hpp"
#include "recipebook/emit/launch_spec.hpp"

namespace rb {
namespace {
using Json = nlohmann::json;
}  // namespace

Result<void> apply_layout_flags(const LayoutFlags& f, Layout& l, bool from_flags_only) {
  const int old_tp = l.tp;
  const bool old_sp = l.sp;
  const std::pair old_pipeline{l.pp, l.vp};
  if (f.tp) l.tp = *f.tp;
  if (f.pp) l.pp = *f.pp;
  if (f.vp) l.vp = *f.vp;
  // A recipe's uneven split belongs to its PP and VP: another pipeline starts even unless given.
  if (std::pair{l.pp, l.vp} != old_pipeline) l.first_stage_layers = l.last_stage_layers = 0;
  if (f.first_stage_layers) l.first_stage_layers = *f.first_stage_layers;
  if (f.last_stage_layers) l.last_stage_layers = *f.last_stage_layers;
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
  if (f.ep_a2a_overlap) l.ep_a2a_overlap = *f.ep_a2a_overlap;
  if (f.tp_comm_overlap) l.tp_comm_overlap = *f.tp_comm_overlap;
  if (f.cpu_offload_layers) l.cpu_offload_layers = *f.cpu_offload_layers;
  if (!f.precision.empty()) {
    auto p = parse_precision(f.precision);
    if (!p) return fail("unknown precision '" + f.precision + "'", {"--precision"}, "use bf16, fp8_cs, fp8_ds, fp8_blockwise, mxfp8 or nvfp4");
    l.precision = *p;
  }
  if (!f.recompute.empty()) {
    auto r = parse_recompute(f.recompute);
    if (!r) return fail("unknown recompute '" + f.recompute + "'", {"--recompute"}, "use none, selective or full");
    l.recompute = *r;
  }
  std::string bad;
  if (!f.recompute_modules.empty()) {
    auto mask = parse_recompute_modules(f.recompute_modules, &bad);
    if (!mask)
      return fail("unknown recompute module '" + bad + "'", {"--recompute-modules"}, "use " + recompute_module_choices());
    l.recompute_modules = *mask;
    if (f.recompute.empty()) l.recompute = Recompute::kSelective;
  }
  if (!f.recompute_method.empty()) {
    if (f.recompute_method == "uniform") l.recompute_method = RecomputeMethod::kUniform;
    else if (f.recompute_method == "block") l.recompute_method = RecomputeMethod::kBlock;
    else return fail("unknown recompute method '" + f.recompute_method + "'", {"--recompute-method"}, "use uniform or block");
  }
  if (f.recompute_layers) l.recompute_layers = *f.recompute_layers;
  if (!f.dispatcher.empty()) {
    auto d = parse_dispatcher(f.dispatcher);
    if (!d) return fail("unknown dispatcher '" + f.dispatcher + "'", {"--dispatcher"}, "use alltoall, allgather, deepep or hybridep");
    l.dispatcher = *d;
  }
  if (!f.cuda_graph.empty()) {
    auto g = parse_cuda_graph(f.cuda_graph);
    if (!g) return fail("unknown CUDA-graph implementation '" + f.cuda_graph + "'", {"--cuda-graph"},
                        "use none, transformer_engine, local or full_iteration");
    l.cuda_graph = *g;
    if (*g == CudaGraph::kNone) l.cuda_graph_scope = 0;
  }
  if (!f.cuda_graph_scope.empty()) {
    auto mask = parse_cuda_graph_scopes(f.cuda_graph_scope, &bad);
    if (!mask)
      return fail("unknown CUDA-graph scope '" + bad + "'", {"--cuda-graph-scope"}, "use " + cuda_graph_scope_choices());
    l.cuda_graph_scope = *mask;
  }
  return {};
}

// One entry of `plan --json`: the root or an element of its first array of candidates; the layout
// under "layout" (emit/catalog_json.cpp layout_json names) or flat in the entry.
Result<void> read_plan_entry(const std::string& path, int pick, LaunchSpec& spec, std::vector<std::string>& notes) {
  auto text = read_text_file(path);
  if (!text) return tl::unexpected(text.error());
  Json root;
  try {
    root = Json::parse(*text);
  } catch (const Json::exception& e) {
    return fail(std::string("not JSON: ") + e.what(), {path});
  }
  std::vector<const Json*> entries;
  auto collect = [&](const Json& arr) {
    for (const auto& e : arr)
      if (e.is_object()) entries.push_back(&e);
  };
  if (root.is_array()) {
    collect(root);
  } else if (root.is_object()) {
    for (const char* key : {"plans", "candidates", "top", "layouts", "results", "entries"})
      if (root.contains(key) && root[key].is_array() && entries.empty()) collect(root[key]);
    if (entries.empty() && (root.contains("layout") || root.contains("tp"))) entries.push_back(&root);
  }
  if (entries.empty()) return fail("no plan entries (expected `recipebook plan --json` output)", {path});
  if (pick < 1 || static_cast<size_t>(pick) > entries.size())
    return fail(fmt::format("--pick {} is not an entry (the plan has {})", pick, entries.size()), {path});
  const Json& e = *entries[static_cast<size_t>(pick) - 1];
  auto field = [&](const char* key) -> const Json* {
    for (const Json* scope : {&e, static_cast<const Json*>(&root)}) {
      if (!scope->is_object()) continue;
      if (scope->contains(key)) return &(*scope)[key];
      for (const char* sub : {"workload", "cluster", "request"})
        if (scope->contains(sub) && (*scope)[sub].is_object() && (*scope)[sub].contains(key)) return &(*scope)[sub][key];
    }
    return nullptr;
  };
  try {
    if (auto* v = field("model"); v && v->is_string()) spec.model = v->get<std::string>();
    if (auto* v = field("gpu"); v && v->is_string()) spec.gpu = v->get<std::string>();
    if (auto* v = field("gpus"); v && v->is_number_integer()) spec.gpus = v->get<int>();
    if (auto* v = field("gpus_per_node"); v && v->is_number_integer()) spec.gpus_per_node = v->get<int>();
    if (auto* v = field("mode"); v && v->is_string())
      if (auto m = parse_mode(v->get<std::string>())) spec.mode = *m;
    if (auto* v = field("seq"); v && v->is_number_integer()) spec.seq = v->get<int64_t>();
    if (auto* v = field("gbs"); v && v->is_number_integer()) spec.gbs = v->get<int64_t>();
    const Json& lj = e.contains("layout") && e["layout"].is_object() ? e["layout"] : e;
    LayoutFlags f;
    auto num = [&](const char* k, std::optional<int>& out) {
      if (lj.contains(k) && lj[k].is_number_integer()) out = lj[k].get<int>();
    };
    num("tp", f.tp); num("pp", f.pp); num("vp", f.vp); num("cp", f.cp); num("ep", f.ep); num("etp", f.etp);
    num("mbs", f.mbs); num("recompute_layers", f.recompute_layers);
    num("first_stage_layers", f.first_stage_layers); num("last_stage_layers", f.last_stage_layers);
    auto flag = [&](const char* k, std::optional<bool>& out) {
      if (lj.contains(k) && lj[k].is_boolean()) out = lj[k].get<bool>();
    };
    flag("sp", f.sp); flag("fsdp", f.fsdp);
    auto str = [&](const char* k, std::string& out) {
      if (lj.contains(k) && lj[k].is_string()) out = lj[k].get<std::string>();
    };
    str("precision", f.precision); str("recompute", f.recompute); str("recompute_modules", f.recompute_modules);
    str("dispatcher", f.dispatcher); str("cuda_graph", f.cuda_graph);
    spec.precision_given = !f.precision.empty();
    if (auto ok = apply_layout_flags(f, spec.layout, true); !ok) return fail(ok.error().message, {path});
  } catch (const Json::exception& ex) {
    return fail(std::string("unexpected plan entry: ") + ex.what(), {path});
  }
  notes.push_back(fmt::format("launching entry {} of {} in {}", pick, entries.size(), path));
  return {};
}

}  // namespace rb
