/* SPDX-License-Identifier: GPL-2.0-or-later */
/* observation_read / obs_source_name: the dispatch, the have bits, the
 * per-source errors. Source contents are checked in each source's test;
 * here only a value per source shows the slot was filled. */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "parser-test-util.h"
#include "fragd/obs.h"
#include "sources/observe.h"

static Observation *obs_new(void)
{
        Observation *o = calloc(1, sizeof(*o));

        assert_non_null(o);
        return o;
}

static void test_source_names(void **state)
{
        static const char *const names[] = {
                "buddyinfo", "zoneinfo", "pagetypeinfo", "vmstat", "meminfo",
                "psi_memory", "thp", "sysctl", "nodes", "thp_full", "pagecache",
        };

        assert_int_equal(ELEMENTSOF(names), _OBS_SOURCE_MAX);
        for (unsigned s = 0; s < _OBS_SOURCE_MAX; s++)
                assert_string_equal(obs_source_name(s), names[s]);
        assert_null(obs_source_name(_OBS_SOURCE_MAX));
}

/* 1node-pressure: every source is there. Values: MemTotal 983496
 * (grep MemTotal proc/meminfo), memory PSI some avg10 70.02, THP enabled
 * [always], min_free_kbytes 45056, one node. */
static void test_all_sources(void **state)
{
        Root *root = fixture_root("vm-6.1-x86_64-1node-pressure");
        Observation *o = obs_new();

        assert_int_equal(observation_read(root, OBS_ALL, 12345, o), 0);
        assert_int_equal(o->now_usec, 12345);
        assert_int_equal(o->page_size, 4096);
        assert_int_equal(o->have, OBS_ALL);
        for (unsigned s = 0; s < _OBS_SOURCE_MAX; s++)
                assert_int_equal(o->err[s], 0);
        assert_int_equal(o->pagetype_usec, 12345);
        assert_true(o->buddy.n_zones > 0);
        assert_true(o->zoneinfo.n_zones > 0);
        assert_true(o->pagetype.n_zones > 0);
        assert_int_equal(kv_get_or(&o->meminfo, "MemTotal", 0), 983496);
        assert_int_equal(kv_get_or(&o->vmstat, "nr_free_pages", 0), 15838);
        assert_int_equal(o->psi_memory.some.avg10_permyriad, 7002);
        assert_string_equal(o->thp.enabled, "always");
        assert_true(o->vm.present[VM_MIN_FREE_KBYTES]);
        assert_int_equal(o->vm.value[VM_MIN_FREE_KBYTES], 45056);
        assert_int_equal(o->nodes.n_nodes, 1);
        root_free(root);
        free(o);
}

/* Only the masked sources are read; the rest stay as they were. */
static void test_mask(void **state)
{
        Root *root = fixture_root("vm-6.1-x86_64-2node-fresh");
        Observation *o = obs_new();

        o->pagetype_usec = 7;
        assert_int_equal(observation_read(root, OBS_PER_TICK, 100, o), 0);
        /* the first THP read is a full one, and says so */
        assert_int_equal(o->have, OBS_PER_TICK | OBS_MASK(OBS_THP_FULL));
        assert_int_equal(o->pagetype_usec, 7);
        assert_int_equal(o->pagetype.n_zones, 0);
        assert_int_equal(o->nodes.n_nodes, 0);
        /* now pagetypeinfo alone: buddyinfo still good from before -> 0 */
        assert_int_equal(observation_read(root, OBS_MASK(OBS_PAGETYPEINFO), 200, o), 0);
        assert_int_equal(o->pagetype_usec, 200);
        assert_int_equal(o->now_usec, 200);
        assert_int_equal(o->have, OBS_PER_TICK | OBS_MASK(OBS_THP_FULL) | OBS_MASK(OBS_PAGETYPEINFO));
        root_free(root);
        free(o);
}

/* After a full read, OBS_THP refreshes only sizes that can fault: on the 6.18
 * host enabled=madvise, hugepages-2048kB is "inherit" (active) and
 * hugepages-64kB is "never" (left as it was). */
