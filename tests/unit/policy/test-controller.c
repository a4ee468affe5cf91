/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Scenario tests: sequences of synthetic Assessments (steady, fragmenting,
 * recovering, pressure spike, memory short, knob clamped by the kernel,
 * ineffective compaction) run through decide/apply/update, with the
 * decisions and reasons expected at each stage. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "policy-test-util.h"

#define S USEC_PER_SEC
#define RESERVE_THP_PAGES (T_MANAGED / 100) /* 1 % of 4 GiB: 10485 pages */

static TSim *sim_new(void)
{
        TSim *s = malloc(sizeof(*s));

        assert_non_null(s);
        t_sim_init(s);
        return s;
}

static void explain_print(const Decision *d)
{
        char buf[512];

        for (unsigned i = 0; i < d->n_items; i++) {
                decision_explain(&d->items[i], buf, sizeof(buf));
                print_message("    %s\n", buf);
        }
}

/* ---- building blocks -------------------------------------------------- */

static void test_score_mapping(void **state)
{
        /* default 20: thresholds 80/90 (KERNEL.md §4.3) */
        assert_int_equal(policy_score_wmark(20, true), 80);
        assert_int_equal(policy_score_wmark(20, false), 90);
        assert_int_equal(policy_score_wmark(90, false), 15); /* low 10, leeway 5 */
        assert_int_equal(policy_score_wmark(100, false), 0);
        /* the smallest p with high(p) <= target */
        assert_int_equal(policy_proactiveness_for_score(90), 20);
        assert_int_equal(policy_proactiveness_for_score(80), 30);
        assert_int_equal(policy_proactiveness_for_score(15), 90);
        assert_int_equal(policy_proactiveness_for_score(14), 91); /* low 9 + 4 = 13 */
        assert_int_equal(policy_proactiveness_for_score(0), 100);
        assert_int_equal(policy_proactiveness_for_score(100), 0);
}

static void test_watermarks_formula(void **state)
{
        /* Two zones on node 0 (DMA32 250000, Normal 750000 managed pages),
         * node 1 one Normal zone of 1000000. min_free_kbytes = 8000 KiB =
         * 2000 pages spread by managed share: 250, 750, 1000.
         * wsf 10: gaps max(min/4, managed/1000) = max(62,250)=250,
         * max(187,750)=750, max(250,1000)=1000.
         * node 0: min 1000, low 2000, high 3000; node 1: 1000/2000/3000.
         * wsf 200: gaps 5000, 15000 -> node 0 low 1000 + 20000. */
        Assessment a = { .page_size = 4096, .n_nodes = 2, .n_zones = 3 };
        NodeWatermarks w;

        a.nodes[0] = (NodeMeasures){ .node = 0, .zone_first = 0, .n_zones = 2, .managed_pages = 1000000 };
        a.nodes[1] = (NodeMeasures){ .node = 1, .zone_first = 2, .n_zones = 1, .managed_pages = 1000000 };
        a.zones[0] = (ZoneMeasures){ .node = 0, .zone = "DMA32", .managed = 250000 };
        a.zones[1] = (ZoneMeasures){ .node = 0, .zone = "Normal", .managed = 750000 };
        a.zones[2] = (ZoneMeasures){ .node = 1, .zone = "Normal", .managed = 1000000 };

        assert_int_equal(envelope_node_watermarks(&a, 0, 8000, 10, &w), 0);
        assert_int_equal(w.min_pages, 1000);
        assert_int_equal(w.low_pages, 2000);
        assert_int_equal(w.high_pages, 3000);
        assert_int_equal(envelope_node_watermarks(&a, 1, 8000, 10, &w), 0);
        assert_int_equal(w.low_pages, 2000);
        assert_int_equal(envelope_node_watermarks(&a, 0, 8000, 200, &w), 0);
        assert_int_equal(w.low_pages, 21000);
        assert_int_equal(w.high_pages, 41000);
        /* big min_free: gap = min/4 wins. 400000 KiB = 100000 pages:
         * zones 12500 / 37500 -> gaps 3125 / 9375 */
        assert_int_equal(envelope_node_watermarks(&a, 0, 400000, 10, &w), 0);
        assert_int_equal(w.min_pages, 50000);
        assert_int_equal(w.low_pages, 62500);
        /* a Movable zone: min = clamp(managed/1024, 32, 128) */
        strcpy(a.zones[1].zone, "Movable");
        assert_int_equal(envelope_node_watermarks(&a, 0, 8000, 10, &w), 0);
        /* lowmem now 1250000: DMA32 gets 2000*250000/1250000 = 400 */
        assert_int_equal(w.min_pages, 400 + 128);
        assert_int_equal(envelope_node_watermarks(&a, 5, 8000, 10, &w), -EINVAL);
}

