#include "recipebook/catalog/hardware_yaml.hpp"

#include <array>

#include "recipebook/catalog/yaml_read.hpp"

namespace rb {
namespace {

constexpr const char* kRule = "RB-HW-VALUE";

// The fields of one `efficiency.<precision>` map; unset ones stay nullopt for the fallback.
struct PartialEfficiency {
  std::array<std::optional<double>, 6> v;
};

constexpr std::array<const char*, 6> kEffKeys = {"gemm", "attention", "hbm", "nvlink", "scaleout", "overlap"};

double& eff_field(Efficiency& e, size_t i) {
  switch (i) {
    case 0:
      return e.gemm;
    case 1:
      return e.attention;
    case 2:
      return e.hbm;
    case 3:
      return e.nvlink;
    case 4:
      return e.scaleout;
    default:
      return e.overlap;
  }
}

PartialEfficiency read_efficiency(YamlReader& r, const YNode& m, const std::string& path) {
  PartialEfficiency out;
  for (const auto& [k, v] : m.map) {
    size_t i = 0;
    while (i < kEffKeys.size() && k.text != kEffKeys[i]) ++i;
    if (i == kEffKeys.size()) {
      r.error(k, "unknown efficiency parameter '" + k.text + "' in `" + path + "`",
              "allowed: gemm, attention, hbm, nvlink, scaleout, overlap");
      continue;
    }
    const auto d = r.number(&m, k.text, path);
    if (!d) continue;
    if (!(*d > 0.0 && *d <= 1.0)) {
      r.error(v, "`" + path + "." + k.text + "` must be in (0, 1], found " + v.text);
      continue;
    }
    out.v[i] = d;
  }
  return out;
}

void read_efficiencies(YamlReader& r, const YNode* eff, Hardware& hw) {
  std::array<std::optional<PartialEfficiency>, kNumPrecisions> given;
  if (eff != nullptr) {
    for (const auto& [k, v] : eff->map) {
      const auto p = parse_precision(k.text);
      if (!p) {
        r.error(k, "unknown precision '" + k.text + "' under `efficiency`",
                "use bf16, fp8_cs, fp8_ds, fp8_blockwise, mxfp8 or nvfp4");
        continue;
      }
      if (v.is_null()) continue;
      if (!v.is_map()) {
        r.error(v, "`efficiency." + k.text + "` must be a map, found " + v.type_name());
        continue;
      }
      given[static_cast<size_t>(*p)] = read_efficiency(r, v, "efficiency." + k.text);
    }
  }
  const auto& bf16 = given[static_cast<size_t>(Precision::kBf16)];
  for (size_t p = 0; p < given.size(); ++p) {
    Efficiency e;  // the defaults
    for (size_t i = 0; i < kEffKeys.size(); ++i) {
      if (given[p] && given[p]->v[i])
        eff_field(e, i) = *given[p]->v[i];
      else if (bf16 && bf16->v[i])
        eff_field(e, i) = *bf16->v[i];
    }
    hw.efficiency[p] = e;
  }
}

}  // namespace

std::optional<Hardware> hardware_from_yaml(const YNode& doc, Diagnostics& diags) {
  YamlReader r(diags, kRule);
  if (!doc.is_map()) {
    r.error(doc, "a hardware file must be a map, found " + doc.type_name());
    return std::nullopt;
  }
  Hardware hw;
  hw.name = r.string(&doc, "name", "").value_or("");
  if (hw.name.empty()) r.error(doc, "the hardware entry has no `name`");
  hw.display = r.string(&doc, "display", "").value_or(hw.name);
  hw.aliases = r.string_list(&doc, "aliases", "");
  hw.source = r.string(&doc, "source", "").value_or("");

  std::optional<double> memory = r.quantity(&doc, "memory", "", UnitKind::kBytes);
  if (!memory) {
    if (auto gb = r.number(&doc, "memory_gb", "")) memory = *gb * 1e9;
  }
  hw.memory_bytes = memory.value_or(0);
  hw.hbm_bytes_per_s = r.quantity(&doc, "hbm_bandwidth", "", UnitKind::kBytesPerSecond).value_or(0);
  std::optional<double> bf16;
  if (const YNode* peak = r.map(&doc, "peak", "")) {
    bf16 = r.quantity(peak, "bf16", "peak", UnitKind::kFlopsPerSecond);
    hw.fp8_flops_per_s = r.quantity(peak, "fp8", "peak", UnitKind::kFlopsPerSecond).value_or(0);
    hw.fp4_flops_per_s = r.quantity(peak, "fp4", "peak", UnitKind::kFlopsPerSecond).value_or(0);
  }
  hw.bf16_flops_per_s = bf16.value_or(0);
  hw.has_specs = memory.has_value() && bf16.has_value();

  if (const YNode* node = r.map(&doc, "node", "")) {
    hw.gpus_per_node = r.int32(node, "gpus", "node", 1).value_or(hw.gpus_per_node);
    hw.nvlink_domain = r.int32(node, "nvlink_domain", "node", 1).value_or(hw.gpus_per_node);
    hw.nvlink_bytes_per_s =
        r.quantity(node, "nvlink_bandwidth", "node", UnitKind::kBytesPerSecond).value_or(0);
    hw.scaleout_bytes_per_s =
        r.quantity(node, "scaleout_bandwidth", "node", UnitKind::kBytesPerSecond).value_or(0);
  }
  hw.tdp_w = r.number(&doc, "tdp_w", "").value_or(0);
  if (const YNode* host = r.map(&doc, "host", "")) {
    hw.host_link_bytes_per_s =
        r.quantity(host, "link_bandwidth", "host", UnitKind::kBytesPerSecond).value_or(0);
    hw.host_memory_bytes = r.quantity(host, "memory", "host", UnitKind::kBytes).value_or(0);
    hw.host_memory_bytes_per_s =
        r.quantity(host, "memory_bandwidth", "host", UnitKind::kBytesPerSecond).value_or(0);
    hw.host_source = r.string(host, "source", "host").value_or("");
  }
  if (const YNode* price = r.map(&doc, "price", "")) {
    hw.usd_per_gpu_hour = r.number(price, "usd_per_gpu_hour", "price").value_or(0);
    hw.price_date = r.string(price, "date", "price", true).value_or("");
    hw.price_source = r.string(price, "source", "price").value_or("");
  }
  read_efficiencies(r, r.map(&doc, "efficiency", ""), hw);
  if (r.failed()) return std::nullopt;
  return hw;
}

}  // namespace rb
