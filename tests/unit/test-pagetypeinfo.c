/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pagetypeinfo_parse/read/find against the real captures and a table of
 * kernel variants (Reserve, CMA, <NULL>, column orders, pageblock orders,
 * capped cells) and malformed inputs. */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "parser-test-util.h"
#include "fragd/metrics.h"
#include "fragd/obs.h"
#include "sources/observe.h"
#include "sources/sources.h"

/* ---- real captures ------------------------------------------------------ */

/* Expected values were taken from the fixture files with awk, not fragd:
 *   /^Page block order/ { print "pbo", $4 }   /^Pages per block/ { print "ppb", $4 }
 *   /^Free pages/       { print "orders", NF-8 }
 *   /^Node/ && /type/   { n=$2; sub(",","",n); z=$4; sub(",","",z); s=0;
 *                         for (i=7; i<=NF; i++) s+=$i;
 *                         printf "%s/%s %s sum=%d o0=%s o10=%s\n", n, z, $6, s, $7, $NF }
 *   /^Node/ && !/type/  { print }      (block-count rows, read by eye)
 * Every capture is pageblock order 9 / 512 pages, 11 orders, types
 * Unmovable Movable Reclaimable HighAtomic Isolate (no CMA), and no cell is
 * capped. The block counts match the fixture READMEs' pageblock tables. */
typedef struct PtExpectZone {
        int node;
        const char *zone;
        const char *type;
        uint64_t sum, o0, o10;
        uint64_t blocks[5]; /* Unmovable Movable Reclaimable HighAtomic Isolate */
} PtExpectZone;

typedef struct PtFixture {
        const char *dir;
        unsigned n_zones;
        PtExpectZone z[3];
} PtFixture;

static const PtFixture fixtures[] = {
        { "host-6.18-x86_64", 3, {
                { 0, "Normal", "Movable", 9901, 344, 925, { 58, 2610, 84, 0, 0 } },
                { 0, "Normal", "Reclaimable", 736, 407, 0, { 58, 2610, 84, 0, 0 } },
                { 0, "DMA32", "Movable", 780, 1, 751, { 2, 1526, 0, 0, 0 } },
        } },
        { "vm-6.1-x86_64-1node-pressure", 2, {
                { 0, "DMA32", "Movable", 345, 3, 9, { 22, 476, 5, 1, 0 } },
                { 0, "DMA32", "HighAtomic", 32, 2, 0, { 22, 476, 5, 1, 0 } },
                { 0, "DMA", "Reclaimable", 7, 0, 0, { 1, 6, 1, 0, 0 } },
        } },
        { "vm-6.1-x86_64-2node-compacted", 4, {
                { 1, "Normal", "Movable", 22679, 5667, 132, { 35, 471, 6, 0, 0 } },
                { 1, "Normal", "Unmovable", 169, 22, 0, { 35, 471, 6, 0, 0 } },
                { 0, "DMA32", "Movable", 617, 51, 440, { 45, 969, 2, 0, 0 } },
        } },
        { "vm-6.1-x86_64-2node-fragmented", 4, {
                { 0, "DMA32", "Movable", 115617, 28869, 20, { 45, 969, 2, 0, 0 } },
                { 1, "Normal", "Movable", 57635, 14430, 5, { 29, 477, 6, 0, 0 } },
                { 1, "DMA32", "Unmovable", 2, 0, 0, { 2, 510, 0, 0, 0 } },
        } },
        { "vm-6.1-x86_64-2node-fresh", 4, {
                { 0, "DMA32", "Movable", 483, 1, 479, { 27, 987, 2, 0, 0 } },
                { 1, "DMA32", "Movable", 248, 0, 239, { 0, 512, 0, 0, 0 } },
                { 1, "Normal", "Reclaimable", 7, 1, 0, { 25, 481, 6, 0, 0 } },
        } },
};

/* a new capture must get its expected values here too */
static void test_fixtures_listed(void **state)
{
        assert_fixtures_listed(fixtures, dir);
}

static const char *const fixture_types[] = { "Unmovable", "Movable", "Reclaimable", "HighAtomic", "Isolate" };

