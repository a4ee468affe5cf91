/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Taskstats genetlink client (libnl-genl-3) and a pure reply parser. */

#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <netlink/errno.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "core/cleanup.h"
#include "fragd/macro.h"
#include "workload/taskstats.h"

/* <linux/taskstats.h>, spelled out so the build host's header version does
 * not matter. Layout of struct taskstats up to version 14 (v16 appends after
 * it; v15 is the broken one). Field order and alignment as in the uapi. */
struct ts_layout {
        uint16_t version;
        uint32_t ac_exitcode;
        uint8_t ac_flag;
        uint8_t ac_nice;
        uint64_t cpu_count __attribute__((aligned(8)));
        uint64_t cpu_delay_total;
        uint64_t blkio_count;
        uint64_t blkio_delay_total;
        uint64_t swapin_count;
        uint64_t swapin_delay_total;
        uint64_t cpu_run_real_total;
        uint64_t cpu_run_virtual_total;
        char ac_comm[TASKSTATS_COMM_MAX];
        uint8_t ac_sched __attribute__((aligned(8)));
        uint8_t ac_pad[3];
        uint32_t ac_uid __attribute__((aligned(8)));
        uint32_t ac_gid;
        uint32_t ac_pid;
        uint32_t ac_ppid;
        uint32_t ac_btime;
        uint64_t ac_etime __attribute__((aligned(8)));
        uint64_t ac_utime;
        uint64_t ac_stime;
        uint64_t ac_minflt;
        uint64_t ac_majflt;
        uint64_t coremem;
        uint64_t virtmem;
        uint64_t hiwater_rss;
        uint64_t hiwater_vm;
        uint64_t read_char;
        uint64_t write_char;
        uint64_t read_syscalls;
        uint64_t write_syscalls;
        uint64_t read_bytes;
        uint64_t write_bytes;
        uint64_t cancelled_write_bytes;
        uint64_t nvcsw;
        uint64_t nivcsw;
        uint64_t ac_utimescaled;
        uint64_t ac_stimescaled;
        uint64_t cpu_scaled_run_real_total;
        uint64_t freepages_count;
        uint64_t freepages_delay_total;
        uint64_t thrashing_count;
        uint64_t thrashing_delay_total;
        uint64_t ac_btime64;
        uint64_t compact_count; /* v11 */
        uint64_t compact_delay_total;
        uint32_t ac_tgid; /* v12 */
        uint64_t ac_tgetime __attribute__((aligned(8)));
        uint64_t ac_exe_dev;
        uint64_t ac_exe_inode;
        uint64_t wpcopy_count; /* v13 */
        uint64_t wpcopy_delay_total;
        uint64_t irq_count; /* v14 */
        uint64_t irq_delay_total;
};

/* Pinned offsets: a mistake in the mirror above must not compile. */
_Static_assert(offsetof(struct ts_layout, cpu_count) == 16, "taskstats layout");
_Static_assert(offsetof(struct ts_layout, ac_comm) == 80, "taskstats layout");
_Static_assert(offsetof(struct ts_layout, ac_pid) == 128, "taskstats layout");
_Static_assert(offsetof(struct ts_layout, freepages_delay_total) == 320, "taskstats layout");
_Static_assert(offsetof(struct ts_layout, thrashing_delay_total) == 336, "taskstats layout");
_Static_assert(offsetof(struct ts_layout, compact_delay_total) == 360, "taskstats layout");
_Static_assert(offsetof(struct ts_layout, ac_tgid) == 368, "taskstats layout");
_Static_assert(sizeof(struct ts_layout) == 432, "taskstats layout");

enum {
        TS_CMD_GET = 1,
        TS_CMD_NEW = 2,
        TS_TYPE_PID = 1,
        TS_TYPE_TGID = 2,
        TS_TYPE_STATS = 3,
        TS_TYPE_AGGR_PID = 4,
        TS_TYPE_AGGR_TGID = 5,
        TS_TYPE_NULL = 6,
        TS_ATTR_PID = 1,
        TS_ATTR_TGID = 2,
        TS_ATTR_REGISTER_CPUMASK = 3,
        TS_ATTR_DEREGISTER_CPUMASK = 4,
};

#define FIELD_END(f) (offsetof(struct ts_layout, f) + sizeof(((struct ts_layout *) 0)->f))

