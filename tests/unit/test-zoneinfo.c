/* SPDX-License-Identifier: GPL-2.0-or-later */
/* zoneinfo_parse/read/find against the real captures and a table of
 * malformed, old-kernel and unusual inputs. */

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

/* Expected values were taken from the fixture files with this awk program
 * (not with fragd), and cross-checked with the "watermarks" facts of each
 * fixture README:
 *   /^Node/ { n=$2; sub(",","",n); z=$4; inpn=0; printf "\n%s/%s:", n, z; next }
 *   /per-node stats/ { inpn=1; next }
 *   /pages free/ { inpn=0; printf " free=%s", $3; next }
 *   inpn && $1 ~ /^nr_(in)?active_(anon|file)$|^nr_slab_reclaimable$|^nr_shmem$|^nr_file_pages$/
 *       { printf " N.%s=%s", $1, $2; next }
 *   !inpn && $1 ~ /^(boost|min|low|high|promo|spanned|present|managed|cma|nr_free_pages
 *                   |nr_free_pages_blocks|start_pfn:|node_unreclaimable:)$/ { printf " %s=%s", $1, $2 }
 * "have" is from which optional lines the zone prints: 6.1 populated zones
 * have managed, boost, cma and start_pfn:; empty zones stop after
 * protection:; 6.18 adds promo and nr_free_pages_blocks. */
#define HAVE_61_POP (ZONE_HAVE_MANAGED | ZONE_HAVE_BOOST | ZONE_HAVE_CMA | ZONE_HAVE_START_PFN)
#define HAVE_61_EMPTY (ZONE_HAVE_MANAGED | ZONE_HAVE_BOOST | ZONE_HAVE_CMA)
#define HAVE_618_POP (HAVE_61_POP | ZONE_HAVE_PROMO | ZONE_HAVE_NR_FREE_BLOCKS)
#define HAVE_618_EMPTY (HAVE_61_EMPTY | ZONE_HAVE_PROMO)

typedef struct ZiExpectZone {
        int node;
        const char *zone;
        unsigned have;
        uint64_t free, min, low, high, promo, spanned, present, managed, start_pfn, free_blocks;
} ZiExpectZone;

typedef struct ZiExpectNode {
        int node;
        uint64_t inactive_anon, active_anon, inactive_file, active_file, slab_reclaimable, shmem,
                file_pages;
} ZiExpectNode;

typedef struct ZiFixture {
        const char *dir;
        unsigned n_zones, n_nodes;
        const char *zone_order; /* zone names of node 0, in file order */
        ZiExpectZone z[4];
        ZiExpectNode n[2];
} ZiFixture;

