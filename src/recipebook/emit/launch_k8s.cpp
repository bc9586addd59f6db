// Kubernetes: a manifest for an operator the cluster already runs.
//  - Kubeflow PyTorchJob (kubeflow.org/v1): a Master replica and N-1 Workers. The training operator
//    sets MASTER_ADDR, MASTER_PORT (from the container port named "pytorchjob-port" of the container
//    named "pytorch") and RANK (the pod's index, master 0) in every pod
//    (training-operator pkg/controller.v1/pytorch/envvar.go); torchrun's node rank is RANK.
//  - JobSet (jobset.x-k8s.io/v1alpha2): one replicated Indexed Job of N pods with DNS hostnames
//    `<jobset>-<job>-<jobIndex>-<podIndex>.<jobset>`; node 0 is the master and the node rank is the
//    pod's JOB_COMPLETION_INDEX (kubernetes-sigs/jobset docs/concepts).
// Literal env values go in the container's `env`; a value that is a shell expression (seed 002's
// NCCL_NVLS_ENABLE) is exported by the container's bash command instead, since Kubernetes would not
// evaluate it. Strings are written as JSON strings, which YAML reads as double-quoted scalars.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cctype>

#include "recipebook/emit/launch.hpp"
#include "recipebook/emit/launch_script.hpp"

namespace rb {
namespace {

std::string q(std::string_view s) { return nlohmann::json(std::string(s)).dump(); }

// A DNS-1123 label: lower case, digits and '-', starting and ending alphanumeric. JobSet pod
// hostnames add "-node-<i>-<j>" to it and must stay within 63 characters.
std::string k8s_name(std::string_view name) {
  std::string out;
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u))
      out += static_cast<char>(std::tolower(u));
    else if (!out.empty() && out.back() != '-')
      out += '-';
  }
  if (out.size() > 40) out.resize(40);
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "recipebook-job" : out;
}

std::string container_script(const LaunchSpec& spec, std::string_view node_rank) {
  std::string s = "set -eo pipefail\n";
  for (const auto& [k, v] : spec.env)
    if (is_shell_expression(v)) s += export_line(k, v) + "\n";
  s += fmt::format("export NNODES={}\n", spec.nodes());
  s += fmt::format("export GPUS_PER_NODE={}\n", spec.procs_per_node());
  s += fmt::format("export NODE_RANK=\"{}\"\n", node_rank);
  s += "export WORLD_SIZE=$((NNODES * GPUS_PER_NODE))\n";
  append_model_args_note(s, spec);
  append_args_array(s, "TRAIN_ARGS", entry_args(spec));
  const std::string command = "torchrun " + torchrun_rendezvous_args() + " \"${TRAIN_ARGS[@]}\"";
  if (spec.probe) {
    for (const auto& line : probe_lines(spec, command)) s += line + "\n";
  } else {
    for (const auto& line : entry_guard_lines(spec)) s += line + "\n";
    s += "exec " + command + "\n";
  }
  return s;
}

// One pod template's `spec`, indented by `ind` spaces.
std::string pod_spec(const LaunchSpec& spec, int ind, std::string_view node_rank,
                     const std::vector<std::pair<std::string, std::string>>& extra_env, bool named_port) {
  const std::string p(static_cast<size_t>(ind), ' ');
  std::string out;
  out += p + "restartPolicy: Never\n";
  out += p + "containers:\n";
  out += p + "- name: pytorch\n";
  const std::string c = p + "  ";
  out += c + "image: " + q(spec.k8s.image) + "\n";
  if (!spec.workdir.empty()) out += c + "workingDir: " + q(spec.workdir) + "\n";
  out += c + "command:\n" + c + "- bash\n" + c + "- -c\n" + c + "- |\n";
  std::string script = container_script(spec, node_rank);
  size_t start = 0;
  while (start < script.size()) {
    const size_t end = script.find('\n', start);
    const std::string line = script.substr(start, end - start);
    out += line.empty() ? "\n" : c + "  " + line + "\n";
    start = end == std::string::npos ? script.size() : end + 1;
  }
  std::vector<std::pair<std::string, std::string>> env = extra_env;
  for (const auto& [k, v] : spec.env)
    if (!is_shell_expression(v)) env.emplace_back(k, v);
  if (!env.empty()) {
    out += c + "env:\n";
    for (const auto& [k, v] : env) out += c + "- name: " + q(k) + "\n" + c + "  value: " + q(v) + "\n";
  }
  out += c + "ports:\n";
  out += c + "- containerPort: " + std::to_string(spec.master_port) + "\n";
  if (named_port) out += c + "  name: pytorchjob-port\n";
  out += c + "resources:\n" + c + "  limits:\n";
  out += c + fmt::format("    nvidia.com/gpu: {}\n", spec.procs_per_node());
  // PyTorch's data loaders and NCCL need more shared memory than a container's default 64 MiB.
  out += c + "volumeMounts:\n" + c + "- name: dshm\n" + c + "  mountPath: /dev/shm\n";
  out += p + "volumes:\n" + p + "- name: dshm\n" + p + "  emptyDir:\n" + p + "    medium: Memory\n";
  return out;
}

void append_metadata(std::string& out, const LaunchSpec& spec, const std::string& name) {
  out += "metadata:\n";
  out += "  name: " + q(name) + "\n";
  if (!spec.k8s.ns.empty()) out += "  namespace: " + q(spec.k8s.ns) + "\n";
  out += "  labels:\n    app.kubernetes.io/managed-by: recipebook\n";
}

std::string header(const LaunchSpec& spec) {
  std::string h;
  append_header(h, spec, "k8s");
  h += missing_settings_comment(spec, true, true);
  return h;
}

}  // namespace

Result<std::string> render_k8s(const LaunchSpec& spec) {
  if (auto ok = check_entry(spec); !ok) return tl::unexpected(ok.error());
  if (spec.k8s.image.empty())
    return fail("a Kubernetes manifest needs the container image", {}, "give --image IMAGE");
  const std::string name = k8s_name(spec.name);
  const int nodes = spec.nodes();
  std::string out = header(spec);

  if (spec.k8s.op == K8sOperator::kPyTorchJob) {
    out += "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\n";
    append_metadata(out, spec, name);
    out += "spec:\n  pytorchReplicaSpecs:\n";
    auto replica = [&](std::string_view role, int replicas) {
      out += fmt::format("    {}:\n      replicas: {}\n      restartPolicy: Never\n", role, replicas);
      out += "      template:\n        spec:\n";
      out += pod_spec(spec, 10, "$RANK", {}, true);
    };
    replica("Master", 1);
    if (nodes > 1) replica("Worker", nodes - 1);
    return out;
  }

  out += "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\n";
  append_metadata(out, spec, name);
  out += "spec:\n  network:\n    enableDNSHostnames: true\n";
  out += "  replicatedJobs:\n  - name: node\n    replicas: 1\n    template:\n      spec:\n";
  out += fmt::format("        parallelism: {}\n        completions: {}\n", nodes, nodes);
  out += "        completionMode: Indexed\n        backoffLimit: 0\n";
  out += "        template:\n          spec:\n";
  const std::vector<std::pair<std::string, std::string>> rendezvous{
      {"MASTER_ADDR", fmt::format("{}-node-0-0.{}", name, name)},
      {"MASTER_PORT", std::to_string(spec.master_port)}};
  out += pod_spec(spec, 12, "$JOB_COMPLETION_INDEX", rendezvous, false);
  return out;
}

}  // namespace rb
