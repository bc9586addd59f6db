// Plain-text tables for the terminal: widths first, then print. Numbers right-aligned, text left.
#pragma once

#include <string>
#include <vector>

namespace rb {

enum class Align { kLeft, kRight };

struct Column {
  std::string header;
  Align align = Align::kLeft;
};

class Table {
 public:
  explicit Table(std::vector<Column> columns) : columns_(std::move(columns)) {}
  void add_row(std::vector<std::string> cells);
  [[nodiscard]] size_t rows() const { return rows_.size(); }
  // Header, a rule of dashes, then the rows; columns separated by two spaces; no trailing blanks.
  [[nodiscard]] std::string render() const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

// Display width of UTF-8 text (code points; the tables hold no wide characters).
size_t display_width(const std::string& s);

}  // namespace rb
