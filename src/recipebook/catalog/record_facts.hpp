// What the rules need from a recipe record beyond its layout (rules/facts.hpp): env, env gates,
// kernels, patches, stack versions, vision budget, framework settings, the extends chain and the
// rest of the catalog (for name collisions). Read from the record's YAML tree.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/catalog/yaml_tree.hpp"
#include "recipebook/rules/facts.hpp"

namespace rb {

// The record's `known_issues`: (rule id, note) pairs, in order; items without a rule are skipped.
std::vector<std::pair<std::string, std::string>> record_known_issues(const YNode& tree);

// `catalog` may be null (no collision or extends facts then).
RecordFacts record_facts(const YNode& tree, const Recipe& recipe, const Catalog* catalog);

}  // namespace rb
