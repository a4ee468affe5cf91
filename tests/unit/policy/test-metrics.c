/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Measures against values worked out by hand (shown in the comments).
 * Links libpolicy.a only. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fragd/metrics.h"
#include "fragd/policy-config.h"

/* nr_free = {4, 2, 0, 1}: free pages 4 + 2*2 + 0 + 1*8 = 16, 7 blocks. */
static const uint64_t small[4] = { 4, 2, 0, 1 };

static void test_unusable_index(void **state)
{
        (void) state;
        /* order 0: every page usable */
        assert_int_equal(unusable_index_permille(small, 4, 0), 0);
        /* order 1: suitable = 2 + 0*2 + 1*4 = 6 blocks of 2 = 12 pages; (16-12)/16 */
        assert_int_equal(unusable_index_permille(small, 4, 1), 250);
        /* order 2: suitable = 0 + 1*2 = 2 blocks of 4 = 8 pages; (16-8)/16 */
        assert_int_equal(unusable_index_permille(small, 4, 2), 500);
        assert_int_equal(unusable_index_permille(small, 4, 3), 500);
        /* order 4: nothing that large */
        assert_int_equal(unusable_index_permille(small, 4, 4), 1000);
        /* no free memory at all: the kernel says 1000 */
        static const uint64_t none[11] = { 0 };
        assert_int_equal(unusable_index_permille(none, 11, 9), 1000);
}

static void test_fragmentation_index(void **state)
{
        (void) state;
        /* a block of order 3 exists: kernel returns -1000 */
        assert_int_equal(fragmentation_index_permille(small, 4, 3), FRAG_INDEX_SUITABLE);
        /* order 4: 1000 - (1000 + 16*1000/16) / 7 = 1000 - 2000/7 = 1000 - 285 */
        assert_int_equal(fragmentation_index_permille(small, 4, 4), 715);
        static const uint64_t none[11] = { 0 };
        assert_int_equal(fragmentation_index_permille(none, 11, 9), 0);
        /* 512 single pages, order 9: 1000 - (1000 + 512*1000/512)/512 = 1000 - 3 */
        uint64_t singles[11] = { 512 };
        assert_int_equal(fragmentation_index_permille(singles, 11, 9), 997);
}

static void test_extfrag(void **state)
{
        (void) state;
        /* order 3: (16 - 8) * 100 / 16 */
        assert_int_equal(extfrag_for_order(small, 4, 3), 50);
        assert_int_equal(extfrag_for_order(small, 4, 0), 0);
        static const uint64_t none[11] = { 0 };
        assert_int_equal(extfrag_for_order(none, 11, 9), 0);
}

static void test_score_wmark(void **state)
{
        (void) state;
        /* default 20 -> 80/90 (KERNEL.md 4.3) */
        assert_int_equal(frag_score_wmark(20, true), 80);
        assert_int_equal(frag_score_wmark(20, false), 90);
        /* 0 -> 100, leeway 10 capped at 100 */
        assert_int_equal(frag_score_wmark(0, false), 100);
        /* 90 -> low 10, leeway min(10, 5) = 5 */
        assert_int_equal(frag_score_wmark(90, true), 10);
        assert_int_equal(frag_score_wmark(90, false), 15);
        assert_int_equal(frag_score_wmark(100, false), 0);
        assert_int_equal(frag_score_wmark(250, true), 0);
}

static Observation *obs_new(void)
{
        Observation *o = calloc(1, sizeof(*o));
        assert_non_null(o);
        o->page_size = 4096;
        o->have = OBS_MASK(OBS_BUDDYINFO) | OBS_MASK(OBS_ZONEINFO);
        return o;
}

static void add_zone(Observation *o, int node, const char *name, const uint64_t *nr_free, unsigned n,
                     uint64_t present, uint64_t min, uint64_t low, uint64_t high, uint64_t boost)
{
        BuddyZone *b = &o->buddy.zones[o->buddy.n_zones++];
        ZoneInfoZone *z = &o->zoneinfo.zones[o->zoneinfo.n_zones++];

        b->node = node;
        strcpy(b->zone, name);
        b->n_orders = n;
        memcpy(b->nr_free, nr_free, n * sizeof(*nr_free));
        o->buddy.n_orders = n;
        z->node = node;
        strcpy(z->zone, name);
        z->have = ZONE_HAVE_MANAGED | ZONE_HAVE_BOOST;
        z->present = z->managed = present;
        z->min = min + boost;
        z->low = low + boost;
        z->high = high + boost;
        z->boost = boost;
}

static void test_node_score(void **state)
{
        (void) state;
        Observation *o = obs_new();
        Assessment *a = malloc(sizeof(*a));
        uint64_t huge[11] = { 0 }, tiny[11] = { 0 };

        assert_non_null(a);
        huge[9] = 1;  /* 512 pages all in one order-9 block: zone score 0 */
        tiny[0] = 512; /* 512 single pages: zone score 100 */
        add_zone(o, 0, "DMA32", huge, 11, 1000, 10, 12, 14, 0);
        add_zone(o, 0, "Normal", tiny, 11, 3000, 30, 37, 44, 8);
        /* an unpopulated zone in zoneinfo only: counts in node_present_pages */
        ZoneInfoZone *mv = &o->zoneinfo.zones[o->zoneinfo.n_zones++];
        mv->node = 0;
        strcpy(mv->zone, "Movable");

        assert_int_equal(assess(o, NULL, a), 0);
        assert_int_equal(a->n_nodes, 1);
        assert_int_equal(a->n_zones, 2);
        assert_int_equal(a->hpage_order, 9);
        /* 1000*0/4001 + 3000*100/4001 = 0 + 74 */
        assert_int_equal(a->nodes[0].frag_score, 74);
        assert_int_equal(a->zones[0].score, 0);
        assert_int_equal(a->zones[1].score, 100);
        assert_int_equal(a->nodes[0].free_pages, 1024);
        assert_int_equal(a->nodes[0].free_pages_ge[9], 512);
        assert_int_equal(a->nodes[0].free_pages_ge[1], 512);
        /* Normal: boost 8 is subtracted from printed watermarks */
        assert_int_equal(a->zones[1].wmark_high, 44);
        assert_int_equal(a->zones[1].boost, 8);
        /* headroom = free - printed high = 512 - 52 */
        assert_int_equal(a->zones[1].headroom_pages, 460);
        assert_int_equal(a->nodes[0].wmark_low, 12 + 37);
        assert_false(a->rates.valid);
        free(o);
        free(a);
}

