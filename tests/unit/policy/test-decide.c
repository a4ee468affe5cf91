/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy_decide() (policy/controller.c) around the levers: what the
 * Decision carries, its errors, THP defrag's conditions for going up one
 * mode, pressure (reserves yield, proactiveness is held, not lowered), and
 * extfrag_threshold (never raised, brought home). Links libpolicy.a only. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "controller-test-util.h"

#define P LEVER_COMPACTION_PROACTIVENESS
#define DEFRAG LEVER_THP_DEFRAG
#define EXTFRAG LEVER_EXTFRAG_THRESHOLD

static void test_decision_header(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);
        PolicyState before;

        (void) state;
        t_assess(&w, 777 * S, &s->a);
        memset(&s->d, 0xa5, sizeof(s->d));
        before = s->state;
        assert_int_equal(policy_decide(&s->cfg, &s->state, &s->a, s->in, 777 * S, &s->d), 0);
        assert_int_equal(s->d.now_usec, 777 * S);
        assert_true(s->d.apply);
        assert_int_equal(s->d.n_items, 0);
        assert_int_equal(s->d.n_held, 0);
        assert_memory_equal(s->d.levers, s->in, sizeof(s->d.levers));
        assert_memory_equal(&before, &s->state, sizeof(before));
        /* unmeasured: every lever held, still 0 */
        s->a.unmeasured = OBS_MASK(OBS_ZONEINFO);
        assert_int_equal(policy_decide(&s->cfg, &s->state, &s->a, s->in, 777 * S, &s->d), 0);
        assert_int_equal(s->d.eval.unmeasured, OBS_MASK(OBS_ZONEINFO));
        assert_int_equal(s->d.n_held, 5); /* the enabled levers of t_config */
        assert_int_equal(s->d.held[0].hold, POLICY_HOLD_UNMEASURED);
        assert_int_equal(s->d.held[0].lever, P);
        assert_int_equal(s->d.held[0].wanted, 20);
        assert_int_equal(s->d.held[0].num.node, -1);
        /* nothing to decide on */
        s->a.unmeasured = 0;
        s->a.n_nodes = 0;
        assert_int_equal(policy_decide(&s->cfg, &s->state, &s->a, s->in, 777 * S, &s->d), -EINVAL);
        s->a.n_nodes = 1;
        s->a.page_size = 0;
        assert_int_equal(policy_decide(&s->cfg, &s->state, &s->a, s->in, 777 * S, &s->d), -EINVAL);
        free(s);
}

/* THP defrag goes one mode up for fallbacks only when direct compaction
 * is well under its limits (under 90 % of them: it would make more) and
 * proactiveness can do no more. */
static const DecisionItem *defrag_raise(double stall_per_sec, uint64_t workload_ms, int64_t pro)
{
        static TSim s;
        TWorld w = t_world_fine(1);

        t_sim_init(&s);
        s.cfg.lever[DEFRAG].max = THP_DEFRAG_ALWAYS;
        s.cfg.kick_interval_usec = 0;
        w.fallback_ratio = 0.4;
        w.stall_per_sec = stall_per_sec;
        if (workload_ms) {
                w.n_workloads = 1;
                w.workloads[0] = t_workload("db", workload_ms, 0, 1000);
        }
        s.in[P].current = pro;
        t_sim_tick(&s, &w, 5);
        return t_find(&s.d, DECISION_LEVER, DEFRAG);
}

static void test_defrag_up_conditions(void **state)
{
        const DecisionItem *it;

        (void) state;
        it = defrag_raise(0, 0, 100);
        assert_non_null(it);
        assert_int_equal(it->from, THP_DEFRAG_MADVISE);
        assert_int_equal(it->to, THP_DEFRAG_ALWAYS);
        assert_int_equal(it->reason, POLICY_REASON_THP_FALLBACK);
        /* stalls 0.09/s of 0.1/s: under the limit, not well under it */
        assert_non_null(defrag_raise(0.09, 0, 100));
        assert_null(defrag_raise(0.091, 0, 100));
        /* a watched workload at 90 % of its budget, then 91 % */
        assert_non_null(defrag_raise(0, 900, 100));
        assert_null(defrag_raise(0, 910, 100));
        /* proactiveness not at its maximum: it goes first */
        it = defrag_raise(0, 0, 60);
        assert_null(it);
}

/* A simulation afresh without kicks or one-shots (the pressure tests look
 * at the lever moves alone). */
