/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The evaluation's small functions (policy/evaluate.c, through the
 * controller's internal header): the band test, rates in milli-units, the
 * wants' errors and reasons, and what policy_evaluate() fills per node,
 * with values worked out by hand. Links libpolicy.a only. */

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
#include "../../../policy/controller-internal.h"

#define S USEC_PER_SEC

static void test_under_with_band(void **state)
{
        (void) state;
        /* obs x 10000 <= lim x (10000 - band) */
        assert_true(policy_under_with_band(0, 0, 0));
        assert_true(policy_under_with_band(0, 0, 20000));
        assert_true(policy_under_with_band(9, 10, 1000));   /* 90000 <= 90000 */
        assert_false(policy_under_with_band(91, 100, 1000)); /* 910000 > 900000 */
        assert_true(policy_under_with_band(10000, 10000, 0));
        assert_false(policy_under_with_band(10001, 10000, 0));
        assert_true(policy_under_with_band(1, 10000, 9999));
        assert_false(policy_under_with_band(1, 10000, 10000));
        assert_false(policy_under_with_band(1, 10000, 20000)); /* the band is at most everything */
        assert_true(policy_under_with_band(1, 1, 0));
        assert_false(policy_under_with_band(2, 1, 0));
        assert_true(policy_under_with_band(UINT64_MAX, UINT64_MAX, 0)); /* no overflow */
}

static void test_rate_milli(void **state)
{
        (void) state;
        assert_int_equal(policy_rate_milli(0.0), 0);
        assert_int_equal(policy_rate_milli(-0.5), 0);
        assert_int_equal(policy_rate_milli(NAN), 0);
        assert_int_equal(policy_rate_milli(0.0004), 0);
        assert_int_equal(policy_rate_milli(0.0005), 1);
        assert_int_equal(policy_rate_milli(1.5), 1500);
        assert_int_equal(policy_rate_milli(7e14), 700000000000000000ULL);
        assert_int_equal(policy_rate_milli(1e15), 1000000000000000000ULL);
        assert_int_equal(policy_rate_milli(1.5e15), UINT64_MAX / 2);
        assert_int_equal(policy_rate_milli(INFINITY), UINT64_MAX / 2);
}

/* policy_evaluate() and the wants for one tick of a TWorld, no history */
typedef struct E {
        PolicyConfig cfg;
        PolicyState st;
        Assessment a;
        PolicyEval e;
        Want frag, mem, stall, fallback, standing, aim;
} E;

static E *e_run(const TWorld *w, void (*tweak)(E *))
{
        E *x = calloc(1, sizeof(*x));

        assert_non_null(x);
        t_config(&x->cfg);
        policy_state_init(&x->st);
        t_assess(w, 1000 * S, &x->a);
        if (tweak)
                tweak(x);
        policy_evaluate(&x->cfg, &x->st, &x->a, 1000 * S, &x->e);
        policy_gather_wants(&x->cfg, &x->a, &x->e, 1000 * S, &x->frag, &x->mem, &x->stall, &x->fallback, &x->standing,
                            &x->aim);
        return x;
}

/* As policy_decide() does: the kernel's own high watermark, at the levers
 * found at start (t_levers: min_free_kbytes 67584, watermark_scale_factor
 * 10), between the evaluation and the wants: the free-memory rule needs it. */
static E *e_run_wmarks(const TWorld *w, void (*tweak)(E *))
{
        E *x = calloc(1, sizeof(*x));
        LeverInput in[_LEVER_MAX];

        assert_non_null(x);
        t_config(&x->cfg);
        t_levers(in);
        policy_state_init(&x->st);
        t_assess(w, 1000 * S, &x->a);
        if (tweak)
                tweak(x);
        policy_evaluate(&x->cfg, &x->st, &x->a, 1000 * S, &x->e);
        policy_watermarks_evaluate(&x->a, in, &x->e);
        policy_gather_wants(&x->cfg, &x->a, &x->e, 1000 * S, &x->frag, &x->mem, &x->stall, &x->fallback, &x->standing,
                            &x->aim);
        return x;
}

/* One 4 GiB node, min_free_kbytes 67584: min = 16896 pages, gap = max(16896
 * / 4, 1048576 x 10 / 10000) = 4224, high = 16896 + 2 x 4224 = 25344 pages
 * = 103809024 B (mm/page_alloc.c __setup_per_zone_wmarks). */
