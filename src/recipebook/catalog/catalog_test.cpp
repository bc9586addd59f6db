#include "recipebook/catalog/catalog.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "../../../tests/test_support.hpp"
#include "recipebook/core/strings.hpp"
#include "recipebook/catalog/recipe_layout.hpp"
#include "recipebook/catalog/record_check.hpp"
#include "recipebook/catalog/test_catalog.hpp"

namespace rb {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

std::string all(const Diagnostics& ds) {
  std::string out;
  for (const auto& d : ds) out += d.str() + "\n";
  return out;
}

// The NVL72 trays' hosts are Grace, the DGX/HGX nodes' x86 (catalog `host: cpu_family`).
TEST(Catalog, BuiltinHardwareNamesItsHostCpu) {
  const Catalog& cat = builtin();
  for (const char* grace : {"gb200", "gb300"}) {
    ASSERT_NE(cat.hardware_entry(grace), nullptr) << grace;
    EXPECT_EQ(cat.hardware_entry(grace)->hardware.host_cpu_family, HostCpuFamily::kGrace) << grace;
  }
  for (const char* x86 : {"a100", "h100", "h200", "b200", "b300"}) {
    ASSERT_NE(cat.hardware_entry(x86), nullptr) << x86;
    EXPECT_EQ(cat.hardware_entry(x86)->hardware.host_cpu_family, HostCpuFamily::kX86) << x86;
    EXPECT_FALSE(cat.hardware_entry(x86)->hardware.host_cpu.empty()) << x86;
  }
}

TEST(Catalog, BuiltinLoadsCleanly) {
  const Catalog& cat = builtin();
  EXPECT_TRUE(cat.problems().empty()) << all(cat.problems());
  EXPECT_GE(cat.models().size(), 32u);
  EXPECT_GE(cat.hardware().size(), 8u);
  EXPECT_GE(cat.recipes().size(), 700u);
  for (const auto& e : cat.recipes()) EXPECT_EQ(e.origin, "builtin");
  // Every recipe names a model and a GPU the catalog knows (the generator's contract).
  for (const auto& e : cat.recipes()) {
    if (!e.recipe.model.empty()) {
      EXPECT_NE(cat.model_entry(e.recipe.model), nullptr) << e.recipe.name;
    }
    if (!e.recipe.gpu.empty()) {
      EXPECT_NE(cat.hardware_entry(e.recipe.gpu), nullptr) << e.recipe.name;
    }
  }
}

TEST(Catalog, LoadTimeIsSmall) {
  const auto t0 = std::chrono::steady_clock::now();
  auto c = Catalog::load();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(c);
  std::printf("[ info ] loaded %zu models, %zu GPUs, %zu recipes in %.3f s\n", c->models().size(),
              c->hardware().size(), c->recipes().size(), s);
  EXPECT_LT(s, 10.0);  // generous for Debug/ASan; Release is well under a second (see the report)
}

// Without --catalog folders the built-in recipes are made ready on first use; every answer is the
// one a load of everything at once gives (a folder with only an empty models/ forces that load).
TEST(Catalog, RecipesMadeReadyOnUseAnswerAsLoadedAtOnce) {
  test::TempDir dir;
  std::filesystem::create_directories(dir.path() + "/models");
  auto at_once = Catalog::load({dir.path()});
  ASSERT_TRUE(at_once) << at_once.error().str();
  auto on_use = Catalog::load();
  ASSERT_TRUE(on_use) << on_use.error().str();

  // A miss and a hit before the recipes are ready, the miss with the same suggestions.
  for (const char* name : {"llama3_70b_pretrain_64gpu_h100_bf16_confi", "h100", "no_such_recipe_at_all"}) {
    auto a = at_once->find_recipe(name);
    auto b = on_use->find_recipe(name);
    ASSERT_FALSE(a) << name;
    ASSERT_FALSE(b) << name;
    EXPECT_EQ(a.error().message, b.error().message);
    EXPECT_EQ(a.error().fix, b.error().fix);
  }
  auto pending = Catalog::load();
  ASSERT_TRUE(pending);
  const Catalog copy = *pending;  // a copy of a catalog whose recipes are still pending
  auto hit = on_use->find_recipe("llama3_70b_pretrain_64gpu_h100_bf16_config");
  ASSERT_TRUE(hit) << hit.error().str();
  EXPECT_EQ((*hit)->recipe.gpus, 64);

  for (const Catalog* cat : {static_cast<const Catalog*>(&*on_use), &copy}) {
    EXPECT_EQ(all(cat->problems()), all(at_once->problems()));
    ASSERT_EQ(cat->recipes().size(), at_once->recipes().size());
    for (size_t i = 0; i < cat->recipes().size(); ++i) {
      const RecipeEntry& x = at_once->recipes()[i];
      const RecipeEntry& y = cat->recipes()[i];
      EXPECT_EQ(y.recipe.name, x.recipe.name);
      EXPECT_EQ(y.origin, x.origin);
      EXPECT_EQ(y.tree.where.str(), x.tree.where.str());
      EXPECT_EQ(to_json_text(y.tree), to_json_text(x.tree));
      EXPECT_EQ(y.recipe.model, x.recipe.model);
      EXPECT_EQ(y.recipe.gpu, x.recipe.gpu);
      EXPECT_EQ(y.recipe.gpus, x.recipe.gpus);
      EXPECT_EQ(y.recipe.layout.tp, x.recipe.layout.tp);
      EXPECT_EQ(y.recipe.layout.dp, x.recipe.layout.dp);
      EXPECT_EQ(y.recipe.seq, x.recipe.seq);
      EXPECT_EQ(y.recipe.measurements.size(), x.recipe.measurements.size());
      auto rx = at_once->resolved_tree(x.recipe.name);
      auto ry = cat->resolved_tree(y.recipe.name);
      ASSERT_TRUE(rx && ry) << x.recipe.name;
      EXPECT_EQ(to_json_text(*ry), to_json_text(*rx));
    }
  }
}

// The first use may come from several threads at once (`recipebook serve`): one makes them ready.
TEST(Catalog, RecipesMadeReadyOnceFromManyThreads) {
  auto cat = Catalog::load();
  ASSERT_TRUE(cat);
  std::vector<size_t> seen(4, 0);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < seen.size(); ++t)
    threads.emplace_back([&, t] {
      auto r = cat->find_recipe("llama3_70b_pretrain_64gpu_h100_bf16_config");
      seen[t] = r ? cat->recipes().size() : 0;
    });
  for (auto& th : threads) th.join();
  for (const size_t n : seen) EXPECT_EQ(n, builtin().recipes().size());
}

