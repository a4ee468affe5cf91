/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The learned reserve across restarts (policy/demand.c
 * policy_learned_restore(), docs/policy.md "Learned reserve"): a peak from
 * an earlier run is decayed by its real age, mapped onto the monotonic
 * clock (also when that clock is younger than the peak: a reboot), then
 * decays exactly as if fragd had kept running; a peak decayed to nothing
 * is dropped; the first decide after the restore keeps it as the target. */

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "policy-test-util.h"

#define S USEC_PER_SEC
#define MINUTE (60 * S)
#define MIB (1ULL << 20)
#define HP (2 * MIB)
#define HOLD (30 * MINUTE)
#define DECAY (30 * MINUTE)

static TSim *sim_learning(void)
{
        TSim *s = malloc(sizeof(*s));

        assert_non_null(s);
        t_sim_init(s);
        s->cfg.demand_learning = true;
        s->cfg.demand_hold_usec = HOLD;
        s->cfg.demand_decay_usec = DECAY;
        s->cfg.demand_factor = 1.0;
        s->cfg.demand_cap = (SizeSpec){ .permyriad = 2500 };
        return s;
}

static TWorld world_quiet(void)
{
        TWorld w = t_world_fine(1);

        w.node[0].free_pages = 500000;
        w.node[0].ge_large_pages = 100000;
        w.node[0].ge_thp_pages = 76800; /* 300 MiB in THP blocks */
        return w;
}

/* What a fragd that never stopped would keep at age, written out from
 * docs/policy.md "Learned reserve" (not with policy/demand.c): the peak
 * for HOLD, then halved every DECAY, gone under one huge page. */
static uint64_t reference(uint64_t peak, usec_t age)
{
        double v;

        if (age <= HOLD)
                return peak;
        v = (double) peak * pow(2.0, -(double) (age - HOLD) / (double) DECAY);
        return v < (double) HP ? 0 : (uint64_t) v;
}

/* the reference itself, against values worked out by hand */
static void test_reference_by_hand(void **state)
{
        (void) state;
        assert_int_equal(reference(512 * MIB, 0), 536870912);
        assert_int_equal(reference(512 * MIB, HOLD), 536870912);
        assert_int_equal(reference(512 * MIB, 31 * MINUTE), 524608763);  /* 2^(-1/30) */
        assert_int_equal(reference(512 * MIB, 45 * MINUTE), 379625062);  /* 2^(-1/2) */
        assert_int_equal(reference(512 * MIB, 60 * MINUTE), 268435456);  /* one half-life */
        assert_int_equal(reference(512 * MIB, 120 * MINUTE), 67108864);  /* three */
        assert_int_equal(reference(512 * MIB, 270 * MINUTE), 2 * MIB);   /* eight: one huge page */
        assert_int_equal(reference(512 * MIB, 271 * MINUTE), 0);
}

static void test_within_hold_uptime_long(void **state)
{
        TSim *s = sim_learning();
        LearnedRestore r;
        usec_t now = 5 * 3600 * S;

        assert_int_equal(policy_learned_restore(&s->cfg, 512 * MIB, 4 * MINUTE, now, HP, &r), LEARNED_RESTORE_OK);
        assert_int_equal(r.peak_bytes, 512 * MIB);
        assert_int_equal(r.need_bytes, 512 * MIB);
        assert_int_equal(r.peak_usec, now - 4 * MINUTE);
        assert_int_equal(r.peak_before_usec, 0);
        assert_int_equal(r.hold_left_usec, 26 * MINUTE);
        policy_learned_seed(&s->state, &r);
        assert_int_equal(policy_learned_age(&s->state, now), 4 * MINUTE);
        assert_int_equal(policy_learned_age(&s->state, now + 10 * S), 4 * MINUTE + 10 * S);
        free(s);
}

/* After a reboot the monotonic clock is seconds old, the burst minutes:
 * the age that does not fit is kept aside, and nothing is lost. */
