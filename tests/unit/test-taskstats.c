/* SPDX-License-Identifier: GPL-2.0-or-later */
/* taskstats_parse_reply/_stats against hand-built genetlink messages (every
 * struct version fragd cares about), plus a smoke query of the real kernel
 * that is skipped when it is not permitted here. */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "workload/taskstats.h"

/* offsets in struct taskstats (include/uapi/linux/taskstats.h) */
enum {
        OFF_VERSION = 0,
        OFF_CPU_COUNT = 16,
        OFF_CPU_DELAY = 24,
        OFF_COMM = 80,
        OFF_PID = 128,
        OFF_PPID = 132,
        OFF_FREEPAGES_COUNT = 312,
        OFF_FREEPAGES_DELAY = 320,
        OFF_THRASHING_COUNT = 328,
        OFF_THRASHING_DELAY = 336,
        OFF_BTIME64 = 344,
        OFF_COMPACT_COUNT = 352,
        OFF_COMPACT_DELAY = 360,
        OFF_TGID = 368,
        SIZE_V10 = 352,
        SIZE_V11 = 368,
        SIZE_V14 = 432,
        SIZE_V16 = 432 + 14 * 8,
};

static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

static void make_stats(uint8_t *s, size_t size, uint16_t version, uint32_t pid, uint32_t tgid)
{
        memset(s, 0, size);
        put16(s + OFF_VERSION, version);
        put64(s + OFF_CPU_COUNT, 5);
        put64(s + OFF_CPU_DELAY, 6000);
        memcpy(s + OFF_COMM, "postgres", 8);
        put32(s + OFF_PID, pid);
        put32(s + OFF_PPID, 1);
        put64(s + OFF_FREEPAGES_COUNT, 3);
        put64(s + OFF_FREEPAGES_DELAY, 20000000);
        put64(s + OFF_THRASHING_COUNT, 1);
        put64(s + OFF_THRASHING_DELAY, 7000);
        put64(s + OFF_BTIME64, 1700000000);
        if (size >= SIZE_V11) {
                put64(s + OFF_COMPACT_COUNT, 12);
                put64(s + OFF_COMPACT_DELAY, 380000000);
        }
        if (size >= OFF_TGID + 4)
                put32(s + OFF_TGID, tgid);
}

typedef struct Msg {
        uint8_t b[4096];
        size_t len;
} Msg;

static size_t align4(size_t n) { return (n + 3) & ~(size_t) 3; }

static uint8_t *attr_begin(Msg *m, uint16_t type)
{
        uint8_t *a = m->b + m->len;

        put16(a + 2, type);
        m->len += 4;
        return a;
}

static void attr_end(Msg *m, uint8_t *a)
{
        put16(a, (uint16_t) (m->b + m->len - a));
        m->len = align4(m->len);
}

static void attr_put(Msg *m, uint16_t type, const void *data, size_t len)
{
        uint8_t *a = attr_begin(m, type);

        if (len)
                memcpy(m->b + m->len, data, len);
        m->len += len;
        attr_end(m, a);
}

static void msg_init(Msg *m, uint8_t cmd)
{
        memset(m, 0, sizeof(*m));
        m->b[0] = cmd; /* genlmsghdr: cmd, version, reserved */
        m->b[1] = 1;
        m->len = 4;
}

/* AGGR_PID or AGGR_TGID nest: id, NULL padding, stats (as the kernel's mk_reply) */
static void msg_aggr(Msg *m, bool tgid, uint32_t id, const uint8_t *stats, size_t size, bool id_last)
{
        uint8_t *nest = attr_begin(m, tgid ? 5 : 4);

        if (!id_last)
                attr_put(m, tgid ? 2 : 1, &id, 4);
        attr_put(m, 6, NULL, 0);
        attr_put(m, 3, stats, size);
        if (id_last)
                attr_put(m, tgid ? 2 : 1, &id, 4);
        attr_end(m, nest);
}

static void test_v16_exit_pid(void **state)
{
        uint8_t s[SIZE_V16];
        Msg m;
        TaskstatsReply r;

        (void) state;
        make_stats(s, sizeof(s), 16, 4242, 4242);
        msg_init(&m, 2);
        msg_aggr(&m, false, 4242, s, sizeof(s), false);
        assert_int_equal(taskstats_parse_reply(m.b, m.len, &r), 0);
        assert_int_equal(r.n, 1);
        assert_false(r.rec[0].aggr_tgid);
        assert_int_equal(r.rec[0].id, 4242);
        assert_int_equal(r.rec[0].version, 16);
        assert_int_equal(r.rec[0].have, TS_HAVE_PID | TS_HAVE_RECLAIM | TS_HAVE_THRASHING | TS_HAVE_COMPACT |
                                                TS_HAVE_TGID | TS_HAVE_CPU_DELAY);
        assert_string_equal(r.rec[0].comm, "postgres");
        assert_int_equal(r.rec[0].ac_pid, 4242);
        assert_int_equal(r.rec[0].ac_tgid, 4242);
        assert_int_equal(r.rec[0].compact_count, 12);
        assert_int_equal(r.rec[0].compact_delay_ns, 380000000);
        assert_int_equal(r.rec[0].reclaim_count, 3);
        assert_int_equal(r.rec[0].reclaim_delay_ns, 20000000);
        assert_int_equal(r.rec[0].thrashing_delay_ns, 7000);
        assert_int_equal(r.rec[0].btime64, 1700000000);
}

