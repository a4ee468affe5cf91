/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A reserve below the THP order (the page cache's order_large reserve) is
 * judged by the free blocks at its own order: one evaluation in which
 * compaction scanned and order>=N free did not grow ends the raising
 * (docs/policy.md "Page-cache reserve at its own order"). The kernel's
 * proactive compaction works to the order-9 score; on memory where no
 * order-9 block can form (a pinned page in every 256 KiB) it is never
 * satisfied, and its scanners took order-6 blocks as migration targets
 * (the postgres VM scenario: order>=6 free 75 -> 54 MiB under
 * proactiveness 100). A THP-order reserve keeps backoff_decisions.
 *
 * Worked by hand for t_config() on one 4 GiB node (1048576 pages):
 * order-4 target 2 % = 85899345 B = 20971.5 pages, THP target 1 % =
 * 42949672 B = 10485.8 pages, met with the 10 % band at >= 11534.3
 * pages; proactiveness dwell 10 s, backoff_decisions 3, backoff_hold
 * 600 s, no kicks; 5 s ticks, 10000 pages scanned a second. Links
 * libpolicy.a only. */

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

/* order-4 reserve short (15000 pages of 20971.5), THP reserve met (12000 >= 11534.3) */
static TWorld world_large_short(void)
{
        TWorld w = t_world_fine(1);

        w.node[0] = (TNode){ .free_pages = 500000, .ge_large_pages = 15000, .ge_thp_pages = 12000,
                             .reclaimable_pages = 200000 };
        w.scan_pages_per_sec = 10000;
        return w;
}

/* ticks (5 s) until the back-off item, the first raise at tick 1; 0: none in `max` */
static unsigned ticks_to_backoff(TSim *s, TWorld *w, unsigned max, uint64_t grow_large_per_tick,
                                 const DecisionItem **ret)
{
        for (unsigned i = 1; i <= max; i++) {
                const Decision *d = t_sim_tick(s, w, 5);
                const DecisionItem *it = t_find_reason(d, P, POLICY_REASON_BACKOFF_INEFFECTIVE);

                explain_print(d);
                if (i == 1)
                        assert_non_null(t_find(d, DECISION_LEVER, P)); /* the raise that opens the episode */
                if (it) {
                        *ret = it;
                        return i;
                }
                w->node[0].ge_large_pages += grow_large_per_tick;
        }
        return 0;
}

/* order 4 < 9: raise at tick 1 (t = 5 s), the episode evaluated at 15 s
 * (10 s = one dwell: 100000 pages scanned, order>=4 free still 15000
 * pages), backed off at the next tick, 20 s: tick 4. With
 * backoff_decisions (3) it would be the evaluations at 15, 25, 35 s and
 * the back-off at 40 s: tick 8. */
static void test_large_backs_off_after_one_evaluation(void **state)
{
        TSim *s = sim_new();
        TWorld w = world_large_short();
        const DecisionItem *it = NULL;
        char buf[512];

        (void) state;
        assert_int_equal(ticks_to_backoff(s, &w, 20, 0, &it), 4);
        assert_int_equal(it->to, 20); /* the baseline, at once */
        assert_int_equal(it->num.objective, POLICY_OBJ_RESERVE);
        assert_int_equal(it->num.order, 4);
        assert_int_equal(it->num.evaluations, 1);
        assert_int_equal(it->num.scanned_pages, 100000);
        assert_int_equal(it->num.gained_bytes, 0);
        decision_explain(it, buf, sizeof(buf));
        print_message("    %s\n", buf);
        /* held for backoff_hold (600 s): no raise, no move at all */
        for (unsigned i = 0; i < 110; i++) {
                const Decision *d = t_sim_tick(s, &w, 5);

                assert_null(t_find(d, DECISION_LEVER, P));
        }
        assert_int_equal(s->in[P].current, 20);
        free(s);
}

/* order>=4 falling while compaction scans is no gain either: tick 4 */
static void test_large_falling_backs_off(void **state)
{
        TSim *s = sim_new();
        TWorld w = world_large_short();
        const DecisionItem *it = NULL;

        (void) state;
        assert_int_equal(ticks_to_backoff(s, &w, 20, (uint64_t) -500, &it), 4);
        /* 15000 - 2 x 500 pages at the evaluation (15 s, ticks 1-2 lowered it) */
        assert_int_equal(it->num.gained_bytes, -1000 * 4096);
        free(s);
}

/* order>=4 growing 2900 pages a tick: at the evaluation (15 s, the value
 * of tick 3, 20800 pages: still short) 5800 pages = 11 THP blocks for
 * 100000 pages scanned, 9090 a
 * block, under the 20000 limit: paid off. Growing 800 a tick: 1600, 3200,
 * 4800 pages (3, 6, 9 blocks) for 100000, 200000, 300000 pages scanned,
 * 33333 a block each time: too dear, but a gain, so backoff_decisions (3)
 * evaluations as before: tick 8. */
static void test_large_gain_keeps_raising(void **state)
{
        TSim *s = sim_new();
        TWorld w = world_large_short();
        const DecisionItem *it = NULL;

        (void) state;
        assert_int_equal(ticks_to_backoff(s, &w, 3, 2900, &it), 0);
        assert_int_equal(s->state.lever[P].ep_no_gain, 0);
        assert_true(s->state.lever[P].episode);
        t_sim_init(s);
        w = world_large_short();
        it = NULL;
        assert_int_equal(ticks_to_backoff(s, &w, 20, 800, &it), 8);
        assert_int_equal(it->num.evaluations, 3);
        assert_int_equal(it->num.gained_bytes, 4800 * 4096);
        free(s);
}

/* The THP reserve short (order 9), the order-4 one met: backoff_decisions
 * evaluations as before, ticks 8 (evaluations at 15, 25, 35 s) */
static void test_thp_keeps_backoff_decisions(void **state)
{
        TSim *s = sim_new();
        TWorld w = world_large_short();
        const DecisionItem *it = NULL;

        (void) state;
        w.node[0].ge_large_pages = 30000;
        w.node[0].ge_thp_pages = 5000;
        s->cfg.oneshot_compact = false;
        assert_int_equal(ticks_to_backoff(s, &w, 20, 0, &it), 8);
        assert_int_equal(it->num.order, 9);
        assert_int_equal(it->num.evaluations, 3);
        free(s);
}

/* ---- the one-shot node compaction for the page-cache reserve ------------
 * The page cache adds its folios at order 6 (8 MiB of them seen, all at
 * order 6: the order is 6); no demand this tick unless `delta`. The
 * order-6 target is the configured 2 % = 85899345 B (no burst learned):
 * short under 20971.5 pages (20971 yes, 20972 no: not oneshot_below's 25 %
 * as for the THP reserve). The THP target 42949672 B, far below under
 * 2621.4 pages: order>=9 free at 3000 pages or more is not. Free memory at
 * least the kernel's high watermark (min 16896 pages, gap max(16896 / 4,
 * 1048576 x 10 / 10000) = 4224: 25344 pages = 103809024 B) + the target =
 * 189708369 B = 46315.5 pages: 46316 yes, 46315 no. */
static unsigned decide_pc(TSim *s, const TWorld *w, bool delta, const DecisionItem **ret)
{
        unsigned n = 0;

        s->now += 5 * S;
        t_assess(w, s->now, &s->a);
        s->a.pagecache.valid = true;
        s->a.pagecache.bytes_total[6] = 8u << 20;
        s->a.pagecache.delta_valid = delta;
        s->a.pagecache.interval_sec = 5;
        s->a.pagecache.bytes_delta[6] = delta ? 2u << 20 : 0;
        assert_int_equal(policy_decide(&s->cfg, &s->state, &s->a, s->in, s->now, &s->d), 0);
        for (unsigned i = 0; i < s->d.n_items; i++)
                if (s->d.items[i].kind == DECISION_COMPACT_NODE) {
                        n++;
                        if (ret)
                                *ret = &s->d.items[i];
                }
        return n;
}

/* The last one-shot on node 0 AGO before the next decide_pc()'s time */
static void oneshot_ago(TSim *s, usec_t ago)
{
        s->state.hist.n_nodes = 1;
        s->state.have_oneshot[0] = true;
        s->state.last_oneshot_usec[0] = s->now + 5 * S - ago;
}

/* decide_pc(), then the state updated as the daemon does (the history
 * the free-memory trend is fitted on) */
static unsigned tick_pc(TSim *s, const TWorld *w)
{
        unsigned n = decide_pc(s, w, false, NULL);

        decision_mark_all_applied(&s->d);
        policy_state_update(&s->state, &s->a, &s->d, s->now);
        return n;
}

static TWorld world_pc(uint64_t ge6, uint64_t free_pages)
{
        TWorld w = t_world_fine(1);

        w.node[0] = (TNode){ .free_pages = free_pages, .ge_large_pages = free_pages, .ge_thp_pages = ge6,
                             .reclaimable_pages = 200000 };
        return w;
}

static void test_pc_oneshot(void **state)
{
        TSim *s = sim_new();
        TWorld w = world_pc(5000, 100000);
        const DecisionItem *it = NULL;
        char buf[512];

        (void) state;
        /* kicks on (they keep the THP one-shot off): the order-6 one still comes */
        s->cfg.kick_interval_usec = 5 * S;
        assert_int_equal(decide_pc(s, &w, false, &it), 1);
        assert_int_equal(s->d.eval.order[0], 6);
        assert_int_equal(it->node, 0);
        assert_int_equal(it->reason, POLICY_REASON_ONESHOT_COMPACT);
        assert_int_equal(it->num.order, 6);
        assert_int_equal(it->num.have_bytes, 5000ULL * 4096);
        assert_int_equal(it->num.target_bytes, 85899345);
        assert_int_equal(it->num.free_bytes, 100000ULL * 4096);
        assert_int_equal(it->num.limit_permyriad, 10000);
        decision_explain(it, buf, sizeof(buf));
        print_message("    %s\n", buf);
        /* 20480000 B and 85899345 B in whole MiB, rounded down */
        assert_string_equal(buf, "compact node 0 now: 19 MiB free in order>=6 blocks is under the 81 MiB target, "
                                 "no page-cache burst and memory pressure is calm (some 0.00%)");
        free(s);
}

static void test_pc_oneshot_edges(void **state)
{
        TSim *s = sim_new();
        TWorld w;

        (void) state;
        w = world_pc(20971, 100000);
        assert_int_equal(decide_pc(s, &w, false, NULL), 1);
        t_sim_init(s);
        w = world_pc(20972, 100000);
        assert_int_equal(decide_pc(s, &w, false, NULL), 0);
        /* free memory to build from: 46316 pages yes, 46315 no */
        t_sim_init(s);
        w = world_pc(3000, 46316);
        assert_int_equal(decide_pc(s, &w, false, NULL), 1);
        t_sim_init(s);
        w = world_pc(3000, 46315);
        assert_int_equal(decide_pc(s, &w, false, NULL), 0);
        /* a page-cache burst this tick: not now */
        t_sim_init(s);
        w = world_pc(3000, 100000);
        assert_int_equal(decide_pc(s, &w, true, NULL), 0);
        /* pressure: some 1.00 % yes, 1.01 % no */
        t_sim_init(s);
        w.psi_some = 100;
        assert_int_equal(decide_pc(s, &w, false, NULL), 1);
        t_sim_init(s);
        w.psi_some = 101;
        assert_int_equal(decide_pc(s, &w, false, NULL), 0);
        w.psi_some = 0;
        /* off */
        t_sim_init(s);
        s->cfg.oneshot_compact = false;
        assert_int_equal(decide_pc(s, &w, false, NULL), 0);
        /* proactiveness just backed off for this reserve: the one-shot is
         * the lever that is left */
        t_sim_init(s);
        s->state.lever[P].hold_raise_until_usec = s->now + 100 * S;
        s->state.lever[P].hold_reason = POLICY_REASON_BACKOFF_INEFFECTIVE;
        assert_int_equal(decide_pc(s, &w, false, NULL), 1);
        /* at most once per oneshot_min_interval (600 s) on the node */
        t_sim_init(s);
        oneshot_ago(s, 595 * S);
        assert_int_equal(decide_pc(s, &w, false, NULL), 0);
        s->state.last_oneshot_usec[0] = s->now + 5 * S - 600 * S;
        assert_int_equal(decide_pc(s, &w, false, NULL), 1);
        /* no page-cache order (no hist): the order-4 reserve has none
         * (kicks on keep the THP one, as far below, off) */
        t_sim_init(s);
        s->cfg.kick_interval_usec = 5 * S;
        w = world_pc(100000, 100000);
        w.node[0].ge_large_pages = 100;
        s->now += 5 * S;
        t_assess(&w, s->now, &s->a);
        assert_int_equal(policy_decide(&s->cfg, &s->state, &s->a, s->in, s->now, &s->d), 0);
        assert_null(t_find(&s->d, DECISION_COMPACT_NODE, 0));
        free(s);
}

/* the history's samples no older than 10 s (the window free_falling() looks at) */
static void set_window(TSim *s, bool have, uint64_t pages)
{
        PolicyHistory *h = &s->state.hist;

        for (unsigned j = 0; j < h->n; j++) {
                unsigned r = (h->head + j) % POLICY_HISTORY_MAX;

                if (s->now + 5 * S - h->t_usec[r] <= 10 * S) {
                        if (have)
                                h->ge_pages[0][r][0] = pages;
                        else
                                h->free_pages[r][0] = pages;
                }
        }
}

/* Free memory falling fast (a fill or a burst under way: what a
 * compaction builds is split again at once; in the postgres scenario the
 * one-shot came during the page-cache fill and during the fragmenter's
 * pass, and its interval then kept it from the settled memory): no
 * one-shot while a sample of the last 10 s is above free memory now by
 * more than free / 16. Order>=6 under target (10000 pages) from tick 2. */
static void test_pc_oneshot_not_while_free_falls(void **state)
{
        TSim *s = sim_new();
        TWorld w = world_pc(30000, 100000);

        (void) state;
        /* t0: over target (no one-shot), history made */
        assert_int_equal(tick_pc(s, &w), 0);
        /* t0 + 5 s: 100000 -> 90000, fell 10000 > 90000 / 16 = 5625 */
        w.node[0].ge_thp_pages = 10000;
        w.node[0].free_pages = 90000;
        assert_int_equal(tick_pc(s, &w), 0);
        /* t0 + 10 s: steady since the last tick, but t0's 100000 is 10 s old: still in the window */
        assert_int_equal(tick_pc(s, &w), 0);
        /* t0 + 15 s: the window holds 90000 and 90000: a one-shot */
        assert_int_equal(tick_pc(s, &w), 1);
        /* the edge, without the interval: free 80000 and the window at 85000:
         * 5000 = 80000 / 16, not more: yes; one sample at 85001: no */
        s->state.have_oneshot[0] = false;
        w.node[0].free_pages = 80000;
        set_window(s, false, 85000);
        assert_int_equal(decide_pc(s, &w, false, NULL), 1);
        s->now -= 5 * S;
        s->state.hist.free_pages[(s->state.hist.head + s->state.hist.n - 1) % POLICY_HISTORY_MAX][0] = 85001;
        assert_int_equal(decide_pc(s, &w, false, NULL), 0);
        /* rising is never a fall */
        s->now -= 5 * S;
        set_window(s, false, 1000);
        assert_int_equal(decide_pc(s, &w, false, NULL), 1);
        free(s);
}

/* The same for the free blocks at the page cache's order (something takes
 * large blocks, as the scenario's eater with its mTHP faults, which the
 * page-cache signal does not see): order>=6 free 10000 pages now, free
 * memory steady at 80000: the window at 15000 (5000 = 80000 / 16, not
 * more): a one-shot; one sample at 15001: none. */
static void test_pc_oneshot_not_while_blocks_fall(void **state)
{
        TSim *s = sim_new();
        TWorld w = world_pc(15000, 80000);
        unsigned r;

        (void) state;
        w.node[0].ge_thp_pages = 25000; /* over target: no one-shot, history made */
        assert_int_equal(tick_pc(s, &w), 0);
        assert_int_equal(tick_pc(s, &w), 0);
        r = (s->state.hist.head + s->state.hist.n - 1) % POLICY_HISTORY_MAX;
        assert_int_equal(s->state.hist.ge_pages[0][r][0], 25000);
        w.node[0].ge_thp_pages = 10000;
        set_window(s, true, 15000);
        s->state.hist.ge_pages[0][r][0] = 15001;
        assert_int_equal(decide_pc(s, &w, false, NULL), 0);
        s->now -= 5 * S;
        s->state.hist.ge_pages[0][r][0] = 15000;
        assert_int_equal(decide_pc(s, &w, false, NULL), 1);
        /* a sample older than 10 s does not count: the window now starts
         * after the newest sample but one */
        s->state.hist.ge_pages[0][(r + POLICY_HISTORY_MAX - 1) % POLICY_HISTORY_MAX][0] = 90000;
        s->now += 5 * S; /* newest 10 s old, the one before 15 s */
        assert_int_equal(decide_pc(s, &w, false, NULL), 1);
        free(s);
}

/* decide_pc() with `bytes` added at order k this tick (k 0: none) */
static unsigned decide_pc_at(TSim *s, const TWorld *w, unsigned k, uint64_t bytes)
{
        unsigned n = 0;

        s->now += 5 * S;
        t_assess(w, s->now, &s->a);
        s->a.pagecache.valid = true;
        s->a.pagecache.bytes_total[6] = 8u << 20;
        s->a.pagecache.delta_valid = true;
        s->a.pagecache.interval_sec = 5;
        if (k > 0)
                s->a.pagecache.bytes_delta[k] = bytes;
        assert_int_equal(policy_decide(&s->cfg, &s->state, &s->a, s->in, s->now, &s->d), 0);
        for (unsigned i = 0; i < s->d.n_items; i++)
                n += s->d.items[i].kind == DECISION_COMPACT_NODE;
        return n;
}

/* A burst is the page cache's demand at its order: large folios of
 * smaller orders (a busy database's data files, every tick) do not keep
 * the rebuild off. Order 6 short (3000 pages), free 100000 pages. */
static void test_pc_oneshot_burst_at_its_order(void **state)
{
        TSim *s = sim_new();
        TWorld w = world_pc(3000, 100000);

        (void) state;
        /* 1 MiB at order 2 this tick: not a burst at order 6 */
        assert_int_equal(decide_pc_at(s, &w, 2, 1u << 20), 1);
        assert_int_equal(s->d.eval.pagecache_demand_bytes, 1u << 20);
        assert_int_equal(s->d.eval.pagecache_order_demand_bytes, 0);
        /* one order-6 folio (256 KiB) this tick: a burst */
        t_sim_init(s);
        assert_int_equal(decide_pc_at(s, &w, 6, 262144), 0);
        /* one at order 7 counts too (>= the order) */
        t_sim_init(s);
        assert_int_equal(decide_pc_at(s, &w, 7, 524288), 0);
        free(s);
}

/* a history sample `ago` before the next decide_pc() (now + 5 s) with
 * `bytes` of large page-cache folios; the node's values left 0 (no fall) */
static void add_sample(TSim *s, usec_t ago, uint64_t bytes)
{
        PolicyHistory *h = &s->state.hist;
        unsigned r = (h->head + h->n) % POLICY_HISTORY_MAX;

        h->t_usec[r] = s->now + 5 * S - ago;
        h->pagecache_bytes[r] = bytes;
        h->n++;
}

/* The page-cache one-shot follows the demand (docs/policy.md "Page-cache
 * reserve at its own order"): due again once the page cache has added
 * half the reserve target (85899345 B: 42949672.5) in large folios since
 * the last one-shot, never within 10 s of it; else after
 * oneshot_min_interval (600 s) as before. Order 6 short: 3000 pages. */
static void test_pc_oneshot_follows_demand(void **state)
{
        TSim *s = sim_new();
        TWorld w = world_pc(3000, 100000);

        (void) state;
        /* last one-shot 20 s ago, 42949673 B added 15 s ago (outside the
         * 10 s rebuild window: the target stays the configured one): due */
        oneshot_ago(s, 20 * S);
        add_sample(s, 15 * S, 42949673);
        assert_int_equal(decide_pc(s, &w, false, NULL), 1);
        assert_int_equal(s->d.eval.nodes[0].target_bytes[0], 85899345);
        /* one byte less: 2 x 42949672 = 85899344 < 85899345: not yet */
        s->now -= 5 * S;
        s->state.hist.pagecache_bytes[0] = 42949672;
        assert_int_equal(decide_pc(s, &w, false, NULL), 0);
        /* added before the last one-shot does not count: the sample at
         * 15 s ago, the one-shot 14 s ago */
        s->now -= 5 * S;
        s->state.hist.pagecache_bytes[0] = 80u << 20;
        s->state.last_oneshot_usec[0] = s->now + 5 * S - 14 * S;
        assert_int_equal(decide_pc(s, &w, false, NULL), 0);
        /* this tick's large folios below the order count (1 MiB at order
         * 2 with 42949672 B before: due) */
        s->now -= 5 * S;
        s->state.hist.pagecache_bytes[0] = 42949672;
        s->state.last_oneshot_usec[0] = s->now + 5 * S - 20 * S;
        assert_int_equal(decide_pc_at(s, &w, 2, 1u << 20), 1);

        /* the floor: 60 MiB added 5 s ago (the target stays the configured
         * 81.9 MiB), the last one-shot 9 s ago: no; 10 s ago: due */
        t_sim_init(s);
        oneshot_ago(s, 9 * S);
        add_sample(s, 5 * S, 60u << 20);
        assert_int_equal(decide_pc(s, &w, false, NULL), 0);
        s->now -= 5 * S;
        s->state.last_oneshot_usec[0] = s->now + 5 * S - 10 * S;
        assert_int_equal(decide_pc(s, &w, false, NULL), 1);
        assert_int_equal(s->d.eval.nodes[0].target_bytes[0], 85899345);
        free(s);
}

/* a history sample `ago` before the next decide_pc() with `pages` free
 * in order>=6 blocks (no page cache added, free memory 0: no fall) */
static void add_blocks(TSim *s, usec_t ago, uint64_t pages)
{
        PolicyHistory *h = &s->state.hist;

        add_sample(s, ago, 0);
        h->ge_pages[0][(h->head + h->n - 1) % POLICY_HISTORY_MAX][0] = pages;
}

/* The page-cache one-shot is also due once the blocks at the reserve's
 * order were taken by anyone since the last one-shot (the postgres
 * scenario's anon eater with its mTHP faults, which the page-cache signal
 * does not see): the largest order>=6 free of the history samples after
 * the last one-shot minus what is free now at least half the target
 * (42949672.5 B = 10485.76 pages). Order 6 now: 3000 pages, so a sample
 * of 13486 pages (10486 taken: 2 x 10486 x 4096 = 85901312 >= 85899345)
 * is due, 13485 (85893120) is not. Samples older than 10 s (no fall
 * under way); the last one-shot 60 s ago, no page cache added. */
static void test_pc_oneshot_blocks_taken(void **state)
{
        TSim *s = sim_new();
        TWorld w = world_pc(3000, 100000);

        (void) state;
        oneshot_ago(s, 60 * S);
        add_blocks(s, 50 * S, 13486);
        add_blocks(s, 20 * S, 3000);
        assert_int_equal(decide_pc(s, &w, false, NULL), 1);
        /* at half the target now (10486 pages: 2 x 10486 = 20972 >=
         * 20971.5, not under it: test_pc_oneshot_under_half_a_burst), the
         * half-target rule alone: 20972 pages (10486 taken) due, 20971 not */
        t_sim_init(s);
        w = world_pc(10486, 100000);
        oneshot_ago(s, 60 * S);
        add_blocks(s, 50 * S, 20972);
        add_blocks(s, 20 * S, 10486);
        assert_int_equal(decide_pc(s, &w, false, NULL), 1);
        s->now -= 5 * S;
        s->state.hist.ge_pages[0][0][0] = 20971;
        assert_int_equal(decide_pc(s, &w, false, NULL), 0);
        w = world_pc(3000, 100000);

        /* a sample before the last one-shot, or at its time (what it
         * started from), does not count: 90000 pages 70 s and 60 s ago
         * (3000 now, 1310 pages taken after it: under a sixteenth of the
         * target, test_pc_oneshot_under_half_a_burst) */
        t_sim_init(s);
        oneshot_ago(s, 60 * S);
        add_blocks(s, 70 * S, 90000);
        add_blocks(s, 60 * S, 90000);
        add_blocks(s, 50 * S, 4310);
        assert_int_equal(decide_pc(s, &w, false, NULL), 0);
        /* the one-shot 61 s ago: the sample 60 s ago is after it */
        s->now -= 5 * S;
        s->state.last_oneshot_usec[0] = s->now + 5 * S - 61 * S;
        assert_int_equal(decide_pc(s, &w, false, NULL), 1);

        /* the history does not reach back to the one-shot (300 s ago):
         * its oldest sample counts */
        t_sim_init(s);
        oneshot_ago(s, 300 * S);
        add_blocks(s, 100 * S, 13486);
        add_blocks(s, 50 * S, 3000);
        assert_int_equal(decide_pc(s, &w, false, NULL), 1);

        /* never within 10 s of the last one-shot: free 200000 pages (a
         * fall of 10486 is under 200000 / 16 = 12500: none under way), the
         * sample 7 s ago; the one-shot 9 s ago: no; 10 s ago: due */
        t_sim_init(s);
        w = world_pc(3000, 200000);
        oneshot_ago(s, 9 * S);
        add_blocks(s, 7 * S, 13486);
        assert_int_equal(decide_pc(s, &w, false, NULL), 0);
        s->now -= 5 * S;
        s->state.last_oneshot_usec[0] = s->now + 5 * S - 10 * S;
        assert_int_equal(decide_pc(s, &w, false, NULL), 1);
        free(s);
}

/* The reserve under half its target (what the next burst needs: the
 * burst the target was sized from) and blocks taken since the last
 * one-shot: due once a sixteenth of the target was taken, not half
 * (the postgres scenario: a one-shot built 63 MiB of
 * order>=6 blocks for a 74 MiB target, something took 34 MiB of them,
 * under half the target: not due for 2 min, and pgbench's first WAL
 * segment met 26 MiB: 65 direct compactions). A sixteenth of 85899345 B
 * is 5368709.06 B = 1310.7 pages; half of it 10485.76 pages. Order 6 now
 * at 10485 pages (2 x 10485 = 20970 < 20971.5: under half): a sample of
 * 11796 pages after the one-shot (1311 taken: 16 x 1311 x 4096 =
 * 85917696 >= 85899345) is due, 11795 (1310: 85852160) is not; at 10486
 * pages (not under half) 1310 or 1311 taken is not due either. */
static void test_pc_oneshot_under_half_a_burst(void **state)
{
        TSim *s = sim_new();
        TWorld w = world_pc(10485, 100000);

        (void) state;
        oneshot_ago(s, 60 * S);
        add_blocks(s, 50 * S, 11796);
        assert_int_equal(decide_pc(s, &w, false, NULL), 1);
        s->now -= 5 * S;
        s->state.hist.ge_pages[0][0][0] = 11795;
        assert_int_equal(decide_pc(s, &w, false, NULL), 0);
        assert_int_equal(s->d.eval.nodes[0].pagecache_gate, POLICY_GATE_NOT_DUE);
        /* not under half: the half-target rule */
        t_sim_init(s);
        w = world_pc(10486, 100000);
        oneshot_ago(s, 60 * S);
        add_blocks(s, 50 * S, 11797);
        assert_int_equal(decide_pc(s, &w, false, NULL), 0);
        /* nothing taken (a one-shot that built nothing is not repeated) */
        t_sim_init(s);
        w = world_pc(3000, 100000);
        oneshot_ago(s, 60 * S);
        add_blocks(s, 50 * S, 3000);
        assert_int_equal(decide_pc(s, &w, false, NULL), 0);
        /* still never within 10 s of the last one-shot */
        t_sim_init(s);
        w = world_pc(3000, 200000);
        oneshot_ago(s, 9 * S);
        add_blocks(s, 7 * S, 5000);
        assert_int_equal(decide_pc(s, &w, false, NULL), 0);
        s->now -= 5 * S;
        s->state.last_oneshot_usec[0] = s->now + 5 * S - 10 * S;
        assert_int_equal(decide_pc(s, &w, false, NULL), 1);
        free(s);
}

/* Within the 10 s rebuild window, a page-cache burst that emptied what the
 * last one-shot built ends the window (the postgres scenario: a
 * one-shot built 49 MiB 1 s before a WAL switch, the burst took
 * the blocks to 12 MiB, the window held the rebuild 9 s, 4 stalls). The
 * one-shot 5 s ago; the blocks it built (PREV pages) 4 s ago; the page
 * cache's large folios (ADDED pages) 2 s ago; HAVE pages now. Free memory
 * 100000 pages. */
static void assert_gate_text(const TSim *s, const char *want);

static unsigned emptied_pc(TSim *s, uint64_t prev, uint64_t added, uint64_t have)
{
        TWorld w = world_pc(have, 100000);

        t_sim_init(s);
        oneshot_ago(s, 5 * S);
        add_blocks(s, 4 * S, prev);
        add_sample(s, 2 * S, added * 4096);
        return decide_pc(s, &w, false, NULL);
}

/* All three, each at its edge: what is left under half the target
 * (20971.5 pages: 10485 yes, 10486 no), at least half the most held since
 * taken (12000 built: 6000 left yes, 6001 no), the large folios added at
 * least half of what was taken (9000 taken: 4500 pages yes, 4499 no);
 * nothing built, nothing taken: held; the window's text then. */
static void test_pc_oneshot_emptied_in_window(void **state)
{
        TSim *s = sim_new();

        (void) state;
        assert_int_equal(emptied_pc(s, 12000, 10240, 3000), 1);
        assert_int_equal(s->d.eval.nodes[0].pagecache_gate, POLICY_GATE_NONE);
        /* under half the target */
        assert_int_equal(emptied_pc(s, 30000, 20000, 10485), 1);
        assert_int_equal(emptied_pc(s, 30000, 20000, 10486), 0);
        assert_int_equal(s->d.eval.nodes[0].pagecache_gate, POLICY_GATE_REBUILD_WINDOW);
        /* half of what it built taken */
        assert_int_equal(emptied_pc(s, 12000, 10240, 6000), 1);
        assert_int_equal(emptied_pc(s, 12000, 10240, 6001), 0);
        assert_int_equal(s->d.eval.nodes[0].pagecache_gate, POLICY_GATE_REBUILD_WINDOW);
        /* the page cache's own demand took them */
        assert_int_equal(emptied_pc(s, 12000, 4500, 3000), 1);
        assert_int_equal(emptied_pc(s, 12000, 4499, 3000), 0);
        assert_int_equal(s->d.eval.nodes[0].pagecache_gate, POLICY_GATE_REBUILD_WINDOW);
        /* the one-shot built nothing: nothing taken, though 40 MiB added */
        assert_int_equal(emptied_pc(s, 0, 10240, 3000), 0);
        assert_int_equal(emptied_pc(s, 3000, 10240, 3000), 0);
        assert_int_equal(s->d.eval.nodes[0].pagecache_gate, POLICY_GATE_REBUILD_WINDOW);
        assert_gate_text(s, "page-cache one-shot on node 0 held (rebuild_window): 11 MiB free in order>=6 blocks "
                            "is under the 81 MiB target; the last one-shot was less than 10 s ago and no "
                            "page-cache burst emptied what it built");
        /* none built, none left (kicks on keep the THP one-shot, which
         * order>=9 at 0 would want, out of the way) */
        t_sim_init(s);
        s->cfg.kick_interval_usec = 5 * S;
        {
                TWorld w = world_pc(0, 100000);

                oneshot_ago(s, 5 * S);
                add_blocks(s, 4 * S, 0);
                add_sample(s, 2 * S, 10240 * 4096);
                assert_int_equal(decide_pc(s, &w, false, NULL), 0);
                assert_int_equal(s->d.eval.nodes[0].pagecache_gate, POLICY_GATE_REBUILD_WINDOW);
        }
        /* the sample at the one-shot's own time is what it started from */
        t_sim_init(s);
        {
                TWorld w = world_pc(3000, 100000);

                oneshot_ago(s, 5 * S);
                add_blocks(s, 5 * S, 12000);
                add_sample(s, 2 * S, 10240 * 4096);
                assert_int_equal(decide_pc(s, &w, false, NULL), 0);
        }
        free(s);
}

/* A fall the page cache's large folios explain is the burst the reserve
 * is for, not a fill: free memory 100000 -> 80000 pages within 10 s (20000
 * pages, a sixteenth of 80000 is 5000) with 15000 pages (61440000 B) of
 * large folios added in the window: 5000 beyond them, not more: a
 * one-shot; 14999 pages: 5001 beyond: none. The same for the order-6
 * blocks: 25000 -> 10000 with free memory steady, 10000 pages added: yes,
 * 9999: no. The large folios in the window (< 81.9 MiB) leave the target
 * at the configured one. */
static void test_pc_oneshot_fall_of_the_burst(void **state)
{
        TSim *s = sim_new();
        TWorld w = world_pc(30000, 100000);
        unsigned r;

        (void) state;
        assert_int_equal(tick_pc(s, &w), 0); /* over target: history made */
        assert_int_equal(tick_pc(s, &w), 0);
        r = (s->state.hist.head + s->state.hist.n - 1) % POLICY_HISTORY_MAX;
        w.node[0].free_pages = 80000;
        w.node[0].ge_thp_pages = 10000;
        set_window(s, true, 10000); /* the blocks did not fall */
        s->state.hist.pagecache_bytes[r] = 15000 * 4096;
        assert_int_equal(decide_pc(s, &w, false, NULL), 1);
        s->now -= 5 * S;
        s->state.hist.pagecache_bytes[r] = 14999 * 4096;
        assert_int_equal(decide_pc(s, &w, false, NULL), 0);
        /* the blocks: free memory steady at 80000 */
        s->now -= 5 * S;
        set_window(s, false, 80000);
        set_window(s, true, 25000);
        s->state.hist.pagecache_bytes[r] = 10000 * 4096;
        assert_int_equal(decide_pc(s, &w, false, NULL), 1);
        s->now -= 5 * S;
        s->state.hist.pagecache_bytes[r] = 9999 * 4096;
        assert_int_equal(decide_pc(s, &w, false, NULL), 0);
        free(s);
}

/* The reserve below the THP order fits what free memory can hold: its
 * target is capped by free memory above the kernel's high watermark
 * (25344 pages, above), never under the configured 85899345 B. Demand
 * learning on (factor 1, cap 25 % = 1 GiB): 200 MiB (51200 pages) at
 * order 6 this tick, with 160 direct compaction stalls a second (800 in
 * the 5 s tick, one 256 KiB block each: 200 MiB) and 3000 pages free at
 * order >= 6, is the need. */
/* t_sim_init() with demand learning on (factor 1, cap 25 %) */
static void sim_learning(TSim *s)
{
        t_sim_init(s);
        s->cfg.demand_learning = true;
        s->cfg.demand_factor = 1.0;
        s->cfg.demand_cap = (SizeSpec){ .permyriad = 2500 };
}

static void test_pc_target_fits_free(void **state)
{
        TSim *s = sim_new();
        TWorld w = world_pc(3000, 100000);

        (void) state;
        sim_learning(s);
        w.stall_per_sec = 160;
        /* room 100000 - 25344 = 74656 pages: the need */
        decide_pc_at(s, &w, 6, 200u << 20);
        assert_int_equal(s->d.eval.pagecache_need_bytes, 200u << 20);
        assert_int_equal(s->d.eval.nodes[0].target_bytes[0], 200u << 20);
        /* room exactly the need: 25344 + 51200 = 76544 pages */
        sim_learning(s);
        w = world_pc(3000, 76544);
        w.stall_per_sec = 160;
        decide_pc_at(s, &w, 6, 200u << 20);
        assert_int_equal(s->d.eval.nodes[0].target_bytes[0], 200u << 20);
        /* a page less: 51199 pages = 209711104 B */
        sim_learning(s);
        w = world_pc(3000, 76543);
        w.stall_per_sec = 160;
        decide_pc_at(s, &w, 6, 200u << 20);
        assert_int_equal(s->d.eval.nodes[0].target_bytes[0], 209711104);
        /* room 40000 - 25344 = 14656 pages = 60030976 B: the configured */
        sim_learning(s);
        w = world_pc(3000, 40000);
        w.stall_per_sec = 160;
        decide_pc_at(s, &w, 6, 200u << 20);
        assert_int_equal(s->d.eval.nodes[0].target_bytes[0], 85899345);
        /* free memory under the high watermark: the configured */
        sim_learning(s);
        w = world_pc(3000, 20000);
        w.stall_per_sec = 160;
        decide_pc_at(s, &w, 6, 200u << 20);
        assert_int_equal(s->d.eval.nodes[0].target_bytes[0], 85899345);
        /* the page cache at the THP order (order_thp 6): not capped */
        sim_learning(s);
        s->cfg.order_thp = 6;
        w = world_pc(3000, 40000);
        w.stall_per_sec = 160;
        decide_pc_at(s, &w, 6, 200u << 20);
        assert_int_equal(s->d.eval.nodes[0].target_bytes[0], 200u << 20);
        free(s);
}

/* ---- what holds the page-cache one-shot back (PolicyNodeEval.pagecache_gate) ----
 * The log says which gate kept a one-shot from coming between the postgres
 * scenario's WAL bursts. The reserve short
 * (order 6 at 3000 pages of 20971.5, free 100000 pages, above the 46316
 * it needs), each gate alone, in the order decide_oneshot() meets them:
 * pressure over the ceiling, PSI some over calm_psi_some (1.00 %), a burst
 * at the order this tick, a fast fall, a THP one-shot wanted within its
 * interval, the 10 s rebuild window, not due. 3000 pages = 12288000 B
 * ("11 MiB"), the target 85899345 B ("81 MiB"). */
static const PolicyNodeEval *gate_pc(TSim *s, const TWorld *w, bool delta, unsigned n_oneshots)
{
        assert_int_equal(decide_pc(s, w, delta, NULL), n_oneshots);
        return &s->d.eval.nodes[0];
}

static void assert_gate_text(const TSim *s, const char *want)
{
        char buf[512];

        decision_explain_pagecache_gate(&s->d.eval, &s->d.eval.nodes[0], s->cfg.calm_psi_some_permyriad, buf,
                                        sizeof(buf));
        print_message("    %s\n", buf);
        assert_string_equal(buf, want);
}

static void test_pc_gate(void **state)
{
        TSim *s = sim_new();
        TWorld w = world_pc(3000, 100000);
        const PolicyNodeEval *ne;

        (void) state;
        /* made: nothing held, nothing to say */
        ne = gate_pc(s, &w, false, 1);
        assert_true(ne->pagecache_short);
        assert_int_equal(ne->pagecache_gate, POLICY_GATE_NONE);
        assert_false(ne->pagecache_gate_changed);
        assert_gate_text(s, "");
        /* not short (20972 pages): nothing to hold */
        t_sim_init(s);
        w = world_pc(20972, 100000);
        ne = gate_pc(s, &w, false, 0);
        assert_false(ne->pagecache_short);
        assert_int_equal(ne->pagecache_gate, POLICY_GATE_NONE);
        /* PSI some 1.01 % */
        t_sim_init(s);
        w = world_pc(3000, 100000);
        w.psi_some = 101;
        ne = gate_pc(s, &w, false, 0);
        assert_true(ne->pagecache_short);
        assert_int_equal(ne->pagecache_gate, POLICY_GATE_PSI_CALM);
        assert_true(ne->pagecache_gate_changed); /* none the tick before */
        assert_string_equal(policy_gate_name(ne->pagecache_gate), "psi_calm");
        assert_gate_text(s, "page-cache one-shot on node 0 held (psi_calm): 11 MiB free in order>=6 blocks is "
                            "under the 81 MiB target; memory pressure some 1.01% is over calm_psi_some 1.00%");
        /* PSI full 3.01 % over its 3.00 % ceiling, some calm: psi_high */
        t_sim_init(s);
        w.psi_some = 0;
        w.psi_full = 301;
        ne = gate_pc(s, &w, false, 0);
        assert_int_equal(ne->pagecache_gate, POLICY_GATE_PSI_HIGH);
        assert_gate_text(s, "page-cache one-shot on node 0 held (psi_high): 11 MiB free in order>=6 blocks is "
                            "under the 81 MiB target; memory pressure is over its ceiling (some 0.00%, full 3.01%)");
        /* 2 MiB at order 6 this tick */
        t_sim_init(s);
        w.psi_full = 0;
        ne = gate_pc(s, &w, true, 0);
        assert_int_equal(ne->pagecache_gate, POLICY_GATE_BURST);
        assert_gate_text(s, "page-cache one-shot on node 0 held (burst): 11 MiB free in order>=6 blocks is "
                            "under the 81 MiB target; the page cache added 2.0 MiB at order>=6 this tick");
        /* the last one-shot 9 s ago, 60 MiB added since: the rebuild window */
        t_sim_init(s);
        oneshot_ago(s, 9 * S);
        add_sample(s, 5 * S, 60u << 20);
        ne = gate_pc(s, &w, false, 0);
        assert_int_equal(ne->pagecache_gate, POLICY_GATE_REBUILD_WINDOW);
        assert_gate_text(s, "page-cache one-shot on node 0 held (rebuild_window): 11 MiB free in order>=6 blocks "
                            "is under the 81 MiB target; the last one-shot was less than 10 s ago and no "
                            "page-cache burst emptied what it built");
        /* 20 s ago, nothing added, nothing taken: not due */
        t_sim_init(s);
        oneshot_ago(s, 20 * S);
        ne = gate_pc(s, &w, false, 0);
        assert_int_equal(ne->pagecache_gate, POLICY_GATE_NOT_DUE);
        assert_gate_text(s, "page-cache one-shot on node 0 held (not_due): 11 MiB free in order>=6 blocks is "
                            "under the 81 MiB target; since the last one-shot the page cache added less than half "
                            "the target and less than half of it was taken from the blocks");
        /* the THP reserve short too (order>=9 at 2000 pages, under 25 % of
         * 10485.8): a THP one-shot wanted, the last one-shot 60 s ago
         * (within 600 s), though the page cache added half the target */
        t_sim_init(s);
        w = world_pc(2000, 100000);
        oneshot_ago(s, 60 * S);
        add_sample(s, 15 * S, 42949673);
        ne = gate_pc(s, &w, false, 0);
        assert_int_equal(ne->pagecache_gate, POLICY_GATE_THP_INTERVAL);
        assert_gate_text(s, "page-cache one-shot on node 0 held (thp_interval): 7.8 MiB free in order>=6 blocks "
                            "is under the 81 MiB target; a THP one-shot is wanted and the last one-shot was within "
                            "oneshot_min_interval");
        free(s);
}

/* A free-memory fall holds it (test_pc_oneshot_not_while_free_falls'
 * world): 100000 -> 90000 pages within 5 s */
static void test_pc_gate_free_falling(void **state)
{
        TSim *s = sim_new();
        TWorld w = world_pc(30000, 100000);
        const PolicyNodeEval *ne = &s->d.eval.nodes[0];

        (void) state;
        assert_int_equal(tick_pc(s, &w), 0);
        assert_false(ne->pagecache_short);
        w.node[0].ge_thp_pages = 10000;
        w.node[0].free_pages = 90000;
        assert_int_equal(tick_pc(s, &w), 0);
        assert_true(ne->pagecache_short);
        assert_int_equal(ne->pagecache_gate, POLICY_GATE_FREE_FALLING);
        assert_gate_text(s, "page-cache one-shot on node 0 held (free_falling): 39 MiB free in order>=6 blocks is "
                            "under the 81 MiB target; free memory or its order>=6 blocks fell by more than a "
                            "sixteenth within 10 s");
        free(s);
}

/* One journal line per change of the gate: changed against the last
 * tick's (the state keeps it), the daemon logs a held gate when changed. */
static void test_pc_gate_changes(void **state)
{
        TSim *s = sim_new();
        TWorld w = world_pc(3000, 100000);
        const PolicyNodeEval *ne = &s->d.eval.nodes[0];

        (void) state;
        w.psi_some = 101;
        assert_int_equal(tick_pc(s, &w), 0);
        assert_int_equal(ne->pagecache_gate, POLICY_GATE_PSI_CALM);
        assert_true(ne->pagecache_gate_changed);
        assert_int_equal(s->state.pagecache_gate[0], POLICY_GATE_PSI_CALM);
        assert_int_equal(tick_pc(s, &w), 0); /* the same: no line */
        assert_int_equal(ne->pagecache_gate, POLICY_GATE_PSI_CALM);
        assert_false(ne->pagecache_gate_changed);
        w.psi_some = 100; /* calm: made */
        assert_int_equal(tick_pc(s, &w), 1);
        assert_int_equal(ne->pagecache_gate, POLICY_GATE_NONE);
        assert_true(ne->pagecache_gate_changed);
        assert_int_equal(s->state.pagecache_gate[0], POLICY_GATE_NONE);
        assert_int_equal(tick_pc(s, &w), 0); /* 5 s after it */
        assert_int_equal(ne->pagecache_gate, POLICY_GATE_REBUILD_WINDOW);
        assert_true(ne->pagecache_gate_changed);
        assert_int_equal(tick_pc(s, &w), 0); /* 10 s: nothing added or taken */
        assert_int_equal(ne->pagecache_gate, POLICY_GATE_NOT_DUE);
        assert_true(ne->pagecache_gate_changed);
        assert_int_equal(tick_pc(s, &w), 0);
        assert_int_equal(ne->pagecache_gate, POLICY_GATE_NOT_DUE);
        assert_false(ne->pagecache_gate_changed);
        /* off: nothing recorded */
        s->cfg.oneshot_compact = false;
        assert_int_equal(tick_pc(s, &w), 0);
        assert_int_equal(ne->pagecache_gate, POLICY_GATE_NONE);
        free(s);
}

/* ---- pressure the reserve's own ------------------------------------------
 * The postgres scenario on stock 6.12: after each WAL burst the
 * one-shot was held by psi_high (PSI full 5.4-6.0 % over its 2 % ceiling)
 * and then psi_calm (some 2.5-3.6 %), 11-16 s, though free memory stayed
 * at 250-345 MiB against a 99 MiB high watermark: the pressure was the
 * costly-order allocations' own compaction and their one round of direct
 * reclaim after it. Order-0 allocations reclaim only under the min
 * watermark and wake kswapd under low, so with free memory at or above
 * the high watermark in every sample of the last 30 s (the avg10's span)
 * and compaction stalls within it, neither PSI gate holds the page-cache
 * one-shot. The world: order 6 short (3000 pages), 100000 pages free,
 * PSI some 5.00 % (over calm 1 %, under its 10 % ceiling), full 5.40 %
 * (over its 3 % ceiling): psi_high; the kernel's high watermark 25344
 * pages (test_pc_oneshot_edges), at watermark_scale_factor 100 instead
 * of 10: gap max(16896 / 4, 1048576 x 100 / 10000) = 10485, high 16896 +
 * 2 x 10485 = 37866 pages. Samples are placed `ago` before the next
 * decide_pc() (5 s after s->now). */
static void add_free_sample(TSim *s, usec_t ago, uint64_t free_pages)
{
        PolicyHistory *h = &s->state.hist;
        unsigned r = (h->head + h->n) % POLICY_HISTORY_MAX;

        h->n_nodes = 1;
        h->node_id[0] = 0;
        h->t_usec[r] = s->now + 5 * S - ago;
        h->free_pages[r][0] = free_pages;
        h->n++;
}

static TWorld world_own(void)
{
        TWorld w = world_pc(3000, 100000);

        w.psi_some = 500;
        w.psi_full = 540;
        w.stall_per_sec = 0.2;
        return w;
}

static void test_pc_own_pressure(void **state)
{
        TSim *s = sim_new();
        TWorld w = world_own();
        const DecisionItem *it = NULL;
        char buf[512];

        (void) state;
        /* stalls this tick, free memory at the high watermark 29 s ago */
        add_free_sample(s, 29 * S, 25344);
        add_free_sample(s, 5 * S, 90000);
        assert_int_equal(decide_pc(s, &w, false, &it), 1);
        assert_int_equal(s->d.eval.nodes[0].pagecache_gate, POLICY_GATE_NONE);
        assert_true(it->num.own_pressure);
        assert_int_equal(it->num.psi_full_permyriad, 540);
        decision_explain(it, buf, sizeof(buf));
        print_message("    %s\n", buf);
        assert_string_equal(buf, "compact node 0 now: 11 MiB free in order>=6 blocks is under the 81 MiB target, "
                                 "no page-cache burst and memory pressure (some 5.00%, full 5.40%) is the "
                                 "reserve's own: compaction stalls or kswapd scanning with free memory above the high "
                                 "watermark");
        /* one page under it 29 s ago: reclaim at the watermarks, held */
        t_sim_init(s);
        add_free_sample(s, 29 * S, 25343);
        add_free_sample(s, 5 * S, 90000);
        assert_int_equal(decide_pc(s, &w, false, NULL), 0);
        assert_int_equal(s->d.eval.nodes[0].pagecache_gate, POLICY_GATE_PSI_HIGH);
        /* ... 30 s ago: outside the span */
        t_sim_init(s);
        add_free_sample(s, 30 * S, 25343);
        add_free_sample(s, 5 * S, 90000);
        assert_int_equal(decide_pc(s, &w, false, NULL), 1);
        /* PSI some over calm, full under its ceiling: psi_calm passed the same way */
        t_sim_init(s);
        w.psi_full = 0;
        add_free_sample(s, 5 * S, 25344);
        assert_int_equal(decide_pc(s, &w, false, &it), 1);
        assert_true(it->num.own_pressure);
        t_sim_init(s);
        add_free_sample(s, 5 * S, 25343);
        assert_int_equal(decide_pc(s, &w, false, NULL), 0);
        assert_int_equal(s->d.eval.nodes[0].pagecache_gate, POLICY_GATE_PSI_CALM);
        /* calm: made, and not the reserve's own (the usual sentence) */
        t_sim_init(s);
        w.psi_some = 100;
        assert_int_equal(decide_pc(s, &w, false, &it), 1);
        assert_false(it->num.own_pressure);
        free(s);
}

/* The stalls: this tick's, or the state's last within 30 s; the high
 * watermark at the present watermark_scale_factor. */
static void test_pc_own_pressure_edges(void **state)
{
        TSim *s = sim_new();
        TWorld w = world_own();

        (void) state;
        /* no stall this tick, none remembered: held */
        w.stall_per_sec = 0;
        assert_int_equal(decide_pc(s, &w, false, NULL), 0);
        assert_int_equal(s->d.eval.nodes[0].pagecache_gate, POLICY_GATE_PSI_HIGH);
        /* the last stall 29 s before the decision: made; 30 s: held */
        t_sim_init(s);
        s->state.last_highorder_work_usec = s->now + 5 * S - 29 * S;
        assert_int_equal(decide_pc(s, &w, false, NULL), 1);
        t_sim_init(s);
        s->state.last_highorder_work_usec = s->now + 5 * S - 30 * S;
        assert_int_equal(decide_pc(s, &w, false, NULL), 0);
        /* no stall, kswapd scanning this tick (with free memory above the
         * high watermark all along: balancing for a high order): made */
        t_sim_init(s);
        w.kswapd_scan_per_sec = 100;
        assert_int_equal(decide_pc(s, &w, false, NULL), 1);
        w.kswapd_scan_per_sec = 0;
        /* rates not valid: this tick's stall rate is not believed */
        t_sim_init(s);
        w.stall_per_sec = 0.2;
        w.rates_valid = false;
        assert_int_equal(decide_pc(s, &w, false, NULL), 0);
        w.rates_valid = true;
        /* watermark_scale_factor 100: the high watermark 37866 pages */
        t_sim_init(s);
        s->in[LEVER_WATERMARK_SCALE_FACTOR].current = 100;
        add_free_sample(s, 5 * S, 37866);
        assert_int_equal(decide_pc(s, &w, false, NULL), 1);
        t_sim_init(s);
        s->in[LEVER_WATERMARK_SCALE_FACTOR].current = 100;
        add_free_sample(s, 5 * S, 37865);
        assert_int_equal(decide_pc(s, &w, false, NULL), 0);
        assert_int_equal(s->d.eval.nodes[0].pagecache_gate, POLICY_GATE_PSI_HIGH);
        free(s);
}

/* The clock's edges: last_highorder_work_usec 0 means never, even in the
 * first 30 s of the monotonic clock (decided at 5 s, no stall this tick:
 * held by PSI full 5.40 % over its ceiling); a stall remembered at 1 us is
 * one (4.999999 s before the decision: made). A one-shot at the very
 * decision time is recent: the rebuild window holds the next (0 s since,
 * under 10 s). */
static void test_pc_gate_clock_edges(void **state)
{
        TSim *s = sim_new();
        TWorld w = world_own();

        (void) state;
        w.stall_per_sec = 0;
        s->now = 0;
        assert_int_equal(decide_pc(s, &w, false, NULL), 0);
        assert_int_equal(s->d.eval.nodes[0].pagecache_gate, POLICY_GATE_PSI_HIGH);
        t_sim_init(s);
        s->now = 0;
        s->state.last_highorder_work_usec = 1;
        assert_int_equal(decide_pc(s, &w, false, NULL), 1);

        w = world_pc(5000, 100000);
        t_sim_init(s);
        add_free_sample(s, 5 * S, 100000);
        s->state.have_oneshot[0] = true;
        s->state.last_oneshot_usec[0] = s->now + 5 * S;
        assert_int_equal(decide_pc(s, &w, false, NULL), 0);
        assert_int_equal(s->d.eval.nodes[0].pagecache_gate, POLICY_GATE_REBUILD_WINDOW);
        free(s);
}

/* policy_state_update() keeps the last tick with stalls */
static void test_pc_own_pressure_state(void **state)
{
        TSim *s = sim_new();
        TWorld w = world_pc(30000, 100000);
        usec_t t;

        (void) state;
        assert_int_equal(s->state.last_highorder_work_usec, 0);
        w.stall_per_sec = 0.2;
        (void) tick_pc(s, &w);
        t = s->now;
        assert_int_equal(s->state.last_highorder_work_usec, t);
        w.stall_per_sec = 0;
        (void) tick_pc(s, &w);
        assert_int_equal(s->state.last_highorder_work_usec, t);
        w.stall_per_sec = 0.2;
        w.rates_valid = false;
        (void) tick_pc(s, &w);
        assert_int_equal(s->state.last_highorder_work_usec, t);
        /* kswapd scanning counts as well */
        w.stall_per_sec = 0;
        w.rates_valid = true;
        w.kswapd_scan_per_sec = 100;
        (void) tick_pc(s, &w);
        assert_int_equal(s->state.last_highorder_work_usec, s->now);
        free(s);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_large_backs_off_after_one_evaluation),
                cmocka_unit_test(test_large_falling_backs_off),
                cmocka_unit_test(test_large_gain_keeps_raising),
                cmocka_unit_test(test_thp_keeps_backoff_decisions),
                cmocka_unit_test(test_pc_oneshot),
                cmocka_unit_test(test_pc_oneshot_edges),
                cmocka_unit_test(test_pc_oneshot_not_while_free_falls),
                cmocka_unit_test(test_pc_oneshot_not_while_blocks_fall),
                cmocka_unit_test(test_pc_oneshot_burst_at_its_order),
                cmocka_unit_test(test_pc_oneshot_follows_demand),
                cmocka_unit_test(test_pc_oneshot_blocks_taken),
                cmocka_unit_test(test_pc_oneshot_under_half_a_burst),
                cmocka_unit_test(test_pc_oneshot_emptied_in_window),
                cmocka_unit_test(test_pc_oneshot_fall_of_the_burst),
                cmocka_unit_test(test_pc_gate),
                cmocka_unit_test(test_pc_gate_free_falling),
                cmocka_unit_test(test_pc_gate_changes),
                cmocka_unit_test(test_pc_target_fits_free),
                cmocka_unit_test(test_pc_own_pressure),
                cmocka_unit_test(test_pc_own_pressure_edges),
                cmocka_unit_test(test_pc_own_pressure_state),
                cmocka_unit_test(test_pc_gate_clock_edges),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
