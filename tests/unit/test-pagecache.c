/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pagecache_hist_parse / pagecache_format_has_order / pagecache_read /
 * pagecache_trace_start and _stop (daemon/sources/source-pagecache.c). */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "parser-test-util.h"
#include "fragd/obs.h"
#include "sources/sources.h"

/* tests/corpus/pagecache/<name>, captured in a 6.12 guest
 * (tests/vm/guest/scenarios/pagecache.sh) */
static char *corpus(const char *name, size_t *ret_len)
{
        char path[PATH_MAX];
        char *buf = NULL;
        int fd, r;

        (void) snprintf(path, sizeof(path), "%s/tests/corpus/pagecache", fixture_srcdir());
        fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                fail_msg("cannot open '%s': %m", path);
        r = read_file_alloc_at(fd, name, &buf, ret_len);
        (void) close(fd);
        if (r < 0)
                fail_msg("cannot read '%s/%s': %s", path, name, strerror(-r));
        return buf;
}

/* Debian 6.12, 256 x 256 KiB buffered writes to a fresh XFS file, after
 * mkfs.xfs and dd on a ram disk; numbers copied from the file by eye. */
static void test_parse_captured_xfs(void **state)
{
        _cleanup_free_ char *buf = NULL;
        PageCacheHist h;
        size_t len;

        (void) state;
        buf = corpus("vm-6.12-xfs-hist", &len);
        assert_int_equal(pagecache_hist_parse(buf, len, &h), 0);
        assert_int_equal(h.n_orders, 7);
        assert_int_equal(h.folios[0], 8230);
        assert_int_equal(h.folios[1], 0);
        assert_int_equal(h.folios[4], 14);
        assert_int_equal(h.folios[5], 7);
        assert_int_equal(h.folios[6], 249);
        assert_int_equal(h.hits, 8500);
        assert_int_equal(h.dropped, 0);
}

static void test_parse_captured_order0(void **state)
{
        _cleanup_free_ char *buf = NULL;
        PageCacheHist h;
        size_t len;

        (void) state;
        buf = corpus("vm-6.12-order0-hist", &len);
        assert_int_equal(pagecache_hist_parse(buf, len, &h), 0);
        assert_int_equal(h.n_orders, 1);
        assert_int_equal(h.folios[0], 6);
        assert_int_equal(h.hits, 6);
}

static void test_format_captured(void **state)
{
        _cleanup_free_ char *buf = NULL, *no = NULL;
        size_t len, nlen;

        (void) state;
        buf = corpus("vm-6.12-format", &len);
        assert_int_equal(pagecache_format_has_order(buf, len), 0);
        no = corpus("format-no-order", &nlen);
        assert_int_equal(pagecache_format_has_order(no, nlen), -ENODATA);
}

typedef struct HistCase {
        const char *name, *input;
        int rc;
} HistCase;

static const HistCase hist_cases[] = {
        { "empty table", "# event histogram\n\nTotals:\n    Hits: 0\n    Entries: 0\n    Dropped: 0\n", 0 },
        { "no totals (cut short)", "{ order: 6 } hitcount: 3\n", -ENODATA },
        { "totals without hits", "{ order: 6 } hitcount: 3\nTotals:\n    Entries: 1\n", -ENODATA },
        { "empty input", "", -ENODATA },
        { "other key", "{ pid: 6 } hitcount: 3\nTotals:\n    Hits: 3\n", -EBADMSG },
        { "no closing brace", "{ order: 6 hitcount: 3\nTotals:\n    Hits: 3\n", -EBADMSG },
        { "no hitcount", "{ order: 6 } bytes: 3\nTotals:\n    Hits: 3\n", -EBADMSG },
        { "hitcount twice", "{ order: 6 } hitcount: 3 hitcount: 3\nTotals:\n    Hits: 6\n", -EBADMSG },
        { "value not a number", "{ order: 6 } hitcount: x\nTotals:\n    Hits: 3\n", -EBADMSG },
        { "negative", "{ order: 6 } hitcount: -3\nTotals:\n    Hits: 3\n", -EBADMSG },
        { "repeated order", "{ order: 6 } hitcount: 1\n{ order: 6 } hitcount: 1\nTotals:\n    Hits: 2\n", -EBADMSG },
        { "order 16", "{ order: 16 } hitcount: 1\nTotals:\n    Hits: 1\n", -ERANGE },
        { "order 15", "{ order: 15 } hitcount: 1\nTotals:\n    Hits: 1\n", 0 },
        { "count past 2^64", "{ order: 6 } hitcount: 18446744073709551616\nTotals:\n    Hits: 1\n", -ERANGE },
        { "sum past 2^64",
          "{ order: 6 } hitcount: 18446744073709551615\n{ order: 0 } hitcount: 1\nTotals:\n    Hits: 1\n", -ERANGE },
        { "rows past hits", "{ order: 6 } hitcount: 5\nTotals:\n    Hits: 4\n", -EBADMSG },
        { "entries not the rows", "{ order: 6 } hitcount: 5\nTotals:\n    Hits: 5\n    Entries: 2\n", -EBADMSG },
        { "hits twice", "Totals:\n    Hits: 0\n    Hits: 0\n", -EBADMSG },
        { "garbage total", "Totals:\n    Hits: 0 0\n", -EBADMSG },
        { "unknown total", "Totals:\n    Hits: 0\n    Later: 7\n", 0 },
        { "extra vals kept apart", "{ order: 2 } hitcount: 5 bytes_req: 4096\nTotals:\n    Hits: 5\n", 0 },
        { "error line", "ERROR: something\nTotals:\n    Hits: 0\n", -EBADMSG },
};

