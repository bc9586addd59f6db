// The `layout` and `features` sections of a recipe record to a Layout (see recipe_yaml.hpp).
#include "recipebook/catalog/recipe_layout.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "recipebook/core/strings.hpp"
#include "recipebook/rules/gpu_arch.hpp"

namespace rb {
namespace {

// Megatron-Bridge spells a whole-layer TE graph `scope: full` (or leaves it empty); as a module set
// that is every module a layer can hold.
constexpr uint32_t kCgWholeLayer = kCgAttn | kCgMlp | kCgMoe | kCgMamba;

// Returns whether the scope was given as `full` (the whole layer; link_recipe_model narrows it).
// `parent_path`: where `features` (or a measurement's `layout_overrides`) sits, for the messages.
bool read_cuda_graph(YamlReader& r, const YNode* features, Layout& l, const std::string& parent_path = "features") {
  const YNode* cg = r.map(features, "cuda_graph", parent_path);
  if (cg == nullptr) return false;
  const std::string p = parent_path + ".cuda_graph";
  const auto impl = r.string(cg, "impl", p);
  if (impl) {
    if (auto g = parse_cuda_graph(*impl)) {
      l.cuda_graph = *g;
    } else {
      r.error(*cg->get("impl"), "`" + p + ".impl` is '" + *impl + "'",
              "use none, transformer_engine, local or full_iteration");
    }
  }
  // `enabled` without `impl`: Megatron-Core's deprecated enable_cuda_graph, which meant impl "local"
  // (TransformerConfig.__post_init__).
  if (!impl) {
    if (auto on = r.boolean(cg, "enabled", p)) l.cuda_graph = *on ? CudaGraph::kLocal : CudaGraph::kNone;
  }
  // `scope` (Megatron-Core cuda_graph_scope) and `modules` (the older cuda_graph_modules): a module
  // list, or one word: full (the whole layer) or full_iteration (with impl local: a full-iteration graph).
  uint32_t scope = 0;
  bool full_iteration = false;
  bool whole_layer = false;
  for (const char* key : {"scope", "modules"}) {
    const YNode* v = cg->get(key);
    if (v == nullptr || v->is_null()) continue;
    std::vector<const YNode*> words;
    if (v->is_seq()) {
      for (const auto& item : v->seq) words.push_back(&item);
    } else if (v->is_scalar()) {
      words.push_back(v);
    } else {
      r.error(*v,
              "`" + p + "." + key + "` must be a list of module names or one word, found " + v->type_name());
      continue;
    }
    for (const YNode* w : words) {
      if (w->text == "full") {
        scope |= kCgWholeLayer;
        whole_layer = true;
      } else if (w->text == "full_iteration") {
        full_iteration = true;
      } else if (auto bit = parse_cuda_graph_scope(w->text)) {
        scope |= *bit;
      } else {
        r.error(*w, "`" + p + "." + key + "` has an unknown module '" + w->text + "'",
                "use attn, mlp, moe, moe_router, moe_preprocess, mamba, full or full_iteration");
      }
    }
  }
  if (full_iteration && l.cuda_graph == CudaGraph::kLocal) l.cuda_graph = CudaGraph::kFullIteration;
  if (l.cuda_graph == CudaGraph::kNone) scope = 0;  // a scope without a graph captures nothing
  l.cuda_graph_scope = scope;
  return whole_layer && scope != 0;
}

// True when the layout is a phrase: set in code and not known (kept in the tree, not modelled).
bool read_pipeline_layout(YamlReader& r, const YNode* features, Layout& l) {
  const YNode* pl = features != nullptr ? features->get("pipeline_layout") : nullptr;
  if (pl == nullptr || pl->is_null()) return false;
  if (pl->is_scalar()) {
    // An explicit layout string (Megatron-Core pipeline_model_parallel_layout): parsed here; its fit
    // to the model and to PP x VP is RB-PP-LAYERS's (rules/pipeline_split.cpp). A phrase (with a
    // space, never in a layout) says the layout is set in code and unresolved.
    if (pl->text.find(' ') != std::string::npos) return true;
    auto stages = parse_pipeline_layout(pl->text);
    if (!stages) {
      r.error(*pl, "`features.pipeline_layout` '" + pl->text + "': " + stages.error().message, stages.error().fix);
      return false;
    }
    l.pipeline_layout = std::move(*stages);
    return false;
  }
  if (!pl->is_map()) {
    r.error(*pl, "`features.pipeline_layout` must be a layout string or a map of stage layer counts");
    return false;
  }
  l.first_stage_layers = r.int32(pl, "first_stage_layers", "features.pipeline_layout").value_or(0);
  l.last_stage_layers = r.int32(pl, "last_stage_layers", "features.pipeline_layout").value_or(0);
  return false;
}

// Fine-grained activation offloading: Megatron-Core TransformerConfig fine_grained_activation_offloading
// (`fine_grained_offload`) with offload_modules, under `p` (features, or a measurement's
// layout_overrides). The modules act only with the switch on (transformer_layer.py
// _set_offload_modules, moe/experts.py: `fine_grained_activation_offloading and name in
// offload_modules`), so a list without it offloads nothing. fused_group_mlp offloads the whole TE
// fused grouped expert MLP (moe/experts.py wraps the fused fc1 / activation / fc2 op in one offload
// group; Megatron-LM docs/user-guide/features/fine_grained_activation_offloading.md: it "cannot be
// combined with expert_fc1 or moe_act"), so it is read as those two: the estimate's offload is then a
// lower bound (the fc1 outputs inside the fused op stay on the GPU in the model). gdp_qkv
// (GatedDeltaProduct) is Megatron's, not modelled: read as nothing offloaded for it.
std::optional<uint32_t> read_offload_modules(YamlReader& r, const YNode* node, const std::string& p) {
  const bool on = r.boolean(node, "fine_grained_offload", p).value_or(false);
  const YNode* om = node != nullptr ? node->get("offload_modules") : nullptr;
  if (om == nullptr || om->is_null()) return std::nullopt;
  const auto names = r.string_list(node, "offload_modules", p);
  uint32_t mask = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    if (auto bit = parse_offload_modules(names[i], nullptr)) {
      mask |= *bit;
    } else if (names[i] == "fused_group_mlp") {
      mask |= kOfExpertFc1 | kOfMoeAct;
    } else if (names[i] != "gdp_qkv") {
      r.error(om->is_seq() ? om->seq[i] : *om, "`" + p + ".offload_modules` has an unknown module '" + names[i] + "'",
              "use " + offload_module_choices() + ", fused_group_mlp or gdp_qkv");
    }
  }
  return on ? mask : 0u;
}

// A list of GemmModule names under `key` (features.bf16_modules / mxfp8_modules).
std::optional<uint32_t> read_gemm_modules(YamlReader& r, const YNode* node, const char* key, const std::string& p) {
  const YNode* list = node != nullptr ? node->get(key) : nullptr;
  if (list == nullptr || list->is_null()) return std::nullopt;
  const auto names = r.string_list(node, key, p);
  uint32_t mask = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    if (auto bit = parse_gemm_modules(names[i], nullptr); bit && !names[i].empty())
      mask |= *bit;
    else
      r.error(list->is_seq() ? list->seq[i] : *list, "`" + p + "." + key + "` has an unknown module '" + names[i] + "'",
              "use " + gemm_module_choices());
  }
  return mask;
}

