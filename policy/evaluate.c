/* SPDX-License-Identifier: GPL-2.0-or-later */

/* Evaluation (pure): (config, state, assessment, now) -> PolicyEval and the
 * wants that policy_decide() (controller.c) moves the levers by.
 *
 * Signals, per node and objective k (0 = order_large, 1 = order_thp):
 *   have_k   free bytes in blocks of order >= order_k
 *   T_k      the reserve target (SizeSpec of the node's managed memory)
 *   trend_k  least-squares slope of have_k over trend_window (bytes/s)
 *   eta_k    time until have_k reaches T_k at that slope
 * plus direct-compaction stall rate, THP/mTHP fallback ratio, PSI memory.
 *
 * Error, 0..10000 (E_PRED = 3000):
 *   have < T         err = E_PRED + (10000 - E_PRED) * (T - have) / T
 *   eta < horizon    err = E_PRED * (horizon - eta) / horizon
 *   rate over limit  err = E_PRED + (10000 - E_PRED) * min(1, excess / limit)
 * Continuous at have = T and non-increasing in have, so a worse state never
 * gives a smaller error.
 *
 * Wants: the fragmentation want (compaction levers), the memory want (kswapd
 * levers: free memory itself short, free < the kernel's own high watermark
 * + T, or predicted to fall under that within the horizon; page cache is not
 * counted as free: a reserve that needs reclaim first is what the reclaim
 * levers are for), the stall want (the global
 * compact_stall rate and every watched workload over its stall budget whose
 * stall is mostly direct compaction) and the fallback want. Each keeps the
 * largest error offered, with its reason and numbers, and the largest aim. */

#include <string.h>

#include "controller-internal.h"

static void want_init(Want *w)
{
        *w = (Want){ .aim = -1 };
}

/* An offer no kick serves: the lever may go to its aim, kcompactd is not
 * woken past its deferral for it (decide_kick() looks at kick_err). */
static void want_offer_no_kick(Want *w, int32_t err, PolicyReason reason, const PolicyNumbers *num, int64_t aim)
{
        if (err <= 0)
                return;
        if (err > w->err) {
                w->err = err;
                w->reason = reason;
                w->num = *num;
        }
        if (aim > w->aim)
                w->aim = aim;
}

/* An offer the reclaim levers cannot serve (Want.held_err) */
static void want_offer_held(Want *w, int32_t err, PolicyReason reason, const PolicyNumbers *num)
{
        if (err > w->held_err) {
                w->held_err = err;
                w->held_reason = reason;
                w->held_num = *num;
        }
}

/* Free + reclaimable on node i, or UINT64_MAX where the per-node stats
 * were not read or the sum does not fit (then the reclaim levers are not
 * held back for it) */
static uint64_t reclaim_avail_bytes(const Assessment *a, unsigned i, uint64_t free_bytes)
{
        const NodeMeasures *n = &a->nodes[i];
        uint64_t r, sum;

        if (!n->have_reclaimable || __builtin_mul_overflow(n->reclaimable_pages, a->page_size, &r) ||
            __builtin_add_overflow(free_bytes, r, &sum))
                return UINT64_MAX;
        return sum;
}

/* An offer the kicks serve too: as above, and its error counts for them */
static void want_offer(Want *w, int32_t err, PolicyReason reason, const PolicyNumbers *num, int64_t aim)
{
        if (err > w->kick_err)
                w->kick_err = err;
        want_offer_no_kick(w, err, reason, num, aim);
}


PolicyNumbers policy_numbers_blank(int node)
{
        return (PolicyNumbers){ .node = node, .eta_usec = USEC_INFINITY };
}

static int32_t level_err(uint64_t have, uint64_t target, usec_t eta, usec_t horizon)
{
        if (target == 0)
                return 0;
        if (have < target)
                return ERR_PRED + (int32_t) ((unsigned __int128) (ERR_MAX - ERR_PRED) * (target - have) / target);
        if (horizon > 0 && eta < horizon)
                return (int32_t) ((unsigned __int128) ERR_PRED * (horizon - eta) / horizon);
        return 0;
}

