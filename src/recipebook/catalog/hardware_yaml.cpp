#include "recipebook/catalog/hardware_yaml.hpp"

#include <array>

#include "recipebook/catalog/yaml_read.hpp"
#include "recipebook/estimate/microbench.hpp"

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

// The items of one `microbenchmarks.<kind>` list: maps, each read by `one(item, path)`.
template <typename F>
void read_items(YamlReader& r, const YNode& mb, const char* kind, F one) {
  const YNode* list = nullptr;
  for (const auto& [k, v] : mb.map)
    if (k.text == kind) list = &v;
  if (list == nullptr || list->is_null()) return;
  if (!list->is_seq()) {
    r.error(*list, std::string("`microbenchmarks.") + kind + "` must be a list, found " + list->type_name());
    return;
  }
  for (size_t i = 0; i < list->seq.size(); ++i) {
    const YNode& item = list->seq[i];
    const std::string path = std::string("microbenchmarks.") + kind + "[" + std::to_string(i) + "]";
    if (!item.is_map()) {
      r.error(item, "`" + path + "` must be a map, found " + item.type_name());
      continue;
    }
    one(item, path);
  }
}

Fabric read_fabric(YamlReader& r, const YNode& item, const std::string& path) {
  const std::string f = r.string(&item, "fabric", path).value_or("nvlink");
  if (f != "nvlink" && f != "scaleout") r.error(item, "`" + path + ".fabric` must be nvlink or scaleout, found " + f);
  return f == "scaleout" ? Fabric::kScaleout : Fabric::kNvlink;
}

