/* SPDX-License-Identifier: GPL-2.0-or-later */

/* The controller (pure): (config, state, assessment, levers, now) -> Decision.
 * The signals, the errors (0..10000) and the wants come from evaluate.c.
 *
 * Each lever moves by ceil(step_up * err / 10000) (at least 1, at most
 * step_up) once per dwell while the error lasts: a discrete integral
 * controller whose adjustment grows with the error, as in senpai. Lowering
 * waits: only after the objectives the lever serves have been met (with the
 * hysteresis margin) for decay_after, then half way back (at least
 * step_down) and home on the next dwell.
 *
 * Who acts on what:
 *   free memory itself short (free < the kernel's own high watermark + T,
 *     page cache not counted): compaction has no material, so kswapd
 *     headroom: watermark_scale_factor aims at gap = T (then kswapd's high
 *     watermark is min + 2 T); min_free_kbytes only when
 *     watermark_scale_factor can go no further. Otherwise the reclaim levers
 *     stay where they are: holding page cache back for a THP reserve is the
 *     blunt reserve (PolicyNodeEval.watermark_held_bytes counts its cost).
 *   otherwise fragmentation: compaction_proactiveness, aimed at the score the
 *     target needs: score_target = 100 - ceil(100 T / free), proactiveness =
 *     the smallest p whose high threshold is <= score_target;
 *     watermark_boost_factor only when proactiveness can go no further;
 *     a one-shot node compaction when far below target and calm.
 *   stalls over target: proactiveness up; THP defrag one mode toward "defer".
 *     Stalls are the global compact_stall rate and every watched workload
 *     over its stall budget (compact + reclaim usec in the last minute)
 *     whose stall is mostly direct compaction; the worse one is cited.
 *   fallbacks over target: proactiveness up; THP defrag one mode up only when
 *     stalls are well under target and proactiveness can go no further. */

#include <assert.h>
#include <string.h>

#include "controller-internal.h"

static int64_t raise_wanted(const LeverConfig *lc, int64_t cur, int32_t err, int64_t aim)
{
        int64_t nominal = lc->step_up > 0 ? lc->step_up : MAX((lc->max - lc->min) / 10, (int64_t) 1);
        int64_t step = (int64_t) (((__int128) nominal * err + ERR_MAX - 1) / ERR_MAX);
        __int128 want;

        step = MAX(step, (int64_t) 1);
        want = (__int128) cur + step;
        if (aim > cur)
                want = MAX(want, (__int128) aim); /* cur + (aim - cur), without the overflow */
        /* a reading far outside the lever's range (-2^63) must not overflow */
        return want > INT64_MAX ? INT64_MAX : (int64_t) want;
}

static int64_t goal_of(const PolicyConfig *cfg, Lever l, const LeverInput *in)
{
        return CLAMP(in->baseline, cfg->lever[l].min, cfg->lever[l].max);
}

/* ---- the envelope for the two reserve levers -------------------------------- */

static int64_t min_free_of(const Assessment *a, const LeverInput *in)
{
        uint64_t pages = 0;

        if (in[LEVER_MIN_FREE_KBYTES].available)
                return in[LEVER_MIN_FREE_KBYTES].current;
        for (unsigned i = 0; i < a->n_nodes; i++)
                pages += a->nodes[i].wmark_min;
        return (int64_t) (pages * a->page_size / 1024);
}

static int64_t wsf_of(const LeverInput *in)
{
        return in[LEVER_WATERMARK_SCALE_FACTOR].available ? in[LEVER_WATERMARK_SCALE_FACTOR].current : 10;
}

/* The kernel's own watermarks (the values found at start) against the
 * present ones, per node: what raised watermarks hold back. */
void policy_watermarks_evaluate(const Assessment *a, const LeverInput *in, PolicyEval *e)
{
        int64_t mf = min_free_of(a, in), wsf = wsf_of(in);
        int64_t mf_base = in[LEVER_MIN_FREE_KBYTES].available ? in[LEVER_MIN_FREE_KBYTES].baseline : mf;
        int64_t wsf_base = in[LEVER_WATERMARK_SCALE_FACTOR].available ? in[LEVER_WATERMARK_SCALE_FACTOR].baseline
                                                                       : wsf;

        for (unsigned i = 0; i < e->n_nodes && i < a->n_nodes; i++) {
                PolicyNodeEval *ne = &e->nodes[i];
                NodeWatermarks kern, cur;

                if (envelope_node_watermarks(a, i, mf_base, wsf_base, &kern) < 0 ||
                    envelope_node_watermarks(a, i, mf, wsf, &cur) < 0) {
                        ne->kernel_high_bytes = a->nodes[i].wmark_high * (uint64_t) a->page_size;
                        continue;
                }
                ne->kernel_high_bytes = kern.high_pages * (uint64_t) a->page_size;
                ne->watermark_held_bytes =
                        cur.high_pages > kern.high_pages ? (cur.high_pages - kern.high_pages) * (uint64_t) a->page_size : 0;
        }
}

/* Every node's high watermark at min_free_kbytes MF and watermark_scale_factor WSF, summed */
static uint64_t high_pages_at(const Assessment *a, int64_t mf, int64_t wsf)
{
        uint64_t sum = 0;

        for (unsigned i = 0; i < a->n_nodes; i++) {
                NodeWatermarks w;

                if (envelope_node_watermarks(a, i, mf, wsf, &w) == 0)
                        sum += w.high_pages;
        }
        return sum;
}

/* The largest watermark_scale_factor in [CUR, MAX] that leaves every
 * watermark where CUR puts it (CUR when the next value moves them). The
 * kernel's gap between the watermarks is max(min / 4, managed x factor /
 * 10000) per zone (__setup_per_zone_wmarks()): under about min_free_kbytes
 * / 4 / managed x 10000 the factor changes nothing. In the postgres
 * scenario's 2 GiB guest (min_free_kbytes 67584) that is 86: fragd raised
 * 10 -> 21 -> 49 for free memory short of the page-cache reserve and kswapd
 * kept the same watermarks; with a hand-raised min_free_kbytes
 * of 1 GiB on a 64 GiB host it is 40. The high watermarks only grow with
 * the factor, so a bisection finds it. */
static int64_t wsf_dead_until(const Assessment *a, int64_t mf, int64_t cur, int64_t max)
{
        uint64_t at_cur = high_pages_at(a, mf, cur);
        int64_t lo = cur, hi = max;

        if (max <= cur || high_pages_at(a, mf, max) == at_cur)
                return MAX(cur, max);
        /* high_pages_at(lo) == at_cur < high_pages_at(hi) */
        while (hi - lo > 1) {
                int64_t mid = lo + (hi - lo) / 2;

                if (high_pages_at(a, mf, mid) == at_cur)
                        lo = mid;
                else
                        hi = mid;
        }
        return lo;
}

static bool env_ok(const PolicyConfig *cfg, const Assessment *a, Lever l, int64_t v, int64_t other,
                   PolicyNumbers *num)
{
        if (l == LEVER_WATERMARK_SCALE_FACTOR)
                return envelope_ok(cfg, a, other, v, num);
        return envelope_ok(cfg, a, v, other, num);
}

/* A reserve lever's value v, the other one's, and what judges them */
typedef struct LeverProbe {
        const PolicyConfig *cfg;
        const Assessment *a;
        const PolicyEval *e;
        Lever l;
        int64_t other;
        bool (*ok)(const struct LeverProbe *p, int64_t v);
} LeverProbe;

/* Largest v in [lo, hi] that p->ok() accepts, for a rule that accepts
 * every value under one it accepts; lo when none is. */
static int64_t largest_ok(const LeverProbe *p, int64_t lo, int64_t hi)
{
        if (hi <= lo || p->ok(p, hi))
                return MAX(hi, lo);
        if (!p->ok(p, lo))
                return lo;
        while (hi - lo > 1) {
                int64_t mid = lo + (hi - lo) / 2;

                if (p->ok(p, mid))
                        lo = mid;
                else
                        hi = mid;
        }
        return lo;
}

static bool probe_env_ok(const LeverProbe *p, int64_t v)
{
        return env_ok(p->cfg, p->a, p->l, v, p->other, NULL);
}

/* Largest v in [lo, hi] inside the envelope; lo when none is. */
static int64_t env_max(const PolicyConfig *cfg, const Assessment *a, Lever l, int64_t other, int64_t lo,
                       int64_t hi)
{
        const LeverProbe p = { .cfg = cfg, .a = a, .l = l, .other = other, .ok = probe_env_ok };

        return largest_ok(&p, lo, hi);
}

/* The watermark cap (POLICY_WATERMARK_CAP_PERMYRIAD): on every node, the
 * high watermark at v minus the kernel's own (PolicyNodeEval.kernel_high_bytes)
 * at most the cap's share of the node's memory. */
static uint64_t watermark_cap_bytes(const PolicyConfig *cfg, const Assessment *a, const NodeMeasures *n)
{
        uint32_t cap = cfg->watermark_cap_permyriad ? MIN(cfg->watermark_cap_permyriad, 10000u)
                                                    : POLICY_WATERMARK_CAP_PERMYRIAD;

        return (unsigned __int128) (n->managed_pages ? n->managed_pages : n->present_pages) * a->page_size * cap /
               10000;
}

static bool probe_cap_ok(const LeverProbe *p, int64_t v)
{
        int64_t mf = p->l == LEVER_MIN_FREE_KBYTES ? v : p->other, wsf = p->l == LEVER_MIN_FREE_KBYTES ? p->other : v;

        for (unsigned i = 0; i < p->e->n_nodes && i < p->a->n_nodes; i++) {
                NodeWatermarks w;
                uint64_t high;

                if (envelope_node_watermarks(p->a, i, mf, wsf, &w) < 0)
                        continue;
                high = w.high_pages * (uint64_t) p->a->page_size;
                if (high > p->e->nodes[i].kernel_high_bytes &&
                    high - p->e->nodes[i].kernel_high_bytes > watermark_cap_bytes(p->cfg, p->a, &p->a->nodes[i]))
                        return false;
        }
        return true;
}

