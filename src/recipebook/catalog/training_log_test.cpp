// Training-log parsing and statistics on the fixtures in tests/data/logs/ (written by
// tests/data/logs/make_logs.py, whose step times these tests restate).
#include "recipebook/catalog/training_log.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cmath>
#include <fstream>
#include <numeric>
#include <set>
#include <sstream>

namespace rb {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(RB_SOURCE_DIR) + "/tests/data/logs/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << name;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TrainingLog parse_fixture(const std::string& name) {
  auto log = parse_training_log(fixture(name), name);
  EXPECT_TRUE(log.has_value()) << (log ? "" : log.error().str());
  return log ? *log : TrainingLog{};
}

// Sample standard deviation / mean.
double cv(const std::vector<double>& v) {
  const double mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  return std::sqrt(ss / static_cast<double>(v.size() - 1)) / mean;
}

// make_logs.py NORMAL_MS.
std::vector<double> normal_ms() {
  std::vector<double> ms{25000.0, 9800.0, 8600.0};
  for (int i = 0; i < 27; ++i) ms.push_back(i % 2 == 0 ? 7600.0 : 7700.0);
  return ms;
}

TEST(TrainingLog, MegatronLogParsesEveryIterationAndTheArgumentDump) {
  const TrainingLog log = parse_fixture("megatron_normal.log");
  ASSERT_EQ(log.iterations.size(), 30u);
  EXPECT_EQ(log.arg_int("seq_length"), 4096);
  EXPECT_EQ(log.arg_int("world_size"), 8);
  EXPECT_EQ(log.arg_int("global_batch_size"), 128);
  const auto ms = normal_ms();
  for (size_t i = 0; i < ms.size(); ++i) {
    EXPECT_EQ(log.iterations[i].iteration, static_cast<int64_t>(i + 1));
    EXPECT_EQ(log.iterations[i].span, 1);
    EXPECT_DOUBLE_EQ(log.iterations[i].step_time_s, ms[i] / 1000.0);
    EXPECT_EQ(log.iterations[i].global_batch, 128);
    ASSERT_TRUE(log.iterations[i].loss.has_value());
    EXPECT_NEAR(*log.iterations[i].loss, 10.5 - 0.1 * static_cast<double>(i), 1e-6);
    ASSERT_TRUE(log.iterations[i].tflops_per_gpu.has_value());
  }
  EXPECT_EQ(log.iterations[0].train_iters, 30);
  EXPECT_EQ(log.iterations[0].timestamp, "2026-10-18 12:00:25");
  EXPECT_EQ(log.truncated_lines, 0);
  EXPECT_EQ(log.duplicate_lines, 0);
  EXPECT_TRUE(log.warnings.empty());
}

TEST(TrainingLog, SteadyWindowDropsTheWarmUp) {
  const TrainingLog log = parse_fixture("megatron_normal.log");
  auto w = steady_window(log, std::nullopt);
  ASSERT_TRUE(w) << w.error().str();
  // 25000, 9800 and 8600 ms are more than 10% above the steady ~7650 ms; iteration 4 is the first in.
  EXPECT_EQ(w->first, 3u);
  EXPECT_EQ(w->last, 29u);
  EXPECT_EQ(w->start_iteration, 4);
  EXPECT_EQ(w->end_iteration, 30);
  EXPECT_TRUE(w->automatic);
}

