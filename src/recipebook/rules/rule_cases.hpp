// One violating input and one passing neighbour per rule id (test-only). The first violating case
// of each rule mirrors tests/invalid/<ID>.yaml: same model, GPU, counts and the one offending
// value, so the fixture and the unit test cannot silently drift apart.
#pragma once

#include <string>
#include <vector>

#include "recipebook/rules/check_layout.hpp"
#include "recipebook/rules/test_models.hpp"

namespace rb::testing {

struct RuleCase {
  std::string rule_id;
  bool violates = true;  // true: exactly this one finding; false: no finding of this rule, no error
  RuleInput input;
  std::string note;      // what differs
  bool clean = true;     // a passing case: also no error from any other rule
};

// A RuleInput builder with the defaults of a fixture record (pretrain, bf16, seq 4096).
class In {
 public:
  In(const Model& m, const Hardware& hw, int gpus) {
    in_.model = &m;
    in_.hardware = &hw;
    in_.cluster.gpus = gpus;
    in_.cluster.gpus_per_node = hw.gpus_per_node;
    in_.workload.seq = 4096;
    in_.workload.gbs = 64;
  }
  In& tp(int v) { in_.layout.tp = v; return *this; }
  In& pp(int v) { in_.layout.pp = v; return *this; }
  In& vp(int v) { in_.layout.vp = v; return *this; }
  In& cp(int v) { in_.layout.cp = v; return *this; }
  In& cp_comm(CpComm c) { in_.layout.cp_comm = c; return *this; }
  In& ep(int v) { in_.layout.ep = v; return *this; }
  In& etp(int v) { in_.layout.etp = v; return *this; }
  In& mbs(int v) { in_.layout.mbs = v; return *this; }
  In& sp(bool v = true) { in_.layout.sp = v; return *this; }
  In& fsdp(bool v = true) { in_.layout.fsdp = v; return *this; }
  In& instances(int r) { in_.layout.distributed_optimizer_instances = r; return *this; }
  In& dist_opt(bool v) { in_.layout.distributed_optimizer = v; return *this; }
  In& fp32_grads(bool v = true) { in_.layout.grad_reduce_in_fp32 = v; return *this; }
  In& seq(int64_t v) { in_.workload.seq = v; return *this; }
  In& gbs(int64_t v) { in_.workload.gbs = v; return *this; }
  In& mode(Mode m) { in_.workload.mode = m; return *this; }
  In& image(int64_t max_pixels, int64_t graph_max_patches) {
    in_.workload.image = {max_pixels, 1, graph_max_patches};
    return *this;
  }
  In& precision(Precision p) { in_.layout.precision = p; return *this; }
  In& mxfp8_modules(uint32_t mask) { in_.layout.mxfp8_modules = mask; return *this; }
  In& recompute(Recompute r, uint32_t modules = 0, int layers = 1) {
    in_.layout.recompute = r;
    in_.layout.recompute_modules = modules;
    in_.layout.recompute_layers = layers;
    return *this;
  }
  In& dispatcher(Dispatcher d) { in_.layout.dispatcher = d; return *this; }
  In& graph(CudaGraph g, uint32_t scope = 0) {
    in_.layout.cuda_graph = g;
    in_.layout.cuda_graph_scope = scope;
    return *this;
  }
  In& rng(bool v) { in_.layout.te_rng_tracker = v; return *this; }
  In& offload(int layers) { in_.layout.cpu_offload_layers = layers; return *this; }
  In& opt_offload(double fraction) { in_.layout.optimizer_offload_fraction = fraction; return *this; }
  In& act_offload(uint32_t modules, double fraction = 1.0) {
    in_.layout.offload_modules = modules;
    in_.layout.activation_offload_fraction = fraction;
    return *this;
  }
  In& a2a_overlap(bool v = true) { in_.layout.ep_a2a_overlap = v; return *this; }
  In& tp_overlap(bool v = true) { in_.layout.tp_comm_overlap = v; return *this; }
  In& pao(bool v = true) { in_.layout.precision_aware_optimizer = v; return *this; }
  In& optimizer(Optimizer o) { in_.layout.optimizer = o; return *this; }
  In& stages(int first, int last) {
    in_.layout.first_stage_layers = first;
    in_.layout.last_stage_layers = last;
    return *this;
  }
  In& set(const std::string& key, const std::string& value) {
    in_.facts.settings.push_back({key, value});
    return *this;
  }
  In& env(const std::string& key, const std::string& value) {
    in_.facts.env.push_back({key, value});
    return *this;
  }
  RecordFacts& facts() { return in_.facts; }
  In& with(void (*f)(RecordFacts&)) {
    f(in_.facts);
    return *this;
  }
  RuleInput done() {
    const int mp = in_.layout.tp * in_.layout.pp * in_.layout.cp;
    in_.layout.dp = mp > 0 && in_.cluster.gpus % mp == 0 ? in_.cluster.gpus / mp : 0;
    return in_;
  }

 private:
  RuleInput in_;
};

std::vector<RuleCase> rule_cases();  // both halves, in table order
void add_parallel_cases(std::vector<RuleCase>& v);  // rule_cases_test.cpp
void add_feature_cases(std::vector<RuleCase>& v);   // rule_cases_features_test.cpp

}  // namespace rb::testing
