/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vmstat_parse / meminfo_parse / kv_get and their readers, against every
 * fixture tree and a table of malformed inputs. */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "core/cleanup.h"
#include "parser-test-util.h"
#include "fragd/obs.h"
#include "sources/sources.h"

/* ---- fixtures ------------------------------------------------------------ */

/* Expected values were worked out with grep/awk on the fixture files, not
 * with fragd:
 *   n:          grep -c . proc/vmstat               (every line is "name value")
 *   counters:   grep -E '^(nr_free_pages|pgmajfault|compact_daemon_wake) ' proc/vmstat
 *   last:       tail -1 proc/vmstat
 *   meminfo:    grep -c . proc/meminfo; grep -E '^(MemTotal|MemFree|MemAvailable|HugePages_Total|DirectMap4k):'
 *   memory.stat: grep -c . sys/fs/cgroup/db.slice/memory.stat; grep -E '^(anon|pgfault|workingset_refault_anon|pgscan_direct) '
 * nr_free_pages_blocks exists only on 6.15+ (the 6.18 host). */
typedef struct VmstatFixture {
        const char *tree;
        unsigned vmstat_n;
        uint64_t nr_free_pages, pgmajfault, compact_daemon_wake;
        bool have_nr_free_pages_blocks;
        uint64_t nr_free_pages_blocks;
        unsigned meminfo_n;
        uint64_t mem_total, mem_free, mem_available, hugepages_total, directmap4k;
        bool have_memory_stat; /* db.slice */
        unsigned memstat_n;
        uint64_t anon, pgfault, workingset_refault_anon, pgscan_direct;
} VmstatFixture;

static const VmstatFixture vmstat_fixtures[] = {
        { "host-6.18-x86_64", 192, 1969073, 6176, 0, true, 1835008,
          54, 24684084, 23817208, 24236332, 0, 26624,
          false, 0, 0, 0, 0, 0 },
        { "vm-6.1-x86_64-1node-pressure", 173, 15838, 1426412, 9, false, 0,
          53, 983496, 65676, 0, 0, 26496,
          true, 51, 66502656, 692797, 643585, 1183419 },
        { "vm-6.1-x86_64-2node-compacted", 173, 920272, 0, 0, false, 0,
          53, 4015116, 3680904, 3538560, 0, 30592,
          true, 51, 239910912, 936990, 0, 0 },
        { "vm-6.1-x86_64-2node-fragmented", 173, 914953, 0, 0, false, 0,
          53, 4015116, 3659644, 3517292, 0, 30592,
          true, 51, 239910912, 936990, 0, 0 },
        { "vm-6.1-x86_64-2node-fresh", 173, 988234, 0, 0, false, 0,
          53, 4015116, 3952936, 3810468, 0, 30592,
          true, 51, 0, 0, 0, 0 },
};

static void test_fixtures_listed(void **state)
{
        assert_fixtures_listed(vmstat_fixtures, tree);
}

static KvList *kv_new(void)
{
        KvList *l = calloc(1, sizeof(*l));

        assert_non_null(l);
        return l;
}

static void test_fixture_vmstat(void **state)
{
        for (size_t i = 0; i < ELEMENTSOF(vmstat_fixtures); i++) {
                const VmstatFixture *f = &vmstat_fixtures[i];
                Root *root = fixture_root(f->tree);
                KvList *l = kv_new();
                uint64_t v;

                assert_int_equal(vmstat_read(root, l), 0);
                assert_int_equal(l->n, f->vmstat_n);
                assert_int_equal(l->n_skipped, 0);
                assert_int_equal(kv_get_or(l, "nr_free_pages", 1), f->nr_free_pages);
                assert_int_equal(kv_get_or(l, "pgmajfault", 1), f->pgmajfault);
                assert_int_equal(kv_get_or(l, "compact_daemon_wake", 1), f->compact_daemon_wake);
                if (f->have_nr_free_pages_blocks) {
                        assert_int_equal(kv_get(l, "nr_free_pages_blocks", &v), 0);
                        assert_int_equal(v, f->nr_free_pages_blocks);
                } else
                        assert_int_equal(kv_get(l, "nr_free_pages_blocks", &v), -ENOENT);
                /* file order kept: the last line of every capture */
                assert_string_equal(l->e[l->n - 1].name, "nr_unstable");
                assert_string_equal(l->e[0].name, "nr_free_pages");
                root_free(root);
                free(l);
        }
}

