// The catalog's runs that ran, against the memory model: every measurement of every catalog recipe (a
// completed run: `current` or not, a benchmark row or a verification card) estimated with the layout
// it measured (measured_run, the path `show` and bench/accuracy use), and every Megatron-Bridge recipe
// (kinds library and performance, which NVIDIA ships and runs) estimated as `recipebook estimate
// RECIPE` estimates it (cli::resolve_setup; a layout the rules refuse is not estimated, as there). A
// run that completed fitted on its GPUs, so each one predicted not to fit (the worst rank's device
// peak over the GPU's memory less the CLI's default 2 GiB headroom, or the host's memory under
// offload) is a model error or a record gap; both lists are printed with the worst rank's largest
// parts. Part of bench_memory_peaks (memory_peaks.cpp).
#pragma once

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/catalog/measured_points.hpp"
#include "recipebook/estimate/estimate.hpp"
#include "recipebook/estimate/memory.hpp"
#include "recipebook/estimate/prepared.hpp"
#include "recipebook/layout_args.hpp"
#include "recipebook/rules/check_layout.hpp"

namespace rb::bench {

struct NotFit {
  std::string label;
  MemoryBreakdown worst;
  double usable = 0;  // capacity less the required headroom
  std::string layout;
};

// "act 73.9, opt 21.1, grads 21.3": the worst rank's three largest parts in GiB.
inline std::string largest_parts(const MemoryBreakdown& mb) {
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  std::vector<std::pair<double, std::string_view>> parts;
  for (const MemoryPart& p : kMemoryParts) parts.emplace_back(mb.*p.bytes, p.key.substr(0, p.key.size() - 6));
  std::sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string out;
  for (size_t k = 0; k < 3 && k < parts.size(); ++k) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s%.*s %.1f", k ? ", " : "", static_cast<int>(parts[k].second.size()),
                  parts[k].second.data(), parts[k].first / kGiB);
    out += buf;
  }
  return out;
}

inline std::string layout_text(const Layout& l, int64_t seq) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "TP %d PP %d VP %d CP %d EP %d mbs %d seq %lld%s rc %.*s", l.tp, l.pp, l.vp, l.cp,
                l.ep, l.mbs, static_cast<long long>(seq), l.sp ? " sp" : "",
                static_cast<int>(recompute_name(l.recompute).size()), recompute_name(l.recompute).data());
  return buf;
}

// What stays on the GPU whatever the micro batch and recompute: weights, their copies, gradients,
// optimizer state, FSDP buffers, CUDA context and NCCL buffers. A layout whose worst rank holds more
// than the usable memory in these alone cannot fit by any activation setting.
inline double fixed_bytes(const MemoryBreakdown& mb) {
  return mb.weights_bytes + mb.quantized_weights_bytes + mb.grads_bytes + mb.optimizer_bytes + mb.fsdp_buffers_bytes +
         mb.cuda_context_bytes + mb.nccl_buffers_bytes;
}

// Prints the rows; returns how many hold more than the usable memory in fixed_bytes alone.
inline int print_not_fit(const std::vector<NotFit>& rows) {
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  int states_over = 0;
  for (const NotFit& r : rows) {
    const bool over = fixed_bytes(r.worst) > r.usable;
    states_over += over ? 1 : 0;
    std::printf("  %-78s %6.1f of %5.1f GiB, stage %d: %s [%s]%s\n", r.label.c_str(), r.worst.peak_bytes / kGiB,
                r.usable / kGiB, r.worst.stage, largest_parts(r.worst).c_str(), r.layout.c_str(),
                over ? " states alone over" : "");
  }
  return states_over;
}

