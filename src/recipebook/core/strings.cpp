#include "recipebook/core/strings.hpp"

#include <algorithm>
#include <cctype>

namespace rb {

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string fold_name(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '-' || c == '_' || c == '.' || c == ' ' || c == '/') continue;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

std::string backquoted(std::string_view path) {
  std::string out;
  out.reserve(path.size() + 2);
  out += '`';
  out += path;
  out += '`';
  return out;
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string nearest(std::string_view word, const std::vector<std::string>& candidates) {
  const std::string w = fold_name(word);
  std::string best;
  size_t best_d = static_cast<size_t>(-1);
  for (const auto& c : candidates) {
    const size_t d = edit_distance(w, fold_name(c));
    if (d < best_d || (d == best_d && c < best)) {
      best_d = d;
      best = c;
    }
  }
  const size_t limit = std::max<size_t>(2, w.size() / 3);
  return best_d <= limit ? best : std::string();
}

}  // namespace rb

namespace rb {
namespace {

std::vector<std::string> tokens(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == '_' || c == '-' || c == '.' || c == ' ' || c == '/') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

}  // namespace

std::vector<std::string> suggestions(std::string_view word, const std::vector<std::string>& candidates,
                                     size_t max_n) {
  const auto want = tokens(word);
  std::vector<std::string> hits;
  if (!want.empty()) {
    for (const auto& c : candidates) {
      const auto have = tokens(c);
      bool all = true;
      for (const auto& t : want) all = all && std::find(have.begin(), have.end(), t) != have.end();
      if (all) hits.push_back(c);
    }
    std::sort(hits.begin(), hits.end(), [](const std::string& a, const std::string& b) {
      return a.size() != b.size() ? a.size() < b.size() : a < b;
    });
  }
  if (hits.size() > max_n) hits.resize(max_n);
  if (hits.size() < max_n) {
    const std::string near = nearest(word, candidates);
    if (!near.empty() && std::find(hits.begin(), hits.end(), near) == hits.end()) hits.push_back(near);
  }
  return hits;
}

std::vector<std::string> split_trimmed(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t end = s.find(sep, start);
    std::string t(s.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    t.erase(0, t.find_first_not_of(' '));
    t.erase(t.find_last_not_of(' ') + 1);
    if (!t.empty()) out.push_back(t);
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return out;
}

}  // namespace rb