TEST(TrainingLog, SummaryFollowsSeed002Definitions) {
  const TrainingLog log = parse_fixture("megatron_normal.log");
  auto w = steady_window(log, std::nullopt);
  ASSERT_TRUE(w);
  auto s = summarize_runs({{&log, *w}}, 4096, 0);
  ASSERT_TRUE(s) << s.error().str();
  const auto ms = normal_ms();
  const std::vector<double> steady(ms.begin() + 3, ms.end());
  const double steady_s = std::accumulate(steady.begin(), steady.end(), 0.0) / 1000.0;
  EXPECT_EQ(s->window_start, 4);
  EXPECT_EQ(s->window_end, 30);
  EXPECT_EQ(s->window_steps, 27);
  // window_tokens = (end - start + 1) x global batch x row tokens (seed 002).
  EXPECT_DOUBLE_EQ(s->window_tokens, 27.0 * 128.0 * 4096.0);
  EXPECT_NEAR(s->window_time_s, steady_s, 1e-9);
  EXPECT_NEAR(s->step_time_mean_s, steady_s / 27.0, 1e-12);
  ASSERT_TRUE(s->step_time_cv);
  EXPECT_NEAR(*s->step_time_cv, cv(steady), 1e-12);
  EXPECT_NEAR(s->total_time_s, std::accumulate(ms.begin(), ms.end(), 0.0) / 1000.0, 1e-9);
  ASSERT_TRUE(s->first_loss && s->last_loss);
  EXPECT_NEAR(*s->first_loss, 10.5, 1e-9);
  EXPECT_NEAR(*s->last_loss, 7.6, 1e-9);
  EXPECT_EQ(s->measured_date, "2026-10-18");
  EXPECT_EQ(s->steps_per_run, 30);
  ASSERT_TRUE(s->log_tflops_per_gpu);
  // The log's TFLOP/s is 412.3 x 7650 / t per line (rounded to 0.1): time-weighted, the mean is
  // 412.3 x 7650 / mean(t) within that rounding.
  EXPECT_NEAR(*s->log_tflops_per_gpu, 412.3 * 7.65 / (steady_s / 27.0), 0.06);

  CalibrationInputs in;
  in.gpus = 8;
  in.peak_flops_per_s = 989.4e12;
  in.usd_per_gpu_hour = 6.88;
  in.active_params = 8.0e9;
  auto c = calibrate(*s, in);
  ASSERT_TRUE(c) << c.error().str();
  const double tps = 27.0 * 128.0 * 4096.0 / steady_s / 8.0;
  EXPECT_NEAR(c->tokens_per_s_per_gpu, tps, 1e-9);
  ASSERT_TRUE(c->mfu && c->mfu_megatron && c->usd_per_million_tokens);
  EXPECT_NEAR(*c->mfu, 6.0 * 8.0e9 * tps / 989.4e12, 1e-12);
  EXPECT_NEAR(*c->mfu_megatron, *s->log_tflops_per_gpu * 1e12 / 989.4e12, 1e-12);
  EXPECT_NEAR(*c->usd_per_million_tokens, 6.88 / (tps * 3600.0) * 1e6, 1e-9);
  EXPECT_NEAR(c->gpu_hours, 8.0 * s->total_time_s / 3600.0, 1e-12);
}

TEST(TrainingLog, Seed002FiguresFromItsMeasuredThroughput) {
  // Seed 002: 1075.5 tokens/s/GPU on 48 B200 (2.25e15 dense BF16), 16,331,407,360 active params,
  // 14.24 USD per GPU-hour: MFU 0.0468, 3.68 USD per million tokens.
  RunSummary s;
  s.runs = 1;
  s.window_time_s = 100.0;
  s.window_tokens = 1075.5 * 48.0 * 100.0;
  s.total_time_s = 1000.0;
  CalibrationInputs in;
  in.gpus = 48;
  in.active_params = 16331407360.0;
  in.peak_flops_per_s = 2.25e15;
  in.usd_per_gpu_hour = 14.24;
  auto c = calibrate(s, in);
  ASSERT_TRUE(c);
  EXPECT_NEAR(c->tokens_per_s_per_gpu, 1075.5, 1e-9);
  EXPECT_NEAR(*c->mfu, 0.0468, 5e-5);
  EXPECT_NEAR(*c->usd_per_million_tokens, 3.68, 5e-3);
  EXPECT_FALSE(c->mfu_megatron.has_value());  // no FLOPs figure and no TFLOP/s in the "log"
}