static void test_fixture_meminfo(void **state)
{
        for (size_t i = 0; i < ELEMENTSOF(vmstat_fixtures); i++) {
                const VmstatFixture *f = &vmstat_fixtures[i];
                Root *root = fixture_root(f->tree);
                KvList *l = kv_new();

                assert_int_equal(meminfo_read(root, l), 0);
                assert_int_equal(l->n, f->meminfo_n);
                assert_int_equal(kv_get_or(l, "MemTotal", 1), f->mem_total);
                assert_int_equal(kv_get_or(l, "MemFree", 1), f->mem_free);
                assert_int_equal(kv_get_or(l, "MemAvailable", 1), f->mem_available);
                /* no unit on the HugePages_ lines */
                assert_int_equal(kv_get_or(l, "HugePages_Total", 1), f->hugepages_total);
                assert_int_equal(kv_get_or(l, "Hugepagesize", 1), 2048);
                assert_int_equal(kv_get_or(l, "DirectMap4k", 1), f->directmap4k);
                /* names keep their parentheses */
                assert_int_equal(kv_get(l, "Active(anon)", NULL), 0);
                root_free(root);
                free(l);
        }
}

static void test_fixture_memory_stat(void **state)
{
        for (size_t i = 0; i < ELEMENTSOF(vmstat_fixtures); i++) {
                const VmstatFixture *f = &vmstat_fixtures[i];
                Root *root = fixture_root(f->tree);
                KvList *l = kv_new();

                if (!f->have_memory_stat) {
                        /* the 6.18 host has only hugetlb in cgroup2 */
                        assert_int_equal(memory_stat_read(root, "db.slice", l), -ENOENT);
                        root_free(root);
                        free(l);
                        continue;
                }
                assert_int_equal(memory_stat_read(root, "db.slice", l), 0);
                assert_int_equal(l->n, f->memstat_n);
                assert_int_equal(kv_get_or(l, "anon", 1), f->anon);
                assert_int_equal(kv_get_or(l, "pgfault", 1), f->pgfault);
                assert_int_equal(kv_get_or(l, "workingset_refault_anon", 1), f->workingset_refault_anon);
                assert_int_equal(kv_get_or(l, "pgscan_direct", 1), f->pgscan_direct);
                /* the root cgroup's memory.stat parses too */
                assert_int_equal(memory_stat_read(root, "", l), 0);
                assert_true(l->n > 0);
                root_free(root);
                free(l);
        }
}

static void test_memory_stat_bad_paths(void **state)
{
        Root *root = fixture_root("vm-6.1-x86_64-1node-pressure");
        KvList *l = kv_new();

        assert_int_equal(memory_stat_read(root, "/db.slice", l), -EINVAL);
        assert_int_equal(memory_stat_read(root, "../db.slice", l), -EINVAL);
        assert_int_equal(memory_stat_read(root, "db.slice/..", l), -EINVAL);
        assert_int_equal(memory_stat_read(root, "db.slice//x", l), -EINVAL);
        assert_int_equal(memory_stat_read(root, NULL, l), -EINVAL);
        assert_int_equal(memory_stat_read(root, "batch.slice", l), 0);
        assert_int_equal(memory_stat_read(root, "nonexistent.slice", l), -ENOENT);
        root_free(root);
        free(l);
}

/* ---- tables -------------------------------------------------------------- */

typedef struct KvCase {
        const char *name;
        const char *input; /* NUL-terminated unless len is set */
        size_t len;
        int rc;
        unsigned n, n_skipped;
        const char *key; /* checked when rc == 0 */
        uint64_t value;
} KvCase;

#define LONG47 "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstu"  /* 47 chars: fits */
#define LONG48 "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuv" /* 48: skipped */

