// Every communication term of the time model against the published microbenchmarks of the built-in
// hardware (catalog `microbenchmarks:`; docs/model.md "Hardware"): the modelled effective bandwidth
// at the figure's message size and group, with the GPU's catalog efficiencies, must lie within
// kTolerance of the published figure.
//
// kTolerance = 30%: the published figures of one GPU spread that much between NCCL's algorithms (8
// H100: ring busBw 370 GB/s, NVLink SHARP all-reduce 480 GB/s, nccl-tests#212) while the model has
// one rate per link, and reporters' setups differ by 10-20% (NCCL versions, SM counts). A term off by
// more than that misprices the traffic itself (before ep_dedup_s, DeepEP's EP16 dispatch was 3.4x).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/catalog/test_catalog.hpp"
#include "recipebook/estimate/collectives.hpp"
#include "recipebook/estimate/delta_rule.hpp"
#include "recipebook/estimate/estimate.hpp"
#include "recipebook/estimate/microbench.hpp"

namespace rb {
namespace {

constexpr double kTolerance = 0.30;

bool within(double modelled, double published) {
  return modelled > 0 && published > 0 && std::abs(std::log(modelled / published)) <= std::log(1.0 + kTolerance);
}

// DeepEP's token bytes: BF16, or FP8 with one FP32 scale per 128 channels (its fp8_factor).
double token_bytes(const EpFigure& f) { return f.hidden * (f.fp8 ? 1.0 + 4.0 / 128.0 : 2.0); }

// Ring rows (no NVLS) within kTolerance; NVLink SHARP rows are the top of the published range (the
// model has no in-switch reduction): the model must not run above them.
TEST(MicrobenchCheck, CollectivesMatchNcclTests) {
  int checked = 0;
  for (const HardwareEntry& e : builtin().hardware()) {
    const Hardware& hw = e.hardware;
    for (const CollectiveFigure& f : hw.microbenchmarks.collectives) {
      const Links links = make_links(hw, hw.eff(Precision::kBf16), f.gpus_per_node, f.gpus);
      const Group g{f.gpus, 1};
      const double bytes = f.message_bytes > 0 ? f.message_bytes : 1e9;
      const double t = f.op == CollectiveOp::kAllReduce ? all_reduce_s(bytes, g, links) : reduce_scatter_s(bytes, g, links);
      const double busbw = bus_factor(f.op, f.gpus) * bytes / t;
      const bool ok = f.nvls ? busbw <= f.bus_bytes_per_s * (1.0 + kTolerance) : within(busbw, f.bus_bytes_per_s);
      EXPECT_TRUE(ok) << hw.name << " " << f.gpus << " GPUs, " << bytes / 1e6 << " MB" << (f.nvls ? " (NVLS)" : "")
                      << ": modelled " << busbw / 1e9 << " GB/s busBw, published " << f.bus_bytes_per_s / 1e9 << " ("
                      << f.source << ")";
      ++checked;
    }
  }
  EXPECT_GE(checked, 10);
}

// DeepEP / HybridEP: the published time of each benchmark (its reported bytes / its bandwidth)
// against ep_dedup_s. NVLink rows report every received byte, the rank's own included; RDMA rows
// one copy per (token, node) pair, the token's own node included (DeepEP test_internode.py
// num_rdma_token_sent, HybridEP count_rdma_send_from_routing_map). DeepEP's test routes within
// min(nodes, 4) node groups (its default num_topk_groups; 256 experts grouped by node), so a token
// reaches g_k (1 - (1 - 1/g_k)^k) nodes, (n-1)/n of them remote; the model is given the same groups.
// The model prices the best published kernel (Links::ep_*): per GPU and link the fastest figure
// must be within kTolerance, and no figure faster than the model by more (older kernels, fewer SMs
// and untuned setups are slower: GB200's V1 intranode combine runs at 351 GB/s, V2's dispatch 862;
// H800's EP 16 over two nodes at 43 GB/s, half of it remote, against 58 and 51 on four and eight).
TEST(MicrobenchCheck, EpDispatchAndCombineMatchDeepEp) {
  int checked = 0;
  for (const HardwareEntry& e : builtin().hardware()) {
    const Hardware& hw = e.hardware;
    for (const Fabric fabric : {Fabric::kNvlink, Fabric::kScaleout}) {
      double best_ratio = 0;  // modelled / published time of the fastest figure (the largest ratio)
      std::string best_what;
      for (const EpFigure& f : hw.microbenchmarks.ep) {
        if (f.fabric != fabric) continue;
        const int per_node = std::min(f.ep, f.gpus_per_node);
        const int nodes = per_node > 0 ? f.ep / per_node : 0;
        const int topk_groups = std::min(nodes, 4);
        double published_bytes = 0;
        RouteGroups rg;
        if (f.fabric == Fabric::kNvlink && f.ep <= f.gpus_per_node) {
          published_bytes = f.tokens * f.top_k * token_bytes(f);
        } else if (f.fabric == Fabric::kScaleout && nodes >= 2 && f.ep == nodes * per_node) {
          published_bytes = f.tokens * topk_groups * (1.0 - std::pow(1.0 - 1.0 / topk_groups, f.top_k)) * token_bytes(f);
          rg = RouteGroups{256, nodes, topk_groups};
        } else {
          continue;
        }
        const Links links = make_links(hw, hw.eff(Precision::kBf16), per_node, f.ep);
        const double modelled_s = ep_dedup_s(f.tokens * token_bytes(f), f.top_k, Group{f.ep, 1}, links, rg);
        const double published_s = published_bytes / f.bytes_per_s;
        const std::string what = hw.name + " " + f.library + (f.combine ? " combine" : " dispatch") + " EP " +
                                 std::to_string(f.ep) + ": modelled " + std::to_string(modelled_s * 1e6) +
                                 " us, published " + std::to_string(published_s * 1e6) + " us (" + f.source + ")";
        EXPECT_LE(modelled_s / published_s, 1.0 + kTolerance) << what;
        if (modelled_s / published_s > best_ratio) best_ratio = modelled_s / published_s, best_what = what;
        if (f.fabric == Fabric::kScaleout) {
          // The plain all-to-all (every routed copy over the NICs, what the flex dispatcher was
          // priced as before) is far outside: the deduplication is what matches.
          const double a2a_s = all_to_all_s(f.tokens * f.top_k * token_bytes(f), Group{f.ep, 1}, links);
          EXPECT_FALSE(within(a2a_s, published_s)) << hw.name << " EP " << f.ep;
        }
        ++checked;
      }
      if (best_ratio > 0) {
        EXPECT_GE(best_ratio, 1.0 / (1.0 + kTolerance)) << best_what;
      }
    }
  }
  EXPECT_GE(checked, 8);
}

// B200's published NVFP4 GEMM figures (vLLM #20646) give FP4 its own prior and bound: a smaller
// fraction of the FP4 peak than its cuBLAS BF16 figures reach of theirs, with a later half-point
// (the 4x faster math leaves the fixed costs of a GEMM larger in proportion).
TEST(MicrobenchCheck, B200Nvfp4GemmHasItsOwnLowerCurve) {
  auto hw = builtin().find_hardware("b200");
  ASSERT_TRUE(hw);
  const auto fp4 = fit_gemm_curve(*hw, Precision::kNvfp4);
  const auto bf16 = fit_gemm_curve(*hw, Precision::kBf16);
  ASSERT_TRUE(fp4);
  ASSERT_TRUE(bf16);
  EXPECT_NEAR(fp4->asymptote, 0.50, 0.02);
  EXPECT_LT(fp4->asymptote, 0.8 * bf16->asymptote);
  EXPECT_GT(fp4->half_dim, bf16->half_dim);
  EXPECT_NEAR(*efficiency_prior(*hw, Precision::kNvfp4).gemm, fp4->asymptote, 1e-12);
}

// GDN's delta rule (FLA's chunk_gated_delta_rule; FlashQLA's benchmark tables): every figure is the
// rate the time model takes at its own shape, and on the Blackwell GPUs every figure is slower than
// the scan law the model used before (BF16 peak x eff.attention x 28.7 / 262, time.cpp
// kScanRelativeRate): FLA's Triton kernels run about as fast on GB200 as on H200 (the same 35B-A3B
// shape, 1 x 8192 tokens: forward 0.482 against 0.472 ms, backward 1.552 against 1.444 ms).
TEST(MicrobenchCheck, DeltaRuleFiguresAreTheRatesAtTheirShapes) {
  int checked = 0;
  for (const HardwareEntry& e : builtin().hardware()) {
    const Hardware& hw = e.hardware;
    const double law = hw.bf16_flops_per_s * hw.eff(Precision::kBf16).attention * 28.7 / 262.0;
    for (const DeltaRuleFigure& f : hw.microbenchmarks.delta_rule) {
      const DeltaRuleRate r = delta_rule_rate(hw.microbenchmarks, f.v_heads, f.seq, f.qk_heads);
      ASSERT_TRUE(r.known()) << hw.name;
      const double rate = f.backward ? r.bwd_flops_per_s : r.fwd_flops_per_s;
      EXPECT_DOUBLE_EQ(rate, delta_rule_counted_flops(f) / f.time_s) << hw.name << " " << f.source;
      // Forward FLOPs per second of the pass; the law's backward takes 2.5 forwards.
      if (hw.name == "gb200" || hw.name == "b200") {
        EXPECT_LT(rate, (f.backward ? law / 2.5 : law)) << hw.name << " " << f.source;
      }
      ++checked;
    }
  }
  EXPECT_GE(checked, 3 * 48);  // GB200, B200 (GB200's rows) and H200
}


// H200 has no GEMM or ring figure of its own: it takes H100's (the same GH100 die and clocks, the
// same NVLink 4 switch fabric and 400 Gb/s NIC per GPU; catalog/hardware/h200.yaml says so), not the
// flat defaults nor its two-node DeepEP rate, which put it 13% below H100 on Llama-3-70B at TP 4 PP 4.
// With the same priors and more HBM bandwidth it is never the slower of the two on one layout.
TEST(MicrobenchCheck, H200RunsAtLeastAsFastAsH100) {
  const Catalog& cat = builtin();
  auto h100 = cat.find_hardware("h100");
  auto h200 = cat.find_hardware("h200");
  ASSERT_TRUE(h100 && h200);
  for (Precision p : {Precision::kBf16, Precision::kFp8Cs}) {
    const EfficiencyPrior a = efficiency_prior(*h100, p), b = efficiency_prior(*h200, p);
    ASSERT_TRUE(b.nvlink && b.scaleout) << precision_name(p);
    EXPECT_EQ(a.gemm, b.gemm) << precision_name(p);
    EXPECT_DOUBLE_EQ(*a.nvlink, *b.nvlink) << precision_name(p);
    EXPECT_DOUBLE_EQ(*a.scaleout, *b.scaleout) << precision_name(p);
  }
  auto model = cat.find_model("llama3-70b");
  ASSERT_TRUE(model);
  const PreparedModel pm = prepare(*model);
  Workload work;
  work.seq = 8192;
  work.gbs = 512;
  Cluster cluster;
  cluster.gpus = 64;
  cluster.gpus_per_node = 8;
  for (const auto& [tp, pp] : {std::pair{4, 4}, std::pair{8, 2}, std::pair{2, 8}}) {
    Layout l;
    l.tp = tp;
    l.pp = pp;
    l.dp = 64 / (tp * pp);
    l.sp = true;
    const Estimate e100 = estimate(pm, *h100, work, cluster, l);
    const Estimate e200 = estimate(pm, *h200, work, cluster, l);
    ASSERT_TRUE(e100.valid && e200.valid) << "TP " << tp << " PP " << pp;
    EXPECT_GE(e200.tokens_per_s_per_gpu, e100.tokens_per_s_per_gpu) << "TP " << tp << " PP " << pp;
  }
}

}  // namespace
}  // namespace rb