static void test_nodes_grouped(void **state)
{
        (void) state;
        Observation *o = obs_new();
        Assessment *a = malloc(sizeof(*a));
        uint64_t f[11] = { 1 };

        assert_non_null(a);
        add_zone(o, 10, "DMA32", f, 11, 100, 1, 2, 3, 0);
        add_zone(o, 1, "DMA32", f, 11, 100, 1, 2, 3, 0);
        add_zone(o, 10, "Normal", f, 11, 100, 1, 2, 3, 0);
        assert_int_equal(assess(o, NULL, a), 0);
        assert_int_equal(a->n_nodes, 2);
        assert_int_equal(a->nodes[0].node, 10);
        assert_int_equal(a->nodes[0].n_zones, 2);
        assert_int_equal(a->nodes[0].zone_first, 0);
        assert_string_equal(a->zones[1].zone, "Normal");
        assert_int_equal(a->nodes[1].node, 1);
        assert_int_equal(a->nodes[1].zone_first, 2);
        assert_ptr_equal(assessment_node(a, 1), &a->nodes[1]);
        assert_null(assessment_node(a, 3));
        free(o);
        free(a);
}

static void kv(KvList *l, const char *name, uint64_t v)
{
        strcpy(l->e[l->n].name, name);
        l->e[l->n++].value = v;
}

/* A counter that jumps further than any kernel can count, or than the
 * host's memory can serve, is a reset: rate 0 for the interval, recorded
 * (issue 11 item 12: thp_fault_alloc to 2^64-1 was a "4096 PiB" burst). */
static void test_rates_impossible_jump(void **state)
{
        (void) state;
        Observation *p = obs_new(), *c = obs_new();
        Assessment *a = malloc(sizeof(*a));
        uint64_t f[11] = { 1 };

        assert_non_null(a);
        add_zone(p, 0, "Normal", f, 11, 1048576, 1, 2, 3, 0); /* 4 GiB */
        add_zone(c, 0, "Normal", f, 11, 1048576, 1, 2, 3, 0);
        p->have |= OBS_MASK(OBS_VMSTAT);
        c->have |= OBS_MASK(OBS_VMSTAT);
        p->now_usec = 5 * USEC_PER_SEC;
        c->now_usec = 15 * USEC_PER_SEC;
        kv(&p->vmstat, "thp_fault_alloc", 100);
        kv(&c->vmstat, "thp_fault_alloc", UINT64_MAX);
        kv(&p->vmstat, "thp_fault_fallback", 0);
        kv(&c->vmstat, "thp_fault_fallback", 10);
        kv(&p->vmstat, "compact_stall", 10);
        kv(&c->vmstat, "compact_stall", 40);
        assert_int_equal(assess(c, p, a), 0);
        assert_true(a->rates.valid);
        assert_float_equal(a->rates.thp_fault_alloc, 0.0, 1e-9);
        assert_float_equal(a->rates.thp_fault_fallback, 1.0, 1e-9);
        assert_float_equal(a->rates.compact_stall, 3.0, 1e-9);
        assert_int_equal(a->rates.n_resets, 1);
        assert_string_equal(a->rates.reset_counter, "thp_fault_alloc");
        assert_true(a->rates.reset_to == UINT64_MAX);

        /* 2049 faults x 2 MiB = 4 GiB + 2 MiB in 1 s: more than the host */
        c->now_usec = 6 * USEC_PER_SEC;
        c->vmstat.e[0].value = 100 + 2049;
        assert_int_equal(assess(c, p, a), 0);
        assert_float_equal(a->rates.thp_fault_alloc, 0.0, 1e-9);
        assert_int_equal(a->rates.n_resets, 1);
        /* 2048 faults (exactly the host's memory) in 1 s: possible */
        c->vmstat.e[0].value = 100 + 2048;
        assert_int_equal(assess(c, p, a), 0);
        assert_float_equal(a->rates.thp_fault_alloc, 2048.0, 1e-9);
        assert_int_equal(a->rates.n_resets, 0);

        /* backwards (a per-cgroup counter reset, a new boot): a reset too */
        c->vmstat.e[0].value = 5;
        assert_int_equal(assess(c, p, a), 0);
        assert_float_equal(a->rates.thp_fault_alloc, 0.0, 1e-9);
        assert_int_equal(a->rates.n_resets, 1);
        assert_true(a->rates.reset_from == 100 && a->rates.reset_to == 5);

        /* a counter of events, not pages: 2^40 per second is the limit */
        c->now_usec = 15 * USEC_PER_SEC;
        c->vmstat.e[0].value = 100;
        c->vmstat.e[2].value = UINT64_MAX / 2;
        assert_int_equal(assess(c, p, a), 0);
        assert_float_equal(a->rates.compact_stall, 0.0, 1e-9);
        assert_string_equal(a->rates.reset_counter, "compact_stall");
        free(p);
        free(c);
        free(a);
}

static void test_rates(void **state)
{
        (void) state;
        Observation *p = obs_new(), *c = obs_new();
        Assessment *a = malloc(sizeof(*a));
        uint64_t f[11] = { 1 };

        assert_non_null(a);
        add_zone(p, 0, "DMA32", f, 11, 100, 1, 2, 3, 0);
        add_zone(c, 0, "DMA32", f, 11, 100, 1, 2, 3, 0);
        p->have |= OBS_MASK(OBS_VMSTAT) | OBS_MASK(OBS_PSI_MEMORY);
        c->have |= OBS_MASK(OBS_VMSTAT) | OBS_MASK(OBS_PSI_MEMORY);
        p->now_usec = 5 * USEC_PER_SEC;
        c->now_usec = 15 * USEC_PER_SEC;
        kv(&p->vmstat, "compact_stall", 10);
        kv(&c->vmstat, "compact_stall", 40);
        kv(&p->vmstat, "thp_fault_alloc", 100);
        kv(&c->vmstat, "thp_fault_alloc", 130);
        kv(&p->vmstat, "thp_fault_fallback", 0);
        kv(&c->vmstat, "thp_fault_fallback", 10);
        kv(&p->vmstat, "compact_migrate_scanned", 1000);
        kv(&c->vmstat, "compact_migrate_scanned", 500); /* went backwards: rate 0 */
        p->psi_memory.some.total_usec = 0;
        c->psi_memory.some.total_usec = 500000;
        /* a 4 GiB host: 30 THP faults (60 MiB) in 10 s are possible; the
         * 100-page zone alone could not have served them */
        c->have |= OBS_MASK(OBS_MEMINFO);
        kv(&c->meminfo, "MemTotal", 4194304);
        assert_int_equal(assess(c, p, a), 0);
        assert_true(a->rates.valid);
        /* (40-10)/10 s */
        assert_float_equal(a->rates.compact_stall, 3.0, 1e-9);
        /* 10 fallbacks of 40 faults */
        assert_float_equal(a->rates.thp_fallback_ratio, 0.25, 1e-9);
        assert_float_equal(a->rates.compact_migrate_scanned, 0.0, 1e-9);
        /* 0.5 s stalled in 10 s */
        assert_float_equal(a->rates.psi_some, 0.05, 1e-9);
        /* same timestamps: no rates */
        c->now_usec = p->now_usec;
        assert_int_equal(assess(c, p, a), 0);
        assert_false(a->rates.valid);
        free(p);
        free(c);
        free(a);
}

static void node_thp(Observation *o, int node, uint64_t anon, uint64_t shmem, uint64_t file)
{
        ZoneInfoNode *n = &o->zoneinfo.nodes[o->zoneinfo.n_nodes++];

        n->node = node;
        n->have_stats = n->have_thp = true;
        n->nr_anon_transparent_hugepages = anon;
        n->nr_shmem_hugepages = shmem;
        n->nr_file_hugepages = file;
}

