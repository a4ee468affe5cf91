/* SPDX-License-Identifier: GPL-2.0-or-later */
/* proc_event_decode against hand-built connector datagrams, the LISTEN
 * request layout, and a real-kernel smoke test that skips when the proc
 * connector is not available here. */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/root.h"
#include "workload/proc-events.h"

static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* nlmsghdr(16) + cn_msg(20) + proc_event header(16) + data */
static size_t make_event(uint8_t *b, uint32_t what, const uint32_t *data, unsigned n_data)
{
        size_t ev_len = 16 + 4 * n_data, total = 16 + 20 + ev_len;

        memset(b, 0, total);
        put32(b, (uint32_t) total);
        put16(b + 4, NLMSG_DONE);
        put32(b + 16, 1);                  /* CN_IDX_PROC */
        put32(b + 20, 1);                  /* CN_VAL_PROC */
        put32(b + 24, 77);                 /* seq */
        put32(b + 28, 0);                  /* ack */
        put16(b + 32, (uint16_t) ev_len);  /* len */
        put32(b + 36, what);
        put32(b + 40, 3);                  /* cpu */
        put64(b + 44, 123456789);
        for (unsigned i = 0; i < n_data; i++)
                put32(b + 52 + 4 * i, data[i]);
        return total;
}

static void test_fork_exec_exit(void **state)
{
        uint8_t b[256];
        ProcEvent e;
        size_t n;

        (void) state;
        n = make_event(b, 0x1, (const uint32_t[]) { 100, 100, 200, 200 }, 4);
        assert_int_equal(proc_event_decode(b, n, &e), 0);
        assert_int_equal(e.type, PROC_EV_FORK);
        assert_int_equal(e.parent_pid, 100);
        assert_int_equal(e.parent_tgid, 100);
        assert_int_equal(e.pid, 200);
        assert_int_equal(e.tgid, 200);
        assert_int_equal(e.cpu, 3);
        assert_int_equal(e.timestamp_ns, 123456789);
        assert_int_equal(e.seq, 77);

        n = make_event(b, 0x2, (const uint32_t[]) { 201, 200 }, 2);
        assert_int_equal(proc_event_decode(b, n, &e), 0);
        assert_int_equal(e.type, PROC_EV_EXEC);
        assert_int_equal(e.pid, 201);
        assert_int_equal(e.tgid, 200);

        /* exit with parent (4.18+) */
        n = make_event(b, 0x80000000u, (const uint32_t[]) { 200, 200, 256, 17, 100, 100 }, 6);
        assert_int_equal(proc_event_decode(b, n, &e), 0);
        assert_int_equal(e.type, PROC_EV_EXIT);
        assert_int_equal(e.exit_code, 256);
        assert_int_equal(e.exit_signal, 17);
        assert_int_equal(e.parent_pid, 100);

        /* exit without parent fields (older kernels) */
        n = make_event(b, 0x80000000u, (const uint32_t[]) { 200, 200, 0, 17 }, 4);
        assert_int_equal(proc_event_decode(b, n, &e), 0);
        assert_int_equal(e.parent_pid, -1);
}

static void test_ack_and_other(void **state)
{
        uint8_t b[256];
        ProcEvent e;
        size_t n;

        (void) state;
        n = make_event(b, 0x0, (const uint32_t[]) { 0 }, 1);
        put32(b + 28, 43); /* ack */
        assert_int_equal(proc_event_decode(b, n, &e), 0);
        assert_int_equal(e.type, PROC_EV_NONE);
        assert_int_equal(e.ack, 43);
        assert_int_equal(e.ack_err, 0);

        n = make_event(b, 0x200, (const uint32_t[]) { 5, 5, 0x6f6f66, 0 }, 4); /* COMM */
        assert_int_equal(proc_event_decode(b, n, &e), 0);
        assert_int_equal(e.type, PROC_EV_OTHER);
        assert_int_equal(e.pid, 5);
}

