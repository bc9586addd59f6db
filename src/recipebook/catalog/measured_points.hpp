// The catalog's current measurements as calibration points: for every `measurements` entry with
// `current: true` on a recipe whose model has an architecture, the measured layout (the entry's own
// degrees, falling back to the recipe's), workload and GPU, and the measured tokens/s/GPU. Used by
// `recipebook calibrate --fit` and bench/accuracy.cpp, so both fit on exactly the same points.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/estimate/calibrate.hpp"

namespace rb {

// The layout, workload and cluster one measurement ran: the entry's own degrees, batch, sequence and
// GPU count, falling back to the recipe's where it publishes none; an ETP neither gives is
// Megatron's default for those degrees (default_etp, as the catalog links records); the settings the
// run's own release used where they differ from the recipe's (Measurement::overrides: recompute, dispatcher,
// activation offload, CUDA graphs, EP A2A overlap) replace the recipe's. The layout is as
// the estimator models it: layers its PP does not divide split as `estimate --recipe` splits them
// (search/resize.hpp modelled_layout), so show, recommend, calibrate and bench/accuracy estimate the
// same layout. nullopt when the degrees do not divide the GPU count. `exact`: the measured layout
// is the recipe's own.
struct MeasuredRun {
  Layout layout;
  Workload work;
  Cluster cluster;
  bool exact = false;
};
std::optional<MeasuredRun> measured_run(const Recipe& rec, const Measurement& m, const Model& model);

struct MeasuredPoint {
  std::string label;   // recipe@release gpu precision
  std::string release;  // as published: "26.04.01", "card (nvcr.io/nvidia/nemo:26.06)"
  std::string family;  // model family (Hugging Face model_type)
  std::string model;
  CalibrationPoint point;
  bool exact = false;  // the measured layout is the recipe's own (its features are known to apply)
  bool card = false;   // a model verification card (real data, often SFT/PEFT/VLM), not a benchmark table
  // The measurement's `benchmark` field (scripts/gen_catalog.py sets it): a performance-table row or
  // a card's `pretrain_performance` item (synthetic data, force-balanced routing, the recipe's own
  // batch). Only these are calibrated on: the other card rows train on datasets whose token counts
  // per step (padding, packing, images) and natural routing the record does not state, so they are
  // predicted and reported, never fitted.
  bool benchmark = false;
};

struct MeasuredPoints {
  std::map<std::string, std::unique_ptr<PreparedModel>> models;  // owns what the points point at
  std::vector<MeasuredPoint> points;
  int skipped_model = 0;    // model without an architecture
  int skipped_invalid = 0;  // GPU unknown, degrees not dividing the GPUs, or an estimate the model refuses
};

// `neutral_efficiency`: start every point's hardware from its published microbenchmarks
// (prior_efficiency, estimate/microbench.hpp; Efficiency{} where it has none) instead of the
// catalog's fitted values, so that a leave-one-out fit never starts from values that saw the
// held-out rows.
MeasuredPoints measured_points(const Catalog& catalog, bool neutral_efficiency);

}  // namespace rb
