// The built-in catalog's config.json files (catalog/models/hf) for the config.json reader's tests
// (hf_config_catalog_test.cpp, hf_config_refusal_test.cpp): one read as published, and one with a
// value changed.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "recipebook/catalog/yaml_tree.hpp"  // read_text_file

namespace rb {

inline std::string catalog_config(const std::string& stem) {
  auto text = read_text_file(std::string(RB_SOURCE_DIR) + "/catalog/models/hf/" + stem + ".json");
  EXPECT_TRUE(text) << stem;
  return text ? *text : std::string();
}

// `text` with the JSON value at `path` (a json_pointer) replaced.
inline std::string with(const std::string& text, const char* path, const nlohmann::json& value) {
  auto j = nlohmann::json::parse(text);
  j[nlohmann::json::json_pointer(path)] = value;
  return j.dump(1);
}

}  // namespace rb
