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

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_kv),
                cmocka_unit_test(test_zone_finders),
                cmocka_unit_test(test_thp),
                cmocka_unit_test(test_mem_bytes),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
