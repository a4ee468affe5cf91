/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Proc connector: socket, subscription and a pure event decoder. The layouts
 * are spelled out here (offsets, not the build host's <linux/cn_proc.h>) so
 * an old build header does not change what fragd understands. */

#include <errno.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "core/root.h"
#include "fragd/macro.h"
#include "workload/proc-events.h"

/* <linux/connector.h>: struct cn_msg { struct cb_id { u32 idx, val } id;
 * u32 seq, ack; u16 len, flags; u8 data[]; } = 20 bytes */
#define CN_MSG_SIZE 20
#define CN_IDX_PROC_ 1u
#define CN_VAL_PROC_ 1u
/* <linux/cn_proc.h>: struct proc_event { u32 what, cpu; u64 timestamp_ns;
 * union event_data } -- event_data at 16 */
#define PE_DATA 16
#define PROC_CN_MCAST_LISTEN_ 1u
#define PE_NONE 0x00000000u
#define PE_FORK 0x00000001u
#define PE_EXEC 0x00000002u
#define PE_EXIT 0x80000000u

static uint32_t get_u32(const uint8_t *p)
{
        uint32_t v;

        memcpy(&v, p, sizeof(v));
        return v;
}

static int32_t get_i32(const uint8_t *p)
{
        int32_t v;

        memcpy(&v, p, sizeof(v));
        return v;
}

int proc_event_decode(const void *buf, size_t len, ProcEvent *ret)
{
        const uint8_t *b = buf, *cn, *ev, *d;
        struct nlmsghdr nlh;
        uint32_t idx, val;
        uint16_t cn_len;
        size_t dlen;
        ProcEvent e = { .parent_pid = -1, .parent_tgid = -1 };

        if (len < NLMSG_HDRLEN)
                return -EBADMSG;
        memcpy(&nlh, b, sizeof(nlh));
        if (nlh.nlmsg_len < NLMSG_HDRLEN || nlh.nlmsg_len > len)
                return -EBADMSG;
        if (nlh.nlmsg_type == NLMSG_NOOP || nlh.nlmsg_type == NLMSG_ERROR)
                return -ENOMSG;
        if (nlh.nlmsg_len < NLMSG_HDRLEN + CN_MSG_SIZE)
                return -EBADMSG;
        cn = b + NLMSG_HDRLEN;
        idx = get_u32(cn);
        val = get_u32(cn + 4);
        if (idx != CN_IDX_PROC_ || val != CN_VAL_PROC_)
                return -ENOMSG;
        e.seq = get_u32(cn + 8);
        e.ack = get_u32(cn + 12);
        memcpy(&cn_len, cn + 16, sizeof(cn_len));
        if ((size_t) cn_len > nlh.nlmsg_len - NLMSG_HDRLEN - CN_MSG_SIZE || cn_len < PE_DATA)
                return -EBADMSG;
        ev = cn + CN_MSG_SIZE;
        d = ev + PE_DATA;
        dlen = cn_len - PE_DATA;

        e.what = get_u32(ev);
        e.cpu = get_u32(ev + 4);
        memcpy(&e.timestamp_ns, ev + 8, sizeof(e.timestamp_ns));

        switch (e.what) {
        case PE_NONE: /* ack: { u32 err } */
                if (dlen < 4)
                        return -EBADMSG;
                e.type = PROC_EV_NONE;
                e.ack_err = get_i32(d);
                break;
        case PE_FORK: /* parent_pid, parent_tgid, child_pid, child_tgid */
                if (dlen < 16)
                        return -EBADMSG;
                e.type = PROC_EV_FORK;
                e.parent_pid = get_i32(d);
                e.parent_tgid = get_i32(d + 4);
                e.pid = get_i32(d + 8);
                e.tgid = get_i32(d + 12);
                break;
        case PE_EXEC:
                if (dlen < 8)
                        return -EBADMSG;
                e.type = PROC_EV_EXEC;
                e.pid = get_i32(d);
                e.tgid = get_i32(d + 4);
                break;
        case PE_EXIT: /* pid, tgid, exit_code, exit_signal[, parent_pid, parent_tgid] */
                if (dlen < 16)
                        return -EBADMSG;
                e.type = PROC_EV_EXIT;
                e.pid = get_i32(d);
                e.tgid = get_i32(d + 4);
                e.exit_code = get_u32(d + 8);
                e.exit_signal = get_u32(d + 12);
                if (dlen >= 24) {
                        e.parent_pid = get_i32(d + 16);
                        e.parent_tgid = get_i32(d + 20);
                }
                break;
        default: /* every other event starts with process_pid, process_tgid */
                if (dlen < 8)
                        return -EBADMSG;
                e.type = PROC_EV_OTHER;
                e.pid = get_i32(d);
                e.tgid = get_i32(d + 4);
                break;
        }
        if (e.type != PROC_EV_NONE && (e.pid <= 0 || e.tgid <= 0))
                return -EBADMSG;
        *ret = e;
        return 0;
}

int proc_event_build_listen(void *buf, size_t size, uint32_t seq, bool filter)
{
        uint8_t *b = buf;
        uint16_t payload = filter ? 8 : 4;
        size_t total = NLMSG_HDRLEN + CN_MSG_SIZE + payload;
        struct nlmsghdr nlh = {
                .nlmsg_len = (uint32_t) total,
                .nlmsg_type = NLMSG_DONE,
                .nlmsg_seq = seq,
        };
        uint32_t u;
        uint16_t flags = 0;

        if (size < total)
                return -ENOBUFS;
        memset(b, 0, total);
        memcpy(b, &nlh, sizeof(nlh));
        u = CN_IDX_PROC_;
        memcpy(b + NLMSG_HDRLEN, &u, 4);
        u = CN_VAL_PROC_;
        memcpy(b + NLMSG_HDRLEN + 4, &u, 4);
        memcpy(b + NLMSG_HDRLEN + 8, &seq, 4);
        memcpy(b + NLMSG_HDRLEN + 12, &seq, 4); /* ack cookie: the kernel acks seq + 1 */
        memcpy(b + NLMSG_HDRLEN + 16, &payload, 2);
        memcpy(b + NLMSG_HDRLEN + 18, &flags, 2);
        u = PROC_CN_MCAST_LISTEN_;
        memcpy(b + NLMSG_HDRLEN + CN_MSG_SIZE, &u, 4);
        if (filter) { /* struct proc_input { mcast_op; event_type } */
                u = PE_FORK | PE_EXEC | PE_EXIT;
                memcpy(b + NLMSG_HDRLEN + CN_MSG_SIZE + 4, &u, 4);
        }
        return (int) total;
}

struct ProcEvents {
        int fd;
        bool filtered;
        uint64_t lost;
};

bool in_initial_namespaces(void)
{
        /* PROC_USER_INIT_INO / PROC_PID_INIT_INO (include/linux/proc_ns.h) */
        struct stat u, p;

        if (stat("/proc/self/ns/user", &u) < 0 || stat("/proc/self/ns/pid", &p) < 0)
                return false;
        return u.st_ino == 0xEFFFFFFDu && p.st_ino == 0xEFFFFFFCu;
}

ProcEvents *proc_events_free(ProcEvents *p)
{
        if (!p)
                return NULL;
        closep(&p->fd);
        free(p);
        return NULL;
}

int proc_events_fd(const ProcEvents *p)
{
        return p->fd;
}

bool proc_events_filtered(const ProcEvents *p)
{
        return p->filtered;
}

uint64_t proc_events_lost(const ProcEvents *p)
{
        return p->lost;
}

static int recv_one(int fd, uint8_t *buf, size_t size, ProcEvent *ret)
{
        for (;;) {
                ssize_t n = recv(fd, buf, size, MSG_DONTWAIT);
                int r;

                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        if (errno == EAGAIN || errno == EWOULDBLOCK)
                                return 0;
                        return negative_errno();
                }
                r = proc_event_decode(buf, (size_t) n, ret);
                if (r == 0)
                        return 1;
                /* not for us or garbage: skip it */
        }
}