static void sim_levers_only(TSim *s)
{
        t_sim_init(s);
        s->cfg.kick_interval_usec = 0;
        s->cfg.oneshot_compact = false;
}

/* Lever l not moved this tick and held for memory pressure: the item. */
static const PolicyHeldItem *held_for_psi(const TSim *s, Lever l)
{
        const PolicyHeldItem *h;

        assert_null(t_find(&s->d, DECISION_LEVER, l));
        h = t_find_held(&s->d, l);
        assert_non_null(h);
        assert_int_equal(h->hold, POLICY_HOLD_PSI);
        return h;
}

/* Memory pressure over the ceiling: the reserve levers come down, the
 * raise of proactiveness is held, proactiveness itself is not lowered
 * (kcompactd's work is not what PSI counts). */
static void test_pressure_holds_proactiveness(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);
        const DecisionItem *it;

        (void) state;
        s->cfg.kick_interval_usec = 0;
        s->cfg.oneshot_compact = false;
        s->in[P].current = 60;
        s->in[LEVER_WATERMARK_SCALE_FACTOR].current = 110;
        w.node[0].ge_thp_pages = 2000;
        w.psi_some = 1500;
        w.psi_full = 77;
        t_sim_tick(s, &w, 5);
        (void) held_for_psi(s, P);
        it = t_find(&s->d, DECISION_LEVER, LEVER_WATERMARK_SCALE_FACTOR);
        assert_non_null(it);
        assert_int_equal(it->reason, POLICY_REASON_PSI_CEILING);
        assert_int_equal(it->to, 90);
        assert_int_equal(it->num.psi_some_permyriad, 1500);
        assert_int_equal(it->num.psi_full_permyriad, 77);
        assert_int_equal(it->num.psi_some_ceiling_permyriad, 1000);
        assert_int_equal(it->num.psi_full_ceiling_permyriad, 300);
        free(s);
}

/* extfrag_threshold, found raised by someone else: never raised, brought
 * back to the kernel's value by step_down once per dwell after the targets
 * have been met for decay_after, and not while one is missed. */
static void test_extfrag_comes_home(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);
        unsigned decays = 0;

        (void) state;
        t_lever(&s->cfg, EXTFRAG, 0, 1000, 100, 100, 60 * S, 600 * S);
        s->cfg.kick_interval_usec = 0;
        s->cfg.oneshot_compact = false;
        s->in[EXTFRAG].current = 800;
        for (unsigned i = 0; i < 200; i++) {
                const DecisionItem *it;

                t_sim_tick(s, &w, 5);
                it = t_find(&s->d, DECISION_LEVER, EXTFRAG);
                if (!it)
                        continue;
                assert_int_equal(it->reason, POLICY_REASON_TARGETS_MET_DECAY);
                /* v2: half way, at least step_down, then home: 800 -> 500,
                 * dist 300, ceil(300/2) = 150 > 100 -> 650, then 500 */
                assert_true(decays < 2);
                assert_int_equal(it->to, decays == 0 ? 650 : 500);
                decays++;
        }
        assert_int_equal(decays, 2);
        assert_int_equal(s->in[EXTFRAG].current, 500);
        /* a missed target stops it; below the kernel's value it goes up home */
        t_sim_init(s);
        t_lever(&s->cfg, EXTFRAG, 0, 1000, 100, 100, 60 * S, 600 * S);
        s->in[EXTFRAG].current = 200;
        w.node[0].ge_thp_pages = 2000;
        for (unsigned i = 0; i < 200; i++) {
                t_sim_tick(s, &w, 5);
                assert_null(t_find(&s->d, DECISION_LEVER, EXTFRAG));
        }
        s->cfg.lever[EXTFRAG].step_up = 0; /* coming home is paced by step_down alone */
        w = t_world_fine(1);
        decays = 0;
        for (unsigned i = 0; i < 300; i++) {
                const DecisionItem *it;

                t_sim_tick(s, &w, 5);
                it = t_find(&s->d, DECISION_LEVER, EXTFRAG);
                if (!it)
                        continue;
                /* upward the same: 200 -> 500, dist 300, 150 > 100 -> 350,
                 * then home 500 (step_up 0 plays no part) */
                assert_true(decays < 2);
                assert_int_equal(it->to, decays == 0 ? 350 : 500);
                decays++;
        }
        assert_int_equal(decays, 2);
        assert_int_equal(s->in[EXTFRAG].current, 500);
        /* a step_down of 1 is a step too */
        t_sim_init(s);
        t_lever(&s->cfg, EXTFRAG, 0, 1000, 0, 1, 60 * S, 600 * S);
        s->in[EXTFRAG].current = 498;
        decays = 0;
        for (unsigned i = 0; i < 300; i++) {
                t_sim_tick(s, &w, 5);
                decays += t_find(&s->d, DECISION_LEVER, EXTFRAG) != NULL;
        }
        /* 498 -> 500, dist 2, ceil(2/2) = 1 = step_down -> 499, then 500;
         * step_down 0 would go home at once (one move) */
        assert_int_equal(decays, 2);
        assert_int_equal(s->in[EXTFRAG].current, 500);
        /* step_down 0: home at once, 800 -> 500 in one move (not half way,
         * 650) */
        t_sim_init(s);
        t_lever(&s->cfg, EXTFRAG, 0, 1000, 100, 0, 60 * S, 600 * S);
        s->cfg.oneshot_compact = false;
        s->in[EXTFRAG].current = 800;
        decays = 0;
        for (unsigned i = 0; i < 300; i++) {
                const DecisionItem *it;

                t_sim_tick(s, &w, 5);
                it = t_find(&s->d, DECISION_LEVER, EXTFRAG);
                if (!it)
                        continue;
                assert_int_equal(it->to, 500);
                decays++;
        }
        assert_int_equal(decays, 1);
        assert_int_equal(s->in[EXTFRAG].current, 500);
        free(s);
}

