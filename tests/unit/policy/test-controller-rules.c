/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The controller's building blocks, outside a scenario: kernel arithmetic
 * (score thresholds, watermarks), the lever movement rules, the decision
 * sentences, the effective config and the min_free_kbytes ceiling, and
 * policy_decide() being idempotent and leaving its state alone. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "controller-test-util.h"

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
                cmocka_unit_test(test_effective_config),
                cmocka_unit_test(test_min_free_ceiling_share),
                cmocka_unit_test(test_idempotent_and_const),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