static void check_fixture(const PageTypeInfo *p, const PtFixture *f)
{
        assert_int_equal(p->pageblock_order, 9);
        assert_int_equal(p->pages_per_block, 512);
        assert_int_equal(p->n_orders, 11);
        assert_int_equal(p->n_types, 5);
        for (unsigned i = 0; i < 5; i++) {
                assert_string_equal(p->types[i], fixture_types[i]);
                assert_int_equal(pagetypeinfo_type_index(p, fixture_types[i]), (int) i);
        }
        assert_int_equal(pagetypeinfo_type_index(p, "CMA"), -ENOENT);
        assert_int_equal(p->n_zones, f->n_zones);

        for (unsigned i = 0; i < p->n_zones; i++) {
                assert_true(p->zones[i].have_blocks);
                for (unsigned t = 0; t < p->n_types; t++)
                        assert_int_equal(p->zones[i].capped[t], 0);
        }
        for (unsigned i = 0; i < ELEMENTSOF(f->z); i++) {
                const PtExpectZone *e = &f->z[i];
                const PageTypeZone *z = pagetypeinfo_find(p, e->node, e->zone);
                int t = pagetypeinfo_type_index(p, e->type);
                uint64_t sum = 0;

                assert_non_null(z);
                assert_true(t >= 0);
                for (unsigned k = 0; k < p->n_orders; k++)
                        sum += z->free[t][k];
                assert_int_equal(sum, e->sum);
                assert_int_equal(z->free[t][0], e->o0);
                assert_int_equal(z->free[t][10], e->o10);
                for (unsigned b = 0; b < 5; b++)
                        assert_int_equal(z->blocks[b], e->blocks[b]);
        }
}

DEFINE_FIXTURE_PARSE_READ_TESTS(pagetypeinfo, PageTypeInfo, PtFixture, check_fixture)

/* Node 1's rows come after the repeated header of the 2-node guest; its
 * zones are not confused with node 0's. One full row copied by eye:
 * "Node    1, zone   Normal, type      Movable  14430  14407  14398  14392      0      0      1      1      0      1      5 " */
static void test_fixture_second_node(void **state)
{
        static const uint64_t want[11] = { 14430, 14407, 14398, 14392, 0, 0, 1, 1, 0, 1, 5 };
        size_t len;
        char *buf = fixture_file("vm-6.1-x86_64-2node-fragmented", "proc/pagetypeinfo", &len);
        PageTypeInfo *p = calloc(1, sizeof(*p));
        const PageTypeZone *z;

        assert_non_null(p);
        assert_int_equal(pagetypeinfo_parse(buf, len, p), 0);
        z = pagetypeinfo_find(p, 1, "Normal");
        assert_non_null(z);
        assert_memory_equal(z->free[pagetypeinfo_type_index(p, "Movable")], want, sizeof(want));
        assert_null(pagetypeinfo_find(p, 0, "Normal"));
        /* zones in file order: node 0 DMA, DMA32, node 1 DMA32, Normal */
        assert_int_equal(p->zones[2].node, 1);
        assert_string_equal(p->zones[2].zone, "DMA32");
        free(p);
        free(buf);
}

/* The non-movable pageblocks defrag_mode is decided from (assess():
 * Unmovable + Reclaimable of every zone, by name; the total leaves
 * Isolate and CMA out), summed by hand from the "Number of blocks type"
 * rows: host-6.18 DMA 1+0, DMA32 2+0, Normal 58+84 = 145 of
 * 8 + 1528 + 2752 = 4288; the 2-node guest node 0 DMA 1+0, DMA32 45+2 =
 * 48 of 1024, node 1 DMA32 2+0, Normal 29+6 = 37 of 1024. */
