#include "recipebook/catalog/packed_tree.hpp"

#include <gtest/gtest.h>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/catalog/embedded.hpp"

namespace rb {
namespace {

// Every field of every node, so that a difference names its place.
void expect_same(const YNode& a, const YNode& b, const std::string& at) {
  ASSERT_EQ(a.kind, b.kind) << at;
  EXPECT_EQ(a.type, b.type) << at;
  EXPECT_EQ(a.text, b.text) << at;
  EXPECT_EQ(a.quoted, b.quoted) << at;
  EXPECT_EQ(a.block, b.block) << at;
  EXPECT_EQ(a.where.file, b.where.file) << at;
  EXPECT_EQ(a.where.line, b.where.line) << at;
  EXPECT_EQ(a.where.col, b.where.col) << at;
  ASSERT_EQ(a.map.size(), b.map.size()) << at;
  ASSERT_EQ(a.seq.size(), b.seq.size()) << at;
  for (size_t i = 0; i < a.map.size(); ++i) {
    expect_same(a.map[i].first, b.map[i].first, at + "." + a.map[i].first.text + "(key)");
    expect_same(a.map[i].second, b.map[i].second, at + "." + a.map[i].first.text);
  }
  for (size_t i = 0; i < a.seq.size(); ++i) expect_same(a.seq[i], b.seq[i], at + "[" + std::to_string(i) + "]");
}

YNode parse_ok(std::string_view text) {
  auto r = parse_yaml(text, "t.yaml");
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().str());
  return r ? *r : YNode{};
}

TEST(PackedTree, RoundTripsEveryKindOfNode) {
  const YNode tree = parse_ok(
      "name: x\nquoted: 'yes'\nplain: yes\nnum: 12\nf: 1.5e3\nb: true\nnothing: ~\nempty: ''\n"
      "block: |\n  two\n  lines\nfolded: >\n  a b\nlist: [1, [2, {k: v}], {}]\nnested:\n  deep:\n    - a\n"
      "unicode: \"\\u00e9t\\u00e9\"\nlong: " +
      std::string(300, 'z') + "\n");
  std::string packed;
  pack_tree(tree, packed);
  auto back = unpack_tree(packed, "t.yaml");
  ASSERT_TRUE(back.has_value());
  expect_same(tree, *back, "");
}

TEST(PackedTree, RefusesBytesThatAreNotOneWholeTree) {
  std::string packed;
  pack_tree(parse_ok("a: [1, 2, 3]\nb: {c: d}\n"), packed);
  for (size_t cut = 0; cut < packed.size(); ++cut)
    EXPECT_FALSE(unpack_tree(std::string_view(packed).substr(0, cut), "t.yaml").has_value()) << cut;
  EXPECT_FALSE(unpack_tree(packed + "x", "t.yaml").has_value());
  EXPECT_FALSE(unpack_tree(std::string("\x7f\x01\x01\x00", 4), "t.yaml").has_value());  // scalar type 7
}

// The trees packed into the binary at build time are the trees parse_yaml gives for the embedded
// text now: the built-in catalog unpacked is the catalog parsed.
TEST(PackedTree, BuiltinTreesAreTheParsedText) {
  const auto files = embedded_catalog();
  const auto trees = embedded_trees();
  ASSERT_EQ(trees.size(), files.size());
  size_t yaml = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string path(files[i].path);
    const bool is_yaml = path.size() > 5 && path.compare(path.size() - 5, 5, ".yaml") == 0;
    EXPECT_EQ(trees[i].empty(), !is_yaml) << path;
    if (!is_yaml) continue;
    ++yaml;
    auto parsed = parse_yaml(files[i].text, "builtin:" + path);
    ASSERT_TRUE(parsed.has_value()) << parsed.error().str();
    auto unpacked = unpack_tree(trees[i], "builtin:" + path);
    ASSERT_TRUE(unpacked.has_value()) << path;
    expect_same(*parsed, *unpacked, path);
  }
  EXPECT_GT(yaml, 100u);
}

}  // namespace
}  // namespace rb
