// Building Model::layers from the compact forms that catalog YAML and config.json use: a mixer pattern
// and a sliding-window pattern repeated over the layer count with the first N layers dense (MoE
// models), or a Nemotron-H hybrid pattern string with one character a layer.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "recipebook/core/model.hpp"

namespace rb {

// `mixers` and `windows` repeat to `count` (an empty list means [kAttention] / [0]); windows apply
// to attention layers only. With `moe`, layers [0, first_dense) are dense and the rest MoE.
std::vector<LayerSpec> layers_from_pattern(int count, const std::vector<MixerKind>& mixers,
                                           const std::vector<int>& windows, int first_dense, bool moe);

// Nemotron-H's hybrid_override_pattern (Megatron-LM megatron/core/ssm/mamba_hybrid_layer_allocation.py):
// 'M' Mamba-2 mixer, '*' attention, '-' dense MLP, 'E' MoE; each character is one layer holding only
// that block. Returns nullopt and sets `bad` to the offending character's index otherwise.
std::optional<std::vector<LayerSpec>> layers_from_hybrid(std::string_view pattern, size_t* bad = nullptr);

// "attention" | "mla" | "gdn" | "mamba2" | "none".
std::optional<MixerKind> parse_mixer(std::string_view s);
std::string_view mixer_name(MixerKind k);

}  // namespace rb
