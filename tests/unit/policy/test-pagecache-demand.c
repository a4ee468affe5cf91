/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Page-cache demand (policy/demand.c policy_pagecache_evaluate(),
 * docs/policy.md "Page-cache demand"): the order the page cache uses, its
 * share, the demand of a tick and of the burst window (the rebuild window
 * below the THP order), the need (with the THP need on top at the THP
 * order), and the large-folio target it gives. Expectations are
 * worked out by hand in the comments. */

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
#define MIB (UINT64_C(1) << 20)

/* The 6.12 capture (tests/corpus/pagecache/vm-6.12-xfs-hist) in bytes:
 * order 0: 8230 x 4 KiB = 33710080, order 4: 14 x 64 KiB = 917504,
 * order 5: 7 x 128 KiB = 917504, order 6: 249 x 256 KiB = 65273856. */
static void set_captured(PageCacheMeasures *m)
{
        memset(m, 0, sizeof(*m));
        m->valid = true;
        m->bytes_total[0] = 33710080;
        m->bytes_total[4] = 917504;
        m->bytes_total[5] = 917504;
        m->bytes_total[6] = 65273856;
}

/* A node whose free memory has no block of order 5 or more (t_assess
 * gives orders 5..9 the order-9 count): the page cache's order-6 folios
 * fall back or stall there */
static TNode node_fragmented(void)
{
        return (TNode){ .free_pages = 500000, .ge_large_pages = 400000, .ge_thp_pages = 0,
                        .reclaimable_pages = 200000 };
}

/* ... with direct compaction stalls: 8/s x 5 s = 40 stalls, one 256 KiB
 * order-6 block each at most: up to 10 MiB of order-6 folios stalled */
static TWorld world_unmet(void)
{
        TWorld w = { .n_nodes = 1, .node = { node_fragmented() }, .rates_valid = true, .fallback_ratio = -1,
                     .stall_per_sec = 8 };

        return w;
}

static void cfg_learning(PolicyConfig *c)
{
        t_config(c);
        c->demand_learning = true;
        c->demand_factor = 1.0;
        c->demand_cap = (SizeSpec){ .permyriad = 2500 };
}

static void test_order_and_share(void **state)
{
        static PolicyConfig c;
        static PolicyState s;
        static Assessment a;
        static PolicyEval e;

        (void) state;
        cfg_learning(&c);
        policy_state_init(&s);
        t_assess(&(TWorld){ .n_nodes = 1, .node = { t_node_fine() } }, 100 * S, &a);
        set_captured(&a.pagecache);
        memset(&e, 0, sizeof(e));
        policy_pagecache_evaluate(&c, &s, &a, 100 * S, &e);
        /* large folios: 917504 + 917504 + 65273856 = 64 MiB; order 6 holds
         * 97 % of it (>= 10 %), nothing above 6 */
        assert_int_equal(e.pagecache_order, 6);
        /* 65273856 / 100818944 (all orders) = 0.647436 -> 6474 */
        assert_int_equal(e.pagecache_share_permyriad, 6474);
        /* a single reading: no delta, no demand */
        assert_int_equal(e.pagecache_demand_bytes, 0);
        assert_int_equal(e.pagecache_need_bytes, 0);
}

