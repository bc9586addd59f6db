// The optimizer-step work of Muon (Layout::optimizer == kMuon): Megatron-Core's Muon
// (megatron/core/optimizer/muon.py, emerging_optimizers) orthogonalizes the momentum of every 2-D
// weight with Newton-Schulz iterations each step. One quintic iteration on an m x n matrix (m <= n)
// is A = X X^T (2 m^2 n FLOPs), B = b A + c A A (2 m^3), X = a X + B X (2 m^2 n): 4 m^2 n + 2 m^3 FLOPs;
// muon_num_ns_steps = 5 (Megatron-Core OptimizerConfig and Bridge distributed_muon_with_cosine_annealing).
// The fused QKV weight is split into Q, K and V first (muon_split_qkv, default on); with TP each rank
// orthogonalizes its own shard (muon_tp_mode blockwise, Bridge's setting); with the layer-wise
// distributed optimizer each DP rank orthogonalizes a 1/DP share of the weights.
#pragma once

#include <vector>

#include "recipebook/core/layout.hpp"
#include "recipebook/core/model.hpp"

namespace rb {

inline constexpr int kMuonNsSteps = 5;

// FLOPs of kMuonNsSteps Newton-Schulz iterations on a rows x cols matrix.
double newton_schulz_flops(double rows, double cols);

// One kind of 2-D weight Muon steps, `count` of them in the model (the layers' and the MTP's;
// embeddings and the output layer take Adam). `out` x `in`: the split dimension is `out` for a
// column-parallel weight (Q, K, V, fc1) and `in` for a row-parallel one (the attention output, fc2).
struct MuonMatrix {
  double out = 0, in = 0;
  double count = 0;
  bool column_parallel = true;
  bool expert = false;  // a routed expert's (split by ETP, spread over EP, stepped over expert-DP)
};

// The model's Muon weights, same shapes merged (a few entries per model).
std::vector<MuonMatrix> muon_matrices(const Model& m);

// Newton-Schulz FLOPs of one pipeline rank per step (the model's share over PP, as the DP step
// time counts the mean rank).
double muon_rank_flops(const std::vector<MuonMatrix>& matrices, const Layout& l);

}  // namespace rb
