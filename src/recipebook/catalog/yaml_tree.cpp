// parse_yaml: yaml-cpp 0.7's event parser (YAML::Parser + an EventHandler) building YNode trees.
//
// Choices, so that a catalog file means one thing:
// - Anchors, aliases and merge keys are rejected ("write the values out, or use `extends`"): they
//   are never needed in a record, and alias expansion is the classic YAML memory bomb.
// - Map keys must be scalars; a repeated key is an error at its second occurrence.
// - Tags: none, `!` (a string) and `!!str` are accepted; any other tag is an error.
// - One document per file; an empty file (or one with only comments) is an error.
// - The bytes are checked before yaml-cpp sees them: a NUL byte means a binary file, and the text
//   must be valid UTF-8 (an optional UTF-8 byte-order mark is allowed).
// Positions are 1-based; columns count bytes.
#include "recipebook/catalog/yaml_tree.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <unordered_map>

#include "recipebook/catalog/yaml_scalar.hpp"

namespace rb {
namespace {

constexpr const char* kCodeSyntax = "RB-YAML-SYNTAX";
constexpr const char* kCodeDuplicate = "RB-YAML-DUPLICATE-KEY";
constexpr const char* kCodeEncoding = "RB-YAML-ENCODING";
constexpr const char* kCodeRead = "RB-FILE-READ";
// Largest file read_text_file accepts; the largest catalog file is a few KiB.
constexpr uintmax_t kMaxFileBytes = uintmax_t{64} << 20;
constexpr std::string_view kBom = "\xEF\xBB\xBF";

Error make_error(std::string message, Where where, std::string fix, const char* code) {
  Error e;
  e.message = std::move(message);
  e.where = std::move(where);
  e.fix = std::move(fix);
  e.code = code;
  return e;
}

tl::unexpected<Error> failure(std::string message, Where where, std::string fix, const char* code) {
  return tl::unexpected<Error>(make_error(std::move(message), std::move(where), std::move(fix), code));
}

// Thrown from the handler to stop yaml-cpp at our first error; caught in parse_yaml.
struct Stop {
  Error error;
};

class TreeBuilder final : public YAML::EventHandler {
 public:
  // `duplicates`: where a repeated key goes (its entry dropped, the first kept) instead of stopping.
  TreeBuilder(std::string_view text, const std::string& file, size_t mark_offset, std::vector<Error>* duplicates)
      : text_(text), file_(file), mark_offset_(mark_offset), duplicates_(duplicates) {}

  [[nodiscard]] bool has_root() const { return has_root_; }
  YNode take_root() { return std::move(root_); }
  [[nodiscard]] Where doc_start() const { return doc_start_; }

  void OnDocumentStart(const YAML::Mark& mark) override {
    ++documents_;
    doc_start_ = where(mark);
    if (documents_ > 1)
      throw Stop{make_error("more than one YAML document in the file", doc_start_, "keep one record per file",
                            kCodeSyntax)};
  }
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    check_anchor(mark, anchor);
    YNode n;
    n.kind = YNode::Kind::kNull;
    n.where = where(mark);
    // An empty value (`tp:` at the end of a line) gets the mark of the next token, often on a later
    // line; report it at its key instead. An explicit `~` or `null` keeps its own position.
    const size_t at = static_cast<size_t>(mark.pos) + mark_offset_;
    const std::string_view rest = at < text_.size() ? text_.substr(at) : std::string_view();
    const bool written = !rest.empty() && (rest.front() == '~' || rest.substr(0, 4) == "null" ||
                                           rest.substr(0, 4) == "Null" || rest.substr(0, 4) == "NULL");
    if (!written && !stack_.empty() && stack_.back().have_key) n.where = stack_.back().key.where;
    add(std::move(n));
  }

  void OnAlias(const YAML::Mark& mark, YAML::anchor_t /*anchor*/) override {
    throw Stop{make_error("YAML aliases (*name) are not supported", where(mark),
                          "write the values out, or use `extends` for a recipe", kCodeSyntax)};
  }

