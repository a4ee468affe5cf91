/* SPDX-License-Identifier: GPL-2.0-or-later */

/* Policy memory (pure): history rings for the trends, what was applied when,
 * reversals, outside changes, and the efficiency back-off episodes.
 *
 * Back-off episode of a lever: starts with its first applied raise for an
 * objective (a node's reserve at an order, free memory, stalls or
 * fallbacks), remembering the objective's value then. Once per dwell the
 * episode is evaluated while the objective still asks for more:
 *   gain = value now - value at the start   (stalls, workload stalls and
 *                                            fallbacks: start - now)
 *   no gain, and compaction scanned pages since the last evaluation
 *     (any raise for the non-compaction levers)      -> ep_no_gain++
 *   gain, but scanned / (gain / order_thp block) > backoff_max_scan_per_block
 *                                                    -> ep_no_gain++
 *   gain at an acceptable cost                       -> new start, count reset
 * policy_decide() backs off once ep_no_gain reaches backoff_decisions (a
 * reserve below the THP order: after one evaluation in which compaction
 * scanned and its own order gained nothing, ep_lost): the
 * lever returns to its baseline at once and raising is held for
 * backoff_hold << n, n the back-offs in a row (reset by an episode that
 * paid off, or by the targets met once the hold is over), so a miss
 * compaction cannot fix costs less each time instead of cycling. */


#include <math.h>
#include <string.h>

#include "fragd/policy.h"
#include "controller-internal.h"

usec_t policy_backoff_hold_usec(usec_t hold, unsigned n)
{
        unsigned shift = MIN(n, (unsigned) POLICY_BACKOFF_SHIFT_MAX);

        return hold > (USEC_INFINITY >> shift) ? USEC_INFINITY : hold << shift;
}

/* PSI's avg10 is an average decaying by e every POLICY_PSI_AVG_USEC
 * (kernel/sched/psi.c calc_avgs(): EXP_10s over 2 s periods), not a 10 s
 * window: 4.31 % full at the end of a burst of direct compactions is
 * still 2.37 % six seconds later, with no new stall. The stalls' pressure
 * at now is the highest full read while they were within avg10, decayed
 * since it was read. */
uint32_t policy_stall_pressure_at(const PolicyState *s, usec_t now)
{
        double age;

        if (s->stall_psi_full_usec == 0 || s->stall_psi_full_permyriad == 0)
                return 0;
        age = now > s->stall_psi_full_usec ? (double) (now - s->stall_psi_full_usec) : 0.0;
        return (uint32_t) ((double) s->stall_psi_full_permyriad * exp(-age / (double) POLICY_PSI_AVG_USEC));
}

void policy_state_init(PolicyState *s)
{
        memset(s, 0, sizeof(*s));
}

static void history_push(PolicyHistory *h, const Assessment *a, const PolicyEval *e, usec_t now)
{
        bool same = h->order[0] == e->order[0] && h->order[1] == e->order[1] && h->n_nodes == e->n_nodes;
        unsigned r;

        for (unsigned i = 0; same && i < e->n_nodes; i++)
                same = h->node_id[i] == e->nodes[i].node;
        if (!same) {
                memset(h, 0, sizeof(*h));
                h->order[0] = e->order[0];
                h->order[1] = e->order[1];
                h->n_nodes = e->n_nodes;
                for (unsigned i = 0; i < e->n_nodes; i++)
                        h->node_id[i] = e->nodes[i].node;
        }

        if (h->n > 0 && h->t_usec[(h->head + h->n - 1) % POLICY_HISTORY_MAX] >= now)
                r = (h->head + h->n - 1) % POLICY_HISTORY_MAX; /* same instant: replace */
        else if (h->n < POLICY_HISTORY_MAX)
                r = (h->head + h->n++) % POLICY_HISTORY_MAX;
        else {
                r = h->head;
                h->head = (h->head + 1) % POLICY_HISTORY_MAX;
        }
        h->t_usec[r] = now;
        h->demand_bytes[r] = e->demand_bytes;
        h->pagecache_bytes[r] = e->pagecache_demand_bytes;
        h->unmet_bytes[r] = e->demand_unmet_bytes;
        h->pagecache_unmet_bytes[r] = e->pagecache_unmet_bytes;
        for (unsigned i = 0; i < e->n_nodes; i++) {
                const NodeMeasures *n = &a->nodes[i];

                h->thp_grown[r][i] = n->thp_grown_valid ? MIN(n->thp_grown, UINT64_MAX - 1) : UINT64_MAX;
                h->free_pages[r][i] = n->free_pages;
                for (unsigned k = 0; k < 2; k++)
                        h->ge_pages[k][r][i] = e->order[k] < FRAGD_MAX_ORDERS ? n->free_pages_ge[e->order[k]] : 0;
        }
}

