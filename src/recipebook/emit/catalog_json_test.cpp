// model_architecture_json writes a model as the catalog's model YAML holds it, and the model YAML
// reader reads it back to the same model: every built-in model whose architecture the format holds,
// including those read from a config.json (Step-3.5-Flash's sliding-layer shape, head gate and dense
// MTP layers; GLM-5.1's DSA indexer), which the YAML reader used to drop.
#include "recipebook/emit/catalog_json.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "recipebook/catalog/model_yaml.hpp"
#include "recipebook/catalog/test_catalog.hpp"
#include "recipebook/catalog/yaml_tree.hpp"
#include "recipebook/estimate/params.hpp"

namespace rb {
namespace {

std::optional<Model> read_back(const Model& m, const Json& arch) {
  Json doc;
  doc["name"] = m.name;
  doc["source"] = "round trip";
  doc["architecture"] = arch;
  auto tree = parse_yaml(doc.dump(2), m.name + ".yaml");  // JSON is YAML
  EXPECT_TRUE(tree) << tree.error().str();
  if (!tree) return std::nullopt;
  Diagnostics ds;
  auto back = model_from_yaml(*tree, ds);
  for (const auto& d : ds) ADD_FAILURE() << m.name << ": " << d.str();
  return back;
}

TEST(ModelArchitectureJson, EveryBuiltinModelRoundTripsThroughTheModelYaml) {
  int written = 0;
  for (const auto& e : builtin().models()) {
    const Model& m = e.model;
    const auto arch = model_architecture_json(m);
    if (!arch) continue;
    SCOPED_TRACE(m.name);
    ++written;
    const auto back = read_back(m, *arch);
    ASSERT_TRUE(back);
    EXPECT_EQ(model_architecture_json(*back), arch);
    EXPECT_EQ(back->layers, m.layers);
    const ParamCounts a = count_params(m), b = count_params(*back);
    EXPECT_EQ(a.total, b.total);
    EXPECT_EQ(a.active, b.active);
    EXPECT_EQ(a.mtp, b.mtp);
  }
  EXPECT_GT(written, 50);
}

// A built-in model and the model its written architecture reads back as.
std::pair<Model, Model> round_trip(const std::string& name) {
  const auto m = builtin().find_model(name);
  EXPECT_TRUE(m) << name;
  if (!m) return {};
  const auto arch = model_architecture_json(*m);
  EXPECT_TRUE(arch) << name;
  auto back = arch ? read_back(*m, *arch) : std::nullopt;
  EXPECT_TRUE(back) << name;
  return {*m, back.value_or(Model{})};
}

TEST(ModelArchitectureJson, Step35AndDsaFieldsSurvive) {
  const auto [step, back] = round_trip("Step-3.5-Flash");
  ASSERT_GT(step.sliding_attn.heads, 0);  // read from its config.json
  ASSERT_TRUE(step.mtp_dense);
  EXPECT_EQ(back.sliding_attn.heads, step.sliding_attn.heads);
  EXPECT_EQ(back.sliding_attn.kv_heads, step.sliding_attn.kv_heads);
  EXPECT_EQ(back.sliding_attn.head_dim, step.sliding_attn.head_dim);
  EXPECT_EQ(back.attn.head_gate, step.attn.head_gate);
  EXPECT_TRUE(back.mtp_dense);

  const auto [glm, gback] = round_trip("GLM-5.1");
  ASSERT_GT(glm.mla.index_heads, 0);
  EXPECT_EQ(gback.mla.index_heads, glm.mla.index_heads);
  EXPECT_EQ(gback.mla.index_head_dim, glm.mla.index_head_dim);
  EXPECT_EQ(gback.mla.index_topk, glm.mla.index_topk);
}

}  // namespace
}  // namespace rb
