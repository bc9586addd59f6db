// Memory against measured Megatron peaks: every row of bench/data/megatron_memory_peaks.csv (measured
// torch max_memory_allocated of public Megatron-LM test golden values and Megatron-Bridge studies, and
// layouts that ran out of memory) estimated as its source launched it. For a measured row: the
// estimator's allocated bytes (MemoryBreakdown::allocated_bytes) of the rank the figure comes from
// against the measured max allocated, per row and as MAPE; for an out-of-memory row: whether the
// estimator says the layout does not fit (the worst rank's device peak over the GPU's memory less the
// CLI's default 2 GiB headroom). The rows are a held-out check: nothing in the estimator is chosen on them.
// Then a second view (catalog_fit.hpp): the catalog's runs that ran and the Megatron-Bridge recipes,
// counted and listed where they are predicted not to fit (--verbose also lists the recipes).
//   cmake --build build/ci --target bench_memory_peaks && build/ci/bench/bench_memory_peaks [--verbose]
// Exit 1 when a row cannot be estimated (a CSV or catalog error).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "catalog_fit.hpp"
#include "recipebook/catalog/catalog.hpp"
#include "recipebook/core/layout.hpp"
#include "recipebook/core/pipeline_layout.hpp"
#include "recipebook/core/precision.hpp"
#include "recipebook/estimate/estimate.hpp"
#include "recipebook/estimate/memory.hpp"
#include "recipebook/estimate/prepared.hpp"

namespace {

using namespace rb;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// One CSV line split at commas; double quotes group a field.
std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

struct CsvRow {
  std::map<std::string, std::string> f;
  [[nodiscard]] const std::string& s(const std::string& k) const {
    static const std::string empty;
    auto it = f.find(k);
    return it == f.end() ? empty : it->second;
  }
  [[nodiscard]] bool has(const std::string& k) const { return !s(k).empty(); }
  [[nodiscard]] int i(const std::string& k, int def = 0) const { return has(k) ? std::stoi(s(k)) : def; }
  [[nodiscard]] int64_t l(const std::string& k) const { return has(k) ? std::stoll(s(k)) : 0; }
  [[nodiscard]] double d(const std::string& k) const { return has(k) ? std::stod(s(k)) : 0.0; }
};

std::vector<CsvRow> read_csv(const std::string& path) {
  std::ifstream in(path);
  std::vector<CsvRow> rows;
  std::vector<std::string> header;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cells = split_csv(line);
    if (header.empty()) {
      header = cells;
      continue;
    }
    CsvRow r;
    for (size_t k = 0; k < header.size() && k < cells.size(); ++k) r.f[header[k]] = cells[k];
    rows.push_back(std::move(r));
  }
  return rows;
}

std::string semis_to_commas(std::string v) {
  std::replace(v.begin(), v.end(), ';', ',');
  return v;
}

