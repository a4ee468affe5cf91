/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy_demand_evaluate() (policy/demand.c, docs/policy.md "Learned
 * reserve") on hand-made states, every figure worked out by hand: the
 * tick's demand from the rates and their interval (or the time since the
 * last history sample), the burst over POLICY_BURST_WINDOW_USEC, the cut to
 * the host's memory, renewing or keeping the peak; policy_learned_age()
 * and policy_learned_target(). Links libpolicy.a only. */

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
#define GIB (1ULL << 30)
#define HP (2 * MIB)

typedef struct D {
        PolicyConfig cfg;
        PolicyState st;
        Assessment a;
        PolicyEval e;
        TWorld w;
} D;

static D *d_new(void)
{
        D *d = calloc(1, sizeof(*d));

        assert_non_null(d);
        t_config(&d->cfg);
        d->cfg.demand_learning = true;
        d->cfg.demand_hold_usec = 30 * MINUTE;
        d->cfg.demand_decay_usec = 30 * MINUTE;
        d->cfg.demand_factor = 1.0;
        d->cfg.demand_cap = (SizeSpec){ .permyriad = 2500 };
        policy_state_init(&d->st);
        d->w = t_world_fine(1); /* 4 GiB of memory */
        return d;
}

/* THP faults per second (allocated, fallen back) at now */
static void d_eval(D *d, usec_t now, double alloc, double fallback, double interval_sec)
{
        d->w.thp_alloc_per_sec = alloc;
        d->w.thp_fallback_per_sec = fallback;
        t_assess(&d->w, now, &d->a);
        d->a.rates.interval_sec = interval_sec;
        memset(&d->e, 0, sizeof(d->e));
        policy_demand_evaluate(&d->cfg, &d->st, &d->a, now, &d->e);
}

/* a history sample at t with that tick's demand, all of it unmet */
static void d_hist(D *d, usec_t t, uint64_t demand)
{
        PolicyHistory *h = &d->st.hist;

        h->t_usec[h->n] = t;
        h->demand_bytes[h->n] = demand;
        h->unmet_bytes[h->n] = demand;
        h->n++;
}