static int32_t excess_err(uint64_t obs, uint64_t lim)
{
        uint64_t ex;

        if (obs <= lim)
                return 0;
        if (lim == 0)
                return ERR_MAX;
        ex = MIN(obs - lim, lim);
        return ERR_PRED + (int32_t) ((unsigned __int128) (ERR_MAX - ERR_PRED) * ex / lim);
}

/* obs * 10000 <= lim * (10000 - band): comfortably under the limit */
bool policy_under_with_band(uint64_t obs, uint64_t lim, uint32_t band)
{
        if (obs == 0)
                return true;
        band = MIN(band, 10000u);
        return (unsigned __int128) obs * 10000 <= (unsigned __int128) lim * (10000 - band);
}

/* A watched workload's stall counts for the compaction levers when it has a
 * budget and a window, and direct compaction is at least half of it: a
 * workload stalled mostly in direct reclaim is short of free memory, which
 * more compaction does not fix. */
static bool workload_counts(const WorkloadStall *w)
{
        return w->budget_usec > 0 && w->span_usec > 0 && w->compact_usec > 0 && w->compact_usec >= w->reclaim_usec;
}

/* compact + reclaim, the figure the budget is compared to (policy/budget.c) */
static uint64_t workload_stalled_usec(const WorkloadStall *w)
{
        return w->compact_usec > UINT64_MAX - w->reclaim_usec ? UINT64_MAX : w->compact_usec + w->reclaim_usec;
}

static uint32_t workload_use_permyriad(const WorkloadStall *w)
{
        unsigned __int128 p = (unsigned __int128) workload_stalled_usec(w) * 10000 / w->budget_usec;

        return p > UINT32_MAX / 2 ? UINT32_MAX / 2 : (uint32_t) p;
}

static unsigned n_workloads(const Assessment *a)
{
        return MIN(a->n_workloads, (unsigned) ASSESSMENT_MAX_WORKLOADS);
}

static uint64_t node_bytes(const Assessment *a, const NodeMeasures *n)
{
        return (n->managed_pages ? n->managed_pages : n->present_pages) * (uint64_t) a->page_size;
}

/* the score a THP reserve of t needs with free bytes free: 100 * (1 - t / free),
 * rounded down; 0 = none (no reserve, or not that much free) */
static unsigned score_for(uint64_t t, uint64_t free)
{
        if (t == 0 || t >= free)
                return 0;
        return 100 - (unsigned) ((t * 100 + free - 1) / free);
}

/* The score a THP-order reserve t short on node ne aims at. The score its
 * bytes need (score_target) may leave the kernel's own score at or under
 * the high threshold of the level it gives: the kernel weighs each zone's
 * score by its present pages, not its free memory, and rounds each term
 * down, so the node's score can sit a point or more under what fragd works
 * out from the bytes. kcompactd compacts only while the score is over that
 * threshold, so such a level starts nothing: a raise to it (20 -> 22 at a
 * score of 87 in the churn bench) and the kicks at it are
 * no-ops while the reserve is short. Then the aim is one point under the
 * kernel's score: the lowest level that starts a round, which ends at its
 * low threshold, ten points lower. Met (have >= t), or not the kernel's
 * THP order, the bytes' score stands. */
static unsigned short_score_target(const Assessment *a, const PolicyEval *e, const PolicyNodeEval *ne,
                                   unsigned k, uint64_t t, unsigned score_target)
{
        if (k != K_THP || e->order[K_THP] != a->hpage_order || ne->score == 0 || ne->have_bytes[K_THP] >= t)
                return score_target;
        if (policy_score_wmark((unsigned) policy_proactiveness_for_score(score_target), false) < ne->score)
                return score_target;
        return ne->score - 1;
}

/* The proactiveness that keeps reserve t of level k: the kernel's score
 * counts THP-order blocks, and those serve every smaller order, so the
 * level that leaves t in THP-order blocks keeps an order_large reserve as
 * well (score_target: the THP target's, already worked out). -1 when the
 * THP order is not the kernel's (no score to aim at). */
static int64_t reserve_aim(const Assessment *a, const PolicyEval *e, const PolicyNodeEval *ne, unsigned k,
                           uint64_t t, unsigned score_target)
{
        if (e->order[K_THP] != a->hpage_order)
                return -1;
        return policy_proactiveness_for_score(k == K_THP ? score_target : score_for(t, ne->free_bytes));
}

