#include "recipebook/emit/table.hpp"

#include <gtest/gtest.h>

namespace rb {
namespace {

TEST(Table, AlignsColumnsAndTrimsTrailingSpace) {
  Table t({{"name", Align::kLeft}, {"gpus", Align::kRight}});
  t.add_row({"llama3_8b", "8"});
  t.add_row({"x", "1024"});
  EXPECT_EQ(t.render(),
            "name       gpus\n"
            "---------  ----\n"
            "llama3_8b     8\n"
            "x          1024\n");
}

TEST(Table, MissingCellsAreBlank) {
  Table t({{"a"}, {"b"}});
  t.add_row({"1"});
  EXPECT_EQ(t.rows(), 1u);
  EXPECT_NE(t.render().find("1\n"), std::string::npos);
}

}  // namespace
}  // namespace rb
