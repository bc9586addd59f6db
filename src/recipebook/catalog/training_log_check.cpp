// Cross-checks of a training log against the run calibrate is told it measures (training_log.hpp).
#include <fmt/format.h>

#include <cmath>

#include "recipebook/catalog/training_log.hpp"

namespace rb {
namespace {

// The global batch the log's run used: its iteration lines' (the last printed), else the argument dump.
std::optional<int64_t> log_global_batch(const TrainingLog& log) {
  for (auto it = log.iterations.rbegin(); it != log.iterations.rend(); ++it)
    if (it->global_batch) return it->global_batch;
  return log.arg_int("global_batch_size");
}

}  // namespace

std::vector<LogMismatch> cross_check(const std::vector<const TrainingLog*>& logs, const RunSummary& summary,
                                     const RunClaims& c) {
  std::vector<LogMismatch> out;
  auto differ = [&](const TrainingLog& log, const char* field, std::optional<int64_t> logged, int64_t claimed,
                    const std::string& claimed_what) {
    if (!logged || claimed <= 0 || *logged == claimed) return;
    out.push_back({log.file, field, fmt::format("the log's {} is {}, but {} {}", field, *logged, claimed_what, claimed)});
  };
  for (const TrainingLog* log : logs) {
    differ(*log, "world_size", log->arg_int("world_size"), c.gpus, "the GPU count (" + c.gpus_from + ") is");
    differ(*log, "global_batch_size", log_global_batch(*log), c.gbs, "the global batch (" + c.gbs_from + ") is");
    differ(*log, "seq_length", log->arg_int("seq_length"), c.seq, "the sequence length (" + c.seq_from + ") is");
    if (!c.model.empty()) {
      differ(*log, "hidden_size", log->arg_int("hidden_size"), c.hidden, c.model + "'s hidden size is");
      differ(*log, "num_layers", log->arg_int("num_layers"), c.layers, c.model + "'s decoder layer count is");
    }
    const RunClaims::Layout& l = c.layout;
    const std::string from = " (" + c.layout_from + ") is";
    differ(*log, "tensor_model_parallel_size", log->arg_int("tensor_model_parallel_size"), l.tp, "TP" + from);
    differ(*log, "pipeline_model_parallel_size", log->arg_int("pipeline_model_parallel_size"), l.pp, "PP" + from);
    differ(*log, "context_parallel_size", log->arg_int("context_parallel_size"), l.cp, "CP" + from);
    differ(*log, "expert_model_parallel_size", log->arg_int("expert_model_parallel_size"), l.ep, "EP" + from);
    differ(*log, "micro_batch_size", log->arg_int("micro_batch_size"), l.mbs, "the micro batch" + from);
    // The dump prints None without interleaving: one virtual stage.
    std::optional<int64_t> vp = log->arg_int("virtual_pipeline_model_parallel_size");
    if (auto it = log->args.find("virtual_pipeline_model_parallel_size"); it != log->args.end() && it->second == "None") vp = 1;
    differ(*log, "virtual_pipeline_model_parallel_size", vp, l.vp, "VP" + from);
  }
  // Megatron's own FLOPs count per GPU per second against the model's at the claimed GPU count: a
  // wrong model, sequence or GPU count moves one and not the other.
  if (summary.log_tflops_per_gpu && *summary.log_tflops_per_gpu > 0 && c.flops_per_token && c.tokens_per_s_per_gpu > 0) {
    const double ours = *c.flops_per_token * c.tokens_per_s_per_gpu / 1e12;
    const double logged = *summary.log_tflops_per_gpu;
    if (std::fabs(ours - logged) > kTflopsTolerance * logged)
      out.push_back({logs.size() == 1 ? logs.front()->file : std::string(), "TFLOP/s", fmt::format("the log's throughput is {:.1f} TFLOP/s/GPU, but {} at sequence {} on {} GPUs "
                                            "gives {:.1f} ({:.1f} GFLOP/token x {:.1f} tokens/s/GPU)",
                                            logged, c.model.empty() ? std::string("the model") : c.model, c.seq,
                                            c.gpus, ours, *c.flops_per_token / 1e9, c.tokens_per_s_per_gpu)});
  }
  return out;
}

std::string excluded_lines(const TrainingLog& log, const StepWindow& w) {
  std::vector<const LogIteration*> left;
  for (size_t i = 0; i < log.iterations.size(); ++i)
    if (i < w.first || i > w.last) left.push_back(&log.iterations[i]);
  if (left.empty()) return {};
  std::string times;
  constexpr size_t kShown = 8;
  for (size_t i = 0; i < left.size() && i < kShown; ++i)
    times += fmt::format("{}{:.2f} s", i ? ", " : "", left[i]->step_time_s);
  if (left.size() > kShown) times += fmt::format(", ... {} more", left.size() - kShown);
  const int64_t first = left.front()->iteration - left.front()->span + 1;
  return fmt::format("{}: left out {} line(s), iterations {}..{} ({} per step){}", log.file, left.size(), first,
                     left.back()->iteration, times,
                     w.automatic ? fmt::format(": warm-up, before the first step within {:.0f}% of the steady median",
                                               kSettleTolerance * 100)
                                 : std::string(": outside --window"));
}

}  // namespace rb