static uint64_t history_value(const PolicyHistory *h, unsigned r, int hi, int series)
{
        return series == 2 ? h->free_pages[r][hi] : h->ge_pages[series][r][hi];
}

/* series: 0..1 = ge_pages[k], 2 = free_pages.
 *
 * Least squares over the window, with a recency guard: a falling fit is
 * trusted only when the most recent half of the samples (by time: those
 * from the middle of the span covered to now) falls too. Otherwise -- a
 * compaction or reclaim restored the value, or it dropped once and stays
 * -- the old decline is history, not a prediction, and the recent half's
 * slope is used. Two points are enough for the recent half (a slow tick
 * against the window leaves few). A steady decline passes: both halves
 * fall. The guard can only remove a predicted decline, never add one. */
static void history_trend(const PolicyHistory *h, int hi, int series, unsigned page_size, usec_t window,
                          usec_t now, uint64_t value_now_bytes, Trend *ret)
{
        TrendAccum acc, recent;
        usec_t first = now, mid;
        Trend rt;

        if (hi >= 0)
                for (unsigned j = 0; j < h->n; j++) {
                        unsigned r = (h->head + j) % POLICY_HISTORY_MAX;

                        if (h->t_usec[r] < now && now - h->t_usec[r] <= window)
                                first = MIN(first, h->t_usec[r]);
                }
        mid = first + (now - first) / 2;

        trend_init(&acc, now);
        trend_init(&recent, now);
        if (hi >= 0)
                for (unsigned j = 0; j < h->n; j++) {
                        unsigned r = (h->head + j) % POLICY_HISTORY_MAX;
                        double y;

                        if (h->t_usec[r] >= now || now - h->t_usec[r] > window)
                                continue;
                        y = (double) history_value(h, r, hi, series) * page_size;
                        trend_add(&acc, h->t_usec[r], y);
                        if (h->t_usec[r] >= mid)
                                trend_add(&recent, h->t_usec[r], y);
                }
        trend_add(&acc, now, (double) value_now_bytes);
        trend_add(&recent, now, (double) value_now_bytes);
        trend_fit(&acc, ret);
        if (!ret->valid || !(ret->slope_per_sec < 0.0))
                return;
        trend_fit_min(&recent, 2, &rt);
        if (rt.valid && !(rt.slope_per_sec < 0.0))
                ret->slope_per_sec = rt.slope_per_sec;
}

static int64_t trend_to_int(const Trend *t)
{
        double v = t->valid ? t->slope_per_sec : 0.0;

        if (v > 9e18)
                return INT64_MAX;
        if (v < -9e18)
                return INT64_MIN + 1;
        return (int64_t) v;
}

static uint32_t ratio_permyriad(double r)
{
        if (!(r > 0.0))
                return 0;
        if (r >= 1.0)
                return 10000;
        return (uint32_t) (r * 10000.0 + 0.5);
}

uint64_t policy_rate_milli(double r)
{
        if (!(r > 0.0))
                return 0;
        if (r > 1e15)
                return UINT64_MAX / 2;
        return (uint64_t) (r * 1000.0 + 0.5);
}