/* Pressure over the ceiling that is the direct compaction stalls a
 * proactiveness raise answers does not hold it: the raise moves that work
 * to kcompactd. 1 stall/s against the 0.1/s limit at full 4 % (ceiling
 * 3 %): raised for the stalls, while the reserve levers still come down.
 * With more direct reclaim entries than stalls the pressure is free memory
 * short: held. Fails with the old rule (every raise held). */
static void test_pressure_of_the_stalls_does_not_hold(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);
        const PolicyHeldItem *h;
        const DecisionItem *it;

        (void) state;
        s->cfg.kick_interval_usec = 0;
        s->cfg.oneshot_compact = false;
        s->in[LEVER_WATERMARK_SCALE_FACTOR].current = 110;
        w.stall_per_sec = 1.0;
        w.psi_some = 1500;
        w.psi_full = 400;
        t_sim_tick(s, &w, 5);
        it = t_find(&s->d, DECISION_LEVER, P);
        assert_non_null(it);
        assert_int_equal(it->reason, POLICY_REASON_COMPACT_STALLS);
        assert_true(it->to > it->from);
        it = t_find(&s->d, DECISION_LEVER, LEVER_WATERMARK_SCALE_FACTOR);
        assert_non_null(it);
        assert_int_equal(it->reason, POLICY_REASON_PSI_CEILING);

        /* direct reclaim outnumbers the stalls: held */
        sim_levers_only(s);
        w.allocstall_per_sec = 5.0;
        t_sim_tick(s, &w, 5);
        h = held_for_psi(s, P);
        assert_int_equal(h->reason, POLICY_REASON_COMPACT_STALLS);

        /* no stall: the pressure is not theirs, a reserve's raise is held */
        sim_levers_only(s);
        w = t_world_fine(1);
        w.node[0].ge_thp_pages = 2000;
        w.psi_some = 1500;
        w.psi_full = 400;
        t_sim_tick(s, &w, 5);
        (void) held_for_psi(s, P);
        free(s);
}

/* Pressure with free memory short and watermark_scale_factor at its
 * baseline: nothing to lower, the raise is held (and said so); the boost
 * lever above its baseline comes down by its step, at it the raise is held */
static void test_pressure_at_baseline_holds(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);
        const PolicyHeldItem *h;
        const DecisionItem *it;

        (void) state;
        s->cfg.kick_interval_usec = 0;
        s->cfg.oneshot_compact = false;
        w.node[0] = t_node_memory_short();
        w.psi_some = 1500;
        t_sim_tick(s, &w, 5);
        h = held_for_psi(s, LEVER_WATERMARK_SCALE_FACTOR);
        assert_int_equal(h->reason, POLICY_REASON_FREE_MEMORY_SHORT);

        /* the boost: compaction spent (proactiveness at 100), a reserve missed */
        sim_levers_only(s);
        w = t_world_fine(1);
        w.node[0].ge_thp_pages = 2000;
        w.psi_some = 1500;
        s->in[P].current = 100;
        s->in[LEVER_WATERMARK_BOOST_FACTOR].current = 25000;
        t_sim_tick(s, &w, 5);
        it = t_find(&s->d, DECISION_LEVER, LEVER_WATERMARK_BOOST_FACTOR);
        assert_non_null(it);
        assert_int_equal(it->reason, POLICY_REASON_PSI_CEILING);
        assert_int_equal(it->to, 24000);
        sim_levers_only(s);
        s->in[P].current = 100;
        t_sim_tick(s, &w, 5);
        (void) held_for_psi(s, LEVER_WATERMARK_BOOST_FACTOR);
        free(s);
}