/* The last thread of a group: AGGR_PID then AGGR_TGID in one message. */
static void test_exit_group(void **state)
{
        uint8_t s1[SIZE_V14], s2[SIZE_V14];
        Msg m;
        TaskstatsReply r;

        (void) state;
        make_stats(s1, sizeof(s1), 14, 101, 100);
        make_stats(s2, sizeof(s2), 14, 0, 0);
        put64(s2 + OFF_COMPACT_DELAY, 999);
        msg_init(&m, 2);
        msg_aggr(&m, false, 101, s1, sizeof(s1), false);
        msg_aggr(&m, true, 100, s2, sizeof(s2), true); /* id after stats */
        assert_int_equal(taskstats_parse_reply(m.b, m.len, &r), 0);
        assert_int_equal(r.n, 2);
        assert_false(r.rec[0].aggr_tgid);
        assert_int_equal(r.rec[0].id, 101);
        assert_int_equal(r.rec[0].ac_tgid, 100);
        assert_true(r.rec[1].aggr_tgid);
        assert_int_equal(r.rec[1].id, 100);
        assert_int_equal(r.rec[1].compact_delay_ns, 999);
}

/* v10 (5.16): no compact fields, no tgid; even if the bytes were there,
 * version 10 does not have them. */
static void test_old_versions(void **state)
{
        uint8_t s[SIZE_V14];
        TaskstatsRecord r;

        (void) state;
        make_stats(s, SIZE_V10, 10, 7, 0);
        assert_int_equal(taskstats_parse_stats(s, SIZE_V10, &r), 0);
        assert_int_equal(r.version, 10);
        assert_false(r.have & TS_HAVE_COMPACT);
        assert_false(r.have & TS_HAVE_TGID);
        assert_true(r.have & TS_HAVE_RECLAIM);
        assert_int_equal(r.compact_delay_ns, 0);

        /* version 10 but a longer buffer with garbage: still no compact */
        make_stats(s, SIZE_V14, 10, 7, 7);
        assert_int_equal(taskstats_parse_stats(s, SIZE_V14, &r), 0);
        assert_false(r.have & TS_HAVE_COMPACT);
        assert_int_equal(r.compact_count, 0);

        /* v11: compact yes, tgid is a v12 field */
        make_stats(s, SIZE_V11, 11, 7, 0);
        assert_int_equal(taskstats_parse_stats(s, SIZE_V11, &r), 0);
        assert_true(r.have & TS_HAVE_COMPACT);
        assert_false(r.have & TS_HAVE_TGID);
        assert_int_equal(r.compact_delay_ns, 380000000);

        /* a new version but a short attribute: fields beyond it are absent */
        make_stats(s, SIZE_V14, 16, 7, 7);
        assert_int_equal(taskstats_parse_stats(s, OFF_COMPACT_DELAY, &r), 0);
        assert_false(r.have & TS_HAVE_COMPACT);
        assert_true(r.have & TS_HAVE_THRASHING);
        assert_int_equal(taskstats_parse_stats(s, 100, &r), 0);
        assert_int_equal(r.have, TS_HAVE_CPU_DELAY);
        assert_int_equal(r.ac_pid, 0);

        /* a future version with more at the end: what fragd knows is read */
        uint8_t big[1024];
        make_stats(big, sizeof(big), 17, 9, 9);
        assert_int_equal(taskstats_parse_stats(big, sizeof(big), &r), 0);
        assert_int_equal(r.version, 17);
        assert_int_equal(r.compact_count, 12);
}

static void test_v15_refused(void **state)
{
        uint8_t s[SIZE_V16];
        Msg m;
        TaskstatsReply r;

        (void) state;
        make_stats(s, sizeof(s), 15, 1, 1);
        msg_init(&m, 2);
        msg_aggr(&m, false, 1, s, sizeof(s), false);
        assert_int_equal(taskstats_parse_reply(m.b, m.len, &r), -EPROTO);
}

