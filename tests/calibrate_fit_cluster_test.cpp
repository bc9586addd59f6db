// `calibrate --fit --catalog DIR` fits only the measured runs recorded in DIR and writes the
// cluster's hardware file; bad input (no runs, several GPU types, runs it cannot estimate, a file it
// did not write in the way) is an error naming what and where, exit 2, nothing written.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <sstream>
#include <string>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/cmd_calibrate_fit.hpp"
#include "recipebook/emit/launch_test_util.hpp"

namespace rb::cli {
namespace {

namespace fs = std::filesystem;

struct Out {
  int rc = -1;
  std::string out, err;
};

Out fit(const std::string& dir, CalibrateFitOptions o = {}, bool json = false) {
  std::ostringstream out, err;
  const Context ctx{out, err, {dir}, json, false};
  Out r;
  r.rc = run_calibrate_fit(o, ctx);
  r.out = out.str();
  r.err = err.str();
  return r;
}

const fs::path kFixture = fs::path(RB_SOURCE_DIR) / "tests" / "data" / "own_cluster";

// The fixture's four Llama-3-70B H100 runs, copied into `tmp`/runs.
std::string runs_dir(const test::TempDir& tmp) {
  const fs::path dir = fs::path(tmp.path()) / "runs";
  fs::copy(kFixture, dir, fs::copy_options::recursive);
  return dir.string();
}

CalibrateFitOptions named(const std::string& cluster) {
  CalibrateFitOptions o;
  o.cluster = cluster;
  return o;
}

TEST(CalibrateFitCluster, WritesAHardwareFileTheCatalogLoadsWithTheFittedEfficiencies) {
  test::TempDir tmp;
  const std::string dir = runs_dir(tmp);
  const Out r = fit(dir, named("Eos"));
  ASSERT_EQ(r.rc, kExitOk) << r.err;
  const fs::path file = fs::path(dir) / "hardware" / "h100-eos.yaml";
  ASSERT_TRUE(fs::exists(file)) << r.err;
  EXPECT_NE(r.err.find("--catalog " + dir + " --gpu h100-eos"), std::string::npos) << r.err;
  for (const char* run : {"llama3_70b_64gpu_tp4_pp4_vp5", "llama3_70b_64gpu_tp8_pp2", "llama3_70b_128gpu_tp4_pp4_vp5",
                          "llama3_70b_64gpu_tp8_gbs64", "MAPE on these runs:"})
    EXPECT_NE(r.out.find(run), std::string::npos) << run << "\n" << r.out;

  auto cat = Catalog::load({dir});
  ASSERT_TRUE(cat);
  for (const auto& d : cat->problems()) EXPECT_NE(d.severity, Severity::kError) << d.str();
  auto mine = cat->find_hardware("h100-eos");
  auto base = cat->find_hardware("h100");
  ASSERT_TRUE(mine) << mine.error().str();
  ASSERT_TRUE(base);
  EXPECT_EQ(mine->display, base->display + " (eos)");
  EXPECT_TRUE(mine->aliases.empty());  // the base's aliases stay the base's
  EXPECT_EQ(mine->bf16_flops_per_s, base->bf16_flops_per_s);
  EXPECT_EQ(mine->scaleout_bytes_per_s, base->scaleout_bytes_per_s);
  // The fixture's runs are slower than the catalog predicts: the fitted GEMM efficiency is lower.
  EXPECT_LT(mine->eff(Precision::kBf16).gemm, base->eff(Precision::kBf16).gemm);

  // A second fit replaces the file it wrote.
  EXPECT_EQ(fit(dir, named("Eos")).rc, kExitOk);
}

TEST(CalibrateFitCluster, FitsOnlyTheFoldersRunsAndReportsBeforeAndAfter) {
  test::TempDir tmp;
  const std::string dir = runs_dir(tmp);
  const Out r = fit(dir, named("eos"), /*json=*/true);
  ASSERT_EQ(r.rc, kExitOk) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["gpu"], "h100");
  EXPECT_EQ(j["hardware"], "h100-eos");
  ASSERT_EQ(j["runs"].size(), 4u);  // the built-in catalog's measurements are not fitted
  for (const auto& run : j["runs"]) {
    EXPECT_GT(run["measured_tokens_per_s_per_gpu"].get<double>(), 0);
    EXPECT_GT(run["before_tokens_per_s_per_gpu"].get<double>(), 0);
    EXPECT_GT(run["after_tokens_per_s_per_gpu"].get<double>(), 0);
  }
  EXPECT_LT(j["mape_after"].get<double>(), j["mape_before"].get<double>());
  int fitted = 0;
  for (const auto& f : j["fields"]) fitted += f["fitted"].get<bool>() ? 1 : 0;
  EXPECT_GE(fitted, 1);
  EXPECT_LE(fitted, 2);  // four runs: at most two fields
}

TEST(CalibrateFitCluster, OneRunFitsOneField) {
  test::TempDir tmp;
  const std::string dir = runs_dir(tmp);
  for (const char* name : {"llama3_70b_64gpu_tp8_pp2", "llama3_70b_128gpu_tp4_pp4_vp5", "llama3_70b_64gpu_tp8_gbs64"})
    fs::remove(fs::path(dir) / "recipes" / (std::string(name) + ".yaml"));
  const Out r = fit(dir, named("eos"), /*json=*/true);
  ASSERT_EQ(r.rc, kExitOk) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["runs"].size(), 1u);
  std::vector<std::string> fitted;
  for (const auto& f : j["fields"])
    if (f["fitted"].get<bool>()) fitted.push_back(f["field"]);
  EXPECT_EQ(fitted, std::vector<std::string>{"gemm"});
}