static void test_lever_rules(void **state)
{
        PolicyConfig c;
        LeverTrack t = {};
        PolicyHold h;
        Lever l = LEVER_COMPACTION_PROACTIVENESS;

        t_config(&c);
        /* step limit and bounds */
        assert_int_equal(lever_rules_apply(&c, l, &t, 20, 90, 0, 100 * S, &h), 40);
        assert_int_equal(lever_rules_apply(&c, l, &t, 95, 150, 0, 100 * S, &h), 100);
        assert_int_equal(h, POLICY_HOLD_AT_BOUND);
        assert_int_equal(lever_rules_apply(&c, l, &t, 100, 150, 0, 100 * S, &h), 100);
        assert_int_equal(h, POLICY_HOLD_AT_BOUND);
        assert_int_equal(lever_rules_apply(&c, l, &t, 50, 0, 0, 100 * S, &h), 45);
        /* a value outside the bounds is not pushed further out, and comes back in */
        c.lever[l].max = 60;
        assert_int_equal(lever_rules_apply(&c, l, &t, 80, 81, 0, 100 * S, &h), 80);
        assert_int_equal(lever_rules_apply(&c, l, &t, 80, 0, 0, 100 * S, &h), 60);
        c.lever[l].max = 100;
        /* dwell */
        t.changed = true;
        t.last_change_usec = 95 * S;
        t.last_dir = 1;
        assert_int_equal(lever_rules_apply(&c, l, &t, 40, 60, 0, 100 * S, &h), 40);
        assert_int_equal(h, POLICY_HOLD_DWELL);
        assert_int_equal(lever_rules_apply(&c, l, &t, 40, 60, 0, 105 * S, &h), 60);
        /* reversal cooldown (120 s), and forced moves skip it */
        assert_int_equal(lever_rules_apply(&c, l, &t, 40, 20, 0, 150 * S, &h), 40);
        assert_int_equal(h, POLICY_HOLD_REVERSAL_COOLDOWN);
        assert_int_equal(lever_rules_apply(&c, l, &t, 40, 20, LEVER_MOVE_IGNORE_TIMING, 150 * S, &h), 35);
        assert_int_equal(lever_rules_apply(&c, l, &t, 40, 20,
                                           LEVER_MOVE_IGNORE_TIMING | LEVER_MOVE_IGNORE_STEP, 150 * S, &h),
                         20);
        assert_int_equal(lever_rules_apply(&c, l, &t, 40, 20, 0, 300 * S, &h), 35);
        /* reversal limit: 4 in the window leaves room for 2 voluntary ones,
         * the last slot is kept for a forced move */
        t.n_reversals = 3;
        t.reversal_usec[0] = 1000 * S;
        t.reversal_usec[1] = 1100 * S;
        t.reversal_usec[2] = 1200 * S;
        assert_int_equal(lever_reversals_in_window(&c, l, &t, 1300 * S), 3);
        assert_int_equal(lever_rules_apply(&c, l, &t, 40, 20, 0, 1300 * S, &h), 40);
        assert_int_equal(h, POLICY_HOLD_REVERSAL_LIMIT);
        assert_int_equal(lever_reversals_in_window(&c, l, &t, 4700 * S), 1);
        assert_int_equal(lever_rules_apply(&c, l, &t, 40, 20, 0, 4700 * S, &h), 35);
}

