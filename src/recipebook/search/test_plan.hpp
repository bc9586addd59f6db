// Test-only: a model and a GPU prepared for plan(), and an exact comparison of two PlanResults.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "recipebook/estimate/prepared.hpp"
#include "recipebook/rules/prepared.hpp"
#include "recipebook/search/planner.hpp"

namespace rb::test {

// Owns what PlanInputs points at (not copyable: the rule model points at `model` and `hw`).
struct PlanSetup {
  Model model;
  Hardware hw;
  PreparedModel pm;
  PreparedRuleModel rules;

  PlanSetup(Model m, Hardware h) : model(std::move(m)), hw(std::move(h)), pm(prepare(model)) {
    rules = prepare_rule_model(model, &hw);
  }
  PlanSetup(const PlanSetup&) = delete;
  PlanSetup& operator=(const PlanSetup&) = delete;
  [[nodiscard]] PlanInputs inputs() const { return {&pm, &rules, &hw}; }
};

inline PlanRequest request(int gpus, int64_t seq, int64_t gbs) {
  PlanRequest r;
  r.gpu_counts = {gpus};
  r.workload.seq = seq;
  r.workload.gbs = gbs;
  return r;
}

inline std::string key_str(const LayoutKey& k) {
  std::string s;
  for (int v : k) s += std::to_string(v) + " ";
  return s;
}

// Keys and scores of two candidate lists, in order.
inline ::testing::AssertionResult same_candidates(const std::vector<Candidate>& a, const std::vector<Candidate>& b,
                                                  const char* what) {
  if (a.size() != b.size())
    return ::testing::AssertionFailure() << what << ": " << a.size() << " vs " << b.size() << " candidates";
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].key != b[i].key)
      return ::testing::AssertionFailure()
             << what << "[" << i << "]: " << key_str(a[i].key) << "vs " << key_str(b[i].key);
    if (a[i].score != b[i].score) return ::testing::AssertionFailure() << what << "[" << i << "]: score differs";
  }
  return ::testing::AssertionSuccess();
}

// Everything a user sees: counts (not the work counters), top-k, Pareto front, best per count, closest.
inline ::testing::AssertionResult same_result(const PlanResult& a, const PlanResult& b) {
  const PlanCounts& x = a.counts;
  const PlanCounts& y = b.counts;
  if (x.seen != y.seen) return ::testing::AssertionFailure() << "seen " << x.seen << " vs " << y.seen;
  if (x.rules != y.rules) return ::testing::AssertionFailure() << "rules " << x.rules << " vs " << y.rules;
  if (x.by_rule != y.by_rule) {
    for (size_t i = 0; i < x.by_rule.size(); ++i)
      if (x.by_rule[i] != y.by_rule[i])
        return ::testing::AssertionFailure() << "rule #" << i << ": " << x.by_rule[i] << " vs " << y.by_rule[i];
  }
  if (x.memory != y.memory) return ::testing::AssertionFailure() << "memory " << x.memory << " vs " << y.memory;
  if (x.estimator != y.estimator || x.by_estimator != y.by_estimator)
    return ::testing::AssertionFailure() << "estimator " << x.estimator << " vs " << y.estimator;
  if (x.fit != y.fit) return ::testing::AssertionFailure() << "fit " << x.fit << " vs " << y.fit;
  if (x.offloaded != y.offloaded)
    return ::testing::AssertionFailure() << "offloaded " << x.offloaded << " vs " << y.offloaded;
  if (auto r = same_candidates(a.top, b.top, "top"); !r) return r;
  if (auto r = same_candidates(a.pareto, b.pareto, "pareto"); !r) return r;
  if (auto r = same_candidates(a.best_per_count, b.best_per_count, "best per count"); !r) return r;
  if (auto r = same_candidates(a.closest, b.closest, "closest"); !r) return r;
  return ::testing::AssertionSuccess();
}

}  // namespace rb::test