static void test_hist_cases(void **state)
{
        PageCacheHist h;

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(hist_cases); i++)
                assert_row_rc(hist_cases[i].name,
                              pagecache_hist_parse(hist_cases[i].input, strlen(hist_cases[i].input), &h),
                              hist_cases[i].rc);
        assert_failures_leave_ret(pagecache_hist_parse, PageCacheHist, hist_cases, 0xa5);
        /* a NULL buffer: the empty text, or -EINVAL with a length */
        assert_int_equal(pagecache_hist_parse(NULL, 0, &h), -ENODATA);
        assert_int_equal(pagecache_hist_parse(NULL, 3, &h), -EINVAL);
}

static void test_hist_extra_vals(void **state)
{
        const char *in = "{ order: 2 } hitcount: 5 bytes_req: 4096\nTotals:\n    Hits: 7\n    Dropped: 2\n";
        PageCacheHist h;

        (void) state;
        assert_int_equal(pagecache_hist_parse(in, strlen(in), &h), 0);
        assert_int_equal(h.n_orders, 3);
        assert_int_equal(h.folios[2], 5);
        assert_int_equal(h.hits, 7);
        assert_int_equal(h.dropped, 2);
}

static const HistCase format_cases[] = {
        { "no format line", "\tfield:unsigned char order;\toffset:36;\n", -EBADMSG },
        { "field without ;", "format:\n\tfield:unsigned char order\n", -EBADMSG },
        { "no order", "format:\n\tfield:unsigned long pfn;\toffset:8;\n", -ENODATA },
        { "order only in print fmt", "format:\n\tfield:unsigned long pfn;\toffset:8;\nprint fmt: \"order=%u\"\n",
          -ENODATA },
        { "a field named order_x", "format:\n\tfield:int order_x;\toffset:8;\n", -ENODATA },
        { "order", "format:\n\tfield:unsigned int order;\toffset:8;\n", 0 },
        { "empty", "", -EBADMSG },
};

static void test_format_cases(void **state)
{
        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(format_cases); i++)
                assert_row_rc(format_cases[i].name,
                              pagecache_format_has_order(format_cases[i].input, strlen(format_cases[i].input)),
                              format_cases[i].rc);
}

/* ---- polluting fallbacks (kmem:mm_page_alloc_extfrag) --------------------- */

/* the hist the trigger EXTFRAG_TRIGGER prints, written from the kernel's
 * own print code (kernel/trace/trace_events_hist.c hist_trigger_print_key():
 * "{ ", "name: %10llu" joined by ", ", " }") and kmem.h's fields: no
 * capture, no guest here has a 6.15+ kernel. Migratetypes: 0 Unmovable,
 * 1 Movable, 2 Reclaimable. */
static void test_extfrag_parse(void **state)
{
        _cleanup_free_ char *buf = NULL;
        ExtfragHist e;
        size_t len;

        (void) state;
        buf = corpus("synthetic-extfrag-hist", &len);
        assert_int_equal(extfrag_hist_parse(buf, len, &e), 0);
        assert_true(e.valid);
        assert_int_equal(e.fallbacks, 127);
        /* 0 -> 1 (12) and 2 -> 1 (5); 1 -> 0, 1 -> 2 and 0 -> 2 are not */
        assert_int_equal(e.polluting, 17);
        assert_int_equal(e.dropped, 0);
}

static const HistCase extfrag_cases[] = {
        { "one polluting row", "{ alloc_migratetype: 0, fallback_migratetype: 1 } hitcount: 3\nTotals:\n Hits: 3\n", 0 },
        { "keys swapped", "{ fallback_migratetype: 1, alloc_migratetype: 0 } hitcount: 3\nTotals:\n Hits: 3\n",
          -EBADMSG },
        { "no comma", "{ alloc_migratetype: 0 fallback_migratetype: 1 } hitcount: 3\nTotals:\n Hits: 3\n", -EBADMSG },
        { "one key only", "{ alloc_migratetype: 0 } hitcount: 3\nTotals:\n Hits: 3\n", -EBADMSG },
        { "the page-cache table", "{ order: 0 } hitcount: 3\nTotals:\n Hits: 3\n", -EBADMSG },
        { "pair twice",
          "{ alloc_migratetype: 0, fallback_migratetype: 1 } hitcount: 3\n"
          "{ alloc_migratetype: 0, fallback_migratetype: 1 } hitcount: 1\nTotals:\n Hits: 4\n",
          -EBADMSG },
        { "migratetype too large", "{ alloc_migratetype: 12, fallback_migratetype: 1 } hitcount: 3\nTotals:\n Hits: 3\n",
          -ERANGE },
        { "negative", "{ alloc_migratetype: -1, fallback_migratetype: 1 } hitcount: 3\nTotals:\n Hits: 3\n", -EBADMSG },
        { "rows over hits", "{ alloc_migratetype: 0, fallback_migratetype: 1 } hitcount: 3\nTotals:\n Hits: 2\n",
          -EBADMSG },
        { "cut short", "{ alloc_migratetype: 0, fallback_migratetype: 1 } hitcount: 3\n", -ENODATA },
        { "no trigger: empty", "", -ENODATA },
        { "empty table", "Totals:\n    Hits: 0\n    Entries: 0\n    Dropped: 0\n", 0 },
};

