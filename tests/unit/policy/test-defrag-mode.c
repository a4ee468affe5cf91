/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vm.defrag_mode as a lever (policy/defrag-mode.c, docs/policy.md
 * "defrag_mode"): on when pageblock pollution grows with large-folio
 * demand, never after an outside value, held by pressure and its bound;
 * the cost check and the back-off with its hold. */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy-test-util.h"

#define DM LEVER_DEFRAG_MODE
#define MIN_ (60 * USEC_PER_SEC)

static TSim *sim_new(void)
{
        TSim *s = calloc(1, sizeof(*s));

        assert_non_null(s);
        t_sim_init(s);
        t_lever(&s->cfg, DM, 0, 1, 1, 1, 10 * MIN_, 60 * MIN_);
        s->in[DM] = (LeverInput) { .available = true, .current = 0, .baseline = 0 };
        return s;
}

/* one minute ticks; THP faults, one in 21 falling back (unmet
 * large-folio demand), unless told otherwise */
static TWorld world(void)
{
        TWorld w = t_world_fine(1);

        w.interval_sec = 60;
        w.thp_alloc_per_sec = 20;
        w.thp_fallback_per_sec = 1;
        w.blocks_total = 4096;
        w.nonmovable_blocks = 100;
        return w;
}

/* the first defrag_mode item within n one-minute ticks, NULL if none */
static const DecisionItem *first_item(TSim *s, const TWorld *w, unsigned minutes)
{
        const DecisionItem *it = NULL;

        for (unsigned m = 0; m < minutes && !it; m++)
                it = t_find(t_sim_tick(s, w, 60), DECISION_LEVER, DM);
        return it;
}

/* a pagetypeinfo reading every 10 minutes, non-movable blocks growing by
 * per_reading each time; n minutes. Returns the last decision's item for
 * defrag_mode, NULL if none came. */
static const DecisionItem *run_growth(TSim *s, TWorld *w, unsigned minutes, uint64_t per_reading)
{
        const DecisionItem *found = NULL;

        for (unsigned m = 0; m < minutes; m++) {
                const Decision *d;

                if (m % 10 == 0) {
                        w->blocks_usec = s->now + MIN_;
                        w->nonmovable_blocks += per_reading;
                }
                d = t_sim_tick(s, w, 60);
                if (t_find(d, DECISION_LEVER, DM))
                        found = t_find(d, DECISION_LEVER, DM);
        }
        return found;
}

static void test_on_when_blocks_grow(void **state)
{
        TSim *s = sim_new();
        TWorld w = world();
        const DecisionItem *it;
        char text[DECISION_TEXT_MAX];

        (void) state;
        /* readings 110, 120, 130: 20 blocks, under 0.5 % of 4096 (20.48);
         * the fourth, 140: 30 blocks in 30 min, over it and over 4 */
        assert_null(run_growth(s, &w, 30, 10));
        it = run_growth(s, &w, 2, 10); /* decided at the tick after the reading */
        assert_non_null(it);
        assert_int_equal(it->from, 0);
        assert_int_equal(it->to, 1);
        assert_int_equal(it->reason, POLICY_REASON_PAGEBLOCK_POLLUTION);
        assert_int_equal(it->num.dm.blocks_from, 110);
        assert_int_equal(it->num.dm.blocks_to, 140);
        assert_int_equal(it->num.dm.blocks_total, 4096);
        assert_true(it->num.dm.demand_bytes > 0);
        assert_int_equal(s->in[DM].current, 1);
        assert_true(s->state.dm.on);
        (void) decision_explain(it, text, sizeof(text));
        assert_non_null(strstr(text, "raise defrag_mode 0\u21921"));
        assert_non_null(strstr(text, "non-movable pageblocks grew from 110 to 140 of 4096 in 30 min"));
        assert_string_equal(policy_reason_name(it->reason), "pageblock_pollution");
        free(s);
}

