/* SPDX-License-Identifier: GPL-2.0-or-later */
/* psi_parse / psi_read / psi_read_cgroup. */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "core/cleanup.h"
#include "parser-test-util.h"
#include "fragd/obs.h"
#include "sources/sources.h"

/* ---- fixtures ------------------------------------------------------------ */

typedef struct PsiExpect {
        uint32_t s10, s60, s300;
        uint64_t stotal;
        uint32_t f10, f60, f300;
        uint64_t ftotal;
} PsiExpect;

/* Copied by eye from `cat proc/pressure/{memory,cpu,io}` and
 * `cat sys/fs/cgroup/db.slice/memory.pressure` of each tree, with the
 * decimal point dropped (70.02 % -> 7002 permyriad). */
typedef struct PsiFixture {
        const char *tree;
        PsiExpect memory, cpu, io;
        bool have_db_slice;
        PsiExpect db_memory;
} PsiFixture;

static const PsiFixture psi_fixtures[] = {
        { "host-6.18-x86_64",
          { 0, 0, 0, 0, 0, 0, 0, 0 },
          { 610, 603, 535, 53641806, 0, 0, 0, 0 },
          { 0, 1, 9, 8022638, 0, 0, 1, 6889568 },
          false, {} },
        { "vm-6.1-x86_64-1node-pressure",
          { 7002, 4053, 1139, 37169358, 5471, 3196, 900, 29331708 },
          { 5090, 2930, 823, 27122167, 0, 0, 0, 0 },
          { 0, 0, 0, 0, 0, 0, 0, 0 },
          true, { 4539, 2545, 738, 24475795, 4539, 2545, 738, 24475795 } },
        { "vm-6.1-x86_64-2node-compacted",
          { 0, 0, 0, 0, 0, 0, 0, 0 },
          { 236, 85, 22, 803269, 0, 0, 0, 0 },
          { 0, 0, 0, 1841, 0, 0, 0, 1841 },
          true, { 0, 0, 0, 0, 0, 0, 0, 0 } },
        { "vm-6.1-x86_64-2node-fragmented",
          { 0, 0, 0, 0, 0, 0, 0, 0 },
          { 42, 45, 12, 483153, 0, 0, 0, 0 },
          { 0, 0, 0, 1082, 0, 0, 0, 1082 },
          true, { 0, 0, 0, 0, 0, 0, 0, 0 } },
        { "vm-6.1-x86_64-2node-fresh",
          { 0, 0, 0, 0, 0, 0, 0, 0 },
          { 144, 26, 5, 180076, 0, 0, 0, 0 },
          { 0, 0, 0, 0, 0, 0, 0, 0 },
          true, { 0, 0, 0, 0, 0, 0, 0, 0 } },
};

static void assert_psi(const char *what, const PsiStats *p, const PsiExpect *e)
{
        if (!p->some.present || !p->full.present)
                fail_msg("%s: some/full present %d/%d", what, p->some.present, p->full.present);
        if (p->some.avg10_permyriad != e->s10 || p->some.avg60_permyriad != e->s60 ||
            p->some.avg300_permyriad != e->s300 || p->some.total_usec != e->stotal)
                fail_msg("%s: some %u %u %u %llu", what, p->some.avg10_permyriad, p->some.avg60_permyriad,
                         p->some.avg300_permyriad, (unsigned long long) p->some.total_usec);
        if (p->full.avg10_permyriad != e->f10 || p->full.avg60_permyriad != e->f60 ||
            p->full.avg300_permyriad != e->f300 || p->full.total_usec != e->ftotal)
                fail_msg("%s: full %u %u %u %llu", what, p->full.avg10_permyriad, p->full.avg60_permyriad,
                         p->full.avg300_permyriad, (unsigned long long) p->full.total_usec);
}

static void test_fixtures_listed(void **state)
{
        assert_fixtures_listed(psi_fixtures, tree);
}

