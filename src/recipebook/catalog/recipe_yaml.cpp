#include "recipebook/catalog/recipe_yaml.hpp"

#include "recipebook/catalog/recipe_layout.hpp"
#include "recipebook/catalog/yaml_read.hpp"
#include "recipebook/core/strings.hpp"

namespace rb {
namespace {

constexpr const char* kRule = "RB-RECIPE-VALUE";

std::optional<RecipeKind> parse_kind(std::string_view s) {
  if (s == "library") return RecipeKind::kLibrary;
  if (s == "performance") return RecipeKind::kPerformance;
  if (s == "verified") return RecipeKind::kVerified;
  if (s == "measured") return RecipeKind::kMeasured;
  return std::nullopt;
}

Measurement read_measurement(YamlReader& r, const YNode& m, const std::string& p) {
  Measurement out;
  out.release = r.string(&m, "release", p, true).value_or("");
  out.source = r.string(&m, "source", p).value_or("");
  out.current = r.boolean(&m, "current", p).value_or(true);
  out.benchmark = r.boolean(&m, "benchmark", p).value_or(true);
  out.gpus = r.int32(&m, "gpus", p).value_or(0);
  out.gpu = r.string(&m, "gpu", p).value_or("");
  out.precision = r.string(&m, "precision", p).value_or("");
  out.gbs = r.int64(&m, "gbs", p).value_or(0);
  out.mbs = r.int64(&m, "mbs", p).value_or(0);
  out.seq = r.int64(&m, "seq", p).value_or(0);
  if (const YNode* l = r.map(&m, "layout", p)) {
    const std::string lp = p + ".layout";
    out.tp = r.int32(l, "tp", lp).value_or(0);
    out.pp = r.int32(l, "pp", lp).value_or(0);
    out.cp = r.int32(l, "cp", lp).value_or(0);
    out.vp = r.int32(l, "vp", lp).value_or(0);
    out.ep = r.int32(l, "ep", lp).value_or(0);
    out.etp = r.int32(l, "etp", lp).value_or(0);
    out.fsdp = r.int32(l, "fsdp", lp).value_or(0);
  }
  // Megatron-Bridge's performance tables write "n/a" in the VP column of a run without virtual
  // pipeline stages (docs/performance-summary.md: a number where VP is used); the generator keeps it
  // as `not_applicable: [vp]`. That run had VP 1, not the recipe's VP.
  if (const YNode* na = m.get("not_applicable"); out.vp == 0 && na != nullptr && na->is_seq())
    for (const YNode& item : na->seq)
      if (item.is_scalar() && item.text == "vp") out.vp = 1;
  out.tokens_per_s_per_gpu = r.number(&m, "tokens_per_s_per_gpu", p).value_or(0);
  out.model_tflops_per_gpu = r.number(&m, "model_tflops_per_gpu", p).value_or(0);
  out.notes = r.string(&m, "notes", p).value_or("");
  out.overrides = read_layout_overrides(r, &m, p);
  return out;
}

void read_workload(YamlReader& r, const YNode& doc, Recipe& rec) {
  const YNode* w = r.map(&doc, "workload", "");
  rec.seq = r.int64(w, "row_tokens", "workload", 1).value_or(0);
  rec.gbs = r.int64(w, "global_batch", "workload", 1).value_or(0);
  if (auto p = r.string(w, "precision", "workload")) {
    if (auto prec = parse_precision(*p)) {
      rec.layout.precision = *prec;
      rec.precision_known = true;
    } else {
      r.error(*w->get("precision"), "`workload.precision` is '" + *p + "', not a known precision",
              "use bf16, fp8_cs, fp8_ds, fp8_blockwise, mxfp8 or nvfp4");
    }
  }
}

// A VLM recipe's image budget (docs/catalog-format.md "vision"): what the estimator runs the vision
// tower on. The cap is the patch count the vision CUDA graph was captured for.
void read_vision(YamlReader& r, const YNode& doc, Recipe& rec) {
  const YNode* v = r.map(&doc, "vision", "");
  rec.image.max_pixels = r.int64(v, "max_pixels", "vision", 1).value_or(0);
  rec.image.images_per_sample = r.int32(v, "images_per_sample", "vision", 1).value_or(1);
  rec.image.graph_max_patches = r.int64(v, "cuda_graph_max_patches", "vision", 1).value_or(0);
}

void read_result(YamlReader& r, const YNode& doc, Recipe& rec) {
  const YNode* res = r.map(&doc, "result", "");
  rec.tokens_per_s_per_gpu = r.number(res, "tokens_per_s_per_gpu", "result");
  rec.mfu = r.number(res, "mfu", "result");
  rec.usd_per_million_tokens = r.number(res, "usd_per_million_tokens", "result");
  const YNode* ms = doc.get("measurements");
  if (ms == nullptr || ms->is_null()) return;
  if (!ms->is_seq()) {
    r.error(*ms, "`measurements` must be a list, found " + ms->type_name());
    return;
  }
  for (size_t i = 0; i < ms->seq.size(); ++i) {
    const std::string p = "measurements[" + std::to_string(i) + "]";
    if (!ms->seq[i].is_map()) {
      r.error(ms->seq[i], "`" + p + "` must be a map, found " + ms->seq[i].type_name());
      continue;
    }
    rec.measurements.push_back(read_measurement(r, ms->seq[i], p));
  }
}

void read_env(YamlReader& r, const YNode& doc, Recipe& rec) {
  const YNode* env = r.map(&doc, "env", "");
  if (env == nullptr) return;
  for (const auto& [k, v] : env->map) {
    if (v.is_null()) {
      rec.env[k.text] = "";
    } else if (v.is_scalar()) {
      rec.env[k.text] = v.text;
    } else {
      r.error(v, "`env." + k.text + "` must be a string, found " + v.type_name());
    }
  }
}

}  // namespace

std::optional<Recipe> recipe_from_yaml(const YNode& doc, const std::string& stem, Diagnostics& diags) {
  YamlReader r(diags, kRule);
  if (!doc.is_map()) {
    r.error(doc, "a recipe file must be a map, found " + doc.type_name());
    return std::nullopt;
  }
  Recipe rec;
  rec.where = doc.where;
  rec.where.line = rec.where.line > 0 ? 1 : 0;
  rec.where.col = rec.where.line > 0 ? 1 : 0;
  rec.name = r.string(&doc, "name", "").value_or(stem);
  rec.status = r.string(&doc, "status", "").value_or("");
  if (auto k = r.string(&doc, "kind", "")) {
    if (auto kind = parse_kind(*k))
      rec.kind = *kind;
    else
      r.error(*doc.get("kind"), "`kind` is '" + *k + "'", "use library, performance, verified or measured");
  } else {
    rec.kind = rec.status == "verified" ? RecipeKind::kVerified : RecipeKind::kLibrary;
  }
  if (auto m = r.string(&doc, "mode", "")) {
    if (auto mode = parse_mode(*m))
      rec.mode = *mode;
    else
      r.error(*doc.get("mode"), "`mode` is '" + *m + "'", "use pretrain, sft or peft");
  }
  rec.model = r.string(&doc, "model", "").value_or("");
  int gpus = 0;
  if (const YNode* gpu = doc.get("gpu"); gpu != nullptr && gpu->is_scalar()) {
    rec.gpu = gpu->text;  // a bare GPU name
  } else if (const YNode* g = r.map(&doc, "gpu", "")) {
    rec.gpu = r.string(g, "type", "gpu").value_or("");
    gpus = r.int32(g, "count", "gpu", 1).value_or(0);
    rec.gpus_per_node = r.int32(g, "per_node", "gpu", 1).value_or(0);
  }
  rec.gpus = gpus;
  rec.framework = r.string(&doc, "framework", "").value_or("");
  if (rec.framework.empty()) {
    if (const YNode* stack = r.map(&doc, "stack", ""))
      rec.framework = r.string(stack, "framework", "stack").value_or("");
  }
  rec.entry_point = r.string(&doc, "entry_point", "").value_or("");
  rec.extends = r.string(&doc, "extends", "").value_or("");
  rec.source = r.string(&doc, "source", "").value_or("");
  read_workload(r, doc, rec);
  read_vision(r, doc, rec);
  read_layout(r, doc, gpus, rec);
  read_result(r, doc, rec);
  const auto helpers = r.string_list(&doc, "helpers", "");
  rec.applies_flex_backend =
      std::find(helpers.begin(), helpers.end(), "apply_flex_dispatcher_backend") != helpers.end();
  apply_release_dispatchers(rec);  // the dispatcher the record and each measured run ran
  read_env(r, doc, rec);
  rec.notes = r.string(&doc, "notes", "").value_or("");
  rec.pitfalls = r.string_list(&doc, "pitfalls", "");
  if (r.failed()) return std::nullopt;
  return rec;
}

}  // namespace rb