/* Free memory itself short: some node under the kernel's own high
 * watermark (kswapd is behind at the kernel's values); the cap does not
 * apply then */
static bool free_itself_short(const PolicyEval *e)
{
        for (unsigned i = 0; i < e->n_nodes; i++)
                if (e->nodes[i].free_bytes < e->nodes[i].kernel_high_bytes)
                        return true;
        return false;
}

/* ---- decision assembly ------------------------------------------------------ */

typedef struct Ctx {
        const PolicyConfig *cfg;
        const PolicyState *s;
        const Assessment *a;
        const LeverInput *in;
        usec_t now;
        Decision *d;
        bool psi_high;
        Want frag, mem, stall, fallback;
        Want standing; /* the learned reserve between bursts (evaluate.c offer_standing()) */
        Want aim;      /* the aim the targets have now, met or not (evaluate.c offer_target_aim()) */
        bool rates_met;       /* stalls, workload stalls and fallbacks met with the margin */
        unsigned floor_score; /* the score proactiveness_floor keeps */
        bool learned_any;     /* some node's THP target is the learned one */
        bool in_dip;          /* free memory in a dip on some node (free_in_dip()) */
        int64_t value[_LEVER_MAX]; /* decided values so far */
        PolicyHold hold[_LEVER_MAX];
} Ctx;

static void add_item(Ctx *c, Lever l, int64_t to, PolicyReason reason, unsigned flags, int32_t err,
                     const PolicyNumbers *num)
{
        Decision *d = c->d;
        DecisionItem *it;

        if (d->n_items >= POLICY_MAX_ITEMS)
                return;
        it = &d->items[d->n_items++];
        it->kind = DECISION_LEVER;
        it->lever = l;
        it->node = -1;
        it->from = c->in[l].current;
        it->to = to;
        it->reason = reason;
        it->forced = (flags & (LEVER_MOVE_IGNORE_TIMING | LEVER_MOVE_IGNORE_STEP)) != 0;
        it->escalated = (flags & LEVER_MOVE_ESCALATE) != 0;
        it->escalated_target = it->escalated && (flags & LEVER_MOVE_ESCALATE_TARGET);
        it->refuted_aim = (flags & LEVER_MOVE_REFUTE_AIM) != 0;
        it->err = err;
        it->in_dip = to > it->from && c->in_dip;
        it->num = *num;
        c->value[l] = to;
}

static void add_held(Ctx *c, Lever l, int64_t wanted, int64_t allowed, PolicyReason reason, PolicyHold hold,
                     const PolicyNumbers *num)
{
        Decision *d = c->d;
        PolicyHeldItem *h;

        c->hold[l] = hold;
        if (d->n_held >= POLICY_MAX_HELD)
                return;
        h = &d->held[d->n_held++];
        h->lever = l;
        h->current = c->in[l].current;
        h->wanted = wanted;
        h->allowed = allowed;
        h->reason = reason;
        h->hold = hold;
        h->num = *num;
}

/* Runs wanted through the movement rules; records an item or a hold. */
static bool propose_err(Ctx *c, Lever l, int64_t wanted, PolicyReason reason, unsigned flags, int32_t err,
                        const PolicyNumbers *num)
{
        int64_t cur = c->in[l].current, to;
        PolicyHold hold;

        if (wanted == cur)
                return false;
        to = lever_rules_apply(c->cfg, l, &c->s->lever[l], cur, wanted, flags, c->now, &hold);
        if (to != cur) {
                /* an escalation or a refutation that was not needed (the
                 * dwell and the cooldown had passed) is an ordinary raise;
                 * the two never come together (after a raise, after a
                 * lowering) */
                unsigned skip = LEVER_MOVE_ESCALATE | LEVER_MOVE_ESCALATE_TARGET | LEVER_MOVE_REFUTE_AIM;

                if ((flags & skip) &&
                    lever_rules_apply(c->cfg, l, &c->s->lever[l], cur, wanted, flags & ~skip, c->now, NULL) != cur)
                        flags &= ~skip;
                add_item(c, l, to, reason, flags, err, num);
                if (hold != POLICY_HOLD_NONE && to != wanted)
                        c->hold[l] = hold;
                return true;
        }
        add_held(c, l, wanted, cur, reason, hold, num);
        return false;
}

static bool propose(Ctx *c, Lever l, int64_t wanted, PolicyReason reason, unsigned flags,
                    const PolicyNumbers *num)
{
        return propose_err(c, l, wanted, reason, flags, 0, num);
}

static PolicyNumbers psi_numbers(const Ctx *c)
{
        PolicyNumbers num = policy_numbers_blank(-1);

        num.psi_some_permyriad = c->d->eval.psi_some_permyriad;
        num.psi_full_permyriad = c->d->eval.psi_full_permyriad;
        num.psi_some_ceiling_permyriad = c->cfg->psi_some_ceiling_permyriad;
        num.psi_full_ceiling_permyriad = c->cfg->psi_full_ceiling_permyriad;
        return num;
}

/* Direct compaction stalls this tick or within PSI avg10's window before
 * it: the memory full pressure fragd reads may still be theirs. */
/* A direct compaction stall this tick or within window before now */
static bool stalls_within(const Ctx *c, usec_t window)
{
        usec_t last = c->s->last_compact_stall_usec;

        if (c->a->rates.valid && c->d->eval.stall_milli > 0)
                return true;
        return last > 0 && c->now >= last && c->now - last < window;
}

static bool stalls_in_avg10(const Ctx *c)
{
        return stalls_within(c, POLICY_PSI_AVG_USEC);
}

static bool rollback_due(Ctx *c, Lever l, PolicyNumbers *num)
{
        const LeverTrack *t = &c->s->lever[l];
        uint32_t rise = c->cfg->rollback_psi_full_rise_permyriad;
        uint32_t now_full = c->d->eval.psi_full_permyriad;

        if (rise == 0 || !t->touched || !t->changed || t->last_dir <= 0 || t->clamped)
                return false;
        if (t->last_reason == POLICY_REASON_PSI_ROLLBACK || c->in[l].current != t->last_applied)
                return false;
        if (c->now < t->last_change_usec || c->now - t->last_change_usec > c->cfg->rollback_window_usec)
                return false;
        if (now_full < t->psi_full_at_change_permyriad + rise)
                return false;
        /* direct compaction stalls now or within the avg10 window before
         * now: the full pressure is theirs (a direct compaction is a memory
         * stall, and avg10 holds it for 10 s after the burst that made it
         * is over), not that of a raise made for them, nor of a
         * proactiveness raise for any reason (kcompactd's proactive rounds
         * are no task's memory stall and take direct compaction away; the
         * sentinel's first raise in a burst under defrag=madvise is for
         * the learned reserve while the burst's own faults compact). Nor
         * while the full pressure is within rise of what the stalls left
         * in avg10, which decays by e every 10 s (state.c
         * policy_stall_pressure_at()): 10 s after a burst of 102 stalls/s
         * the 6.12-era rule rolled proactiveness 60 -> 40 on 2.37 % full,
         * the burst's own 4.31 % decayed, and the stalls came back. The
         * reclaim levers can cause the stalls they are blamed for: still
         * rolled back. */
        if ((t->last_reason == POLICY_REASON_COMPACT_STALLS || l == LEVER_COMPACTION_PROACTIVENESS) &&
            (stalls_in_avg10(c) || now_full < policy_stall_pressure_at(c->s, c->now) + rise))
                return false;
        *num = policy_numbers_blank(-1);
        num->psi_before_permyriad = t->psi_full_at_change_permyriad;
        num->psi_full_permyriad = now_full;
        num->psi_some_permyriad = c->d->eval.psi_some_permyriad;
        num->met_usec = c->now - t->last_change_usec;
        return true;
}

/* A reserve below the THP order (the page cache's) is judged by the free
 * blocks at its own order: one evaluation in which compaction scanned and
 * they did not grow is enough. The kernel's proactive compaction works to
 * the THP-order score; where no THP-order block can form (a pinned page in
 * every few hundred KiB) it is never satisfied, and its free scanner takes
 * the smaller blocks as migration targets (docs/policy.md "Page-cache
 * reserve at its own order"). */
static unsigned backoff_after(const Ctx *c, const LeverTrack *t)
{
        if (t->ep_lost && t->ep_objective == POLICY_OBJ_RESERVE && t->ep_order < c->d->eval.order[K_THP])
                return MIN(c->cfg->backoff_decisions, 1u);
        return c->cfg->backoff_decisions;
}

static bool backoff_due(Ctx *c, Lever l, PolicyNumbers *num)
{
        const LeverTrack *t = &c->s->lever[l];

        if (!t->episode || c->cfg->backoff_decisions == 0 || t->ep_no_gain < backoff_after(c, t))
                return false;
        *num = policy_numbers_blank(t->ep_objective == POLICY_OBJ_RESERVE || t->ep_objective == POLICY_OBJ_FREE
                                     ? t->ep_node
                                     : -1);
        num->order = t->ep_order;
        num->objective = t->ep_objective;
        num->evaluations = t->ep_no_gain;
        num->scanned_pages = t->ep_scanned_pages;
        num->gained_bytes = t->ep_gained_bytes;
        num->scan_per_block = t->ep_scan_per_block;
        num->scan_per_block_limit = c->d->eval.scan_per_block_limit;
        return true;
}

/* Caps a raise by back-off holds and outside clamps; false when nothing is left. */
/* Memory pressure over the ceiling that is the stalls a proactiveness
 * raise answers: it does not hold that raise. Fragmentation is never
 * bought with memory pressure, but here the pressure is the fragmentation:
 * a direct compaction is a memory stall of the task that allocates, and
 * the raise moves that work to kcompactd, whose proactive rounds are no
 * task's stall. Only direct compaction stalls over their limit, within
 * avg10, and not outnumbered by direct reclaim (short of free memory,
 * which compaction does not fix); a watched workload over its budget
 * counts only when compaction is the larger part of its stall
 * (evaluate.c workload_counts()). Held so, proactiveness stayed at 40
 * through 40 s of 5-17 stalls/s in a 45 s run of the postgres-7.3 bench
 * (stock kernel) and 20 s of it in another. */
