/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The watermarks a min_free_kbytes / watermark_scale_factor pair gives
 * (policy/envelope.c, after mm/page_alloc.c __setup_per_zone_wmarks();
 * KERNEL.md §3), worked out by hand: lowmem zones share pages_min by their
 * managed pages, HighMem and Movable zones get managed / 1024 clamped to
 * 32..128, gap = max(min / 4, managed x wsf / 10000); without zoneinfo the
 * node is one lowmem zone. And policy_config_effective()'s defaults and
 * min_free_kbytes bounds. Links libpolicy.a only. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "policy-test-util.h"

static void zone(Assessment *a, int node, const char *name, uint64_t managed)
{
        ZoneMeasures *z = &a->zones[a->n_zones++];

        memset(z, 0, sizeof(*z));
        z->node = node;
        strcpy(z->zone, name);
        z->managed = z->present = managed;
}

static Assessment *two_nodes(void)
{
        Assessment *a = calloc(1, sizeof(*a));

        assert_non_null(a);
        a->page_size = 4096;
        a->n_nodes = 2;
        /* node 0: DMA32 1 GiB + Normal 2 GiB; node 1: Normal 4 GiB +
         * Movable 1 GiB + HighMem 32 MiB */
        zone(a, 0, "DMA32", 262144);
        zone(a, 0, "Normal", 524288);
        zone(a, 1, "Normal", 1048576);
        zone(a, 1, "Movable", 262144);
        zone(a, 1, "HighMem", 8192);
        a->nodes[0] = (NodeMeasures){ .node = 0, .zone_first = 0, .n_zones = 2, .managed_pages = 786432 };
        a->nodes[1] = (NodeMeasures){ .node = 1, .zone_first = 2, .n_zones = 3, .managed_pages = 1318912 };
        return a;
}

static void test_node_watermarks(void **state)
{
        Assessment *a = two_nodes();
        NodeWatermarks w;

        (void) state;
        /* min_free_kbytes 65536 = 16384 pages over 1835008 lowmem pages:
         * DMA32 2340 (16384 x 262144 / 1835008 = 2340.57), Normal(0)
         * 4681, Normal(1) 9362; Movable 256 -> 128, HighMem 8 -> 32.
         * wsf 10: gaps max(min/4, managed/1000): DMA32 max(585, 262) = 585,
         * Normal(0) max(1170, 524) = 1170, Normal(1) max(2340, 1048) =
         * 2340, Movable max(32, 262) = 262, HighMem max(8, 8) = 8 */
        assert_int_equal(envelope_node_watermarks(a, 0, 65536, 10, &w), 0);
        assert_int_equal(w.min_pages, 2340 + 4681);
        assert_int_equal(w.low_pages, 2340 + 585 + 4681 + 1170);
        assert_int_equal(w.high_pages, 2340 + 2 * 585 + 4681 + 2 * 1170);
        assert_int_equal(envelope_node_watermarks(a, 1, 65536, 10, &w), 0);
        assert_int_equal(w.min_pages, 9362 + 128 + 32);
        assert_int_equal(w.low_pages, 9362 + 2340 + 128 + 262 + 32 + 8);
        assert_int_equal(w.high_pages, 9362 + 2 * 2340 + 128 + 2 * 262 + 32 + 2 * 8);
        /* wsf 200: gaps managed / 50: Normal(1) 20971, Movable 5242, HighMem 163 */
        assert_int_equal(envelope_node_watermarks(a, 1, 65536, 200, &w), 0);
        assert_int_equal(w.low_pages, 9362 + 20971 + 128 + 5242 + 32 + 163);
        /* negative values count as 0 */
        assert_int_equal(envelope_node_watermarks(a, 1, -5, -5, &w), 0);
        assert_int_equal(w.min_pages, 128 + 32);
        assert_int_equal(w.low_pages, 128 + 32 + 32 + 8);
        /* bad arguments */
        assert_int_equal(envelope_node_watermarks(a, 2, 65536, 10, &w), -EINVAL);
        a->page_size = 1023;
        assert_int_equal(envelope_node_watermarks(a, 0, 65536, 10, &w), -EINVAL);
        a->page_size = 1024; /* 65536 KiB = 65536 pages of 1 KiB */
        assert_int_equal(envelope_node_watermarks(a, 0, 65536, 10, &w), 0);
        assert_int_equal(w.min_pages, 9362 + 18724);
        /* a Movable zone inside the clamp: 65536 / 1024 = 64 */
        a->page_size = 4096;
        a->zones[3].managed = 65536;
        assert_int_equal(envelope_node_watermarks(a, 1, 65536, 10, &w), 0);
        assert_int_equal(w.min_pages, 9362 + 64 + 32);
        free(a);
}