TEST(Catalog, FindModelByNameAliasHfIdAndFoldedSpelling) {
  const Catalog& cat = builtin();
  for (const char* ref : {"Qwen3-30B-A3B", "qwen3_30b_a3b", "Qwen/Qwen3-30B-A3B", "QWEN3 30B A3B"}) {
    auto m = cat.find_model(ref);
    ASSERT_TRUE(m) << ref << ": " << m.error().str();
    EXPECT_EQ(m->name, "Qwen3-30B-A3B") << ref;
    EXPECT_TRUE(m->has_architecture);
    EXPECT_EQ(m->num_layers(), 48);
  }
  auto llama = cat.find_model("llama3-70b");
  ASSERT_TRUE(llama);
  EXPECT_EQ(llama->name, "Llama-3-70B");
}

// The suggestion names the model the user most likely meant: the one whose name holds every word
// of theirs before a nearest-by-spelling one (qwen3-235b drew 'Qwen2-0.5B'), and the model an
// -Instruct or dated release is a variant of (no suggestion at all before). Never a model of
// another size: 'llama3-7b' is not a variant of 'llama3'.
TEST(Catalog, MissSuggestsTheModelMeant) {
  const Catalog& cat = builtin();
  auto fix = [&](const char* ref) { return cat.find_model(ref).error().fix; };
  EXPECT_THAT(fix("qwen3-235b"), StartsWith("did you mean 'Qwen3-235B-A22B'"));
  EXPECT_THAT(fix("qwen3-30b"), StartsWith("did you mean 'Qwen3-30B-A3B'"));
  EXPECT_THAT(fix("meta-llama/Llama-3.1-8B-Instruct"), StartsWith("did you mean 'Llama-3.1-8B'"));
  EXPECT_THAT(fix("Qwen/Qwen3-30B-A3B-Instruct-2507"), StartsWith("did you mean 'Qwen3-30B-A3B'"));
  EXPECT_THAT(fix("llama3-7b"), Not(HasSubstr("Llama-3-8B")));
}