static void test_demand_of_a_tick(void **state)
{
        D *d = d_new();

        (void) state;
        /* (10 + 2)/s x 5 s x 2 MiB = 120 MiB, 20 MiB of it fallen back:
         * a burst that fell back teaches its whole size */
        d_eval(d, 1000 * S, 10, 2, 5);
        assert_int_equal(d->e.demand_bytes, 120 * MIB);
        assert_int_equal(d->e.demand_fallback_bytes, 20 * MIB);
        assert_int_equal(d->e.demand_stalled_bytes, 0);
        assert_int_equal(d->e.demand_unmet_bytes, 20 * MIB);
        assert_int_equal(d->e.burst_bytes, 120 * MIB);
        assert_int_equal(d->e.unmet_burst_bytes, 20 * MIB);
        assert_int_equal(d->e.learned_need_bytes, 120 * MIB);
        assert_int_equal(d->e.learned_peak_bytes, 120 * MIB);
        assert_int_equal(d->e.learned_peak_usec, 1000 * S);
        assert_int_equal(d->e.learned_hold_usec, 30 * MINUTE);
        /* half a second: 12 MiB; rounded to the byte */
        d_eval(d, 1000 * S, 10, 2, 0.5);
        assert_int_equal(d->e.demand_bytes, 12 * MIB);
        d_eval(d, 1000 * S, 1.0 / 3.0, 0, 3);
        assert_int_equal(d->e.demand_bytes, HP); /* 0.999... x 2 MiB rounds to 2 MiB */
        d_eval(d, 1000 * S, 0.25 / HP, 0, 1); /* a quarter of a byte: 0 */
        assert_int_equal(d->e.demand_bytes, 0);
        d_eval(d, 1000 * S, 0.5 / HP, 0, 1); /* half a byte rounds up to 1 */
        assert_int_equal(d->e.demand_bytes, 1);
        /* no interval and no history: no demand */
        d_eval(d, 1000 * S, 10, 2, 0);
        assert_int_equal(d->e.demand_bytes, 0);
        assert_int_equal(d->e.learned_need_bytes, 0);
        /* no interval: the time since the newest history sample (7 s) */
        d_hist(d, 980 * S, 0);
        d_hist(d, 993 * S, 0);
        d_eval(d, 1000 * S, 10, 2, 0);
        assert_int_equal(d->e.demand_bytes, 12 * 7 * HP);
        assert_int_equal(d->e.demand_fallback_bytes, 2 * 7 * HP);
        /* a newest sample at now or later gives no interval */
        d_hist(d, 1000 * S, 0);
        d_eval(d, 1000 * S, 10, 2, 0);
        assert_int_equal(d->e.demand_bytes, 0);
        /* rates not valid, or no THP size: none */
        d_eval(d, 1000 * S, 10, 2, 5);
        assert_int_equal(d->e.demand_bytes, 120 * MIB);
        d->w.rates_valid = false;
        d_eval(d, 1000 * S, 10, 2, 5);
        assert_int_equal(d->e.demand_bytes, 0);
        d->w.rates_valid = true;
        t_assess(&d->w, 1000 * S, &d->a);
        d->a.rates.interval_sec = 5;
        d->a.rates.thp_fault_alloc = 10;
        d->a.hpage_order = 32; /* past what a page size shifts to */
        memset(&d->e, 0, sizeof(d->e));
        policy_demand_evaluate(&d->cfg, &d->st, &d->a, 1000 * S, &d->e);
        assert_int_equal(d->e.demand_bytes, 0);
        d->a.hpage_order = 8; /* 1 MiB huge pages: (10 + 2)/s x 5 s x 1 MiB */
        memset(&d->e, 0, sizeof(d->e));
        policy_demand_evaluate(&d->cfg, &d->st, &d->a, 1000 * S, &d->e);
        assert_int_equal(d->e.demand_bytes, 60 * MIB);
        d->a.hpage_order = 18; /* 1 GiB huge pages: 60 GiB, more than the host: cut */
        memset(&d->e, 0, sizeof(d->e));
        policy_demand_evaluate(&d->cfg, &d->st, &d->a, 1000 * S, &d->e);
        assert_int_equal(d->e.demand_bytes, 4 * GIB);
        free(d);
}

static void test_burst_window(void **state)
{
        D *d = d_new();

        (void) state;
        /* samples 31, 30, 29 and 1 s ago; only the last two are within the
         * 30 s window; one at now is this tick's own */
        d_hist(d, 969 * S, 1 * MIB);
        d_hist(d, 970 * S, 2 * MIB);
        d_hist(d, 971 * S, 4 * MIB);
        d_hist(d, 999 * S, 8 * MIB);
        d_eval(d, 1000 * S, 10, 2, 5);
        assert_int_equal(d->e.burst_bytes, 120 * MIB + 12 * MIB);
        /* the samples' unmet 12 MiB + this tick's 20 MiB fallen back: the
         * whole burst is learned */
        assert_int_equal(d->e.unmet_burst_bytes, 32 * MIB);
        assert_int_equal(d->e.learned_need_bytes, 132 * MIB);
        d_hist(d, 1000 * S, 16 * MIB);
        d_eval(d, 1000 * S, 10, 2, 5);
        assert_int_equal(d->e.burst_bytes, 132 * MIB);
        /* nothing this tick: the burst still counts the window, but only
         * this tick's demand renews the peak */
        d_eval(d, 1000 * S, 0, 0, 5);
        assert_int_equal(d->e.demand_bytes, 0);
        assert_int_equal(d->e.burst_bytes, 12 * MIB);
        assert_int_equal(d->e.learned_need_bytes, 0);
        free(d);
}

