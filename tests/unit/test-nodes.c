/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpulist_parse / node_memtotal_parse / nodes_read. */

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

/* From sys/devices/system/node: `cat has_memory`, `grep MemTotal
 * nodeN/meminfo`, and `cat nodeN/cpulist` summed (no cpu/online captured:
 * n_cpus comes from the node cpulists). No nodeN/compact (write-only, not
 * captured). */
typedef struct NodesFixture {
        const char *tree;
        unsigned n_nodes;
        uint64_t mem_total_kb[2];
        unsigned n_cpus;
} NodesFixture;

static const NodesFixture nodes_fixtures[] = {
        { "host-6.18-x86_64", 1, { 8743116 }, 2 },
        { "vm-6.1-x86_64-1node-pressure", 1, { 983496 }, 2 },
        { "vm-6.1-x86_64-2node-compacted", 2, { 2017652, 1997464 }, 2 },
        { "vm-6.1-x86_64-2node-fragmented", 2, { 2017652, 1997464 }, 2 },
        { "vm-6.1-x86_64-2node-fresh", 2, { 2017652, 1997464 }, 2 },
};

static void test_fixtures_listed(void **state)
{
        assert_fixtures_listed(nodes_fixtures, tree);
}

static void test_fixture_nodes(void **state)
{
        for (size_t i = 0; i < ELEMENTSOF(nodes_fixtures); i++) {
                const NodesFixture *f = &nodes_fixtures[i];
                Root *root = fixture_root(f->tree);
                NodeTopo t;

                assert_int_equal(nodes_read(root, &t), 0);
                assert_int_equal(t.n_nodes, f->n_nodes);
                for (unsigned n = 0; n < f->n_nodes; n++) {
                        assert_int_equal(t.ids[n], (int) n);
                        assert_int_equal(t.mem_total_kb[n], f->mem_total_kb[n]);
                        assert_false(t.have_compact[n]);
                }
                assert_int_equal(t.n_cpus, f->n_cpus);
                root_free(root);
        }
}

/* synthetic-arm64-64k: online 0-3, has_memory "0,2", node0/compact exists,
 * cpulists 0-3 / 4-7 / "" / 8-9 -> 10 CPUs. */
static void test_synthetic_sparse(void **state)
{
        Root *root = fixture_root("synthetic-arm64-64k");
        NodeTopo t;

        assert_int_equal(nodes_read(root, &t), 0);
        assert_int_equal(t.n_nodes, 2);
        assert_int_equal(t.ids[0], 0);
        assert_int_equal(t.ids[1], 2);
        assert_int_equal(t.mem_total_kb[0], 33554432);
        assert_int_equal(t.mem_total_kb[1], 16777216);
        assert_true(t.have_compact[0]);
        assert_false(t.have_compact[1]);
        assert_int_equal(t.n_cpus, 10);
        root_free(root);
}

/* synthetic-minimal: no node dir -> node 0 with /proc/meminfo MemTotal
 * 2000000; cpu/online "0-3,6" -> 5. */
static void test_synthetic_flat(void **state)
{
        Root *root = fixture_root("synthetic-minimal");
        NodeTopo t;

        assert_int_equal(nodes_read(root, &t), 0);
        assert_int_equal(t.n_nodes, 1);
        assert_int_equal(t.ids[0], 0);
        assert_int_equal(t.mem_total_kb[0], 2000000);
        assert_false(t.have_compact[0]);
        assert_int_equal(t.n_cpus, 5);

        /* no sys/ at all: still the flat view, CPUs unknown */
        closep(&root->sys_fd);
        root->sys_fd = -1;
        assert_int_equal(nodes_read(root, &t), 0);
        assert_int_equal(t.n_nodes, 1);
        assert_int_equal(t.mem_total_kb[0], 2000000);
        assert_int_equal(t.n_cpus, 0);

        /* and no proc/ either: nothing to report */
        closep(&root->proc_fd);
        root->proc_fd = -1;
        t.n_nodes = 77;
        assert_int_equal(nodes_read(root, &t), -ENOENT);
        assert_int_equal(t.n_nodes, 77);
        root_free(root);
}

/* ---- cpulist table ------------------------------------------------------- */

typedef struct CpulistCase {
        const char *input;
        unsigned cap;
        int rc;
        unsigned n;
        int ids[8];
} CpulistCase;

