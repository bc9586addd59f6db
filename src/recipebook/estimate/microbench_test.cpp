#include "recipebook/estimate/microbench.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "recipebook/estimate/collectives.hpp"
#include "recipebook/estimate/test_hardware.hpp"

namespace rb {
namespace {

GemmFigure gemm(Precision p, double m, double n, double k, double flops) {
  GemmFigure f;
  f.precision = p;
  f.m = m;
  f.n = n;
  f.k = k;
  f.flops_per_s = flops;
  return f;
}

// Figures on the model's own curve g n / (n + h) give back g and h.
TEST(Microbench, GemmCurveRecoversAsymptoteAndHalfPoint) {
  Hardware hw = test::h100();
  for (double m : {128.0, 512.0, 2048.0, 4096.0})  // m is the smallest dimension of each
    hw.microbenchmarks.gemm.push_back(gemm(Precision::kBf16, m, 8192, 8192, hw.bf16_flops_per_s * 0.75 * m / (m + 300)));
  const auto c = fit_gemm_curve(hw, Precision::kBf16);
  ASSERT_TRUE(c);
  EXPECT_NEAR(c->asymptote, 0.75, 0.01);
  EXPECT_NEAR(c->half_dim, 300, 10);
  const EfficiencyPrior pr = efficiency_prior(hw, Precision::kBf16);
  EXPECT_NEAR(*pr.gemm, 0.75, 0.01);
  EXPECT_DOUBLE_EQ(prior_efficiency(hw, Precision::kBf16).gemm, *pr.gemm);
  // Another precision has no figures of its own: it keeps the default (MXFP8 runs other kernels).
  EXPECT_FALSE(fit_gemm_curve(hw, Precision::kMxfp8));
  EXPECT_DOUBLE_EQ(prior_efficiency(hw, Precision::kMxfp8).gemm, Efficiency{}.gemm);
}

// One shape, or shapes that stop short of twice the half-point, give no asymptote.
TEST(Microbench, GemmCurveIsNotExtrapolated) {
  Hardware hw = test::b200();
  hw.microbenchmarks.gemm.push_back(gemm(Precision::kFp8Cs, 1024, 4096, 4096, 2000e12));
  EXPECT_FALSE(fit_gemm_curve(hw, Precision::kFp8Cs));
  hw.microbenchmarks.gemm.clear();
  for (double m : {64.0, 128.0, 256.0})
    hw.microbenchmarks.gemm.push_back(gemm(Precision::kFp8Cs, m, 4096, 4096, hw.fp8_flops_per_s * 0.8 * m / (m + 600)));
  EXPECT_FALSE(fit_gemm_curve(hw, Precision::kFp8Cs));
}

CollectiveFigure coll(Fabric f, bool nvls, double bytes, double busbw, int gpus = 8) {
  CollectiveFigure c;
  c.fabric = f;
  c.nvls = nvls;
  c.gpus = gpus;
  c.gpus_per_node = 8;
  c.message_bytes = bytes;
  c.bus_bytes_per_s = busbw;
  return c;
}

// The ring figure at the largest message is the prior; the best of any algorithm (NVLS can pass
// the line rate) bounds, at most 1. Scale-out rows count the node's NICs.
TEST(Microbench, LinkPriorIsTheRingFigureAndTheBoundTheBest) {
  Hardware hw = test::h100();  // 450 GB/s NVLink, 50 GB/s NIC per GPU
  hw.microbenchmarks.collectives = {coll(Fabric::kNvlink, false, 1e9, 300e9), coll(Fabric::kNvlink, false, 8e9, 360e9),
                                    coll(Fabric::kNvlink, true, 8e9, 480e9),
                                    coll(Fabric::kScaleout, false, 4e9, 320e9, 32)};
  const EfficiencyPrior pr = efficiency_prior(hw, Precision::kBf16);
  EXPECT_NEAR(*pr.nvlink, 360.0 / 450.0, 1e-9);
  EXPECT_DOUBLE_EQ(*pr.nvlink_max, 1.0);
  EXPECT_NEAR(*pr.scaleout, 320.0 / 400.0, 1e-9);
  EXPECT_NEAR(*pr.scaleout_max, 320.0 / 400.0, 1e-9);
  EXPECT_FALSE(efficiency_prior(test::b200(), Precision::kBf16).nvlink);
}

TEST(Microbench, EpFractionsCountTheLinkShareOfTheReportedRate) {
  Hardware hw = test::b200();  // 900 GB/s NVLink, 50 GB/s NIC
  EpFigure intra;
  intra.fabric = Fabric::kNvlink;
  intra.ep = 8;
  intra.gpus_per_node = 8;
  intra.bytes_per_s = 720e9;  // received bytes incl. the rank's own: 7/8 crossed NVLink
  EpFigure inter = intra;
  inter.fabric = Fabric::kScaleout;
  inter.ep = 16;
  inter.bytes_per_s = 43e9;
  hw.microbenchmarks.ep = {intra, inter};
  const EpFractions f = ep_fractions(hw);
  EXPECT_NEAR(*f.nvlink, 720.0 * 7 / 8 / 900, 1e-9);
  // Two nodes: DeepEP's RDMA figure counts the token's own-node copy too, half of its (token, node)
  // pairs (before: read as remote-only, 43 / 50).
  EXPECT_NEAR(*f.scaleout, 43.0 / 2 / 50, 1e-9);
  const Links l = make_links(hw, Efficiency{.nvlink = 1.0, .scaleout = 1.0}, 8, 16);
  EXPECT_NEAR(l.ep_nvlink_bytes_per_s, 630e9, 1e3);
  EXPECT_NEAR(l.ep_scaleout_bytes_per_s, 21.5e9, 1e3);
  // Eight nodes: 7/8 of the counted pairs are remote; the best figure is the prior.
  inter.ep = 64;
  inter.bytes_per_s = 51e9;
  hw.microbenchmarks.ep = {intra, inter};
  EXPECT_NEAR(*ep_fractions(hw).scaleout, 51.0 * 7 / 8 / 50, 1e-9);
  EXPECT_NEAR(l.nvlink_bytes_per_s, 900e9, 1e3);  // NCCL's collectives keep the fitted rate
}

// Within one NVLink domain DeepEP moves what an all-to-all moves; across two domains a token is sent
// once per remote domain hit, not once per remote expert.
TEST(Microbench, EpDedupSendsOneCopyPerRemoteDomain) {
  const Hardware hw = test::h100();
  const Links l = make_links(hw, Efficiency{.nvlink = 1.0, .scaleout = 1.0}, 8, 16);
  const double token_bytes = 4096.0 * 7168 * 2;
  Group g8{8, 1}, g16{16, 1};
  EXPECT_NEAR(ep_dedup_s(token_bytes, 8, g8, l), all_to_all_s(token_bytes * 8, g8, l), 1e-12);
  const double remote = 1.0 - std::pow(0.5, 8);
  EXPECT_NEAR(ep_dedup_s(token_bytes, 8, g16, l) - l.scaleout_latency_s, remote * token_bytes / 50e9, 1e-9);
  EXPECT_GT(all_to_all_s(token_bytes * 8, g16, l) / ep_dedup_s(token_bytes, 8, g16, l), 3.5);
}

// Group-limited routing (DeepSeek-V3: 256 experts, n_group 8, topk_group 4) reaches fewer domains
// than uniform routing: on EP 64 over 8-GPU nodes a group is a node, picked with 4/8 and then hit with
// 1 - (3/4)^8; on EP 32 a node holds two groups (hypergeometric over the picked ones). Without groups,
// or with groups that do not align with the domains, the uniform count stays. Before: every token
// reached (g - 1)(1 - (1 - 1/g)^k) remote domains whatever the router.
TEST(Microbench, EpDedupFollowsGroupLimitedRouting) {
  const RouteGroups ds{256, 8, 4};
  const double uniform64 = 7.0 * (1.0 - std::pow(7.0 / 8.0, 8));
  EXPECT_NEAR(ep_remote_domains(8, Group{64, 1}, 8), uniform64, 1e-12);
  EXPECT_NEAR(ep_remote_domains(8, Group{64, 1}, 8, ds), 7.0 * 0.5 * (1.0 - std::pow(0.75, 8)), 1e-12);
  const double p1 = 2.0 * 20.0 / 70.0, p2 = 15.0 / 70.0;  // one or both of a node's two groups picked
  EXPECT_NEAR(ep_remote_domains(8, Group{32, 1}, 8, ds),
              3.0 * (p1 * (1.0 - std::pow(0.75, 8)) + p2 * (1.0 - std::pow(0.5, 8))), 1e-12);
  // A group across two nodes (EP 128): the node's group picked, then half its experts' share.
  EXPECT_NEAR(ep_remote_domains(8, Group{128, 1}, 8, ds), 15.0 * 0.5 * (1.0 - std::pow(1.0 - 16.0 / 128.0, 8)), 1e-12);
  // All groups picked is uniform routing; one domain has no remote domains.
  EXPECT_NEAR(ep_remote_domains(8, Group{64, 1}, 8, RouteGroups{256, 8, 8}), uniform64, 1e-12);
  EXPECT_EQ(ep_remote_domains(8, Group{8, 1}, 8, ds), 0.0);
  const Links l = make_links(test::h100(), Efficiency{.nvlink = 1.0, .scaleout = 1.0}, 8, 64);
  const double token_bytes = 4096.0 * 7168 * 2;
  EXPECT_LT(ep_dedup_s(token_bytes, 8, Group{64, 1}, l, ds), 0.75 * ep_dedup_s(token_bytes, 8, Group{64, 1}, l));
}

}  // namespace
}  // namespace rb
