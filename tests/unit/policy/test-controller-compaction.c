/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Scenario tests for the compaction objectives, run through
 * decide/apply/update with the decisions and reasons expected at each stage:
 * a steady host, a fragmenting node (a trend raise before the crossing), a
 * recovered reserve and a steady decline, recovery and decay, back-off when
 * compaction does not pay and none when it does, stalls and THP defrag,
 * watched workloads over and under their stall budget, observe, and a
 * baseline outside the bounds. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "controller-test-util.h"

static void test_steady_host_gets_nothing(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(2);

        for (unsigned i = 0; i < 400; i++) {
                const Decision *d = t_sim_tick(s, &w, 5);

                assert_int_equal(d->n_items, 0);
                assert_int_equal(d->n_held, 0);
                assert_true(d->apply);
        }
        assert_true(s->d.eval.targets_met);
        assert_false(s->d.eval.targets_missed);
        free(s);
}

static void test_fragmenting_acts_before_crossing(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(2);
        bool seen_trend = false, seen_below = false, seen_oneshot = false;
        unsigned oneshots = 0;
        int64_t last_pro = 20;

        /* node 1 fragments: order>=9 memory falls 250 pages/s from 30000,
         * crossing its 10485-page target after ~78 s; free stays 2 GiB */
        w.node[1].ge_thp_pages = 30000;
        w.node[1].ge_large_pages = 100000;
        for (unsigned i = 0; i < 60; i++) {
                const Decision *d;
                const DecisionItem *it;

                w.node[1].ge_thp_pages = w.node[1].ge_thp_pages > 1250 ? w.node[1].ge_thp_pages - 1250 : 0;
                d = t_sim_tick(s, &w, 5);
                it = t_find(d, DECISION_LEVER, LEVER_COMPACTION_PROACTIVENESS);
                if (it) {
                        assert_true(it->to > it->from);
                        assert_true(it->to <= 100);
                        assert_int_equal(it->num.node, 1);
                        assert_int_equal(it->num.order, 9);
                        if (it->reason == POLICY_REASON_RESERVE_TREND) {
                                /* predicted, not yet crossed */
                                assert_true(it->num.have_bytes >= it->num.target_bytes);
                                assert_true(it->num.eta_usec < s->cfg.trend_horizon_usec);
                                assert_true(it->num.trend_bytes_per_sec < 0);
                                assert_false(seen_below);
                                seen_trend = true;
                        } else {
                                assert_int_equal(it->reason, POLICY_REASON_RESERVE_BELOW_TARGET);
                                assert_true(it->num.have_bytes < it->num.target_bytes);
                                seen_below = true;
                        }
                        last_pro = it->to;
                }
                /* free memory is plentiful: the kswapd levers stay put */
                assert_null(t_find(d, DECISION_LEVER, LEVER_WATERMARK_SCALE_FACTOR));
                assert_null(t_find(d, DECISION_LEVER, LEVER_MIN_FREE_KBYTES));
                it = t_find(d, DECISION_COMPACT_NODE, 0);
                if (it) {
                        assert_int_equal(it->node, 1);
                        assert_int_equal(it->reason, POLICY_REASON_ONESHOT_COMPACT);
                        assert_true(it->num.have_bytes * 4 < it->num.target_bytes);
                        seen_oneshot = true;
                        oneshots++;
                }
                if (i == 20)
                        explain_print(d);
        }
        assert_true(seen_trend);
        assert_true(seen_below);
        assert_true(seen_oneshot);
        assert_int_equal(oneshots, 1); /* 300 s of run, 600 s minimum interval */
        assert_true(last_pro > 20);
        assert_int_equal(s->in[LEVER_COMPACTION_PROACTIVENESS].current, last_pro);
        free(s);
}