TEST(CalibrateFitCluster, NoMeasuredRunsIsAnErrorAndWritesNothing) {
  test::TempDir tmp;
  const std::string dir = runs_dir(tmp);
  for (const auto& e : fs::directory_iterator(fs::path(dir) / "recipes")) {
    std::string text = test::read_text(e.path().string());
    text = text.substr(0, text.find("result:"));
    test::write_text(e.path().string(), text);
  }
  const Out r = fit(dir);
  EXPECT_EQ(r.rc, kExitUsage);
  EXPECT_NE(r.err.find(dir + ": no measured runs: none of the 4 record(s)"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(fs::path(dir) / "hardware"));
}

TEST(CalibrateFitCluster, RunsOnSeveralGpuTypesNeedGpu) {
  test::TempDir tmp;
  const std::string dir = runs_dir(tmp);
  std::string text = test::read_text((fs::path(dir) / "recipes" / "llama3_70b_64gpu_tp8_pp2.yaml").string());
  text.replace(text.find("type: h100"), 10, "type: b200");
  text.replace(text.find("name: llama3_70b_64gpu_tp8_pp2"), 30, "name: llama3_70b_64gpu_tp8_pp2_b200");
  test::write_text((fs::path(dir) / "recipes" / "b200.yaml").string(), text);
  const Out r = fit(dir);
  EXPECT_EQ(r.rc, kExitUsage);
  EXPECT_NE(r.err.find("the runs are on several GPU types: b200 (1 run), h100 (4 runs)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--gpu b200"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(fs::path(dir) / "hardware"));

  CalibrateFitOptions o = named("eos");
  o.gpu = "H100-SXM";  // an alias
  const Out h = fit(dir, o, /*json=*/true);
  ASSERT_EQ(h.rc, kExitOk) << h.err;
  EXPECT_EQ(nlohmann::json::parse(h.out)["runs"].size(), 4u);
  o.gpu = "h200";
  const Out none = fit(dir, o);
  EXPECT_EQ(none.rc, kExitUsage);
  EXPECT_NE(none.err.find("--gpu: no measured run on h200: the runs are on b200 (1 run), h100 (4 runs)"),
            std::string::npos)
      << none.err;
}

TEST(CalibrateFitCluster, RunsItCannotEstimateAreTooFewToFit) {
  test::TempDir tmp;
  const std::string dir = runs_dir(tmp);
  for (const auto& e : fs::directory_iterator(fs::path(dir) / "recipes")) {
    std::string text = test::read_text(e.path().string());
    text.replace(text.find("model: llama3-70b"), 17, "model: flux-12b");
    test::write_text(e.path().string(), text);
  }
  const Out r = fit(dir);
  EXPECT_EQ(r.rc, kExitUsage);
  EXPECT_NE(r.err.find("too few runs to fit: none of the measured runs can be estimated"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("llama3_70b_64gpu_tp8_pp2.yaml"), std::string::npos) << r.err;  // where
  EXPECT_NE(r.err.find("diffusion"), std::string::npos) << r.err;                       // why
  EXPECT_FALSE(fs::exists(fs::path(dir) / "hardware"));
}

TEST(CalibrateFitCluster, AFileItDidNotWriteIsNotReplaced) {
  test::TempDir tmp;
  const std::string dir = runs_dir(tmp);
  const std::string mine = tmp.write("h100-eos.yaml", "name: h100-eos\nsource: hand-written\n");
  CalibrateFitOptions o = named("eos");
  o.out = mine;
  const Out r = fit(dir, o);
  EXPECT_EQ(r.rc, kExitUsage);
  EXPECT_NE(r.err.find(mine + " exists and was not written by calibrate --fit --catalog"), std::string::npos) << r.err;
  EXPECT_EQ(test::read_text(mine), "name: h100-eos\nsource: hand-written\n");
}

TEST(CalibrateFitCluster, WriteIsTheBuiltInRefitAndRefusedWithCatalog) {
  test::TempDir tmp;
  const std::string dir = runs_dir(tmp);
  CalibrateFitOptions o;
  o.write_dir = tmp.path();
  const Out r = fit(dir, o);
  EXPECT_EQ(r.rc, kExitUsage);
  EXPECT_NE(r.err.find("--write refits the built-in catalog's files"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(fs::path(dir) / "hardware"));
}

}  // namespace
}  // namespace rb::cli
