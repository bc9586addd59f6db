// Pitfalls that need record facts: datasets, the vision graph cap, env gates read at import,
// kernel backends and the stack that provides them, runtime patches, recipe names, env vars
// (seeds 000, 002 and 004).
#include "recipebook/core/strings.hpp"
#include "recipebook/rules/check_util.hpp"
#include "recipebook/rules/checks.hpp"

namespace rb {
namespace {

bool has_word(std::string_view text, std::string_view word) {
  const std::string s = to_lower(text);
  size_t j = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    const bool sep = i == s.size() || s[i] == '-' || s[i] == '_' || s[i] == '.' || s[i] == '/' || s[i] == ' ';
    if (!sep) continue;
    if (s.compare(j, i - j, word) == 0 && i - j == word.size()) return true;
    j = i + 1;
  }
  return false;
}

// A vision-language recipe: its name or entry point says so (qwen35_vl_..., gemma3_vl_...), or the
// model is a VL checkpoint (Qwen3-VL-8B). A model with a vision tower trained as a language model
// (seed 002: Qwen3.5 on Tulu 3 through slime) is not one.
bool is_vlm_recipe(const RuleContext& ctx) {
  return has_word(ctx.facts.entry_point, "vl") || has_word(ctx.facts.name, "vl") ||
         has_word(ctx.model().name, "vl");
}

bool multimodal_dataset(std::string_view name) {
  static constexpr std::string_view kMarkers[] = {
      "vlm",   "image", "img",     "energon", "llava",  "cord",    "medpix", "raven",  "rdr",   "datacomp",
      "video", "multimodal", "laion", "coco", "vqa", "mmc4", "obelics", "pixel", "vision", "caption"};
  const std::string s = to_lower(name);
  for (std::string_view m : kMarkers)
    if (s.find(m) != std::string::npos) return true;
  return has_word(s, "vl");  // "mock vl", "local-vl"
}

// The launcher re-executes itself with the recipe env (seed 000: run_recipe.py, which train.sh
// runs) or applies it before exec'ing the trainer (setup_experiment.py -> bootstrap.py).
bool launcher_sets_env(const RecordFacts& f) {
  const std::string s = to_lower(f.launch_script);
  if (!s.empty())
    return s.find("run_recipe.py") != std::string::npos || s.find("train.sh") != std::string::npos ||
           s.find("setup_experiment.py") != std::string::npos;
  return f.framework.empty() || fold_name(f.framework) == "megatronbridge";
}

bool selects_cudnn_gdn(const RecordFacts& f) {
  for (const auto& k : f.kernels) {
    const std::string n = fold_name(k);
    if (n.find("cudnn") != std::string::npos && n.find("gdn") != std::string::npos) return true;
  }
  return false;
}

}  // namespace

// Seed 004 pitfall "VLM SFT missing image data": runs but produces garbage.
bool check_vlm_no_images(const RuleContext& ctx, Finding* out) {
  if (ctx.facts.dataset.empty() || !is_vlm_recipe(ctx) || multimodal_dataset(ctx.facts.dataset)) return false;
  if (out == nullptr) return true;
  return report(out,
                ctx.model().name + " is a vision-language model but the dataset \"" + ctx.facts.dataset +
                    "\" has no images: training runs but the vision path learns nothing useful",
                "use a multimodal dataset (energon, local-vlm, cord-v2, ...) or the mock VLM data",
                "workload.dataset.name", "workload.dataset");
}

