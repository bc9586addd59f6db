// `launch` from layout flags on GPUs whose nodes differ (GB200: 4 per node, B200: 8), writing into a
// folder that does not exist yet: the node shape of every output is the target GPU's, and -o makes
// its folder (all files or none).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <sstream>

#include "recipebook/cmd_launch.hpp"
#include "recipebook/emit/launch_test_util.hpp"

namespace rb::cli {
namespace {

struct Out {
  int rc = -1;
  std::string out, err;
};

Out launch(const LaunchOptions& o, bool json = false) {
  std::ostringstream out, err;
  Context ctx{out, err, {}, json, false};
  Out r;
  r.rc = run_launch(o, ctx);
  r.out = out.str();
  r.err = err.str();
  return r;
}

// The command: 16 GPUs, TP2, seq 8192, GBS 128, on `gpu`.
LaunchOptions llama_on(const std::string& gpu, const std::string& target) {
  LaunchOptions o;
  o.model = "Llama-3-8B";
  o.gpu = gpu;
  o.gpus = 16;
  o.layout.tp = 2;
  o.seq = 8192;
  o.gbs = 128;
  o.targets = {target};
  o.image = "nvcr.io/nvidia/nemo:26.04";
  return o;
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

TEST(LaunchCliShape, NodesAreTheTargetGpusNodes) {
  // Old code: GB200 got --nodes=2 and --gpus-per-node=8 (LaunchSpec's default of 8 per node).
  struct Case {
    const char* gpu;
    int per_node, nodes;
  };
  for (const Case c : {Case{"gb200", 4, 4}, Case{"b200", 8, 2}}) {
    const std::string per = std::to_string(c.per_node);
    const Out s = launch(llama_on(c.gpu, "slurm"));
    ASSERT_EQ(s.rc, 0) << s.err;
    EXPECT_TRUE(has(s.out, "#SBATCH --nodes=" + std::to_string(c.nodes) + "\n")) << c.gpu << "\n" << s.out;
    EXPECT_TRUE(has(s.out, "#SBATCH --gpus-per-node=" + per + "\n")) << c.gpu;
    EXPECT_TRUE(has(s.out, "export GPUS_PER_NODE=" + per + "\n")) << c.gpu;
    const Out k = launch(llama_on(c.gpu, "k8s"));
    ASSERT_EQ(k.rc, 0) << k.err;
    EXPECT_TRUE(has(k.out, "nvidia.com/gpu: " + per + "\n")) << c.gpu;
    EXPECT_TRUE(has(k.out, "Worker:\n      replicas: " + std::to_string(c.nodes - 1) + "\n")) << c.gpu;
    const Out b = launch(llama_on(c.gpu, "bridge"));
    ASSERT_EQ(b.rc, 0) << b.err;
    EXPECT_TRUE(has(b.out, "export GPUS_PER_NODE=" + per + "\n")) << c.gpu;
    EXPECT_TRUE(has(b.out, "--nproc_per_node=\"$GPUS_PER_NODE\"")) << c.gpu;
  }
  // --gpus-per-node wins over the GPU's node.
  LaunchOptions o = llama_on("gb200", "slurm");
  o.gpus_per_node = 2;
  const Out r = launch(o);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(has(r.out, "#SBATCH --nodes=8\n"));
  EXPECT_TRUE(has(r.out, "#SBATCH --gpus-per-node=2\n"));
}

TEST(LaunchCliShape, OutDirIsMadeWhenMissingAndJsonSaysTheShape) {
  // Old code: `-o jobs/` on a fresh folder failed ("no folder jobs").
  test::TempDir tmp;
  LaunchOptions o = llama_on("gb200", "slurm");
  o.targets = {"slurm", "recipe"};
  o.out_dir = tmp.file("jobs/llama");
  const Out r = launch(o, true);
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["nodes"], 4);
  EXPECT_EQ(j["gpus_per_node"], 4);
  ASSERT_EQ(j["outputs"].size(), 2u);
  for (const auto& out : j["outputs"]) EXPECT_TRUE(std::filesystem::is_regular_file(out["file"].get<std::string>())) << out;
  // What the script assumes is said on stderr (and in the script).
  EXPECT_TRUE(has(r.err, "no --container-image")) << r.err;
  EXPECT_TRUE(has(r.err, "no --workdir")) << r.err;

  // A folder that cannot be made (a file is in the way) writes nothing.
  test::write_text(tmp.file("plain"), "x");
  o.out_dir = tmp.file("plain/jobs");
  const Out bad = launch(o);
  EXPECT_NE(bad.rc, 0);
  EXPECT_TRUE(has(bad.err, "plain")) << bad.err;
  EXPECT_EQ(test::read_text(tmp.file("plain")), "x");
}

}  // namespace
}  // namespace rb::cli