void policy_evaluate(const PolicyConfig *cfg, const PolicyState *s, const Assessment *a, usec_t now,
                     PolicyEval *e)
{
        const PolicyHistory *h = &s->hist;
        unsigned ps = a->page_size;

        e->page_size = ps;
        e->order[K_LARGE] = cfg->order_large;
        e->order[K_THP] = cfg->order_thp ? cfg->order_thp : a->hpage_order;
        e->psi_some_permyriad = a->psi_some_avg10_permyriad;
        e->psi_full_permyriad = a->psi_full_avg10_permyriad;
        if (a->rates.valid) {
                uint32_t fb = ratio_permyriad(a->rates.thp_fallback_ratio);

                for (unsigned i = 0; i < a->rates.n_mthp && i < FRAGD_MAX_THP_SIZES; i++)
                        fb = MAX(fb, ratio_permyriad(a->rates.mthp_fallback_ratio[i]));
                e->fallback_permyriad = fb;
                e->stall_milli = policy_rate_milli(a->rates.compact_stall);
                e->scan_pages_per_sec =
                        policy_rate_milli(a->rates.compact_migrate_scanned + a->rates.compact_free_scanned) / 1000;
        }
        for (unsigned i = 0; i < n_workloads(a); i++)
                if (workload_counts(&a->workloads[i]))
                        e->workload_stall_permyriad =
                                MAX(e->workload_stall_permyriad, workload_use_permyriad(&a->workloads[i]));
        for (unsigned l = 0; l < _LEVER_MAX; l++)
                e->dwell_usec[l] = cfg->lever[l].dwell_usec;
        e->hold_usec = cfg->backoff_hold_usec ? cfg->backoff_hold_usec : cfg->decay_after_usec;
        e->scan_per_block_limit = cfg->backoff_max_scan_per_block > 0
                                          ? (uint64_t) cfg->backoff_max_scan_per_block
                                          : 0;

        policy_demand_evaluate(cfg, s, a, now, e);
        policy_pagecache_evaluate(cfg, s, a, now, e);
        if (e->pagecache_order > 0)
                e->order[K_LARGE] = e->pagecache_order; /* the order the page cache uses */
        policy_reserve_gate(cfg, e);

        e->n_nodes = MIN(a->n_nodes, (unsigned) FRAGD_MAX_NODES);
        for (unsigned i = 0; i < e->n_nodes; i++) {
                const NodeMeasures *n = &a->nodes[i];
                PolicyNodeEval *ne = &e->nodes[i];
                bool orders_match = h->order[0] == e->order[0] && h->order[1] == e->order[1];
                int hi = orders_match ? policy_hist_node_index(h, n->node) : -1;
                uint64_t nb = node_bytes(a, n);
                Trend t;

                ne->node = n->node;
                ne->free_bytes = n->free_pages * ps;
                ne->score = n->frag_score;
                for (unsigned k = 0; k < 2; k++) {
                        unsigned o = e->order[k];
                        const SizeSpec *spec = k == K_LARGE ? &cfg->reserve_large : &cfg->reserve_thp;

                        ne->eta_usec[k] = USEC_INFINITY;
                        if (o >= a->n_orders || o >= FRAGD_MAX_ORDERS)
                                continue;
                        ne->have_bytes[k] = n->free_pages_ge[o] * ps;
                        /* the configured floor, while it is wanted (policy_reserve_gate()) */
                        ne->target_bytes[k] = e->reserve_wanted[k] ? policy_size_bytes(spec, nb) : 0;
                        if (k == K_LARGE && e->pagecache_order > 0 && e->order[K_LARGE] < e->order[K_THP]) {
                                /* below the THP order: what free memory above the kernel's
                                 * high watermark can hold (docs/policy.md "Page-cache
                                 * demand"); kernel_high_bytes is set by the caller */
                                uint64_t room = ne->free_bytes > ne->kernel_high_bytes
                                                        ? ne->free_bytes - ne->kernel_high_bytes
                                                        : 0;

                                ne->target_bytes[k] = policy_pagecache_target(
                                        cfg, MIN(e->pagecache_need_bytes, room), ne->target_bytes[k], nb);
                        } else if (k == K_LARGE)
                                ne->target_bytes[k] = policy_pagecache_target(cfg, e->pagecache_need_bytes,
                                                                              ne->target_bytes[k], nb);
                        if (k == K_THP) {
                                ne->config_target_bytes = ne->target_bytes[k];
                                ne->target_bytes[k] = policy_learned_target(
                                        cfg, policy_node_need_bytes(e, ne), ne->config_target_bytes, nb);
                                ne->learned = ne->target_bytes[k] > ne->config_target_bytes;
                        }
                        history_trend(h, hi, (int) k, ps, cfg->trend_window_usec, now, ne->have_bytes[k], &t);
                        ne->trend_bytes_per_sec[k] = trend_to_int(&t);
                        if (ne->target_bytes[k] > 0)
                                ne->eta_usec[k] = trend_eta_usec(&t, (double) ne->have_bytes[k],
                                                                 (double) ne->target_bytes[k]);
                }
                history_trend(h, hi, 2, ps, cfg->trend_window_usec, now, ne->free_bytes, &t);
                ne->free_trend_bytes_per_sec = trend_to_int(&t);
                ne->score_target = score_for(ne->target_bytes[K_THP], ne->free_bytes);
        }
}

