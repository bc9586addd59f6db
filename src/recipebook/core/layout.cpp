#include "recipebook/core/layout.hpp"

#include <array>
#include <cctype>
#include <sstream>
#include <utility>

#include "recipebook/core/strings.hpp"

namespace rb {
namespace {

constexpr std::array<std::pair<std::string_view, uint32_t>, 9> kRecomputeModules{{
    {"core_attn", kRcCoreAttn},
    {"moe_act", kRcMoeAct},
    {"layernorm", kRcLayernorm},
    {"mla_up_proj", kRcMlaUpProj},
    {"mlp", kRcMlp},
    {"moe", kRcMoe},
    {"shared_experts", kRcSharedExperts},
    {"gdn_norm_out", kRcGdnNormOut},
    {"mhc", kRcMhc},
}};

constexpr std::array<std::pair<std::string_view, uint32_t>, 6> kGraphScopes{{
    {"attn", kCgAttn},
    {"mlp", kCgMlp},
    {"moe", kCgMoe},
    {"moe_router", kCgMoeRouter},
    {"moe_preprocess", kCgMoePreprocess},
    {"mamba", kCgMamba},
}};

// Megatron-Core transformer_config.py `offload_modules` choices (fused_group_mlp and gdp_qkv are
// not modelled).
constexpr std::array<std::pair<std::string_view, uint32_t>, 7> kOffloadModules{{
    {"attn_norm", kOfAttnNorm},
    {"qkv_linear", kOfQkvLinear},
    {"core_attn", kOfCoreAttn},
    {"attn_proj", kOfAttnProj},
    {"mlp_norm", kOfMlpNorm},
    {"expert_fc1", kOfExpertFc1},
    {"moe_act", kOfMoeAct},
}};

// GemmModule names: the Megatron-Core submodule names a quantization recipe's globs match
// (Megatron-Bridge perf_recipes/nemotronh/te_quant.cfg: "*.linear_qkv", "*.linear_proj",
// "*mlp.fc[12]_latent_proj", "mtp.*", "*mixer.out_proj").
constexpr std::array<std::pair<std::string_view, uint32_t>, 9> kGemmModules{{
    {"linear_qkv", kGmLinearQkv},
    {"linear_proj", kGmLinearProj},
    {"in_proj", kGmInProj},
    {"out_proj", kGmOutProj},
    {"mlp", kGmMlp},
    {"shared_experts", kGmSharedExperts},
    {"experts", kGmExperts},
    {"latent_proj", kGmLatentProj},
    {"mtp", kGmMtp},
}};

template <size_t N>
std::optional<uint32_t> parse_mask(const std::array<std::pair<std::string_view, uint32_t>, N>& table,
                                   std::string_view list, std::string* bad) {
  uint32_t mask = 0;
  // Items are separated by commas or spaces; brackets and quotes are ignored ("[attn, moe]").
  std::string text(list);
  for (char& c : text)
    if (c == ',' || c == '[' || c == ']' || c == '"' || c == '\'' || std::isspace(static_cast<unsigned char>(c)) != 0)
      c = ' ';
  std::istringstream in(text);
  std::string item;
  while (in >> item) {
    bool found = false;
    for (const auto& [name, bit] : table) {
      if (name != item) continue;
      mask |= bit;
      found = true;
    }
    if (!found) {
      if (bad != nullptr) *bad = item;
      return std::nullopt;
    }
  }
  return mask;
}

template <size_t N>
std::string choices(const std::array<std::pair<std::string_view, uint32_t>, N>& table) {
  std::string out;
  for (const auto& [name, bit] : table) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

}  // namespace

std::optional<Recompute> parse_recompute(std::string_view s) {
  const std::string f = to_lower(s);
  if (f == "none") return Recompute::kNone;
  if (f == "selective") return Recompute::kSelective;
  if (f == "full") return Recompute::kFull;
  return std::nullopt;
}

std::optional<uint32_t> parse_recompute_modules(std::string_view list, std::string* bad) {
  return parse_mask(kRecomputeModules, list, bad);
}

std::optional<uint32_t> parse_cuda_graph_scopes(std::string_view list, std::string* bad) {
  return parse_mask(kGraphScopes, list, bad);
}

std::vector<std::string> recompute_module_names() {
  std::vector<std::string> out;
  for (const auto& [name, bit] : kRecomputeModules) out.emplace_back(name);
  return out;
}

std::optional<uint32_t> parse_offload_modules(std::string_view list, std::string* bad) {
  return parse_mask(kOffloadModules, list, bad);
}

std::string offload_module_choices() { return choices(kOffloadModules); }

std::optional<uint32_t> parse_gemm_modules(std::string_view list, std::string* bad) {
  return parse_mask(kGemmModules, list, bad);
}
std::string gemm_module_choices() { return choices(kGemmModules); }

std::string recompute_module_choices() { return choices(kRecomputeModules); }
std::string cuda_graph_scope_choices() { return choices(kGraphScopes); }

std::optional<Mode> parse_mode(std::string_view s) {
  const std::string f = to_lower(s);
  if (f == "pretrain") return Mode::kPretrain;
  if (f == "sft") return Mode::kSft;
  if (f == "peft" || f == "lora" || f == "dora") return Mode::kPeft;
  return std::nullopt;
}

std::optional<Dispatcher> parse_dispatcher(std::string_view s) {
  const std::string f = to_lower(s);
  if (f == "alltoall") return Dispatcher::kAlltoall;
  if (f == "allgather") return Dispatcher::kAllgather;
  // `flex` alone is Megatron-Core's default flex backend, DeepEP (moe_flex_dispatcher_backend).
  if (f == "deepep" || f == "flex-deepep" || f == "flex_deepep" || f == "flex") return Dispatcher::kFlexDeepep;
  if (f == "hybridep" || f == "flex-hybridep" || f == "flex_hybridep") return Dispatcher::kFlexHybridep;
  return std::nullopt;
}

// Megatron-Core's cp_comm_type spellings, in CpComm's order.
constexpr std::array<std::string_view, 3> kCpCommNames{"p2p", "a2a", "allgather"};

std::optional<CpComm> parse_cp_comm(std::string_view s) {
  const std::string f = to_lower(s);
  for (size_t i = 0; i < kCpCommNames.size(); ++i)
    if (f == kCpCommNames[i]) return static_cast<CpComm>(i);
  return std::nullopt;
}

std::string_view cp_comm_name(CpComm c) { return kCpCommNames.at(static_cast<size_t>(c)); }

CpComm cp_exchange(const Layout& l) { return l.cp > 1 ? l.cp_comm : CpComm::kP2p; }

std::string cp_text(const Layout& l) {
  std::string s = std::to_string(l.cp);
  if (cp_exchange(l) != CpComm::kP2p) s += " (" + std::string(cp_comm_name(l.cp_comm)) + ")";
  return s;
}

std::optional<Optimizer> parse_optimizer(std::string_view s) {
  const std::string f = to_lower(s);
  if (f == "adam") return Optimizer::kAdam;
  // Megatron's dist_muon is Muon with the layer-wise distributed optimizer (distributed_optimizer).
  if (f == "muon" || f == "dist_muon") return Optimizer::kMuon;
  return std::nullopt;
}

std::string_view optimizer_name(Optimizer o) { return o == Optimizer::kMuon ? "muon" : "adam"; }

std::optional<CudaGraph> parse_cuda_graph(std::string_view s) {
  const std::string f = to_lower(s);
  if (f == "none" || f.empty()) return CudaGraph::kNone;
  if (f == "transformer_engine" || f == "te") return CudaGraph::kTransformerEngine;
  if (f == "local") return CudaGraph::kLocal;
  if (f == "full_iteration") return CudaGraph::kFullIteration;
  return std::nullopt;
}

std::optional<uint32_t> parse_recompute_module(std::string_view s) {
  for (const auto& [name, bit] : kRecomputeModules)
    if (name == s) return bit;
  return std::nullopt;
}

std::optional<uint32_t> parse_cuda_graph_scope(std::string_view s) {
  for (const auto& [name, bit] : kGraphScopes)
    if (name == s) return bit;
  return std::nullopt;
}

std::string_view dispatcher_name(Dispatcher d) {
  switch (d) {
    case Dispatcher::kAlltoall: return "alltoall";
    case Dispatcher::kAllgather: return "allgather";
    case Dispatcher::kFlexDeepep: return "deepep";
    case Dispatcher::kFlexHybridep: return "hybridep";
  }
  return "alltoall";
}

std::string_view cuda_graph_name(CudaGraph g) {
  switch (g) {
    case CudaGraph::kNone: return "none";
    case CudaGraph::kTransformerEngine: return "transformer_engine";
    case CudaGraph::kLocal: return "local";
    case CudaGraph::kFullIteration: return "full_iteration";
  }
  return "none";
}

std::optional<CrossEntropyImpl> parse_cross_entropy_impl(std::string_view s) {
  if (s == "te") return CrossEntropyImpl::kTe;
  if (s == "native") return CrossEntropyImpl::kNative;
  return std::nullopt;
}

std::string_view cross_entropy_impl_name(CrossEntropyImpl c) { return c == CrossEntropyImpl::kTe ? "te" : "native"; }

std::string_view recompute_name(Recompute r) {
  switch (r) {
    case Recompute::kNone: return "none";
    case Recompute::kSelective: return "selective";
    case Recompute::kFull: return "full";
  }
  return "none";
}

std::string recompute_modules_str(uint32_t mask) {
  std::string out;
  for (const auto& [name, bit] : kRecomputeModules) {
    if ((mask & bit) == 0) continue;
    if (!out.empty()) out += ",";
    out += name;
  }
  return out;
}

std::string offload_modules_str(uint32_t mask) {
  std::string out;
  for (const auto& [name, bit] : kOffloadModules) {
    if ((mask & bit) == 0) continue;
    if (!out.empty()) out += ",";
    out += name;
  }
  return out;
}

std::string gemm_modules_str(uint32_t mask) {
  std::string out;
  for (const auto& [name, bit] : kGemmModules) {
    if ((mask & bit) == 0) continue;
    if (!out.empty()) out += ",";
    out += name;
  }
  return out;
}

}  // namespace rb
