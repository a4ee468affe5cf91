/* SPDX-License-Identifier: GPL-2.0-or-later */
/* buddyinfo_parse/read/find against the real captures and a table of
 * malformed and unusual inputs. */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser-test-util.h"
#include "fragd/obs.h"
#include "sources/sources.h"

/* ---- real captures ------------------------------------------------------ */

/* Expected values were worked out from the fixture files with
 *   awk '{s=0; p=0; for (i=5; i<=NF; i++) { s+=$i; p+=$i*2^(i-5) }
 *         print $2, $4, NF-4, s, p, $5, $NF}' proc/buddyinfo
 * i.e. cells = NF-4, sum = Σ cells (free blocks), pages = Σ cell_k·2^k,
 * o0 = first cell, o10 = last cell. */
typedef struct BuddyExpectZone {
        int node;
        const char *zone;
        uint64_t o0, o10, sum_blocks, sum_pages;
} BuddyExpectZone;

typedef struct BuddyFixture {
        const char *dir;
        unsigned n_zones;
        BuddyExpectZone z[4];
} BuddyFixture;

static const BuddyFixture fixtures[] = {
        { "host-6.18-x86_64", 3, {
                { 0, "DMA", 0, 3, 5, 3840 },
                { 0, "DMA32", 1, 751, 784, 772789 },
                { 0, "Normal", 1389, 925, 12841, 1192481 },
        } },
        { "vm-6.1-x86_64-1node-pressure", 2, {
                { 0, "DMA", 5, 0, 62, 1165 },
                { 0, "DMA32", 16, 9, 398, 13842 },
        } },
        { "vm-6.1-x86_64-2node-compacted", 4, {
                { 0, "DMA", 0, 3, 5, 3712 },
                { 0, "DMA32", 91, 440, 820, 464579 },
                { 1, "DMA32", 6241, 127, 25089, 224207 },
                { 1, "Normal", 5684, 132, 22850, 227744 },
        } },
        { "vm-6.1-x86_64-2node-fragmented", 4, {
                { 0, "DMA", 0, 3, 5, 3712 },
                { 0, "DMA32", 28901, 20, 115795, 464565 },
                { 1, "DMA32", 14373, 7, 57506, 223519 },
                { 1, "Normal", 14462, 5, 57734, 223174 },
        } },
        { "vm-6.1-x86_64-2node-fresh", 4, {
                { 0, "DMA", 0, 3, 5, 3712 },
                { 0, "DMA32", 2, 479, 497, 492106 },
                { 1, "DMA32", 0, 239, 248, 245254 },
                { 1, "Normal", 1, 240, 255, 247351 },
        } },
};

/* a new capture must get its expected values here too */
static void test_fixtures_listed(void **state)
{
        assert_fixtures_listed(fixtures, dir);
}

static void check_fixture(const BuddyInfo *b, const BuddyFixture *f)
{
        assert_int_equal(b->n_zones, f->n_zones);
        assert_int_equal(b->n_orders, 11); /* x86-64: 11 cells per row */
        for (unsigned i = 0; i < f->n_zones; i++) {
                const BuddyExpectZone *e = &f->z[i];
                const BuddyZone *z = buddyinfo_find(b, e->node, e->zone);
                uint64_t sum = 0, pages = 0;

                assert_non_null(z);
                /* rows are kept in file order */
                assert_ptr_equal(z, &b->zones[i]);
                assert_int_equal(z->n_orders, 11);
                assert_int_equal(z->nr_free[0], e->o0);
                assert_int_equal(z->nr_free[10], e->o10);
                for (unsigned k = 0; k < z->n_orders; k++) {
                        sum += z->nr_free[k];
                        pages += z->nr_free[k] << k;
                }
                assert_int_equal(sum, e->sum_blocks);
                assert_int_equal(pages, e->sum_pages);
        }
}

DEFINE_FIXTURE_PARSE_READ_TESTS(buddyinfo, BuddyInfo, BuddyFixture, check_fixture)

/* One full row, copied by eye from vm-6.1-x86_64-2node-fragmented:
 * "Node 1, zone   Normal  14462  14430  14421  14403      4      1      3      2      1      2      5 " */