/* 20 blocks in the hour is under 0.5 % of 4096: not growth that counts */
static void test_small_growth_ignored(void **state)
{
        TSim *s = sim_new();
        TWorld w = world();

        (void) state;
        assert_null(run_growth(s, &w, 60, 4));
        assert_int_equal(s->in[DM].current, 0);
        /* the same with 64 blocks in all: 0.5 % of 4096 is 20.48 */
        w.blocks_total = 512;
        assert_non_null(run_growth(s, &w, 11, 4));
        free(s);
}

static void test_no_demand_no_move(void **state)
{
        TSim *s = sim_new();
        TWorld w = world();

        (void) state;
        w.thp_alloc_per_sec = 0;
        w.thp_fallback_per_sec = 0;
        assert_null(run_growth(s, &w, 60, 50));
        assert_null(t_find_held(&s->d, DM));
        free(s);
}

/* THP faults the free lists served in full are no demand (the aged 7.3
 * host: 2 MiB of a preparation's served faults turned it on at start):
 * the same growth with every fault served moves nothing; one fault in 21
 * falling back does */
static void test_served_faults_no_demand(void **state)
{
        TSim *s = sim_new();
        TWorld w = world();

        (void) state;
        w.thp_fallback_per_sec = 0;
        assert_null(run_growth(s, &w, 60, 50));
        assert_null(t_find_held(&s->d, DM));
        free(s);
        s = sim_new();
        w = world();
        assert_non_null(run_growth(s, &w, 60, 50));
        free(s);
}

/* polluting fallbacks at 0.1/s over the window turn it on without any
 * pagetypeinfo reading; 0.05/s does not */
static void test_on_by_extfrag(void **state)
{
        TSim *s = sim_new();
        TWorld w = world();
        const DecisionItem *it = NULL;

        (void) state;
        w.extfrag = true;
        w.polluting = 3; /* per minute: 0.05/s */
        for (unsigned m = 0; m < 30; m++)
                assert_null(t_find(t_sim_tick(s, &w, 60), DECISION_LEVER, DM));
        w.polluting = 12; /* 0.2/s: the window's mean reaches 0.1/s after 3 minutes */
        it = first_item(s, &w, 10);
        assert_non_null(it);
        assert_int_equal(it->reason, POLICY_REASON_PAGEBLOCK_POLLUTION);
        assert_true(it->num.dm.extfrag);
        assert_true(it->num.dm.polluting_milli >= POLICY_DM_POLLUTING_MIN_MILLI);
        free(s);
}

/* found on (the operator's, or a boot parameter): never touched; set by
 * someone else to 0 after fragd saw 1: never turned on again */
static void test_outside_value_respected(void **state)
{
        TSim *s = sim_new();
        TWorld w = world();

        (void) state;
        s->in[DM].current = s->in[DM].baseline = 1;
        assert_null(run_growth(s, &w, 30, 50));
        assert_true(s->state.dm.outside);
        s->in[DM].current = 0; /* someone turns it off */
        assert_null(run_growth(s, &w, 60, 50));
        assert_int_equal(s->in[DM].current, 0);
        free(s);
}

/* fragd's value handed back (fragd pause restores the kernel's 0): not an
 * outside value, fragd decides again; someone setting 1 while it is off
 * is one */
static void test_handed_back(void **state)
{
        TSim *s = sim_new();
        TWorld w = world();
        const DecisionItem *it = NULL;

        (void) state;
        /* 150 -> 200 at the second reading: on at the tick after it */
        for (unsigned m = 0; m < 15 && !it; m++)
                it = run_growth(s, &w, 1, m % 10 == 0 ? 50 : 0);
        assert_non_null(it);
        assert_int_equal(s->in[DM].current, 1);
        /* handed back within the dwell: nothing decided, not outside */
        s->in[DM].current = 0;
        assert_null(t_find(t_sim_tick(s, &w, 60), DECISION_LEVER, DM));
        assert_false(s->state.dm.outside);
        assert_false(s->state.dm.on);
        /* the blocks still grow: on again once the dwell is over */
        it = first_item(s, &w, 12);
        assert_non_null(it);
        assert_int_equal(it->to, 1);
        free(s);

        s = sim_new();
        w = world();
        (void) t_sim_tick(s, &w, 60);
        s->in[DM].current = 1; /* the operator */
        (void) t_sim_tick(s, &w, 60);
        assert_true(s->state.dm.outside);
        free(s);
}