int taskstats_parse_stats(const void *buf, size_t len, TaskstatsRecord *ret)
{
        struct ts_layout s;
        TaskstatsRecord r = { 0 };

        if (len < sizeof(uint16_t))
                return -EBADMSG;
        memset(&s, 0, sizeof(s));
        memcpy(&s, buf, MIN(len, sizeof(s)));
        if (s.version == 0)
                return -EBADMSG;
        if (s.version == 15)
                return -EPROTO;
        r.version = s.version;
        if (len >= FIELD_END(cpu_delay_total)) {
                r.have |= TS_HAVE_CPU_DELAY;
                r.cpu_count = s.cpu_count;
                r.cpu_delay_ns = s.cpu_delay_total;
        }
        if (len >= FIELD_END(ac_btime)) {
                r.have |= TS_HAVE_PID;
                r.ac_pid = s.ac_pid;
                r.ac_ppid = s.ac_ppid;
                r.exitcode = s.ac_exitcode;
                memcpy(r.comm, s.ac_comm, TASKSTATS_COMM_MAX);
                r.comm[TASKSTATS_COMM_MAX] = '\0';
                r.btime64 = s.ac_btime;
        }
        if (len >= FIELD_END(freepages_delay_total)) {
                r.have |= TS_HAVE_RECLAIM;
                r.reclaim_count = s.freepages_count;
                r.reclaim_delay_ns = s.freepages_delay_total;
        }
        if (len >= FIELD_END(thrashing_delay_total)) {
                r.have |= TS_HAVE_THRASHING;
                r.thrashing_count = s.thrashing_count;
                r.thrashing_delay_ns = s.thrashing_delay_total;
        }
        if (len >= FIELD_END(ac_btime64) && s.ac_btime64 != 0)
                r.btime64 = s.ac_btime64;
        if (s.version >= 11 && len >= FIELD_END(compact_delay_total)) {
                r.have |= TS_HAVE_COMPACT;
                r.compact_count = s.compact_count;
                r.compact_delay_ns = s.compact_delay_total;
        }
        if (s.version >= 12 && len >= FIELD_END(ac_tgid)) {
                r.have |= TS_HAVE_TGID;
                r.ac_tgid = s.ac_tgid;
        }
        *ret = r;
        return 0;
}

/* Walks netlink attributes in [p, end): calls back with type and payload. */
typedef int (*attr_fn)(uint16_t type, const uint8_t *data, size_t len, void *userdata);

static int attrs_walk(const uint8_t *p, size_t len, attr_fn fn, void *userdata)
{
        while (len >= NLA_HDRLEN) {
                struct nlattr a;
                size_t alen;
                int r;

                memcpy(&a, p, sizeof(a));
                if (a.nla_len < NLA_HDRLEN || a.nla_len > len)
                        return -EBADMSG;
                r = fn(a.nla_type & NLA_TYPE_MASK, p + NLA_HDRLEN, a.nla_len - NLA_HDRLEN, userdata);
                if (r < 0)
                        return r;
                alen = NLA_ALIGN(a.nla_len);
                if (alen >= len)
                        break;
                p += alen;
                len -= alen;
        }
        return 0;
}

typedef struct AggrCtx {
        TaskstatsRecord rec;
        bool have_id, have_stats;
} AggrCtx;

static int aggr_attr(uint16_t type, const uint8_t *data, size_t len, void *userdata)
{
        AggrCtx *c = userdata;
        int r;

        switch (type) {
        case TS_TYPE_PID:
        case TS_TYPE_TGID:
                if (len < sizeof(uint32_t))
                        return -EBADMSG;
                memcpy(&c->rec.id, data, sizeof(uint32_t));
                c->have_id = true;
                return 0;
        case TS_TYPE_STATS: {
                bool tg = c->rec.aggr_tgid;
                uint32_t id = c->rec.id;

                r = taskstats_parse_stats(data, len, &c->rec);
                if (r < 0)
                        return r;
                c->rec.aggr_tgid = tg;
                c->rec.id = id;
                c->have_stats = true;
                return 0;
        }
        default: /* TS_TYPE_NULL padding, future types */
                return 0;
        }
}