static void test_order_thresholds(void **state)
{
        static PolicyConfig c;
        static PolicyState s;
        static Assessment a;
        static PolicyEval e;

        (void) state;
        cfg_learning(&c);
        policy_state_init(&s);
        t_assess(&(TWorld){ .n_nodes = 1, .node = { t_node_fine() } }, 100 * S, &a);

        /* order 0 only: no order */
        memset(&a.pagecache, 0, sizeof(a.pagecache));
        a.pagecache.valid = true;
        a.pagecache.bytes_total[0] = 1024 * MIB;
        memset(&e, 0, sizeof(e));
        policy_pagecache_evaluate(&c, &s, &a, 100 * S, &e);
        assert_int_equal(e.pagecache_order, 0);

        /* large folios under 4 MiB: too little to say */
        a.pagecache.bytes_total[6] = 4 * MIB - 262144;
        memset(&e, 0, sizeof(e));
        policy_pagecache_evaluate(&c, &s, &a, 100 * S, &e);
        assert_int_equal(e.pagecache_order, 0);

        /* 4 MiB at order 6 and 40 MiB at order 2: order 6 is 4/44 = 9.1 %
         * (< 10 %), so the order is 2 */
        a.pagecache.bytes_total[6] = 4 * MIB;
        a.pagecache.bytes_total[2] = 40 * MIB;
        memset(&e, 0, sizeof(e));
        policy_pagecache_evaluate(&c, &s, &a, 100 * S, &e);
        assert_int_equal(e.pagecache_order, 2);
        /* 36 MiB more at order 2 would not matter, 5 MiB at 6: 5/45 = 11.1 % */
        a.pagecache.bytes_total[6] = 5 * MIB;
        memset(&e, 0, sizeof(e));
        policy_pagecache_evaluate(&c, &s, &a, 100 * S, &e);
        assert_int_equal(e.pagecache_order, 6);

        /* no hist this tick: nothing */
        a.pagecache.valid = false;
        memset(&e, 0, sizeof(e));
        policy_pagecache_evaluate(&c, &s, &a, 100 * S, &e);
        assert_int_equal(e.pagecache_order, 0);
        assert_int_equal(e.pagecache_share_permyriad, 0);
}

/* history ring: samples at now-20 s and now-10 s with 5 MiB each, one at
 * now-40 s with 100 MiB (outside the 30 s window) */
static void seed_history(PolicyState *s, usec_t now)
{
        PolicyHistory *h = &s->hist;

        h->n = 3;
        h->head = 0;
        h->t_usec[0] = now - 40 * S;
        h->pagecache_bytes[0] = h->pagecache_unmet_bytes[0] = 100 * MIB;
        h->t_usec[1] = now - 20 * S;
        h->pagecache_bytes[1] = h->pagecache_unmet_bytes[1] = 5 * MIB;
        h->t_usec[2] = now - 10 * S;
        h->pagecache_bytes[2] = h->pagecache_unmet_bytes[2] = 5 * MIB;
}

