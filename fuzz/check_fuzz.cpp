// libFuzzer target for the loader and the checker: any bytes go through YAML parsing, schema
// validation, the typed recipe view, the record's semantic checks and the layout rules. It must
// never crash, hang or leak; findings are fine. Built with clang's libFuzzer by the `fuzz` preset,
// and replayed over fuzz/corpus/ as an ordinary test by fuzz_replay (replay_main.cpp).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/catalog/embedded.hpp"
#include "recipebook/catalog/record_check.hpp"
#include "recipebook/catalog/record_facts.hpp"
#include "recipebook/catalog/recipe_yaml.hpp"
#include "recipebook/catalog/schema.hpp"
#include "recipebook/catalog/yaml_tree.hpp"
#include "recipebook/rules/check_layout.hpp"

namespace {

struct World {
  rb::Catalog catalog;
  std::optional<rb::Schema> schema;
};

const World& world() {
  static const World w = [] {
    World out{*rb::Catalog::load(), std::nullopt};
    for (const auto& f : rb::embedded_catalog()) {
      if (f.path != "schema/recipe.schema.yaml") continue;
      auto tree = rb::parse_yaml(f.text, "schema");
      if (tree) {
        auto s = rb::Schema::compile(*tree);
        if (s) out.schema = std::move(*s);
      }
    }
    return out;
  }();
  return w;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const World& w = world();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto tree = rb::parse_yaml(text, "fuzz.yaml");
  if (!tree || !w.schema) return 0;
  rb::Diagnostics ds = w.schema->validate(*tree);
  (void)rb::to_json_text(*tree);
  if (!ds.empty()) return 0;
  auto recipe = rb::recipe_from_yaml(*tree, "fuzz", ds);
  (void)rb::check_record(*tree, w.catalog);
  if (!recipe || !recipe->layout_known) return 0;
  auto model = w.catalog.find_model(recipe->model);
  if (!model || !model->has_architecture) return 0;
  rb::RuleInput in;
  in.model = &*model;
  in.workload.mode = recipe->mode;
  in.workload.seq = recipe->seq;
  in.workload.gbs = recipe->gbs;
  in.cluster.gpus = recipe->gpus;
  in.layout = recipe->layout;
  in.facts = rb::record_facts(*tree, *recipe, nullptr);
  (void)rb::check_layout(in);
  return 0;
}