static void test_fixture_full_row(void **state)
{
        static const uint64_t want[11] = { 14462, 14430, 14421, 14403, 4, 1, 3, 2, 1, 2, 5 };
        size_t len;
        char *buf = fixture_file("vm-6.1-x86_64-2node-fragmented", "proc/buddyinfo", &len);
        BuddyInfo *b = calloc(1, sizeof(*b));
        const BuddyZone *z;

        assert_non_null(b);
        assert_int_equal(buddyinfo_parse(buf, len, b), 0);
        z = buddyinfo_find(b, 1, "Normal");
        assert_non_null(z);
        assert_memory_equal(z->nr_free, want, sizeof(want));
        /* node 0 has no Normal zone in buddyinfo (zoneinfo lists it, empty) */
        assert_null(buddyinfo_find(b, 0, "Normal"));
        assert_null(buddyinfo_find(b, 2, "DMA32"));
        free(b);
        free(buf);
}

/* ---- table -------------------------------------------------------------- */

typedef struct BuddyCase {
        const char *name;
        const char *input;
        int rc;
        struct { /* checked when rc == 0 */
                unsigned n_zones, n_orders;
                int node;
                const char *zone;
                unsigned order;
                uint64_t value;
        } ok;
} BuddyCase;

/* CASE(name, input, rc[, n_zones, n_orders, node, zone, order, value]) */
#define CASE(n, in, r, ...) { .name = n, .input = in, .rc = r, .ok = { __VA_ARGS__ } }
#define ROW11 " 1 2 3 4 5 6 7 8 9 10 11 \n"