TEST(TrainingLog, CalibrationNeedsGpusAndSaysWhyMfuIsMissing) {
  RunSummary s;
  s.window_time_s = 1;
  s.window_tokens = 1000;
  EXPECT_FALSE(calibrate(s, CalibrationInputs{}));
  CalibrationInputs in;
  in.gpus = 1;
  auto c = calibrate(s, in);
  ASSERT_TRUE(c);
  EXPECT_FALSE(c->mfu.has_value());
  EXPECT_NE(c->mfu_note.find("peak"), std::string::npos);
  EXPECT_FALSE(c->usd_per_million_tokens.has_value());
}

TEST(TrainingLog, BridgeLogEveryFiveIterationsWeighsEachLineByItsSpan) {
  const TrainingLog log = parse_fixture("bridge_interval5.log");
  ASSERT_EQ(log.iterations.size(), 10u);
  for (const auto& li : log.iterations) EXPECT_EQ(li.span, 5);
  EXPECT_TRUE(log.args.empty());
  auto w = steady_window(log, std::nullopt);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->start_iteration, 6);  // the first line (iterations 1-5, 12000 ms) is warm-up
  EXPECT_EQ(w->end_iteration, 50);
  auto s = summarize_runs({{&log, *w}}, 8192, 0);
  ASSERT_TRUE(s);
  EXPECT_DOUBLE_EQ(s->window_tokens, 45.0 * 256.0 * 8192.0);
  // make_logs.py BRIDGE_MS[1:], each covering 5 iterations.
  const double t = 5.0 * (5000.0 + 5100.0 + 4900.0 + 5000.0 + 5050.0 + 4950.0 + 5000.0 + 5100.0 + 4900.0) / 1000.0;
  EXPECT_NEAR(s->window_time_s, t, 1e-9);
}

TEST(TrainingLog, RequestedWindowKeepsWholeIntervals) {
  const TrainingLog log = parse_fixture("bridge_interval5.log");
  auto w = steady_window(log, std::pair<int64_t, int64_t>{11, 30});
  ASSERT_TRUE(w) << w.error().str();
  EXPECT_FALSE(w->automatic);
  EXPECT_EQ(w->start_iteration, 11);
  EXPECT_EQ(w->end_iteration, 30);
  // Iterations 12..30: the line at 15 covers 11-15, which starts before 12, so the window starts at 16.
  w = steady_window(log, std::pair<int64_t, int64_t>{12, 30});
  ASSERT_TRUE(w);
  EXPECT_EQ(w->start_iteration, 16);
  EXPECT_EQ(w->end_iteration, 30);
}

TEST(TrainingLog, WindowOutsideTheLogIsAClearError) {
  const TrainingLog log = parse_fixture("megatron_normal.log");
  auto w = steady_window(log, std::pair<int64_t, int64_t>{500, 600});
  ASSERT_FALSE(w);
  EXPECT_NE(w.error().message.find("outside the log"), std::string::npos) << w.error().message;
  EXPECT_NE(w.error().message.find("1..30"), std::string::npos) << w.error().message;
  EXPECT_FALSE(steady_window(log, std::pair<int64_t, int64_t>{20, 10}));
  EXPECT_FALSE(steady_window(log, std::pair<int64_t, int64_t>{0, 10}));
  const TrainingLog every5 = parse_fixture("bridge_interval5.log");
  w = steady_window(every5, std::pair<int64_t, int64_t>{12, 14});
  ASSERT_FALSE(w);
  EXPECT_NE(w.error().message.find("no whole logged interval"), std::string::npos) << w.error().message;
}

