#include "recipebook/layout_args.hpp"

#include <fmt/format.h>

#include <array>
#include <limits>

#include "recipebook/core/strings.hpp"

namespace rb::cli {
namespace {

// The name of a flag in messages: "--gpus-per-node" or the JSON key "gpus_per_node".
std::string flag(std::string_view name, bool json_keys) {
  std::string n(name);
  if (json_keys) {
    for (auto& c : n)
      if (c == '-') c = '_';
    return "\"" + n + "\"";
  }
  return "--" + n;
}

template <typename T>
std::optional<Error> in_range(std::string_view name, T value, T lo, T hi, bool json_keys, const char* what = "") {
  if (value >= lo && value <= hi) return std::nullopt;
  return Error(fmt::format("{} {} is out of range: it must be between {} and {}{}", flag(name, json_keys), value, lo,
                           hi, what));
}

}  // namespace

Result<Setup> resolve_setup(const LayoutArgs& a, const Catalog& catalog, bool json_keys) {
  auto fl = [&](std::string_view n) { return flag(n, json_keys); };
  if (a.model.empty()) return fail(fl("model") + " is required", {}, "name a catalog model, a Hugging Face id or a config.json path");
  if (a.gpu.empty()) return fail(fl("gpu") + " is required", {}, "e.g. h100, b200, gb300 (see 'recipebook list --hardware')");
  if (a.gpus <= 0) return fail(fl("gpus") + " is required and must be at least 1");
  if (a.gbs <= 0) return fail(fl("gbs") + " (global batch, in sequences) is required and must be at least 1");

  Setup s;
  auto model = catalog.find_model(a.model);
  if (!model) return fail(fl("model") + ": " + model.error().message, {}, model.error().fix);
  if (!model->has_architecture)
    return fail(fl("model") + ": the catalog names " + model->name + " but does not have its architecture yet", {},
                "give the path to its Hugging Face config.json instead");
  s.model = *model;
  auto hw = catalog.find_hardware(a.gpu);
  if (!hw) return fail(fl("gpu") + ": " + hw.error().message, {}, hw.error().fix);
  if (!hw->has_specs)
    return fail(fl("gpu") + ": the catalog has no figures for " + hw->name + " (memory, peak FLOP/s)", {},
                "add a hardware YAML with them via --catalog DIR");
  s.hardware = *hw;

  const std::array<std::optional<Error>, 13> range_errors{
      in_range<int>("gpus", a.gpus, 1, 1 << 20, json_keys),
      in_range<int>("gpus-per-node", a.gpus_per_node, 0, 1024, json_keys),
      in_range<int64_t>("seq", a.seq, 1, 10'000'000, json_keys, " tokens"),
      in_range<int64_t>("gbs", a.gbs, 1, 100'000'000, json_keys, " sequences"),
      in_range<int>("mbs", a.mbs, 1, 4096, json_keys),
      in_range<int>("tp", a.tp, 1, a.gpus, json_keys, " (the GPU count)"),
      in_range<int>("pp", a.pp, 1, a.gpus, json_keys, " (the GPU count)"),
      in_range<int>("vp", a.vp, 1, 1024, json_keys),
      in_range<int>("cp", a.cp, 1, a.gpus, json_keys, " (the GPU count)"),
      in_range<int>("ep", a.ep, 1, a.gpus, json_keys, " (the GPU count)"),
      in_range<int>("etp", a.etp, 0, a.gpus, json_keys, " (0 means: the same as TP)"),
      in_range<int>("first-stage-layers", a.first_stage_layers, 0, 100'000, json_keys, " (0 means: an even split)"),
      in_range<int>("last-stage-layers", a.last_stage_layers, 0, 100'000, json_keys, " (0 means: an even split)"),
  };
  for (const auto& e : range_errors)
    if (e) return tl::unexpected(*e);
  if (a.tokens < 0) return fail(fl("tokens") + " must not be negative");

  auto mode = parse_mode(a.mode);
  if (!mode) return fail(fl("mode") + ": unknown mode '" + a.mode + "'", {}, "use pretrain, sft or peft");
  s.workload.mode = *mode;
  s.workload.seq = a.seq;
  s.workload.gbs = a.gbs;
  s.workload.tokens_budget = a.tokens;
  s.workload.lora_rank = a.lora_rank;
  s.cluster.gpus = a.gpus;
  s.cluster.gpus_per_node = a.gpus_per_node;

  Layout& l = s.layout;
  l.tp = a.tp;
  l.pp = a.pp;
  l.vp = a.vp;
  l.cp = a.cp;
  l.ep = a.ep;
  // Megatron's default ETP is TP; a dense model has no experts to split, so its ETP stays 1.
  l.etp = a.etp != 0 ? a.etp : s.model.is_moe() ? a.tp : 1;
  l.first_stage_layers = a.first_stage_layers;  // the rules check the split (RB-PP-LAYERS)
  l.last_stage_layers = a.last_stage_layers;
  l.mbs = a.mbs;
  const int mp = a.tp * a.pp * a.cp;
  l.dp = a.gpus % mp == 0 ? a.gpus / mp : 0;  // 0: the rules report RB-WORLD-DIVISIBLE
  l.sp = a.sp.value_or(a.tp > 1);
  l.fsdp = a.fsdp;
  l.distributed_optimizer = a.distributed_optimizer;
  l.precision_aware_optimizer = a.precision_aware_optimizer;
  auto p = parse_precision(a.precision);
  if (!p) return fail(fl("precision") + ": unknown precision '" + a.precision + "'", {},
                      "use bf16, fp8_cs, fp8_ds, fp8_blockwise, mxfp8 or nvfp4");
  l.precision = *p;
  auto rc = parse_recompute(a.recompute);
  if (!rc) return fail(fl("recompute") + ": unknown value '" + a.recompute + "'", {}, "use none, selective or full");
  l.recompute = *rc;
  if (l.recompute == Recompute::kFull) l.recompute_layers = a.recompute_layers;
  if (!a.recompute_modules.empty()) {
    std::string bad;
    auto mask = parse_recompute_modules(a.recompute_modules, &bad);
    if (!mask)
      return fail(fl("recompute-modules") + ": unknown module '" + bad + "'", {}, "use " + recompute_module_choices());
    if (l.recompute == Recompute::kNone) l.recompute = Recompute::kSelective;
    l.recompute_modules = *mask;
  }
  auto d = parse_dispatcher(a.dispatcher);
  if (!d) return fail(fl("dispatcher") + ": unknown dispatcher '" + a.dispatcher + "'", {},
                      "use alltoall, allgather, deepep or hybridep");
  l.dispatcher = *d;
  auto g = parse_cuda_graph(a.cuda_graph);
  if (!g) return fail(fl("cuda-graph") + ": unknown value '" + a.cuda_graph + "'", {},
                      "use none, transformer_engine, local or full_iteration");
  l.cuda_graph = *g;
  return s;
}

Result<LayoutArgs> layout_args_from_json(const nlohmann::json& j, const LayoutArgs& defaults) {
  if (!j.is_object()) return fail("each line must be a JSON object with the same keys as the flags");
  LayoutArgs a = defaults;
  static const std::vector<std::string> kKeys{
      "model", "gpu", "gpus", "gpus_per_node", "mode", "seq", "gbs", "mbs", "tp", "pp", "vp", "cp", "ep", "etp",
      "first_stage_layers", "last_stage_layers", "fsdp", "sp", "precision", "recompute", "recompute_modules", "recompute_layers", "dispatcher", "cuda_graph",
      "distributed_optimizer", "precision_aware_optimizer", "tokens", "lora_rank"};
  for (const auto& [key, v] : j.items()) {
    auto type_error = [&, k = key](const char* want) {
      return fail("\"" + k + "\" must be " + want + ", found " + std::string(v.type_name()));
    };
    auto get_int = [&](auto& out) -> std::optional<Error> {
      using T = std::remove_reference_t<decltype(out)>;
      if (!v.is_number_integer()) return type_error("an integer").value();
      const auto wide = v.get<int64_t>();
      if (wide < std::numeric_limits<T>::min() || wide > std::numeric_limits<T>::max())
        return Error("\"" + key + "\" is out of range: " + std::to_string(wide));
      out = static_cast<T>(wide);
      return std::nullopt;
    };
    auto get_str = [&](std::string& out) -> std::optional<Error> {
      if (!v.is_string()) return type_error("a string").value();
      out = v.get<std::string>();
      return std::nullopt;
    };
    auto get_bool = [&](bool& out) -> std::optional<Error> {
      if (!v.is_boolean()) return type_error("true or false").value();
      out = v.get<bool>();
      return std::nullopt;
    };
    std::optional<Error> err;
    if (key == "model") err = get_str(a.model);
    else if (key == "gpu") err = get_str(a.gpu);
    else if (key == "mode") err = get_str(a.mode);
    else if (key == "precision") err = get_str(a.precision);
    else if (key == "recompute") err = get_str(a.recompute);
    else if (key == "recompute_modules") err = get_str(a.recompute_modules);
    else if (key == "dispatcher") err = get_str(a.dispatcher);
    else if (key == "cuda_graph") err = get_str(a.cuda_graph);
    else if (key == "gpus") err = get_int(a.gpus);
    else if (key == "gpus_per_node") err = get_int(a.gpus_per_node);
    else if (key == "seq") err = get_int(a.seq);
    else if (key == "gbs") err = get_int(a.gbs);
    else if (key == "mbs") err = get_int(a.mbs);
    else if (key == "tp") err = get_int(a.tp);
    else if (key == "pp") err = get_int(a.pp);
    else if (key == "vp") err = get_int(a.vp);
    else if (key == "cp") err = get_int(a.cp);
    else if (key == "ep") err = get_int(a.ep);
    else if (key == "etp") err = get_int(a.etp);
    else if (key == "first_stage_layers") err = get_int(a.first_stage_layers);
    else if (key == "last_stage_layers") err = get_int(a.last_stage_layers);
    else if (key == "recompute_layers") err = get_int(a.recompute_layers);
    else if (key == "lora_rank") err = get_int(a.lora_rank);
    else if (key == "fsdp") err = get_bool(a.fsdp);
    else if (key == "distributed_optimizer") err = get_bool(a.distributed_optimizer);
    else if (key == "precision_aware_optimizer") err = get_bool(a.precision_aware_optimizer);
    else if (key == "sp") {
      bool sp = false;
      err = get_bool(sp);
      a.sp = sp;
    } else if (key == "tokens") {
      if (!v.is_number()) return type_error("a number");
      a.tokens = v.get<double>();
    } else {
      const std::string near = nearest(key, kKeys);
      return fail("unknown key \"" + key + "\"", {}, near.empty() ? "" : "did you mean \"" + near + "\"?");
    }
    if (err) return tl::unexpected(*err);
  }
  return a;
}

}  // namespace rb::cli
