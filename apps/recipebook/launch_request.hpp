// Input readers of `launch` (and of recommend's launch command): a `recipebook plan --json` or
// `recommend --json` file into a SpecRequest, which build_launch_spec (emit/launch_spec.hpp) turns
// into a LaunchSpec. Readers live with the CLI (ARCHITECTURE.md: emit only writes).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "recipebook/core/result.hpp"
#include "recipebook/emit/launch_spec.hpp"

namespace rb::cli {

// A file launch reads as a plan: a `.json` path (anything else is a recipe name or a recipe file).
bool is_plan_file(const std::string& source);

// Entry `pick` (1-based; 0 = the plan's answer: a fleet plan's "answer", else the first) of a
// `plan --json` file, or the `launch` object of a `recommend --json` file, into the fields of `req` that are unset (the command line wins): the recipe it starts from
// (`req.source`, cleared when the entry names none), model, GPU, GPUs, mode, seq, gbs, dataset and
// the layout flags (emit/catalog_json.cpp layout_json names). `notes` gets which entry was read.
Result<void> read_plan_request(const std::string& path, int pick, SpecRequest& req, std::vector<std::string>& notes);
// The same for one JSON entry (`root`: the document it is in, for fields the entry leaves to it).
Result<void> read_launch_request(const nlohmann::json& entry, const nlohmann::json& root, SpecRequest& req);

}  // namespace rb::cli
