/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The starting point of the learned-reserve cases (test-between-bursts.c,
 * test-burst-aim.c): one 4 GiB node, a learned need held 300 s and then
 * halved every 100 h (over a case's 20 minutes it stays over 511 MiB:
 * 2^(-1200/360000) = 0.9977, so its aim is fixed), demand_cap 25 % (1 GiB),
 * proactiveness 20..80 by 20 per 10 s dwell, reversal cooldown 120 s. */

#include "controller-test-util.h"

#define MIB (1024ull * 1024)
#define PAGES_MIB (MIB / T_PAGE) /* 256 */
#define NO_PEAK USEC_INFINITY

/* a 512 MiB burst seen age ago, as the daemon re-instates it */
static inline void lf_seed_peak(TSim *s, usec_t age)
{
        LearnedRestore r = { .peak_bytes = 512 * MIB, .peak_usec = s->now - age, .need_bytes = 512 * MIB };

        policy_learned_seed(&s->state, &r);
}

/* The sim (kicks every kick_interval, 0: off) and in *ret_w a world of
 * free_mib free, large_mib of it in order>=4 blocks and thp_mib in
 * order>=9 blocks, 200000 pages reclaimable, no fault; a 512 MiB burst
 * seen peak_age ago (NO_PEAK: none). */
static inline TSim *lf_new(TWorld *ret_w, usec_t kick_interval, unsigned free_mib, unsigned large_mib,
                           unsigned thp_mib, usec_t peak_age)
{
        TSim *s = sim_new();

        s->cfg.demand_learning = true;
        s->cfg.demand_hold_usec = 300 * USEC_PER_SEC;
        s->cfg.demand_decay_usec = 360000 * USEC_PER_SEC;
        s->cfg.demand_factor = 1.0;
        s->cfg.demand_cap = (SizeSpec){ .permyriad = 2500 };
        s->cfg.kick_interval_usec = kick_interval;
        t_lever(&s->cfg, LEVER_COMPACTION_PROACTIVENESS, 20, 80, 20, 5, 10 * USEC_PER_SEC, 120 * USEC_PER_SEC);
        *ret_w = t_world_fine(1);
        ret_w->node[0] = (TNode){ .free_pages = free_mib * PAGES_MIB, .ge_large_pages = large_mib * PAGES_MIB,
                                  .ge_thp_pages = thp_mib * PAGES_MIB, .reclaimable_pages = 200000 };
        if (peak_age != NO_PEAK)
                lf_seed_peak(s, peak_age);
        return s;
}

static inline unsigned lf_count_kind(const Decision *d, DecisionKind k)
{
        unsigned n = 0;

        for (unsigned i = 0; i < d->n_items; i++)
                n += d->items[i].kind == k;
        return n;
}

/* A proactiveness move to `to` in d, returned for further checks. */
static inline const DecisionItem *lf_pro_move(const Decision *d, int64_t to)
{
        const DecisionItem *it = t_find(d, DECISION_LEVER, LEVER_COMPACTION_PROACTIVENESS);

        assert_non_null(it);
        assert_int_equal(it->to, to);
        return it;
}

/* n ticks of dt seconds without a proactiveness move; the last tick's
 * decision returned for further checks. */
static inline const Decision *lf_no_pro_move(TSim *s, TWorld *w, unsigned n, unsigned dt)
{
        const Decision *d = NULL;

        for (unsigned i = 0; i < n; i++) {
                d = t_sim_tick(s, w, dt);
                assert_null(t_find(d, DECISION_LEVER, LEVER_COMPACTION_PROACTIVENESS));
        }
        return d;
}

/* Under memory pressure over the PSI ceiling: no proactiveness move, a
 * held item saying PSI held it at the value it wanted. */
static inline void lf_assert_held_by_psi(const Decision *d, int wanted)
{
        const PolicyHeldItem *h;

        assert_null(t_find(d, DECISION_LEVER, LEVER_COMPACTION_PROACTIVENESS));
        h = t_find_held(d, LEVER_COMPACTION_PROACTIVENESS);
        assert_non_null(h);
        assert_int_equal(h->hold, POLICY_HOLD_PSI);
        assert_int_equal(h->wanted, wanted);
}
