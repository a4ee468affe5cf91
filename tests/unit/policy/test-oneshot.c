/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one-shot node compaction (policy/controller.c decide_oneshot()) at
 * each of its edges, worked out by hand for t_config() on a 4 GiB node:
 * the THP target is 42949672 B, "far below" is under 25 % of it (10737418
 * B: 2621 pages yes, 2622 no), free memory must be at least the node's
 * min watermark (8448 pages: half of min_free_kbytes on each of two nodes)
 * + 2 x the target = 120502352 B (29420 pages yes, 29419 no), pressure calm (some <= 1 %), not within 600 s of the last
 * one on that node, not right after a back-off. Links libpolicy.a only. */

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

/* node `node` of two at `ge_thp` pages in order-9 blocks and `free` free */
static TWorld world(unsigned node, uint64_t ge_thp, uint64_t free_pages)
{
        TWorld w = t_world_fine(2);

        w.node[node].free_pages = free_pages;
        w.node[node].ge_large_pages = free_pages;
        w.node[node].ge_thp_pages = ge_thp;
        return w;
}

static unsigned oneshots(const Decision *d, int *ret_node)
{
        unsigned n = 0;

        for (unsigned i = 0; i < d->n_items; i++)
                if (d->items[i].kind == DECISION_COMPACT_NODE) {
                        n++;
                        if (ret_node)
                                *ret_node = d->items[i].node;
                }
        return n;
}

static unsigned once(TSim *s, const TWorld *w)
{
        t_sim_tick(s, w, 5);
        return oneshots(&s->d, NULL);
}

static void test_oneshot_item(void **state)
{
        TSim *s = sim_new();
        TWorld w = world(1, 2621, 100000);
        const DecisionItem *it = NULL;

        (void) state;
        w.psi_some = 37;
        t_sim_tick(s, &w, 5);
        for (unsigned i = 0; i < s->d.n_items; i++)
                if (s->d.items[i].kind == DECISION_COMPACT_NODE)
                        it = &s->d.items[i];
        assert_non_null(it);
        assert_int_equal(oneshots(&s->d, NULL), 1);
        assert_int_equal(it->node, 1);
        assert_int_equal(it->lever, _LEVER_MAX);
        assert_int_equal(it->reason, POLICY_REASON_ONESHOT_COMPACT);
        assert_int_equal(it->num.node, 1);
        assert_int_equal(it->num.order, 9);
        assert_int_equal(it->num.have_bytes, 2621ULL * 4096);
        assert_int_equal(it->num.target_bytes, 42949672);
        assert_int_equal(it->num.free_bytes, 100000ULL * 4096);
        assert_int_equal(it->num.limit_permyriad, 2500);
        assert_int_equal(it->num.psi_some_permyriad, 37);
        assert_int_equal(it->num.score, 100 - 2621 * 100 / 100000);
        free(s);
}

static void test_oneshot_edges(void **state)
{
        TSim *s = sim_new();
        TWorld w;

        (void) state;
        /* far below: 2621 pages yes, 2622 no */
        w = world(0, 2621, 100000);
        assert_int_equal(once(s, &w), 1);
        t_sim_init(s);
        w = world(0, 2622, 100000);
        assert_int_equal(once(s, &w), 0);
        /* enough free memory to build from (v2: the kernel's own high
         * watermark + T). Two 4 GiB nodes, min_free_kbytes 67584 = 16896
         * pages split by size: min 8448, gap max(8448 / 4, 1048576 x 10 /
         * 10000) = 2112, high 8448 + 2 x 2112 = 12672 pages = 51904512 B;
         * + T 42949672 = 94854184 B = 23157.76 pages: 23158 pages yes,
         * 23157 no (the order-4 reserve, all of free memory, is met) */
        t_sim_init(s);
        w = world(0, 100, 23158);
        assert_int_equal(once(s, &w), 1);
        t_sim_init(s);
        w = world(0, 100, 23157);
        assert_int_equal(once(s, &w), 0);
        /* calm: some 1.00 % yes, 1.01 % no */
        t_sim_init(s);
        w = world(0, 100, 100000);
        w.psi_some = 100;
        assert_int_equal(once(s, &w), 1);
        t_sim_init(s);
        w.psi_some = 101;
        assert_int_equal(once(s, &w), 0);
        /* over the PSI ceiling: no */
        t_sim_init(s);
        s->cfg.calm_psi_some_permyriad = 5000;
        w.psi_some = 1001;
        assert_int_equal(once(s, &w), 0);
        /* off: no */
        t_sim_init(s);
        s->cfg.oneshot_compact = false;
        w = world(0, 100, 100000);
        assert_int_equal(once(s, &w), 0);
        /* no THP target: no */
        t_sim_init(s);
        s->cfg.reserve_thp = (SizeSpec){ 0 };
        assert_int_equal(once(s, &w), 0);
        free(s);
}

