/* SPDX-License-Identifier: GPL-2.0-or-later */

/* Lever movement rules (pure). Every move a lever makes goes through
 * lever_rules_apply(), in this order:
 *
 *   1. bounds:   wanted is clamped to [min, max]; the result always is too
 *   2. step:     at most step_up per raise, step_down per lowering
 *   3. dwell:    no move sooner than dwell_usec after the last change
 *                (ours, or a change observed under us)
 *   4. reversal: a move against the last direction waits
 *                reversal_cooldown_usec, and is refused when the window
 *                already holds max_reversals - 1 reversals (one slot stays
 *                free for a forced safety move, so the limit holds even then)
 *
 * Safety moves (envelope, PSI rollback, back-off) skip 2-4 by flags but never
 * the bounds. An escalation (LEVER_MOVE_ESCALATE: a raise after a raise, the
 * error having outgrown the one the last raise answered) skips the dwell
 * only: the step, the bounds and every reversal rule still apply. A decay
 * (LEVER_MOVE_DECAY) skips the step only: the controller sizes it (half
 * way, then home). A lowering to the aim (LEVER_MOVE_AIM) skips the step
 * and the dwell: it answers free memory measured now, not the effect of
 * the last move; the reversal rules, the anti-oscillation ones, apply,
 * except that the cooldown does not hold one that undoes a raise made in
 * a dip of free memory (LeverTrack.raised_in_dip). A raise with that flag
 * is an ordinary raise. A raise for stalls or fallbacks right after a
 * lowering to the aim (LEVER_MOVE_REFUTE_AIM) skips the dwell and the
 * cooldown: the harm measured since refutes that lowering; the step and
 * the reversal limit still apply. */

#include <string.h>

#include "fragd/policy.h"

static usec_t reversal_window(const PolicyConfig *cfg, Lever l)
{
        return cfg->reversal_window_usec > 0 ? cfg->reversal_window_usec : POLICY_DEFAULT_REVERSAL_WINDOW_USEC;
}

uint64_t policy_mem_total_bytes(const Assessment *a)
{
        uint64_t pages = 0;

        if (!a)
                return 0;
        for (unsigned i = 0; i < a->n_nodes && i < FRAGD_MAX_NODES; i++)
                pages += a->nodes[i].managed_pages;
        return pages * a->page_size;
}

int64_t policy_min_free_share_kbytes(const PolicyConfig *cfg, const Assessment *a)
{
        uint64_t kib = policy_mem_total_bytes(a) / 1024;

        if (cfg->min_free_max_permyriad == 0)
                return 0;
        return (int64_t) MIN((unsigned __int128) kib * cfg->min_free_max_permyriad / 10000,
                             (unsigned __int128) INT32_MAX); /* the sysctl is an int */
}

void policy_config_effective(const PolicyConfig *cfg, const LeverInput *in, const Assessment *a,
                             PolicyConfig *ret)
{
        LeverConfig *mf;

        memcpy(ret, cfg, sizeof(*ret));
        if (ret->hysteresis_permyriad == 0)
                ret->hysteresis_permyriad = POLICY_DEFAULT_HYSTERESIS_PERMYRIAD;
        if (ret->max_reversals == 0)
                ret->max_reversals = POLICY_DEFAULT_MAX_REVERSALS;
        if (ret->reversal_window_usec == 0)
                ret->reversal_window_usec = POLICY_DEFAULT_REVERSAL_WINDOW_USEC;
        if (ret->backoff_hold_usec == 0)
                ret->backoff_hold_usec = ret->decay_after_usec;

        /* min_free_kbytes: min 0 means "the kernel's value at start"; the
         * upper bound is max(value at start, lever.max, min_free_max_permyriad
         * x MemTotal) (config semantics: the configuration sets either the
         * absolute max or the share, the other is 0). Without a value at
         * start, or with neither bound known, the lever is pinned rather than
         * letting a clamp to [0, 0] write 0. */
        mf = &ret->lever[LEVER_MIN_FREE_KBYTES];
        mf->max = MAX(mf->max, policy_min_free_share_kbytes(ret, a));
        if (in && in[LEVER_MIN_FREE_KBYTES].available) {
                int64_t base = in[LEVER_MIN_FREE_KBYTES].baseline;

                if (mf->min == 0)
                        mf->min = base;
                mf->max = MAX(mf->max, base);
        } else if (mf->min == 0 || mf->max == 0)
                mf->enabled = false;

        for (unsigned l = 0; l < _LEVER_MAX; l++)
                if (ret->lever[l].max < ret->lever[l].min)
                        ret->lever[l].max = ret->lever[l].min;
}