TEST(TrainingLog, TruncatedLineKeepsOnlyItsFinishedFields) {
  const TrainingLog log = parse_fixture("truncated.log");
  ASSERT_EQ(log.iterations.size(), 9u);  // the tenth line is cut inside its elapsed time
  EXPECT_EQ(log.truncated_lines, 1);
  ASSERT_FALSE(log.warnings.empty());
  const LogIteration& ninth = log.iterations.back();
  EXPECT_EQ(ninth.iteration, 9);
  EXPECT_DOUBLE_EQ(ninth.step_time_s, 7.65);
  EXPECT_FALSE(ninth.tflops_per_gpu.has_value());  // cut inside "throughput per GPU"
  EXPECT_FALSE(ninth.loss.has_value());
  auto w = steady_window(log, std::nullopt);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->start_iteration, 2);
  auto s = summarize_runs({{&log, *w}}, 4096, 0);
  ASSERT_TRUE(s);
  EXPECT_FALSE(s->log_tflops_per_gpu.has_value());  // one window line lacks it
  EXPECT_NEAR(*s->last_loss, 9.2, 1e-9);              // iteration 8's, the last with a loss
}

TEST(TrainingLog, InterleavedRanksKeepTheLastRanksLines) {
  const TrainingLog log = parse_fixture("interleaved_ranks.log");
  ASSERT_EQ(log.iterations.size(), 12u);
  EXPECT_EQ(log.other_rank_lines, 10);
  for (const auto& li : log.iterations) {
    EXPECT_EQ(li.rank, 7);
    EXPECT_NE(li.step_time_s, 9.999);  // rank 3's time
  }
  EXPECT_DOUBLE_EQ(log.iterations[0].step_time_s, 15.0);
  EXPECT_DOUBLE_EQ(log.iterations[1].step_time_s, 5.95);
  EXPECT_DOUBLE_EQ(log.iterations[2].step_time_s, 6.05);
  ASSERT_FALSE(log.warnings.empty());
  EXPECT_NE(log.warnings[0].find("rank 7"), std::string::npos) << log.warnings[0];
}

TEST(TrainingLog, NanLossIsCountedAndSkippedForFirstAndLastLoss) {
  const TrainingLog log = parse_fixture("nan_loss.log");
  ASSERT_EQ(log.iterations.size(), 12u);
  EXPECT_FALSE(log.iterations[6].loss.has_value());
  EXPECT_EQ(log.iterations[6].nan_iterations, 1);
  ASSERT_TRUE(log.iterations[7].loss.has_value());
  EXPECT_TRUE(std::isnan(*log.iterations[7].loss));
  auto w = steady_window(log, std::nullopt);
  ASSERT_TRUE(w);
  auto s = summarize_runs({{&log, *w}}, 2048, 0);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->nan_iterations, 2);
  EXPECT_NEAR(*s->first_loss, 5.9, 1e-9);
  EXPECT_NEAR(*s->last_loss, 4.8, 1e-9);
}

TEST(TrainingLog, LogWithoutIterationLinesIsAClearError) {
  auto log = parse_training_log(fixture("no_iterations.log"), "no_iterations.log");
  ASSERT_FALSE(log);
  EXPECT_NE(log.error().str().find("no_iterations.log"), std::string::npos);
  EXPECT_NE(log.error().message.find("no training iteration lines"), std::string::npos);
  EXPECT_FALSE(parse_training_log("", "empty.log"));
}