static void test_explain_sentences(void **state)
{
        DecisionItem it = {
                .kind = DECISION_LEVER,
                .lever = LEVER_COMPACTION_PROACTIVENESS,
                .node = -1,
                .from = 20,
                .to = 35,
                .reason = POLICY_REASON_RESERVE_BELOW_TARGET,
                .num = { .node = 1, .order = 9, .have_bytes = 48ULL << 20, .target_bytes = 256ULL << 20,
                         .trend_bytes_per_sec = -(int64_t) (1200ULL << 10), .eta_usec = USEC_INFINITY },
        };
        char buf[512];
        int n;

        n = decision_explain(&it, buf, sizeof(buf));
        assert_string_equal(buf, "raise compaction_proactiveness 20\u219235: node 1 has 48 MiB free in "
                                 "order>=9 blocks, target 256 MiB; trend -1.2 MiB/s reaches 0 in 40 s");
        assert_int_equal(n, (int) strlen(buf));
        /* truncation keeps NUL and reports the needed length */
        assert_int_equal(decision_explain(&it, buf, 10), n);
        assert_int_equal(strlen(buf), 9);

        it = (DecisionItem){ .kind = DECISION_COMPACT_NODE, .node = 0, .reason = POLICY_REASON_ONESHOT_COMPACT,
                             .num = { .node = 0, .order = 9, .have_bytes = 4ULL << 20,
                                      .target_bytes = 40ULL << 20, .limit_permyriad = 2500,
                                      .psi_some_permyriad = 12 } };
        decision_explain(&it, buf, sizeof(buf));
        assert_string_equal(buf, "compact node 0 now: 4.0 MiB free in order>=9 blocks is under 25.00% of the "
                                 "40 MiB target and memory pressure is calm (some 0.12%)");

        it = (DecisionItem){ .kind = DECISION_LEVER, .lever = LEVER_THP_DEFRAG, .from = THP_DEFRAG_MADVISE,
                             .to = THP_DEFRAG_DEFER_MADVISE, .reason = POLICY_REASON_COMPACT_STALLS,
                             .num = { .node = -1, .observed_milli = 3200, .limit_milli = 100 } };
        decision_explain(&it, buf, sizeof(buf));
        assert_string_equal(buf, "lower thp_defrag madvise\u2192defer+madvise: direct compaction stalls 3.20/s, "
                                 "target 0.10/s");

        assert_string_equal(policy_reason_name(POLICY_REASON_BACKOFF_INEFFECTIVE), "backoff_ineffective");
        for (int r = 0; r < _POLICY_REASON_MAX; r++)
                assert_int_equal(policy_reason_from_name(policy_reason_name((PolicyReason) r)), r);
        assert_int_equal(policy_reason_from_name("nope"), -ENOENT);
        assert_string_equal(policy_hold_name(POLICY_HOLD_DWELL), "dwell");
}

/* ---- scenarios ---------------------------------------------------------- */

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

