#include "recipebook/catalog/hardware_yaml.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "recipebook/estimate/microbench.hpp"

namespace rb {
namespace {

using ::testing::HasSubstr;

std::optional<Hardware> convert(const std::string& text, Diagnostics& ds) {
  auto tree = parse_yaml(text, "h.yaml");
  EXPECT_TRUE(tree) << tree.error().str();
  return hardware_from_yaml(*tree, ds);
}

std::string all(const Diagnostics& ds) {
  std::string out;
  for (const auto& d : ds) out += d.str() + "\n";
  return out;
}

TEST(HardwareYaml, UnitsAreParsedToSi) {
  Diagnostics ds;
  const auto hw = convert(R"(
name: h100
display: H100-SXM
aliases: [h100-sxm]
source: test
memory: 80 GiB
hbm_bandwidth: 3.35 TB/s
peak: {bf16: 989.4 TFLOP/s, fp8: 1978.9 TFLOP/s, fp4: null}
node: {gpus: 8, nvlink_domain: 8, nvlink_bandwidth: 450 GB/s, scaleout_bandwidth: 400 Gbit/s}
tdp_w: 700
price: {usd_per_gpu_hour: 6.88, date: 2026-01-21, source: aws}
)",
                          ds);
  ASSERT_TRUE(hw) << all(ds);
  EXPECT_TRUE(hw->has_specs);
  EXPECT_DOUBLE_EQ(hw->memory_bytes, 80.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(hw->hbm_bytes_per_s, 3.35e12);
  EXPECT_DOUBLE_EQ(hw->bf16_flops_per_s, 989.4e12);
  EXPECT_DOUBLE_EQ(hw->fp8_flops_per_s, 1978.9e12);
  EXPECT_EQ(hw->fp4_flops_per_s, 0);
  EXPECT_DOUBLE_EQ(hw->nvlink_bytes_per_s, 450e9);
  EXPECT_DOUBLE_EQ(hw->scaleout_bytes_per_s, 50e9);
  EXPECT_EQ(hw->gpus_per_node, 8);
  EXPECT_EQ(hw->tdp_w, 700);
  EXPECT_EQ(hw->price_date, "2026-01-21");
  EXPECT_DOUBLE_EQ(hw->usd_per_gpu_hour, 6.88);
  EXPECT_EQ(hw->display, "H100-SXM");
}

TEST(HardwareYaml, HostFiguresAreReadAndOptional) {
  Diagnostics ds;
  const auto hw = convert(R"(
name: h100
source: test
memory: 80 GiB
hbm_bandwidth: 3.35 TB/s
peak: {bf16: 989.4 TFLOP/s}
host: {link: PCIe Gen5 x16, link_bandwidth: 64 GB/s, memory: 2 TB, memory_bandwidth: 614.4 GB/s, date: 2026-12-01, source: dgx}
)",
                          ds);
  ASSERT_TRUE(hw) << all(ds);
  EXPECT_TRUE(hw->has_host());
  EXPECT_DOUBLE_EQ(hw->host_link_bytes_per_s, 64e9);
  EXPECT_DOUBLE_EQ(hw->host_memory_bytes, 2e12);
  EXPECT_DOUBLE_EQ(hw->host_memory_bytes_per_s, 614.4e9);
  EXPECT_EQ(hw->host_source, "dgx");

