#include "recipebook/search/recommend.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>

#include "recipebook/core/strings.hpp"
#include "recipebook/core/units.hpp"
#include "recipebook/search/space.hpp"

namespace rb {
namespace {

std::string num(int64_t v) { return std::to_string(v); }

// A rough generation index: how far apart two GPUs are in features and speed.
double generation(GpuArch a) {
  switch (a) {
    case GpuArch::kAmpere: return 0;
    case GpuArch::kHopper: return 1;
    case GpuArch::kBlackwell:
    case GpuArch::kGraceBlackwell: return 2;
    case GpuArch::kRubin: return 3;
    case GpuArch::kAmd:
    case GpuArch::kTpu: return 1;
    case GpuArch::kUnknown: return 1.5;
  }
  return 1.5;
}

bool nvidia_or_unknown(GpuArch a) { return is_nvidia(a) || a == GpuArch::kUnknown; }

// Billions, short: "8.0B", "235B", "0.6B".
std::string billions(double params) {
  const double b = params / 1e9;
  char buf[32];
  std::snprintf(buf, sizeof buf, b >= 100 ? "%.0fB" : (b >= 10 ? "%.1fB" : "%.2fB"), b);
  return buf;
}

double log_ratio(double a, double b) { return std::fabs(std::log(a / b)); }

// The sequence distance: to the asked sequence, or to "at most 8K" when none is asked.
double seq_distance(int64_t asked, int64_t recipe) {
  if (recipe <= 0) return 0;  // not recorded: the recipe's default, which is short
  if (asked <= 0) return recipe <= 8192 ? 0 : std::log2(static_cast<double>(recipe) / 8192.0);
  return std::fabs(std::log2(static_cast<double>(recipe) / static_cast<double>(asked)));
}

std::string gpu_words(const GpuFacts& g) {
  std::string out = g.name;
  if (g.memory_bytes > 0)
    out += " (" + format_bytes(g.memory_bytes) + ", " + std::string(gpu_arch_name(g.arch)) + ")";
  else
    out += " (no specs in the catalog)";
  return out;
}

}  // namespace

std::string_view model_match_name(ModelMatch m) {
  switch (m) {
    case ModelMatch::kSame: return "same";
    case ModelMatch::kFamily: return "family";
    case ModelMatch::kSameKind: return "same-kind";
    case ModelMatch::kOther: return "other";
  }
  return "other";
}

double gpu_distance(const GpuFacts& want, const GpuFacts& have) {
  if (!want.name.empty() && fold_name(want.name) == fold_name(have.name)) return 0;
  double d = want.memory_bytes > 0 && have.memory_bytes > 0 ? log_ratio(have.memory_bytes, want.memory_bytes) : 1.0;
  d += 0.5 * std::fabs(generation(want.arch) - generation(have.arch));
  const bool rack_want = want.nvlink_domain > 8, rack_have = have.nvlink_domain > 8;
  if (rack_want != rack_have) d += 0.25;
  if (nvidia_or_unknown(want.arch) != nvidia_or_unknown(have.arch)) d += 2.0;
  return d;
}

bool score_less(const MatchScore& a, const MatchScore& b) {
  auto key = [](const MatchScore& s) {
    return std::tuple(static_cast<int>(s.model), s.modality_differs, s.size_distance, s.mode_differs, s.gpu_distance, s.precision_differs,
                      s.seq_distance, s.not_runnable, s.layout_unknown, s.count_distance, s.unmeasured, s.variant);
  };
  return key(a) < key(b);
}

MatchScore match_score(const MatchRequest& req, const RecipeCandidate& c) {
  MatchScore s;
  const bool same_model = !req.model.name.empty() && fold_name(req.model.name) == fold_name(c.model.name);
  const bool sizes = req.model.params > 0 && c.model.params > 0;
  if (same_model) {
    s.model = ModelMatch::kSame;
  } else {
    if (!req.model.family.empty() && fold_name(req.model.family) == fold_name(c.model.family))
      s.model = ModelMatch::kFamily;
    else if (req.model.moe >= 0 && req.model.moe == c.model.moe)
      s.model = ModelMatch::kSameKind;
    else
      s.model = ModelMatch::kOther;
    s.size_distance = sizes ? log_ratio(c.model.params, req.model.params) : kUnknownSizeDistance;
    s.modality_differs = c.model.vision != req.model.vision;
  }
  s.mode_differs = c.mode != req.mode;
  s.gpu_distance = gpu_distance(req.gpu, c.gpu);
  const Precision want = req.precision.value_or(Precision::kBf16);
  s.precision_differs = c.precision.value_or(Precision::kBf16) != want;
  s.seq_distance = seq_distance(req.seq, c.seq);
  s.not_runnable = !c.runnable;
  s.layout_unknown = !c.layout_known;
  s.unmeasured = !c.measured;
  s.variant = c.variant;
  s.count_distance = c.gpus > 0 && req.gpus > 0
                         ? std::fabs(std::log2(static_cast<double>(c.gpus) / static_cast<double>(req.gpus)))
                         : 10.0;
  return s;
}

std::vector<RankedRecipe> rank_recipes(const MatchRequest& req, const std::vector<RecipeCandidate>& cands) {
  std::vector<RankedRecipe> out;
  out.reserve(cands.size());
  for (size_t i = 0; i < cands.size(); ++i) out.push_back({i, match_score(req, cands[i])});
  std::sort(out.begin(), out.end(), [&](const RankedRecipe& a, const RankedRecipe& b) {
    if (score_less(a.score, b.score)) return true;
    if (score_less(b.score, a.score)) return false;
    const std::string& na = cands[a.index].name;
    const std::string& nb = cands[b.index].name;
    return na.size() != nb.size() ? na.size() < nb.size() : na < nb;
  });
  return out;
}

std::vector<std::string> match_reasons(const MatchRequest& req, const RecipeCandidate& c, const MatchScore& s) {
  std::vector<std::string> out;
  const std::string sizes = c.model.params > 0 && req.model.params > 0
                                ? " (" + billions(c.model.params) + " vs " + billions(req.model.params) + " parameters)"
                                : " (size unknown)";
  switch (s.model) {
    case ModelMatch::kSame: out.push_back("same model"); break;
    case ModelMatch::kFamily: out.push_back("same family " + c.model.family + ", nearest size: " + c.model.name + sizes); break;
    case ModelMatch::kSameKind:
      out.push_back(std::string("no recipe of this family; nearest ") + (c.model.moe == 1 ? "MoE" : "dense") +
                    " model by size: " + c.model.name + sizes);
      break;
    case ModelMatch::kOther: out.push_back("no recipe of this family or kind; nearest by size: " + c.model.name + sizes); break;
  }
  if (s.modality_differs)
    out.push_back(req.model.vision ? "a text recipe for a vision-language model" : "a vision-language recipe for a text model");
  out.push_back(s.mode_differs ? "mode " + std::string(mode_name(c.mode)) + " (no closer " +
                                     std::string(mode_name(req.mode)) + " recipe)"
                               : "same mode");
  out.push_back(s.gpu_distance == 0 ? "same GPU" : "nearest GPU: " + gpu_words(c.gpu) + " for " + gpu_words(req.gpu));
  if (c.precision) out.push_back("precision " + std::string(precision_name(*c.precision)));
  if (c.seq > 0) out.push_back("sequence " + num(c.seq));
  if (!c.runnable) out.push_back("its entry point is not a current recipe");
  if (!c.layout_known) out.push_back("layout not recorded");
  if (c.measured) out.push_back("measured");
  out.push_back(num(c.gpus) + (c.gpus == 1 ? " GPU" : " GPUs") + (c.gpus == req.gpus ? "" : " (asked " + num(req.gpus) + ")"));
  return out;
}

namespace {
std::string num_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}
}  // namespace