static void test_memory_short_raises_kswapd_headroom(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);
        const DecisionItem *it;
        const Decision *d;

        /* 60 MiB free in all: less than min (16896 pages) + 2 x 20971 pages */
        w.node[0] = (TNode){ .free_pages = 30000, .ge_large_pages = 8000, .ge_thp_pages = 3000,
                             .reclaimable_pages = 600000 };
        d = t_sim_tick(s, &w, 5);
        explain_print(d);
        it = t_find(d, DECISION_LEVER, LEVER_WATERMARK_SCALE_FACTOR);
        assert_non_null(it);
        assert_int_equal(it->reason, POLICY_REASON_FREE_MEMORY_SHORT);
        assert_int_equal(it->from, 10);
        assert_int_equal(it->to, 110); /* aim 200 (gap = 2 % target), one step of 100 */
        assert_true(it->num.free_needed_bytes > it->num.free_bytes);
        /* compaction has no material: no proactiveness raise, no one-shot */
        assert_null(t_find(d, DECISION_LEVER, LEVER_COMPACTION_PROACTIVENESS));
        assert_null(t_find(d, DECISION_COMPACT_NODE, 0));
        /* min_free_kbytes waits while watermark_scale_factor can still move */
        assert_null(t_find(d, DECISION_LEVER, LEVER_MIN_FREE_KBYTES));

        /* 30 s dwell: 110 -> 200 (the aim, within one step) -> beyond, the
         * integral keeps going while the target is missed */
        for (unsigned i = 0; i < 3; i++)
                t_sim_tick(s, &w, 10);
        assert_int_equal(s->in[LEVER_WATERMARK_SCALE_FACTOR].current, 200);
        for (unsigned i = 0; i < 3; i++)
                t_sim_tick(s, &w, 10);
        assert_true(s->in[LEVER_WATERMARK_SCALE_FACTOR].current > 200);
        /* this synthetic kernel never frees anything: after 3 evaluations
         * without gain the lever backs off, and says why */
        it = NULL;
        for (unsigned i = 0; i < 30 && !it; i++) {
                d = t_sim_tick(s, &w, 10);
                it = t_find_reason(d, LEVER_WATERMARK_SCALE_FACTOR, POLICY_REASON_BACKOFF_INEFFECTIVE);
        }
        assert_non_null(it);
        explain_print(d);
        assert_int_equal(it->num.objective, POLICY_OBJ_FREE);
        assert_true(it->to < it->from);
        free(s);
}

static void test_safety_envelope(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);
        const DecisionItem *it;
        const Decision *d;
        PolicyNumbers num;
        unsigned safety_held = 0;

        /* 400 MiB free + reclaimable on a 4 GiB node, watermark_scale_factor
         * found at 900 (low = 16896 + 94371 pages): unsafe */
        w.node[0] = (TNode){ .free_pages = 90000, .ge_large_pages = 80000, .ge_thp_pages = 60000,
                             .reclaimable_pages = 12400 };
        s->in[LEVER_WATERMARK_SCALE_FACTOR].current = 900;
        d = t_sim_tick(s, &w, 5);
        explain_print(d);
        it = t_find(d, DECISION_LEVER, LEVER_WATERMARK_SCALE_FACTOR);
        assert_non_null(it);
        assert_int_equal(it->reason, POLICY_REASON_SAFETY_ENVELOPE);
        assert_true(it->forced);
        assert_true(it->to < 900 && it->to >= 10);
        assert_true(envelope_ok(&s->cfg, &s->a, 67584, it->to, NULL));
        assert_false(envelope_ok(&s->cfg, &s->a, 67584, it->to + 1, &num));
        assert_int_equal(num.node, 0);
        assert_true(num.low_wmark_bytes + num.headroom_bytes > num.avail_bytes);

        /* and a raise is capped by the envelope: memory short, little to reclaim */
        t_sim_init(s);
        w.node[0] = (TNode){ .free_pages = 30000, .ge_large_pages = 8000, .ge_thp_pages = 3000,
                             .reclaimable_pages = 26000 };
        for (unsigned i = 0; i < 60; i++) {
                const PolicyHeldItem *h;

                d = t_sim_tick(s, &w, 10);
                assert_true(envelope_ok(&s->cfg, &s->a, s->in[LEVER_MIN_FREE_KBYTES].current,
                                        s->in[LEVER_WATERMARK_SCALE_FACTOR].current, NULL));
                h = t_find_held(d, LEVER_WATERMARK_SCALE_FACTOR);
                if (h && h->hold == POLICY_HOLD_SAFETY)
                        safety_held++;
        }
        assert_true(safety_held > 0);
        free(s);
}