/* Which node served the THP faults (issue 14 item 2): the huge pages mapped
 * per node, and how many more than the previous reading. */
static void test_node_thp_grown(void **state)
{
        (void) state;
        Observation *p = obs_new(), *c = obs_new();
        Assessment *a = malloc(sizeof(*a));
        uint64_t f[11] = { 1 };

        assert_non_null(a);
        add_zone(p, 0, "Normal", f, 11, 100, 1, 2, 3, 0);
        add_zone(p, 1, "Normal", f, 11, 100, 1, 2, 3, 0);
        add_zone(c, 0, "Normal", f, 11, 100, 1, 2, 3, 0);
        add_zone(c, 1, "Normal", f, 11, 100, 1, 2, 3, 0);
        node_thp(p, 0, 10, 1, 0);
        node_thp(p, 1, 50, 0, 0);
        node_thp(c, 0, 30, 2, 1); /* 33, was 11: 22 more */
        node_thp(c, 1, 40, 0, 0); /* fewer: 0 */
        assert_int_equal(assess(c, p, a), 0);
        assert_true(a->nodes[0].have_thp_count);
        assert_int_equal(a->nodes[0].thp_count, 33);
        assert_true(a->nodes[0].thp_grown_valid);
        assert_int_equal(a->nodes[0].thp_grown, 22);
        assert_int_equal(a->nodes[1].thp_count, 40);
        assert_int_equal(a->nodes[1].thp_grown, 0);
        /* no previous reading: counted, not grown */
        assert_int_equal(assess(c, NULL, a), 0);
        assert_true(a->nodes[0].have_thp_count);
        assert_false(a->nodes[0].thp_grown_valid);
        /* a kernel that does not print them */
        c->zoneinfo.nodes[0].have_thp = false;
        assert_int_equal(assess(c, p, a), 0);
        assert_false(a->nodes[0].have_thp_count);
        assert_false(a->nodes[0].thp_grown_valid);
        free(p);
        free(c);
        free(a);
}

static void test_no_buddyinfo(void **state)
{
        (void) state;
        Observation *o = calloc(1, sizeof(*o));
        Assessment *a = malloc(sizeof(*a));
        assert_int_equal(assess(o, NULL, a), -ENODATA);
        free(o);
        free(a);
}

/* The PMD order: from the THP size when it is read, else by page size */
static void test_hpage_order(void **state)
{
        static const struct {
                unsigned page;
                uint64_t pmd;
                bool have_thp;
                unsigned order;
        } cases[] = {
                { 4096, 2 << 20, true, 9 },     { 65536, 512 << 20, true, 13 }, { 16384, 32 << 20, true, 11 },
                { 4096, 0, true, 9 },           { 16384, 0, false, 11 },        { 65536, 0, false, 13 },
                { 4096, 4 << 20, false, 9 },    { 4096, 4096, true, 9 },        { 16384, 16384, true, 11 },
                { 65536, 1 << 20, true, 4 },    { 8192, 0, false, 9 },
        };
        uint64_t f[11] = { 1 };

        (void) state;
        for (unsigned i = 0; i < ELEMENTSOF(cases); i++) {
                Observation *o = obs_new();
                Assessment *a = malloc(sizeof(*a));

                assert_non_null(a);
                add_zone(o, 0, "Normal", f, 11, 1000, 1, 2, 3, 0);
                o->page_size = cases[i].page;
                o->thp.hpage_pmd_size = cases[i].pmd;
                if (cases[i].have_thp)
                        o->have |= OBS_MASK(OBS_THP);
                assert_int_equal(assess(o, NULL, a), 0);
                if (a->hpage_order != cases[i].order)
                        fail_msg("case %u: page %u pmd %llu: order %u, want %u", i, cases[i].page,
                                 (unsigned long long) cases[i].pmd, a->hpage_order, cases[i].order);
                assert_int_equal(a->pageblock_order, cases[i].order); /* no pagetypeinfo */
                free(o);
                free(a);
        }
}

/* polluted pageblocks: not Movable, of those that are neither Isolate nor
 * CMA, per node; from pagetypeinfo read now or earlier */
static void test_pagetype_polluted(void **state)
{
        Observation *o = obs_new();
        Assessment *a = malloc(sizeof(*a));
        uint64_t f[11] = { 1 };
        PageTypeInfo *p = &o->pagetype;
        static const char *const types[] = { "Unmovable", "Movable", "Reclaimable", "CMA", "Isolate", "HighAtomic" };

        (void) state;
        assert_non_null(a);
        add_zone(o, 0, "Normal", f, 11, 1000, 1, 2, 3, 0);
        add_zone(o, 1, "Normal", f, 11, 1000, 1, 2, 3, 0);
        p->pageblock_order = 10;
        p->n_types = ELEMENTSOF(types);
        for (unsigned t = 0; t < p->n_types; t++)
                strcpy(p->types[t], types[t]);
        p->n_zones = 3;
        p->zones[0] = (PageTypeZone){ .node = 0, .have_blocks = true, .blocks = { 10, 70, 15, 500, 300, 5 } };
        p->zones[1] = (PageTypeZone){ .node = 1, .have_blocks = true, .blocks = { 1, 9, 0, 0, 0, 0 } };
        p->zones[2] = (PageTypeZone){ .node = 1, .have_blocks = false, .blocks = { 90, 0, 0, 0, 0, 0 } };
        /* not read: unknown */
        assert_int_equal(assess(o, NULL, a), 0);
        assert_int_equal(a->nodes[0].polluted_blocks_permille, -1);
        assert_int_equal(a->nodes[0].blocks_total, 0);
        assert_int_equal(a->pageblock_order, 9);
        /* read now: node 0 (10 + 15 + 5) / 100, node 1 1 / 10 */
        o->have |= OBS_MASK(OBS_PAGETYPEINFO);
        o->pagetype_usec = 5;
        assert_int_equal(assess(o, NULL, a), 0);
        assert_int_equal(a->nodes[0].blocks_total, 100);
        assert_int_equal(a->nodes[0].polluted_blocks_permille, 300);
        assert_int_equal(a->nodes[1].blocks_total, 10);
        assert_int_equal(a->nodes[1].polluted_blocks_permille, 100);
        assert_int_equal(a->pageblock_order, 10);
        /* read earlier (not this tick): still used */
        o->have &= ~OBS_MASK(OBS_PAGETYPEINFO);
        assert_int_equal(assess(o, NULL, a), 0);
        assert_int_equal(a->nodes[0].polluted_blocks_permille, 300);
        /* this tick's flag without a time: used, and the block order falls
         * back to the PMD order */
        o->have |= OBS_MASK(OBS_PAGETYPEINFO);
        o->pagetype_usec = 0;
        assert_int_equal(assess(o, NULL, a), 0);
        assert_int_equal(a->nodes[0].polluted_blocks_permille, 300);
        assert_int_equal(a->pageblock_order, 9);
        /* no Movable type at all: every block polluted; no blocks: unknown */
        strcpy(p->types[1], "Movable2");
        assert_int_equal(assess(o, NULL, a), 0);
        assert_int_equal(a->nodes[0].polluted_blocks_permille, 1000);
        memset(p->zones[1].blocks, 0, sizeof(p->zones[1].blocks));
        assert_int_equal(assess(o, NULL, a), 0);
        assert_int_equal(a->nodes[1].polluted_blocks_permille, -1);
        free(o);
        free(a);
}

