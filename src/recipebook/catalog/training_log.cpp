#include "recipebook/catalog/training_log.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "recipebook/core/strings.hpp"

namespace rb {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

std::optional<int64_t> to_int(std::string_view s) {
  s = trim(s);
  if (!all_digits(s) || s.size() > 18) return std::nullopt;
  int64_t v = 0;
  for (char c : s) v = v * 10 + (c - '0');
  return v;
}

// The leading number of a field value ("7654.3", "2.345678E+00", "nan", "496.3 (avg 496.1)").
std::optional<double> to_double(std::string_view s) {
  s = trim(s);
  if (s.empty()) return std::nullopt;
  const std::string buf(s);
  char* end = nullptr;
  const double v = std::strtod(buf.c_str(), &end);
  if (end == buf.c_str()) return std::nullopt;
  // A value cut mid-number by truncation still parses ("76"); the caller only sees complete fields.
  if (*end != '\0' && !std::isspace(static_cast<unsigned char>(*end))) return std::nullopt;
  return v;
}

// Strips a launcher's rank prefix: "12: " (srun -l), "[default3]:" (torchrun), "[rank3]:".
std::string_view strip_rank(std::string_view line, int& rank) {
  rank = -1;
  std::string_view s = line;
  size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  size_t j = i;
  while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
  if (j > i && j < s.size() && s[j] == ':' && j - i <= 6) {
    rank = static_cast<int>(*to_int(s.substr(i, j - i)));
    return s.substr(j + 1);
  }
  for (std::string_view tag : {"[default", "[rank"}) {
    if (s.substr(i, tag.size()) != tag) continue;
    size_t k = i + tag.size();
    size_t d = k;
    while (d < s.size() && std::isdigit(static_cast<unsigned char>(s[d]))) ++d;
    if (d > k && d + 1 < s.size() && s[d] == ']' && s[d + 1] == ':') {
      rank = static_cast<int>(*to_int(s.substr(k, d - k)));
      return s.substr(d + 2);
    }
  }
  return s;
}

// "[2026-10-18 12:00:00]" anywhere before `limit`.
std::string find_timestamp(std::string_view s) {
  for (size_t p = s.find('['); p != std::string_view::npos; p = s.find('[', p + 1)) {
    if (p + 21 > s.size() || s[p + 20] != ']') continue;
    const std::string_view t = s.substr(p + 1, 19);
    bool ok = true;
    for (size_t k = 0; k < t.size(); ++k) {
      const char c = t[k];
      if (k == 4 || k == 7)
        ok = ok && c == '-';
      else if (k == 10)
        ok = ok && c == ' ';
      else if (k == 13 || k == 16)
        ok = ok && c == ':';
      else
        ok = ok && std::isdigit(static_cast<unsigned char>(c));
    }
    if (ok) return std::string(t);
  }
  return {};
}

// Finds "iteration <N>/ <M> |" and returns the position just past the '|'.
std::optional<size_t> match_iteration(std::string_view s, int64_t& it, int64_t& total, size_t& at) {
  for (size_t p = s.find("iteration"); p != std::string_view::npos; p = s.find("iteration", p + 1)) {
    size_t k = p + 9;
    if (k >= s.size() || s[k] != ' ') continue;
    while (k < s.size() && s[k] == ' ') ++k;
    size_t d = k;
    while (d < s.size() && std::isdigit(static_cast<unsigned char>(s[d]))) ++d;
    if (d == k || d >= s.size() || s[d] != '/') continue;
    auto a = to_int(s.substr(k, d - k));
    k = d + 1;
    while (k < s.size() && s[k] == ' ') ++k;
    d = k;
    while (d < s.size() && std::isdigit(static_cast<unsigned char>(s[d]))) ++d;
    if (d == k) continue;
    auto b = to_int(s.substr(k, d - k));
    while (d < s.size() && s[d] == ' ') ++d;
    if (d >= s.size() || s[d] != '|' || !a || !b) continue;
    it = *a;
    total = *b;
    at = p;
    return d + 1;
  }
  return std::nullopt;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Reads the '|'-terminated fields of an iteration line into `li`. Returns false when the elapsed
// time is missing (the line was cut before it).
bool read_fields(std::string_view rest, LogIteration& li) {
  bool have_time = false;
  bool have_lm_loss = false;
  size_t start = 0;
  for (size_t bar = rest.find('|'); bar != std::string_view::npos; start = bar + 1, bar = rest.find('|', start)) {
    const std::string_view field = trim(rest.substr(start, bar - start));
    const size_t colon = field.rfind(": ");
    if (colon == std::string_view::npos) continue;
    const std::string key = lower(trim(field.substr(0, colon)));
    const std::string_view value = field.substr(colon + 2);
    if (key == "elapsed time per iteration (ms)") {
      if (auto v = to_double(value); v && *v > 0 && std::isfinite(*v)) {
        li.step_time_s = *v / 1000.0;
        have_time = true;
      }
    } else if (key == "throughput per gpu (tflop/s/gpu)" || key == "compute per gpu (tflop/s/gpu)") {
      li.tflops_per_gpu = to_double(value);
    } else if (key == "global batch size") {
      li.global_batch = to_int(value);
    } else if (key == "number of skipped iterations") {
      li.skipped = to_int(value).value_or(0);
    } else if (key == "number of nan iterations") {
      li.nan_iterations = to_int(value).value_or(0);
    } else if (key == "lm loss") {
      li.loss = to_double(value);
      have_lm_loss = true;
    } else if (!have_lm_loss && key.size() > 5 && key.ends_with(" loss") && key != "loss scale") {
      li.loss = to_double(value);  // e.g. "total loss" where no "lm loss" is printed
    }
  }
  return have_time;
}

// "  seq_length ...................................... 4096" (arguments.py _print_args).
void read_arg(std::string_view s, std::map<std::string, std::string>& args) {
  s = trim(s);
  // "using world size: 16, data-parallel size: 2, ..." (megatron/training/arguments.py validate_args).
  // Each "<name> size: N" of it is the argument dump's <name>_size (the dump, when printed, agrees).
  if (s.starts_with("using world size: ")) {
    for (const std::string& part : split_trimmed(s.substr(6), ',')) {
      const size_t colon = part.find(" size: ");
      if (colon == std::string::npos) continue;
      const std::string value = part.substr(colon + 7);
      if (!all_digits(value)) continue;
      std::string key = part.substr(0, colon) + "_size";
      std::replace(key.begin(), key.end(), '-', '_');
      args.emplace(std::move(key), value);
    }
    return;
  }
  const size_t sp = s.find(' ');
  if (sp == std::string_view::npos || sp == 0) return;
  const std::string_view key = s.substr(0, sp);
  for (char c : key)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return;
  std::string_view rest = s.substr(sp + 1);
  size_t dots = 0;
  while (dots < rest.size() && rest[dots] == '.') ++dots;
  if (dots < 3 || dots >= rest.size() || rest[dots] != ' ') return;
  args.emplace(std::string(key), std::string(trim(rest.substr(dots + 1))));
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

std::optional<int64_t> TrainingLog::arg_int(const std::string& key) const {
  auto it = args.find(key);
  if (it == args.end()) return std::nullopt;
  return to_int(it->second);
}

Result<TrainingLog> parse_training_log(std::string_view text, const std::string& file) {
  TrainingLog log;
  log.file = file;
  std::vector<LogIteration> all;
  int line_no = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view raw = text.substr(start, end - start);
    start = end + 1;
    ++line_no;
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    int rank = -1;
    const std::string_view s = strip_rank(raw, rank);
    int64_t it = 0;
    int64_t total = 0;
    size_t at = 0;
    auto rest = match_iteration(s, it, total, at);
    if (!rest) {
      read_arg(s, log.args);
      continue;
    }
    LogIteration li;
    li.iteration = it;
    li.train_iters = total;
    li.line = line_no;
    li.rank = rank;
    li.timestamp = find_timestamp(s.substr(0, at));
    if (!read_fields(s.substr(*rest), li)) {
      ++log.truncated_lines;
      log.warnings.push_back(fmt::format("{}:{}: iteration {} line is cut before its elapsed time; skipped",
                                         file, line_no, it));
      continue;
    }
    all.push_back(std::move(li));
  }
  if (all.empty())
    return fail(log.truncated_lines > 0 ? "no complete training iteration line (every one is cut short)"
                                        : "no training iteration lines (Megatron's \"iteration N/ M | ... | elapsed "
                                          "time per iteration (ms): T | ...\")",
                Where{file, 0, 0}, "give the log of the training run's last rank (it prints the iteration lines)");

  // Keep one rank's lines: the rank with the most (ties: the highest, as Megatron logs from the last rank).
  std::map<int, int> per_rank;
  for (const auto& li : all) ++per_rank[li.rank];
  int keep = all.front().rank;
  int best = -1;
  for (const auto& [r, n] : per_rank)
    if (n >= best) {
      best = n;
      keep = r;
    }
  for (const auto& li : all) {
    if (li.rank != keep) {
      ++log.other_rank_lines;
      continue;
    }
    if (!log.iterations.empty() && li.iteration <= log.iterations.back().iteration) {
      ++log.duplicate_lines;
      continue;
    }
    log.iterations.push_back(li);
  }
  if (per_rank.size() > 1)
    log.warnings.push_back(fmt::format("{}: iteration lines from {} ranks; using rank {} ({} lines), ignoring {}",
                                       file, per_rank.size(), keep, best, log.other_rank_lines));
  if (log.duplicate_lines > 0)
    log.warnings.push_back(fmt::format("{}: {} repeated or out-of-order iteration lines ignored (a restart?)", file,
                                       log.duplicate_lines));

  // Each line's mean covers the iterations since the previous line; the first line's span is the
  // log interval seen next (or everything from iteration 1 when it is the only line).
  auto& its = log.iterations;
  for (size_t i = 0; i < its.size(); ++i) {
    if (i > 0) {
      its[i].span = its[i].iteration - its[i - 1].iteration;
    } else if (its[0].iteration == 1) {
      its[0].span = 1;
    } else if (its.size() > 1) {
      its[0].span = std::min(its[1].iteration - its[0].iteration, its[0].iteration);
    } else {
      its[0].span = its[0].iteration;
    }
  }
  return log;
}

Result<StepWindow> steady_window(const TrainingLog& log, std::optional<std::pair<int64_t, int64_t>> requested) {
  const auto& its = log.iterations;
  if (its.empty()) return fail("no iteration lines", Where{log.file, 0, 0});
  StepWindow w;
  if (requested) {
    const auto [a, b] = *requested;
    if (a < 1 || b < a) return fail(fmt::format("window {}:{} is not a range A:B with 1 <= A <= B", a, b));
    const int64_t first_it = its.front().iteration - its.front().span + 1;
    const int64_t last_it = its.back().iteration;
    bool found = false;
    for (size_t i = 0; i < its.size(); ++i) {
      if (its[i].iteration - its[i].span + 1 < a || its[i].iteration > b) continue;
      if (!found) w.first = i;
      w.last = i;
      found = true;
    }
    if (!found) {
      if (b < first_it || a > last_it)
        return fail(fmt::format("window {}:{} is outside the log, which covers iterations {}..{}", a, b, first_it,
                                last_it),
                    Where{log.file, 0, 0});
      return fail(fmt::format("window {}:{} holds no whole logged interval (lines every {} iterations)", a, b,
                              its.size() > 1 ? its[1].span : its[0].span),
                  Where{log.file, 0, 0});
    }
    w.automatic = false;
  } else {
    std::vector<double> tail;
    for (size_t i = its.size() / 2; i < its.size(); ++i) tail.push_back(its[i].step_time_s);
    const double ref = median(tail);
    w.first = its.size() - 1;
    for (size_t i = 0; i < its.size(); ++i)
      if (std::abs(its[i].step_time_s - ref) <= kSettleTolerance * ref) {
        w.first = i;
        break;
      }
    w.last = its.size() - 1;
  }
  w.start_iteration = its[w.first].iteration - its[w.first].span + 1;
  w.end_iteration = its[w.last].iteration;
  return w;
}

Result<RunSummary> summarize_runs(const std::vector<RunWindow>& runs, int64_t seq, int64_t fallback_gbs) {
  if (runs.empty()) return fail("no runs to summarize");
  if (seq <= 0) return fail("the sequence length is not known", {}, "give --seq N, --recipe FILE, or a log with its arguments");
  RunSummary s;
  s.runs = static_cast<int>(runs.size());
  std::vector<double> times;
  double tflop_time = 0;
  double tflop_weight = 0;
  bool all_tflops = true;
  for (size_t r = 0; r < runs.size(); ++r) {
    const TrainingLog& log = *runs[r].log;
    const StepWindow& w = runs[r].window;
    if (r == 0) {
      s.window_start = w.start_iteration;
      s.window_end = w.end_iteration;
      s.steps_per_run = log.iterations.back().iteration;
    }
    for (const auto& li : log.iterations) {
      s.total_time_s += static_cast<double>(li.span) * li.step_time_s;
      s.nan_iterations += li.nan_iterations;
      s.skipped_iterations += li.skipped;
      if (!li.timestamp.empty()) s.measured_date = li.timestamp.substr(0, 10);
      if (li.loss && std::isnan(*li.loss) && li.nan_iterations == 0) s.nan_iterations += li.span;
    }
    // A line that prints no global batch (cut short, or a format without it) takes the last one
    // printed before it, else the caller's.
    int64_t last_gbs = fallback_gbs;
    for (size_t i = 0; i < w.first; ++i)
      if (log.iterations[i].global_batch) last_gbs = *log.iterations[i].global_batch;
    for (size_t i = w.first; i <= w.last; ++i) {
      const LogIteration& li = log.iterations[i];
      if (li.global_batch) last_gbs = *li.global_batch;
      const int64_t gbs = last_gbs;
      if (gbs <= 0)
        return fail(fmt::format("iteration {} prints no global batch size", li.iteration), Where{log.file, li.line, 0},
                    "give --gbs N or --recipe FILE");
      const double span = static_cast<double>(li.span);
      s.window_steps += li.span;
      s.window_tokens += span * static_cast<double>(gbs) * static_cast<double>(seq);
      s.window_time_s += span * li.step_time_s;
      times.push_back(li.step_time_s);
      if (li.tflops_per_gpu) {
        tflop_time += *li.tflops_per_gpu * span * li.step_time_s;
        tflop_weight += span * li.step_time_s;
      } else {
        all_tflops = false;
      }
    }
    for (const auto& li : log.iterations)
      if (li.loss && std::isfinite(*li.loss)) {
        if (r == 0 && !s.first_loss) s.first_loss = li.loss;
        if (r + 1 == runs.size()) s.last_loss = li.loss;
      }
  }
  s.step_time_mean_s = s.window_time_s / static_cast<double>(s.window_steps);
  if (times.size() >= 2) {
    double mean = 0;
    for (double t : times) mean += t;
    mean /= static_cast<double>(times.size());
    double ss = 0;
    for (double t : times) ss += (t - mean) * (t - mean);
    s.step_time_cv = std::sqrt(ss / static_cast<double>(times.size() - 1)) / mean;
  }
  if (all_tflops && tflop_weight > 0) s.log_tflops_per_gpu = tflop_time / tflop_weight;
  return s;
}

Result<Calibration> calibrate(const RunSummary& run, const CalibrationInputs& in) {
  if (in.gpus <= 0) return fail("the GPU count is not known", {}, "give --gpus N, --recipe FILE, or a log with its arguments");
  if (run.window_time_s <= 0) return fail("the window has no time");
  Calibration c;
  c.run = run;
  const double gpus = static_cast<double>(in.gpus);
  c.tokens_per_s_per_gpu = run.window_tokens / run.window_time_s / gpus;
  const bool have_peak = in.peak_flops_per_s && *in.peak_flops_per_s > 0;
  if (!have_peak) {
    c.mfu_note = "no dense peak for the GPU and precision (give --gpu or --peak-tflops)";
  } else {
    const double peak = *in.peak_flops_per_s;
    if (in.active_params && *in.active_params > 0) {
      // Seed 002: mfu = 6 x active params x tokens/s/GPU / dense peak.
      c.mfu = 6.0 * *in.active_params * c.tokens_per_s_per_gpu / peak;
      c.active_params = in.active_params;
      c.mfu_note = "6 x active params x tokens/s/GPU / dense peak";
    } else {
      c.mfu_note = "no active parameter count (give --active-params or a catalog model)";
    }
    if (in.flops_per_token && *in.flops_per_token > 0) {
      c.mfu_megatron = *in.flops_per_token * c.tokens_per_s_per_gpu / peak;
      c.mfu_note += fmt::format("; with Megatron's FLOPs count ({:.1f} GFLOP/token) {:.4f}", *in.flops_per_token / 1e9,
                                *c.mfu_megatron);
    } else if (run.log_tflops_per_gpu) {
      c.mfu_megatron = *run.log_tflops_per_gpu * 1e12 / peak;
      c.mfu_note += fmt::format("; with the log's {:.1f} TFLOP/s/GPU {:.4f}", *run.log_tflops_per_gpu, *c.mfu_megatron);
    }
  }
  if (in.usd_per_gpu_hour && *in.usd_per_gpu_hour > 0)
    c.usd_per_million_tokens = *in.usd_per_gpu_hour / (c.tokens_per_s_per_gpu * 3600.0) * 1e6;
  c.gpu_hours = gpus * run.total_time_s / 3600.0;
  c.gpu_hours_note = "GPUs x the logged step times of every iteration (the training loop only: no startup, "
                     "evaluation or checkpoint saves)";
  return c;
}

}  // namespace rb