TEST(Catalog, MissSuggestsButNeverSubstitutes) {
  const Catalog& cat = builtin();
  auto m = cat.find_model("Qwen3-30B-A4B");
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().message, "unknown model 'Qwen3-30B-A4B'");
  EXPECT_EQ(m.error().fix, "did you mean 'Qwen3-30B-A3B'?");
  auto far = cat.find_model("totally-unknown-model-xyz");
  ASSERT_FALSE(far);
  EXPECT_THAT(far.error().fix, HasSubstr("recipebook list --models"));
  auto h = cat.find_hardware("h10");
  ASSERT_FALSE(h);
  EXPECT_EQ(h.error().fix, "did you mean 'h100'?");
  auto r = cat.find_recipe("qwen3_30b_a3b_pretrain_config_typo");
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr("unknown recipe"));
  auto missing_file = cat.find_model("./nope/config.json");
  ASSERT_FALSE(missing_file);
  EXPECT_THAT(missing_file.error().message, HasSubstr("no such file"));
}

// Megatron-Bridge's Nemotron 3 Super NVFP4 performance recipes keep the last 14 decoder layers in
// BF16 (perf_recipes/nemotronh/common.py _nemotron_3_super_nvfp4_precision ->
// nemotron_3_super_bf16_with_nvfp4_mixed); its MXFP8 ones and the other NVFP4 recipes quantize every
// layer (perf_recipes/_common.py _perf_precision). Before, the records did not carry it.
TEST(Catalog, SuperNvfp4RecipesKeepTheirLastLayersInBf16) {
  const Catalog& cat = builtin();
  for (const char* gpu : {"b200", "b300", "gb200", "gb300"}) {
    auto r = cat.find_recipe(std::string("nemotron_3_super_pretrain_64gpu_") + gpu + "_nvfp4_config");
    ASSERT_TRUE(r) << gpu;
    EXPECT_EQ((*r)->recipe.layout.bf16_layers_at_start, 0) << gpu;
    EXPECT_EQ((*r)->recipe.layout.bf16_layers_at_end, 14) << gpu;
    auto mx = cat.find_recipe(std::string("nemotron_3_super_pretrain_64gpu_") + gpu + "_fp8mx_config");
    ASSERT_TRUE(mx) << gpu;
    EXPECT_EQ((*mx)->recipe.layout.bf16_layers_at_end, 0) << gpu;
  }
  auto llama = cat.find_recipe("llama3_70b_pretrain_64gpu_gb300_nvfp4_config");
  ASSERT_TRUE(llama);
  EXPECT_EQ((*llama)->recipe.layout.bf16_layers_at_end, 0);
}