  void OnAnchor(const YAML::Mark& mark, const std::string& /*name*/) override {
    throw Stop{make_error("YAML anchors (&name) are not supported", where(mark),
                          "write the values out, or use `extends` for a recipe", kCodeSyntax)};
  }

  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    check_anchor(mark, anchor);
    YNode n;
    n.kind = YNode::Kind::kScalar;
    n.where = where(mark);
    n.text = value;
    // yaml-cpp gives "?" to an untagged plain scalar and "!" to an untagged quoted or block one.
    if (tag == "?") {
      n.type = core_schema_type(value);
      if (n.type == YNode::ScalarType::kNone) n.type = YNode::ScalarType::kString;  // not reached: OnNull
    } else if (tag == "!" || tag == "tag:yaml.org,2002:str") {
      n.type = YNode::ScalarType::kString;
      n.quoted = true;
      const size_t at = static_cast<size_t>(mark.pos) + mark_offset_;
      if (tag == "!" && at < text_.size() && (text_[at] == '|' || text_[at] == '>')) n.block = true;
    } else {
      unsupported_tag(mark, tag);
    }
    add(std::move(n));
  }

  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value /*style*/) override {
    check_anchor(mark, anchor);
    if (tag != "?" && tag != "" && tag != "tag:yaml.org,2002:seq") unsupported_tag(mark, tag);
    open(YNode::Kind::kSeq, mark);
  }
  void OnSequenceEnd() override { close(); }

  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value /*style*/) override {
    check_anchor(mark, anchor);
    if (tag != "?" && tag != "" && tag != "tag:yaml.org,2002:map") unsupported_tag(mark, tag);
    open(YNode::Kind::kMap, mark);
  }
  void OnMapEnd() override { close(); }

 private:
  struct Frame {
    YNode node;
    bool have_key = false;
    bool drop_value = false;  // the key is a repeat: its value is read and dropped
    YNode key;
    std::unordered_map<std::string, int> key_lines;  // key text -> line of its first occurrence
  };

  [[nodiscard]] Where where(const YAML::Mark& mark) const {
    if (mark.is_null()) return Where{file_, 0, 0};
    return Where{file_, mark.line + 1, mark.column + 1};
  }

  void check_anchor(const YAML::Mark& mark, YAML::anchor_t anchor) const {
    if (anchor != YAML::NullAnchor)
      throw Stop{make_error("YAML anchors (&name) are not supported", where(mark),
                            "write the values out, or use `extends` for a recipe", kCodeSyntax)};
  }

  [[noreturn]] void unsupported_tag(const YAML::Mark& mark, const std::string& tag) const {
    throw Stop{
        make_error("YAML tag '" + tag + "' is not supported", where(mark), "remove the tag", kCodeSyntax)};
  }

  void open(YNode::Kind kind, const YAML::Mark& mark) {
    Frame f;
    f.node.kind = kind;
    f.node.where = where(mark);
    stack_.push_back(std::move(f));
  }

  void close() {
    if (stack_.empty()) return;  // unbalanced events: yaml-cpp never sends them
    YNode n = std::move(stack_.back().node);
    stack_.pop_back();
    add(std::move(n));
  }

  void add(YNode&& n) {
    if (stack_.empty()) {
      root_ = std::move(n);
      has_root_ = true;
      return;
    }
    Frame& top = stack_.back();
    if (top.node.kind == YNode::Kind::kSeq) {
      top.node.seq.push_back(std::move(n));
      return;
    }
    if (!top.have_key) {
      if (n.kind == YNode::Kind::kMap || n.kind == YNode::Kind::kSeq)
        throw Stop{make_error("a map key must be a plain value, not " + n.type_name(), n.where,
                              "use a string key", kCodeSyntax)};
      if (n.kind == YNode::Kind::kScalar && n.type == YNode::ScalarType::kString && !n.quoted &&
          n.text == "<<")
        throw Stop{make_error("YAML merge keys (<<) are not supported", n.where, "write the values out",
                              kCodeSyntax)};
      const auto [it, inserted] = top.key_lines.emplace(n.text, n.where.line);
      if (!inserted) {
        Error dup = make_error("duplicate key '" + n.text + "' (first at line " + std::to_string(it->second) + ")",
                               n.where, "remove one of them", kCodeDuplicate);
        if (duplicates_ == nullptr) throw Stop{std::move(dup)};
        duplicates_->push_back(std::move(dup));
        top.drop_value = true;
      }
      top.key = std::move(n);
      top.have_key = true;
      return;
    }
    if (top.drop_value) {
      top.drop_value = false;
      top.key = YNode{};
      top.have_key = false;
      return;
    }
    top.node.map.emplace_back(std::move(top.key), std::move(n));
    top.key = YNode{};
    top.have_key = false;
  }

  std::string_view text_;
  const std::string& file_;
  size_t mark_offset_;
  std::vector<Frame> stack_;
  YNode root_;
  std::vector<Error>* duplicates_;
  bool has_root_ = false;
  int documents_ = 0;
  Where doc_start_;
};

// yaml-cpp's messages are terse; add what usually causes them.
std::string syntax_message(const std::string& msg) {
  std::string out = "YAML syntax error: " + msg;
  if (msg == YAML::ErrorMsg::MAP_VALUE || msg == YAML::ErrorMsg::MAP_KEY)
    out += " (a missing space after ':', a wrong indent, or an unquoted ':' or '#' in a value?)";
  else if (msg == YAML::ErrorMsg::BLOCK_ENTRY)
    out += " (a list item '-' at the wrong indent?)";
  else if (msg == YAML::ErrorMsg::END_OF_MAP_FLOW || msg == YAML::ErrorMsg::END_OF_SEQ_FLOW)
    out += " (an unclosed '{' or '['?)";
  else if (msg.rfind("found character that cannot start any token", 0) == 0)
    out += " (a tab used for indentation, or a value starting with '@' or '`'?)";
  return out;
}

}  // namespace