static void test_fixture_nonmovable_blocks(void **state)
{
        static const struct {
                const char *dir;
                unsigned n_nodes;
                uint64_t nonmovable[2], total[2], sum, sum_total;
        } cases[] = {
                { "host-6.18-x86_64", 1, { 145 }, { 4288 }, 145, 4288 },
                { "vm-6.1-x86_64-2node-fragmented", 2, { 48, 37 }, { 1024, 1024 }, 85, 2048 },
        };

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                Root *root = fixture_root(cases[i].dir);
                Observation *o = calloc(1, sizeof(*o));
                Assessment *a = calloc(1, sizeof(*a));
                unsigned mask = OBS_MASK(OBS_BUDDYINFO) | OBS_MASK(OBS_ZONEINFO) | OBS_MASK(OBS_PAGETYPEINFO);

                assert_non_null(o);
                assert_non_null(a);
                assert_int_equal(observation_read(root, mask, 5 * USEC_PER_SEC, o), 0);
                assert_true(o->have & OBS_MASK(OBS_PAGETYPEINFO));
                assert_int_equal(assess(o, NULL, a), 0);
                assert_int_equal(a->n_nodes, cases[i].n_nodes);
                for (unsigned n = 0; n < cases[i].n_nodes; n++) {
                        assert_int_equal(a->nodes[n].nonmovable_blocks, cases[i].nonmovable[n]);
                        assert_int_equal(a->nodes[n].blocks_total, cases[i].total[n]);
                }
                assert_int_equal(a->pollution.nonmovable_blocks, cases[i].sum);
                assert_int_equal(a->pollution.blocks_total, cases[i].sum_total);
                assert_int_equal(a->pollution.blocks_usec, 5 * USEC_PER_SEC);
                /* no trace instance in a capture: no fallbacks counted */
                assert_false(a->pollution.extfrag_valid);
                free(a);
                free(o);
                root = root_free(root);
        }
}

/* ---- table -------------------------------------------------------------- */

typedef struct PtCase {
        const char *name;
        const char *input;
        int rc;
        struct { /* checked when rc == 0 */
                unsigned n_zones, n_types, n_orders, pageblock_order;
                int node;
                const char *zone;
                const char *type;
                int type_index;
                unsigned order;
                uint64_t value;
                uint32_t capped;
                bool have_blocks;
                uint64_t blocks;
        } ok;
} PtCase;

/* CASE(name, input, rc[, n_zones, n_types, n_orders, pageblock_order, node,
 *      zone, type, type_index, order, value, capped, have_blocks, blocks]) */
#define CASE(n, in, r, ...) { .name = n, .input = in, .rc = r, .ok = { __VA_ARGS__ } }

#define HDR(order, per_block)                                                \
        "Page block order: " #order "\n"                                     \
        "Pages per block:  " #per_block "\n"                                 \
        "\n"
#define ORDERS3 "Free pages count per migrate type at order       0      1      2 \n"
#define ORDERS14                                                             \
        "Free pages count per migrate type at order       0      1      2      3      4      5"  \
        "      6      7      8      9     10     11     12     13 \n"
#define HDR9 HDR(9, 512) ORDERS3
#define ROW(node, zone, type, cells) "Node    " #node ", zone " zone ", type " type " " cells " \n"
#define BLOCKS_HDR(cols) "\nNumber of blocks type " cols " \n"
#define BROW(node, zone, cells) "Node " #node ", zone " zone " " cells " \n"