static const BuddyCase cases[] = {
        CASE("empty", "", -ENODATA),
        CASE("only-newlines", "\n\n  \n", -ENODATA),
        CASE("one-row", "Node 0, zone      DMA      1      2      3 \n", 0, 1, 3, 0, "DMA", 2, 3),
        CASE("no-trailing-space", "Node 0, zone DMA 1 2 3\n", 0, 1, 3, 0, "DMA", 0, 1),
        CASE("no-trailing-newline", "Node 0, zone DMA 1 2 3", 0, 1, 3, 0, "DMA", 2, 3),
        CASE("crlf", "Node 0, zone DMA 1 2 3\r\n", 0, 1, 3, 0, "DMA", 2, 3),
        CASE("tabs", "Node\t0,\tzone\tDMA\t7\t8\n", 0, 1, 2, 0, "DMA", 1, 8),
        CASE("space-before-comma", "Node 0 , zone DMA 5\n", 0, 1, 1, 0, "DMA", 0, 5),
        CASE("x86-11-orders", "Node 0, zone Normal" ROW11, 0, 1, 11, 0, "Normal", 10, 11),
        CASE("arm64-14-orders",
                "Node 0, zone Normal 1 2 3 4 5 6 7 8 9 10 11 12 13 14 \n"
                "Node 0, zone Movable 0 0 0 0 0 0 0 0 0 0 0 0 0 99 \n",
                0, 2, 14, 0, "Movable", 13, 99),
        CASE("16-orders-fit", "Node 0, zone N 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 16\n", 0, 1, 16, 0, "N", 15, 16),
        CASE("17-orders", "Node 0, zone N 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17\n", -E2BIG),
        CASE("node-10", "Node 10, zone Normal 4 5\n", 0, 1, 2, 10, "Normal", 1, 5),
        CASE("sparse-nodes",
                "Node 0, zone DMA32" ROW11 "Node 1, zone Normal" ROW11 "Node 10, zone Normal" ROW11
                "Node 63, zone HighMem" ROW11,
                0, 4, 11, 63, "HighMem", 0, 1),
        CASE("vendor-zone-name", "Node 0, zone Device 1\nNode 0, zone Weird_Zone-2 3\n", 0, 2, 1, 0,
                "Weird_Zone-2", 0, 3),
        CASE("zone-name-23", "Node 0, zone ABCDEFGHIJKLMNOPQRSTUVW 1\n", 0, 1, 1, 0,
                "ABCDEFGHIJKLMNOPQRSTUVW", 0, 1),
        CASE("zone-name-24", "Node 0, zone ABCDEFGHIJKLMNOPQRSTUVWX 1\n", -EBADMSG),
        CASE("wide-cells-one-space", "Node 0, zone DMA32 1234567 12345678 123456789 1\n", 0, 1, 4, 0,
                "DMA32", 2, 123456789),
        CASE("u64-max", "Node 0, zone N 18446744073709551615\n", 0, 1, 1, 0, "N", 0, UINT64_MAX),
        CASE("u64-overflow", "Node 0, zone N 18446744073709551616\n", -ERANGE),
        CASE("huge-overflow", "Node 0, zone N 99999999999999999999999999\n", -ERANGE),
        CASE("node-overflow", "Node 2147483648, zone N 1\n", -ERANGE),
        CASE("node-int-max", "Node 2147483647, zone N 1\n", 0, 1, 1, 2147483647, "N", 0, 1),
        CASE("node-negative", "Node -1, zone N 1\n", -EBADMSG),
        CASE("truncated-after-node", "Node 0,", -EBADMSG),
        CASE("truncated-after-zone", "Node 0, zone", -EBADMSG),
        CASE("no-cells", "Node 0, zone DMA\n", -EBADMSG),
        CASE("no-cells-trailing-space", "Node 0, zone DMA   \n", -EBADMSG),
        CASE("truncated-last-row", "Node 0, zone DMA" ROW11 "Node 0, zone DMA32 1 2 3", -EBADMSG),
        CASE("extra-column", "Node 0, zone DMA" ROW11 "Node 0, zone DMA32 1 2 3 4 5 6 7 8 9 10 11 12\n",
                -EBADMSG),
        CASE("non-numeric", "Node 0, zone DMA 1 2 x3\n", -EBADMSG),
        CASE("negative-cell", "Node 0, zone DMA 1 -2\n", -EBADMSG),
        CASE("capped-cell", "Node 0, zone DMA 1 >100000\n", -EBADMSG),
        CASE("missing-comma", "Node 0 zone DMA 1\n", -EBADMSG),
        CASE("zone-comma", "Node 0, zone DMA, 1\n", -EBADMSG),
        CASE("wrong-keyword", "Node 0, zona DMA 1\n", -EBADMSG),
        CASE("garbage-line", "Node 0, zone DMA 1\nhello world\n", -EBADMSG),
        CASE("duplicate-zone", "Node 0, zone DMA 1\nNode 0, zone DMA 2\n", -EBADMSG),
        CASE("same-zone-other-node", "Node 0, zone DMA 1\nNode 1, zone DMA 2\n", 0, 2, 1, 1, "DMA", 0, 2),
        CASE("blank-lines-between", "\nNode 0, zone DMA 1\n\n\nNode 0, zone DMA32 2\n\n", 0, 2, 1, 0, "DMA32",
                0, 2),
};

static void test_case(void **state)
{
        const BuddyCase *c = *state;
        BuddyInfo *b = calloc(1, sizeof(*b));
        int r;

        assert_non_null(b);
        r = buddyinfo_parse(c->input, strlen(c->input), b);
        assert_row_rc(c->name, r, c->rc);
        if (r == 0) {
                const BuddyZone *z = buddyinfo_find(b, c->ok.node, c->ok.zone);

                assert_int_equal(b->n_zones, c->ok.n_zones);
                assert_int_equal(b->n_orders, c->ok.n_orders);
                assert_non_null(z);
                assert_int_equal(z->n_orders, c->ok.n_orders);
                assert_int_equal(z->nr_free[c->ok.order], c->ok.value);
        }
        free(b);
}

/* ---- properties that are awkward in the table ---------------------------- */