static void test_thp_refresh(void **state)
{
        Root *root = fixture_root("host-6.18-x86_64");
        Observation *o = obs_new();
        ThpSize *big, *small;
        uint64_t a2048, a64;

        (void) state;
        assert_int_equal(observation_read(root, OBS_MASK(OBS_BUDDYINFO) | OBS_MASK(OBS_THP), 1, o), 0);
        assert_true(o->have & OBS_MASK(OBS_THP_FULL));
        big = (ThpSize *) thp_find_size(&o->thp, 2048);
        small = (ThpSize *) thp_find_size(&o->thp, 64);
        assert_non_null(big);
        assert_non_null(small);
        assert_string_equal(big->enabled, "inherit");
        assert_string_equal(small->enabled, "never");
        a2048 = thp_size_stat(big, "anon_fault_alloc", 999);
        a64 = thp_size_stat(small, "anon_fault_alloc", 999);
        assert_int_not_equal(a2048, 999);
        /* poison both in memory; the refresh must put back only the active one */
        for (unsigned i = 0; i < big->n_stats; i++)
                if (strcmp(big->stats[i].name, "anon_fault_alloc") == 0)
                        big->stats[i].value = 123456789;
        for (unsigned i = 0; i < small->n_stats; i++)
                if (strcmp(small->stats[i].name, "anon_fault_alloc") == 0)
                        small->stats[i].value = 123456789;
        o->thp.enabled[0] = 'X';
        assert_int_equal(observation_read(root, OBS_MASK(OBS_THP), 2, o), 0);
        assert_string_equal(o->thp.enabled, "madvise");
        assert_int_equal(thp_size_stat(big, "anon_fault_alloc", 0), a2048);
        assert_int_equal(thp_size_stat(small, "anon_fault_alloc", 0), 123456789);
        (void) a64;
        /* OBS_THP_FULL re-reads everything */
        assert_int_equal(observation_read(root, OBS_MASK(OBS_THP_FULL), 3, o), 0);
        assert_int_equal(thp_size_stat(small, "anon_fault_alloc", 0), a64);
        root_free(root);
        free(o);
}

/* synthetic-minimal has no buddyinfo, PSI or THP: errors recorded, have
 * bits cleared, the others still read, and the buddyinfo error returned. */
static void test_missing_sources(void **state)
{
        Root *root = fixture_root("synthetic-minimal");
        Observation *o = obs_new();

        o->have = OBS_ALL; /* stale bits from an earlier pass */
        assert_int_equal(observation_read(root, OBS_ALL, 1, o), -ENOENT);
        assert_int_equal(o->err[OBS_BUDDYINFO], -ENOENT);
        assert_int_equal(o->err[OBS_PSI_MEMORY], -EOPNOTSUPP);
        assert_int_equal(o->err[OBS_THP], -EOPNOTSUPP);
        assert_int_equal(o->err[OBS_VMSTAT], 0);
        assert_int_equal(o->err[OBS_MEMINFO], 0);
        assert_int_equal(o->err[OBS_SYSCTL], 0);
        assert_int_equal(o->err[OBS_NODES], 0);
        assert_int_equal(o->have, OBS_MASK(OBS_VMSTAT) | OBS_MASK(OBS_MEMINFO) | OBS_MASK(OBS_SYSCTL) |
                                          OBS_MASK(OBS_NODES));
        assert_int_equal(o->pagetype_usec, 0);
        assert_int_equal(o->nodes.mem_total_kb[0], 2000000);

        /* nothing in the mask and no buddyinfo ever: -ENOENT kept */
        assert_int_equal(observation_read(root, 0, 2, o), -ENOENT);
        root_free(root);

        /* a fresh observation with an empty mask */
        memset(o, 0, sizeof(*o));
        root = fixture_root("synthetic-minimal");
        assert_int_equal(observation_read(root, 0, 2, o), -ENODATA);
        assert_int_equal(observation_read(NULL, 0, 2, o), -EINVAL);
        root_free(root);
        free(o);
}

/* ---- observation_check(): issue 11 item 11 ------------------------------ */

/* 2node-fresh read whole, then bent by each test and checked again */
static Observation *fresh_2node(void)
{
        Root *root = fixture_root("vm-6.1-x86_64-2node-fresh");
        Observation *o = obs_new();

        assert_int_equal(observation_read(root, OBS_ALL, 1, o), 0);
        root_free(root);
        assert_int_equal(o->have, OBS_ALL);
        assert_int_equal(o->n_problems, 0);
        assert_int_equal(o->rejected, 0);
        return o;
}

static bool problem_has(const Observation *o, const char *a, const char *b)
{
        for (unsigned i = 0; i < o->n_problems; i++)
                if (strstr(o->problems[i], a) && (!b || strstr(o->problems[i], b)))
                        return true;
        return false;
}

static void assert_rejected(Observation *o, ObsSource s, int err)
{
        assert_false(o->have & OBS_MASK(s));
        assert_true(o->rejected & OBS_MASK(s));
        assert_int_equal(o->err[s], err);
        assert_true(observation_missing(o, OBS_ALL) & OBS_MASK(s));
}