static void test_fixture_psi(void **state)
{
        for (size_t i = 0; i < ELEMENTSOF(psi_fixtures); i++) {
                const PsiFixture *f = &psi_fixtures[i];
                Root *root = fixture_root(f->tree);
                PsiStats p;

                assert_int_equal(psi_read(root, "memory", &p), 0);
                assert_psi(f->tree, &p, &f->memory);
                assert_int_equal(psi_read(root, "cpu", &p), 0);
                assert_psi(f->tree, &p, &f->cpu);
                assert_int_equal(psi_read(root, "io", &p), 0);
                assert_psi(f->tree, &p, &f->io);
                /* neither kernel has CONFIG_IRQ_TIME_ACCOUNTING */
                assert_int_equal(psi_read(root, "irq", &p), -EOPNOTSUPP);
                if (f->have_db_slice) {
                        assert_int_equal(psi_read_cgroup(root, "db.slice", "memory", &p), 0);
                        assert_psi(f->tree, &p, &f->db_memory);
                }
                root_free(root);
        }
}

/* 1node-pressure: root cgroup and batch.slice, from `cat .../memory.pressure` */
static void test_fixture_cgroup_psi(void **state)
{
        static const PsiExpect root_cg = { 7256, 4291, 1229, 40569259, 5268, 3302, 954, 31478648 };
        static const PsiExpect batch = { 1467, 698, 198, 6850158, 1467, 698, 198, 6850158 };
        static const PsiExpect host_unified = { 0, 0, 0, 0, 0, 0, 0, 0 };
        Root *root = fixture_root("vm-6.1-x86_64-1node-pressure");
        PsiStats p;

        assert_int_equal(psi_read_cgroup(root, "", "memory", &p), 0);
        assert_psi("root cgroup", &p, &root_cg);
        assert_int_equal(psi_read_cgroup(root, "batch.slice", "memory", &p), 0);
        assert_psi("batch.slice", &p, &batch);
        assert_int_equal(psi_read_cgroup(root, "nope.slice", "memory", &p), -ENOENT);
        assert_int_equal(psi_read_cgroup(root, "../db.slice", "memory", &p), -EINVAL);
        assert_int_equal(psi_read_cgroup(root, "db.slice", "../memory", &p), -EINVAL);
        root_free(root);

        root = fixture_root("host-6.18-x86_64");
        assert_int_equal(psi_read_cgroup(root, "unified", "memory", &p), 0);
        assert_psi("host unified", &p, &host_unified);
        root_free(root);
}

static void test_no_pressure_dir(void **state)
{
        Root *root = fixture_root("synthetic-minimal");
        PsiStats p = { .some.total_usec = 4242 };

        assert_int_equal(psi_read(root, "memory", &p), -EOPNOTSUPP);
        assert_int_equal(p.some.total_usec, 4242);
        assert_int_equal(psi_read(root, "memory/../x", &p), -EINVAL);
        assert_int_equal(psi_read(root, "", &p), -EINVAL);
        assert_int_equal(psi_read(root, NULL, &p), -EINVAL);
        closep(&root->proc_fd);
        root->proc_fd = -1;
        assert_int_equal(psi_read(root, "memory", &p), -ENOENT);
        root_free(root);
}

/* synthetic-arm64-64k: reordered fields and unknown keys (memory), some only
 * (cpu), full only (irq); see its README. */
static void test_synthetic_psi(void **state)
{
        Root *root = fixture_root("synthetic-arm64-64k");
        PsiStats p;

        assert_int_equal(psi_read(root, "memory", &p), 0);
        assert_true(p.some.present);
        assert_int_equal(p.some.avg10_permyriad, 1005);
        assert_int_equal(p.some.avg60_permyriad, 225);
        assert_int_equal(p.some.avg300_permyriad, 150);
        assert_int_equal(p.some.total_usec, 123456);
        assert_true(p.full.present);
        assert_int_equal(p.full.avg10_permyriad, 50);
        assert_int_equal(p.full.avg60_permyriad, 25);
        assert_int_equal(p.full.avg300_permyriad, 5);
        assert_int_equal(p.full.total_usec, 999);

        assert_int_equal(psi_read(root, "cpu", &p), 0);
        assert_true(p.some.present);
        assert_false(p.full.present);
        assert_int_equal(p.some.avg10_permyriad, 300);
        assert_int_equal(p.some.total_usec, 42);

        assert_int_equal(psi_read(root, "irq", &p), 0);
        assert_false(p.some.present);
        assert_true(p.full.present);
        assert_int_equal(p.full.avg10_permyriad, 1);
        assert_int_equal(p.full.total_usec, 77);

        assert_int_equal(psi_read(root, "io", &p), -EOPNOTSUPP); /* file missing */
        root_free(root);
}

