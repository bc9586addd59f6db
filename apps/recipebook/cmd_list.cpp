#include "recipebook/cmd_list.hpp"

#include <fmt/format.h>

#include <ostream>

#include "recipebook/catalog/model_source.hpp"
#include "recipebook/catalog_access.hpp"
#include "recipebook/core/strings.hpp"
#include "recipebook/core/units.hpp"
#include "recipebook/emit/catalog_json.hpp"
#include "recipebook/emit/table.hpp"

namespace rb::cli {
namespace {

std::string layout_cell(const Recipe& r) {
  if (!r.layout_known) return "-";
  const Layout& l = r.layout;
  std::string s = fmt::format("TP{} PP{}", l.tp, l.pp);
  if (l.vp > 1) s += fmt::format(" VP{}", l.vp);
  if (l.cp > 1) s += fmt::format(" CP{}", l.cp);
  if (l.ep > 1) s += fmt::format(" EP{}", l.ep);
  if (l.fsdp) s += " FSDP";
  return s;
}

// "yes", "config.json" (read from the model's public config.json), the kind of a model the estimator
// does not model ("diffusion"), "unknown" (no public source gave its architecture; `show` says what
// was searched), or "not yet" (a stub).
std::string architecture_cell(const ModelEntry& e) {
  const Model& m = e.model;
  if (!m.has_architecture) {
    if (!m.kind.empty()) return m.kind;
    return m.unsized_reason.empty() ? "not yet" : "unknown";
  }
  return e.tree.get("hf_config") != nullptr ? "config.json" : "yes";
}

int list_models(const Catalog& cat, const ListOptions& o, const Context& ctx) {
  Json arr = Json::array();
  Table t({{"name"}, {"hf_id"}, {"family"}, {"layers", Align::kRight}, {"hidden", Align::kRight},
           {"experts", Align::kRight}, {"architecture"}});
  const std::string want = fold_name(o.model);
  for (const auto& e : cat.models()) {
    const Model& m = e.model;
    if (!want.empty() && fold_name(m.name).find(want) == std::string::npos &&
        fold_name(m.family).find(want) == std::string::npos)
      continue;
    arr.push_back(model_json(e));
    t.add_row({m.name, m.hf_id, m.family, m.has_architecture ? std::to_string(m.num_layers()) : "",
               m.has_architecture ? std::to_string(m.hidden) : "",
               m.moe.experts > 0 ? std::to_string(m.moe.experts) : "", architecture_cell(e)});
  }
  if (ctx.json) {
    ctx.out << arr.dump(2) << "\n";
  } else {
    ctx.out << t.render();
    ctx.out << fmt::format("{} models\n", t.rows());
  }
  return kExitOk;
}

int list_hardware(const Catalog& cat, const Context& ctx) {
  Json arr = Json::array();
  Table t({{"name"}, {"display"}, {"memory", Align::kRight}, {"bf16 dense", Align::kRight},
           {"fp8 dense", Align::kRight}, {"GPUs/node", Align::kRight}, {"NVLink domain", Align::kRight},
           {"USD/GPU-h", Align::kRight}});
  for (const auto& e : cat.hardware()) {
    const Hardware& h = e.hardware;
    arr.push_back(hardware_json(e));
    if (!h.has_specs) {
      t.add_row({h.name, h.display, "?", "?", "?", "", "", ""});
      continue;
    }
    t.add_row({h.name, h.display, format_bytes(h.memory_bytes),
               fmt::format("{:.0f} TFLOP/s", h.bf16_flops_per_s / 1e12),
               h.fp8_flops_per_s > 0 ? fmt::format("{:.0f} TFLOP/s", h.fp8_flops_per_s / 1e12) : "-",
               std::to_string(h.gpus_per_node), std::to_string(h.nvlink_domain),
               h.usd_per_gpu_hour > 0 ? fmt::format("{:.2f}", h.usd_per_gpu_hour) : "n/a"});
  }
  if (ctx.json) {
    ctx.out << arr.dump(2) << "\n";
  } else {
    ctx.out << t.render();
  }
  return kExitOk;
}

}  // namespace

int run_list(const ListOptions& o, const Context& ctx) {
  auto cat = load_catalog(ctx);
  if (!cat) return kExitUsage;
  return run_list(o, ctx, *cat);
}

int run_list(const ListOptions& o, const Context& ctx, const Catalog& catalog) {
  const Catalog* cat = &catalog;
  if (o.what == "models") return list_models(*cat, o, ctx);
  if (o.what == "hardware") return list_hardware(*cat, ctx);

  RecipeFilter f;
  f.model = o.model;
  f.gpus = o.gpus;
  f.measured_only = o.measured;
  if (!o.mode.empty()) {
    f.mode = parse_mode(o.mode);
    if (!f.mode) return report(ctx, Error{"--mode: unknown mode '" + o.mode + "'", {}, "use pretrain, sft or peft"});
  }
  if (!o.kind.empty()) {
    for (auto k : {RecipeKind::kLibrary, RecipeKind::kPerformance, RecipeKind::kVerified, RecipeKind::kMeasured})
      if (o.kind == recipe_kind_name(k)) f.kind = k;
    if (!f.kind)
      return report(ctx, Error{"--kind: unknown kind '" + o.kind + "'", {},
                               "use library, performance, verified or measured"});
  }
  if (!o.gpu.empty()) {
    auto hw = cat->find_hardware(o.gpu);
    if (!hw) return report(ctx, Error{"--gpu: " + hw.error().message, {}, hw.error().fix});
    f.gpu = hw->name;
  }
  auto rows = cat->list(f);
  if (o.limit > 0 && rows.size() > static_cast<size_t>(o.limit)) rows.resize(static_cast<size_t>(o.limit));

  if (ctx.json) {
    Json arr = Json::array();
    for (const auto* e : rows) arr.push_back(recipe_json(*e));
    ctx.out << arr.dump(2) << "\n";
    return kExitOk;
  }
  Table t({{"name"}, {"kind"}, {"mode"}, {"model"}, {"gpu"}, {"gpus", Align::kRight}, {"layout"},
           {"seq", Align::kRight}, {"gbs", Align::kRight}, {"precision"}, {"tok/s/GPU", Align::kRight}});
  for (const auto* e : rows) {
    const Recipe& r = e->recipe;
    const double best = best_tokens_per_s(r);
    t.add_row({r.name, recipe_kind_name(r.kind), std::string(mode_name(r.mode)), r.model, r.gpu,
               r.gpus > 0 ? std::to_string(r.gpus) : "", layout_cell(r), r.seq > 0 ? std::to_string(r.seq) : "",
               r.gbs > 0 ? std::to_string(r.gbs) : "",
               r.precision_known ? std::string(precision_name(r.layout.precision)) : "",
               best > 0 ? fmt::format("{:.0f}", best) : ""});
  }
  ctx.out << t.render();
  ctx.out << fmt::format("{} recipes ({} in the catalog)\n", rows.size(), cat->recipes().size());
  return kExitOk;
}

}  // namespace rb::cli