/* counts near 2^64 wrapped the byte totals (score 0/100) */
static void test_check_buddyinfo_overflow(void **state)
{
        Observation *o = fresh_2node();

        o->buddy.zones[0].nr_free[10] = UINT64_MAX;
        observation_check(o);
        assert_rejected(o, OBS_BUDDYINFO, -ERANGE);
        assert_true(problem_has(o, "'/proc/buddyinfo': Node 0, zone DMA:", "reading rejected"));

        /* no wrap, but more than the zone holds (present 3998 pages) */
        o->have = OBS_ALL;
        o->buddy.zones[0].nr_free[10] = 1000;
        observation_check(o);
        assert_rejected(o, OBS_BUDDYINFO, -EBADMSG);
        assert_true(problem_has(o, "Node 0, zone DMA: 1024640 free pages",
                                "more than the zone's 3998 present pages"));

        /* without zoneinfo: more than MemTotal (4015116 kB) */
        o->have = OBS_ALL & ~OBS_MASK(OBS_ZONEINFO);
        o->buddy.zones[0].nr_free[10] = 2000;
        observation_check(o);
        assert_rejected(o, OBS_BUDDYINFO, -EBADMSG);
        assert_true(problem_has(o, "more than MemTotal in '/proc/meminfo' (1003779 pages)", NULL));

        /* without zoneinfo and meminfo: the node's MemTotal in sysfs */
        o->have = OBS_ALL & ~(OBS_MASK(OBS_ZONEINFO) | OBS_MASK(OBS_MEMINFO));
        o->buddy.zones[0].nr_free[10] = 1000; /* 4 GiB on node 0, which has 2 GiB */
        observation_check(o);
        assert_rejected(o, OBS_BUDDYINFO, -EBADMSG);
        assert_true(problem_has(o, "free pages on node 0, more than the node's MemTotal in sysfs", NULL));
        o->have = OBS_ALL & ~(OBS_MASK(OBS_ZONEINFO) | OBS_MASK(OBS_MEMINFO));
        o->buddy.zones[0].nr_free[10] = 3;
        observation_check(o);
        assert_true(o->have & OBS_MASK(OBS_BUDDYINFO));
        /* node sizes read at an earlier tick may be stale (memory onlined
         * since): not used */
        o->read_mask = OBS_PER_TICK;
        o->buddy.zones[0].nr_free[10] = 1000;
        observation_check(o);
        assert_true(o->have & OBS_MASK(OBS_BUDDYINFO));
        free(o);
}

/* a truncated buddyinfo dropped node 1 silently */
static void test_check_buddyinfo_truncated(void **state)
{
        Observation *o = fresh_2node();

        o->buddy.n_zones = 2; /* node 0's DMA and DMA32 only */
        observation_check(o);
        assert_true(o->have & OBS_MASK(OBS_BUDDYINFO)); /* node 0 is still assessed */
        assert_int_equal(o->rejected, 0);
        assert_true(problem_has(o, "no row for Node 1, zone DMA32", "truncated"));
        assert_true(problem_has(o, "no row for Node 1, zone Normal", NULL));
        assert_true(problem_has(o, "no row for node 1, which has memory", NULL));

        /* rows cut short: fewer orders than pagetypeinfo */
        o->buddy.n_zones = 4;
        o->buddy.n_orders = 8;
        for (unsigned i = 0; i < 4; i++)
                o->buddy.zones[i].n_orders = 8;
        observation_check(o);
        assert_rejected(o, OBS_BUDDYINFO, -EBADMSG);
        assert_true(problem_has(o, "'/proc/buddyinfo' has 8 order columns, '/proc/pagetypeinfo' 11", NULL));
        free(o);
}

/* zoneinfo "managed 99999999999" gave a "target 7.5 TiB" */
static void test_check_zoneinfo_sizes(void **state)
{
        Observation *o = fresh_2node();
        ZoneInfoZone *z = (ZoneInfoZone *) zoneinfo_find(&o->zoneinfo, 0, "DMA32");

        assert_non_null(z);
        z->managed = z->present = z->spanned = 99999999999ULL;
        observation_check(o);
        assert_rejected(o, OBS_ZONEINFO, -EBADMSG);
        assert_true(problem_has(o, "'/proc/zoneinfo': Node 0, zone DMA32 manages 99999999999 pages, more than "
                                   "MemTotal", NULL));
        /* buddyinfo is not judged by a rejected zoneinfo */
        assert_true(o->have & OBS_MASK(OBS_BUDDYINFO));

        /* without meminfo: the node's MemTotal from sysfs */
        o->have = OBS_ALL & ~OBS_MASK(OBS_MEMINFO);
        observation_check(o);
        assert_rejected(o, OBS_ZONEINFO, -EBADMSG);
        assert_true(problem_has(o, "the zones of Node 0 manage", "node's MemTotal in sysfs"));

        /* without either: the 52-bit ceiling */
        o->have = OBS_ALL & ~(OBS_MASK(OBS_MEMINFO) | OBS_MASK(OBS_NODES));
        z->managed = z->present = z->spanned = UINT64_MAX / 2;
        observation_check(o);
        assert_rejected(o, OBS_ZONEINFO, -ERANGE);
        assert_true(problem_has(o, "Node 0, zone DMA32 spans", "52-bit"));
        free(o);
}