/* ---- table --------------------------------------------------------------- */

typedef struct PsiCase {
        const char *name;
        const char *input;
        int rc;
        struct {
                bool some, full;
                uint32_t s10, s60, s300;
                uint64_t stotal;
                uint32_t f10;
        } v; /* when rc == 0 */
} PsiCase;

#define SOME0 "some avg10=0.00 avg60=0.00 avg300=0.00 total=0"
#define FULL0 "full avg10=0.00 avg60=0.00 avg300=0.00 total=0"

/* OK(some, full, s10, s60, s300, stotal, f10) and BAD(rc) */
#define OK(...) .rc = 0, .v = { __VA_ARGS__ }
#define BAD(r) .rc = (r)

static const PsiCase psi_cases[] = {
        { "both lines", SOME0 "\n" FULL0 "\n", OK(true, true, 0, 0, 0, 0, 0) },
        { "values", "some avg10=12.34 avg60=0.05 avg300=100.00 total=18446744073709551615\n" FULL0 "\n",
          OK(true, true, 1234, 5, 10000, UINT64_MAX, 0) },
        { "only some (old kernel, cpu)", "some avg10=1.50 avg60=0.00 avg300=0.00 total=5\n",
          OK(true, false, 150, 0, 0, 5, 0) },
        { "only full (irq)", "full avg10=2.00 avg60=0.00 avg300=0.00 total=5\n",
          OK(false, true, 0, 0, 0, 0, 200) },
        { "no trailing newline", SOME0 "\n" FULL0, OK(true, true, 0, 0, 0, 0, 0) },
        { "extra keys", "some avg10=1.00 avg60=0.00 avg300=0.00 total=0 avg600=9.99 max=5\n",
          OK(true, false, 100, 0, 0, 0, 0) },
        { "keys reordered", "some total=7 avg300=0.03 avg60=0.02 avg10=0.01\n", OK(true, false, 1, 2, 3, 7, 0) },
        { "unknown line kind", SOME0 "\nhalf avg10=1.00\n", OK(true, false, 0, 0, 0, 0, 0) },
        { "blank lines", "\n" SOME0 "\n\n", OK(true, false, 0, 0, 0, 0, 0) },
        { "one decimal", "some avg10=5.1 avg60=5 avg300=0.0 total=0\n", OK(true, false, 510, 500, 0, 0, 0) },
        { "three decimals truncated", "some avg10=5.129 avg60=0 avg300=0 total=0\n",
          OK(true, false, 512, 0, 0, 0, 0) },
        { "tabs and CR", "some\tavg10=0.10\tavg60=0.00 avg300=0.00\ttotal=1\r\n", OK(true, false, 10, 0, 0, 1, 0) },
        { "empty", "", BAD(-ENODATA) },
        { "only unknown lines", "cpu 1 2 3\n", BAD(-ENODATA) },
        { "some without fields", "some\n", BAD(-ENODATA) },
        { "missing total", "some avg10=0.00 avg60=0.00 avg300=0.00\n", BAD(-ENODATA) },
        { "missing avg60", "some avg10=0.00 avg300=0.00 total=0\n", BAD(-ENODATA) },
        { "truncated in a key", "some avg10=0.00 avg60=0.00 avg3", BAD(-EBADMSG) },
        { "truncated after a field", "some avg10=0.00 avg60=0.00 avg300=0.00", BAD(-ENODATA) },
        { "truncated value", "some avg10=0.00 avg60=0.00 avg300=0.00 total=\n", BAD(-EBADMSG) },
        { "full line incomplete", SOME0 "\nfull avg10=0.00\n", BAD(-ENODATA) },
        { "bare field", "some avg10=0.00 avg60=0.00 avg300=0.00 total=0 junk\n", BAD(-EBADMSG) },
        { "empty key", "some =1 avg10=0.00 avg60=0.00 avg300=0.00 total=0\n", BAD(-EBADMSG) },
        { "non-numeric avg", "some avg10=abc avg60=0.00 avg300=0.00 total=0\n", BAD(-EBADMSG) },
        { "negative avg", "some avg10=-1.00 avg60=0.00 avg300=0.00 total=0\n", BAD(-EBADMSG) },
        { "avg '.5'", "some avg10=.5 avg60=0.00 avg300=0.00 total=0\n", BAD(-EBADMSG) },
        { "avg '5.'", "some avg10=5. avg60=0.00 avg300=0.00 total=0\n", BAD(-EBADMSG) },
        { "avg two dots", "some avg10=5.0.0 avg60=0.00 avg300=0.00 total=0\n", BAD(-EBADMSG) },
        { "avg above 100%", "some avg10=100.01 avg60=0.00 avg300=0.00 total=0\n", BAD(-ERANGE) },
        { "avg huge", "some avg10=99999999999999999999999.00 avg60=0 avg300=0 total=0\n", BAD(-ERANGE) },
        { "total huge", "some avg10=0 avg60=0 avg300=0 total=18446744073709551616\n", BAD(-ERANGE) },
        { "total non-numeric", "some avg10=0 avg60=0 avg300=0 total=12x\n", BAD(-EBADMSG) },
        { "duplicate key", "some avg10=0 avg10=0 avg60=0 avg300=0 total=0\n", BAD(-EBADMSG) },
        { "duplicate line", SOME0 "\n" SOME0 "\n", BAD(-EBADMSG) },
};