static bool pressure_is_the_stalls(const Ctx *c, Lever l, const Want *w)
{
        const Rates *r = &c->a->rates;

        if (l != LEVER_COMPACTION_PROACTIVENESS || w->err <= 0 || !stalls_in_avg10(c))
                return false;
        if (w->reason == POLICY_REASON_WORKLOAD_STALLS)
                return true;
        return w->reason == POLICY_REASON_COMPACT_STALLS && r->valid && r->compact_stall > 0.0 &&
               r->allocstall <= r->compact_stall;
}

static bool raise_allowed(Ctx *c, Lever l, int64_t *wanted, const Want *w)
{
        const LeverTrack *t = &c->s->lever[l];
        int64_t cur = c->in[l].current;

        if (t->hold_raise_until_usec > c->now) {
                add_held(c, l, *wanted, cur, w->reason, POLICY_HOLD_BACKOFF, &w->num);
                return false;
        }
        if (c->psi_high && !pressure_is_the_stalls(c, l, w)) {
                add_held(c, l, *wanted, cur, w->reason, POLICY_HOLD_PSI, &w->num);
                return false;
        }
        if (t->clamped && t->clamp_wanted > t->clamp_value && c->now >= t->clamp_usec &&
            c->now - t->clamp_usec < c->d->eval.hold_usec && *wanted > t->clamp_value) {
                if (t->clamp_value <= cur) {
                        add_held(c, l, *wanted, cur, w->reason, POLICY_HOLD_CLAMPED, &w->num);
                        return false;
                }
                *wanted = t->clamp_value;
        }
        return true;
}

/* Decay by the lever's own objectives: all met with the margin for
 * decay_after -> toward the baseline; for proactiveness, none missed for
 * decay_after with stalls and fallbacks met with the margin -> toward the
 * baseline but no lower than the floor the reserves' score needs
 * (*ret_floor; a reserve inside the band does not hold it at its top). */
static bool decay_due(Ctx *c, Lever l, PolicyNumbers *num, int64_t *ret_floor)
{
        const LeverTrack *t = &c->s->lever[l];
        const PolicyEval *e = &c->d->eval;
        usec_t after = c->cfg->decay_after_usec;

        *num = policy_numbers_blank(-1);
        *ret_floor = INT64_MIN;
        if (e->lever_met[l] && t->met && c->now >= t->met_since_usec && c->now - t->met_since_usec >= after) {
                num->met_usec = c->now - t->met_since_usec;
                /* a learned reserve met now is kept by kcompactd only
                 * while the score stays under its threshold: while the
                 * need lasts, proactiveness comes no lower than the level
                 * that keeps it (the next burst's first cycle draws on it);
                 * with the configured reserves alone it goes home */
                if (l == LEVER_COMPACTION_PROACTIVENESS && c->learned_any && e->proactiveness_floor >= 0) {
                        num->score_target = c->floor_score;
                        *ret_floor = e->proactiveness_floor;
                }
                return true;
        }
        if (l == LEVER_COMPACTION_PROACTIVENESS && e->lever_quiet[l] && c->rates_met && t->quiet &&
            e->proactiveness_floor >= 0 && c->now >= t->quiet_since_usec &&
            c->now - t->quiet_since_usec >= after) {
                num->met_usec = c->now - t->quiet_since_usec;
                num->score_target = c->floor_score;
                *ret_floor = e->proactiveness_floor;
                return true;
        }
        return false;
}

/* The lever's last move was a decay and nobody moved it since: the second
 * and last step, home. */
static bool decay_second(const Ctx *c, Lever l)
{
        const LeverTrack *t = &c->s->lever[l];

        return t->changed && t->touched && t->last_reason == POLICY_REASON_TARGETS_MET_DECAY &&
               c->in[l].current == t->last_applied;
}

static bool reclaim_lever(Lever l)
{
        return l == LEVER_WATERMARK_SCALE_FACTOR || l == LEVER_MIN_FREE_KBYTES;
}

static bool try_decay(Ctx *c, Lever l)
{
        const LeverConfig *lc = &c->cfg->lever[l];
        int64_t cur = c->in[l].current, goal = goal_of(c->cfg, l, &c->in[l]), wanted, floor;
        PolicyNumbers num;

        /* at the value found at start (even one outside the bounds): home */
        if (cur == goal || cur == c->in[l].baseline || !decay_due(c, l, &num, &floor))
                return false;
        num.baseline = goal;
        if (cur > goal && floor > goal)
                goal = floor; /* the score the reserves need */
        if (goal >= cur && floor != INT64_MIN)
                return false;
        wanted = goal;
        /* a learned need met (or nothing asking) past decay_after: the
         * burst is over, straight to the level its score needs (or home)
         * in one move; half way first kept proactiveness a dwell at up to
         * 62 where the churn kept kcompactd working to its threshold. The
         * reclaim levers answer free memory short only, and decay only
         * once it has not been for decay_after: straight home too (half
         * way first, watermark_scale_factor's second step came 103-119 s
         * after the phased bench's last burst, the bound being 90 s) */
        if (lc->step_down > 0 && !(c->learned_any && floor != INT64_MIN) && !reclaim_lever(l) &&
            !decay_second(c, l)) {
                /* half way (at least step_down), home on the next dwell */
                int64_t dist = cur > goal ? cur - goal : goal - cur;
                int64_t step = MAX(lc->step_down, dist / 2 + dist % 2);

                wanted = cur > goal ? MAX(goal, cur - step) : MIN(goal, cur + step);
        }
        return propose(c, l, wanted, POLICY_REASON_TARGETS_MET_DECAY, LEVER_MOVE_DECAY, &num);
}

/* Common first steps: rollback and back-off. True when the lever is decided. */
static bool corrective(Ctx *c, Lever l)
{
        int64_t cur = c->in[l].current, goal = goal_of(c->cfg, l, &c->in[l]);
        PolicyNumbers num;

        if (rollback_due(c, l, &num)) {
                propose(c, l, c->s->lever[l].before_change, POLICY_REASON_PSI_ROLLBACK,
                        LEVER_MOVE_IGNORE_TIMING | LEVER_MOVE_IGNORE_STEP, &num);
                return true;
        }
        if (backoff_due(c, l, &num)) {
                /* the raises bought nothing: all of them are given back
                 * (a step at a time, the lever cycled up again after each
                 * hold), and the hold grows with each back-off in a row */
                if (cur > goal)
                        propose(c, l, goal, POLICY_REASON_BACKOFF_INEFFECTIVE,
                                LEVER_MOVE_IGNORE_TIMING | LEVER_MOVE_IGNORE_STEP, &num);
                else
                        add_held(c, l, cur + 1, cur, POLICY_REASON_BACKOFF_INEFFECTIVE, POLICY_HOLD_BACKOFF,
                                 &num);
                return true;
        }
        return false;
}

/* The target grew past the one the last raise was sized for, and the level
 * it needs now (the want's aim) is above the lever: that raise cannot meet
 * it, by construction. A burst seen while it arrives (the sentinel ticks
 * within a second of its first faults) is learned in parts: 248 MiB at the
 * first tick, 512 MiB three seconds later. The error is relative to the
 * target, so it does not grow with it (190 MiB short of 248 is 77 %, 183
 * short of 475 is 38 %), and the dwell held proactiveness at the first
 * part's 28 through the whole run where 38-65 were wanted. Bounded: the
 * target must grow each time (demand_cap tops it); the move goes to the
 * aim with kicks on, else the step bounds it as any raise. */
static bool target_outgrew(const Ctx *c, Lever l, const Want *w)
{
        const LeverTrack *t = &c->s->lever[l];
        const PolicyEval *e = &c->d->eval;

        if (!(w->aim > c->in[l].current && t->last_target_bytes > 0))
                return false;
        /* the target the last raise answered, now: the same node's at the
         * same order, whichever objective is the strongest this tick (the
         * strongest may be another order's, whose target says nothing of
         * this one: a worse-fragmented host, where the order-4 target
         * leads, must not wait out a dwell the better one escalates) */
        for (unsigned i = 0; i < e->n_nodes; i++) {
                const PolicyNodeEval *ne = &e->nodes[i];

                if (t->last_target_node >= 0 && ne->node != t->last_target_node)
                        continue;
                for (unsigned k = 0; k < 2; k++)
                        if (e->order[k] == t->last_target_order && ne->target_bytes[k] > t->last_target_bytes)
                                return true;
        }
        return false;
}

/* A raise inside the dwell after a raise is allowed when the error is real
 * now (a target missed or a rate over its limit, err >= ERR_PRED) and at
 * least twice the error the last raise answered: that raise was sized for a
 * prediction or a smaller miss. The dwell is there to let a move show its
 * effect before the next; it should not make a burst that outgrew the last
 * move wait (a 20->22 raise on a trend, then 42 % of THP faults falling back
 * 4 s later, held 26 s more). Also when the last raise answered a real
 * error and the error has grown since: the raise did not help (6.12: 20->32
 * on 13.7 % fallback, then 32 % fell back and the dwell held through two
 * more bursts). Bounded: the error must grow each time and tops out at
 * ERR_MAX. And when the target outgrew the last raise (target_outgrew()). */
static unsigned escalation(const Ctx *c, Lever l, const Want *w)
{
        const LeverTrack *t = &c->s->lever[l];

        if (!(t->changed && t->touched && t->last_dir > 0 && t->last_reason != POLICY_REASON_PSI_ROLLBACK &&
              c->in[l].current == t->last_applied && w->err >= ERR_PRED))
                return 0;
        if (w->err >= 2 * MAX(t->last_err, 1) || (t->last_err >= ERR_PRED && w->err > t->last_err))
                return LEVER_MOVE_ESCALATE;
        return target_outgrew(c, l, w) ? LEVER_MOVE_ESCALATE | LEVER_MOVE_ESCALATE_TARGET : 0;
}

