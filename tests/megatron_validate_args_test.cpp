// Every pretrain_gpt.py command the Megatron-LM writer accepts for a built-in recipe, held to the
// cross-flag checks Megatron-LM runs on it before training: megatron/training/arguments.py
// validate_args and the config classes it builds (NVIDIA/Megatron-LM d98e8a64ddf3, the commit of
// entry_points.cpp's table). Each check below is transcribed from the line it cites; only checks
// that concern flags recipebook writes are here. A check that fails names the recipe and the line.
//   A = megatron/training/arguments.py, AU = megatron/training/argument_utils.py,
//   TC = megatron/core/transformer/transformer_config.py, MPC = megatron/core/model_parallel_config.py,
//   CG = megatron/core/transformer/cuda_graph_config.py
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/core/pipeline_layout.hpp"
#include "recipebook/emit/launch.hpp"
#include "recipebook/emit/launch_spec.hpp"
#include "recipebook/emit/launch_test_util.hpp"
#include "recipebook/rules/gpu_arch.hpp"

namespace rb {
namespace {

const Catalog& catalog() {
  static const Catalog c = *Catalog::load();
  return c;
}

// The words after pretrain_gpt.py as flag -> values (the values up to the next flag).
struct Args {
  std::map<std::string, std::vector<std::string>> v;
  explicit Args(const std::vector<std::string>& words) {
    std::string flag;
    for (size_t i = 1; i < words.size(); ++i) {
      const std::string& w = words[i];
      if (w.size() > 2 && w[0] == '-' && w[1] == '-') {
        flag = w;
        v[flag];
      } else if (!flag.empty()) {
        v[flag].push_back(w);
      }
    }
  }
  [[nodiscard]] bool has(const std::string& f) const { return v.count(f) > 0; }
  [[nodiscard]] std::string str(const std::string& f, const std::string& def = {}) const {
    auto it = v.find(f);
    return it == v.end() || it->second.empty() ? def : it->second.front();
  }
  [[nodiscard]] int64_t num(const std::string& f, int64_t def) const {
    const std::string s = str(f);
    return s.empty() ? def : std::stoll(s);
  }
  [[nodiscard]] double real(const std::string& f, double def) const {
    const std::string s = str(f);
    return s.empty() ? def : std::stod(s);
  }
  [[nodiscard]] bool has_value(const std::string& f, const std::string& value) const {
    auto it = v.find(f);
    return it != v.end() && std::find(it->second.begin(), it->second.end(), value) != it->second.end();
  }
};

// The script's `export KEY=value` lines, as the training processes see them (quotes removed).
using Env = std::map<std::string, std::string>;
Env exports_of(const std::string& script) {
  Env env;
  size_t at = 0;
  while ((at = script.find("\nexport ", at)) != std::string::npos) {
    at += 8;
    const size_t eq = script.find('=', at), nl = script.find('\n', at);
    if (eq == std::string::npos || eq > nl) continue;
    std::string v = script.substr(eq + 1, nl - eq - 1);
    if (v.size() >= 2 && (v.front() == '\'' || v.front() == '"') && v.back() == v.front()) v = v.substr(1, v.size() - 2);
    env[script.substr(at, eq - at)] = v;
  }
  return env;
}

std::string env_of(const Env& env, const std::string& key) {
  auto it = env.find(key);
  return it == env.end() ? std::string() : it->second;
}

// The violated checks, each as "<file>:<line> <what>".
std::vector<std::string> validate(const Args& a, const LaunchSpec& spec, const Env& env, const Model* m) {
  std::vector<std::string> bad;
  auto need = [&](bool ok, const char* where) {
    if (!ok) bad.emplace_back(where);
  };
  const int64_t tp = a.num("--tensor-model-parallel-size", 1), pp = a.num("--pipeline-model-parallel-size", 1),
                cp = a.num("--context-parallel-size", 1), ep = a.num("--expert-model-parallel-size", 1);
  const int64_t layers = a.num("--num-layers", 0), seq = a.num("--seq-length", 0);
  const bool fsdp = a.has("--use-megatron-fsdp"), dist_opt = a.has("--use-distributed-optimizer") || fsdp;
  const bool mla = a.has("--multi-latent-attention");
  const int64_t experts = a.num("--num-experts", 0), topk = a.num("--moe-router-topk", 2);

  // A:433 world size divisible by TP x PP x CP.
  need(spec.gpus % (tp * pp * cp) == 0, "A:433 world size % (TP*PP*CP) == 0");
  // A:1317 required arguments.
  for (const char* f : {"--num-layers", "--hidden-size", "--num-attention-heads", "--max-position-embeddings"})
    need(a.has(f), "A:1317 num_layers, hidden_size, num_attention_heads, max_position_embeddings are given");
  // A:933 at most one way to set VP.
  need(int(a.has("--num-layers-per-virtual-pipeline-stage")) + int(a.has("--num-virtual-stages-per-pipeline-rank")) +
               int(a.has("--pipeline-model-parallel-layout")) <=
           1,
       "A:933 one of --num-layers-per-virtual-pipeline-stage, --num-virtual-stages-per-pipeline-rank, "
       "--pipeline-model-parallel-layout");
  int64_t vp = 1;
  if (a.has("--pipeline-model-parallel-layout")) {
    auto stages = parse_pipeline_layout(a.str("--pipeline-model-parallel-layout"));
    need(stages.has_value(), "TC pipeline layout parses");
    if (stages) {
      const auto n = static_cast<int64_t>(stages->size());
      need(n % pp == 0, "A:946 layout stages % PP == 0");  // then VP = stages / PP
      vp = pp > 0 ? n / pp : 1;
    }
  } else if (a.has("--num-virtual-stages-per-pipeline-rank")) {
    vp = a.num("--num-virtual-stages-per-pipeline-rank", 1);
  } else if (!a.has("--decoder-first-pipeline-num-layers") && !a.has("--decoder-last-pipeline-num-layers")) {
    // A:998 even split of the decoder (plus embedding and loss when accounted) over PP.
    const int64_t n = layers + int(a.has("--account-for-embedding-in-pipeline-split")) +
                      int(a.has("--account-for-loss-in-pipeline-split"));
    need(n % pp == 0, "A:998 (num_layers + embedding + loss) % PP == 0");
  }
  // A:1003 interleaving needs PP > 1 (PP > 2 without the P2P overlap, which is on unless
  // --no-overlap-p2p-communication).
  if (vp > 1) need(pp > (a.has("--no-overlap-p2p-communication") ? 2 : 1), "A:1003 VP > 1 needs PP > 1");
  // A:1097 FP8 param gather needs the distributed optimizer or FSDP.
  if (a.has("--fp8-param-gather")) need(dist_opt, "A:1097 --fp8-param-gather needs the distributed optimizer");
  // A:1101, A:1105 FP4 and FP8 exclusive; FP4 param gather needs FP4.
  need(!(a.has("--fp4-format") && a.has("--fp8-format")), "A:1101 --fp4-format and --fp8-format exclusive");
  if (a.has("--fp4-param-gather")) need(a.has("--fp4-format"), "A:1105 --fp4-param-gather needs --fp4-format");
  // TC:1530 first/last layers in BF16 not with delayed scaling.
  if (a.has("--first-last-layers-bf16"))
    need(a.str("--fp8-recipe") != "delayed", "TC:1530 --first-last-layers-bf16 not with --fp8-recipe delayed");
  // A:1126 Megatron-FSDP v2 refuses the distributed optimizer (v1, the default, sets it).
  if (fsdp && a.num("--megatron-fsdp-version", 1) == 2)
    need(!a.has("--use-distributed-optimizer"), "A:1126 --megatron-fsdp-version 2 without --use-distributed-optimizer");
  // A:1170 Megatron-FSDP needs fsdp_dtensor checkpoints; A:1676 and only it uses them.
  if (fsdp) need(a.str("--ckpt-format") == "fsdp_dtensor", "A:1170 Megatron-FSDP needs --ckpt-format fsdp_dtensor");
  if (a.str("--ckpt-format") == "fsdp_dtensor") need(fsdp, "A:1676 fsdp_dtensor needs --use-megatron-fsdp");
  // CUDA graphs. CG:25 moves the deprecated scope full_iteration to --cuda-graph-impl full_iteration
  // (CG:109: only from none, local or full_iteration).
  std::string impl = a.str("--cuda-graph-impl", "none");
  std::vector<std::string> scopes;
  if (auto it = a.v.find("--cuda-graph-scope"); it != a.v.end()) scopes = it->second;
  if (std::find(scopes.begin(), scopes.end(), "full_iteration") != scopes.end()) {
    need(impl == "none" || impl == "local" || impl == "full_iteration", "CG:109 scope full_iteration with impl local");
    impl = "full_iteration";
    scopes.erase(std::remove(scopes.begin(), scopes.end(), "full_iteration"), scopes.end());
  }
  auto in_scope = [&](const char* s) { return std::find(scopes.begin(), scopes.end(), s) != scopes.end(); };
  if (impl == "full_iteration") {
    need(a.has("--no-check-for-nan-in-loss-and-grad"), "A:1237 full_iteration graphs need the NaN check off");
    need(scopes.empty(), "A:1971 full_iteration with no other --cuda-graph-modules");
  }
  if (impl == "transformer_engine" &&
      env_of(env, "PYTORCH_CUDA_ALLOC_CONF").find("expandable_segments:True") != std::string::npos)
    need(env_of(env, "NCCL_GRAPH_REGISTER") == "0", "A:1966 TE graphs with expandable segments need NCCL_GRAPH_REGISTER=0");
  if (impl == "local" || impl == "transformer_engine") {
    need(a.num("--cpu-offloading-num-layers", 0) == 0, "TC:2801 CUDA graphs not with CPU offloading");
    need(!(in_scope("moe") && in_scope("moe_router")), "TC:2820 not both moe and moe_router graphs");
    if (impl == "transformer_engine" && in_scope("moe_preprocess"))
      need(in_scope("moe_router"), "TC:2824 moe_preprocess graph needs moe_router");
    if (experts <= 1) need(!in_scope("moe") && !in_scope("moe_router"), "TC:2829 moe graphs only for MoE");
    if (experts > 1 && m != nullptr && m->count_layers(FfnKind::kDense) == 0)
      need(!in_scope("mlp"), "TC:2835 mlp graph needs dense layers");
    need(!in_scope("moe"), "TC:2844 moe graph only with drop-and-pad MoE (never written)");
    if (a.has("--recompute-granularity"))
      need(a.str("--recompute-granularity") == "selective", "TC:2858 full recompute only with full_iteration graphs");
    // TC:2883 graphed recompute of a module with dropout (Megatron-LM's default dropout is 0.1).
    if (a.str("--recompute-granularity") == "selective") {
      const bool full_graph = scopes.empty();
      if (a.real("--attention-dropout", 0.1) != 0.0 && a.has_value("--recompute-modules", "core_attn"))
        need(!full_graph && !in_scope("attn"), "TC:2883 attention dropout with graphed core_attn recompute");
      if (a.real("--hidden-dropout", 0.1) != 0.0) {
        if (a.has_value("--recompute-modules", "mlp"))
          need(!full_graph && !in_scope("mlp"), "TC:2899 hidden dropout with graphed mlp recompute");
        if (a.has_value("--recompute-modules", "moe"))
          need(!full_graph && !in_scope("moe"), "TC:2899 hidden dropout with graphed moe recompute");
      }
    }
  }
  // A:1337 CP needs seq % (2 CP) == 0; A:1354 positions cover the sequence; A:1360 min_lr <= lr.
  if (cp > 1) need(seq % (2 * cp) == 0, "A:1337 seq_length % (2*CP) == 0");
  need(a.num("--max-position-embeddings", 0) >= seq, "A:1354 max_position_embeddings >= seq_length");
  need(a.real("--min-lr", 0) <= a.real("--lr", 0), "A:1360 min_lr <= lr");
  // A:1332 without --kv-channels the hidden size splits over the heads.
  if (!a.has("--kv-channels") && !mla)
    need(a.num("--hidden-size", 0) % std::max<int64_t>(1, a.num("--num-attention-heads", 1)) == 0,
         "A:1332 hidden_size % num_attention_heads == 0");
  // A:1427 selective recompute takes no method.
  if (a.str("--recompute-granularity") == "selective")
    need(!a.has("--recompute-method"), "A:1427 selective recompute without --recompute-method");
  // A:1436 SP is turned off at TP 1 (MPC:504 would refuse it); A:1442 TP overlap needs SP.
  const bool sp = a.has("--sequence-parallel") && tp > 1;
  need(!(a.has("--sequence-parallel") && tp == 1), "A:1436 --sequence-parallel is dropped at TP 1 (not written)");
  if (a.has("--tp-comm-overlap")) need(sp, "A:1442 --tp-comm-overlap needs sequence parallelism");
  // A:1479 TP or CP before Blackwell needs CUDA_DEVICE_MAX_CONNECTIONS=1 (FSDP and EP overlap warn).
  if ((tp > 1 || cp > 1) && !fsdp && !a.has("--overlap-moe-expert-parallel-comm")) {
    auto hw = catalog().find_hardware(spec.gpu);
    const GpuArch arch = hw ? gpu_arch(*hw) : GpuArch::kUnknown;
    if (arch == GpuArch::kAmpere || arch == GpuArch::kHopper)
      need(env_of(env, "CUDA_DEVICE_MAX_CONNECTIONS") == "1", "A:1479 TP/CP before Blackwell: CUDA_DEVICE_MAX_CONNECTIONS=1");
  }
  // A:1656 and TC:1596 EP needs experts, a multiple of EP.
  if (ep > 1) need(experts > 0 && experts % ep == 0, "A:1656 --num-experts given and % EP == 0");
  // TC:1703 a MoE FFN size needs experts.
  if (a.has("--moe-ffn-hidden-size")) need(experts > 0, "TC:1703 --moe-ffn-hidden-size needs --num-experts");
  for (const char* f : {"--moe-router-score-function", "--moe-router-enable-expert-bias", "--moe-router-num-groups",
                        "--moe-token-dispatcher-type", "--moe-layer-freq", "--expert-tensor-parallel-size"})
    if (a.has(f) && experts == 0) bad.push_back(std::string("TC MoE flag without --num-experts: ") + f);
  // A:1682 one data source.
  need(int(a.has("--mock-data")) + int(a.has("--data-path")) <= 1, "A:1682 one of --mock-data, --data-path");
  // A:1886 optimizer CPU offload needs the precision-aware optimizer, and FP8 param gather delayed.
  if (a.has("--optimizer-cpu-offload")) {
    need(a.has("--use-precision-aware-optimizer"), "A:1886 --optimizer-cpu-offload needs --use-precision-aware-optimizer");
    if (a.has("--fp8-param-gather")) need(a.str("--fp8-recipe") == "delayed", "A:1891 CPU offload with FP8 param gather: delayed");
  }
  // A:1940 fine-grained activation offloading with TE >= 2.10 needs NVTE_CPU_OFFLOAD_V1=1.
  if (a.has("--fine-grained-activation-offloading"))
    need(env_of(env, "NVTE_CPU_OFFLOAD_V1") == "1", "A:1940 fine-grained offloading needs NVTE_CPU_OFFLOAD_V1=1");
  // A:884 (and A:1946) MTP only with rope or no position embedding.
  const std::string pos = a.str("--position-embedding-type", "learned_absolute");
  if (a.num("--mtp-num-layers", 0) > 0) need(pos == "rope" || pos == "none", "A:884 MTP needs rope or none positions");
  // A:1974 MLA excludes GQA.
  if (mla) need(!a.has("--group-query-attention"), "A:1974 MLA excludes --group-query-attention");
  // AU:340 --rope-type other than rope only with MLA; TC:3346 MLA's fused RoPE only with YaRN.
  if (a.has("--rope-type") && !mla) need(a.str("--rope-type") == "rope", "AU:340 --rope-type yarn needs MLA");
  if (mla && !a.has("--no-rope-fusion")) need(a.str("--rope-type", "yarn") == "yarn", "TC:3346 MLA rope fusion needs yarn");
  // TC:2622 the expert bias needs a sigmoid (or sqrtsoftplus) score.
  const std::string score = a.str("--moe-router-score-function", "softmax");
  if (a.has("--moe-router-enable-expert-bias"))
    need(score == "sigmoid" || score == "sqrtsoftplus", "TC:2622 expert bias needs a sigmoid score");
  // TC:2669 a top-1 softmax router needs pre-softmax.
  if (experts > 0 && topk == 1 && score == "softmax")
    need(a.has("--moe-router-pre-softmax"), "TC:2669 top-1 softmax needs --moe-router-pre-softmax");
  // TC:2679 group-limited routing: groups given, dividing the experts, group top-k within them.
  if (a.has("--moe-router-group-topk")) {
    const int64_t g = a.num("--moe-router-num-groups", 0);
    need(g > 0, "TC:2679 --moe-router-group-topk needs --moe-router-num-groups");
    if (g > 0) {
      need(experts % g == 0, "TC:2683 experts % groups == 0");
      need(a.num("--moe-router-group-topk", 0) <= g, "TC:2687 group top-k <= groups");
    }
  }
  return bad;
}

TEST(MegatronValidateArgs, EveryAcceptedRecipeCommandPassesValidateArgs) {
  int accepted = 0, moe = 0, tp1_overlap = 0;
  for (const auto& e : catalog().recipes()) {
    SpecRequest req;
    req.source = e.recipe.name;
    if (e.recipe.gpus <= 0) req.gpus = 8;
    req.framework = "megatron-lm";
    req.mode = "pretrain";  // pretrain_gpt.py pretrains only (check_megatron_mode): each record's layout, pretrained
    std::vector<std::string> notes;
    auto spec = build_launch_spec(req, catalog(), notes);
    if (!spec) continue;
    auto script = render_megatron(*spec);
    if (!script) continue;  // the writer refuses it (no layout, a hybrid model, ...)
    const auto words = test::array_words(*script, "TRAIN_ARGS");
    ASSERT_FALSE(words.empty()) << e.recipe.name;
    // A model without flags (MODEL_ARGS for the user to fill) is not a command that runs as written.
    if (std::find(words.begin(), words.end(), "\"${MODEL_ARGS[@]}\"") != words.end()) continue;
    const Args a(words);
    const Model* m = spec->model_ir ? &*spec->model_ir : nullptr;
    for (const auto& why : validate(a, *spec, exports_of(*script), m)) ADD_FAILURE() << e.recipe.name << ": " << why;
    ++accepted;
    if (a.has("--num-experts")) ++moe;
    if (spec->layout.tp == 1 && spec->layout.tp_comm_overlap) ++tp1_overlap;
  }
  EXPECT_GT(accepted, 300);  // the walk reached the catalog
  EXPECT_GT(moe, 50);
  EXPECT_GT(tp1_overlap, 0);  // layouts with TP overlap at TP 1 (Qwen3-30B-A3B's) were among them
}

}  // namespace
}  // namespace rb