static const KvCase vmstat_cases[] = {
        { "two lines", "nr_free_pages 5\npgfault 7\n", 0, 0, 2, 0, "pgfault", 7 },
        { "no trailing newline", "nr_free_pages 5\npgfault 7", 0, 0, 2, 0, "pgfault", 7 },
        { "unknown key kept", "vendor_counter_x 42\n", 0, 0, 1, 0, "vendor_counter_x", 42 },
        { "blank lines skipped", "\na 1\n\n  \nb 2\n\n", 0, 0, 2, 0, "b", 2 },
        { "tabs and spaces", "a\t 1  \r\n", 0, 0, 1, 0, "a", 1 },
        { "uint64 max", "a 18446744073709551615\n", 0, 0, 1, 0, "a", UINT64_MAX },
        { "duplicate: first wins", "a 1\na 2\n", 0, 0, 2, 0, "a", 1 },
        { "47-char name kept", LONG47 " 3\n", 0, 0, 1, 0, LONG47, 3 },
        { "48-char name skipped", LONG48 " 3\nb 4\n", 0, 0, 1, 1, "b", 4 },
        { "only a too-long name", LONG48 " 3\n", 0, 0, 0, 1, NULL, 0 },
        { "empty", "", 0, -ENODATA, 0, 0, NULL, 0 },
        { "only newlines", "\n\n", 0, -ENODATA, 0, 0, NULL, 0 },
        { "truncated line", "a 1\nb\n", 0, -EBADMSG, 0, 0, NULL, 0 },
        { "truncated mid-name", "a 1\nnr_fr", 0, -EBADMSG, 0, 0, NULL, 0 },
        { "extra field", "a 1 2\n", 0, -EBADMSG, 0, 0, NULL, 0 },
        { "non-numeric", "a x1\n", 0, -EBADMSG, 0, 0, NULL, 0 },
        { "trailing garbage in number", "a 12k\n", 0, -EBADMSG, 0, 0, NULL, 0 },
        { "negative", "a -1\n", 0, -EBADMSG, 0, 0, NULL, 0 },
        { "plus sign", "a +1\n", 0, -EBADMSG, 0, 0, NULL, 0 },
        { "huge", "a 18446744073709551616\n", 0, -ERANGE, 0, 0, NULL, 0 },
        { "very huge", "a 99999999999999999999999999\n", 0, -ERANGE, 0, 0, NULL, 0 },
        { "meminfo fed to vmstat", "MemTotal: 5 kB\n", 0, -EBADMSG, 0, 0, NULL, 0 },
        { "colon name", "a: 5\n", 0, -EBADMSG, 0, 0, NULL, 0 },
        { "embedded NUL", "a\0b 5\n", 6, -EBADMSG, 0, 0, NULL, 0 },
};

static const KvCase meminfo_cases[] = {
        { "kB and bare", "MemTotal: 100 kB\nHugePages_Total:   3\n", 0, 0, 2, 0, "HugePages_Total", 3 },
        { "kB kept as printed", "MemTotal:  100 kB\n", 0, 0, 1, 0, "MemTotal", 100 },
        { "no trailing newline", "MemTotal: 100 kB\nMemFree: 7 kB", 0, 0, 2, 0, "MemFree", 7 },
        { "parentheses", "MemTotal: 9 kB\nActive(anon): 5 kB\n", 0, 0, 2, 0, "Active(anon)", 5 },
        { "unknown key kept", "MemTotal: 9 kB\nVendorThing: 1 kB\n", 0, 0, 2, 0, "VendorThing", 1 },
        { "too-long name skipped", "MemTotal: 9 kB\n" LONG48 ": 1 kB\n", 0, 0, 1, 1, "MemTotal", 9 },
        { "MemFree == MemTotal", "MemTotal: 9 kB\nMemFree: 9 kB\n", 0, 0, 2, 0, "MemFree", 9 },
        { "empty", "", 0, -ENODATA, 0, 0, NULL, 0 },
        { "no MemTotal", "MemFree: 9 kB\n", 0, -ENODATA, 0, 0, NULL, 0 },
        { "MemFree > MemTotal", "MemTotal: 9 kB\nMemFree: 10 kB\n", 0, -EBADMSG, 0, 0, NULL, 0 },
        { "MemAvailable > MemTotal", "MemTotal: 9 kB\nMemAvailable: 10 kB\n", 0, -EBADMSG, 0, 0, NULL, 0 },
        { "no colon", "MemTotal 100 kB\n", 0, -EBADMSG, 0, 0, NULL, 0 },
        { "empty name", ": 100 kB\n", 0, -EBADMSG, 0, 0, NULL, 0 },
        { "truncated", "MemTotal: 100 kB\nMemFree:", 0, -EBADMSG, 0, 0, NULL, 0 },
        { "other unit", "MemTotal: 100 MB\n", 0, -EBADMSG, 0, 0, NULL, 0 },
        { "extra field", "MemTotal: 100 kB x\n", 0, -EBADMSG, 0, 0, NULL, 0 },
        { "non-numeric", "MemTotal: lots kB\n", 0, -EBADMSG, 0, 0, NULL, 0 },
        { "huge", "MemTotal: 18446744073709551616 kB\n", 0, -ERANGE, 0, 0, NULL, 0 },
        { "vmstat fed to meminfo", "nr_free_pages 5\n", 0, -EBADMSG, 0, 0, NULL, 0 },
};

