// The sbatch script: structure, and a run of its probe under stand-ins for srun and scontrol (the
// real single-node cluster test is tests/slurm/run_probe_test.sh).
#include <gtest/gtest.h>

#include "recipebook/emit/launch.hpp"
#include "recipebook/emit/launch_test_util.hpp"

namespace rb {
namespace {

using test::sample_spec;

bool contains(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

TEST(LaunchSlurm, ScriptParsesAndHasOneTaskPerNode) {
  LaunchSpec s = sample_spec();
  s.slurm.partition = "batch";
  s.slurm.account = "proj";
  s.slurm.time_limit = "04:00:00";
  s.slurm.container_image = "nvcr.io/nvidia/nemo:26.04";
  s.slurm.container_mounts = "/lustre:/lustre";
  auto text = render_slurm(s);
  ASSERT_TRUE(text) << text.error().str();
  EXPECT_EQ(test::bash_syntax(*text).rc, 0) << *text;
  for (const char* line : {"#SBATCH --nodes=2\n", "#SBATCH --ntasks-per-node=1\n", "#SBATCH --gpus-per-node=8\n",
                           "#SBATCH --partition=batch\n", "#SBATCH --account=proj\n", "#SBATCH --time=04:00:00\n",
                           "#SBATCH --job-name=llama3_8b_launch_test\n"})
    EXPECT_TRUE(contains(*text, line)) << line;
  EXPECT_TRUE(contains(*text, "scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1"));
  EXPECT_TRUE(contains(*text, "export NNODES=\"$SLURM_NNODES\""));
  EXPECT_TRUE(contains(*text, "export NODE_RANK=\"$SLURM_NODEID\""));
  EXPECT_TRUE(contains(*text, "--container-image=nvcr.io/nvidia/nemo:26.04 --container-mounts=/lustre:/lustre"));
  EXPECT_TRUE(contains(*text, "exec torchrun --nnodes=\"$NNODES\""));
  // The env is exported in the batch script, before srun starts any task.
  const size_t env = text->find("export NCCL_NVLS_ENABLE=");
  const size_t srun = text->find("\nsrun ");
  ASSERT_NE(env, std::string::npos);
  ASSERT_NE(srun, std::string::npos);
  EXPECT_LT(env, srun);
  // The #SBATCH lines come before any command (sbatch stops reading them at the first one).
  EXPECT_LT(text->rfind("#SBATCH"), text->find("\nset -eo pipefail"));
  s.slurm.gres = false;
  text = render_slurm(s);
  ASSERT_TRUE(text);
  EXPECT_FALSE(contains(*text, "--gpus-per-node"));
}

TEST(LaunchSlurm, MegatronLmEntryPoint) {
  LaunchSpec s = sample_spec();
  s.framework = Framework::kMegatronLm;
  auto text = render_slurm(s);
  ASSERT_TRUE(text);
  EXPECT_EQ(test::bash_syntax(*text).rc, 0);
  EXPECT_TRUE(contains(*text, "  pretrain_gpt.py\n"));
  EXPECT_TRUE(contains(*text, "  --tensor-model-parallel-size 2\n"));
}

// Runs the probe script as sbatch would, with srun and scontrol replaced by scripts that act like
// them for a two-node allocation: srun starts the command once per node with SLURM_NODEID set.
TEST(LaunchSlurm, ProbeUnderFakeSrunPrintsEachNodesRendezvousAndEnv) {
  LaunchSpec s = sample_spec();
  s.probe = true;
  auto text = render_slurm(s);
  ASSERT_TRUE(text) << text.error().str();
  test::TempDir tmp;
  test::write_text(tmp.file("job.sbatch"), *text);
  test::write_text(tmp.file("scontrol"), "#!/bin/bash\n[ \"$1 $2\" = 'show hostnames' ] && printf 'node-a\\nnode-b\\n'\n");
  test::write_text(tmp.file("srun"),
                   "#!/bin/bash\n"
                   "while [ \"${1#--}\" != \"$1\" ]; do shift; done\n"
                   "for n in 0 1; do SLURM_NODEID=$n SLURM_PROCID=$n SLURM_NTASKS=2 \"$@\" || exit $?; done\n");
  ASSERT_EQ(test::run_shell("chmod +x '" + tmp.file("scontrol") + "' '" + tmp.file("srun") + "'").rc, 0);
  const auto r = test::run_shell("env -i PATH='" + tmp.path() +
                                 "':\"$PATH\" SLURM_JOB_ID=42 SLURM_NNODES=2 SLURM_JOB_NODELIST='node-[a-b]' "
                                 "bash '" + tmp.file("job.sbatch") + "'");
  ASSERT_EQ(r.rc, 0) << r.out;
  const auto nodes = test::tagged(r.out, "RB_PROBE ");
  ASSERT_EQ(nodes.size(), 2u) << r.out;
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(nodes[i].at("NNODES"), "2");
    EXPECT_EQ(nodes[i].at("NODE_RANK"), std::to_string(i));
    EXPECT_EQ(nodes[i].at("MASTER_ADDR"), "node-a");
    EXPECT_EQ(nodes[i].at("MASTER_PORT"), "29500");
    EXPECT_EQ(nodes[i].at("WORLD_SIZE"), "16");
    EXPECT_EQ(nodes[i].at("GPUS_PER_NODE"), "8");
  }
  const auto slurm = test::tagged(r.out, "RB_PROBE_SLURM ");
  ASSERT_EQ(slurm.size(), 2u);
  EXPECT_EQ(slurm[1].at("nodeid"), "1");
  EXPECT_EQ(slurm[1].at("ntasks"), "2");
  std::map<std::string, std::string> env;
  for (const auto& m : test::tagged(r.out, "RB_PROBE_ENV ")) env.insert(m.begin(), m.end());
  EXPECT_EQ(env["CUDA_DEVICE_MAX_CONNECTIONS"], "1");
  EXPECT_EQ(env["PYTORCH_CUDA_ALLOC_CONF"], "expandable_segments:True");
  EXPECT_EQ(env["NCCL_NVLS_ENABLE"], "0");  // NVLINK_COUNT unset: the seed's expression gives 0
  EXPECT_TRUE(contains(r.out, "RB_PROBE_CMD torchrun --nnodes=2 --node_rank=1 --nproc_per_node=8 "
                              "--master_addr=node-a --master_port=29500 scripts/training/run_recipe.py"));
}

}  // namespace
}  // namespace rb
