/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Name/value files: /proc/vmstat and cgroup v2 memory.stat ("name value"),
 * /proc/meminfo ("Name:   value kB"). Every key is kept, unknown ones too:
 * the kernel adds counters in most releases and vendors add their own. */

#include <errno.h>
#include <string.h>

#include "core/cleanup.h"
#include "core/parse-util.h"
#include "core/root.h"
#include "fragd/macro.h"
#include "fragd/obs.h"
#include "sources/sources.h"

/* Appends one entry; a name too long to keep only bumps n_skipped. */
static int kv_add(KvList *l, Span name, uint64_t value)
{
        if (name.len >= FRAGD_KV_NAME_MAX) {
                l->n_skipped++;
                return 0;
        }
        if (l->n >= FRAGD_MAX_KV)
                return -E2BIG;
        if (span_copy(name, l->e[l->n].name, sizeof(l->e[l->n].name)) < 0)
                return -EBADMSG; /* cannot happen: length checked above */
        l->e[l->n].value = value;
        l->n++;
        return 0;
}

/* Copies the used part of a scratch list to ret. */
static void kv_commit(const KvList *tmp, KvList *ret)
{
        ret->n = tmp->n;
        ret->n_skipped = tmp->n_skipped;
        memcpy(ret->e, tmp->e, tmp->n * sizeof(tmp->e[0]));
}

/* A line holding only blanks (or nothing) is skipped: a trailing empty line
 * is harmless. */
static bool line_is_blank(Span line)
{
        span_skip_blanks(&line);
        return line.len == 0;
}

/* One "name value" pair into l: the name is an identifier (no NUL, no ':'),
 * the value fragd's one integer parser reads. */
static int kv_add_pair(KvList *l, Span name, Span val)
{
        uint64_t v;
        int r;

        if (memchr(name.p, '\0', name.len) || memchr(name.p, ':', name.len))
                return -EBADMSG;
        r = span_to_u64(val, &v);
        if (r < 0)
                return r;
        return kv_add(l, name, v);
}

int vmstat_parse(const char *buf, size_t len, KvList *ret)
{
        KvList tmp;
        Cursor c;
        Span line;

        if (cursor_open(&c, buf, len) < 0)
                return -EINVAL;
        tmp.n = tmp.n_skipped = 0;
        while (cursor_next_line(&c, &line)) {
                Span name, val, extra;
                int r;

                if (line_is_blank(line))
                        continue;
                if (!span_next_token(&line, &name) || !span_next_token(&line, &val))
                        return -EBADMSG; /* truncated line */
                if (span_next_token(&line, &extra))
                        return -EBADMSG; /* not "name value" */
                /* a name with a ':' is not a vmstat-style file (meminfo has "Name:") */
                r = kv_add_pair(&tmp, name, val);
                if (r < 0)
                        return r;
        }
        if (tmp.n == 0 && tmp.n_skipped == 0)
                return -ENODATA;
        kv_commit(&tmp, ret);
        return 0;
}

int meminfo_parse(const char *buf, size_t len, KvList *ret)
{
        KvList tmp;
        Cursor c;
        Span line;
        uint64_t total, v;

        if (cursor_open(&c, buf, len) < 0)
                return -EINVAL;
        tmp.n = tmp.n_skipped = 0;
        while (cursor_next_line(&c, &line)) {
                Span name, val, unit, extra;
                int r;

                if (line_is_blank(line))
                        continue;
                if (!span_next_token(&line, &name) || !span_next_token(&line, &val))
                        return -EBADMSG;
                if (span_next_token(&line, &unit)) {
                        if (!span_eq(unit, "kB"))
                                return -EBADMSG;
                        if (span_next_token(&line, &extra))
                                return -EBADMSG;
                }
                /* "Name:" with a non-empty name and no other ':' or NUL */
                if (name.len < 2 || name.p[name.len - 1] != ':')
                        return -EBADMSG;
                name.len--;
                r = kv_add_pair(&tmp, name, val);
                if (r < 0)
                        return r;
        }
        /* Every kernel prints MemTotal first; without it this is not meminfo. */
        if (kv_get(&tmp, "MemTotal", &total) < 0)
                return -ENODATA;
        /* Invariants (oomd checks the same): nothing exceeds the total. */
        if (kv_get(&tmp, "MemFree", &v) >= 0 && v > total)
                return -EBADMSG;
        if (kv_get(&tmp, "MemAvailable", &v) >= 0 && v > total)
                return -EBADMSG;
        kv_commit(&tmp, ret);
        return 0;
}

static int kv_read_at(int dirfd, const char *path, int (*parse)(const char *, size_t, KvList *),
                      KvList *ret)
{
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;
        int r;

        r = read_file_alloc_at(dirfd, path, &buf, &len);
        if (r < 0)
                return r;
        return parse(buf, len, ret);
}

int vmstat_read(const Root *root, KvList *ret)
{
        return kv_read_at(root->proc_fd, "vmstat", vmstat_parse, ret);
}

int meminfo_read(const Root *root, KvList *ret)
{
        return kv_read_at(root->proc_fd, "meminfo", meminfo_parse, ret);
}

/* A cgroup path below sys/fs/cgroup: relative, no "..", no empty name. */
int memory_stat_read(const Root *root, const char *cgroup, KvList *ret)
{
        char path[4096];
        int r;

        r = cgroup_file_path(cgroup, "memory.stat", path, sizeof(path));
        if (r < 0)
                return r;
        return kv_read_at(root->sys_fd, path, vmstat_parse, ret);
}