static void test_cut_to_the_host(void **state)
{
        D *d = d_new();

        (void) state;
        /* 1000/s x 5 s x 2 MiB = 10000 MiB on a 4 GiB host, 1000 MiB
         * of it fallen back: the burst learned is cut, and said */
        d_eval(d, 1000 * S, 900, 100, 5);
        assert_int_equal(d->e.learned_capped_from_bytes, 10000 * MIB);
        assert_int_equal(d->e.burst_bytes, 4 * GIB);
        assert_int_equal(d->e.demand_bytes, 4 * GIB);
        assert_int_equal(d->e.demand_fallback_bytes, 1000 * MIB); /* under the host: kept */
        assert_int_equal(d->e.learned_need_bytes, 4 * GIB);
        /* 9000 MiB fallen back: cut too */
        d_eval(d, 1000 * S, 100, 900, 5);
        assert_int_equal(d->e.demand_fallback_bytes, 4 * GIB);
        assert_int_equal(d->e.learned_capped_from_bytes, 10000 * MIB);
        assert_int_equal(d->e.learned_need_bytes, 4 * GIB);
        /* exactly the host: not cut */
        d_eval(d, 1000 * S, 2048, 0, 1);
        assert_int_equal(d->e.demand_bytes, 4 * GIB);
        assert_int_equal(d->e.learned_capped_from_bytes, 0);
        /* a remembered peak over the host (a hot-remove since): kept cut */
        d->st.learned_peak_bytes = 8 * GIB;
        d->st.learned_peak_usec = 900 * S;
        d_eval(d, 1000 * S, 0, 0, 5);
        assert_int_equal(d->e.learned_capped_from_bytes, 8 * GIB);
        assert_int_equal(d->e.learned_peak_bytes, 4 * GIB);
        assert_int_equal(d->e.learned_need_bytes, 4 * GIB);
        assert_int_equal(d->e.learned_peak_usec, 900 * S);
        /* both over: the burst is named, not the peak */
        d_eval(d, 1000 * S, 0, 1200, 5); /* 12000 MiB fallen back */
        assert_int_equal(d->e.learned_capped_from_bytes, 12000 * MIB);
        assert_int_equal(d->e.learned_peak_bytes, 4 * GIB);
        free(d);
}

static void test_renew_or_keep(void **state)
{
        D *d = d_new();

        (void) state;
        d->st.learned_peak_bytes = 200 * MIB;
        d->st.learned_peak_usec = 100 * S;
        d->st.learned_peak_before_usec = 5 * MINUTE;
        /* 10 min + 5 min old: held (30 min) */
        d_eval(d, 700 * S, 0, 0, 5);
        assert_int_equal(d->e.learned_need_bytes, 200 * MIB);
        assert_int_equal(d->e.learned_peak_bytes, 200 * MIB);
        assert_int_equal(d->e.learned_peak_usec, 100 * S);
        assert_int_equal(d->e.learned_peak_before_usec, 5 * MINUTE);
        /* a smaller burst keeps the old peak and its age */
        d_eval(d, 700 * S, 1, 0, 5);
        assert_int_equal(d->e.learned_need_bytes, 200 * MIB);
        assert_int_equal(d->e.learned_peak_usec, 100 * S);
        /* a burst served in full, however large, teaches nothing */
        d_eval(d, 700 * S, 200, 0, 5);
        assert_int_equal(d->e.burst_bytes, 2000 * MIB);
        assert_int_equal(d->e.learned_need_bytes, 200 * MIB);
        assert_int_equal(d->e.learned_peak_usec, 100 * S);
        /* an equal unmet burst renews it: seen now, nothing before the clock */
        d_eval(d, 700 * S, 0, 20, 5);
        assert_int_equal(d->e.unmet_burst_bytes, 200 * MIB);
        assert_int_equal(d->e.learned_peak_usec, 700 * S);
        assert_int_equal(d->e.learned_peak_before_usec, 0);
        /* past the hold: one half-life later (age 30 + 30 min) it asks 100
         * MiB, and a 220 MiB burst, 120 MiB of it fallen back, renews it at
         * its whole size */
        d_eval(d, 100 * S + 55 * MINUTE, 0, 0, 5);
        assert_int_equal(d->e.learned_need_bytes, 100 * MIB);
        d_eval(d, 100 * S + 55 * MINUTE, 10, 12, 5);
        assert_int_equal(d->e.learned_need_bytes, 220 * MIB);
        assert_int_equal(d->e.learned_peak_usec, 100 * S + 55 * MINUTE);
        /* learning off: nothing learned, the demand still measured */
        d->cfg.demand_learning = false;
        d_eval(d, 700 * S, 10, 2, 5);
        assert_int_equal(d->e.demand_bytes, 120 * MIB);
        assert_int_equal(d->e.learned_need_bytes, 0);
        assert_int_equal(d->e.learned_peak_bytes, 0);
        assert_int_equal(d->e.learned_hold_usec, 0);
        free(d);
}