// Every catalog measurement with the layout it measured. Returns the number predicted not to fit.
inline int catalog_runs(const Catalog& cat) {
  std::map<std::string, PreparedModel> models;
  int runs = 0, skipped = 0;
  std::vector<NotFit> over;
  for (const RecipeEntry& entry : cat.recipes()) {
    const Recipe& rec = entry.recipe;
    for (const Measurement& m : rec.measurements) {
      auto model = cat.find_model(rec.model);
      auto hw = cat.find_hardware(m.gpu.empty() ? rec.gpu : m.gpu);
      if (!model || !model->has_architecture || model->layers.empty() || !hw || !hw->has_specs) {
        ++skipped;
        continue;
      }
      auto run = measured_run(rec, m, *model);
      if (!run) {
        ++skipped;
        continue;
      }
      cli::apply_headroom(std::string(kDefaultHeadroom), *hw);  // the CLI's default --headroom
      auto it = models.find(model->name);
      if (it == models.end()) it = models.emplace(model->name, prepare(*model)).first;
      const Estimate e = estimate(it->second, *hw, run->work, run->cluster, run->layout);
      if (!e.valid) {
        ++skipped;
        continue;
      }
      ++runs;
      if (!e.fits())
        over.push_back({rec.name + "@" + m.release + " " + std::to_string(run->cluster.gpus) + "x" + hw->name +
                            (m.current ? "" : " (superseded)"),
                        e.memory.worst, hw->memory_bytes - hw->headroom_bytes(),
                        layout_text(run->layout, run->work.seq)});
    }
  }
  std::printf(
      "\ncatalog runs that ran (every measurement, with the layout it measured): %d estimated, %d not "
      "estimable (no architecture, GPU figures or dividing layout)\n",
      runs, skipped);
  std::printf("runs that ran predicted not to fit: %zu\n", over.size());
  const int states_over = print_not_fit(over);
  std::printf("  (%d of them hold more than the usable memory in weights, gradients and optimizer state alone)\n",
              states_over);
  return static_cast<int>(over.size());
}

// Every Megatron-Bridge recipe (library and performance) as `recipebook estimate RECIPE` sees it.
inline int bridge_recipes(const Catalog& cat, bool verbose) {
  std::map<std::string, int> estimated, not_fit;
  int skipped = 0, refused = 0;
  std::vector<NotFit> over;
  for (const RecipeEntry& entry : cat.recipes()) {
    const Recipe& rec = entry.recipe;
    if (rec.kind != RecipeKind::kLibrary && rec.kind != RecipeKind::kPerformance) continue;
    cli::LayoutArgs args;
    args.recipe = rec.name;
    auto s = cli::resolve_setup(args, cat);
    if (!s || cli::apply_headroom(args.headroom, s->hardware)) {
      ++skipped;
      continue;
    }
    const std::vector<Finding> findings = check_layout(cli::rule_input(*s));
    if (std::any_of(findings.begin(), findings.end(),
                    [](const Finding& f) { return f.severity == Severity::kError; })) {
      ++refused;
      continue;
    }
    const Estimate e = estimate(prepare(s->model), s->hardware, s->workload, s->cluster, s->layout);
    if (!e.valid) {
      ++skipped;
      continue;
    }
    const std::string kind = recipe_kind_name(rec.kind);
    ++estimated[kind];
    if (e.fits()) continue;
    ++not_fit[kind];
    over.push_back({kind + " " + rec.name, e.memory.worst, s->hardware.memory_bytes - s->hardware.headroom_bytes(),
                    layout_text(s->layout, s->workload.seq)});
  }
  std::printf(
      "\nMegatron-Bridge recipes (as `recipebook estimate RECIPE`): %d library and %d performance estimated, "
      "%d refused by the layout rules, %d not estimable\n",
      estimated["library"], estimated["performance"], refused, skipped);
  std::printf("Bridge recipes predicted not to fit: %zu (library %d, performance %d)%s\n", over.size(),
              not_fit["library"], not_fit["performance"], verbose ? "" : "; --verbose lists them");
  int states_over = 0;
  if (verbose) {
    states_over = print_not_fit(over);
  } else {
    for (const NotFit& r : over) states_over += fixed_bytes(r.worst) > r.usable ? 1 : 0;
  }
  std::printf("  (%d of them hold more than the usable memory in weights, gradients and optimizer state alone)\n",
              states_over);
  return static_cast<int>(over.size());
}

}  // namespace rb::bench