// Megatron-Bridge's Super NVFP4 performance recipes load perf_recipes/nemotronh/te_quant.cfg as
// model.quant_recipe: attention qkv/proj, the latent projections and the MTP block in BF16, Mamba
// out_proj in MXFP8; the MXFP8 ones load none. Its library recipes' mixed-precision configs keep BF16
// first/last layers: bf16_with_fp8_current_scaling_mixed 1 and 1 (Llama 3 8B, GPT-OSS 20B FP8-CS),
// the Llama 3 8B NVFP4 helper the last 4, and the Nemotron-H 47B/56B "bf16" pretrain recipes run
// nemotron_h_bf16_with_fp8_current_scaling_mixed (FP8 current scaling, 2 and 2). Before, the records
// had neither the module lists nor those layers, and the Nemotron-H ones read as BF16.
TEST(Catalog, RecipesCarryTheirPerModuleAndFirstLastPrecision) {
  const Catalog& cat = builtin();
  for (const char* gpu : {"b200", "b300", "gb200", "gb300", "vr200"}) {
    auto r = cat.find_recipe(std::string("nemotron_3_super_pretrain_64gpu_") + gpu + "_nvfp4_config");
    ASSERT_TRUE(r) << gpu;
    EXPECT_EQ((*r)->recipe.layout.bf16_modules, kGmLinearQkv | kGmLinearProj | kGmLatentProj | kGmMtp) << gpu;
    EXPECT_EQ((*r)->recipe.layout.mxfp8_modules, kGmOutProj) << gpu;
    auto mx = cat.find_recipe(std::string("nemotron_3_super_pretrain_64gpu_") + gpu + "_fp8mx_config");
    ASSERT_TRUE(mx) << gpu;
    EXPECT_EQ((*mx)->recipe.layout.bf16_modules | (*mx)->recipe.layout.mxfp8_modules, 0u) << gpu;
  }
  auto llama = cat.find_recipe("llama3_8b_pretrain_2gpu_h100_fp8cs_config");
  ASSERT_TRUE(llama);
  EXPECT_EQ((*llama)->recipe.layout.bf16_layers_at_start, 1);
  EXPECT_EQ((*llama)->recipe.layout.bf16_layers_at_end, 1);
  auto llama_fp4 = cat.find_recipe("llama3_8b_pretrain_2gpu_h100_nvfp4_config");
  ASSERT_TRUE(llama_fp4);
  EXPECT_EQ((*llama_fp4)->recipe.layout.bf16_layers_at_end, 4);
  auto oss = cat.find_recipe("gpt_oss_20b_pretrain_16gpu_h100_fp8cs_config");
  ASSERT_TRUE(oss);
  EXPECT_EQ((*oss)->recipe.layout.bf16_layers_at_start, 1);
  auto nh = cat.find_recipe("nemotronh_56b_pretrain_8gpu_h100_bf16_config");
  ASSERT_TRUE(nh);
  EXPECT_EQ((*nh)->recipe.layout.precision, Precision::kFp8Cs);
  EXPECT_EQ((*nh)->recipe.layout.bf16_layers_at_start, 2);
  EXPECT_EQ((*nh)->recipe.layout.bf16_layers_at_end, 2);
  // The performance FP8-CS recipes turn the layers off (perf_recipes/_common.py _perf_precision).
  auto perf = cat.find_recipe("nemotronh_56b_pretrain_64gpu_h100_fp8cs_config");
  ASSERT_TRUE(perf);
  EXPECT_EQ((*perf)->recipe.layout.bf16_layers_at_start, 0);
}

// Megatron-Bridge's Qwen3-30B-A3B MXFP8 performance recipes on GB200, GB300 and B300 turn on TE's fused
// grouped MLP and FP8 attention (perf_recipes/qwen/common.py _enable_hybridep_full_iteration_mxfp8); their
// runs up to 26.04.01 (Bridge <= v0.4.2) had neither, those from 26.06 (v0.5.0) both; the B200 recipe
// sets neither. GB200 publishes the SDPA figures FP8 attention is timed with. Before, the records and
// runs did not carry the switches.
TEST(Catalog, Qwen3MxfpRecipesCarryTheTeKernelsTheirOldRunsDidNot) {
  const Catalog& cat = builtin();
  for (const char* gpu : {"gb200", "gb300", "b300"}) {
    auto r = cat.find_recipe(std::string("qwen3_30b_a3b_pretrain_8gpu_") + gpu + "_fp8mx_config");
    ASSERT_TRUE(r) << gpu;
    EXPECT_TRUE((*r)->recipe.layout.fused_grouped_mlp) << gpu;
    EXPECT_TRUE((*r)->recipe.layout.fp8_attention) << gpu;
    int old_runs = 0, new_runs = 0;
    for (const Measurement& m : (*r)->recipe.measurements) {
      if (m.release == "26.04.01") {
        ++old_runs;
        EXPECT_EQ(m.overrides.fused_grouped_mlp, std::optional<bool>(false)) << gpu;
        EXPECT_EQ(m.overrides.fp8_attention, std::optional<bool>(false)) << gpu;
      } else if (m.release == "26.06") {
        ++new_runs;
        EXPECT_FALSE(m.overrides.fused_grouped_mlp.has_value()) << gpu;
      }
    }
    EXPECT_GT(old_runs, 0) << gpu;
    EXPECT_GT(new_runs, 0) << gpu;
  }
  auto b200 = cat.find_recipe("qwen3_30b_a3b_pretrain_8gpu_b200_fp8mx_config");
  ASSERT_TRUE(b200);
  EXPECT_FALSE((*b200)->recipe.layout.fused_grouped_mlp);
  auto hw = cat.find_hardware("gb200");
  ASSERT_TRUE(hw);
  int mxfp8_4096 = 0;
  for (const AttentionFigure& f : hw->microbenchmarks.attention)
    if (f.precision == Precision::kMxfp8 && f.seq == 4096) ++mxfp8_4096;
  EXPECT_EQ(mxfp8_4096, 2);  // forward and backward
}