/* a zone on "Node 99999" was dropped silently */
static void test_check_node_ids(void **state)
{
        Observation *o = fresh_2node();

        o->pagetype.zones[0].node = 4096;
        observation_check(o);
        assert_false(o->have & OBS_MASK(OBS_PAGETYPEINFO));
        assert_true(o->rejected & OBS_MASK(OBS_PAGETYPEINFO));
        assert_int_equal(o->pagetype_usec, 0); /* not used as an older reading either */
        assert_true(problem_has(o, "'/proc/pagetypeinfo': Node 4096", NULL));
        o->have = OBS_ALL;
        o->zoneinfo.zones[o->zoneinfo.n_zones - 1].node = 99999;
        observation_check(o);
        assert_rejected(o, OBS_ZONEINFO, -ERANGE);
        assert_true(problem_has(o, "'/proc/zoneinfo': Node 99999, zone", "MAX_NUMNODES"));

        o->have = OBS_ALL & ~OBS_MASK(OBS_ZONEINFO);
        o->buddy.zones[3].node = 1024;
        observation_check(o);
        assert_rejected(o, OBS_BUDDYINFO, -ERANGE);
        assert_true(problem_has(o, "'/proc/buddyinfo': Node 1024, zone Normal", NULL));
        o->buddy.zones[3].node = 1023; /* the largest id a kernel can have */
        o->have = OBS_ALL & ~OBS_MASK(OBS_ZONEINFO);
        observation_check(o);
        assert_true(o->have & OBS_MASK(OBS_BUDDYINFO));
        free(o);
}

/* what is missing and what that disables (item 13) */
static void test_missing_and_impact(void **state)
{
        Observation *o = fresh_2node();

        assert_int_equal(observation_missing(o, OBS_ALL), 0);
        o->have &= ~(OBS_MASK(OBS_ZONEINFO) | OBS_MASK(OBS_PAGETYPEINFO) | OBS_MASK(OBS_PSI_MEMORY));
        o->err[OBS_ZONEINFO] = -ENOENT;
        o->err[OBS_PAGETYPEINFO] = -EACCES; /* root only: not degraded */
        o->err[OBS_PSI_MEMORY] = -EOPNOTSUPP; /* psi=0: not broken */
        assert_int_equal(observation_missing(o, OBS_ALL), OBS_MASK(OBS_ZONEINFO));
        assert_int_equal(observation_missing(o, OBS_ALL) & OBS_DEGRADED_REQUIRED, OBS_MASK(OBS_ZONEINFO));
        assert_int_equal(observation_missing(o, OBS_MASK(OBS_BUDDYINFO)), 0); /* not asked */
        o->err[OBS_PSI_MEMORY] = -EACCES;
        assert_int_equal(observation_missing(o, OBS_ALL), OBS_MASK(OBS_ZONEINFO) | OBS_MASK(OBS_PSI_MEMORY));
        for (unsigned s = 0; s < _OBS_SOURCE_MAX; s++)
                assert_non_null(obs_source_impact(s));
        assert_non_null(strstr(obs_source_impact(OBS_ZONEINFO), "not measured"));
        assert_true(observation_mem_bytes(o) == 4015116ULL * 1024);
        free(o);
}

/* item 14: the daemon's previous reading must carry buddyinfo, or the
 * exporter's blocks gained (compaction efficiency) compare with zeros */
static void test_keep_counters(void **state)
{
        Observation *src = fresh_2node(), *dst = obs_new();

        observation_keep_counters(dst, src);
        assert_int_equal(dst->now_usec, src->now_usec);
        assert_int_equal(dst->have, src->have);
        assert_memory_equal(&dst->buddy, &src->buddy, sizeof(src->buddy));
        assert_memory_equal(&dst->vmstat, &src->vmstat, sizeof(src->vmstat));
        assert_memory_equal(&dst->thp, &src->thp, sizeof(src->thp));
        assert_memory_equal(&dst->psi_memory, &src->psi_memory, sizeof(src->psi_memory));
        free(src);
        free(dst);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_source_names),
                cmocka_unit_test(test_all_sources),
                cmocka_unit_test(test_mask),
                cmocka_unit_test(test_thp_refresh),
                cmocka_unit_test(test_missing_sources),
                cmocka_unit_test(test_check_buddyinfo_overflow),
                cmocka_unit_test(test_check_buddyinfo_truncated),
                cmocka_unit_test(test_check_zoneinfo_sizes),
                cmocka_unit_test(test_check_node_ids),
                cmocka_unit_test(test_missing_and_impact),
                cmocka_unit_test(test_keep_counters),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
