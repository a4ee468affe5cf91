/* SPDX-License-Identifier: GPL-2.0-or-later */
/* thp_mode_parse / thp_read / thp_find_size / thp_size_stat. */

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

static ThpInfo *thp_new(void)
{
        ThpInfo *t = calloc(1, sizeof(*t));

        assert_non_null(t);
        return t;
}

/* ---- fixtures ------------------------------------------------------------ */

/* From `cat sys/kernel/mm/transparent_hugepage/{enabled,defrag,shmem_enabled,
 * hpage_pmd_size,use_zero_page}` and `grep . khugepaged/...` in each tree;
 * mTHP dirs from `ls -d hugepages-...kB` (only the 6.18 host has them). */
typedef struct ThpFixture {
        const char *tree;
        const char *enabled;
        unsigned full_scans;
        unsigned n_sizes;
} ThpFixture;

static const ThpFixture thp_fixtures[] = {
        { "host-6.18-x86_64", "madvise", 23, 9 },
        { "vm-6.1-x86_64-1node-pressure", "always", 0, 0 },
        { "vm-6.1-x86_64-2node-compacted", "always", 0, 0 },
        { "vm-6.1-x86_64-2node-fragmented", "always", 0, 0 },
        { "vm-6.1-x86_64-2node-fresh", "always", 0, 0 },
};

static void test_fixtures_listed(void **state)
{
        assert_fixtures_listed(thp_fixtures, tree);
}

static void test_fixture_thp(void **state)
{
        for (size_t i = 0; i < ELEMENTSOF(thp_fixtures); i++) {
                const ThpFixture *f = &thp_fixtures[i];
                Root *root = fixture_root(f->tree);
                ThpInfo *t = thp_new();

                assert_int_equal(thp_read(root, t), 0);
                assert_string_equal(t->enabled, f->enabled);
                /* identical on every capture */
                assert_string_equal(t->defrag, "madvise");
                assert_string_equal(t->shmem_enabled, "never");
                assert_int_equal(t->hpage_pmd_size, 2097152);
                assert_int_equal(t->use_zero_page, 1);
                assert_int_equal(t->khugepaged_defrag, 1);
                assert_int_equal(t->pages_to_scan, 4096);
                assert_int_equal(t->scan_sleep_millisecs, 10000);
                assert_int_equal(t->alloc_sleep_millisecs, 60000);
                assert_int_equal(t->max_ptes_none, 511);
                assert_int_equal(t->max_ptes_swap, 64);
                assert_int_equal(t->max_ptes_shared, 256);
                assert_int_equal(t->full_scans, f->full_scans);
                assert_int_equal(t->pages_collapsed, 0);
                assert_int_equal(t->n_sizes, f->n_sizes);
                root_free(root);
                free(t);
        }
}

/* The 6.18 host's mTHP dirs (in sys/kernel/mm/transparent_hugepage):
 *   ls -d hugepages-NkB, sorted by N -> 8 16 32 64 128 256 512 1024 2048
 *   hugepages-8kB has no enabled; `ls hugepages-8kB/stats | wc -l` = 11,
 *   the others 18 (incl. the vendor anon_fault_declined);
 *   enabled: 2048kB "[inherit]", all others "[never]";
 *   shmem_enabled: 2048kB "[inherit]", others "[never]";
 *   the only nonzero stats (grep -v '^0$' on every stats file):
 *   hugepages-2048kB/stats/anon_fault_alloc = 19169, hugepages-1024kB/stats/split = 1. */