TEST(TrainingLog, SrunPrefixesRepeatsAndMissingBatch) {
  const std::string text =
      "0:  iteration        1/       4 | elapsed time per iteration (ms): 900.0 | global batch size:    16 |\n"
      "0:  iteration        2/       4 | elapsed time per iteration (ms): 500.0 | global batch size:    16 |\n"
      "0:  iteration        2/       4 | elapsed time per iteration (ms): 777.0 | global batch size:    16 |\n"
      "0:  iteration        3/       4 | elapsed time per iteration (ms): 500.0 |\n";
  auto log = parse_training_log(text, "srun.log");
  ASSERT_TRUE(log);
  ASSERT_EQ(log->iterations.size(), 3u);
  EXPECT_EQ(log->duplicate_lines, 1);
  EXPECT_EQ(log->iterations[0].rank, 0);
  EXPECT_DOUBLE_EQ(log->iterations[1].step_time_s, 0.5);
  auto w = steady_window(*log, std::pair<int64_t, int64_t>{2, 3});
  ASSERT_TRUE(w);
  auto s = summarize_runs({{&*log, *w}}, 1024, 0);  // iteration 3 takes iteration 2's batch
  ASSERT_TRUE(s);
  EXPECT_DOUBLE_EQ(s->window_tokens, 2.0 * 16 * 1024);
  const std::string no_batch = " iteration        1/       2 | elapsed time per iteration (ms): 900.0 |\n";
  auto nb = parse_training_log(no_batch, "nobatch.log");
  ASSERT_TRUE(nb);
  auto nbw = steady_window(*nb, std::nullopt);
  ASSERT_TRUE(nbw);
  EXPECT_FALSE(summarize_runs({{&*nb, *nbw}}, 1024, 0));  // no batch anywhere
  s = summarize_runs({{&*nb, *nbw}}, 1024, 16);
  ASSERT_TRUE(s);
  EXPECT_DOUBLE_EQ(s->window_tokens, 16.0 * 1024);
  EXPECT_FALSE(summarize_runs({{&*log, *w}}, 0, 16));  // no sequence length
}

TEST(TrainingLog, TwoRunsPoolTheirWindows) {
  const TrainingLog a = parse_fixture("megatron_normal.log");
  const TrainingLog b = parse_fixture("truncated.log");
  auto wa = steady_window(a, std::nullopt);
  auto wb = steady_window(b, std::nullopt);
  ASSERT_TRUE(wa && wb);
  auto s = summarize_runs({{&a, *wa}, {&b, *wb}}, 4096, 0);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->runs, 2);
  EXPECT_EQ(s->window_steps, 27 + 8);
  EXPECT_NEAR(*s->first_loss, 10.5, 1e-9);  // the first run's first
  EXPECT_NEAR(*s->last_loss, 9.2, 1e-9);    // the last run's last
}

TEST(TrainingLog, ParsingNeverThrowsAndKeepsIterationsIncreasing) {
  rc::check("any text", [](const std::string& junk) {
    const std::string text = junk + "\n iteration 3/ 9 | elapsed time per iteration (ms): 1.5 |\n" + junk;
    auto log = parse_training_log(text, "junk.log");
    RC_ASSERT(log.has_value());
    for (size_t i = 1; i < log->iterations.size(); ++i)
      RC_ASSERT(log->iterations[i].iteration > log->iterations[i - 1].iteration);
    auto w = steady_window(*log, std::nullopt);
    RC_ASSERT(w.has_value());
    RC_ASSERT(w->first <= w->last);
  });
}

TEST(TrainingLog, ThroughputIsTokensOverTimeForAnyStepTimes) {
  rc::check("tokens/s/GPU = sum(gbs x seq) / sum(t) / gpus", [] {
    const auto times = *rc::gen::container<std::vector<int>>(static_cast<std::size_t>(*rc::gen::inRange(2, 30)), rc::gen::inRange(100, 100000));
    const int gpus = *rc::gen::inRange(1, 1025);
    std::string text;
    double total_s = 0;
    for (size_t i = 0; i < times.size(); ++i) {
      text += fmt::format(" iteration {:8d}/{:8d} | elapsed time per iteration (ms): {:.1f} | global batch size: {:5d} |\n",
                          i + 1, times.size(), static_cast<double>(times[i]), 64);
      total_s += static_cast<double>(times[i]) / 1000.0;
    }
    auto log = parse_training_log(text, "gen.log");
    RC_ASSERT(log.has_value());
    auto w = steady_window(*log, std::pair<int64_t, int64_t>{1, static_cast<int64_t>(times.size())});
    RC_ASSERT(w.has_value());
    auto s = summarize_runs({{&*log, *w}}, 4096, 0);
    RC_ASSERT(s.has_value());
    CalibrationInputs in;
    in.gpus = gpus;
    auto c = calibrate(*s, in);
    RC_ASSERT(c.has_value());
    const double expect = static_cast<double>(times.size()) * 64.0 * 4096.0 / total_s / static_cast<double>(gpus);
    RC_ASSERT(std::abs(c->tokens_per_s_per_gpu - expect) <= 1e-9 * expect);
  });
}

