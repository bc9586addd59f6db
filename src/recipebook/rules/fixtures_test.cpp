// tests/invalid/*.yaml end to end, without the catalog: a minimal reader for the fixtures' block
// YAML (core_tests links no YAML library), the record -> RuleInput mapping documented in
// docs/rules.md ("Filling RuleInput from a record"), then check_layout + to_diagnostic. Each fixture
// must give exactly its rule, at the line its first-line comment names. The real driver (the
// `check` command on the catalog loader) runs the same files; this is the reference it must match.
#include <algorithm>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "recipebook/core/strings.hpp"
#include "recipebook/rules/rule_cases.hpp"

namespace rb::testing {
namespace {

struct Scalar {
  std::string text;
  int line = 0;
  int col = 0;
};

// path ("layout.recompute.num_layers") -> scalar; maps get an entry with empty text.
using Flat = std::map<std::string, Scalar>;

std::string unquote(std::string s) {
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front()) return s.substr(1, s.size() - 2);
  return s;
}

Flat read_block_yaml(const std::string& text) {
  Flat out;
  std::vector<std::pair<int, std::string>> stack;  // indent, path
  std::istringstream ss(text);
  std::string line;
  int n = 0;
  while (std::getline(ss, line)) {
    ++n;
    const size_t ind = line.find_first_not_of(' ');
    if (ind == std::string::npos || line[ind] == '#') continue;
    const size_t colon = line.find(':', ind);
    if (colon == std::string::npos) continue;
    const std::string key = line.substr(ind, colon - ind);
    std::string value = colon + 1 < line.size() ? line.substr(colon + 1) : "";
    value.erase(0, value.find_first_not_of(' '));
    while (!stack.empty() && stack.back().first >= static_cast<int>(ind)) stack.pop_back();
    const std::string path = stack.empty() ? key : stack.back().second + "." + key;
    out[path] = {unquote(value), n, static_cast<int>(ind) + 1};
    if (value.empty()) stack.emplace_back(static_cast<int>(ind), path);
  }
  return out;
}

const Model* model_by_name(const std::string& name) {
  for (const Model* m : {&llama3_8b(), &qwen3_14b(), &qwen3_30b_a3b(), &qwen35_35b_a3b(), &qwen35_397b_a17b(),
                         &deepseek_v3(), &gpt_oss_20b(), &nemotron_h_8b(), &glm45(), &gemma3_27b()})
    if (fold_name(m->name) == fold_name(name)) return m;
  return nullptr;
}

const Hardware* gpu_by_name(const std::string& name) {
  for (const Hardware* h : {&a100(), &h100(), &b200(), &gb200(), &gb300(), &mi300x()})
    if (h->name == to_lower(name)) return h;
  return nullptr;
}

// The mapping the `check` command uses (docs/rules.md). Children of a map key are collected by
// prefix for env, env_gates and settings.
RuleInput to_input(const Flat& f) {
  const auto get = [&](const std::string& p) -> std::string {
    const auto it = f.find(p);
    return it == f.end() ? std::string() : it->second.text;
  };
  const auto num = [&](const std::string& p, int64_t dflt) {
    const std::string v = get(p);
    return v.empty() ? dflt : std::stoll(v);
  };
  const auto flag = [&](const std::string& p) { return get(p) == "true"; };
  const auto children = [&](const std::string& prefix) {
    std::vector<KeyValue> kv;
    for (const auto& [k, v] : f)
      if (k.rfind(prefix + ".", 0) == 0 && k.find('.', prefix.size() + 1) == std::string::npos)
        kv.push_back({k.substr(prefix.size() + 1), v.text});
    return kv;
  };
  RuleInput in;
  in.model = model_by_name(get("model"));
  in.hardware = gpu_by_name(get("gpu.type"));
  in.cluster.gpus = static_cast<int>(num("gpu.count", 0));
  in.cluster.gpus_per_node = static_cast<int>(num("gpu.per_node", 0));
  in.workload.mode = parse_mode(get("mode")).value_or(Mode::kPretrain);
  in.workload.seq = num("workload.row_tokens", 0);
  in.workload.gbs = num("workload.global_batch", 0);

  Layout& l = in.layout;
  l.tp = static_cast<int>(num("layout.tp", 1));
  l.pp = static_cast<int>(num("layout.pp", 1));
  l.vp = static_cast<int>(num("layout.vpp", 1));
  l.cp = static_cast<int>(num("layout.cp", 1));
  l.ep = static_cast<int>(num("layout.ep", 1));
  l.etp = static_cast<int>(num("layout.etp", l.tp));  // Megatron's default ETP is TP
  l.mbs = static_cast<int>(num("layout.rows_per_microbatch", 1));
  l.sp = flag("layout.sequence_parallel");
  l.precision = parse_precision(get("workload.precision")).value_or(Precision::kBf16);
  const std::string gran = get("layout.recompute.granularity");
  l.recompute = gran == "full" ? Recompute::kFull : gran == "selective" ? Recompute::kSelective : Recompute::kNone;
  l.recompute_method = get("layout.recompute.method") == "block" ? RecomputeMethod::kBlock : RecomputeMethod::kUniform;
  l.recompute_layers = static_cast<int>(num("layout.recompute.num_layers", 1));
  for (const auto& m : split_list(get("features.recompute_modules")))
    l.recompute_modules |= parse_recompute_module(m).value_or(0);
  const std::string disp = get("layout.dispatcher");
  const std::string backend = get("features.flex_backend");
  l.dispatcher = parse_dispatcher(disp == "flex" && !backend.empty() ? backend : disp.empty() ? "alltoall" : disp)
                     .value_or(Dispatcher::kAlltoall);
  l.cuda_graph = parse_cuda_graph(get("features.cuda_graph.impl")).value_or(CudaGraph::kNone);
  for (const auto& s : split_list(get("features.cuda_graph.scope"))) l.cuda_graph_scope |= parse_cuda_graph_scope(s).value_or(0);
  l.te_rng_tracker = get("features.te_rng_tracker") != "false";
  l.fsdp = flag("features.fsdp");
  l.optimizer = parse_optimizer(get("features.optimizer")).value_or(Optimizer::kAdam);
  l.cpu_offload_layers = static_cast<int>(num("features.cpu_offload_layers", 0));
  if (const std::string v = get("features.optimizer_offload_fraction"); !v.empty()) l.optimizer_offload_fraction = std::stod(v);
  l.ep_a2a_overlap = flag("features.ep_a2a_overlap");
  l.tp_comm_overlap = flag("features.tp_comm_overlap");
  l.precision_aware_optimizer = flag("features.precision_aware_optimizer");
  l.distributed_optimizer_instances = static_cast<int>(num("features.settings.num_distributed_optimizer_instances", 1));
  l.cp_comm = parse_cp_comm(get("features.settings.cp_comm_type")).value_or(CpComm::kP2p);
  const int mp = l.tp * l.pp * l.cp;
  l.dp = mp > 0 && in.cluster.gpus % mp == 0 ? in.cluster.gpus / mp : 0;

  RecordFacts& r = in.facts;
  r.name = get("name");
  r.framework = get("framework");
  r.entry_point = get("entry_point");
  r.dataset = get("workload.dataset.name");
  r.packed_sequences = flag("features.packed_sequences");
  r.fsdp_version = static_cast<int>(num("features.fsdp_version", 1));
  r.mtp_layers = static_cast<int>(num("features.mtp_layers", -1));
  r.env = children("env");
  r.env_gates = children("features.env_gates");
  r.settings = children("features.settings");
  // Typed schema keys that are framework settings too (docs/rules.md).
  if (!get("features.fp8_param_gather").empty()) r.settings.push_back({"fp8_param_gather", get("features.fp8_param_gather")});
  if (!get("features.fine_grained_offload").empty())
    r.settings.push_back({"fine_grained_activation_offloading", get("features.fine_grained_offload")});
  if (!get("features.offload_modules").empty())
    r.settings.push_back({"offload_modules", get("features.offload_modules")});
  r.kernels = split_list(get("features.kernels"));
  r.patches = split_list(get("patches"));
  r.stack.megatron_core = !get("stack.megatron_core").empty() ? get("stack.megatron_core") : get("stack.megatron_lm");
  r.stack.transformer_engine = get("stack.transformer_engine");
  r.stack.fla = get("stack.fla");
  r.stack.triton = get("stack.triton");
  r.vision.max_pixels = num("vision.max_pixels", 0);
  r.vision.cuda_graph_max_patches = num("vision.cuda_graph_max_patches", 0);
  r.vision.images_per_sample = static_cast<int>(num("vision.images_per_sample", 1));
  // The catalog's other recipes: the performance recipe seed 000 names (for the collision fixture).
  r.catalog.push_back({"qwen35_vl_35b_a3b_pretrain_8gpu_gb300_fp8mx_config",
                       "qwen35_vl_35b_a3b_pretrain_8gpu_gb300_fp8mx_config", "performance"});
  return in;
}

TEST(Fixtures, EachGivesExactlyItsRuleAtItsLine) {
  const std::filesystem::path dir = std::filesystem::path(RB_SOURCE_DIR) / "tests" / "invalid";
  int seen = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".yaml") continue;
    // Fixtures of the loader's and the record checks' ids (RB-SCHEMA-*, RB-DERIVED-*, ...) are the
    // CLI suite's (tests/invalid_fixtures_test.cpp); this reference covers the rules table.
    const bool layout_rule = std::any_of(all_rules().begin(), all_rules().end(),
                                         [&](const Rule& r) { return r.id == e.path().stem().string(); });
    if (!layout_rule) continue;
    ++seen;
    std::ifstream file(e.path());
    std::stringstream ss;
    ss << file.rdbuf();
    const std::string text = ss.str();
    const std::string id = e.path().stem().string();
    const std::string prefix = "# expect: " + id + " line ";
    ASSERT_EQ(text.rfind(prefix, 0), 0u) << e.path();
    const int want_line = std::atoi(text.c_str() + prefix.size());

    const Flat flat = read_block_yaml(text);
    const RuleInput in = to_input(flat);
    ASSERT_NE(in.model, nullptr) << e.path() << ": model not among the test models";
    ASSERT_NE(in.hardware, nullptr) << e.path();
    const std::vector<Finding> fs = check_layout(in);
    std::string all;
    for (const auto& f : fs) all += "\n  " + f.rule_id + ": " + f.message;
    ASSERT_EQ(fs.size(), 1u) << e.path() << all;
    EXPECT_EQ(fs[0].rule_id, id) << e.path();
    const FieldLocator locate = [&](std::string_view p) -> std::optional<Where> {
      if (p.empty()) return Where{e.path().string(), 3, 1};
      const auto it = flat.find(std::string(p));
      if (it == flat.end()) return std::nullopt;
      return Where{e.path().string(), it->second.line, it->second.col};
    };
    const Diagnostic d = to_diagnostic(fs[0], locate);
    EXPECT_EQ(d.where.line, want_line) << d.str();
  }
  EXPECT_EQ(seen, static_cast<int>(all_rules().size()));
}

}  // namespace
}  // namespace rb::testing
