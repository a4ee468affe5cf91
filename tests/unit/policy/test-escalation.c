/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Escalation (policy/controller.c escalation(), policy/hysteresis.c): a
 * raise inside the dwell of the last raise is allowed when the error is real
 * now and at least twice the error the last raise answered; otherwise the
 * dwell holds. Lowering never escalates, the step and bounds still apply,
 * and the sentence says why the dwell did not. Seen in the 6.1 churn guest:
 * compaction_proactiveness 20->22 on a trend, then 42 % of THP faults fell
 * back and the 30 s dwell kept it at 22 through two more bursts. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "policy-test-util.h"

#define P LEVER_COMPACTION_PROACTIVENESS

static TSim *sim_new(usec_t dwell_sec)
{
        TSim *s = malloc(sizeof(*s));

        assert_non_null(s);
        t_sim_init(s);
        s->cfg.lever[P].dwell_usec = dwell_sec * USEC_PER_SEC;
        s->cfg.oneshot_compact = false;
        s->cfg.kick_interval_usec = 0;
        return s;
}

/* THP fallback ratio (permyriad) over a world whose reserves are met */
static TWorld world_fallback(unsigned permyriad)
{
        TWorld w = t_world_fine(1);

        w.fallback_ratio = permyriad / 10000.0;
        w.thp_alloc_per_sec = 10.0 * (10000 - permyriad) / 10000.0;
        w.thp_fallback_per_sec = 10.0 * permyriad / 10000.0;
        return w;
}

static void test_small_raise_then_big_error_escalates(void **state)
{
        TSim *s = sim_new(30);
        TWorld w = world_fallback(1100); /* 11 % over a 10 % limit: err 3700 */
        const DecisionItem *it;
        char text[512];
        int64_t first;

        (void) state;
        t_sim_tick(s, &w, 5);
        it = t_find(&s->d, DECISION_LEVER, P);
        assert_non_null(it);
        assert_false(it->escalated);
        assert_int_equal(it->err, 3700);
        first = it->to;
        assert_int_equal(first - it->from, 8); /* ceil(20 x 3700 / 10000): sized for the small error */
        assert_int_equal(s->state.lever[P].last_err, 3700);

        /* 4 s later, inside the 30 s dwell: 42 % fall back (err 10000) */
        w = world_fallback(4200);
        t_sim_tick(s, &w, 4);
        it = t_find(&s->d, DECISION_LEVER, P);
        assert_non_null(it);
        assert_true(it->escalated);
        assert_false(it->forced);
        assert_int_equal(it->from, first);
        assert_int_equal(it->to, first + 20); /* the full step: step_up still bounds it */
        assert_true(decision_explain(it, text, sizeof(text)) > 0);
        assert_non_null(strstr(text, "within the dwell of the last raise"));

        /* the same error again 1 s later: not twice the last one, the dwell holds */
        t_sim_tick(s, &w, 1);
        assert_null(t_find(&s->d, DECISION_LEVER, P));
        assert_non_null(t_find_held(&s->d, P));
        assert_int_equal(t_find_held(&s->d, P)->hold, POLICY_HOLD_DWELL);
        free(s);
}

static void test_same_error_waits_for_the_dwell(void **state)
{
        TSim *s = sim_new(30);
        TWorld w = world_fallback(4200);
        const DecisionItem *it;

        (void) state;
        t_sim_tick(s, &w, 5);
        assert_non_null(t_find(&s->d, DECISION_LEVER, P));
        for (unsigned i = 0; i < 5; i++) {
                t_sim_tick(s, &w, 5); /* 25 s: inside the dwell */
                assert_null(t_find(&s->d, DECISION_LEVER, P));
        }
        t_sim_tick(s, &w, 5); /* 30 s: the dwell has passed, an ordinary raise */
        it = t_find(&s->d, DECISION_LEVER, P);
        assert_non_null(it);
        assert_false(it->escalated);
        free(s);
}

/* the last raise answered a real error and the error grew: the raise did
 * not help, so the next does not wait (6.12: 13.7 % then 32 % fell back) */
static void test_growing_real_error_escalates(void **state)
{
        TSim *s = sim_new(30);
        TWorld w = world_fallback(1370); /* err 5590 */
        const DecisionItem *it;

        (void) state;
        t_sim_tick(s, &w, 5);
        assert_non_null(t_find(&s->d, DECISION_LEVER, P));
        w = world_fallback(3200); /* err 10000: not twice 5590, but larger */
        t_sim_tick(s, &w, 5);
        it = t_find(&s->d, DECISION_LEVER, P);
        assert_non_null(it);
        assert_true(it->escalated);
        free(s);
}

/* an error that doubled but is still only predictive does not escalate */
static void test_prediction_does_not_escalate(void **state)
{
        TSim *s = sim_new(30);
        TWorld w = world_fallback(1050); /* err 3350 */

        (void) state;
        t_sim_tick(s, &w, 5);
        assert_non_null(t_find(&s->d, DECISION_LEVER, P));
        s->state.lever[P].last_err = 1000; /* as if the last raise answered a trend */
        w = world_fallback(1000);          /* at the limit: no real error */
        t_sim_tick(s, &w, 2);
        assert_null(t_find(&s->d, DECISION_LEVER, P));
        free(s);
}

/* the escalation flag alone never lowers, and never skips a reversal */
static void test_rules_escalate_raises_only(void **state)
{
        PolicyConfig cfg;
        LeverTrack t = { .touched = true, .changed = true, .last_dir = 1, .last_applied = 30 };
        PolicyHold hold;
        usec_t now = 1000 * USEC_PER_SEC;

        (void) state;
        t_config(&cfg);
        cfg.lever[P].dwell_usec = 30 * USEC_PER_SEC;
        t.last_change_usec = now - 5 * USEC_PER_SEC;
        /* raise after raise: allowed */
        assert_int_equal(lever_rules_apply(&cfg, P, &t, 30, 50, LEVER_MOVE_ESCALATE, now, &hold), 50);
        /* lowering after a raise: still the dwell */
        assert_int_equal(lever_rules_apply(&cfg, P, &t, 30, 10, LEVER_MOVE_ESCALATE, now, &hold), 30);
        assert_int_equal(hold, POLICY_HOLD_DWELL);
        /* a raise after a lowering: the dwell too */
        t.last_dir = -1;
        assert_int_equal(lever_rules_apply(&cfg, P, &t, 30, 50, LEVER_MOVE_ESCALATE, now, &hold), 30);
        assert_int_equal(hold, POLICY_HOLD_DWELL);
        /* bounds and step still apply */
        t.last_dir = 1;
        assert_int_equal(lever_rules_apply(&cfg, P, &t, 30, 500, LEVER_MOVE_ESCALATE, now, &hold), 50);
        cfg.lever[P].max = 40;
        assert_int_equal(lever_rules_apply(&cfg, P, &t, 30, 500, LEVER_MOVE_ESCALATE, now, &hold), 40);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_small_raise_then_big_error_escalates),
                cmocka_unit_test(test_same_error_waits_for_the_dwell),
                cmocka_unit_test(test_growing_real_error_escalates),
                cmocka_unit_test(test_prediction_does_not_escalate),
                cmocka_unit_test(test_rules_escalate_raises_only),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
