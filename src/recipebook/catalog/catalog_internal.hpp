// Internal to the catalog module: shared by catalog.cpp, catalog_check.cpp and catalog_query.cpp.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "recipebook/catalog/catalog.hpp"

namespace rb {

// Positions of embedded files read "builtin:recipes/<model>/<gpu>/<name>.yaml:12:3".
inline constexpr std::string_view kBuiltinPrefix = "builtin:";

// Parse, validate against the catalog's schema for `kind` (without one: Catalog::kind_of the parsed
// tree), convert. The entry is set only when there is no error; with keep_tree the tree is also kept
// in FileCheck::tree (else it moves into the entry).
// `keep_tree` (what `check` asks for) also makes a repeated key a finding beside the others, the
// entry converted with the key's first value so the other checks still run; loading (false) drops a
// file with a repeated key.
FileCheck check_entry(const Catalog& cat, std::string_view text, const std::string& file,
                      std::optional<EntryKind> kind, const std::string& stem, const std::string& origin,
                      bool keep_tree);

// Same for a tree already parsed (the built-in catalog's, unpacked), or the parse Error. Without
// `validate` the schema check is left out (for the built-in trees the build has checked already;
// Catalog::problems() checks them when asked).
FileCheck check_tree(const Catalog& cat, Result<YNode> tree, const std::string& file,
                     std::optional<EntryKind> kind, const std::string& stem, const std::string& origin,
                     bool keep_tree, bool validate = true);

// The schema findings of one record as a loaded catalog reports them: a record that extends another
// is checked for required keys on its resolved tree (`resolved`, when it could be resolved) only.
Diagnostics schema_findings(const Schema& schema, EntryKind kind, const YNode& tree, const YNode* resolved);

// The tree names a base recipe in `extends`.
bool extends_something(const YNode& tree);

// A parse or read Error as a finding (rule id: the Error's code, else RB-YAML-SYNTAX).
Diagnostic finding_from_error(const Error& e);

// `child` over `base`: maps merge key by key (base order, then the child's new keys); anything else
// in the child replaces the base's value.
YNode merge_trees(const YNode& base, const YNode& child);

}  // namespace rb
