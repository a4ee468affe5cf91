/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Demand worth reserving for (issue 37 item 3; docs/policy.md "Demand
 * worth reserving for"): a reserve is kept only for allocations that fell
 * back or stalled, sized from them; where the kernel keeps up fragd
 * changes nothing and says so; raised watermarks hold back at most 1 % of
 * a node while free memory itself is not short. Worked by hand in the
 * comments; T_MANAGED = 4 GiB nodes, the kernel's high watermark 25344
 * pages (min 16896 + 2 x 4224). */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "controller-test-util.h"

#define MIB (UINT64_C(1) << 20)
#define PAGES_MIB 256u

/* t_config() with demand learning on (factor 1, cap 25 %) */
static void cfg_learning(PolicyConfig *c)
{
        t_config(c);
        c->demand_learning = true;
        c->demand_factor = 1.0;
        c->demand_cap = (SizeSpec){ .permyriad = 2500 };
}

static TSim *sim_database(void)
{
        TSim *s = sim_new();

        policy_config_preset(PRESET_DATABASE, &s->cfg);
        return s;
}

/* The page cache's hist as on the aged host: since the trigger was set,
 * 2 GiB of a bulk file written in order-8 folios and 256 MiB of WAL in
 * order-6 ones (order 8 holds 89 % of the large folios: the order is 8);
 * this tick `bulk` more at order 8 and `wal` at order 6. */
static void aged_pagecache(Assessment *a, uint64_t bulk, uint64_t wal)
{
        PageCacheMeasures *m = &a->pagecache;

        memset(m, 0, sizeof(*m));
        m->valid = true;
        m->bytes_total[8] = 2048 * MIB;
        m->bytes_total[6] = 256 * MIB;
        m->bytes_total[0] = 512 * MIB;
        m->delta_valid = true;
        m->interval_sec = 1;
        m->bytes_delta[8] = bulk;
        m->bytes_delta[6] = wal;
}

/* One tick of the aged host: decide on `w` with the page-cache hist,
 * apply, update (t_sim_tick() without a hist) */
static const Decision *aged_tick(TSim *s, const TWorld *w, uint64_t bulk, uint64_t wal)
{
        s->now += USEC_PER_SEC;
        t_assess(w, s->now, &s->a);
        s->a.rates.interval_sec = 1;
        aged_pagecache(&s->a, bulk, wal);
        return t_sim_decide_apply(s);
}

/* The held-out run's aged host (4 GiB, 190 MiB free here, the kernel's
 * defaults keeping up: every WAL folio at order 6): the preparation's THP
 * faults, 50 a second, all served without a stall; a bulk stream adding
 * 624 MiB of order-8 folios in a tick and the WAL 16 MiB at order 6, with
 * order-7 and larger blocks free (10 MiB of them: no order-6 folio fell
 * back from 8, the allocator would have split those first). No raise, no
 * one-shot, no learned or page-cache need in a minute of it; each tick
 * says the kernel keeps up. The configured reserves are met (the
 * operator's floor: reserve_large 1 % = 41 MiB at order 8 and reserve_thp
 * 2 % = 82 MiB), so only demand could have asked for more: before issue
 * 37 the burst made a 100 MiB learned THP target and the bulk stream a
 * 631 MiB page-cache one. */
static void test_aged_host_no_raise(void **state)
{
        TSim *s = sim_database();
        TWorld w = t_world_fine(1);
        char buf[DECISION_TEXT_MAX];

        (void) state;
        /* 190 MiB free, over the kernel's high watermark (99 MiB) + the
         * configured THP reserve (82 MiB): that reserve alone does not
         * move the reclaim levers (at 150 MiB it would, within the
         * watermark cap: test_watermark_cap) */
        w.node[0] = (TNode){ .free_pages = 190 * PAGES_MIB, .ge_large_pages = 180 * PAGES_MIB,
                             .ge_thp_pages = 120 * PAGES_MIB, .reclaimable_pages = 800000 };
        w.thp_alloc_per_sec = 50;
        w.fallback_ratio = 0;
        for (unsigned i = 0; i < 60; i++) {
                const Decision *d = aged_tick(s, &w, 624 * MIB, 16 * MIB);

                assert_false(t_any_raise(d));
                assert_int_equal(d->n_items, 0);
                assert_int_equal(d->eval.pagecache_order, 8);
                assert_int_equal(d->eval.pagecache_unmet_bytes, 0);
                assert_int_equal(d->eval.pagecache_need_bytes, 0);
                assert_int_equal(d->eval.demand_bytes, 100 * MIB);
                assert_int_equal(d->eval.demand_unmet_bytes, 0);
                assert_int_equal(d->eval.learned_need_bytes, 0);
                assert_true(d->eval.keeps_up);
                assert_int_equal(d->eval.keeps_up_order, 8);
        }
        assert_true(decision_explain_keeps_up(&s->d.eval, buf, sizeof(buf)) > 0);
        assert_string_equal(buf, "the kernel keeps up: no fallback, no stall at order 8 (the page cache added "
                                 "624 MiB at order>=8; THP faults took 100 MiB, all served without direct "
                                 "compaction); nothing changed");
        for (unsigned l = 0; l < _LEVER_MAX; l++)
                assert_int_equal(s->in[l].current, s->in[l].baseline);
        free(s);
}

/* The same host, fragmented: no free block of order 5 or more (t_assess
 * gives orders 5..9 the order-9 count), so the WAL's 256 KiB writes land
 * at order 5 and 4 (4 MiB and 2 MiB a tick here: the page cache's order
 * is 6, from the totals) while the bulk stream is gone. The order-5
 * bytes fell back (no block above 5 was free); the order-4 ones too (no
 * block above 4 either, ge_large counts orders <= 4). The need is the
 * fallbacks over the 10 s rebuild window, not the large-folio traffic:
 * 6 MiB a tick x 10 ticks = 60 MiB. */
static void test_fallback_at_order_sized_from_fallbacks(void **state)
{
        TSim *s = sim_database();
        TWorld w = t_world_fine(1);
        const Decision *d = NULL;

        (void) state;
        w.node[0] = (TNode){ .free_pages = 190 * PAGES_MIB, .ge_large_pages = 150 * PAGES_MIB, .ge_thp_pages = 0,
                             .reclaimable_pages = 800000 };
        for (unsigned i = 0; i < 12; i++) {
                s->now += USEC_PER_SEC;
                t_assess(&w, s->now, &s->a);
                s->a.rates.interval_sec = 1;
                memset(&s->a.pagecache, 0, sizeof(s->a.pagecache));
                s->a.pagecache.valid = s->a.pagecache.delta_valid = true;
                s->a.pagecache.interval_sec = 1;
                s->a.pagecache.bytes_total[6] = 256 * MIB;
                s->a.pagecache.bytes_delta[5] = 4 * MIB;
                s->a.pagecache.bytes_delta[4] = 2 * MIB;
                s->a.pagecache.bytes_total[5] = 4 * MIB * (i + 1);
                s->a.pagecache.bytes_total[4] = 2 * MIB * (i + 1);
                assert_int_equal(policy_decide(&s->cfg, &s->state, &s->a, s->in, s->now, &s->d), 0);
                d = &s->d;
                decision_mark_all_applied(&s->d);
                policy_state_update(&s->state, &s->a, &s->d, s->now);
        }
        assert_int_equal(d->eval.pagecache_order, 6);
        assert_int_equal(d->eval.pagecache_fallback_bytes, 6 * MIB);
        assert_int_equal(d->eval.pagecache_stalled_bytes, 0);
        /* this tick and the 9 samples within 10 s */
        assert_int_equal(d->eval.pagecache_burst_bytes, 60 * MIB);
        assert_int_equal(d->eval.pagecache_need_bytes, 60 * MIB);
        assert_int_equal(d->eval.nodes[0].target_bytes[0], 60 * MIB);
        assert_false(d->eval.keeps_up);
        free(s);
}

/* Which lower-order bytes count as fallbacks: an order-k folio is one only
 * when no node had a free block of order > k (one block of order k + 1 =
 * 2^(k+1) pages; the allocator splits any larger block first). */
static void test_fallback_needs_no_block_above(void **state)
{
        static PolicyConfig c;
        static PolicyState st;
        static Assessment a;
        static PolicyEval e;

        (void) state;
        cfg_learning(&c);
        policy_state_init(&st);
        t_assess(&(TWorld){ .n_nodes = 2, .node = { t_node_fine(), t_node_fine() } }, 1000 * USEC_PER_SEC, &a);
        memset(&a.pagecache, 0, sizeof(a.pagecache));
        a.pagecache.valid = a.pagecache.delta_valid = true;
        a.pagecache.interval_sec = 5;
        a.pagecache.bytes_total[6] = 64 * MIB;
        a.pagecache.bytes_delta[5] = 8 * MIB;
        a.pagecache.bytes_delta[4] = 2 * MIB;
        for (unsigned i = 0; i < 2; i++) {
                for (unsigned k = 5; k < FRAGD_MAX_ORDERS; k++)
                        a.nodes[i].free_pages_ge[k] = 0;
                a.nodes[i].free_pages_ge[5] = 1000;
        }
        /* 63 pages of order >= 6 on both nodes together: under one order-6
         * block, the order-5 bytes fell back; a block of order 5 was free,
         * so the order-4 ones were asked for at 4 */
        a.nodes[0].free_pages_ge[6] = 31;
        a.nodes[1].free_pages_ge[6] = 32;
        memset(&e, 0, sizeof(e));
        policy_pagecache_evaluate(&c, &st, &a, 1000 * USEC_PER_SEC, &e);
        assert_int_equal(e.pagecache_order, 6);
        assert_int_equal(e.pagecache_fallback_bytes, 8 * MIB);
        assert_int_equal(e.pagecache_need_bytes, 8 * MIB);
        /* one page more: an order-6 block could be there (on the node
         * with 32 + 1 pages, or split across them: the sum is the rule) */
        a.nodes[1].free_pages_ge[6] = 33;
        memset(&e, 0, sizeof(e));
        policy_pagecache_evaluate(&c, &st, &a, 1000 * USEC_PER_SEC, &e);
        assert_int_equal(e.pagecache_fallback_bytes, 0);
        assert_int_equal(e.pagecache_unmet_bytes, 0);
        assert_int_equal(e.pagecache_need_bytes, 0);
        /* no block of order >= 5 either: both orders fell back */
        a.nodes[1].free_pages_ge[6] = 32;
        a.nodes[0].free_pages_ge[5] = a.nodes[1].free_pages_ge[5] = 15;
        a.nodes[0].free_pages_ge[6] = a.nodes[1].free_pages_ge[6] = 0;
        memset(&e, 0, sizeof(e));
        policy_pagecache_evaluate(&c, &st, &a, 1000 * USEC_PER_SEC, &e);
        assert_int_equal(e.pagecache_fallback_bytes, 10 * MIB);
}

/* One host with free blocks of every order, the page cache at order 6
 * (64 MiB so far), a 5 s tick with nothing added yet */
static void pagecache_tick(PolicyConfig *c, PolicyState *st, Assessment *a)
{
        cfg_learning(c);
        policy_state_init(st);
        t_assess(&(TWorld){ .n_nodes = 1, .node = { t_node_fine() } }, 1000 * USEC_PER_SEC, a);
        memset(&a->pagecache, 0, sizeof(a->pagecache));
        a->pagecache.valid = a->pagecache.delta_valid = true;
        a->pagecache.interval_sec = 5;
        a->pagecache.bytes_total[6] = 64 * MIB;
}

static void pagecache_eval(const PolicyConfig *c, const PolicyState *st, const Assessment *a, PolicyEval *e)
{
        memset(e, 0, sizeof(*e));
        policy_pagecache_evaluate(c, st, a, 1000 * USEC_PER_SEC, e);
}

/* A block freed within the tick hides a fallback from the free-block rule;
 * kswapd woken at the page cache's order this tick says the smaller folios
 * fell back anyway, one order-6 block (256 KiB) per wake-up at most, and
 * only wake-ups at that order count (a THP fault's at 9 does not). */
static void test_fallback_kswapd_woken(void **state)
{
        static PolicyConfig c;
        static PolicyState st;
        static Assessment a;
        static PolicyEval e;

        (void) state;
        pagecache_tick(&c, &st, &a);
        a.pagecache.bytes_delta[5] = 3 * MIB;
        a.pagecache.bytes_delta[4] = 1 * MIB;
        /* blocks of every order free after the tick: the free-block rule
         * alone sees no fallback */
        pagecache_eval(&c, &st, &a, &e);
        assert_int_equal(e.pagecache_order, 6);
        assert_int_equal(e.pagecache_fallback_bytes, 0);
        /* wake-ups at 9 (THP) and 5: not the page cache's order */
        a.pagecache.wake_valid = true;
        a.pagecache.kswapd_wakeups_delta[9] = 40;
        a.pagecache.kswapd_wakeups_delta[5] = 40;
        pagecache_eval(&c, &st, &a, &e);
        assert_int_equal(e.pagecache_fallback_bytes, 0);
        /* 6 wake-ups at order 6: 1.5 MiB of the 4 MiB below it */
        a.pagecache.kswapd_wakeups_delta[6] = 6;
        pagecache_eval(&c, &st, &a, &e);
        assert_int_equal(e.pagecache_woke_bytes, 6 * 256 * 1024);
        assert_int_equal(e.pagecache_fallback_bytes, 6 * 256 * 1024);
        assert_int_equal(e.pagecache_unmet_bytes, 6 * 256 * 1024);
        assert_true(e.pagecache_need_bytes > 0);
        /* many wake-ups: no more than the bytes added below the order */
        a.pagecache.kswapd_wakeups_delta[6] = 1000;
        pagecache_eval(&c, &st, &a, &e);
        assert_int_equal(e.pagecache_fallback_bytes, 4 * MIB);
        /* the counts not comparable (the instance made anew): none */
        a.pagecache.wake_valid = false;
        pagecache_eval(&c, &st, &a, &e);
        assert_int_equal(e.pagecache_fallback_bytes, 0);
        /* wake-ups with nothing added below the order: every folio came at
         * its order, nothing fell back */
        a.pagecache.wake_valid = true;
        a.pagecache.bytes_delta[5] = a.pagecache.bytes_delta[4] = 0;
        a.pagecache.bytes_delta[6] = 16 * MIB;
        pagecache_eval(&c, &st, &a, &e);
        assert_int_equal(e.pagecache_fallback_bytes, 0);
        assert_int_equal(e.pagecache_unmet_bytes, 0);
}

/* With the watched tasks' failed allocations counted, they are the
 * fallback: one order-6 block per failure at order 6, up to every byte
 * added under the order (order 0 too: a folio that fell back all the way),
 * where free blocks after the tick and no kswapd wake-up (it was awake)
 * hide them from both other rules; failures at another order are not the
 * page cache's. */
static void test_fallback_failed_allocs(void **state)
{
        static PolicyConfig c;
        static PolicyState st;
        static Assessment a;
        static PolicyEval e;

        (void) state;
        pagecache_tick(&c, &st, &a);
        a.pagecache.bytes_delta[6] = 8 * MIB;
        a.pagecache.bytes_delta[4] = 3 * MIB;
        a.pagecache.bytes_delta[3] = 1 * MIB;
        a.pagecache.bytes_delta[0] = 2 * MIB;
        pagecache_eval(&c, &st, &a, &e);
        assert_int_equal(e.pagecache_order, 6);
        assert_int_equal(e.pagecache_fallback_bytes, 0);
        /* failures at 9 (a THP) and 4 (the retries): not the page cache's order */
        a.pagecache.fail_valid = true;
        a.pagecache.alloc_fail_delta[9] = 50;
        a.pagecache.alloc_fail_delta[4] = 50;
        pagecache_eval(&c, &st, &a, &e);
        assert_int_equal(e.pagecache_fallback_bytes, 0);
        assert_int_equal(e.pagecache_failed_bytes, 0);
        /* 10 failures at order 6: 2.5 MiB fell back */
        a.pagecache.alloc_fail_delta[6] = 10;
        pagecache_eval(&c, &st, &a, &e);
        assert_int_equal(e.pagecache_failed_bytes, 10 * 256 * 1024);
        assert_int_equal(e.pagecache_fallback_bytes, 10 * 256 * 1024);
        assert_int_equal(e.pagecache_unmet_bytes, 10 * 256 * 1024);
        assert_true(e.pagecache_need_bytes > 0);
        /* the counted failures replace the kswapd rule (no double count) */
        a.pagecache.wake_valid = true;
        a.pagecache.kswapd_wakeups_delta[6] = 8;
        pagecache_eval(&c, &st, &a, &e);
        assert_int_equal(e.pagecache_fallback_bytes, 10 * 256 * 1024);
        assert_int_equal(e.pagecache_woke_bytes, 0);
        /* many failures: every byte under the order, order 0 included */
        a.pagecache.alloc_fail_delta[6] = 1000;
        pagecache_eval(&c, &st, &a, &e);
        assert_int_equal(e.pagecache_fallback_bytes, 6 * MIB);
        /* failures and nothing added under the order: nothing fell back */
        a.pagecache.bytes_delta[4] = a.pagecache.bytes_delta[3] = a.pagecache.bytes_delta[0] = 0;
        pagecache_eval(&c, &st, &a, &e);
        assert_int_equal(e.pagecache_fallback_bytes, 0);
        assert_int_equal(e.pagecache_unmet_bytes, 0);
        /* without failures counted, the kswapd rule again */
        a.pagecache.fail_valid = false;
        a.pagecache.bytes_delta[4] = 3 * MIB;
        pagecache_eval(&c, &st, &a, &e);
        assert_int_equal(e.pagecache_woke_bytes, 2 * MIB);
        assert_int_equal(e.pagecache_failed_bytes, 0);
}

/* The order is where the watched workload's allocations fail, among the
 * orders with a share of the page cache's bytes: PostgreSQL's order-8
 * relation writes beside its order-6 WAL (the postgres-7.3-wal bench, 42 of
 * 46 failures at 6) made order 8 the highest with a share, and the
 * one-shots and a watermark raise went to order-8 blocks. Failures at an
 * order without a share (a slab's order 3, a THP's 9) do not choose it. */
static void test_order_from_failures(void **state)
{
        static PolicyConfig c;
        static PolicyState st;
        static Assessment a;
        static PolicyEval e;

        (void) state;
        pagecache_tick(&c, &st, &a);
        a.pagecache.bytes_total[8] = 40 * MIB;
        a.pagecache.bytes_total[3] = 2 * MIB; /* under the 10 % share */
        pagecache_eval(&c, &st, &a, &e);
        assert_int_equal(e.pagecache_order, 8);
        assert_false(e.pagecache_order_failed);
        /* failures counted, none yet: still by share */
        a.pagecache.fail_total_valid = true;
        pagecache_eval(&c, &st, &a, &e);
        assert_int_equal(e.pagecache_order, 8);
        assert_false(e.pagecache_order_failed);
        /* failures at orders without a share of the bytes: by share */
        a.pagecache.alloc_fail_total[3] = 500;
        a.pagecache.alloc_fail_total[9] = 500;
        pagecache_eval(&c, &st, &a, &e);
        assert_int_equal(e.pagecache_order, 8);
        assert_false(e.pagecache_order_failed);
        /* 42 at 6, 3 at 8: order 6, its share counts what is at 6 and up */
        a.pagecache.alloc_fail_total[6] = 42;
        a.pagecache.alloc_fail_total[8] = 3;
        a.pagecache.bytes_delta[8] = 9 * MIB;
        a.pagecache.bytes_delta[6] = 2 * MIB;
        pagecache_eval(&c, &st, &a, &e);
        assert_int_equal(e.pagecache_order, 6);
        assert_true(e.pagecache_order_failed);
        assert_int_equal(e.pagecache_order_demand_bytes, 11 * MIB);
        assert_int_equal(e.pagecache_share_permyriad, 10000 * 104 / 106);
        /* a tie goes to the higher order */
        a.pagecache.alloc_fail_total[8] = 42;
        pagecache_eval(&c, &st, &a, &e);
        assert_int_equal(e.pagecache_order, 8);
        assert_true(e.pagecache_order_failed);
        a.pagecache.alloc_fail_total[8] = 3;
        /* the retries of failed order-6 folios fail at 5: more failures
         * at 5 than at 6 (a NORETRY run's 509 against 414), of which at
         * most 95 were asked at 5: still 6 */
        a.pagecache.bytes_total[5] = 20 * MIB;
        a.pagecache.alloc_fail_total[6] = 414;
        a.pagecache.alloc_fail_total[5] = 509;
        pagecache_eval(&c, &st, &a, &e);
        assert_int_equal(e.pagecache_order, 6);
        /* more asked at 5 than at 6: 5 */
        a.pagecache.alloc_fail_total[5] = 414 + 420;
        pagecache_eval(&c, &st, &a, &e);
        assert_int_equal(e.pagecache_order, 5);
        assert_true(e.pagecache_order_failed);
        a.pagecache.bytes_total[5] = 0;
        a.pagecache.alloc_fail_total[5] = 0;
        a.pagecache.alloc_fail_total[6] = 42;
        /* the failures not counted (the hist gone): by share again */
        a.pagecache.fail_total_valid = false;
        a.pagecache.alloc_fail_total[8] = 3;
        pagecache_eval(&c, &st, &a, &e);
        assert_int_equal(e.pagecache_order, 8);
        assert_false(e.pagecache_order_failed);
}

/* Stalls count one block of the order each, only while the free blocks at
 * the order could not have held the tick's bytes, and only a watched
 * workload's when any is watched (the bulk writer's stalls are not the
 * database's). 20 MiB at order 6 this tick, 2 stalls/s x 5 s = 10 stalls
 * = 2.5 MiB. */
static void test_stalls_attributed_and_sized(void **state)
{
        static PolicyConfig c;
        static PolicyState st;
        static Assessment a;
        static PolicyEval e;
        TWorld w = { .n_nodes = 1, .node = { t_node_fine() }, .rates_valid = true, .fallback_ratio = -1,
                     .stall_per_sec = 2 };

        (void) state;
        cfg_learning(&c);
        policy_state_init(&st);
        w.node[0].ge_thp_pages = 5119; /* 20 MiB less a page at orders >= 5 */
        t_assess(&w, 1000 * USEC_PER_SEC, &a);
        memset(&a.pagecache, 0, sizeof(a.pagecache));
        a.pagecache.valid = a.pagecache.delta_valid = true;
        a.pagecache.interval_sec = 5;
        a.pagecache.bytes_total[6] = 64 * MIB;
        a.pagecache.bytes_delta[6] = 20 * MIB;
        memset(&e, 0, sizeof(e));
        policy_pagecache_evaluate(&c, &st, &a, 1000 * USEC_PER_SEC, &e);
        assert_int_equal(e.pagecache_stalled_bytes, 10 * 256 * 1024);
        assert_int_equal(e.pagecache_need_bytes, 10 * 256 * 1024);
        /* 20 MiB free in order >= 6 blocks: they held the tick's folios,
         * the stalls were another order's (a THP fault's) */
        a.nodes[0].free_pages_ge[6] = 5120;
        memset(&e, 0, sizeof(e));
        policy_pagecache_evaluate(&c, &st, &a, 1000 * USEC_PER_SEC, &e);
        assert_int_equal(e.pagecache_stalled_bytes, 0);
        a.nodes[0].free_pages_ge[6] = 5119;
        /* a watched workload without compaction delay: not its stalls */
        a.n_workloads = 1;
        a.workloads[0] = t_workload("system.slice/postgresql.service", 0, 0, 100);
        assert_true(policy_stalls_attributed(&a) == 0.0);
        memset(&e, 0, sizeof(e));
        policy_pagecache_evaluate(&c, &st, &a, 1000 * USEC_PER_SEC, &e);
        assert_int_equal(e.pagecache_stalled_bytes, 0);
        /* ... with it: counted */
        a.workloads[0] = t_workload("system.slice/postgresql.service", 40, 0, 100);
        assert_true(policy_stalls_attributed(&a) == 2.0);
        memset(&e, 0, sizeof(e));
        policy_pagecache_evaluate(&c, &st, &a, 1000 * USEC_PER_SEC, &e);
        assert_int_equal(e.pagecache_stalled_bytes, 10 * 256 * 1024);
        /* the THP side likewise: 10 faults/s served, 2 of them stalled
         * (the watched workload's), 2 x 5 x 2 MiB = 20 MiB unmet: the
         * burst with them is learned whole, 100 MiB */
        a.rates.thp_fault_alloc = 10;
        memset(&e, 0, sizeof(e));
        policy_demand_evaluate(&c, &st, &a, 1000 * USEC_PER_SEC, &e);
        assert_int_equal(e.demand_bytes, 100 * MIB);
        assert_int_equal(e.demand_stalled_bytes, 20 * MIB);
        assert_int_equal(e.learned_need_bytes, 100 * MIB);
        a.workloads[0] = t_workload("system.slice/postgresql.service", 0, 0, 100);
        memset(&e, 0, sizeof(e));
        policy_demand_evaluate(&c, &st, &a, 1000 * USEC_PER_SEC, &e);
        assert_int_equal(e.demand_stalled_bytes, 0);
        assert_int_equal(e.learned_need_bytes, 0);
}

/* Edges: rates not valid count no stall; a boot history with no uptime
 * seeds nothing; a smaller unmet page-cache burst keeps the peak it does
 * not reach (and its time), an equal one renews it. */
static void test_edges(void **state)
{
        static PolicyConfig c;
        static PolicyState st;
        static Assessment a;
        static PolicyEval e;
        LearnedRestore r;
        TWorld w = { .n_nodes = 1, .node = { t_node_fine() }, .rates_valid = false, .fallback_ratio = -1,
                     .stall_per_sec = 2 };

        (void) state;
        t_assess(&w, 1000 * USEC_PER_SEC, &a);
        assert_true(policy_stalls_attributed(&a) == 0.0);
        a.rates.valid = true;
        assert_true(policy_stalls_attributed(&a) == 2.0);

        cfg_learning(&c);
        c.demand_from_boot = true;
        c.demand_hold_usec = 1800 * USEC_PER_SEC;
        assert_int_equal(policy_learned_from_boot(&c, &(BootHistory) { 100, 100, 0 }, 2 * MIB, 4096 * MIB,
                                                  600 * USEC_PER_SEC, &r),
                         LEARNED_RESTORE_EMPTY);
        assert_int_equal(policy_learned_from_boot(&c, &(BootHistory) { 100, 100, USEC_PER_SEC }, 2 * MIB,
                                                  4096 * MIB, 600 * USEC_PER_SEC, &r),
                         LEARNED_RESTORE_OK);
        assert_int_equal(r.peak_bytes, 200 * MIB);
        /* no huge page size (a kernel without THP): nothing */
        assert_int_equal(policy_learned_from_boot(&c, &(BootHistory) { 100, 100, USEC_PER_SEC }, 0, 4096 * MIB,
                                                  600 * USEC_PER_SEC, &r),
                         LEARNED_RESTORE_EMPTY);

        /* a 4 MiB page-cache peak seen 100 s ago (held: demand_hold 30
         * min); this tick 3 MiB fell back at order 5 (no block of order
         * >= 5: t_node with no THP-order blocks) */
        policy_state_init(&st);
        st.pagecache_peak_bytes = 4 * MIB;
        st.pagecache_peak_usec = 900 * USEC_PER_SEC;
        w.node[0].ge_thp_pages = 0;
        w.rates_valid = true;
        w.stall_per_sec = 0;
        t_assess(&w, 1000 * USEC_PER_SEC, &a);
        memset(&a.pagecache, 0, sizeof(a.pagecache));
        a.pagecache.valid = a.pagecache.delta_valid = true;
        a.pagecache.interval_sec = 5;
        a.pagecache.bytes_total[6] = 64 * MIB;
        a.pagecache.bytes_delta[5] = 3 * MIB;
        memset(&e, 0, sizeof(e));
        policy_pagecache_evaluate(&c, &st, &a, 1000 * USEC_PER_SEC, &e);
        assert_int_equal(e.pagecache_unmet_bytes, 3 * MIB);
        assert_int_equal(e.pagecache_held_bytes, 4 * MIB);
        assert_int_equal(e.pagecache_peak_bytes, 4 * MIB);
        assert_int_equal(e.pagecache_peak_usec, 900 * USEC_PER_SEC);
        a.pagecache.bytes_delta[5] = 4 * MIB;
        memset(&e, 0, sizeof(e));
        policy_pagecache_evaluate(&c, &st, &a, 1000 * USEC_PER_SEC, &e);
        assert_int_equal(e.pagecache_peak_usec, 1000 * USEC_PER_SEC);
        assert_int_equal(e.pagecache_need_bytes, 4 * MIB);
        /* the deltas of a reading without a previous one are no demand */
        a.pagecache.delta_valid = false;
        memset(&e, 0, sizeof(e));
        policy_pagecache_evaluate(&c, &st, &a, 1000 * USEC_PER_SEC, &e);
        assert_int_equal(e.pagecache_unmet_bytes, 0);
        assert_int_equal(e.pagecache_demand_bytes, 0);
        /* at the THP order the THP need is added to a page-cache need,
         * never made one by itself: no page-cache demand, no need */
        policy_state_init(&st);
        c.order_thp = 6;
        memset(&e, 0, sizeof(e));
        e.learned_need_bytes = 4 * MIB;
        policy_pagecache_evaluate(&c, &st, &a, 1000 * USEC_PER_SEC, &e);
        assert_int_equal(e.pagecache_need_bytes, 0);
        a.pagecache.delta_valid = true;
        memset(&e, 0, sizeof(e));
        e.learned_need_bytes = 4 * MIB;
        policy_pagecache_evaluate(&c, &st, &a, 1000 * USEC_PER_SEC, &e);
        assert_int_equal(e.pagecache_need_bytes, 8 * MIB);
}

/* fragd's own work is no demand: its one-shot compaction and kcompactd
 * kicks count no compact_stall (the kernel counts those in the allocating
 * task's direct compaction only), and kswapd scanning that fragd's raised
 * watermarks cause is not counted at all; a tick with kswapd scanning
 * and fragd's compaction scanning, and no fallback or stall, keeps the
 * need at 0. */
static void test_own_work_is_no_demand(void **state)
{
        TSim *s = sim_database();
        TWorld w = t_world_fine(1);
        const Decision *d;

        (void) state;
        w.kswapd_scan_per_sec = 50000;
        w.scan_pages_per_sec = 200000;
        w.thp_alloc_per_sec = 20;
        w.fallback_ratio = 0;
        d = t_sim_tick(s, &w, 5);
        assert_int_equal(d->eval.demand_unmet_bytes, 0);
        assert_int_equal(d->eval.learned_need_bytes, 0);
        assert_int_equal(d->eval.nodes[0].target_bytes[1], d->eval.nodes[0].config_target_bytes);
        free(s);
}

/* The watermark cap: free memory short for a reserve (30000 pages free
 * against 25344 + the THP reserve) but not itself (above the kernel's high
 * watermark 25344): watermark_scale_factor rises no further than holds
 * back 1 % of the node (10485 pages) above the kernel's high watermark:
 * high = 16896 + 2 x 1048576 x f / 10000 - 25344 <= 10485 gives f <= 90.
 * Held with its words; min_free_kbytes gets only what is left under the
 * cap (with the factor at 90: 10485 - (2 x 9437 - 8448) pages). Under the kernel's own
 * high watermark (25000 pages) the cap does not bind. */
static void test_watermark_cap(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);
        const DecisionItem *it;
        const PolicyHeldItem *h;
        const Decision *d;
        char buf[DECISION_TEXT_MAX];

        (void) state;
        w.node[0] = t_node_memory_short();
        w.fallback_ratio = 0.12;
        d = t_sim_tick(s, &w, 5);
        it = t_find(d, DECISION_LEVER, LEVER_WATERMARK_SCALE_FACTOR);
        assert_non_null(it);
        assert_int_equal(it->from, 10);
        assert_int_equal(it->to, 90);
        h = t_find_held(d, LEVER_WATERMARK_SCALE_FACTOR);
        assert_non_null(h);
        assert_int_equal(h->hold, POLICY_HOLD_WATERMARK_CAP);
        assert_int_equal(h->allowed, 90);
        assert_true(policy_hold_shown(h->hold));
        assert_string_equal(policy_hold_name(h->hold), "watermark_cap");
        assert_int_equal(h->num.headroom_bytes, (uint64_t) T_MANAGED * T_PAGE / 100);
        assert_true(decision_explain_held(h, buf, sizeof(buf)) > 0);
        assert_non_null(strstr(buf, "raise watermark_scale_factor at 90 (wanted 140 for free_memory_short): the "
                                    "watermark cap binds: more would hold back over 40 MiB (1 % of node 0's "
                                    "memory) above the kernel's own high watermark while free memory is above it"));
        assert_true(d->eval.nodes[0].watermark_held_bytes == 0); /* measured before the move */
        /* at the cap: nothing more, said; min_free_kbytes held too (the
         * synthetic kernel frees nothing: the back-off then takes the
         * factor home) */
        d = t_sim_tick(s, &w, 30);
        h = t_find_held(d, LEVER_MIN_FREE_KBYTES);
        assert_non_null(h);
        assert_int_equal(h->hold, POLICY_HOLD_WATERMARK_CAP);
        for (unsigned i = 0; i < 20; i++) {
                d = t_sim_tick(s, &w, 10);
                assert_true(s->in[LEVER_WATERMARK_SCALE_FACTOR].current <= 90);
                assert_true(d->eval.nodes[0].watermark_held_bytes <= (uint64_t) T_MANAGED * T_PAGE / 100);
        }
        /* min_free_kbytes, raised by what the cap leaves: held back in
         * all, measured at the next tick, never over 1 % */
        d = t_sim_tick(s, &w, 10);
        assert_true(d->eval.nodes[0].watermark_held_bytes <= (uint64_t) T_MANAGED * T_PAGE / 100);
        free(s);

        /* free memory itself short: 25000 pages, under 25344 */
        s = sim_new();
        w.node[0].free_pages = 25000;
        d = t_sim_tick(s, &w, 5);
        it = t_find(d, DECISION_LEVER, LEVER_WATERMARK_SCALE_FACTOR);
        assert_non_null(it);
        assert_int_equal(it->to, 140);
        h = t_find_held(d, LEVER_WATERMARK_SCALE_FACTOR);
        assert_true(!h || h->hold != POLICY_HOLD_WATERMARK_CAP);
        free(s);
}