std::string layout_summary(const Layout& l) {
  std::string out = "TP" + num(l.tp) + " PP" + num(l.pp);
  if (l.vp > 1) out += " VP" + num(l.vp);
  out += " CP" + cp_text(l) + " EP" + num(l.ep);
  if (l.etp > 1) out += " ETP" + num(l.etp);
  out += " DP" + num(l.dp) + " MBS" + num(l.mbs);
  if (l.sp) out += " SP";
  if (l.fsdp) out += " FSDP";
  out += ", " + std::string(precision_name(l.precision));
  RecomputeOption r{l.recompute, l.recompute == Recompute::kSelective ? (l.recompute_modules != 0 ? l.recompute_modules : kRcDefault) : 0};
  out += ", recompute " + recompute_option_name(r);
  if (l.ep > 1 || l.dispatcher != Dispatcher::kAlltoall) out += ", dispatcher " + std::string(dispatcher_name(l.dispatcher));
  if (l.cuda_graph != CudaGraph::kNone) out += ", CUDA graphs " + std::string(cuda_graph_name(l.cuda_graph));
  if (l.optimizer_offload_fraction > 0) out += ", optimizer offload " + num_text(l.optimizer_offload_fraction);
  if (l.offload_modules != 0) out += ", activation offload [" + offload_modules_str(l.offload_modules) + "]";
  return out;
}

std::vector<std::string> layout_differences(const Layout& a, const Layout& b) {
  std::vector<std::string> out;
  auto degree = [&](const char* name, int x, int y) {
    if (x != y) out.push_back(std::string(name) + " " + num(x) + " vs " + num(y));
  };
  degree("TP", a.tp, b.tp);
  degree("PP", a.pp, b.pp);
  degree("VP", a.vp, b.vp);
  degree("CP", a.cp, b.cp);
  if (cp_exchange(a) != cp_exchange(b))
    out.push_back("CP comm " + std::string(cp_comm_name(cp_exchange(a))) + " vs " +
                  std::string(cp_comm_name(cp_exchange(b))));
  degree("EP", a.ep, b.ep);
  degree("ETP", a.etp, b.etp);
  degree("DP", a.dp, b.dp);
  degree("MBS", a.mbs, b.mbs);
  auto flag = [&](const char* name, bool x, bool y) {
    if (x != y) out.push_back(std::string(name) + (x ? " on vs off" : " off vs on"));
  };
  flag("SP", a.sp, b.sp);
  flag("FSDP", a.fsdp, b.fsdp);
  if (a.precision != b.precision)
    out.push_back("precision " + std::string(precision_name(a.precision)) + " vs " + std::string(precision_name(b.precision)));
  auto rc = [](const Layout& l) {
    RecomputeOption r{l.recompute, l.recompute == Recompute::kSelective ? (l.recompute_modules != 0 ? l.recompute_modules : kRcDefault) : 0};
    return recompute_option_name(r);
  };
  if (rc(a) != rc(b)) out.push_back("recompute " + rc(a) + " vs " + rc(b));
  if (a.dispatcher != b.dispatcher)
    out.push_back("dispatcher " + std::string(dispatcher_name(a.dispatcher)) + " vs " + std::string(dispatcher_name(b.dispatcher)));
  if (a.cuda_graph != b.cuda_graph)
    out.push_back("CUDA graphs " + std::string(cuda_graph_name(a.cuda_graph)) + " vs " + std::string(cuda_graph_name(b.cuda_graph)));
  return out;
}

}  // namespace rb