const YNode* YNode::get(std::string_view key) const {
  if (kind != Kind::kMap) return nullptr;
  for (const auto& [k, v] : map)
    if (k.kind == Kind::kScalar && k.text == key) return &v;
  return nullptr;
}

std::optional<std::string> YNode::as_string() const {
  if (kind != Kind::kScalar) return std::nullopt;
  return text;
}

std::optional<int64_t> YNode::as_int() const {
  if (kind != Kind::kScalar || type != ScalarType::kInt) return std::nullopt;
  return parse_core_int(text);
}

std::optional<double> YNode::as_double() const {
  if (kind != Kind::kScalar || (type != ScalarType::kInt && type != ScalarType::kFloat)) return std::nullopt;
  return parse_core_float(text);
}

std::optional<bool> YNode::as_bool() const {
  if (kind != Kind::kScalar || type != ScalarType::kBool) return std::nullopt;
  return parse_core_bool(text);
}

std::string YNode::type_name() const {
  switch (kind) {
    case Kind::kNull:
      return "null";
    case Kind::kMap:
      return "a map";
    case Kind::kSeq:
      return "a list";
    case Kind::kScalar:
      break;
  }
  switch (type) {
    case ScalarType::kBool:
      return "a boolean";
    case ScalarType::kInt:
      return "an integer";
    case ScalarType::kFloat:
      return "a number";
    default:
      return "a string";
  }
}

Result<YNode> parse_yaml(std::string_view text, const std::string& file) { return parse_yaml(text, file, nullptr); }

Result<YNode> parse_yaml(std::string_view text, const std::string& file, std::vector<Error>* duplicates) {
  if (const size_t nul = text.find('\0'); nul != std::string_view::npos)
    return failure("binary file (NUL byte)", position_of(text, nul, file),
                   "a catalog file is UTF-8 YAML text", kCodeEncoding);
  if (auto bad = find_invalid_utf8(text))
    return failure("invalid UTF-8", position_of(text, *bad, file), "save the file as UTF-8", kCodeEncoding);
  // yaml-cpp's marks skip a byte-order mark; keep the offset to look at the source text.
  const size_t mark_offset = text.substr(0, kBom.size()) == kBom ? kBom.size() : 0;
  try {
    std::istringstream in{std::string(text)};
    YAML::Parser parser(in);
    TreeBuilder builder(text, file, mark_offset, duplicates);
    if (!parser.HandleNextDocument(builder) || !builder.has_root())
      return failure("empty file (no YAML document)", Where{file, 0, 0}, "", kCodeSyntax);
    YNode root = builder.take_root();
    if (parser.HandleNextDocument(builder))  // OnDocumentStart throws Stop on a second document
      return failure("more than one YAML document in the file", builder.doc_start(), "", kCodeSyntax);
    return root;
  } catch (const Stop& stop) {
    return tl::unexpected<Error>(stop.error);
  } catch (const YAML::Exception& e) {
    Where w{file, 0, 0};
    if (!e.mark.is_null()) w = Where{file, e.mark.line + 1, e.mark.column + 1};
    return failure(syntax_message(e.msg), w, "", kCodeSyntax);
  } catch (const std::exception& e) {
    return failure(std::string("cannot parse YAML: ") + e.what(), Where{file, 0, 0}, "", kCodeSyntax);
  } catch (...) {
    return failure("cannot parse YAML", Where{file, 0, 0}, "", kCodeSyntax);
  }
}

Result<std::string> read_text_file(const std::string& path) {
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(st))
    return failure("cannot read " + path + ": " +
                       (ec ? ec : std::make_error_code(std::errc::no_such_file_or_directory)).message(),
                   Where{}, "", kCodeRead);
  if (std::filesystem::is_directory(st))
    return failure("cannot read " + path + ": it is a directory", Where{}, "", kCodeRead);
  // Devices and pipes (/dev/zero, a FIFO) could block or never end: only regular files, of sane size.
  if (!std::filesystem::is_regular_file(st))
    return failure("cannot read " + path + ": not a regular file", Where{}, "", kCodeRead);
  if (const auto size = std::filesystem::file_size(path, ec); !ec && size > kMaxFileBytes)
    return failure("cannot read " + path + ": larger than " + std::to_string(kMaxFileBytes >> 20) + " MiB",
                   Where{}, "", kCodeRead);
  std::ifstream in(path, std::ios::binary);
  if (!in) return failure("cannot read " + path + ": " + std::strerror(errno), Where{}, "", kCodeRead);
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) return failure("cannot read " + path + ": read error", Where{}, "", kCodeRead);
  return buf.str();
}

Result<YNode> load_yaml_file(const std::string& path) {
  auto text = read_text_file(path);
  if (!text) return tl::unexpected<Error>(text.error());
  if (text->empty()) return failure("empty file", Where{path, 0, 0}, "", kCodeSyntax);
  return parse_yaml(*text, path);
}

}  // namespace rb
