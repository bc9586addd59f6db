// The node shape of every output comes from spec.gpus_per_node (the target GPU's node, or
// --gpus-per-node): GB200 NVL nodes hold 4 GPUs, B200 (HGX) nodes 8.
#include <gtest/gtest.h>

#include "recipebook/emit/launch.hpp"
#include "recipebook/emit/launch_test_util.hpp"

namespace rb {
namespace {

LaunchSpec shaped(const char* gpu, int gpus, int per_node) {
  LaunchSpec s = test::sample_spec();
  s.gpu = gpu;
  s.gpus = gpus;
  s.gpus_per_node = per_node;
  s.layout.pp = 1;
  s.layout.vp = 1;
  s.layout.dp = gpus / 2;  // TP2
  return s;
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

struct Shape {
  const char* gpu;
  int gpus, per_node, nodes;
};

class NodeShape : public ::testing::TestWithParam<Shape> {};

TEST_P(NodeShape, EveryTargetUsesTheSpecsGpusPerNode) {
  const Shape& p = GetParam();
  const LaunchSpec s = shaped(p.gpu, p.gpus, p.per_node);
  const std::string per = std::to_string(p.per_node);

  auto sbatch = render_slurm(s);
  ASSERT_TRUE(sbatch) << sbatch.error().str();
  EXPECT_TRUE(has(*sbatch, "#SBATCH --nodes=" + std::to_string(p.nodes) + "\n")) << *sbatch;
  EXPECT_TRUE(has(*sbatch, "#SBATCH --gpus-per-node=" + per + "\n"));
  EXPECT_TRUE(has(*sbatch, "export GPUS_PER_NODE=" + per + "\n"));
  EXPECT_TRUE(has(*sbatch, "--nproc_per_node=\"$GPUS_PER_NODE\""));

  for (auto op : {K8sOperator::kPyTorchJob, K8sOperator::kJobSet}) {
    LaunchSpec k = s;
    k.k8s.op = op;
    auto yaml = render_k8s(k);
    ASSERT_TRUE(yaml) << yaml.error().str();
    EXPECT_TRUE(has(*yaml, "nvidia.com/gpu: " + per + "\n"));
    EXPECT_TRUE(has(*yaml, "export GPUS_PER_NODE=" + per + "\n"));
    EXPECT_TRUE(has(*yaml, "export NNODES=" + std::to_string(p.nodes) + "\n"));
    if (op == K8sOperator::kPyTorchJob)
      EXPECT_TRUE(has(*yaml, "Worker:\n      replicas: " + std::to_string(p.nodes - 1) + "\n"));
    else
      EXPECT_TRUE(has(*yaml, "parallelism: " + std::to_string(p.nodes) + "\n"));
  }

  // The Bridge command: torchrun's --nproc_per_node is GPUS_PER_NODE, exported as the node's count.
  auto bridge = render_bridge(s);
  ASSERT_TRUE(bridge);
  EXPECT_TRUE(has(*bridge, "export GPUS_PER_NODE=" + per + "\n"));
  EXPECT_TRUE(has(*bridge, "export NNODES=" + std::to_string(p.nodes) + "\n"));
  EXPECT_TRUE(has(*bridge, "torch.distributed.run --nnodes=\"$NNODES\" --node_rank=\"$NODE_RANK\" --nproc_per_node=\"$GPUS_PER_NODE\""));

  // torchrun runs one node: a node's worth is written with its count, more is refused.
  auto one = render_torchrun(shaped(p.gpu, p.per_node, p.per_node));
  ASSERT_TRUE(one) << one.error().str();
  EXPECT_TRUE(has(*one, "export GPUS_PER_NODE=" + per + "\n"));
  EXPECT_TRUE(has(*one, "export NNODES=1\n"));
  auto many = render_torchrun(s);
  ASSERT_FALSE(many);
  EXPECT_TRUE(has(many.error().message, "nodes of " + per));
}

INSTANTIATE_TEST_SUITE_P(Gpus, NodeShape,
                         ::testing::Values(Shape{"gb200", 16, 4, 4}, Shape{"b200", 16, 8, 2}, Shape{"gb200", 8, 4, 2}),
                         [](const auto& param_info) {
                           return std::string(param_info.param.gpu) + "_" + std::to_string(param_info.param.gpus);
                         });

}  // namespace
}  // namespace rb
