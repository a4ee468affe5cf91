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
#include <string.h>

#include "parser-test-util.h"
#include "fragd/obs.h"

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
                "psi_memory", "thp", "sysctl", "nodes", "thp_full",
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

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_source_names),
                cmocka_unit_test(test_all_sources),
                cmocka_unit_test(test_mask),
                cmocka_unit_test(test_thp_refresh),
                cmocka_unit_test(test_missing_sources),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