/* one history sample is enough for the interval; a decayed peak over a
 * smaller host is cut, a decayed one under it is not */
static void test_one_sample_and_decayed_cut(void **state)
{
        D *d = d_new();

        (void) state;
        d_hist(d, 995 * S, 0);
        d_eval(d, 1000 * S, 10, 2, 0);
        assert_int_equal(d->e.demand_bytes, 12 * 5 * HP);
        /* an 8 GiB peak on a 4 GiB host, two half-lives past its hold:
         * 2 GiB needed, under the host: not cut; the peak is */
        d->st.hist.n = 0;
        d->st.learned_peak_bytes = 8 * GIB;
        d->st.learned_peak_usec = 1000 * S;
        d_eval(d, 1000 * S + 90 * MINUTE, 0, 0, 5);
        assert_int_equal(d->e.learned_need_bytes, 2 * GIB);
        assert_int_equal(d->e.learned_peak_bytes, 4 * GIB);
        free(d);
}

static void test_learned_age(void **state)
{
        PolicyState st;

        (void) state;
        policy_state_init(&st);
        assert_int_equal(policy_learned_age(&st, 100 * S), 0);
        st.learned_peak_bytes = MIB;
        assert_int_equal(policy_learned_age(&st, 100 * S), 0); /* never seen */
        st.learned_peak_usec = 40 * S;
        assert_int_equal(policy_learned_age(&st, 100 * S), 60 * S);
        assert_int_equal(policy_learned_age(&st, 30 * S), 0); /* a clock behind the peak */
        st.learned_peak_before_usec = 7 * S;
        assert_int_equal(policy_learned_age(&st, 100 * S), 67 * S);
        st.learned_peak_bytes = 0; /* nothing remembered: no age */
        assert_int_equal(policy_learned_age(&st, 100 * S), 0);
        st.learned_peak_bytes = MIB;
        st.learned_peak_before_usec = USEC_INFINITY - 10 * S;
        assert_true(policy_learned_age(&st, 100 * S) == USEC_INFINITY);
        st.learned_peak_before_usec = USEC_INFINITY - 60 * S;
        assert_true(policy_learned_age(&st, 100 * S) == USEC_INFINITY);
        st.learned_peak_before_usec = USEC_INFINITY - 61 * S;
        assert_true(policy_learned_age(&st, 100 * S) == USEC_INFINITY - S);
}

static void test_learned_target(void **state)
{
        PolicyConfig c;

        (void) state;
        t_config(&c);
        c.demand_learning = true;
        c.demand_factor = 1.5;
        c.demand_cap = (SizeSpec){ .permyriad = 2500 }; /* a quarter of the node */
        /* 100 MiB x 1.5 = 150 MiB, over the configured 80 MiB */
        assert_int_equal(policy_learned_target(&c, 100 * MIB, 80 * MIB, 4 * GIB), 150 * MIB);
        /* under it: the configured one */
        assert_int_equal(policy_learned_target(&c, 50 * MIB, 80 * MIB, 4 * GIB), 80 * MIB);
        /* the cap: 1 GiB of 4 */
        assert_int_equal(policy_learned_target(&c, 1 * GIB, 80 * MIB, 4 * GIB), 1 * GIB);
        assert_int_equal(policy_learned_target(&c, 700 * MIB, 80 * MIB, 4 * GIB), 1 * GIB);
        /* rounded up to the byte */
        assert_int_equal(policy_learned_target(&c, 3, 0, 4 * GIB), 5);
        /* off, no need, no factor: the configured one */
        assert_int_equal(policy_learned_target(&c, 0, 80 * MIB, 4 * GIB), 80 * MIB);
        c.demand_factor = 0;
        assert_int_equal(policy_learned_target(&c, 100 * MIB, 80 * MIB, 4 * GIB), 80 * MIB);
        c.demand_factor = 1.0;
        c.demand_learning = false;
        assert_int_equal(policy_learned_target(&c, 100 * MIB, 80 * MIB, 4 * GIB), 80 * MIB);
        /* a cap in bytes */
        c.demand_learning = true;
        c.demand_cap = (SizeSpec){ .bytes = 90 * MIB };
        assert_int_equal(policy_learned_target(&c, 100 * MIB, 80 * MIB, 4 * GIB), 90 * MIB);
}

