#include "recipebook/catalog/yaml_tree.hpp"

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <filesystem>
#include <fstream>

#include "recipebook/catalog/yaml_scalar.hpp"

namespace rb {
namespace {

YNode parse_ok(std::string_view text) {
  auto r = parse_yaml(text, "t.yaml");
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().str());
  return r ? *r : YNode{};
}

std::string parse_err(std::string_view text) {
  auto r = parse_yaml(text, "t.yaml");
  EXPECT_FALSE(r.has_value()) << "parsed: " << (r ? to_json_text(*r) : "");
  return r ? std::string() : r.error().str();
}

TEST(YamlTree, KeepsPositionsOfKeysAndValues) {
  const YNode root = parse_ok("name: x\nlayout:\n  tp: 2\n  pp: [1, 2]\n");
  ASSERT_TRUE(root.is_map());
  EXPECT_EQ(root.where.line, 1);
  const YNode* layout = root.get("layout");
  ASSERT_NE(layout, nullptr);
  ASSERT_TRUE(layout->is_map());
  EXPECT_EQ(layout->map[0].first.text, "tp");
  EXPECT_EQ(layout->map[0].first.where.line, 3);
  EXPECT_EQ(layout->map[0].first.where.col, 3);
  EXPECT_EQ(layout->map[0].second.where.line, 3);
  EXPECT_EQ(layout->map[0].second.where.col, 7);
  const YNode* pp = layout->get("pp");
  ASSERT_TRUE(pp && pp->is_seq());
  ASSERT_EQ(pp->seq.size(), 2u);
  EXPECT_EQ(pp->seq[1].where.line, 4);
  EXPECT_EQ(pp->seq[1].where.col, 11);
  EXPECT_EQ(pp->seq[1].as_int(), 2);
  EXPECT_EQ(layout->get("tp")->where.file, "t.yaml");
}

TEST(YamlTree, DuplicateKeyIsAnErrorAtTheSecondOccurrence) {
  const std::string e = parse_err("a: 1\nb:\n  x: 1\n  x: 2\n");
  EXPECT_EQ(e.rfind("t.yaml:4:3: duplicate key 'x' (first at line 3)", 0), 0u) << e;
  // The same key in different maps is fine.
  parse_ok("a: {x: 1}\nb: {x: 2}\n");
}

struct TypeCase {
  const char* text;
  YNode::ScalarType type;
};

class CoreSchemaTyping : public ::testing::TestWithParam<TypeCase> {};

TEST_P(CoreSchemaTyping, PlainScalar) {
  const auto& c = GetParam();
  const YNode root = parse_ok(std::string("v: ") + c.text + "\n");
  const YNode* v = root.get("v");
  ASSERT_NE(v, nullptr);
  if (c.type == YNode::ScalarType::kNone) {
    EXPECT_TRUE(v->is_null()) << c.text;
  } else {
    ASSERT_TRUE(v->is_scalar()) << c.text;
    EXPECT_EQ(v->type, c.type) << c.text;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Yaml12, CoreSchemaTyping,
    ::testing::Values(
        TypeCase{"null", YNode::ScalarType::kNone}, TypeCase{"~", YNode::ScalarType::kNone},
        TypeCase{"", YNode::ScalarType::kNone}, TypeCase{"NULL", YNode::ScalarType::kNone},
        TypeCase{"true", YNode::ScalarType::kBool}, TypeCase{"True", YNode::ScalarType::kBool},
        TypeCase{"FALSE", YNode::ScalarType::kBool}, TypeCase{"yes", YNode::ScalarType::kString},
        TypeCase{"no", YNode::ScalarType::kString}, TypeCase{"on", YNode::ScalarType::kString},
        TypeCase{"Off", YNode::ScalarType::kString}, TypeCase{"tRUE", YNode::ScalarType::kString},
        TypeCase{"42", YNode::ScalarType::kInt}, TypeCase{"-7", YNode::ScalarType::kInt},
        TypeCase{"+3", YNode::ScalarType::kInt}, TypeCase{"0x1F", YNode::ScalarType::kInt},
        TypeCase{"0o17", YNode::ScalarType::kInt}, TypeCase{"1.5", YNode::ScalarType::kFloat},
        TypeCase{"1e9", YNode::ScalarType::kFloat}, TypeCase{".5", YNode::ScalarType::kFloat},
        TypeCase{"-.inf", YNode::ScalarType::kFloat}, TypeCase{".NaN", YNode::ScalarType::kFloat},
        TypeCase{"3.", YNode::ScalarType::kFloat}, TypeCase{"1_000", YNode::ScalarType::kString},
        TypeCase{"2026-01-21", YNode::ScalarType::kString}, TypeCase{"26.04.01", YNode::ScalarType::kString},
        TypeCase{"0b101", YNode::ScalarType::kString}, TypeCase{"1e", YNode::ScalarType::kString},
        TypeCase{"80 GiB", YNode::ScalarType::kString}, TypeCase{"'42'", YNode::ScalarType::kString},
        TypeCase{"\"true\"", YNode::ScalarType::kString}, TypeCase{"!!str 7", YNode::ScalarType::kString}));

TEST(YamlTree, TypedReads) {
  const YNode root = parse_ok(
      "a: 0x10\nb: -9223372036854775808\nc: 99999999999999999999\nd: 2.5\ne: True\n"
      "f: '12'\ng: 1e400\n");
  EXPECT_EQ(root.get("a")->as_int(), 16);
  EXPECT_EQ(root.get("b")->as_int(), INT64_MIN);
  EXPECT_EQ(root.get("c")->type, YNode::ScalarType::kFloat);  // too big for int64
  EXPECT_DOUBLE_EQ(*root.get("c")->as_double(), 1e20);
  EXPECT_FALSE(root.get("d")->as_int());
  EXPECT_DOUBLE_EQ(*root.get("d")->as_double(), 2.5);
  EXPECT_EQ(root.get("e")->as_bool(), true);
  EXPECT_FALSE(root.get("f")->as_int());
  EXPECT_EQ(root.get("f")->as_string(), "12");
  EXPECT_TRUE(root.get("f")->quoted);
  EXPECT_TRUE(std::isinf(*root.get("g")->as_double()));
  EXPECT_EQ(root.get("zz"), nullptr);
  EXPECT_EQ(root.get("a")->get("x"), nullptr);
}

TEST(YamlTree, BlockScalarsAreStrings) {
  const YNode root = parse_ok("a: |\n  42\nb: >\n  true\nc: \"x\"\n");
  EXPECT_TRUE(root.get("a")->block);
  EXPECT_TRUE(root.get("a")->quoted);
  EXPECT_EQ(root.get("a")->type, YNode::ScalarType::kString);
  EXPECT_EQ(root.get("a")->text, "42\n");
  EXPECT_TRUE(root.get("b")->block);
  EXPECT_FALSE(root.get("c")->block);
  EXPECT_TRUE(root.get("c")->quoted);
}

TEST(YamlTree, ByteOrderMarkIsAllowedAndBlockDetectionStillWorks) {
  const YNode root = parse_ok(
      "\xEF\xBB\xBF"
      "a: |\n  x\nb: 'y'\n");
  EXPECT_TRUE(root.get("a")->block);
  EXPECT_FALSE(root.get("b")->block);
}

TEST(YamlTree, Rejections) {
  EXPECT_NE(parse_err("a: &x 1\nb: *x\n").find("t.yaml:1:4: YAML anchors"), std::string::npos);
  EXPECT_NE(parse_err("base: {a: 1}\nc:\n  <<: {a: 2}\n").find("merge keys"), std::string::npos);
  EXPECT_NE(parse_err("a: 1\n---\nb: 2\n").find("t.yaml:2:1: more than one YAML document"),
            std::string::npos);
  EXPECT_NE(parse_err("").find("empty file"), std::string::npos);
  EXPECT_NE(parse_err("# only a comment\n").find("empty file"), std::string::npos);
  EXPECT_NE(parse_err(std::string("a: 1\nb: x\0y\n", 12)).find("t.yaml:2:5: binary file"), std::string::npos);
  EXPECT_NE(parse_err("a: 1\nb: caf\xE9\n").find("t.yaml:2:7: invalid UTF-8"), std::string::npos);
  EXPECT_NE(parse_err("a: \xED\xA0\x80\n").find("invalid UTF-8"), std::string::npos);  // surrogate
  EXPECT_NE(parse_err("a: \xC0\xAF\n").find("invalid UTF-8"), std::string::npos);      // overlong
  EXPECT_NE(parse_err("? [a, b]\n: 1\n").find("map key must be"), std::string::npos);
  EXPECT_NE(parse_err("a: !!binary aGk=\n").find("tag"), std::string::npos);
  parse_ok("name: caf\xC3\xA9 \xF0\x9F\x9A\x80\n");
}

TEST(YamlTree, ErrorsCarryARuleCode) {
  EXPECT_EQ(parse_yaml("a: 1\na: 2\n", "f").error().code, "RB-YAML-DUPLICATE-KEY");
  EXPECT_EQ(parse_yaml("a: [\n", "f").error().code, "RB-YAML-SYNTAX");
  EXPECT_EQ(parse_yaml("a: \xFF\n", "f").error().code, "RB-YAML-ENCODING");
  EXPECT_EQ(load_yaml_file("/nonexistent/x.yaml").error().code, "RB-FILE-READ");
}

TEST(YamlTree, SyntaxErrorsCarryPositions) {
  const std::string e = parse_err("a: 1\nb: [1, 2\n");
  EXPECT_EQ(e.rfind("t.yaml:", 0), 0u) << e;
  EXPECT_NE(e.find("YAML syntax error"), std::string::npos) << e;
  const std::string e2 = parse_err("a:\n  b: 1\n c: 2\n");
  EXPECT_NE(e2.find("YAML syntax error"), std::string::npos) << e2;
  EXPECT_NE(e2.find("t.yaml:3:"), std::string::npos) << e2;
}

TEST(YamlTree, ToJsonTextKeepsFileOrder) {
  const YNode root = parse_ok("z: 1\na: [0x10, 1.5, true, null, 'q\"s']\nm: {k: .inf}\n");
  EXPECT_EQ(to_json_text(root), R"({"z":1,"a":[16,1.5,true,null,"q\"s"],"m":{"k":".inf"}})");
}

