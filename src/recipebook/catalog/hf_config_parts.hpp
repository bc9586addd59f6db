// Internal to the by-parts config.json reader (read_by_parts): its state and steps, one component
// each. hf_config_parts.cpp reads the core, the layer layout, SSM, MLP and MoE fields;
// hf_config_parts_attention.cpp the attention fields (heads, MLA, gates, sliding windows and the
// sliding layers' own shape).
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "recipebook/catalog/hf_config_internal.hpp"

namespace rb {

// What a published config leaves to its configuration class, for the types read here by parts.
struct TypeFacts {
  const char* type;
  bool tied;               // tie_word_embeddings default
  bool gated_gelu;         // a gelu activation on a gate/up MLP (GeGLU)
  bool alternate_windows;  // sliding on even layers, global on odd (Gemma2Config.layer_types)
  bool qk_norm;            // q/k RMSNorm on every attention layer (OlmoeAttention)
  bool ssm_only;           // every layer is one Mamba mixer and its norm (MambaBlock)
};

class PartsReader {
 public:
  PartsReader(HfReader& r, Model& m);
  void read();

 private:
  // A default the configuration class of a known type supplies is not an assumption; for an unknown
  // model_type it is, and the user is told.
  void assume(const std::string& what);
  // The first of `keys` present, else the first of them (for a missing-field message).
  const char* key(std::initializer_list<const char*> keys);

  // hf_config_parts.cpp
  void read_core();
  void read_layout();
  void read_ssm();
  int dt_rank(const char* k);
  void read_mlp();
  void read_moe();
  void place_moe_layers();
  void apply_moe_layers_enum();
  void dense(int i);

  // hf_config_parts_attention.cpp
  void read_attention();
  void read_indexer();
  void read_windows();
  void read_sliding_shape(bool any_sliding);

  HfReader& r_;
  Model& m_;
  const TypeFacts* facts_;
  const char* hidden_key_ = "hidden_size";
  int layers_ = 0;
  bool ssm_ = false;
};

}  // namespace rb