static const PtCase cases[] = {
        CASE("empty", "", -ENODATA),
        CASE("blank", "\n\n", -ENODATA),
        CASE("minimal", HDR9 ROW(0, "Normal", "Movable", "1 2 3"), 0, 1, 1, 3, 9, 0, "Normal", "Movable", 0,
             2, 3, 0, false, 0),
        CASE("no-trailing-newline", HDR9 "Node 0, zone Normal, type Movable 1 2 3", 0, 1, 1, 3, 9, 0,
             "Normal", "Movable", 0, 2, 3, 0, false, 0),
        CASE("no-trailing-spaces",
             "Page block order: 9\nPages per block: 512\nFree pages count per migrate type at order 0 1 2\n"
             "Node 0, zone Normal, type Movable 4 5 6\n"
             "Number of blocks type Unmovable Movable\nNode 0, zone Normal 7 8\n",
             0, 1, 2, 3, 9, 0, "Normal", "Unmovable", 1, 0, 0, 0, true, 7),
        CASE("capped-cells",
             HDR9 ROW(0, "Normal", "Movable", ">100000 >100000  77777"), 0, 1, 1, 3, 9, 0, "Normal",
             "Movable", 0, 1, 100000, 0x3, false, 0),
        CASE("capped-cell-one-space", HDR9 ROW(0, "Normal", "Movable", "1234567 >100000 1"), 0, 1, 1, 3, 9,
             0, "Normal", "Movable", 0, 1, 100000, 0x2, false, 0),
        CASE("cma-and-isolate",
             HDR9 ROW(0, "Normal", "Unmovable", "1 1 1") ROW(0, "Normal", "CMA", "5 6 7")
                     ROW(0, "Normal", "Isolate", "0 0 0")
                     BLOCKS_HDR("Unmovable CMA Isolate") BROW(0, "Normal", "10 20 0"),
             0, 1, 3, 3, 9, 0, "Normal", "CMA", 1, 2, 7, 0, true, 20),
        /* 2.6.2x: Reserve type, Reclaimable before Movable */
        CASE("reserve-old-order",
             HDR(9, 512) "Free pages count per migrate type at order       0      1      2 \n"
             ROW(0, "DMA", "Unmovable", "1 0 0") ROW(0, "DMA", "Reclaimable", "0 0 0")
             ROW(0, "DMA", "Movable", "2 2 2") ROW(0, "DMA", "Reserve", "0 0 9")
             ROW(0, "DMA", "Isolate", "0 0 0")
             BLOCKS_HDR("Unmovable  Reclaimable      Movable      Reserve      Isolate")
             BROW(0, "DMA", "1 0 2 3 0"),
             0, 1, 5, 3, 9, 0, "DMA", "Reserve", 3, 2, 9, 0, true, 3),
        CASE("null-type",
             HDR9 ROW(0, "Normal", "Movable", "1 2 3") ROW(0, "Normal", "<NULL>", "0 0 4")
             BLOCKS_HDR("Movable <NULL>") BROW(0, "Normal", "5 6"),
             0, 1, 2, 3, 9, 0, "Normal", "<NULL>", 1, 2, 4, 0, true, 6),
        /* block columns in another order than the rows: mapped by name */
        CASE("blocks-columns-reordered",
             HDR9 ROW(0, "Normal", "Unmovable", "1 1 1") ROW(0, "Normal", "Movable", "2 2 2")
             BLOCKS_HDR("Movable Unmovable") BROW(0, "Normal", "300 4"),
             0, 1, 2, 3, 9, 0, "Normal", "Unmovable", 0, 0, 1, 0, true, 4),
        CASE("blocks-only-type",
             HDR9 ROW(0, "Normal", "Movable", "1 1 1") BLOCKS_HDR("Movable Vendor") BROW(0, "Normal", "3 4"),
             0, 1, 2, 3, 9, 0, "Normal", "Vendor", 1, 0, 0, 0, true, 4),
        CASE("pageblock-order-10", HDR(10, 1024) ORDERS3 ROW(0, "Normal", "Movable", "1 2 3"), 0, 1, 1, 3,
             10, 0, "Normal", "Movable", 0, 0, 1, 0, false, 0),
        /* arm64 64K pages: pageblock order 13, 14 orders */
        CASE("arm64-64k",
             HDR(13, 8192) ORDERS14
             ROW(0, "Normal", "Movable", "1 2 3 4 5 6 7 8 9 10 11 12 13 >100000")
             BLOCKS_HDR("Unmovable Movable") BROW(0, "Normal", "1 2"),
             0, 1, 2, 14, 13, 0, "Normal", "Movable", 0, 13, 100000, 1u << 13, true, 2),
        CASE("node-10",
             HDR9 ROW(10, "Normal", "Movable", "1 2 3") BLOCKS_HDR("Movable") BROW(10, "Normal", "4"), 0, 1,
             1, 3, 9, 10, "Normal", "Movable", 0, 2, 3, 0, true, 4),
        CASE("header-per-node",
             HDR9 ROW(0, "DMA32", "Movable", "1 2 3") BLOCKS_HDR("Movable") BROW(0, "DMA32", "4")
             HDR9 ROW(1, "Normal", "Movable", "5 6 7") BLOCKS_HDR("Movable") BROW(1, "Normal", "8"),
             0, 2, 1, 3, 9, 1, "Normal", "Movable", 0, 2, 7, 0, true, 8),
        CASE("mixed-blocks-ignored",
             HDR9 ROW(0, "Normal", "Movable", "1 2 3") BLOCKS_HDR("Movable") BROW(0, "Normal", "4")
             "\nNumber of mixed blocks    Movable \n" BROW(0, "Normal", "99"),
             0, 1, 1, 3, 9, 0, "Normal", "Movable", 0, 2, 3, 0, true, 4),
        CASE("no-pages-per-block",
             "Page block order: 9\n" ORDERS3 ROW(0, "Normal", "Movable", "1 2 3"), 0, 1, 1, 3, 9, 0,
             "Normal", "Movable", 0, 2, 3, 0, false, 0),
        CASE("u64-max", HDR9 ROW(0, "N", "Movable", "0 0 18446744073709551615"), 0, 1, 1, 3, 9, 0, "N",
             "Movable", 0, 2, UINT64_MAX, 0, false, 0),
        CASE("type-name-23", HDR9 ROW(0, "N", "ABCDEFGHIJKLMNOPQRSTUVW", "0 0 1"), 0, 1, 1, 3, 9, 0, "N",
             "ABCDEFGHIJKLMNOPQRSTUVW", 0, 2, 1, 0, false, 0),

        CASE("type-name-24", HDR9 ROW(0, "N", "ABCDEFGHIJKLMNOPQRSTUVWX", "0 0 1"), -EBADMSG),
        CASE("overflow", HDR9 ROW(0, "N", "Movable", "0 0 18446744073709551616"), -ERANGE),
        CASE("overflow-capped", HDR9 ROW(0, "N", "Movable", "0 0 >99999999999999999999"), -ERANGE),
        CASE("overflow-blocks", HDR9 ROW(0, "N", "Movable", "0 0 0") BLOCKS_HDR("Movable")
             BROW(0, "N", "99999999999999999999"), -ERANGE),
        CASE("overflow-order", "Page block order: 99999999999999999999\n", -ERANGE),
        CASE("pageblock-order-64", HDR(64, 1) ORDERS3 ROW(0, "N", "Movable", "1 2 3"), -ERANGE),
        CASE("per-block-mismatch", HDR(9, 1024) ORDERS3 ROW(0, "N", "Movable", "1 2 3"), -EBADMSG),
        CASE("order-disagrees-per-node", HDR9 ROW(0, "N", "Movable", "1 2 3") HDR(10, 1024) ORDERS3,
             -EBADMSG),
        CASE("orders-disagree-per-node", HDR9 ROW(0, "N", "Movable", "1 2 3") HDR(9, 512) ORDERS14,
             -EBADMSG),
        CASE("missing-page-block-order", "Pages per block:  512\n" ORDERS3 ROW(0, "N", "Movable", "1 2 3"),
             -ENODATA),
        CASE("header-only", HDR9, -ENODATA),
        CASE("row-before-orders-header", HDR(9, 512) ROW(0, "N", "Movable", "1 2 3"), -EBADMSG),
        CASE("orders-not-sequential",
             HDR(9, 512) "Free pages count per migrate type at order 0 2 1\n" ROW(0, "N", "Movable", "1 2 3"),
             -EBADMSG),
        CASE("orders-empty", HDR(9, 512) "Free pages count per migrate type at order\n", -EBADMSG),
        CASE("orders-17", HDR(9, 512) "Free pages count per migrate type at order 0 1 2 3 4 5 6 7 8 9 10 11"
             " 12 13 14 15 16\n", -E2BIG),
        CASE("row-too-short", HDR9 ROW(0, "N", "Movable", "1 2"), -EBADMSG),
        CASE("row-too-long", HDR9 ROW(0, "N", "Movable", "1 2 3 4"), -EBADMSG),
        CASE("row-truncated", HDR9 "Node    0, zone   Normal, type  Mov", -EBADMSG),
        CASE("row-no-type-name", HDR9 "Node 0, zone Normal, type\n", -EBADMSG),
        CASE("row-no-type-keyword", HDR9 "Node 0, zone Normal, kind Movable 1 2 3\n", -EBADMSG),
        CASE("non-numeric", HDR9 ROW(0, "N", "Movable", "1 x 3"), -EBADMSG),
        CASE("capped-empty", HDR9 ROW(0, "N", "Movable", "1 > 3"), -EBADMSG),
        CASE("capped-twice", HDR9 ROW(0, "N", "Movable", "1 >>3 3"), -EBADMSG),
        CASE("cells-glued", HDR9 ROW(0, "N", "Movable", "1 >100000>100000"), -EBADMSG),
        CASE("duplicate-row", HDR9 ROW(0, "N", "Movable", "1 2 3") ROW(0, "N", "Movable", "1 2 3"), -EBADMSG),
        CASE("duplicate-block-row", HDR9 ROW(0, "N", "Movable", "1 2 3") BLOCKS_HDR("Movable")
             BROW(0, "N", "1") BROW(0, "N", "1"), -EBADMSG),
        CASE("duplicate-block-column", HDR9 ROW(0, "N", "Movable", "1 2 3") BLOCKS_HDR("Movable Movable"),
             -EBADMSG),
        CASE("blocks-header-empty", HDR9 ROW(0, "N", "Movable", "1 2 3") "Number of blocks type\n", -EBADMSG),
        CASE("block-row-short", HDR9 ROW(0, "N", "Movable", "1 2 3") BLOCKS_HDR("Movable CMA")
             BROW(0, "N", "1"), -EBADMSG),
        CASE("block-row-long", HDR9 ROW(0, "N", "Movable", "1 2 3") BLOCKS_HDR("Movable")
             BROW(0, "N", "1 2"), -EBADMSG),
        CASE("block-row-in-free-table", HDR9 BROW(0, "N", "1 2 3"), -EBADMSG),
        CASE("free-row-in-blocks-table", HDR9 ROW(0, "N", "Movable", "1 2 3") BLOCKS_HDR("Movable")
             ROW(0, "N", "CMA", "1 2 3"), -EBADMSG),
        CASE("row-after-unknown-line", HDR9 "vendor says hello\n" ROW(0, "N", "Movable", "1 2 3"), -EBADMSG),
        CASE("too-many-types",
             HDR9 ROW(0, "N", "T1", "0 0 0") ROW(0, "N", "T2", "0 0 0") ROW(0, "N", "T3", "0 0 0")
             ROW(0, "N", "T4", "0 0 0") ROW(0, "N", "T5", "0 0 0") ROW(0, "N", "T6", "0 0 0")
             ROW(0, "N", "T7", "0 0 0") ROW(0, "N", "T8", "0 0 0") ROW(0, "N", "T9", "0 0 0")
             ROW(0, "N", "T10", "0 0 0") ROW(0, "N", "T11", "0 0 0") ROW(0, "N", "T12", "0 0 0")
             ROW(0, "N", "T13", "0 0 0"),
             -E2BIG),
        CASE("node-overflow", HDR9 ROW(2147483648, "N", "Movable", "1 2 3"), -ERANGE),
};