/* The kernel's THP defrag mode, read from transparent_hugepage/defrag
 * whether or not fragd moves it: -1 without THP or with a mode it does
 * not know, the bracketed choice otherwise */
static void test_thp_defrag_mode(void **state)
{
        Observation *o = obs_new();
        Assessment *a = malloc(sizeof(*a));
        uint64_t f[11] = { 1 };

        (void) state;
        assert_non_null(a);
        add_zone(o, 0, "Normal", f, 11, 1000, 10, 20, 30, 0);
        assert_int_equal(assess(o, NULL, a), 0);
        assert_int_equal(a->thp_defrag, -1);
        o->have |= OBS_MASK(OBS_THP);
        strcpy(o->thp.defrag, "madvise");
        assert_int_equal(assess(o, NULL, a), 0);
        assert_int_equal(a->thp_defrag, THP_DEFRAG_MADVISE);
        strcpy(o->thp.defrag, "never");
        assert_int_equal(assess(o, NULL, a), 0);
        assert_int_equal(a->thp_defrag, THP_DEFRAG_NEVER);
        strcpy(o->thp.defrag, "sometimes");
        assert_int_equal(assess(o, NULL, a), 0);
        assert_int_equal(a->thp_defrag, -1);
        o->have &= ~OBS_MASK(OBS_THP);
        strcpy(o->thp.defrag, "always");
        assert_int_equal(assess(o, NULL, a), 0);
        assert_int_equal(a->thp_defrag, -1);
        free(a);
        free(o);
}

/* watermarks under a boost larger than them read 0; proactiveness read
 * from the sysctl, clamped to 0..100, sets the score thresholds */
static void test_boost_and_proactiveness(void **state)
{
        Observation *o = obs_new();
        Assessment *a = malloc(sizeof(*a));
        uint64_t f[11] = { 1 };

        (void) state;
        assert_non_null(a);
        add_zone(o, 0, "Normal", f, 11, 1000, 10, 20, 30, 0);
        o->zoneinfo.zones[0].boost = 25; /* printed min 10, low 20, high 30 */
        assert_int_equal(assess(o, NULL, a), 0);
        assert_int_equal(a->zones[0].boost, 25);
        assert_int_equal(a->zones[0].wmark_min, 0);
        assert_int_equal(a->zones[0].wmark_low, 0);
        assert_int_equal(a->zones[0].wmark_high, 5);
        assert_int_equal(a->zones[0].headroom_pages, 1 - 30);
        assert_int_equal(a->proactiveness, -1);
        o->have |= OBS_MASK(OBS_SYSCTL);
        o->vm.present[VM_COMPACTION_PROACTIVENESS] = true;
        o->vm.value[VM_COMPACTION_PROACTIVENESS] = 150;
        assert_int_equal(assess(o, NULL, a), 0);
        assert_int_equal(a->proactiveness, 100);
        assert_int_equal(a->score_wmark_low, 0);
        assert_int_equal(a->score_wmark_high, 0);
        o->vm.value[VM_COMPACTION_PROACTIVENESS] = 20;
        assert_int_equal(assess(o, NULL, a), 0);
        assert_int_equal(a->score_wmark_low, 80);
        assert_int_equal(a->score_wmark_high, 90);
        assert_int_equal(frag_score_wmark(101, true), 0);
        assert_int_equal(frag_score_wmark(101, false), 0);
        /* a zone past the buddy lists' orders scores 100 */
        o->buddy.zones[0].n_orders = 9;
        assert_int_equal(assess(o, NULL, a), 0);
        assert_int_equal(a->zones[0].score, 100);
        free(o);
        free(a);
}

static void thp_stat(ThpSize *t, const char *name, uint64_t v)
{
        strcpy(t->stats[t->n_stats].name, name);
        t->stats[t->n_stats++].value = v;
}

/* More rates, by hand: the allocation-stall sum, isolated pages, PSI full,
 * mTHP sizes, intervals under a second, a PSI side missing */
