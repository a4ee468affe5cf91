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
        assert_false(it->escalated_target); /* the error grew, not the target */
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

/* An error that doubled but is still only predictive does not escalate:
 * a reserve falling 200 pages/s (from 40000 toward its 10486-page target)
 * is raised for on the trend once its crossing is predicted inside the
 * 120 s horizon (err = 3000 x (120 s - eta) / 120 s, under ERR_PRED); 5 s
 * later, inside the 30 s dwell, the reserve has fallen faster and the
 * predicted error is more than twice the last one, still under ERR_PRED:
 * the dwell holds. (Set at the limit instead, as this test once was, there
 * is no error at all and escalation() is never asked.) */
static void test_prediction_does_not_escalate(void **state)
{
        TSim *s = sim_new(30);
        TWorld w = t_world_fine(1);
        const DecisionItem *it = NULL;
        const PolicyHeldItem *h;
        int32_t first_err, now_err;
        unsigned i;

        (void) state;
        for (i = 0; i < 20 && !it; i++) {
                w.node[0].ge_thp_pages = 40000 - 1000 * i;
                t_sim_tick(s, &w, 5);
                it = t_find(&s->d, DECISION_LEVER, P);
        }
        assert_non_null(it);
        assert_int_equal(it->reason, POLICY_REASON_RESERVE_TREND);
        assert_true(it->err > 0 && it->err < 1000);
        first_err = it->err;

        /* 5 s later: 4000 pages gone instead of 1000 */
        w.node[0].ge_thp_pages -= 4000;
        t_sim_tick(s, &w, 5);
        h = t_find_held(&s->d, P);
        assert_null(t_find(&s->d, DECISION_LEVER, P));
        assert_non_null(h);
        assert_int_equal(h->hold, POLICY_HOLD_DWELL);
        assert_int_equal(h->reason, POLICY_REASON_RESERVE_TREND);
        assert_true(h->num.have_bytes >= h->num.target_bytes);
        assert_true(h->num.eta_usec < s->cfg.trend_horizon_usec);
        /* the error the want carried, by the formula in evaluate.c's header */
        now_err = (int32_t) (3000 * (s->cfg.trend_horizon_usec - h->num.eta_usec) / s->cfg.trend_horizon_usec);
        assert_true(now_err >= 2 * first_err);
        assert_true(now_err < 3000);
        free(s);
}

/* One raise on an 11 % fallback (err 3700); then the last raise is made
 * to look as if it had answered last_err, and 1 s later (inside the 30 s
 * dwell) the fallback is `permyriad`: did the raise escalate? */
static bool escalates_after(unsigned permyriad, int32_t last_err)
{
        TSim *s = sim_new(30);
        TWorld w = world_fallback(1100);
        const DecisionItem *it;
        bool esc;

        t_sim_tick(s, &w, 5);
        assert_non_null(t_find(&s->d, DECISION_LEVER, P));
        s->state.lever[P].last_err = last_err;
        w = world_fallback(permyriad);
        t_sim_tick(s, &w, 1);
        it = t_find(&s->d, DECISION_LEVER, P);
        esc = it && it->escalated;
        if (!it)
                assert_int_equal(t_find_held(&s->d, P)->hold, POLICY_HOLD_DWELL);
        free(s);
        return esc;
}

/* The two ways past the dwell, each at its edge (fallback over a 10 %
 * limit: err = 3000 + 7000 x (f - 1000) / 1000, f in permyriad). */
static void test_escalation_edges(void **state)
{
        (void) state;
        /* twice the last error, exactly: 11 % -> 3700 = 2 x 1850 */
        assert_true(escalates_after(1100, 1850));
        assert_false(escalates_after(1100, 1851));
        /* a last error of 0 counts as 1: any real error is twice it */
        assert_true(escalates_after(1100, 0));
        /* the last raise answered a real error (>= 3000, exactly 3000
         * included) and the error grew, if only a little */
        assert_true(escalates_after(1100, 3000));
        assert_true(escalates_after(1100, 3699));
        assert_false(escalates_after(1100, 3700)); /* the same error: the dwell */
        /* it answered a prediction (2999 < 3000): growing is not enough,
         * it must double */
        assert_false(escalates_after(1100, 2999));
        assert_false(escalates_after(1100, 2000));
        /* a real error under ERR_PRED does not exist; a prediction that
         * doubled does not escalate (test_prediction_does_not_escalate) */
}