#define T_KERNEL_HIGH (25344ULL * 4096)

static void test_evaluate_node(void **state)
{
        TWorld w = t_world_fine(2);
        E *x;

        (void) state;
        w.node[1].free_pages = 200000;
        w.node[1].ge_large_pages = 30000;
        w.node[1].ge_thp_pages = 10000;
        w.stall_per_sec = 0.25;
        w.fallback_ratio = 0.1234;
        w.scan_pages_per_sec = 1234.9;
        x = e_run(&w, NULL);
        assert_int_equal(x->e.n_nodes, 2);
        assert_int_equal(x->e.page_size, 4096);
        assert_int_equal(x->e.order[0], 4);
        assert_int_equal(x->e.order[1], 9);
        assert_int_equal(x->e.stall_milli, 250);
        assert_int_equal(x->e.fallback_permyriad, 1234);
        assert_int_equal(x->e.scan_pages_per_sec, 1234);
        assert_int_equal(x->e.hold_usec, 600 * S);
        assert_int_equal(x->e.scan_per_block_limit, 20000);
        for (unsigned l = 0; l < _LEVER_MAX; l++)
                assert_int_equal(x->e.dwell_usec[l], x->cfg.lever[l].dwell_usec);
        assert_int_equal(x->e.nodes[1].node, 1);
        assert_int_equal(x->e.nodes[1].free_bytes, 200000ULL * 4096);
        assert_int_equal(x->e.nodes[1].have_bytes[0], 30000ULL * 4096);
        assert_int_equal(x->e.nodes[1].have_bytes[1], 10000ULL * 4096);
        assert_int_equal(x->e.nodes[1].target_bytes[0], 85899345);
        assert_int_equal(x->e.nodes[1].target_bytes[1], 42949672);
        assert_int_equal(x->e.nodes[1].score, 95);
        /* no history: no trend; no crossing above the target, already
         * crossed (0) under it */
        assert_true(x->e.nodes[0].eta_usec[1] == USEC_INFINITY);
        assert_int_equal(x->e.nodes[1].eta_usec[1], 0);
        assert_int_equal(x->e.nodes[1].trend_bytes_per_sec[1], 0);
        assert_int_equal(x->e.nodes[1].free_trend_bytes_per_sec, 0);
        /* 100 - ceil(100 x 42949672 / 819200000) = 100 - 6 */
        assert_int_equal(x->e.nodes[1].score_target, 94);
        /* the THP reserve under target: err 3000 + 7000 x (42949672 -
         * 40960000) / 42949672 = 3324; aim from the score 94: p = 16 */
        assert_int_equal(x->frag.err, 3324);
        assert_int_equal(x->frag.reason, POLICY_REASON_RESERVE_BELOW_TARGET);
        assert_int_equal(x->frag.num.node, 1);
        assert_int_equal(x->frag.num.score, 95);
        assert_int_equal(x->frag.num.score_target, 94);
        assert_int_equal(x->frag.aim, 16);
        assert_int_equal(x->mem.err, 0);
        /* stalls 0.25/s over 0.1/s: 3000 + 7000 x min(1, 0.15/0.1) = 10000 */
        assert_int_equal(x->stall.err, 10000);
        assert_int_equal(x->stall.num.observed_milli, 250);
        assert_int_equal(x->stall.num.limit_milli, 100);
        /* fallback 12.34 % over 10 %: 3000 + 7000 x 234 / 1000 = 4638 */
        assert_int_equal(x->fallback.err, 4638);
        assert_int_equal(x->fallback.num.observed_permyriad, 1234);
        free(x);

        /* invalid rates: none of them */
        w.rates_valid = false;
        x = e_run(&w, NULL);
        assert_int_equal(x->e.stall_milli, 0);
        assert_int_equal(x->e.fallback_permyriad, 0);
        assert_int_equal(x->e.scan_pages_per_sec, 0);
        assert_int_equal(x->stall.err, 0);
        assert_int_equal(x->fallback.err, 0);
        free(x);
}

static void use_mthp(E *x)
{
        x->a.rates.n_mthp = 2;
        x->a.rates.mthp_fallback_ratio[0] = 0.05;
        x->a.rates.mthp_fallback_ratio[1] = 0.30;
}

static void no_zero(E *x)
{
        x->cfg.backoff_max_scan_per_block = 0;
        x->cfg.backoff_hold_usec = 77 * S;
        x->cfg.order_thp = 5;
}

