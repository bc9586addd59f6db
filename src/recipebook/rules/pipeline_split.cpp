#include "recipebook/rules/pipeline_split.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

namespace rb {

PipelineSplit pipeline_split(const RuleContext& ctx) {
  PipelineSplit s;
  const Layout& l = ctx.layout;
  const int layers = ctx.pm.layers;
  if (layers <= 0 || l.pp <= 0 || l.vp <= 0) return s;
  if (!l.pipeline_layout.empty()) {
    s.explicit_layout = true;
    if (l.first_stage_layers > 0 || l.last_stage_layers > 0 || l.account_for_embedding || l.account_for_loss) {
      s.layout_error = "an explicit pipeline layout cannot be set with first/last stage layer counts or "
                       "account_for_embedding/loss (Megatron-Core transformer_config.py)";
    } else if (auto ok = validate_pipeline_layout(l.pipeline_layout, l.pp, l.vp, layers, ctx.mtp_layers()); !ok) {
      s.layout_error = ok.error().message;
    }
    s.ok = s.layout_error.empty();
    return s;
  }
  if (ctx.facts.explicit_pipeline_layout || setting(ctx.facts, "pipeline_model_parallel_layout") != nullptr)
    return s;
  s.known = true;
  const int pp = l.pp;
  const int vp = l.vp;
  if (pp == 1) {  // one stage holds every layer; first/last stage counts mean nothing here
    s.total = layers;
    s.per_stage = s.first = s.last = layers;
    s.vp_ok = layers % vp == 0;
    return s;
  }
  if (l.first_stage_layers > 0 || l.last_stage_layers > 0) {
    s.uneven = true;
    s.total = layers;
    const int ends = (l.first_stage_layers > 0 ? 1 : 0) + (l.last_stage_layers > 0 ? 1 : 0);
    const int middle = layers - l.first_stage_layers - l.last_stage_layers;
    const int rest = pp - ends;
    s.first = l.first_stage_layers > 0 ? l.first_stage_layers : 0;
    s.last = l.last_stage_layers > 0 ? l.last_stage_layers : 0;
    if (middle < 0 || rest < 0 || (rest == 0 && middle != 0) || (rest > 0 && middle % rest != 0)) {
      s.ok = false;
      return s;
    }
    s.per_stage = rest > 0 ? middle / rest : 0;
    if (s.first == 0) s.first = s.per_stage;
    if (s.last == 0) s.last = s.per_stage;
    s.vp_ok = s.first % vp == 0 && s.last % vp == 0 && s.per_stage % vp == 0;
    return s;
  }
  const bool emb =
      l.account_for_embedding || setting_bool(ctx.facts, "account_for_embedding_in_pipeline_split").value_or(false);
  const bool loss = l.account_for_loss || setting_bool(ctx.facts, "account_for_loss_in_pipeline_split").value_or(false);
  s.total = layers + (emb ? 1 : 0) + (loss ? 1 : 0);
  if (s.total % pp != 0) {
    s.ok = false;
    return s;
  }
  s.per_stage = s.total / pp;
  s.first = s.per_stage;
  s.last = s.per_stage;
  s.vp_ok = s.per_stage % vp == 0;
  return s;
}

namespace {

// The num_layers_in_first/last_pipeline_stage part of stage_split.
StageSplit ends_split(int layers, int pp, int vp) {
  if (pp == 2) {
    if (layers % vp != 0 || layers < 2 * vp) return {};
    const int first = vp * ((layers / vp) / 2);
    return {first, layers - first};
  }
  StageSplit best;
  int best_load = 0;
  const int middle = pp - 2;
  for (int m = vp; static_cast<int64_t>(m) * middle <= layers - 2 * vp; m += vp) {
    const int rest = layers - m * middle;
    if (rest % vp != 0) continue;
    const int first = vp * ((rest / vp) / 2);
    const int last = rest - first;
    if (first < vp) continue;
    const int load = std::max(m, last);
    // `<=`: at equal largest stage the larger m wins, which leaves less on the two ends.
    if (best_load == 0 || load <= best_load) {
      best_load = load;
      best = {first, last};
    }
  }
  return best;
}

}  // namespace

StageSplit stage_split(int layers, int pp, int vp) {
  if (pp <= 1 || vp < 1 || layers <= 0) return {};
  if (layers % pp == 0 && (layers / pp) % vp == 0) return {};
  if (const StageSplit ends = ends_split(layers, pp, vp); ends.any()) return ends;
  return accounted_split(layers, pp, vp);
}

StageSplit accounted_split(int layers, int pp, int vp) {
  if (pp <= 1 || vp < 1 || layers <= 0) return {};
  const int64_t stages = static_cast<int64_t>(pp) * vp;
  StageSplit s;
  if ((layers + 2) % stages == 0) {
    s.account_for_embedding = s.account_for_loss = true;
  } else if ((layers + 1) % stages == 0) {
    s.account_for_loss = true;
  }
  return s;
}

void apply_stage_split(Layout& l, const StageSplit& s) {
  l.first_stage_layers = s.first;
  l.last_stage_layers = s.last;
  l.account_for_embedding = s.account_for_embedding;
  l.account_for_loss = s.account_for_loss;
}

StageSplit stage_split_of(const Layout& l) {
  return {l.first_stage_layers, l.last_stage_layers, l.account_for_embedding, l.account_for_loss};
}

std::string stage_split_str(int layers, const Layout& l) {
  if (l.account_for_embedding && l.account_for_loss) return "E+L as layers";
  if (l.account_for_embedding || l.account_for_loss) return l.account_for_loss ? "L as a layer" : "E as a layer";
  if (l.first_stage_layers == 0 && l.last_stage_layers == 0) return "even";
  const auto n = [](int x) { return std::to_string(x); };
  if (l.pp <= 2) return n(l.first_stage_layers) + "+" + n(l.last_stage_layers);
  const int middle = (layers - l.first_stage_layers - l.last_stage_layers) / (l.pp - 2);
  return n(l.first_stage_layers) + "+" + n(l.pp - 2) + "x" + n(middle) + "+" + n(l.last_stage_layers);
}

std::string stage_split_words(const Layout& l) {
  if (l.account_for_embedding && l.account_for_loss)
    return "the embedding and the loss counted as layers (account_for_embedding/loss_in_pipeline_split)";
  if (l.account_for_embedding) return "the embedding counted as a layer (account_for_embedding_in_pipeline_split)";
  if (l.account_for_loss) return "the loss counted as a layer (account_for_loss_in_pipeline_split)";
  if (l.first_stage_layers == 0 && l.last_stage_layers == 0) return "an even split";
  return "first " + std::to_string(l.first_stage_layers) + " and last " + std::to_string(l.last_stage_layers) +
         " stage layers";
}

}  // namespace rb
