// Pipeline stages: which decoder layers each (virtual) pipeline stage holds, as Megatron splits them
// (megatron/core/transformer/transformer_block.py `get_num_layers_to_build`, transformer_config.py
// `num_layers_in_first/last_pipeline_stage`), and the rank placement of every parallel group
// (megatron/core/parallel_state.py, order tp-cp-ep-dp-pp: TP innermost).
#pragma once

#include <algorithm>
#include <array>

#include "recipebook/core/layout.hpp"

namespace rb {

inline constexpr int kMaxVirtualStages = 512;
inline constexpr int kMaxStages = 128;  // pipeline ranks reported one by one

struct StageSums;  // estimate/prepared.hpp

// Layers of virtual stage c (c = chunk * pp + rank) are [begin[c], begin[c + 1]).
struct StagePlan {
  int pp = 1;
  int vp = 1;
  bool ok = false;
  bool uneven = false;  // the layers did not divide evenly: the remainder went to the middle stages
  std::array<int, kMaxVirtualStages + 1> begin{};
  // Virtual stages holding the embedding, the output layer + loss, and the MTP layers: the first,
  // the last and the last without an explicit layout; with one, where its E, L and m stand.
  int embedding_stage = 0;
  int loss_stage = 0;
  int mtp_stage = 0;
  // Optional: the layer sums of these stages, summed once for the many layouts of one PP/VP node
  // (search/fleet_walk.cpp); the memory and the time read them instead of summing prefix sums again.
  const StageSums* sums = nullptr;

  [[nodiscard]] int rank_of(int c) const { return pp > 0 ? c % pp : 0; }
  [[nodiscard]] bool embedding_on(int rank) const { return rank_of(embedding_stage) == rank; }
  [[nodiscard]] bool loss_on(int rank) const { return rank_of(loss_stage) == rank; }
  [[nodiscard]] bool mtp_on(int rank) const { return rank_of(mtp_stage) == rank; }

  [[nodiscard]] int virtual_stages() const { return pp * vp; }
  [[nodiscard]] int layers_of(int c) const { return begin[static_cast<size_t>(c + 1)] - begin[static_cast<size_t>(c)]; }
};

// Uniform split, or first/last stage counts (each divided over the VP chunks of that rank) with the
// rest split over the middle, or the stages of an explicit pipeline layout (which may hold no
// decoder layer). Not ok when a stage would get no layer, there are too many stages, or an explicit
// layout does not have PP x VP stages and the model's layers.
StagePlan plan_stages(int num_layers, const Layout& l);

// A communication group: `size` ranks, `stride` apart. Megatron places TP innermost, then CP, then
// DP, then PP for dense groups; ETP, then EP, then expert-DP for expert groups.
struct Group {
  int size = 1;
  int stride = 1;
};

struct Groups {
  Group tp, cp, dp_cp, ep, edp, pp;
};

// Layout::distributed_optimizer_instances splits a data-parallel group into that many groups of
// consecutive members (Megatron-Core parallel_state's intra / inter partial data-parallel groups):
// `inner` is one of them, `outer` holds one member of each.
inline Group inner_group(const Group& g, int instances) { return {g.size / std::max(1, instances), g.stride}; }
inline Group outer_group(const Group& g, int instances) {
  const int r = std::max(1, instances);
  return {r, g.stride * (g.size / r)};
}

Groups place_groups(const Layout& l);

}  // namespace rb
