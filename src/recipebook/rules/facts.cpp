#include "recipebook/rules/facts.hpp"

#include <cctype>

#include "recipebook/core/strings.hpp"

namespace rb {

bool RecordFacts::empty() const {
  return name.empty() && framework.empty() && entry_point.empty() && launch_script.empty() && dataset.empty() &&
         !packed_sequences && fsdp_version == 1 && mtp_layers < 0 && !explicit_pipeline_layout && env.empty() &&
         env_gates.empty() && kernels.empty() && patches.empty() && stack.megatron_core.empty() &&
         stack.transformer_engine.empty() && stack.fla.empty() && stack.triton.empty() && vision.max_pixels == 0 &&
         vision.cuda_graph_max_patches == 0 && settings.empty() && extends_chain.empty() && catalog.empty();
}

const std::string* find_value(const std::vector<KeyValue>& kv, std::string_view key) {
  for (const auto& e : kv)
    if (e.key == key) return &e.value;
  return nullptr;
}

const std::string* setting(const RecordFacts& f, std::string_view key) { return find_value(f.settings, key); }

std::optional<bool> setting_bool(const RecordFacts& f, std::string_view key) {
  const std::string* v = setting(f, key);
  if (v == nullptr) return std::nullopt;
  const std::string s = to_lower(*v);
  if (s == "true" || s == "1" || s == "yes" || s == "on") return true;
  if (s == "false" || s == "0" || s == "no" || s == "off") return false;
  return std::nullopt;
}

std::optional<int64_t> setting_int(const RecordFacts& f, std::string_view key) {
  const std::string* v = setting(f, key);
  if (v == nullptr || v->empty()) return std::nullopt;
  int64_t out = 0;
  size_t i = 0;
  bool neg = false;
  if ((*v)[0] == '-') {
    neg = true;
    i = 1;
  }
  if (i >= v->size()) return std::nullopt;
  for (; i < v->size(); ++i) {
    const char c = (*v)[i];
    if (c < '0' || c > '9') return std::nullopt;
    out = out * 10 + (c - '0');
  }
  return neg ? -out : out;
}

std::vector<std::string> split_list(std::string_view value) {
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    if (!cur.empty()) out.push_back(cur);
    cur.clear();
  };
  for (char c : value) {
    if (c == '[' || c == ']' || c == '"' || c == '\'') continue;
    if (c == ',' || std::isspace(static_cast<unsigned char>(c)) != 0) {
      flush();
      continue;
    }
    cur.push_back(c);
  }
  flush();
  return out;
}

std::vector<std::string> setting_list(const RecordFacts& f, std::string_view key) {
  const std::string* v = setting(f, key);
  if (v == nullptr) return {};
  return split_list(*v);
}

std::vector<int> parse_version(std::string_view text) {
  const auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  for (size_t i = 0; i < text.size(); ++i) {
    if (!is_digit(text[i])) continue;
    if (i > 0 && (is_digit(text[i - 1]) || std::isalpha(static_cast<unsigned char>(text[i - 1])) != 0)) {
      // Inside a word such as a commit hash: skip to its end.
      while (i < text.size() && std::isalnum(static_cast<unsigned char>(text[i])) != 0) ++i;
      continue;
    }
    std::vector<int> parts;
    size_t j = i;
    while (true) {
      int n = 0;
      size_t k = j;
      while (k < text.size() && is_digit(text[k]) && n < 100000000) n = n * 10 + (text[k++] - '0');
      if (k == j) break;
      parts.push_back(n);
      j = k;
      if (j + 1 < text.size() && text[j] == '.' && is_digit(text[j + 1])) {
        ++j;
        continue;
      }
      break;
    }
    if (parts.size() >= 2) return parts;
    i = j;
  }
  return {};
}

int compare_versions(const std::vector<int>& a, const std::vector<int>& b) {
  const size_t n = a.size() > b.size() ? a.size() : b.size();
  for (size_t i = 0; i < n; ++i) {
    const int x = i < a.size() ? a[i] : 0;
    const int y = i < b.size() ? b[i] : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

}  // namespace rb
