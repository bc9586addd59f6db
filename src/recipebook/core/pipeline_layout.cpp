#include "recipebook/core/pipeline_layout.hpp"

#include <algorithm>
#include <string>

namespace rb {

namespace {

bool is_letter(char c) { return c == 'E' || c == 't' || c == 'm' || c == 'L'; }

// Expands the repetitions of a layout string into its letters and `|`, keeping for each the
// 1-based column it came from (a repeated letter keeps the column where it was written).
class Expander {
 public:
  explicit Expander(std::string_view s) : s_(s) {}

  Result<void> run() {
    if (auto ok = items(/*in_group=*/false, out_, cols_); !ok) return ok;
    return {};
  }
  const std::string& out() const { return out_; }
  const std::vector<int>& cols() const { return cols_; }

 private:
  Result<void> error(size_t at, std::string message, std::string fix = {}) const {
    Where w{"--pipeline-layout", 0, static_cast<int>(at) + 1};  // the column is in the message too
    return fail(std::move(message) + " at column " + std::to_string(at + 1), w, std::move(fix));
  }
  void skip_commas() {
    while (i_ < s_.size() && s_[i_] == ',') ++i_;  // commas are cosmetic (Megatron removes them first)
  }
  // `*n` after an item: n, or 1 when there is no `*`.
  Result<int64_t> count() {
    skip_commas();
    if (i_ >= s_.size() || s_[i_] != '*') return 1;
    const size_t star = i_++;
    int64_t n = 0;
    const size_t start = i_;
    while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') {
      n = n * 10 + (s_[i_] - '0');
      if (n > kMaxLayoutLayers) return tl::unexpected(error(start, "repeat count is more than " + std::to_string(kMaxLayoutLayers)).error());
      ++i_;
    }
    if (i_ == start) return tl::unexpected(error(star, "'*' needs a repeat count", "write x*n or (...)*n").error());
    return n;
  }
  Result<void> append(std::string& out, std::vector<int>& cols, std::string_view what, const std::vector<int>& what_cols,
                      int64_t times, size_t at) {
    if (static_cast<int64_t>(out.size()) + times * static_cast<int64_t>(what.size()) > kMaxLayoutLayers)
      return error(at, "the layout expands to more than " + std::to_string(kMaxLayoutLayers) + " entries");
    for (int64_t k = 0; k < times; ++k) {
      out.append(what);
      cols.insert(cols.end(), what_cols.begin(), what_cols.end());
    }
    return {};
  }
  Result<void> items(bool in_group, std::string& out, std::vector<int>& cols) {
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == ',') {
        ++i_;
      } else if (c == ')') {
        if (in_group) return {};
        return error(i_, "')' without a matching '('");
      } else if (c == '(') {
        // Megatron-Core expands `\(([^)]+)\)\*(\d+)`: one level, non-empty, with a count.
        if (in_group) return error(i_, "nested '(': Megatron-Core expands one level of groups only");
        const size_t open = i_++;
        std::string inner;
        std::vector<int> inner_cols;
        if (auto ok = items(/*in_group=*/true, inner, inner_cols); !ok) return ok;
        if (i_ >= s_.size()) return error(open, "'(' is not closed");
        if (i_ == open + 1) return error(open, "empty group '()'");
        ++i_;  // ')'
        skip_commas();
        if (i_ >= s_.size() || s_[i_] != '*') return error(open, "a group needs a repeat count", "write (...)*n");
        auto n = count();
        if (!n) return tl::unexpected(n.error());
        if (auto ok = append(out, cols, inner, inner_cols, *n, open); !ok) return ok;
      } else if (is_letter(c) || c == '|') {
        const size_t at = i_++;
        auto n = count();
        if (!n) return tl::unexpected(n.error());
        if (auto ok = append(out, cols, std::string_view(&s_[at], 1), {static_cast<int>(at) + 1}, *n, at); !ok) return ok;
      } else if (c == '*') {
        return error(i_, "'*' must follow a letter or ')'");
      } else {
        return error(i_, "unknown layer letter '" + std::string(1, c) + "'",
                     "use E (embedding), t (transformer layer), m (MTP), L (loss), | (stage break), (...)*n");
      }
    }
    return {};
  }

  std::string_view s_;
  size_t i_ = 0;
  std::string out_;
  std::vector<int> cols_;
};