static void test_node_watermarks_without_zoneinfo(void **state)
{
        Assessment *a = two_nodes();
        NodeWatermarks w;

        (void) state;
        /* zones known but none managed (no zoneinfo): each node is one
         * lowmem zone of its managed pages, sharing pages_min by them */
        for (unsigned i = 0; i < a->n_zones; i++)
                a->zones[i].managed = 0;
        assert_int_equal(envelope_node_watermarks(a, 0, 65536, 10, &w), 0);
        /* 16384 x 786432 / 2105344 = 6120.2 */
        assert_int_equal(w.min_pages, 6120);
        assert_int_equal(w.low_pages, 6120 + 1530);
        assert_int_equal(envelope_node_watermarks(a, 1, 65536, 10, &w), 0);
        assert_int_equal(w.min_pages, 10263); /* 16384 x 1318912 / 2105344 = 10263.8 */
        /* a zone list past the zones read is cut to them (a stale zone
         * after them does not count) */
        a->nodes[1].n_zones = 9;
        a->zones[2].managed = 1048576;
        a->zones[5] = a->zones[2];
        assert_int_equal(envelope_node_watermarks(a, 1, 65536, 10, &w), 0);
        /* lowmem = the one managed zone: all of pages_min */
        assert_int_equal(w.min_pages, 16384);
        free(a);
}

static void test_envelope_ok_numbers(void **state)
{
        TWorld w = t_world_fine(2);
        Assessment a;
        PolicyConfig c;
        PolicyNumbers num;

        (void) state;
        t_config(&c);
        /* node 1: 60000 free + 20000 reclaimable pages; headroom 2 % of 4
         * GiB = 85899345 B; at min_free_kbytes 67584 (8448 pages per node)
         * and wsf 10 the gap is max(2112, 1048) = 2112: low 10560 pages =
         * 43253760 B; 43253760 + 85899345 = 129153105 <= 327680000 */
        w.node[1].free_pages = 60000;
        w.node[1].reclaimable_pages = 20000;
        t_assess(&w, 0, &a);
        assert_true(envelope_ok(&c, &a, 67584, 10, NULL));
        /* wsf 2000: gap 209715 pages: low 218163 pages = 893595648 B: over */
        assert_false(envelope_ok(&c, &a, 67584, 2000, &num));
        assert_int_equal(num.node, 1);
        assert_int_equal(num.low_wmark_bytes, 218163ULL * 4096);
        assert_int_equal(num.headroom_bytes, 85899345);
        assert_int_equal(num.avail_bytes, 80000ULL * 4096);
        assert_int_equal(num.free_bytes, 60000ULL * 4096);
        assert_true(num.eta_usec == USEC_INFINITY);
        /* the edge: low + headroom = avail exactly is inside */
        c.safety_headroom = (SizeSpec){ .bytes = 80000ULL * 4096 - 10560ULL * 4096 };
        assert_true(envelope_ok(&c, &a, 67584, 10, NULL));
        c.safety_headroom.bytes++;
        assert_false(envelope_ok(&c, &a, 67584, 10, NULL));
        /* a node whose watermarks cannot be computed is skipped */
        a.page_size = 512;
        assert_true(envelope_ok(&c, &a, 67584, 10, NULL));
}