/* A target that outgrew the last raise (controller.c target_outgrew()): a
 * burst learned while it arrives. The first raise answers the part seen
 * (248 MiB, 58 MiB in THP blocks: 77 % short); 3 s later, inside the 30 s
 * dwell, the target is 475 MiB with 292 MiB in blocks: 38 % short, a
 * smaller error, but a level above the lever's. tgt2/have2 in MiB; returns
 * the second tick's item (NULL: none) and sets *first, *aim2, *held. */
#define MIB_PAGES (1024 * 1024 / T_PAGE)
/* The first raise, for 248 MiB with 58 MiB in THP blocks (kicks: a raise
 * goes to the aim, as shipped; without, by the step); then the target
 * becomes tgt2 MiB with have2 MiB in blocks and the next tick comes after
 * sec seconds. Returns the simulation, the first raise's value in *first. */
static TSim *grow_target(bool kicks, uint64_t tgt2, uint64_t have2, unsigned sec, int64_t *first)
{
        TSim *s = sim_new(30);
        TWorld w = t_world_fine(1);
        const DecisionItem *it;

        if (kicks)
                s->cfg.kick_interval_usec = 5 * USEC_PER_SEC;
        w.node[0].ge_thp_pages = 58 * MIB_PAGES;
        s->cfg.reserve_thp = (SizeSpec){ .bytes = 248ULL << 20 };
        t_sim_tick(s, &w, 5);
        it = t_find(&s->d, DECISION_LEVER, P);
        assert_non_null(it);
        assert_false(it->escalated);
        assert_int_equal(s->state.lever[P].last_target_bytes, 248ULL << 20);
        *first = it->to;
        w.node[0].ge_thp_pages = have2 * MIB_PAGES;
        s->cfg.reserve_thp = (SizeSpec){ .bytes = tgt2 << 20 };
        t_sim_tick(s, &w, sec);
        return s;
}

static bool outgrew_case(uint64_t tgt2, uint64_t have2, int64_t *first, int64_t *to, bool *held)
{
        TSim *s = grow_target(true, tgt2, have2, 3, first);
        const DecisionItem *it = t_find(&s->d, DECISION_LEVER, P);
        bool esc;

        *to = it ? it->to : -1;
        if (it && it->escalated) {
                char text[512];

                assert_true(it->escalated_target);
                assert_true(decision_explain(it, text, sizeof(text)) > 0);
                assert_non_null(strstr(text, "within the dwell of the last raise, which answered a smaller target"));
        }
        esc = it && it->escalated;
        *held = t_find_held(&s->d, P) && t_find_held(&s->d, P)->hold == POLICY_HOLD_DWELL;
        free(s);
        return esc;
}

static void test_target_outgrew_escalates(void **state)
{
        int64_t first, to;
        bool held;

        (void) state;
        /* the target grew and needs more than the lever has: past the dwell */
        assert_true(outgrew_case(475, 292, &first, &to, &held));
        assert_int_equal(first, 23); /* the aim of 248 MiB with 1953 MiB free: score 87 */
        assert_int_equal(to, 35);    /* the aim of 475 MiB: score 75, and no further */
        assert_false(held);
        /* the same target, a smaller error: no raise within the dwell (at
         * the aim the kicks serve it) */
        assert_false(outgrew_case(248, 120, &first, &to, &held));
        assert_int_equal(to, -1);
        /* a target grown by a little, which the first raise's level already
         * keeps (its aim is not above the lever): no raise past the dwell */
        assert_false(outgrew_case(250, 200, &first, &to, &held));
        assert_int_equal(to, -1);
}