Result<void> at_col(int col, std::string message, std::string fix = {}) {
  return fail(std::move(message) + " at column " + std::to_string(col), Where{"--pipeline-layout", 0, col},
              std::move(fix));
}

std::string stage_str(const PipelineStage& s) {
  std::string out;
  if (s.embedding) out += 'E';
  if (s.decoder == 1) out += 't';
  if (s.decoder > 1) out += "t*" + std::to_string(s.decoder);
  if (s.mtp == 1) out += 'm';
  if (s.mtp > 1) out += "m*" + std::to_string(s.mtp);
  if (s.loss) out += 'L';
  return out;
}

}  // namespace

Result<std::vector<PipelineStage>> parse_pipeline_layout(std::string_view text) {
  if (text.empty()) return tl::unexpected(at_col(1, "empty pipeline layout", "e.g. Et*3|t*4|t*4|t*3L").error());
  Expander ex(text);
  if (auto ok = ex.run(); !ok) return tl::unexpected(ok.error());
  const std::string& s = ex.out();
  const std::vector<int>& cols = ex.cols();
  std::vector<PipelineStage> stages(1);
  int embeddings = 0;
  int losses = 0;
  bool seen_mtp = false;
  for (size_t k = 0; k < s.size(); ++k) {
    const char c = s[k];
    const int col = cols[k];
    if (c == '|') {
      if (stages.size() >= static_cast<size_t>(kMaxLayoutStages))
        return tl::unexpected(at_col(col, "more than " + std::to_string(kMaxLayoutStages) + " stages").error());
      stages.emplace_back();
      continue;
    }
    PipelineStage& st = stages.back();
    // validate_layer_layout: the first layer is the embedding and the last the loss, each once;
    // decoder layers come before the MTP layers.
    if (c == 'E') {
      if (++embeddings > 1) return tl::unexpected(at_col(col, "a second embedding 'E'", "E appears once, first").error());
      st.embedding = true;
    } else if (c == 'L') {
      if (++losses > 1) return tl::unexpected(at_col(col, "a second loss 'L'", "L appears once, last").error());
      st.loss = true;
    } else if (c == 't') {
      if (seen_mtp) return tl::unexpected(at_col(col, "a transformer layer 't' after an MTP layer 'm'", "put every t before the m layers").error());
      ++st.decoder;
    } else {
      seen_mtp = true;
      ++st.mtp;
    }
    if (c != 'E' && embeddings == 0)
      return tl::unexpected(at_col(col, "the layout must start with the embedding 'E'", "begin with E").error());
    if (c != 'L' && losses > 0)
      return tl::unexpected(at_col(col, "'" + std::string(1, c) + "' after the loss 'L'", "end with L").error());
  }
  if (embeddings == 0) return tl::unexpected(at_col(1, "the layout has no embedding 'E'", "begin with E").error());
  if (losses == 0)
    return tl::unexpected(at_col(static_cast<int>(text.size()), "the layout has no loss 'L'", "end with L").error());
  return stages;
}