  Diagnostics none;
  const auto bare = convert("name: x\nsource: s\nmemory: 80 GiB\npeak: {bf16: 1 TFLOP/s}\n", none);
  ASSERT_TRUE(bare) << all(none);
  EXPECT_FALSE(bare->has_host());
}

// The host CPU (`host: cpu`, `cpu_family`) sets the time model's per-call host costs: absent, x86;
// a family other than x86 or grace is an error. Before, the catalog named no host CPU.
TEST(HardwareYaml, HostCpuFamilyIsReadAndDefaultsToX86) {
  const std::string base = R"(
name: gb200
source: test
memory: 186 GiB
hbm_bandwidth: 8 TB/s
peak: {bf16: 2500 TFLOP/s}
)";
  Diagnostics ds;
  const auto grace = convert(
      base + "host: {cpu: 2x NVIDIA Grace, cpu_family: grace, link_bandwidth: 225 GB/s, memory: 960 GB, source: s}\n", ds);
  ASSERT_TRUE(grace) << all(ds);
  EXPECT_EQ(grace->host_cpu, "2x NVIDIA Grace");
  EXPECT_EQ(grace->host_cpu_family, HostCpuFamily::kGrace);
  const auto plain = convert(base + "host: {link_bandwidth: 64 GB/s, memory: 2 TB, source: s}\n", ds);
  ASSERT_TRUE(plain) << all(ds);
  EXPECT_EQ(plain->host_cpu_family, HostCpuFamily::kX86);
  Diagnostics bad;
  EXPECT_FALSE(convert(base + "host: {cpu_family: arm, link_bandwidth: 64 GB/s, memory: 2 TB, source: s}\n", bad));
  EXPECT_THAT(all(bad), HasSubstr("cpu_family"));
}

TEST(HardwareYaml, EfficiencyFallsBackToBf16ThenDefaults) {
  Diagnostics ds;
  const auto hw = convert(R"(
name: x
memory_gb: 180
peak: {bf16: 2250 TFLOP/s}
efficiency:
  bf16: {gemm: 0.8, hbm: 0.9}
  fp8_cs: {gemm: 0.55}
  mxfp8: {overlap: 0.3}
)",
                          ds);
  ASSERT_TRUE(hw) << all(ds);
  EXPECT_DOUBLE_EQ(hw->memory_bytes, 180e9);
  EXPECT_DOUBLE_EQ(hw->eff(Precision::kBf16).gemm, 0.8);
  EXPECT_DOUBLE_EQ(hw->eff(Precision::kBf16).attention, Efficiency{}.attention);
  EXPECT_DOUBLE_EQ(hw->eff(Precision::kFp8Cs).gemm, 0.55);
  EXPECT_DOUBLE_EQ(hw->eff(Precision::kFp8Cs).hbm, 0.9);   // from bf16
  EXPECT_DOUBLE_EQ(hw->eff(Precision::kMxfp8).gemm, 0.8);  // from bf16
  EXPECT_DOUBLE_EQ(hw->eff(Precision::kMxfp8).overlap, 0.3);
  EXPECT_DOUBLE_EQ(hw->eff(Precision::kNvfp4).hbm, 0.9);  // absent: same as bf16
  EXPECT_DOUBLE_EQ(hw->eff(Precision::kNvfp4).nvlink, Efficiency{}.nvlink);
}

TEST(HardwareYaml, StubWithoutFiguresHasNoSpecs) {
  Diagnostics ds;
  const auto hw = convert("name: vr200\ndisplay: VR200\nsource: named by recipes\n", ds);
  ASSERT_TRUE(hw) << all(ds);
  EXPECT_FALSE(hw->has_specs);
}

TEST(HardwareYaml, BadQuantitiesAndPrecisionsAreFindings) {
  Diagnostics ds;
  const auto hw = convert(R"(
name: bad
memory: 80
hbm_bandwidth: 3.35 TFLOP/s
peak: {bf16: fast}
efficiency:
  fp9: {gemm: 0.5}
  bf16: {gemm: 1.5, speed: 0.3}
)",
                          ds);
  EXPECT_FALSE(hw);
  const std::string text = all(ds);
  EXPECT_THAT(text,
              HasSubstr("h.yaml:3:9: error [RB-HW-VALUE] `memory` needs a unit, found the bare number 80"));
  EXPECT_THAT(text, HasSubstr("h.yaml:4:16: error [RB-HW-VALUE] `hbm_bandwidth` is not a valid quantity"));
  EXPECT_THAT(text, HasSubstr("`peak.bf16` is not a valid quantity ('fast')"));
  EXPECT_THAT(text, HasSubstr("h.yaml:7:3: error [RB-HW-VALUE] unknown precision 'fp9'"));
  EXPECT_THAT(text, HasSubstr("`efficiency.bf16.gemm` must be in (0, 1], found 1.5"));
  EXPECT_THAT(text, HasSubstr("unknown efficiency parameter 'speed'"));
}

}  // namespace
}  // namespace rb