TEST(YamlTree, LoadYamlFileReportsPathAndReason) {
  const auto dir = std::filesystem::temp_directory_path() / "rb_yaml_tree_test";
  std::filesystem::create_directories(dir);
  auto missing = load_yaml_file((dir / "nope.yaml").string());
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("nope.yaml"), std::string::npos);
  EXPECT_NE(missing.error().message.find("No such file"), std::string::npos) << missing.error().message;
  auto device = load_yaml_file("/dev/zero");  // must not read forever
  ASSERT_FALSE(device);
  EXPECT_NE(device.error().message.find("not a regular file"), std::string::npos);
  auto is_dir = load_yaml_file(dir.string());
  ASSERT_FALSE(is_dir);
  EXPECT_NE(is_dir.error().message.find("directory"), std::string::npos);
  const auto file = dir / "ok.yaml";
  std::ofstream(file) << "a: 1\n";
  auto ok = load_yaml_file(file.string());
  ASSERT_TRUE(ok) << ok.error().str();
  EXPECT_EQ(ok->get("a")->where.file, file.string());
  std::ofstream(dir / "empty.yaml").close();
  auto empty = load_yaml_file((dir / "empty.yaml").string());
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().str().find("empty file"), std::string::npos);
}

TEST(YamlTree, Utf8Checker) {
  EXPECT_FALSE(find_invalid_utf8("plain ascii"));
  EXPECT_FALSE(find_invalid_utf8("\xF4\x8F\xBF\xBF"));     // U+10FFFF
  EXPECT_EQ(find_invalid_utf8("ab\xF4\x90\x80\x80"), 2u);  // above U+10FFFF
  EXPECT_EQ(find_invalid_utf8("abc\xE2\x82"), 3u);         // truncated
  EXPECT_EQ(find_invalid_utf8("\x80"), 0u);
}