static void push_reversal(LeverTrack *t, usec_t now)
{
        if (t->n_reversals < POLICY_REVERSALS_MAX)
                t->reversal_usec[(t->reversal_head + t->n_reversals++) % POLICY_REVERSALS_MAX] = now;
        else {
                t->reversal_usec[t->reversal_head] = now;
                t->reversal_head = (t->reversal_head + 1) % POLICY_REVERSALS_MAX;
        }
}

static const PolicyNodeEval *eval_node(const PolicyEval *e, int node)
{
        for (unsigned i = 0; i < e->n_nodes; i++)
                if (e->nodes[i].node == node)
                        return &e->nodes[i];
        return NULL;
}

/* The objective's present value; false when it cannot be measured. */
static bool objective_value(const LeverTrack *t, const PolicyEval *e, int64_t *ret)
{
        const PolicyNodeEval *ne;

        switch (t->ep_objective) {
        case POLICY_OBJ_RESERVE:
                ne = eval_node(e, t->ep_node);
                if (!ne)
                        return false;
                for (unsigned k = 0; k < 2; k++)
                        if (e->order[k] == t->ep_order) {
                                *ret = (int64_t) ne->have_bytes[k];
                                return true;
                        }
                return false;
        case POLICY_OBJ_FREE:
                ne = eval_node(e, t->ep_node);
                if (!ne)
                        return false;
                *ret = (int64_t) ne->free_bytes;
                return true;
        case POLICY_OBJ_STALLS:
                *ret = (int64_t) MIN(e->stall_milli, (uint64_t) INT64_MAX);
                return true;
        case POLICY_OBJ_FALLBACK:
                *ret = e->fallback_permyriad;
                return true;
        case POLICY_OBJ_WORKLOAD:
                *ret = e->workload_stall_permyriad;
                return true;
        default:
                return false;
        }
}

static void episode_start(LeverTrack *t, const DecisionItem *it, usec_t now)
{
        PolicyObjective obj;
        int64_t ref;

        /* the learned reserve's standing level between bursts costs only
         * kcompactd's own (self-deferring) rounds: not judged */
        if (it->num.standing)
                return;
        /* a kick counts like a raise for the objective it stands for */
        switch (it->kind == DECISION_KICK_KCOMPACTD ? policy_kick_cause(it) : it->reason) {
        case POLICY_REASON_RESERVE_BELOW_TARGET:
        case POLICY_REASON_RESERVE_LEARNED:
        case POLICY_REASON_RESERVE_TREND:
                obj = it->num.free_needed_bytes > 0 ? POLICY_OBJ_FREE : POLICY_OBJ_RESERVE;
                ref = (int64_t) (obj == POLICY_OBJ_FREE ? it->num.free_bytes : it->num.have_bytes);
                break;
        case POLICY_REASON_FREE_MEMORY_SHORT:
                obj = POLICY_OBJ_FREE;
                ref = (int64_t) it->num.free_bytes;
                break;
        case POLICY_REASON_COMPACT_STALLS:
                obj = POLICY_OBJ_STALLS;
                ref = (int64_t) MIN(it->num.observed_milli, (uint64_t) INT64_MAX);
                break;
        case POLICY_REASON_THP_FALLBACK:
                obj = POLICY_OBJ_FALLBACK;
                ref = it->num.observed_permyriad;
                break;
        case POLICY_REASON_WORKLOAD_STALLS:
                obj = POLICY_OBJ_WORKLOAD;
                ref = it->num.observed_permyriad;
                break;
        default:
                return;
        }
        t->episode = true;
        t->ep_objective = obj;
        t->ep_node = it->num.node;
        t->ep_order = it->num.order;
        t->ep_ref = ref;
        t->ep_start_usec = t->ep_eval_usec = now;
        t->ep_scanned_pages = t->ep_scanned_at_eval = 0;
        t->ep_no_gain = 0;
        t->ep_lost = false;
        t->ep_gained_bytes = 0;
        t->ep_scan_per_block = 0;
}