static void run_kv_cases(const KvCase *cases, size_t n, int (*parse)(const char *, size_t, KvList *))
{
        KvList *l = kv_new();

        for (size_t i = 0; i < n; i++) {
                const KvCase *c = &cases[i];
                size_t len = c->len ? c->len : strlen(c->input);
                int r;

                /* a canary: on failure ret must stay untouched */
                l->n = 777;
                l->n_skipped = 778;
                r = parse(c->input, len, l);
                assert_row_rc(c->name, r, c->rc);
                if (r < 0) {
                        assert_int_equal(l->n, 777);
                        assert_int_equal(l->n_skipped, 778);
                        continue;
                }
                if (l->n != c->n || l->n_skipped != c->n_skipped)
                        fail_msg("case '%s': n %u/%u, expected %u/%u", c->name, l->n, l->n_skipped, c->n,
                                 c->n_skipped);
                if (c->key) {
                        uint64_t v = 0;

                        if (kv_get(l, c->key, &v) != 0 || v != c->value)
                                fail_msg("case '%s': %s = %" PRIu64, c->name, c->key, v);
                }
        }
        free(l);
}

static void test_vmstat_table(void **state)
{
        run_kv_cases(vmstat_cases, ELEMENTSOF(vmstat_cases), vmstat_parse);
}

static void test_meminfo_table(void **state)
{
        run_kv_cases(meminfo_cases, ELEMENTSOF(meminfo_cases), meminfo_parse);
}

/* FRAGD_MAX_KV entries fit, one more is -E2BIG; too-long names do not count. */
static void test_vmstat_capacity(void **state)
{
        size_t cap = (FRAGD_MAX_KV + 2) * 32;
        char *buf = malloc(cap);
        KvList *l = kv_new();
        size_t len = 0;

        assert_non_null(buf);
        for (unsigned i = 0; i < FRAGD_MAX_KV; i++)
                len += (size_t) snprintf(buf + len, cap - len, "k%u %u\n", i, i);
        len += (size_t) snprintf(buf + len, cap - len, LONG48 " 1\n");
        assert_int_equal(vmstat_parse(buf, len, l), 0);
        assert_int_equal(l->n, FRAGD_MAX_KV);
        assert_int_equal(l->n_skipped, 1);
        assert_int_equal(kv_get_or(l, "k511", 0), 511);
        len += (size_t) snprintf(buf + len, cap - len, "one_more 1\n");
        assert_int_equal(vmstat_parse(buf, len, l), -E2BIG);
        free(buf);
        free(l);
}

static void test_kv_get(void **state)
{
        KvList *l = kv_new();
        uint64_t v = 99;

        assert_int_equal(kv_get(l, "a", &v), -ENOENT);
        assert_int_equal(v, 99);
        assert_int_equal(kv_get(NULL, "a", &v), -ENOENT);
        assert_int_equal(kv_get_or(NULL, "a", 5), 5);
        assert_int_equal(vmstat_parse("a 1\nab 2\n", 9, l), 0);
        assert_int_equal(kv_get(l, "ab", &v), 0);
        assert_int_equal(v, 2);
        assert_int_equal(kv_get(l, "b", &v), -ENOENT); /* no suffix match */
        assert_int_equal(kv_get(l, "", &v), -ENOENT);
        assert_int_equal(kv_get_or(l, "a", 5), 1);
        free(l);
}

/* proc/ missing from the root: readers say -ENOENT. */
static void test_no_proc(void **state)
{
        Root *root = fixture_root("synthetic-minimal");
        KvList *l = kv_new();

        /* synthetic-minimal has vmstat; an unset fd behaves like no proc */
        closep(&root->proc_fd);
        root->proc_fd = -1;
        assert_int_equal(vmstat_read(root, l), -ENOENT);
        assert_int_equal(meminfo_read(root, l), -ENOENT);
        root_free(root);
        free(l);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_fixtures_listed),
                cmocka_unit_test(test_fixture_vmstat),
                cmocka_unit_test(test_fixture_meminfo),
                cmocka_unit_test(test_fixture_memory_stat),
                cmocka_unit_test(test_memory_stat_bad_paths),
                cmocka_unit_test(test_vmstat_table),
                cmocka_unit_test(test_meminfo_table),
                cmocka_unit_test(test_vmstat_capacity),
                cmocka_unit_test(test_kv_get),
                cmocka_unit_test(test_no_proc),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