/* Direct compaction stalls or THP fallbacks over their limits with the
 * lever's last move a lowering to the aim (lower_to_aim()): that lowering
 * answered free memory at one instant (a consumer giving its memory
 * back), the harm measured since says the lower threshold does not keep
 * up. The raise (for that harm or for the reserve it shows short) is held
 * neither by the dwell nor by the reversal cooldown; the reversal limit
 * still bounds the back and forth. Without it the 7.3 churn guest under
 * defrag=never kept 29 through three bursts that fell back, the raise
 * held by the 30 s dwell. */
static unsigned refutes_aim(const Ctx *c, Lever l)
{
        const LeverTrack *t = &c->s->lever[l];

        if (t->changed && t->touched && t->last_dir < 0 && t->last_reason == POLICY_REASON_AIM_FELL &&
            c->in[l].current == t->last_applied && (c->stall.err > 0 || c->fallback.err > 0))
                return LEVER_MOVE_REFUTE_AIM;
        return 0;
}

static void decide_raise(Ctx *c, Lever l, const Want *w, int64_t aim)
{
        int64_t cur = c->in[l].current;
        int64_t wanted = raise_wanted(&c->cfg->lever[l], cur, w->err, aim);

        c->d->eval.want_raise[l] = true;
        if (!raise_allowed(c, l, &wanted, w))
                return;
        propose_err(c, l, wanted, w->reason, escalation(c, l, w) | refutes_aim(c, l), w->err, &w->num);
}

static bool saturated(const Ctx *c, Lever l)
{
        if (!c->cfg->lever[l].enabled || !c->in[l].available)
                return true;
        if (c->value[l] > c->in[l].current)
                return false; /* still climbing */
        if (c->in[l].current >= c->cfg->lever[l].max)
                return true;
        return c->hold[l] == POLICY_HOLD_AT_BOUND || c->hold[l] == POLICY_HOLD_SAFETY ||
               c->hold[l] == POLICY_HOLD_WATERMARK_CAP ||
               c->hold[l] == POLICY_HOLD_CLAMPED || c->hold[l] == POLICY_HOLD_BACKOFF;
}

static const Want *strongest(const Want *a, const Want *b)
{
        return b->err > a->err ? b : a;
}

/* Between bursts the learned reserve stands at the proactiveness its score
 * needs: up to that aim in one move (still at most step_up per dwell),
 * never past it by the integral, no kick (decide_kick() sees only the
 * other wants), and the raise does not open a back-off episode nor keep
 * one open (want_raise stays false): what it costs is kcompactd's own
 * rounds while the score is over the threshold, which the kernel defers
 * by itself after a round without progress. Above the aim the lever
 * decays to the floor as when quiet (the floor is the same score). */
static bool standing_raise(Ctx *c, Lever l)
{
        const Want *w = &c->standing;
        int64_t wanted = w->aim;

        if (w->err <= 0 || wanted <= c->in[l].current)
                return false;
        if (!raise_allowed(c, l, &wanted, w))
                return true;
        propose_err(c, l, wanted, w->reason, 0, w->err, &w->num);
        return true;
}

/* Kicks on: decide_kick() may write the present value (its conditions
 * that do not depend on this tick's raise or hold). */
static bool kicks_on(const Ctx *c, Lever l)
{
        const PolicyConfig *cfg = c->cfg;
        int64_t cur = c->in[l].current;

        return cfg->kick_interval_usec > 0 && cfg->lever[l].enabled && c->in[l].available && cur > 0 &&
               cur >= cfg->lever[l].min && cur <= cfg->lever[l].max;
}

/* A reserve below its target with kicks on: proactiveness goes up to the
 * aim (the level whose score leaves the target in THP-order blocks) and no
 * further for it; at or past the aim the kicks make kcompactd work to that
 * threshold every kick_interval (docs/policy.md "Kicks and the aim"). Past
 * the aim kcompactd built 1.1-1.3 GiB of order-9 blocks for a 512 MiB cycle
 * in the phased bench. Stalls and fallbacks over their limits still raise
 * past it (the reserve met, faults falling back ask for more than the
 * target); the larger of the two raises is taken, so that a worse reserve
 * never asks for less. Without kicks, or without an aim, the integral goes
 * on as for any want. An order_large reserve has an aim too (evaluate.c
 * reserve_aim()). */
static void decide_proactiveness_raise(Ctx *c, Lever l)
{
        const Want *rate = strongest(&c->stall, &c->fallback), *w = strongest(&c->frag, rate);
        int64_t aim = c->frag.err > 0 ? c->frag.aim : -1;
        int64_t cur = c->in[l].current, wanted = cur;
        bool kicking = kicks_on(c, l);
        /* faults falling back while kicking: the fallback raise stops at
         * the aim the targets have (met or not: evaluate.c target_aim()),
         * the kicks serve the rest; stalls still raise past it */
        bool cap_fallback = kicking && c->fallback.err > 0 && c->fallback.aim >= 0;

        /* the learned reserve standing between bursts asks for its level
         * whatever else raises (a raise for another want must not stop
         * below what standing_raise() would give) */
        if (c->standing.err > 0)
                aim = MAX(aim, c->standing.aim);
        if (!cap_fallback && (aim < 0 || c->frag.err <= 0 || !kicking)) {
                decide_raise(c, l, w, aim);
                return;
        }
        c->d->eval.want_raise[l] = true;
        w = NULL;
        if (c->frag.err > 0) {
                int64_t f = raise_wanted(&c->cfg->lever[l], cur, c->frag.err, aim);

                if (aim >= 0 && kicking)
                        f = MIN(f, MAX(aim, cur));
                if (f > wanted) {
                        wanted = f;
                        w = &c->frag;
                }
        }
        if (c->stall.err > 0) {
                int64_t r = raise_wanted(&c->cfg->lever[l], cur, c->stall.err, aim);

                if (r > wanted) {
                        wanted = r;
                        w = &c->stall;
                }
        }
        if (c->fallback.err > 0) {
                int64_t r = raise_wanted(&c->cfg->lever[l], cur, c->fallback.err, aim);

                if (cap_fallback)
                        r = MIN(r, MAX(MAX(aim, c->fallback.aim), cur));
                if (r > wanted) {
                        wanted = r;
                        w = &c->fallback;
                }
        }
        if (!w)
                return; /* at the aim: the kick serves */
        if (!raise_allowed(c, l, &wanted, w))
                return;
        /* inside the dwell when either want escalates: the one that did not
         * set the value must not hold back the one that may move now */
        propose_err(c, l, wanted, w->reason,
                    (escalation(c, l, &c->frag) ?: (rate->err > 0 ? escalation(c, l, rate) : 0)) |
                            refutes_aim(c, l),
                    w->err, &w->num);
}

/* Kicks on and the lever above the aim the targets have now (free memory
 * grew, the score they need fell): down to that aim in one move, without
 * waiting for decay_after nor the dwell (the reversal rules hold it: a
 * burst's free memory goes down and up within seconds; the cooldown does
 * not when the raise it undoes was made in a dip of free memory,
 * free_in_dip()). Raises stop at the
 * aim while kicking, so only a fall of the aim leaves the lever above it;
 * kcompactd, kicked or not, works to the lever's threshold, and at a
 * burst's 60-70 it built 0.9-1.3 GiB of order-9 blocks for a 475 MiB
 * target once the consumer gave its memory back (the phased and churn
 * benches). Not while free memory is short or falling short (the mem
 * want: the burst is taking memory, the part's aim is not a settled one), not with
 * stalls over their limit, and only for a value fragd set for the reserves
 * or fallbacks: one stalls raised past the aim decays as before, one found
 * or set by someone else is theirs. Never under the kernel's value. */
static bool lower_to_aim(Ctx *c, Lever l)
{
        const LeverTrack *t = &c->s->lever[l];
        int64_t cur = c->in[l].current, aim = MAX(c->aim.aim, goal_of(c->cfg, l, &c->in[l]));
        PolicyNumbers num = c->aim.num;

        if (!kicks_on(c, l) || c->aim.aim < 0 || cur <= aim || c->mem.err > 0 || c->mem.held_err > 0 ||
            c->stall.err > 0)
                return false;
        /* a burst going on (a THP fault within the burst window) with its
         * learned need past the hold: the aim fell because the need
         * decays, not because free memory grew, and the next cycle is
         * expected; following it down to 20 between two cycles of the
         * phased bench's second burst (demand_hold 30 s there) lost 61
         * huge pages. Between bursts (learned_standing) it follows. */
        if (c->learned_any && c->d->eval.learned_need_bytes < c->d->eval.learned_peak_bytes &&
            !c->d->eval.learned_standing)
                return false;
        if (!t->touched || !t->changed || t->clamped || cur != t->last_applied ||
            t->last_reason == POLICY_REASON_COMPACT_STALLS ||
            t->last_reason == POLICY_REASON_WORKLOAD_STALLS || t->last_reason == POLICY_REASON_PSI_ROLLBACK)
                return false;
        num.baseline = goal_of(c->cfg, l, &c->in[l]);
        propose(c, l, aim, POLICY_REASON_AIM_FELL, LEVER_MOVE_AIM, &num);
        return true;
}

static void decide_proactiveness(Ctx *c)
{
        Lever l = LEVER_COMPACTION_PROACTIVENESS;
        const Want *w = strongest(strongest(&c->frag, &c->stall), &c->fallback);

        if (corrective(c, l))
                return;
        if (lower_to_aim(c, l))
                return;
        if (w->err > 0) {
                decide_proactiveness_raise(c, l);
                return;
        }
        if (standing_raise(c, l))
                return;
        try_decay(c, l);
}

