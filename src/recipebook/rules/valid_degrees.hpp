// Divisor-constrained degrees for the planner's enumeration, and the divisibility primitives the
// rules themselves use (so "which TP values are valid" and "is this TP valid" cannot drift apart).
// Sources: Megatron-Core transformer_config.py (heads, query groups, GDN heads), ssm/mamba_mixer.py
// (Mamba heads and groups), tensor_parallel/layers.py (divide() of the FFN width), MLM
// arguments.py (experts % EP), REFERENCES.md C.4-C.6, C.12 and G ("Search").
#pragma once

#include <cstdint>
#include <vector>

#include "recipebook/rules/prepared.hpp"

namespace rb {

// Divisors of n in ascending order, capped at `max` (0 = no cap). n <= 0 gives {}.
std::vector<int> divisors(int64_t n, int64_t max = 0);
int64_t gcd64(int64_t a, int64_t b);
int64_t lcm64(int64_t a, int64_t b);
// The smallest GPU count a layout runs on: PP * lcm(TP * CP, EP * ETP) (REFERENCES.md C.2).
int64_t min_gpus(const Layout& l);

// --- primitives (true when the degree is allowed, or when the model lacks the figure) ---
bool tp_divides_heads(const PreparedRuleModel& pm, int tp);      // heads % TP
bool tp_fits_kv_groups(const PreparedRuleModel& pm, int tp);     // groups % TP or TP % groups
bool tpcp_divides_gdn_heads(const PreparedRuleModel& pm, int tp_cp);  // GDN key and value heads
bool tp_divides_mamba(const PreparedRuleModel& pm, int tp);      // Mamba heads and groups
bool tp_divides_ffn(const PreparedRuleModel& pm, int tp);        // dense and shared-expert FFN
bool etp_divides_moe_ffn(const PreparedRuleModel& pm, int etp);  // routed-expert FFN
bool ep_divides_experts(const PreparedRuleModel& pm, int ep);

// Every TP rule above at once (with CP 1 for the GDN heads).
bool tp_valid(const PreparedRuleModel& pm, int tp);

// --- candidate lists (ascending) ---
std::vector<int> tp_candidates(const PreparedRuleModel& pm, int max_tp);
// CP such that seq % (2 CP) == 0 (CP > 1), GDN heads % (TP CP) == 0, and with SP seq % (TP CP) == 0.
std::vector<int> cp_candidates(const PreparedRuleModel& pm, int64_t seq, int tp, bool sp, int max_cp);
// Divisors of the routed experts; {1} for a dense model.
std::vector<int> ep_candidates(const PreparedRuleModel& pm, int max_ep);
// ETP dividing the expert FFN; {1} when experts carry a bias (MoE bias requires ETP 1).
std::vector<int> etp_candidates(const PreparedRuleModel& pm, int max_etp);
// PP with a uniform split of the decoder layers.
std::vector<int> pp_candidates(const PreparedRuleModel& pm, int max_pp);
// VP dividing the layers per stage of a uniform PP split; {1} when PP == 1.
std::vector<int> vp_candidates(const PreparedRuleModel& pm, int pp, int max_vp);
// Micro-batch sizes with GBS % (MBS DP) == 0.
std::vector<int> mbs_candidates(int64_t gbs, int64_t dp, int max_mbs);

}  // namespace rb
