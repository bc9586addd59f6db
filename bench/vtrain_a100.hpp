// The vTrain single-node A100 measurements as calibration points (bench/data/vtrain_single_node_a100.csv:
// 1,440 iteration times of GPT models, hidden 1024/2048, 16 heads, 12-24 layers, sequence 1024, on 2-8
// A100-80GB in one DGX node; Megatron-DeepSpeed, full activation recompute (`use_checkpoint: true` in
// every config), 1F1B, no gradient buckets. Source: VIA-Research/vTrain data/ground_truth_single.csv and
// config/validation/single/*.json (MICRO'24, arXiv 2312.12391; MIT license). The model is vTrain's
// GPT (src/model/gpt_model.py): vocab 50257, LayerNorm, GeLU MLP of 4h, biases, learned positions, tied
// embeddings; fp16 mixed precision, priced as BF16 (same A100 peak); no distributed optimizer.
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
#include "recipebook/estimate/microbench.hpp"

namespace rb::bench {

struct VtrainPoint {
  std::string size;  // "h1024 L24": the model size, the unit held out
  CalibrationPoint point;
};

struct VtrainRows {
  std::map<std::string, std::unique_ptr<PreparedModel>> models;  // owns what the points point at
  std::vector<VtrainPoint> points;
};

// `base`: a catalog GPT-2-style model whose norms, activation, biases and positions the vTrain GPT
// shares (gpt-3-175b); its sizes are replaced. Empty when the file or the model is missing.
inline VtrainRows vtrain_rows(const Catalog& cat, const std::string& csv_path) {
  VtrainRows out;
  auto base = cat.find_model("gpt-3-175b");
  auto gpu = cat.find_hardware("a100");
  std::ifstream in(csv_path);
  if (!base || !gpu || !in) return out;
  Hardware hw = *gpu;
  // The start of a fit, as bench/accuracy's other points (measured_points): each precision's prior
  // from A100's published microbenchmarks (estimate/microbench.hpp), flat defaults where it has none.
  for (int pr = 0; pr < kNumPrecisions; ++pr)
    hw.efficiency[static_cast<size_t>(pr)] = prior_efficiency(*gpu, static_cast<Precision>(pr));
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::vector<double> v;
    for (std::string cell; std::getline(f, cell, ',');) v.push_back(std::stod(cell));
    if (v.size() != 11 || v[10] <= 0) continue;
    const int gpus = static_cast<int>(v[0]), hidden = static_cast<int>(v[3]), heads = static_cast<int>(v[4]);
    const int layers = static_cast<int>(v[5]);
    const std::string size = "h" + std::to_string(hidden) + " L" + std::to_string(layers);
    auto& pm = out.models[size];
    if (!pm) {
      const std::string name = "vtrain-gpt-" + std::to_string(hidden) + "-" + std::to_string(layers);
      const Model m = gpt_model(*base, name, hidden, heads, layers, 50257, static_cast<int>(v[6]));
      pm = std::make_unique<PreparedModel>(prepare(m));
    }
    VtrainPoint p;
    p.size = size;
    CalibrationPoint& c = p.point;
    c.model = pm.get();
    c.hardware = hw;
    c.work.mode = Mode::kPretrain;
    c.work.seq = static_cast<int64_t>(v[6]);
    c.work.gbs = static_cast<int64_t>(v[1]);
    c.cluster.gpus = gpus;
    c.cluster.gpus_per_node = 8;
    Layout& l = c.layout;
    l.tp = static_cast<int>(v[7]);
    l.dp = static_cast<int>(v[8]);
    l.pp = static_cast<int>(v[9]);
    l.mbs = static_cast<int>(v[2]);
    l.recompute = Recompute::kFull;
    l.recompute_method = RecomputeMethod::kUniform;
    l.recompute_layers = 1;
    l.distributed_optimizer = false;
    l.cuda_graph = CudaGraph::kNone;
    c.measured_tokens_per_s_per_gpu = static_cast<double>(c.work.gbs * c.work.seq) / (v[10] / 1000.0) / gpus;
    out.points.push_back(std::move(p));
  }
  return out;
}

}  // namespace rb::bench
