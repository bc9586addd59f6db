// `recipebook calibrate LOG...`: reads Megatron-LM / Megatron-Bridge training logs, picks the steady
// window and computes tokens/s/GPU, step-time CV, MFU, USD per million tokens and GPU-hours;
// `--recipe FILE` writes them into the record's `result` (a text edit: the rest of the file and its
// comments stay), `--json` prints them.
#pragma once

#include <string>
#include <vector>

#include "recipebook/context.hpp"

namespace rb::cli {

struct CalibrateOptions {
  std::vector<std::string> logs;  // one per run
  std::string window;             // --window A:B (iterations, inclusive); empty = after warm-up
  std::string recipe;             // --recipe FILE: read seq / GPUs / batch / model / GPU from it, write its result
  int64_t seq = 0;                // --seq
  int gpus = 0;                   // --gpus
  int64_t gbs = 0;                // --gbs, for logs that print no global batch
  std::string gpu;                // --gpu: dense peak and price
  std::string model;              // --model: active params and FLOPs per token
  std::string precision;          // --precision: which dense peak (default: the recipe's, else bf16)
  double peak_tflops = 0;         // --peak-tflops: dense peak per GPU, overrides the GPU's
  double usd_per_gpu_hour = 0;    // --usd-per-gpu-hour: overrides the GPU's price
  double active_params = 0;       // --active-params: overrides the model's count
  bool force = false;              // --force: write even when the log does not match the recipe or flags
  bool dry_run = false;           // --dry-run: with --recipe, print the edited record instead of writing it
};

int run_calibrate(const CalibrateOptions& opts, const Context& ctx);

}  // namespace rb::cli
