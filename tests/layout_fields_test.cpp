// The layout field table (core/layout_fields.hpp): every row round-trips. A value other than the
// default is given as a `launch` flag (the binary, whose flags main.cpp registers from the table);
// the recipe draft it writes reads back (the catalog's reader) to the same field value as the JSON
// key gives (read_layout_flag, as estimate --batch, serve and `launch plan.json` read it); and the
// Bridge overrides and Megatron-LM flags in the draft's command spell it as the row says.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <utility>

#include "recipebook/catalog/recipe_yaml.hpp"
#include "recipebook/catalog/yaml_tree.hpp"
#include "recipebook/core/layout_fields.hpp"
#include "recipebook/emit/launch.hpp"
#include "recipebook/emit/launch_test_util.hpp"
#include "recipebook/emit/layout_flags.hpp"
#include "recipebook/emit/layout_json.hpp"
#include "recipebook/layout_args.hpp"

namespace rb {
namespace {

using Json = nlohmann::json;

// One case per row: the layout flags as JSON, the row's own key set to a value other than what the
// rest of the case gives it (the rest makes the value valid: a pipeline to split, full recompute).
// "model" and "gpu" (not layout keys) replace the MoE model and the H100 the launch is for.
const std::map<std::string, Json>& cases() {
  static const std::map<std::string, Json> c{
      {"tp", {{"tp", 2}}},
      {"pp", {{"pp", 2}}},
      {"vp", {{"pp", 2}, {"vp", 2}}},
      {"cp", {{"cp", 2}}},
      {"ep", {{"ep", 4}}},
      {"etp", {{"tp", 2}, {"etp", 2}}},
      {"mbs", {{"mbs", 2}}},
      {"first_stage_layers", {{"pp", 2}, {"first_stage_layers", 23}, {"last_stage_layers", 25}}},
      {"last_stage_layers", {{"pp", 2}, {"first_stage_layers", 25}, {"last_stage_layers", 23}}},
      {"pipeline_layout", {{"pp", 2}, {"pipeline_layout", "Et*24|t*24L"}}},
      {"account_for_embedding", {{"pp", 2}, {"account_for_embedding", true}, {"account_for_loss", true}}},
      {"account_for_loss", {{"pp", 2}, {"account_for_embedding", true}, {"account_for_loss", true}}},
      {"sp", {{"model", "Llama-3-8B"}, {"tp", 2}, {"sp", false}}},  // a MoE model needs SP with TP
      {"fsdp", {{"fsdp", true}}},
      {"distributed_optimizer", {{"distributed_optimizer", false}}},
      {"optimizer", {{"optimizer", "muon"}}},
      {"precision_aware_optimizer", {{"precision_aware_optimizer", true}}},
      {"grad_reduce_in_fp32", {{"grad_reduce_in_fp32", true}}},
      {"ep_a2a_overlap", {{"ep", 4}, {"ep_a2a_overlap", true}}},
      {"tp_comm_overlap", {{"tp", 2}, {"tp_comm_overlap", true}}},
      {"precision", {{"precision", "fp8_cs"}}},
      {"recompute", {{"recompute", "full"}}},
      {"recompute_modules", {{"recompute_modules", "core_attn,layernorm"}}},
      {"recompute_method", {{"recompute", "full"}, {"recompute_method", "block"}}},
      {"recompute_layers", {{"recompute", "full"}, {"recompute_layers", 2}}},
      {"dispatcher", {{"ep", 4}, {"dispatcher", "allgather"}}},
      {"cuda_graph", {{"cuda_graph", "transformer_engine"}}},
      {"cuda_graph_scope", {{"cuda_graph", "transformer_engine"}, {"cuda_graph_scope", "attn,moe_router"}}},
      {"cpu_offload_layers", {{"cpu_offload_layers", 2}}},
      {"optimizer_offload_fraction", {{"precision_aware_optimizer", true}, {"optimizer_offload_fraction", 0.5}}},
      {"offload_modules", {{"offload_modules", "core_attn,attn_proj"}}},
      {"activation_offload_fraction", {{"offload_modules", "core_attn"}, {"activation_offload_fraction", 0.5}}},
      {"cross_entropy_loss_fusion", {{"cross_entropy_loss_fusion", false}}},
      {"cross_entropy_fusion_impl", {{"cross_entropy_fusion_impl", "native"}}},
      {"hidden_dropout", {{"hidden_dropout", 0.1}}},
      {"attention_dropout", {{"attention_dropout", 0.1}}},
      // What bf16_with_fp8_current_scaling_mixed sets (one at each end), which Bridge can launch from a
      // BF16 recipe (launch_bridge.cpp precision_key_overrides).
      {"bf16_layers_at_start", {{"precision", "fp8_cs"}, {"bf16_layers_at_start", 1}, {"bf16_layers_at_end", 1}}},
      {"bf16_layers_at_end", {{"precision", "fp8_cs"}, {"bf16_layers_at_start", 1}, {"bf16_layers_at_end", 1}}},
      {"bf16_modules", {{"precision", "fp8_cs"}, {"bf16_modules", "linear_qkv,mtp"}}},
      {"mxfp8_modules", {{"gpu", "b200"}, {"precision", "fp8_cs"}, {"mxfp8_modules", "experts"}}},  // MXFP8: Blackwell
      {"fused_grouped_mlp", {{"ep", 4}, {"fused_grouped_mlp", true}}},
      {"fp8_attention", {{"precision", "fp8_cs"}, {"fp8_attention", true}}},
      {"distributed_optimizer_instances", {{"fsdp", true}, {"distributed_optimizer_instances", 2}}},  // HSDP 2 x 8
      {"cp_comm_type", {{"cp", 2}, {"cp_comm_type", "a2a"}}},
      {"fp4_param_gather", {{"gpu", "b200"}, {"precision", "nvfp4"}, {"fp4_param_gather", false}}},  // NVFP4: Blackwell
  };
  return c;
}

// The case as `launch` flags, each flag's name from its row.
std::string cli_words(const Json& c) {
  std::string out;
  for (const auto& [key, v] : c.items()) {
    if (key == "model" || key == "gpu") continue;
    const LayoutField& r = layout_field(key);
    const std::string flag = flag_name(r);
    if (v.is_boolean())
      out += " " + (v.get<bool>() ? flag : "--no-" + flag.substr(2));
    else if (v.is_string())
      out += " " + flag + " '" + v.get<std::string>() + "'";
    else
      out += " " + flag + " " + v.dump();
  }
  return out;
}

// The case read as JSON keys over Layout's defaults, as a batch line is.
Layout json_layout(const Json& c) {
  LayoutFlags f;
  for (const auto& [key, v] : c.items()) {
    if (key == "model" || key == "gpu") continue;
    auto read = read_layout_flag(key, v, f);
    EXPECT_TRUE(read && *read) << key;
  }
  Layout l;
  auto ok = apply_layout_flags(f, l, true);
  EXPECT_TRUE(ok) << (ok ? "" : ok.error().str());
  return l;
}

// What a MoE model on 16 H100 writes for the case: the recipe draft, whose `run` block is the
// Bridge or Megatron-LM command. Each case moves one field away from a runnable layout, so many do
// not fit in memory: --ignore-memory writes them anyway (the rendering is what is checked here).
std::string draft(const Json& c, const std::string& framework) {
  const std::string model = c.value("model", "Qwen3-30B-A3B");
  const std::string cmd = std::string(RB_BINARY) + " launch --model " + model + " --gpu " + c.value("gpu", "h100") +
                          " --gpus 16 --seq 4096 --gbs 128 --ignore-memory --target recipe --framework " + framework +
                          cli_words(c);
  const test::TempDir dir;
  const test::Run r = test::run_shell(cmd + " -o " + dir.path());
  EXPECT_EQ(r.rc, 0) << cmd << "\n" << r.out;
  std::ifstream in(dir.file(model + "-16gpu-pretrain.recipe.yaml"));
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The value as the Bridge override writes it (True/False for a switch).
std::string bridge_value(const LayoutField& r, const Layout& l) {
  if (r.kind == FieldKind::kBool) return l.*r.bool_member ? "True" : "False";
  return field_text(r, l);
}

TEST(LayoutFields, EveryRowHasACase) {
  for (const LayoutField& r : layout_fields()) EXPECT_TRUE(cases().contains(std::string(r.key))) << r.key;
  EXPECT_EQ(cases().size(), layout_fields().size());
}

TEST(LayoutFields, EveryRowRoundTripsFlagsJsonRecordBridgeAndMegatron) {
  for (const LayoutField& r : layout_fields()) {
    SCOPED_TRACE(std::string(r.key));
    const Json& c = cases().at(std::string(r.key));
    Json rest = c;
    rest.erase(std::string(r.key));
    const Layout from_json = json_layout(c);
    const std::string value = field_text(r, from_json);
    ASSERT_NE(value, field_text(r, json_layout(rest))) << "the case does not change the field";

    // Flags -> record -> the catalog's reader: the same value.
    const std::string yaml = draft(c, "bridge");
    auto tree = parse_yaml(yaml, "draft.yaml");
    ASSERT_TRUE(tree) << tree.error().str() << "\n" << yaml;
    Diagnostics diags;
    const auto recipe = recipe_from_yaml(*tree, "draft", diags);
    ASSERT_TRUE(recipe) << yaml;
    if (!r.yaml.empty()) {
      EXPECT_EQ(field_text(r, recipe->layout), value) << r.yaml << "\n" << yaml;
    }

    // The layout -> the Bridge override key the row names, with the value for a plain field. In
    // process, with no recipe to start from, so that every feature is written (the binary's draft
    // above writes only what differs from the Bridge recipe it starts from).
    LaunchSpec spec = test::sample_spec();
    spec.model_ir = c.contains("model") ? test::dense_model() : test::moe_model();
    spec.layout = from_json;
    spec.base.reset();
    // A MixedPrecisionConfig key is written only on a recipe of the layout's own precision: Hydra cannot
    // apply one after `mixed_precision=NAME` (launch_bridge.cpp precision_key_overrides).
    if (std::string_view(r.bridge).rfind("mixed_precision.", 0) == 0) {
      spec.base = Layout{};
      spec.base->precision = from_json.precision;
    }
    std::string overrides;
    for (const std::string& w : bridge_overrides(spec)) overrides += w + "\n";
    const std::string spelled = std::string(r.bridge) + "=" + (r.kind != FieldKind::kText ? bridge_value(r, from_json) : "");
    EXPECT_NE(overrides.find(spelled), std::string::npos) << spelled << "\n" << overrides;

    // Flags -> the Megatron-LM flag the row names: a switch present when on, a number after its flag.
    if (r.megatron.empty()) continue;
    const std::string lm = draft(c, "megatron-lm");
    const std::string flag = " " + std::string(r.megatron);
    const bool off = r.kind == FieldKind::kBool && !(from_json.*r.bool_member);
    const std::string words = r.kind == FieldKind::kInt ? flag + " " + value : flag;
    EXPECT_EQ(lm.find(words + " ") != std::string::npos || lm.find(words + "\n") != std::string::npos, !off)
        << words << "\n" << lm;
  }
}

// The layout's JSON (show, list, estimate, plan --json) has the row's key with its value, and reads
// back, key by key, to the same layout; estimate over `flags_text` (its "as flags:" line) gives
// the same layout again. Before, layout_json wrote its own subset (no overlaps, CUDA-graph scope,
// optimizer or pipeline accounting), and flags_text left out an explicit pipeline layout.
TEST(LayoutFields, EveryRowRoundTripsLayoutJsonAndFlagsText) {
  for (const LayoutField& r : layout_fields()) {
    SCOPED_TRACE(std::string(r.key));
    const Json& c = cases().at(std::string(r.key));
    const Layout l = json_layout(c);
    const nlohmann::ordered_json j = layout_json(l);
    ASSERT_TRUE(j.contains(std::string(r.key))) << j.dump();
    LayoutFlags back;
    for (const auto& [key, v] : j.items()) {
      if (key == "dp") continue;
      auto read = read_layout_flag(key, Json(v), back);
      EXPECT_TRUE(read && *read) << key;
    }
    Layout read_back;
    ASSERT_TRUE(apply_layout_flags(back, read_back, true));
    for (const LayoutField& f : layout_fields()) EXPECT_EQ(field_text(f, read_back), field_text(f, l)) << f.key;

    const std::string model = c.value("model", "Qwen3-30B-A3B");
    const std::string cmd = std::string(RB_BINARY) + " --json estimate --model " + model + " --gpu " +
                            c.value("gpu", "h100") + " --gpus 16 --seq 4096 --gbs 128 " + cli::flags_text(l);
    const test::Run e = test::run_shell(cmd);
    const Json ej = Json::parse(e.out, nullptr, false);
    ASSERT_TRUE(ej.is_object() && ej.contains("layout")) << cmd << "\n" << e.out;
    Json want = Json::parse(j.dump());
    Json got = ej["layout"];
    want.erase("dp");
    got.erase("dp");
    EXPECT_EQ(got, want) << cmd;
  }
}

// Counts an aggregate's members: the most initializers `T{...}` takes.
struct AnyValue {
  template <typename T>
  operator T&() const&&;  // NOLINT(google-explicit-constructor): declared only, for the count below
};
template <typename T, typename... A>
constexpr size_t member_count() {
  if constexpr (requires { T{A{}..., AnyValue{}}; })
    return member_count<T, A..., AnyValue>();
  else
    return sizeof...(A);
}

TEST(LayoutFields, EveryLayoutFieldHasARow) {
  // Layout's members that are not a user's to set: DP follows from the GPU count; the TE RNG
  // tracker is forced on with CUDA graphs (launch_spec.cpp). Every other member changes memory or
  // time (or how the run is launched) and has a row: a new member needs one (layout_fields.cpp).
  constexpr size_t kNotRows = 2;  // dp, te_rng_tracker
  EXPECT_EQ(member_count<Layout>(), layout_fields().size() + kNotRows)
      << "a Layout member without a row of core/layout_fields.cpp";
  // Each plain row names a distinct member.
  for (const LayoutField& a : layout_fields())
    for (const LayoutField& b : layout_fields()) {
      if (&a == &b) continue;
      EXPECT_NE(a.key, b.key);
      if (a.kind == FieldKind::kInt && b.kind == FieldKind::kInt) {
        EXPECT_NE(a.int_member, b.int_member) << a.key;
      }
      if (a.kind == FieldKind::kBool && b.kind == FieldKind::kBool) {
        EXPECT_NE(a.bool_member, b.bool_member) << a.key;
      }
    }
}

TEST(LayoutFields, HelpListsEveryRowWithItsText) {
  for (const char* cmd : {"estimate", "launch", "plan"}) {
    const test::Run help = test::run_shell(std::string(RB_BINARY) + " " + cmd + " --help");
    ASSERT_EQ(help.rc, 0) << cmd;
    for (const LayoutField& r : layout_fields()) {
      // plan has its own flags for what it searches (a list, "any"), and derives SP and the split.
      if (std::string_view(cmd) == "plan" && r.plan != PlanRole::kFixed) continue;
      EXPECT_NE(help.out.find(flag_name(r)), std::string::npos) << cmd << " " << flag_name(r);
      EXPECT_NE(help.out.find(std::string(r.help).substr(0, 30)), std::string::npos) << cmd << " " << r.help;
    }
  }
}

// `plan` takes the layout flag of every field it does not search, and each fixes that field in
// every layout it ranks (before: "The following arguments were not expected: --cuda-graph").
TEST(LayoutFields, PlanFixesTheFieldsItDoesNotSearch) {
  const std::string plan = std::string(RB_BINARY) +
                           " --json plan --model Qwen/Qwen3-30B-A3B --gpu h100 --gpus 8 --seq 4096 --gbs 256 --max-mbs 2";
  const test::Run fixed = test::run_shell(plan + " --cuda-graph te --ep-a2a-overlap");
  ASSERT_EQ(fixed.rc, 0) << fixed.out;
  const Json j = Json::parse(fixed.out);
  ASSERT_FALSE(j["top"].empty());
  for (const Json& t : j["top"]) EXPECT_EQ(t["layout"]["cuda_graph"], "transformer_engine") << t.dump();
  const test::Run plain = test::run_shell(plan);
  ASSERT_EQ(plain.rc, 0) << plain.out;
  EXPECT_NE(Json::parse(plain.out)["top"][0]["tokens_per_s_per_gpu"], j["top"][0]["tokens_per_s_per_gpu"]);
  // The plan's layouts carry what it fixed, so `launch plan.json` writes it.
  EXPECT_EQ(j["top"][0]["layout"]["ep_a2a_overlap"], true) << j["top"][0].dump();
  const test::TempDir dir;
  const std::string file = dir.write("plan.json", fixed.out);
  const test::Run launched = test::run_shell(std::string(RB_BINARY) + " launch " + file + " --target megatron-lm");
  ASSERT_EQ(launched.rc, 0) << launched.out;
  for (const char* key : {"ep_a2a_overlap", "cuda_graph"})
    EXPECT_NE(launched.out.find(std::string(layout_field(key).megatron)), std::string::npos) << key << "\n" << launched.out;
  // A bad value is a usage error naming the flag, as estimate's is.
  const test::Run bad = test::run_shell(plan + " --cuda-graph sometimes");
  EXPECT_EQ(bad.rc, 2) << bad.out;
  EXPECT_NE(bad.out.find("--cuda-graph"), std::string::npos) << bad.out;
}

}  // namespace
}  // namespace rb