static void test_older_than_the_monotonic_clock(void **state)
{
        TSim *s = sim_learning();
        LearnedRestore r;
        usec_t now = 20 * S, age = 45 * MINUTE;

        assert_int_equal(policy_learned_restore(&s->cfg, 512 * MIB, age, now, HP, &r), LEARNED_RESTORE_OK);
        assert_int_equal(r.peak_usec, 1);
        assert_int_equal(r.peak_before_usec, age - now + 1);
        assert_int_equal(r.hold_left_usec, 0);
        /* 15 min into the decay: 2^-0.5 */
        assert_int_equal(r.need_bytes, 379625062); /* 512 MiB x 2^-0.5 */
        policy_learned_seed(&s->state, &r);
        assert_int_equal(policy_learned_age(&s->state, now), age);

        /* the same within the hold: held for what is left of it, no longer */
        assert_int_equal(policy_learned_restore(&s->cfg, 512 * MIB, 4 * MINUTE, now, HP, &r), LEARNED_RESTORE_OK);
        assert_int_equal(r.peak_usec, 1);
        assert_int_equal(r.hold_left_usec, 26 * MINUTE);
        policy_learned_seed(&s->state, &r);
        assert_int_equal(policy_learned_age(&s->state, now), 4 * MINUTE);
        assert_int_equal(policy_learned_age(&s->state, now + 26 * MINUTE), HOLD);
        free(s);
}

/* From then on decide decays it exactly as an uninterrupted run would,
 * whichever way the age was mapped. */
static void test_decays_as_if_never_stopped(void **state)
{
        static const usec_t nows[] = { 20 * S, 3 * MINUTE, 10 * 3600 * S };
        static const usec_t ages[] = { 0, 4 * MINUTE, 29 * MINUTE, 31 * MINUTE, 2 * 3600 * S };

        for (unsigned i = 0; i < ELEMENTSOF(nows); i++)
                for (unsigned j = 0; j < ELEMENTSOF(ages); j++) {
                        TSim *s = sim_learning();
                        TWorld w = world_quiet();
                        LearnedRestore r;

                        s->now = nows[i];
                        assert_int_equal(policy_learned_restore(&s->cfg, 512 * MIB, ages[j], s->now, HP, &r),
                                         LEARNED_RESTORE_OK);
                        policy_learned_seed(&s->state, &r);
                        w.rates_valid = false; /* the first tick has no rates */
                        for (unsigned k = 0; k < 200; k++) {
                                uint64_t want = reference(512 * MIB, ages[j] + s->now - nows[i] + 60 * S);

                                t_sim_tick(s, &w, 60);
                                w.rates_valid = true;
                                if (s->d.eval.learned_need_bytes != want)
                                        fail_msg("now %llu age %llu tick %u: need %llu, uninterrupted %llu",
                                                 (unsigned long long) nows[i], (unsigned long long) ages[j], k,
                                                 (unsigned long long) s->d.eval.learned_need_bytes,
                                                 (unsigned long long) want);
                        }
                        /* 200 min: hold + more than 5 half-lives */
                        assert_true(s->d.eval.learned_need_bytes < 16 * MIB);
                        free(s);
                }
}

static void test_dropped_off_empty(void **state)
{
        TSim *s = sim_learning();
        LearnedRestore r = { 0 };

        /* 8 half-lives after the hold: 2 MiB, one huge page, still there;
         * a little more and it is gone */
        assert_int_equal(policy_learned_restore(&s->cfg, 512 * MIB, HOLD + 8 * DECAY, 20 * S, HP, &r),
                         LEARNED_RESTORE_OK);
        assert_int_equal(r.need_bytes, HP);
        assert_int_equal(policy_learned_restore(&s->cfg, 512 * MIB, HOLD + 8 * DECAY + MINUTE, 20 * S, HP, &r),
                         LEARNED_RESTORE_DECAYED);
        /* a year, and the largest age there is: no overflow */
        assert_int_equal(policy_learned_restore(&s->cfg, 512 * MIB, 365ULL * 24 * 3600 * S, 20 * S, HP, &r),
                         LEARNED_RESTORE_DECAYED);
        assert_int_equal(policy_learned_restore(&s->cfg, UINT64_MAX / 4, USEC_INFINITY, 20 * S, HP, &r),
                         LEARNED_RESTORE_DECAYED);
        assert_int_equal(policy_learned_restore(&s->cfg, 0, 0, 20 * S, HP, &r), LEARNED_RESTORE_EMPTY);
        /* a burst under one huge page is never kept */
        assert_int_equal(policy_learned_restore(&s->cfg, MIB, HOLD + 1, 20 * S, HP, &r), LEARNED_RESTORE_DECAYED);
        /* decay 0: forgotten right after the hold */
        s->cfg.demand_decay_usec = 0;
        assert_int_equal(policy_learned_restore(&s->cfg, 512 * MIB, HOLD, 20 * S, HP, &r), LEARNED_RESTORE_OK);
        assert_int_equal(policy_learned_restore(&s->cfg, 512 * MIB, HOLD + 1, 20 * S, HP, &r),
                         LEARNED_RESTORE_DECAYED);
        s->cfg.demand_learning = false;
        assert_int_equal(policy_learned_restore(&s->cfg, 512 * MIB, 0, 20 * S, HP, &r), LEARNED_RESTORE_OFF);
        free(s);
}

