#pragma once
// The built-in catalog for the catalog tests: loaded once per test binary (a load failure fails
// the first test that asks).

#include <gtest/gtest.h>

#include <utility>

#include "recipebook/catalog/catalog.hpp"

namespace rb {

inline const Catalog& builtin() {
  static const Catalog cat = [] {
    auto c = Catalog::load();
    EXPECT_TRUE(c) << c.error().str();
    return std::move(*c);
  }();
  return cat;
}

}  // namespace rb