/* THP defrag, found at "never", comes home to madvise one mode per dwell */
static void test_defrag_decays_half_way_then_home(void **state)
{
        /* v2's decay applies to thp_defrag too (raises stay one mode):
         * never (0) -> madvise (3), step_down 1: dist 3, ceil(3/2) = 2 > 1
         * -> defer+madvise (2), then madvise (3) at the next dwell. */
        static const int64_t to[] = { THP_DEFRAG_DEFER_MADVISE, THP_DEFRAG_MADVISE };
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);
        unsigned moves = 0;

        (void) state;
        s->cfg.kick_interval_usec = 0;
        s->cfg.lever[DEFRAG].min = THP_DEFRAG_NEVER;
        s->in[DEFRAG].current = THP_DEFRAG_NEVER;
        for (unsigned i = 0; i < 300; i++) {
                const DecisionItem *it;

                t_sim_tick(s, &w, 5);
                it = t_find(&s->d, DECISION_LEVER, DEFRAG);
                if (!it)
                        continue;
                assert_true(moves < 2);
                assert_int_equal(it->to, to[moves]);
                assert_int_equal(it->err, 0); /* a decay answers no error */
                assert_false(it->forced);
                assert_int_equal(it->num.node, -1);
                assert_int_equal(it->num.baseline, THP_DEFRAG_MADVISE);
                assert_true(it->num.met_usec >= 600 * S);
                moves++;
        }
        assert_int_equal(moves, 2);
        assert_int_equal(s->in[DEFRAG].current, THP_DEFRAG_MADVISE);
        free(s);
}

/* A raise the kernel cut (read back lower) is not rolled back for
 * pressure: the value is no longer ours */
static void test_no_rollback_of_a_value_not_ours(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);

        (void) state;
        s->cfg.psi_full_ceiling_permyriad = 1000;
        s->cfg.oneshot_compact = false;
        s->cfg.kick_interval_usec = 0;
        s->clamp_max[P] = 30;
        w.node[0].ge_thp_pages = 2000;
        t_sim_tick(s, &w, 5);
        assert_int_equal(s->in[P].current, 30);
        w.psi_full = 400;
        t_sim_tick(s, &w, 5);
        assert_null(t_find_reason(&s->d, P, POLICY_REASON_PSI_ROLLBACK));
        free(s);
}

/* backoff_decisions 1: the first evaluation without gain backs off */
static void test_backoff_after_one(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);
        const DecisionItem *it;

        (void) state;
        s->cfg.oneshot_compact = false;
        s->cfg.kick_interval_usec = 0;
        s->cfg.backoff_decisions = 1;
        s->in[P].current = 60;
        s->state.lever[P].episode = true;
        s->state.lever[P].ep_objective = POLICY_OBJ_RESERVE;
        s->state.lever[P].ep_no_gain = 1;
        w.node[0].ge_thp_pages = 2000;
        t_sim_tick(s, &w, 5);
        it = t_find(&s->d, DECISION_LEVER, P);
        assert_non_null(it);
        assert_int_equal(it->reason, POLICY_REASON_BACKOFF_INEFFECTIVE);
        /* v2 (issue 14 item 4): a back-off gives every raise back at once,
         * to the baseline 20 (t_levers), not one step_down (60 - 5 = 55) */
        assert_int_equal(it->to, 20);
        /* 2 needed, 1 seen: a raise */
        t_sim_init(s);
        s->cfg.oneshot_compact = false;
        s->cfg.backoff_decisions = 2;
        s->in[P].current = 60;
        s->state.lever[P].episode = true;
        s->state.lever[P].ep_no_gain = 1;
        t_sim_tick(s, &w, 5);
        it = t_find(&s->d, DECISION_LEVER, P);
        assert_non_null(it);
        assert_int_equal(it->reason, POLICY_REASON_RESERVE_BELOW_TARGET);
        free(s);
}

/* After a clamp, raising stops at the clamped value for hold_usec, then
 * goes past it again */