static void test_malformed(void **state)
{
        uint8_t b[256];
        ProcEvent e;
        size_t n;

        (void) state;
        n = make_event(b, 0x1, (const uint32_t[]) { 100, 100, 200, 200 }, 4);
        /* truncated datagram */
        assert_int_equal(proc_event_decode(b, 10, &e), -EBADMSG);
        assert_int_equal(proc_event_decode(b, n - 1, &e), -EBADMSG);
        /* fork payload too short for its fields */
        n = make_event(b, 0x1, (const uint32_t[]) { 100, 100 }, 2);
        assert_int_equal(proc_event_decode(b, n, &e), -EBADMSG);
        /* cn_msg.len larger than the message */
        n = make_event(b, 0x2, (const uint32_t[]) { 1, 1 }, 2);
        put16(b + 32, 200);
        assert_int_equal(proc_event_decode(b, n, &e), -EBADMSG);
        /* a different connector (e.g. CN_IDX_CIFS) */
        n = make_event(b, 0x2, (const uint32_t[]) { 1, 1 }, 2);
        put32(b + 16, 2);
        assert_int_equal(proc_event_decode(b, n, &e), -ENOMSG);
        /* NLMSG_NOOP */
        n = make_event(b, 0x2, (const uint32_t[]) { 1, 1 }, 2);
        put16(b + 4, NLMSG_NOOP);
        assert_int_equal(proc_event_decode(b, n, &e), -ENOMSG);
        /* pid 0 in an event */
        n = make_event(b, 0x2, (const uint32_t[]) { 0, 0 }, 2);
        assert_int_equal(proc_event_decode(b, n, &e), -EBADMSG);
        /* nlmsg_len below the header */
        put32(b, 4);
        assert_int_equal(proc_event_decode(b, n, &e), -EBADMSG);
}

static void test_listen_request(void **state)
{
        uint8_t b[64];
        uint32_t v;

        (void) state;
        assert_int_equal(proc_event_build_listen(b, sizeof(b), 9, false), 40);
        memcpy(&v, b + 16, 4);
        assert_int_equal(v, 1); /* CN_IDX_PROC */
        memcpy(&v, b + 28, 4);
        assert_int_equal(v, 9); /* ack cookie */
        memcpy(&v, b + 36, 4);
        assert_int_equal(v, 1); /* PROC_CN_MCAST_LISTEN */
        assert_int_equal(proc_event_build_listen(b, sizeof(b), 9, true), 44);
        memcpy(&v, b + 40, 4);
        assert_int_equal(v, 0x80000003u); /* fork|exec|exit */
        assert_int_equal(proc_event_build_listen(b, 20, 9, true), -ENOBUFS);
}

/* Real kernel: fork a child and see its fork and exit. Skipped where the
 * proc connector is not usable (namespaces, permissions, not built in). */
static void test_real_kernel_smoke(void **state)
{
        ProcEvents *p = NULL;
        bool fork_seen = false, exit_seen = false;
        pid_t c;
        int r;

        (void) state;
        r = proc_events_open(&p);
        if (r < 0) {
                printf("  skip: proc connector unavailable here: %s\n", strerror(-r));
                skip();
        }
        c = fork();
        assert_true(c >= 0);
        if (c == 0)
                _exit(3);
        assert_int_equal(waitpid(c, NULL, 0), c);
        for (int i = 0; i < 50 && !(fork_seen && exit_seen); i++) {
                struct pollfd pfd = { .fd = proc_events_fd(p), .events = POLLIN };
                ProcEvent e;

                (void) poll(&pfd, 1, 20);
                while ((r = proc_events_receive(p, &e)) > 0) {
                        if (e.type == PROC_EV_FORK && e.tgid == c && e.parent_tgid == getpid())
                                fork_seen = true;
                        if (e.type == PROC_EV_EXIT && e.tgid == c) {
                                exit_seen = true;
                                assert_int_equal(e.exit_code, 3 << 8);
                        }
                }
        }
        printf("  proc connector: fork %s, exit %s, filter requested %s\n", fork_seen ? "seen" : "missed",
               exit_seen ? "seen" : "missed", proc_events_filtered(p) ? "yes" : "no");
        assert_true(fork_seen);
        assert_true(exit_seen);
        proc_events_free(p);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_fork_exec_exit),    cmocka_unit_test(test_ack_and_other),
                cmocka_unit_test(test_malformed),         cmocka_unit_test(test_listen_request),
                cmocka_unit_test(test_real_kernel_smoke),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