// The parser must return (a tree or an Error) on any input: random bytes, and random splices of YAML
// fragments that reach deeper into yaml-cpp than random bytes do.
TEST(YamlTree, NeverCrashesOnArbitraryInput) {
  EXPECT_TRUE(rc::check("random bytes", [](const std::string& s) {
    auto r = parse_yaml(s, "f");
    RC_ASSERT(r.has_value() || !r.error().message.empty());
  }));
  static const std::vector<std::string> kPieces = {
      "a",  ":", " ",  "\n",   "- ", "[",         "]", "{",  "}",        ",",   "'",
      "\"", "|", ">",  "&x",   "*x", "!!",        "?", "#",  "\t",       "---", "...",
      "  ", "1", "0x", ".inf", "\\", "%YAML 1.2", "~", "<<", "\xC3\xA9", "\r"};
  EXPECT_TRUE(rc::check("yaml fragments", [] {
    const auto idx = *rc::gen::container<std::vector<size_t>>(rc::gen::inRange<size_t>(0, kPieces.size()));
    std::string s;
    for (size_t i : idx) s += kPieces[i];
    auto r = parse_yaml(s, "f");
    if (r) (void)to_json_text(*r);
  }));
}

TEST(YamlTree, DeepNestingIsAnErrorNotACrash) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  auto r = parse_yaml(deep, "deep.yaml");
  EXPECT_FALSE(r.has_value());
}

}  // namespace
}  // namespace rb