static void test_rates_more(void **state)
{
        Observation *p = obs_new(), *c = obs_new();
        Assessment *a = malloc(sizeof(*a));
        uint64_t f[11] = { 1 };
        static const char *const stalls[] = { "allocstall_dma", "allocstall_dma32", "allocstall_normal",
                                              "allocstall_movable", "allocstall_device" };

        (void) state;
        assert_non_null(a);
        add_zone(p, 0, "Normal", f, 11, 1048576, 1, 2, 3, 0);
        add_zone(c, 0, "Normal", f, 11, 1048576, 1, 2, 3, 0);
        p->have |= OBS_MASK(OBS_VMSTAT) | OBS_MASK(OBS_PSI_MEMORY) | OBS_MASK(OBS_THP);
        c->have |= OBS_MASK(OBS_VMSTAT) | OBS_MASK(OBS_PSI_MEMORY) | OBS_MASK(OBS_THP);
        p->now_usec = 10 * USEC_PER_SEC;
        c->now_usec = 12 * USEC_PER_SEC; /* 2 s */
        for (unsigned i = 0; i < ELEMENTSOF(stalls); i++) {
                kv(&p->vmstat, stalls[i], 0);
                kv(&c->vmstat, stalls[i], 2u << i); /* 2, 4, 8, 16, 32 */
        }
        kv(&p->vmstat, "compact_isolated", 0);
        kv(&c->vmstat, "compact_isolated", 300);
        kv(&p->vmstat, "compact_daemon_migrate_scanned", 0);
        kv(&c->vmstat, "compact_daemon_migrate_scanned", 100);
        kv(&p->vmstat, "compact_daemon_free_scanned", 0);
        kv(&c->vmstat, "compact_daemon_free_scanned", 60);
        p->psi_memory.full.total_usec = 1000;
        c->psi_memory.full.total_usec = 201000;
        /* 64 KiB mTHP (16 pages): 6 allocated, 2 fallen back; 2 MiB: absent before */
        p->thp.n_sizes = 1;
        p->thp.sizes[0].size_kb = 64;
        thp_stat(&p->thp.sizes[0], "anon_fault_alloc", 10);
        thp_stat(&p->thp.sizes[0], "anon_fault_fallback", 1);
        c->thp.n_sizes = 2;
        c->thp.sizes[0].size_kb = 64;
        thp_stat(&c->thp.sizes[0], "anon_fault_alloc", 16);
        thp_stat(&c->thp.sizes[0], "anon_fault_fallback", 3);
        c->thp.sizes[1].size_kb = 2048;
        assert_int_equal(assess(c, p, a), 0);
        assert_float_equal(a->rates.interval_sec, 2.0, 1e-12);
        assert_float_equal(a->rates.allocstall, 31.0, 1e-9); /* 62 / 2 s */
        assert_float_equal(a->rates.compact_isolated, 150.0, 1e-9);
        assert_float_equal(a->rates.compact_daemon_scanned, 80.0, 1e-9);
        assert_float_equal(a->rates.psi_full, 0.1, 1e-9); /* 0.2 s of 2 s */
        assert_float_equal(a->rates.psi_some, 0.0, 1e-9);
        assert_int_equal(a->rates.n_mthp, 1);
        assert_int_equal(a->rates.mthp_size_kb[0], 64);
        assert_float_equal(a->rates.mthp_fallback_ratio[0], 0.25, 1e-9);
        assert_float_equal(a->rates.thp_fallback_ratio, -1.0, 1e-12); /* no PMD faults: none */
        /* a PSI side missing: no PSI rates */
        p->have &= ~OBS_MASK(OBS_PSI_MEMORY);
        assert_int_equal(assess(c, p, a), 0);
        assert_float_equal(a->rates.psi_full, 0.0, 1e-12);
        p->have |= OBS_MASK(OBS_PSI_MEMORY);
        c->have &= ~OBS_MASK(OBS_PSI_MEMORY);
        assert_int_equal(assess(c, p, a), 0);
        assert_float_equal(a->rates.psi_full, 0.0, 1e-12);
        /* more stall than time: clamped to 1 */
        c->have |= OBS_MASK(OBS_PSI_MEMORY);
        c->psi_memory.full.total_usec = 9000000;
        assert_int_equal(assess(c, p, a), 0);
        assert_float_equal(a->rates.psi_full, 1.0, 1e-12);
        /* a THP side missing: no mTHP rates */
        p->have &= ~OBS_MASK(OBS_THP);
        assert_int_equal(assess(c, p, a), 0);
        assert_int_equal(a->rates.n_mthp, 0);
        /* half a second: the event limit is that of one second (2^40),
         * 2^39 + 1 events are possible, 2^40 + 1 are not */
        c->now_usec = p->now_usec + USEC_PER_SEC / 2;
        kv(&p->vmstat, "compact_stall", 0);
        kv(&c->vmstat, "compact_stall", (1ULL << 40));
        assert_int_equal(assess(c, p, a), 0);
        assert_float_equal(a->rates.compact_stall, 2199023255552.0, 1.0);
        c->vmstat.e[c->vmstat.n - 1].value = (1ULL << 40) + 1;
        assert_int_equal(assess(c, p, a), 0);
        assert_float_equal(a->rates.compact_stall, 0.0, 1e-12);
        assert_string_equal(a->rates.reset_counter, "compact_stall");
        free(p);
        free(c);
        free(a);
}

/* assess() fills the Assessment afresh and sums a node's zones, by hand */
static void test_assess_sums(void **state)
{
        Observation *o = obs_new();
        Assessment *a = malloc(sizeof(*a));
        uint64_t f0[11] = { 10, 0, 0, 0, 0, 0, 0, 0, 0, 2 }, f1[11] = { 4, 2 };

        (void) state;
        assert_non_null(a);
        add_zone(o, 0, "DMA32", f0, 10, 1000, 5, 6, 7, 1);
        add_zone(o, 1, "Normal", f1, 2, 3000, 20, 30, 40, 0);
        add_zone(o, 0, "Normal", f1, 2, 2000, 10, 12, 14, 2);
        o->buddy.n_orders = 10;
        o->buddy.zones[1].nr_free[2] = 99; /* past that zone's two orders: not counted */
        o->zoneinfo.n_nodes = 1;
        o->zoneinfo.nodes[0] = (ZoneInfoNode){ .node = 1, .have_stats = true, .nr_inactive_file = 100,
                                               .nr_active_file = 20, .nr_slab_reclaimable = 3,
                                               .nr_inactive_anon = 1000 };
        /* an Assessment reused from a tick that read PSI (the daemon keeps
         * one): this tick has none, and none is reported */
        memset(a, 0x5a, sizeof(*a));
        assert_int_equal(assess(o, NULL, a), 0);
        assert_int_equal(a->n_workloads, 0);
        assert_int_equal(a->unmeasured, 0);
        assert_int_equal(a->psi_some_avg10_permyriad, 0);
        assert_int_equal(a->psi_full_avg10_permyriad, 0);
        assert_int_equal(a->n_nodes, 2);
        assert_int_equal(a->n_zones, 3);
        /* node 0 keeps its zones together: DMA32 then Normal */
        assert_int_equal(a->nodes[0].node, 0);
        assert_int_equal(a->nodes[0].zone_first, 0);
        assert_int_equal(a->nodes[0].n_zones, 2);
        assert_string_equal(a->zones[1].zone, "Normal");
        assert_int_equal(a->zones[1].node, 0);
        assert_int_equal(a->nodes[0].managed_pages, 3000);
        assert_int_equal(a->nodes[0].present_pages, 3000);
        assert_int_equal(a->nodes[0].boost, 3);
        assert_int_equal(a->nodes[0].wmark_min, 15);
        assert_int_equal(a->nodes[0].wmark_low, 18);
        assert_int_equal(a->nodes[0].wmark_high, 21);
        /* free: DMA32 10 + 2 x 512 = 1034, Normal 4 + 2 x 2 = 8 */
        assert_int_equal(a->nodes[0].free_pages, 1042);
        assert_int_equal(a->nodes[0].free_pages_ge[1], 1024 + 4);
        assert_int_equal(a->nodes[0].free_pages_ge[9], 1024);
        assert_int_equal(a->zones[2].free_pages, 8);
        assert_int_equal(a->zones[2].free_pages_ge[2], 0);
        assert_int_equal(a->zones[2].free_blocks, 6);
        /* scores: DMA32 (10 pages of 1034 below order 9) 0; the small
         * zones have no order 9: 100. Node 0: 1000 x 0 / 3001 + 2000 x 100
         * / 3001 = 66; node 1: 3000 x 100 / 3001 = 99 */
        assert_int_equal(a->zones[0].score, 0);
        assert_int_equal(a->nodes[0].frag_score, 66);
        assert_int_equal(a->nodes[1].frag_score, 99);
        assert_int_equal(a->nodes[1].reclaimable_pages, 123);
        assert_int_equal(a->nodes[0].reclaimable_pages, 0);
        assert_true(a->nodes[1].have_reclaimable);
        assert_false(a->nodes[0].have_reclaimable);
        /* without zoneinfo: unmeasured, scores weighted by free pages:
         * node 0 (1034 x 0 + 8 x 100) / 1042 = 0 */
        o->have &= ~OBS_MASK(OBS_ZONEINFO);
        assert_int_equal(assess(o, NULL, a), 0);
        assert_int_equal(a->unmeasured, OBS_MASK(OBS_ZONEINFO));
        assert_int_equal(a->nodes[0].frag_score, 0);
        assert_int_equal(a->nodes[1].frag_score, 100);
        assert_int_equal(a->nodes[1].reclaimable_pages, 0);
        assert_false(a->nodes[1].have_reclaimable);
        assert_int_equal(a->nodes[0].managed_pages, 0);
        free(o);
        free(a);
}