static void test_oneshot_interval(void **state)
{
        TSim *s = sim_new();
        TWorld w = world(0, 100, 100000);

        (void) state;
        /* node 0 (history index 0): once, then not for 600 s, then again */
        assert_int_equal(once(s, &w), 1);
        assert_true(s->state.have_oneshot[0]);
        for (unsigned i = 0; i < 119; i++)
                assert_int_equal(once(s, &w), 0); /* 595 s */
        assert_int_equal(once(s, &w), 1);         /* 600 s */
        /* the last one stamped at this very tick: held */
        s->state.last_oneshot_usec[0] = s->now + 5 * S;
        assert_int_equal(once(s, &w), 0);
        /* a last one stamped after now (a clock that went back): not held */
        s->state.last_oneshot_usec[0] = s->now + 100 * S;
        assert_int_equal(once(s, &w), 1);
        /* another node is not held by node 0's */
        w = world(0, 100, 100000);
        w.node[1] = w.node[0];
        assert_int_equal(once(s, &w), 1);
        free(s);
}

static void test_oneshot_after_backoff_or_rollback(void **state)
{
        TSim *s = sim_new();
        TWorld w = world(0, 100, 100000);

        (void) state;
        /* raising held after a back-off: compaction was found not to pay */
        s->state.lever[P].hold_raise_until_usec = s->now + 100 * S;
        s->state.lever[P].hold_reason = POLICY_REASON_BACKOFF_INEFFECTIVE;
        assert_int_equal(once(s, &w), 0);
        /* after a rollback it is pressure that stopped raising, not cost */
        t_sim_init(s);
        s->state.lever[P].hold_raise_until_usec = s->now + 100 * S;
        s->state.lever[P].hold_reason = POLICY_REASON_PSI_ROLLBACK;
        assert_int_equal(once(s, &w), 1);
        /* a back-off hold that has ended */
        t_sim_init(s);
        s->state.lever[P].hold_raise_until_usec = s->now + 5 * S;
        s->state.lever[P].hold_reason = POLICY_REASON_BACKOFF_INEFFECTIVE;
        assert_int_equal(once(s, &w), 1);
        free(s);
}

/* Two nodes both far below: both compacted, each with its own numbers. */
static void test_oneshot_two_nodes(void **state)
{
        TSim *s = sim_new();
        TWorld w = world(0, 100, 100000);
        int node = -1;

        (void) state;
        w.node[1] = w.node[0];
        w.node[1].ge_thp_pages = 200;
        t_sim_tick(s, &w, 5);
        assert_int_equal(oneshots(&s->d, &node), 2);
        assert_int_equal(node, 1);
        for (unsigned i = 0; i < s->d.n_items; i++)
                if (s->d.items[i].kind == DECISION_COMPACT_NODE)
                        assert_int_equal(s->d.items[i].num.have_bytes,
                                         s->d.items[i].node == 0 ? 100 * 4096 : 200 * 4096);
        free(s);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_oneshot_item),
                cmocka_unit_test(test_oneshot_edges),
                cmocka_unit_test(test_oneshot_interval),
                cmocka_unit_test(test_oneshot_after_backoff_or_rollback),
                cmocka_unit_test(test_oneshot_two_nodes),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
