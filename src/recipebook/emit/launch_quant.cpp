// Per-module precision (Layout::bf16_modules / mxfp8_modules) in the launch scripts. Neither entry
// point takes it as a plain argument:
// - Megatron-LM pretrain_gpt.py reads a quantization recipe only from a file,
//   --te-precision-config-file (megatron/training/arguments.py; argument_utils.py loads it with
//   megatron/core/quantization/utils.py load_quantization_recipe into TransformerConfig quant_recipe).
//   The script carries the file's text as a comment and says to add the flag; it writes no flag for
//   a file it does not write.
// - Megatron-Bridge recipes build model.quant_recipe in code (perf_recipes/nemotronh/*/nemotronh.py:
//   load_quantization_recipe(_TE_QUANT_CFG_PATH)); run_recipe.py's KEY=VALUE overrides set config
//   fields, not a RecipeConfig object. Where the layout's lists differ from the recipe's the script
//   says so.
#include <fmt/format.h>

#include <array>
#include <utility>

#include "recipebook/emit/launch_script.hpp"

namespace rb {
namespace {

// Each GemmModule's Megatron-Core glob (quant_config.py GlobMatcher, fnmatch on the module path,
// e.g. "decoder.layers.3.mixer.out_proj"), as Megatron-Bridge's te_quant.cfg spells those it uses.
constexpr std::array<std::pair<uint32_t, std::string_view>, 9> kModuleGlobs{{
    {kGmMtp, "mtp.*"},
    {kGmLinearQkv, "*.linear_qkv"},
    {kGmLinearProj, "*.linear_proj"},
    {kGmInProj, "*mixer.in_proj"},
    {kGmOutProj, "*mixer.out_proj"},
    {kGmMlp, "*mlp.linear_fc[12]"},
    {kGmSharedExperts, "*mlp.shared_experts.*"},
    {kGmExperts, "*mlp.experts.*"},
    {kGmLatentProj, "*mlp.fc[12]_latent_proj"},
}};

bool has_module_precision(const Layout& l) {
  return l.precision != Precision::kBf16 && (l.bf16_modules != 0 || l.mxfp8_modules != 0);
}

}  // namespace

std::string te_precision_config(const Layout& l) {
  std::string out =
      "configs:\n"
      "  bf16:\n    transformer_engine_config_type: \"TEQuantizationParams\"\n    training_recipe: {}\n"
      "  mxfp8:\n    transformer_engine_config_type: \"TEQuantizationParams\"\n"
      "    training_recipe:\n      fp8_quantization_recipe: \"mxfp8\"\n"
      "matchers:\n";
  // The first matcher that names a module wins: the MTP block first (it holds every kind of module),
  // then BF16 before MXFP8 (estimate/gemm_split.cpp prices them so).
  auto add = [&](uint32_t bit, std::string_view glob, std::string_view config) {
    out += fmt::format("  {}_{}:\n    config: \"{}\"\n    type: \"glob\"\n    pattern: \"{}\"\n    enabled: true\n",
                       gemm_modules_str(bit), config, config, glob);
  };
  for (const auto& [bit, glob] : kModuleGlobs)
    if ((l.bf16_modules & bit) != 0) add(bit, glob, "bf16");
    else if ((l.mxfp8_modules & bit) != 0) add(bit, glob, "mxfp8");
  return out;
}

std::string module_precision_note(const LaunchSpec& spec) {
  const Layout& l = spec.layout;
  if (spec.framework == Framework::kMegatronLm) {
    if (!has_module_precision(l)) return {};
    std::string out =
        "\n# Per-module precision (GEMM modules in BF16: " + gemm_modules_str(l.bf16_modules) +
        "; in MXFP8: " + gemm_modules_str(l.mxfp8_modules) +
        ").\n# pretrain_gpt.py reads it only from a file: save the lines below (without '# ') as\n"
        "# te_precision.yaml and add `--te-precision-config-file te_precision.yaml` to TRAIN_ARGS.\n";
    std::string text = te_precision_config(l);
    size_t begin = 0;
    while (begin < text.size()) {
      const size_t end = text.find('\n', begin);
      out += "# " + text.substr(begin, end - begin) + "\n";
      begin = end + 1;
    }
    return out;
  }
  const bool differs = spec.base ? (spec.base->bf16_modules != l.bf16_modules || spec.base->mxfp8_modules != l.mxfp8_modules)
                                 : has_module_precision(l);
  if (!differs || spec.framework != Framework::kBridge) return {};
  return fmt::format(
      "\n# Warning: the layout's per-module precision (BF16: {}; MXFP8: {}) is not the recipe's, and\n"
      "# run_recipe.py has no override for it (model.quant_recipe is built in code); the recipe's own runs.\n",
      l.bf16_modules != 0 ? gemm_modules_str(l.bf16_modules) : "none",
      l.mxfp8_modules != 0 ? gemm_modules_str(l.mxfp8_modules) : "none");
}

}  // namespace rb