unsigned lever_reversals_in_window(const PolicyConfig *cfg, Lever l, const LeverTrack *t, usec_t now)
{
        usec_t w = reversal_window(cfg, l);
        unsigned c = 0;

        for (unsigned i = 0; i < t->n_reversals; i++) {
                usec_t r = t->reversal_usec[(t->reversal_head + i) % POLICY_REVERSALS_MAX];
                if (r <= now && now - r < w)
                        c++;
        }
        return c;
}

int64_t lever_rules_apply(const PolicyConfig *cfg, Lever l, const LeverTrack *t, int64_t current,
                          int64_t wanted, unsigned flags, usec_t now, PolicyHold *ret_hold)
{
        const LeverConfig *lc = &cfg->lever[l];
        PolicyHold hold = POLICY_HOLD_NONE;
        int64_t to = CLAMP(wanted, lc->min, lc->max);
        int dir, dir_wanted;

        dir_wanted = wanted > current ? 1 : wanted < current ? -1 : 0;
        if (dir_wanted == 0) {
                to = current;
                goto done;
        }
        if (to != wanted)
                hold = POLICY_HOLD_AT_BOUND;
        dir = to > current ? 1 : to < current ? -1 : 0;
        if (dir != dir_wanted) {
                /* at or beyond the bound in the wanted direction: leave alone */
                to = current;
                goto done;
        }

        if (!(flags & LEVER_MOVE_IGNORE_TIMING) && t->changed) {
                usec_t since = now >= t->last_change_usec ? now - t->last_change_usec : 0;
                bool reversal = t->last_dir != 0 && dir != t->last_dir;
                /* stalls or fallbacks over their limits after a lowering
                 * to the aim: the raise undoing it waits neither */
                bool refute = (flags & LEVER_MOVE_REFUTE_AIM) && dir > 0 && t->last_dir < 0 &&
                              t->last_reason == POLICY_REASON_AIM_FELL;

                if (since < lc->dwell_usec && !(flags & LEVER_MOVE_ESCALATE && dir > 0 && t->last_dir > 0) &&
                    !(flags & LEVER_MOVE_AIM && dir < 0) && !refute) {
                        hold = POLICY_HOLD_DWELL;
                        to = current;
                        goto done;
                }
                /* a lowering to the aim that undoes a raise made in a dip
                 * of free memory: the raise answered a transient low, and
                 * each tick held kcompactd works to its threshold with free
                 * memory back (0.6-1.2 GiB of order-9 blocks for 512 MiB
                 * cycles in the churn bench) */
                if (reversal && since < lc->reversal_cooldown_usec && !refute &&
                    !(flags & LEVER_MOVE_AIM && dir < 0 && t->last_dir > 0 && t->raised_in_dip)) {
                        hold = POLICY_HOLD_REVERSAL_COOLDOWN;
                        to = current;
                        goto done;
                }
                if (reversal &&
                    lever_reversals_in_window(cfg, l, t, now) + 2 > cfg->max_reversals) {
                        hold = POLICY_HOLD_REVERSAL_LIMIT;
                        to = current;
                        goto done;
                }
        }

        if (!(flags & (LEVER_MOVE_IGNORE_STEP | LEVER_MOVE_DECAY)) && !(flags & LEVER_MOVE_AIM && dir < 0)) {
                /* in 128 bits: a reading far outside the range (-2^63) must not overflow */
                if (dir > 0 && lc->step_up > 0 && (__int128) to - current > lc->step_up)
                        to = (int64_t) MIN((__int128) current + lc->step_up, (__int128) INT64_MAX);
                if (dir < 0 && lc->step_down > 0 && (__int128) current - to > lc->step_down)
                        to = (int64_t) MAX((__int128) current - lc->step_down, (__int128) INT64_MIN);
        }
        /* bounds win over the step: a knob found outside them comes back in */
        to = CLAMP(to, lc->min, lc->max);

done:
        if (ret_hold)
                *ret_hold = hold;
        return to;
}
