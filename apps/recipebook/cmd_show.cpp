#include "recipebook/cmd_show.hpp"

#include <fmt/format.h>

#include <ostream>

#include "recipebook/catalog/measured_points.hpp"
#include "recipebook/catalog/model_source.hpp"
#include "recipebook/catalog_access.hpp"
#include "recipebook/core/strings.hpp"
#include "recipebook/core/units.hpp"
#include "recipebook/emit/catalog_json.hpp"
#include "recipebook/emit/table.hpp"
#include "recipebook/estimate/estimate.hpp"
#include "recipebook/estimate/prepared.hpp"
#include "recipebook/search/resize.hpp"

namespace rb::cli {
namespace {

// The estimator's tokens/s/GPU for each measurement of a recipe (index-aligned; nullopt for a
// superseded one, or one whose GPU has no figures or whose degrees do not divide its GPUs): the
// measured run's own layout, batch, sequence and GPUs (measured_run), over the recipe's features,
// with the layers a PP does not divide split as `estimate --recipe` splits them. `none` says why a
// recipe gets no prediction at all.
struct Predictions {
  std::vector<std::optional<double>> tokens_per_s_per_gpu;
  std::string none;
};

Predictions predict_measurements(const Catalog& cat, const Recipe& r) {
  Predictions p;
  p.tokens_per_s_per_gpu.resize(r.measurements.size());
  if (r.measurements.empty()) return p;
  auto model = cat.find_model(r.model);
  if (!model) {
    p.none = "the recipe's model: " + model.error().message;
    return p;
  }
  if (!model->has_architecture) {
    p.none = "the recipe's model: " + no_architecture_reason(*model);
    return p;
  }
  const PreparedModel pm = prepare(*model);
  for (size_t i = 0; i < r.measurements.size(); ++i) {
    const Measurement& m = r.measurements[i];
    if (!m.current) continue;
    auto hw = cat.find_hardware(m.gpu.empty() ? r.gpu : m.gpu);
    auto run = measured_run(r, m, *model);
    if (!hw || !hw->has_specs || !run) continue;
    const Estimate e = estimate(pm, *hw, run->work, run->cluster, run->layout);
    if (e.valid && e.tokens_per_s_per_gpu > 0) p.tokens_per_s_per_gpu[i] = e.tokens_per_s_per_gpu;
  }
  return p;
}

Json predictions_json(const Recipe& r, const Predictions& p) {
  Json out = Json::array();
  for (size_t i = 0; i < r.measurements.size(); ++i) {
    const Measurement& m = r.measurements[i];
    const auto& pred = p.tokens_per_s_per_gpu[i];
    out.push_back({{"release", m.release},
                   {"gpus", m.gpus},
                   {"gpu", m.gpu.empty() ? r.gpu : m.gpu},
                   {"precision", m.precision},
                   {"current", m.current},
                   {"measured_tokens_per_s_per_gpu", m.tokens_per_s_per_gpu},
                   {"predicted_tokens_per_s_per_gpu", pred ? Json(*pred) : Json(nullptr)},
                   {"measured_over_predicted", pred && m.tokens_per_s_per_gpu > 0 ? Json(m.tokens_per_s_per_gpu / *pred) : Json(nullptr)}});
  }
  return out;
}

void print_recipe(const Recipe& r, const Predictions& pred, const Context& ctx) {
  auto line = [&](const char* key, const std::string& value) {
    if (!value.empty()) ctx.out << fmt::format("{:<13}{}\n", key, value);
  };
  line("name", r.name);
  line("kind", recipe_kind_name(r.kind));
  line("mode", std::string(mode_name(r.mode)));
  line("model", r.model);
  line("gpus", r.gpus > 0 ? fmt::format("{} x {}", r.gpus, r.gpu) : r.gpu);
  line("framework", r.framework);
  line("entry point", r.entry_point);
  line("extends", r.extends);
  if (r.seq > 0) line("sequence", std::to_string(r.seq));
  if (r.gbs > 0) line("global batch", std::to_string(r.gbs));
  if (r.precision_known) line("precision", std::string(precision_name(r.layout.precision)));
  if (r.layout_known) {
    const Layout& l = r.layout;
    line("layout", fmt::format("TP {} PP {} VP {} CP {} EP {} ETP {} DP {}, micro batch {}{}{}", l.tp, l.pp, l.vp,
                               cp_text(l), l.ep, l.etp, l.dp, l.mbs, l.sp ? ", sequence parallel" : "",
                               l.fsdp ? ", FSDP" : ""));
    std::string rc(recompute_name(l.recompute));
    if (l.recompute == Recompute::kSelective)
      rc += " (" + recompute_modules_str(l.recompute_modules == 0 ? kRcDefault : l.recompute_modules) + ")";
    if (l.recompute == Recompute::kFull) rc += fmt::format(" ({} layer(s))", l.recompute_layers);
    line("recompute", rc);
    line("dispatcher", std::string(dispatcher_name(l.dispatcher)));
    line("cuda graphs", std::string(cuda_graph_name(l.cuda_graph)));
  } else {
    line("layout", "not fully given by the source");
  }
  if (r.tokens_per_s_per_gpu) line("result", fmt::format("{:.1f} tokens/s/GPU", *r.tokens_per_s_per_gpu));
  if (r.mfu) line("mfu", fmt::format("{:.4f}", *r.mfu));
  if (r.usd_per_million_tokens) line("USD/Mtok", fmt::format("{:.2f}", *r.usd_per_million_tokens));
  for (const auto& [k, v] : r.env) line("env", k + "=" + v);
  line("source", r.source);
  line("file", r.where.file);
  if (!r.measurements.empty()) {
    ctx.out << "\nmeasurements:\n";
    Table t({{"release"}, {"gpus", Align::kRight}, {"precision"}, {"gbs", Align::kRight}, {"mbs", Align::kRight},
             {"seq", Align::kRight}, {"tok/s/GPU", Align::kRight}, {"predicted", Align::kRight},
             {"meas/pred", Align::kRight}, {"TFLOP/s/GPU", Align::kRight}, {"status"}});
    for (size_t i = 0; i < r.measurements.size(); ++i) {
      const Measurement& m = r.measurements[i];
      const auto& p = pred.tokens_per_s_per_gpu[i];
      t.add_row({m.release, std::to_string(m.gpus), m.precision, m.gbs ? std::to_string(m.gbs) : "",
                 m.mbs ? std::to_string(m.mbs) : "", m.seq ? std::to_string(m.seq) : "",
                 fmt::format("{:.0f}", m.tokens_per_s_per_gpu), p ? fmt::format("{:.0f}", *p) : "",
                 p && m.tokens_per_s_per_gpu > 0 ? fmt::format("{:.2f}", m.tokens_per_s_per_gpu / *p) : "",
                 m.model_tflops_per_gpu > 0 ? fmt::format("{:.0f}", m.model_tflops_per_gpu) : "",
                 m.current ? "current" : "superseded/draft"});
    }
    ctx.out << t.render();
    ctx.out << (pred.none.empty() ? "predicted: the estimate of each current measurement's own layout, batch and GPUs\n"
                                  : "predicted: none (" + pred.none + ")\n");
  }
  if (!r.notes.empty()) ctx.out << "\nnotes:\n" << r.notes << (r.notes.back() == '\n' ? "" : "\n");
}

void print_model(const ModelEntry& e, const Context& ctx) {
  const Model& m = e.model;
  ctx.out << fmt::format("{:<13}{}\n", "name", m.name);
  if (!m.hf_id.empty()) ctx.out << fmt::format("{:<13}{}\n", "hf_id", m.hf_id);
  if (!m.family.empty()) ctx.out << fmt::format("{:<13}{}\n", "family", m.family);
  if (!m.has_architecture) {
    ctx.out << fmt::format("{:<13}{}\n", "architecture",
                           !m.kind.empty()     ? no_architecture_reason(m)
                           : !m.unsized_reason.empty() ? "unknown: " + m.unsized_reason
                                              : "not in the catalog yet (give a config.json path)");
  } else {
    ctx.out << fmt::format("{:<13}{} layers, hidden {}, {} heads ({} KV), vocab {}\n", "shape", m.num_layers(),
                           m.hidden, m.attn.heads, m.attn.kv_heads, m.vocab);
    if (m.is_moe())
      ctx.out << fmt::format("{:<13}{} experts, top-{}, expert FFN {}, {} shared\n", "moe", m.moe.experts,
                             m.moe.top_k, m.moe.ffn, m.moe.shared_experts);
  }
  if (!m.aliases.empty()) {
    std::string a;
    for (const auto& s : m.aliases) a += (a.empty() ? "" : ", ") + s;
    ctx.out << fmt::format("{:<13}{}\n", "aliases", a);
  }
  ctx.out << fmt::format("{:<13}{}\n", "source", m.source);
}

void print_hardware(const HardwareEntry& e, const Context& ctx) {
  const Hardware& h = e.hardware;
  auto line = [&](const char* key, const std::string& value) { ctx.out << fmt::format("{:<14}{}\n", key, value); };
  line("name", h.name);
  line("display", h.display);
  if (h.has_specs) {
    line("memory", format_bytes(h.memory_bytes));
    line("HBM", fmt::format("{:.2f} TB/s", h.hbm_bytes_per_s / 1e12));
    line("dense peak", fmt::format("bf16 {:.0f}, fp8 {:.0f}, fp4 {:.0f} TFLOP/s", h.bf16_flops_per_s / 1e12,
                                   h.fp8_flops_per_s / 1e12, h.fp4_flops_per_s / 1e12));
    line("node", fmt::format("{} GPUs, NVLink domain {} at {:.0f} GB/s per GPU, scale-out {:.0f} GB/s per GPU",
                             h.gpus_per_node, h.nvlink_domain, h.nvlink_bytes_per_s / 1e9,
                             h.scaleout_bytes_per_s / 1e9));
  } else {
    line("specs", "not in the catalog (no published figures in the data)");
  }
  line("price", h.usd_per_gpu_hour > 0 ? fmt::format("{:.3f} USD/GPU-hour ({}, {})", h.usd_per_gpu_hour,
                                                     h.price_date, h.price_source)
                                       : "no public price");
  line("source", h.source);
}

}  // namespace

int run_show(const ShowOptions& o, const Context& ctx) {
  auto cat = load_catalog(ctx);
  if (!cat) return kExitUsage;
  return run_show(o, ctx, *cat);
}

int run_show(const ShowOptions& o, const Context& ctx, const Catalog& catalog) {
  const Catalog* cat = &catalog;

  if (auto rec = cat->find_recipe(o.name)) {
    const RecipeEntry& e = **rec;
    Recipe r = e.recipe;
    if (o.resolved) {
      auto res = cat->resolved(o.name);
      if (!res) return report(ctx, res.error());
      r = *res;
    }
    // The measurements shown, each predicted over the record as it runs (its `extends` applied).
    auto full = cat->resolved(o.name);
    Recipe runs = full ? *full : r;
    runs.measurements = r.measurements;
    const Predictions pred = predict_measurements(*cat, runs);
    if (ctx.json) {
      RecipeEntry shown{r, e.tree, e.origin};
      Json j = recipe_json(shown);
      j["record"] = Json::parse(to_json_text(e.tree));
      j["predictions"] = predictions_json(r, pred);
      if (!pred.none.empty()) j["predictions_none"] = pred.none;
      ctx.out << j.dump(2) << "\n";
    } else {
      print_recipe(r, pred, ctx);
    }
    return kExitOk;
  }
  for (const auto& m : cat->models()) {
    if (fold_name(m.model.name) != fold_name(o.name)) continue;
    if (ctx.json) {
      Json j = model_json(m);
      if (auto a = model_architecture_json(m.model)) j["architecture"] = *a;  // the catalog YAML's
      ctx.out << j.dump(2) << "\n";
    } else {
      print_model(m, ctx);
    }
    return kExitOk;
  }
  for (const auto& h : cat->hardware()) {
    if (fold_name(h.hardware.name) != fold_name(o.name)) continue;
    if (ctx.json)
      ctx.out << hardware_json(h).dump(2) << "\n";
    else
      print_hardware(h, ctx);
    return kExitOk;
  }
  std::vector<std::string> names;
  for (const auto& e : cat->recipes()) names.push_back(e.recipe.name);
  for (const auto& e : cat->models()) names.push_back(e.model.name);
  for (const auto& e : cat->hardware()) names.push_back(e.hardware.name);
  const auto near = suggestions(o.name, names);
  std::string fix = "see 'recipebook list', 'list --models' or 'list --hardware'";
  if (!near.empty()) {
    fix = "did you mean ";
    for (size_t i = 0; i < near.size(); ++i) fix += (i ? ", " : "") + std::string("'") + near[i] + "'";
    fix += "?";
  }
  return report(ctx, Error{"no recipe, model or GPU is named '" + o.name + "'", {}, fix});
}

}  // namespace rb::cli