std::optional<uint32_t> read_recompute_modules(YamlReader& r, const YNode* node, const std::string& p) {
  const YNode* rm = node != nullptr ? node->get("recompute_modules") : nullptr;
  if (rm == nullptr || rm->is_null()) return std::nullopt;
  uint32_t mask = 0;
  const auto names = r.string_list(node, "recompute_modules", p);
  for (size_t i = 0; i < names.size(); ++i) {
    if (auto bit = parse_recompute_module(names[i])) {
      mask |= *bit;
    } else {
      r.error(rm->is_seq() ? rm->seq[i] : *rm, "`" + p + ".recompute_modules` has an unknown module '" + names[i] + "'",
              "use core_attn, moe_act, layernorm, mla_up_proj, mlp, moe, shared_experts, gdn_norm_out or mhc");
    }
  }
  return mask;
}

// `recompute` under `parent` (at path `p`): granularity, method, num_layers, each unset if absent.
struct RecomputeRead {
  std::optional<Recompute> granularity;
  std::optional<RecomputeMethod> method;
  std::optional<int> num_layers;
};
RecomputeRead read_recompute(YamlReader& r, const YNode* parent, const std::string& p) {
  RecomputeRead out;
  const YNode* rc = r.map(parent, "recompute", p);
  if (rc == nullptr) return out;
  const std::string rp = p + ".recompute";
  if (auto g = r.string(rc, "granularity", rp)) {
    if (auto k = parse_recompute(*g))
      out.granularity = *k;
    else
      r.error(*rc->get("granularity"), "`" + rp + ".granularity` is '" + *g + "'", "use full, selective or none");
  }
  if (auto m = r.string(rc, "method", rp)) {
    if (*m == "uniform")
      out.method = RecomputeMethod::kUniform;
    else if (*m == "block")
      out.method = RecomputeMethod::kBlock;
    else
      r.error(*rc->get("method"), "`" + rp + ".method` is '" + *m + "'", "use uniform or block");
  }
  out.num_layers = r.int32(rc, "num_layers", rp);
  return out;
}