static void test_fixture_host_mthp(void **state)
{
        static const unsigned sizes[] = { 8, 16, 32, 64, 128, 256, 512, 1024, 2048 };
        Root *root = fixture_root("host-6.18-x86_64");
        ThpInfo *t = thp_new();
        const ThpSize *s;

        assert_int_equal(thp_read(root, t), 0);
        assert_int_equal(t->n_sizes, ELEMENTSOF(sizes));
        for (size_t i = 0; i < ELEMENTSOF(sizes); i++) {
                s = &t->sizes[i];
                assert_int_equal(s->size_kb, sizes[i]);
                assert_ptr_equal(thp_find_size(t, sizes[i]), s);
                if (sizes[i] == 8) {
                        assert_string_equal(s->enabled, "");
                        assert_int_equal(s->n_stats, 11);
                } else {
                        assert_string_equal(s->enabled, sizes[i] == 2048 ? "inherit" : "never");
                        assert_int_equal(s->n_stats, 18);
                }
                assert_string_equal(s->shmem_enabled, sizes[i] == 2048 ? "inherit" : "never");
                /* sorted by name */
                for (unsigned k = 1; k < s->n_stats; k++)
                        assert_true(strcmp(s->stats[k - 1].name, s->stats[k].name) < 0);
                assert_int_equal(thp_size_stat(s, "split", 99), sizes[i] == 1024 ? 1 : 0);
                assert_int_equal(thp_size_stat(s, "anon_fault_alloc", 99), sizes[i] == 2048 ? 19169 : (sizes[i] == 8 ? 99 : 0));
        }
        s = thp_find_size(t, 2048);
        assert_non_null(s);
        /* vendor stat kept; vendor top-level file ignored */
        assert_int_equal(thp_size_stat(s, "anon_fault_declined", 99), 0);
        assert_string_equal(s->stats[0].name, "anon_fault_alloc");
        assert_null(thp_find_size(t, 4096));
        assert_int_equal(thp_size_stat(NULL, "split", 7), 7);
        assert_int_equal(thp_size_stat(s, "no_such_stat", 7), 7);
        root_free(root);
        free(t);
}

/* See tests/fixtures/synthetic-arm64-64k/README.md. */
static void test_synthetic_arm64(void **state)
{
        Root *root = fixture_root("synthetic-arm64-64k");
        ThpInfo *t = thp_new();
        const ThpSize *s;

        assert_int_equal(thp_read(root, t), 0);
        assert_string_equal(t->enabled, "never");
        assert_string_equal(t->defrag, "always");
        assert_string_equal(t->shmem_enabled, ""); /* missing */
        assert_int_equal(t->hpage_pmd_size, 536870912);
        assert_int_equal(t->use_zero_page, 1);
        assert_int_equal(t->pages_to_scan, 8192);
        assert_int_equal(t->max_ptes_none, 8191);
        assert_int_equal(t->full_scans, THP_KHUGEPAGED_UNSET); /* malformed */
        assert_int_equal(t->khugepaged_defrag, THP_KHUGEPAGED_UNSET);
        assert_int_equal(t->max_ptes_swap, THP_KHUGEPAGED_UNSET);
        assert_int_equal(t->pages_collapsed, THP_KHUGEPAGED_UNSET);

        /* ascending by size, not by name; stray file and dir ignored */
        assert_int_equal(t->n_sizes, 4);
        assert_int_equal(t->sizes[0].size_kb, 256);
        assert_int_equal(t->sizes[1].size_kb, 2048);
        assert_int_equal(t->sizes[2].size_kb, 32768);
        assert_int_equal(t->sizes[3].size_kb, 524288);
        assert_string_equal(t->sizes[0].enabled, "");
        assert_string_equal(t->sizes[1].enabled, "madvise");
        assert_string_equal(t->sizes[3].enabled, "inherit");
        assert_null(thp_find_size(t, 4096));

        s = thp_find_size(t, 524288);
        assert_non_null(s);
        /* anon_fault_alloc nr_anon split vendor_big_counter; bad_stat skipped */
        assert_int_equal(s->n_stats, 4);
        assert_int_equal(thp_size_stat(s, "nr_anon", 0), 12);
        assert_int_equal(thp_size_stat(s, "anon_fault_alloc", 0), 524288);
        assert_int_equal(thp_size_stat(s, "vendor_big_counter", 0), UINT64_MAX);
        assert_int_equal(thp_size_stat(s, "bad_stat", 5), 5);
        assert_int_equal(thp_size_stat(thp_find_size(t, 256), "anon_fault_alloc", 0), 256);
        root_free(root);
        free(t);
}