static void test_recovering_decays_to_baseline(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);
        usec_t recovered_at, first_decay = 0;

        w.node[0].ge_thp_pages = 2000; /* far below target: raise */
        for (unsigned i = 0; i < 12; i++)
                t_sim_tick(s, &w, 5);
        assert_true(s->in[LEVER_COMPACTION_PROACTIVENESS].current > 20);

        w = t_world_fine(1);
        recovered_at = s->now + 5 * S;
        for (unsigned i = 0; i < 1000; i++) {
                const Decision *d = t_sim_tick(s, &w, 5);

                assert_false(t_any_raise(d));
                for (unsigned j = 0; j < d->n_items; j++) {
                        assert_int_equal(d->items[j].reason, POLICY_REASON_TARGETS_MET_DECAY);
                        assert_true(d->items[j].to < d->items[j].from);
                        if (!first_decay)
                                first_decay = s->now;
                }
        }
        assert_true(first_decay >= recovered_at + s->cfg.decay_after_usec);
        for (unsigned l = 0; l < _LEVER_MAX; l++)
                assert_int_equal(s->in[l].current, s->in[l].baseline);
        free(s);
}

/* The shape that used to raise for nothing: the reserve declines through
 * its target for a whole trend window, then a compaction restores it. The
 * window still holds the decline, so a least-squares slope over it predicts
 * a crossing; the recent half of the window rises, and wins. */
static void test_recovered_reserve_no_trend_raise(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);
        unsigned raises = 0;
        const Decision *d;

        s->cfg.oneshot_compact = false;
        /* 30000 -> 8000 pages of order>=9 over 55 s (target 10485) */
        for (unsigned i = 0; i < 12; i++) {
                w.node[0].ge_thp_pages = 30000 - i * 2000;
                d = t_sim_tick(s, &w, 5);
                raises += t_find(d, DECISION_LEVER, LEVER_COMPACTION_PROACTIVENESS) != NULL;
        }
        assert_true(raises > 0); /* the decline itself is acted on */

        /* compaction: 25000 pages, 2.4x the target, and it stays there */
        w.node[0].ge_thp_pages = 25000;
        for (unsigned i = 0; i < 30; i++) {
                const DecisionItem *it;

                d = t_sim_tick(s, &w, 5);
                it = t_find(d, DECISION_LEVER, LEVER_COMPACTION_PROACTIVENESS);
                if (it) {
                        explain_print(d);
                        fail_msg("tick %u after the recovery: %s", i, policy_reason_name(it->reason));
                }
                assert_true(d->eval.nodes[0].eta_usec[1] == USEC_INFINITY);
        }
        assert_false(s->d.eval.targets_missed);
        free(s);
}

/* A steady decline keeps its prediction: both halves of the window agree. */
static void test_steady_decline_still_predicted(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);
        bool trend = false;

        s->cfg.oneshot_compact = false;
        for (unsigned i = 0; i < 20 && !trend; i++) {
                const Decision *d;

                /* 200 pages/s, with +-300 pages of jitter */
                w.node[0].ge_thp_pages = 40000 - i * 1000 + (i % 2 ? 300 : 0);
                d = t_sim_tick(s, &w, 5);
                trend = t_find_reason(d, LEVER_COMPACTION_PROACTIVENESS, POLICY_REASON_RESERVE_TREND) != NULL;
        }
        assert_true(trend);
        free(s);
}

static void test_backoff_when_compaction_does_not_pay(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);
        const Decision *d = NULL;
        const DecisionItem *it = NULL;
        int64_t peak = 0;

        /* the reserve stays at 2000 pages whatever kcompactd does, and it
         * scans 50000 pages/s doing it */
        w.node[0].ge_thp_pages = 2000;
        w.scan_pages_per_sec = 50000;
        s->cfg.oneshot_compact = false;
        for (unsigned i = 0; i < 40 && !it; i++) {
                d = t_sim_tick(s, &w, 5);
                peak = MAX(peak, s->in[LEVER_COMPACTION_PROACTIVENESS].current);
                it = t_find(d, DECISION_LEVER, LEVER_COMPACTION_PROACTIVENESS);
                if (it && it->reason != POLICY_REASON_BACKOFF_INEFFECTIVE)
                        it = NULL;
        }
        assert_non_null(it);
        explain_print(d);
        assert_true(it->to < it->from);
        assert_int_equal(it->num.evaluations, 3);
        assert_true(it->num.scanned_pages > 0);
        assert_true(peak > 20);
        /* and it does not climb again during the hold */
        for (unsigned i = 0; i < 100; i++) {
                d = t_sim_tick(s, &w, 5);
                it = t_find(d, DECISION_LEVER, LEVER_COMPACTION_PROACTIVENESS);
                assert_true(!it || it->to < it->from);
        }
        free(s);
}