static void test_clamp_hold_ends(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);
        const DecisionItem *it;

        (void) state;
        s->cfg.oneshot_compact = false;
        s->cfg.kick_interval_usec = 0;
        s->in[P].current = 30;
        s->state.lever[P] = (LeverTrack){ .touched = true, .changed = true, .last_dir = 1, .last_applied = 30,
                                          .clamped = true, .clamp_value = 30, .clamp_wanted = 40,
                                          .clamp_usec = s->now + 5 * S - 600 * S,
                                          .last_change_usec = s->now - 600 * S };
        w.node[0].ge_thp_pages = 2000;
        t_sim_tick(s, &w, 5); /* exactly hold_usec after the clamp: over */
        it = t_find(&s->d, DECISION_LEVER, P);
        assert_non_null(it);
        /* err 3000 + 7000 x (42949672 - 8192000) / 42949672 = 8664: +18 */
        assert_int_equal(it->to, 48);
        t_sim_init(s);
        s->cfg.oneshot_compact = false;
        s->in[P].current = 30;
        s->state.lever[P] = (LeverTrack){ .touched = true, .changed = true, .last_dir = 1, .last_applied = 30,
                                          .clamped = true, .clamp_value = 30, .clamp_wanted = 40,
                                          .clamp_usec = s->now + 6 * S - 600 * S,
                                          .last_change_usec = s->now - 600 * S };
        t_sim_tick(s, &w, 5);
        assert_null(t_find(&s->d, DECISION_LEVER, P));
        assert_int_equal(t_find_held(&s->d, P)->hold, POLICY_HOLD_CLAMPED);
        free(s);
}

/* A kick at exactly the end of a back-off hold */
static void test_kick_when_the_hold_ends(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);

        (void) state;
        s->cfg.oneshot_compact = false;
        s->cfg.kick_interval_usec = 5 * S;
        s->in[P].current = 100; /* at its maximum: it cannot move, so it is kicked */
        s->state.lever[P].hold_raise_until_usec = s->now + 5 * S;
        s->state.lever[P].hold_reason = POLICY_REASON_PSI_ROLLBACK;
        w.node[0].ge_thp_pages = 2000;
        t_sim_tick(s, &w, 5);
        assert_non_null(t_find(&s->d, DECISION_KICK_KCOMPACTD, P));
        t_sim_init(s);
        s->cfg.oneshot_compact = false;
        s->cfg.kick_interval_usec = 5 * S;
        s->in[P].current = 100;
        s->state.lever[P].hold_raise_until_usec = s->now + 6 * S;
        t_sim_tick(s, &w, 5);
        assert_null(t_find(&s->d, DECISION_KICK_KCOMPACTD, P));
        free(s);
}

/* Two wants with the same error: the first in the order fragmentation,
 * stalls, fallbacks names the raise */
static void test_ties_go_to_the_first_want(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);
        const DecisionItem *it;

        (void) state;
        s->cfg.oneshot_compact = false;
        w.stall_per_sec = 0.25;  /* err 10000 */
        w.fallback_ratio = 0.4;  /* err 10000 */
        t_sim_tick(s, &w, 5);
        it = t_find(&s->d, DECISION_LEVER, P);
        assert_non_null(it);
        assert_int_equal(it->reason, POLICY_REASON_COMPACT_STALLS);
        t_sim_init(s);
        s->cfg.oneshot_compact = false;
        w.node[0].ge_thp_pages = 0; /* err 10000 too */
        t_sim_tick(s, &w, 5);
        it = t_find(&s->d, DECISION_LEVER, P);
        assert_non_null(it);
        assert_int_equal(it->reason, POLICY_REASON_RESERVE_BELOW_TARGET);
        free(s);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_decision_header),
                cmocka_unit_test(test_defrag_up_conditions),
                cmocka_unit_test(test_pressure_holds_proactiveness),
                cmocka_unit_test(test_pressure_of_the_stalls_does_not_hold),
                cmocka_unit_test(test_extfrag_comes_home),
                cmocka_unit_test(test_pressure_at_baseline_holds),
                cmocka_unit_test(test_defrag_decays_half_way_then_home),
                cmocka_unit_test(test_no_rollback_of_a_value_not_ours),
                cmocka_unit_test(test_backoff_after_one),
                cmocka_unit_test(test_clamp_hold_ends),
                cmocka_unit_test(test_kick_when_the_hold_ends),
                cmocka_unit_test(test_ties_go_to_the_first_want),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
