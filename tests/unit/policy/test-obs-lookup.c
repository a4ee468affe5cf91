/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy/obs-lookup.c: the lookups over an Observation, on hand-built
 * structs (the parsers' tests cover them on parsed files). */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "fragd/obs.h"

static Observation o; /* large: static */

static void kv_add(KvList *l, const char *name, uint64_t v)
{
        strcpy(l->e[l->n].name, name);
        l->e[l->n++].value = v;
}

static void test_kv(void **state)
{
        KvList l = {};
        uint64_t v = 7;

        kv_add(&l, "compact_stall", 3);
        kv_add(&l, "compact_stall", 4); /* a duplicate: the first wins */
        kv_add(&l, "zero", 0);
        assert_int_equal(kv_get(&l, "compact_stall", &v), 0);
        assert_int_equal(v, 3);
        assert_int_equal(kv_get(&l, "zero", NULL), 0);
        assert_int_equal(kv_get(&l, "missing", &v), -ENOENT);
        assert_int_equal(v, 3); /* untouched */
        assert_int_equal(kv_get(NULL, "zero", &v), -ENOENT);
        assert_int_equal(kv_get(&l, NULL, &v), -ENOENT);
        assert_int_equal(kv_get_or(&l, "zero", 9), 0);
        assert_int_equal(kv_get_or(&l, "missing", 9), 9);
        l.n = FRAGD_MAX_KV + 1; /* a count past the array is read as the array */
        assert_int_equal(kv_get_or(&l, "missing", 9), 9);
}

static void test_zone_finders(void **state)
{
        BuddyInfo *b = &o.buddy;
        ZoneInfo *z = &o.zoneinfo;
        PageTypeInfo *p = &o.pagetype;

        memset(&o, 0, sizeof(o));
        b->n_zones = 2;
        b->zones[0].node = 0;
        strcpy(b->zones[0].zone, "Normal");
        b->zones[1].node = 1;
        strcpy(b->zones[1].zone, "Normal");
        assert_ptr_equal(buddyinfo_find(b, 1, "Normal"), &b->zones[1]);
        assert_null(buddyinfo_find(b, 1, "DMA32"));
        assert_null(buddyinfo_find(b, 2, "Normal"));
        assert_null(buddyinfo_find(NULL, 0, "Normal"));

        z->n_zones = 1;
        z->zones[0].node = 3;
        strcpy(z->zones[0].zone, "Movable");
        z->n_nodes = 1;
        z->nodes[0].node = 3;
        assert_ptr_equal(zoneinfo_find(z, 3, "Movable"), &z->zones[0]);
        assert_null(zoneinfo_find(z, 3, "Normal"));
        assert_ptr_equal(zoneinfo_find_node(z, 3), &z->nodes[0]);
        assert_null(zoneinfo_find_node(z, 0));

        p->n_types = 2;
        strcpy(p->types[0], "Unmovable");
        strcpy(p->types[1], "Movable");
        p->n_zones = 1;
        p->zones[0].node = 0;
        strcpy(p->zones[0].zone, "DMA");
        assert_int_equal(pagetypeinfo_type_index(p, "Movable"), 1);
        assert_int_equal(pagetypeinfo_type_index(p, "CMA"), -ENOENT);
        assert_ptr_equal(pagetypeinfo_find(p, 0, "DMA"), &p->zones[0]);
        assert_null(pagetypeinfo_find(p, 0, "Normal"));
}

static void test_thp(void **state)
{
        ThpInfo *t = &o.thp;
        uint64_t v = 5;

        memset(&o, 0, sizeof(o));
        t->n_sizes = 2;
        t->sizes[0].size_kb = 64;
        t->sizes[1].size_kb = 2048;
        t->sizes[1].n_stats = 2;
        strcpy(t->sizes[1].stats[0].name, "anon_fault_alloc");
        t->sizes[1].stats[0].value = 0;
        strcpy(t->sizes[1].stats[1].name, "anon_fault_fallback");
        t->sizes[1].stats[1].value = 12;
        assert_ptr_equal(thp_find_size(t, 2048), &t->sizes[1]);
        assert_null(thp_find_size(t, 32));
        assert_int_equal(thp_size_stat_index(&t->sizes[1], "anon_fault_fallback"), 1);
        /* a stat at 0 is there; a missing one is not */
        assert_int_equal(thp_size_stat_get(&t->sizes[1], "anon_fault_alloc", &v), 0);
        assert_int_equal(v, 0);
        assert_int_equal(thp_size_stat_get(&t->sizes[1], "swpout", &v), -ENOENT);
        assert_int_equal(thp_size_stat(&t->sizes[1], "anon_fault_fallback", 9), 12);
        assert_int_equal(thp_size_stat(&t->sizes[1], "swpout", 9), 9);
        assert_int_equal(thp_size_stat(NULL, "swpout", 9), 9);
}

static void test_mem_bytes(void **state)
{
        memset(&o, 0, sizeof(o));
        o.page_size = 4096;
        assert_int_equal(observation_mem_bytes(&o), 0);

        /* the zones' managed pages (present without a managed line) */
        o.have = OBS_MASK(OBS_ZONEINFO);
        o.zoneinfo.n_zones = 2;
        o.zoneinfo.zones[0].have = ZONE_HAVE_MANAGED;
        o.zoneinfo.zones[0].managed = 100;
        o.zoneinfo.zones[0].present = 200;
        o.zoneinfo.zones[1].present = 50;
        assert_int_equal(observation_mem_bytes(&o), 150 * 4096);

        /* MemTotal first */
        o.have |= OBS_MASK(OBS_MEMINFO);
        kv_add(&o.meminfo, "MemTotal", 2048);
        assert_int_equal(observation_mem_bytes(&o), 2048 * 1024);

        /* saturates, never wraps */
        o.meminfo.e[0].value = UINT64_MAX / 512;
        assert_true(observation_mem_bytes(&o) == UINT64_MAX);
        o.have = OBS_MASK(OBS_ZONEINFO);
        o.zoneinfo.zones[1].present = UINT64_MAX;
        assert_true(observation_mem_bytes(&o) == UINT64_MAX);
}

/* Only the first n entries count: an entry past the count (left from an
 * earlier, longer reading) is never found; NULL finds nothing. */
static void test_stale_entries_and_null(void **state)
{
        ThpSize ts;

        (void) state;
        memset(&o, 0, sizeof(o));
        kv_add(&o.vmstat, "a", 1);
        kv_add(&o.vmstat, "b", 2);
        o.vmstat.n = 1;
        assert_int_equal(kv_get_or(&o.vmstat, "a", 9), 1);
        assert_int_equal(kv_get_or(&o.vmstat, "b", 9), 9);
        assert_int_equal(kv_get(NULL, "a", NULL), -ENOENT);
        assert_int_equal(kv_get(&o.vmstat, NULL, NULL), -ENOENT);
        assert_int_equal(kv_get(&o.vmstat, "a", NULL), 0);

        o.buddy.n_zones = 1;
        o.buddy.zones[0].node = 0;
        strcpy(o.buddy.zones[0].zone, "DMA");
        o.buddy.zones[1].node = 0;
        strcpy(o.buddy.zones[1].zone, "Normal");
        assert_non_null(buddyinfo_find(&o.buddy, 0, "DMA"));
        assert_null(buddyinfo_find(&o.buddy, 0, "Normal"));
        assert_null(buddyinfo_find(&o.buddy, 1, "DMA"));
        assert_null(buddyinfo_find(NULL, 0, "DMA"));
        assert_null(buddyinfo_find(&o.buddy, 0, NULL));

        o.zoneinfo.n_zones = 1;
        o.zoneinfo.zones[0].node = 0;
        strcpy(o.zoneinfo.zones[0].zone, "DMA");
        o.zoneinfo.zones[1].node = 0;
        strcpy(o.zoneinfo.zones[1].zone, "Normal");
        assert_null(zoneinfo_find(&o.zoneinfo, 0, "Normal"));
        assert_null(zoneinfo_find(&o.zoneinfo, 0, NULL));
        assert_null(zoneinfo_find(NULL, 0, "DMA"));
        o.zoneinfo.n_nodes = 1;
        o.zoneinfo.nodes[0].node = 3;
        o.zoneinfo.nodes[1].node = 4;
        assert_non_null(zoneinfo_find_node(&o.zoneinfo, 3));
        assert_null(zoneinfo_find_node(&o.zoneinfo, 4));
        assert_null(zoneinfo_find_node(NULL, 3));

        o.pagetype.n_types = 1;
        strcpy(o.pagetype.types[0], "Unmovable");
        strcpy(o.pagetype.types[1], "Movable");
        assert_int_equal(pagetypeinfo_type_index(&o.pagetype, "Unmovable"), 0);
        assert_int_equal(pagetypeinfo_type_index(&o.pagetype, "Movable"), -ENOENT);
        assert_int_equal(pagetypeinfo_type_index(NULL, "Movable"), -ENOENT);
        assert_int_equal(pagetypeinfo_type_index(&o.pagetype, NULL), -ENOENT);
        o.pagetype.n_zones = 1;
        o.pagetype.zones[0].node = 1;
        strcpy(o.pagetype.zones[0].zone, "Normal");
        o.pagetype.zones[1].node = 0;
        strcpy(o.pagetype.zones[1].zone, "Normal");
        assert_non_null(pagetypeinfo_find(&o.pagetype, 1, "Normal"));
        assert_null(pagetypeinfo_find(&o.pagetype, 0, "Normal")); /* the node counts too */
        assert_null(pagetypeinfo_find(&o.pagetype, 1, "DMA"));
        assert_null(pagetypeinfo_find(NULL, 1, "Normal"));
        assert_null(pagetypeinfo_find(&o.pagetype, 1, NULL));

        o.thp.n_sizes = 1;
        o.thp.sizes[0].size_kb = 64;
        o.thp.sizes[1].size_kb = 2048;
        assert_non_null(thp_find_size(&o.thp, 64));
        assert_null(thp_find_size(&o.thp, 2048));
        assert_null(thp_find_size(NULL, 64));
        memset(&ts, 0, sizeof(ts));
        ts.n_stats = 1;
        strcpy(ts.stats[0].name, "x");
        strcpy(ts.stats[1].name, "y");
        ts.stats[1].value = 5;
        assert_int_equal(thp_size_stat_index(&ts, "x"), 0);
        assert_int_equal(thp_size_stat_index(&ts, "y"), -ENOENT);
        assert_int_equal(thp_size_stat_index(NULL, "x"), -ENOENT);
        assert_int_equal(thp_size_stat_index(&ts, NULL), -ENOENT);
        assert_int_equal(thp_size_stat_get(&ts, "y", NULL), -ENOENT);
        assert_int_equal(thp_size_stat_get(&ts, "x", NULL), 0);
}

/* MemTotal only when meminfo was read this tick and is not 0; the zones
 * only when zoneinfo was; a default page size of 4096 */
static void test_mem_bytes_sources(void **state)
{
        (void) state;
        memset(&o, 0, sizeof(o));
        kv_add(&o.meminfo, "MemTotal", 1);
        o.zoneinfo.n_zones = 1;
        o.zoneinfo.zones[0].present = 3;
        assert_int_equal(observation_mem_bytes(&o), 0);
        o.have = OBS_MASK(OBS_ZONEINFO);
        assert_int_equal(observation_mem_bytes(&o), 3 * 4096); /* page size 0: 4096 */
        o.page_size = 65536;
        assert_int_equal(observation_mem_bytes(&o), 3 * 65536);
        o.have |= OBS_MASK(OBS_MEMINFO);
        assert_int_equal(observation_mem_bytes(&o), 1024);
        o.meminfo.e[0].value = 0;
        assert_int_equal(observation_mem_bytes(&o), 3 * 65536);
        o.have = OBS_MASK(OBS_MEMINFO);
        assert_int_equal(observation_mem_bytes(&o), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_kv),
                cmocka_unit_test(test_zone_finders),
                cmocka_unit_test(test_thp),
                cmocka_unit_test(test_mem_bytes),
                cmocka_unit_test(test_stale_entries_and_null),
                cmocka_unit_test(test_mem_bytes_sources),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