static void test_fallback_and_config(void **state)
{
        TWorld w = t_world_fine(1);
        E *x;

        (void) state;
        /* the worst of THP and mTHP sizes; a ratio of 1 or more is 100 % */
        w.fallback_ratio = 0.1;
        x = e_run(&w, use_mthp);
        assert_int_equal(x->e.fallback_permyriad, 3000);
        free(x);
        w.fallback_ratio = 1.5;
        x = e_run(&w, NULL);
        assert_int_equal(x->e.fallback_permyriad, 10000);
        free(x);
        w.fallback_ratio = 0.99995; /* rounds to 10000 */
        x = e_run(&w, NULL);
        assert_int_equal(x->e.fallback_permyriad, 10000);
        free(x);
        w.fallback_ratio = 0.00004; /* rounds to 0 */
        x = e_run(&w, NULL);
        assert_int_equal(x->e.fallback_permyriad, 0);
        free(x);
        /* hold and scan limit from the configuration, order_thp set */
        x = e_run(&w, no_zero);
        assert_int_equal(x->e.hold_usec, 77 * S);
        assert_int_equal(x->e.scan_per_block_limit, 0);
        assert_int_equal(x->e.order[1], 5);
        assert_int_equal(x->e.nodes[0].have_bytes[1], 300000ULL * 4096); /* order 5 <= 9 in t_assess */
        free(x);
}

/* At the target exactly: no error; one page under: ERR_PRED */
static void test_level_error_edges(void **state)
{
        TWorld w = t_world_fine(1);
        E *x;

        (void) state;
        w.node[0].ge_thp_pages = 10486; /* 42950656 B >= 42949672 */
        x = e_run(&w, NULL);
        assert_int_equal(x->frag.err, 0);
        free(x);
        w.node[0].ge_thp_pages = 10485; /* 42946560 B: 3000 + 7000 x 3112 / 42949672 = 3000 */
        x = e_run(&w, NULL);
        assert_int_equal(x->frag.err, 3000);
        free(x);
        w.node[0].ge_thp_pages = 0; /* nothing: ERR_MAX */
        x = e_run(&w, NULL);
        assert_int_equal(x->frag.err, 10000);
        free(x);
}

/* Free memory short: the memory want, with its aim, and no fragmentation
 * want for that reserve */
static void test_memory_want(void **state)
{
        TWorld w = t_world_fine(1);
        E *x;

        (void) state;
        w.node[0] = (TNode){ .free_pages = 30000, .ge_large_pages = 8000, .ge_thp_pages = 3000,
                             .reclaimable_pages = 600000 };
        /* no THP fault fell back: no fragmentation want for the part */
        w.fallback_ratio = 0.0;
        x = e_run_wmarks(&w, NULL);
        assert_int_equal(x->mem.err, 7997);
        assert_int_equal(x->frag.err, 0);
        free(x);
        /* 12 % fell back (limit 10 %) */
        w.fallback_ratio = 0.12;
        x = e_run_wmarks(&w, NULL);
        assert_int_equal(x->e.nodes[0].kernel_high_bytes, T_KERNEL_HIGH);
        /* v2: short when free < the kernel's high watermark + T. free
         * 30000 pages = 122880000 B < 103809024 + 42949672 = 146758696 (THP)
         * and < 103809024 + 85899345 = 189708369 (large): both short.
         * THP: 3000 + 7000 x (42949672 - 12288000) / 42949672 = 7997;
         * large: 3000 + 7000 x (85899345 - 32768000) / 85899345 = 7329 */
        assert_int_equal(x->mem.err, 7997);
        assert_int_equal(x->mem.reason, POLICY_REASON_FREE_MEMORY_SHORT);
        /* the worse error's (THP's) numbers */
        assert_int_equal(x->mem.num.free_needed_bytes, 146758696);
        assert_int_equal(x->mem.num.order, 9);
        /* aim: kswapd's gap = the larger of the targets' aims: THP ceil(10485
         * x 10000 / 1048576) = 100, large ceil(20971 x 10000 / 1048576) = 200 */
        assert_int_equal(x->mem.aim, 200);
        /* and the fragmentation want for the part free memory above the
         * kernel's high watermark holds: 122880000 - 103809024 = 19070976
         * B; THP: 3000 + 7000 x (19070976 - 12288000) / 19070976 = 5489;
         * order 4 has 32768000 B there, more than the part: no want. Its
         * aim: score target 100 - ceil(100 x 19070976 / 122880000 = 15.5)
         * = 84, p = 26 (74 + 10 = 84; 25: 85) */
        assert_int_equal(x->frag.err, 5489);
        assert_int_equal(x->frag.num.target_bytes, 19070976);
        assert_int_equal(x->frag.num.short_target_bytes, 42949672);
        assert_int_equal(x->frag.num.free_needed_bytes, 0);
        assert_int_equal(x->frag.num.score_target, 84);
        assert_int_equal(x->frag.aim, 26);
        /* the fallback want (3000 + 7000 x 200 / 1000 = 4400) carries the
         * same aim, its raise's cap while kicking (target_aim()); order 4
         * holds nothing more: its part 19070976 B gives the same score */
        assert_int_equal(x->fallback.err, 4400);
        assert_int_equal(x->fallback.aim, 26);
        free(x);
        /* at the kernel's high watermark exactly: nothing for compaction */
        w.node[0].free_pages = 25344;
        x = e_run_wmarks(&w, NULL);
        assert_true(x->mem.err > 0);
        assert_int_equal(x->frag.err, 0);
        free(x);
        w.node[0].free_pages = 30000;
        /* one page more than the THP's need and under the large one's:
         * 146758696 / 4096 = 35829.76, so 35830 pages (146759680 B) are not
         * short for THP; large (189708369) still is: 7329, order 4 */
        w.node[0].free_pages = 35830;
        x = e_run_wmarks(&w, NULL);
        assert_int_equal(x->mem.err, 7329);
        assert_int_equal(x->mem.reason, POLICY_REASON_FREE_MEMORY_SHORT);
        assert_int_equal(x->mem.num.free_needed_bytes, 189708369);
        assert_int_equal(x->mem.num.order, 4);
        /* compaction has material for the THP reserve */
        assert_int_equal(x->frag.err, 7997);
        free(x);
}