static void test_extfrag_cases(void **state)
{
        ExtfragHist e;

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(extfrag_cases); i++)
                assert_row_rc(extfrag_cases[i].name,
                              extfrag_hist_parse(extfrag_cases[i].input, strlen(extfrag_cases[i].input), &e),
                              extfrag_cases[i].rc);
        assert_int_equal(extfrag_hist_parse(extfrag_cases[0].input, strlen(extfrag_cases[0].input), &e), 0);
        assert_int_equal(e.polluting, 3);
        assert_int_equal(e.fallbacks, 3);
}

static void test_extfrag_format(void **state)
{
        _cleanup_free_ char *buf = NULL, *pc = NULL;
        size_t len;

        (void) state;
        buf = corpus("synthetic-extfrag-format", &len);
        assert_int_equal(extfrag_format_has_fields(buf, len), 0);
        /* the page-cache event has neither field */
        pc = corpus("vm-6.12-format", &len);
        assert_int_equal(extfrag_format_has_fields(pc, len), -ENODATA);
        {
                const char *only_alloc = "format:\n\tfield:int alloc_migratetype;\toffset:8;\n";

                assert_int_equal(extfrag_format_has_fields(only_alloc, strlen(only_alloc)), -ENODATA);
        }
}

/* ---- kswapd woken by order (vmscan:mm_vmscan_wakeup_kswapd) --------------- */

/* written as the extfrag hist is (the kernel's print code; vmscan.h's
 * fields: nid, zid, order, gfp_flags) */
static void test_kswapd_wake_parse(void **state)
{
        _cleanup_free_ char *buf = NULL;
        OrderCountHist w;
        size_t len;

        (void) state;
        buf = corpus("synthetic-kswapd-wake-hist", &len);
        assert_int_equal(order_count_hist_parse(buf, len, &w), 0);
        assert_true(w.valid);
        assert_int_equal(w.counts[0], 25);
        assert_int_equal(w.counts[4], 11);
        assert_int_equal(w.counts[6], 37);
        assert_int_equal(w.counts[9], 3);
        assert_int_equal(w.counts[5], 0);
        assert_int_equal(w.dropped, 0);
}

static const HistCase kswapd_wake_cases[] = {
        { "one row", "{ order: 6 } hitcount: 3\nTotals:\n Hits: 3\n", 0 },
        { "the extfrag table", "{ alloc_migratetype: 0, fallback_migratetype: 1 } hitcount: 3\nTotals:\n Hits: 3\n",
          -EBADMSG },
        { "order twice", "{ order: 6 } hitcount: 3\n{ order: 6 } hitcount: 1\nTotals:\n Hits: 4\n", -EBADMSG },
        { "order too large", "{ order: 16 } hitcount: 3\nTotals:\n Hits: 3\n", -ERANGE },
        { "negative", "{ order: -1 } hitcount: 3\nTotals:\n Hits: 3\n", -EBADMSG },
        { "rows over hits", "{ order: 6 } hitcount: 3\nTotals:\n Hits: 2\n", -EBADMSG },
        { "cut short", "{ order: 6 } hitcount: 3\n", -ENODATA },
        { "no trigger: empty", "", -ENODATA },
        { "empty table", "Totals:\n    Hits: 0\n    Entries: 0\n    Dropped: 0\n", 0 },
};

static void test_kswapd_wake_cases(void **state)
{
        OrderCountHist w;

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(kswapd_wake_cases); i++)
                assert_row_rc(kswapd_wake_cases[i].name,
                              order_count_hist_parse(kswapd_wake_cases[i].input, strlen(kswapd_wake_cases[i].input),
                                                     &w),
                              kswapd_wake_cases[i].rc);
        assert_int_equal(order_count_hist_parse(kswapd_wake_cases[0].input, strlen(kswapd_wake_cases[0].input), &w), 0);
        assert_int_equal(w.counts[6], 3);
}

static void test_kswapd_wake_format(void **state)
{
        _cleanup_free_ char *buf = NULL, *ex = NULL;
        size_t len;

        (void) state;
        buf = corpus("synthetic-kswapd-wake-format", &len);
        assert_int_equal(kswapd_wake_format_has_order(buf, len), 0);
        /* the extfrag event has no order */
        ex = corpus("synthetic-extfrag-format", &len);
        assert_int_equal(kswapd_wake_format_has_order(ex, len), -ENODATA);
}

/* ---- the instance under a Root ------------------------------------------- */

static void mkpath(const char *dir, const char *rel)
{
        char cmd[PATH_MAX * 2];

        (void) snprintf(cmd, sizeof(cmd), "mkdir -p '%s/%s'", dir, rel);
        assert_int_equal(system(cmd), 0);
}

static void put(const char *dir, const char *rel, const char *text)
{
        char path[PATH_MAX];
        FILE *f;

        (void) snprintf(path, sizeof(path), "%s/%s", dir, rel);
        f = fopen(path, "we");
        assert_non_null(f);
        assert_true(fputs(text, f) >= 0);
        assert_int_equal(fclose(f), 0);
}

