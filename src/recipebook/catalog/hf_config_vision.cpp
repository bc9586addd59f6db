// The vision towers of the vision-language configs (hf_config.cpp calls them on vision_config):
// Qwen-VL's (Qwen2.5-VL / Qwen3-VL / Qwen3.5 vision_config: depth, hidden_size, intermediate_size,
// num_heads, patch_size, temporal_patch_size, spatial_merge_size, out_hidden_size), Pixtral's
// (Mistral3Config) and SigLIP's (Gemma 3), each as its transformers configuration class names them.
#include <cmath>

#include "recipebook/catalog/hf_config_internal.hpp"

namespace rb {

void read_qwen_vision(HfReader& v, Model& m) {
  m.vision.layers = v.req_int32("depth");
  m.vision.hidden = v.req_int32("hidden_size");
  m.vision.ffn = v.req_int32("intermediate_size");
  m.vision.heads = v.req_int32("num_heads");
  m.vision.patch = v.req_int32("patch_size");
  m.vision.temporal_patch = v.int32_or("temporal_patch_size", 1);
  m.vision.spatial_merge = v.int32_or("spatial_merge_size", 1);
  m.vision.out_hidden = v.int32_or("out_hidden_size", static_cast<int>(m.hidden));
}

// The fields every ViT-style image tower spells alike (Pixtral, SigLIP): depth, width, MLP, heads,
// patch; images only, so one frame per patch.
void read_image_tower(HfReader& v, Model& m) {
  m.vision.layers = v.req_int32("num_hidden_layers");
  m.vision.hidden = v.req_int32("hidden_size");
  m.vision.ffn = v.req_int32("intermediate_size");
  m.vision.heads = v.req_int32("num_attention_heads");
  m.vision.patch = v.req_int32("patch_size");
  m.vision.temporal_patch = 1;  // images only
}

// Mistral3Config / Ministral 3: vision_config is a PixtralVisionConfig (num_hidden_layers,
// hidden_size, intermediate_size, num_attention_heads, patch_size); the projector's patch merger
// takes spatial_merge_size x spatial_merge_size patches (Mistral3PatchMerger), given at the top.
void read_vit_vision(HfReader& v, const HfReader& top, Model& m) {
  read_image_tower(v, m);
  int merge = v.int32_or("spatial_merge_size", 1);
  if (const auto* t = top.get("spatial_merge_size"); t != nullptr && t->is_number_integer() && t->get<int64_t>() > 0 &&
                                                     t->get<int64_t>() <= 64)
    merge = t->get<int>();
  m.vision.spatial_merge = merge;
  m.vision.out_hidden = static_cast<int>(m.hidden);
}

void read_siglip_vision(HfReader& v, const HfReader& top, Model& m) {
  read_image_tower(v, m);
  // Gemma 3 pools the (image_size / patch)^2 patches down to mm_tokens_per_image tokens: an average
  // pool of side sqrt(patches / tokens) (896 / 14 = 64 x 64 patches -> 256 tokens: 4 x 4).
  const int image = v.int32_or("image_size", 896);
  int tokens = 256;
  if (const auto* t = top.get("mm_tokens_per_image"); t != nullptr && t->is_number_integer())
    tokens = t->get<int>();
  const double per_side = m.vision.patch > 0 ? static_cast<double>(image) / m.vision.patch : 0;
  const double pool = tokens > 0 ? std::sqrt(per_side * per_side / tokens) : 1;
  m.vision.spatial_merge = pool >= 1 ? static_cast<int>(std::lround(pool)) : 1;
  m.vision.out_hidden = static_cast<int>(m.hidden);
}

}  // namespace rb