TEST(Catalog, StubModelIsReturnedAsIs) {
  // A built-in stub (no architecture yet, not of a `kind`) is found by its alias and returned unsized.
  // Which models are stubs changes as the catalog is sized, so take the first one there is.
  const Catalog& cat = builtin();
  std::string alias;
  for (const auto& e : cat.models())
    if (!e.model.has_architecture && e.model.kind.empty() && !e.model.aliases.empty()) {
      alias = e.model.aliases.front();
      break;
    }
  ASSERT_FALSE(alias.empty()) << "no built-in stub model left";
  auto m = cat.find_model(alias);
  ASSERT_TRUE(m) << m.error().str();
  EXPECT_FALSE(m->has_architecture);
}

TEST(Catalog, FindHardwareByAlias) {
  const Catalog& cat = builtin();
  for (const char* ref : {"h100", "H100-SXM", "DGX-H100", "h100_sxm"}) {
    auto h = cat.find_hardware(ref);
    ASSERT_TRUE(h) << ref;
    EXPECT_EQ(h->name, "h100");
    EXPECT_TRUE(h->has_specs);
    EXPECT_GT(h->memory_bytes, 79e9);
  }
}

// The host side offload needs (catalog/hardware/*.yaml `host:`): every NVIDIA node has it, with a
// source; PCIe Gen5 x16 on HGX, NVLink-C2C on NVL72 trays; AMD entries have none.
TEST(Catalog, NvidiaNodesHaveHostFigures) {
  const Catalog& cat = builtin();
  for (const char* name : {"a100", "h100", "h200", "b200", "b300", "gb200", "gb300"}) {
    auto h = cat.find_hardware(name);
    ASSERT_TRUE(h) << name;
    EXPECT_TRUE(h->has_host()) << name;
    EXPECT_GT(h->host_memory_bytes_per_s, 0) << name;
    EXPECT_FALSE(h->host_source.empty()) << name;
  }
  EXPECT_DOUBLE_EQ(cat.find_hardware("h100")->host_link_bytes_per_s, 64e9);
  EXPECT_DOUBLE_EQ(cat.find_hardware("h100")->host_memory_bytes, 2e12);
  EXPECT_GT(cat.find_hardware("gb200")->host_link_bytes_per_s, cat.find_hardware("b200")->host_link_bytes_per_s);
  EXPECT_FALSE(cat.find_hardware("mi300x")->has_host());
}

// A dense model has no EP to record: the generated Bridge records give TP, PP and CP and leave EP
// out, and that is their whole layout (list and show printed "-" and "not fully given" for every
// dense recipe, 347 of them, while estimate used the layout). A MoE record without EP is not whole.
TEST(Catalog, ADenseRecordWithoutEpGivesItsWholeLayout) {
  const Catalog& cat = builtin();
  auto dense = cat.find_recipe("llama3_70b_pretrain_64gpu_h100_bf16_config");
  ASSERT_TRUE(dense);
  EXPECT_EQ((*dense)->tree.get("layout")->get("ep"), nullptr);
  EXPECT_TRUE((*dense)->recipe.layout_known);
  auto resolved = cat.resolved("llama3_70b_pretrain_64gpu_h100_bf16_config");
  ASSERT_TRUE(resolved);
  EXPECT_TRUE(resolved->layout_known);
  Recipe no_ep;
  no_ep.dense_layout_given = true;
  Recipe moe = no_ep;
  link_recipe_model(no_ep, *cat.find_model("llama3-8b"));
  link_recipe_model(moe, *cat.find_model("Qwen3-30B-A3B"));
  EXPECT_TRUE(no_ep.layout_known);
  EXPECT_FALSE(moe.layout_known);
  // On one GPU every degree is 1, written or not (estimate refused these records before).
  auto one = cat.find_recipe("nemotronh_4b_sft_1gpu_h100_bf16_config");
  ASSERT_TRUE(one);
  EXPECT_EQ((*one)->tree.get("layout")->get("pp"), nullptr);
  EXPECT_TRUE((*one)->recipe.layout_known);
  EXPECT_TRUE(record_layout_known((*one)->tree, nullptr));
}