static bool compaction_lever(Lever l)
{
        return l == LEVER_COMPACTION_PROACTIVENESS || l == LEVER_WATERMARK_BOOST_FACTOR ||
               l == LEVER_THP_DEFRAG;
}

static void episode_evaluate(LeverTrack *t, Lever l, const PolicyEval *e, usec_t now)
{
        usec_t every = MAX(e->dwell_usec[l], USEC_PER_SEC);
        uint64_t scanned, block_bytes;
        int64_t v, gain;

        if (now < t->ep_eval_usec || now - t->ep_eval_usec < every)
                return;
        t->ep_eval_usec = now;
        if (!e->want_raise[l]) {
                t->episode = false; /* the objective is satisfied */
                return;
        }
        if (!objective_value(t, e, &v))
                return;
        gain = t->ep_objective == POLICY_OBJ_RESERVE || t->ep_objective == POLICY_OBJ_FREE ? v - t->ep_ref
                                                                                          : t->ep_ref - v;
        scanned = t->ep_scanned_pages - t->ep_scanned_at_eval;
        t->ep_scanned_at_eval = t->ep_scanned_pages;
        if (t->ep_objective == POLICY_OBJ_RESERVE || t->ep_objective == POLICY_OBJ_FREE)
                t->ep_gained_bytes = gain;

        t->ep_lost = gain <= 0 && scanned > 0;
        if (gain <= 0) {
                if (!compaction_lever(l) || scanned > 0)
                        t->ep_no_gain++;
                return;
        }
        block_bytes = (uint64_t) e->page_size << MIN(e->order[1], 30u);
        if (t->ep_objective == POLICY_OBJ_RESERVE && e->scan_per_block_limit > 0 && block_bytes > 0) {
                uint64_t blocks = (uint64_t) gain / block_bytes;

                t->ep_scan_per_block = blocks > 0 ? t->ep_scanned_pages / blocks : t->ep_scanned_pages;
                if (t->ep_scan_per_block > e->scan_per_block_limit) {
                        t->ep_no_gain++;
                        return;
                }
        }
        /* paid off: measure the next raises from here */
        t->backoffs = 0;
        t->ep_ref = v;
        t->ep_scanned_pages = t->ep_scanned_at_eval = 0;
        t->ep_no_gain = 0;
}