// A dispatcher as a record spells it (`layout.dispatcher` with `features.flex_backend`, or a run's
// `layout_overrides.dispatcher` with its `flex_backend`): alltoall, allgather, or flex with its
// backend (DeepEP when none is named, as Megatron-Bridge's flex default). A bad value is an error on
// its node, named by `key` / `backend_key`.
std::optional<Dispatcher> spelled_dispatcher(YamlReader& r, const std::string& spelled, const YNode& node,
                                             std::string_view key, const std::optional<std::string>& backend,
                                             const YNode& backend_node, std::string_view backend_key) {
  const std::string f = to_lower(spelled);
  if (f != "flex") {
    if (auto k = parse_dispatcher(f)) return k;
    r.error(node, fmt::format("`{}` is '{}'", key, spelled), "use alltoall, allgather or flex");
    return std::nullopt;
  }
  const std::string b = to_lower(backend.value_or("deepep"));
  if (b == "deepep") return Dispatcher::kFlexDeepep;
  if (b == "hybridep") return Dispatcher::kFlexHybridep;
  r.error(backend_node, fmt::format("`{}` is '{}'", backend_key, b), "use deepep or hybridep");
  return std::nullopt;
}

void read_features(YamlReader& r, const YNode& doc, Recipe& rec, std::optional<std::string>& flex_backend) {
  Layout& l = rec.layout;
  const YNode* f = r.map(&doc, "features", "");
  if (f == nullptr) return;
  const std::string p = "features";
  rec.cuda_graph_whole_layer = read_cuda_graph(r, f, l);
  rec.pipeline_layout_in_code = read_pipeline_layout(r, f, l);
  if (auto rm = read_recompute_modules(r, f, p)) {
    l.recompute_modules |= *rm;
    // Megatron-Core defaults only an unset list to core_attn (transformer_config.py __post_init__:
    // `if self.recompute_modules is None`); selective granularity over [] recomputes nothing.
    if (*rm == 0 && l.recompute == Recompute::kSelective) l.recompute = Recompute::kNone;
  }
  l.fsdp = r.boolean(f, "fsdp", p).value_or(l.fsdp);
  l.cpu_offload_layers = r.int32(f, "cpu_offload_layers", p).value_or(l.cpu_offload_layers);
  l.optimizer_offload_fraction = r.number(f, "optimizer_offload_fraction", p).value_or(l.optimizer_offload_fraction);
  if (auto m = read_offload_modules(r, f, p)) l.offload_modules = *m;
  l.activation_offload_fraction = r.number(f, "activation_offload_fraction", p).value_or(l.activation_offload_fraction);
  l.ep_a2a_overlap = r.boolean(f, "ep_a2a_overlap", p).value_or(l.ep_a2a_overlap);
  l.tp_comm_overlap = r.boolean(f, "tp_comm_overlap", p).value_or(l.tp_comm_overlap);
  l.fused_grouped_mlp = r.boolean(f, "fused_grouped_mlp", p).value_or(l.fused_grouped_mlp);
  l.fp8_attention = r.boolean(f, "fp8_attention", p).value_or(l.fp8_attention);
  l.precision_aware_optimizer =
      r.boolean(f, "precision_aware_optimizer", p).value_or(l.precision_aware_optimizer);
  l.te_rng_tracker = r.boolean(f, "te_rng_tracker", p).value_or(l.te_rng_tracker);
  l.distributed_optimizer = r.boolean(f, "distributed_optimizer", p).value_or(l.distributed_optimizer);
  if (auto o = r.string(f, "optimizer", p)) {
    if (auto k = parse_optimizer(*o))
      l.optimizer = *k;
    else
      r.error(*f->get("optimizer"), "`features.optimizer` is '" + *o + "'", "use adam or muon");
  }
  l.grad_reduce_in_fp32 = r.boolean(f, "grad_reduce_in_fp32", p).value_or(l.grad_reduce_in_fp32);
  // The loss and dropout (core/layout_fields.cpp's last rows).
  l.cross_entropy_loss_fusion = r.boolean(f, "cross_entropy_loss_fusion", p).value_or(l.cross_entropy_loss_fusion);
  if (auto impl = r.string(f, "cross_entropy_fusion_impl", p)) {
    if (auto c = parse_cross_entropy_impl(to_lower(*impl)))
      l.cross_entropy_fusion_impl = *c;
    else
      r.error(*f->get("cross_entropy_fusion_impl"), "`" + p + ".cross_entropy_fusion_impl` is '" + *impl + "'",
              "use te or native");
  }
  l.hidden_dropout = r.number(f, "hidden_dropout", p).value_or(l.hidden_dropout);
  l.attention_dropout = r.number(f, "attention_dropout", p).value_or(l.attention_dropout);
  // Per-module precision (a quantization recipe's module lists, GemmModule names).
  l.bf16_modules = read_gemm_modules(r, f, "bf16_modules", p).value_or(l.bf16_modules);
  l.mxfp8_modules = read_gemm_modules(r, f, "mxfp8_modules", p).value_or(l.mxfp8_modules);
  // The settings the layout models (the others stay settings for the rules).
  if (const YNode* st = f->get("settings"); st != nullptr && st->is_map()) {
    const std::string sp = p + ".settings";
    l.account_for_embedding =
        r.boolean(st, "account_for_embedding_in_pipeline_split", sp).value_or(l.account_for_embedding);
    l.account_for_loss = r.boolean(st, "account_for_loss_in_pipeline_split", sp).value_or(l.account_for_loss);
    // Megatron's name, as `launch --target recipe` writes a layout without the distributed optimizer.
    l.distributed_optimizer = r.boolean(st, "use_distributed_optimizer", sp).value_or(l.distributed_optimizer);
    // Megatron-Core cp_comm_type: one value, or one per layer (the same everywhere reads as that
    // value; a mix, a2a+p2p or an unknown value keep the ring: RB-CP-COMM-TYPE reports what is wrong,
    // docs/model.md what is not modelled).
    if (const YNode* cc = st->get("cp_comm_type"); cc != nullptr) {
      std::optional<CpComm> one;
      bool mixed = false;
      const auto take = [&](const YNode& v) {
        const auto c = v.as_string() ? parse_cp_comm(*v.as_string()) : std::nullopt;
        if (!c || (one && *one != *c)) mixed = true;
        one = c;
      };
      if (cc->is_seq())
        for (const YNode& v : cc->seq) take(v);
      else
        take(*cc);
      if (one && !mixed) l.cp_comm = *one;
    }
    // Megatron-Core's distributed optimizer instances (HSDP under Megatron-FSDP).
    l.distributed_optimizer_instances =
        r.int32(st, "num_distributed_optimizer_instances", sp, 1).value_or(l.distributed_optimizer_instances);
    // Megatron-Core first_last_layers_bf16: the counts count only with the switch on (Bridge's
    // MixedPrecisionConfig defaults them to 0).
    l.fp4_param_gather = r.boolean(st, "fp4_param_gather", sp).value_or(l.fp4_param_gather);
    if (r.boolean(st, "first_last_layers_bf16", sp).value_or(false)) {
      l.bf16_layers_at_start = r.int32(st, "num_layers_at_start_in_bf16", sp, 0).value_or(0);
      l.bf16_layers_at_end = r.int32(st, "num_layers_at_end_in_bf16", sp, 0).value_or(0);
    }
  }
  flex_backend = r.string(f, "flex_backend", p);
}

}  // namespace