TEST(Catalog, Seed002RecordIsInTheCatalog) {
  const Catalog& cat = builtin();
  auto r = cat.find_recipe("attune-48gpu-tp2-pp6-ep8");
  ASSERT_TRUE(r) << r.error().str();
  const Recipe& rec = (*r)->recipe;
  EXPECT_EQ(rec.kind, RecipeKind::kVerified);
  EXPECT_EQ(rec.mode, Mode::kSft);
  EXPECT_TRUE(rec.layout_known);
  EXPECT_EQ(rec.layout.tp * rec.layout.pp * rec.layout.cp * rec.layout.dp, rec.gpus);
  EXPECT_EQ(rec.layout.ep, 8);
  EXPECT_EQ(rec.seq, 8192);
  EXPECT_THAT(rec.where.file, HasSubstr("builtin:recipes/"));
  ASSERT_NE((*r)->tree.get("correctness"), nullptr);  // the whole record is kept
}

TEST(Catalog, ListFilters) {
  const Catalog& cat = builtin();
  RecipeFilter f;
  f.model = "qwen3_30b_a3b";
  f.gpu = "H100-SXM";
  const auto rows = cat.list(f);
  ASSERT_FALSE(rows.empty());
  const ModelEntry* want = cat.model_entry("Qwen3-30B-A3B");
  for (const auto* e : rows) {
    EXPECT_EQ(cat.model_entry(e->recipe.model), want) << e->recipe.name;
    EXPECT_EQ(cat.hardware_entry(e->recipe.gpu), cat.hardware_entry("h100")) << e->recipe.name;
  }
  RecipeFilter g;
  g.model = "qwen3";  // a family substring
  g.mode = Mode::kSft;
  g.measured_only = true;
  for (const auto* e : cat.list(g)) {
    EXPECT_EQ(e->recipe.mode, Mode::kSft);
    EXPECT_TRUE(e->recipe.tokens_per_s_per_gpu || !e->recipe.measurements.empty());
    EXPECT_NE(fold_name(e->recipe.model).find("qwen3"), std::string::npos);
  }
  RecipeFilter none;
  EXPECT_EQ(cat.list(none).size(), cat.recipes().size());
}

