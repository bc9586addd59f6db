// Test helpers for the launch renderers: hand-built models and specs, and running bash on output.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "recipebook/emit/launch.hpp"
#include "../../../tests/test_support.hpp"  // TempDir

namespace rb::test {

inline Model dense_model() {
  Model m;
  m.name = "Llama-3-8B";
  m.hf_id = "meta-llama/Meta-Llama-3-8B";
  m.hidden = 4096;
  m.vocab = 128256;
  m.ffn = 14336;
  m.attn = AttentionDims{32, 8, 128, 128};
  m.max_position = 8192;
  m.layers.assign(32, LayerSpec{MixerKind::kAttention, 0, FfnKind::kDense});
  return m;
}

inline Model moe_model() {
  Model m;
  m.name = "Test-MoE";
  m.hidden = 2048;
  m.vocab = 151936;
  m.ffn = 6144;
  m.attn = AttentionDims{32, 4, 128, 128};
  m.attn.qk_norm = true;
  m.max_position = 40960;
  m.moe = MoeDims{128, 8, 768, 0, 0};
  m.layers.assign(48, LayerSpec{MixerKind::kAttention, 0, FfnKind::kMoe});
  m.layers[0].ffn = FfnKind::kDense;
  return m;
}

inline Model gdn_model() {
  Model m = moe_model();
  m.name = "Test-GDN";
  for (size_t i = 0; i < m.layers.size(); ++i) m.layers[i].mixer = i % 4 == 3 ? MixerKind::kAttention : MixerKind::kGdn;
  return m;
}

// 16 H100 (2 nodes), TP2 PP2 VP2 DP4 with SP, selective recompute, seed 002's env.
inline LaunchSpec sample_spec() {
  LaunchSpec s;
  s.name = "llama3_8b_launch_test";
  s.framework = Framework::kBridge;
  s.bridge_recipe = "llama3_8b_pretrain_config";
  s.model = "Llama-3-8B";
  s.model_ir = dense_model();
  s.gpu = "h100";
  s.gpus = 16;
  s.gpus_per_node = 8;
  s.layout.tp = 2;
  s.layout.pp = 2;
  s.layout.vp = 2;
  s.layout.dp = 4;
  s.layout.sp = true;
  s.layout.recompute = Recompute::kSelective;
  s.layout.recompute_modules = kRcCoreAttn | kRcMlp;
  s.seq = 8192;
  s.gbs = 128;
  s.env = {{"CUDA_DEVICE_MAX_CONNECTIONS", "1"},
           {"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"},
           {"NCCL_NVLS_ENABLE", "$([ \"$NVLINK_COUNT\" -gt 0 ] && echo 1 || echo 0)"}};
  s.k8s.image = "nvcr.io/nvidia/nemo:26.04";
  return s;
}

inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Run {
  int rc = -1;
  std::string out;  // stdout and stderr together
};

// Runs `command` through /bin/sh with its output captured.
inline Run run_shell(const std::string& command) {
  Run r;
  TempDir tmp;
  const std::string out = tmp.file("out");
  const int status = std::system((command + " >'" + out + "' 2>&1").c_str());
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_text(out);
  return r;
}

// `bash -n` on a script: 0 when it parses.
inline Run bash_syntax(const std::string& script) {
  TempDir tmp;
  const std::string f = tmp.file("script.sh");
  write_text(f, script);
  return run_shell("bash -n '" + f + "'");
}

// The values of "KEY=VALUE" words on the lines that start with `tag` (e.g. "RB_PROBE "), one map
// per line.
inline std::vector<std::map<std::string, std::string>> tagged(const std::string& out, const std::string& tag) {
  std::vector<std::map<std::string, std::string>> rows;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(tag, 0) != 0) continue;
    std::map<std::string, std::string> kv;
    std::istringstream words(line.substr(tag.size()));
    std::string w;
    while (words >> w) {
      const size_t eq = w.find('=');
      if (eq != std::string::npos) kv[w.substr(0, eq)] = w.substr(eq + 1);
    }
    rows.push_back(kv);
  }
  return rows;
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

// The words of the bash array `name=( ... )` in a rendered script, as bash would pass them: bare
// words, single-quoted words ('\'' for a quote) and double-quoted words (the "${MODEL_ARGS[@]}"
// placeholder is kept as it is written). Empty when the script has no such array.
inline std::vector<std::string> array_words(const std::string& script, const std::string& name) {
  std::vector<std::string> words;
  const std::string open = name + "=(\n";
  const size_t start = script.find(open);
  if (start == std::string::npos) return words;
  const size_t end = script.find("\n)", start);
  const std::string body = script.substr(start + open.size(), end == std::string::npos ? std::string::npos : end - start - open.size());
  std::string w;
  bool in_word = false;
  for (size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    if (c == ' ' || c == '\n' || c == '\t') {
      if (in_word) words.push_back(w);
      w.clear();
      in_word = false;
    } else if (c == '\'') {
      const size_t close = body.find('\'', i + 1);
      w += body.substr(i + 1, close - i - 1);
      i = close;
      in_word = true;
    } else if (c == '"') {
      const size_t close = body.find('"', i + 1);
      w += body.substr(i, close - i + 1);  // kept with its quotes: the placeholder word
      i = close;
      in_word = true;
    } else if (c == '\\' && i + 1 < body.size()) {
      w += body[++i];
      in_word = true;
    } else {
      w += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(w);
  return words;
}

}  // namespace rb::test