static void test_no_thp(void **state)
{
        Root *root = fixture_root("synthetic-minimal");
        ThpInfo *t = thp_new();

        t->hpage_pmd_size = 4242;
        assert_int_equal(thp_read(root, t), -EOPNOTSUPP);
        assert_int_equal(t->hpage_pmd_size, 4242);
        closep(&root->sys_fd);
        root->sys_fd = -1;
        assert_int_equal(thp_read(root, t), -ENOENT);
        root_free(root);
        free(t);
}

/* ---- thp_mode_parse table ------------------------------------------------ */

typedef struct ModeCase {
        const char *input;
        int rc;
        const char *expected;
} ModeCase;

static const ModeCase mode_cases[] = {
        { "always [madvise] never\n", 0, "madvise" },
        { "[always] madvise never\n", 0, "always" },
        { "always madvise [never]", 0, "never" }, /* no trailing newline */
        { "always defer [defer+madvise] madvise never\n", 0, "defer+madvise" },
        { "always [within_size] advise never deny force\n", 0, "within_size" },
        { "  [inherit]  \n\n", 0, "inherit" },
        { "[a]\n", 0, "a" },
        { "always madvise never\n", -EBADMSG, NULL },  /* no bracket */
        { "[always] [madvise] never\n", -EBADMSG, NULL }, /* two */
        { "[always] madvise\n[never]\n", -EBADMSG, NULL }, /* two, across lines */
        { "", -EBADMSG, NULL },
        { "\n", -EBADMSG, NULL },
        { "[]\n", -EBADMSG, NULL },
        { "always [madvise never\n", -EBADMSG, NULL },   /* unclosed */
        { "always madvise] never\n", -EBADMSG, NULL },   /* unopened */
        { "always [mad vise] never\n", -EBADMSG, NULL }, /* split */
        { "[[madvise]]\n", -EBADMSG, NULL },             /* nested */
        { "always[madvise] never\n", -EBADMSG, NULL },   /* glued */
        { "[mad\x01vise]\n", -EBADMSG, NULL },           /* control char */
        { "[abcdefghijklmnopqrstuvw]\n", 0, "abcdefghijklmnopqrstuvw" }, /* 23: fits */
        { "[abcdefghijklmnopqrstuvwx]\n", -ENAMETOOLONG, NULL },         /* 24: no room for NUL */
};

static void test_mode_table(void **state)
{
        for (size_t i = 0; i < ELEMENTSOF(mode_cases); i++) {
                const ModeCase *c = &mode_cases[i];
                char out[THP_MODE_MAX] = "untouched";
                int r = thp_mode_parse(c->input, strlen(c->input), out, sizeof(out));

                assert_row_rc(c->input, r, c->rc);
                assert_string_equal(out, r < 0 ? "untouched" : c->expected);
        }
}

static void test_mode_len_bound(void **state)
{
        const char buf[] = "always [madvise] never";
        char out[THP_MODE_MAX];

        /* "always [madv": no closing bracket within len */
        assert_int_equal(thp_mode_parse(buf, 12, out, sizeof(out)), -EBADMSG);
        /* an embedded NUL is garbage, not an end */
        assert_int_equal(thp_mode_parse("[a]\0[b]", 7, out, sizeof(out)), -EBADMSG);
        assert_int_equal(thp_mode_parse(buf, strlen(buf), out, 4), -ENAMETOOLONG);
        assert_int_equal(thp_mode_parse(buf, strlen(buf), out, 8), 0);
        assert_string_equal(out, "madvise");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_fixtures_listed),
                cmocka_unit_test(test_fixture_thp),
                cmocka_unit_test(test_fixture_host_mthp),
                cmocka_unit_test(test_synthetic_arm64),
                cmocka_unit_test(test_no_thp),
                cmocka_unit_test(test_mode_table),
                cmocka_unit_test(test_mode_len_bound),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