TEST(Catalog, UserFolderOverridesAddsAndReportsProblems) {
  test::TempDir dir;
  dir.write("models/llama.yaml",
            "name: Llama-3-8B\nsource: mine\narchitecture:\n  hidden: 1024\n  vocab: 1000\n"
            "  attention: {heads: 8, kv_heads: 8, head_dim: 128}\n  layers: {count: 2}\n");
  dir.write("hardware/x1.yaml", "name: x1\nsource: mine\nmemory: 10 GB\npeak: {bf16: 100 TFLOP/s}\n");
  dir.write("recipes/a/base.yaml",
            "name: my_base\nmodel: Llama-3-8B\ngpu: {type: x1, count: 8}\n"
            "layout: {tp: 2, pp: 1, cp: 1, ep: 1}\nworkload: {row_tokens: 4096, global_batch: 64, precision: "
            "bf16}\n");
  dir.write("recipes/a/child.yaml",
            "extends: my_base\ngpu: {count: 16}\nlayout: {tp: 4}\nworkload: {precision: fp8_cs}\n");
  dir.write("recipes/a/loop1.yaml", "name: loop1\nextends: loop2\n");
  dir.write("recipes/a/loop2.yaml", "name: loop2\nextends: loop1\n");
  dir.write("recipes/a/orphan.yaml", "name: orphan\nextends: no_such_base\n");
  dir.write("recipes/b/broken.yaml", "name: broken\nlayout: {tp: 2\n");
  dir.write("recipes/b/typo.yaml", "name: typo\nlayuot: {tp: 2}\nmodel: x\ngpu: {type: h100, count: 1}\n");
  dir.write("recipes/b/dup1.yaml", "name: dup\nmodel: x\ngpu: {type: h100, count: 1}\n");
  dir.write("recipes/b/dup2.yaml", "name: dup\nmodel: x\ngpu: {type: h100, count: 1}\n");
  auto cat = Catalog::load({dir.path()});
  ASSERT_TRUE(cat) << cat.error().str();
  const std::string problems = all(cat->problems());

  auto m = cat->find_model("llama3_8b");  // the built-in alias still resolves, to the override
  ASSERT_TRUE(m);
  EXPECT_EQ(m->hidden, 1024);
  const ModelEntry* me = cat->model_entry("Llama-3-8B");
  ASSERT_NE(me, nullptr);
  EXPECT_EQ(me->origin, dir.path());
  EXPECT_TRUE(cat->find_hardware("x1"));

  auto child = cat->resolved("child");  // name = file stem
  ASSERT_TRUE(child) << child.error().str();
  EXPECT_EQ(child->name, "child");
  EXPECT_EQ(child->model, "Llama-3-8B");  // from the base
  EXPECT_EQ(child->gpu, "x1");
  EXPECT_EQ(child->gpus, 16);  // overridden
  EXPECT_EQ(child->layout.tp, 4);
  EXPECT_EQ(child->layout.dp, 4);    // 16 / (4 x 1 x 1)
  EXPECT_TRUE(child->layout_known);  // pp, cp, ep from the base
  EXPECT_EQ(child->layout.precision, Precision::kFp8Cs);
  EXPECT_EQ(child->seq, 4096);
  EXPECT_EQ((*cat->find_recipe("child"))->recipe.gpus, 16);  // the entry holds the resolved record

  auto loop = cat->resolved("loop1");
  ASSERT_FALSE(loop);
  EXPECT_THAT(loop.error().message, HasSubstr("cycle: loop1 -> loop2 -> loop1"));
  EXPECT_THAT(problems, HasSubstr("[RB-EXTENDS-CYCLE]"));
  auto orphan = cat->resolved("orphan");
  ASSERT_FALSE(orphan);
  EXPECT_THAT(orphan.error().message, HasSubstr("extends unknown recipe 'no_such_base'"));
  EXPECT_THAT(problems, HasSubstr("orphan.yaml:2:10: error [RB-EXTENDS-UNKNOWN]"));

  EXPECT_THAT(problems, HasSubstr("broken.yaml:3:1: error [RB-YAML-SYNTAX]"));
  EXPECT_FALSE(cat->find_recipe("broken"));
  EXPECT_THAT(
      problems,
      HasSubstr(
          "typo.yaml:2:1: error [RB-SCHEMA-UNKNOWN-KEY] unknown key 'layuot' (fix: did you mean 'layout'?)"));
  EXPECT_THAT(problems,
              HasSubstr("dup2.yaml:1:1: error [RB-CATALOG-DUPLICATE] recipe 'dup' is defined twice"));
  EXPECT_TRUE(cat->find_recipe("dup"));
  EXPECT_THAT(problems, ::testing::Not(HasSubstr("child.yaml")));  // complete once resolved
  EXPECT_GE(cat->recipes().size(), builtin().recipes().size() + 5);
}

TEST(Catalog, MissingFolderIsAnError) {
  auto cat = Catalog::load({"/nonexistent/recipebook/catalog"});
  ASSERT_FALSE(cat);
  EXPECT_THAT(cat.error().message, HasSubstr("does not exist"));
  test::TempDir empty;
  auto warn = Catalog::load({empty.path()});
  ASSERT_TRUE(warn);
  EXPECT_THAT(all(warn->problems()), HasSubstr("RB-CATALOG-EMPTY-DIR"));
}

