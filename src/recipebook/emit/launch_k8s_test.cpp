// The Kubernetes manifests, parsed back with yaml-cpp, and their container command run as the
// operator would start it.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "recipebook/emit/launch.hpp"
#include "recipebook/emit/launch_test_util.hpp"

namespace rb {
namespace {

using test::sample_spec;

std::map<std::string, std::string> env_of(const YAML::Node& container) {
  std::map<std::string, std::string> env;
  for (const auto& e : container["env"]) env[e["name"].as<std::string>()] = e["value"].as<std::string>();
  return env;
}

void check_container(const YAML::Node& pod, const LaunchSpec& s) {
  ASSERT_TRUE(pod.IsMap());
  EXPECT_EQ(pod["restartPolicy"].as<std::string>(), "Never");
  const YAML::Node c = pod["containers"][0];
  EXPECT_EQ(c["name"].as<std::string>(), "pytorch");
  EXPECT_EQ(c["image"].as<std::string>(), s.k8s.image);
  EXPECT_EQ(c["resources"]["limits"]["nvidia.com/gpu"].as<int>(), s.procs_per_node());
  EXPECT_EQ(c["command"][0].as<std::string>(), "bash");
  EXPECT_EQ(c["command"][1].as<std::string>(), "-c");
  EXPECT_EQ(test::bash_syntax(c["command"][2].as<std::string>()).rc, 0) << c["command"][2].as<std::string>();
  EXPECT_EQ(c["ports"][0]["containerPort"].as<int>(), s.master_port);
  EXPECT_EQ(c["volumeMounts"][0]["mountPath"].as<std::string>(), "/dev/shm");
  const auto env = env_of(c);
  EXPECT_EQ(env.at("CUDA_DEVICE_MAX_CONNECTIONS"), "1");
  EXPECT_EQ(env.at("PYTORCH_CUDA_ALLOC_CONF"), "expandable_segments:True");
  // A shell expression is exported by the command, where bash evaluates it.
  EXPECT_EQ(env.count("NCCL_NVLS_ENABLE"), 0u);
  EXPECT_NE(c["command"][2].as<std::string>().find("export NCCL_NVLS_ENABLE=\"$("), std::string::npos);
}

TEST(LaunchK8s, PyTorchJobHasMasterAndWorkers) {
  const LaunchSpec s = sample_spec();
  auto text = render_k8s(s);
  ASSERT_TRUE(text) << text.error().str();
  const YAML::Node doc = YAML::Load(*text);
  EXPECT_EQ(doc["apiVersion"].as<std::string>(), "kubeflow.org/v1");
  EXPECT_EQ(doc["kind"].as<std::string>(), "PyTorchJob");
  EXPECT_EQ(doc["metadata"]["name"].as<std::string>(), "llama3-8b-launch-test");  // DNS-1123
  const YAML::Node specs = doc["spec"]["pytorchReplicaSpecs"];
  EXPECT_EQ(specs["Master"]["replicas"].as<int>(), 1);
  EXPECT_EQ(specs["Worker"]["replicas"].as<int>(), 1);  // 16 GPUs = 2 nodes of 8
  EXPECT_EQ(specs["Master"]["template"]["spec"]["containers"][0]["ports"][0]["name"].as<std::string>(),
            "pytorchjob-port");
  check_container(specs["Master"]["template"]["spec"], s);
  check_container(specs["Worker"]["template"]["spec"], s);

  LaunchSpec one = sample_spec();
  one.gpus = 8;
  one.layout.dp = 2;
  const YAML::Node single = YAML::Load(*render_k8s(one));
  EXPECT_FALSE(single["spec"]["pytorchReplicaSpecs"]["Worker"]);
}

TEST(LaunchK8s, JobSetIsOneIndexedJobOfAllNodes) {
  LaunchSpec s = sample_spec();
  s.k8s.op = K8sOperator::kJobSet;
  s.k8s.ns = "training";
  auto text = render_k8s(s);
  ASSERT_TRUE(text) << text.error().str();
  const YAML::Node doc = YAML::Load(*text);
  EXPECT_EQ(doc["apiVersion"].as<std::string>(), "jobset.x-k8s.io/v1alpha2");
  EXPECT_EQ(doc["kind"].as<std::string>(), "JobSet");
  EXPECT_EQ(doc["metadata"]["namespace"].as<std::string>(), "training");
  EXPECT_TRUE(doc["spec"]["network"]["enableDNSHostnames"].as<bool>());
  const YAML::Node job = doc["spec"]["replicatedJobs"][0];
  EXPECT_EQ(job["replicas"].as<int>(), 1);
  EXPECT_EQ(job["template"]["spec"]["parallelism"].as<int>(), 2);
  EXPECT_EQ(job["template"]["spec"]["completions"].as<int>(), 2);
  EXPECT_EQ(job["template"]["spec"]["completionMode"].as<std::string>(), "Indexed");
  const YAML::Node pod = job["template"]["spec"]["template"]["spec"];
  check_container(pod, s);
  const auto env = env_of(pod["containers"][0]);
  EXPECT_EQ(env.at("MASTER_ADDR"), "llama3-8b-launch-test-node-0-0.llama3-8b-launch-test");
  EXPECT_EQ(env.at("MASTER_PORT"), "29500");
}

TEST(LaunchK8s, ProbeCommandRunsAsThePodWould) {
  LaunchSpec s = sample_spec();
  s.probe = true;
  const YAML::Node doc = YAML::Load(*render_k8s(s));
  const YAML::Node c = doc["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0];
  test::TempDir tmp;
  test::write_text(tmp.file("cmd.sh"), c["command"][2].as<std::string>());
  std::string envs;
  for (const auto& [k, v] : env_of(c)) envs += " " + k + "='" + v + "'";
  // The training operator's variables for the worker pod (rank 1).
  const auto r = test::run_shell("env -i PATH=\"$PATH\" RANK=1 MASTER_ADDR=job-master-0 MASTER_PORT=29500 NVLINK_COUNT=1" +
                                 envs + " bash '" + tmp.file("cmd.sh") + "'");
  ASSERT_EQ(r.rc, 0) << r.out;
  const auto rv = test::tagged(r.out, "RB_PROBE ");
  ASSERT_EQ(rv.size(), 1u) << r.out;
  EXPECT_EQ(rv[0].at("NODE_RANK"), "1");
  EXPECT_EQ(rv[0].at("NNODES"), "2");
  EXPECT_EQ(rv[0].at("WORLD_SIZE"), "16");
  EXPECT_EQ(rv[0].at("MASTER_ADDR"), "job-master-0");
  std::map<std::string, std::string> env;
  for (const auto& m : test::tagged(r.out, "RB_PROBE_ENV ")) env.insert(m.begin(), m.end());
  EXPECT_EQ(env["NCCL_NVLS_ENABLE"], "1");
  EXPECT_EQ(env["CUDA_DEVICE_MAX_CONNECTIONS"], "1");
}

TEST(LaunchK8s, ImageIsRequired) {
  LaunchSpec s = sample_spec();
  s.k8s.image.clear();
  auto text = render_k8s(s);
  ASSERT_FALSE(text);
  EXPECT_NE(text.error().fix.find("--image"), std::string::npos);
}

}  // namespace
}  // namespace rb