// The row's architecture: the catalog model it names, with the fields the row sets written over it;
// `gpt` starts from nothing (a Megatron GPT with softmax attention in every layer).
Result<Model> row_model(const Catalog& cat, const CsvRow& r) {
  Model m;
  if (r.s("model") != "gpt") {
    auto found = cat.find_model(r.s("model"));
    if (!found) return found;
    m = *found;
  } else {
    m.name = "gpt";
    m.attn.heads = m.attn.kv_heads = 1;
    m.layers.assign(1, LayerSpec{});
  }
  if (r.has("hidden")) m.hidden = r.l("hidden");
  if (r.has("ffn")) m.ffn = r.l("ffn");
  if (r.has("heads")) m.attn.heads = r.i("heads");
  if (r.has("kv_heads")) m.attn.kv_heads = r.i("kv_heads");
  if (r.has("head_dim")) m.attn.head_dim = r.i("head_dim");
  if (r.has("vocab")) m.vocab = r.l("vocab");
  if (r.has("tied")) m.tied_embeddings = r.i("tied") != 0;
  if (r.has("activation")) {
    const std::string& a = r.s("activation");
    m.activation = a == "gelu" ? Activation::kGelu : a == "squared_relu" ? Activation::kSquaredRelu : Activation::kSwiglu;
  }
  if (r.has("norm")) m.norm = r.s("norm") == "layer" ? NormKind::kLayer : NormKind::kRms;
  if (r.has("linear_bias")) m.mlp_bias = m.attn.qkv_bias = m.attn.out_bias = r.i("linear_bias") != 0;
  if (r.i("learned_pos") > 0) {
    m.learned_position_embedding = true;
    m.max_position = r.i("learned_pos");
  }
  if (r.i("experts") > 0) m.moe.experts = r.i("experts");
  if (r.i("top_k") > 0) m.moe.top_k = r.i("top_k");
  if (r.i("moe_ffn") > 0) m.moe.ffn = r.l("moe_ffn");
  if (r.i("shared_ffn") > 0) m.moe.shared_ffn = r.l("shared_ffn"), m.moe.shared_experts = 1;
  if (r.has("mtp")) m.mtp_layers = r.i("mtp");
  if (r.has("layers")) {
    // A uniform stack of the base's mixer: dense FFN for the first `first_dense` layers, MoE after
    // (dense throughout for a dense model).
    const MixerKind mixer = m.layers.empty() ? MixerKind::kAttention : m.layers.front().mixer;
    const int n = r.i("layers");
    const int first_dense = m.moe.experts > 0 ? r.i("first_dense") : n;
    m.layers.assign(static_cast<size_t>(n), LayerSpec{});
    for (int k = 0; k < n; ++k)
      m.layers[static_cast<size_t>(k)] = {mixer, 0, k < first_dense ? FfnKind::kDense : FfnKind::kMoe};
  }
  m.has_architecture = true;
  return m;
}


// The row's layout on `gpus` GPUs; the error text when a field does not parse.
Result<Layout> row_layout(const CsvRow& r, int gpus) {
  Layout l;
  l.tp = r.i("tp", 1);
  l.pp = r.i("pp", 1);
  l.vp = r.i("vp", 1);
  l.cp = r.i("cp", 1);
  l.ep = r.i("ep", 1);
  l.etp = r.i("etp", 1);
  l.mbs = r.i("mbs", 1);
  l.dp = gpus / std::max(1, l.model_parallel());
  l.sp = r.i("sp") != 0;
  auto fail = [&](const std::string& what) { return rb::fail("bad " + what + " in row " + r.s("id")); };
  const auto prec = parse_precision(r.s("precision"));
  if (!prec) return fail("precision");
  l.precision = *prec;
  const auto rc = parse_recompute(r.s("recompute"));
  if (!rc) return fail("recompute");
  l.recompute = *rc;
  std::string bad;
  if (r.has("recompute_modules")) {
    const auto mods = parse_recompute_modules(semis_to_commas(r.s("recompute_modules")), &bad);
    if (!mods) return fail("recompute_modules " + bad);
    l.recompute_modules = *mods;
  } else if (l.recompute == Recompute::kSelective) {
    l.recompute = Recompute::kNone;  // recompute_modules [] recomputes nothing
  }
  l.distributed_optimizer = r.i("dist_opt") != 0;
  l.grad_reduce_in_fp32 = r.i("grad_fp32") != 0;
  l.precision_aware_optimizer = r.i("precision_aware_opt") != 0;
  const auto disp = parse_dispatcher(r.s("dispatcher"));
  if (!disp) return fail("dispatcher");
  l.dispatcher = *disp;
  const auto cg = parse_cuda_graph(r.s("cuda_graph"));
  if (!cg) return fail("cuda_graph");
  l.cuda_graph = *cg;
  if (r.has("cuda_graph_scope")) {
    const auto sc = parse_cuda_graph_scopes(semis_to_commas(r.s("cuda_graph_scope")), &bad);
    if (!sc) return fail("cuda_graph_scope " + bad);
    l.cuda_graph_scope = *sc;
  }
  // The loss and dropout as the source launched them: te (fused, TE), native (fused, Megatron-Core)
  // or unfused; `dropout` is both hidden and attention dropout (Megatron-LM sets both to 0.1 unless
  // the test gives --hidden-dropout / --attention-dropout).
  const std::string& ce = r.s("cross_entropy");
  if (ce != "te" && ce != "native" && ce != "unfused") return fail("cross_entropy");
  l.cross_entropy_loss_fusion = ce != "unfused";
  l.cross_entropy_fusion_impl = ce == "te" ? CrossEntropyImpl::kTe : CrossEntropyImpl::kNative;
  l.hidden_dropout = l.attention_dropout = r.d("dropout");
  if (r.has("pipeline_layout")) {
    auto stages = parse_pipeline_layout(r.s("pipeline_layout"));
    if (!stages) return fail("pipeline_layout");
    l.pipeline_layout = *stages;
  }
  return l;
}