TEST(Catalog, ModelByPathAndCheckFile) {
  test::TempDir dir;
  const std::string good =
      dir.write("m.yaml",
                "name: Tiny\nsource: t\narchitecture:\n  hidden: 64\n  vocab: 100\n"
                "  attention: {heads: 4, kv_heads: 4, head_dim: 16}\n  layers: {count: 3}\n");
  auto m = builtin().find_model(good);
  ASSERT_TRUE(m) << m.error().str();
  EXPECT_EQ(m->name, "Tiny");
  EXPECT_EQ(m->num_layers(), 3);
  const std::string bad =
      dir.write("recipes/r.yaml", "name: r\ngpu: {type: h100, count: -8}\nkind: verifed\n");
  const FileCheck fc = builtin().check_file(bad);
  EXPECT_EQ(fc.kind, EntryKind::kRecipe);
  EXPECT_TRUE(fc.parsed);
  EXPECT_FALSE(fc.recipe);
  const std::string text = all(fc.findings);
  EXPECT_THAT(text, HasSubstr("r.yaml:2:26: error [RB-SCHEMA-RANGE] `gpu.count` must be >= 1, found -8"));
  EXPECT_THAT(text, HasSubstr("r.yaml:3:7: error [RB-SCHEMA-ENUM]"));
  EXPECT_EQ(Catalog::kind_of_path("catalog/models/x.yaml"), EntryKind::kModel);
  EXPECT_EQ(Catalog::kind_of_path("/a/hardware/h.yaml"), EntryKind::kHardware);
  EXPECT_EQ(Catalog::kind_of_path("my_recipe.yaml"), EntryKind::kRecipe);
  EXPECT_EQ(Catalog::kind_of_path("catalog/recipes/m/h100/r.yaml"), EntryKind::kRecipe);
  EXPECT_EQ(Catalog::kind_of_path("recipes/models-x/a.yaml"), EntryKind::kRecipe);
  EXPECT_EQ(Catalog::kind_of_path("/x/recipes/y/models/m.yaml"), EntryKind::kModel);
  // A folder named like a catalog folder higher up does not make a file an entry of that kind (a
  // checkout in /work/wt/models: its tests/invalid/*.yaml recipes were read as models).
  EXPECT_FALSE(Catalog::kind_of_path("/work/wt/models/tests/invalid/r.yaml") == EntryKind::kModel);
  EXPECT_EQ(Catalog::kind_of_path("/srv/hardware/notes/g.yaml"), EntryKind::kRecipe);
  // Outside a catalog folder the keys decide; a folder beats the keys.
  const std::string loose_model = dir.write("loose/m.yaml", "name: m\narchitecture: {hidden: 8}\n");
  EXPECT_EQ(builtin().check_file(loose_model).kind, EntryKind::kModel);
  const std::string loose_gpu = dir.write("loose/g.yaml", "name: g\npeak: {bf16: 1 TFLOP/s}\n");
  EXPECT_EQ(builtin().check_file(loose_gpu).kind, EntryKind::kHardware);
  const std::string foldered = dir.write("recipes/x.yaml", "name: x\narchitecture: {hidden: 8}\n");
  EXPECT_EQ(builtin().check_file(foldered).kind, EntryKind::kRecipe);
  const FileCheck missing = builtin().check_file(dir.path() + "/nope.yaml");
  ASSERT_EQ(missing.findings.size(), 1u);
  EXPECT_EQ(missing.findings[0].rule_id, "RB-FILE-READ");
}

// A model file that still gives dropout under `architecture.numerics` (it moved to the layout) gets
// the schema's unknown-key finding with a fix naming where it went, not a guess at a near key.
// Fails on the old code, whose fix was "did you mean ...?" or none.
TEST(Catalog, MovedNumericsDropoutSaysWhereItWent) {
  const std::string text =
      "name: Tiny\n"
      "source: test\n"
      "architecture:\n"
      "  hidden: 256\n"
      "  vocab: 1000\n"
      "  ffn: 512\n"
      "  attention: {heads: 4, kv_heads: 4, head_dim: 64}\n"
      "  layers: {count: 2}\n"
      "  numerics:\n"
      "    source: test\n"
      "    attention_dropout: 0.1\n"
      "    hidden_dropout: 0.1\n";
  const FileCheck fc = builtin().check_text(text, "tiny.yaml", EntryKind::kModel);
  EXPECT_FALSE(fc.model);
  std::vector<std::string> lines;
  for (const auto& d : fc.findings) lines.push_back(d.str());
  ASSERT_EQ(lines.size(), 2u) << ::testing::PrintToString(lines);
  EXPECT_THAT(lines[0], HasSubstr("tiny.yaml:11:5: error [RB-SCHEMA-UNKNOWN-KEY] unknown key 'attention_dropout'"));
  EXPECT_THAT(lines[0], HasSubstr("(fix: dropout moved to the layout: remove it here and give it as a recipe's "
                                  "`features.attention_dropout`, or `--attention-dropout`"));
  EXPECT_THAT(lines[1], HasSubstr("tiny.yaml:12:5: error [RB-SCHEMA-UNKNOWN-KEY] unknown key 'hidden_dropout'"));
  EXPECT_THAT(lines[1], HasSubstr("`features.hidden_dropout`, or `--hidden-dropout`"));
}

}  // namespace
}  // namespace rb
