// Layout of one node: a byte (kind: bits 0-1, scalar type: bits 2-4, quoted: bit 5, block: bit 6),
// line, column and text length as LEB128 varints, the text, then for a map the entry count and each
// key and value node, for a sequence the item count and each item.
#include "recipebook/catalog/packed_tree.hpp"

#include <cstdint>

namespace rb {
namespace {

void put_varint(uint64_t v, std::string& out) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

struct Reader {
  std::string_view bytes;
  size_t at = 0;
  const std::string& file;

  bool varint(uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (at >= bytes.size()) return false;
      const auto b = static_cast<unsigned char>(bytes[at++]);
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return true;
    }
    return false;
  }

  bool small(int& v) {
    uint64_t u = 0;
    if (!varint(u) || u > 0x7fffffff) return false;
    v = static_cast<int>(u);
    return true;
  }

  bool node(YNode& n, int depth) {
    if (depth > 10000 || at >= bytes.size()) return false;
    const auto head = static_cast<unsigned char>(bytes[at++]);
    const unsigned kind = head & 0x3u, type = (head >> 2) & 0x7u;
    if (type > static_cast<unsigned>(YNode::ScalarType::kFloat)) return false;
    n.kind = static_cast<YNode::Kind>(kind);
    n.type = static_cast<YNode::ScalarType>(type);
    n.quoted = (head & 0x20u) != 0;
    n.block = (head & 0x40u) != 0;
    n.where.file = file;
    uint64_t len = 0;
    if (!small(n.where.line) || !small(n.where.col) || !varint(len) || len > bytes.size() - at) return false;
    n.text.assign(bytes.substr(at, len));
    at += len;
    if (n.kind != YNode::Kind::kMap && n.kind != YNode::Kind::kSeq) return true;
    uint64_t count = 0;
    if (!varint(count) || count > bytes.size() - at) return false;  // each node takes a byte at least
    if (n.kind == YNode::Kind::kMap) {
      n.map.resize(count);
      for (auto& [k, v] : n.map)
        if (!node(k, depth + 1) || !node(v, depth + 1)) return false;
    } else {
      n.seq.resize(count);
      for (auto& item : n.seq)
        if (!node(item, depth + 1)) return false;
    }
    return true;
  }
};

}  // namespace

void pack_tree(const YNode& node, std::string& out) {
  const auto head = static_cast<unsigned>(node.kind) | (static_cast<unsigned>(node.type) << 2) |
                    (node.quoted ? 0x20u : 0u) | (node.block ? 0x40u : 0u);
  out.push_back(static_cast<char>(head));
  put_varint(static_cast<uint64_t>(node.where.line < 0 ? 0 : node.where.line), out);
  put_varint(static_cast<uint64_t>(node.where.col < 0 ? 0 : node.where.col), out);
  put_varint(node.text.size(), out);
  out += node.text;
  if (node.is_map()) {
    put_varint(node.map.size(), out);
    for (const auto& [k, v] : node.map) {
      pack_tree(k, out);
      pack_tree(v, out);
    }
  } else if (node.is_seq()) {
    put_varint(node.seq.size(), out);
    for (const auto& item : node.seq) pack_tree(item, out);
  }
}

std::optional<YNode> unpack_tree(std::string_view bytes, const std::string& file) {
  Reader r{bytes, 0, file};
  YNode root;
  if (!r.node(root, 0) || r.at != bytes.size()) return std::nullopt;
  return root;
}

}  // namespace rb