static void test_demand_and_need(void **state)
{
        const TWorld wu = world_unmet();
        static PolicyConfig c;
        static PolicyState s;
        static Assessment a;
        static PolicyEval e;
        usec_t now = 1000 * S;

        (void) state;
        cfg_learning(&c);
        policy_state_init(&s);
        seed_history(&s, now);
        t_assess(&wu, now, &a);
        set_captured(&a.pagecache);
        a.pagecache.delta_valid = true;
        a.pagecache.interval_sec = 5;
        a.pagecache.bytes_delta[6] = 40 * 262144; /* 10 MiB */
        a.pagecache.bytes_delta[0] = 1000 * 4096; /* order 0: not demand */

        memset(&e, 0, sizeof(e));
        policy_pagecache_evaluate(&c, &s, &a, now, &e);
        assert_int_equal(e.pagecache_demand_bytes, 10 * MIB);
        /* no free block of order >= 5, 40 stalls: all 10 MiB stalled */
        assert_int_equal(e.pagecache_stalled_bytes, 10 * MIB);
        assert_int_equal(e.pagecache_fallback_bytes, 0);
        assert_int_equal(e.pagecache_unmet_bytes, 10 * MIB);
        /* order 6 below the THP order (9): the window is the rebuild
         * time, 10 s: the sample at now-10 s is out (not < 10 s), so 10
         * MiB, the tick's own */
        assert_int_equal(e.pagecache_burst_bytes, 10 * MIB);
        assert_int_equal(e.pagecache_need_bytes, 10 * MIB);
        /* the bytes at order >= 6 this tick: the 10 MiB; 3 MiB more at
         * order 5 are demand (13 MiB) but not at the order */
        assert_int_equal(e.pagecache_order_demand_bytes, 10 * MIB);
        a.pagecache.bytes_delta[5] = 3 * MIB;
        memset(&e, 0, sizeof(e));
        policy_pagecache_evaluate(&c, &s, &a, now, &e);
        assert_int_equal(e.pagecache_demand_bytes, 13 * MIB);
        assert_int_equal(e.pagecache_order_demand_bytes, 10 * MIB);
        /* no block above order 5 was free: the order-5 bytes fell back */
        assert_int_equal(e.pagecache_fallback_bytes, 3 * MIB);
        assert_int_equal(e.pagecache_unmet_bytes, 13 * MIB);
        a.pagecache.bytes_delta[5] = 0;

        /* x1.5; a learned THP need of 4 MiB is not added (the order-6
         * reserve is rebuilt by its own one-shots; the THP reserve has
         * its own target): 15 MiB */
        c.demand_factor = 1.5;
        memset(&e, 0, sizeof(e));
        e.learned_need_bytes = 4 * MIB;
        policy_pagecache_evaluate(&c, &s, &a, now, &e);
        assert_int_equal(e.pagecache_need_bytes, 15 * MIB);

        /* the page cache at the THP order (order_thp 6): the 30 s burst
         * window, 10 + 5 + 5 = 20 MiB x 1.5 = 30, and the THP need x 1.5
         * on top (a huge page's block is the page cache's too): 36 MiB */
        c.order_thp = 6;
        memset(&e, 0, sizeof(e));
        e.learned_need_bytes = 4 * MIB;
        policy_pagecache_evaluate(&c, &s, &a, now, &e);
        assert_int_equal(e.pagecache_burst_bytes, 20 * MIB);
        assert_int_equal(e.pagecache_need_bytes, 36 * MIB);

        /* order_thp 5 is below the page-cache order 6: its blocks do not
         * serve order 6, the THP need is not added; 30 s window */
        c.order_thp = 5;
        memset(&e, 0, sizeof(e));
        e.learned_need_bytes = 4 * MIB;
        policy_pagecache_evaluate(&c, &s, &a, now, &e);
        assert_int_equal(e.pagecache_need_bytes, 30 * MIB);
        c.order_thp = 0;

        /* learning off: the order and the demand are reported, no need */
        c.demand_learning = false;
        memset(&e, 0, sizeof(e));
        policy_pagecache_evaluate(&c, &s, &a, now, &e);
        assert_int_equal(e.pagecache_order, 6);
        assert_int_equal(e.pagecache_burst_bytes, 10 * MIB);
        assert_int_equal(e.pagecache_need_bytes, 0);
}

static void test_target(void **state)
{
        static PolicyConfig c;
        uint64_t node = 4096 * MIB;

        (void) state;
        cfg_learning(&c);
        /* cap 25 % of 4 GiB = 1 GiB: the need when above the configured */
        assert_int_equal(policy_pagecache_target(&c, 20 * MIB, 8 * MIB, node), 20 * MIB);
        assert_int_equal(policy_pagecache_target(&c, 4 * MIB, 8 * MIB, node), 8 * MIB);
        assert_int_equal(policy_pagecache_target(&c, 0, 8 * MIB, node), 8 * MIB);
        assert_int_equal(policy_pagecache_target(&c, 2048 * MIB, 8 * MIB, node), 1024 * MIB);
        c.demand_cap = (SizeSpec){ .bytes = 16 * MIB };
        assert_int_equal(policy_pagecache_target(&c, 20 * MIB, 8 * MIB, node), 16 * MIB);
}

/* Through policy_decide(): the large-folio objective is at the page
 * cache's order with the target from its need. */