static void test_efficient_compaction_keeps_going(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);

        /* each raise buys 2 MiB blocks cheaply: no back-off */
        w.node[0].ge_thp_pages = 2000;
        w.scan_pages_per_sec = 1000;
        s->cfg.oneshot_compact = false;
        for (unsigned i = 0; i < 40; i++) {
                const Decision *d = t_sim_tick(s, &w, 5);

                for (unsigned j = 0; j < d->n_items; j++)
                        assert_int_not_equal(d->items[j].reason, POLICY_REASON_BACKOFF_INEFFECTIVE);
                w.node[0].ge_thp_pages += 100;
        }
        free(s);
}

static void test_stalls_and_thp_defrag(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);
        const Decision *d;
        const DecisionItem *it;

        w.stall_per_sec = 3.2;
        d = t_sim_tick(s, &w, 5);
        explain_print(d);
        it = t_find(d, DECISION_LEVER, LEVER_COMPACTION_PROACTIVENESS);
        assert_non_null(it);
        assert_int_equal(it->reason, POLICY_REASON_COMPACT_STALLS);
        assert_int_equal(it->to, 40); /* error saturated: a full step */
        it = t_find(d, DECISION_LEVER, LEVER_THP_DEFRAG);
        assert_non_null(it);
        assert_int_equal(it->to, THP_DEFRAG_DEFER_MADVISE);
        /* bounds: never below "defer" */
        for (unsigned i = 0; i < 50; i++)
                t_sim_tick(s, &w, 30);
        assert_int_equal(s->in[LEVER_THP_DEFRAG].current, THP_DEFRAG_DEFER);

        /* stalls gone, fallbacks high, proactiveness at its bound: defrag goes back up */
        t_sim_init(s);
        w.stall_per_sec = 0;
        w.fallback_ratio = 0.4;
        s->in[LEVER_COMPACTION_PROACTIVENESS].current = 100;
        s->in[LEVER_THP_DEFRAG].current = THP_DEFRAG_DEFER;
        d = t_sim_tick(s, &w, 5);
        it = t_find(d, DECISION_LEVER, LEVER_THP_DEFRAG);
        assert_non_null(it);
        assert_int_equal(it->reason, POLICY_REASON_THP_FALLBACK);
        assert_int_equal(it->to, THP_DEFRAG_DEFER_MADVISE);
        free(s);
}

/* A watched workload over its stall budget is a stall objective of its own:
 * the same levers as compact_stalls, and the workload is named. */
