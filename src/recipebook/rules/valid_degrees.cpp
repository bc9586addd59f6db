#include "recipebook/rules/valid_degrees.hpp"

namespace rb {

std::vector<int> divisors(int64_t n, int64_t max) {
  std::vector<int> out;
  if (n <= 0) return out;
  const int64_t cap = max > 0 && max < n ? max : n;
  for (int64_t d = 1; d <= cap; ++d)
    if (n % d == 0) out.push_back(static_cast<int>(d));
  return out;
}

int64_t gcd64(int64_t a, int64_t b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b != 0) {
    const int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

int64_t lcm64(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  return a / gcd64(a, b) * b;
}

int64_t min_gpus(const Layout& l) {
  return static_cast<int64_t>(l.pp) * lcm64(static_cast<int64_t>(l.tp) * l.cp, static_cast<int64_t>(l.ep) * l.etp);
}

bool tp_divides_heads(const PreparedRuleModel& pm, int tp) {
  if (tp <= 0) return false;
  if (pm.heads <= 0 || pm.attention_layers + pm.mla_layers == 0) return true;
  return pm.heads % tp == 0;
}

bool tp_fits_kv_groups(const PreparedRuleModel& pm, int tp) {
  if (tp <= 0) return false;
  if (pm.kv_heads <= 0 || pm.attention_layers == 0) return true;
  return pm.kv_heads % tp == 0 || tp % pm.kv_heads == 0;
}

bool tpcp_divides_gdn_heads(const PreparedRuleModel& pm, int tp_cp) {
  if (tp_cp <= 0) return false;
  if (pm.gdn_layers == 0) return true;
  const GdnDims& g = pm.model->gdn;
  return (g.key_heads <= 0 || g.key_heads % tp_cp == 0) && (g.value_heads <= 0 || g.value_heads % tp_cp == 0);
}

bool tp_divides_mamba(const PreparedRuleModel& pm, int tp) {
  if (tp <= 0) return false;
  if (pm.mamba_layers == 0) return true;
  const MambaDims& m = pm.model->mamba;
  return (m.heads <= 0 || m.heads % tp == 0) && (m.groups <= 0 || m.groups % tp == 0);
}

bool tp_divides_ffn(const PreparedRuleModel& pm, int tp) {
  if (tp <= 0) return false;
  const Model& m = *pm.model;
  if (pm.dense_ffn_layers > 0 && m.ffn > 0 && m.ffn % tp != 0) return false;
  if (pm.moe_layers > 0 && m.moe.shared_ffn > 0 && m.moe.shared_ffn % tp != 0) return false;
  return true;
}

bool etp_divides_moe_ffn(const PreparedRuleModel& pm, int etp) {
  if (etp <= 0) return false;
  if (pm.moe_layers == 0 || pm.model->moe.ffn <= 0) return true;
  return pm.model->moe.ffn % etp == 0;
}

bool ep_divides_experts(const PreparedRuleModel& pm, int ep) {
  if (ep <= 0) return false;
  if (pm.experts <= 0) return ep == 1;
  return pm.experts % ep == 0;
}

bool tp_valid(const PreparedRuleModel& pm, int tp) {
  return tp_divides_heads(pm, tp) && tp_fits_kv_groups(pm, tp) && tpcp_divides_gdn_heads(pm, tp) &&
         tp_divides_mamba(pm, tp) && tp_divides_ffn(pm, tp);
}

std::vector<int> tp_candidates(const PreparedRuleModel& pm, int max_tp) {
  std::vector<int> out;
  for (int tp = 1; tp <= max_tp; ++tp)
    if (tp_valid(pm, tp)) out.push_back(tp);
  return out;
}

std::vector<int> cp_candidates(const PreparedRuleModel& pm, int64_t seq, int tp, bool sp, int max_cp) {
  std::vector<int> out;
  for (int cp = 1; cp <= max_cp; ++cp) {
    if (cp > 1 && (seq <= 0 || seq % (2 * cp) != 0)) continue;
    if (!tpcp_divides_gdn_heads(pm, tp * cp)) continue;
    if (sp && tp > 1 && seq > 0 && seq % (static_cast<int64_t>(tp) * cp) != 0) continue;
    out.push_back(cp);
  }
  return out;
}

std::vector<int> ep_candidates(const PreparedRuleModel& pm, int max_ep) {
  if (pm.experts <= 0) return {1};
  return divisors(pm.experts, max_ep);
}

std::vector<int> etp_candidates(const PreparedRuleModel& pm, int max_etp) {
  if (pm.experts <= 0 || pm.model->moe.expert_bias) return {1};
  std::vector<int> out;
  for (int etp = 1; etp <= max_etp; ++etp)
    if (etp_divides_moe_ffn(pm, etp)) out.push_back(etp);
  return out;
}

std::vector<int> pp_candidates(const PreparedRuleModel& pm, int max_pp) {
  if (pm.layers <= 0) return {1};
  return divisors(pm.layers, max_pp);
}

std::vector<int> vp_candidates(const PreparedRuleModel& pm, int pp, int max_vp) {
  if (pp <= 1 || pm.layers <= 0 || pm.layers % pp != 0) return {1};
  return divisors(pm.layers / pp, max_vp);
}

std::vector<int> mbs_candidates(int64_t gbs, int64_t dp, int max_mbs) {
  if (gbs <= 0 || dp <= 0 || gbs % dp != 0) return {};
  return divisors(gbs / dp, max_mbs);
}

}  // namespace rb