static int reply_attr(uint16_t type, const uint8_t *data, size_t len, void *userdata)
{
        TaskstatsReply *rep = userdata;
        AggrCtx c = { 0 };
        uint32_t id;
        int r;

        if (type != TS_TYPE_AGGR_PID && type != TS_TYPE_AGGR_TGID)
                return 0;
        if (rep->n >= ELEMENTSOF(rep->rec))
                return -EBADMSG;
        c.rec.aggr_tgid = type == TS_TYPE_AGGR_TGID;
        r = attrs_walk(data, len, aggr_attr, &c);
        if (r < 0)
                return r;
        if (!c.have_id || !c.have_stats)
                return -EBADMSG;
        /* the id attribute may come after the stats: keep it */
        id = c.rec.id;
        rep->rec[rep->n] = c.rec;
        rep->rec[rep->n].id = id;
        rep->n++;
        return 0;
}

int taskstats_parse_reply(const void *payload, size_t len, TaskstatsReply *ret)
{
        const uint8_t *p = payload;
        struct genlmsghdr g;
        TaskstatsReply rep = { 0 };
        int r;

        if (len < GENL_HDRLEN)
                return -EBADMSG;
        memcpy(&g, p, sizeof(g));
        if (g.cmd != TS_CMD_NEW)
                return -ENOMSG;
        r = attrs_walk(p + GENL_HDRLEN, len - GENL_HDRLEN, reply_attr, &rep);
        if (r < 0)
                return r;
        if (rep.n == 0)
                return -ENOMSG;
        *ret = rep;
        return 0;
}

/* ---- libnl boundary --------------------------------------------------- */

int nlerr_to_errno(int nlerr)
{
        static const struct {
                int nle, err;
        } map[] = {
                { NLE_SUCCESS, 0 },          { NLE_INTR, EINTR },
                { NLE_BAD_SOCK, EBADF },     { NLE_AGAIN, EAGAIN },
                { NLE_NOMEM, ENOMEM },       { NLE_EXIST, EEXIST },
                { NLE_INVAL, EINVAL },       { NLE_RANGE, ERANGE },
                { NLE_MSGSIZE, EMSGSIZE },   { NLE_OPNOTSUPP, EOPNOTSUPP },
                { NLE_AF_NOSUPPORT, EAFNOSUPPORT }, { NLE_OBJ_NOTFOUND, ENOENT },
                { NLE_NOATTR, ENODATA },     { NLE_MISSING_ATTR, ENODATA },
                { NLE_AF_MISMATCH, EAFNOSUPPORT }, { NLE_SEQ_MISMATCH, EILSEQ },
                { NLE_MSG_OVERFLOW, EOVERFLOW }, { NLE_MSG_TRUNC, EMSGSIZE },
                { NLE_NOADDR, EADDRNOTAVAIL }, { NLE_SRCRT_NOSUPPORT, EOPNOTSUPP },
                { NLE_MSG_TOOSHORT, EBADMSG }, { NLE_MSGTYPE_NOSUPPORT, EOPNOTSUPP },
                { NLE_OBJ_MISMATCH, EINVAL }, { NLE_NOCACHE, ENOENT },
                { NLE_BUSY, EBUSY },         { NLE_PROTO_MISMATCH, EPROTONOSUPPORT },
                { NLE_NOACCESS, EACCES },    { NLE_PERM, EPERM },
                { NLE_PKTLOC_FILE, ENOENT }, { NLE_PARSE_ERR, EBADMSG },
                { NLE_NODEV, ENODEV },       { NLE_IMMUTABLE, EROFS },
                { NLE_DUMP_INTR, EINTR },    { NLE_ATTRSIZE, EBADMSG },
        };
        int e = nlerr < 0 ? -nlerr : nlerr;

        for (size_t i = 0; i < ELEMENTSOF(map); i++)
                if (map[i].nle == e)
                        return -map[i].err;
        return -EIO;
}

struct Taskstats {
        struct nl_sock *query;
        struct nl_sock *exits;
        int family;
        char cpumask[256];
        uint64_t lost;
        uint16_t version_seen;
};

Taskstats *taskstats_free(Taskstats *t)
{
        if (!t)
                return NULL;
        if (t->exits) {
                struct nl_msg *m = nlmsg_alloc();

                /* best effort: the kernel also drops a listener whose socket is gone */
                if (m && genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, t->family, 0, NLM_F_REQUEST,
                                     TS_CMD_GET, 1) &&
                    nla_put_string(m, TS_ATTR_DEREGISTER_CPUMASK, t->cpumask) == 0)
                        (void) nl_send_auto(t->exits, m);
                nlmsg_free(m);
                nl_socket_free(t->exits);
        }
        nl_socket_free(t->query);
        free(t);
        return NULL;
}