/* Free memory short as in test_memory_want, with less to reclaim than the
 * shortfall (free + file LRU + reclaimable slab under the kernel's high
 * watermark + T): the offer is held (Want.held_err), not raised on; the
 * fragmentation want for the part free memory holds is still offered. */
static void test_memory_want_nothing_to_reclaim(void **state)
{
        TWorld w = t_world_fine(1);
        E *x;

        (void) state;
        w.node[0] = (TNode){ .free_pages = 30000, .ge_large_pages = 8000, .ge_thp_pages = 3000 };
        w.fallback_ratio = 0.12;
        x = e_run_wmarks(&w, NULL);
        assert_int_equal(x->mem.err, 0);
        assert_int_equal(x->mem.aim, -1);
        /* THP 7997 over large 7329 (test_memory_want) */
        assert_int_equal(x->mem.held_err, 7997);
        assert_int_equal(x->mem.held_reason, POLICY_REASON_FREE_MEMORY_SHORT);
        assert_int_equal(x->mem.held_num.order, 9);
        assert_int_equal(x->mem.held_num.free_needed_bytes, 146758696);
        assert_int_equal(x->mem.held_num.avail_bytes, 122880000);
        assert_int_equal(x->frag.err, 5489);
        free(x);

        /* 10000 reclaimable pages: 122880000 + 40960000 = 163840000 B
         * covers the THP need (146758696), not the large one (189708369):
         * the THP offer raises (its aim 100 only), the large one is held */
        w.node[0].reclaimable_pages = 10000;
        x = e_run_wmarks(&w, NULL);
        assert_int_equal(x->mem.err, 7997);
        assert_int_equal(x->mem.aim, 100);
        assert_int_equal(x->mem.num.avail_bytes, 163840000);
        assert_int_equal(x->mem.held_err, 7329);
        assert_int_equal(x->mem.held_num.order, 4);
        free(x);

        /* reclaimable not read (no per-node stats): not held */
        w.node[0].reclaimable_pages = 0;
        w.node[0].reclaimable_unknown = true;
        x = e_run_wmarks(&w, NULL);
        assert_int_equal(x->mem.err, 7997);
        assert_int_equal(x->mem.aim, 200);
        assert_int_equal(x->mem.held_err, 0);
        free(x);

        /* two nodes alike: the first of the strongest offers is the one
         * cited. min_free_kbytes is split between them: min 8448 pages,
         * gap max(2112, 1048), high 12672 pages = 51904512 B; THP needs
         * 94854184 B (not short at 122880000), large 137803857 B: short,
         * 7329 on each node */
        w = t_world_fine(2);
        w.node[0] = w.node[1] = (TNode){ .free_pages = 30000, .ge_large_pages = 8000, .ge_thp_pages = 3000 };
        x = e_run_wmarks(&w, NULL);
        assert_int_equal(x->mem.held_err, 7329);
        assert_int_equal(x->mem.held_num.free_needed_bytes, 137803857);
        assert_int_equal(x->mem.held_num.node, 0);
        free(x);
}

