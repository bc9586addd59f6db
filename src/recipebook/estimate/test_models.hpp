// Test-only: model IRs built in code from ../shared/data/models.csv and the public configs it cites
// (Hugging Face config.json of each model; Megatron-Bridge providers for the Nemotron-H patterns).
// The estimator's tests use these so that they do not depend on the catalog loader.
//
// To add a model: write a function that starts from one of the builders below, set what differs,
// and add it to all_test_models().
#pragma once

#include <string>
#include <vector>

#include "recipebook/core/layout.hpp"
#include "recipebook/core/model.hpp"

namespace rb::test {

// Layers from a Megatron hybrid pattern: M = Mamba2, * = attention, - = dense MLP, E = MoE,
// G = Gated DeltaNet. Each character is its own layer (Megatron's MambaModel convention).
inline std::vector<LayerSpec> hybrid_layers(const std::string& pattern) {
  std::vector<LayerSpec> out;
  for (char c : pattern) {
    LayerSpec l;
    switch (c) {
      case 'M': l = {MixerKind::kMamba2, 0, FfnKind::kNone}; break;
      case '*': l = {MixerKind::kAttention, 0, FfnKind::kNone}; break;
      case '-': l = {MixerKind::kNone, 0, FfnKind::kDense}; break;
      case 'E': l = {MixerKind::kNone, 0, FfnKind::kMoe}; break;
      case 'G': l = {MixerKind::kGdn, 0, FfnKind::kNone}; break;
      default: continue;
    }
    out.push_back(l);
  }
  return out;
}

// A uniform decoder stack of `n` layers with `first_dense` dense-FFN layers, the rest `ffn`.
inline std::vector<LayerSpec> uniform_layers(int n, MixerKind mixer, FfnKind ffn, int first_dense = 0) {
  std::vector<LayerSpec> out(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    out[static_cast<size_t>(i)] = {mixer, 0, i < first_dense ? FfnKind::kDense : ffn};
  }
  return out;
}

// Gated DeltaNet hybrid: every `interval`-th layer (1-based) is full gated attention.
inline std::vector<LayerSpec> gdn_layers(int n, int interval, FfnKind ffn) {
  std::vector<LayerSpec> out(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    const bool full = (i + 1) % interval == 0;
    out[static_cast<size_t>(i)] = {full ? MixerKind::kAttention : MixerKind::kGdn, 0, ffn};
  }
  return out;
}

inline Model dense_gqa(std::string name, int64_t hidden, int layers, int heads, int kv_heads, int head_dim,
                       int64_t ffn, int64_t vocab, bool tied) {
  Model m;
  m.name = std::move(name);
  m.hidden = hidden;
  m.vocab = vocab;
  m.ffn = ffn;
  m.tied_embeddings = tied;
  m.attn.heads = heads;
  m.attn.kv_heads = kv_heads;
  m.attn.head_dim = head_dim;
  m.layers = uniform_layers(layers, MixerKind::kAttention, FfnKind::kDense);
  return m;
}

inline Model moe_gqa(std::string name, int64_t hidden, int layers, int heads, int kv_heads, int head_dim,
                     int64_t ffn, int64_t vocab, int experts, int top_k, int64_t moe_ffn, int shared,
                     int64_t shared_ffn, int first_dense) {
  Model m = dense_gqa(std::move(name), hidden, layers, heads, kv_heads, head_dim, ffn, vocab, false);
  m.moe.experts = experts;
  m.moe.top_k = top_k;
  m.moe.ffn = moe_ffn;
  m.moe.shared_experts = shared;
  m.moe.shared_ffn = shared_ffn;
  m.layers = uniform_layers(layers, MixerKind::kAttention, FfnKind::kMoe, first_dense);
  return m;
}

// --- Llama 3 (meta-llama config.json; models.csv rows Llama-3-*) ---
inline Model llama3_8b() { return dense_gqa("Llama-3-8B", 4096, 32, 32, 8, 128, 14336, 128256, false); }
inline Model llama3_70b() { return dense_gqa("Llama-3-70B", 8192, 80, 64, 8, 128, 28672, 128256, false); }
inline Model llama31_405b() {
  return dense_gqa("Llama-3.1-405B", 16384, 126, 128, 8, 128, 53248, 128256, false);
}

// --- Qwen3 dense and MoE (qk RMSNorm) ---
inline Model qwen3_dense(std::string name, int64_t h, int layers, int heads, int64_t ffn, bool tied) {
  Model m = dense_gqa(std::move(name), h, layers, heads, 8, 128, ffn, 151936, tied);
  m.attn.qk_norm = true;
  return m;
}
inline Model qwen3_0_6b() { return qwen3_dense("Qwen3-0.6B", 1024, 28, 16, 3072, true); }
inline Model qwen3_1_7b() { return qwen3_dense("Qwen3-1.7B", 2048, 28, 16, 6144, true); }
inline Model qwen3_4b() { return qwen3_dense("Qwen3-4B", 2560, 36, 32, 9728, true); }
inline Model qwen3_8b() { return qwen3_dense("Qwen3-8B", 4096, 36, 32, 12288, false); }
inline Model qwen3_14b() { return qwen3_dense("Qwen3-14B", 5120, 40, 40, 17408, false); }
inline Model qwen3_32b() { return qwen3_dense("Qwen3-32B", 5120, 64, 64, 25600, false); }
inline Model qwen3_30b_a3b() {
  Model m = moe_gqa("Qwen3-30B-A3B", 2048, 48, 32, 4, 128, 6144, 151936, 128, 8, 768, 0, 0, 0);
  m.attn.qk_norm = true;
  return m;
}
inline Model qwen3_235b_a22b() {
  Model m = moe_gqa("Qwen3-235B-A22B", 4096, 94, 64, 4, 128, 12288, 151936, 128, 8, 1536, 0, 0, 0);
  m.attn.qk_norm = true;
  return m;
}

// --- Qwen3-Next / Qwen3.5: Gated DeltaNet every 3 of 4 layers, gated full attention, shared expert
// with a sigmoid gate, MTP 1 layer (Qwen/Qwen3-Next-80B-A3B-Instruct and Qwen/Qwen3.5-* config.json).
inline Model qwen_gdn(std::string name, int64_t h, int layers, int heads, int kv_heads, int64_t ffn,
                      int gdn_v_heads, int experts, int top_k, int64_t moe_ffn, int64_t vocab, bool tied) {
  Model m;
  m.name = std::move(name);
  m.hidden = h;
  m.vocab = vocab;
  m.ffn = ffn;
  m.tied_embeddings = tied;
  m.attn = {heads, kv_heads, 256, 0, true, false, false, true, false};
  m.gdn = {16, gdn_v_heads, 128, 128, 4};
  if (experts > 0) {
    m.moe.experts = experts;
    m.moe.top_k = top_k;
    m.moe.ffn = moe_ffn;
    m.moe.shared_experts = 1;
    m.moe.shared_ffn = moe_ffn;
    m.moe.shared_gate = true;
  }
  m.layers = gdn_layers(layers, 4, experts > 0 ? FfnKind::kMoe : FfnKind::kDense);
  return m;
}
inline Model qwen3_next_80b() {
  Model m = qwen_gdn("Qwen3-Next-80B-A3B", 2048, 48, 16, 2, 5120, 32, 512, 10, 512, 151936, false);
  m.mtp_layers = 1;
  return m;
}
// Qwen3.5 vision tower: 27 layers, hidden 1152, ffn 4304, 16 heads, patch 16, temporal 2, merge 2.
inline VisionDims qwen35_vision(int out_hidden) { return {27, 1152, 4304, 16, 16, 2, 2, out_hidden}; }
inline Model qwen35_397b() {
  Model m = qwen_gdn("Qwen3.5-397B-A17B", 4096, 60, 32, 2, 1024, 64, 512, 10, 1024, 248320, false);
  m.mtp_layers = 1;
  m.vision = qwen35_vision(4096);
  return m;
}
// Seed 002's layout for it on 48 B200: TP 2 PP 6 EP 8 DP 4, SP, full recompute (uniform, 1 layer),
// precision-aware distributed optimizer, micro batch 1 (8,192-token rows, global batch 128, SFT).
inline Layout seed002_layout() {
  return Layout{.tp = 2, .pp = 6, .ep = 8, .dp = 4, .sp = true, .recompute = Recompute::kFull,
                .recompute_layers = 1, .precision_aware_optimizer = true};
}
inline Model qwen35_122b() {
  Model m = qwen_gdn("Qwen3.5-122B-A10B", 3072, 48, 32, 2, 1024, 64, 256, 8, 1024, 248320, false);
  m.mtp_layers = 1;
  m.vision = qwen35_vision(3072);
  return m;
}
inline Model qwen35_35b() {
  Model m = qwen_gdn("Qwen3.5-35B-A3B", 2048, 40, 16, 2, 512, 32, 256, 8, 512, 248320, false);
  m.mtp_layers = 1;
  m.vision = qwen35_vision(2048);
  return m;
}
inline Model qwen35_27b() {
  Model m = qwen_gdn("Qwen3.5-27B", 5120, 64, 24, 4, 17408, 48, 0, 0, 0, 248320, false);
  m.vision = qwen35_vision(5120);
  return m;
}
inline Model qwen35_9b() { return qwen_gdn("Qwen3.5-9B", 4096, 32, 16, 4, 12288, 32, 0, 0, 0, 248320, false); }
inline Model qwen35_4b() { return qwen_gdn("Qwen3.5-4B", 2560, 32, 16, 4, 9216, 32, 0, 0, 0, 248320, true); }

// --- DeepSeek-V3 / Kimi K2: MLA + MoE with first dense layers (deepseek-ai/DeepSeek-V3 config.json) ---
inline Model deepseek_like(std::string name, int heads, int experts, int first_dense, int64_t vocab) {
  Model m;
  m.name = std::move(name);
  m.hidden = 7168;
  m.vocab = vocab;
  m.ffn = 18432;
  m.attn.heads = heads;
  m.attn.kv_heads = heads;
  m.attn.head_dim = 192;
  m.attn.v_head_dim = 128;
  m.mla = {1536, 512, 128, 64, 128};
  m.moe.experts = experts;
  m.moe.top_k = 8;
  m.moe.ffn = 2048;
  m.moe.shared_experts = 1;
  m.moe.shared_ffn = 2048;
  m.layers = uniform_layers(61, MixerKind::kMla, FfnKind::kMoe, first_dense);
  return m;
}
inline Model deepseek_v3() {
  Model m = deepseek_like("DeepSeek-V3", 128, 256, 3, 129280);
  m.mtp_layers = 1;
  return m;
}
inline Model kimi_k2() { return deepseek_like("Kimi-K2", 64, 384, 1, 163840); }

// --- GLM-4.5 (zai-org config.json): qkv bias, partial rotary, sigmoid router, MTP 1 ---
inline Model glm45() {
  Model m = moe_gqa("GLM-4.5", 5120, 92, 96, 8, 128, 12288, 151552, 160, 8, 1536, 1, 1536, 3);
  m.attn.qkv_bias = true;
  m.attn.qk_norm = true;
  m.mtp_layers = 1;
  return m;
}
inline Model glm45_air() {
  Model m = moe_gqa("GLM-4.5-Air", 4096, 46, 96, 8, 128, 10944, 151552, 128, 8, 1408, 1, 1408, 1);
  m.attn.qkv_bias = true;
  m.mtp_layers = 1;
  return m;
}

// --- gpt-oss (openai config.json): alternating sliding window 128 / full, sinks, biases ---
inline Model gpt_oss(std::string name, int layers, int experts) {
  Model m = moe_gqa(std::move(name), 2880, layers, 64, 8, 64, 2880, 201088, experts, 4, 2880, 0, 0, 0);
  m.attn.qkv_bias = true;
  m.attn.out_bias = true;
  m.attn.sinks = true;
  m.moe.expert_bias = true;
  m.moe.router_bias = true;
  for (size_t i = 0; i < m.layers.size(); i += 2) m.layers[i].window = 128;  // even layers slide
  return m;
}
inline Model gpt_oss_120b() { return gpt_oss("gpt-oss-120b", 36, 128); }
inline Model gpt_oss_20b() { return gpt_oss("gpt-oss-20b", 24, 32); }

// --- Mixtral-8x7B ---
inline Model mixtral_8x7b() {
  return moe_gqa("Mixtral-8x7B", 4096, 32, 32, 8, 128, 14336, 32000, 8, 2, 14336, 0, 0, 0);
}

// --- Gemma 3 (GeGLU, qk norm, tied, 5 local : 1 global, SigLIP 27L h1152) ---
inline Model gemma3(std::string name, int64_t h, int layers, int heads, int kv, int hd, int64_t ffn) {
  Model m = dense_gqa(std::move(name), h, layers, heads, kv, hd, ffn, 262208, true);
  m.activation = Activation::kGeglu;
  m.attn.qk_norm = true;
  for (size_t i = 0; i < m.layers.size(); ++i) m.layers[i].window = (i + 1) % 6 == 0 ? 0 : 1024;
  m.vision = {27, 1152, 4304, 16, 14, 0, 0, static_cast<int>(h)};
  return m;
}
inline Model gemma3_4b() { return gemma3("Gemma-3-4B", 2560, 34, 8, 4, 256, 10240); }
inline Model gemma3_12b() { return gemma3("Gemma-3-12B", 3840, 48, 16, 8, 256, 15360); }
inline Model gemma3_27b() { return gemma3("Gemma-3-27B", 5376, 62, 32, 16, 128, 21504); }

// --- Nemotron-H (Megatron-Bridge nemotron_h_provider.py patterns; squared ReLU, Mamba-2) ---
inline Model nemotron_h(std::string name, int64_t h, const std::string& pattern, int heads, int64_t ffn,
                        MambaDims mamba) {
  Model m;
  m.name = std::move(name);
  m.hidden = h;
  m.vocab = 131072;
  m.ffn = ffn;
  m.activation = Activation::kSquaredRelu;
  m.attn.heads = heads;
  m.attn.kv_heads = 8;
  m.attn.head_dim = 128;
  m.mamba = mamba;
  m.layers = hybrid_layers(pattern);
  return m;
}
inline Model nemotron_h_8b() {
  return nemotron_h("Nemotron-H-8B", 4096, "M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-", 32, 21504,
                    {128, 64, 128, 8, 4});
}
inline Model nemotron_h_56b() {
  return nemotron_h("Nemotron-H-56B", 8192,
                    "M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-"
                    "M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-",
                    64, 32768, {256, 64, 256, 8, 4});
}
inline Model nemotron3_nano() {
  Model m = nemotron_h("Nemotron-3-Nano-30B-A3B", 2688, "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME",
                       32, 1856, {64, 64, 128, 8, 4});
  m.attn.kv_heads = 2;
  m.moe.experts = 128;
  m.moe.top_k = 6;
  m.moe.ffn = 1856;
  m.moe.shared_experts = 1;
  m.moe.shared_ffn = 3712;
  return m;
}

inline std::vector<Model> all_test_models() {
  return {llama3_8b(),      llama3_70b(),     llama31_405b(),   qwen3_0_6b(),     qwen3_1_7b(),
          qwen3_4b(),       qwen3_8b(),       qwen3_14b(),      qwen3_32b(),      qwen3_30b_a3b(),
          qwen3_235b_a22b(), qwen3_next_80b(), qwen35_397b(),    qwen35_122b(),    qwen35_35b(),
          qwen35_27b(),     qwen35_9b(),      qwen35_4b(),      deepseek_v3(),    kimi_k2(),
          glm45(),          glm45_air(),      gpt_oss_120b(),   gpt_oss_20b(),    mixtral_8x7b(),
          gemma3_4b(),      gemma3_12b(),     gemma3_27b(),     nemotron_h_8b(),  nemotron_h_56b(),
          nemotron3_nano()};
}

}  // namespace rb::test