static int sock_new(struct nl_sock **ret)
{
        struct nl_sock *sk = nl_socket_alloc();
        int r;

        if (!sk)
                return -ENOMEM;
        r = genl_connect(sk);
        if (r < 0) {
                nl_socket_free(sk);
                return nlerr_to_errno(r);
        }
        *ret = sk;
        return 0;
}

int taskstats_open(Taskstats **ret)
{
        Taskstats *t;
        int r;

        t = calloc(1, sizeof(*t));
        if (!t)
                return -ENOMEM;
        r = sock_new(&t->query);
        if (r < 0)
                goto fail;
        r = genl_ctrl_resolve(t->query, "TASKSTATS");
        if (r < 0) {
                r = nlerr_to_errno(r);
                goto fail;
        }
        t->family = r;
        *ret = t;
        return 0;
fail:
        taskstats_free(t);
        return r;
}

typedef struct QueryCtx {
        uint32_t id;
        bool tgid;
        TaskstatsRecord rec;
        bool found, done;
        int err; /* -errno from an NLMSG_ERROR, exact */
        int parse_err;
} QueryCtx;

static int query_valid(struct nl_msg *msg, void *arg)
{
        QueryCtx *c = arg;
        struct nlmsghdr *nlh = nlmsg_hdr(msg);
        TaskstatsReply rep;
        int r;

        r = taskstats_parse_reply(nlmsg_data(nlh), (size_t) nlmsg_datalen(nlh), &rep);
        if (r < 0) {
                c->parse_err = r;
                return NL_SKIP;
        }
        for (unsigned i = 0; i < rep.n; i++)
                if (rep.rec[i].aggr_tgid == c->tgid && rep.rec[i].id == c->id) {
                        c->rec = rep.rec[i];
                        c->found = true;
                }
        return NL_OK;
}

static int query_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
        QueryCtx *c = arg;

        c->err = e->error < 0 ? e->error : -e->error;
        c->done = true;
        return NL_STOP;
}

static int query_ack(struct nl_msg *msg, void *arg)
{
        ((QueryCtx *) arg)->done = true;
        return NL_STOP;
}

int taskstats_query(Taskstats *t, bool tgid, uint32_t id, TaskstatsRecord *ret)
{
        struct nl_msg *m = NULL;
        struct nl_cb *cb = NULL;
        QueryCtx c = { .id = id, .tgid = tgid };
        int r;

        m = nlmsg_alloc();
        cb = nl_cb_alloc(NL_CB_DEFAULT);
        if (!m || !cb) {
                r = -ENOMEM;
                goto out;
        }
        if (!genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, t->family, 0, NLM_F_REQUEST, TS_CMD_GET, 1) ||
            nla_put_u32(m, tgid ? TS_ATTR_TGID : TS_ATTR_PID, id) < 0) {
                r = -EMSGSIZE;
                goto out;
        }
        nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, query_valid, &c);
        nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, query_ack, &c);
        nl_cb_err(cb, NL_CB_CUSTOM, query_error, &c);
        r = nl_send_auto(t->query, m);
        if (r < 0) {
                r = nlerr_to_errno(r);
                goto out;
        }
        /* the reply and the ack arrive as separate datagrams and
         * nl_recvmsgs() returns after each: read until the ack, or the next
         * query would find this one's ack first */
        do
                r = nl_recvmsgs(t->query, cb);
        while (r >= 0 && !c.done);
        if (c.err < 0) {
                r = c.err;
                goto out;
        }
        if (r < 0) {
                r = nlerr_to_errno(r);
                goto out;
        }
        if (!c.found) {
                /* 6.18 acks a query for a missing tgid with error 0 and no
                 * reply (seen on the dev host); older kernels say ESRCH */
                r = c.parse_err < 0 ? c.parse_err : -ESRCH;
                goto out;
        }
        if (c.rec.version > t->version_seen)
                t->version_seen = c.rec.version;
        *ret = c.rec;
        r = 0;
out:
        nl_cb_put(cb);
        nlmsg_free(m);
        return r;
}

