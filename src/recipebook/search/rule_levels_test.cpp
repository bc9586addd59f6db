// The planner judges a rule as soon as the search dimensions of the fields its row reads are chosen
// (rule_levels.hpp). These tests hold the rows to that: every field a rule names is one of the
// layout table's, and a rule's verdict does not change with a dimension it does not read.
#include "recipebook/search/rule_levels.hpp"

#include <gtest/gtest.h>

#include <array>
#include <map>
#include <string>
#include <vector>

#include "recipebook/core/layout_fields.hpp"
#include "recipebook/estimate/test_hardware.hpp"
#include "recipebook/estimate/test_models.hpp"
#include "recipebook/rules/rule.hpp"
#include "recipebook/search/space.hpp"
#include "recipebook/search/test_plan.hpp"
#include "recipebook/search/walk.hpp"

namespace rb {
namespace {

// The names in a rule's `reads`.
std::vector<std::string> names(std::string_view reads) {
  std::vector<std::string> out;
  while (!reads.empty()) {
    const size_t comma = reads.find(',');
    out.emplace_back(reads.substr(0, comma));
    reads = comma == std::string_view::npos ? std::string_view() : reads.substr(comma + 1);
  }
  return out;
}

TEST(RuleLevels, EveryRuleReadsFieldsOfTheLayoutTable) {
  for (const Rule& r : all_rules()) {
    if (r.scope == RuleScope::kRecord) {
      EXPECT_TRUE(r.reads.empty()) << r.id << ": the planner does not evaluate record rules";
      continue;
    }
    EXPECT_FALSE(r.reads.empty()) << r.id << " names no layout field it reads (rule_table.cpp)";
    for (const std::string& key : names(r.reads))
      EXPECT_TRUE(key == "dp" || find_layout_field(key) != nullptr)
          << r.id << " reads '" << key << "', which is not a row of core/layout_fields.cpp";
    EXPECT_NE(rule_dims(r.id), kUnknownRuleDims) << r.id;
  }
  EXPECT_EQ(rule_dims("RB-NO-SUCH-RULE"), kUnknownRuleDims);
}

// Every dimension the planner enumerates sets at least one field of the table, and a field plan
// fixes (takes as given in every layout) is set by none.
TEST(RuleLevels, EverySearchDimensionIsAFieldOfTheTable) {
  std::array<int, kNumSearchDims> rows{};
  for (const LayoutField& f : layout_fields()) {
    if (f.plan == PlanRole::kFixed) {
      EXPECT_EQ(f.search, SearchDim::kNone) << f.key;
    }
    if (f.plan == PlanRole::kSearched) {
      EXPECT_NE(f.search, SearchDim::kNone) << f.key;
    }
    if (f.search != SearchDim::kNone) ++rows[static_cast<size_t>(f.search)];
  }
  for (int d = 0; d < kNumSearchDims; ++d) EXPECT_GT(rows[static_cast<size_t>(d)], 0) << "dimension " << d;
  EXPECT_EQ(search_dims_of("tp,etp"), dim_bit(SearchDim::kTp) | dim_bit(SearchDim::kEtp));
  EXPECT_EQ(search_dims_of("dp"), dim_bit(SearchDim::kTp) | dim_bit(SearchDim::kCp) | dim_bit(SearchDim::kPipeline));
  EXPECT_EQ(search_dims_of("cuda_graph"), 0u);
  EXPECT_EQ(search_dims_of("tp,no_such_field"), std::nullopt);
}

// Small models of the kinds the rules tell apart (dense GQA, MoE, MoE with expert biases, Mamba and
// Gated DeltaNet hybrids, MLA + MoE, few heads, experts whose width only 2 divides), each cut to a
// few layers to keep the spaces small.
std::vector<Model> small_models() {
  Model narrow = test::qwen3_30b_a3b();
  narrow.name = "MoE with 770-wide experts";
  narrow.moe.ffn = 770;  // ETP 4 does not divide it
  std::vector<Model> out{test::qwen3_0_6b(),  test::qwen3_30b_a3b(), narrow,
                         test::gpt_oss_20b(), test::nemotron_h_8b(), test::qwen35_9b(),
                         test::gemma3_4b(),   test::deepseek_v3()};
  for (Model& m : out) {
    if (m.layers.size() > 12) m.layers.resize(12);
    m.mtp_layers = 0;
  }
  return out;
}

// The fields plan keeps fixed, in the combinations that make the rules on them fire.
std::vector<Layout> bases() {
  std::vector<Layout> out{base_layout()};
  Layout graphs = base_layout();
  graphs.cuda_graph = CudaGraph::kTransformerEngine;
  graphs.cuda_graph_scope = kCgAttn | kCgMoeRouter;
  graphs.ep_a2a_overlap = true;
  graphs.tp_comm_overlap = true;
  out.push_back(graphs);
  Layout offload = base_layout();
  offload.cpu_offload_layers = 2;
  offload.optimizer_offload_fraction = 0.5;
  out.push_back(offload);
  return out;
}

// "bf16 TP 2 CP 1 PP 2 VP 1 EP 4 ETP 1 alltoall selective(core_attn) FSDP 0 MBS 1".
std::string text(const Layout& l) {
  return std::string(precision_name(l.precision)) + " TP " + std::to_string(l.tp) + " CP " + std::to_string(l.cp) +
         " PP " + std::to_string(l.pp) + " VP " + std::to_string(l.vp) + " EP " + std::to_string(l.ep) + " ETP " +
         std::to_string(l.etp) + " " + std::string(dispatcher_name(l.dispatcher)) + " " +
         recompute_option_name({l.recompute, l.recompute_modules}) + " FSDP " + std::to_string(l.fsdp ? 1 : 0) +
         " MBS " + std::to_string(l.mbs);
}

// A layout of the space and the value of each dimension in it.
struct Point {
  Layout layout;
  std::array<int, kNumSearchDims> at{};
};

// For each rule the planner could evaluate: two layouts that agree on every dimension the rule
// reads (and on the GPU count) get the same verdict. The planner relies on it: a rule judged at an
// outer level rejects every completion of the prefix.
TEST(RuleLevels, AVerdictDependsOnlyOnTheDimensionsTheRuleReads) {
  const auto rules = all_rules();
  std::vector<uint32_t> dims;
  for (const Rule& r : rules) dims.push_back(rule_dims(r.id));
  size_t layouts = 0;
  for (const Model& m : small_models()) {
    const test::PlanSetup setup(m, test::h100());
    for (const Layout& base : bases()) {
      PlanRequest req = test::request(8, 4096, 24);
      req.fixed.max_mbs = 2;
      req.fixed.allow("precision",
                      {static_cast<SearchValue>(Precision::kBf16), static_cast<SearchValue>(Precision::kFp8Ds),
                       static_cast<SearchValue>(Precision::kMxfp8)});
      req.fixed.base = base;
      const Space sp(m, req);
      std::vector<Point> points;
      for (const int gpus : {6, 8}) {
        const Cluster c{gpus, 8};
        for (size_t pi = 0; pi < sp.precisions().size(); ++pi)
          for (const int tp : sp.tp(gpus))
            for (const int cp : sp.cp(gpus, tp))
              for (const CpComm cc : sp.cp_comms(cp))
                for (const int pp : sp.pp(gpus, tp, cp))
                  for (const int vp : sp.vp(pp))
                    for (const int ep : sp.ep())
                      for (const int etp : sp.etp(tp))
                        for (const Dispatcher d : sp.dispatchers(ep))
                          for (size_t ri = 0; ri < sp.recompute().size(); ++ri)
                            for (const int f : sp.fsdp())
                              for (const int mbs : sp.mbs()) {
                                Task t{
                                    0, gpus, sp.precisions()[pi], tp, cp, pp, vp, cc, stage_split(sp.layers(), pp, vp)};
                                Point p{task_layout(t, base), {}};
                                p.layout.ep = ep;
                                p.layout.etp = etp;
                                p.layout.dispatcher = d;
                                apply_recompute(p.layout, sp.recompute()[ri]);
                                p.layout.fsdp = f != 0;
                                p.layout.mbs = mbs;
                                p.at = {static_cast<int>(pi),
                                        tp,
                                        cp * 4 + static_cast<int>(cc),
                                        pp * 1000 + vp,
                                        ep,
                                        etp,
                                        static_cast<int>(d),
                                        static_cast<int>(ri),
                                        f,
                                        mbs};
                                points.push_back(p);
                              }
        const RecordFacts facts;
        for (size_t ri = 0; ri < rules.size(); ++ri) {
          if (rules[ri].scope == RuleScope::kRecord) continue;
          std::map<std::array<int, kNumSearchDims>, std::pair<bool, const Point*>> seen;
          for (const Point& p : points) {
            std::array<int, kNumSearchDims> key{};
            for (int d = 0; d < kNumSearchDims; ++d)
              if ((dims[ri] & (1u << d)) != 0) key[static_cast<size_t>(d)] = p.at[static_cast<size_t>(d)];
            const bool fails = rules[ri].check(RuleContext(setup.rules, req.workload, c, p.layout, facts), nullptr);
            const auto [it, added] = seen.try_emplace(key, fails, &p);
            if (added || it->second.first == fails) continue;
            const Layout& a = it->second.second->layout;
            const Layout& b = p.layout;
            ADD_FAILURE() << rules[ri].id << " (reads " << rules[ri].reads << ") on " << m.name << ", " << gpus
                          << " GPUs: " << (it->second.first ? "fails" : "passes") << " with " << text(a) << " but "
                          << (fails ? "fails" : "passes") << " with " << text(b)
                          << ", which differ only in dimensions it does not name";
            break;
          }
        }
        layouts += points.size();
        points.clear();
      }
    }
  }
  EXPECT_GT(layouts, 10000u);
}

}  // namespace
}  // namespace rb