/* The split of a renewed peak walks the burst window's history: per node
 * this tick's THPs plus each sample's, unknown anywhere -> by size, sums
 * saturating at UINT64_MAX / 4. Two 4 GiB nodes (t_world_fine). */
static void test_shares_history_walk(void **state)
{
        D *d = d_new();
        PolicyHistory *h = &d->st.hist;
        const uint64_t q = UINT64_MAX / 4;

        (void) state;
        d->w = t_world_fine(2);
        d->w.node[0].thp_grown_valid = d->w.node[1].thp_grown_valid = true;
        d->w.node[0].thp_grown = 10;
        d->w.node[1].thp_grown = 0;
        h->n_nodes = 2;
        h->node_id[0] = 0;
        h->node_id[1] = 1;
        d_hist(d, 990 * S, 0);
        h->thp_grown[0][0] = 0;
        h->thp_grown[0][1] = 30;
        /* a slot past the ring's n, within the window: not a sample */
        h->t_usec[1] = 995 * S;
        h->thp_grown[1][0] = h->thp_grown[1][1] = UINT64_MAX;
        /* 10 fallbacks/s x 5 s x 2 MiB renews the (empty) peak; grown
         * {10 + 0, 0 + 30}, sum 40: 10 x 10000 / 40 = 2500, 7500 */
        d_eval(d, 1000 * S, 0, 10, 5);
        assert_int_equal(d->e.learned_peak_usec, 1000 * S);
        assert_int_equal(d->e.nodes[0].learned_share_permyriad, 2500);
        assert_int_equal(d->e.nodes[1].learned_share_permyriad, 7500);
        assert_true(d->e.nodes[0].learned_share_measured);
        assert_true(d->e.nodes[1].learned_share_measured);
        /* a sample that does not know node 1: by size, 5000 each */
        d_hist(d, 995 * S, 0);
        h->thp_grown[1][0] = 0;
        assert_int_equal(h->thp_grown[1][1], UINT64_MAX);
        d_eval(d, 1000 * S, 0, 10, 5);
        assert_int_equal(d->e.nodes[0].learned_share_permyriad, 5000);
        assert_int_equal(d->e.nodes[1].learned_share_permyriad, 5000);
        assert_false(d->e.nodes[0].learned_share_measured);
        assert_false(d->e.nodes[1].learned_share_measured);
        /* saturation: node 0 q - 5 + 10 > q: q; node 1 q + 0 = q; q / 2q */
        h->n = 1;
        h->thp_grown[0][0] = 10;
        h->thp_grown[0][1] = 0;
        d->w.node[0].thp_grown = q - 5;
        d->w.node[1].thp_grown = q;
        d_eval(d, 1000 * S, 0, 10, 5);
        assert_int_equal(d->e.nodes[0].learned_share_permyriad, 5000);
        assert_int_equal(d->e.nodes[1].learned_share_permyriad, 5000);
        assert_true(d->e.nodes[0].learned_share_measured);
        free(d);
}

/* A kept peak keeps its split on a single node too */
static void test_shares_kept_one_node(void **state)
{
        D *d = d_new();

        (void) state;
        d->st.learned_peak_bytes = 200 * MIB;
        d->st.learned_peak_usec = 100 * S;
        d->st.learned_share_n = 1;
        d->st.learned_share_node[0] = 0;
        d->st.learned_share_permyriad[0] = 10000;
        d->st.learned_share_measured[0] = true;
        d->st.learned_share_permyriad[1] = 1234; /* stale, past n: not copied */
        /* nothing this tick, 10 min old: kept, with its measured split */
        d_eval(d, 700 * S, 0, 0, 5);
        assert_int_equal(d->e.learned_peak_usec, 100 * S);
        assert_int_equal(d->e.nodes[0].learned_share_permyriad, 10000);
        assert_true(d->e.nodes[0].learned_share_measured);
        assert_int_equal(d->e.nodes[1].learned_share_permyriad, 0);
        /* a one-byte peak is a peak: held, 1 byte */
        d->st.learned_peak_bytes = 1;
        d_eval(d, 700 * S, 0, 0, 5);
        assert_int_equal(d->e.learned_peak_bytes, 1);
        assert_int_equal(d->e.learned_need_bytes, 1);
        free(d);
}