static void test_psi_over_ceiling(void **state)
{
        PolicyConfig c;
        PolicyEval e;

        (void) state;
        t_config(&c);
        memset(&e, 0, sizeof(e));
        c.psi_some_ceiling_permyriad = 0; /* off */
        c.psi_full_ceiling_permyriad = 1;
        e.psi_some_permyriad = 5000;
        e.psi_full_permyriad = 1;
        assert_false(policy_psi_over_ceiling(&c, &e));
        e.psi_full_permyriad = 2;
        assert_true(policy_psi_over_ceiling(&c, &e));
        c.psi_full_ceiling_permyriad = 0;
        assert_false(policy_psi_over_ceiling(&c, &e));
        c.psi_some_ceiling_permyriad = 5000;
        assert_false(policy_psi_over_ceiling(&c, &e));
        e.psi_some_permyriad = 5001;
        assert_true(policy_psi_over_ceiling(&c, &e));
}

/* targets met on a hand-made evaluation: the margin, capped at 100 %; a
 * crossing predicted exactly at the horizon is not inside it */
static void test_targets_met_direct(void **state)
{
        PolicyConfig c;
        PolicyEval e;
        Assessment a;

        (void) state;
        t_config(&c);
        memset(&a, 0, sizeof(a));
        memset(&e, 0, sizeof(e));
        e.n_nodes = 1;
        e.nodes[0].target_bytes[1] = 1000;
        e.nodes[0].have_bytes[1] = 2000;
        e.nodes[0].eta_usec[0] = e.nodes[0].eta_usec[1] = USEC_INFINITY;
        c.hysteresis_permyriad = 20000; /* at most 100 %: twice the target */
        assert_true(policy_targets_met(&c, &a, &e));
        e.nodes[0].have_bytes[1] = 1999;
        assert_false(policy_targets_met(&c, &a, &e));
        e.nodes[0].have_bytes[1] = 1600;
        assert_false(policy_targets_met(&c, &a, &e));
        c.hysteresis_permyriad = 1000;
        assert_true(policy_targets_met(&c, &a, &e));
        e.nodes[0].eta_usec[1] = c.trend_horizon_usec;
        assert_true(policy_targets_met(&c, &a, &e));
        e.nodes[0].eta_usec[1] = c.trend_horizon_usec - 1;
        assert_false(policy_targets_met(&c, &a, &e));
        c.trend_horizon_usec = 0; /* no prediction */
        assert_true(policy_targets_met(&c, &a, &e));
}

/* the learned clause's numbers: the need times demand_factor (1 when not
 * positive), what the configuration alone asked, the age and the hold */
