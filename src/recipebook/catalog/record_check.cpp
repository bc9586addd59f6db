#include "recipebook/catalog/record_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>

#include <fmt/format.h>

#include "recipebook/core/precision.hpp"
#include "recipebook/estimate/params.hpp"

namespace rb {

const YNode* node_at(const YNode& root, std::string_view path) {
  const YNode* cur = &root;
  size_t i = 0;
  while (cur != nullptr && i < path.size()) {
    if (path[i] == '.') {
      ++i;
      continue;
    }
    if (path[i] == '[') {
      const size_t close = path.find(']', i);
      if (close == std::string_view::npos || !cur->is_seq()) return nullptr;
      const size_t idx = static_cast<size_t>(std::strtoul(std::string(path.substr(i + 1, close - i - 1)).c_str(), nullptr, 10));
      if (idx >= cur->seq.size()) return nullptr;
      cur = &cur->seq[idx];
      i = close + 1;
      continue;
    }
    size_t end = i;
    while (end < path.size() && path[end] != '.' && path[end] != '[') ++end;
    cur = cur->get(path.substr(i, end - i));
    i = end;
  }
  return cur;
}

bool record_layout_known(const YNode& tree, const Model* model, std::span<const std::string> doubted) {
  auto given = [&](std::string_view path) {
    const YNode* n = node_at(tree, path);
    return (n != nullptr && !n->is_null()) || std::find(doubted.begin(), doubted.end(), path) != doubted.end();
  };
  const YNode* count = node_at(tree, "gpu.count");
  const bool dense = model != nullptr && model->has_architecture && !model->is_moe();
  return whole_layout_given(given("layout.tp"), given("layout.pp"), given("layout.cp"), given("layout.ep"), !dense,
                            count != nullptr && count->as_int() == 1);
}

Where where_of(const YNode& root, std::string_view path) {
  std::string p(path);
  while (true) {
    if (const YNode* n = node_at(root, p); n != nullptr) return n->where;
    const size_t cut = p.find_last_of(".[");
    if (cut == std::string::npos) return root.where;
    p.resize(cut);
  }
}

namespace {

// Half a unit in the last written decimal of a stated value: "0.0468" -> 5e-5, "3.68" -> 5e-3.
double rounding_of(const YNode& n) {
  const std::string& t = n.text;
  const size_t e = t.find_first_of("eE");
  const std::string mant = t.substr(0, e);
  const size_t dot = mant.find('.');
  int decimals = dot == std::string::npos ? 0 : static_cast<int>(mant.size() - dot - 1);
  if (e != std::string::npos) decimals -= std::atoi(t.c_str() + e + 1);
  return 0.5 * std::pow(10.0, -decimals);
}

// A recomputed figure as it should be written: a count (an integer stated and computed) in plain
// digits, never "1.57286e+07", which is both unreadable and not the count; a decimal with six
// significant digits, in fixed notation.
std::string figure_text(double v, bool count) {
  if (count && std::fabs(v) < 9e18) return fmt::format("{}", std::llround(v));
  std::string t = fmt::format("{:.6g}", v);
  if (t.find('e') == std::string::npos) return t;
  const int digits = std::max(0, 5 - static_cast<int>(std::floor(std::log10(std::fabs(v)))));
  t = fmt::format("{:.{}f}", v, digits);
  return t;
}

class RecordChecker {
 public:
  RecordChecker(const YNode& tree, const Catalog& catalog) : tree_(tree), catalog_(catalog) {}

  Diagnostics run() {
    resolve_refs();
    check_window_tokens();
    check_layout_product();
    check_active_params();
    check_mfu();
    check_usd();
    check_evidence();
    return std::move(out_);
  }

