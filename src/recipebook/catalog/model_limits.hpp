// What an architecture must satisfy before anything sizes it: the ranges and divisibility checks
// Megatron-Core and Transformers make when they build the model, and size bounds above every real
// model so that no input (a config.json from a web page, a hostile catalog file) can make a loader
// allocate or loop without limit. Both loaders (hf_config.cpp, model_yaml.cpp) run the same checks
// and name the failing field in their own words (the JSON key, the YAML path).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "recipebook/core/model.hpp"

namespace rb {

// Bounds. The largest published models stay far below each: 126 layers (Llama-3.1-405B), hidden
// 18432 (Megatron's 1T GPT config), vocab 262144 (Gemma 3), ffn 53248 (Llama-3.1-405B), 512 routed
// experts (Qwen3-Next), 128 heads (DeepSeek-V3), head_dim 256 (Gemma), 10M positions (Llama 4
// Scout). With these, every product params.cpp forms (experts x ffn x hidden x layers at most
// 2^14 x 2^20 x 2^17 x 2^10 = 2^61) fits in int64, and a layer list is at most 1024 entries.
inline constexpr int64_t kMaxLayers = 1024;
inline constexpr int64_t kMaxHidden = int64_t{1} << 17;  // 131072
inline constexpr int64_t kMaxVocab = int64_t{1} << 24;   // 16.7M
inline constexpr int64_t kMaxFfn = int64_t{1} << 20;
inline constexpr int64_t kMaxHeads = 4096;
inline constexpr int64_t kMaxHeadDim = 4096;
inline constexpr int64_t kMaxExperts = int64_t{1} << 14;
inline constexpr int64_t kMaxPositions = int64_t{1} << 27;
inline constexpr int64_t kMaxMtpLayers = 64;
inline constexpr int64_t kMaxStateDim = 4096;    // SSM state / MLA and GDN ranks and dims
inline constexpr int64_t kMaxConvKernel = 1024;  // SSM / GDN depthwise conv width
inline constexpr int64_t kMaxWindow = int64_t{1} << 30;

// The architecture values a check can be about, by part.
// clang-format off
enum class ArchKey {
  kHidden, kVocab, kLayers, kFfn, kMaxPosition, kMtpLayers,
  kHeads, kKvHeads, kHeadDim, kVHeadDim, kWindow,
  kMlaQLora, kMlaKvLora, kMlaQkNope, kMlaQkRope, kMlaV,
  kGdnKeyHeads, kGdnValueHeads, kGdnKeyDim, kGdnValueDim, kGdnConv,
  kMambaHeads, kMambaHeadDim, kMambaState, kMambaGroups, kMambaConv, kMambaDtRank,
  kExperts, kTopK, kMoeFfn, kSharedExperts, kSharedFfn, kMoeLatent,
  kVisionLayers, kVisionHidden, kVisionFfn, kVisionHeads, kVisionPatch,
};
// clang-format on

struct ArchProblem {
  ArchKey key;
  std::string message;  // names the field through the loader's namer
};

// The loader's name for a key ("num_key_value_heads", "architecture.attention.kv_heads").
using ArchNamer = std::function<std::string(ArchKey)>;

// The first problem of `m`, or nullopt. Reads only the scalar fields and the layer list (which the
// loaders bound by kMaxLayers before they build it).
std::optional<ArchProblem> check_architecture(const Model& m, const ArchNamer& name);

// The upper bound for a key (0 = none beyond what check_architecture relates it to).
int64_t arch_limit(ArchKey key);

}  // namespace rb