void policy_state_update(PolicyState *s, const Assessment *a, const Decision *d, usec_t now)
{
        const PolicyEval *e = &d->eval;
        double dt_sec = 0.0;

        if (s->last_update_usec > 0 && now > s->last_update_usec)
                dt_sec = (double) (now - s->last_update_usec) / (double) USEC_PER_SEC;

        history_push(&s->hist, a, e, now);
        policy_defrag_mode_update(&s->dm, a, d, now);
        /* history_push() keeps the nodes in the eval's order */
        for (unsigned i = 0; i < e->n_nodes && i < FRAGD_MAX_NODES; i++)
                s->pagecache_gate[i] = e->nodes[i].pagecache_gate;
        if (policy_tick_active(a, d))
                s->last_activity_usec = now;
        if (a->rates.valid && (a->rates.compact_stall > 0.0 || a->rates.pgscan_kswapd > 0.0))
                s->last_highorder_work_usec = now;
        if (a->rates.valid && a->rates.compact_stall > 0.0)
                s->last_compact_stall_usec = now;
        if (s->last_compact_stall_usec > 0 && now >= s->last_compact_stall_usec &&
            now - s->last_compact_stall_usec < POLICY_PSI_AVG_USEC &&
            e->psi_full_permyriad >= policy_stall_pressure_at(s, now)) {
                s->stall_psi_full_permyriad = e->psi_full_permyriad;
                s->stall_psi_full_usec = now;
        }
        /* the learned burst as decide saw it (renewed, kept, or forgotten) */
        s->learned_peak_bytes = e->learned_peak_bytes;
        s->learned_peak_usec = e->learned_peak_usec;
        s->learned_peak_before_usec = e->learned_peak_before_usec;
        s->learned_from_boot = e->learned_from_boot;
        s->pagecache_peak_bytes = e->pagecache_peak_bytes;
        s->pagecache_peak_usec = e->pagecache_peak_usec;
        s->learned_share_n = e->n_nodes;
        for (unsigned i = 0; i < e->n_nodes; i++) {
                s->learned_share_node[i] = e->nodes[i].node;
                s->learned_share_permyriad[i] = e->nodes[i].learned_share_permyriad;
                s->learned_share_measured[i] = e->nodes[i].learned_share_measured;
        }

        /* each lever's own objectives: the decay clocks */
        for (unsigned l = 0; l < _LEVER_MAX; l++) {
                LeverTrack *t = &s->lever[l];

                if (e->lever_met[l] && !t->met)
                        t->met_since_usec = now;
                t->met = e->lever_met[l];
                if (e->lever_quiet[l] && !t->quiet)
                        t->quiet_since_usec = now;
                t->quiet = e->lever_quiet[l];
        }

        /* the demand was met after all: the next back-off starts short */
        if (e->targets_met)
                for (unsigned l = 0; l < _LEVER_MAX; l++)
                        if (s->lever[l].hold_raise_until_usec <= now)
                                s->lever[l].backoffs = 0;

        if (e->targets_met) {
                if (!s->met) {
                        s->met = true;
                        s->met_since_usec = now;
                }
        } else
                s->met = false;

        /* outside changes: what we applied is not what the knob reads */
        for (unsigned l = 0; l < _LEVER_MAX; l++) {
                LeverTrack *t = &s->lever[l];
                const LeverInput *in = &d->levers[l];

                if (!t->touched || !in->available || in->current == t->last_applied)
                        continue;
                t->clamped = true;
                t->clamp_usec = now;
                t->clamp_value = in->current;
                t->clamp_wanted = t->last_applied;
                t->last_applied = in->current;
                t->last_change_usec = now;
                t->changed = true;
                t->episode = false;
        }

        /* compaction work spent during the last interval (not judged
         * against targets that were not measured) */
        for (unsigned l = 0; l < _LEVER_MAX; l++) {
                LeverTrack *t = &s->lever[l];

                if (!t->episode || e->unmeasured)
                        continue;
                t->ep_scanned_pages += (uint64_t) ((double) e->scan_pages_per_sec * dt_sec);
                episode_evaluate(t, (Lever) l, e, now);
        }

        for (unsigned i = 0; i < d->n_items; i++) {
                const DecisionItem *it = &d->items[i];
                LeverTrack *t;
                int dir;

                if (!it->applied)
                        continue;
                if (it->kind == DECISION_COMPACT_NODE) {
                        int hi = -1;

                        for (unsigned j = 0; j < s->hist.n_nodes; j++)
                                if (s->hist.node_id[j] == it->node)
                                        hi = (int) j;
                        if (hi >= 0) {
                                s->have_oneshot[hi] = true;
                                s->last_oneshot_usec[hi] = now;
                        }
                        continue;
                }
                if ((unsigned) it->lever >= _LEVER_MAX)
                        continue;
                t = &s->lever[it->lever];
                if (it->kind == DECISION_KICK_KCOMPACTD) {
                        /* the value is unchanged: no move, no reversal */
                        s->have_kick = true;
                        s->last_kick_usec = now;
                        if (!t->episode)
                                episode_start(t, it, now);
                        continue;
                }
                dir = it->to > it->from ? 1 : it->to < it->from ? -1 : 0;
                if (dir == 0)
                        continue;
                if (t->last_dir != 0 && dir != t->last_dir)
                        push_reversal(t, now);
                t->touched = true;
                t->changed = true;
                t->before_change = it->from;
                t->last_err = it->err;
                t->last_target_bytes = dir > 0 ? it->num.target_bytes : 0;
                t->last_target_order = it->num.order;
                t->last_target_node = it->num.node;
                t->raised_in_dip = dir > 0 && it->in_dip;
                t->last_applied = it->to;
                t->last_change_usec = now;
                t->last_dir = dir;
                t->psi_full_at_change_permyriad = e->psi_full_permyriad;
                t->last_reason = it->reason;
                t->clamped = false;
                if (it->reason == POLICY_REASON_BACKOFF_INEFFECTIVE) {
                        t->hold_raise_until_usec = now + policy_backoff_hold_usec(e->hold_usec, t->backoffs);
                        t->backoffs++;
                        t->hold_reason = it->reason;
                        t->episode = false;
                } else if (it->reason == POLICY_REASON_PSI_ROLLBACK) {
                        t->hold_raise_until_usec = now + e->hold_usec;
                        t->hold_reason = it->reason;
                        t->episode = false;
                } else if (dir < 0)
                        t->episode = false;
                else if (!t->episode)
                        episode_start(t, it, now);
        }

        /* a back-off that found nothing to lower still stops the raising */
        for (unsigned i = 0; i < d->n_held; i++) {
                const PolicyHeldItem *h = &d->held[i];
                LeverTrack *t;

                if (h->reason != POLICY_REASON_BACKOFF_INEFFECTIVE || (unsigned) h->lever >= _LEVER_MAX)
                        continue;
                t = &s->lever[h->lever];
                if (t->hold_raise_until_usec <= now) {
                        t->hold_raise_until_usec = now + policy_backoff_hold_usec(e->hold_usec, t->backoffs);
                        t->backoffs++;
                        t->hold_reason = h->reason;
                }
                t->episode = false;
        }

        s->last_update_usec = now;
}

