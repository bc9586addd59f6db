// Seed 004's resizing rules, applied step by step (resize.hpp lists the steps). Rule numbers refer
// to seed 004's "Parallelism Resizing Rules"; "batch advice" to its "Batch Size Tuning".
#include "recipebook/search/resize.hpp"

#include <algorithm>

#include "recipebook/core/units.hpp"
#include "recipebook/rules/pipeline_split.hpp"
#include "recipebook/rules/valid_degrees.hpp"
#include "recipebook/search/resize_internal.hpp"

namespace rb {
namespace {

using namespace resize_detail;

std::string on_off(bool b) { return b ? "on" : "off"; }

std::string field_label(const std::string& f) {
  if (f == "seq") return "sequence";
  if (f == "precision" || f == "recompute" || f == "mode" || f == "layout") return f;
  std::string up = f;
  for (char& c : up) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  return up;
}

std::string recompute_label(const Layout& l) {
  if (l.recompute == Recompute::kSelective)
    return "selective(" + recompute_modules_str(l.recompute_modules != 0 ? l.recompute_modules : kRcDefault) + ")";
  return std::string(recompute_name(l.recompute));
}

// Recompute modules and CUDA-graph scopes that need layers this model does not have (a recipe of
// another model of the family or kind): dropped, as RB-RECOMPUTE-MODULE and RB-CUDA-GRAPH-SCOPE ask.
void fit_features(State& s) {
  Layout& l = s.l;
  const PreparedRuleModel& pm = *s.in.rules;
  const std::string who = pm.model->name;
  if (l.recompute == Recompute::kSelective && l.recompute_modules != 0) {
    uint32_t bad = 0;
    if (pm.mla_layers == 0) bad |= kRcMlaUpProj;
    if (pm.moe_layers == 0) bad |= kRcMoeAct | kRcMoe | kRcSharedExperts;
    if (pm.model->moe.shared_experts == 0) bad |= kRcSharedExperts;
    if (pm.gdn_layers == 0) bad |= kRcGdnNormOut;
    bad &= l.recompute_modules;
    if (bad != 0) {
      Layout x = l;
      x.recompute_modules &= ~bad;
      if (x.recompute_modules == 0) x.recompute_modules = kRcDefault;
      s.change("recompute", recompute_label(l), recompute_label(x),
               recompute_modules_str(bad) + " need layers " + who + " does not have", "RB-RECOMPUTE-MODULE");
      l = x;
    }
  }
  if (l.cuda_graph != CudaGraph::kNone && l.cuda_graph_scope != 0) {
    uint32_t bad = 0;
    if (pm.mamba_layers == 0) bad |= kCgMamba;
    if (pm.moe_layers == 0) bad |= kCgMoe | kCgMoeRouter | kCgMoePreprocess;
    if (pm.dense_ffn_layers == 0) bad |= kCgMlp;
    bad &= l.cuda_graph_scope;
    if (bad != 0 && (l.cuda_graph_scope & ~bad) != 0) {
      s.notes.push_back("CUDA-graph scope modules this model has no layers for are dropped (" + who + ")");
      l.cuda_graph_scope &= ~bad;
    }
  }
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

// A reason without its figures: "the layout does not fit (peak . GiB > . GiB): TP is raised before PP".
std::string reason_kind(const std::string& r) {
  std::string out;
  for (char c : r)
    if (c < '0' || c > '9') out += c;
  return out;
}

// One line per field and reason: successive changes of a field for the same reason (TP 1 -> 2 -> 4
// for memory) become one (TP 1 -> 4) at the place of the first, with its reason; a net no-change is
// dropped.
std::vector<Change> compact(std::vector<Change> in) {
  std::vector<Change> out;
  for (auto& c : in) {
    auto same = std::find_if(out.begin(), out.end(), [&](const Change& o) {
      return o.field == c.field && o.rule == c.rule && reason_kind(o.reason) == reason_kind(c.reason);
    });
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

Resized resize(const ResizeInputs& in, const ResizeFrom& from, const ResizeTo& to) {
  State s{in, to, from.layout, {}, {}, 0, 0, {}, {}, {}};
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
  // A recorded first/last-stage split that does not fit this model's layers (a recipe of another
  // model of the family) is dropped: the split is recomputed for the layers at hand.
  if (l.first_stage_layers > 0 || l.last_stage_layers > 0) {
    const int rest = s.layers() - l.first_stage_layers - l.last_stage_layers;
    const bool fits_split = l.pp >= 2 && rest >= 0 && (l.pp == 2 ? rest == 0 : rest > 0 && rest % (l.pp - 2) == 0);
    if (!fits_split) {
      s.notes.push_back("the recorded first/last-stage split (" + num(l.first_stage_layers) + "/" + num(l.last_stage_layers) +
                        " layers) does not fit the " + num(s.layers()) + " layers over PP " + num(l.pp) + ": recomputed");
      l.first_stage_layers = 0;
      l.last_stage_layers = 0;
    }
  }
  if (from.mode != to.mode)
    s.change("mode", std::string(mode_name(from.mode)), std::string(mode_name(to.mode)),
             "the closest recipe is a " + std::string(mode_name(from.mode)) + " recipe; the layout is sized for " +
                 std::string(mode_name(to.mode)),
             "seed 004 decision tree");

  // Features of a recipe borrowed from another model that this model lacks the layers for.
  fit_features(s);

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
  // Rules the recipe breaks as recorded, on its own GPUs, sequence and batch.
  {
    Layout own = modelled_layout(s.layers(), l);
    Cluster c0{from.gpus > 0 ? from.gpus : to.gpus, 0};
    own.dp = own.model_parallel() > 0 ? std::max(1, c0.gpus / own.model_parallel()) : 1;
    own.sp = own.sp && own.tp > 1;
    Workload w0 = s.w;
    w0.seq = seq0;
    w0.gbs = from.gbs > 0 ? from.gbs : static_cast<int64_t>(own.mbs) * own.dp;
    s.baseline_errors = error_rules(*in.rules, w0, c0, own);
  }
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
  if (r.modelled.vp != l.vp || stage_split_of(r.modelled) != stage_split_of(l)) {
    std::string as = stage_split_words(r.modelled);
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
