// Seed 004's resizing rules, applied step by step (resize.hpp lists the steps). Rule numbers refer
// to seed 004's "Parallelism Resizing Rules"; "batch advice" to its "Batch Size Tuning".
#include "recipebook/search/resize.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "recipebook/core/units.hpp"
#include "recipebook/rules/check_layout.hpp"
#include "recipebook/rules/gpu_arch.hpp"
#include "recipebook/rules/valid_degrees.hpp"
#include "recipebook/search/space.hpp"

namespace rb {
namespace {

std::string num(int64_t v) { return std::to_string(v); }
std::string on_off(bool b) { return b ? "on" : "off"; }

std::string field_label(const std::string& f) {
  if (f == "seq") return "sequence";
  if (f == "precision" || f == "recompute" || f == "mode" || f == "layout") return f;
  std::string up = f;
  for (char& c : up) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  return up;
}

// The pipeline split for (pp, vp), or nullopt when none exists: uniform when it divides, else the
// planner's uneven first/last-stage split (space.hpp stage_split, Megatron-Core transformer_config.py).
std::optional<StageSplit> split_for(int layers, int pp, int vp) {
  if (pp <= 1) return vp == 1 ? std::optional<StageSplit>(StageSplit{}) : std::nullopt;
  if (layers < pp * vp) return std::nullopt;
  if (layers % pp == 0 && (layers / pp) % vp == 0) return StageSplit{};
  const StageSplit s = stage_split(layers, pp, vp);
  if (s.first > 0) return s;
  return std::nullopt;
}

std::string recompute_label(const Layout& l) {
  if (l.recompute == Recompute::kSelective)
    return "selective(" + recompute_modules_str(l.recompute_modules != 0 ? l.recompute_modules : kRcDefault) + ")";
  return std::string(recompute_name(l.recompute));
}

struct State {
  const ResizeInputs& in;
  const ResizeTo& to;
  Layout l;
  Workload w;
  Cluster c;
  int64_t gbs_target = 0;  // the batch asked for (or the recipe's); w.gbs is it rounded to the unit
  int limit = 0;           // NVLink limit for TP
  std::vector<Change> changes;
  std::vector<std::string> notes;

  [[nodiscard]] int gpus() const { return c.gpus; }
  [[nodiscard]] int layers() const { return in.rules->layers; }
  [[nodiscard]] bool moe() const { return in.rules->experts > 0; }