/* more nodes than FRAGD_MAX_NODES: the rest are left out */
static void test_assess_too_many_nodes(void **state)
{
        Observation *o = obs_new();
        Assessment *a = malloc(sizeof(*a));
        uint64_t f[11] = { 1 };

        (void) state;
        assert_non_null(a);
        for (int i = 0; i < FRAGD_MAX_NODES + 1 && o->buddy.n_zones < FRAGD_MAX_ZONES; i++)
                add_zone(o, i, "Normal", f, 11, 100, 1, 2, 3, 0);
        assert_int_equal(assess(o, NULL, a), 0);
        assert_true(a->n_nodes <= FRAGD_MAX_NODES);
        for (unsigned i = 0; i < a->n_nodes; i++)
                assert_int_equal(a->nodes[i].node, (int) i);
        free(o);
        free(a);
}

/* Edges of the measures, each worked out by hand (mutation testing,
 * docs/policy.md): exact divisions, watermarks under a boost larger than
 * high, one node for two zones, a pagetypeinfo entry past n_zones. */
static void test_measure_edges(void **state)
{
        (void) state;
        /* nr_free = {2}, order 1: free 2 pages in 2 blocks, none suitable:
         * 1000 - (1000 + 2*1000/2) / 2 = 1000 - 2000/2 = 0 */
        static const uint64_t two[2] = { 2, 0 };
        assert_int_equal(fragmentation_index_permille(two, 2, 1), 0);

        Observation *o = obs_new();
        Assessment *a = malloc(sizeof(*a));
        uint64_t f[11] = { 1 };
        PageTypeInfo *p = &o->pagetype;

        assert_non_null(a);
        add_zone(o, 0, "DMA32", f, 11, 1000, 10, 20, 30, 0);
        add_zone(o, 0, "Normal", f, 11, 1000, 10, 20, 30, 0);
        o->zoneinfo.zones[1].boost = 40; /* printed min 10, low 20, high 30, all < 40 */
        strcpy(p->types[0], "Unmovable");
        strcpy(p->types[1], "Movable");
        p->n_types = 2;
        p->n_zones = 1;
        p->zones[0] = (PageTypeZone){ .node = 0, .have_blocks = true, .blocks = { 0, 10 } };
        /* past n_zones: not read */
        p->zones[1] = (PageTypeZone){ .node = 0, .have_blocks = true, .blocks = { 10, 0 } };
        o->have |= OBS_MASK(OBS_PAGETYPEINFO);
        o->pagetype_usec = 5;
        p->pageblock_order = 0; /* not printed: the PMD order, 9 for 4 KiB pages */
        o->have |= OBS_MASK(OBS_SYSCTL);
        o->vm.present[VM_COMPACTION_PROACTIVENESS] = true;
        o->vm.value[VM_COMPACTION_PROACTIVENESS] = -5; /* clamped to 0 */
        assert_int_equal(assess(o, NULL, a), 0);
        assert_int_equal(a->n_nodes, 1);
        assert_int_equal(a->nodes[0].n_zones, 2);
        assert_int_equal(a->zones[1].wmark_min, 0);
        assert_int_equal(a->zones[1].wmark_low, 0);
        assert_int_equal(a->zones[1].wmark_high, 0);
        /* blocks: 0 polluted of 10 */
        assert_int_equal(a->nodes[0].blocks_total, 10);
        assert_int_equal(a->nodes[0].polluted_blocks_permille, 0);
        assert_int_equal(a->pageblock_order, 9);
        assert_int_equal(a->proactiveness, 0);
        free(o);
        free(a);
}

/* THP counts: a node whose stats were not printed has no count; a
 * previous reading without the node gives no growth */
static void test_node_thp_missing(void **state)
{
        (void) state;
        Observation *p = obs_new(), *c = obs_new();
        Assessment *a = malloc(sizeof(*a));
        uint64_t f[11] = { 1 };

        assert_non_null(a);
        add_zone(p, 0, "Normal", f, 11, 100, 1, 2, 3, 0);
        add_zone(c, 0, "Normal", f, 11, 100, 1, 2, 3, 0);
        node_thp(c, 0, 30, 0, 0);
        /* prev has no zoneinfo node 0 */
        assert_int_equal(assess(c, p, a), 0);
        assert_true(a->nodes[0].have_thp_count);
        assert_int_equal(a->nodes[0].thp_count, 30);
        assert_false(a->nodes[0].thp_grown_valid);
        c->zoneinfo.nodes[0].have_stats = false;
        assert_int_equal(assess(c, p, a), 0);
        assert_false(a->nodes[0].have_thp_count);
        free(p);
        free(c);
        free(a);
}

/* Polluting fallbacks between two readings of the extfrag hist: the
 * difference and the interval; none when either reading lacks the hist or
 * a count went back (the trace instance made anew) */
static void test_pollution_extfrag(void **state)
{
        (void) state;
        Observation *p = obs_new(), *c = obs_new();
        Assessment *a = malloc(sizeof(*a));
        uint64_t f[11] = { 1 };

        assert_non_null(a);
        add_zone(p, 0, "Normal", f, 11, 100, 1, 2, 3, 0);
        add_zone(c, 0, "Normal", f, 11, 100, 1, 2, 3, 0);
        p->now_usec = 10 * USEC_PER_SEC;
        c->now_usec = 15 * USEC_PER_SEC;
        p->have |= OBS_MASK(OBS_PAGECACHE);
        c->have |= OBS_MASK(OBS_PAGECACHE);
        p->extfrag = (ExtfragHist) { .valid = true, .fallbacks = 100, .polluting = 10 };
        c->extfrag = (ExtfragHist) { .valid = true, .fallbacks = 160, .polluting = 17 };
        assert_int_equal(assess(c, p, a), 0);
        assert_true(a->pollution.extfrag_valid);
        assert_int_equal(a->pollution.extfrag_polluting, 7);
        assert_int_equal(a->pollution.extfrag_fallbacks, 60);
        assert_true(a->pollution.extfrag_interval_sec > 4.99 && a->pollution.extfrag_interval_sec < 5.01);
        /* no pagetypeinfo read: no block counts */
        assert_int_equal(a->pollution.blocks_usec, 0);
        assert_int_equal(a->pollution.blocks_total, 0);
        /* a count went back */
        c->extfrag.polluting = 9;
        assert_int_equal(assess(c, p, a), 0);
        assert_false(a->pollution.extfrag_valid);
        /* the previous reading had no hist */
        c->extfrag.polluting = 17;
        p->extfrag.valid = false;
        assert_int_equal(assess(c, p, a), 0);
        assert_false(a->pollution.extfrag_valid);
        /* no previous reading */
        p->extfrag.valid = true;
        assert_int_equal(assess(c, NULL, a), 0);
        assert_false(a->pollution.extfrag_valid);
        free(p);
        free(c);
        free(a);
}