static void test_case(void **state)
{
        const PtCase *c = *state;
        PageTypeInfo *p = calloc(1, sizeof(*p));
        int r;

        assert_non_null(p);
        r = pagetypeinfo_parse(c->input, strlen(c->input), p);
        assert_row_rc(c->name, r, c->rc);
        if (r == 0) {
                const PageTypeZone *z = pagetypeinfo_find(p, c->ok.node, c->ok.zone);
                int t = pagetypeinfo_type_index(p, c->ok.type);

                assert_int_equal(p->n_zones, c->ok.n_zones);
                assert_int_equal(p->n_types, c->ok.n_types);
                assert_int_equal(p->n_orders, c->ok.n_orders);
                assert_int_equal(p->pageblock_order, c->ok.pageblock_order);
                assert_int_equal(p->pages_per_block, UINT64_C(1) << c->ok.pageblock_order);
                assert_non_null(z);
                assert_int_equal(t, c->ok.type_index);
                assert_int_equal(z->free[t][c->ok.order], c->ok.value);
                assert_int_equal(z->capped[t], c->ok.capped);
                assert_int_equal(z->have_blocks, c->ok.have_blocks);
                assert_int_equal(z->blocks[t], c->ok.blocks);
        }
        free(p);
}

/* ---- properties that are awkward in the table ---------------------------- */