 private:
  std::optional<double> num(std::string_view path) const {
    const YNode* n = node_at(tree_, path);
    return n ? n->as_double() : std::nullopt;
  }
  std::optional<int64_t> integer(std::string_view path) const {
    const YNode* n = node_at(tree_, path);
    return n ? n->as_int() : std::nullopt;
  }
  std::optional<std::string> str(std::string_view path) const {
    const YNode* n = node_at(tree_, path);
    return n && n->is_scalar() ? n->as_string() : std::nullopt;
  }
  void add(Severity sev, const char* id, std::string_view path, std::string msg, std::string fix = {}) {
    out_.push_back(Diagnostic{sev, id, where_of(tree_, path), std::move(msg), std::move(fix)});
  }
  // Compares a stated figure with its recomputed value: an integer (a count) exactly, a decimal
  // within its written rounding (and never tighter than 0.01% relative, for values written with
  // more digits than their inputs carry).
  void compare(const char* id, std::string_view path, double computed, const std::string& how) {
    const YNode* n = node_at(tree_, path);
    if (n == nullptr) return;
    const auto stated = n->as_double();
    if (!stated) return;
    const bool exact = n->type == YNode::ScalarType::kInt;
    const double tol =
        exact ? 0.5 : std::max(rounding_of(*n), 1e-4 * std::fabs(computed)) * (1 + 1e-9);
    if (std::fabs(*stated - computed) <= tol) return;
    const std::string value = figure_text(computed, exact && std::fabs(computed - std::round(computed)) < 1e-6);
    add(Severity::kError, id, path, fmt::format("{} is {} but {} gives {}", path, n->text, how, value),
        fmt::format("set {} to {}, or correct the figures it derives from", path, value));
  }

  void resolve_refs() {
    if (auto m = str("model")) {
      auto found = catalog_.find_model(*m);
      if (found) {
        model_ = *found;
      } else {
        add(Severity::kError, "RB-MODEL-UNKNOWN", "model", "unknown model '" + *m + "'", found.error().fix);
      }
    }
    if (auto g = str("gpu.type")) {
      auto found = catalog_.find_hardware(*g);
      if (found) {
        hw_ = *found;
      } else {
        add(Severity::kError, "RB-GPU-UNKNOWN", "gpu.type", "unknown GPU '" + *g + "'", found.error().fix);
      }
    }
    if (auto base = str("extends")) {
      auto found = catalog_.find_recipe(*base);
      if (!found)
        add(Severity::kError, "RB-EXTENDS-UNKNOWN", "extends", "extends an unknown recipe '" + *base + "'",
            found.error().fix);
    }
  }

  void check_window_tokens() {
    const YNode* w = node_at(tree_, "result.window");
    const auto gbs = integer("workload.global_batch");
    const auto row = integer("workload.row_tokens");
    if (w == nullptr || !w->is_seq() || w->seq.size() != 2 || !gbs || !row) return;
    const auto a = w->seq[0].as_int();
    const auto b = w->seq[1].as_int();
    if (!a || !b) return;
    if (*b < *a) {
      add(Severity::kError, "RB-DERIVED-WINDOW-TOKENS", "result.window",
          fmt::format("result.window [{}, {}] ends before it starts", *a, *b), "write [first_step, last_step]");
      return;
    }
    compare("RB-DERIVED-WINDOW-TOKENS", "result.window_tokens", static_cast<double>((*b - *a + 1) * *gbs * *row),
            fmt::format("({} - {} + 1) steps x {} rows x {} tokens", *b, *a, *gbs, *row));
  }

  void check_layout_product() {
    const auto count = integer("gpu.count");
    const auto tp = integer("layout.tp");
    const auto pp = integer("layout.pp");
    if (!count || !tp || !pp) return;
    const int64_t cp = integer("layout.cp").value_or(1);
    const auto dp = integer("layout.dp");
    const int64_t model_parallel = *tp * *pp * cp;
    if (dp) {
      if (model_parallel * *dp != *count)
        add(Severity::kError, "RB-LAYOUT-PRODUCT", "layout.dp",
            fmt::format("TP {} x PP {} x CP {} x DP {} = {} GPUs, but gpu.count is {}", *tp, *pp, cp, *dp,
                        model_parallel * *dp, *count),
            model_parallel > 0 && *count % model_parallel == 0
                ? fmt::format("set layout.dp to {}", *count / model_parallel)
                : "make TP x PP x CP divide gpu.count");
    }
    // Without a stated dp, divisibility is the layout rule RB-WORLD-DIVISIBLE's to report.
  }