static const ZiFixture fixtures[] = {
        { "host-6.18-x86_64", 5, 1, "DMA DMA32 Normal Movable Device",
          {
                  { 0, "DMA", HAVE_618_POP, 3840, 29, 36, 43, 50, 4095, 3998, 3840, 1, 3584 },
                  { 0, "Normal", HAVE_618_POP, 1192502, 10891, 13613, 16335, 19057, 5505024, 5505024,
                    1409024, 1048576, 1060864 },
                  /* empty but with non-zero watermarks */
                  { 0, "Movable", HAVE_618_EMPTY, 0, 32, 32, 32, 32, 0, 0, 0, 0, 0 },
          },
          { { 0, 1476, 383, 86803, 53036, 41457, 2218, 142096 } } },
        { "vm-6.1-x86_64-1node-pressure", 5, 1, "DMA DMA32 Normal Movable Device",
          {
                  { 0, "DMA32", HAVE_61_POP, 14424, 11086, 13857, 16628, 0, 258016, 258016, 242034, 4096,
                    0 },
                  { 0, "Normal", HAVE_61_EMPTY, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
          },
          { { 0, 217519, 721, 1, 0, 2594, 702, 703 } } },
        { "vm-6.1-x86_64-2node-compacted", 10, 2, "DMA DMA32 Normal Movable Device",
          {
                  { 1, "DMA32", HAVE_61_POP, 224207, 5517, 6896, 8275, 0, 524288, 262112, 245728, 524288,
                    0 },
                  { 1, "Normal", HAVE_61_POP, 227767, 5706, 7132, 8558, 0, 262144, 262144, 253638,
                    1048576, 0 },
          },
          { { 0, 29358, 527, 0, 0, 102, 944, 944 }, { 1, 29705, 3, 0, 0, 2187, 0, 0 } } },
        { "vm-6.1-x86_64-2node-fragmented", 10, 2, "DMA DMA32 Normal Movable Device",
          {
                  { 0, "DMA", HAVE_61_POP, 3712, 86, 107, 128, 0, 4095, 3998, 3840, 1, 0 },
                  { 0, "DMA32", HAVE_61_POP, 464527, 11217, 14021, 16825, 0, 520192, 520192, 500573, 4096,
                    0 },
                  { 1, "DMA", HAVE_61_EMPTY, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
                  { 1, "DMA32", HAVE_61_POP, 223519, 5517, 6896, 8275, 0, 524288, 262112, 245728, 524288,
                    0 },
          },
          { { 0, 29360, 528, 0, 0, 103, 944, 944 }, { 1, 29707, 3, 0, 0, 2183, 0, 0 } } },
        { "vm-6.1-x86_64-2node-fresh", 10, 2, "DMA DMA32 Normal Movable Device",
          {
                  { 0, "DMA32", HAVE_61_POP, 491980, 11217, 14021, 16825, 0, 520192, 520192, 500573, 4096,
                    0 },
                  { 1, "Normal", HAVE_61_POP, 247351, 5706, 7132, 8558, 0, 262144, 262144, 253638,
                    1048576, 0 },
          },
          { { 0, 447, 525, 0, 0, 86, 944, 944 }, { 1, 47, 1, 0, 0, 2126, 0, 0 } } },
};

/* a new capture must get its expected values here too */
static void test_fixtures_listed(void **state)
{
        assert_fixtures_listed(fixtures, dir);
}

static void check_fixture(const ZoneInfo *zi, const ZiFixture *f)
{
        char order[128] = "";

        assert_int_equal(zi->n_zones, f->n_zones);
        assert_int_equal(zi->n_nodes, f->n_nodes);

        /* zones kept in file order, unpopulated ones included */
        for (unsigned i = 0; i < zi->n_zones; i++) {
                if (zi->zones[i].node != 0)
                        continue;
                if (*order)
                        strcat(order, " ");
                strcat(order, zi->zones[i].zone);
        }
        assert_string_equal(order, f->zone_order);

        for (unsigned i = 0; i < ELEMENTSOF(f->z) && f->z[i].zone; i++) {
                const ZiExpectZone *e = &f->z[i];
                const ZoneInfoZone *z = zoneinfo_find(zi, e->node, e->zone);

                assert_non_null(z);
                assert_int_equal(z->have, e->have);
                assert_int_equal(z->pages_free, e->free);
                assert_int_equal(z->boost, 0); /* every fixture prints boost 0 */
                assert_int_equal(z->min, e->min);
                assert_int_equal(z->low, e->low);
                assert_int_equal(z->high, e->high);
                assert_int_equal(z->promo, e->promo);
                assert_int_equal(z->spanned, e->spanned);
                assert_int_equal(z->present, e->present);
                assert_int_equal(z->managed, e->managed);
                assert_int_equal(z->cma, 0);
                assert_int_equal(z->start_pfn, e->start_pfn);
                assert_int_equal(z->nr_free_pages_blocks, e->free_blocks);
                /* populated zones print nr_free_pages equal to pages free */
                assert_int_equal(z->nr_free_pages, e->free);
                assert_false(z->node_unreclaimable);
        }
        for (unsigned i = 0; i < f->n_nodes; i++) {
                const ZiExpectNode *e = &f->n[i];
                const ZoneInfoNode *n = zoneinfo_find_node(zi, e->node);

                assert_non_null(n);
                assert_true(n->have_stats);
                assert_int_equal(n->nr_inactive_anon, e->inactive_anon);
                assert_int_equal(n->nr_active_anon, e->active_anon);
                assert_int_equal(n->nr_inactive_file, e->inactive_file);
                assert_int_equal(n->nr_active_file, e->active_file);
                assert_int_equal(n->nr_slab_reclaimable, e->slab_reclaimable);
                assert_int_equal(n->nr_shmem, e->shmem);
                assert_int_equal(n->nr_file_pages, e->file_pages);
        }
        assert_null(zoneinfo_find_node(zi, (int) f->n_nodes));
}

DEFINE_FIXTURE_PARSE_READ_TESTS(zoneinfo, ZoneInfo, ZiFixture, check_fixture)

/* Node 1 of the 2-node guest: the per-node block sits under DMA32, after the
 * empty DMA header. The stats belong to node 1, DMA stays empty. Zones that
 * buddyinfo omits (node 0 Normal, Movable, Device) are present here. */
static void test_fixture_node_block_placement(void **state)
{
        size_t len;
        char *buf = fixture_file("vm-6.1-x86_64-2node-fragmented", "proc/zoneinfo", &len);
        ZoneInfo *zi = calloc(1, sizeof(*zi));
        const ZoneInfoZone *dma, *normal;

        assert_non_null(zi);
        assert_int_equal(zoneinfo_parse(buf, len, zi), 0);
        dma = zoneinfo_find(zi, 1, "DMA");
        assert_non_null(dma);
        assert_int_equal(dma->present, 0);
        assert_int_equal(dma->pages_free, 0);
        /* nodes[] is in first-seen order */
        assert_int_equal(zi->nodes[0].node, 0);
        assert_int_equal(zi->nodes[1].node, 1);
        normal = zoneinfo_find(zi, 0, "Normal");
        assert_non_null(normal);
        assert_int_equal(normal->present, 0);
        assert_non_null(zoneinfo_find(zi, 1, "Device"));
        assert_null(zoneinfo_find(zi, 0, "HighMem"));
        free(zi);
        free(buf);
}

/* ---- table -------------------------------------------------------------- */

typedef struct ZiCase {
        const char *name;
        const char *input;
        int rc;
        struct { /* checked when rc == 0 */
                unsigned n_zones, n_nodes;
                int node;
                const char *zone;
                unsigned have;
                uint64_t free, min, high;
                bool unreclaimable;
                int stats_node; /* -1: no node stats expected anywhere */
                uint64_t inactive_anon;
        } ok;
} ZiCase;

/* CASE(name, input, rc[, n_zones, n_nodes, node, zone, have, free, min, high,
 *      unreclaimable, stats_node, inactive_anon]) */
#define CASE(n, in, r, ...) { .name = n, .input = in, .rc = r, .ok = { __VA_ARGS__ } }

/* the smallest zone a parser must accept: what 2.6 kernels printed */
#define MINI(node, zone)                                                     \
        "Node " #node ", zone " zone "\n"                                    \
        "  pages free     5\n"                                               \
        "        min      1\n"                                               \
        "        low      2\n"                                               \
        "        high     3\n"                                               \
        "        spanned  10\n"                                              \
        "        present  10\n"

#define STATS(inactive)                                                      \
        "  per-node stats\n"                                                 \
        "      nr_inactive_anon " #inactive "\n"                             \
        "      nr_active_anon 7\n"                                           \
        "      nr_zone_ignored 9\n"

/* The huge pages mapped per node (issue 14 item 2: which node served the
 * THP faults): nr_anon_transparent_hugepages marks them present. */
static void test_node_thp_counts(void **state)
{
        static const char with[] = "Node 1, zone DMA32\n"
                                   "  per-node stats\n"
                                   "      nr_inactive_anon 5\n"
                                   "      nr_shmem_hugepages 2\n"
                                   "      nr_file_hugepages 1\n"
                                   "      nr_anon_transparent_hugepages 7\n"
                                   "  pages free     5\n min 1\n low 2\n high 3\n spanned 10\n present 10\n";
        static const char without[] = "Node 0, zone DMA32\n" STATS(3)
                                      "  pages free 5\n min 1\n low 2\n high 3\n spanned 10\n present 10\n";
        ZoneInfo *zi = calloc(1, sizeof(*zi));
        const ZoneInfoNode *n;

        assert_non_null(zi);
        assert_int_equal(zoneinfo_parse(with, sizeof(with) - 1, zi), 0);
        n = zoneinfo_find_node(zi, 1);
        assert_non_null(n);
        assert_true(n->have_thp);
        assert_int_equal(n->nr_anon_transparent_hugepages, 7);
        assert_int_equal(n->nr_shmem_hugepages, 2);
        assert_int_equal(n->nr_file_hugepages, 1);

        memset(zi, 0, sizeof(*zi));
        assert_int_equal(zoneinfo_parse(without, sizeof(without) - 1, zi), 0);
        assert_true(zoneinfo_find_node(zi, 0)->have_stats);
        assert_false(zoneinfo_find_node(zi, 0)->have_thp);
        free(zi);
}

static const ZiCase cases[] = {
        CASE("empty", "", -ENODATA),
        CASE("blank", "\n  \n", -ENODATA),
        CASE("minimal-old-kernel", MINI(0, "DMA"), 0, 1, 1, 0, "DMA", 0, 5, 1, 3, false, -1, 0),
        CASE("no-trailing-newline",
             "Node 0, zone DMA\n pages free 5\n min 1\n low 2\n high 3\n spanned 10\n present 10", 0, 1,
             1, 0, "DMA", 0, 5, 1, 3, false, -1, 0),
        CASE("linux-2.6.32",
             "Node 0, zone      DMA\n"
             "  pages free     3935\n"
             "        min      5\n"
             "        low      6\n"
             "        high     7\n"
             "        scanned  0\n"
             "        spanned  4080\n"
             "        present  3929\n"
             "    nr_free_pages 3935\n"
             "    nr_inactive_anon 0\n"
             "        protection: (0, 3512, 4017, 4017)\n"
             "  pagesets\n"
             "    cpu: 0\n"
             "              count: 0\n"
             "              high:  0\n"
             "              batch: 1\n"
             "  vm stats threshold: 4\n"
             "  all_unreclaimable: 0\n"
             "  prev_priority:     12\n"
             "  start_pfn:         16\n"
             "  inactive_ratio:    1\n",
             0, 1, 1, 0, "DMA", ZONE_HAVE_START_PFN, 3935, 5, 7, false, -1, 0),
        CASE("linux-2.6.24-scanned-detail",
             MINI(0, "Normal") "        scanned  0 (a: 8 i: 8)\n", 0, 1, 1, 0, "Normal", 0, 5, 1, 3,
             false, -1, 0),
        CASE("pagesets-high-does-not-clobber",
             MINI(0, "DMA") "  pagesets\n    cpu: 0\n              count: 3\n              high:  999\n",
             0, 1, 1, 0, "DMA", 0, 5, 1, 3, false, -1, 0),
        CASE("boost-included",
             "Node 0, zone Normal\n pages free 100\n boost 40\n min 50\n low 60\n high 70\n"
             " promo 80\n spanned 200\n present 150\n managed 140\n",
             0, 1, 1, 0, "Normal", ZONE_HAVE_BOOST | ZONE_HAVE_PROMO | ZONE_HAVE_MANAGED, 100, 50, 70,
             false, -1, 0),
        CASE("unreclaimable",
             MINI(0, "DMA32") "  node_unreclaimable:  1\n  start_pfn:           4096\n", 0, 1, 1, 0,
             "DMA32", ZONE_HAVE_START_PFN, 5, 1, 3, true, -1, 0),
        CASE("node-stats-under-first-populated",
             MINI(1, "DMA") "Node 1, zone DMA32\n" STATS(42)
             "  pages free     5\n min 1\n low 2\n high 3\n spanned 10\n present 10\n",
             0, 2, 1, 1, "DMA32", 0, 5, 1, 3, false, 1, 42),
        CASE("sparse-nodes",
             MINI(0, "Normal") "Node 10, zone Normal\n" STATS(11)
             "  pages free 5\n min 1\n low 2\n high 3\n spanned 10\n present 10\n" MINI(10, "Movable"),
             0, 3, 2, 10, "Movable", 0, 5, 1, 3, false, 10, 11),
        CASE("vendor-zone-and-keys",
             MINI(0, "Weird") "        vendor_thing 1 2 3\n  something: else\n", 0, 1, 1, 0, "Weird", 0,
             5, 1, 3, false, -1, 0),
        CASE("crlf", "Node 0, zone DMA\r\n pages free 5\r\n min 1\r\n low 2\r\n high 3\r\n"
             " spanned 10\r\n present 10\r\n", 0, 1, 1, 0, "DMA", 0, 5, 1, 3, false, -1, 0),
        CASE("u64-max-free",
             "Node 0, zone DMA\n pages free 18446744073709551615\n min 1\n low 2\n high 3\n"
             " spanned 10\n present 10\n",
             0, 1, 1, 0, "DMA", 0, UINT64_MAX, 1, 3, false, -1, 0),
        CASE("overflow", MINI(0, "DMA") " managed 18446744073709551616\n", -ERANGE),
        CASE("overflow-node-stat", "Node 0, zone DMA\n  per-node stats\n nr_shmem 99999999999999999999\n",
             -ERANGE),
        CASE("non-numeric", MINI(0, "DMA") " managed 12k\n", -EBADMSG),
        CASE("negative", MINI(0, "DMA") " cma -1\n", -EBADMSG),
        CASE("value-missing", MINI(0, "DMA") " managed\n", -EBADMSG),
        CASE("extra-value", MINI(0, "DMA") " managed 1 2\n", -EBADMSG),
        CASE("missing-pages-free",
             "Node 0, zone DMA\n min 1\n low 2\n high 3\n spanned 10\n present 10\n", -ENODATA),
        CASE("missing-min", "Node 0, zone DMA\n pages free 5\n low 2\n high 3\n spanned 10\n present 10\n",
             -ENODATA),
        CASE("missing-present", "Node 0, zone DMA\n pages free 5\n min 1\n low 2\n high 3\n spanned 10\n",
             -ENODATA),
        CASE("missing-in-first-of-two",
             "Node 0, zone DMA\n pages free 5\n min 1\n low 2\n high 3\n" MINI(0, "DMA32"), -ENODATA),
        CASE("truncated-mid-zone", MINI(0, "DMA") "Node 0, zone DMA32\n  pages free 5\n min 1\n", -ENODATA),
        CASE("truncated-mid-line", MINI(0, "DMA") "Node 0, zone DMA32\n  pages free 5\n min", -EBADMSG),
        CASE("header-only", "Node 0, zone DMA\n", -ENODATA),
        CASE("truncated-header", "Node 0, zo", -EBADMSG),
        CASE("header-extra-token", "Node 0, zone DMA junk\n pages free 5\n", -EBADMSG),
        CASE("header-comma", "Node 0, zone DMA,\n pages free 5\n", -EBADMSG),
        CASE("data-before-zone", "  pages free 5\n" MINI(0, "DMA"), -EBADMSG),
        CASE("duplicate-zone", MINI(0, "DMA") MINI(0, "DMA"), -EBADMSG),
        CASE("duplicate-key", MINI(0, "DMA") "        min      1\n", -EBADMSG),
        CASE("duplicate-pages-free", MINI(0, "DMA") "  pages free 5\n", -EBADMSG),
        CASE("min-above-low", "Node 0, zone DMA\n pages free 5\n min 3\n low 2\n high 3\n spanned 10\n"
             " present 10\n", -EBADMSG),
        CASE("high-above-promo", MINI(0, "DMA") " promo 2\n", -EBADMSG),
        CASE("present-above-spanned",
             "Node 0, zone DMA\n pages free 5\n min 1\n low 2\n high 3\n spanned 10\n present 11\n",
             -EBADMSG),
        /* issue 11: "managed 99999999999" gave a "target 7.5 TiB" */
        CASE("managed-above-present",
             "Node 0, zone DMA\n pages free 5\n min 1\n low 2\n high 3\n spanned 10\n present 10\n"
             " managed 99999999999\n", -EBADMSG),
        CASE("stats-twice-same-node",
             "Node 0, zone DMA\n" STATS(1) "  pages free 5\n min 1\n low 2\n high 3\n spanned 10\n"
             " present 10\nNode 0, zone DMA32\n" STATS(2), -EBADMSG),
        CASE("stats-after-pages-free", MINI(0, "DMA") STATS(1), -EBADMSG),
};

static void test_case(void **state)
{
        const ZiCase *c = *state;
        ZoneInfo *zi = calloc(1, sizeof(*zi));
        int r;

        assert_non_null(zi);
        r = zoneinfo_parse(c->input, strlen(c->input), zi);
        assert_row_rc(c->name, r, c->rc);
        if (r == 0) {
                const ZoneInfoZone *z = zoneinfo_find(zi, c->ok.node, c->ok.zone);

                assert_int_equal(zi->n_zones, c->ok.n_zones);
                assert_int_equal(zi->n_nodes, c->ok.n_nodes);
                assert_non_null(z);
                assert_int_equal(z->have, c->ok.have);
                assert_int_equal(z->pages_free, c->ok.free);
                assert_int_equal(z->min, c->ok.min);
                assert_int_equal(z->high, c->ok.high);
                assert_int_equal(z->node_unreclaimable, c->ok.unreclaimable);
                for (unsigned i = 0; i < zi->n_nodes; i++) {
                        const ZoneInfoNode *n = &zi->nodes[i];

                        assert_int_equal(n->have_stats, n->node == c->ok.stats_node);
                        if (n->have_stats) {
                                assert_int_equal(n->nr_inactive_anon, c->ok.inactive_anon);
                                assert_int_equal(n->nr_active_anon, 7);
                        }
                }
        }
        free(zi);
}

/* ---- properties that are awkward in the table ---------------------------- */

static size_t append_mini(char *buf, size_t len, size_t cap, int node, const char *zone)
{
        int n = snprintf(buf + len, cap - len,
                         "Node %d, zone %s\n  pages free 5\n min 1\n low 2\n high 3\n"
                         " spanned 10\n present 10\n",
                         node, zone);

        assert_true(n > 0 && (size_t) n < cap - len);
        return len + (size_t) n;
}

/* 128 zones fit, the 129th is -E2BIG; 64 nodes fit, the 65th is -E2BIG */
static void test_capacity(void **state)
{
        size_t cap = 256 * 1024, len = 0;
        char *buf = malloc(cap);
        ZoneInfo *zi = calloc(1, sizeof(*zi));

        assert_non_null(buf);
        assert_non_null(zi);
        for (int i = 0; i < FRAGD_MAX_ZONES; i++)
                len = append_mini(buf, len, cap, i / 2, i % 2 ? "Normal" : "DMA32");
        assert_int_equal(zoneinfo_parse(buf, len, zi), 0);
        assert_int_equal(zi->n_zones, FRAGD_MAX_ZONES);
        assert_int_equal(zi->n_nodes, FRAGD_MAX_ZONES / 2);
        assert_non_null(zoneinfo_find(zi, 63, "Normal"));
        assert_non_null(zoneinfo_find_node(zi, 63));
        assert_int_equal(zoneinfo_parse(buf, append_mini(buf, len, cap, 63, "Movable"), zi), -E2BIG);

        len = 0;
        for (int i = 0; i <= FRAGD_MAX_NODES; i++)
                len = append_mini(buf, len, cap, i, "Normal");
        assert_int_equal(zoneinfo_parse(buf, len, zi), -E2BIG);
        free(zi);
        free(buf);
}

/* A big machine: 1024 CPUs of pagesets push the file past 1 MB. */
static void test_many_cpus(void **state)
{
        size_t cap = 4u << 20, len = 0;
        char *buf = malloc(cap);
        ZoneInfo *zi = calloc(1, sizeof(*zi));
        const ZoneInfoZone *z;

        assert_non_null(buf);
        assert_non_null(zi);
        len = append_mini(buf, len, cap, 0, "Normal");
        len += (size_t) snprintf(buf + len, cap - len, "  pagesets\n");
        for (int cpu = 0; cpu < 1024; cpu++)
                len += (size_t) snprintf(buf + len, cap - len,
                                         "    cpu: %d\n              count:    %d\n"
                                         "              high:     3733\n              batch:    63\n"
                                         "              high_min: 3733\n              high_max: 48307\n"
                                         "  vm stats threshold: 24\n",
                                         cpu, cpu * 7);
        len += (size_t) snprintf(buf + len, cap - len, "  node_unreclaimable:  0\n  start_pfn: 1048576\n");
        len = append_mini(buf, len, cap, 0, "Movable");
        assert_true(len > 150 * 1024);
        assert_int_equal(zoneinfo_parse(buf, len, zi), 0);
        assert_int_equal(zi->n_zones, 2);
        z = zoneinfo_find(zi, 0, "Normal");
        assert_non_null(z);
        assert_int_equal(z->high, 3); /* not the pagesets "high:" */
        assert_int_equal(z->start_pfn, 1048576);
        free(zi);
        free(buf);
}

/* *ret is untouched on every failure */
static void test_ret_unchanged_on_error(void **state)
{
        assert_failures_leave_ret(zoneinfo_parse, ZoneInfo, cases, 0x5a);
}

static void test_find(void **state)
{
        static const char in[] = MINI(0, "DMA") MINI(3, "DMA");
        ZoneInfo *zi = calloc(1, sizeof(*zi));

        assert_non_null(zi);
        assert_int_equal(zoneinfo_parse(in, strlen(in), zi), 0);
        assert_non_null(zoneinfo_find(zi, 3, "DMA"));
        assert_null(zoneinfo_find(zi, 1, "DMA"));
        assert_null(zoneinfo_find(zi, 0, "DM"));
        assert_null(zoneinfo_find(zi, 0, NULL));
        assert_null(zoneinfo_find(NULL, 0, "DMA"));
        assert_int_equal(zoneinfo_parse(NULL, 0, zi), -ENODATA);
        /* nodes without a per-node block are listed, without stats */
        assert_non_null(zoneinfo_find_node(zi, 3));
        assert_false(zoneinfo_find_node(zi, 3)->have_stats);
        assert_null(zoneinfo_find_node(zi, 1));
        assert_null(zoneinfo_find_node(NULL, 0));
        free(zi);
}

static void test_read_missing(void **state)
{
        ZoneInfo *zi = calloc(1, sizeof(*zi));
        EmptyRoot e;

        assert_non_null(zi);
        empty_root_open(&e, false);
        assert_int_equal(zoneinfo_read(e.root, zi), -ENOENT);
        empty_root_close(&e);
        free(zi);
}

int main(void)
{
        static const struct CMUnitTest other_tests[] = {
                cmocka_unit_test(test_fixtures_listed),
                cmocka_unit_test(test_fixture_node_block_placement),
                cmocka_unit_test(test_node_thp_counts),
                cmocka_unit_test(test_capacity),
                cmocka_unit_test(test_many_cpus),
                cmocka_unit_test(test_ret_unchanged_on_error),
                cmocka_unit_test(test_find),
                cmocka_unit_test(test_read_missing),
        };
        int fails = 0;

        fails += run_row_tests("zoneinfo_parse fixtures", fixtures, dir, test_fixture_parse);
        fails += run_row_tests("zoneinfo_read fixtures", fixtures, dir, test_fixture_read);
        fails += run_row_tests("zoneinfo table", cases, name, test_case);
        fails += cmocka_run_group_tests_name("zoneinfo", other_tests, NULL, NULL);
        return fails ? 1 : 0;
}
