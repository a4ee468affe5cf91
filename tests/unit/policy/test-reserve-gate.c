/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The configured reserves gated on demand (docs/policy.md "Demand worth
 * reserving for", policy_reserve_gate()): under the database preset
 * reserve_large and reserve_thp stand only while unmet demand is held;
 * reserve_always, and a configuration without demand learning, keep them
 * always. T_MANAGED = 4 GiB nodes: reserve_thp 2 % = 85899345 B,
 * reserve_large 1 % = 42949672 B. */

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
#define THP_2PCT UINT64_C(85899345)
#define LARGE_1PCT UINT64_C(42949672)

static TSim *sim_database(void)
{
        TSim *s = sim_new();

        policy_config_preset(PRESET_DATABASE, &s->cfg);
        return s;
}

/* An aged, fragmented host whose kernel keeps up: 400 MiB free, no free
 * order-9 block and 20 MiB in order>=4 blocks, so both configured
 * reserves are missed; THP faults 50 a second, `fallback` of them falling
 * back; WAL-sized page-cache folios at order 6 (16 MiB a tick), `pc_fb`
 * bytes a tick at order 5 with no block above (fallbacks). */
static TWorld aged_world(void)
{
        TWorld w = t_world_fine(1);

        w.node[0] = (TNode){ .free_pages = 400 * PAGES_MIB, .ge_large_pages = 20 * PAGES_MIB, .ge_thp_pages = 0,
                             .reclaimable_pages = 800000 };
        w.thp_alloc_per_sec = 50;
        w.fallback_ratio = 0;
        return w;
}

static const Decision *tick(TSim *s, const TWorld *w, usec_t step, double thp_fallback, uint64_t pc_fb)
{
        s->now += step;
        t_assess(w, s->now, &s->a);
        s->a.rates.interval_sec = (double) step / (double) USEC_PER_SEC;
        s->a.rates.thp_fault_fallback = thp_fallback;
        s->a.rates.thp_fallback_ratio = thp_fallback / (thp_fallback + w->thp_alloc_per_sec);
        memset(&s->a.pagecache, 0, sizeof(s->a.pagecache));
        s->a.pagecache.valid = s->a.pagecache.delta_valid = true;
        s->a.pagecache.interval_sec = s->a.rates.interval_sec;
        s->a.pagecache.bytes_total[6] = 512 * MIB;
        s->a.pagecache.bytes_delta[6] = 16 * MIB;
        s->a.pagecache.bytes_delta[5] = pc_fb;
        return t_sim_decide_apply(s);
}

/* The kernel keeps up: both reserves missed by the configured figures,
 * yet no target, no raise, no one-shot, and each tick says so. Before the
 * gate the missed 82 MiB THP floor raised proactiveness at the first
 * tick. */
static void test_no_demand_no_reserve(void **state)
{
        TSim *s = sim_database();
        TWorld w = aged_world();

        (void) state;
        s->cfg.demand_from_boot = false;
        for (unsigned i = 0; i < 30; i++) {
                const Decision *d = tick(s, &w, USEC_PER_SEC, 0, 0);

                assert_false(d->eval.reserve_wanted[0]);
                assert_false(d->eval.reserve_wanted[1]);
                assert_int_equal(d->eval.nodes[0].target_bytes[0], 0);
                assert_int_equal(d->eval.nodes[0].target_bytes[1], 0);
                assert_false(t_any_raise(d));
                assert_int_equal(d->n_items, 0);
                assert_true(d->eval.keeps_up);
        }
        for (unsigned l = 0; l < _LEVER_MAX; l++)
                assert_int_equal(s->in[l].current, s->in[l].baseline);
        free(s);
}

/* reserve_always = yes: the same host gets the operator's floor, and the
 * missed floor raises compaction_proactiveness at once. */
static void test_reserve_always_keeps_the_floor(void **state)
{
        TSim *s = sim_database();
        TWorld w = aged_world();
        const Decision *d;

        (void) state;
        s->cfg.demand_from_boot = false;
        s->cfg.reserve_always = true;
        d = tick(s, &w, USEC_PER_SEC, 0, 0);
        assert_true(d->eval.reserve_wanted[0]);
        assert_true(d->eval.reserve_wanted[1]);
        assert_int_equal(d->eval.nodes[0].target_bytes[1], THP_2PCT);
        assert_true(d->eval.nodes[0].target_bytes[0] >= LARGE_1PCT);
        assert_non_null(t_find(d, DECISION_LEVER, LEVER_COMPACTION_PROACTIVENESS));
        assert_false(d->eval.keeps_up);
        free(s);
}

/* Without demand learning nothing is measured: the floor is kept. */
static void test_learning_off_keeps_the_floor(void **state)
{
        TSim *s = sim_database();
        TWorld w = aged_world();
        const Decision *d;

        (void) state;
        s->cfg.demand_learning = false;
        d = tick(s, &w, USEC_PER_SEC, 0, 0);
        assert_true(d->eval.reserve_wanted[0] && d->eval.reserve_wanted[1]);
        assert_int_equal(d->eval.nodes[0].target_bytes[1], THP_2PCT);
        free(s);
}

/* A THP burst that falls back: the floor comes with the learned need
 * (both reserves: THP blocks serve the large order too), stays through
 * demand_hold, and goes once the need has decayed under one huge page.
 * 10 faults a second fall back beside 50 served for 5 s, after a second
 * of 50 served: 100 + 5 x 60 x 2 MiB = 700 MiB learned (the burst's whole
 * window); 30 min hold, then halved every 30 min: 269 min after it, 7.97
 * halvings, 2.8 MiB; 309 min, 9.3 halvings, 1.1 MiB: under one huge
 * page, forgotten. */
static void test_fallback_brings_and_takes_the_floor(void **state)
{
        TSim *s = sim_database();
        TWorld w = aged_world();
        const Decision *d = NULL;

        (void) state;
        s->cfg.demand_from_boot = false;
        tick(s, &w, USEC_PER_SEC, 0, 0);
        for (unsigned i = 0; i < 5; i++)
                d = tick(s, &w, USEC_PER_SEC, 10, 0);
        assert_int_equal(d->eval.learned_need_bytes, 700 * MIB);
        assert_true(d->eval.reserve_wanted[0] && d->eval.reserve_wanted[1]);
        assert_true(d->eval.nodes[0].target_bytes[1] >= THP_2PCT);
        assert_true(d->eval.nodes[0].target_bytes[0] >= LARGE_1PCT);
        assert_true(t_any_raise(d) || t_find(d, DECISION_KICK_KCOMPACTD, 0) ||
                    s->in[LEVER_COMPACTION_PROACTIVENESS].current > s->in[LEVER_COMPACTION_PROACTIVENESS].baseline);

        /* still held 29 min later: the floor is there with the need */
        d = tick(s, &w, 29 * USEC_PER_MINUTE, 0, 0);
        assert_int_equal(d->eval.learned_need_bytes, 700 * MIB);
        assert_true(d->eval.reserve_wanted[1]);
        /* 4 h later: decayed to 2.8 MiB, still wanted */
        d = tick(s, &w, 240 * USEC_PER_MINUTE, 0, 0);
        assert_true(d->eval.learned_need_bytes > 0);
        assert_true(d->eval.reserve_wanted[1]);
        /* 40 min more: under one huge page, forgotten, and the floor with it */
        d = tick(s, &w, 40 * USEC_PER_MINUTE, 0, 0);
        assert_int_equal(d->eval.learned_need_bytes, 0);
        assert_false(d->eval.reserve_wanted[0]);
        assert_false(d->eval.reserve_wanted[1]);
        assert_int_equal(d->eval.nodes[0].target_bytes[1], 0);
        free(s);
}

/* Page-cache fallbacks at order 5 under the page cache's order 6 (no
 * block above 5: ge_large counts orders 4..8 alike, all 20 MiB of them
 * are order 4 here) keep the large-folio floor, not the THP one: the
 * WAL waits on order-6 blocks, nobody on order 9. */
static void test_pagecache_need_keeps_the_large_floor_only(void **state)
{
        TSim *s = sim_database();
        TWorld w = aged_world();
        const Decision *d = NULL;

        (void) state;
        s->cfg.demand_from_boot = false;
        w.node[0].ge_large_pages = 0;
        for (unsigned i = 0; i < 3; i++)
                d = tick(s, &w, USEC_PER_SEC, 0, 4 * MIB);
        assert_int_equal(d->eval.pagecache_order, 6);
        assert_true(d->eval.pagecache_held_bytes > 0);
        assert_int_equal(d->eval.learned_need_bytes, 0);
        assert_true(d->eval.reserve_wanted[0]);
        assert_false(d->eval.reserve_wanted[1]);
        assert_true(d->eval.nodes[0].target_bytes[0] >= LARGE_1PCT);
        assert_int_equal(d->eval.nodes[0].target_bytes[1], 0);
        free(s);
}

/* policy_reserve_gate() alone, each input by itself. */
static void test_gate_table(void **state)
{
        static PolicyConfig c;
        PolicyEval e;

        (void) state;
        policy_config_preset(PRESET_DATABASE, &c);
        memset(&e, 0, sizeof(e));
        e.order[0] = 4;
        e.order[1] = 9;
        policy_reserve_gate(&c, &e);
        assert_false(e.reserve_wanted[0] || e.reserve_wanted[1]);

        e.learned_need_bytes = 2 * MIB;
        policy_reserve_gate(&c, &e);
        assert_true(e.reserve_wanted[0] && e.reserve_wanted[1]);

        e.learned_need_bytes = 0;
        e.pagecache_held_bytes = 1;
        e.pagecache_order = 9; /* the page cache's order is the THP order */
        policy_reserve_gate(&c, &e);
        assert_true(e.reserve_wanted[0] && e.reserve_wanted[1]);
        e.pagecache_order = 8;
        policy_reserve_gate(&c, &e);
        assert_true(e.reserve_wanted[0]);
        assert_false(e.reserve_wanted[1]);

        e.pagecache_held_bytes = 0;
        c.demand_factor = 0; /* learning off by its factor */
        policy_reserve_gate(&c, &e);
        assert_true(e.reserve_wanted[0] && e.reserve_wanted[1]);
        c.demand_factor = 1.0;
        c.reserve_always = true;
        policy_reserve_gate(&c, &e);
        assert_true(e.reserve_wanted[0] && e.reserve_wanted[1]);

        /* the daemon's line for each (lever_apply() logs it when it changes) */
        {
                char buf[DECISION_TEXT_MAX];

                e.reserve_wanted[0] = e.reserve_wanted[1] = false;
                assert_true(decision_explain_reserve_gate(&e, buf, sizeof(buf)) > 0);
                assert_string_equal(buf, "configured reserves waiting: no fallback or compaction stall is held, so "
                                         "reserve_thp and reserve_large stand only once one comes "
                                         "(reserve_always = no)");
                e.reserve_wanted[0] = true;
                e.pagecache_held_bytes = 6 * MIB;
                e.pagecache_order = 6;
                assert_true(decision_explain_reserve_gate(&e, buf, sizeof(buf)) > 0);
                assert_string_equal(buf, "configured reserves kept (reserve_large): unmet demand is held; "
                                         "page-cache folios fell back or stalled at order 6: 6.0 MiB held");
                e.reserve_wanted[1] = true;
                e.learned_need_bytes = 100 * MIB;
                e.pagecache_held_bytes = 0;
                assert_true(decision_explain_reserve_gate(&e, buf, sizeof(buf)) > 0);
                assert_string_equal(buf, "configured reserves kept (reserve_thp, reserve_large): unmet demand is "
                                         "held; THP faults fell back or stalled: 100 MiB learned");
        }

        /* the shipped presets: only database gates */
        policy_config_preset(PRESET_THROUGHPUT, &c);
        assert_true(c.reserve_always);
        assert_false(policy_reserve_gate_on(&c));
        policy_config_preset(PRESET_THP_MAX, &c);
        assert_true(c.reserve_always);
        policy_config_preset(PRESET_DATABASE, &c);
        assert_false(c.reserve_always);
        assert_true(policy_reserve_gate_on(&c));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_no_demand_no_reserve),
                cmocka_unit_test(test_reserve_always_keeps_the_floor),
                cmocka_unit_test(test_learning_off_keeps_the_floor),
                cmocka_unit_test(test_fallback_brings_and_takes_the_floor),
                cmocka_unit_test(test_pagecache_need_keeps_the_large_floor_only),
                cmocka_unit_test(test_gate_table),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
