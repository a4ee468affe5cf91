/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the kernel counted since boot, for a fresh fragd's first reserve
 * (daemon/service/boot-history.c): the /proc/uptime parser table, the
 * counters and uptime read from fixture trees (values from the fixture
 * files: grep thp_fault proc/vmstat, cat proc/uptime), every missing piece
 * said, and the sentence. */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fixture-root.h"
#include "service/boot-history.h"
#include "sources/sources.h"

static void test_uptime_parse(void **state)
{
        static const struct {
                const char *in;
                int rc;
                usec_t usec;
        } t[] = {
                { "187.42 301.17\n", 0, 187420000 },
                { "12.5 3.00\n", 0, 12500000 },
                { "12 3\n", 0, 12000000 },
                { "12.34", 0, 12340000 },
                { "0.01 0.00\n", 0, 10000 },
                { "4294967296.00 1.00\n", 0, 4294967296ULL * 1000000 },
                { "0.00 0.00\n", -EINVAL, 0 },       /* no time since boot */
                { "12.345 1.00\n", -EINVAL, 0 },     /* the kernel prints two decimals */
                { "12. 1.00\n", -EINVAL, 0 },
                { ".5 1.00\n", -EINVAL, 0 },
                { "-1.00 1.00\n", -EINVAL, 0 },
                { "abc\n", -EINVAL, 0 },
                { "", -EINVAL, 0 },
                { " 12.00 1.00\n", -EINVAL, 0 },
                { "12.00x 1.00\n", -EINVAL, 0 },
                { "99999999999999999999.00 1.00\n", -EINVAL, 0 }, /* past 2^64 us */
                { "18446744073709.55 1.00\n", -EINVAL, 0 },       /* x 10^6 past 2^64 */
        };

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                usec_t u = 7;

                assert_int_equal(boot_uptime_parse(t[i].in, &u), t[i].rc);
                assert_int_equal(u, t[i].rc == 0 ? t[i].usec : 7);
        }
        assert_int_equal(boot_uptime_parse(NULL, NULL), -EINVAL);
}

static Observation *read_tree(Root *root)
{
        Observation *o = calloc(1, sizeof(*o));

        assert_non_null(o);
        if (vmstat_read(root, &o->vmstat) >= 0)
                o->have |= OBS_MASK(OBS_VMSTAT);
        return o;
}

/* synthetic-boot-history: thp_fault_alloc 700, thp_fault_fallback 68,
 * uptime 187.42 s */
static void test_read_fixture(void **state)
{
        _cleanup_(root_freep) Root *root = fixture_open("synthetic-boot-history");
        _cleanup_free_ Observation *o = NULL;
        BootHistory b = { 1, 1, 1 };
        char why[256] = "x";

        (void) state;
        assert_non_null(root);
        o = read_tree(root);
        assert_int_equal(boot_history_read(root, o, &b, why, sizeof(why)), 0);
        assert_int_equal(b.thp_faults, 768);
        assert_int_equal(b.thp_fallbacks, 68);
        assert_int_equal(b.uptime_usec, 187420000);
        assert_string_equal(why, "");
}

/* A capture without proc/uptime (vm-6.1-x86_64-2node-fresh: the THP
 * counters are there, 0), a kernel without THP (synthetic-minimal: no
 * thp_fault_* in vmstat), vmstat not read, counters adding up past 2^64. */
static void test_read_missing(void **state)
{
        _cleanup_(root_freep) Root *fresh = fixture_open("vm-6.1-x86_64-2node-fresh");
        _cleanup_(root_freep) Root *minimal = fixture_open("synthetic-minimal");
        _cleanup_free_ Observation *o = NULL, *m = NULL;
        BootHistory b = { 1, 2, 3 };
        char why[256];

        (void) state;
        assert_non_null(fresh);
        assert_non_null(minimal);
        o = read_tree(fresh);
        assert_int_equal(boot_history_read(fresh, o, &b, why, sizeof(why)), -ENODATA);
        assert_non_null(strstr(why, "cannot read /proc/uptime"));
        assert_int_equal(b.thp_faults, 1); /* untouched */
        m = read_tree(minimal);
        assert_int_equal(boot_history_read(minimal, m, &b, why, sizeof(why)), -ENOENT);
        assert_non_null(strstr(why, "no thp_fault_alloc or thp_fault_fallback"));
        m->have = 0;
        assert_int_equal(boot_history_read(minimal, m, &b, why, sizeof(why)), -ENOENT);
        assert_string_equal(why, "/proc/vmstat was not read");
        o->vmstat.e[0] = (KvEntry) { .name = "thp_fault_alloc" };
        for (unsigned i = 0; i < o->vmstat.n; i++)
                if (strcmp(o->vmstat.e[i].name, "thp_fault_fallback") == 0)
                        o->vmstat.e[i].value = UINT64_MAX;
        o->vmstat.e[0].value = 1;
        assert_int_equal(boot_history_read(fresh, o, &b, why, sizeof(why)), -ENOENT);
        assert_non_null(strstr(why, "past 2^64"));
}

static void test_explain(void **state)
{
        BootHistory b = { 768, 68, 187420000 };
        LearnedRestore r = { .peak_bytes = 512ULL << 20 };
        char buf[320];

        (void) state;
        assert_string_equal(boot_history_explain(&b, &r, buf, sizeof(buf)),
                            "768 THP faults (68 fell back) in 3 min since boot: 512 MiB, the fallbacks as one "
                            "burst at an unknown time since boot");
        assert_string_equal(boot_history_explain(&b, NULL, buf, sizeof(buf)),
                            "768 THP faults (68 fell back) in 3 min since boot: under one huge page, none");
        b.thp_fallbacks = 0;
        assert_string_equal(boot_history_explain(&b, NULL, buf, sizeof(buf)),
                            "768 THP faults (0 fell back) in 3 min since boot: the kernel kept up (no fallback), "
                            "none");
        b.thp_faults = 0;
        assert_string_equal(boot_history_explain(&b, NULL, buf, sizeof(buf)),
                            "0 THP faults (0 fell back) in 3 min since boot: the kernel kept up (no fallback), none");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_uptime_parse),
                cmocka_unit_test(test_read_fixture),
                cmocka_unit_test(test_read_missing),
                cmocka_unit_test(test_explain),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