/* watermark_scale_factor and min_free_kbytes: envelope first, pressure next. */
static void decide_reserve_lever(Ctx *c, Lever l)
{
        const LeverConfig *lc = &c->cfg->lever[l];
        int64_t cur = c->in[l].current, goal = goal_of(c->cfg, l, &c->in[l]);
        int64_t other = l == LEVER_WATERMARK_SCALE_FACTOR ? min_free_of(c->a, c->in)
                                                          : c->value[LEVER_WATERMARK_SCALE_FACTOR];
        PolicyNumbers num = policy_numbers_blank(-1);

        if (l == LEVER_MIN_FREE_KBYTES && !c->in[LEVER_WATERMARK_SCALE_FACTOR].available)
                other = wsf_of(c->in);

        if (corrective(c, l))
                return;

        /* safety envelope: the present value already too high */
        if (cur > goal && !env_ok(c->cfg, c->a, l, cur, other, &num)) {
                int64_t safe = env_max(c->cfg, c->a, l, other, goal, cur);

                if (safe < cur) {
                        propose(c, l, safe, POLICY_REASON_SAFETY_ENVELOPE,
                                LEVER_MOVE_IGNORE_TIMING | LEVER_MOVE_IGNORE_STEP, &num);
                        return;
                }
        }

        /* pressure: reserves yield to it */
        if (c->psi_high && cur > goal) {
                num = psi_numbers(c);
                propose(c, l, lc->step_down > 0 ? MAX(goal, cur - lc->step_down) : goal,
                        POLICY_REASON_PSI_CEILING, LEVER_MOVE_IGNORE_TIMING, &num);
                return;
        }

        if (c->mem.err > 0 &&
            (l == LEVER_WATERMARK_SCALE_FACTOR || saturated(c, LEVER_WATERMARK_SCALE_FACTOR))) {
                /* a factor that moves no watermark is no raise: the raise
                 * (its step, and the step_up cap) counts from the last
                 * value that leaves them where they are; the aim is a
                 * factor in the kernel's own terms and stays */
                int64_t dead = l == LEVER_WATERMARK_SCALE_FACTOR ? wsf_dead_until(c->a, other, cur, lc->max) : cur;
                int64_t wanted = raise_wanted(lc, dead, c->mem.err,
                                              l == LEVER_WATERMARK_SCALE_FACTOR ? c->mem.aim : -1);
                int64_t capped, safe;
                unsigned flags = 0;

                c->d->eval.want_raise[l] = true;
                if (!raise_allowed(c, l, &wanted, &c->mem))
                        return;
                if (dead > cur) {
                        if (lc->step_up > 0)
                                wanted = MIN(wanted, dead + lc->step_up);
                        flags |= LEVER_MOVE_IGNORE_STEP;
                }
                /* at its bound the rules say so (at_bound); the envelope
                 * caps only what the bounds allow */
                capped = CLAMP(wanted, lc->min, lc->max);
                if (capped > cur) {
                        safe = env_max(c->cfg, c->a, l, other, cur, capped);
                        /* the envelope allows nothing past the dead values */
                        if (safe <= MAX(cur, dead)) {
                                num = c->mem.num;
                                (void) env_ok(c->cfg, c->a, l, capped, other, &num);
                                add_held(c, l, wanted, cur, c->mem.reason, POLICY_HOLD_SAFETY, &num);
                                return;
                        }
                        if (safe < capped) {
                                c->hold[l] = POLICY_HOLD_SAFETY;
                                wanted = safe;
                        }
                }
                if (wanted > cur && c->cfg->watermark_cap_permyriad < 10000 && !free_itself_short(&c->d->eval)) {
                        const LeverProbe p = { .cfg = c->cfg, .a = c->a, .e = &c->d->eval, .l = l,
                                               .other = other, .ok = probe_cap_ok };
                        int64_t cap = largest_ok(&p, cur, MIN(wanted, capped));

                        if (cap < MIN(wanted, capped)) {
                                const NodeMeasures *n = assessment_node(c->a, c->mem.num.node);

                                num = c->mem.num;
                                num.headroom_bytes = watermark_cap_bytes(c->cfg, c->a, n ? n : &c->a->nodes[0]);
                                add_held(c, l, wanted, cap, c->mem.reason, POLICY_HOLD_WATERMARK_CAP, &num);
                                if (cap <= MAX(cur, dead))
                                        return;
                                wanted = cap;
                        }
                }
                propose(c, l, wanted, c->mem.reason, flags, &c->mem.num);
                return;
        }
        /* free memory short with nothing for kswapd to reclaim: no raise,
         * and no decay while it lasts (a lever raised when there was page
         * cache stays until free memory is no longer short) */
        if (c->mem.held_err > 0) {
                if (l == LEVER_WATERMARK_SCALE_FACTOR || saturated(c, LEVER_WATERMARK_SCALE_FACTOR))
                        add_held(c, l, cur, cur, c->mem.held_reason, POLICY_HOLD_NOTHING_TO_RECLAIM,
                                 &c->mem.held_num);
                return;
        }
        if (c->mem.err == 0)
                try_decay(c, l);
}

static void decide_boost(Ctx *c)
{
        Lever l = LEVER_WATERMARK_BOOST_FACTOR;
        const LeverConfig *lc = &c->cfg->lever[l];
        int64_t cur = c->in[l].current, goal = goal_of(c->cfg, l, &c->in[l]);

        if (corrective(c, l))
                return;
        if (c->psi_high && cur > goal) {
                PolicyNumbers num = psi_numbers(c);

                propose(c, l, lc->step_down > 0 ? MAX(goal, cur - lc->step_down) : goal,
                        POLICY_REASON_PSI_CEILING, LEVER_MOVE_IGNORE_TIMING, &num);
                return;
        }
        /* an escalation: boosting costs reclaim, so only when the compaction
         * lever can do no more */
        if (c->frag.err > 0 && saturated(c, LEVER_COMPACTION_PROACTIVENESS)) {
                decide_raise(c, l, &c->frag, -1);
                return;
        }
        if (c->frag.err == 0)
                try_decay(c, l);
}

static void decide_thp_defrag(Ctx *c)
{
        Lever l = LEVER_THP_DEFRAG;
        int64_t cur = c->in[l].current;
        uint32_t band = MIN(c->cfg->hysteresis_permyriad, 10000u);

        if (corrective(c, l))
                return;
        if (c->stall.err > 0) {
                /* less direct compaction: one mode toward "defer" */
                propose(c, l, cur - 1, c->stall.reason, 0, &c->stall.num);
                return;
        }
        if (c->fallback.err > 0 &&
            policy_under_with_band(c->d->eval.stall_milli, policy_rate_milli(c->cfg->max_compact_stall_rate),
                                   band) &&
            policy_under_with_band(c->d->eval.workload_stall_permyriad, 10000, band) &&
            saturated(c, LEVER_COMPACTION_PROACTIVENESS)) {
                decide_raise(c, l, &c->fallback, -1);
                return;
        }
        if (c->stall.err == 0 && c->fallback.err == 0)
                try_decay(c, l);
}

/* vm.defrag_mode: its own want (policy/defrag-mode.c) through the
 * movement rules */
static void decide_defrag_mode(Ctx *c)
{
        Lever l = LEVER_DEFRAG_MODE;
        DefragModeWant w;

        /* stalls within the cost window: this host's allocations compact
         * directly, in bursts (a stock kernel's page cache at each WAL
         * switch); 10 s after one burst, turned on, the next stalled more */
        bool stalling = c->stall.err > 0 || stalls_within(c, POLICY_DM_WINDOW_USEC);

        policy_defrag_mode_want(&c->s->dm, &c->d->eval, &c->in[l], c->psi_high, stalling, c->now, &w);
        if (w.hold != POLICY_HOLD_NONE)
                add_held(c, l, w.wanted, c->in[l].current, w.reason, w.hold, &w.num);
        else if (w.to != c->in[l].current)
                propose(c, l, w.to, w.reason, w.flags, &w.num);
}

static void oneshot_item(Ctx *c, const PolicyNodeEval *ne, unsigned k, uint64_t t, uint32_t below)
{
        PolicyNumbers num = policy_numbers_blank(ne->node);
        const PolicyEval *e = &c->d->eval;
        DecisionItem *it;

        num.order = e->order[k];
        num.have_bytes = ne->have_bytes[k];
        num.target_bytes = t;
        num.free_bytes = ne->free_bytes;
        num.limit_permyriad = below;
        num.psi_some_permyriad = e->psi_some_permyriad;
        num.psi_full_permyriad = e->psi_full_permyriad;
        num.score = ne->score;
        it = &c->d->items[c->d->n_items++];
        it->kind = DECISION_COMPACT_NODE;
        it->lever = _LEVER_MAX;
        it->node = ne->node;
        it->reason = POLICY_REASON_ONESHOT_COMPACT;
        it->num = num;
}

/* reserve k of node ne at have < below (permyriad) of target t, with free
 * memory to build it from */
static bool oneshot_below(const PolicyNodeEval *ne, unsigned k, uint64_t t, uint32_t below)
{
        if (t == 0 || ne->free_bytes < policy_free_needed_bytes(ne, t))
                return false;
        return (unsigned __int128) ne->have_bytes[k] * 10000 < (unsigned __int128) t * below;
}

/* Large-folio bytes the page cache added (PolicyEval.pagecache_demand_bytes
 * and PolicyHistory.pagecache_bytes) this tick and in the history samples
 * taken after `since` (usec; none newer than now). */
static uint64_t pagecache_added_since(const Ctx *c, usec_t since)
{
        const PolicyHistory *h = &c->s->hist;
        uint64_t sum = c->d->eval.pagecache_demand_bytes;

        for (unsigned j = h->n; j > 0; j--) {
                unsigned r = (h->head + j - 1) % POLICY_HISTORY_MAX;

                if (h->t_usec[r] > c->now || h->t_usec[r] <= since)
                        break;
                sum = sum > UINT64_MAX / 4 - h->pagecache_bytes[r] ? UINT64_MAX / 4 : sum + h->pagecache_bytes[r];
        }
        return sum;
}