// Seed 000: the vision CUDA graph was captured for a patch count per micro batch; a larger image
// budget (or MBS) exceeds it and stops training with an error (Megatron-Bridge
// modelling_qwen3_vl/vision_model.py _maybe_pad_vision_sequence_for_cuda_graph: "Vision input
// sequence length ... exceeds max_vision_cuda_graph_seq_length"). The budget is the workload's
// (estimate --max-pixels / --vision-graph-patches, or the recipe's `vision:` block through it), else
// the record's facts; patches per image as the estimator counts them (core/model.hpp
// vision_patches_per_image: Qwen-VL's smart_resize rounding to patch x merge).
bool check_vision_graph_cap(const RuleContext& ctx, Finding* out) {
  const ImageBudget& w = ctx.workload.image;
  const VisionFacts& f = ctx.facts.vision;
  const bool from_workload = w.max_pixels > 0 && w.graph_max_patches > 0;
  const int64_t max_pixels = from_workload ? w.max_pixels : f.max_pixels;
  const int64_t cap = from_workload ? w.graph_max_patches : f.cuda_graph_max_patches;
  const int per_sample = from_workload ? w.images_per_sample : f.images_per_sample;
  if (cap <= 0 || max_pixels <= 0) return false;
  const VisionDims& vd = ctx.model().vision;
  const int64_t per_image = vision_patches_per_image(vd, max_pixels);
  const int64_t images = static_cast<int64_t>(ctx.layout.mbs) * (per_sample > 0 ? per_sample : 1);
  const int64_t patches = per_image * images;
  if (patches <= cap) return false;
  if (out == nullptr) return true;
  // The largest budget within the cap at this MBS: whole merge units of (patch x merge)^2 pixels.
  const int64_t patch = vd.patch > 0 ? vd.patch : 16;
  const int64_t merge = vd.spatial_merge > 0 ? vd.spatial_merge : 1;
  const int64_t unit_pixels = patch * patch * merge * merge;
  const int64_t fit_pixels = cap / images / (merge * merge) * unit_pixels;
  return report(out,
                "image budget max_pixels " + str(max_pixels) + " gives up to " + str(per_image) +
                    " patches per image (patch " + str(patch) + (vd.patch > 0 ? "" : ", assumed") + ", merge " +
                    str(merge) + "), " + str(patches) + " per micro batch at MBS " + str(ctx.layout.mbs) +
                    ", above the vision CUDA-graph cap of " + str(cap) +
                    " patches: a micro batch of full-size images stops training with an error",
                "keep max_pixels <= " + str(fit_pixels) + " at this MBS, lower the MBS, or re-measure "
                    "cuda_graph_max_patches (max_vision_cuda_graph_seq_length) for this budget",
                "vision.max_pixels", "vision.cuda_graph_max_patches");
}

// Seed 000: NVTE_CUTEDSL_FUSED_GROUPED_MLP is read once when Transformer Engine is imported;
// run_recipe.py sets it in time by re-executing itself, any other entry point must export it
// before Python starts.
bool check_env_at_import(const RuleContext& ctx, Finding* out) {
  const RecordFacts& f = ctx.facts;
  if (f.env_gates.empty() || launcher_sets_env(f)) return false;
  const KeyValue* missing = nullptr;
  for (const auto& g : f.env_gates)
    if (find_value(f.env, g.key) == nullptr) {
      missing = &g;
      break;
    }
  if (missing == nullptr) return false;
  if (out == nullptr) return true;
  const std::string via = !f.launch_script.empty() ? f.launch_script : (f.framework.empty() ? "this" : f.framework);
  return report(out,
                missing->key + " is read once, when the library is imported; launched through " + via +
                    " it must be exported before Python starts, or the library silently keeps its default",
                "export " + missing->key + "=" + missing->value +
                    " in env (before Python starts), or launch through scripts/training/run_recipe.py",
                "features.env_gates." + missing->key, "features.env_gates");
}

// Seed 000 and Bridge _select_gdn_kernel_backend: cuDNN GDN needs a Megatron-Core whose
// TransformerConfig declares gdn_kernel_backend (NVIDIA/Megatron-LM#7583) and Transformer Engine
// >= 2.19; otherwise the GatedDeltaNet layers silently keep running on FLA.
bool check_kernel_backend_mcore(const RuleContext& ctx, Finding* out) {
  const RecordFacts& f = ctx.facts;
  if (!selects_cudnn_gdn(f)) return false;
  const bool unpinned = f.stack.megatron_core.empty();
  const std::vector<int> te = parse_version(f.stack.transformer_engine);
  const bool old_te = !te.empty() && compare_versions(te, {2, 19}) < 0;
  if (!unpinned && !old_te) return false;
  if (out == nullptr) return true;
  std::string why = unpinned ? "the record does not pin a Megatron-Core, and only one that declares "
                               "gdn_kernel_backend (NVIDIA/Megatron-LM#7583) selects it"
                             : "Transformer Engine " + f.stack.transformer_engine +
                                   " has no GatedDeltaNetAttention (added in 2.19)";
  return report(out, "cuDNN GDN is selected but " + why + "; otherwise the GDN layers silently run on FLA",
                "pin megatron_core with gdn_kernel_backend, transformer_engine >= 2.19 and nvidia-cudnn-frontend >= "
                "1.29 in stack, or compare against FLA (model.gdn_kernel_backend=fla)",
                "features.kernels", unpinned ? "stack" : "stack.transformer_engine");
}