static void test_pressure_spike(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);
        const Decision *d;
        const DecisionItem *it;

        w.node[0] = (TNode){ .free_pages = 30000, .ge_large_pages = 8000, .ge_thp_pages = 3000,
                             .reclaimable_pages = 600000 };
        for (unsigned i = 0; i < 4; i++)
                t_sim_tick(s, &w, 10);
        assert_true(s->in[LEVER_WATERMARK_SCALE_FACTOR].current >= 200);

        /* pressure: some 25 % > 10 % ceiling. Reserves yield, nothing rises */
        w.psi_some = 2500;
        w.psi_full = 100;
        d = t_sim_tick(s, &w, 10);
        explain_print(d);
        it = t_find(d, DECISION_LEVER, LEVER_WATERMARK_SCALE_FACTOR);
        assert_non_null(it);
        assert_int_equal(it->reason, POLICY_REASON_PSI_CEILING);
        assert_int_equal(it->to, it->from - 20);
        for (unsigned i = 0; i < 100; i++) {
                d = t_sim_tick(s, &w, 5);
                assert_false(t_any_raise(d));
        }
        assert_int_equal(s->in[LEVER_WATERMARK_SCALE_FACTOR].current, 10);
        free(s);
}

static void test_psi_rollback(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);
        const Decision *d;
        const DecisionItem *it;
        int64_t before;

        s->cfg.psi_full_ceiling_permyriad = 1000;
        w.node[0].ge_thp_pages = 2000;
        d = t_sim_tick(s, &w, 5);
        it = t_find(d, DECISION_LEVER, LEVER_COMPACTION_PROACTIVENESS);
        assert_non_null(it);
        before = it->from;

        /* memory full pressure jumps 0 -> 4 % right after the raise */
        w.psi_full = 400;
        d = t_sim_tick(s, &w, 5);
        explain_print(d);
        it = t_find(d, DECISION_LEVER, LEVER_COMPACTION_PROACTIVENESS);
        assert_non_null(it);
        assert_int_equal(it->reason, POLICY_REASON_PSI_ROLLBACK);
        assert_int_equal(it->to, before);
        assert_true(it->forced);
        assert_int_equal(it->num.psi_before_permyriad, 0);
        assert_int_equal(it->num.psi_full_permyriad, 400);

        /* no raise of that lever during the hold, even with pressure gone */
        w.psi_full = 0;
        for (unsigned i = 0; i < 100; i++) {
                d = t_sim_tick(s, &w, 5);
                assert_null(t_find(d, DECISION_LEVER, LEVER_COMPACTION_PROACTIVENESS));
        }
        assert_int_equal(t_find_held(d, LEVER_COMPACTION_PROACTIVENESS)->hold, POLICY_HOLD_BACKOFF);
        free(s);
}

static void test_knob_clamped_by_kernel(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);
        const Decision *d;
        unsigned raises = 0;

        /* an old kernel caps watermark_scale_factor at 150 */
        s->clamp_max[LEVER_WATERMARK_SCALE_FACTOR] = 150;
        w.node[0] = (TNode){ .free_pages = 30000, .ge_large_pages = 8000, .ge_thp_pages = 3000,
                             .reclaimable_pages = 600000 };
        for (unsigned i = 0; i < 60; i++) {
                const DecisionItem *it;

                d = t_sim_tick(s, &w, 10);
                it = t_find(d, DECISION_LEVER, LEVER_WATERMARK_SCALE_FACTOR);
                if (it && it->to > it->from)
                        raises++;
        }
        /* 10 -> 110 -> 200 (read back as 150), then it stops asking */
        assert_int_equal(raises, 2);
        assert_int_equal(s->in[LEVER_WATERMARK_SCALE_FACTOR].current, 150);
        assert_true(s->state.lever[LEVER_WATERMARK_SCALE_FACTOR].clamped);
        assert_int_equal(s->state.lever[LEVER_WATERMARK_SCALE_FACTOR].clamp_wanted, 200);
        assert_int_equal(t_find_held(d, LEVER_WATERMARK_SCALE_FACTOR)->hold, POLICY_HOLD_CLAMPED);
        /* the slow lever takes over once the fast one is stuck */
        assert_true(s->in[LEVER_MIN_FREE_KBYTES].current > 67584);
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
        w.workloads[1] = t_workload("system.slice/postgresql.service", 380, 0, 100);
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
        assert_string_equal(it->num.workload, "system.slice/postgresql.service");
        assert_int_equal(it->num.workload_compact_usec, 380000);
        assert_int_equal(it->num.workload_budget_usec, 100000);
        decision_explain(it, buf, sizeof(buf));
        assert_string_equal(buf, "raise compaction_proactiveness 20\u219240: system.slice/postgresql.service "
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
        w.workloads[1] = t_workload("system.slice/postgresql.service", 150, 30, 100);
        w.workloads[1].span_usec = 40 * S;
        w.stall_per_sec = 0.12; /* over 0.1/s, but by less */
        d = t_sim_tick(s, &w, 5);
        it = t_find(d, DECISION_LEVER, LEVER_COMPACTION_PROACTIVENESS);
        assert_non_null(it);
        assert_int_equal(it->reason, POLICY_REASON_WORKLOAD_STALLS);
        decision_explain(it, buf, sizeof(buf));
        /* 80 ms over 100: error 3000 + 7000 x 0.8 = 8600, step ceil(20 x 0.86) */
        assert_string_equal(buf, "raise compaction_proactiveness 20\u219238: system.slice/postgresql.service "
                                 "spent 150 ms in direct compaction and 30 ms in direct reclaim in the last "
                                 "40 s (budget 100 ms)");
        free(s);
}