/* Rate limits by the host's memory: none when the memory is unknown; a
 * 4 KiB mTHP size takes 1 page per fault; a fallback ratio under 1/s */
static void test_rates_mem_limit(void **state)
{
        (void) state;
        Observation *p = calloc(1, sizeof(*p)), *c = calloc(1, sizeof(*c));
        Assessment *a = malloc(sizeof(*a));

        assert_non_null(p);
        assert_non_null(c);
        assert_non_null(a);
        /* no zones, no MemTotal: the host's size is unknown (0 pages) */
        p->page_size = c->page_size = 4096;
        p->have = c->have = OBS_MASK(OBS_BUDDYINFO) | OBS_MASK(OBS_VMSTAT);
        p->now_usec = 10 * USEC_PER_SEC;
        c->now_usec = 20 * USEC_PER_SEC; /* 10 s */
        kv(&p->vmstat, "thp_fault_alloc", 0);
        kv(&c->vmstat, "thp_fault_alloc", 10);
        kv(&p->vmstat, "thp_fault_fallback", 0);
        kv(&c->vmstat, "thp_fault_fallback", 0);
        assert_int_equal(assess(c, p, a), 0);
        /* 10 / 10 s, no memory limit */
        assert_float_equal(a->rates.thp_fault_alloc, 1.0, 1e-12);
        assert_int_equal(a->rates.n_resets, 0);
        /* alloc 0, fallback 5 in 10 s: 0.5 / (0 + 0.5) = 1 */
        c->vmstat.e[0].value = 0;
        c->vmstat.e[1].value = 5;
        assert_int_equal(assess(c, p, a), 0);
        assert_float_equal(a->rates.thp_fallback_ratio, 1.0, 1e-12);
        free(p);
        free(c);

        /* 100 pages of memory, a 4 KiB mTHP size (4*1024/4096 = 1 page a
         * fault): at most 100/1 * 1 s = 100 faults in 1 s */
        p = obs_new();
        c = obs_new();
        uint64_t f[11] = { 1 };
        add_zone(p, 0, "Normal", f, 11, 100, 1, 2, 3, 0);
        add_zone(c, 0, "Normal", f, 11, 100, 1, 2, 3, 0);
        p->have |= OBS_MASK(OBS_VMSTAT) | OBS_MASK(OBS_THP);
        c->have |= OBS_MASK(OBS_VMSTAT) | OBS_MASK(OBS_THP);
        p->now_usec = 10 * USEC_PER_SEC;
        c->now_usec = 11 * USEC_PER_SEC;
        p->thp.n_sizes = c->thp.n_sizes = 1;
        p->thp.sizes[0].size_kb = c->thp.sizes[0].size_kb = 4;
        thp_stat(&p->thp.sizes[0], "anon_fault_alloc", 0);
        thp_stat(&p->thp.sizes[0], "anon_fault_fallback", 0);
        thp_stat(&c->thp.sizes[0], "anon_fault_alloc", 101);
        thp_stat(&c->thp.sizes[0], "anon_fault_fallback", 1);
        assert_int_equal(assess(c, p, a), 0);
        /* 101 > 100: a reset, alloc 0; fallback 1: ratio 1 / (0 + 1) */
        assert_int_equal(a->rates.n_resets, 1);
        assert_string_equal(a->rates.reset_counter, "anon_fault_alloc");
        assert_float_equal(a->rates.mthp_fallback_ratio[0], 1.0, 1e-12);
        /* 100: possible, ratio 1 / (100 + 1) */
        c->thp.sizes[0].stats[0].value = 100;
        assert_int_equal(assess(c, p, a), 0);
        assert_int_equal(a->rates.n_resets, 0);
        assert_float_equal(a->rates.mthp_fallback_ratio[0], 1.0 / 101.0, 1e-12);
        free(p);
        free(c);
        free(a);
}

/* Node scores at their bounds: weighted by free pages without zoneinfo
 * (one free page of score 100: 1 * 100 / 1 = 100), capped at 100 when a
 * corrupt buddyinfo lists a zone twice; a reading without page-cache
 * numbers leaves none from before (the daemon reuses its Assessment). */
static void test_node_score_bounds(void **state)
{
        (void) state;
        Observation *o = obs_new();
        Assessment *a = malloc(sizeof(*a));
        uint64_t one[11] = { 1 };

        assert_non_null(a);
        memset(a, 0xff, sizeof(*a)); /* last tick's leftovers */
        add_zone(o, 0, "Normal", one, 11, 1000, 1, 2, 3, 0);
        o->have &= ~OBS_MASK(OBS_ZONEINFO);
        assert_int_equal(assess(o, NULL, a), 0);
        /* 1 single page, order 9 unusable: zone score 100 */
        assert_int_equal(a->zones[0].score, 100);
        assert_int_equal(a->nodes[0].frag_score, 100);
        assert_false(a->pagecache.valid);
        assert_int_equal(a->pagecache.bytes_total[0], 0);
        /* the zone twice in buddyinfo, once (1000 pages) in zoneinfo:
         * 2 x 1000 * 100 / 1001 = 2 x 99 = 198, capped at 100 */
        o->have |= OBS_MASK(OBS_ZONEINFO);
        BuddyZone *b = &o->buddy.zones[o->buddy.n_zones++];
        *b = o->buddy.zones[0];
        assert_int_equal(assess(o, NULL, a), 0);
        assert_int_equal(a->nodes[0].n_zones, 2);
        assert_int_equal(a->nodes[0].frag_score, 100);
        free(o);
        free(a);
}

/* The page-cache hist (policy/metrics.c pagecache_measures()): bytes per
 * order from folio counts, and what was added since the previous reading.
 * prev: order 0 100, order 6 10 folios; cur, 2 s later: 150 and 14. Bytes
 * (4 KiB pages): order 0 150 x 4096 = 614400, order 6 14 x 262144 =
 * 3670016; added: 50 x 4096 = 204800 and 4 x 262144 = 1048576, over 2 s.
 * A count that went back (the instance made anew), a reading not later
 * than the previous, or a previous without the hist: totals, no delta. A
 * count past what bytes can hold saturates. */