static void rm_rf(const char *dir)
{
        char cmd[PATH_MAX * 2];

        (void) snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
}

#define EV "events/filemap/mm_filemap_add_to_page_cache"
#define INST "sys/kernel/tracing/instances/fragd"

static void test_read(void **state)
{
        char dir[] = "/tmp/fragd-test-pagecache-XXXXXX";
        _cleanup_free_ char *cap = NULL;
        Root *root = NULL;
        PageCacheHist h;
        size_t len;

        (void) state;
        assert_non_null(mkdtemp(dir));
        mkpath(dir, "proc");
        mkpath(dir, "sys/kernel");
        /* no instance: why (no tracefs, not mounted, no daemon) */
        assert_int_equal(root_open(dir, 4096, &root), 0);
        assert_int_equal(pagecache_read(root, &h), -EOPNOTSUPP);
        root = root_free(root);
        mkpath(dir, "sys/kernel/tracing");
        assert_int_equal(root_open(dir, 4096, &root), 0);
        assert_int_equal(pagecache_read(root, &h), -ENOMEDIUM);
        root = root_free(root);
        mkpath(dir, "sys/kernel/tracing/instances");
        mkpath(dir, "sys/kernel/tracing/" EV);
        cap = corpus("format-no-order", &len);
        put(dir, "sys/kernel/tracing/" EV "/format", cap);
        free(cap);
        assert_int_equal(root_open(dir, 4096, &root), 0);
        assert_int_equal(pagecache_read(root, &h), -EOPNOTSUPP);
        root = root_free(root);
        cap = corpus("vm-6.12-format", &len);
        put(dir, "sys/kernel/tracing/" EV "/format", cap);
        free(cap);
        assert_int_equal(root_open(dir, 4096, &root), 0);
        assert_int_equal(pagecache_read(root, &h), -ENOENT);
        root = root_free(root);

        cap = corpus("vm-6.12-xfs-hist", &len);
        mkpath(dir, INST "/" EV);
        put(dir, INST "/" EV "/hist", cap);
        assert_int_equal(root_open(dir, 4096, &root), 0);
        assert_int_equal(pagecache_read(root, &h), 0);
        assert_int_equal(h.folios[6], 249);
        /* stop removes the instance (here an empty directory stands for it) */
        rm_rf(dir);
        root = root_free(root);
}

#define XEV "events/kmem/mm_page_alloc_extfrag"

/* the trigger goes into the instance, the hist is read from it */
/* A trigger in the instance pagecache_trace_start() made (the extfrag and
 * kswapd ones): no event, an event without the fields (no_fields: its
 * format, lacks: the words why names), the fields without an instance, then
 * the trigger written there and the hist read through read(). */
typedef struct TriggerCase {
        const char *ev, *event_name, *no_fields, *lacks, *format, *trigger, *hist;
        int (*start)(const Root *root, char *why, size_t why_size);
        int (*read)(const Root *root, void *ret); /* the hist parsed into ret */
} TriggerCase;

static void trigger_case(const TriggerCase *tc, void *ret)
{
        char dir[] = "/tmp/fragd-test-trigger-XXXXXX", why[512] = "", p[PATH_MAX * 2], rel[PATH_MAX];
        _cleanup_free_ char *fmt = NULL, *hist = NULL, *trig = NULL;
        Root *root = NULL;
        size_t len;

        assert_non_null(mkdtemp(dir));
        mkpath(dir, "proc");
        mkpath(dir, "sys/kernel/tracing/instances");
        assert_int_equal(root_open(dir, 4096, &root), 0);
        /* no such event */
        assert_int_equal(tc->start(root, why, sizeof(why)), -ENOENT);
        (void) snprintf(p, sizeof(p), "no event %s", tc->event_name);
        assert_non_null(strstr(why, p));
        /* an event without the fields */
        (void) snprintf(rel, sizeof(rel), "sys/kernel/tracing/%s", tc->ev);
        mkpath(dir, rel);
        (void) snprintf(rel, sizeof(rel), "sys/kernel/tracing/%s/format", tc->ev);
        fmt = corpus(tc->no_fields, &len);
        put(dir, rel, fmt);
        free(fmt);
        assert_int_equal(tc->start(root, why, sizeof(why)), -EOPNOTSUPP);
        assert_non_null(strstr(why, tc->lacks));
        /* the fields, no instance */
        fmt = corpus(tc->format, &len);
        put(dir, rel, fmt);
        assert_int_equal(tc->start(root, why, sizeof(why)), -ENOENT);
        assert_non_null(strstr(why, "no trace instance"));
        /* the instance: the trigger written there */
        (void) snprintf(rel, sizeof(rel), INST "/%s", tc->ev);
        mkpath(dir, rel);
        (void) snprintf(rel, sizeof(rel), INST "/%s/trigger", tc->ev);
        put(dir, rel, "");
        assert_int_equal(tc->start(root, why, sizeof(why)), 0);
        (void) snprintf(p, sizeof(p), "%s/" INST, dir);
        {
                int fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

                assert_true(fd >= 0);
                (void) snprintf(rel, sizeof(rel), "%s/trigger", tc->ev);
                assert_true(read_file_alloc_at(fd, rel, &trig, &len) >= 0);
                (void) close(fd);
        }
        assert_string_equal(trig, tc->trigger);
        /* no hist yet: the file is empty */
        (void) snprintf(rel, sizeof(rel), INST "/%s/hist", tc->ev);
        put(dir, rel, "");
        assert_int_equal(tc->read(root, ret), -ENODATA);
        hist = corpus(tc->hist, &len);
        put(dir, rel, hist);
        assert_int_equal(tc->read(root, ret), 0);
        root = root_free(root);
        rm_rf(dir);
}