/* 128 zones fit, the 129th is -E2BIG */
static void test_capacity(void **state)
{
        size_t cap = 64 * 1024, len = 0;
        char *buf = malloc(cap);
        PageTypeInfo *p = calloc(1, sizeof(*p));

        assert_non_null(buf);
        assert_non_null(p);
        len += (size_t) snprintf(buf + len, cap - len, HDR9);
        for (int i = 0; i < FRAGD_MAX_ZONES; i++)
                len += (size_t) snprintf(buf + len, cap - len, "Node %d, zone Normal, type Movable 1 2 %d\n",
                                         i, i);
        assert_int_equal(pagetypeinfo_parse(buf, len, p), 0);
        assert_int_equal(p->n_zones, FRAGD_MAX_ZONES);
        assert_int_equal(pagetypeinfo_find(p, 127, "Normal")->free[0][2], 127);
        len += (size_t) snprintf(buf + len, cap - len, "Node 999, zone Normal, type Movable 1 2 3\n");
        assert_int_equal(pagetypeinfo_parse(buf, len, p), -E2BIG);
        free(p);
        free(buf);
}

/* Each capped cell sets exactly its own order's bit, per type. */
static void test_capped_bits(void **state)
{
        static const char in[] = HDR(9, 512) ORDERS14
                ROW(0, "Normal", "Unmovable", ">100000 0 0 0 0 0 0 0 0 0 0 0 0 >100000")
                ROW(0, "Normal", "Movable", "0 >100000 >100000 0 0 0 0 0 0 0 0 0 0 1");
        PageTypeInfo *p = calloc(1, sizeof(*p));
        const PageTypeZone *z;

        assert_non_null(p);
        assert_int_equal(pagetypeinfo_parse(in, strlen(in), p), 0);
        z = pagetypeinfo_find(p, 0, "Normal");
        assert_non_null(z);
        assert_int_equal(z->capped[0], (1u << 0) | (1u << 13));
        assert_int_equal(z->capped[1], (1u << 1) | (1u << 2));
        assert_int_equal(z->free[0][13], 100000);
        assert_int_equal(z->free[1][13], 1);
        free(p);
}