static void test_learned_numbers(void **state)
{
        PolicyConfig c;
        PolicyEval e;
        Assessment a;
        Want frag, mem, stall, fallback, standing, aim;
        TWorld w = t_world_fine(1);

        (void) state;
        t_config(&c);
        t_assess(&w, 0, &a);
        memset(&e, 0, sizeof(e));
        e.n_nodes = 1;
        e.order[1] = 9;
        e.nodes[0].target_bytes[1] = 500 << 20;
        e.nodes[0].have_bytes[1] = 100 << 20;
        e.nodes[0].free_bytes = 3ULL << 30;
        e.nodes[0].eta_usec[1] = USEC_INFINITY;
        e.nodes[0].learned = true;
        e.nodes[0].config_target_bytes = 80 << 20;
        e.learned_need_bytes = 400 << 20;
        e.learned_peak_usec = 100 * S;
        e.learned_peak_before_usec = 7 * S;
        e.learned_hold_usec = 1800 * S;
        c.demand_factor = 1.25;
        policy_gather_wants(&c, &a, &e, 160 * S, &frag, &mem, &stall, &fallback, &standing, &aim);
        assert_int_equal(frag.reason, POLICY_REASON_RESERVE_LEARNED);
        assert_int_equal(frag.num.learned_need_bytes, 500 << 20);
        assert_int_equal(frag.num.config_target_bytes, 80 << 20);
        assert_int_equal(frag.num.learned_age_usec, 67 * S);
        assert_int_equal(frag.num.learned_hold_usec, 1800 * S);
        c.demand_factor = 0.5;
        policy_gather_wants(&c, &a, &e, 160 * S, &frag, &mem, &stall, &fallback, &standing, &aim);
        assert_int_equal(frag.num.learned_need_bytes, 200 << 20);
        c.demand_factor = 0;
        policy_gather_wants(&c, &a, &e, 50 * S, &frag, &mem, &stall, &fallback, &standing, &aim);
        assert_int_equal(frag.num.learned_need_bytes, 400 << 20);
        assert_int_equal(frag.num.learned_age_usec, 7 * S); /* a clock behind the peak */
        c.demand_factor = 8;
        e.learned_need_bytes = 1ULL << 62;
        policy_gather_wants(&c, &a, &e, 50 * S, &frag, &mem, &stall, &fallback, &standing, &aim);
        assert_int_equal(frag.num.learned_need_bytes, UINT64_MAX / 4);
        /* under the configured target: below target, not "learned" */
        e.nodes[0].have_bytes[1] = 50 << 20;
        policy_gather_wants(&c, &a, &e, 50 * S, &frag, &mem, &stall, &fallback, &standing, &aim);
        assert_int_equal(frag.reason, POLICY_REASON_RESERVE_BELOW_TARGET);
}

/* a watched workload's use of its budget, capped at UINT32_MAX / 2 */
static void test_workload_use_cap(void **state)
{
        TWorld w = t_world_fine(1);
        E *x;

        (void) state;
        w.n_workloads = 1;
        w.workloads[0] = t_workload("db", 200, 0, 1);
        w.workloads[0].budget_usec = 1;
        w.workloads[0].compact_usec = 200000; /* 2e9 permyriad */
        x = e_run(&w, NULL);
        assert_int_equal(x->e.workload_stall_permyriad, 2000000000u);
        assert_int_equal(x->stall.num.observed_permyriad, 2000000000u);
        assert_int_equal(x->stall.num.limit_permyriad, 10000);
        assert_string_equal(x->stall.num.workload, "db");
        free(x);
        w.workloads[0].compact_usec = 500000; /* 5e9: capped */
        x = e_run(&w, NULL);
        assert_int_equal(x->e.workload_stall_permyriad, UINT32_MAX / 2);
        free(x);
        w.workloads[0].compact_usec = 300000; /* 3e9: capped */
        x = e_run(&w, NULL);
        assert_int_equal(x->e.workload_stall_permyriad, UINT32_MAX / 2);
        free(x);
}

/* free memory falling 200 pages/s for the last minute, at 60000 pages now;
 * the reserves steady (order>=4 15000 pages, order>=9 3000: both missed) */
static void falling_free(E *x)
{
        PolicyHistory *h = &x->st.hist;

        h->order[0] = 4;
        h->order[1] = 9;
        h->n_nodes = 1;
        h->node_id[0] = 0;
        for (unsigned i = 0; i < 12; i++) {
                h->t_usec[i] = (940 + 5 * i) * S;
                h->free_pages[i][0] = 60000 + 200 * (60 - 5 * i);
                h->ge_pages[0][i][0] = 15000;
                h->ge_pages[1][i][0] = 3000;
        }
        h->n = 12;
}

static void falling_free_no_horizon(E *x)
{
        falling_free(x);
        x->cfg.trend_horizon_usec = 0;
}

static void falling_free_horizon_121(E *x)
{
        falling_free(x);
        x->cfg.trend_horizon_usec = 121 * S;
}

static void falling_free_horizon_1000(E *x)
{
        falling_free(x);
        x->cfg.trend_horizon_usec = 1000 * S;
}