/* 128 zones fit, the 129th is -E2BIG */
static void test_capacity(void **state)
{
        size_t cap = 64 * 1024, len = 0;
        char *buf = malloc(cap);
        BuddyInfo *b = calloc(1, sizeof(*b));

        assert_non_null(buf);
        assert_non_null(b);
        for (int i = 0; i < FRAGD_MAX_ZONES; i++)
                len += (size_t) snprintf(buf + len, cap - len, "Node %d, zone Normal 1 2\n", i);
        assert_int_equal(buddyinfo_parse(buf, len, b), 0);
        assert_int_equal(b->n_zones, FRAGD_MAX_ZONES);
        assert_non_null(buddyinfo_find(b, 127, "Normal"));
        len += (size_t) snprintf(buf + len, cap - len, "Node %d, zone Normal 1 2\n", 1000);
        assert_int_equal(buddyinfo_parse(buf, len, b), -E2BIG);
        free(b);
        free(buf);
}

/* The length is honoured: no NUL terminator needed, and bytes past len are
 * not read. An embedded NUL is garbage. */
static void test_length_and_nul(void **state)
{
        static const char in[] = "Node 0, zone DMA 1 2 3\nNode 0, zone DMA32 1 2 3 4";
        static const char nul[] = "Node 0, zone DMA 1 2\0 3\n";
        BuddyInfo *b = calloc(1, sizeof(*b));

        assert_non_null(b);
        /* cut right after the first line */
        assert_int_equal(buddyinfo_parse(in, 23, b), 0);
        assert_int_equal(b->n_zones, 1);
        assert_int_equal(b->n_orders, 3);
        assert_int_equal(buddyinfo_parse(nul, sizeof(nul) - 1, b), -EBADMSG);
        assert_int_equal(buddyinfo_parse(NULL, 0, b), -ENODATA);
        free(b);
}

/* *ret is untouched on every failure */
static void test_ret_unchanged_on_error(void **state)
{
        assert_failures_leave_ret(buddyinfo_parse, BuddyInfo, cases, 0xa5);
}

static void test_find(void **state)
{
        static const char in[] = "Node 0, zone DMA 1\nNode 1, zone DMA 2\n";
        BuddyInfo *b = calloc(1, sizeof(*b));

        assert_non_null(b);
        assert_int_equal(buddyinfo_parse(in, strlen(in), b), 0);
        assert_int_equal(buddyinfo_find(b, 1, "DMA")->nr_free[0], 2);
        assert_null(buddyinfo_find(b, 0, "dma"));  /* names are case-sensitive */
        assert_null(buddyinfo_find(b, 0, "DMA3")); /* and compared whole */
        assert_null(buddyinfo_find(b, -1, "DMA"));
        assert_null(buddyinfo_find(b, 0, NULL));
        assert_null(buddyinfo_find(NULL, 0, "DMA"));
        free(b);
}

/* ---- reader errors ------------------------------------------------------- */

static void test_read_missing(void **state)
{
        BuddyInfo *b = calloc(1, sizeof(*b));
        EmptyRoot e;

        assert_non_null(b);
        /* no proc/ at all */
        empty_root_open(&e, false);
        assert_int_equal(buddyinfo_read(e.root, b), -ENOENT);
        empty_root_close(&e);
        /* proc/ without buddyinfo */
        empty_root_open(&e, true);
        assert_int_equal(buddyinfo_read(e.root, b), -ENOENT);
        empty_root_close(&e);
        free(b);
}

int main(void)
{
        static const struct CMUnitTest other_tests[] = {
                cmocka_unit_test(test_fixtures_listed),
                cmocka_unit_test(test_fixture_full_row),
                cmocka_unit_test(test_capacity),
                cmocka_unit_test(test_length_and_nul),
                cmocka_unit_test(test_ret_unchanged_on_error),
                cmocka_unit_test(test_find),
                cmocka_unit_test(test_read_missing),
        };
        int fails = 0;

        fails += run_row_tests("buddyinfo_parse fixtures", fixtures, dir, test_fixture_parse);
        fails += run_row_tests("buddyinfo_read fixtures", fixtures, dir, test_fixture_read);
        fails += run_row_tests("buddyinfo table", cases, name, test_case);
        fails += cmocka_run_group_tests_name("buddyinfo", other_tests, NULL, NULL);
        return fails ? 1 : 0;
}
