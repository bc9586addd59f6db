// World size, tensor / sequence / context parallelism, pipeline split and batch divisibility
// (REFERENCES.md C.1-C.11).
#include "recipebook/rules/check_util.hpp"
#include "recipebook/rules/checks.hpp"
#include "recipebook/rules/pipeline_split.hpp"

namespace rb {
namespace {

// TP values that pass every TP rule, and also keep the world divisible and SP legal (TP > 1).
std::string tp_fix(const RuleContext& ctx) {
  const Layout& l = ctx.layout;
  return "use TP in " + join_set(keep_fitting(tp_candidates(ctx.pm, degree_cap(ctx)), [&](int tp) {
           return world_holds(ctx.world, static_cast<int64_t>(tp) * l.pp * l.cp, static_cast<int64_t>(l.ep) * l.etp * l.pp) &&
                  !(l.sp && tp == 1);
         }));
}

// PP values that keep the world divisible (dense and expert) and, with VP > 1, VP legal.
bool pp_fits(const RuleContext& ctx, int pp) {
  const Layout& l = ctx.layout;
  return world_holds(ctx.world, static_cast<int64_t>(l.tp) * pp * l.cp, static_cast<int64_t>(l.ep) * l.etp * pp) &&
         !(l.vp > 1 && pp == 1);
}

}  // namespace

// Bridge get_data_parallel_size, MCore initialize_model_parallel: world % (TP PP CP) == 0.
// Megatron-Core parallel_state.py (the intra / inter partial data-parallel groups) splits DP x CP and
// expert-DP into num_distributed_optimizer_instances groups, so both must divide by it; Megatron-LM
// arguments.py takes more than one instance only with the distributed optimizer (Megatron-FSDP sets it).
bool check_optimizer_instances(const RuleContext& ctx, Finding* out) {
  const Layout& l = ctx.layout;
  const int r = l.distributed_optimizer_instances;
  if (r <= 1) return false;
  const bool sharded = l.fsdp || l.distributed_optimizer;
  const int64_t dp_cp = ctx.dp * l.cp;
  const int64_t expert_mp = static_cast<int64_t>(l.etp) * l.ep * l.pp;
  const int64_t edp = ctx.pm.experts > 0 && expert_mp > 0 && ctx.world % expert_mp == 0 ? ctx.world / expert_mp : 0;
  const bool dense_ok = ctx.dp <= 0 || dp_cp % r == 0;  // an unknown DP is RB-WORLD-DIVISIBLE's
  const bool expert_ok = edp <= 0 || edp % r == 0;
  if (sharded && dense_ok && expert_ok) return false;
  if (out == nullptr) return true;
  std::vector<std::string> why;
  if (!sharded) why.push_back("they shard the optimizer, which is off (no distributed optimizer, no FSDP)");
  if (!dense_ok) why.push_back("DP x CP = " + str(dp_cp) + " does not divide by " + str(r));
  if (!expert_ok) why.push_back("expert DP = " + str(edp) + " does not divide by " + str(r));
  std::vector<int> ok;
  for (int d : divisors(dp_cp > 0 ? dp_cp : 1))
    if (edp <= 0 || edp % d == 0) ok.push_back(d);
  return report(out, str(r) + " distributed optimizer instances: " + join_words(why, "; "),
                sharded ? "use instances in " + join_set(ok) : "turn the distributed optimizer on, or use 1 instance",
                "features.settings.num_distributed_optimizer_instances");
}

bool check_world_divisible(const RuleContext& ctx, Finding* out) {
  const Layout& l = ctx.layout;
  if (ctx.world <= 0 || ctx.model_parallel <= 0 || ctx.world % ctx.model_parallel == 0) return false;
  if (out == nullptr) return true;
  const int64_t tpcp = static_cast<int64_t>(l.tp) * l.cp;
  std::string fix;
  if (ctx.world % tpcp == 0)
    fix = "use PP in " + join_set(keep_fitting(divisors(ctx.world / tpcp), [&](int pp) {
            const bool split = ctx.pm.layers <= 0 || ctx.pm.layers % pp == 0 || l.first_stage_layers > 0 ||
                               l.last_stage_layers > 0;
            return split && pp_fits(ctx, pp);
          }));
  else
    fix = "choose TP x PP x CP among the divisors of " + str(ctx.world) + ": " + join_set(divisors(ctx.world));
  return report(out,
                "TP " + str(l.tp) + " x PP " + str(l.pp) + " x CP " + str(l.cp) + " = " + str(ctx.model_parallel) +
                    " does not divide " + str(ctx.world) + " GPUs",
                fix, ctx.world % tpcp == 0 ? "layout.pp" : "layout.tp", "gpu.count");
}

// MCore transformer_config.py: num_attention_heads % TP == 0.
bool check_tp_heads(const RuleContext& ctx, Finding* out) {
  if (tp_divides_heads(ctx.pm, ctx.layout.tp)) return false;
  if (out == nullptr) return true;
  return report(out, "TP " + str(ctx.layout.tp) + " does not divide the " + str(ctx.pm.heads) + " attention heads",
                tp_fix(ctx), "layout.tp");
}

// MCore transformer_config.py: num_query_groups % TP == 0 or TP % num_query_groups == 0.
bool check_tp_kv_groups(const RuleContext& ctx, Finding* out) {
  if (tp_fits_kv_groups(ctx.pm, ctx.layout.tp)) return false;
  if (out == nullptr) return true;
  return report(out,
                "TP " + str(ctx.layout.tp) + " neither divides the " + str(ctx.pm.kv_heads) +
                    " KV heads (query groups) nor is a multiple of them",
                tp_fix(ctx), "layout.tp");
}

// MCore ColumnParallelLinear: divide(ffn, TP) for dense and shared-expert MLPs, divide(moe_ffn, ETP).
bool check_tp_ffn(const RuleContext& ctx, Finding* out) {
  const bool tp_ok = tp_divides_ffn(ctx.pm, ctx.layout.tp);
  const bool etp_ok = etp_divides_moe_ffn(ctx.pm, ctx.layout.etp);
  if (tp_ok && etp_ok) return false;
  if (out == nullptr) return true;
  const Model& m = ctx.model();
  if (!tp_ok) {
    const bool dense = ctx.pm.dense_ffn_layers > 0 && m.ffn > 0 && m.ffn % ctx.layout.tp != 0;
    const int64_t width = dense ? m.ffn : m.moe.shared_ffn;
    return report(out,
                  "TP " + str(ctx.layout.tp) + " does not divide the " + (dense ? "MLP" : "shared-expert MLP") +
                      " width " + str(width),
                  tp_fix(ctx), "layout.tp");
  }
  const Layout& l = ctx.layout;
  const std::vector<int> etps = keep_fitting(divisors(m.moe.ffn, degree_cap(ctx)), [&](int etp) {
    return world_holds(ctx.world, ctx.model_parallel, static_cast<int64_t>(l.ep) * etp * l.pp);
  });
  return report(out,
                "ETP " + str(ctx.layout.etp) + " does not divide the expert MLP width " + str(m.moe.ffn),
                "use ETP in " + join_set(etps), "layout.etp");
}

// MCore ssm/mamba_mixer.py: nheads % TP == 0 and ngroups % TP == 0.
bool check_tp_mamba_heads(const RuleContext& ctx, Finding* out) {
  if (tp_divides_mamba(ctx.pm, ctx.layout.tp)) return false;
  if (out == nullptr) return true;
  const MambaDims& md = ctx.model().mamba;
  return report(out,
                "TP " + str(ctx.layout.tp) + " does not divide the Mamba-2 heads (" + str(md.heads) + ") and groups (" +
                    str(md.groups) + ")",
                tp_fix(ctx), "layout.tp");
}

// MCore transformer_config.py: GDN key and value heads divisible by TP x CP.
bool check_gdn_heads_tpcp(const RuleContext& ctx, Finding* out) {
  const Layout& l = ctx.layout;
  if (tpcp_divides_gdn_heads(ctx.pm, l.tp * l.cp)) return false;
  if (out == nullptr) return true;
  const GdnDims& g = ctx.model().gdn;
  const bool tp_alone = tpcp_divides_gdn_heads(ctx.pm, l.tp);
  std::vector<int> ok;
  for (int d : divisors(g.key_heads > 0 ? g.key_heads : g.value_heads))
    if (tpcp_divides_gdn_heads(ctx.pm, d)) ok.push_back(d);
  return report(out,
                "TP " + str(l.tp) + " x CP " + str(l.cp) + " = " + str(l.tp * l.cp) + " does not divide the " +
                    str(g.key_heads) + " GDN key heads and " + str(g.value_heads) + " value heads",
                "use TP x CP in " + join_set(ok), tp_alone ? "layout.cp" : "layout.tp");
}

// MCore model_parallel_config.py: sequence_parallel requires TP > 1 (ValueError).
bool check_sp_needs_tp(const RuleContext& ctx, Finding* out) {
  if (!ctx.layout.sp || ctx.layout.tp > 1) return false;
  if (out == nullptr) return true;
  return report(out, "sequence parallelism is set with TP 1", "set sequence_parallel: false (or TP > 1)",
                "layout.sequence_parallel");
}

// MCore model_parallel_config.py (EP > 1 and TP > 1 without SP: ValueError) and MLM
// yaml_arguments.py (MoE with TP > 1 asserts SP).
bool check_sp_required(const RuleContext& ctx, Finding* out) {
  if (ctx.pm.moe_layers == 0 || ctx.layout.tp <= 1 || ctx.layout.sp) return false;
  if (out == nullptr) return true;
  return report(out,
                "MoE model with TP " + str(ctx.layout.tp) + " and EP " + str(ctx.layout.ep) +
                    " runs without sequence parallelism, which Megatron requires",
                "set sequence_parallel: true", "layout.sequence_parallel", "layout.tp");
}

// Bridge config.py / MLM arguments.py: CP > 1 requires seq % (2 CP) == 0 (load-balanced chunks).
bool check_cp_seq(const RuleContext& ctx, Finding* out) {
  const int cp = ctx.layout.cp;
  const int64_t seq = ctx.workload.seq;
  if (cp <= 1 || seq <= 0 || seq % (2 * cp) == 0) return false;
  if (out == nullptr) return true;
  // The suggested lengths also satisfy RB-SP-SEQ (a multiple of TP x CP with SP).
  const Layout& l = ctx.layout;
  const int64_t step = l.sp && l.tp > 1 ? lcm64(2 * cp, static_cast<int64_t>(l.tp) * cp) : 2 * cp;
  const int64_t down = seq / step * step;
  return report(out,
                "sequence length " + str(seq) + " is not a multiple of 2 x CP = " + str(2 * cp),
                "use a sequence length of " + str(down > 0 ? down : step) + " or " + str(down + step) +
                    ", or a CP with 2 x CP dividing " + str(seq),
                "workload.row_tokens", "layout.cp");
}

// MCore tensor_parallel/mappings.py: with SP each TP rank takes seq/(CP TP) tokens.
bool check_sp_seq(const RuleContext& ctx, Finding* out) {
  const Layout& l = ctx.layout;
  const int64_t seq = ctx.workload.seq;
  if (!l.sp || l.tp <= 1 || seq <= 0) return false;
  if (l.cp > 1 && seq % (2 * l.cp) != 0) return false;  // RB-CP-SEQ reports it
  const int64_t tpcp = static_cast<int64_t>(l.tp) * l.cp;
  if (seq % tpcp == 0) return false;
  if (out == nullptr) return true;
  // The suggested lengths also satisfy RB-CP-SEQ (a multiple of 2 x CP).
  const int64_t step = l.cp > 1 ? lcm64(tpcp, 2 * static_cast<int64_t>(l.cp)) : tpcp;
  const int64_t down = seq / step * step;
  return report(out,
                "with sequence parallelism the sequence length " + str(seq) + " is not a multiple of TP x CP = " +
                    str(tpcp),
                "use a sequence length of " + str(down > 0 ? down : step) + " or " + str(down + step),
                "workload.row_tokens");
}

// MCore transformer_config.py / Bridge gpt_provider.py: even split of the layers over PP stages.
bool check_pp_layers(const RuleContext& ctx, Finding* out) {
  const PipelineSplit s = pipeline_split(ctx);
  if (s.explicit_layout && !s.ok) {
    if (out == nullptr) return true;
    return report(out, "the pipeline layout does not fit: " + s.layout_error,
                  "give PP x VP stages holding the model's layers, E first and L last (`--pipeline-layout`)",
                  "features.pipeline_layout", "layout.pp");
  }
  if (!s.known || s.ok) return false;
  if (out == nullptr) return true;
  const Layout& l = ctx.layout;
  if (s.uneven) {
    const int ends = (l.first_stage_layers > 0 ? 1 : 0) + (l.last_stage_layers > 0 ? 1 : 0);
    const int middle = ctx.pm.layers - l.first_stage_layers - l.last_stage_layers;
    // More layers at the ends than the model has, or none left for the stages between them.
    if (middle < 0 || (middle == 0) != (l.pp == ends) || (l.pp - ends > 0 && middle < l.pp - ends))
      return report(out,
                    str(l.first_stage_layers) + " first-stage and " + str(l.last_stage_layers) +
                        " last-stage layers leave " + str(middle) + " of the " + str(ctx.pm.layers) + " layers for the " +
                        str(l.pp - ends) + " other stages of PP " + str(l.pp),
                    "give first and last stage counts that add up to at most " + str(ctx.pm.layers) +
                        " and leave at least one layer per other stage",
                    "features.pipeline_layout", "layout.pp");
    return report(out,
                  "with " + str(l.first_stage_layers) + " first-stage and " + str(l.last_stage_layers) +
                      " last-stage layers, the remaining " + str(middle) + " of " + str(ctx.pm.layers) +
                      " layers do not split evenly over the " + str(l.pp - ends) + " middle stages",
                  "choose first/last stage layer counts that leave a multiple of " + str(l.pp - ends) +
                      " layers for the middle stages",
                  "features.pipeline_layout", "layout.pp");
  }
  std::vector<int> pps = keep_fitting(divisors(s.total, degree_cap(ctx)), [&](int pp) {
    return pp_fits(ctx, pp) && (l.vp <= 1 || (s.total / pp) % l.vp == 0);
  });
  std::string fix = "use PP in " + join_set(pps) +
                    ", or set first/last pipeline stage layer counts (num_layers_in_first/last_pipeline_stage";
  if (const StageSplit b = stage_split(ctx.pm.layers, l.pp, l.vp); b.first > 0)
    fix += "; the most balanced: " + str(b.first) + " and " + str(b.last) + ", `--first-stage-layers " + str(b.first) +
           " --last-stage-layers " + str(b.last) + "`";
  fix += ")";
  // Embedding/loss accounting where PP x VP divides the layers with it (rules/pipeline_split.hpp).
  if (const StageSplit a = accounted_split(ctx.pm.layers, l.pp, l.vp); s.total == ctx.pm.layers && a.any()) {
    if (a.account_for_embedding)
      fix += ", or account_for_embedding_in_pipeline_split and account_for_loss_in_pipeline_split in features.settings"
             " (`--account-for-embedding --account-for-loss`)";
    else
      fix += ", or account_for_embedding_in_pipeline_split (or _loss_) in features.settings (`--account-for-embedding`"
             " or `--account-for-loss`)";
  }
  // Megatron-Core pipeline_model_parallel_layout: any count splits, balanced with E and L as layers.
  if (const auto bal = balanced_pipeline_layout(ctx.pm.layers, l.pp * l.vp, ctx.mtp_layers()); !bal.empty())
    fix += ", or an explicit layout `--pipeline-layout '" + pipeline_layout_str(bal) + "'`";
  return report(out,
                "PP " + str(l.pp) + " does not divide the " + str(s.total) + " layers" +
                    (s.total != ctx.pm.layers ? " (with embedding/loss accounting)" : ""),
                fix, "layout.pp", "features.pipeline_layout");
}

// MCore parallel_state.py: virtual pipeline requires PP > 1.
bool check_vp_needs_pp(const RuleContext& ctx, Finding* out) {
  if (ctx.layout.vp <= 1 || ctx.layout.pp > 1) return false;
  if (out == nullptr) return true;
  return report(out, "VP " + str(ctx.layout.vp) + " is set with PP 1", "set VP 1 (or PP > 1)", "layout.vpp",
                "layout.vp");
}

// Bridge gpt_provider.py: (num_layers // PP) % VP == 0 (and each set first/last stage % VP).
bool check_vp_layers(const RuleContext& ctx, Finding* out) {
  if (ctx.layout.vp <= 1 || ctx.layout.pp <= 1) return false;
  const PipelineSplit s = pipeline_split(ctx);
  if (!s.known || !s.ok || s.vp_ok) return false;
  if (out == nullptr) return true;
  const int vp = ctx.layout.vp;
  std::string msg;
  if (s.uneven)
    msg = "VP " + str(vp) + " does not divide the stage layer counts (first " + str(s.first) + ", middle " +
          str(s.per_stage) + ", last " + str(s.last) + ")";
  else
    msg = "VP " + str(vp) + " does not divide the " + str(s.per_stage) + " layers per pipeline stage";
  return report(out, msg, "use VP in " + join_set(divisors(gcd64(gcd64(s.first, s.last), s.per_stage))),
                "layout.vpp", "layout.vp");
}

// MCore num_microbatches_calculator.py: GBS % (MBS DP) == 0.
bool check_gbs_divisible(const RuleContext& ctx, Finding* out) {
  const int64_t gbs = ctx.workload.gbs;
  const int64_t step = static_cast<int64_t>(ctx.layout.mbs) * ctx.dp;
  if (gbs <= 0 || ctx.dp <= 0 || ctx.layout.mbs <= 0 || gbs % step == 0) return false;
  if (out == nullptr) return true;
  // The examples also satisfy RB-VP-MICROBATCHES (micro batches a multiple of PP when interleaved).
  const Layout& l = ctx.layout;
  const int64_t example_step = l.vp > 1 && l.pp > 1 ? step * l.pp : step;
  const int64_t down = gbs / example_step * example_step;
  std::string fix = "use a global batch that is a multiple of MBS x DP = " + str(step) + " (e.g. " +
                    (down > 0 ? str(down) + " or " : std::string()) + str(down + example_step) + ")";
  std::vector<int> mbs = mbs_candidates(gbs, ctx.dp, 16);
  if (l.vp > 1 && l.pp > 1)  // and the micro batches they give a multiple of PP, as RB-VP-MICROBATCHES wants
    std::erase_if(mbs, [&](int b) { return (gbs / (static_cast<int64_t>(b) * ctx.dp)) % l.pp != 0; });
  if (!mbs.empty()) fix += ", or MBS in " + join_set(mbs);
  return report(out,
                "global batch " + str(gbs) + " is not a multiple of MBS " + str(ctx.layout.mbs) + " x DP " +
                    str(ctx.dp) + " = " + str(step),
                fix, "workload.global_batch");
}

// MCore pipeline_parallel/schedules.py: interleaving needs M >= PP and M % PP == 0 with the
// default microbatch_group_size_per_vp_stage = PP.
bool check_vp_microbatches(const RuleContext& ctx, Finding* out) {
  const Layout& l = ctx.layout;
  const int64_t m = ctx.microbatches;
  if (l.vp <= 1 || l.pp <= 1 || m <= 0) return false;
  if (m >= l.pp && m % l.pp == 0) return false;
  if (out == nullptr) return true;
  const int64_t per = static_cast<int64_t>(l.mbs) * ctx.dp;
  const int64_t want = (m < l.pp ? l.pp : (m / l.pp + 1) * l.pp) * per;
  return report(out,
                "interleaved pipeline (VP " + str(l.vp) + ") runs " + str(m) + " micro batches per step, which is " +
                    (m < l.pp ? "fewer than" : "not a multiple of") + " PP " + str(l.pp),
                "use a global batch of " + str(want) + " (a multiple of PP x MBS x DP = " + str(l.pp * per) +
                    "), or VP 1",
                "workload.global_batch", "layout.vpp");
}

}  // namespace rb