  void change(std::string field, std::string from, std::string to_v, std::string reason, std::string rule) {
    if (from == to_v) return;
    changes.push_back({std::move(field), std::move(from), std::move(to_v), std::move(reason), std::move(rule)});
  }
};

int64_t batch_unit(const Layout& l) {
  return static_cast<int64_t>(l.mbs) * std::max(1, l.dp) * (l.vp > 1 ? l.pp : 1);
}

// DP, SP and the batch follow from the degrees (rules 5 and 7; batch advice).
void settle(const State& s, Layout& l) {
  const int mp = l.model_parallel();
  l.dp = mp > 0 && s.gpus() % mp == 0 ? s.gpus() / mp : 1;
  l.sp = l.tp > 1;
}

Workload workload_for(const State& s, const Layout& l) {
  Workload w = s.w;
  w.gbs = round_batch(s.gbs_target, batch_unit(l));
  return w;
}

Estimate eval(const State& s, Layout l) {
  settle(s, l);
  const Workload w = workload_for(s, l);
  return estimate(*s.in.model, *s.in.hardware, w, s.c, modelled_layout(s.layers(), l));
}

bool allowed(const State& s, Layout l) {
  settle(s, l);
  if (s.gpus() % l.model_parallel() != 0) return false;
  const Workload w = workload_for(s, l);
  return layout_allowed(*s.in.rules, w, s.c, modelled_layout(s.layers(), l), nullptr);
}

// EP·ETP must divide TP·CP·DP = GPUs / PP (Megatron-Core parallel_state), and EP the experts.
bool ep_fits(const State& s, const Layout& l, int ep, int etp) {
  const int stage_gpus = s.gpus() / std::max(1, l.pp);
  return ep_divides_experts(*s.in.rules, ep) && stage_gpus % (ep * etp) == 0;
}

void fix_ep(State& s) {
  if (!s.moe()) return;
  Layout& l = s.l;
  const int stage_gpus = s.gpus() / std::max(1, l.pp);
  if (ep_fits(s, l, l.ep, l.etp)) return;
  if (l.etp > 1 && !ep_fits(s, l, l.ep, 1) && l.ep * l.etp > stage_gpus) {
    s.change("etp", num(l.etp), "1", "EP·ETP must divide the " + num(stage_gpus) + " GPUs of one pipeline stage",
             "Megatron-Core parallel_state");
    l.etp = 1;
  }
  int best = 1;
  for (int ep : ep_candidates(*s.in.rules, l.ep))
    if (ep_fits(s, l, ep, l.etp)) best = ep;
  s.change("ep", num(l.ep), num(best),
           "EP·ETP must divide TP·CP·DP = " + num(stage_gpus) + " (the GPUs of one pipeline stage) and the " +
               num(s.in.rules->experts) + " experts",
           "seed 004 rule 7; Megatron-Core parallel_state");
  l.ep = best;
}

// Sets the first/last-stage layer counts for the layout's PP and VP; false when no split exists.
bool set_split(const State& s, Layout& x) {
  const auto split = split_for(s.layers(), x.pp, x.vp);
  if (!split) return false;
  x.first_stage_layers = split->first;
  x.last_stage_layers = split->last;
  return true;
}

void set_pp(State& s, int pp, const std::string& reason, const std::string& rule) {
  Layout& l = s.l;
  s.change("pp", num(l.pp), num(pp), reason, rule);
  l.pp = pp;
  const int vp = choose_vp(*s.in.rules, pp);
  if (vp != l.vp) {
    s.change("vp", num(l.vp), num(vp),
             pp > 1 ? (vp > 1 ? "PP " + num(pp) + " uses virtual stages to shrink the pipeline bubble"
                              : "no VP > 1 splits the " + num(s.layers()) + " layers over PP " + num(pp))
                    : "VP needs PP > 1",
             "seed 004 rule 3");
    l.vp = vp;
  }
  set_split(s, l);
  fix_ep(s);
}

// Step 2: CP so that seq / CP stays near the recipe's (rule 6 and the long-context branch).
void resize_cp(State& s, int64_t seq0, int64_t seq) {
  Layout& l = s.l;
  const std::vector<int> cands = cp_candidates(*s.in.rules, seq, l.tp, l.tp > 1, std::max(s.gpus(), l.cp));
  const bool valid = std::find(cands.begin(), cands.end(), l.cp) != cands.end();
  if (seq == seq0 && valid) return;
  if (seq == seq0) {  // the sequence stays, but TP changed: the largest CP below that splits it
    int cp = 1;
    for (int c : cands)
      if (c <= l.cp) cp = c;
    s.change("cp", num(l.cp), num(cp),
             "CP must split the sequence " + num(seq) + " into 2 x CP chunks (and TP x CP with SP)",
             "Megatron-Core; REFERENCES.md C");
    l.cp = cp;
    return;
  }
  const double per_rank0 = static_cast<double>(seq0) / l.cp;
  const double want = std::max(1.0, static_cast<double>(seq) / per_rank0);
  int best = 1;
  double best_d = std::numeric_limits<double>::max();
  for (int cp : cands) {
    const double d = std::fabs(std::log2(cp / want));
    if (d < best_d - 1e-9 || (std::fabs(d - best_d) <= 1e-9 && cp > best)) best = cp, best_d = d;
  }
  std::string reason = "sequence " + num(seq0) + " -> " + num(seq) + ": CP " + num(best) + " keeps about " +
                       num(seq / best) + " tokens per CP rank (the recipe has " +
                       num(static_cast<int64_t>(per_rank0)) + ")";
  if (seq > kLongContextSeq && best > 1) reason += "; long context needs CP";
  s.change("cp", num(l.cp), num(best), reason, "seed 004 rule 6");
  l.cp = best;
}

// Step 3: TP must fit the heads and KV groups (rule 1), NVLink (rule 2) and the GPU count.
void resize_tp(State& s) {
  Layout& l = s.l;
  const PreparedRuleModel& pm = *s.in.rules;
  const int cap = std::min({l.tp, s.limit, s.gpus()});
  if (tp_valid(pm, l.tp) && l.tp <= cap) return;
  std::string reason, rule;
  if (!tp_fits_kv_groups(pm, l.tp)) {
    reason = "TP must divide the " + num(pm.kv_heads) + " KV heads", rule = "seed 004 rule 1";
  } else if (!tp_valid(pm, l.tp)) {
    reason = "TP must divide the attention heads, FFN width and SSM/GDN heads", rule = "Megatron-Core";
  } else if (l.tp > s.gpus()) {
    reason = "the cluster has only " + num(s.gpus()) + " GPUs", rule = "seed 004 rule 7";
  } else {
    const int per_node = s.c.gpus_per_node > 0 ? s.c.gpus_per_node : s.in.hardware->gpus_per_node;
    reason = s.limit == per_node ? "the cluster has " + num(per_node) + " GPUs per node and TP should stay inside NVLink"
                                 : "TP should stay inside the " + num(s.limit) + "-GPU NVLink domain";
    rule = "seed 004 rule 2";
  }
  const auto cands = tp_candidates(pm, cap);
  const int tp = cands.empty() ? 1 : cands.back();
  s.change("tp", num(l.tp), num(tp), reason, rule);
  l.tp = tp;
}

// Step 4: TP·PP·CP must divide the GPUs (rule 7). The smaller degrees that do are estimated; the one
// that fits with the highest throughput wins (else the one closest to fitting).
void resize_to_gpus(State& s, int64_t seq) {
  Layout& l = s.l;
  const int mp0 = l.model_parallel();
  if (s.gpus() % mp0 == 0) return;
  const PreparedRuleModel& pm = *s.in.rules;
  struct Best {
    Layout l;
    bool fits = false;
    double score = 0;
  };
  std::optional<Best> best;
  for (int tp : tp_candidates(pm, l.tp))
    for (int pp = 1; pp <= l.pp; ++pp)
      for (int cp : cp_candidates(pm, seq, tp, tp > 1, l.cp)) {
        if (s.gpus() % (tp * pp * cp) != 0) continue;
        Layout x = l;
        x.tp = tp, x.pp = pp, x.cp = cp;
        if (pp != l.pp) {
          x.vp = choose_vp(pm, pp);
          if (!set_split(s, x)) continue;
        }
        if (s.moe())
          for (int ep : ep_candidates(pm, l.ep))
            if (ep_fits(s, x, ep, x.etp)) x.ep = ep;
        if (!allowed(s, x)) continue;
        const Estimate e = eval(s, x);
        const bool fits = e.fits();
        const double score = fits ? -e.tokens_per_s_per_gpu : e.memory.worst.peak_bytes - e.memory.worst.capacity_bytes;
        if (!best || (fits && !best->fits) || (fits == best->fits && score < best->score)) best = Best{x, fits, score};
      }
  if (!best) return;
  const std::string why = "TP·PP·CP = " + num(mp0) + " does not divide the " + num(s.gpus()) + " GPUs; of the smaller degrees that do, this one " +
                          (best->fits ? "fits and is predicted fastest" : "comes closest to fitting");
  const std::string rule = "seed 004 rule 7";
  s.change("tp", num(l.tp), num(best->l.tp), why, rule);
  s.change("cp", num(l.cp), num(best->l.cp), why, rule);
  if (best->l.pp != l.pp) {
    s.change("pp", num(l.pp), num(best->l.pp), why, rule);
    s.change("vp", num(l.vp), num(best->l.vp), best->l.pp > 1 ? "virtual stages for the new PP" : "VP needs PP > 1",
             "seed 004 rule 3");
  }
  s.change("ep", num(l.ep), num(best->l.ep), "EP·ETP must divide TP·CP·DP, the GPUs of one pipeline stage",
           "Megatron-Core parallel_state");
  l = best->l;
}

// Step 7: one memory remedy, in seed 004's order; false when none applies.
bool memory_remedy(State& s, const Estimate& e, int64_t seq) {
  Layout& l = s.l;
  const PreparedRuleModel& pm = *s.in.rules;
  const std::string oom = "the layout does not fit (peak " + format_bytes(e.memory.worst.peak_bytes) + " > " +
                          format_bytes(e.memory.worst.capacity_bytes) + ")";
  auto try_layout = [&](const Layout& x) { return allowed(s, x); };
  if (l.mbs > 1) {
    Layout x = l;
    x.mbs = 1;
    if (try_layout(x)) {
      s.change("mbs", num(l.mbs), "1", oom + ": micro batch 1 first", "seed 004 batch advice");
      l = x;
      return true;
    }
  }
  if (s.moe())
    for (int ep : ep_candidates(pm, s.gpus() / l.pp)) {
      if (ep <= l.ep || !ep_fits(s, l, ep, l.etp)) continue;
      Layout x = l;
      x.ep = ep;
      if (!try_layout(x)) continue;
      s.change("ep", num(l.ep), num(ep), oom + ": for MoE, raise EP first (it shards the expert weights)", "seed 004 rule 4");
      l = x;
      return true;
    }
  for (int tp : tp_candidates(pm, std::min(s.limit, s.gpus()))) {
    if (tp <= l.tp || s.gpus() % (tp * l.pp * l.cp) != 0) continue;
    Layout x = l;
    x.tp = tp;
    if (!try_layout(x)) continue;
    s.change("tp", num(l.tp), num(tp), oom + ": TP is raised before PP", "seed 004 rule 3");
    l = x;
    fix_ep(s);
    return true;
  }
  if (seq > kLongContextSeq)
    for (int cp : cp_candidates(pm, seq, l.tp, l.tp > 1, s.gpus() / (l.tp * l.pp))) {
      if (cp <= l.cp || s.gpus() % (l.tp * l.pp * cp) != 0) continue;
      Layout x = l;
      x.cp = cp;
      if (!try_layout(x)) continue;
      s.change("cp", num(l.cp), num(cp), oom + ": long context needs more CP for activations", "seed 004 pitfall \"long context without CP\"");
      l = x;
      fix_ep(s);
      return true;
    }
  // PP that divides the layers first, then uneven splits.
  for (int pass = 0; pass < 2; ++pass)
  for (int pp = l.pp + 1; pp <= std::min(s.layers(), s.gpus()); ++pp) {
    if (s.gpus() % (l.tp * pp * l.cp) != 0 || (s.layers() % pp == 0) != (pass == 0)) continue;
    Layout x = l;
    x.pp = pp;
    x.vp = choose_vp(pm, pp);
    if (!set_split(s, x) || !try_layout(x)) continue;
    set_pp(s, pp, oom + ": TP is at its limit, so PP goes up (with VP)", "seed 004 rule 3");
    return true;
  }
  if (l.recompute != Recompute::kFull) {
    Layout x = l;
    if (l.recompute == Recompute::kNone) {
      x.recompute = Recompute::kSelective;
      x.recompute_modules = kRcDefault;
    } else {
      x.recompute = Recompute::kFull;
      x.recompute_method = RecomputeMethod::kUniform;
      x.recompute_layers = 1;
    }
    if (try_layout(x)) {
      s.change("recompute", recompute_label(l), recompute_label(x), oom + ": recompute activations in backward",
               "Megatron-Core activation recompute (not a seed 004 rule)");
      l = x;
      return true;
    }
  }
  return false;
}

// One line per field and reason: successive changes of a field for the same rule (TP 1 -> 2 -> 4)
// become one (TP 1 -> 4) at the place of the first, with its reason; a net no-change is dropped.
std::vector<Change> compact(std::vector<Change> in) {
  std::vector<Change> out;
  for (auto& c : in) {
    auto same = std::find_if(out.begin(), out.end(), [&](const Change& o) { return o.field == c.field && o.rule == c.rule; });
    if (same != out.end()) same->to = c.to;
    else out.push_back(std::move(c));
  }
  out.erase(std::remove_if(out.begin(), out.end(), [](const Change& c) { return c.from == c.to; }), out.end());
  return out;
}

}  // namespace

std::string Change::text() const {
  std::string out = field_label(field) + " " + from + " -> " + to + ": " + reason;
  if (!rule.empty()) out += " (" + rule + ")";
  return out;
}

int nvlink_limit(const Hardware& hw, int gpus_per_node) {
  const int per_node = gpus_per_node > 0 ? gpus_per_node : hw.gpus_per_node;
  if (hw.nvlink_domain > 0 && per_node > 0 && hw.nvlink_domain <= hw.gpus_per_node)
    return std::min(per_node, hw.nvlink_domain);
  if (hw.nvlink_domain > 0) return hw.nvlink_domain;
  return per_node > 0 ? per_node : 8;
}

bool precision_supported(const Hardware& hw, Precision p) {
  if (hw.peak_flops_per_s(p) <= 0) return false;
  if (p == Precision::kMxfp8 || p == Precision::kNvfp4) {
    const GpuArch a = gpu_arch(hw);
    return a == GpuArch::kUnknown || is_blackwell_family(a) || a == GpuArch::kRubin;
  }
  return true;
}

int choose_vp(const PreparedRuleModel& rules, int pp) {
  if (pp <= 1 || rules.layers <= 0) return 1;
  int best = 1;
  double best_d = std::numeric_limits<double>::max();
  for (bool uniform_only : {true, false}) {
    for (int vp = 2; vp <= 16 && pp * vp <= rules.layers; ++vp) {
      const bool uniform = rules.layers % pp == 0 && (rules.layers / pp) % vp == 0;
      if (uniform_only ? !uniform : !split_for(rules.layers, pp, vp)) continue;
      const double d = std::fabs(static_cast<double>(rules.layers) / (pp * vp) - 4.0);
      if (d < best_d - 1e-9) best = vp, best_d = d;
    }
    if (best > 1) break;
  }
  return best;
}

Layout modelled_layout(int layers, Layout l) {
  if (l.pp <= 1 || l.first_stage_layers > 0 || l.last_stage_layers > 0 || layers <= 0) return l;
  if (layers % l.pp == 0 && (layers / l.pp) % l.vp == 0) return l;
  // The most balanced split (smallest largest stage); at equal balance the larger VP.
  int best_load = 0;
  Layout best = l;
  for (int vp = l.vp; vp >= 1; --vp) {
    const auto split = split_for(layers, l.pp, vp);
    if (!split) continue;
    int load = layers / l.pp;
    if (split->first > 0) {
      const int middle = l.pp > 2 ? (layers - split->first - split->last) / (l.pp - 2) : 0;
      load = std::max({split->first, split->last, middle});
    }
    if (best_load == 0 || load < best_load) {
      best_load = load;
      best = l;
      best.vp = vp;
      best.first_stage_layers = split->first;
      best.last_stage_layers = split->last;
    }
  }
  return best;
}

int64_t round_batch(int64_t gbs, int64_t unit) {
  if (unit <= 0) return gbs;
  if (gbs <= unit) return unit;
  const int64_t down = gbs / unit * unit;
  return gbs - down <= down + unit - gbs ? down : down + unit;
}

Resized resize(const ResizeInputs& in, const ResizeFrom& from, const ResizeTo& to) {
  State s{in, to, from.layout, {}, {}, 0, 0, {}, {}};
  s.c.gpus = to.gpus;
  s.c.gpus_per_node = to.gpus_per_node;
  s.limit = nvlink_limit(*in.hardware, to.gpus_per_node);
  Layout& l = s.l;
  if (!from.layout_known) {
    l = Layout{};
    l.precision = from.layout.precision;
    s.notes.push_back("the recipe does not record its layout: starting from TP1 PP1 CP1");
  } else if (s.moe() && !from.ep_known) {
    s.notes.push_back("the recipe does not record EP: starting from EP 1");
  }
  if (!s.moe()) l.ep = 1, l.etp = 1;
  if (from.mode != to.mode)
    s.change("mode", std::string(mode_name(from.mode)), std::string(mode_name(to.mode)),
             "the closest recipe is a " + std::string(mode_name(from.mode)) + " recipe; the layout is sized for " +
                 std::string(mode_name(to.mode)),
             "seed 004 decision tree");

  // 1. precision
  if (!from.precision_known && !to.precision) s.notes.push_back("the recipe does not record its precision: bf16");
  if (!from.precision_known) l.precision = Precision::kBf16;
  if (to.precision && *to.precision != l.precision) {
    s.change("precision", std::string(precision_name(l.precision)), std::string(precision_name(*to.precision)),
             "asked for", "--precision");
    l.precision = *to.precision;
  }
  if (!precision_supported(*in.hardware, l.precision)) {
    const bool fp8 = precision_class(l.precision) != PrecisionClass::kBf16 &&
                     precision_supported(*in.hardware, Precision::kFp8Cs);
    const Precision p = fp8 ? Precision::kFp8Cs : Precision::kBf16;
    s.change("precision", std::string(precision_name(l.precision)), std::string(precision_name(p)),
             in.hardware->name + " does not support " + std::string(precision_name(l.precision)),
             "RB-FP8-GPU");
    l.precision = p;
  }

  // 2. sequence and CP
  const int64_t seq0 = from.seq > 0 ? from.seq : (to.seq > 0 ? to.seq : kDefaultSeq);
  const int64_t seq = to.seq > 0 ? to.seq : seq0;
  if (from.seq <= 0 && to.seq <= 0) s.notes.push_back("no sequence length given or recorded: " + num(seq));
  s.w.mode = to.mode;
  s.w.seq = seq;
  s.w.lora_rank = to.lora_rank;
  if (from.seq > 0 && seq != from.seq) s.change("seq", num(from.seq), num(seq), "asked for", "--seq");

  // 3. TP, then CP for the sequence, then the GPU count
  resize_tp(s);
  resize_cp(s, seq0, seq);
  resize_to_gpus(s, seq);
  if (l.pp == 1 && l.vp > 1) {
    s.change("vp", num(l.vp), "1", "VP needs PP > 1", "seed 004 rule 3");
    l.vp = 1;
  }
  fix_ep(s);

  // Batch: the asked GBS, else the recipe's, else a few micro batches per DP rank (two per stage with PP).
  settle(s, l);
  s.gbs_target = to.gbs > 0 ? to.gbs : from.gbs;
  if (s.gbs_target <= 0) {
    s.gbs_target = static_cast<int64_t>(l.mbs) * l.dp * std::max(kDefaultMicrobatches, 2 * l.pp);
    s.notes.push_back("no global batch given or recorded: " + num(s.gbs_target));
  }

  // 7. memory
  Estimate e = eval(s, l);
  for (int i = 0; i < 32 && e.valid && !e.fits(); ++i) {
    if (!memory_remedy(s, e, seq)) break;
    e = eval(s, l);
  }

  // Net DP, SP and batch changes.
  settle(s, l);
  const int dp0 = from.gpus > 0 && from.layout.model_parallel() > 0 ? from.gpus / from.layout.model_parallel() : 0;
  if (dp0 > 0 && from.layout_known)
    s.change("dp", num(dp0), num(l.dp),
             num(s.gpus()) + " GPUs / (TP " + num(l.tp) + " x PP " + num(l.pp) + " x CP " + num(l.cp) + "); DP is implicit",
             "seed 004 rule 7");
  if (from.layout.sp != l.sp)
    s.change("sp", on_off(from.layout.sp), on_off(l.sp), l.sp ? "SP whenever TP > 1" : "SP needs TP > 1",
             l.sp ? "seed 004 rule 5" : "Megatron-Core");
  s.w.gbs = round_batch(s.gbs_target, batch_unit(l));
  if (s.w.gbs != s.gbs_target)
    s.change("gbs", num(s.gbs_target), num(s.w.gbs),
             "GBS must be a multiple of MBS x DP" + std::string(l.vp > 1 ? " x PP (interleaved schedule)" : "") + " = " +
                 num(batch_unit(l)) + "; the nearest one is kept",
             "seed 004 batch advice");

  Resized r;
  r.layout = l;
  r.modelled = modelled_layout(s.layers(), l);
  if (r.modelled.vp != l.vp || r.modelled.first_stage_layers != l.first_stage_layers) {
    std::string as = "first " + num(r.modelled.first_stage_layers) + " and last " + num(r.modelled.last_stage_layers) + " stage layers";
    if (r.modelled.vp != l.vp) as = "VP " + num(r.modelled.vp) + " with " + as;
    s.notes.push_back("the record gives no split of the " + num(s.layers()) + " layers over PP " + num(l.pp) +
                      (l.vp > 1 ? " x VP " + num(l.vp) : "") + " (Megatron-Bridge may split them in its own code); estimated as " + as);
  }
  r.workload = s.w;
  r.cluster = s.c;
  r.estimate = estimate(*in.model, *in.hardware, s.w, s.c, r.modelled);
  r.changes = compact(std::move(s.changes));
  r.notes = std::move(s.notes);
  return r;
}

}  // namespace rb