static void test_free_memory_predicted_short(void **state)
{
        TWorld w = t_world_fine(1);
        E *x;

        (void) state;
        /* what kswapd can reclaim covers the large need at the horizon by
         * exactly what it needs: 120 s at 819200 B/s takes 98304000 B,
         * leaving 147456000 B; 189708369 - 147456000 = 42252369 B, 10315.5
         * pages: 10316 */
        w.node[0] = (TNode){ .free_pages = 60000, .ge_large_pages = 15000, .ge_thp_pages = 3000,
                             .reclaimable_pages = 10316 };
        x = e_run_wmarks(&w, falling_free);
        assert_int_equal(x->e.nodes[0].free_trend_bytes_per_sec, -819200);
        assert_int_equal(x->e.nodes[0].trend_bytes_per_sec[1], 0);
        /* free 245760000 B is over both needs (146758696 THP, 189708369
         * large; see test_memory_want), falling 819200 B/s. THP: (245760000 -
         * 146758696) / 819200 = 120.85 s, just past the 120 s horizon; large:
         * (245760000 - 189708369) / 819200 = 68.42 s, inside. So the large
         * reserve's error is cited: 3000 + 7000 x (85899345 - 61440000) /
         * 85899345 = 4993 */
        assert_int_equal(x->mem.err, 4993);
        assert_int_equal(x->mem.reason, POLICY_REASON_RESERVE_TREND);
        assert_int_equal(x->mem.num.order, 4);
        assert_int_equal(x->mem.num.free_needed_bytes, 189708369);
        assert_int_equal(x->mem.num.trend_bytes_per_sec, -819200);
        assert_true(x->mem.num.eta_usec > 68 * S && x->mem.num.eta_usec < 69 * S);
        assert_int_equal(x->mem.aim, -1);
        assert_int_equal(x->mem.num.avail_bytes, 147456000 + 10316 * 4096);
        assert_int_equal(x->mem.held_err, 0);
        /* and compaction still has material: the fragmentation want too,
         * THP's 3000 + 7000 x (42949672 - 12288000) / 42949672 = 7997 */
        assert_int_equal(x->frag.err, 7997);
        assert_int_equal(x->frag.reason, POLICY_REASON_RESERVE_BELOW_TARGET);
        free(x);
        /* one page less: kswapd could not supply it, held */
        w.node[0].reclaimable_pages = 10315;
        x = e_run_wmarks(&w, falling_free);
        assert_int_equal(x->mem.err, 0);
        assert_int_equal(x->mem.held_err, 4993);
        assert_int_equal(x->mem.held_reason, POLICY_REASON_RESERVE_TREND);
        assert_int_equal(x->mem.held_num.avail_bytes, 147456000 + 10315 * 4096);
        assert_true(x->mem.held_num.eta_usec > 68 * S && x->mem.held_num.eta_usec < 69 * S);
        assert_int_equal(x->frag.err, 7997);
        free(x);
        /* a fall over the horizon larger than free memory leaves nothing
         * free: reclaimable alone (600000 pages) covers both needs */
        w.node[0].reclaimable_pages = 600000;
        x = e_run_wmarks(&w, falling_free_horizon_1000);
        assert_int_equal(x->mem.held_err, 0);
        assert_int_equal(x->mem.num.avail_bytes, 600000ULL * 4096);
        free(x);
        /* a 121 s horizon takes in the THP crossing at 120.85 s: 7997;
         * at the horizon 245760000 - 99123200 = 146636800 B are left, with
         * 10316 pages to reclaim 188891136 B: enough for THP's need
         * (146758696), not the large one's (189708369), held */
        w.node[0].reclaimable_pages = 10316;
        x = e_run_wmarks(&w, falling_free_horizon_121);
        assert_int_equal(x->mem.err, 7997);
        assert_int_equal(x->mem.reason, POLICY_REASON_RESERVE_TREND);
        assert_int_equal(x->mem.num.order, 9);
        assert_int_equal(x->mem.num.free_needed_bytes, 146758696);
        assert_true(x->mem.num.eta_usec > 120 * S && x->mem.num.eta_usec < 121 * S);
        assert_int_equal(x->mem.held_err, 4993);
        assert_int_equal(x->mem.held_num.avail_bytes, 188891136);
        free(x);
        /* no horizon: no prediction */
        x = e_run_wmarks(&w, falling_free_no_horizon);
        assert_int_equal(x->mem.err, 0);
        free(x);
}

/* The stall and fallback wants each cite their own numbers: the stall
 * want's rate is not carried into the fallback's (nor the other way) */