uint64_t policy_free_needed_bytes(const PolicyNodeEval *ne, uint64_t target)
{
        return ne->kernel_high_bytes > UINT64_MAX / 2 - target ? UINT64_MAX / 2 : ne->kernel_high_bytes + target;
}

bool policy_targets_met(const PolicyConfig *cfg, const Assessment *a, const PolicyEval *e)
{
        uint32_t band = MIN(cfg->hysteresis_permyriad, 10000u);

        for (unsigned i = 0; i < e->n_nodes; i++)
                for (unsigned k = 0; k < 2; k++) {
                        const PolicyNodeEval *ne = &e->nodes[i];
                        uint64_t t = ne->target_bytes[k];

                        if (t == 0)
                                continue;
                        if ((unsigned __int128) ne->have_bytes[k] * 10000 < (unsigned __int128) t * (10000 + band))
                                return false;
                        if (cfg->trend_horizon_usec > 0 && ne->eta_usec[k] < cfg->trend_horizon_usec)
                                return false;
                }
        if (a->rates.valid) {
                if (!policy_under_with_band(e->stall_milli, policy_rate_milli(cfg->max_compact_stall_rate), band))
                        return false;
                if (!policy_under_with_band(e->fallback_permyriad, cfg->max_thp_fallback_permyriad, band))
                        return false;
        }
        if (!policy_under_with_band(e->workload_stall_permyriad, 10000, band))
                return false;
        if (cfg->psi_some_ceiling_permyriad > 0 &&
            !policy_under_with_band(e->psi_some_permyriad, cfg->psi_some_ceiling_permyriad, band))
                return false;
        if (cfg->psi_full_ceiling_permyriad > 0 &&
            !policy_under_with_band(e->psi_full_permyriad, cfg->psi_full_ceiling_permyriad, band))
                return false;
        return true;
}

bool policy_psi_over_ceiling(const PolicyConfig *cfg, const PolicyEval *e)
{
        return (cfg->psi_some_ceiling_permyriad > 0 && e->psi_some_permyriad > cfg->psi_some_ceiling_permyriad) ||
               (cfg->psi_full_ceiling_permyriad > 0 && e->psi_full_permyriad > cfg->psi_full_ceiling_permyriad);
}

uint64_t policy_node_need_bytes(const PolicyEval *e, const PolicyNodeEval *ne)
{
        return (uint64_t) ((unsigned __int128) e->learned_need_bytes * ne->learned_share_permyriad / 10000);
}

static void learned_numbers(const PolicyConfig *cfg, const PolicyEval *e, const PolicyNodeEval *ne, usec_t now,
                            PolicyNumbers *num)
{
        double v = (double) e->learned_need_bytes * (cfg->demand_factor > 0.0 ? cfg->demand_factor : 1.0);

        num->learned_need_bytes = v >= 1.8e19 ? UINT64_MAX / 4 : (uint64_t) v;
        num->learned_share_permyriad = ne->learned_share_permyriad;
        num->learned_share_measured = ne->learned_share_measured;
        num->config_target_bytes = ne->config_target_bytes;
        num->learned_age_usec = (now > e->learned_peak_usec ? now - e->learned_peak_usec : 0) +
                                e->learned_peak_before_usec;
        num->learned_hold_usec = e->learned_hold_usec;
        num->learned_from_boot = e->learned_from_boot;
}

/* The numbers a node's reserve objective is judged on: level k of node
 * evaluation ne against target t, reached at eta by the trend. */
static PolicyNumbers reserve_numbers(const PolicyEval *e, const PolicyNodeEval *ne, unsigned k, uint64_t t,
                                     usec_t eta, unsigned score_target)
{
        PolicyNumbers num = policy_numbers_blank(ne->node);

        num.order = e->order[k];
        num.have_bytes = ne->have_bytes[k];
        num.target_bytes = t;
        num.free_bytes = ne->free_bytes;
        num.trend_bytes_per_sec = ne->trend_bytes_per_sec[k];
        num.eta_usec = eta;
        num.score = ne->score;
        num.score_target = score_target;
        return num;
}