static void test_malformed(void **state)
{
        uint8_t s[SIZE_V14];
        Msg m;
        TaskstatsReply r;
        TaskstatsRecord rec;

        (void) state;
        make_stats(s, sizeof(s), 14, 1, 1);
        msg_init(&m, 2);
        assert_int_equal(taskstats_parse_reply(m.b, 2, &r), -EBADMSG);
        assert_int_equal(taskstats_parse_stats(s, 1, &rec), -EBADMSG);
        put16(s, 0);
        assert_int_equal(taskstats_parse_stats(s, sizeof(s), &rec), -EBADMSG);

        /* wrong command */
        make_stats(s, sizeof(s), 14, 1, 1);
        msg_init(&m, 1);
        msg_aggr(&m, false, 1, s, sizeof(s), false);
        assert_int_equal(taskstats_parse_reply(m.b, m.len, &r), -ENOMSG);

        /* no aggregate inside */
        msg_init(&m, 2);
        attr_put(&m, 6, NULL, 0);
        assert_int_equal(taskstats_parse_reply(m.b, m.len, &r), -ENOMSG);

        /* truncated: nla_len beyond the buffer */
        msg_init(&m, 2);
        msg_aggr(&m, false, 1, s, sizeof(s), false);
        assert_int_equal(taskstats_parse_reply(m.b, m.len - 8, &r), -EBADMSG);

        /* nest without stats */
        msg_init(&m, 2);
        uint8_t *nest = attr_begin(&m, 4);
        uint32_t id = 5;
        attr_put(&m, 1, &id, 4);
        attr_end(&m, nest);
        assert_int_equal(taskstats_parse_reply(m.b, m.len, &r), -EBADMSG);

        /* short id */
        msg_init(&m, 2);
        nest = attr_begin(&m, 4);
        attr_put(&m, 1, &id, 2);
        attr_put(&m, 3, s, sizeof(s));
        attr_end(&m, nest);
        assert_int_equal(taskstats_parse_reply(m.b, m.len, &r), -EBADMSG);

        /* three aggregates: more than an exit carries */
        msg_init(&m, 2);
        for (int i = 0; i < 3; i++)
                msg_aggr(&m, false, 1, s, sizeof(s), false);
        assert_int_equal(taskstats_parse_reply(m.b, m.len, &r), -EBADMSG);

        /* nla_len smaller than its header */
        msg_init(&m, 2);
        put16(m.b + 4, 2);
        put16(m.b + 6, 4);
        m.len = 8;
        assert_int_equal(taskstats_parse_reply(m.b, m.len, &r), -EBADMSG);
}

static void test_nlerr(void **state)
{
        (void) state;
        /* NLE_PERM = 28, NLE_OBJ_NOTFOUND = 12, NLE_NOMEM = 5 */
        assert_int_equal(nlerr_to_errno(-28), -EPERM);
        assert_int_equal(nlerr_to_errno(12), -ENOENT);
        assert_int_equal(nlerr_to_errno(-5), -ENOMEM);
        assert_int_equal(nlerr_to_errno(-9999), -EIO);
        assert_int_equal(nlerr_to_errno(0), 0);
}

/* Real kernel: only when permitted (root with CAP_NET_ADMIN); never needed. */
static void test_real_kernel_smoke(void **state)
{
        Taskstats *t = NULL;
        TaskstatsRecord rec;
        int r;

        (void) state;
        r = taskstats_open(&t);
        if (r < 0) {
                printf("  skip: taskstats family unavailable: %s\n", strerror(-r));
                skip();
        }
        r = taskstats_query(t, true, (uint32_t) getpid(), &rec);
        if (r == -EPERM || r == -EACCES) {
                printf("  skip: TASKSTATS_CMD_GET needs CAP_NET_ADMIN: %s\n", strerror(-r));
                taskstats_free(t);
                skip();
        }
        assert_int_equal(r, 0);
        printf("  kernel taskstats version %u (have %#x)\n", rec.version, rec.have);
        assert_true(rec.version >= 1);
        assert_true(rec.aggr_tgid);
        assert_int_equal(rec.id, (uint32_t) getpid());
        /* back-to-back queries: each must consume its own ack */
        assert_int_equal(taskstats_query(t, true, (uint32_t) getpid(), &rec), 0);
        assert_int_equal(taskstats_query(t, false, (uint32_t) getpid(), &rec), 0);
        assert_false(rec.aggr_tgid);
        assert_int_equal(rec.ac_pid, (uint32_t) getpid());
        r = taskstats_query(t, true, 0x7ffffff0, &rec);
        assert_int_equal(r, -ESRCH);
        assert_int_equal(taskstats_query(t, true, (uint32_t) getppid(), &rec), 0);
        taskstats_free(t);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_v16_exit_pid), cmocka_unit_test(test_exit_group),
                cmocka_unit_test(test_old_versions), cmocka_unit_test(test_v15_refused),
                cmocka_unit_test(test_malformed),    cmocka_unit_test(test_nlerr),
                cmocka_unit_test(test_real_kernel_smoke),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