namespace rb {
namespace {

constexpr const char* kMicrobenchGpu = R"(
name: h100
source: test
memory: 80 GiB
hbm_bandwidth: 3.35 TB/s
peak: {bf16: 1000 TFLOP/s, fp8: 2000 TFLOP/s}
node: {gpus: 8, nvlink_domain: 8, nvlink_bandwidth: 450 GB/s, scaleout_bandwidth: 50 GB/s}
microbenchmarks:
  gemm:
    - {precision: bf16, m: 256, n: 8192, k: 8192, throughput: 500 TFLOP/s, date: 2026-01-01, source: a}
    - {precision: bf16, m: 1024, n: 8192, k: 8192, throughput: 640 TFLOP/s, date: 2026-01-01, source: a}
    - {precision: bf16, m: 4096, n: 8192, k: 8192, throughput: 700 TFLOP/s, date: 2026-01-01, source: a}
  collectives:
    - {op: reduce_scatter, fabric: nvlink, gpus: 8, message: 8 GB, busbw: 360 GB/s, nvls: false, date: 2026-01-01, source: b}
  ep:
    - {library: DeepEP, op: dispatch, fabric: scaleout, ep: 16, tokens: 4096, hidden: 7168, top_k: 8, fp8: true, bandwidth: 43 GB/s, date: 2026-01-01, source: c}
)";

// The block is read into Hardware::microbenchmarks; without an `efficiency:` entry the GPU's
// efficiencies are its microbenchmarks' priors, not the flat defaults.
TEST(HardwareYaml, MicrobenchmarksAreReadAndSetTheMissingEfficiencies) {
  Diagnostics ds;
  const auto hw = convert(kMicrobenchGpu, ds);
  ASSERT_TRUE(hw) << all(ds);
  ASSERT_EQ(hw->microbenchmarks.gemm.size(), 3u);
  EXPECT_DOUBLE_EQ(hw->microbenchmarks.gemm[2].flops_per_s, 700e12);
  ASSERT_EQ(hw->microbenchmarks.collectives.size(), 1u);
  EXPECT_EQ(hw->microbenchmarks.collectives[0].op, CollectiveOp::kReduceScatter);
  EXPECT_DOUBLE_EQ(hw->microbenchmarks.collectives[0].message_bytes, 8e9);
  ASSERT_EQ(hw->microbenchmarks.ep.size(), 1u);
  EXPECT_EQ(hw->microbenchmarks.ep[0].fabric, Fabric::kScaleout);
  EXPECT_EQ(hw->microbenchmarks.ep[0].gpus_per_node, 8);  // the node's, when not given
  EXPECT_NEAR(hw->eff(Precision::kBf16).nvlink, 360.0 / 450.0, 1e-9);
  EXPECT_NEAR(hw->eff(Precision::kBf16).scaleout, 43.0 / 2 / 50.0, 1e-9);  // two nodes: half of DeepEP's RDMA figure is remote
  EXPECT_GT(hw->eff(Precision::kBf16).gemm, 0.7);
  EXPECT_DOUBLE_EQ(hw->eff(Precision::kBf16).attention, Efficiency{}.attention);
}

TEST(HardwareYaml, AMicrobenchmarkWithAnUnknownOpIsAnError) {
  std::string text = kMicrobenchGpu;
  text.replace(text.find("op: reduce_scatter"), 18, "op: broadcast");
  Diagnostics ds;
  EXPECT_FALSE(convert(text, ds));
  EXPECT_THAT(all(ds), HasSubstr("microbenchmarks.collectives[0].op"));
}

}  // namespace
}  // namespace rb