// Seed 002 notes: with Triton 3.6, FLA 0.4.1's autotuner picks gated-delta-net kernel configs that
// race on Blackwell (a different, wrong result on every call); patches/fla_blackwell_guard.py
// keeps them on the configs FLA main uses.
bool check_fla_blackwell_guard(const RuleContext& ctx, Finding* out) {
  const RecordFacts& f = ctx.facts;
  if (ctx.pm.gdn_layers == 0 || !is_blackwell_family(ctx.pm.arch)) return false;
  const std::vector<int> fla = parse_version(f.stack.fla);
  if (fla.empty() || compare_versions(fla, {0, 4, 1}) > 0) return false;
  const std::vector<int> triton = parse_version(f.stack.triton);
  if (!triton.empty() && compare_versions(triton, {3, 6}) < 0) return false;
  for (const auto& p : f.patches) {
    const std::string s = to_lower(p);
    if (s.find("fla") != std::string::npos && s.find("guard") != std::string::npos) return false;
  }
  if (out == nullptr) return true;
  return report(out,
                "Gated DeltaNet on " + ctx.hardware()->name + " with FLA " + f.stack.fla +
                    (f.stack.triton.empty() ? std::string() : " and Triton " + f.stack.triton) +
                    " without the FLA guard patch: the autotuner picks kernel configs that race on Blackwell and "
                    "give a different, wrong result on every call",
                "import patches/fla_blackwell_guard.py in every training process before FLA (list it in patches), "
                "or use an FLA release after 0.4.1",
                "patches", "stack.fla");
}

// Seed 000: bare recipe lookup resolves a name to the recipe that carries it, so an entry point
// that is another recipe's name runs that recipe (hence the _library suffix there).
bool check_recipe_name_collision(const RuleContext& ctx, Finding* out) {
  const RecordFacts& f = ctx.facts;
  if (f.entry_point.empty() || f.entry_point == f.name) return false;
  const CatalogRecipeRef* hit = nullptr;
  for (const auto& r : f.catalog) {
    if (r.name != f.entry_point || r.name == f.name) continue;
    bool base = false;
    for (const auto& b : f.extends_chain) base = base || b == r.name;
    if (!base) {
      hit = &r;
      break;
    }
  }
  if (hit == nullptr) return false;
  if (out == nullptr) return true;
  return report(out,
                "entry point " + f.entry_point + " is the name of the " + (hit->kind.empty() ? "" : hit->kind + " ") +
                    "recipe " + hit->name + ", and bare recipe lookup resolves the name to that recipe, not this one",
                "give this recipe a distinct entry point (seed 000 added a _library suffix), or extend " + hit->name,
                "entry_point");
}

// Operational rule (Megatron-Bridge performance guide; MCore enforces it for local graphs below
// sm100): with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True, CUDA graphs need
// NCCL_GRAPH_REGISTER=0.
bool check_nccl_graph_register(const RuleContext& ctx, Finding* out) {
  if (ctx.layout.cuda_graph == CudaGraph::kNone) return false;
  const std::string* alloc = find_value(ctx.facts.env, "PYTORCH_CUDA_ALLOC_CONF");
  if (alloc == nullptr || !contains_ci(*alloc, "expandable_segments:true")) return false;
  const std::string* reg = find_value(ctx.facts.env, "NCCL_GRAPH_REGISTER");
  if (reg != nullptr && *reg == "0") return false;
  if (out == nullptr) return true;
  return report(out,
                "PYTORCH_CUDA_ALLOC_CONF=" + *alloc + " with CUDA graphs (" +
                    std::string(cuda_graph_name(ctx.layout.cuda_graph)) + ") needs NCCL_GRAPH_REGISTER=0" +
                    (reg != nullptr ? " (it is " + *reg + ")" : ""),
                "export NCCL_GRAPH_REGISTER=0", "env.PYTORCH_CUDA_ALLOC_CONF",
                reg != nullptr ? "env.NCCL_GRAPH_REGISTER" : "env");
}

}  // namespace rb
