// The plain GPT of the A100 benches (vTrain's and Megatron-LM 2021's): a catalog model's first layer
// repeated, with the given width, heads, depth, vocabulary and sequence; MLP 4h, MHA (kv heads =
// heads), no MTP.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "recipebook/core/model.hpp"

namespace rb::bench {

inline Model gpt_model(const Model& base, std::string name, int hidden, int heads, int layers, int vocab, int seq) {
  Model m = base;
  m.name = std::move(name);
  m.hidden = hidden;
  m.ffn = 4 * static_cast<int64_t>(hidden);
  m.vocab = vocab;
  m.max_position = seq;
  m.attn.heads = heads;
  m.attn.kv_heads = heads;
  m.attn.head_dim = hidden / heads;
  m.attn.v_head_dim = 0;
  m.layers.assign(static_cast<size_t>(layers), base.layers.front());
  m.mtp_layers = 0;
  return m;
}

}  // namespace rb::bench