/* Free memory (with BLOCKS also the free blocks at order_large) fell by
 * more than a sixteenth of what is free now within WINDOW: some sample of
 * the history that recent is above now by that much, beyond what the page
 * cache added in large folios in that window. free_falling() and
 * free_in_dip(). */
static bool fell_within(const Ctx *c, const PolicyNodeEval *ne, usec_t window, bool blocks)
{
        const PolicyHistory *h = &c->s->hist;
        int hi = policy_hist_node_index(h, ne->node);
        uint64_t ps = c->a->page_size, lim = ne->free_bytes / 16, prev = 0, prev_have = 0, pc, fall, fall_have;

        if (hi < 0)
                return false;
        for (unsigned j = h->n; j > 0; j--) {
                unsigned r = (h->head + j - 1) % POLICY_HISTORY_MAX;

                if (h->t_usec[r] > c->now || c->now - h->t_usec[r] > window)
                        break;
                prev = MAX(prev, h->free_pages[r][hi] * ps);
                prev_have = MAX(prev_have, h->ge_pages[K_LARGE][r][hi] * ps);
        }
        pc = pagecache_added_since(c, c->now > window ? c->now - window - 1 : 0);
        fall = prev > ne->free_bytes ? prev - ne->free_bytes : 0;
        fall_have = prev_have > ne->have_bytes[K_LARGE] ? prev_have - ne->have_bytes[K_LARGE] : 0;
        return (fall > pc && fall - pc > lim) || (blocks && fall_have > pc && fall_have - pc > lim);
}

/* Free memory, or the free blocks at the page cache's order, fell by more
 * than a sixteenth of what is free now within the last
 * POLICY_SETTLED_USEC (any sample of the history that recent above now by
 * that much), beyond what the page cache added in large folios in that
 * window: a fill or a burst (page cache in small folios, or large anon
 * faults, which the page-cache signal does not see) is under way. A
 * window, not the last tick: ticks come every second after faults or
 * stalls, and a fill at 25 MiB a second falls less than a sixteenth in
 * one. Not the trend: its two-minute fit still falls a minute after a
 * fill stopped. The large folios are left out: a WAL burst is the demand
 * the reserve is rebuilt for, and it takes free memory and the blocks
 * at once (64 MiB a segment in the postgres scenario, a third of what
 * was free): counted, the rebuild would wait 10 s after every burst, and
 * at a burst every few seconds would never come. */
static bool free_falling(const Ctx *c, const PolicyNodeEval *ne)
{
        return fell_within(c, ne, POLICY_SETTLED_USEC, true);
}

/* Free memory in a dip: on the node, under the most it had within
 * trend_window by more than a sixteenth of what is free now, beyond what
 * the page cache added in large folios in that window (as free_falling(),
 * over the trend's window and without the blocks). A raise made then
 * answers a low that may pass: in the churn bench the fragmenter's wave
 * took free memory from 1.5 GiB to 590-606 MiB, the fragmentation want
 * raised proactiveness 35 -> 55 -> 75 -> 80, and free memory was back at
 * 0.95-1.7 GiB within seconds (the churn bench). A lowering to the aim
 * that undoes such a raise is not held by the reversal cooldown
 * (lever_rules_apply()). */
/* THP faults never compact directly: defrag never or defer (or no THP).
 * The mode is the lever's when fragd moves it, else the one the kernel
 * has (Assessment.thp_defrag): the lever is off by default, and read
 * from it alone every host looked like defrag=never, so the dip rule
 * lowered proactiveness under madvise too (6.12 churn, defrag=madvise in
 * CI: 79 direct compactions after the first burst, the raise lowered to
 * the aim and the stall raise then held by the dwell). */
static bool faults_never_compact(const LeverInput *in, const Assessment *a)
{
        int m = in[LEVER_THP_DEFRAG].available ? (int) in[LEVER_THP_DEFRAG].current : a->thp_defrag;

        return m < 0 || m == THP_DEFRAG_NEVER || m == THP_DEFRAG_DEFER;
}

static bool free_in_dip(const Ctx *c, const PolicyNodeEval *ne)
{
        return fell_within(c, ne, c->cfg->trend_window_usec, false);
}

/* The page cache's reserve (the order its folios use, below the THP
 * order) below its target: a whole-node compaction builds blocks of every
 * order from what is movable, where proactive compaction, driven by the
 * THP-order score, may never be satisfied (docs/policy.md "Page-cache
 * reserve at its own order"). Short is enough (not oneshot_below): one
 * node compaction scanned 162 k pages for +13 MiB of order>=6 blocks in
 * the postgres VM scenario, where proactiveness 60-80 scanned 4-10 M and
 * lost them. Also while kicks are on and while proactiveness is held
 * after a back-off (the one-shot is the lever left then). What holds it
 * back: pagecache_oneshot_gate(). */
static bool pagecache_short(const Ctx *c, const PolicyNodeEval *ne)
{
        const PolicyEval *e = &c->d->eval;

        if (e->pagecache_order == 0 || e->order[K_LARGE] >= e->order[K_THP])
                return false;
        return oneshot_below(ne, K_LARGE, ne->target_bytes[K_LARGE], 10000);
}

/* The most free in order>=N blocks of the history samples after the last
 * one-shot at LAST (the ring's oldest when it does not reach back; a
 * sample at the one-shot's time is what it started from, not what it
 * built) */
static uint64_t pagecache_have_since(const Ctx *c, int hi, usec_t last)
{
        const PolicyHistory *h = &c->s->hist;
        uint64_t prev_have = 0;

        for (unsigned j = h->n; j > 0; j--) {
                unsigned r = (h->head + j - 1) % POLICY_HISTORY_MAX;

                if (h->t_usec[r] > c->now || h->t_usec[r] <= last)
                        break;
                prev_have = MAX(prev_have, h->ge_pages[K_LARGE][r][hi] * c->a->page_size);
        }
        return prev_have;
}

/* Within the rebuild window: the page cache's own burst emptied what the
 * last one-shot built. What is left is under half the target (it covers
 * less than half the next burst), at least half of the most the blocks
 * held since the one-shot was taken, and the page cache's large folios
 * added since explain at least half of what was taken (the demand the
 * reserve is for, not a fill, which free_falling() holds anyway). The
 * postgres scenario: a one-shot built 49 MiB 1 s
 * before a WAL switch, the burst took the blocks to 12 MiB, the window
 * held the rebuild 9 s, and the next segment's first writes stalled 4
 * times. The rebuild after each burst is what the interval allows anyway
 * (pagecache_oneshot_due(): half the target added); the window only kept
 * it from coming while the next segment's writes began. At most one per
 * burst: a one-shot needs a burst's emptying between it and the last. */
static bool pagecache_emptied(const Ctx *c, const PolicyNodeEval *ne, int hi, usec_t last)
{
        uint64_t prev_have = pagecache_have_since(c, hi, last), have = ne->have_bytes[K_LARGE];
        uint64_t taken = prev_have > have ? prev_have - have : 0;

        return (unsigned __int128) have * 2 < ne->target_bytes[K_LARGE] && taken > 0 &&
               (unsigned __int128) taken * 2 >= prev_have &&
               (unsigned __int128) pagecache_added_since(c, last) * 2 >= taken;
}

/* The page-cache one-shot's interval follows the demand: due again once
 * the page cache has added at least half the node's reserve target in
 * large folios since the last one-shot (the demand has emptied that much
 * of what was built: a rebuild after each WAL segment), but never within
 * POLICY_PAGECACHE_REBUILD_USEC of it unless the page cache's burst
 * emptied what it built (the gate judges that window: pagecache_emptied());
 * else after oneshot_min_interval as
 * the THP one-shot. Also due once the blocks at the reserve's order were
 * taken by anyone since the last one-shot (large anon faults, which the
 * page-cache signal does not see: in the postgres scenario an mTHP eater
 * took them from 89 to 17-44 MiB after the one-shot, and pgbench then
 * ran with the reserve short, 78 direct compactions): the largest
 * order>=N free of the history samples after it (the ring's oldest when
 * it does not reach back) minus what is free now is at least half the
 * target, or a sixteenth of it when what is left is under half the
 * target (it covers less than half the next burst: in the postgres
 * scenario 63 MiB built for a 74 MiB target, 34 MiB taken, pgbench's first WAL
 * segment met 26 MiB 2 min later). The cost rule: a whole-node compaction scans about the node's
 * movable memory once (162-270 k pages in the postgres scenario's 2 GiB
 * guest), so it comes at most once per half a reserve of demand or of
 * blocks taken, at most one per 10 s or per burst that emptied it. */
static bool pagecache_oneshot_due(const Ctx *c, const PolicyNodeEval *ne, int hi, usec_t last)
{
        uint64_t added, prev_have, taken;

        /* within POLICY_PAGECACHE_REBUILD_USEC: pagecache_oneshot_gate() */
        if (c->now - last >= c->cfg->oneshot_min_interval_usec)
                return true;
        added = pagecache_added_since(c, last);
        if ((unsigned __int128) added * 2 >= ne->target_bytes[K_LARGE])
                return true;
        prev_have = pagecache_have_since(c, hi, last);
        taken = prev_have > ne->have_bytes[K_LARGE] ? prev_have - ne->have_bytes[K_LARGE] : 0;
        if ((unsigned __int128) taken * 2 >= ne->target_bytes[K_LARGE])
                return true;
        /* what is left covers less than half the next burst (the target is
         * the burst it was sized from): a sixteenth taken is enough */
        return (unsigned __int128) ne->have_bytes[K_LARGE] * 2 < ne->target_bytes[K_LARGE] &&
               (unsigned __int128) taken * 16 >= ne->target_bytes[K_LARGE];
}