/* Between bursts (PolicyEval.learned_standing) the learned part of a
 * node's THP target asks only for the proactiveness whose kernel score
 * keeps it: kcompactd then works only while the score is over that
 * threshold, and defers itself after rounds without progress.
 * score_target: the one its level is for (short_score_target()). */
static void offer_standing(const PolicyConfig *cfg, const Assessment *a, const PolicyEval *e,
                           const PolicyNodeEval *ne, unsigned score_target, usec_t now, Want *standing)
{
        PolicyNumbers num;
        uint64_t t = ne->target_bytes[K_THP];
        int32_t err = level_err(ne->have_bytes[K_THP], t, ne->eta_usec[K_THP], cfg->trend_horizon_usec);

        if (err <= 0 || score_target == 0 || e->order[K_THP] != a->hpage_order)
                return;
        num = reserve_numbers(e, ne, K_THP, t, ne->eta_usec[K_THP], score_target);
        learned_numbers(cfg, e, ne, now, &num);
        num.standing = true;
        want_offer(standing, err,
                   ne->have_bytes[K_THP] >= t ? POLICY_REASON_RESERVE_TREND : POLICY_REASON_RESERVE_LEARNED, &num,
                   policy_proactiveness_for_score(score_target));
}

/* Free memory short for target t on node ne: the fragmentation want for
 * the part of t that free memory above the kernel's high watermark can
 * hold (none when free memory is at or under it), a real miss only (no
 * trend: the reclaim lever answers the fall). cfg_learned non-NULL: t is
 * learned.
 * Only on a tick whose THP faults fell back over the limit, and no kick
 * for it (the fallback want kicks): its aim is 60-80 (the part is most of
 * free memory), and offered on every tick, kicked, kcompactd worked to
 * that threshold every kick_interval (~150 k pages in the phased bench's
 * second burst, most of the churn shape's excess) while no measured burst
 * lost huge pages without it. */
static void offer_part(const Assessment *a, const PolicyEval *e, const PolicyNodeEval *ne, unsigned k,
                       uint64_t t, const PolicyConfig *cfg_learned, const PolicyConfig *cfg, usec_t now,
                       Want *frag)
{
        uint64_t part;
        unsigned score_target;
        PolicyNumbers num;
        int32_t err;

        if (!a->rates.valid || e->fallback_permyriad <= cfg->max_thp_fallback_permyriad)
                return; /* the blocks there served the faults */
        if (ne->free_bytes <= ne->kernel_high_bytes)
                return;
        part = MIN(ne->free_bytes - ne->kernel_high_bytes, t);
        err = level_err(ne->have_bytes[k], part, USEC_INFINITY, 0);
        if (err <= 0)
                return;
        score_target = short_score_target(a, e, ne, k, part, score_for(part, ne->free_bytes));
        num = reserve_numbers(e, ne, k, part, USEC_INFINITY, score_target);
        num.short_target_bytes = t;
        if (cfg_learned)
                learned_numbers(cfg_learned, e, ne, now, &num);
        want_offer_no_kick(frag, err,
                           cfg_learned && ne->have_bytes[k] >= ne->config_target_bytes ? POLICY_REASON_RESERVE_LEARNED
                                                                               : POLICY_REASON_RESERVE_BELOW_TARGET,
                           &num, reserve_aim(a, e, ne, k, part, score_target));
}

/* The aim the fragmentation want would carry for target t of level k on
 * node ne, met or not (the part's for free memory short), offered to aim
 * with the numbers of the target (or part) it keeps: the fallback want's
 * cap while kicking, and the level proactiveness is lowered to while
 * kicking once it is above it (controller.c lower_to_aim()). It depends on
 * free memory and the target, not on what is in blocks, so that a worse
 * reserve never asks for less. */
static void offer_target_aim(const Assessment *a, const PolicyEval *e, const PolicyNodeEval *ne, unsigned k,
                             uint64_t t, unsigned score_target, Want *aim)
{
        int64_t v;

        if (t == 0)
                return;
        if (ne->free_bytes < policy_free_needed_bytes(ne, t)) {
                if (ne->free_bytes <= ne->kernel_high_bytes)
                        return;
                t = MIN(ne->free_bytes - ne->kernel_high_bytes, t);
                score_target = score_for(t, ne->free_bytes);
        } else if (k != K_THP)
                score_target = score_for(t, ne->free_bytes);
        score_target = short_score_target(a, e, ne, k, t, score_target);
        v = reserve_aim(a, e, ne, k, t, score_target);
        if (v > aim->aim) {
                aim->aim = v;
                aim->num = reserve_numbers(e, ne, k, t, USEC_INFINITY, score_target);
        }
}