static void test_workload_over_budget_raises(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(2);
        const Decision *d;
        const DecisionItem *it;
        char buf[512];

        /* the global stall rate is fine (0/s); one workload is not */
        w.n_workloads = 2;
        w.workloads[0] = t_workload("system.slice/nginx.service", 20, 0, 100);
        w.workloads[1] = t_workload("system.slice/system-postgresql.slice/postgresql@15-main.service", 380, 0, 100);
        d = t_sim_tick(s, &w, 5);
        explain_print(d);
        assert_true(d->eval.targets_missed);
        assert_false(d->eval.targets_met);
        assert_int_equal(d->eval.workload_stall_permyriad, 38000);
        it = t_find(d, DECISION_LEVER, LEVER_COMPACTION_PROACTIVENESS);
        assert_non_null(it);
        assert_int_equal(it->reason, POLICY_REASON_WORKLOAD_STALLS);
        assert_int_equal(it->from, 20);
        assert_int_equal(it->to, 40); /* 280 ms over a 100 ms budget: error saturated, a full step */
        assert_string_equal(it->num.workload, "system.slice/system-postgresql.slice/postgresql@15-main.service");
        assert_int_equal(it->num.workload_compact_usec, 380000);
        assert_int_equal(it->num.workload_budget_usec, 100000);
        decision_explain(it, buf, sizeof(buf));
        assert_string_equal(buf, "raise compaction_proactiveness 20\u219240: system.slice/system-postgresql.slice/postgresql@15-main.service "
                                 "spent 380 ms in direct compaction in the last minute (budget 100 ms)");
        assert_string_equal(policy_reason_name(it->reason), "workload_stalls");
        /* THP defrag one mode toward defer, for the same reason */
        it = t_find(d, DECISION_LEVER, LEVER_THP_DEFRAG);
        assert_non_null(it);
        assert_int_equal(it->reason, POLICY_REASON_WORKLOAD_STALLS);
        assert_int_equal(it->to, THP_DEFRAG_DEFER_MADVISE);
        /* the kswapd levers are not for this */
        assert_null(t_find(d, DECISION_LEVER, LEVER_WATERMARK_SCALE_FACTOR));
        assert_null(t_find(d, DECISION_LEVER, LEVER_MIN_FREE_KBYTES));

        /* a partial window and some reclaim are said as such; the worse of
         * the workload and the global rate is cited */
        t_sim_init(s);
        w.workloads[1] = t_workload("system.slice/system-postgresql.slice/postgresql@15-main.service", 150, 30, 100);
        w.workloads[1].span_usec = 40 * S;
        w.stall_per_sec = 0.12; /* over 0.1/s, but by less */
        d = t_sim_tick(s, &w, 5);
        it = t_find(d, DECISION_LEVER, LEVER_COMPACTION_PROACTIVENESS);
        assert_non_null(it);
        assert_int_equal(it->reason, POLICY_REASON_WORKLOAD_STALLS);
        decision_explain(it, buf, sizeof(buf));
        /* 80 ms over 100: error 3000 + 7000 x 0.8 = 8600, step ceil(20 x 0.86) */
        assert_string_equal(buf, "raise compaction_proactiveness 20\u219238: system.slice/system-postgresql.slice/postgresql@15-main.service "
                                 "spent 150 ms in direct compaction and 30 ms in direct reclaim in the last "
                                 "40 s (budget 100 ms)");
        free(s);
}

static void test_workload_under_budget_does_nothing(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(2);

        w.n_workloads = 2;
        w.workloads[0] = t_workload("system.slice/system-postgresql.slice/postgresql@15-main.service", 80, 5, 100); /* 85 %: met */
        w.workloads[1] = t_workload("batch.slice", 900, 0, 0);                      /* no budget */
        for (unsigned i = 0; i < 200; i++) {
                const Decision *d = t_sim_tick(s, &w, 5);

                assert_int_equal(d->n_items, 0);
                assert_int_equal(d->n_held, 0);
        }
        assert_true(s->d.eval.targets_met);
        assert_int_equal(s->d.eval.workload_stall_permyriad, 8500);

        /* over budget, but mostly in direct reclaim: short of free memory,
         * which compaction does not fix, so no compaction lever moves */
        w.workloads[0] = t_workload("system.slice/system-postgresql.slice/postgresql@15-main.service", 40, 300, 100);
        for (unsigned i = 0; i < 20; i++) {
                const Decision *d = t_sim_tick(s, &w, 5);

                for (unsigned j = 0; j < d->n_items; j++)
                        assert_int_not_equal(d->items[j].reason, POLICY_REASON_WORKLOAD_STALLS);
                assert_null(t_find(d, DECISION_LEVER, LEVER_COMPACTION_PROACTIVENESS));
        }
        free(s);
}

/* Raising for a workload that does not get better stops like any other. */
static void test_workload_backoff(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);
        const DecisionItem *it = NULL;
        char buf[512];

        w.n_workloads = 1;
        w.workloads[0] = t_workload("db.slice", 400, 0, 100);
        w.scan_pages_per_sec = 50000;
        for (unsigned i = 0; i < 60 && !it; i++) {
                const Decision *d = t_sim_tick(s, &w, 5);

                it = t_find_reason(d, LEVER_COMPACTION_PROACTIVENESS, POLICY_REASON_BACKOFF_INEFFECTIVE);
        }
        assert_non_null(it);
        assert_int_equal(it->num.objective, POLICY_OBJ_WORKLOAD);
        decision_explain(it, buf, sizeof(buf));
        print_message("    %s\n", buf);
        assert_non_null(strstr(buf, "workload stalls did not fall"));
        free(s);
}