/* The last raise answered no target (a fallback rate: num.target_bytes 0),
 * or one of 1 byte: a reserve target after it escalates only past a target
 * that was there (0: nothing outgrown), and past a 1-byte one it does. */
static void test_outgrew_needs_a_last_target(void **state)
{
        for (unsigned last = 0; last <= 1; last++) {
                TSim *s = sim_new(30);
                TWorld w = world_fallback(1100);
                const DecisionItem *it;

                (void) state;
                t_sim_tick(s, &w, 5);
                it = t_find(&s->d, DECISION_LEVER, P);
                assert_non_null(it);
                assert_int_equal(s->state.lever[P].last_target_bytes, 0); /* a rate has no target */
                s->cfg.kick_interval_usec = 5 * USEC_PER_SEC; /* from here a raise goes to the aim */
                s->state.lever[P].last_target_bytes = last;
                s->state.lever[P].last_target_order = 9; /* the THP target's, on node 0 */
                s->state.lever[P].last_target_node = 0;
                s->state.lever[P].last_err = 10000; /* no error escalation */
                w = t_world_fine(1);
                w.node[0].ge_thp_pages = 100 * MIB_PAGES;
                s->cfg.reserve_thp = (SizeSpec){ .bytes = 900ULL << 20 };
                t_sim_tick(s, &w, 2);
                it = t_find(&s->d, DECISION_LEVER, P);
                if (last == 0) {
                        assert_null(it);
                        assert_non_null(t_find_held(&s->d, P));
                        assert_int_equal(t_find_held(&s->d, P)->hold, POLICY_HOLD_DWELL);
                } else {
                        assert_non_null(it);
                        assert_true(it->escalated_target);
                }
                free(s);
        }
}

/* The target the last raise answered outgrew it while another node's
 * target leads this tick. Two nodes of 4 and 8 GiB (reserve_thp 6 %:
 * 245 and 491 MiB); the first raise answers node 1's (58 MiB in blocks).
 * 3 s later reserve_thp is 10 %: node 1's target 819 MiB with 600 MiB in
 * blocks (err 3000 + 7000 x 219 / 819 = 4872), node 0's 409 MiB with 150
 * (err 7433): node 0 leads, its target is under the 491 MiB the last
 * raise answered, and its error under that raise's (9173), so neither
 * error rule escalates. Node 1's own target grew, 491 -> 819 MiB: that
 * escalates past the dwell as when it leads. (Comparing the leading
 * objective's target held the raise through the dwell while the same
 * host with node 0 less fragmented escalated: the property test's
 * monotonicity.) */
static void test_outgrew_under_another_node(void **state)
{
        int64_t first;
        TSim *s = sim_new(30);
        TWorld w = t_world_fine(2);
        const DecisionItem *it;

        (void) state;
        s->cfg.kick_interval_usec = 5 * USEC_PER_SEC;
        w.node[1].managed_pages = 2 * T_MANAGED;
        w.node[1].ge_thp_pages = 58 * MIB_PAGES;
        s->cfg.reserve_thp = (SizeSpec){ .permyriad = 600 };
        t_sim_tick(s, &w, 5);
        it = t_find(&s->d, DECISION_LEVER, P);
        assert_non_null(it);
        first = it->to;
        assert_int_equal(s->state.lever[P].last_target_node, 1);
        assert_int_equal(s->state.lever[P].last_target_order, 9);
        w.node[1].ge_thp_pages = 600 * MIB_PAGES;
        w.node[0].ge_thp_pages = 150 * MIB_PAGES;
        s->cfg.reserve_thp = (SizeSpec){ .permyriad = 1000 };
        t_sim_tick(s, &w, 3);
        it = t_find(&s->d, DECISION_LEVER, P);
        assert_non_null(it);
        assert_int_equal(it->num.node, 0);
        assert_true(it->escalated_target);
        assert_true(it->to > first);
        free(s);
}

/* Past the dwell a raise is an ordinary one, even when it would have
 * escalated: neither flag, and no "within the dwell" in the sentence. */