static int read_extfrag(const Root *root, void *ret)
{
        return extfrag_read(root, ret);
}

static int read_kswapd_wake(const Root *root, void *ret)
{
        return kswapd_wake_read(root, ret);
}

static void test_extfrag_start_read(void **state)
{
        static const TriggerCase tc = { XEV, "kmem:mm_page_alloc_extfrag", "vm-6.12-format", "no alloc_migratetype",
                                        "synthetic-extfrag-format", EXTFRAG_TRIGGER, "synthetic-extfrag-hist",
                                        extfrag_trace_start, read_extfrag };
        ExtfragHist e;

        (void) state;
        trigger_case(&tc, &e);
        assert_int_equal(e.polluting, 17);
}

#define KEV "events/vmscan/mm_vmscan_wakeup_kswapd"
static void test_kswapd_wake_start_read(void **state)
{
        static const TriggerCase tc = { KEV, "vmscan:mm_vmscan_wakeup_kswapd", "synthetic-extfrag-format",
                                        "has no order field", "synthetic-kswapd-wake-format", KSWAPD_WAKE_TRIGGER,
                                        "synthetic-kswapd-wake-hist", kswapd_wake_trace_start, read_kswapd_wake };
        OrderCountHist w;

        (void) state;
        trigger_case(&tc, &w);
        assert_int_equal(w.counts[6], 37);
}

/* ---- failed allocations by order (kmem:mm_page_alloc, no page) ----------- */

static int read_alloc_fail(const Root *root, void *ret)
{
        return alloc_fail_read(root, ret);
}

static void test_alloc_fail_format(void **state)
{
        _cleanup_free_ char *buf = NULL, *kw = NULL;
        size_t len;

        (void) state;
        buf = corpus("synthetic-page-alloc-format", &len);
        assert_int_equal(alloc_fail_format_has_fields(buf, len), 0);
        /* kswapd's event has an order but no pfn */
        kw = corpus("synthetic-kswapd-wake-format", &len);
        assert_int_equal(alloc_fail_format_has_fields(kw, len), -ENODATA);
}

#define AEV "events/kmem/mm_page_alloc"
static void test_alloc_fail_start_read(void **state)
{
        static const TriggerCase tc = { AEV, "kmem:mm_page_alloc", "synthetic-kswapd-wake-format",
                                        "has no order and pfn fields", "synthetic-page-alloc-format",
                                        ALLOC_FAIL_TRIGGER, "synthetic-alloc-fail-hist", alloc_fail_trace_start,
                                        read_alloc_fail };
        OrderCountHist w;

        (void) state;
        /* the failures alone: no page is pfn -1 (ULONG_MAX) */
        assert_non_null(strstr(ALLOC_FAIL_TRIGGER, sizeof(long) == 8 ? " if pfn == 18446744073709551615"
                                                                      : " if pfn == 4294967295"));
        trigger_case(&tc, &w);
        assert_int_equal(w.counts[6], 412);
        assert_int_equal(w.counts[5], 40);
        assert_int_equal(w.counts[3], 2);
        assert_int_equal(w.counts[4], 0);
}

/* removed by writing the trigger with '!' (the kernel matches the filter
 * too); no instance, no tracefs: nothing to remove */
static void test_alloc_fail_stop(void **state)
{
        char dir[] = "/tmp/fragd-test-afstop-XXXXXX", why[512] = "", p[PATH_MAX * 2];
        _cleanup_free_ char *trig = NULL;
        Root *root = NULL;
        size_t len;

        (void) state;
        assert_non_null(mkdtemp(dir));
        mkpath(dir, "proc");
        mkpath(dir, "sys/kernel/tracing/instances");
        assert_int_equal(root_open(dir, 4096, &root), 0);
        assert_int_equal(alloc_fail_trace_stop(root, why, sizeof(why)), 0);
        mkpath(dir, INST "/" AEV);
        put(dir, INST "/" AEV "/trigger", "");
        assert_int_equal(alloc_fail_trace_stop(root, why, sizeof(why)), 0);
        (void) snprintf(p, sizeof(p), "%s/" INST, dir);
        {
                int fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

                assert_true(fd >= 0);
                assert_true(read_file_alloc_at(fd, AEV "/trigger", &trig, &len) >= 0);
                (void) close(fd);
        }
        assert_string_equal(trig, "!" ALLOC_FAIL_TRIGGER);
        (void) snprintf(p, sizeof(p), "%s/" INST "/" AEV "/trigger", dir);
        /* a trigger file that is a symlink is not followed */
        assert_int_equal(unlink(p), 0);
        assert_int_equal(symlink("/dev/null", p), 0);
        assert_true(alloc_fail_trace_stop(root, why, sizeof(why)) < 0);
        assert_non_null(strstr(why, "cannot remove"));
        root = root_free(root);
        rm_rf(dir);
}