void read_layout(YamlReader& r, const YNode& doc, int gpus, Recipe& rec) {
  Layout& l = rec.layout;
  const YNode* lay = r.map(&doc, "layout", "");
  const std::string p = "layout";
  const auto tp = r.int32(lay, "tp", p, 1);
  const auto pp = r.int32(lay, "pp", p, 1);
  const auto cp = r.int32(lay, "cp", p, 1);
  const auto ep = r.int32(lay, "ep", p, 1);
  const auto dp = r.int32(lay, "dp", p, 1);
  // The model is linked later (link_recipe_model): known now as if MoE, and for a dense model then.
  rec.dense_layout_given = whole_layout_given(tp.has_value(), pp.has_value(), cp.has_value(), ep.has_value(), false, gpus == 1);
  rec.layout_known = whole_layout_given(tp.has_value(), pp.has_value(), cp.has_value(), ep.has_value(), true, gpus == 1);
  l.tp = tp.value_or(1);
  l.pp = pp.value_or(1);
  l.cp = cp.value_or(1);
  l.ep = ep.value_or(1);
  l.vp = r.int32(lay, "vpp", p, 1).value_or(1);
  // An omitted ETP is unset: 1 here, Megatron's default once the catalog links the model
  // (link_recipe_model).
  const auto etp = r.int32(lay, "etp", p, 1);
  rec.etp_recorded = etp.has_value();
  l.etp = etp.value_or(1);
  if (dp) {
    l.dp = *dp;
  } else if (gpus > 0) {
    l.dp = std::max(1, gpus / l.model_parallel());  // a product that does not divide is `check`'s to report
  }
  l.sp = r.boolean(lay, "sequence_parallel", p).value_or(false);
  l.mbs = r.int32(lay, "rows_per_microbatch", p, 1).value_or(1);
  const RecomputeRead rc = read_recompute(r, lay, p);
  l.recompute = rc.granularity.value_or(l.recompute);
  l.recompute_method = rc.method.value_or(l.recompute_method);
  l.recompute_layers = rc.num_layers.value_or(l.recompute_layers);
  // `offload` is free-form in the schema (a description or a map); a bare number is a layer count.
  if (const YNode* off = lay != nullptr ? lay->get("offload") : nullptr) {
    if (auto n = off->as_int(); n && *n >= 0 && *n <= 100000) l.cpu_offload_layers = static_cast<int>(*n);
  }
  // FP32 gradient reduction: as the record says, else Megatron-Bridge's default for its kind (library
  // recipes and the card runs on them set grad_reduce_in_fp32=True; perf recipes set False).
  l.grad_reduce_in_fp32 = rec.framework == "megatron-bridge" && rec.kind != RecipeKind::kPerformance;
  std::optional<std::string> flex_backend;
  read_features(r, doc, rec, flex_backend);
  if (flex_backend) {
    const std::string b = to_lower(*flex_backend);
    if (b == "deepep") rec.flex_backend = Dispatcher::kFlexDeepep;
    if (b == "hybridep") rec.flex_backend = Dispatcher::kFlexHybridep;
  }
  if (auto d = r.string(lay, "dispatcher", p)) {
    const YNode* features = doc.get("features");
    const YNode* backend = features != nullptr ? features->get("flex_backend") : nullptr;
    if (auto k = spelled_dispatcher(r, *d, *lay->get("dispatcher"), "layout.dispatcher", flex_backend,
                                    backend != nullptr ? *backend : *lay, "features.flex_backend"))
      l.dispatcher = *k;
  }
  rec.dispatcher_recorded = l.dispatcher;  // the one it runs: apply_release_dispatchers
}