/* Waits up to timeout_ms for the ack of our request. Acks are multicast
 * (other listeners' acks and events are skipped) and their cn_msg seq is the
 * kernel's per-CPU event counter, so they are matched on ack == cookie + 1. */
static int wait_ack(int fd, uint32_t seq, int timeout_ms)
{
        struct timespec start, now;
        uint8_t buf[512];

        (void) clock_gettime(CLOCK_MONOTONIC, &start);
        for (;;) {
                struct pollfd pfd = { .fd = fd, .events = POLLIN };
                ProcEvent e;
                long elapsed;
                int r;

                (void) clock_gettime(CLOCK_MONOTONIC, &now);
                elapsed = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
                if (elapsed >= timeout_ms)
                        return -ETIMEDOUT;
                r = poll(&pfd, 1, (int) (timeout_ms - elapsed));
                if (r < 0 && errno != EINTR)
                        return negative_errno();
                if (r <= 0)
                        continue;
                while ((r = recv_one(fd, buf, sizeof(buf), &e)) > 0)
                        if (e.type == PROC_EV_NONE && e.ack == seq + 1)
                                return e.ack_err > 0 ? -e.ack_err : e.ack_err;
                if (r < 0 && r != -ENOBUFS)
                        return r;
        }
}

static int subscribe(int fd, uint32_t seq, bool filter, bool want_ack)
{
        struct sockaddr_nl dst = { .nl_family = AF_NETLINK };
        uint8_t buf[64];
        int len;

        len = proc_event_build_listen(buf, sizeof(buf), seq, filter);
        if (len < 0)
                return len;
        if (sendto(fd, buf, (size_t) len, 0, (struct sockaddr *) &dst, sizeof(dst)) < 0)
                return negative_errno();
        return want_ack ? wait_ack(fd, seq, 500) : 0;
}