static const CpulistCase cpulist_cases[] = {
        { "0-3,8,10-11\n", 8, 0, 7, { 0, 1, 2, 3, 8, 10, 11 } },
        { "0\n", 8, 0, 1, { 0 } },
        { "0-1", 8, 0, 2, { 0, 1 } }, /* no newline */
        { "5-5\n", 8, 0, 1, { 5 } },
        { "2,4,6\n", 3, 0, 3, { 2, 4, 6 } }, /* exactly cap */
        { "", 8, 0, 0, { 0 } },
        { "\n", 8, 0, 0, { 0 } },
        { "  \n", 8, 0, 0, { 0 } },
        { "0-3 \n", 8, 0, 4, { 0, 1, 2, 3 } },
        { "2147483647\n", 8, 0, 1, { 2147483647 } },
        { "0-8\n", 8, -E2BIG, 0, { 0 } },
        { "0,1,2,3,4,5,6,7,8\n", 8, -E2BIG, 0, { 0 } },
        { "0-2147483647\n", 8, -E2BIG, 0, { 0 } },
        { "2147483648\n", 8, -ERANGE, 0, { 0 } },
        { "99999999999999999999\n", 8, -ERANGE, 0, { 0 } },
        { "3-1\n", 8, -EBADMSG, 0, { 0 } },
        { "1-\n", 8, -EBADMSG, 0, { 0 } },
        { "-1\n", 8, -EBADMSG, 0, { 0 } },
        { "1-2-3\n", 8, -EBADMSG, 0, { 0 } },
        { ",\n", 8, -EBADMSG, 0, { 0 } },
        { "1,\n", 8, -EBADMSG, 0, { 0 } },
        { ",1\n", 8, -EBADMSG, 0, { 0 } },
        { "1,,2\n", 8, -EBADMSG, 0, { 0 } },
        { "a\n", 8, -EBADMSG, 0, { 0 } },
        { "0-3,2\n", 8, -EBADMSG, 0, { 0 } }, /* overlap */
        { "4,1\n", 8, -EBADMSG, 0, { 0 } },   /* descending */
        { "1,1\n", 8, -EBADMSG, 0, { 0 } },   /* duplicate */
        { "0 - 3\n", 8, -EBADMSG, 0, { 0 } },
        { "0-1\n2\n", 8, -EBADMSG, 0, { 0 } }, /* two lines */
        { "0-7:2\n", 8, -EBADMSG, 0, { 0 } },  /* stride: input syntax only */
        { "00000000ff\n", 8, -EBADMSG, 0, { 0 } }, /* a cpumap, not a list */
};

static void test_cpulist_table(void **state)
{
        for (size_t i = 0; i < ELEMENTSOF(cpulist_cases); i++) {
                const CpulistCase *c = &cpulist_cases[i];
                int ids[8] = { -7, -7, -7, -7, -7, -7, -7, -7 };
                unsigned n = 777, n_count = 777;
                int r = cpulist_parse(c->input, strlen(c->input), ids, c->cap, &n);

                assert_row_rc(c->input, r, c->rc);
                if (r < 0) {
                        assert_int_equal(n, 777);
                        assert_int_equal(ids[0], -7);
                        continue;
                }
                assert_int_equal(n, c->n);
                for (unsigned k = 0; k < c->n; k++)
                        assert_int_equal(ids[k], c->ids[k]);
                assert_int_equal(ids[c->n < 8 ? c->n : 7], c->n < 8 ? -7 : c->ids[7]);
                /* counting mode agrees */
                assert_int_equal(cpulist_parse(c->input, strlen(c->input), NULL, 0, &n_count), 0);
                assert_int_equal(n_count, c->n);
        }
}

static void test_cpulist_count_only(void **state)
{
        unsigned n;

        /* 4096 CPUs need no array */
        assert_int_equal(cpulist_parse("0-4095\n", 7, NULL, 0, &n), 0);
        assert_int_equal(n, 4096);
        assert_int_equal(cpulist_parse("0-2147483647", 12, NULL, 0, &n), 0);
        assert_int_equal(n, 2147483648u);
        assert_int_equal(cpulist_parse("0-1", 3, NULL, 0, NULL), -EINVAL);
        /* len bound: "0-3,8" cut to "0-3" */
        assert_int_equal(cpulist_parse("0-3,8", 3, NULL, 0, &n), 0);
        assert_int_equal(n, 4);
        assert_int_equal(cpulist_parse("0\0001", 3, NULL, 0, &n), -EBADMSG);
}

/* ---- node meminfo -------------------------------------------------------- */

#define NMT(str, ...) node_memtotal_parse((str), strlen(str), __VA_ARGS__)

static void test_node_memtotal(void **state)
{
        uint64_t kb = 4242;

        assert_int_equal(NMT("Node 1 MemTotal:  1997464 kB\nNode 1 MemFree: 5 kB\n", 1, &kb), 0);
        assert_int_equal(kb, 1997464);
        /* MemTotal not first, no unit, no newline */
        assert_int_equal(NMT("Node 3 MemFree: 1 kB\nNode 3 MemTotal: 77", 3, &kb), 0);
        assert_int_equal(kb, 77);
        kb = 4242;
        assert_int_equal(NMT("Node 0 MemTotal: 5 kB\n", 1, &kb), -EBADMSG);
        assert_int_equal(NMT("Node 0 MemFree: 5 kB\n", 0, &kb), -ENODATA);
        assert_int_equal(NMT("", 0, &kb), -ENODATA);
        assert_int_equal(NMT("MemTotal: 5 kB\n", 0, &kb), -EBADMSG);
        assert_int_equal(NMT("Node 0 MemTotal:\n", 0, &kb), -EBADMSG);
        assert_int_equal(NMT("Node 0 MemTotal: 5 MB\n", 0, &kb), -EBADMSG);
        assert_int_equal(NMT("Node 0 MemTotal: 5 kB x\n", 0, &kb), -EBADMSG);
        assert_int_equal(NMT("Node 0 MemTotal: x kB\n", 0, &kb), -EBADMSG);
        assert_int_equal(NMT("Node 0 MemTotal: 18446744073709551616 kB\n", 0, &kb),
                         -ERANGE);
        assert_int_equal(NMT("Node x MemTotal: 5 kB\n", 0, &kb), -EBADMSG);
        assert_int_equal(kb, 4242);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_fixtures_listed),
                cmocka_unit_test(test_fixture_nodes),
                cmocka_unit_test(test_synthetic_sparse),
                cmocka_unit_test(test_synthetic_flat),
                cmocka_unit_test(test_cpulist_table),
                cmocka_unit_test(test_cpulist_count_only),
                cmocka_unit_test(test_node_memtotal),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