static void test_observe_preset_reports_only(void **state)
{
        TSim *a = sim_new(), *b = sim_new();
        TWorld w = t_world_fine(2);

        /* as presets.c builds it: the same values, only the preset differs */
        b->cfg.preset = PRESET_OBSERVE;
        w.node[0].ge_thp_pages = 1000;
        t_sim_tick(a, &w, 5);
        t_sim_tick(b, &w, 5);
        assert_true(a->d.apply);
        assert_false(b->d.apply);
        assert_int_equal(a->d.n_items, b->d.n_items);
        assert_true(b->d.n_items > 0);
        assert_non_null(t_find(&b->d, DECISION_COMPACT_NODE, 0)); /* one-shots reported too */
        for (unsigned i = 0; i < a->d.n_items; i++) {
                assert_int_equal(a->d.items[i].kind, b->d.items[i].kind);
                assert_int_equal(a->d.items[i].lever, b->d.items[i].lever);
                assert_int_equal(a->d.items[i].to, b->d.items[i].to);
                assert_int_equal(a->d.items[i].reason, b->d.items[i].reason);
                assert_false(b->d.items[i].applied);
        }
        /* a lever the preset switches off is off in observe too */
        b->cfg.lever[LEVER_WATERMARK_SCALE_FACTOR].enabled = false;
        /* nothing applied: the knob never moves, the same advice repeats */
        for (unsigned i = 0; i < 5; i++)
                t_sim_tick(b, &w, 60);
        assert_int_equal(b->in[LEVER_COMPACTION_PROACTIVENESS].current, 20);
        assert_non_null(t_find(&b->d, DECISION_LEVER, LEVER_COMPACTION_PROACTIVENESS));
        free(a);
        free(b);
}

static void test_baseline_outside_bounds_left_alone(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);

        /* the VM fixtures run with proactiveness 0; the preset's floor is 20.
         * A fine host is not "decayed" up to the floor */
        s->in[LEVER_COMPACTION_PROACTIVENESS].baseline = 0;
        s->in[LEVER_COMPACTION_PROACTIVENESS].current = 0;
        s->cfg.lever[LEVER_COMPACTION_PROACTIVENESS].min = 20;
        for (unsigned i = 0; i < 300; i++)
                assert_int_equal(t_sim_tick(s, &w, 10)->n_items, 0);
        /* after a raise it decays back to the floor and stays there */
        w.node[0].ge_thp_pages = 1000;
        for (unsigned i = 0; i < 10; i++)
                t_sim_tick(s, &w, 10);
        assert_true(s->in[LEVER_COMPACTION_PROACTIVENESS].current > 20);
        w = t_world_fine(1);
        for (unsigned i = 0; i < 600; i++)
                t_sim_tick(s, &w, 10);
        assert_int_equal(s->in[LEVER_COMPACTION_PROACTIVENESS].current, 20);
        free(s);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_steady_host_gets_nothing),
                cmocka_unit_test(test_fragmenting_acts_before_crossing),
                cmocka_unit_test(test_recovering_decays_to_baseline),
                cmocka_unit_test(test_recovered_reserve_no_trend_raise),
                cmocka_unit_test(test_steady_decline_still_predicted),
                cmocka_unit_test(test_backoff_when_compaction_does_not_pay),
                cmocka_unit_test(test_efficient_compaction_keeps_going),
                cmocka_unit_test(test_stalls_and_thp_defrag),
                cmocka_unit_test(test_workload_over_budget_raises),
                cmocka_unit_test(test_workload_under_budget_does_nothing),
                cmocka_unit_test(test_workload_backoff),
                cmocka_unit_test(test_observe_preset_reports_only),
                cmocka_unit_test(test_baseline_outside_bounds_left_alone),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