int proc_events_open(ProcEvents **ret)
{
        struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC_ };
        _cleanup_close_ int fd = -1;
        ProcEvents *p;
        int rcvbuf = 4 << 20;
        uint32_t seq = (uint32_t) getpid();
        bool filtered = true;
        int r;

        if (!in_initial_namespaces())
                return -EPERM;
        fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_CONNECTOR);
        if (fd < 0)
                return negative_errno();
        if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) < 0)
                (void) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
        if (bind(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0)
                return negative_errno();
        /* The plain LISTEN is acked (6.6+ sends the ack through the socket's
         * event filter, which lets only PROC_EVENT_ALL see acks): it proves the
         * kernel heard us. Then narrow to fork|exec|exit with struct
         * proc_input; that one is not acked on 6.6+ (filtered out) and is
         * ignored by older kernels, which keep sending every event. */
        r = subscribe(fd, seq, false, true);
        if (r == -ETIMEDOUT)
                return -ETIMEDOUT;
        if (r < 0)
                return r;
        if (subscribe(fd, seq + 2, true, false) < 0)
                filtered = false;
        p = calloc(1, sizeof(*p));
        if (!p)
                return -ENOMEM;
        p->fd = TAKE_FD(fd);
        p->filtered = filtered;
        *ret = p;
        return 0;
}

int proc_events_receive(ProcEvents *p, ProcEvent *ret)
{
        uint8_t buf[512];
        int r;

        for (;;) {
                r = recv_one(p->fd, buf, sizeof(buf), ret);
                if (r == -ENOBUFS) {
                        p->lost++;
                        return r;
                }
                if (r <= 0)
                        return r;
                if (ret->type == PROC_EV_NONE)
                        continue; /* acks, ours or anyone's */
                return 1;
        }
}
