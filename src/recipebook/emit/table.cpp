#include "recipebook/emit/table.hpp"

#include <algorithm>

namespace rb {

size_t display_width(const std::string& s) {
  size_t n = 0;
  for (char c : s)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  return n;
}

void Table::add_row(std::vector<std::string> cells) {
  cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
}

std::string Table::render() const {
  std::vector<size_t> width(columns_.size());
  for (size_t c = 0; c < columns_.size(); ++c) {
    width[c] = display_width(columns_[c].header);
    for (const auto& row : rows_) width[c] = std::max(width[c], display_width(row[c]));
  }
  std::string out;
  auto emit_row = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (size_t c = 0; c < cells.size(); ++c) {
      const size_t pad = width[c] - display_width(cells[c]);
      if (c > 0) line += "  ";
      if (columns_[c].align == Align::kRight) line.append(pad, ' ');
      line += cells[c];
      if (columns_[c].align == Align::kLeft) line.append(pad, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  };
  std::vector<std::string> header;
  std::vector<std::string> rule;
  for (size_t c = 0; c < columns_.size(); ++c) {
    header.push_back(columns_[c].header);
    rule.emplace_back(width[c], '-');
  }
  emit_row(header);
  emit_row(rule);
  for (const auto& row : rows_) emit_row(row);
  return out;
}

}  // namespace rb