void read_microbenchmarks(YamlReader& r, const YNode& mb, Hardware& hw) {
  Microbenchmarks& out = hw.microbenchmarks;
  read_items(r, mb, "gemm", [&](const YNode& item, const std::string& path) {
    GemmFigure f;
    const std::string prec = r.string(&item, "precision", path).value_or("bf16");
    if (auto p = parse_precision(prec))
      f.precision = *p;
    else
      r.error(item, "unknown precision '" + prec + "' in `" + path + "`");
    f.m = r.number(&item, "m", path).value_or(0);
    f.n = r.number(&item, "n", path).value_or(0);
    f.k = r.number(&item, "k", path).value_or(0);
    f.groups = r.int32(&item, "groups", path, 1).value_or(0);  // absent: a dense GEMM
    f.flops_per_s = r.quantity(&item, "throughput", path, UnitKind::kFlopsPerSecond).value_or(0);
    f.library = r.string(&item, "library", path).value_or("");
    f.date = r.string(&item, "date", path, true).value_or("");
    f.source = r.string(&item, "source", path).value_or("");
    if (!(f.m > 0 && f.n > 0 && f.k > 0 && f.flops_per_s > 0))
      r.error(item, "`" + path + "` needs m, n, k and throughput");
    out.gemm.push_back(std::move(f));
  });
  read_items(r, mb, "collectives", [&](const YNode& item, const std::string& path) {
    CollectiveFigure f;
    const std::string op = r.string(&item, "op", path).value_or("");
    if (op == "all_reduce")
      f.op = CollectiveOp::kAllReduce;
    else if (op == "all_gather")
      f.op = CollectiveOp::kAllGather;
    else if (op == "reduce_scatter")
      f.op = CollectiveOp::kReduceScatter;
    else
      r.error(item, "`" + path + ".op` must be all_reduce, all_gather or reduce_scatter, found '" + op + "'");
    f.fabric = read_fabric(r, item, path);
    f.gpus = r.int32(&item, "gpus", path, 2).value_or(0);
    f.gpus_per_node = r.int32(&item, "gpus_per_node", path, 1).value_or(hw.gpus_per_node);
    f.message_bytes = r.quantity(&item, "message", path, UnitKind::kBytes).value_or(0);
    f.bus_bytes_per_s = r.quantity(&item, "busbw", path, UnitKind::kBytesPerSecond).value_or(0);
    f.nvls = r.boolean(&item, "nvls", path).value_or(false);
    f.date = r.string(&item, "date", path, true).value_or("");
    f.source = r.string(&item, "source", path).value_or("");
    if (!(f.gpus > 1 && f.bus_bytes_per_s > 0)) r.error(item, "`" + path + "` needs gpus and busbw");
    out.collectives.push_back(std::move(f));
  });
  read_items(r, mb, "ep", [&](const YNode& item, const std::string& path) {
    EpFigure f;
    f.library = r.string(&item, "library", path).value_or("");
    const std::string op = r.string(&item, "op", path).value_or("");
    if (op != "dispatch" && op != "combine")
      r.error(item, "`" + path + ".op` must be dispatch or combine, found '" + op + "'");
    f.combine = op == "combine";
    f.fabric = read_fabric(r, item, path);
    f.ep = r.int32(&item, "ep", path, 2).value_or(0);
    f.gpus_per_node = r.int32(&item, "gpus_per_node", path, 1).value_or(hw.gpus_per_node);
    f.tokens = r.number(&item, "tokens", path).value_or(0);
    f.hidden = r.number(&item, "hidden", path).value_or(0);
    f.top_k = r.int32(&item, "top_k", path, 1).value_or(0);
    f.fp8 = r.boolean(&item, "fp8", path).value_or(false);
    f.bytes_per_s = r.quantity(&item, "bandwidth", path, UnitKind::kBytesPerSecond).value_or(0);
    f.date = r.string(&item, "date", path, true).value_or("");
    f.source = r.string(&item, "source", path).value_or("");
    if (!(f.ep > 1 && f.bytes_per_s > 0)) r.error(item, "`" + path + "` needs ep and bandwidth");
    out.ep.push_back(std::move(f));
  });
  read_items(r, mb, "attention", [&](const YNode& item, const std::string& path) {
    AttentionFigure f;
    const std::string prec = r.string(&item, "precision", path).value_or("bf16");
    if (auto p = parse_precision(prec); p && (*p == Precision::kBf16 || *p == Precision::kFp8Cs || *p == Precision::kMxfp8))
      f.precision = *p;
    else
      r.error(item, "`" + path + ".precision` must be bf16, fp8_cs or mxfp8, found '" + prec + "'");
    const std::string pass = r.string(&item, "pass", path).value_or("");
    if (pass != "fwd" && pass != "bwd") r.error(item, "`" + path + ".pass` must be fwd or bwd, found '" + pass + "'");
    f.backward = pass == "bwd";
    f.causal = r.boolean(&item, "causal", path).value_or(true);
    f.batch = r.int32(&item, "batch", path, 1).value_or(1);
    f.seq = r.number(&item, "seq", path).value_or(0);
    f.heads = r.int32(&item, "heads", path, 1).value_or(0);
    f.kv_heads = r.int32(&item, "kv_heads", path, 1).value_or(f.heads);
    f.head_dim = r.int32(&item, "head_dim", path, 1).value_or(0);
    f.flops_per_s = r.quantity(&item, "throughput", path, UnitKind::kFlopsPerSecond).value_or(0);
    f.library = r.string(&item, "library", path).value_or("");
    f.date = r.string(&item, "date", path, true).value_or("");
    f.source = r.string(&item, "source", path).value_or("");
    if (!(f.seq > 0 && f.heads > 0 && f.head_dim > 0 && f.flops_per_s > 0))
      r.error(item, "`" + path + "` needs seq, heads, head_dim and throughput");
    out.attention.push_back(std::move(f));
  });
  read_items(r, mb, "delta_rule", [&](const YNode& item, const std::string& path) {
    DeltaRuleFigure f;
    const std::string pass = r.string(&item, "pass", path).value_or("");
    if (pass != "fwd" && pass != "bwd") r.error(item, "`" + path + ".pass` must be fwd or bwd, found '" + pass + "'");
    f.backward = pass == "bwd";
    f.sequences = r.int32(&item, "sequences", path, 1).value_or(1);
    f.seq = r.number(&item, "seq", path).value_or(0);
    f.qk_heads = r.int32(&item, "qk_heads", path, 1).value_or(0);
    f.v_heads = r.int32(&item, "v_heads", path, 1).value_or(0);
    f.head_dim = r.int32(&item, "head_dim", path, 1).value_or(0);
    f.time_s = r.number(&item, "time_ms", path).value_or(0) * 1e-3;
    f.library = r.string(&item, "library", path).value_or("");
    f.date = r.string(&item, "date", path, true).value_or("");
    f.source = r.string(&item, "source", path).value_or("");
    if (!(f.seq > 0 && f.qk_heads > 0 && f.v_heads > 0 && f.head_dim > 0 && f.time_s > 0))
      r.error(item, "`" + path + "` needs seq, qk_heads, v_heads, head_dim and time_ms");
    out.delta_rule.push_back(std::move(f));
  });
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
    // What neither this precision nor bf16 gives comes from the GPU's microbenchmarks, else the defaults.
    Efficiency e = prior_efficiency(hw, static_cast<Precision>(p));
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
    hw.host_cpu = r.string(host, "cpu", "host").value_or("");
    if (const auto family = r.string(host, "cpu_family", "host")) {
      if (*family == "grace") {
        hw.host_cpu_family = HostCpuFamily::kGrace;
      } else if (*family != "x86") {
        r.error(*host, "`host.cpu_family` must be x86 or grace, found " + *family);
      }
    }
  }
  if (const YNode* price = r.map(&doc, "price", "")) {
    hw.usd_per_gpu_hour = r.number(price, "usd_per_gpu_hour", "price").value_or(0);
    hw.price_date = r.string(price, "date", "price", true).value_or("");
    hw.price_source = r.string(price, "source", "price").value_or("");
  }
  if (const YNode* mb = r.map(&doc, "microbenchmarks", "")) read_microbenchmarks(r, *mb, hw);
  read_efficiencies(r, r.map(&doc, "efficiency", ""), hw);
  if (r.failed()) return std::nullopt;
  return hw;
}

}  // namespace rb