// Without an argument dump (Megatron prints it on rank 0 only), the world-size line alone gives the
// parallel sizes calibrate compares with the record's layout.
TEST(TrainingLogCrossCheck, TheWorldSizeLineGivesEachParallelSize) {
  const std::string text =
      "using world size: 64, data-parallel size: 2, context-parallel size: 2, hierarchical context-parallel sizes: "
      "None, tensor-model-parallel size: 4, pipeline-model-parallel size: 4\n"
      " iteration        1/      10 | consumed samples:          256 | elapsed time per iteration (ms): 36400.0 | "
      "global batch size:   256 | lm loss: 1.0E+01 |\n";
  auto log = parse_training_log(text, "x.log");
  ASSERT_TRUE(log.has_value()) << log.error().str();
  EXPECT_EQ(log->arg_int("world_size"), 64);
  EXPECT_EQ(log->arg_int("data_parallel_size"), 2);
  EXPECT_EQ(log->arg_int("context_parallel_size"), 2);
  EXPECT_EQ(log->arg_int("tensor_model_parallel_size"), 4);
  EXPECT_EQ(log->arg_int("pipeline_model_parallel_size"), 4);
  EXPECT_FALSE(log->args.contains("hierarchical_context_parallel_sizes"));
}

TEST(TrainingLogCrossCheck, ReadsTheWorldSizeLineAndNamesEveryDifference) {
  const TrainingLog log = parse_fixture("llama8b_16gpu.log");
  EXPECT_EQ(log.arg_int("world_size"), 16);
  auto w = steady_window(log, std::nullopt);
  ASSERT_TRUE(w.has_value());
  auto s = summarize_runs({{&log, *w}}, 8192, 0);
  ASSERT_TRUE(s.has_value());
  // The run the log is of: nothing to say.
  RunClaims same;
  same.gpus = 16;
  same.gbs = 128;
  same.seq = 8192;
  same.model = "Llama-3-8B";
  same.hidden = 4096;
  same.layers = 32;
  same.flops_per_token = 51.46e9;
  same.tokens_per_s_per_gpu = s->window_tokens / s->window_time_s / 16;
  EXPECT_TRUE(cross_check({&log}, *s, same).empty());
  // Another run: every figure differs, and each is named.
  RunClaims other = same;
  other.gpus = 64;
  other.gbs = 256;
  other.seq = 4096;
  other.hidden = 8192;
  other.layers = 80;
  other.tokens_per_s_per_gpu /= 4;
  std::set<std::string> fields;
  for (const auto& m : cross_check({&log}, *s, other)) fields.insert(m.field);
  EXPECT_EQ(fields, (std::set<std::string>{"world_size", "global_batch_size", "seq_length", "hidden_size", "num_layers",
                                           "TFLOP/s"}));
}

TEST(TrainingLogCrossCheck, ListsTheLinesTheWindowLeavesOut) {
  const TrainingLog log = parse_fixture("megatron_normal.log");
  auto w = steady_window(log, std::nullopt);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(excluded_lines(log, *w),
            "megatron_normal.log: left out 3 line(s), iterations 1..3 (25.00 s, 9.80 s, 8.60 s per step): warm-up, "
            "before the first step within 10% of the steady median");
  auto all = steady_window(log, std::pair<int64_t, int64_t>{1, 30});
  ASSERT_TRUE(all.has_value());
  EXPECT_EQ(excluded_lines(log, *all), "");
}

}  // namespace
}  // namespace rb