static void test_decide_uses_order(void **state)
{
        const TWorld wu = world_unmet();
        static PolicyConfig c;
        static PolicyState s;
        static Assessment a;
        static Decision d;
        LeverInput in[_LEVER_MAX];
        usec_t now = 1000 * S;

        (void) state;
        cfg_learning(&c);
        c.reserve_large = (SizeSpec){ .bytes = 8 * MIB };
        c.reserve_always = true; /* the 8 MiB floor before any demand is held (test-reserve-gate.c) */
        policy_state_init(&s);
        seed_history(&s, now);
        s.hist.t_usec[2] = now - 5 * S;
        s.hist.order[0] = 6; /* the history is of the same orders */
        s.hist.order[1] = 9;
        t_levers(in);
        t_assess(&wu, now, &a);
        assert_int_equal(policy_decide(&c, &s, &a, in, now, &d), 0);
        assert_int_equal(d.eval.order[0], 4); /* no hist: order_large */
        assert_int_equal(d.eval.nodes[0].target_bytes[0], 8 * MIB);

        set_captured(&a.pagecache);
        a.pagecache.delta_valid = true;
        a.pagecache.bytes_delta[6] = 40 * 262144;
        assert_int_equal(policy_decide(&c, &s, &a, in, now, &d), 0);
        assert_int_equal(d.eval.order[0], 6);
        /* 10 MiB this tick + 5 MiB in the 10 s window (the history is
         * kept: orders 6 and 9 as recorded; now-10 s is out, now-5 s in) */
        assert_int_equal(d.eval.nodes[0].target_bytes[0], 15 * MIB);
        /* have: no block of order >= 5 (t_assess gives orders 5..9 the
         * order-9 count) */
        assert_int_equal(d.eval.nodes[0].have_bytes[0], 0);
}

/* The page-cache need is held and decayed like the learned THP need: a
 * burst that has left the 30 s window still sizes the reserve for
 * demand_hold, then halves every demand_decay, and is gone below one block
 * of the page cache's order; a larger burst renews it; state carries it
 * from tick to tick (policy_state_update()). */