namespace rb {
namespace {

// A grouped (MoE) GEMM figure (`groups:`, DeepGEMM's tables) is read as grouped evidence and kept out
// of the dense curve: before, `groups` was ignored and its rows entered the dense fit as dense GEMMs
// (here they would be the only dense rows, and give a curve).
TEST(HardwareYaml, GroupedGemmFiguresStayOutOfTheDenseCurve) {
  std::string yaml = kMicrobenchGpu;
  const std::string grouped =
      "    - {precision: fp8_blockwise, groups: 4, m: 256, n: 4096, k: 7168, throughput: 932 TFLOP/s, date: 2025-03-25, source: d}\n"
      "    - {precision: fp8_blockwise, groups: 2, m: 512, n: 4096, k: 7168, throughput: 1040 TFLOP/s, date: 2025-03-25, source: d}\n"
      "    - {precision: fp8_blockwise, groups: 1, m: 1024, n: 4096, k: 7168, throughput: 1233 TFLOP/s, date: 2025-03-25, source: d}\n"
      "    - {precision: fp8_blockwise, groups: 8, m: 4096, n: 4096, k: 7168, throughput: 1346 TFLOP/s, date: 2025-03-25, source: d}\n";
  yaml.insert(yaml.find("  collectives:"), grouped);
  Diagnostics ds;
  const auto hw = convert(yaml, ds);
  ASSERT_TRUE(hw) << all(ds);
  ASSERT_EQ(hw->microbenchmarks.gemm.size(), 7u);
  EXPECT_EQ(hw->microbenchmarks.gemm[0].groups, 0);  // dense rows
  EXPECT_EQ(hw->microbenchmarks.gemm[3].groups, 4);
  EXPECT_FALSE(fit_gemm_curve(*hw, Precision::kFp8Blockwise));
  const auto c = fit_grouped_gemm_curve(*hw, Precision::kFp8Blockwise);
  ASSERT_TRUE(c);
  EXPECT_GT(c->asymptote, 0.6);
  EXPECT_LT(c->half_dim, 512);
  // The dense bf16 curve is the same as without the grouped rows.
  EXPECT_TRUE(fit_gemm_curve(*hw, Precision::kBf16));
}

TEST(HardwareYaml, GroupedGemmFigureNeedsAtLeastOneGroup) {
  std::string yaml = kMicrobenchGpu;
  yaml.insert(yaml.find("  collectives:"),
              "    - {precision: bf16, groups: 0, m: 256, n: 4096, k: 7168, throughput: 500 TFLOP/s, date: 2025-03-25, source: d}\n");
  Diagnostics ds;
  (void)convert(yaml, ds);
  EXPECT_THAT(all(ds), HasSubstr("groups"));
}

}  // namespace
}  // namespace rb

namespace rb {
namespace {

// GDN delta-rule kernel figures (`delta_rule:`, milliseconds per pass) are read into SI seconds; a
// pass other than fwd / bwd and a figure without its time are findings.
TEST(HardwareYaml, DeltaRuleFiguresAreReadInSeconds) {
  std::string yaml = kMicrobenchGpu;
  yaml += "  delta_rule:\n"
          "    - {pass: fwd, seq: 8192, qk_heads: 16, v_heads: 32, head_dim: 128, time_ms: 0.482, date: 2026-07-28, source: f}\n"
          "    - {pass: bwd, sequences: 2, seq: 4096, qk_heads: 16, v_heads: 32, head_dim: 128, time_ms: 1.5, date: 2026-07-28, source: f}\n";
  Diagnostics ds;
  const auto hw = convert(yaml, ds);
  ASSERT_TRUE(hw) << all(ds);
  ASSERT_EQ(hw->microbenchmarks.delta_rule.size(), 2u);
  const DeltaRuleFigure& f = hw->microbenchmarks.delta_rule[0];
  EXPECT_FALSE(f.backward);
  EXPECT_EQ(f.sequences, 1);
  EXPECT_EQ(f.qk_heads, 16);
  EXPECT_EQ(f.v_heads, 32);
  EXPECT_DOUBLE_EQ(f.time_s, 0.482e-3);
  EXPECT_TRUE(hw->microbenchmarks.delta_rule[1].backward);
  EXPECT_EQ(hw->microbenchmarks.delta_rule[1].sequences, 2);

  std::string bad = kMicrobenchGpu;
  bad += "  delta_rule:\n"
         "    - {pass: both, seq: 8192, qk_heads: 16, v_heads: 32, head_dim: 128, date: 2026-07-28, source: f}\n";
  Diagnostics ds2;
  (void)convert(bad, ds2);
  EXPECT_THAT(all(ds2), HasSubstr("delta_rule[0].pass"));
  EXPECT_THAT(all(ds2), HasSubstr("time_ms"));
}

}  // namespace
}  // namespace rb
