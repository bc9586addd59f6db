// Models and GPUs for the rules tests, with the figures of ../shared/data/models.csv and gpus.csv
// that the rules read (the catalog loader is not linked into core_tests). Test-only header.
#pragma once

#include <string>
#include <vector>

#include "recipebook/core/hardware.hpp"
#include "recipebook/core/model.hpp"

namespace rb::testing {

inline std::vector<LayerSpec> repeat_layers(int count, const std::vector<LayerSpec>& pattern) {
  std::vector<LayerSpec> out;
  for (int i = 0; i < count; ++i) out.push_back(pattern[static_cast<size_t>(i) % pattern.size()]);
  return out;
}

// models.csv: Llama-3-8B.
inline const Model& llama3_8b() {
  static const Model m = [] {
    Model x;
    x.name = "Llama-3-8B";
    x.hf_id = "meta-llama/Meta-Llama-3-8B";
    x.family = "llama";
    x.hidden = 4096;
    x.vocab = 128256;
    x.ffn = 14336;
    x.attn = {32, 8, 128, 0, false, false, false, false, false};
    x.layers = repeat_layers(32, {{MixerKind::kAttention, 0, FfnKind::kDense}});
    x.max_position = 8192;
    return x;
  }();
  return m;
}

// models.csv: Qwen3-14B (40 heads, 8 KV heads, FFN 17408 = 2^10 x 17).
inline const Model& qwen3_14b() {
  static const Model m = [] {
    Model x;
    x.name = "Qwen3-14B";
    x.family = "qwen3";
    x.hidden = 5120;
    x.vocab = 151936;
    x.ffn = 17408;
    x.attn = {40, 8, 128, 0, false, false, false, true, false};
    x.layers = repeat_layers(40, {{MixerKind::kAttention, 0, FfnKind::kDense}});
    return x;
  }();
  return m;
}

// models.csv: Qwen3-30B-A3B (every layer MoE; the dense intermediate size is unused).
inline const Model& qwen3_30b_a3b() {
  static const Model m = [] {
    Model x;
    x.name = "Qwen3-30B-A3B";
    x.family = "qwen3_moe";
    x.hidden = 2048;
    x.vocab = 151936;
    x.ffn = 6144;
    x.attn = {32, 4, 128, 0, false, false, false, true, false};
    x.moe = {128, 8, 768, 0, 0, false, false, false};
    x.layers = repeat_layers(48, {{MixerKind::kAttention, 0, FfnKind::kMoe}});
    return x;
  }();
  return m;
}

// models.csv: Qwen3.5-35B-A3B (10 x (3 GDN + 1 gated attention), all MoE, MTP 1, vision patch 16).
inline const Model& qwen35_35b_a3b() {
  static const Model m = [] {
    Model x;
    x.name = "Qwen3.5-35B-A3B";
    x.family = "qwen3_5_moe";
    x.hidden = 2048;
    x.vocab = 248320;
    x.ffn = 512;
    x.attn = {16, 2, 256, 256, true, false, false, true, false};
    x.gdn = {16, 32, 128, 128, 4};
    x.moe = {256, 8, 512, 1, 512, true, false, false};
    x.layers = repeat_layers(40, {{MixerKind::kGdn, 0, FfnKind::kMoe},
                                  {MixerKind::kGdn, 0, FfnKind::kMoe},
                                  {MixerKind::kGdn, 0, FfnKind::kMoe},
                                  {MixerKind::kAttention, 0, FfnKind::kMoe}});
    x.mtp_layers = 1;
    x.vision = {27, 1152, 4304, 16, 16, 2, 2, 2048};
    return x;
  }();
  return m;
}

// models.csv: DeepSeek-V3 (MLA, first 3 layers dense, 256 experts, 1 shared, MTP 1).
inline const Model& deepseek_v3() {
  static const Model m = [] {
    Model x;
    x.name = "DeepSeek-V3";
    x.family = "deepseek_v3";
    x.hidden = 7168;
    x.vocab = 129280;
    x.ffn = 18432;
    x.attn = {128, 128, 192, 128, false, false, false, false, false};
    x.mla = {1536, 512, 128, 64, 128};
    x.moe = {256, 8, 2048, 1, 2048, false, false, false};
    x.layers = repeat_layers(3, {{MixerKind::kMla, 0, FfnKind::kDense}});
    for (int i = 3; i < 61; ++i) x.layers.push_back({MixerKind::kMla, 0, FfnKind::kMoe});
    x.mtp_layers = 1;
    return x;
  }();
  return m;
}

// models.csv: gpt-oss-20b (32 experts with biases, alternating sliding window).
inline const Model& gpt_oss_20b() {
  static const Model m = [] {
    Model x;
    x.name = "gpt-oss-20b";
    x.family = "gpt_oss";
    x.hidden = 2880;
    x.vocab = 201088;
    x.ffn = 2880;
    x.attn = {64, 8, 64, 0, false, true, true, false, true};
    x.moe = {32, 4, 2880, 0, 0, false, true, true};
    x.layers = repeat_layers(24, {{MixerKind::kAttention, 128, FfnKind::kMoe}, {MixerKind::kAttention, 0, FfnKind::kMoe}});
    return x;
  }();
  return m;
}

// models.csv: Nemotron-H-8B (24 Mamba-2, 24 MLP, 4 attention; Mamba 128 heads, 8 groups).
inline const Model& nemotron_h_8b() {
  static const Model m = [] {
    Model x;
    x.name = "Nemotron-H-8B";
    x.family = "nemotron_h";
    x.hidden = 4096;
    x.vocab = 131072;
    x.ffn = 21504;
    x.activation = Activation::kSquaredRelu;
    x.attn = {32, 8, 128, 0, false, false, false, false, false};
    x.mamba = {128, 64, 128, 8, 4};
    const std::string pattern = "M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-";
    for (char c : pattern) {
      if (c == 'M') x.layers.push_back({MixerKind::kMamba2, 0, FfnKind::kNone});
      if (c == '-') x.layers.push_back({MixerKind::kNone, 0, FfnKind::kDense});
      if (c == '*') x.layers.push_back({MixerKind::kAttention, 0, FfnKind::kNone});
    }
    return x;
  }();
  return m;
}

// models.csv: Qwen3.5-397B-A17B (15 x (3 GDN + 1 gated attention), 512 experts, MTP 1).
inline const Model& qwen35_397b_a17b() {
  static const Model m = [] {
    Model x;
    x.name = "Qwen3.5-397B-A17B";
    x.family = "qwen3_5_moe";
    x.hidden = 4096;
    x.vocab = 248320;
    x.ffn = 1024;
    x.attn = {32, 2, 256, 256, true, false, false, true, false};
    x.gdn = {16, 64, 128, 128, 4};
    x.moe = {512, 10, 1024, 1, 1024, true, false, false};
    x.layers = repeat_layers(60, {{MixerKind::kGdn, 0, FfnKind::kMoe},
                                  {MixerKind::kGdn, 0, FfnKind::kMoe},
                                  {MixerKind::kGdn, 0, FfnKind::kMoe},
                                  {MixerKind::kAttention, 0, FfnKind::kMoe}});
    x.mtp_layers = 1;
    x.vision = {27, 1152, 4304, 16, 16, 2, 2, 4096};
    return x;
  }();
  return m;
}

// models.csv: GLM-4.5 (92 layers, first 3 dense, 160 experts, 96 heads, 8 KV heads, MTP 1).
inline const Model& glm45() {
  static const Model m = [] {
    Model x;
    x.name = "GLM-4.5";
    x.family = "glm4_moe";
    x.hidden = 5120;
    x.vocab = 151552;
    x.ffn = 12288;
    x.attn = {96, 8, 128, 0, false, true, false, true, false};
    x.moe = {160, 8, 1536, 1, 1536, false, false, false};
    x.layers = repeat_layers(3, {{MixerKind::kAttention, 0, FfnKind::kDense}});
    for (int i = 3; i < 92; ++i) x.layers.push_back({MixerKind::kAttention, 0, FfnKind::kMoe});
    x.mtp_layers = 1;
    return x;
  }();
  return m;
}

// models.csv: Gemma-3-27B (62 layers, 5 local (1024) : 1 global, 32 heads, 16 KV heads).
inline const Model& gemma3_27b() {
  static const Model m = [] {
    Model x;
    x.name = "Gemma-3-27B";
    x.family = "gemma3";
    x.hidden = 5376;
    x.vocab = 262208;
    x.ffn = 21504;
    x.tied_embeddings = true;
    x.activation = Activation::kGeglu;
    x.attn = {32, 16, 128, 0, false, false, false, true, false};
    x.layers = repeat_layers(62, {{MixerKind::kAttention, 1024, FfnKind::kDense},
                                  {MixerKind::kAttention, 1024, FfnKind::kDense},
                                  {MixerKind::kAttention, 1024, FfnKind::kDense},
                                  {MixerKind::kAttention, 1024, FfnKind::kDense},
                                  {MixerKind::kAttention, 1024, FfnKind::kDense},
                                  {MixerKind::kAttention, 0, FfnKind::kDense}});
    return x;
  }();
  return m;
}

inline Hardware make_gpu(const char* name, const char* display, double memory_gb, double bf16_tflops,
                         double fp8_tflops, double fp4_tflops, int per_node, int domain) {
  Hardware h;
  h.name = name;
  h.display = display;
  h.memory_bytes = memory_gb * 1e9;
  h.bf16_flops_per_s = bf16_tflops * 1e12;
  h.fp8_flops_per_s = fp8_tflops * 1e12;
  h.fp4_flops_per_s = fp4_tflops * 1e12;
  h.gpus_per_node = per_node;
  h.nvlink_domain = domain;
  return h;
}

// The host side as catalog/hardware/<gpu>.yaml `host:` gives it (AMD GPUs have none there).
inline Hardware with_host(Hardware h, double link_gb_s, double memory_tb, double memory_gb_s) {
  h.host_link_bytes_per_s = link_gb_s * 1e9;
  h.host_memory_bytes = memory_tb * 1e12;
  h.host_memory_bytes_per_s = memory_gb_s * 1e9;
  return h;
}

// gpus.csv figures (memory GB, dense TFLOP/s, NVLink domain); GPUs per node as in Megatron-Bridge.
inline const Hardware& a100() {
  static const Hardware h = with_host(make_gpu("a100", "A100-80GB-SXM", 80, 312, 0, 0, 8, 8), 32, 1, 409.6);
  return h;
}
inline const Hardware& h100() {
  static const Hardware h = with_host(make_gpu("h100", "H100-SXM", 80, 989.4, 1978.9, 0, 8, 8), 64, 2, 614.4);
  return h;
}
inline const Hardware& b200() {
  static const Hardware h = with_host(make_gpu("b200", "B200 (HGX, 1000 W)", 180, 2250, 4500, 9000, 8, 8), 64, 2, 716.8);
  return h;
}
inline const Hardware& gb200() {
  static const Hardware h = with_host(make_gpu("gb200", "GB200 (NVL72, 1200 W)", 186, 2500, 5000, 10000, 4, 72), 225, 0.96, 1024);
  return h;
}
inline const Hardware& gb300() {
  static const Hardware h = with_host(make_gpu("gb300", "GB300 (NVL72, 1400 W)", 279, 2500, 5000, 15000, 4, 72), 225, 0.96, 1024);
  return h;
}
inline const Hardware& mi300x() {
  static const Hardware h = make_gpu("mi300x", "MI300X", 192, 1307.4, 2614.9, 0, 8, 8);
  return h;
}

}  // namespace rb::testing
