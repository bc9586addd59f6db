#include "recipebook/core/layout.hpp"

#include <gtest/gtest.h>


namespace rb {
namespace {

TEST(LayoutNames, RecomputeRoundTripsThroughItsName) {
  for (Recompute r : {Recompute::kNone, Recompute::kSelective, Recompute::kFull})
    EXPECT_EQ(parse_recompute(recompute_name(r)), r);
  EXPECT_EQ(parse_recompute("FULL"), Recompute::kFull);
  EXPECT_FALSE(parse_recompute("partial"));
}

TEST(LayoutNames, ModuleAndScopeListsBecomeMasks) {
  std::string bad;
  EXPECT_EQ(parse_recompute_modules("core_attn,moe_act", &bad), kRcCoreAttn | kRcMoeAct);
  EXPECT_EQ(parse_recompute_modules("[core_attn, mlp]", &bad), kRcCoreAttn | kRcMlp);
  EXPECT_EQ(parse_recompute_modules("", &bad), 0u);
  EXPECT_FALSE(parse_recompute_modules("core_attn,attn", &bad));
  EXPECT_EQ(bad, "attn");
  EXPECT_EQ(parse_cuda_graph_scopes("attn moe_router", &bad), kCgAttn | kCgMoeRouter);
  EXPECT_FALSE(parse_cuda_graph_scopes("attn,core_attn", &bad));
  EXPECT_EQ(bad, "core_attn");
  // Every name the hints offer parses, and the round trip through the list string holds.
  for (const std::string& m : recompute_module_names()) EXPECT_TRUE(parse_recompute_module(m)) << m;
  const uint32_t all = *parse_recompute_modules(recompute_module_choices(), &bad);
  EXPECT_EQ(parse_recompute_modules(recompute_modules_str(all), &bad), all);
  EXPECT_TRUE(parse_cuda_graph_scopes(cuda_graph_scope_choices(), &bad));
}

}  // namespace
}  // namespace rb