/* Memory pressure that the missing page-cache reserve itself causes
 * (docs/policy.md "Page-cache reserve at its own order"): compaction
 * stalls or kswapd scanning within the avg10's span (this tick or the
 * state's last) and free memory on the node at or above its high
 * watermark (at the present watermark values) now and in every history
 * sample of that span. Memory PSI counts direct compaction, direct
 * reclaim, kswapd and reactive kcompactd; a costly-order page-cache
 * allocation that fails its fast path wakes kswapd at its order,
 * compacts, then does one round of direct reclaim and compacts again, at
 * any free memory (the postgres scenario: pgscan_direct rose with
 * 250-345 MiB free against a 99 MiB high watermark, and PSI full was
 * 3.6 % after a WAL burst with no stall, kswapd woken at order 6).
 * Order-0 allocations reclaim only under the min watermark and wake
 * kswapd under low, and
 * kswapd is balanced for order 0 above high: above high all along,
 * whatever reclaim ran was for the high-order allocations, not thrash. */
static bool pagecache_own_pressure(const Ctx *c, const PolicyNodeEval *ne, int hi)
{
        const PolicyHistory *h = &c->s->hist;
        const Rates *r = &c->a->rates;
        usec_t last = c->s->last_highorder_work_usec;
        uint64_t high = ne->kernel_high_bytes > UINT64_MAX / 2 - ne->watermark_held_bytes
                                ? UINT64_MAX / 2
                                : ne->kernel_high_bytes + ne->watermark_held_bytes;
        bool stalls = (r->valid && (r->compact_stall > 0.0 || r->pgscan_kswapd > 0.0)) ||
                      (last > 0 && c->now >= last && c->now - last < POLICY_PSI_AVG10_SPAN_USEC);

        if (!stalls || ne->free_bytes < high)
                return false;
        for (unsigned j = h->n; hi >= 0 && j > 0; j--) {
                unsigned k = (h->head + j - 1) % POLICY_HISTORY_MAX;

                if (h->t_usec[k] > c->now || c->now - h->t_usec[k] >= POLICY_PSI_AVG10_SPAN_USEC)
                        break;
                if (h->free_pages[k][hi] * c->a->page_size < high)
                        return false;
        }
        return true;
}

/* What holds the page-cache one-shot of a node whose reserve is short
 * (POLICY_GATE_NONE: nothing), in this order: pressure over the ceiling
 * or PSI some over calm_psi_some (compaction competes with reclaim),
 * unless the pressure is the reserve's own (pagecache_own_pressure()); a
 * page-cache burst at its order this tick (the tick's bytes at orders >=
 * it; small large folios of data files come every tick under a busy
 * database); free memory falling fast (free_falling()); a THP one-shot
 * wanted on the node within oneshot_min_interval (thp_held); the
 * interval of pagecache_oneshot_due(). */
static PolicyOneshotGate pagecache_oneshot_gate(const Ctx *c, const PolicyNodeEval *ne, int hi, bool thp_held)
{
        const PolicyEval *e = &c->d->eval;
        bool recent = hi >= 0 && c->s->have_oneshot[hi] && c->now >= c->s->last_oneshot_usec[hi];

        bool pressure = c->psi_high || e->psi_some_permyriad > c->cfg->calm_psi_some_permyriad;

        if (pressure && !pagecache_own_pressure(c, ne, hi))
                return c->psi_high ? POLICY_GATE_PSI_HIGH : POLICY_GATE_PSI_CALM;
        if (e->pagecache_order_demand_bytes > 0)
                return POLICY_GATE_BURST;
        /* a fill or a burst is under way, and what a compaction builds now
         * is split again at once (the interval would then keep it from the
         * memory that settles) */
        if (free_falling(c, ne))
                return POLICY_GATE_FREE_FALLING;
        if (thp_held)
                return POLICY_GATE_THP_INTERVAL;
        if (recent && c->now - c->s->last_oneshot_usec[hi] < POLICY_PAGECACHE_REBUILD_USEC)
                return pagecache_emptied(c, ne, hi, c->s->last_oneshot_usec[hi]) ? POLICY_GATE_NONE
                                                                                  : POLICY_GATE_REBUILD_WINDOW;
        if (recent && !pagecache_oneshot_due(c, ne, hi, c->s->last_oneshot_usec[hi]))
                return POLICY_GATE_NOT_DUE;
        return POLICY_GATE_NONE;
}

static void decide_oneshot(Ctx *c)
{
        const PolicyConfig *cfg = c->cfg;
        PolicyEval *e = &c->d->eval;
        const PolicyHistory *h = &c->s->hist;
        const LeverTrack *pro = &c->s->lever[LEVER_COMPACTION_PROACTIVENESS];
        /* kicks on: kcompactd works to the aim's threshold; a whole-node
         * compaction would build every free page into blocks (1.37 GiB of
         * order-9 blocks for a 512 MiB cycle in the phased bench) */
        bool thp_ok = !kicks_on(c, LEVER_COMPACTION_PROACTIVENESS) &&
                      /* compaction was just found not to pay */
                      !(pro->hold_raise_until_usec > c->now && pro->hold_reason == POLICY_REASON_BACKOFF_INEFFECTIVE) &&
                      !c->psi_high && e->psi_some_permyriad <= cfg->calm_psi_some_permyriad;

        if (!cfg->oneshot_compact)
                return;

        for (unsigned i = 0; i < e->n_nodes; i++) {
                PolicyNodeEval *ne = &e->nodes[i];
                /* between bursts a one-shot answers the configured reserve only */
                uint64_t t = ne->learned && e->learned_standing ? ne->config_target_bytes : ne->target_bytes[K_THP];
                int hi = policy_hist_node_index(h, ne->node);
                bool thp = thp_ok && oneshot_below(ne, K_THP, t, cfg->oneshot_below_permyriad);
                bool recent = hi >= 0 && c->s->have_oneshot[hi] && c->now >= c->s->last_oneshot_usec[hi];
                bool thp_held = thp && recent && c->now - c->s->last_oneshot_usec[hi] < cfg->oneshot_min_interval_usec;

                ne->pagecache_short = pagecache_short(c, ne);
                if (ne->pagecache_short && (!thp || thp_held))
                        ne->pagecache_gate = pagecache_oneshot_gate(c, ne, hi, thp_held);
                ne->pagecache_gate_changed = ne->pagecache_gate != (hi >= 0 ? c->s->pagecache_gate[hi] : POLICY_GATE_NONE);
                if (thp_held)
                        continue;
                if (!thp && (!ne->pagecache_short || ne->pagecache_gate != POLICY_GATE_NONE))
                        continue;
                if (c->d->n_items >= POLICY_MAX_ITEMS)
                        return;
                if (thp)
                        oneshot_item(c, ne, K_THP, t, cfg->oneshot_below_permyriad);
                else {
                        oneshot_item(c, ne, K_LARGE, ne->target_bytes[K_LARGE], 10000);
                        /* made through pressure: the gate found it the reserve's own */
                        c->d->items[c->d->n_items - 1].num.own_pressure =
                                c->psi_high || e->psi_some_permyriad > cfg->calm_psi_some_permyriad;
                }
        }
}

/* Kicking kcompactd (docs/policy.md): after a proactive round that did not
 * lower a node's fragmentation score, kcompactd waits 500 ms << 6 = 32 s
 * before it checks again (COMPACT_MAX_DEFER_SHIFT); a write of a nonzero
 * vm.compaction_proactiveness, even of the same value, wakes it on every
 * node past that deferral (compaction_proactiveness_sysctl_handler()). So
 * while a compaction objective is missed and the lever stays where it is,
 * the value is written again, at most once per kick_interval. Not under
 * pressure (compaction competes with reclaim), not while raising is held
 * after a back-off or rollback (if raising did not help, kicking will not
 * either), and the kicks count in the back-off episode like raises. */
static void decide_kick(Ctx *c)
{
        const PolicyConfig *cfg = c->cfg;
        Lever l = LEVER_COMPACTION_PROACTIVENESS;
        const LeverTrack *t = &c->s->lever[l];
        /* the free-short part offer alone does not kick (evaluate.c offer_part()) */
        const Want *w = c->frag.kick_err > 0 ? strongest(strongest(&c->frag, &c->stall), &c->fallback)
                                             : strongest(&c->stall, &c->fallback);
        PolicyObjective obj;
        DecisionItem *it;

        if (cfg->kick_interval_usec == 0 || !cfg->lever[l].enabled || !c->in[l].available ||
            c->in[l].current <= 0)
                return;
        /* a kick writes the current value: never one outside the bounds
         * (a value found there, or set by someone else, is not fragd's to
         * write; moving it back in is the lever's business) */
        if (c->in[l].current < cfg->lever[l].min || c->in[l].current > cfg->lever[l].max)
                return;
        if (w->err <= 0 || c->psi_high)
                return;
        if (c->value[l] != c->in[l].current)
                return; /* the lever moves this tick: the write wakes kcompactd */
        if (t->hold_raise_until_usec > c->now || c->hold[l] == POLICY_HOLD_BACKOFF)
                return;
        if (c->s->have_kick && c->now >= c->s->last_kick_usec &&
            c->now - c->s->last_kick_usec < cfg->kick_interval_usec)
                return;
        switch (w->reason) {
        case POLICY_REASON_RESERVE_BELOW_TARGET:
        case POLICY_REASON_RESERVE_LEARNED:
        case POLICY_REASON_RESERVE_TREND:
                obj = POLICY_OBJ_RESERVE;
                break;
        case POLICY_REASON_COMPACT_STALLS:
                obj = POLICY_OBJ_STALLS;
                break;
        case POLICY_REASON_THP_FALLBACK:
                obj = POLICY_OBJ_FALLBACK;
                break;
        case POLICY_REASON_WORKLOAD_STALLS:
                obj = POLICY_OBJ_WORKLOAD;
                break;
        default:
                return;
        }
        if (c->d->n_items >= POLICY_MAX_ITEMS)
                return;
        it = &c->d->items[c->d->n_items++];
        it->kind = DECISION_KICK_KCOMPACTD;
        it->lever = l;
        it->node = -1;
        it->from = it->to = c->in[l].current;
        it->reason = POLICY_REASON_KCOMPACTD_KICK;
        it->num = w->num;
        it->num.objective = obj;
}