int taskstats_listen(Taskstats *t, const char *cpumask)
{
        struct nl_sock *sk = NULL;
        struct nl_msg *m = NULL;
        int rcvbuf = 8 << 20;
        int r;

        if (t->exits)
                return -EALREADY;
        if (strlen(cpumask) >= sizeof(t->cpumask))
                return -ENAMETOOLONG;
        r = sock_new(&sk);
        if (r < 0)
                return r;
        /* exits arrive unsolicited: large buffer, no sequence checks */
        nl_socket_disable_seq_check(sk);
        r = nl_socket_set_buffer_size(sk, rcvbuf, 0);
        if (r < 0) {
                r = nlerr_to_errno(r);
                goto fail;
        }
        /* beyond net.core.rmem_max when privileged */
        (void) setsockopt(nl_socket_get_fd(sk), SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf));
        m = nlmsg_alloc();
        if (!m) {
                r = -ENOMEM;
                goto fail;
        }
        if (!genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, t->family, 0, NLM_F_REQUEST, TS_CMD_GET, 1) ||
            nla_put_string(m, TS_ATTR_REGISTER_CPUMASK, cpumask) < 0) {
                r = -EMSGSIZE;
                goto fail;
        }
        r = nl_send_auto(sk, m);
        if (r < 0) {
                r = nlerr_to_errno(r);
                goto fail;
        }
        r = nl_wait_for_ack(sk);
        if (r < 0) {
                r = nlerr_to_errno(r);
                goto fail;
        }
        r = nl_socket_set_nonblocking(sk);
        if (r < 0) {
                r = nlerr_to_errno(r);
                goto fail;
        }
        nlmsg_free(m);
        strcpy(t->cpumask, cpumask);
        t->exits = sk;
        return 0;
fail:
        nlmsg_free(m);
        nl_socket_free(sk);
        return r;
}

int taskstats_exit_fd(const Taskstats *t)
{
        return t->exits ? nl_socket_get_fd(t->exits) : -1;
}

uint64_t taskstats_exit_lost(const Taskstats *t)
{
        return t->lost;
}

uint16_t taskstats_version_seen(const Taskstats *t)
{
        return t->version_seen;
}

int taskstats_exit_receive(Taskstats *t, TaskstatsReply *ret)
{
        uint8_t buf[8192];
        int fd;

        if (!t->exits)
                return -ENOTCONN;
        fd = nl_socket_get_fd(t->exits);
        for (;;) {
                ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
                size_t left;
                const uint8_t *p = buf;

                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        if (errno == EAGAIN || errno == EWOULDBLOCK)
                                return 0;
                        if (errno == ENOBUFS)
                                t->lost++;
                        return negative_errno();
                }
                /* one record per datagram in practice; take the first valid one */
                left = (size_t) n;
                while (left >= NLMSG_HDRLEN) {
                        struct nlmsghdr h;

                        memcpy(&h, p, sizeof(h));
                        if (h.nlmsg_len < NLMSG_HDRLEN || h.nlmsg_len > left)
                                break;
                        if (h.nlmsg_type == (uint16_t) t->family &&
                            taskstats_parse_reply(p + NLMSG_HDRLEN, h.nlmsg_len - NLMSG_HDRLEN, ret) == 0) {
                                for (unsigned i = 0; i < ret->n; i++)
                                        if (ret->rec[i].version > t->version_seen)
                                                t->version_seen = ret->rec[i].version;
                                return 1;
                        }
                        if (NLMSG_ALIGN(h.nlmsg_len) >= left)
                                break;
                        p += NLMSG_ALIGN(h.nlmsg_len);
                        left -= NLMSG_ALIGN(h.nlmsg_len);
                }
        }
}

int online_cpus_read(const Root *root, char *ret, size_t size)
{
        char buf[256];
        size_t n;
        int r;

        r = read_file_at(root->sys_fd, "devices/system/cpu/online", buf, sizeof(buf));
        if (r < 0)
                return r;
        n = (size_t) r;
        while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
                n--;
        if (n == 0)
                return -EBADMSG;
        if (n >= size)
                return -ENOBUFS;
        memcpy(ret, buf, n);
        ret[n] = '\0';
        return 0;
}

int delayacct_read(const Root *root, int *ret)
{
        char buf[32];
        int r;

        r = read_file_at(root->proc_fd, "sys/kernel/task_delayacct", buf, sizeof(buf));
        if (r < 0)
                return r;
        if (buf[0] != '0' && buf[0] != '1')
                return -EBADMSG;
        *ret = buf[0] - '0';
        return 0;
}
