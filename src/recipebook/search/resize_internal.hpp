// Internal to resize*.cpp: the state the resizing steps share (resize_steps.cpp) and the pipeline
// split they and the modelled layout use (resize_util.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "recipebook/search/resize.hpp"
#include "recipebook/search/space.hpp"

namespace rb {

// The pipeline split for (pp, vp), or nullopt when none exists: uniform when it divides, else the
// planner's uneven first/last-stage split (space.hpp stage_split, Megatron-Core transformer_config.py).
std::optional<StageSplit> split_for(int layers, int pp, int vp);

namespace resize_detail {

inline std::string num(int64_t v) { return std::to_string(v); }

struct State {
  const ResizeInputs& in;
  const ResizeTo& to;
  Layout l;
  Workload w;
  Cluster c;
  int64_t gbs_target = 0;  // the batch asked for (or the recipe's); w.gbs is it rounded to the unit
  int limit = 0;           // NVLink limit for TP
  std::vector<Change> changes;
  std::vector<std::string> notes;
  std::vector<std::string> baseline_errors;  // error rules the recipe breaks as recorded (not held against resizing)

  [[nodiscard]] int gpus() const { return c.gpus; }
  [[nodiscard]] int layers() const { return in.rules->layers; }
  [[nodiscard]] bool moe() const { return in.rules->experts > 0; }

  void change(std::string field, std::string from, std::string to_v, std::string reason, std::string rule) {
    if (from == to_v) return;
    changes.push_back({std::move(field), std::move(from), std::move(to_v), std::move(reason), std::move(rule)});
  }
};

// MBS x DP (x PP with an interleaved schedule): what GBS must be a multiple of.
int64_t batch_unit(const Layout& l);
// DP and SP follow from the degrees (rules 5 and 7).
void settle(const State& s, Layout& l);
Workload workload_for(const State& s, const Layout& l);
// The estimate and the fast rule check of a candidate (on its modelled layout).
Estimate eval(const State& s, Layout l);
bool allowed(const State& s, Layout l);
// The error rule ids check_layout reports (no record facts).
std::vector<std::string> error_rules(const PreparedRuleModel& pm, const Workload& w, const Cluster& c, const Layout& l);
bool ep_fits(const State& s, const Layout& l, int ep, int etp);
// EP (and ETP) down to what the stage's GPUs and the experts allow, with the change recorded.
void fix_ep(State& s);
bool set_split(const State& s, Layout& x);
// PP, with the VP rule 3 asks for and the stage split; records both changes.
void set_pp(State& s, int pp, const std::string& reason, const std::string& rule);
// Steps 2-4 of resize.hpp.
void resize_cp(State& s, int64_t seq0, int64_t seq);
void resize_tp(State& s);
void resize_to_gpus(State& s, int64_t seq);

}  // namespace resize_detail

}  // namespace rb
