#include "recipebook/catalog/schema.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>

namespace rb {
namespace {

using ::testing::HasSubstr;

constexpr const char* kSchema = R"(
$schema: http://json-schema.org/draft-07/schema#
title: test
type: object
additionalProperties: false
required: [name, gpu]
definitions:
  degree: {type: integer, minimum: 1, description: a parallel degree}
  measurement:
    type: object
    additionalProperties: false
    required: [gpus]
    properties:
      gpus: {$ref: '#/definitions/degree'}
      notes: {type: string}
properties:
  name: {type: string, pattern: '^[a-z0-9_]+$', minLength: 1}
  kind: {enum: [library, performance, verified, measured]}
  schema_version: {const: 1}
  gpu:
    type: object
    additionalProperties: false
    required: [type, count]
    properties:
      type: {type: string}
      count: {$ref: '#/definitions/degree'}
      per_node: {type: [integer, 'null'], minimum: 1}
  layout:
    type: object
    additionalProperties: false
    properties:
      tp: {$ref: '#/definitions/degree'}
      pp: {$ref: '#/definitions/degree'}
      sequence_parallel: {type: boolean}
      ratio: {type: number, exclusiveMinimum: 0, maximum: 1}
  result:
    type: object
    properties:
      window: {type: array, items: {type: integer}, minItems: 2, maxItems: 2}
  pitfalls: {type: array, items: {type: string}, uniqueItems: true}
  env:
    type: object
    additionalProperties: {type: [string, integer]}
  offload:
    oneOf:
      - {type: 'null'}
      - {type: integer, minimum: 0}
      - {type: object, required: [layers], properties: {layers: {type: integer}}, additionalProperties: false}
  measurements: {type: array, items: {$ref: '#/definitions/measurement'}}
  x-internal: {type: string}
patternProperties:
  '^x_': {type: string}
)";

Schema compile_ok(const char* text) {
  auto tree = parse_yaml(text, "schema.yaml");
  EXPECT_TRUE(tree) << tree.error().str();
  auto s = Schema::compile(*tree);
  EXPECT_TRUE(s) << s.error().str();
  return *s;
}

Diagnostics check(const std::string& doc) {
  static const Schema schema = compile_ok(kSchema);
  auto tree = parse_yaml(doc, "r.yaml");
  EXPECT_TRUE(tree) << tree.error().str();
  return schema.validate(*tree);
}

std::string all(const Diagnostics& ds) {
  std::string out;
  for (const auto& d : ds) out += d.str() + "\n";
  return out;
}

TEST(Schema, ValidDocumentHasNoFindings) {
  const auto ds = check(R"(
name: qwen3_30b_a3b
kind: library
schema_version: 1
gpu: {type: H100, count: 8, per_node: null}
layout: {tp: 2, pp: 1, sequence_parallel: true, ratio: 1}
result: {window: [5, 19]}
pitfalls: [RB-A, RB-B]
env: {A: '1', B: 2}
offload: {layers: 2}
measurements: [{gpus: 8, notes: x}]
x_extra: hello
)");
  EXPECT_TRUE(ds.empty()) << all(ds);
}

TEST(Schema, TypeErrorNamesDottedPathAndPosition) {
  const auto ds = check("name: a\ngpu: {type: H100, count: 8}\nlayout:\n  tp: two\n");
  ASSERT_EQ(ds.size(), 1u) << all(ds);
  EXPECT_EQ(ds[0].rule_id, "RB-SCHEMA-TYPE");
  EXPECT_EQ(ds[0].where.str(), "r.yaml:4:7");
  EXPECT_THAT(ds[0].message, HasSubstr("`layout.tp` must be an integer, found a string ('two')"));
}

TEST(Schema, Yaml11BooleanSuggestsTrueOrFalse) {
  const auto ds = check("name: a\ngpu: {type: H100, count: 8}\nlayout: {sequence_parallel: yes}\n");
  ASSERT_EQ(ds.size(), 1u) << all(ds);
  EXPECT_EQ(ds[0].rule_id, "RB-SCHEMA-TYPE");
  EXPECT_THAT(ds[0].message, HasSubstr("must be a boolean"));
  EXPECT_EQ(ds[0].fix, "use true or false");
}

TEST(Schema, FloatIsNotAnIntegerButIntegerIsANumber) {
  auto ds = check("name: a\ngpu: {type: H100, count: 8.0}\nlayout: {ratio: 1}\n");
  ASSERT_EQ(ds.size(), 1u) << all(ds);
  EXPECT_THAT(ds[0].message, HasSubstr("`gpu.count` must be an integer, found a number (8.0)"));
  EXPECT_EQ(ds[0].fix, "write 8");
  ds = check("name: a\ngpu: {type: 3.12, count: '8'}\n");
  ASSERT_EQ(ds.size(), 2u) << all(ds);
  EXPECT_EQ(ds[0].fix, "quote it: '3.12'");
  EXPECT_EQ(ds[1].fix, "remove the quotes");
}

TEST(Schema, RequiredIsReportedAtTheParentMap) {
  const auto ds = check("name: a\ngpu:\n  type: H100\n");
  ASSERT_EQ(ds.size(), 1u) << all(ds);
  EXPECT_EQ(ds[0].rule_id, "RB-SCHEMA-REQUIRED");
  EXPECT_EQ(ds[0].where.line, 3);  // the map starts at its first key
  EXPECT_THAT(ds[0].message, HasSubstr("missing required key 'count' in `gpu`"));
  const auto top = check("gpu: {type: H100, count: 1}\n");
  ASSERT_EQ(top.size(), 1u) << all(top);
  EXPECT_EQ(top[0].message, "missing required key 'name'");
}

TEST(Schema, UnknownKeySuggestsTheNearest) {
  const auto ds = check("name: a\ngpu: {type: H100, count: 8}\nlayout:\n  tp: 1\n  ppp: 2\n");
  ASSERT_EQ(ds.size(), 1u) << all(ds);
  EXPECT_EQ(ds[0].rule_id, "RB-SCHEMA-UNKNOWN-KEY");
  EXPECT_EQ(ds[0].where.str(), "r.yaml:5:3");
  EXPECT_EQ(ds[0].message, "unknown key 'ppp' in `layout`");
  EXPECT_EQ(ds[0].fix, "did you mean 'pp'?");
  const auto far = check("name: a\ngpu: {type: H100, count: 8, zzzzzzzz: 1}\n");
  ASSERT_EQ(far.size(), 1u);
  EXPECT_EQ(far[0].fix, "allowed keys: type, count, per_node");
}

TEST(Schema, EnumConstRangePatternLengthItems) {
  const auto ds = check(R"(
name: Bad Name
kind: verifed
schema_version: 2
gpu: {type: H100, count: -8}
layout: {ratio: 0}
result: {window: [1]}
pitfalls: [a, b, a]
)");
  ASSERT_EQ(ds.size(), 7u) << all(ds);
  EXPECT_EQ(ds[0].rule_id, "RB-SCHEMA-PATTERN");
  EXPECT_THAT(ds[0].message,
              HasSubstr("`name` must match the pattern ^[a-z0-9_]+$, found a string ('Bad Name')"));
  EXPECT_EQ(ds[1].rule_id, "RB-SCHEMA-ENUM");
  EXPECT_THAT(ds[1].message, HasSubstr("must be one of library, performance, verified, measured"));
  EXPECT_EQ(ds[1].fix, "did you mean 'verified'?");
  EXPECT_EQ(ds[2].rule_id, "RB-SCHEMA-ENUM");
  EXPECT_THAT(ds[2].message, HasSubstr("`schema_version` must be 1"));
  EXPECT_EQ(ds[3].rule_id, "RB-SCHEMA-RANGE");
  EXPECT_EQ(ds[3].message, "`gpu.count` must be >= 1, found -8");
  EXPECT_EQ(ds[4].message, "`layout.ratio` must be > 0, found 0");
  EXPECT_EQ(ds[5].rule_id, "RB-SCHEMA-ITEMS");
  EXPECT_THAT(ds[5].message, HasSubstr("`result.window` must have at least 2 items, found 1"));
  EXPECT_EQ(ds[6].rule_id, "RB-SCHEMA-ITEMS");
  EXPECT_THAT(ds[6].message, HasSubstr("`pitfalls[2]` repeats item [0]"));
}

TEST(Schema, ListPathsAndRefsInsideItems) {
  const auto ds = check(
      "name: a\ngpu: {type: H100, count: 8}\nresult: {window: [5, x]}\n"
      "measurements:\n  - {gpus: 0}\n  - {notes: 1}\n");
  ASSERT_EQ(ds.size(), 4u) << all(ds);
  EXPECT_THAT(ds[0].message, HasSubstr("`result.window[1]` must be an integer"));
  EXPECT_EQ(ds[1].message, "`measurements[0].gpus` must be >= 1, found 0");
  EXPECT_EQ(ds[2].message, "missing required key 'gpus' in `measurements[1]`");
  EXPECT_THAT(ds[3].message, HasSubstr("`measurements[1].notes` must be a string"));
}

TEST(Schema, OneOfReportsTheIntendedForm) {
  auto ds = check("name: a\ngpu: {type: H100, count: 8}\noffload: {layerz: 2}\n");
  ASSERT_EQ(ds.size(), 2u) << all(ds);  // the map form: missing 'layers' and unknown 'layerz'
  EXPECT_EQ(ds[0].rule_id, "RB-SCHEMA-REQUIRED");
  EXPECT_EQ(ds[1].fix, "did you mean 'layers'?");
  ds = check("name: a\ngpu: {type: H100, count: 8}\noffload: -1\n");
  ASSERT_EQ(ds.size(), 1u) << all(ds);
  EXPECT_EQ(ds[0].rule_id, "RB-SCHEMA-RANGE");
  ds = check("name: a\ngpu: {type: H100, count: 8}\noffload: [1]\n");
  ASSERT_EQ(ds.size(), 1u) << all(ds);
  EXPECT_EQ(ds[0].rule_id, "RB-SCHEMA-ONEOF");
  EXPECT_THAT(ds[0].message, HasSubstr("`offload` must be an integer, a map or null, found a list"));
}

TEST(Schema, AdditionalPropertiesSchemaAndPatternProperties) {
  const auto ds = check("name: a\ngpu: {type: H100, count: 8}\nenv: {A: [1]}\nx_a: 3\n");
  ASSERT_EQ(ds.size(), 2u) << all(ds);
  EXPECT_THAT(ds[0].message, HasSubstr("`env.A` must be a string or an integer, found a list"));
  EXPECT_THAT(ds[1].message, HasSubstr("`x_a` must be a string"));
}

TEST(Schema, RootTypeAndRootKeys) {
  const auto ds = check("- a\n");
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_THAT(ds[0].message, HasSubstr("the document must be a map, found a list"));
  const Schema s = compile_ok(kSchema);
  const auto keys = s.root_keys();
  ASSERT_FALSE(keys.empty());
  EXPECT_EQ(keys.front(), "name");
}

TEST(Schema, CompileRejectsWhatItCannotCheck) {
  auto bad = [](const char* text) {
    auto tree = parse_yaml(text, "s.yaml");
    EXPECT_TRUE(tree);
    auto s = Schema::compile(*tree);
    EXPECT_FALSE(s);
    return s ? std::string() : s.error().str();
  };
  EXPECT_THAT(bad("type: object\nproperties:\n  a: {requried: [x]}\n"),
              HasSubstr("s.yaml:3:7: invalid schema: unsupported keyword 'requried'"));
  EXPECT_THAT(bad("type: strin\n"), HasSubstr("unknown type 'strin'"));
  EXPECT_THAT(bad("pattern: '(['\n"), HasSubstr("not a valid regular expression"));
  EXPECT_THAT(bad("$ref: '#/definitions/nope'\n"), HasSubstr("names no definition"));
  EXPECT_THAT(bad("minimum: x\n"), HasSubstr("minimum must be a number"));
}

TEST(Schema, BooleanSchemasAndNotAndAllOf) {
  const Schema s = compile_ok(R"(
type: object
properties:
  never: false
  always: true
  odd: {allOf: [{type: integer}, {not: {multipleOf: 2}}]}
)");
  auto t = parse_yaml("never: 1\nalways: [x]\nodd: 4\n", "d.yaml");
  const auto ds = s.validate(*t);
  ASSERT_EQ(ds.size(), 2u) << all(ds);
  EXPECT_THAT(ds[0].message, HasSubstr("`never` is not allowed here"));
  EXPECT_THAT(ds[1].message, HasSubstr("`odd` has a form that is not allowed"));
}

TEST(Schema, RefCycleInSchemaDoesNotHang) {
  const Schema s = compile_ok("definitions:\n  a: {$ref: '#/definitions/a'}\n$ref: '#/definitions/a'\n");
  auto t = parse_yaml("x: 1\n", "d.yaml");
  EXPECT_TRUE(s.validate(*t).empty());
}

TEST(Schema, NeverThrowsOnArbitraryDocuments) {
  const Schema s = compile_ok(kSchema);
  EXPECT_TRUE(rc::check("validate random yaml", [&s](const std::string& text) {
    auto t = parse_yaml(text, "f");
    if (t) (void)s.validate(*t);
  }));
}

}  // namespace
}  // namespace rb