/* memory pressure over the ceiling holds it; max = 0 forbids it */
static void test_held(void **state)
{
        TSim *s = sim_new();
        TWorld w = world();
        const PolicyHeldItem *h;

        (void) state;
        w.psi_some = 5000;
        assert_null(run_growth(s, &w, 31, 50));
        h = t_find_held(&s->d, DM);
        assert_non_null(h);
        assert_int_equal(h->hold, POLICY_HOLD_PSI);
        assert_int_equal(h->wanted, 1);
        free(s);

        s = sim_new();
        w = world();
        s->cfg.lever[DM].max = 0;
        assert_null(run_growth(s, &w, 31, 50));
        h = t_find_held(&s->d, DM);
        assert_non_null(h);
        assert_int_equal(h->hold, POLICY_HOLD_AT_BOUND);
        free(s);
}

/* Allocations stalling in direct compaction (1/s against the 0.1/s limit)
 * hold it, said so: with it on they would compact before any fallback
 * (static defrag_mode=1 on stock 7.3: 1496 postgres direct compactions
 * against 8). Not for the 10 minutes after the last stall either (the
 * next burst comes); then it goes on. Fails without the rule. */
static void test_held_while_stalling(void **state)
{
        TSim *s = sim_new();
        TWorld w = world();
        const PolicyHeldItem *h;
        const DecisionItem *it;
        char text[DECISION_TEXT_MAX];

        (void) state;
        w.stall_per_sec = 1.0;
        assert_null(run_growth(s, &w, 31, 50));
        assert_int_equal(s->in[DM].current, 0);
        h = t_find_held(&s->d, DM);
        assert_non_null(h);
        assert_int_equal(h->hold, POLICY_HOLD_DIRECT_COMPACTION);
        assert_int_equal(h->wanted, 1);
        assert_string_equal(policy_hold_name(h->hold), "direct_compaction");
        assert_true(policy_hold_shown(h->hold));
        assert_true(decision_explain_held(h, text, sizeof(text)) > 0);
        assert_non_null(strstr(text, "stall in direct compaction already"));
        w.stall_per_sec = 0;
        assert_null(first_item(s, &w, 9));
        h = t_find_held(&s->d, DM);
        assert_non_null(h);
        assert_int_equal(h->hold, POLICY_HOLD_DIRECT_COMPACTION);
        it = first_item(s, &w, 3);
        assert_non_null(it);
        assert_int_equal(it->to, 1);
        free(s);
}