static void test_psi_table(void **state)
{
        for (size_t i = 0; i < ELEMENTSOF(psi_cases); i++) {
                const PsiCase *c = &psi_cases[i];
                PsiStats p = { .some.total_usec = 31337 };
                int r = psi_parse(c->input, strlen(c->input), &p);

                assert_row_rc(c->name, r, c->rc);
                if (r < 0) {
                        assert_int_equal(p.some.total_usec, 31337); /* untouched */
                        continue;
                }
                if (p.some.present != c->v.some || p.full.present != c->v.full)
                        fail_msg("case '%s': present %d/%d", c->name, p.some.present, p.full.present);
                if (p.some.avg10_permyriad != c->v.s10 || p.some.avg60_permyriad != c->v.s60 ||
                    p.some.avg300_permyriad != c->v.s300 || p.some.total_usec != c->v.stotal ||
                    p.full.avg10_permyriad != c->v.f10)
                        fail_msg("case '%s': some %u %u %u %llu full %u", c->name, p.some.avg10_permyriad,
                                 p.some.avg60_permyriad, p.some.avg300_permyriad,
                                 (unsigned long long) p.some.total_usec, p.full.avg10_permyriad);
        }
}

/* Not NUL-terminated: the parser must stop at len. */
static void test_psi_len_bound(void **state)
{
        const char buf[] = "some avg10=1.00 avg60=0.00 avg300=0.00 total=12345";
        PsiStats p;

        /* cut inside total: "total=123" */
        assert_int_equal(psi_parse(buf, strlen(buf) - 2, &p), 0);
        assert_int_equal(p.some.total_usec, 123);
        assert_int_equal(psi_parse(NULL, 0, &p), -ENODATA);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_fixtures_listed),
                cmocka_unit_test(test_fixture_psi),
                cmocka_unit_test(test_fixture_cgroup_psi),
                cmocka_unit_test(test_no_pressure_dir),
                cmocka_unit_test(test_synthetic_psi),
                cmocka_unit_test(test_psi_table),
                cmocka_unit_test(test_psi_len_bound),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