/* The first decide after a restart already keeps the burst ready: the
 * target and the reason are the learned ones, the sentence gives the real
 * age. A later, larger burst replaces it and is timed by the monotonic
 * clock alone. */
static void test_first_decide_keeps_it(void **state)
{
        TSim *s = sim_learning();
        TWorld w = world_quiet();
        LearnedRestore r;
        const DecisionItem *it = NULL;
        char buf[512];

        s->now = 20 * S;
        assert_int_equal(policy_learned_restore(&s->cfg, 512 * MIB, 4 * MINUTE, s->now, HP, &r), LEARNED_RESTORE_OK);
        policy_learned_seed(&s->state, &r);
        w.rates_valid = false;
        t_sim_tick(s, &w, 5);
        assert_int_equal(s->d.eval.learned_need_bytes, 512 * MIB);
        assert_int_equal(s->d.eval.nodes[0].target_bytes[1], 512 * MIB);
        assert_true(s->d.eval.nodes[0].learned);
        w.rates_valid = true;
        for (unsigned i = 0; i < 10 && !it; i++) {
                it = t_find_reason(&s->d, LEVER_COMPACTION_PROACTIVENESS, POLICY_REASON_RESERVE_LEARNED);
                if (!it)
                        t_sim_tick(s, &w, 5);
        }
        assert_non_null(it);
        assert_true(it->to > it->from);
        decision_explain(it, buf, sizeof(buf));
        assert_non_null(strstr(buf, "recent THP bursts that fell back or stalled asked for 512 MiB (learned reserve, seen 4 min ago, held 30 min)"));

        /* a larger burst: seen now, nothing before the monotonic clock */
        w.thp_fallback_per_sec = 300 / 5.0;
        t_sim_tick(s, &w, 5);
        assert_true(s->state.learned_peak_bytes > 512 * MIB);
        assert_int_equal(s->state.learned_peak_usec, s->now);
        assert_int_equal(s->state.learned_peak_before_usec, 0);
        assert_int_equal(policy_learned_age(&s->state, s->now), 0);
        free(s);
}

/* A smaller burst after the restore neither lowers the peak nor renews it:
 * the age from before the restart is kept. */
static void test_smaller_burst_keeps_the_age(void **state)
{
        TSim *s = sim_learning();
        TWorld w = world_quiet();
        LearnedRestore r;

        s->now = 20 * S;
        assert_int_equal(policy_learned_restore(&s->cfg, 512 * MIB, 10 * MINUTE, s->now, HP, &r), LEARNED_RESTORE_OK);
        policy_learned_seed(&s->state, &r);
        t_sim_tick(s, &w, 5);
        w.thp_fallback_per_sec = 10 / 5.0;
        t_sim_tick(s, &w, 5);
        assert_int_equal(s->state.learned_peak_bytes, 512 * MIB);
        assert_int_equal(s->state.learned_peak_usec, 1);
        assert_int_equal(policy_learned_age(&s->state, s->now), 10 * MINUTE + 10 * S);
        free(s);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_reference_by_hand),
                cmocka_unit_test(test_within_hold_uptime_long),
                cmocka_unit_test(test_older_than_the_monotonic_clock),
                cmocka_unit_test(test_decays_as_if_never_stopped),
                cmocka_unit_test(test_dropped_off_empty),
                cmocka_unit_test(test_first_decide_keeps_it),
                cmocka_unit_test(test_smaller_burst_keeps_the_age),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