// The parts PyTorch still holds after the optimizer step (mem-allocated-bytes at the log): weights,
// their quantized copies, gradients and optimizer state.
double state_bytes(const MemoryBreakdown& mb) {
  return mb.weights_bytes + mb.quantized_weights_bytes + mb.grads_bytes + mb.optimizer_bytes + mb.fsdp_buffers_bytes;
}

struct Result1 {
  std::string id;
  bool oom = false;
  bool ok = false;
  int gpus = 0;
  bool gpus_inferred = false;
  double measured = 0;   // bytes (measured rows)
  double predicted = 0;  // allocated bytes of the measured rank
  double state = 0, state_measured = 0;
  double peak_worst = 0, capacity = 0;  // device figure of the worst rank, usable memory
  bool fits = true;
  MemoryBreakdown mb;
  std::string why;
};

Result1 run_row(const Catalog& cat, const CsvRow& r) {
  Result1 o;
  o.id = r.s("id");
  o.oom = r.i("oom") != 0;
  const double unit = r.s("unit") == "GB" ? 1e9 : kGiB;
  o.measured = r.d("max_allocated") * unit;
  o.state_measured = r.d("current_allocated") * unit;
  auto model = row_model(cat, r);
  if (!model) return o.why = model.error().str(), o;
  auto hw = cat.find_hardware(r.s("gpu"));
  if (!hw) return o.why = hw.error().str(), o;
  cli::apply_headroom(std::string(kDefaultHeadroom), *hw);  // the CLI's default --headroom
  const PreparedModel pm = prepare(*model);
  Workload w;
  w.seq = r.l("seq");
  w.gbs = r.l("gbs");
  const bool infer = r.s("gpus") == "infer";
  std::vector<int> worlds;
  if (infer) {
    for (int g = 1; g <= 4096; g *= 2) worlds.push_back(g);
  } else {
    worlds.push_back(r.i("gpus"));
  }
  double best_gap = 1e300;
  for (int g : worlds) {
    auto l = row_layout(r, g);
    if (!l) return o.why = l.error().str(), o;
    const Cluster c{g, 0};
    const Estimate e = estimate(pm, *hw, w, c, *l);
    if (!e.valid) {
      o.why = std::string("invalid: ") + std::string(invalid_reason_name(e.reason));
      continue;
    }
    // Every rank as estimate() sees it (the layout carries the row's loss and dropout).
    const std::vector<MemoryBreakdown> ranks = stage_memory(pm, *hw, w, c, *l);
    const MemoryBreakdown mb = r.s("rank") == "first" ? ranks.front() : ranks.back();
    const MemoryReport& rep = e.memory;
    const double gap = std::abs(state_bytes(mb) - o.state_measured);
    if (infer && gap >= best_gap) continue;
    best_gap = gap;
    o.ok = true;
    o.why.clear();
    o.gpus = g;
    o.gpus_inferred = infer;
    o.mb = mb;
    o.predicted = mb.allocated_bytes();
    o.state = state_bytes(mb);
    o.peak_worst = rep.worst.peak_bytes;
    o.capacity = hw->memory_bytes - hw->headroom_bytes();
    o.fits = rep.worst.fits && rep.host_fits;
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const bool verbose = argc > 1 && std::strcmp(argv[1], "--verbose") == 0;
  auto cat = Catalog::load();
  if (!cat) {
    std::fprintf(stderr, "%s\n", cat.error().str().c_str());
    return 1;
  }
  const std::vector<CsvRow> rows = read_csv(std::string(RB_SOURCE_DIR) + "/bench/data/megatron_memory_peaks.csv");
  std::printf("%-34s %6s %9s %9s %7s %9s %9s  %s\n", "row", "gpus", "meas GiB", "pred GiB", "err", "state", "meas st",
              "notes");
  double ape_sum = 0, ape_max = 0;
  int measured = 0, within = 0, oom_rows = 0, oom_caught = 0, failed = 0;
  std::map<std::string, std::vector<double>> by_framework;
  for (const CsvRow& r : rows) {
    const Result1 o = run_row(*cat, r);
    if (!o.ok) {
      std::printf("%-34s  not estimated: %s\n", o.id.c_str(), o.why.c_str());
      ++failed;
      continue;
    }
    const std::string gp = std::to_string(o.gpus) + (o.gpus_inferred ? "*" : "");
    if (o.oom) {
      ++oom_rows;
      if (!o.fits) ++oom_caught;
      std::printf("%-34s %6s %9s %9.2f %7s %9s %9s  OOM measured; worst-rank device peak %.2f GiB vs %.2f usable: %s\n",
                  o.id.c_str(), gp.c_str(), "OOM", o.predicted / kGiB, "", "", "", o.peak_worst / kGiB,
                  o.capacity / kGiB, o.fits ? "PREDICTED TO FIT" : "does not fit (ok)");
    } else {
      const double err = o.predicted / o.measured - 1.0;
      ape_sum += std::abs(err);
      ape_max = std::max(ape_max, std::abs(err));
      ++measured;
      if (std::abs(err) <= 0.10) ++within;
      by_framework[r.s("framework")].push_back(std::abs(err));
      by_framework[o.gpus_inferred ? "world inferred" : "world known"].push_back(std::abs(err));
      std::printf("%-34s %6s %9.2f %9.2f %+6.1f%% %9.2f %9s  %s%s\n", o.id.c_str(), gp.c_str(), o.measured / kGiB,
                  o.predicted / kGiB, 100 * err, o.state / kGiB,
                  o.state_measured > 0 ? (std::to_string(o.state_measured / kGiB).substr(0, 5)).c_str() : "-",
                  o.fits ? "" : "[predicted not to fit] ", r.s("assumed").empty() ? "" : ("assumed: " + r.s("assumed")).c_str());
    }
    if (verbose) {
      std::printf("    parts GiB:");
      for (const MemoryPart& p : kMemoryParts)
        if (o.mb.*p.bytes > 0) std::printf(" %.*s %.2f", static_cast<int>(p.key.size()) - 6, p.key.data(), o.mb.*p.bytes / kGiB);
      std::printf("\n");
    }
  }
  std::printf("\nmeasured rows: %d, MAPE %.1f%%, max |error| %.1f%%, within 10%%: %d of %d\n", measured,
              measured ? 100 * ape_sum / measured : 0.0, 100 * ape_max, within, measured);
  for (const auto& [fw, v] : by_framework) {
    double s = 0;
    for (double x : v) s += x;
    std::printf("  %-16s %2zu rows, MAPE %.1f%%, max %.1f%%\n", fw.c_str(), v.size(), 100 * s / static_cast<double>(v.size()),
                100 * *std::max_element(v.begin(), v.end()));
  }
  std::printf("out-of-memory rows: %d, predicted not to fit: %d\n", oom_rows, oom_caught);
  std::printf("(* = world size inferred from the measured post-step allocation; see the CSV header)\n");
  rb::bench::catalog_runs(*cat);
  rb::bench::bridge_recipes(*cat, verbose);
  return failed > 0 ? 1 : 0;
}