static void test_rate_wants_own_numbers(void **state)
{
        TWorld w = t_world_fine(1);
        E *x;

        (void) state;
        w.fallback_ratio = 0.2;
        w.stall_per_sec = 0.5;
        x = e_run_wmarks(&w, NULL);
        assert_true(x->stall.err > 0);
        assert_int_equal(x->stall.num.observed_milli, 500);
        assert_int_equal(x->stall.num.observed_permyriad, 0);
        /* 3000 + 7000 x 1000 / 1000 */
        assert_int_equal(x->fallback.err, 10000);
        assert_int_equal(x->fallback.num.observed_permyriad, 2000);
        assert_int_equal(x->fallback.num.limit_permyriad, 1000);
        assert_int_equal(x->fallback.num.observed_milli, 0);
        assert_int_equal(x->fallback.num.limit_milli, 0);
        assert_int_equal(x->stall.num.node, -1);
        assert_int_equal(x->stall.aim, -1); /* the stall want carries no aim */
        assert_int_equal(x->fallback.num.node, -1);
        free(x);
}

/* a rate exactly at its limit is no error */
static void test_at_the_limit(void **state)
{
        TWorld w = t_world_fine(1);
        E *x;

        (void) state;
        w.fallback_ratio = 0.1;
        w.stall_per_sec = 0.1;
        x = e_run(&w, NULL);
        assert_int_equal(x->e.fallback_permyriad, 1000);
        assert_int_equal(x->fallback.err, 0);
        assert_int_equal(x->stall.err, 0);
        free(x);
        w.fallback_ratio = 0.1001;
        x = e_run(&w, NULL);
        assert_int_equal(x->fallback.err, 3007);
        free(x);
}

static void thp_target_1(E *x)
{
        x->cfg.reserve_thp = (SizeSpec){ .bytes = 1 };
}

static void thp_target_10486_pages(E *x)
{
        x->cfg.reserve_thp = (SizeSpec){ .bytes = 10486 * 4096ULL };
        x->cfg.trend_horizon_usec = 0; /* no prediction (at the target, the eta is 0) */
}

static void thp_target_0(E *x)
{
        x->cfg.reserve_thp = (SizeSpec){ 0 };
}

/* The score the THP reserve needs at its smallest targets (free 500000
 * pages x 4096 = 2048000000 B): 1 byte: 100 - ceil(100 / 2048000000) =
 * 99; none: no score target (0). A fallback ratio of 0, or none (-1),
 * is 0 permyriad. */
static void test_score_target_and_zero_ratio(void **state)
{
        TWorld w = t_world_fine(1);
        E *x;

        (void) state;
        w.fallback_ratio = 0.0;
        x = e_run(&w, thp_target_1);
        assert_int_equal(x->e.nodes[0].free_bytes, 2048000000);
        assert_int_equal(x->e.nodes[0].target_bytes[1], 1);
        assert_int_equal(x->e.nodes[0].score_target, 99);
        assert_int_equal(x->e.fallback_permyriad, 0);
        free(x);
        w.fallback_ratio = -1;
        x = e_run(&w, thp_target_0);
        assert_int_equal(x->e.nodes[0].target_bytes[1], 0);
        assert_int_equal(x->e.nodes[0].score_target, 0);
        assert_int_equal(x->e.fallback_permyriad, 0);
        free(x);
        /* have == target exactly (10486 pages), no horizon: met, no error */
        w.node[0].ge_thp_pages = 10486;
        x = e_run(&w, thp_target_10486_pages);
        assert_int_equal(x->e.nodes[0].have_bytes[1], x->e.nodes[0].target_bytes[1]);
        assert_int_equal(x->e.nodes[0].target_bytes[1], 42950656);
        assert_int_equal(x->frag.err, 0);
        free(x);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_under_with_band),
                cmocka_unit_test(test_rate_milli),
                cmocka_unit_test(test_evaluate_node),
                cmocka_unit_test(test_fallback_and_config),
                cmocka_unit_test(test_level_error_edges),
                cmocka_unit_test(test_score_target_and_zero_ratio),
                cmocka_unit_test(test_memory_want),
                cmocka_unit_test(test_memory_want_nothing_to_reclaim),
                cmocka_unit_test(test_psi_over_ceiling),
                cmocka_unit_test(test_targets_met_direct),
                cmocka_unit_test(test_learned_numbers),
                cmocka_unit_test(test_workload_use_cap),
                cmocka_unit_test(test_free_memory_predicted_short),
                cmocka_unit_test(test_rate_wants_own_numbers),
                cmocka_unit_test(test_at_the_limit),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
