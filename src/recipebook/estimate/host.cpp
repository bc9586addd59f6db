#include "recipebook/estimate/host.hpp"

#include <algorithm>

namespace rb {
namespace {

// Calls per sub-block and forward (Megatron-Core's TE layer spec, transformer_layer.py):
// - attention: TELayerNormColumnParallelLinear (QKV), TEDotProductAttention, TERowParallelLinear
//   (projection): 3 TE modules; the QKV split, RoPE on Q and on K, the bias-dropout-add: 4 ops;
// - dense MLP or shared experts: TELayerNormColumnParallelLinear (FC1), TERowParallelLinear (FC2): 2
//   modules; the activation and the bias-dropout-add: 2 ops.
constexpr double kMixerModules = 3, kMixerOps = 4;
constexpr double kMlpModules = 2, kMlpOps = 2;
// A routed-MoE layer (moe_layer.py, router.py, token_dispatcher.py): the pre-MLP TENorm and the two
// TEGroupedLinear (FC1, FC2): 3 modules; the router (gating GEMM, top-k, score function, the
// load-balancing/forced-routing step: 4 ops), the dispatcher (preprocess and permute 2, dispatch,
// combine, unpermute: 5 ops), the activation and the bias-dropout-add (2): 11 ops; of them
// `moe_router` captures the router's 4 and `moe_preprocess` the preprocess's 2 (CUDA graph scopes).
constexpr double kMoeModules = 3, kMoeOps = 11, kRouterOps = 4, kPreprocessOps = 2;
// TE's grouped GEMM launches one GEMM per local expert (general_grouped_gemm): per grouped linear,
// forward 1 GEMM and backward 2 (dgrad, wgrad), each with one quantize launch of its input in FP8/FP4.
constexpr double kExpertLinears = 2;
// Context parallelism, per attention layer and ring step beyond CP 1's one attention call
// (TransformerEngine attention/dot_product_attention/context_parallel.py, AttnFuncWithCPAndKVP2P):
// forward, the wait for the step's K/V (req.wait), the send/recv posting the next step's
// (flash_attn_p2p_communicate: batch_isend_irecv), the step's attention (fused_attn_fwd), its
// softmax-LSE merge (flash_attn_fwd_softmax_lse_correction) and its output merge
// (flash_attn_fwd_out_correction): 5 calls; backward, the wait, the K/V + dK/dV send/recv, the
// attention backward (fused_attn_bwd) and the dQ and dK/dV accumulations (add_/copy_): 5 calls.
// Each is one PyTorch-level call (kTorchOpHostS); the views and stream switches between them launch
// nothing and are not counted.
constexpr double kCpStepCallsFwd = 5, kCpStepCallsBwd = 5;

// One sub-block's host seconds in one pass: its calls, or one graph replay when captured.
double block(bool graph, double modules, double ops) {
  return graph ? kKernelLaunchS : modules * kTeModuleHostS + ops * kTorchOpHostS;
}

}  // namespace

double host_cpu_factor(HostCpuFamily cpu) { return cpu == HostCpuFamily::kGrace ? kGraceHostFactor : 1.0; }

HostTime host_time(const LayerSums& s, const Layout& l, double recompute_share, bool quantized, double local_experts,
                   HostCpuFamily cpu) {
  HostTime h;
  if (l.cuda_graph == CudaGraph::kFullIteration) return h;  // one graph replay per step
  const bool graphs = l.cuda_graph != CudaGraph::kNone;
  // A captured module costs one graph launch instead of its calls. Without a scope list the graph
  // takes the layer's static-shaped parts (attention, MLP, Mamba), not the dropless experts.
  const uint32_t scope = l.cuda_graph_scope != 0 ? l.cuda_graph_scope : (kCgAttn | kCgMlp | kCgMamba);
  auto captured = [&](uint32_t bit) { return graphs && (scope & bit) != 0; };
  const double mixers = s.attn_layers + s.linear_layers;
  const double mlps = std::max(0.0, s.sub_blocks - mixers);

  // GDN lives under self_attention (scope attn), Mamba under its own scope: a linear mixer counts as
  // captured under either.
  double fwd = s.attn_layers * block(captured(kCgAttn), kMixerModules, kMixerOps) +
               s.linear_layers * block(captured(kCgAttn | kCgMamba), kMixerModules, kMixerOps) +
               mlps * block(captured(kCgMlp), kMlpModules, kMlpOps);
  double bwd = fwd;  // one backward call per module and op (TE's autograd Functions, autograd nodes)
  // The CP ring's calls run inside the attention's graph where the attention is captured. The ring
  // adds cp - 1 steps per layer; all-gathered K/V a second chunk call, the all-to-alls about one
  // step's worth of calls (the exchanges and their layout changes).
  if (l.cp > 1 && !captured(kCgAttn)) {
    const double steps = s.attn_layers * (l.cp_comm == CpComm::kP2p ? l.cp - 1.0 : 1.0);
    fwd += steps * kCpStepCallsFwd * kTorchOpHostS;
    bwd += steps * kCpStepCallsBwd * kTorchOpHostS;
  }
  double fwd_launches = 0, bwd_launches = 0;
  if (s.moe_layers > 0) {
    const double q = quantized ? 1.0 : 0.0;
    if (captured(kCgMoe)) {
      fwd += s.moe_layers * kKernelLaunchS;
      bwd += s.moe_layers * kKernelLaunchS;
    } else {
      const double ops = kMoeOps - (captured(kCgMoeRouter) ? kRouterOps : 0.0) -
                         (captured(kCgMoePreprocess) ? kPreprocessOps : 0.0);
      const double moe = kMoeModules * kTeModuleHostS + ops * kTorchOpHostS;
      fwd += s.moe_layers * moe;
      bwd += s.moe_layers * moe;
      fwd_launches = s.moe_layers * local_experts * kExpertLinears * (1.0 + q);
      bwd_launches = s.moe_layers * local_experts * kExpertLinears * (2.0 + q);
      // Dropless routing: the token counts come to the host before the expert GEMMs are sized
      // (token_dispatcher.py: `tokens_per_expert` to the CPU, or HybridEP's `num_permuted_tokens`
      // "CPU sync in dispatch"), once per layer and forward; the backward reuses them.
      h.syncs = s.moe_layers * (1.0 + recompute_share);
    }
  }
  const double f = host_cpu_factor(cpu);
  h.forward_s = f * (fwd + fwd_launches * kKernelLaunchS);
  h.backward_s = f * (bwd + bwd_launches * kKernelLaunchS) + recompute_share * h.forward_s;
  h.sync_s = f * h.syncs * kMoeSyncS;
  return h;
}

double dense_layers_host_s(double layers, bool graphed, double recompute_share, HostCpuFamily cpu) {
  const double fwd = layers * (block(graphed, kMixerModules, kMixerOps) + block(graphed, kMlpModules, kMlpOps));
  return host_cpu_factor(cpu) * fwd * (2.0 + recompute_share);  // forward, backward, the recomputed forward
}

}  // namespace rb