static void test_workload_under_budget_does_nothing(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(2);

        w.n_workloads = 2;
        w.workloads[0] = t_workload("system.slice/postgresql.service", 80, 5, 100); /* 85 %: met */
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
        w.workloads[0] = t_workload("system.slice/postgresql.service", 40, 300, 100);
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

static void test_effective_config(void **state)
{
        PolicyConfig c, e;
        LeverInput in[_LEVER_MAX];

        t_config(&c);
        t_levers(in);
        c.hysteresis_permyriad = 0;
        c.max_reversals = 0;
        c.reversal_window_usec = 0;
        c.backoff_hold_usec = 0;
        /* presets.c: min_free_kbytes min 0 = the value at start, max 0 = a share */
        c.lever[LEVER_MIN_FREE_KBYTES].min = 0;
        c.lever[LEVER_MIN_FREE_KBYTES].max = 0;
        policy_config_effective(&c, in, NULL, &e);
        assert_int_equal(e.hysteresis_permyriad, 1000);
        assert_int_equal(e.max_reversals, 4);
        assert_int_equal(e.reversal_window_usec, 3600 * S);
        assert_int_equal(e.backoff_hold_usec, c.decay_after_usec);
        assert_int_equal(e.lever[LEVER_MIN_FREE_KBYTES].min, 67584);
        assert_int_equal(e.lever[LEVER_MIN_FREE_KBYTES].max, 67584);
        /* an explicit ceiling below the value at start is lifted to it */
        c.lever[LEVER_MIN_FREE_KBYTES].max = 32768;
        policy_config_effective(&c, in, NULL, &e);
        assert_int_equal(e.lever[LEVER_MIN_FREE_KBYTES].max, 67584);
        c.lever[LEVER_MIN_FREE_KBYTES].max = 131072;
        policy_config_effective(&c, in, NULL, &e);
        assert_int_equal(e.lever[LEVER_MIN_FREE_KBYTES].max, 131072);
        /* unknown start value: the lever is not touched */
        c.lever[LEVER_MIN_FREE_KBYTES].max = 0;
        in[LEVER_MIN_FREE_KBYTES].available = false;
        policy_config_effective(&c, in, NULL, &e);
        assert_false(e.lever[LEVER_MIN_FREE_KBYTES].enabled);
}

/* min_free_max_permyriad: the ceiling is max(value at start, lever.max,
 * share x MemTotal), MemTotal = managed pages x page size over the nodes */
static void test_min_free_ceiling_share(void **state)
{
        PolicyConfig c, e;
        LeverInput in[_LEVER_MAX];
        TWorld w = t_world_fine(2);
        Assessment *a = malloc(sizeof(*a));
        LeverConfig *mf = &c.lever[LEVER_MIN_FREE_KBYTES];

        assert_non_null(a);
        t_config(&c);
        t_levers(in);
        t_assess(&w, 100 * S, a);
        assert_int_equal(policy_mem_total_bytes(a), 8ULL << 30); /* 2 x 4 GiB managed */
        assert_int_equal(policy_mem_total_bytes(NULL), 0);

        /* presets.c shape: min 0, max 0, 2 % of 8 GiB = 167772 KiB */
        mf->min = 0;
        mf->max = 0;
        c.min_free_max_permyriad = 200;
        assert_int_equal(policy_min_free_share_kbytes(&c, a), 167772);
        policy_config_effective(&c, in, a, &e);
        assert_true(e.lever[LEVER_MIN_FREE_KBYTES].enabled);
        assert_int_equal(e.lever[LEVER_MIN_FREE_KBYTES].min, 67584);
        assert_int_equal(e.lever[LEVER_MIN_FREE_KBYTES].max, 167772);
        /* a share below the value at start: the value at start */
        c.min_free_max_permyriad = 50; /* 41943 KiB */
        policy_config_effective(&c, in, a, &e);
        assert_int_equal(e.lever[LEVER_MIN_FREE_KBYTES].max, 67584);
        /* both set (the config loader sets one, a caller may set both): the larger */
        c.min_free_max_permyriad = 200;
        mf->max = 262144;
        policy_config_effective(&c, in, a, &e);
        assert_int_equal(e.lever[LEVER_MIN_FREE_KBYTES].max, 262144);
        mf->max = 100000;
        policy_config_effective(&c, in, a, &e);
        assert_int_equal(e.lever[LEVER_MIN_FREE_KBYTES].max, 167772);
        /* no Assessment: no MemTotal, so no share */
        mf->max = 0;
        policy_config_effective(&c, in, NULL, &e);
        assert_int_equal(e.lever[LEVER_MIN_FREE_KBYTES].max, 67584);
        /* no value at start, but a share and an explicit floor: bounded */
        mf->min = 16384;
        in[LEVER_MIN_FREE_KBYTES].available = false;
        policy_config_effective(&c, in, a, &e);
        assert_true(e.lever[LEVER_MIN_FREE_KBYTES].enabled);
        assert_int_equal(e.lever[LEVER_MIN_FREE_KBYTES].max, 167772);
        /* huge machines: capped at the sysctl's int range */
        a->nodes[0].managed_pages = 1ULL << 40;
        c.min_free_max_permyriad = 10000;
        assert_int_equal(policy_min_free_share_kbytes(&c, a), INT32_MAX);
        free(a);
}

/* The share is what a raise of min_free_kbytes runs into. */
static void test_min_free_raise_stops_at_share(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);
        int64_t peak = 0;
        bool at_bound = false;

        /* watermark_scale_factor pinned: min_free_kbytes is the only way to
         * more kswapd headroom; the ceiling is 2 % of 4 GiB = 83886 KiB */
        s->cfg.lever[LEVER_WATERMARK_SCALE_FACTOR].max = 10;
        s->cfg.lever[LEVER_MIN_FREE_KBYTES].min = 0;
        s->cfg.lever[LEVER_MIN_FREE_KBYTES].max = 0;
        s->cfg.lever[LEVER_MIN_FREE_KBYTES].dwell_usec = 10 * S;
        s->cfg.min_free_max_permyriad = 200;
        s->cfg.backoff_decisions = 100;
        w.node[0] = (TNode){ .free_pages = 30000, .ge_large_pages = 8000, .ge_thp_pages = 3000,
                             .reclaimable_pages = 600000 };
        for (unsigned i = 0; i < 40; i++) {
                const Decision *d = t_sim_tick(s, &w, 10);
                const PolicyHeldItem *h = t_find_held(d, LEVER_MIN_FREE_KBYTES);

                peak = MAX(peak, s->in[LEVER_MIN_FREE_KBYTES].current);
                at_bound = at_bound || (h && h->hold == POLICY_HOLD_AT_BOUND);
        }
        assert_int_equal(peak, 83886);
        assert_true(at_bound);
        free(s);
}

