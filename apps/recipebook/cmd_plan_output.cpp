#include "recipebook/cmd_plan_output.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "recipebook/emit/table.hpp"
#include "recipebook/rules/pipeline_split.hpp"
#include "recipebook/rules/rule.hpp"
#include "recipebook/price_label.hpp"

namespace rb::cli {
namespace {

// Host offload (search/offload.hpp): "optimizer 0.5", "activations", "optimizer 1+activations".
bool uses_offload(const Layout& l) { return l.optimizer_offload_fraction > 0 || l.offload_modules != 0; }
std::string offload_label(const Layout& l) {
  std::string s;
  if (l.optimizer_offload_fraction > 0) s = fmt::format("optimizer {:g}", l.optimizer_offload_fraction);
  if (l.offload_modules != 0) s += (s.empty() ? "" : "+") + std::string("activations");
  return s.empty() ? "-" : s;
}


constexpr size_t kParetoRows = 12;

std::string grouped(uint64_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

// Memory for people: GiB everywhere (the JSON keeps bytes).
std::string gib(double bytes) { return fmt::format("{:.1f}", bytes / (1024.0 * 1024.0 * 1024.0)); }

// 1.5e12 -> "1.5T", 5e11 -> "500B".
std::string tokens_str(double n) {
  if (n >= 1e12) return fmt::format("{:.4g}T", n / 1e12);
  if (n >= 1e9) return fmt::format("{:.4g}B", n / 1e9);
  if (n >= 1e6) return fmt::format("{:.4g}M", n / 1e6);
  return fmt::format("{:.0f}", n);
}

// Column labels for the recompute options: none, sel, sel+, ..., full, with a legend line for the
// selective ones.
struct RecomputeLabels {
  std::vector<std::string> label;
  std::string legend;
};

RecomputeLabels recompute_labels(const std::vector<RecomputeOption>& options) {
  RecomputeLabels r;
  int selective = 0;
  for (const RecomputeOption& o : options) {
    if (o.kind != Recompute::kSelective) {
      r.label.push_back(recompute_option_name(o));
      continue;
    }
    std::string l = "sel" + std::string(static_cast<size_t>(selective++), '+');
    r.legend += (r.legend.empty() ? "" : "; ") + l + " = " + recompute_option_name(o);
    r.label.push_back(std::move(l));
  }
  return r;
}

// The layout columns every table shares; which appear depends on the request and the model.
class LayoutColumns {
 public:
  LayoutColumns(const PlanView& v, const std::vector<Candidate>& rows)
      : v_(v), labels_(recompute_labels(v.result.recompute_options)) {
    range_ = v.req.gpu_counts.size() > 1;
    precisions_ =
        v.result.top.empty()
            ? searched_precisions(v.req.fixed).size() > 1
            : std::any_of(rows.begin(), rows.end(),
                          [&](const Candidate& c) { return c.layout.precision != rows.front().layout.precision; }) ||
                  searched_precisions(v.req.fixed).size() > 1;
    moe_ = v.model.is_moe();
    uneven_ = std::any_of(rows.begin(), rows.end(), [](const Candidate& c) { return stage_split_of(c.layout).any(); });
    cp_ = std::any_of(rows.begin(), rows.end(), [](const Candidate& c) { return c.layout.cp > 1; });
    offload_ = std::any_of(rows.begin(), rows.end(), [](const Candidate& c) { return uses_offload(c.layout); });
  }

  void headers(std::vector<Column>& cols, bool with_gpus = true) const {
    if (range_ && with_gpus) cols.push_back({"GPUs", Align::kRight});
    if (precisions_) cols.push_back({"precision"});
    for (const char* h : {"TP", "PP", "VP", "CP"}) cols.push_back({h, Align::kRight});
    if (cp_) cols.push_back({"CP comm"});
    if (uneven_) cols.push_back({"stages"});
    if (moe_) {
      cols.push_back({"EP", Align::kRight});
      cols.push_back({"ETP", Align::kRight});
    }
    cols.push_back({"DP", Align::kRight});
    cols.push_back({"MBS", Align::kRight});
    cols.push_back({"FSDP"});
    cols.push_back({"recompute"});
    if (moe_) cols.push_back({"dispatcher"});
    if (offload_) cols.push_back({"host offload"});
  }

  void cells(const Candidate& c, std::vector<std::string>& row, bool with_gpus = true) const {
    const Layout& l = c.layout;
    if (range_ && with_gpus) row.push_back(std::to_string(c.gpus));
    if (precisions_) row.emplace_back(precision_name(l.precision));
    for (int x : {l.tp, l.pp, l.vp, l.cp}) row.push_back(std::to_string(x));
    if (cp_) row.emplace_back(l.cp > 1 ? cp_comm_name(l.cp_comm) : "-");
    if (uneven_) row.push_back(stage_split_str(v_.model.num_layers(), l));
    if (moe_) {
      row.push_back(std::to_string(l.ep));
      row.push_back(std::to_string(l.etp));
    }
    row.push_back(std::to_string(l.dp));
    row.push_back(std::to_string(l.mbs));
    row.push_back(l.fsdp ? "yes" : "no");
    const size_t ri = static_cast<size_t>(c.recompute_option);
    row.push_back(ri < labels_.label.size() ? labels_.label[ri] : "?");
    if (moe_) row.emplace_back(dispatcher_name(l.dispatcher));
    if (offload_) row.push_back(offload_label(l));
  }

  [[nodiscard]] const std::string& legend() const { return labels_.legend; }

 private:
  const PlanView& v_;
  RecomputeLabels labels_;
  bool range_ = false;
  bool precisions_ = false;
  bool moe_ = false;
  bool uneven_ = false;
  bool cp_ = false;  // a row with CP > 1: its exchange
  bool offload_ = false;
};

bool any_offload(const std::vector<Candidate>& cs) {
  return std::any_of(cs.begin(), cs.end(), [](const Candidate& c) { return uses_offload(c.layout); });
}

std::string header(const PlanView& v) {
  const Workload& w = v.req.workload;
  std::string gpus;
  if (v.req.gpu_counts.size() == 1) {
    gpus = std::to_string(v.req.gpu_counts.front());
  } else {
    gpus = std::to_string(v.req.gpu_counts.front()) + ".." + std::to_string(v.req.gpu_counts.back()) + " (" +
           std::to_string(v.req.gpu_counts.size()) + " counts)";
  }
  std::string out =
      fmt::format("plan: {} on {} x {} ({} per node), {}, sequence {}, global batch {}\n", v.model.name, gpus,
                  v.hw.display.empty() ? v.hw.name : v.hw.display, v.gpus_per_node, mode_name(w.mode), w.seq, w.gbs);
  std::string precisions;
  for (Precision p : searched_precisions(v.req.fixed))
    precisions += (precisions.empty() ? "" : ", ") + std::string(precision_name(p));
  std::string goal;
  switch (v.req.objective) {
    case Objective::kThroughput:
      goal = "throughput (tokens/s per GPU)";
      break;
    case Objective::kCost:
      goal = v.hw.usd_per_gpu_hour > 0
                 ? "cost (USD per million tokens)"
                 : "cost (GPU-hours per million tokens: the GPU has no price)";
      break;
    case Objective::kTime:
      goal = w.tokens_budget > 0 ? "time (days to " + tokens_str(w.tokens_budget) + " tokens)"
                                 : "time (seconds per token)";
      break;
  }
  out += fmt::format("precision {}; objective {}\n", precisions, goal);
  out += fmt::format("fits: peak <= {} GiB - {} GiB headroom; MFU against the dense peak of each layout's precision\n",
                     gib(v.hw.memory_bytes), gib(v.hw.headroom_bytes()));
  if (v.hw.usd_per_gpu_hour > 0) out += "USD/Mtok " + price_used(v.hw) + "\n";
  return out;
}

std::string top_tables(const PlanView& v) {
  const PlanResult& r = v.result;
  const LayoutColumns lc(v, r.top);
  const bool price = v.hw.usd_per_gpu_hour > 0;
  const bool days = v.req.workload.tokens_budget > 0;
  std::vector<Column> cols{{"#", Align::kRight}};
  lc.headers(cols);
  for (const char* h : {"tok/s/GPU", "MFU", "step s", "peak GiB", "headroom GiB"}) cols.push_back({h, Align::kRight});
  if (price) cols.push_back({"USD/Mtok", Align::kRight});
  if (days) cols.push_back({"days", Align::kRight});
  Table t(cols);
  for (size_t i = 0; i < r.top.size(); ++i) {
    const Candidate& c = r.top[i];
    const Estimate& e = c.estimate;
    std::vector<std::string> row{std::to_string(i + 1)};
    lc.cells(c, row);
    row.push_back(fmt::format("{:.0f}", e.tokens_per_s_per_gpu));
    row.push_back(fmt::format("{:.1f}%", 100.0 * e.mfu));
    row.push_back(fmt::format("{:.2f}", e.step_time_s));
    row.push_back(gib(e.memory.worst.peak_bytes));
    row.push_back(gib(c.headroom_bytes()));
    if (price) row.push_back(fmt::format("{:.3f}", e.usd_per_million_tokens));
    if (days) row.push_back(fmt::format("{:.1f}", e.days));
    t.add_row(std::move(row));
  }
  std::string out = fmt::format("\nTop {} of {} layouts that fit{}\n", r.top.size(), grouped(r.counts.fit + r.counts.offloaded),
                                r.counts.offloaded > 0 ? fmt::format(" ({} of them with host offload)", grouped(r.counts.offloaded))
                                                       : "") +
                    t.render();
  const bool offload = any_offload(r.top);
  if (!lc.legend().empty()) out += lc.legend() + "\n";

  std::vector<Column> mem_cols{{"#", Align::kRight},
           {"stage", Align::kRight},
           {"weights", Align::kRight},
           {"quant", Align::kRight},
           {"grads", Align::kRight},
           {"optimizer", Align::kRight},
           {"activations", Align::kRight},
           {"logits", Align::kRight},
           {"FSDP buf", Align::kRight},
           {"overheads", Align::kRight},
           {"peak", Align::kRight},
           {"capacity", Align::kRight}};
  if (offload) mem_cols.push_back({"host/node", Align::kRight});
  Table m(std::move(mem_cols));
  for (size_t i = 0; i < r.top.size(); ++i) {
    const MemoryBreakdown& b = r.top[i].estimate.memory.worst;
    std::vector<std::string> row{std::to_string(i + 1), std::to_string(b.stage), gib(b.weights_bytes),
                                 gib(b.quantized_weights_bytes), gib(b.grads_bytes), gib(b.optimizer_bytes),
                                 gib(b.activations_bytes), gib(b.logits_bytes), gib(b.fsdp_buffers_bytes),
                                 gib(b.cuda_context_bytes + b.nccl_buffers_bytes + b.cuda_graphs_bytes + b.fragmentation_bytes),
                                 gib(b.peak_bytes), gib(b.capacity_bytes)};
    if (offload) row.push_back(gib(r.top[i].estimate.memory.host_node_bytes));
    m.add_row(std::move(row));
  }
  out += "\nMemory per GPU, worst pipeline stage (GiB)\n" + m.render();

  std::vector<Column> time_cols{{"#", Align::kRight},
           {"GEMM", Align::kRight},
           {"attention", Align::kRight},
           {"mem-bound", Align::kRight},
           {"recompute", Align::kRight},
           {"TP", Align::kRight},
           {"CP", Align::kRight},
           {"EP", Align::kRight},
           {"PP p2p", Align::kRight},
           {"bubble", Align::kRight},
           {"DP", Align::kRight},
           {"optimizer", Align::kRight},
           {"overhead", Align::kRight},
           {"step", Align::kRight}};
  if (offload) time_cols.insert(time_cols.end() - 2, Column{"host offload", Align::kRight});
  Table s(std::move(time_cols));
  for (size_t i = 0; i < r.top.size(); ++i) {
    const TimeBreakdown& b = r.top[i].estimate.time;
    std::vector<std::string> row{std::to_string(i + 1)};
    for (const TimePart& p : kTimeParts)
      if (offload || p.seconds != &TimeBreakdown::offload_s) row.push_back(fmt::format("{:.3f}", b.*p.seconds));
    row.push_back(fmt::format("{:.3f}", b.step_time_s));
    s.add_row(std::move(row));
  }
  out += "\nStep time (s)\n" + s.render();
  return out;
}

std::string pareto_table(const PlanView& v) {
  const PlanResult& r = v.result;
  const bool range = r.pareto_axis == ParetoAxis::kTotalThroughput;
  std::vector<Candidate> rows(r.pareto.begin(),
                              r.pareto.begin() + static_cast<long>(std::min(kParetoRows, r.pareto.size())));
  const LayoutColumns lc(v, rows);
  std::vector<Column> cols;
  lc.headers(cols);
  cols.push_back({"tok/s/GPU", Align::kRight});
  cols.push_back({range ? "tok/s total" : "headroom GiB", Align::kRight});
  Table t(cols);
  for (const Candidate& c : rows) {
    std::vector<std::string> row;
    lc.cells(c, row);
    row.push_back(fmt::format("{:.0f}", c.estimate.tokens_per_s_per_gpu));
    row.push_back(range ? fmt::format("{:.0f}", c.estimate.tokens_per_s_per_gpu * c.gpus) : gib(c.headroom_bytes()));
    t.add_row(std::move(row));
  }
  std::string out = fmt::format("\nPareto front: tokens/s per GPU against {} ({} layouts{})\n",
                                range ? "total tokens/s (cost against time)" : "memory headroom", r.pareto.size(),
                                r.pareto.size() > rows.size() ? fmt::format(", the first {} shown", rows.size()) : "");
  return out + t.render();
}

std::string per_count_table(const PlanView& v) {
  const PlanResult& r = v.result;
  const LayoutColumns lc(v, r.best_per_count);
  std::vector<Column> cols{{"GPUs", Align::kRight}};
  lc.headers(cols, false);
  for (const char* h : {"tok/s/GPU", "tok/s total", "step s"}) cols.push_back({h, Align::kRight});
  const bool days = v.req.workload.tokens_budget > 0;
  if (days) cols.push_back({"days", Align::kRight});
  Table t(cols);
  for (const Candidate& c : r.best_per_count) {
    std::vector<std::string> row{std::to_string(c.gpus)};
    lc.cells(c, row, false);
    row.push_back(fmt::format("{:.0f}", c.estimate.tokens_per_s_per_gpu));
    row.push_back(fmt::format("{:.0f}", c.estimate.tokens_per_s_per_gpu * c.gpus));
    row.push_back(fmt::format("{:.2f}", c.estimate.step_time_s));
    if (days) row.push_back(fmt::format("{:.1f}", c.estimate.days));
    t.add_row(std::move(row));
  }
  std::string out = "\nBest layout per GPU count\n" + t.render();
  std::string none;
  for (int g : v.req.gpu_counts)
    if (std::none_of(r.best_per_count.begin(), r.best_per_count.end(), [&](const Candidate& c) { return c.gpus == g; }))
      none += (none.empty() ? "" : ", ") + std::to_string(g);
  if (!none.empty()) out += "nothing fits on " + none + " GPUs\n";
  return out;
}

std::string counts_block(const PlanView& v) {
  const PlanCounts& c = v.result.counts;
  const auto rules = all_rules();
  std::vector<std::pair<std::string, std::string>> lines;
  lines.push_back({"removed by rules", grouped(c.rules)});
  std::vector<size_t> order;
  for (size_t i = 0; i < c.by_rule.size(); ++i)
    if (c.by_rule[i] > 0) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return c.by_rule[a] > c.by_rule[b]; });
  for (size_t i : order) lines.push_back({"  " + std::string(rules[i].id), grouped(c.by_rule[i])});
  lines.push_back({"removed by memory", grouped(c.memory)});
  if (c.offloaded > 0) lines.push_back({"  of them fit with host offload", grouped(c.offloaded)});
  lines.push_back({"refused by the estimator", grouped(c.estimator)});
  lines.push_back({"fit and ranked", grouped(c.fit)});
  size_t w0 = 0;
  size_t w1 = 0;
  for (const auto& [a, b] : lines) {
    w0 = std::max(w0, a.size());
    w1 = std::max(w1, b.size());
  }
  std::string out = fmt::format("\nCandidates: {} seen\n", grouped(c.seen));
  for (const auto& [a, b] : lines) {
    out += fmt::format("  {:<{}}  {:>{}}", a, w0, b, w1);
    if (a == "removed by memory" && c.memory_inferred > 0)
      out +=
          fmt::format("  ({} of them inferred: a smaller micro batch already did not fit)", grouped(c.memory_inferred));
    out += "\n";
  }
  return out;
}

std::string layout_line(const Candidate& c) {
  const Layout& l = c.layout;
  std::string s = fmt::format("TP {} PP {} VP {} CP {}", l.tp, l.pp, l.vp, cp_text(l));
  if (l.ep > 1 || l.etp > 1) s += fmt::format(" EP {} ETP {}", l.ep, l.etp);
  s += fmt::format(" DP {} MBS {}", l.dp, l.mbs);
  if (l.fsdp) s += ", FSDP";
  if (l.recompute != Recompute::kNone)
    s += ", " + recompute_option_name({l.recompute, l.recompute_modules}) + " recompute";
  if (uses_offload(l)) s += ", host offload " + offload_label(l);
  return s;
}

std::string advice_text(const PlanAdvice* a);

std::string infeasible_text(const PlanView& v) {
  const PlanResult& r = v.result;
  const PlanAdvice* a = v.advice;
  std::string out;
  const std::string gpus =
      v.req.gpu_counts.size() == 1 ? std::to_string(v.req.gpu_counts.front()) + " GPUs" : "any GPU count of the range";
  if (a != nullptr && a->rules_block_all) {
    out += fmt::format("\nNo layout of {} passes the layout rules on {}.\n", v.model.name, gpus);
    if (a->usable_below > 0 || a->usable_above > 0) {
      out += "Nearest GPU counts where one does:";
      if (a->usable_below > 0) out += fmt::format(" {} (fewer)", a->usable_below);
      if (a->usable_above > 0) out += fmt::format("{} {} (more)", a->usable_below > 0 ? "," : "", a->usable_above);
      out += "\n";
    }
  } else if (r.counts.memory == 0 && r.counts.estimator > 0) {
    std::string why;
    for (size_t i = 0; i < r.counts.by_estimator.size(); ++i)
      if (r.counts.by_estimator[i] > 0)
        why += (why.empty() ? "" : "; ") + std::string(invalid_reason_name(static_cast<InvalidReason>(i)));
    out += fmt::format("\nThe estimator refused all {} layouts that pass the rules: {}.\n", grouped(r.counts.estimator),
                       why);
  } else {
    const Constraints& f = v.req.fixed;
    const bool all_tried = f.values("recompute").empty() && f.values("fsdp").empty() && f.values("mbs").empty();
    out +=
        fmt::format("\nNo layout fits: the {} layouts that pass the rules all need more than the {} GiB of one {} less {} GiB headroom{}.\n",
                    grouped(r.counts.memory), gib(v.hw.memory_bytes), v.hw.display.empty() ? v.hw.name : v.hw.display,
                    gib(v.hw.headroom_bytes()),
                    all_tried ? " (every recompute option, FSDP and micro batch 1 included)" : "");
    if (!r.closest.empty()) {
      const LayoutColumns lc(v, r.closest);
      std::vector<Column> cols{{"#", Align::kRight}};
      lc.headers(cols);
      for (const char* h : {"peak GiB", "over by", "weights+grads+optim", "activations"})
        cols.push_back({h, Align::kRight});
      Table t(cols);
      for (size_t i = 0; i < r.closest.size(); ++i) {
        const Candidate& c = r.closest[i];
        const MemoryBreakdown& b = c.estimate.memory.worst;
        std::vector<std::string> row{std::to_string(i + 1)};
        lc.cells(c, row);
        row.push_back(gib(b.peak_bytes));
        row.push_back(gib(b.overshoot_bytes()));
        row.push_back(gib(b.weights_bytes + b.quantized_weights_bytes + b.grads_bytes + b.optimizer_bytes));
        row.push_back(gib(b.activations_bytes + b.logits_bytes));
        t.add_row(std::move(row));
      }
      out += "\nClosest layouts (smallest memory overshoot, GiB)\n" + t.render();
      if (!lc.legend().empty()) out += lc.legend() + "\n";
    }
  }
  return out + advice_text(a);
}

// "What would fit" (search/advice.hpp): after an infeasible plan, or after one where everything
// that fits needs host offload (then: what would fit without it).
std::string advice_text(const PlanAdvice* a) {
  std::string out;
  if (a != nullptr && (!a->relaxations.empty() || a->most_gpus_tried > 0)) {
    out += a->without_offload ? "\nWhat would fit without host offload:\n" : "\nWhat would fit:\n";
    for (const Relaxation& x : a->relaxations) {
      out += fmt::format("  - {}: {} layouts fit", x.change, grouped(x.fit));
      if (x.best)
        out += fmt::format("; best {} on {} GPUs, {:.0f} tokens/s/GPU, peak {} GiB", layout_line(*x.best), x.best->gpus,
                           x.best->estimate.tokens_per_s_per_gpu, gib(x.best->estimate.memory.worst.peak_bytes));
      out += "\n";
    }
    if (a->most_gpus_tried > 0 && std::none_of(a->relaxations.begin(), a->relaxations.end(), [](const Relaxation& x) {
          return x.change.find("GPUs") != std::string::npos;
        }))
      out += fmt::format("  - nothing fits on up to {} GPUs with these settings\n", a->most_gpus_tried);
  }
  return out;
}

}  // namespace

std::string plan_text(const PlanView& v) {
  std::string out = header(v);
  if (!v.result.top.empty()) {
    out += top_tables(v);
    if (v.req.gpu_counts.size() > 1) out += per_count_table(v);
    out += pareto_table(v) + advice_text(v.advice);
  } else {
    out += infeasible_text(v);
  }
  return out + counts_block(v);
}

}  // namespace rb::cli