static void test_effective_defaults(void **state)
{
        PolicyConfig c, e;
        LeverInput in[_LEVER_MAX];
        TWorld w = t_world_fine(1);
        Assessment a;

        (void) state;
        t_config(&c);
        t_levers(in);
        t_assess(&w, 0, &a);
        c.hysteresis_permyriad = 0;
        c.max_reversals = 0;
        c.reversal_window_usec = 0;
        c.backoff_hold_usec = 0;
        policy_config_effective(&c, in, &a, &e);
        assert_int_equal(e.hysteresis_permyriad, POLICY_DEFAULT_HYSTERESIS_PERMYRIAD);
        assert_int_equal(e.max_reversals, POLICY_DEFAULT_MAX_REVERSALS);
        assert_int_equal(e.reversal_window_usec, POLICY_DEFAULT_REVERSAL_WINDOW_USEC);
        assert_int_equal(e.backoff_hold_usec, c.decay_after_usec);
        c.hysteresis_permyriad = 7;
        c.max_reversals = 9;
        c.reversal_window_usec = 11;
        c.backoff_hold_usec = 13;
        policy_config_effective(&c, in, &a, &e);
        assert_int_equal(e.hysteresis_permyriad, 7);
        assert_int_equal(e.max_reversals, 9);
        assert_int_equal(e.reversal_window_usec, 11);
        assert_int_equal(e.backoff_hold_usec, 13);

        /* min_free_kbytes: min 0 = the value at start; a configured min
         * stays; max = max(lever max, share of memory, value at start) */
        c.min_free_max_permyriad = 100; /* 1 % of 4 GiB = 41943 KiB */
        c.lever[LEVER_MIN_FREE_KBYTES].min = 0;
        c.lever[LEVER_MIN_FREE_KBYTES].max = 0;
        in[LEVER_MIN_FREE_KBYTES].baseline = 30000;
        policy_config_effective(&c, in, &a, &e);
        assert_int_equal(e.lever[LEVER_MIN_FREE_KBYTES].min, 30000);
        assert_int_equal(e.lever[LEVER_MIN_FREE_KBYTES].max, 41943);
        assert_true(e.lever[LEVER_MIN_FREE_KBYTES].enabled);
        c.lever[LEVER_MIN_FREE_KBYTES].min = 20000;
        in[LEVER_MIN_FREE_KBYTES].baseline = 50000;
        policy_config_effective(&c, in, &a, &e);
        assert_int_equal(e.lever[LEVER_MIN_FREE_KBYTES].min, 20000);
        assert_int_equal(e.lever[LEVER_MIN_FREE_KBYTES].max, 50000);
        /* not readable: pinned off unless both bounds are set */
        in[LEVER_MIN_FREE_KBYTES].available = false;
        policy_config_effective(&c, in, &a, &e);
        assert_true(e.lever[LEVER_MIN_FREE_KBYTES].enabled); /* min 20000, max 41943 */
        c.lever[LEVER_MIN_FREE_KBYTES].min = 0;
        policy_config_effective(&c, in, &a, &e);
        assert_false(e.lever[LEVER_MIN_FREE_KBYTES].enabled);
        c.lever[LEVER_MIN_FREE_KBYTES].min = 1;
        c.min_free_max_permyriad = 0;
        policy_config_effective(&c, in, &a, &e);
        assert_false(e.lever[LEVER_MIN_FREE_KBYTES].enabled);
        c.lever[LEVER_MIN_FREE_KBYTES].max = 1;
        policy_config_effective(&c, in, &a, &e);
        assert_true(e.lever[LEVER_MIN_FREE_KBYTES].enabled);
        policy_config_effective(&c, NULL, &a, &e);
        assert_true(e.lever[LEVER_MIN_FREE_KBYTES].enabled);
        /* any lever: max under min is raised to min, the first lever too */
        c.lever[LEVER_COMPACTION_PROACTIVENESS].min = 50;
        c.lever[LEVER_COMPACTION_PROACTIVENESS].max = 40;
        c.lever[LEVER_THP_DEFRAG].min = 3;
        c.lever[LEVER_THP_DEFRAG].max = 2;
        policy_config_effective(&c, in, &a, &e);
        assert_int_equal(e.lever[LEVER_COMPACTION_PROACTIVENESS].max, 50);
        assert_int_equal(e.lever[LEVER_THP_DEFRAG].max, 3);
        assert_int_equal(e.lever[LEVER_WATERMARK_SCALE_FACTOR].max, c.lever[LEVER_WATERMARK_SCALE_FACTOR].max);
}

static void test_mem_total_and_share(void **state)
{
        TWorld w = t_world_fine(3);
        Assessment a;
        PolicyConfig c;

        (void) state;
        t_config(&c);
        w.node[2].managed_pages = 1000;
        t_assess(&w, 0, &a);
        assert_int_equal(policy_mem_total_bytes(&a), (2ULL * 1048576 + 1000) * 4096);
        assert_int_equal(policy_mem_total_bytes(NULL), 0);
        a.n_nodes = 1;
        assert_int_equal(policy_mem_total_bytes(&a), 1048576ULL * 4096);
        c.min_free_max_permyriad = 250; /* 2.5 % of 4194304 KiB */
        assert_int_equal(policy_min_free_share_kbytes(&c, &a), 104857);
        c.min_free_max_permyriad = 0;
        assert_int_equal(policy_min_free_share_kbytes(&c, &a), 0);
        /* an int: capped at INT32_MAX KiB */
        a.nodes[0].managed_pages = 1ULL << 40;
        c.min_free_max_permyriad = 10000;
        assert_int_equal(policy_min_free_share_kbytes(&c, &a), INT32_MAX);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_node_watermarks),
                cmocka_unit_test(test_node_watermarks_without_zoneinfo),
                cmocka_unit_test(test_envelope_ok_numbers),
                cmocka_unit_test(test_effective_defaults),
                cmocka_unit_test(test_mem_total_and_share),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