/* *ret is untouched on every failure */
static void test_ret_unchanged_on_error(void **state)
{
        assert_failures_leave_ret(pagetypeinfo_parse, PageTypeInfo, cases, 0x3c);
}

/* A success overwrites every field: no stale data from an earlier parse. */
static void test_no_stale_data(void **state)
{
        static const char big[] = HDR9 ROW(0, "A", "Movable", ">100000 2 3") BLOCKS_HDR("Movable")
                BROW(0, "A", "9");
        static const char small[] = HDR9 ROW(1, "B", "CMA", "4 5 6");
        PageTypeInfo *p = malloc(sizeof(*p));

        assert_non_null(p);
        memset(p, 0xff, sizeof(*p));
        assert_int_equal(pagetypeinfo_parse(big, strlen(big), p), 0);
        assert_int_equal(pagetypeinfo_parse(small, strlen(small), p), 0);
        assert_int_equal(p->n_zones, 1);
        assert_int_equal(p->n_types, 1);
        assert_string_equal(p->types[0], "CMA");
        assert_int_equal(p->zones[0].capped[0], 0);
        assert_false(p->zones[0].have_blocks);
        assert_int_equal(p->zones[0].blocks[0], 0);
        assert_int_equal(p->zones[1].node, 0);
        assert_int_equal(p->zones[1].free[0][0], 0);
        free(p);
}

static void test_find(void **state)
{
        static const char in[] = HDR9 ROW(0, "DMA", "Movable", "1 2 3") ROW(2, "DMA", "Movable", "4 5 6");
        PageTypeInfo *p = calloc(1, sizeof(*p));

        assert_non_null(p);
        assert_int_equal(pagetypeinfo_parse(in, strlen(in), p), 0);
        assert_int_equal(pagetypeinfo_find(p, 2, "DMA")->free[0][0], 4);
        assert_null(pagetypeinfo_find(p, 1, "DMA"));
        assert_null(pagetypeinfo_find(p, 0, "DMA32"));
        assert_null(pagetypeinfo_find(p, 0, NULL));
        assert_null(pagetypeinfo_find(NULL, 0, "DMA"));
        assert_int_equal(pagetypeinfo_parse(NULL, 0, p), -ENODATA);
        assert_int_equal(pagetypeinfo_type_index(p, "Movable"), 0);
        assert_int_equal(pagetypeinfo_type_index(p, "movable"), -ENOENT);
        assert_int_equal(pagetypeinfo_type_index(p, NULL), -ENOENT);
        assert_int_equal(pagetypeinfo_type_index(NULL, "Movable"), -ENOENT);
        free(p);
}