/* The instance scoped to tasks: event-fork on, the list replaced (the file
 * truncated: the kernel clears the list only when set_event_pid is opened
 * with O_TRUNC, and adds to it otherwise), pid 0 for none, empty to clear. */
static void test_set_tasks(void **state)
{
        char dir[] = "/tmp/fragd-test-tasks-XXXXXX", why[512] = "", p[PATH_MAX * 2];
        static const int32_t tids[] = { 12, 345, 67890 };
        Root *root = NULL;
        size_t len;

        (void) state;
        assert_non_null(mkdtemp(dir));
        mkpath(dir, "proc");
        mkpath(dir, "sys/kernel/tracing/instances");
        assert_int_equal(root_open(dir, 4096, &root), 0);
        /* no instance */
        assert_int_equal(pagecache_trace_set_tasks(root, tids, 3, why, sizeof(why)), -ENOENT);
        assert_non_null(strstr(why, "no trace instance"));
        mkpath(dir, INST "/options");
        put(dir, INST "/options/event-fork", "0");
        put(dir, INST "/set_event_pid", "999 998 997 996 995 994 993");
        assert_int_equal(pagecache_trace_set_tasks(root, tids, 3, why, sizeof(why)), 0);
        (void) snprintf(p, sizeof(p), "%s/" INST, dir);
        {
                _cleanup_free_ char *fork = NULL, *list = NULL;
                int fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

                assert_true(fd >= 0);
                assert_true(read_file_alloc_at(fd, "options/event-fork", &fork, &len) >= 0);
                assert_string_equal(fork, "1");
                assert_true(read_file_alloc_at(fd, "set_event_pid", &list, &len) >= 0);
                assert_string_equal(list, "12 345 67890");
                free(list);
                list = NULL;
                /* none: pid 0, nothing counted */
                assert_int_equal(pagecache_trace_set_tasks(root, tids, 0, why, sizeof(why)), 0);
                assert_true(read_file_alloc_at(fd, "set_event_pid", &list, &len) >= 0);
                assert_string_equal(list, "0");
                free(list);
                list = NULL;
                /* added to: the list kept (no O_TRUNC), the ids after it */
                assert_int_equal(pagecache_trace_set_tasks(root, tids, 3, why, sizeof(why)), 0);
                assert_int_equal(pagecache_trace_add_tasks(root, (const int32_t[]) { 5, 6 }, 2, why, sizeof(why)), 0);
                assert_int_equal(pagecache_trace_add_tasks(root, tids, 0, why, sizeof(why)), 0);
                assert_true(read_file_alloc_at(fd, "set_event_pid", &list, &len) >= 0);
                assert_string_equal(list, "12 345 67890 5 6");
                free(list);
                list = NULL;
                {
                        _cleanup_free_ int32_t *got = NULL;
                        size_t n = 0;

                        assert_int_equal(pagecache_trace_tasks_read(root, &got, &n), 0);
                        assert_int_equal(n, 5);
                        assert_int_equal(got[0], 12);
                        assert_int_equal(got[4], 6);
                }
                /* cleared: every task counts */
                assert_int_equal(pagecache_trace_set_tasks(root, NULL, 0, why, sizeof(why)), 0);
                assert_true(read_file_alloc_at(fd, "set_event_pid", &list, &len) >= 0);
                assert_int_equal(len, 0);
                (void) close(fd);
        }
        /* a symlink for the list is not followed out of the root: the file
         * it names, beside the root, keeps its text */
        {
                char outside[PATH_MAX];
                FILE *f;

                (void) snprintf(outside, sizeof(outside), "%s.outside", dir);
                f = fopen(outside, "we");
                assert_non_null(f);
                assert_true(fputs("keep", f) >= 0);
                assert_int_equal(fclose(f), 0);
                (void) snprintf(p, sizeof(p), "%s/" INST "/set_event_pid", dir);
                assert_int_equal(unlink(p), 0);
                assert_int_equal(symlink(outside, p), 0);
                assert_true(pagecache_trace_set_tasks(root, tids, 3, why, sizeof(why)) < 0);
                {
                        int ofd = open(outside, O_RDONLY | O_CLOEXEC);
                        char got[16] = "";

                        assert_true(ofd >= 0);
                        assert_int_equal(read(ofd, got, sizeof(got) - 1), 4);
                        (void) close(ofd);
                        assert_string_equal(got, "keep");
                }
                assert_int_equal(unlink(outside), 0);
        }
        root = root_free(root);
        rm_rf(dir);
}

/* set_event_pid as the kernel prints it (one id a line) and as fragd
 * writes it; anything else refused, ids past INT32_MAX too. */