static void test_need_held_and_decayed(void **state)
{
        const TWorld wu = world_unmet();
        static PolicyConfig c;
        static PolicyState s;
        static Assessment a;
        static Decision d;
        LeverInput in[_LEVER_MAX];
        usec_t t0 = 1000 * S;

        (void) state;
        cfg_learning(&c);
        c.demand_hold_usec = 600 * S;
        c.demand_decay_usec = 300 * S;
        policy_state_init(&s);
        t_levers(in);

        /* t0: 10 MiB at order 6, nothing before: burst and need 10 MiB */
        t_assess(&wu, t0, &a);
        set_captured(&a.pagecache);
        a.pagecache.delta_valid = true;
        a.pagecache.bytes_delta[6] = 40 * 262144;
        assert_int_equal(policy_decide(&c, &s, &a, in, t0, &d), 0);
        assert_int_equal(d.eval.pagecache_burst_bytes, 10 * MIB);
        assert_int_equal(d.eval.pagecache_need_bytes, 10 * MIB);
        /* the peak renewed: the burst, seen now */
        assert_int_equal(d.eval.pagecache_held_bytes, 10 * MIB);
        assert_int_equal(d.eval.pagecache_peak_bytes, 10 * MIB);
        assert_int_equal(d.eval.pagecache_peak_usec, t0);
        policy_state_update(&s, &a, &d, t0);

        /* t0 + 60 s: no demand since, the burst is out of the window, but
         * the need is held (60 s < demand_hold 600 s) */
        t_assess(&wu, t0 + 60 * S, &a);
        set_captured(&a.pagecache);
        a.pagecache.delta_valid = true;
        assert_int_equal(policy_decide(&c, &s, &a, in, t0 + 60 * S, &d), 0);
        assert_int_equal(d.eval.pagecache_burst_bytes, 0);
        assert_int_equal(d.eval.pagecache_need_bytes, 10 * MIB);
        /* held from the peak, which stays as it was seen at t0 */
        assert_int_equal(d.eval.pagecache_held_bytes, 10 * MIB);
        assert_int_equal(d.eval.pagecache_peak_bytes, 10 * MIB);
        assert_int_equal(d.eval.pagecache_peak_usec, t0);
        policy_state_update(&s, &a, &d, t0 + 60 * S);

        /* t0 + 900 s: 300 s past the hold = one decay: 5 MiB */
        t_assess(&wu, t0 + 900 * S, &a);
        set_captured(&a.pagecache);
        a.pagecache.delta_valid = true;
        assert_int_equal(policy_decide(&c, &s, &a, in, t0 + 900 * S, &d), 0);
        assert_int_equal(d.eval.pagecache_need_bytes, 5 * MIB);
        assert_int_equal(d.eval.pagecache_held_bytes, 5 * MIB);
        assert_int_equal(d.eval.pagecache_peak_bytes, 10 * MIB);
        assert_int_equal(d.eval.pagecache_peak_usec, t0);
        policy_state_update(&s, &a, &d, t0 + 900 * S);

        /* a tick without the signal (tracefs gone) keeps what was seen */
        t_assess(&wu, t0 + 905 * S, &a);
        assert_int_equal(policy_decide(&c, &s, &a, in, t0 + 905 * S, &d), 0);
        assert_int_equal(d.eval.pagecache_peak_bytes, 10 * MIB);
        assert_int_equal(d.eval.pagecache_peak_usec, t0);
        policy_state_update(&s, &a, &d, t0 + 905 * S);

        /* t0 + 900 s + 5 x 300 s: 10 MiB / 64 = 160 KiB, under one
         * order-6 block (256 KiB): forgotten */
        t_assess(&wu, t0 + 2400 * S, &a);
        set_captured(&a.pagecache);
        a.pagecache.delta_valid = true;
        assert_int_equal(policy_decide(&c, &s, &a, in, t0 + 2400 * S, &d), 0);
        assert_int_equal(d.eval.pagecache_need_bytes, 0);
        assert_int_equal(d.eval.pagecache_held_bytes, 0);
        assert_int_equal(d.eval.pagecache_peak_bytes, 0);
        assert_int_equal(d.eval.pagecache_peak_usec, 0);
        policy_state_update(&s, &a, &d, t0 + 2400 * S);

        /* a new burst of 1 MiB renews it: 1 MiB, held from now */
        t_assess(&wu, t0 + 2405 * S, &a);
        set_captured(&a.pagecache);
        a.pagecache.delta_valid = true;
        a.pagecache.bytes_delta[6] = 4 * 262144;
        assert_int_equal(policy_decide(&c, &s, &a, in, t0 + 2405 * S, &d), 0);
        assert_int_equal(d.eval.pagecache_need_bytes, 1 * MIB);
        assert_int_equal(d.eval.pagecache_peak_usec, t0 + 2405 * S);
        policy_state_update(&s, &a, &d, t0 + 2405 * S);
        t_assess(&wu, t0 + 2500 * S, &a);
        set_captured(&a.pagecache);
        a.pagecache.delta_valid = true;
        assert_int_equal(policy_decide(&c, &s, &a, in, t0 + 2500 * S, &d), 0);
        assert_int_equal(d.eval.pagecache_need_bytes, 1 * MIB);
        assert_int_equal(d.eval.pagecache_held_bytes, 1 * MIB);
        assert_int_equal(d.eval.pagecache_peak_bytes, 1 * MIB);
        assert_int_equal(d.eval.pagecache_peak_usec, t0 + 2405 * S);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_order_and_share),
                cmocka_unit_test(test_order_thresholds),
                cmocka_unit_test(test_demand_and_need),
                cmocka_unit_test(test_target),
                cmocka_unit_test(test_decide_uses_order),
                cmocka_unit_test(test_need_held_and_decayed),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