/* the formula, by hand (docs/policy.md "defrag_mode") */
static void test_cost_formula(void **state)
{
        DefragModeWindow before = { .span_sec = 600, .stalls = 120, .kswapd_pages = 60000, .extfrag_sec = 600,
                                    .polluting = 600 };
        DefragModeWindow after = before;
        DefragModeNumbers n = {};

        (void) state;
        /* stalls 0.2 -> 0.3/s: +0.1 over the 0.05 floor, rise 50 %;
         * pollution 1.0 -> 0.4/s: fall 60 %: it pays */
        after.stalls = 180;
        after.polluting = 240;
        assert_false(policy_defrag_mode_cost(&before, &after, &n));
        assert_int_equal(n.stall_before_milli, 200);
        assert_int_equal(n.stall_after_milli, 300);
        assert_int_equal(n.cost_rise_permyriad, 5000);
        assert_int_equal(n.pollution_fall_permyriad, 6000);
        assert_false(n.by_blocks);
        /* pollution 1.0 -> 0.6/s: fall 40 % < 50 %: back off */
        after.polluting = 360;
        assert_true(policy_defrag_mode_cost(&before, &after, &n));
        assert_int_equal(n.pollution_fall_permyriad, 4000);
        /* a stall rise within the floor costs nothing: 0.2 -> 0.24/s */
        after.stalls = 144;
        assert_false(policy_defrag_mode_cost(&before, &after, &n));
        assert_int_equal(n.cost_rise_permyriad, 0);
        /* kswapd 100 -> 300 pages/s: +200, within the 256 floor; 100 ->
         * 612: +512 over max(100, 256), rise 200 % */
        after.kswapd_pages = 180000;
        assert_false(policy_defrag_mode_cost(&before, &after, &n));
        after.kswapd_pages = 367200;
        assert_true(policy_defrag_mode_cost(&before, &after, &n));
        assert_int_equal(n.kswapd_before_milli, 100000);
        assert_int_equal(n.kswapd_after_milli, 612000);
        assert_int_equal(n.cost_rise_permyriad, 20000);
        /* the fallbacks counted over less than half of a window: the
         * blocks instead (per hour) */
        after = before;
        after.extfrag_sec = 200;
        before.blocks_per_hour = 30;
        before.blocks_span_usec = 3600 * USEC_PER_SEC;
        after.blocks_per_hour = 3;
        after.blocks_span_usec = 600 * USEC_PER_SEC;
        after.stalls = 540; /* 0.9/s: rise 350 % */
        assert_true(policy_defrag_mode_cost(&before, &after, &n));
        assert_true(n.by_blocks);
        assert_int_equal(n.pollution_fall_permyriad, 9000);
        assert_int_equal(n.cost_rise_permyriad, 35000);
        /* no pollution measured at all: any cost past the floors backs off */
        after.blocks_span_usec = 0;
        after.stalls = 180;
        assert_true(policy_defrag_mode_cost(&before, &after, &n));
        assert_int_equal(n.pollution_fall_permyriad, 0);
        after.stalls = 120;
        assert_false(policy_defrag_mode_cost(&before, &after, &n));
}

/* Turned on by the fallbacks, then the stalls rise tenfold while the
 * pollution falls by a fifth: off after the settle time and one window,
 * held off for 6 h (said in the sentence), on again after it; a second
 * back-off holds 12 h. */