/* Fills the fragmentation want (compaction levers), the memory want (kswapd
 * levers), the stall and fallback wants, the standing want (the learned
 * reserve between bursts: proactiveness up to its aim, nothing else) and
 * the aim the targets have now, met or not (aim: err 0, aim and the
 * numbers of the target that sets it; -1 without one). */
void policy_gather_wants(const PolicyConfig *cfg, const Assessment *a, const PolicyEval *e, usec_t now,
                         Want *frag, Want *mem, Want *stall, Want *fallback, Want *standing, Want *aim)
{
        usec_t horizon = cfg->trend_horizon_usec;

        want_init(frag);
        want_init(mem);
        want_init(stall);
        want_init(fallback);
        want_init(standing);
        want_init(aim);

        for (unsigned i = 0; i < e->n_nodes; i++) {
                const PolicyNodeEval *ne = &e->nodes[i];

                for (unsigned k = 0; k < 2; k++) {
                        uint64_t t = ne->target_bytes[k], needed;
                        PolicyNumbers num;
                        bool learned = k == K_THP && ne->learned;
                        usec_t eta = ne->eta_usec[k], eta_free;
                        unsigned score_target = ne->score_target;
                        int32_t err;

                        if (learned && e->learned_standing) {
                                /* between bursts: the learned part stands;
                                 * the rest answers the configured target */
                                Trend tr = { .valid = true, .slope_per_sec = (double) ne->trend_bytes_per_sec[k] };
                                unsigned st = short_score_target(a, e, ne, K_THP, t, ne->score_target);

                                offer_standing(cfg, a, e, ne, st, now, standing);
                                if (st > 0 && e->order[K_THP] == a->hpage_order &&
                                    policy_proactiveness_for_score(st) > aim->aim) {
                                        aim->aim = policy_proactiveness_for_score(st);
                                        aim->num = reserve_numbers(e, ne, K_THP, t, USEC_INFINITY, st);
                                }
                                learned = false;
                                t = ne->config_target_bytes;
                                eta = trend_eta_usec(&tr, (double) ne->have_bytes[k], (double) t);
                                score_target = score_for(t, ne->free_bytes);
                        }
                        if (t == 0)
                                continue;
                        offer_target_aim(a, e, ne, k, t, score_target, aim);
                        err = level_err(ne->have_bytes[k], t, eta, horizon);
                        if (err <= 0)
                                continue;
                        score_target = short_score_target(a, e, ne, k, t, score_target);
                        num = reserve_numbers(e, ne, k, t, eta, score_target);
                        if (learned)
                                learned_numbers(cfg, e, ne, now, &num);

                        needed = policy_free_needed_bytes(ne, t);
                        if (ne->free_bytes < needed) {
                                PolicyNumbers m = num;
                                uint64_t managed = a->nodes[i].managed_pages;
                                int64_t gap = -1; /* the memory want's aim: watermark_scale_factor */

                                m.free_needed_bytes = needed;
                                m.trend_bytes_per_sec = ne->free_trend_bytes_per_sec;
                                if (managed > 0)
                                        gap = (int64_t) (((unsigned __int128) (t / a->page_size) * 10000 +
                                                          managed - 1) / managed);
                                m.avail_bytes = reclaim_avail_bytes(a, i, ne->free_bytes);
                                /* kswapd reclaims toward the raised
                                 * watermarks; with less to reclaim than
                                 * the shortfall it scans without reaching
                                 * them (the phased bench's anonymous
                                 * guest raised 10 -> 136 twice a run and
                                 * held 19 MiB back for nothing,
                                 * bench/README.md). Anonymous memory is
                                 * not counted even with swap: no swapping
                                 * a workload out for a huge-page reserve */
                                if (m.avail_bytes < needed)
                                        want_offer_held(mem, err, POLICY_REASON_FREE_MEMORY_SHORT, &m);
                                else
                                        want_offer(mem, err, POLICY_REASON_FREE_MEMORY_SHORT, &m, gap);
                                /* compaction cannot build what is not free,
                                 * but it can build the part free memory
                                 * above the kernel's high watermark holds:
                                 * kswapd frees scattered pages, turning them
                                 * into blocks is still compaction's job */
                                offer_part(a, e, ne, k, t, learned ? cfg : NULL, cfg, now, frag);
                                continue;
                        }

                        /* free memory itself predicted to run short */
                        eta_free = USEC_INFINITY;
                        if (ne->free_trend_bytes_per_sec < 0)
                                eta_free = (usec_t) ((double) (ne->free_bytes - needed) /
                                                     (double) -ne->free_trend_bytes_per_sec *
                                                     (double) USEC_PER_SEC);
                        if (horizon > 0 && eta_free < horizon) {
                                PolicyNumbers m = num;
                                /* the fall within the horizon at that
                                 * rate (eta_free < horizon: the trend is
                                 * negative), at most all of free memory */
                                double fall = (double) -ne->free_trend_bytes_per_sec * (double) horizon /
                                              (double) USEC_PER_SEC;
                                uint64_t left = fall >= (double) ne->free_bytes
                                                        ? 0
                                                        : ne->free_bytes - (uint64_t) fall;

                                m.free_needed_bytes = needed;
                                m.trend_bytes_per_sec = ne->free_trend_bytes_per_sec;
                                m.eta_usec = eta_free;
                                /* what is free then, and what kswapd can
                                 * reclaim: short of the need, the raise
                                 * has kswapd scan for nothing (as above) */
                                m.avail_bytes = reclaim_avail_bytes(a, i, left);
                                if (m.avail_bytes < needed)
                                        want_offer_held(mem, err, POLICY_REASON_RESERVE_TREND, &m);
                                else
                                        want_offer(mem, err, POLICY_REASON_RESERVE_TREND, &m, -1);
                        }

                        /* below a target only the learned need sets: reserve_learned */
                        want_offer(frag, err,
                                   ne->have_bytes[k] >= t ? POLICY_REASON_RESERVE_TREND
                                   : learned && ne->have_bytes[k] >= ne->config_target_bytes
                                           ? POLICY_REASON_RESERVE_LEARNED
                                           : POLICY_REASON_RESERVE_BELOW_TARGET,
                                   &num, reserve_aim(a, e, ne, k, t, score_target));
                }
        }

        if (a->rates.valid) {
                PolicyNumbers num = policy_numbers_blank(-1);
                uint64_t lim = policy_rate_milli(cfg->max_compact_stall_rate);

                num.observed_milli = e->stall_milli;
                num.limit_milli = lim;
                want_offer(stall, excess_err(e->stall_milli, lim), POLICY_REASON_COMPACT_STALLS, &num, -1);

                num = policy_numbers_blank(-1);
                num.observed_permyriad = e->fallback_permyriad;
                num.limit_permyriad = cfg->max_thp_fallback_permyriad;
                /* its aim: the cap of its raise while kicking (controller.c) */
                want_offer(fallback, excess_err(e->fallback_permyriad, cfg->max_thp_fallback_permyriad),
                           POLICY_REASON_THP_FALLBACK, &num, aim->aim);
        }

        /* watched workloads over their stall budget: the same shape as the
         * global stall rate, the budget as the limit */
        for (unsigned i = 0; i < n_workloads(a); i++) {
                const WorkloadStall *w = &a->workloads[i];
                PolicyNumbers num = policy_numbers_blank(-1);

                if (!workload_counts(w))
                        continue;
                memcpy(num.workload, w->name,
                       MIN(strnlen(w->name, sizeof(w->name)), sizeof(num.workload) - 1)); /* NUL from blank */
                num.workload_compact_usec = w->compact_usec;
                num.workload_reclaim_usec = w->reclaim_usec;
                num.workload_budget_usec = w->budget_usec;
                num.workload_span_usec = w->span_usec;
                num.observed_permyriad = workload_use_permyriad(w);
                num.limit_permyriad = 10000;
                want_offer(stall, excess_err(workload_stalled_usec(w), w->budget_usec),
                           POLICY_REASON_WORKLOAD_STALLS, &num, -1);
        }
}