Result<void> validate_pipeline_layout(const std::vector<PipelineStage>& stages, int pp, int vp, int num_layers,
                                      int mtp_layers) {
  const Where w{"--pipeline-layout"};
  const int n = static_cast<int>(stages.size());
  if (pp < 1 || n % pp != 0)
    return fail("the layout has " + std::to_string(n) + " stages, not a multiple of PP " + std::to_string(pp), w,
                "give PP x VP stages separated by |");
  if (vp > 0 && n / pp != vp)
    return fail("the layout has " + std::to_string(n) + " stages = PP " + std::to_string(pp) + " x VP " +
                    std::to_string(n / pp) + ", but VP is " + std::to_string(vp),
                w, "drop --vp (the layout sets it) or give " + std::to_string(pp * vp) + " stages");
  int decoders = 0;
  int mtps = 0;
  for (const PipelineStage& s : stages) {
    decoders += s.decoder;
    mtps += s.mtp;
  }
  if (decoders != num_layers)
    return fail("the layout holds " + std::to_string(decoders) + " transformer layers 't', the model has " +
                    std::to_string(num_layers), w);
  if (mtps != std::max(0, mtp_layers))
    return fail("the layout holds " + std::to_string(mtps) + " MTP layers 'm', the model has " +
                    std::to_string(std::max(0, mtp_layers)), w);
  const int layout_vp = n / pp;
  for (int c = 0; c < n; ++c) {
    const PipelineStage& s = stages[static_cast<size_t>(c)];
    if (s.mtp == 0) continue;
    const int rank = c % pp;
    const int chunk = c / pp;
    // (Megatron-Core's "not on the first rank" check covers that rank's earlier chunks only.)
    if (s.mtp != mtps)
      return fail("the MTP layers are split over stages; Megatron-Core wants them in one stage", w);
    if (chunk != layout_vp - 1)
      return fail("MTP in stage " + std::to_string(c) + " (rank " + std::to_string(rank) + ", chunk " +
                      std::to_string(chunk) + "): Megatron-Core wants MTP in a rank's last virtual stage",
                  w);
  }
  return {};
}

std::string pipeline_layout_str(const std::vector<PipelineStage>& stages) {
  std::string out;
  for (size_t i = 0; i < stages.size();) {
    size_t j = i + 1;
    while (j < stages.size() && stages[j] == stages[i]) ++j;
    const std::string one = stage_str(stages[i]);
    const size_t run = j - i;
    // The first stage opens the string; each further one is "|stage". A run of k > 2 equal
    // stages after the first becomes "(|stage)*k" (Megatron-Core unrolls it back).
    size_t k = run;
    if (i == 0) {
      out += one;
      --k;
    }
    if (k > 2 && !one.empty()) {
      out += "(|" + one + ")*" + std::to_string(k);
    } else {
      for (size_t r = 0; r < k; ++r) out += "|" + one;
    }
    i = j;
  }
  return out;
}

std::vector<PipelineStage> balanced_pipeline_layout(int num_layers, int stages, int mtp_layers) {
  const int mtp = std::max(0, mtp_layers);
  if (stages < 1 || stages > kMaxLayoutStages || num_layers < 0) return {};
  std::vector<PipelineStage> out(static_cast<size_t>(stages));
  out.front().embedding = true;
  out.back().loss = true;
  out.back().mtp = mtp;
  const int64_t total = static_cast<int64_t>(num_layers) + 2 + mtp;
  const int base = static_cast<int>(total / stages);
  int extra = static_cast<int>(total % stages);
  std::vector<int> load(static_cast<size_t>(stages), base);
  for (int pass = 0; pass < 2 && extra > 0; ++pass)  // middle stages first, then the ends
    for (int c = 0; c < stages && extra > 0; ++c) {
      const bool end = c == 0 || c == stages - 1;
      if (end == (pass == 0)) continue;
      ++load[static_cast<size_t>(c)];
      --extra;
    }
  for (int c = 0; c < stages; ++c) {
    PipelineStage& s = out[static_cast<size_t>(c)];
    const int fixed = (s.embedding ? 1 : 0) + (s.loss ? 1 : 0) + s.mtp;
    s.decoder = load[static_cast<size_t>(c)] - fixed;
    if (s.decoder < 0) return {};
  }
  return out;
}

int pipeline_layout_decoders(const std::vector<PipelineStage>& stages) {
  int n = 0;
  for (const PipelineStage& s : stages) n += s.decoder;
  return n;
}

}  // namespace rb
