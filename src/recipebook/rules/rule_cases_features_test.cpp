// Per-rule cases, second half: CUDA graphs, recompute, offload, precision, FSDP, CP settings,
// pitfalls and record facts (rule_cases_test.cpp runs them with the first half).
#include "recipebook/rules/rule_cases.hpp"

namespace rb::testing {
namespace {

constexpr bool kBad = true;
constexpr bool kOk = false;

}  // namespace

void add_feature_cases(std::vector<RuleCase>& v) {
  const auto add = [&](const char* id, bool bad, RuleInput in, const char* note = "", bool clean = true) {
    v.push_back({id, bad, std::move(in), note, clean});
  };
  // ---- CUDA graphs ----
  add("RB-CUDA-GRAPH-RNG", kBad, In(llama3_8b(), h100(), 8).graph(CudaGraph::kFullIteration).rng(false).done(),
      "no TE RNG tracker");
  add("RB-CUDA-GRAPH-RNG", kOk, In(llama3_8b(), h100(), 8).graph(CudaGraph::kFullIteration).done(), "tracker on");

  add("RB-CUDA-GRAPH-LOCAL-SCOPE", kBad, In(llama3_8b(), h100(), 8).graph(CudaGraph::kLocal, kCgAttn).done(),
      "local with [attn]");
  add("RB-CUDA-GRAPH-LOCAL-SCOPE", kOk,
      In(llama3_8b(), h100(), 8).graph(CudaGraph::kTransformerEngine, kCgAttn).done(), "TE with [attn]");

  add("RB-CUDA-GRAPH-SCOPE", kBad,
      In(llama3_8b(), h100(), 8).graph(CudaGraph::kTransformerEngine, kCgAttn | kCgMoeRouter).done(),
      "moe_router on a dense model");
  add("RB-CUDA-GRAPH-SCOPE", kOk, In(llama3_8b(), h100(), 8).graph(CudaGraph::kTransformerEngine, kCgAttn).done(),
      "[attn]");
  add("RB-CUDA-GRAPH-SCOPE", kBad,
      In(qwen3_30b_a3b(), b200(), 8).ep(8).graph(CudaGraph::kTransformerEngine, kCgMoe | kCgMoeRouter).done(),
      "moe with moe_router");
  add("RB-CUDA-GRAPH-SCOPE", kBad,
      In(qwen3_30b_a3b(), b200(), 8).ep(8).graph(CudaGraph::kTransformerEngine, kCgMoePreprocess).done(),
      "moe_preprocess alone");
  add("RB-CUDA-GRAPH-SCOPE", kBad,
      In(qwen3_30b_a3b(), b200(), 8).ep(8).graph(CudaGraph::kTransformerEngine, kCgMlp).done(),
      "mlp without dense layers");
  add("RB-CUDA-GRAPH-SCOPE", kOk,
      In(qwen3_30b_a3b(), b200(), 8).ep(8).graph(CudaGraph::kTransformerEngine,
                                                 kCgAttn | kCgMoeRouter | kCgMoePreprocess).done(),
      "the Qwen3 perf scope");
  add("RB-CUDA-GRAPH-SCOPE", kOk,
      In(qwen3_30b_a3b(), b200(), 8).ep(8).graph(CudaGraph::kTransformerEngine, kCgMoe)
          .set("moe_pad_expert_input_to_capacity", "true").done(),
      "moe graph with drop-and-pad");

  add("RB-CUDA-GRAPH-FULL-RECOMPUTE", kBad,
      In(llama3_8b(), h100(), 8).graph(CudaGraph::kTransformerEngine, kCgAttn).recompute(Recompute::kFull, 0, 1)
          .done(),
      "full recompute + TE graphs");
  add("RB-CUDA-GRAPH-FULL-RECOMPUTE", kOk,
      In(llama3_8b(), h100(), 8).graph(CudaGraph::kFullIteration).recompute(Recompute::kFull, 0, 1).done(),
      "full-iteration graphs");

  add("RB-CUDA-GRAPH-RECOMPUTE-MOE", kBad,
      In(qwen3_30b_a3b(), b200(), 8).ep(8)
          .graph(CudaGraph::kTransformerEngine, kCgAttn | kCgMoeRouter | kCgMoePreprocess)
          .recompute(Recompute::kSelective, kRcMoe).done(),
      "moe recompute + moe_router graph");
  add("RB-CUDA-GRAPH-RECOMPUTE-MOE", kOk,
      In(qwen3_30b_a3b(), b200(), 8).ep(8)
          .graph(CudaGraph::kTransformerEngine, kCgAttn | kCgMoeRouter | kCgMoePreprocess)
          .recompute(Recompute::kSelective, kRcMoeAct).done(),
      "moe_act recompute");

  add("RB-CUDA-GRAPH-OFFLOAD", kBad,
      In(llama3_8b(), h100(), 8).graph(CudaGraph::kTransformerEngine, kCgAttn).offload(4).done(), "TE + offload");
  add("RB-CUDA-GRAPH-OFFLOAD", kOk, In(llama3_8b(), h100(), 8).graph(CudaGraph::kFullIteration).offload(4).done(),
      "full iteration + offload");

  add("RB-CUDA-GRAPH-PACKED", kBad,
      In(llama3_8b(), h100(), 8).mode(Mode::kSft).graph(CudaGraph::kTransformerEngine, kCgAttn)
          .with([](RecordFacts& f) { f.packed_sequences = true; }).done(),
      "packed + TE graphs");
  add("RB-CUDA-GRAPH-PACKED", kOk,
      In(llama3_8b(), h100(), 8).mode(Mode::kSft).graph(CudaGraph::kTransformerEngine, kCgAttn).done(),
      "not packed");

  add("RB-CUDA-GRAPH-NAN-CHECK", kBad,
      In(llama3_8b(), h100(), 8).graph(CudaGraph::kFullIteration).set("check_for_nan_in_loss", "true").done(),
      "NaN check on");
  add("RB-CUDA-GRAPH-NAN-CHECK", kOk,
      In(llama3_8b(), h100(), 8).graph(CudaGraph::kFullIteration).set("check_for_nan_in_loss", "false").done(),
      "NaN check off");

  // ---- recompute, offload, precision, FSDP, CP settings ----
  add("RB-RECOMPUTE-MODULE", kBad, In(llama3_8b(), h100(), 8).recompute(Recompute::kSelective, kRcMlaUpProj).done(),
      "mla_up_proj on GQA");
  add("RB-RECOMPUTE-MODULE", kOk, In(llama3_8b(), h100(), 8).recompute(Recompute::kSelective, kRcCoreAttn).done(),
      "core_attn");
  add("RB-RECOMPUTE-MODULE", kBad,
      In(llama3_8b(), h100(), 8).recompute(Recompute::kSelective, kRcGdnNormOut | kRcMoeAct).done(),
      "gdn_norm_out and moe_act on a dense GQA model");

  add("RB-RECOMPUTE-LAYERS", kBad, In(llama3_8b(), h100(), 8).recompute(Recompute::kFull, 0, 40).done(), "40 > 32");
  add("RB-RECOMPUTE-LAYERS", kOk, In(llama3_8b(), h100(), 8).recompute(Recompute::kFull, 0, 4).done(), "4");

  add("RB-RECOMPUTE-FP8-DS", kBad,
      In(qwen3_30b_a3b(), b200(), 8).ep(8).precision(Precision::kFp8Ds).recompute(Recompute::kSelective, kRcMoeAct)
          .done(),
      "fp8_ds + moe_act");
  add("RB-RECOMPUTE-FP8-DS", kOk,
      In(qwen3_30b_a3b(), b200(), 8).ep(8).precision(Precision::kFp8Cs).recompute(Recompute::kSelective, kRcMoeAct)
          .done(),
      "fp8_cs");

  add("RB-OFFLOAD-PP", kBad, In(llama3_8b(), h100(), 16).pp(2).vp(2).offload(4).done(), "PP 2");
  add("RB-OFFLOAD-PP", kOk, In(llama3_8b(), h100(), 16).offload(4).done(), "PP 1");

  add("RB-OFFLOAD-RECOMPUTE", kBad, In(llama3_8b(), h100(), 8).offload(4).recompute(Recompute::kSelective).done(),
      "with recompute");
  add("RB-OFFLOAD-RECOMPUTE", kOk, In(llama3_8b(), h100(), 8).offload(4).done(), "no recompute");

  add("RB-OFFLOAD-LAYERS", kBad, In(llama3_8b(), h100(), 8).offload(32).done(), "all 32 layers");
  add("RB-OFFLOAD-LAYERS", kOk, In(llama3_8b(), h100(), 8).offload(31).done(), "31 layers");

  add("RB-DISTRIBUTE-SAVED-SP", kBad,
      In(llama3_8b(), h100(), 8).tp(2).sp().set("distribute_saved_activations", "true").done(), "with SP");
  add("RB-DISTRIBUTE-SAVED-SP", kOk,
      In(llama3_8b(), h100(), 8).tp(2).sp().set("distribute_saved_activations", "false").done(), "off");

  add("RB-FINE-GRAINED-OFFLOAD", kBad,
      In(llama3_8b(), h100(), 8).set("fine_grained_activation_offloading", "true").set("offload_modules", "[attn_proj]")
          .done(),
      "attn_proj without core_attn");
  add("RB-FINE-GRAINED-OFFLOAD", kOk,
      In(llama3_8b(), h100(), 8).set("fine_grained_activation_offloading", "true")
          .set("offload_modules", "[core_attn, attn_proj]").done(),
      "with core_attn");

  add("RB-FINE-GRAINED-OFFLOAD", kBad, In(llama3_8b(), h100(), 8).act_offload(kOfAttnProj).done(),
      "layout: attn_proj without core_attn");
  add("RB-FINE-GRAINED-OFFLOAD", kBad,
      In(qwen3_30b_a3b(), b200(), 8).ep(8).act_offload(kOfExpertFc1).recompute(Recompute::kSelective, kRcMoe).done(),
      "layout: expert_fc1 while 'moe' is recomputed");
  add("RB-FINE-GRAINED-OFFLOAD", kOk, In(llama3_8b(), h100(), 8).act_offload(kOfCoreAttn | kOfAttnProj).done(),
      "layout: attn_proj with core_attn");

  add("RB-OFFLOAD-FRACTION", kBad, In(llama3_8b(), h100(), 8).opt_offload(1.5).done(), "optimizer 1.5");
  add("RB-OFFLOAD-FRACTION", kBad, In(llama3_8b(), h100(), 8).act_offload(kOfCoreAttn, -0.5).done(),
      "activations -0.5");
  add("RB-OFFLOAD-FRACTION", kOk, In(llama3_8b(), h100(), 8).opt_offload(1.0).done(), "1.0");

  add("RB-OPTIMIZER-OFFLOAD", kBad, In(llama3_8b(), h100(), 8).fsdp().opt_offload(1.0).done(), "with Megatron-FSDP");
  add("RB-OPTIMIZER-OFFLOAD", kBad, In(llama3_8b(), h100(), 8).precision(Precision::kFp8Cs).opt_offload(1.0).done(),
      "FP8 current scaling gathers FP8 parameters");
  add("RB-OPTIMIZER-OFFLOAD", kOk, In(llama3_8b(), h100(), 8).precision(Precision::kFp8Ds).opt_offload(1.0).done(),
      "FP8 delayed scaling, distributed optimizer");

  add("RB-OFFLOAD-HOST", kBad, In(llama3_8b(), mi300x(), 8).opt_offload(0.5).done(), "MI300X: no host figures");
  add("RB-OFFLOAD-HOST", kOk, In(llama3_8b(), h100(), 8).opt_offload(0.5).done(), "H100: PCIe Gen5, 2 TB");

  add("RB-OPTIMIZER-INSTANCES", kBad, In(llama3_8b(), h100(), 16).fsdp().instances(3).done(), "HSDP 3 on DP 16");
  add("RB-OPTIMIZER-INSTANCES", kBad, In(llama3_8b(), h100(), 16).dist_opt(false).instances(2).done(),
      "2 instances without the distributed optimizer");
  add("RB-OPTIMIZER-INSTANCES", kOk, In(llama3_8b(), h100(), 16).fsdp().instances(2).done(), "HSDP 2 x 8");
  add("RB-OPTIMIZER-INSTANCES", kOk, In(llama3_8b(), h100(), 16).instances(2).done(),
      "partial distributed optimizer, 2 x 8");

  add("RB-FP8-GPU", kBad, In(llama3_8b(), a100(), 8).precision(Precision::kFp8Cs).done(), "FP8 on A100");
  add("RB-FP8-GPU", kOk, In(llama3_8b(), a100(), 8).done(), "bf16 on A100");
  add("RB-FP8-GPU", kBad, In(llama3_8b(), h100(), 8).precision(Precision::kMxfp8).done(), "MXFP8 on H100");
  add("RB-FP8-GPU", kOk, In(llama3_8b(), b200(), 8).precision(Precision::kNvfp4).done(), "NVFP4 on B200");
  add("RB-FP8-GPU", kOk, In(llama3_8b(), mi300x(), 8).precision(Precision::kFp8Cs).done(), "FP8 on MI300X");
  add("RB-FP8-GPU", kBad, In(llama3_8b(), h100(), 8).precision(Precision::kFp8Cs).mxfp8_modules(kGmMlp).done(),
      "FP8 CS with the MLP in MXFP8 on H100");
  add("RB-FP8-GPU", kOk, In(llama3_8b(), b200(), 8).precision(Precision::kFp8Cs).mxfp8_modules(kGmMlp).done(),
      "FP8 CS with the MLP in MXFP8 on B200");

  add("RB-FP8-BF16-LAYERS", kBad,
      In(llama3_8b(), h100(), 8).precision(Precision::kFp8Ds).set("first_last_layers_bf16", "true").done(),
      "delayed scaling");
  add("RB-FP8-BF16-LAYERS", kOk,
      In(llama3_8b(), h100(), 8).precision(Precision::kFp8Cs).set("first_last_layers_bf16", "true").done(),
      "current scaling");
  add("RB-FP8-BF16-LAYERS", kBad,
      In(llama3_8b(), h100(), 16).pp(4).vp(2).precision(Precision::kFp8Cs).gbs(64)
          .set("num_layers_at_end_in_bf16", "14").done(),
      "14 BF16 layers > 8 per stage");

  add("RB-FP8-PARAM", kBad, In(llama3_8b(), h100(), 8).set("fp8_param_gather", "true").done(), "bf16");
  add("RB-FP8-PARAM", kOk,
      In(llama3_8b(), h100(), 8).precision(Precision::kFp8Cs).set("fp8_param_gather", "true").done(), "fp8_cs");

  add("RB-MXFP8-PARAM-GATHER", kBad,
      In(llama3_8b(), b200(), 8).precision(Precision::kMxfp8).set("reuse_grad_buf_for_mxfp8_param_ag", "false").done(),
      "reuse off");
  add("RB-MXFP8-PARAM-GATHER", kOk,
      In(llama3_8b(), b200(), 8).precision(Precision::kMxfp8).set("reuse_grad_buf_for_mxfp8_param_ag", "true").done(),
      "reuse on");

  add("RB-FSDP-V2", kBad,
      In(llama3_8b(), b200(), 8).fsdp().precision(Precision::kFp8Cs).with([](RecordFacts& f) { f.fsdp_version = 2; })
          .done(),
      "v2 with FP8");
  add("RB-FSDP-V2", kOk, In(llama3_8b(), b200(), 8).fsdp().with([](RecordFacts& f) { f.fsdp_version = 2; }).done(),
      "v2 with bf16");

  add("RB-FSDP-EXCLUSIVE", kBad, In(llama3_8b(), b200(), 8).fsdp().set("use_torch_fsdp2", "true").done(), "both");
  add("RB-MUON-FSDP", kBad, In(llama3_8b(), b200(), 8).fsdp().optimizer(Optimizer::kMuon).done(), "Muon + FSDP");
  add("RB-MUON-FSDP", kOk, In(llama3_8b(), b200(), 8).optimizer(Optimizer::kMuon).done(), "Muon with DDP");
  add("RB-FSDP-EXCLUSIVE", kOk, In(llama3_8b(), b200(), 8).fsdp().set("use_torch_fsdp2", "false").done(), "one");

  add("RB-FSDP-CONNECTIONS", kBad, In(llama3_8b(), b200(), 8).fsdp().env("CUDA_DEVICE_MAX_CONNECTIONS", "1").done(),
      "=1");
  add("RB-FSDP-CONNECTIONS", kOk, In(llama3_8b(), b200(), 8).fsdp().env("CUDA_DEVICE_MAX_CONNECTIONS", "8").done(),
      "=8");

  add("RB-CP-COMM-TYPE", kBad,
      In(llama3_8b(), h100(), 8).cp(4).seq(16384).gbs(32).set("cp_comm_type", "a2a+p2p").done(),
      "a2a+p2p without hierarchical sizes");
  add("RB-CP-COMM-TYPE", kOk,
      In(llama3_8b(), h100(), 8).cp(4).seq(16384).gbs(32).set("cp_comm_type", "a2a+p2p")
          .set("hierarchical_context_parallel_sizes", "[2, 2]").done(),
      "hierarchical [2, 2]");
  add("RB-CP-COMM-TYPE", kBad,
      In(llama3_8b(), h100(), 8).cp(4).seq(16384).gbs(32).set("cp_comm_type", "ring").done(), "unknown type");

  add("RB-CP-A2A-HEADS", kBad,
      In(llama3_8b(), h100(), 16).tp(4).sp().cp(4).cp_comm(CpComm::kA2a).seq(16384).gbs(16).done(),
      "2 KV heads per TP rank, CP 4");
  add("RB-CP-A2A-HEADS", kOk,
      In(llama3_8b(), h100(), 16).tp(4).sp().cp(2).cp_comm(CpComm::kA2a).seq(16384).gbs(16).done(), "CP 2");

  add("RB-CP-SFT-LOSS", kBad,
      In(llama3_8b(), h100(), 8).mode(Mode::kSft).cp(2).seq(8192).set("calculate_per_token_loss", "false").done(),
      "per-token loss off");
  add("RB-CP-SFT-LOSS", kOk,
      In(llama3_8b(), h100(), 8).mode(Mode::kSft).cp(2).seq(8192).set("calculate_per_token_loss", "true").done(),
      "per-token loss on");

  // ---- pitfalls ----
  add("RB-TP-KV-REPLICATED", kBad, In(qwen35_35b_a3b(), b200(), 8).tp(4).sp().ep(8).done(), "TP 4 vs 2 KV heads");
  add("RB-TP-KV-REPLICATED", kOk, In(qwen35_35b_a3b(), b200(), 8).tp(2).sp().ep(8).done(), "TP 2");

  add("RB-TP-CROSS-NODE", kBad, In(gemma3_27b(), h100(), 16).tp(16).sp().gbs(16).done(), "TP 16 on HGX");
  add("RB-TP-CROSS-NODE", kOk, In(gemma3_27b(), h100(), 16).tp(8).sp().gbs(16).done(), "TP 8");
  add("RB-TP-CROSS-NODE", kOk, In(gemma3_27b(), gb200(), 16).tp(16).sp().gbs(16).done(), "TP 16 on NVL72");

  add("RB-SP-RECOMMENDED", kBad, In(llama3_8b(), h100(), 8).tp(2).done(), "TP 2 without SP");
  add("RB-SP-RECOMMENDED", kOk, In(llama3_8b(), h100(), 8).tp(2).sp().done(), "with SP");

  add("RB-TP-COMM-OVERLAP", kBad, In(llama3_8b(), h100(), 8).tp(2).tp_overlap().done(), "TP 2 without SP");
  add("RB-TP-COMM-OVERLAP", kOk, In(llama3_8b(), h100(), 8).tp(2).sp().tp_overlap().done(), "TP 2 with SP");
  add("RB-TP-COMM-OVERLAP", kOk, In(llama3_8b(), h100(), 8).tp_overlap().done(), "TP 1: moot, not reported");
  add("RB-TP-COMM-OVERLAP", kOk, In(qwen3_30b_a3b(), b200(), 8).tp(2).ep(4).tp_overlap().done(),
      "MoE: RB-SP-REQUIRED reports it", false);

  add("RB-PP-NO-VP", kBad, In(llama3_8b(), h100(), 16).pp(2).done(), "PP 2, VP 1");
  add("RB-PP-NO-VP", kOk, In(llama3_8b(), h100(), 16).pp(2).vp(2).done(), "VP 2");
  add("RB-PP-NO-VP", kOk, In(llama3_8b(), h100(), 24).pp(2).gbs(12 * 3).done(), "M 3 not a multiple of PP: no VP");

  add("RB-LONG-CONTEXT-NO-CP", kBad, In(llama3_8b(), h100(), 8).seq(16384).gbs(32).done(), "16K, CP 1");
  add("RB-LONG-CONTEXT-NO-CP", kOk, In(llama3_8b(), h100(), 8).seq(16384).cp(2).gbs(32).done(), "CP 2");

  add("RB-EP-TOO-LOW", kBad, In(qwen3_30b_a3b(), b200(), 8).done(), "EP 1 for 128 experts");
  add("RB-EP-TOO-LOW", kOk, In(qwen3_30b_a3b(), b200(), 8).ep(2).done(), "EP 2");
  // The gradients as the memory estimate holds them: at EP 8 on 8 H100, BF16 main gradients leave
  // 54 GiB of expert state (68%), FP32 ones 61 GiB (76%). The rule counted FP32 whatever the layout.
  add("RB-EP-TOO-LOW", kOk, In(qwen3_30b_a3b(), h100(), 8).ep(8).done(), "EP 8, BF16 gradients: 68%");
  add("RB-EP-TOO-LOW", kBad, In(qwen3_30b_a3b(), h100(), 8).ep(8).fp32_grads().done(), "EP 8, FP32 gradients: 76%");

  add("RB-FSDP-TP-H100", kBad, In(llama3_8b(), h100(), 8).fsdp().tp(4).sp().done(), "FSDP TP 4 on H100");
  add("RB-FSDP-TP-H100", kOk, In(llama3_8b(), h100(), 8).fsdp().tp(2).sp().done(), "FSDP TP 2");

  add("RB-MOE-OVERLAP-GRAD-H100", kBad,
      In(qwen3_30b_a3b(), h100(), 16).ep(16).set("overlap_grad_reduce", "true").done(), "on");
  add("RB-MOE-OVERLAP-GRAD-H100", kOk,
      In(qwen3_30b_a3b(), h100(), 16).ep(16).set("overlap_grad_reduce", "false").done(), "off");

  add("RB-QWEN35-VL-FSDP-H100", kBad, In(qwen35_35b_a3b(), h100(), 16).ep(16).fsdp().done(), "H100");
  add("RB-QWEN35-VL-FSDP-H100", kOk, In(qwen35_35b_a3b(), b200(), 16).ep(16).fsdp().done(), "B200");

  // ---- record pitfalls ----
  add("RB-VLM-NO-IMAGES", kBad,
      In(qwen35_35b_a3b(), b200(), 8).ep(8).mode(Mode::kSft).with([](RecordFacts& f) {
        f.name = "invalid_qwen35_vl_sft_text_data";
        f.dataset = "squad";
      }).done(),
      "a VL recipe on SQuAD");
  add("RB-VLM-NO-IMAGES", kOk,
      In(qwen35_35b_a3b(), b200(), 8).ep(8).mode(Mode::kSft).with([](RecordFacts& f) {
        f.name = "qwen35_vl_sft_energon";
        f.dataset = "energon";
      }).done(),
      "Energon");
  add("RB-VLM-NO-IMAGES", kOk,
      In(qwen35_35b_a3b(), b200(), 8).ep(8).mode(Mode::kSft).with([](RecordFacts& f) { f.dataset = "squad"; }).done(),
      "text SFT of the language model (seed 002 style) is not a VLM recipe");

  const auto seed000 = [](const Model& m, const Hardware& hw) {
    return In(m, hw, 8).ep(4).mbs(4).gbs(2048).precision(Precision::kMxfp8);
  };
  add("RB-VISION-GRAPH-CAP", kBad,
      seed000(qwen35_35b_a3b(), gb300()).with([](RecordFacts& f) {
        f.vision.max_pixels = 401408;
        f.vision.cuda_graph_max_patches = 3712;
      }).done(),
      "twice the measured image budget");
  add("RB-VISION-GRAPH-CAP", kOk,
      seed000(qwen35_35b_a3b(), gb300()).with([](RecordFacts& f) {
        f.vision.max_pixels = 200704;
        f.vision.cuda_graph_max_patches = 3712;
      }).done(),
      "seed 000's budget");
  // The budget as estimate takes it (--max-pixels, --vision-graph-patches), without record facts.
  add("RB-VISION-GRAPH-CAP", kBad, seed000(qwen35_35b_a3b(), gb300()).image(401408, 3712).done(),
      "twice the measured budget, from the workload");
  // smart_resize rounds each side to a multiple of patch x merge (32): 238,000 pixels give at most
  // 232 merge units (928 patches) per image, 3,712 at MBS 4: exactly the cap, not above it.
  add("RB-VISION-GRAPH-CAP", kOk,
      seed000(qwen35_35b_a3b(), gb300()).with([](RecordFacts& f) {
        f.vision.max_pixels = 238000;
        f.vision.cuda_graph_max_patches = 3712;
      }).done(),
      "a budget whose rounded images fill the cap exactly");

  add("RB-ENV-AT-IMPORT", kBad,
      seed000(qwen35_35b_a3b(), gb300()).with([](RecordFacts& f) {
        f.framework = "megatron-lm";
        f.env_gates.push_back({"NVTE_CUTEDSL_FUSED_GROUPED_MLP", "1"});
      }).done(),
      "megatron-lm, not exported");
  add("RB-ENV-AT-IMPORT", kOk,
      seed000(qwen35_35b_a3b(), gb300()).with([](RecordFacts& f) {
        f.framework = "megatron-lm";
        f.env_gates.push_back({"NVTE_CUTEDSL_FUSED_GROUPED_MLP", "1"});
        f.env.push_back({"NVTE_CUTEDSL_FUSED_GROUPED_MLP", "1"});
      }).done(),
      "exported");
  add("RB-ENV-AT-IMPORT", kOk,
      seed000(qwen35_35b_a3b(), gb300()).with([](RecordFacts& f) {
        f.framework = "megatron-bridge";
        f.env_gates.push_back({"NVTE_CUTEDSL_FUSED_GROUPED_MLP", "1"});
      }).done(),
      "run_recipe.py sets it");

  add("RB-KERNEL-BACKEND-MCORE", kBad,
      seed000(qwen35_35b_a3b(), gb300()).with([](RecordFacts& f) { f.kernels.push_back("cudnn_gdn"); }).done(),
      "unpinned stack");
  add("RB-KERNEL-BACKEND-MCORE", kOk,
      seed000(qwen35_35b_a3b(), gb300()).with([](RecordFacts& f) {
        f.kernels.push_back("cudnn_gdn");
        f.stack.megatron_core = "commit 0123abcd (megatron-core 0.17.0)";
        f.stack.transformer_engine = "2.20.2";
      }).done(),
      "pinned");
  add("RB-KERNEL-BACKEND-MCORE", kBad,
      seed000(qwen35_35b_a3b(), gb300()).with([](RecordFacts& f) {
        f.kernels.push_back("cudnn_gdn");
        f.stack.megatron_core = "commit 0123abcd (megatron-core 0.17.0)";
        f.stack.transformer_engine = "2.10.0";
      }).done(),
      "TE 2.10");

  add("RB-FLA-BLACKWELL-GUARD", kBad,
      In(qwen35_35b_a3b(), b200(), 8).ep(8).with([](RecordFacts& f) {
        f.stack.fla = "0.4.1 (flash-linear-attention)";
        f.stack.triton = "3.6.0";
      }).done(),
      "no guard patch");
  add("RB-FLA-BLACKWELL-GUARD", kOk,
      In(qwen35_35b_a3b(), b200(), 8).ep(8).with([](RecordFacts& f) {
        f.stack.fla = "0.4.1 (flash-linear-attention)";
        f.stack.triton = "3.6.0";
        f.patches.push_back("patches/fla_blackwell_guard.py");
      }).done(),
      "guard patch");
  add("RB-FLA-BLACKWELL-GUARD", kOk,
      In(qwen35_35b_a3b(), h100(), 16).ep(16).with([](RecordFacts& f) {
        f.stack.fla = "0.4.1";
        f.stack.triton = "3.6.0";
      }).done(),
      "Hopper");

  add("RB-RECIPE-NAME-COLLISION", kBad,
      seed000(qwen35_35b_a3b(), gb300()).with([](RecordFacts& f) {
        f.name = "invalid_qwen35_vl_35b_a3b_fp8mx_library";
        f.entry_point = "qwen35_vl_35b_a3b_pretrain_8gpu_gb300_fp8mx_config";
        f.catalog.push_back({"qwen35_vl_35b_a3b_pretrain_8gpu_gb300_fp8mx_config",
                             "qwen35_vl_35b_a3b_pretrain_8gpu_gb300_fp8mx_config", "performance"});
      }).done(),
      "entry point is a perf recipe's name");
  add("RB-RECIPE-NAME-COLLISION", kOk,
      seed000(qwen35_35b_a3b(), gb300()).with([](RecordFacts& f) {
        f.name = "measured_run";
        f.entry_point = "qwen35_vl_35b_a3b_pretrain_8gpu_gb300_fp8mx_config";
        f.extends_chain.push_back("qwen35_vl_35b_a3b_pretrain_8gpu_gb300_fp8mx_config");
        f.catalog.push_back({"qwen35_vl_35b_a3b_pretrain_8gpu_gb300_fp8mx_config",
                             "qwen35_vl_35b_a3b_pretrain_8gpu_gb300_fp8mx_config", "performance"});
      }).done(),
      "extends that recipe");

  add("RB-NCCL-GRAPH-REGISTER", kBad,
      In(llama3_8b(), h100(), 8).graph(CudaGraph::kFullIteration)
          .env("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True").done(),
      "no NCCL_GRAPH_REGISTER");
  add("RB-NCCL-GRAPH-REGISTER", kOk,
      In(llama3_8b(), h100(), 8).graph(CudaGraph::kFullIteration)
          .env("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True").env("NCCL_GRAPH_REGISTER", "0").done(),
      "=0");
}

}  // namespace rb::testing