static void test_backoff_and_hold(void **state)
{
        TSim *s = sim_new();
        TWorld w = world();
        const DecisionItem *it = NULL;
        const PolicyHeldItem *h;
        char text[DECISION_TEXT_MAX];
        usec_t on_at, off_at;
        unsigned m;

        (void) state;
        w.extfrag = true;
        w.polluting = 60; /* 1/s */
        w.allocstall_per_sec = 0.1;
        for (m = 0; m < 20 && !it; m++)
                it = t_find(t_sim_tick(s, &w, 60), DECISION_LEVER, DM);
        assert_non_null(it);
        assert_int_equal(it->to, 1);
        on_at = s->now;
        /* with it on: stalls 0.1 -> 1.0/s, pollution 1 -> 0.8/s */
        w.allocstall_per_sec = 1.0;
        w.polluting = 48;
        it = first_item(s, &w, 30);
        assert_non_null(it);
        off_at = s->now;
        /* not before the settle minute and a whole window */
        assert_true(off_at - on_at >= POLICY_DM_SETTLE_USEC + POLICY_DM_WINDOW_USEC);
        assert_true(off_at - on_at <= POLICY_DM_SETTLE_USEC + POLICY_DM_WINDOW_USEC + 2 * MIN_);
        assert_int_equal(it->from, 1);
        assert_int_equal(it->to, 0);
        assert_int_equal(it->reason, POLICY_REASON_DEFRAG_MODE_COST);
        assert_true(it->forced);
        assert_int_equal(it->num.dm.stall_before_milli, 100);
        assert_int_equal(it->num.dm.stall_after_milli, 1000);
        assert_int_equal(it->num.dm.pollution_before_milli, 1000);
        assert_int_equal(it->num.dm.pollution_after_milli, 800);
        assert_int_equal(it->num.dm.cost_rise_permyriad, 90000);
        assert_int_equal(it->num.dm.pollution_fall_permyriad, 2000);
        assert_int_equal(it->num.dm.hold_usec, POLICY_DM_HOLD_USEC);
        (void) decision_explain(it, text, sizeof(text));
        assert_non_null(strstr(text, "lower defrag_mode 1\u21920"));
        assert_non_null(strstr(text, "0.10/s -> 1.00/s"));
        assert_non_null(strstr(text, "cost up 900.00%, pollution down 20.00%"));
        assert_non_null(strstr(text, "held off for 6 h"));
        assert_false(s->state.dm.on);
        assert_int_equal(s->state.dm.hold_until_usec, off_at + POLICY_DM_HOLD_USEC);

        /* pollution back at 1/s, stalls back: held (backoff) for 6 h */
        w.polluting = 60;
        w.allocstall_per_sec = 0.1;
        for (m = 0; s->now + 60 * USEC_PER_SEC < off_at + POLICY_DM_HOLD_USEC; m++) {
                const Decision *d = t_sim_tick(s, &w, 60);

                assert_null(t_find(d, DECISION_LEVER, DM));
        }
        h = t_find_held(&s->d, DM);
        assert_non_null(h);
        assert_int_equal(h->hold, POLICY_HOLD_BACKOFF);
        (void) decision_explain_held(h, text, sizeof(text));
        assert_non_null(strstr(text, "held off"));
        it = first_item(s, &w, 5);
        assert_non_null(it);
        assert_int_equal(it->to, 1);
        /* costs again: the second back-off holds twice as long */
        w.allocstall_per_sec = 1.0;
        w.polluting = 48;
        it = first_item(s, &w, 30);
        assert_non_null(it);
        assert_int_equal(it->to, 0);
        assert_int_equal(it->num.dm.hold_usec, 2 * POLICY_DM_HOLD_USEC);
        assert_int_equal(s->state.dm.hold_until_usec, s->now + 2 * POLICY_DM_HOLD_USEC);
        free(s);
}

/* on, and the pollution falls by three quarters at a small cost: stays on
 * for hours */
static void test_stays_on_when_it_pays(void **state)
{
        TSim *s = sim_new();
        TWorld w = world();
        const DecisionItem *it = NULL;
        unsigned m;

        (void) state;
        w.extfrag = true;
        w.polluting = 60;
        w.allocstall_per_sec = 0.2;
        w.kswapd_scan_per_sec = 1000;
        it = first_item(s, &w, 20);
        assert_non_null(it);
        w.polluting = 15;
        w.allocstall_per_sec = 0.3;    /* +50 % */
        w.kswapd_scan_per_sec = 1500; /* +50 % */
        for (m = 0; m < 240; m++)
                assert_null(t_find(t_sim_tick(s, &w, 60), DECISION_LEVER, DM));
        assert_int_equal(s->in[DM].current, 1);
        free(s);
}

/* The observe preset decides the same and applies nothing */
static void test_observe_not_applied(void **state)
{
        TSim *s = sim_new();
        TWorld w = world();
        const DecisionItem *it;

        (void) state;
        s->cfg.preset = PRESET_OBSERVE;
        it = run_growth(s, &w, 31, 50);
        assert_non_null(it);
        assert_false(s->d.apply);
        assert_int_equal(s->in[DM].current, 0);
        free(s);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_on_when_blocks_grow),
                cmocka_unit_test(test_small_growth_ignored),
                cmocka_unit_test(test_no_demand_no_move),
                cmocka_unit_test(test_served_faults_no_demand),
                cmocka_unit_test(test_on_by_extfrag),
                cmocka_unit_test(test_outside_value_respected),
                cmocka_unit_test(test_handed_back),
                cmocka_unit_test(test_held),
                cmocka_unit_test(test_held_while_stalling),
                cmocka_unit_test(test_cost_formula),
                cmocka_unit_test(test_backoff_and_hold),
                cmocka_unit_test(test_stays_on_when_it_pays),
                cmocka_unit_test(test_observe_not_applied),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
