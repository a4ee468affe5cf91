/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Node topology: /sys/devices/system/node/{has_memory,online,nodeN/...} and
 * the CPU count from /sys/devices/system/cpu/online. A kernel without NUMA
 * has no node directory; fragd then sees one node 0 holding all memory. */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

#include "core/cleanup.h"
#include "core/parse-util.h"
#include "core/root.h"
#include "fragd/macro.h"
#include "fragd/obs.h"
#include "sources/sources.h"

/* One decimal id of a cpulist. */
static int cpulist_id(Span s, int *ret)
{
        uint64_t v;
        int r;

        r = span_to_u64(s, &v);
        if (r < 0)
                return r;
        if (v > INT_MAX)
                return -ERANGE;
        *ret = (int) v;
        return 0;
}

/* The bitmap_print_list format: ascending, non-overlapping, comma-separated
 * ids and ranges ("0-3,8,10-11"), trailing whitespace and newline allowed.
 * With ids NULL only counts. */
static int cpulist_walk(const char *buf, size_t len, int *ids, unsigned cap, unsigned *ret_n)
{
        Span s = { buf, len }, item;
        unsigned n = 0;
        int64_t last = -1;

        /* the whole list is one token; only whitespace may follow it */
        while (s.len > 0 && (s.p[s.len - 1] == '\n' || s.p[s.len - 1] == ' ' ||
                             s.p[s.len - 1] == '\t' || s.p[s.len - 1] == '\r'))
                s.len--;
        span_skip_blanks(&s);
        if (s.len == 0) {
                *ret_n = 0;
                return 0;
        }
        while (s.len > 0) {
                const char *comma = memchr(s.p, ',', s.len), *dash;
                int lo, hi, r;

                item = (Span) { s.p, comma ? (size_t) (comma - s.p) : s.len };
                s.p += item.len;
                s.len -= item.len;
                if (comma) {
                        s.p++;
                        s.len--;
                        if (s.len == 0)
                                return -EBADMSG; /* "1," */
                }
                dash = memchr(item.p, '-', item.len);
                if (dash) {
                        r = cpulist_id((Span) { item.p, (size_t) (dash - item.p) }, &lo);
                        if (r < 0)
                                return r;
                        r = cpulist_id((Span) { dash + 1, item.len - (size_t) (dash - item.p) - 1 }, &hi);
                        if (r < 0)
                                return r;
                        if (hi < lo)
                                return -EBADMSG;
                } else {
                        r = cpulist_id(item, &lo);
                        if (r < 0)
                                return r;
                        hi = lo;
                }
                if (lo <= last)
                        return -EBADMSG; /* not ascending, or overlapping */
                if (ids) {
                        if ((uint64_t) hi - (uint64_t) lo + 1 > (uint64_t) cap - n)
                                return -E2BIG;
                        for (int64_t i = lo; i <= hi; i++)
                                ids[n++] = (int) i;
                } else {
                        if ((uint64_t) hi - (uint64_t) lo + 1 > (uint64_t) UINT_MAX - n)
                                return -ERANGE;
                        n += (unsigned) (hi - lo) + 1;
                }
                last = hi;
        }
        *ret_n = n;
        return 0;
}

int cpulist_parse(const char *buf, size_t len, int *ids, unsigned cap, unsigned *ret_n)
{
        unsigned n;
        int r;

        if ((!buf && len > 0) || !ret_n)
                return -EINVAL;
        /* validate and count first, so ids is written only on success */
        r = cpulist_walk(buf, len, NULL, 0, &n);
        if (r < 0)
                return r;
        if (ids) {
                if (n > cap)
                        return -E2BIG;
                r = cpulist_walk(buf, len, ids, cap, &n);
                if (r < 0)
                        return r;
        }
        *ret_n = n;
        return 0;
}