static void test_tasks_parse(void **state)
{
        static const char *bad[] = { "12 x", "-1", "12,13", "1\0002", "0x10" };
        int32_t *t = NULL;
        size_t n = 9;

        (void) state;
        assert_int_equal(pagecache_tasks_parse("", 0, &t, &n), 0);
        assert_int_equal(n, 0);
        free(t);
        t = NULL;
        assert_int_equal(pagecache_tasks_parse("12\n345\n2147483647\n", strlen("12\n345\n2147483647\n"), &t, &n), 0);
        assert_int_equal(n, 3);
        assert_int_equal(t[0], 12);
        assert_int_equal(t[1], 345);
        assert_int_equal(t[2], INT32_MAX);
        free(t);
        t = NULL;
        assert_int_equal(pagecache_tasks_parse(" 0 7\t8 ", strlen(" 0 7\t8 "), &t, &n), 0);
        assert_int_equal(n, 3);
        free(t);
        t = NULL;
        assert_int_equal(pagecache_tasks_parse("2147483648", 10, &t, &n), -ERANGE);
        assert_null(t);
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                size_t len = strlen(bad[i]) + (i == 3 ? 2 : 0);

                assert_int_equal(pagecache_tasks_parse(bad[i], len, &t, &n), -EBADMSG);
                assert_null(t);
        }
}

/* The tasks to add to the kernel's list, and whether only a rewrite will
 * do: an id in the list that is no longer wanted (a task moved out of the
 * cgroups, pid 0 written for an empty one). */
static void test_tasks_missing(void **state)
{
        int32_t have[8], missing[8];
        size_t k = 99;

        (void) state;
        /* the kernel followed the forks: nothing to add */
        memcpy(have, (int32_t[]) { 30, 10, 20 }, 3 * sizeof(int32_t));
        assert_int_equal(pagecache_tasks_missing((const int32_t[]) { 10, 20, 30 }, 3, have, 3, missing, &k), 0);
        assert_int_equal(k, 0);
        /* a task moved in (not a child of a listed one): added */
        memcpy(have, (int32_t[]) { 30, 10 }, 2 * sizeof(int32_t));
        assert_int_equal(pagecache_tasks_missing((const int32_t[]) { 10, 40, 30, 50 }, 4, have, 2, missing, &k), 0);
        assert_int_equal(k, 2);
        assert_int_equal(missing[0], 40);
        assert_int_equal(missing[1], 50);
        /* a listed task no longer watched: a rewrite */
        memcpy(have, (int32_t[]) { 10, 99 }, 2 * sizeof(int32_t));
        assert_int_equal(pagecache_tasks_missing((const int32_t[]) { 10, 20 }, 2, have, 2, missing, &k), 1);
        /* pid 0 of an empty cgroup, tasks now: a rewrite; none and none: nothing */
        have[0] = 0;
        assert_int_equal(pagecache_tasks_missing((const int32_t[]) { 10 }, 1, have, 1, missing, &k), 1);
        assert_int_equal(pagecache_tasks_missing(NULL, 0, have, 0, missing, &k), 0);
        assert_int_equal(k, 0);
        /* every listed task exited, new ones came: all added */
        assert_int_equal(pagecache_tasks_missing((const int32_t[]) { 7, 8 }, 2, have, 0, missing, &k), 0);
        assert_int_equal(k, 2);
}

static void test_start_degrades(void **state)
{
        char dir[] = "/tmp/fragd-test-pagecache-XXXXXX", why[512];
        _cleanup_free_ char *fmt = NULL, *nofmt = NULL;
        Root *root = NULL;
        size_t len;
        struct stat st;
        char p[PATH_MAX];

        (void) state;
        assert_non_null(mkdtemp(dir));
        mkpath(dir, "proc");
        mkpath(dir, "sys/kernel");

        /* no tracefs at all */
        assert_int_equal(root_open(dir, 4096, &root), 0);
        why[0] = '\0';
        assert_int_equal(pagecache_trace_start(root, why, sizeof(why)), -ENOENT);
        assert_non_null(strstr(why, "/sys/kernel/tracing"));
        root = root_free(root);

        /* the sysfs mount point, tracefs not mounted */
        mkpath(dir, "sys/kernel/tracing");
        assert_int_equal(root_open(dir, 4096, &root), 0);
        assert_int_equal(pagecache_trace_start(root, why, sizeof(why)), -ENOMEDIUM);
        assert_non_null(strstr(why, "tracefs is not mounted"));
        root = root_free(root);

        /* mounted, but no such event */
        mkpath(dir, "sys/kernel/tracing/instances");
        assert_int_equal(root_open(dir, 4096, &root), 0);
        assert_int_equal(pagecache_trace_start(root, why, sizeof(why)), -ENOENT);
        assert_non_null(strstr(why, "no event filemap:mm_filemap_add_to_page_cache"));
        root = root_free(root);

        /* an event without the order field */
        mkpath(dir, "sys/kernel/tracing/" EV);
        nofmt = corpus("format-no-order", &len);
        put(dir, "sys/kernel/tracing/" EV "/format", nofmt);
        assert_int_equal(root_open(dir, 4096, &root), 0);
        assert_int_equal(pagecache_trace_start(root, why, sizeof(why)), -EOPNOTSUPP);
        assert_non_null(strstr(why, "no order field"));
        root = root_free(root);

        /* the order field; a leftover instance is removed, a new one made,
         * and (a plain directory has no trigger file) removed again */
        fmt = corpus("vm-6.12-format", &len);
        put(dir, "sys/kernel/tracing/" EV "/format", fmt);
        mkpath(dir, INST);
        assert_int_equal(root_open(dir, 4096, &root), 0);
        assert_int_equal(pagecache_trace_start(root, why, sizeof(why)), -ENOENT);
        assert_non_null(strstr(why, "/trigger"));
        (void) snprintf(p, sizeof(p), "%s/" INST, dir);
        assert_int_equal(stat(p, &st), -1);
        assert_int_equal(pagecache_trace_stop(root), -ENOENT);
        root = root_free(root);

        /* instances/ a symlink out of the root: nothing is made there */
        {
                char out[] = "/tmp/fragd-test-pagecache-out-XXXXXX", link[PATH_MAX], gone[PATH_MAX * 2];

                assert_non_null(mkdtemp(out));
                (void) snprintf(link, sizeof(link), "%s/sys/kernel/tracing/instances", dir);
                assert_int_equal(rmdir(link), 0);
                assert_int_equal(symlink(out, link), 0);
                assert_int_equal(root_open(dir, 4096, &root), 0);
                assert_int_equal(pagecache_trace_start(root, why, sizeof(why)), -EXDEV);
                assert_non_null(strstr(why, "symbolic link out of the root"));
                (void) snprintf(gone, sizeof(gone), "%s/fragd", out);
                assert_int_equal(stat(gone, &st), -1);
                root = root_free(root);
                assert_int_equal(rmdir(out), 0);
        }
        rm_rf(dir);
}

