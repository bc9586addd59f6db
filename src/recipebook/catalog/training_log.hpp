// Megatron-LM and Megatron-Bridge training logs: the per-iteration lines their training_log()
// prints, read back into numbers, and the statistics `recipebook calibrate` turns into a recipe's
// `result`. Pure: text in, values out (no files, no clock).
//
// The line (megatron/training/training.py training_log; Bridge training/utils/train_utils.py):
//   [2026-10-18 12:00:00] iteration       10/     100 | consumed samples:         1280 |
//   elapsed time per iteration (ms): 7654.3 | throughput per GPU (TFLOP/s/GPU): 412.3 |
//   learning rate: 1.000000E-05 | global batch size:   128 | lm loss: 2.345678E+00 | loss scale: 1.0 |
//   grad norm: 1.234 | number of skipped iterations:   0 | number of nan iterations:   0 |
// (one line; every field ends with '|', so a line cut short loses only its unfinished field). The
// elapsed time is the mean over the iterations since the previous line (--log-interval). Launchers
// may prefix lines with a rank ("0: " from srun -l, "[default3]:" from torchrun, "[rank3]:").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "recipebook/core/result.hpp"

namespace rb {

struct LogIteration {
  int64_t iteration = 0;
  int64_t train_iters = 0;  // the "/ N" total
  int64_t span = 1;         // iterations this line's mean covers (since the previous line)
  double step_time_s = 0;   // elapsed time per iteration
  std::optional<double> tflops_per_gpu;  // "throughput per GPU (TFLOP/s/GPU)"
  std::optional<int64_t> global_batch;   // "global batch size"
  std::optional<double> loss;            // "lm loss" (or another "... loss"); NaN when logged so
  int64_t skipped = 0;                   // "number of skipped iterations"
  int64_t nan_iterations = 0;            // "number of nan iterations"
  std::string timestamp;                 // "2026-10-18 12:00:00", or "" when the line has none
  int line = 0;                          // 1-based line number in the file
  int rank = -1;                         // from a launcher prefix; -1 = none
};

struct TrainingLog {
  std::string file;
  std::vector<LogIteration> iterations;  // one rank's lines, iteration numbers strictly increasing
  std::map<std::string, std::string> args;  // Megatron's argument dump ("  seq_length ...... 4096")
  int truncated_lines = 0;   // iteration lines cut before their elapsed time
  int duplicate_lines = 0;   // repeated or out-of-order iteration numbers (kept: the first)
  int other_rank_lines = 0;  // iteration lines of ranks other than the one kept
  std::vector<std::string> warnings;