  // Active parameters: the stated count must equal the architecture's; MFU uses the computed one.
  void check_active_params() {
    if (!model_ || !model_->has_architecture) return;
    computed_active_ = static_cast<double>(count_params(*model_).active);
    compare("RB-ACTIVE-PARAMS", "result.active_params.count", *computed_active_,
            "the count computed from " + model_->name + "'s architecture");
  }

  void check_mfu() {
    const auto tps = num("result.tokens_per_s_per_gpu");
    if (!tps || !hw_ || !hw_->has_specs) return;
    const double active = computed_active_.value_or(num("result.active_params.count").value_or(0));
    if (active <= 0) return;
    Precision p = Precision::kBf16;
    if (auto ps = str("workload.precision"))
      if (auto parsed = parse_precision(*ps)) p = *parsed;
    const double peak = hw_->peak_flops_per_s(p);
    if (peak <= 0) return;
    compare("RB-DERIVED-MFU", "result.mfu", 6.0 * active * *tps / peak,
            fmt::format("6 x {:.0f} active params x {} tokens/s/GPU / {} TFLOP/s ({} dense {})", active, *tps,
                        figure_text(peak / 1e12, false), hw_->name, precision_name(p)));
  }

  void check_usd() {
    const auto tps = num("result.tokens_per_s_per_gpu");
    if (!tps || *tps <= 0 || !hw_ || hw_->usd_per_gpu_hour <= 0) return;
    compare("RB-DERIVED-USD", "result.usd_per_million_tokens", hw_->usd_per_gpu_hour / (*tps * 3600.0) * 1e6,
            fmt::format("{} USD per GPU-hour ({}) / ({} tokens/s/GPU x 3600) x 1e6", hw_->usd_per_gpu_hour, hw_->name,
                        *tps));
  }

  void check_evidence() {
    const bool verified = str("kind").value_or("") == "verified" || str("status").value_or("") == "verified";
    if (!verified) return;
    const YNode* c = node_at(tree_, "correctness");
    if (c == nullptr || !c->is_map()) {
      add(Severity::kError, "RB-VERIFIED-EVIDENCE", "status", "a verified record needs a `correctness` block",
          "add correctness evidence or set status to draft");
      return;
    }
    if (str("correctness.result").value_or("") != "pass")
      add(Severity::kError, "RB-VERIFIED-EVIDENCE", "correctness.result",
          "a verified record's correctness.result must be pass", "fix the run or set status to draft");
    if (const YNode* tests = node_at(tree_, "correctness.component_tests"); tests && tests->is_seq()) {
      for (size_t i = 0; i < tests->seq.size(); ++i) {
        const std::string path = fmt::format("correctness.component_tests[{}].result", i);
        if (str(path).value_or("") != "pass")
          add(Severity::kError, "RB-VERIFIED-EVIDENCE", path, "a component test of a verified record did not pass",
              "fix it or set status to draft");
      }
    }
    if (node_at(tree_, "correctness.convergence") && str("correctness.convergence.result").value_or("") != "pass")
      add(Severity::kError, "RB-VERIFIED-EVIDENCE", "correctness.convergence.result",
          "the convergence check of a verified record did not pass", "fix it or set status to draft");
  }

  const YNode& tree_;
  const Catalog& catalog_;
  std::optional<Model> model_;
  std::optional<Hardware> hw_;
  std::optional<double> computed_active_;
  Diagnostics out_;
};

}  // namespace

Diagnostics check_record(const YNode& tree, const Catalog& catalog) { return RecordChecker(tree, catalog).run(); }

}  // namespace rb
