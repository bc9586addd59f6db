#include "recipebook/emit/catalog_json.hpp"

#include <algorithm>

namespace rb {

double best_tokens_per_s(const Recipe& r) {
  double best = r.tokens_per_s_per_gpu.value_or(0.0);
  for (const auto& m : r.measurements)
    if (m.current) best = std::max(best, m.tokens_per_s_per_gpu);
  return best;
}

Json recipe_json(const RecipeEntry& e) {
  const Recipe& r = e.recipe;
  Json j;
  j["name"] = r.name;
  j["kind"] = recipe_kind_name(r.kind);
  j["mode"] = std::string(mode_name(r.mode));
  j["model"] = r.model;
  j["gpu"] = r.gpu;
  j["gpus"] = r.gpus;
  if (r.seq > 0) j["seq"] = r.seq;
  if (r.gbs > 0) j["gbs"] = r.gbs;
  j["layout"] = r.layout_known ? layout_json(r.layout) : Json(nullptr);
  j["framework"] = r.framework;
  j["entry_point"] = r.entry_point;
  if (!r.extends.empty()) j["extends"] = r.extends;
  j["measurements"] = r.measurements.size();
  const double best = best_tokens_per_s(r);
  j["best_tokens_per_s_per_gpu"] = best > 0 ? Json(best) : Json(nullptr);
  j["source"] = r.source;
  j["origin"] = e.origin;
  j["file"] = r.where.file;
  return j;
}

Json model_json(const ModelEntry& e) {
  const Model& m = e.model;
  Json j;
  j["name"] = m.name;
  j["hf_id"] = m.hf_id;
  j["family"] = m.family;
  j["aliases"] = m.aliases;
  j["has_architecture"] = m.has_architecture;
  if (m.has_architecture) {
    j["layers"] = m.num_layers();
    j["hidden"] = m.hidden;
    j["heads"] = m.attn.heads;
    j["kv_heads"] = m.attn.kv_heads;
    j["vocab"] = m.vocab;
    j["experts"] = m.moe.experts;
    j["top_k"] = m.moe.top_k;
  }
  j["published_total_params"] = m.published_total_params;
  j["published_active_params"] = m.published_active_params;
  j["source"] = m.source;
  j["origin"] = e.origin;
  return j;
}

Json hardware_json(const HardwareEntry& e) {
  const Hardware& h = e.hardware;
  Json j;
  j["name"] = h.name;
  j["display"] = h.display;
  j["aliases"] = h.aliases;
  j["has_specs"] = h.has_specs;
  if (h.has_specs) {
    j["memory_bytes"] = h.memory_bytes;
    j["hbm_bytes_per_s"] = h.hbm_bytes_per_s;
    j["bf16_flops_per_s"] = h.bf16_flops_per_s;
    j["fp8_flops_per_s"] = h.fp8_flops_per_s;
    j["fp4_flops_per_s"] = h.fp4_flops_per_s;
    j["gpus_per_node"] = h.gpus_per_node;
    j["nvlink_domain"] = h.nvlink_domain;
    j["nvlink_bytes_per_s"] = h.nvlink_bytes_per_s;
    j["scaleout_bytes_per_s"] = h.scaleout_bytes_per_s;
  }
  j["usd_per_gpu_hour"] = h.usd_per_gpu_hour > 0 ? Json(h.usd_per_gpu_hour) : Json(nullptr);
  j["price_date"] = h.price_date;
  j["price_source"] = h.price_source;
  j["source"] = h.source;
  j["origin"] = e.origin;
  return j;
}

}  // namespace rb