  // An integer from the argument dump, if present ("seq_length", "world_size", "global_batch_size").
  [[nodiscard]] std::optional<int64_t> arg_int(const std::string& key) const;
};

// Parses a log's text. An Error ("FILE: no training iteration lines ...") when it has none.
Result<TrainingLog> parse_training_log(std::string_view text, const std::string& file);

// The lines a measurement uses: indices [first, last] into TrainingLog::iterations, and the
// iterations they cover, [start_iteration, end_iteration].
struct StepWindow {
  size_t first = 0;
  size_t last = 0;
  int64_t start_iteration = 0;
  int64_t end_iteration = 0;
  bool automatic = true;
};

// Warm-up is over at the first line whose step time is within this fraction of the median step
// time of the log's second half (graph capture, compilation and allocator warm-up make the first
// iterations slower; the second half's median is a reference that a few late outliers do not move).
inline constexpr double kSettleTolerance = 0.10;

// The steady window: `requested` = {A, B} keeps the lines whose whole interval lies in iterations
// A..B (an Error when none does); otherwise warm-up lines are dropped as above.
Result<StepWindow> steady_window(const TrainingLog& log, std::optional<std::pair<int64_t, int64_t>> requested);

// What the windows of one or more runs (one log each) measured.
struct RunSummary {
  int runs = 0;
  int64_t window_start = 0;  // the first run's window, in iterations
  int64_t window_end = 0;
  int64_t steps_per_run = 0;  // the first run's last logged iteration
  int64_t window_steps = 0;   // iterations inside the windows, all runs
  double window_tokens = 0;   // sum of span x global batch x seq over the windows
  double window_time_s = 0;   // sum of span x step time over the windows
  double step_time_mean_s = 0;         // window_time_s / window_steps
  std::optional<double> step_time_cv;  // sample std dev / mean of the windows' logged step times
  std::optional<double> log_tflops_per_gpu;  // the log's TFLOP/s/GPU, time-weighted over the windows
  double total_time_s = 0;                   // every logged iteration of every run
  std::optional<double> first_loss;          // first finite loss of the first run
  std::optional<double> last_loss;           // last finite loss of the last run
  int64_t nan_iterations = 0;
  int64_t skipped_iterations = 0;
  std::string measured_date;  // date of the last timestamped line, "YYYY-MM-DD"; "" if none
};

struct RunWindow {
  const TrainingLog* log = nullptr;
  StepWindow window;
};

// `seq` tokens per sequence. A line that prints no global batch size takes the last one printed
// before it, else `fallback_gbs` (0 = none: then it is an Error). Tokens follow seed 002: window_tokens = steps x global batch x row tokens.
Result<RunSummary> summarize_runs(const std::vector<RunWindow>& runs, int64_t seq, int64_t fallback_gbs);

// The figures a recipe's `result` holds, from a summary and what the caller knows.
struct CalibrationInputs {
  int gpus = 0;
  std::optional<double> active_params;     // seed 002's active count, for the record's MFU (6 x N)
  std::optional<double> flops_per_token;   // the model's training FLOPs per token (Megatron's count)
  std::optional<double> peak_flops_per_s;  // dense peak of one GPU at the run's precision
  std::optional<double> usd_per_gpu_hour;
};

struct Calibration {
  RunSummary run;
  double tokens_per_s_per_gpu = 0;
  // The record's MFU, defined as `check` recomputes it (seed 002; RB-DERIVED-MFU):
  // 6 x active params x tokens/s/GPU / dense peak.
  std::optional<double> mfu;
  std::optional<double> active_params;  // the count `mfu` used
  // MFU from Megatron's own FLOPs count: FLOPs/token x tokens/s/GPU / peak, else the log's
  // TFLOP/s/GPU / peak. Attention makes it larger than the 6 x N figure at long sequences.
  std::optional<double> mfu_megatron;
  std::string mfu_note;  // how the MFU figures were computed, or why one is missing
  std::optional<double> usd_per_million_tokens;
  double gpu_hours = 0;
  std::string gpu_hours_note;
};

// tokens/s/GPU = window tokens / window time / GPUs; USD per million tokens = price /
// (tokens/s/GPU x 3600) x 1e6; GPU-hours = GPUs x logged time; the MFU figures as above.
Result<Calibration> calibrate(const RunSummary& run, const CalibrationInputs& in);

// ---- Does the log measure the run calibrate is told it measures? (training_log_check.cpp) ----

// What calibrate will write for the run, and where each figure came from ("the recipe", "--gpus").
struct RunClaims {
  int gpus = 0;
  std::string gpus_from;
  int64_t gbs = 0;
  std::string gbs_from;
  int64_t seq = 0;
  std::string seq_from;
  std::string model;                       // the model's name; "" = no model
  int64_t hidden = 0;                      // the model's hidden size
  int layers = 0;                          // the model's decoder layers
  std::optional<double> flops_per_token;   // the model's Megatron FLOPs per token at `seq`
  double tokens_per_s_per_gpu = 0;         // measured with `gpus`
  // The layout the record states (0 = not stated), compared with the log's parallel sizes: a result
  // is the measurement of its record's layout (`show` compares it with that layout's estimate).
  struct Layout {
    int tp = 0, pp = 0, vp = 0, cp = 0, ep = 0, mbs = 0;
  } layout;
  std::string layout_from;
};

struct LogMismatch {
  std::string file;     // the log, or "" for a figure of all the logs together
  std::string field;    // "world_size", "global_batch_size", "seq_length", "hidden_size", "num_layers",
                        // "tensor_model_parallel_size" (and the other parallel sizes), "TFLOP/s"
  std::string message;  // both values and where each comes from
};

// Megatron's TFLOP/s/GPU (its own FLOPs count, megatron/training/training.py
// num_floating_point_operations) and the model's FLOPs per token x tokens/s/GPU agree within this
// fraction when the model, sequence and GPU count are the log's (the log prints one decimal).
inline constexpr double kTflopsTolerance = 0.10;
// An MFU above this is a warning: Megatron-LM reports up to 47% MFU on H100 clusters (its
// README, "up to 47% Model FLOP Utilization"), so a much higher figure points at a wrong peak,
// model, GPU count or batch.
inline constexpr double kMaxPlausibleMfu = 0.70;

// Every difference between what the logs say about their run (the "using world size: N" line and
// the argument dump of megatron/training/arguments.py, the iteration lines' global batch size, the
// logged TFLOP/s/GPU over the window) and `claims`. Figures a log does not print are not compared.
std::vector<LogMismatch> cross_check(const std::vector<const TrainingLog*>& logs, const RunSummary& summary,
                                     const RunClaims& claims);

// The lines a window leaves out, as "iterations 1..3 (25.00 s, 9.80 s, 8.60 s per step)": the
// warm-up of an automatic window, or what lies outside a requested one. "" when none is left out.
std::string excluded_lines(const TrainingLog& log, const StepWindow& window);

}  // namespace rb