/* Nothing said where nothing was asked: an idle tick is not "keeps up";
 * a tick with a fallback or a stall is not either. */
static void test_keeps_up_only_with_demand(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);
        char buf[64];

        (void) state;
        assert_false(t_sim_tick(s, &w, 5)->eval.keeps_up);
        assert_int_equal(decision_explain_keeps_up(&s->d.eval, buf, sizeof(buf)), 0);
        assert_string_equal(buf, "");
        w.thp_alloc_per_sec = 10;
        assert_true(t_sim_tick(s, &w, 5)->eval.keeps_up);
        w.stall_per_sec = 0.01; /* under max_compact_stall_rate: no item, yet a stall */
        assert_false(t_sim_tick(s, &w, 5)->eval.keeps_up);
        w.stall_per_sec = 0;
        w.thp_fallback_per_sec = 0.1;
        assert_false(t_sim_tick(s, &w, 5)->eval.keeps_up);
        assert_int_equal(policy_reason_from_name("kernel_keeps_up"), POLICY_REASON_KERNEL_KEEPS_UP);
        free(s);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_aged_host_no_raise),
                cmocka_unit_test(test_fallback_at_order_sized_from_fallbacks),
                cmocka_unit_test(test_fallback_needs_no_block_above),
                cmocka_unit_test(test_fallback_kswapd_woken),
                cmocka_unit_test(test_fallback_failed_allocs),
                cmocka_unit_test(test_order_from_failures),
                cmocka_unit_test(test_stalls_attributed_and_sized),
                cmocka_unit_test(test_edges),
                cmocka_unit_test(test_own_work_is_no_demand),
                cmocka_unit_test(test_watermark_cap),
                cmocka_unit_test(test_keeps_up_only_with_demand),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