void decision_mark_applied(Decision *d, unsigned i, int64_t readback)
{
        if (i >= d->n_items)
                return;
        d->items[i].applied = true;
        if (d->items[i].kind == DECISION_LEVER)
                d->items[i].to = readback;
}

void decision_mark_all_applied(Decision *d)
{
        for (unsigned i = 0; i < d->n_items; i++)
                d->items[i].applied = true;
}

int64_t decision_lever_value(const Decision *d, Lever l)
{
        for (unsigned i = 0; i < d->n_items; i++)
                if (d->items[i].kind == DECISION_LEVER && d->items[i].lever == l)
                        return d->items[i].to;
        return d->levers[l].current;
}

bool policy_tick_active(const Assessment *a, const Decision *d)
{
        const Rates *r = &a->rates;

        if (d->eval.workload_stall_permyriad > 0)
                return true;
        if (!r->valid)
                return false;
        return r->thp_fault_alloc > 0.0 || r->thp_fault_fallback > 0.0 || r->compact_stall > 0.0 ||
               r->allocstall > 0.0;
}

uint64_t policy_activity_counters(const KvList *vmstat)
{
        static const char *const names[] = {
                "thp_fault_alloc",   "thp_fault_fallback", "compact_stall",      "allocstall_dma",
                "allocstall_dma32",  "allocstall_normal",  "allocstall_movable", "allocstall_device",
        };
        uint64_t sum = 0;

        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                sum += kv_get_or(vmstat, names[i], 0);
        return sum;
}

bool policy_watch_closely(const PolicyState *s, usec_t now, usec_t hold)
{
        return hold > 0 && s->last_activity_usec > 0 && now >= s->last_activity_usec &&
               now - s->last_activity_usec < hold;
}

/* the row of a node in the history (state.c records it), -1 if not there */
int policy_hist_node_index(const PolicyHistory *h, int node)
{
        for (unsigned i = 0; i < h->n_nodes; i++)
                if (h->node_id[i] == node)
                        return (int) i;
        return -1;
}