std::optional<int> release_yymm(const std::string& release) {
  for (size_t i = 0; i + 5 <= release.size(); ++i) {
    const auto digit = [&](size_t k) { return release[i + k] >= '0' && release[i + k] <= '9'; };
    if (digit(0) && digit(1) && release[i + 2] == '.' && digit(3) && digit(4) && (i == 0 || release[i - 1] < '0' || release[i - 1] > '9'))
      return (release[i] - '0') * 1000 + (release[i + 1] - '0') * 100 + (release[i + 3] - '0') * 10 + (release[i + 4] - '0');
  }
  return std::nullopt;
}

Dispatcher record_dispatcher(const Recipe& rec, std::string_view gpu, std::optional<int> yymm) {
  const Dispatcher recorded = rec.dispatcher_recorded;
  if (rec.framework != "megatron-bridge" || !rec.flex_backend || recorded != Dispatcher::kAlltoall) return recorded;
  if (yymm && *yymm < kFlexBackendAppliedFrom) return recorded;
  // DeepEP only on sm80/sm90 and devices named B200/B300: GB200/GB300 keep alltoall
  // (training/flex_dispatcher_backend.py apply_flex_dispatcher_backend).
  if (*rec.flex_backend == Dispatcher::kFlexDeepep && gpu_arch_from_name(gpu) == GpuArch::kGraceBlackwell)
    return recorded;
  return *rec.flex_backend;
}

Dispatcher own_dispatcher(const Recipe& rec, std::string_view gpu) {
  return rec.kind == RecipeKind::kPerformance || rec.applies_flex_backend ? record_dispatcher(rec, gpu)
                                                                          : rec.dispatcher_recorded;
}