int node_memtotal_parse(const char *buf, size_t len, int node, uint64_t *ret_kb)
{
        Cursor c;
        Span line;

        if (cursor_open(&c, buf, len) < 0)
                return -EINVAL;
        while (cursor_next_line(&c, &line)) {
                Span tok, id, name, val, unit, extra;
                int got, r;
                uint64_t v;

                /* "Node 0 MemTotal:        2017652 kB" */
                if (!span_next_token(&line, &tok))
                        continue;
                if (!span_eq(tok, "Node") || !span_next_token(&line, &id) ||
                    !span_next_token(&line, &name))
                        return -EBADMSG;
                if (!span_eq(name, "MemTotal:"))
                        continue;
                r = cpulist_id(id, &got);
                if (r < 0)
                        return r;
                if (got != node)
                        return -EBADMSG; /* another node's file */
                if (!span_next_token(&line, &val))
                        return -EBADMSG;
                if (span_next_token(&line, &unit) && (!span_eq(unit, "kB") || span_next_token(&line, &extra)))
                        return -EBADMSG;
                r = span_to_u64(val, &v);
                if (r < 0)
                        return r;
                *ret_kb = v;
                return 0;
        }
        return -ENODATA;
}

static int cpulist_read_at(int dirfd, const char *path, int *ids, unsigned cap, unsigned *ret_n)
{
        char buf[4096];
        int r;

        r = read_file_at(dirfd, path, buf, sizeof(buf));
        if (r < 0)
                return r;
        return cpulist_parse(buf, (size_t) r, ids, cap, ret_n);
}

/* Online CPUs: cpu/online, else the sum of the online nodes' cpulists (each
 * shows only online CPUs), else 0. */
static unsigned count_cpus(int sys_fd, int node_fd)
{
        int nodes[FRAGD_MAX_NODES];
        unsigned n, n_nodes, total = 0;

        if (cpulist_read_at(sys_fd, "devices/system/cpu/online", NULL, 0, &n) >= 0)
                return n;
        if (node_fd < 0 || cpulist_read_at(node_fd, "online", nodes, FRAGD_MAX_NODES, &n_nodes) < 0)
                return 0;
        for (unsigned i = 0; i < n_nodes; i++) {
                char path[32];

                (void) snprintf(path, sizeof(path), "node%d/cpulist", nodes[i]);
                if (cpulist_read_at(node_fd, path, NULL, 0, &n) < 0 || n > UINT_MAX - total)
                        return 0;
                total += n;
        }
        return total;
}

static int nodes_read_flat(const Root *root, NodeTopo *ret)
{
        KvList *mi;
        NodeTopo t = {};
        uint64_t total;
        int r;

        mi = malloc(sizeof(*mi));
        if (!mi)
                return -ENOMEM;
        r = meminfo_read(root, mi);
        if (r >= 0)
                r = kv_get(mi, "MemTotal", &total);
        free(mi);
        if (r < 0)
                return r;
        t.n_nodes = 1;
        t.ids[0] = 0;
        t.mem_total_kb[0] = total;
        t.n_cpus = count_cpus(root->sys_fd, -1);
        *ret = t;
        return 0;
}

int nodes_read(const Root *root, NodeTopo *ret)
{
        _cleanup_close_ int fd = -1;
        NodeTopo t = {};
        int r;

        if (root->sys_fd >= 0)
                fd = root_openat(root->sys_fd, "devices/system/node", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0,
                                 0);
        if (fd < 0) {
                if (root->sys_fd >= 0 && errno != ENOENT)
                        return negative_errno();
                return nodes_read_flat(root, ret); /* CONFIG_NUMA=n */
        }

        /* nodes with memory (N_MEMORY); without that file every online
         * node counts */
        r = cpulist_read_at(fd, "has_memory", t.ids, FRAGD_MAX_NODES, &t.n_nodes);
        if (r == -ENOENT)
                r = cpulist_read_at(fd, "online", t.ids, FRAGD_MAX_NODES, &t.n_nodes);
        if (r < 0)
                return r;
        if (t.n_nodes == 0)
                return -ENODATA;

        for (unsigned i = 0; i < t.n_nodes; i++) {
                char path[64], buf[8192];
                struct stat st;

                (void) snprintf(path, sizeof(path), "node%d/meminfo", t.ids[i]);
                r = read_file_at(fd, path, buf, sizeof(buf));
                if (r >= 0)
                        (void) node_memtotal_parse(buf, (size_t) r, t.ids[i], &t.mem_total_kb[i]);
                (void) snprintf(path, sizeof(path), "node%d/compact", t.ids[i]);
                t.have_compact[i] = fstatat(fd, path, &st, 0) >= 0;
        }
        t.n_cpus = count_cpus(root->sys_fd, fd);
        *ret = t;
        return 0;
}
