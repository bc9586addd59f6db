// The searched layout fields from plan's flags to the search: each row plan has a flag for reads
// its text into Constraints (core/layout_fields.hpp read_plan_values), Space enumerates what is
// allowed, and the infeasibility advice knows which dimensions are fixed; no field is named here,
// so a new searched row is covered as soon as it exists.
#include "recipebook/search/space.hpp"

#include <gtest/gtest.h>

#include "recipebook/estimate/test_models.hpp"
#include "recipebook/search/advice.hpp"
#include "recipebook/search/test_plan.hpp"

namespace rb {
namespace {

// A layout whose every searched field is away from Layout's default.
Layout sample_layout() {
  Layout l = base_layout();
  l.tp = 2;
  l.pp = 2;
  l.vp = 3;
  l.cp = 2;
  l.cp_comm = CpComm::kA2a;
  l.ep = 4;
  l.etp = 2;
  l.mbs = 2;
  l.fsdp = true;
  l.precision = Precision::kFp8Cs;
  l.recompute = Recompute::kFull;
  l.dispatcher = Dispatcher::kFlexHybridep;
  return l;
}

TEST(SearchFields, EveryPlanFlagFixesItsFieldAndDimension) {
  const Layout want = sample_layout();
  PlanRequest req = test::request(64, 4096, 256);
  uint32_t dims = 0;
  int rows = 0;
  for (const LayoutField& r : layout_fields()) {
    if (!plan_searches(r)) continue;
    ++rows;
    EXPECT_NE(r.search, SearchDim::kNone) << r.key << ": a field plan searches sets a dimension";
    const std::string text = field_text(r, want);
    ASSERT_NE(text, field_text(r, base_layout())) << r.key << ": give sample_layout() a value away from the default";
    const auto values = read_plan_values(r, text);
    ASSERT_TRUE(values) << r.key << " '" << text << "': " << values.error().message;
    ASSERT_EQ(values->size(), 1u) << r.key << " '" << text << "'";
    Layout got = base_layout();
    set_search_value(r, got, values->front());
    EXPECT_EQ(field_text(r, got), text) << r.key;
    req.fixed.allow(r.key, *values);
    dims |= dim_bit(r.search);
  }
  EXPECT_GE(rows, 10);
  const Model m = test::qwen3_30b_a3b();
  const Space all(m, req);
  EXPECT_EQ(fixed_search_dims(all), dims);
  // Freeing one field frees its dimension, and only that one.
  for (const LayoutField& r : layout_fields()) {
    if (!plan_searches(r)) continue;
    PlanRequest one = req;
    one.fixed.unfix(r.key);
    EXPECT_EQ(fixed_search_dims(Space(m, one)), dims & ~dim_bit(r.search)) << r.key;
  }
}

TEST(SearchFields, AnyAndListsNarrowTheSearchedList) {
  const LayoutField& tp = layout_field("tp");
  for (const char* any : {"", "any", "0"}) {
    const auto v = read_plan_values(tp, any);
    ASSERT_TRUE(v);
    EXPECT_TRUE(v->empty()) << any;
  }
  const auto v = read_plan_values(tp, "4,2,4");
  ASSERT_TRUE(v);
  EXPECT_EQ(*v, (std::vector<SearchValue>{2, 4}));
  EXPECT_FALSE(read_plan_values(tp, "2,-1"));
  EXPECT_FALSE(read_plan_values(tp, "two"));
  EXPECT_FALSE(read_plan_values(layout_field("fsdp"), "maybe"));
  PlanRequest req = test::request(8, 4096, 64);
  req.fixed.allow("tp", *v);
  req.fixed.allow("dispatcher", *read_plan_values(layout_field("dispatcher"), "alltoall,flex_deepep"));
  const Space sp(test::qwen3_30b_a3b(), req);
  EXPECT_EQ(sp.tp(8), (std::vector<int>{2, 4}));
  EXPECT_EQ(sp.dispatchers(8), (std::vector<Dispatcher>{Dispatcher::kAlltoall, Dispatcher::kFlexDeepep}));
  EXPECT_EQ(sp.dispatcher_count(1), 2u);
  EXPECT_EQ(fixed_search_dims(sp) & (dim_bit(SearchDim::kTp) | dim_bit(SearchDim::kDispatcher)), 0u);
}

// "selective" is each selective option the search tries on the model (Megatron's default and the
// one with the model's extra modules).
TEST(SearchFields, SelectiveIsEachSelectiveOption) {
  PlanRequest req = test::request(8, 4096, 64);
  req.fixed.allow("recompute", *read_plan_values(layout_field("recompute"), "selective"));
  const Model m = test::qwen3_30b_a3b();
  const Space sp(m, req);
  std::vector<RecomputeOption> want;
  for (const RecomputeOption& o : recompute_options(m))
    if (o.kind == Recompute::kSelective) want.push_back(o);
  ASSERT_EQ(sp.recompute().size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(sp.recompute()[i].modules, want[i].modules);
  EXPECT_EQ(fixed_search_dims(sp) & dim_bit(SearchDim::kRecompute), 0u);
}

}  // namespace
}  // namespace rb