static void test_read_missing(void **state)
{
        PageTypeInfo *p = calloc(1, sizeof(*p));
        EmptyRoot e;

        assert_non_null(p);
        empty_root_open(&e, false);
        assert_int_equal(pagetypeinfo_read(e.root, p), -ENOENT);
        empty_root_close(&e);
        free(p);
}

/* Since 5.4 the file is 0400 root. A non-root reader gets -EACCES, passed on
 * unchanged with *ret untouched. As root, the check runs in a child that
 * drops to nobody (65534). */
static int read_expect_eacces(const char *dir)
{
        Root *root = NULL;
        PageTypeInfo *p = malloc(sizeof(*p)), *copy = malloc(sizeof(*p));
        int r, ok;

        if (!p || !copy)
                return 0;
        memset(p, 0x77, sizeof(*p));
        memcpy(copy, p, sizeof(*p));
        r = root_open(dir, 4096, &root);
        if (r < 0)
                return 0;
        r = pagetypeinfo_read(root, p);
        ok = r == -EACCES && memcmp(p, copy, sizeof(*p)) == 0;
        root_free(root);
        free(copy);
        free(p);
        return ok;
}

static void test_read_eacces(void **state)
{
        char dir[] = "/tmp/fragd-test-pagetypeinfo-XXXXXX";
        char proc[sizeof(dir) + 8], file[sizeof(dir) + 32];
        int fd;

        assert_non_null(mkdtemp(dir));
        assert_int_equal(chmod(dir, 0755), 0);
        snprintf(proc, sizeof(proc), "%s/proc", dir);
        snprintf(file, sizeof(file), "%s/pagetypeinfo", proc);
        assert_int_equal(mkdir(proc, 0755), 0);
        fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0400);
        assert_true(fd >= 0);
        assert_true(write(fd, HDR9, strlen(HDR9)) > 0);
        (void) close(fd);

        if (geteuid() != 0) {
                assert_int_equal(chmod(file, 0), 0);
                assert_true(read_expect_eacces(dir));
        } else {
                pid_t pid = fork();
                int status = 0;

                assert_true(pid >= 0);
                if (pid == 0) {
                        if (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0)
                                _exit(2);
                        _exit(read_expect_eacces(dir) ? 0 : 1);
                }
                assert_int_equal(waitpid(pid, &status, 0), pid);
                assert_true(WIFEXITED(status));
                assert_int_equal(WEXITSTATUS(status), 0);
        }
        assert_int_equal(unlink(file), 0);
        assert_int_equal(rmdir(proc), 0);
        assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
        static const struct CMUnitTest other_tests[] = {
                cmocka_unit_test(test_fixtures_listed),
                cmocka_unit_test(test_fixture_second_node),
                cmocka_unit_test(test_fixture_nonmovable_blocks),
                cmocka_unit_test(test_capacity),
                cmocka_unit_test(test_capped_bits),
                cmocka_unit_test(test_ret_unchanged_on_error),
                cmocka_unit_test(test_no_stale_data),
                cmocka_unit_test(test_find),
                cmocka_unit_test(test_read_missing),
                cmocka_unit_test(test_read_eacces),
        };
        int fails = 0;

        fails += run_row_tests("pagetypeinfo_parse fixtures", fixtures, dir, test_fixture_parse);
        fails += run_row_tests("pagetypeinfo_read fixtures", fixtures, dir, test_fixture_read);
        fails += run_row_tests("pagetypeinfo table", cases, name, test_case);
        fails += cmocka_run_group_tests_name("pagetypeinfo", other_tests, NULL, NULL);
        return fails ? 1 : 0;
}