static int write_file(const char *path, const char *text)
{
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        ssize_t n;

        if (fd < 0)
                return -1;
        n = write(fd, text, strlen(text));
        close(fd);
        return n == (ssize_t) strlen(text) ? 0 : -1;
}

/* In a child with its own mount namespace (a user namespace when not
 * root): 0 when it could mount, -1 when the system does not allow it. */
static int private_mounts(void)
{
        uid_t uid = getuid();
        gid_t gid = getgid();
        char map[64];

        if (unshare(CLONE_NEWNS) < 0) {
                if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
                        return -1;
                (void) snprintf(map, sizeof(map), "0 %u 1", (unsigned) uid);
                if (write_file("/proc/self/uid_map", map) < 0)
                        return -1;
                (void) write_file("/proc/self/setgroups", "deny");
                (void) snprintf(map, sizeof(map), "0 %u 1", (unsigned) gid);
                if (write_file("/proc/self/gid_map", map) < 0)
                        return -1;
        }
        return mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ? -1 : 0;
}

/* tracefs mounted read-only (a container, a hardened host) and no
 * leftover instance: the reason is that the instance cannot be made, not
 * that a leftover one cannot be removed. */
static void test_start_readonly(void **state)
{
        char dir[] = "/tmp/fragd-test-pagecache-ro-XXXXXX", p[PATH_MAX];
        _cleanup_free_ char *fmt = NULL;
        size_t len;
        pid_t pid;
        int status;

        (void) state;
        assert_non_null(mkdtemp(dir));
        mkpath(dir, "proc");
        mkpath(dir, "sys/kernel/tracing/" EV);
        mkpath(dir, "sys/kernel/tracing/instances");
        fmt = corpus("vm-6.12-format", &len);
        put(dir, "sys/kernel/tracing/" EV "/format", fmt);
        (void) snprintf(p, sizeof(p), "%s/sys/kernel/tracing", dir);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                Root *root = NULL;
                char why[512] = "";
                int r;

                if (private_mounts() < 0 || mount(p, p, NULL, MS_BIND, NULL) < 0 ||
                    mount(NULL, p, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) < 0)
                        _exit(77);
                if (root_open(dir, 4096, &root) < 0)
                        _exit(1);
                if (pagecache_trace_stop(root) != -ENOENT)
                        _exit(2);
                r = pagecache_trace_start(root, why, sizeof(why));
                fprintf(stderr, "read-only tracefs: %d %s\n", r, why);
                if (r != -EROFS)
                        _exit(3);
                if (strstr(why, "leftover") || !strstr(why, "cannot make the trace instance") ||
                    !strstr(why, "read-only"))
                        _exit(4);
                root_free(root);
                _exit(0);
        }
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status));
        rm_rf(dir);
        if (WEXITSTATUS(status) == 77)
                skip();
        assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse_captured_xfs),
                cmocka_unit_test(test_parse_captured_order0),
                cmocka_unit_test(test_format_captured),
                cmocka_unit_test(test_hist_cases),
                cmocka_unit_test(test_hist_extra_vals),
                cmocka_unit_test(test_format_cases),
                cmocka_unit_test(test_extfrag_parse),
                cmocka_unit_test(test_extfrag_cases),
                cmocka_unit_test(test_extfrag_format),
                cmocka_unit_test(test_read),
                cmocka_unit_test(test_extfrag_start_read),
                cmocka_unit_test(test_kswapd_wake_parse),
                cmocka_unit_test(test_kswapd_wake_cases),
                cmocka_unit_test(test_kswapd_wake_format),
                cmocka_unit_test(test_kswapd_wake_start_read),
                cmocka_unit_test(test_alloc_fail_format),
                cmocka_unit_test(test_alloc_fail_start_read),
                cmocka_unit_test(test_alloc_fail_stop),
                cmocka_unit_test(test_set_tasks),
                cmocka_unit_test(test_tasks_parse),
                cmocka_unit_test(test_tasks_missing),
                cmocka_unit_test(test_start_degrades),
                cmocka_unit_test(test_start_readonly),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
