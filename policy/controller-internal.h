/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Shared between the two halves of the controller (internal to policy/):
 * evaluate.c turns the Assessment and PolicyState into PolicyEval and the
 * wants; controller.c moves the levers from them (policy_decide()). */

#include "fragd/policy.h"

#define ERR_MAX 10000
#define ERR_PRED 3000
/* the page-cache one-shot waits until free memory and its blocks have not
 * fallen for this long (controller.c free_falling()) */
#define POLICY_SETTLED_USEC (10 * USEC_PER_SEC)

enum { K_LARGE, K_THP };

typedef struct Want {
        int32_t err; /* 0 = no demand */
        PolicyReason reason;
        PolicyNumbers num;
        int64_t aim; /* -1 = none; max over all offers */
        int32_t kick_err; /* the largest err of the offers a kick serves (not the free-short part) */
        /* the memory want's offers the reclaim levers cannot serve: free
         * memory short where free + reclaimable (file LRU + reclaimable
         * slab) is under what the reserve needs, so kswapd has nothing to
         * supply it from. Not in err, aim or num: no raise; it holds what
         * a memory want holds (controller.c lower_to_aim()) and keeps the
         * reclaim levers where they are (POLICY_HOLD_NOTHING_TO_RECLAIM) */
        int32_t held_err;
        PolicyReason held_reason; /* free_memory_short, or reserve_trend when predicted */
        PolicyNumbers held_num;
} Want;

PolicyNumbers policy_numbers_blank(int node);
bool policy_under_with_band(uint64_t obs, uint64_t lim, uint32_t band);
int policy_hist_node_index(const PolicyHistory *h, int node);
uint64_t policy_rate_milli(double r);
/* The node's share of the learned need (PolicyNodeEval.learned_share_permyriad). */
uint64_t policy_node_need_bytes(const PolicyEval *e, const PolicyNodeEval *ne);
/* Free memory a reserve of target needs on the node before compaction can
 * build it: the kernel's own high watermark (PolicyNodeEval.kernel_high_bytes)
 * + target. Under it, free memory itself is short. */
uint64_t policy_free_needed_bytes(const PolicyNodeEval *ne, uint64_t target);
/* Fills kernel_high_bytes and watermark_held_bytes of every node (controller.c). */
void policy_watermarks_evaluate(const Assessment *a, const LeverInput *in, PolicyEval *e);

/* The full pressure the direct compaction stalls seen left in PSI's avg10
 * at now (PolicyState.stall_psi_full_permyriad decayed; state.c). */
uint32_t policy_stall_pressure_at(const PolicyState *s, usec_t now);
void policy_evaluate(const PolicyConfig *cfg, const PolicyState *s, const Assessment *a, usec_t now,
                     PolicyEval *e);
bool policy_targets_met(const PolicyConfig *cfg, const Assessment *a, const PolicyEval *e);
bool policy_psi_over_ceiling(const PolicyConfig *cfg, const PolicyEval *e);
void policy_gather_wants(const PolicyConfig *cfg, const Assessment *a, const PolicyEval *e, usec_t now,
                         Want *frag, Want *mem, Want *stall, Want *fallback, Want *standing, Want *aim);