std::optional<Dispatcher> release_dispatcher(const Recipe& rec, const Measurement& m) {
  const auto yymm = release_yymm(m.release);
  const Dispatcher ran = yymm ? record_dispatcher(rec, m.gpu.empty() ? rec.gpu : m.gpu, *yymm) : rec.dispatcher_recorded;
  if (ran == rec.layout.dispatcher) return std::nullopt;
  return ran;
}

void apply_release_dispatchers(Recipe& rec) {
  rec.layout.dispatcher = own_dispatcher(rec, rec.gpu);
  for (Measurement& m : rec.measurements)
    if (!m.overrides.dispatcher) m.overrides.dispatcher = release_dispatcher(rec, m);
}

Measurement::LayoutOverrides read_layout_overrides(YamlReader& r, const YNode* measurement, const std::string& path) {
  Measurement::LayoutOverrides o;
  const std::string p = path + ".layout_overrides";
  const YNode* lo = r.map(measurement, "layout_overrides", path);
  if (lo == nullptr) return o;
  const RecomputeRead rc = read_recompute(r, lo, p);
  o.recompute = rc.granularity;
  o.recompute_method = rc.method;
  o.recompute_layers = rc.num_layers;
  o.recompute_modules = read_recompute_modules(r, lo, p);
  o.cpu_offload_layers = r.int32(lo, "cpu_offload_layers", p);
  o.offload_modules = read_offload_modules(r, lo, p);
  if (!o.offload_modules && r.boolean(lo, "fine_grained_offload", p) == false) o.offload_modules = 0u;
  o.activation_offload_fraction = r.number(lo, "activation_offload_fraction", p);
  // The run's CUDA graphs, read as a recipe's `features.cuda_graph` (a module list or none; `full`
  // keeps every module bit, as the recipe reader does before the model is linked).
  if (lo->get("cuda_graph") != nullptr) {
    Layout graphs;
    read_cuda_graph(r, lo, graphs, p);
    o.cuda_graph = graphs.cuda_graph;
    o.cuda_graph_scope = graphs.cuda_graph_scope;
  }
  o.ep_a2a_overlap = r.boolean(lo, "ep_a2a_overlap", p);
  o.mbs = r.int32(lo, "rows_per_microbatch", p);
  // The run's token dispatcher, spelled as a record's `layout.dispatcher` with `features.flex_backend`
  // (flex without a backend is DeepEP, as there). It wins over release_dispatcher's rule
  // (apply_release_dispatchers fills only an unset one): the run's script chose it.
  if (auto d = r.string(lo, "dispatcher", p)) {
    const auto backend = r.string(lo, "flex_backend", p);
    const YNode* backend_node = lo->get("flex_backend");
    o.dispatcher = spelled_dispatcher(r, *d, *lo->get("dispatcher"), "layout_overrides.dispatcher", backend,
                                      backend_node != nullptr ? *backend_node : *lo, "layout_overrides.flex_backend");
  }
  o.fused_grouped_mlp = r.boolean(lo, "fused_grouped_mlp", p);
  o.fp8_attention = r.boolean(lo, "fp8_attention", p);
  return o;
}

void link_recipe_model(Recipe& rec, const Model& m) {
  if (!m.has_architecture) return;
  if (!m.is_moe() && rec.dense_layout_given) rec.layout_known = true;  // whole_layout_given for a dense model
  Layout& l = rec.layout;
  apply_unset_etp(l, m.is_moe(), /*etp_given=*/false, &rec);  // the record's own ETP, else Megatron's default
  // `full` graphs the whole layer, whatever it holds: the modules of the layer kinds the model has.
  if (rec.cuda_graph_whole_layer) {
    uint32_t held = 0;
    const int mamba = m.count_layers(MixerKind::kMamba2);
    if (m.num_layers() - mamba - m.count_layers(MixerKind::kNone) > 0) held |= kCgAttn;  // MHA/GQA, MLA, GDN
    if (mamba > 0) held |= kCgMamba;
    if (m.count_layers(FfnKind::kDense) > 0) held |= kCgMlp;
    if (m.count_layers(FfnKind::kMoe) > 0) held |= kCgMoe;
    l.cuda_graph_scope = (l.cuda_graph_scope & ~kCgWholeLayer) | (kCgWholeLayer & held);
  }
}

}  // namespace rb
