// The published Megatron-LM A100 cluster runs (bench/data/megatron_a100_selene.csv: Narayanan et al.
// 2021, arXiv 2104.04473, Tables 1 and 2, GPT 1.7B-1T on 32-3072 A100-80GB of NVIDIA Selene) as
// evaluation points: never fitted, no constant chosen on them (bench/a100_transfer.cpp).
//
// FLOP accounting. The paper reports achieved TFLOP/s per GPU with its Eq. 3,
//   F = 96 B s l h^2 (1 + s / (6h) + V / (16 l h))   per iteration of B sequences of s tokens,
// which counts the forward, the recomputed forward (full activation recompute) and the backward: 4
// forward-equivalents of 24 B s l h^2 each. recipebook predicts tokens/s/GPU and prices recompute as
// time, so the row's measured figure is turned back into what was timed: tokens/s/GPU =
// X / (F / (B s)) = X / (96 l h^2 (1 + s/(6h) + V/(16 l h))), the paper's own inverse (exact: its
// TFLOP/s is F / (iteration time x GPUs)).
//
// The stack is Megatron-LM of 2021: fp16 (priced as BF16: the same A100 peak), --checkpoint-activations
// (full recompute of every layer, 1-layer chunks), DDP without a distributed optimizer, no sequence
// parallelism, no Transformer Engine or fused cross entropy, dropout 0.1 (megatron/arguments.py at
// 50a4b5fa02), no CUDA graphs. The GPT is GPT-2 style as gpt-3-175b in the catalog (LayerNorm, GeLU
// MLP of 4h, biases, learned positions, tied embeddings). Not published for Table 1: the micro batch
// (read as 1, as Table 2 and examples/pretrain_gpt3_175B.sh) and whether the interleaved schedule ran
// (read as plain 1F1B: it only shrinks the bubble).
#pragma once

#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "gpt_model.hpp"
#include "recipebook/catalog/catalog.hpp"
#include "recipebook/estimate/calibrate.hpp"

namespace rb::bench {

struct MegatronRow {
  std::string table, model;  // "table1" / "table2"; "gpt-175b"
  double paper_tflops = 0;   // achieved TFLOP/s per GPU as printed (Eq. 3 FLOPs)
  bool mbs_printed = false;
  CalibrationPoint point;    // its hardware is left for the caller to set
  [[nodiscard]] std::string group() const { return model + " gbs " + std::to_string(point.work.gbs); }
};

struct MegatronRows {
  std::map<std::string, std::unique_ptr<PreparedModel>> models;  // owns what the points point at
  std::vector<MegatronRow> rows;
};

// The paper's Eq. 3 FLOPs per token (forward, recomputed forward, backward).
inline double megatron_eq3_flops_per_token(double layers, double hidden, double seq, double vocab) {
  return 96.0 * layers * hidden * hidden * (1.0 + seq / (6.0 * hidden) + vocab / (16.0 * layers * hidden));
}

// Empty when the file or the base model is missing. Every point's hardware is `hw`.
inline MegatronRows megatron_a100_rows(const Catalog& cat, const std::string& csv_path, const Hardware& hw) {
  MegatronRows out;
  auto base = cat.find_model("gpt-3-175b");
  std::ifstream in(csv_path);
  if (!base || !in) return out;
  std::string line;
  bool header = false;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (!header) {
      header = true;  // table,model,params_b,hidden,layers,heads,heads_src,vocab,seq,tp,pp,gpus,gbs,mbs,achieved_tflops_per_gpu
      continue;
    }
    std::istringstream f(line);
    std::vector<std::string> c;
    for (std::string cell; std::getline(f, cell, ',');) c.push_back(cell);
    if (c.size() != 15) continue;
    const int hidden = std::stoi(c[3]), layers = std::stoi(c[4]), heads = std::stoi(c[5]), vocab = std::stoi(c[7]);
    const int seq = std::stoi(c[8]), tp = std::stoi(c[9]), pp = std::stoi(c[10]), gpus = std::stoi(c[11]);
    const int gbs = std::stoi(c[12]), mbs = std::stoi(c[13]);
    const double tflops = std::stod(c[14]);
    if (tp * pp <= 0 || gpus % (tp * pp) != 0 || tflops <= 0) continue;
    auto& pm = out.models[c[1]];
    if (!pm) {
      const Model m = gpt_model(*base, "megatron-" + c[1], hidden, heads, layers, vocab, seq);
      pm = std::make_unique<PreparedModel>(prepare(m));
    }
    MegatronRow r;
    r.table = c[0];
    r.model = c[1];
    r.paper_tflops = tflops;
    r.mbs_printed = mbs > 0;
    CalibrationPoint& p = r.point;
    p.model = pm.get();
    p.hardware = hw;
    p.work.mode = Mode::kPretrain;
    p.work.seq = seq;
    p.work.gbs = gbs;
    p.cluster.gpus = gpus;
    p.cluster.gpus_per_node = 8;
    Layout& l = p.layout;
    l.tp = tp;
    l.pp = pp;
    l.dp = gpus / (tp * pp);
    l.mbs = mbs > 0 ? mbs : 1;
    l.precision = Precision::kBf16;
    l.recompute = Recompute::kFull;
    l.recompute_method = RecomputeMethod::kUniform;
    l.recompute_layers = 1;
    l.distributed_optimizer = false;
    l.sp = false;
    l.cuda_graph = CudaGraph::kNone;
    l.te_rng_tracker = false;
    l.cross_entropy_loss_fusion = false;
    l.hidden_dropout = 0.1;
    l.attention_dropout = 0.1;
    p.measured_tokens_per_s_per_gpu = tflops * 1e12 / megatron_eq3_flops_per_token(layers, hidden, seq, vocab);
    out.rows.push_back(std::move(r));
  }
  return out;
}

}  // namespace rb::bench