static void test_pagecache_measures(void **state)
{
        Observation *prev = obs_new(), *cur = obs_new();
        Assessment *a = malloc(sizeof(*a));
        uint64_t f[11] = { 10 };

        (void) state;
        assert_non_null(a);
        add_zone(prev, 0, "Normal", f, 11, 1000, 5, 6, 7, 0);
        add_zone(cur, 0, "Normal", f, 11, 1000, 5, 6, 7, 0);
        prev->have |= OBS_MASK(OBS_PAGECACHE);
        cur->have |= OBS_MASK(OBS_PAGECACHE);
        prev->now_usec = 10 * USEC_PER_SEC;
        cur->now_usec = 12 * USEC_PER_SEC;
        prev->pagecache.folios[0] = 100;
        prev->pagecache.folios[6] = 10;
        cur->pagecache.folios[0] = 150;
        cur->pagecache.folios[6] = 14;

        assert_int_equal(assess(cur, prev, a), 0);
        assert_true(a->pagecache.valid);
        assert_int_equal(a->pagecache.bytes_total[0], 614400);
        assert_int_equal(a->pagecache.bytes_total[6], 3670016);
        assert_int_equal(a->pagecache.bytes_total[5], 0);
        assert_true(a->pagecache.delta_valid);
        assert_int_equal(a->pagecache.bytes_delta[0], 204800);
        assert_int_equal(a->pagecache.bytes_delta[6], 1048576);
        assert_int_equal(a->pagecache.bytes_delta[5], 0);
        assert_true(a->pagecache.interval_sec == 2.0);

        /* unchanged counts: a delta of 0, still valid */
        assert_int_equal(assess(cur, cur, a), 0);
        assert_false(a->pagecache.delta_valid); /* not later than itself */
        prev->pagecache.folios[0] = 150;
        prev->pagecache.folios[6] = 14;
        assert_int_equal(assess(cur, prev, a), 0);
        assert_true(a->pagecache.delta_valid);
        assert_int_equal(a->pagecache.bytes_delta[6], 0);

        /* kswapd's wake-ups: a delta only when both readings had them
         * and none went back */
        assert_false(a->pagecache.wake_valid);
        prev->kswapd_wake.valid = cur->kswapd_wake.valid = true;
        prev->kswapd_wake.counts[6] = 4;
        cur->kswapd_wake.counts[6] = 9;
        cur->kswapd_wake.counts[9] = 2;
        assert_int_equal(assess(cur, prev, a), 0);
        assert_true(a->pagecache.wake_valid);
        assert_int_equal(a->pagecache.kswapd_wakeups_delta[6], 5);
        assert_int_equal(a->pagecache.kswapd_wakeups_delta[9], 2);
        prev->kswapd_wake.counts[9] = 3;
        assert_int_equal(assess(cur, prev, a), 0);
        assert_true(a->pagecache.delta_valid);
        assert_false(a->pagecache.wake_valid);
        assert_int_equal(a->pagecache.kswapd_wakeups_delta[6], 0);
        prev->kswapd_wake.valid = false;
        prev->kswapd_wake.counts[9] = 0;
        assert_int_equal(assess(cur, prev, a), 0);
        assert_false(a->pagecache.wake_valid);
        /* the failed allocations: the same rule, apart from the wake-ups */
        assert_false(a->pagecache.fail_valid);
        prev->alloc_fail.valid = cur->alloc_fail.valid = true;
        prev->alloc_fail.counts[6] = 100;
        cur->alloc_fail.counts[6] = 130;
        assert_int_equal(assess(cur, prev, a), 0);
        assert_true(a->pagecache.fail_valid);
        assert_false(a->pagecache.wake_valid);
        assert_int_equal(a->pagecache.alloc_fail_delta[6], 30);
        assert_true(a->pagecache.fail_total_valid);
        assert_int_equal(a->pagecache.alloc_fail_total[6], 130);
        /* the trigger set again (a scope re-made): counts from 0, no delta;
         * the totals are this reading's */
        cur->alloc_fail.counts[6] = 3;
        assert_int_equal(assess(cur, prev, a), 0);
        assert_false(a->pagecache.fail_valid);
        assert_int_equal(a->pagecache.alloc_fail_delta[6], 0);
        assert_true(a->pagecache.fail_total_valid);
        assert_int_equal(a->pagecache.alloc_fail_total[6], 3);
        cur->alloc_fail.valid = false;
        assert_int_equal(assess(cur, prev, a), 0);
        assert_false(a->pagecache.fail_valid);
        assert_false(a->pagecache.fail_total_valid);
        assert_int_equal(a->pagecache.alloc_fail_total[6], 0);

        /* order 6 went back (15 -> 14): totals, no delta */
        prev->pagecache.folios[6] = 15;
        assert_int_equal(assess(cur, prev, a), 0);
        assert_true(a->pagecache.valid);
        assert_int_equal(a->pagecache.bytes_total[6], 3670016);
        assert_false(a->pagecache.delta_valid);
        assert_int_equal(a->pagecache.bytes_delta[0], 0);
        prev->pagecache.folios[6] = 14;

        /* a previous reading without the hist, and none at all */
        prev->have &= ~OBS_MASK(OBS_PAGECACHE);
        assert_int_equal(assess(cur, prev, a), 0);
        assert_true(a->pagecache.valid);
        assert_false(a->pagecache.delta_valid);
        assert_int_equal(assess(cur, NULL, a), 0);
        assert_true(a->pagecache.valid);
        assert_false(a->pagecache.delta_valid);

        /* no hist this tick: not valid */
        cur->have &= ~OBS_MASK(OBS_PAGECACHE);
        assert_int_equal(assess(cur, NULL, a), 0);
        assert_false(a->pagecache.valid);

        /* a page size of 0 reads as 4 KiB; a count too large saturates */
        cur->have |= OBS_MASK(OBS_PAGECACHE);
        cur->page_size = 0;
        cur->pagecache.folios[9] = UINT64_MAX / 2;
        assert_int_equal(assess(cur, NULL, a), 0);
        assert_int_equal(a->pagecache.bytes_total[0], 614400);
        assert_int_equal(a->pagecache.bytes_total[9], UINT64_MAX);
        /* exactly the largest count that fits: 2^64 / 2^21 - 1 folios */
        cur->pagecache.folios[9] = UINT64_MAX >> 21;
        assert_int_equal(assess(cur, NULL, a), 0);
        assert_int_equal(a->pagecache.bytes_total[9], (UINT64_MAX >> 21) << 21);
        free(prev);
        free(cur);
        free(a);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_unusable_index), cmocka_unit_test(test_fragmentation_index),
                cmocka_unit_test(test_extfrag),        cmocka_unit_test(test_score_wmark),
                cmocka_unit_test(test_node_score),     cmocka_unit_test(test_nodes_grouped),
                cmocka_unit_test(test_rates),
                cmocka_unit_test(test_rates_impossible_jump),
                cmocka_unit_test(test_no_buddyinfo),
                cmocka_unit_test(test_node_thp_grown),
                cmocka_unit_test(test_hpage_order),
                cmocka_unit_test(test_pagetype_polluted),
                cmocka_unit_test(test_boost_and_proactiveness),
                cmocka_unit_test(test_thp_defrag_mode),
                cmocka_unit_test(test_rates_more),
                cmocka_unit_test(test_assess_sums),
                cmocka_unit_test(test_pagecache_measures),
                cmocka_unit_test(test_assess_too_many_nodes),
                cmocka_unit_test(test_measure_edges),
                cmocka_unit_test(test_node_thp_missing),
                cmocka_unit_test(test_rates_mem_limit),
                cmocka_unit_test(test_pollution_extfrag),
                cmocka_unit_test(test_node_score_bounds),
        };
        return cmocka_run_group_tests_name("metrics", tests, NULL, NULL);
}