/* Which objectives each lever serves, met with the margin or quiet (none
 * asking for more), and the proactiveness floor. */
static void levers_evaluate(Ctx *c)
{
        const PolicyConfig *cfg = c->cfg;
        const Assessment *a = c->a;
        PolicyEval *e = &c->d->eval;
        uint32_t band = MIN(cfg->hysteresis_permyriad, 10000u);
        bool reserves = true, free_ok = true, stalls, fallback, frag_q, rates_q, mem_q;
        unsigned score = 100;

        for (unsigned i = 0; i < e->n_nodes; i++) {
                const PolicyNodeEval *ne = &e->nodes[i];
                uint64_t tmax = 0;

                c->learned_any = c->learned_any || ne->learned;
                for (unsigned k = 0; k < 2; k++) {
                        uint64_t t = ne->target_bytes[k];
                        bool have_ok, predicted;

                        if (t == 0)
                                continue;
                        tmax = MAX(tmax, t);
                        have_ok = (unsigned __int128) ne->have_bytes[k] * 10000 >= (unsigned __int128) t * (10000 + band);
                        predicted = cfg->trend_horizon_usec > 0 && ne->eta_usec[k] < cfg->trend_horizon_usec;
                        if (!have_ok || predicted)
                                reserves = false;
                        /* the reclaim levers: free memory no longer short, or the reserve there
                         * anyway; between bursts they answer the configured target alone */
                        if (k == K_THP && ne->learned && e->learned_standing) {
                                t = ne->config_target_bytes;
                                have_ok = (unsigned __int128) ne->have_bytes[k] * 10000 >=
                                          (unsigned __int128) t * (10000 + band);
                        }
                        if (!have_ok && (unsigned __int128) ne->free_bytes * 10000 <
                                                (unsigned __int128) policy_free_needed_bytes(ne, t) * (10000 + band))
                                free_ok = false;
                }
                /* kcompactd keeps the score at or under its high threshold;
                 * a score of s leaves (100 - s)% of free memory in THP-order
                 * blocks, which then serve every smaller order too */
                if (tmax > 0) {
                        unsigned need = tmax >= ne->free_bytes
                                                ? 100
                                                : (unsigned) (((unsigned __int128) tmax * 100 + ne->free_bytes - 1) /
                                                              ne->free_bytes);

                        score = MIN(score, 100 - need);
                }
        }
        stalls = !a->rates.valid ||
                 policy_under_with_band(e->stall_milli, policy_rate_milli(cfg->max_compact_stall_rate), band);
        stalls = stalls && policy_under_with_band(e->workload_stall_permyriad, 10000, band);
        fallback = !a->rates.valid || policy_under_with_band(e->fallback_permyriad, cfg->max_thp_fallback_permyriad, band);
        frag_q = c->frag.err == 0;
        rates_q = c->stall.err == 0 && c->fallback.err == 0;
        mem_q = c->mem.err == 0;

        c->rates_met = stalls && fallback;
        e->proactiveness_floor = -1;
        if (e->order[1] == a->hpage_order && score > 0) {
                c->floor_score = score;
                e->proactiveness_floor = policy_proactiveness_for_score(score);
        }
        e->lever_met[LEVER_COMPACTION_PROACTIVENESS] = reserves && stalls && fallback;
        e->lever_quiet[LEVER_COMPACTION_PROACTIVENESS] = frag_q && rates_q;
        e->lever_met[LEVER_WATERMARK_BOOST_FACTOR] = reserves;
        e->lever_quiet[LEVER_WATERMARK_BOOST_FACTOR] = frag_q;
        e->lever_met[LEVER_THP_DEFRAG] = stalls && fallback;
        e->lever_quiet[LEVER_THP_DEFRAG] = rates_q;
        e->lever_met[LEVER_WATERMARK_SCALE_FACTOR] = e->lever_met[LEVER_MIN_FREE_KBYTES] = free_ok;
        e->lever_quiet[LEVER_WATERMARK_SCALE_FACTOR] = e->lever_quiet[LEVER_MIN_FREE_KBYTES] = mem_q;
        /* extfrag_threshold serves nothing fragd raises it for: back home
         * once everything is met */
        e->lever_met[LEVER_EXTFRAG_THRESHOLD] = e->targets_met;
        e->lever_quiet[LEVER_EXTFRAG_THRESHOLD] = !e->targets_missed;
}

/* A lever decide may move: enabled in the configuration and readable. The
 * observe preset has the same levers as database (presets.c), so it decides
 * as database would; only Decision.apply differs. */
static bool lever_in_play(const PolicyConfig *cfg, const LeverInput *in, Lever l)
{
        return in[l].available && cfg->lever[l].enabled;
}

/* The kernel keeps up (PolicyEval.keeps_up): high-order demand this tick
 * (THP faults, or page-cache bytes at its order), none of it unmet (no
 * THP or page-cache fallback, no stall it came with), no direct compaction
 * stall at all, and no item: nothing changed. */
static void keeps_up_evaluate(const Assessment *a, Decision *d)
{
        PolicyEval *e = &d->eval;
        bool thp = e->demand_bytes > 0, pc = e->pagecache_order_demand_bytes > 0;

        if (d->n_items > 0 || (!thp && !pc))
                return;
        if (e->demand_unmet_bytes > 0 || e->demand_fallback_bytes > 0 || e->pagecache_unmet_bytes > 0 ||
            e->pagecache_fallback_bytes > 0 || (a->rates.valid && a->rates.compact_stall > 0.0))
                return;
        e->keeps_up = true;
        e->keeps_up_order = pc ? e->pagecache_order : e->order[K_THP];
}

int policy_decide(const PolicyConfig *cfg_in, const PolicyState *s, const Assessment *a, const LeverInput *in,
                  usec_t now, Decision *ret)
{
        PolicyConfig eff;
        const PolicyConfig *cfg = &eff;
        Ctx c = { .cfg = cfg, .s = s, .a = a, .in = in, .now = now, .d = ret };

        assert(cfg_in && s && a && in && ret);
        if (a->n_nodes == 0 || a->page_size == 0)
                return -EINVAL;
        policy_config_effective(cfg_in, in, a, &eff);
        for (unsigned l = 0; l < _LEVER_MAX; l++)
                eff.lever[l].enabled = lever_in_play(&eff, in, (Lever) l);

        memset(ret, 0, sizeof(*ret));
        ret->now_usec = now;
        ret->apply = cfg->preset != PRESET_OBSERVE;
        memcpy(ret->levers, in, sizeof(ret->levers));

        /* the watermarks first: the page-cache target is capped by free
         * memory above the kernel's high watermark (policy_evaluate()) */
        ret->eval.n_nodes = MIN(a->n_nodes, (unsigned) FRAGD_MAX_NODES);
        policy_watermarks_evaluate(a, in, &ret->eval);
        policy_evaluate(cfg, s, a, now, &ret->eval);
        if (a->unmeasured) {
                /* targets of 0 would read as met and decay every lever
                 * toward its baseline on no evidence: hold them all */
                ret->eval.unmeasured = a->unmeasured;
                for (unsigned l = 0; l < _LEVER_MAX && ret->n_held < POLICY_MAX_HELD; l++) {
                        if (!cfg->lever[l].enabled || !in[l].available)
                                continue;
                        ret->held[ret->n_held++] = (PolicyHeldItem) {
                                .lever = (Lever) l,
                                .current = in[l].current,
                                .wanted = in[l].current,
                                .allowed = in[l].current,
                                .reason = POLICY_REASON_NONE,
                                .hold = POLICY_HOLD_UNMEASURED,
                                .num = { .node = -1, .unmeasured = a->unmeasured },
                        };
                }
                return 0;
        }
        ret->eval.targets_met = policy_targets_met(cfg, a, &ret->eval);
        c.psi_high = policy_psi_over_ceiling(cfg, &ret->eval);
        policy_gather_wants(cfg, a, &ret->eval, now, &c.frag, &c.mem, &c.stall, &c.fallback, &c.standing, &c.aim);
        ret->eval.targets_missed =
                c.frag.err > 0 || c.mem.err > 0 || c.mem.held_err > 0 || c.stall.err > 0 || c.fallback.err > 0 ||
                c.standing.err > 0;
        for (unsigned l = 0; l < _LEVER_MAX; l++)
                c.value[l] = in[l].current;
        /* not where faults compact directly (THP defrag madvise, always,
         * defer+madvise): there a lowering soon after the raise is paid in
         * stalls (6.1 churn, defrag=madvise: 100-323 direct compactions
         * against 15 without the rule) */
        for (unsigned i = 0; i < ret->eval.n_nodes && !c.in_dip && faults_never_compact(in, a); i++)
                c.in_dip = free_in_dip(&c, &ret->eval.nodes[i]);
        levers_evaluate(&c);

        for (unsigned l = 0; l < _LEVER_MAX; l++) {
                if (!cfg->lever[l].enabled || !in[l].available)
                        continue;
                switch ((Lever) l) {
                case LEVER_COMPACTION_PROACTIVENESS:
                        decide_proactiveness(&c);
                        break;
                case LEVER_WATERMARK_SCALE_FACTOR:
                case LEVER_MIN_FREE_KBYTES:
                        decide_reserve_lever(&c, (Lever) l);
                        break;
                case LEVER_WATERMARK_BOOST_FACTOR:
                        decide_boost(&c);
                        break;
                case LEVER_THP_DEFRAG:
                        decide_thp_defrag(&c);
                        break;
                case LEVER_DEFRAG_MODE:
                        decide_defrag_mode(&c);
                        break;
                case LEVER_EXTFRAG_THRESHOLD:
                default:
                        /* never raised: only brought back to the kernel's value */
                        if (!corrective(&c, (Lever) l) && !ret->eval.targets_missed)
                                try_decay(&c, (Lever) l);
                        break;
                }
        }
        decide_kick(&c);
        decide_oneshot(&c);
        keeps_up_evaluate(a, ret);
        return 0;
}