static void test_outgrew_after_the_dwell_is_ordinary(void **state)
{
        int64_t first;
        TSim *s = grow_target(true, 475, 292, 31, &first);
        const DecisionItem *it = t_find(&s->d, DECISION_LEVER, P);
        char text[512];

        (void) state;
        assert_non_null(it);
        assert_int_equal(it->to, 35);
        assert_false(it->escalated);
        assert_false(it->escalated_target);
        assert_true(decision_explain(it, text, sizeof(text)) > 0);
        assert_null(strstr(text, "within the dwell"));
        free(s);
}

/* Kicks off (the raise is the integral's, past the aim): the first raise
 * for 248 MiB goes 20->37 by the step. A target of 517 MiB needs 37 (score
 * 73 of 1953 MiB free): the lever has it, nothing escalates, the dwell
 * holds; 530 MiB needs 38: past the dwell. */
static void test_outgrew_only_past_the_lever(void **state)
{
        static const struct {
                uint64_t tgt;
                bool esc;
        } cases[] = { { 517, false }, { 530, true } };

        (void) state;
        for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
                int64_t first;
                TSim *s = grow_target(false, cases[c].tgt, 292, 3, &first);
                const DecisionItem *it = t_find(&s->d, DECISION_LEVER, P);

                assert_int_equal(first, 37);
                if (cases[c].esc) {
                        assert_non_null(it);
                        assert_true(it->escalated_target);
                } else {
                        assert_null(it);
                        assert_int_equal(t_find_held(&s->d, P)->hold, POLICY_HOLD_DWELL);
                }
                free(s);
        }
}

/* A lowering forgets the target: a raise after it is sized afresh and
 * waits for the dwell like any first raise. */
static void test_lowering_forgets_the_target(void **state)
{
        TSim *s = sim_new(30);

        (void) state;
        s->state.lever[P].last_target_bytes = 1;
        s->state.lever[P].last_dir = -1;
        {
                DecisionItem it = { .kind = DECISION_LEVER, .lever = P, .from = 40, .to = 30, .applied = true };
                Decision *d = calloc(1, sizeof(*d));

                assert_non_null(d);
                it.num.target_bytes = 999;
                d->items[0] = it;
                d->n_items = 1;
                t_assess(&(TWorld){ .n_nodes = 1, .rates_valid = true, .fallback_ratio = -1, .node = { t_node_fine() } },
                         s->now, &s->a);
                policy_state_update(&s->state, &s->a, d, s->now + USEC_PER_SEC);
                free(d);
        }
        assert_int_equal(s->state.lever[P].last_dir, -1);
        assert_int_equal(s->state.lever[P].last_target_bytes, 0);
        free(s);
}

/* A raise the kernel did not keep (it reads back less than was written)
 * is no raise to escalate from: the dwell holds until the outside change
 * has been seen. */
static void test_clamped_raise_does_not_escalate(void **state)
{
        TSim *s = sim_new(30);
        TWorld w = world_fallback(1100);
        const DecisionItem *it;

        (void) state;
        s->clamp_max[P] = 24;
        t_sim_tick(s, &w, 5);
        it = t_find(&s->d, DECISION_LEVER, P);
        assert_non_null(it);
        assert_int_equal(it->to, 28);
        assert_int_equal(s->in[P].current, 24);
        w = world_fallback(4200); /* err 10000: would escalate from 28 */
        t_sim_tick(s, &w, 4);
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
                cmocka_unit_test(test_escalation_edges),
                cmocka_unit_test(test_target_outgrew_escalates),
                cmocka_unit_test(test_lowering_forgets_the_target),
                cmocka_unit_test(test_outgrew_needs_a_last_target),
                cmocka_unit_test(test_outgrew_under_another_node),
                cmocka_unit_test(test_outgrew_only_past_the_lever),
                cmocka_unit_test(test_outgrew_after_the_dwell_is_ordinary),
                cmocka_unit_test(test_clamped_raise_does_not_escalate),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
