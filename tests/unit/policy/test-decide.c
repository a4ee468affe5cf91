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

/* Memory pressure over the ceiling: the reserve levers come down, the
 * raise of proactiveness is held, proactiveness itself is not lowered
 * (kcompactd's work is not what PSI counts). */
static void test_pressure_holds_proactiveness(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);
        const PolicyHeldItem *h;
        const DecisionItem *it;

        (void) state;
        s->cfg.kick_interval_usec = 0;
        s->cfg.oneshot_compact = false;
        s->in[P].current = 60;
        s->in[LEVER_WATERMARK_SCALE_FACTOR].current = 110;
        w.node[0].ge_thp_pages = 2000;
        w.psi_some = 1500;
        t_sim_tick(s, &w, 5);
        assert_null(t_find(&s->d, DECISION_LEVER, P));
        h = t_find_held(&s->d, P);
        assert_non_null(h);
        assert_int_equal(h->hold, POLICY_HOLD_PSI);
        it = t_find(&s->d, DECISION_LEVER, LEVER_WATERMARK_SCALE_FACTOR);
        assert_non_null(it);
        assert_int_equal(it->reason, POLICY_REASON_PSI_CEILING);
        assert_int_equal(it->to, 90);
        assert_int_equal(it->num.psi_some_permyriad, 1500);
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
                assert_int_equal(it->to, it->from - 100);
                decays++;
        }
        assert_int_equal(decays, 3);
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
        w = t_world_fine(1);
        for (unsigned i = 0; i < 300; i++)
                t_sim_tick(s, &w, 5);
        assert_int_equal(s->in[EXTFRAG].current, 500);
        free(s);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_decision_header),
                cmocka_unit_test(test_defrag_up_conditions),
                cmocka_unit_test(test_pressure_holds_proactiveness),
                cmocka_unit_test(test_extfrag_comes_home),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