static void test_min_free_never_written_zero(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);

        /* presets.c style bounds; a host that is short of free memory and
         * then recovers: min_free_kbytes may only sit at its start value */
        s->cfg.lever[LEVER_MIN_FREE_KBYTES].min = 0;
        s->cfg.lever[LEVER_MIN_FREE_KBYTES].max = 0;
        w.node[0] = (TNode){ .free_pages = 30000, .ge_large_pages = 8000, .ge_thp_pages = 3000,
                             .reclaimable_pages = 600000 };
        for (unsigned i = 0; i < 300; i++) {
                if (i == 100)
                        w = t_world_fine(1);
                t_sim_tick(s, &w, 10);
                assert_null(t_find(&s->d, DECISION_LEVER, LEVER_MIN_FREE_KBYTES));
                assert_int_equal(s->in[LEVER_MIN_FREE_KBYTES].current, 67584);
        }
        free(s);
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

static void test_idempotent_and_const(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(2);
        Decision *d1 = malloc(sizeof(Decision)), *d2 = malloc(sizeof(Decision));
        PolicyState *copy = malloc(sizeof(PolicyState));

        w.node[1].ge_thp_pages = 30000;
        for (unsigned i = 0; i < 20; i++) {
                w.node[1].ge_thp_pages -= 1000;
                t_sim_tick(s, &w, 5);
        }
        memcpy(copy, &s->state, sizeof(*copy));
        t_assess(&w, s->now + 5 * S, &s->a);
        assert_int_equal(policy_decide(&s->cfg, &s->state, &s->a, s->in, s->now + 5 * S, d1), 0);
        assert_int_equal(policy_decide(&s->cfg, &s->state, &s->a, s->in, s->now + 5 * S, d2), 0);
        assert_memory_equal(d1, d2, sizeof(Decision));
        assert_memory_equal(copy, &s->state, sizeof(PolicyState));
        /* bad input */
        s->a.n_nodes = 0;
        assert_int_equal(policy_decide(&s->cfg, &s->state, &s->a, s->in, s->now, d1), -EINVAL);
        free(d1);
        free(d2);
        free(copy);
        free(s);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_score_mapping),
                cmocka_unit_test(test_watermarks_formula),
                cmocka_unit_test(test_lever_rules),
                cmocka_unit_test(test_explain_sentences),
                cmocka_unit_test(test_steady_host_gets_nothing),
                cmocka_unit_test(test_fragmenting_acts_before_crossing),
                cmocka_unit_test(test_recovering_decays_to_baseline),
                cmocka_unit_test(test_recovered_reserve_no_trend_raise),
                cmocka_unit_test(test_steady_decline_still_predicted),
                cmocka_unit_test(test_memory_short_raises_kswapd_headroom),
                cmocka_unit_test(test_safety_envelope),
                cmocka_unit_test(test_pressure_spike),
                cmocka_unit_test(test_psi_rollback),
                cmocka_unit_test(test_knob_clamped_by_kernel),
                cmocka_unit_test(test_backoff_when_compaction_does_not_pay),
                cmocka_unit_test(test_efficient_compaction_keeps_going),
                cmocka_unit_test(test_stalls_and_thp_defrag),
                cmocka_unit_test(test_workload_over_budget_raises),
                cmocka_unit_test(test_workload_under_budget_does_nothing),
                cmocka_unit_test(test_workload_backoff),
                cmocka_unit_test(test_observe_preset_reports_only),
                cmocka_unit_test(test_effective_config),
                cmocka_unit_test(test_min_free_ceiling_share),
                cmocka_unit_test(test_min_free_raise_stops_at_share),
                cmocka_unit_test(test_min_free_never_written_zero),
                cmocka_unit_test(test_baseline_outside_bounds_left_alone),
                cmocka_unit_test(test_idempotent_and_const),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