/* The seed from boot: no clock gives nothing; the most fallbacks a
 * counter holds still seed (cut to the host: 4096 MiB) */
static void test_from_boot_edges(void **state)
{
        PolicyConfig c;
        LearnedRestore r;

        (void) state;
        t_config(&c);
        c.demand_learning = true;
        c.demand_from_boot = true;
        c.demand_hold_usec = 1800 * S; /* up 600 s, less: all faults count */
        assert_int_equal(policy_learned_from_boot(&c, &(BootHistory) { 10000, 10000, 36000 * S }, HP, 4096 * MIB, 0,
                                                  &r),
                         LEARNED_RESTORE_EMPTY);
        assert_int_equal(policy_learned_from_boot(&c, &(BootHistory) { UINT64_MAX, UINT64_MAX, 600 * S }, HP,
                                                  4096 * MIB, 600 * S, &r),
                         LEARNED_RESTORE_OK);
        assert_int_equal(r.peak_bytes, 4096 * MIB);
}

/* The learned target with a factor that is not positive, and at the
 * saturation bound: 1.8e19 bytes x 1 is UINT64_MAX / 4 (cap: all of an
 * UINT64_MAX node) */
static void test_learned_target_bounds(void **state)
{
        PolicyConfig c;

        (void) state;
        t_config(&c);
        c.demand_learning = true;
        c.demand_factor = -1.0;
        c.demand_cap = (SizeSpec){ .bytes = UINT64_MAX };
        assert_int_equal(policy_learned_target(&c, 100 * MIB, 80 * MIB, 4 * GIB), 80 * MIB);
        c.demand_factor = 1.0;
        assert_true(policy_learned_target(&c, UINT64_C(18000000000000000000), 0, UINT64_MAX) == UINT64_MAX / 4);
}

/* The burst sum saturates at UINT64_MAX / 4 and, with the host's size
 * unknown (no managed pages), is not cut; learning off still splits by
 * size (two 4 GiB nodes: 5000 each) */
static void test_burst_saturates_and_off_split(void **state)
{
        D *d = d_new();

        (void) state;
        d_hist(d, 990 * S, UINT64_MAX / 4);
        d_hist(d, 995 * S, 10);
        t_assess(&d->w, 1000 * S, &d->a);
        d->a.rates.interval_sec = 5;
        d->a.rates.thp_fault_alloc = 10;
        d->a.nodes[0].managed_pages = 0;
        memset(&d->e, 0, sizeof(d->e));
        policy_demand_evaluate(&d->cfg, &d->st, &d->a, 1000 * S, &d->e);
        /* 100 MiB this tick + q > q: q; q + 10 > q: q (the unmet burst
         * likewise: the samples' unmet part is the same) */
        assert_int_equal(d->e.demand_bytes, 100 * MIB);
        assert_true(d->e.burst_bytes == UINT64_MAX / 4);
        assert_true(d->e.unmet_burst_bytes == UINT64_MAX / 4);
        free(d);

        d = d_new();
        d->w = t_world_fine(2);
        d->cfg.demand_learning = false;
        d_eval(d, 1000 * S, 10, 0, 5);
        assert_int_equal(d->e.nodes[0].learned_share_permyriad, 5000);
        assert_int_equal(d->e.nodes[1].learned_share_permyriad, 5000);
        free(d);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_demand_of_a_tick),
                cmocka_unit_test(test_burst_window),
                cmocka_unit_test(test_cut_to_the_host),
                cmocka_unit_test(test_renew_or_keep),
                cmocka_unit_test(test_one_sample_and_decayed_cut),
                cmocka_unit_test(test_learned_age),
                cmocka_unit_test(test_learned_target),
                cmocka_unit_test(test_shares_history_walk),
                cmocka_unit_test(test_shares_kept_one_node),
                cmocka_unit_test(test_from_boot_edges),
                cmocka_unit_test(test_learned_target_bounds),
                cmocka_unit_test(test_burst_saturates_and_off_split),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
