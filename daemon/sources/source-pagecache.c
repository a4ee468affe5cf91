/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Page-cache folios by order (docs/policy.md "Page-cache demand").
 *
 * fragd asks the kernel to count the folios added to the page cache per
 * order, in the kernel: a hist trigger ("hist:keys=order:vals=hitcount") on
 * filemap:mm_filemap_add_to_page_cache in fragd's own tracing instance,
 * sys/kernel/tracing/instances/fragd. Nothing is enabled in the host's
 * global tracing buffer and no event is copied to user space: each tick
 * reads the aggregated table (one line per order) from the instance's
 * "hist" file. The instance is made at start (a leftover one, from a fragd
 * that crashed, is removed first) and removed at stop. */

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "core/parse-util.h"
#include "core/root.h"
#include "fragd/macro.h"
#include "fragd/obs.h"
#include "sources/sources.h"

#define TRACING_DIR "kernel/tracing"
#define EVENT_REL "events/filemap/mm_filemap_add_to_page_cache"
#define INSTANCE_REL TRACING_DIR "/instances/" PAGECACHE_INSTANCE
#define EXTFRAG_REL "events/kmem/mm_page_alloc_extfrag"
#define KSWAPD_WAKE_REL "events/vmscan/mm_vmscan_wakeup_kswapd"
#define ALLOC_FAIL_REL "events/kmem/mm_page_alloc"
#define HIST_MAX (64 * 1024)
#define HIST_KEYS_MAX 2

static bool line_is_blank(Span line)
{
        span_skip_blanks(&line);
        return line.len == 0;
}

/* "{ k1: N, k2: M }" at the front of *line: the key of one row, its
 * fields named keys[0..n) in that order (the kernel prints them so,
 * separated by ", "). */
static int hist_key(Span *line, const char *const *keys, unsigned n, uint64_t *ret)
{
        Span tok;
        int r;

        if (!span_next_token(line, &tok) || !span_eq(tok, "{"))
                return -EBADMSG;
        for (unsigned i = 0; i < n; i++) {
                char name[FRAGD_KV_NAME_MAX];

                snprintf(name, sizeof(name), "%s:", keys[i]);
                if (!span_next_token(line, &tok) || !span_eq(tok, name))
                        return -EBADMSG;
                if (!span_next_token(line, &tok))
                        return -EBADMSG;
                /* "12," between two fields */
                if (i + 1 < n) {
                        if (tok.len < 2 || tok.p[tok.len - 1] != ',')
                                return -EBADMSG;
                        tok.len--;
                }
                r = span_to_u64(tok, &ret[i]);
                if (r < 0)
                        return r;
        }
        if (!span_next_token(line, &tok) || !span_eq(tok, "}"))
                return -EBADMSG;
        return 0;
}

/* "name: value" pairs after the key; hitcount is the one fragd asks for,
 * other values (a trigger someone set with more vals) are read and left. */
static int hist_hitcount(Span *line, uint64_t *ret)
{
        bool have = false;
        Span name, val;
        uint64_t v;
        int r;

        while (span_next_token(line, &name)) {
                if (name.len < 2 || name.p[name.len - 1] != ':')
                        return -EBADMSG;
                if (!span_next_token(line, &val))
                        return -EBADMSG;
                r = span_to_u64(val, &v);
                if (r < 0)
                        return r;
                if (span_eq(name, "hitcount:")) {
                        if (have)
                                return -EBADMSG;
                        *ret = v;
                        have = true;
                }
        }
        return have ? 0 : -ENODATA;
}

/* "    Hits: N" and its siblings under "Totals:". */
static int hist_total(Span line, uint64_t *hits, uint64_t *dropped, unsigned *seen, uint64_t *entries)
{
        static const char *const keys[] = { "Hits:", "Entries:", "Dropped:" };
        Span name, val, extra;
        uint64_t v;
        int r;

        if (!span_next_token(&line, &name) || !span_next_token(&line, &val) || span_next_token(&line, &extra))
                return -EBADMSG;
        r = span_to_u64(val, &v);
        if (r < 0)
                return r;
        for (unsigned i = 0; i < ELEMENTSOF(keys); i++) {
                if (!span_eq(name, keys[i]))
                        continue;
                if (*seen & (1u << i))
                        return -EBADMSG;
                *seen |= 1u << i;
                if (i == 0)
                        *hits = v;
                else if (i == 1)
                        *entries = v;
                else
                        *dropped = v;
                return 0;
        }
        return 0; /* a total a later kernel adds */
}

/* The rows of a hist table keyed by keys[0..n_keys), each handed to row()
 * with its key fields and hitcount, then the totals: the checks every hist
 * file gets (see pagecache_hist_parse() in sources.h). row() returns 0 or
 * -errno, which ends the parse. */
static int hist_table_parse(const char *buf, size_t len, const char *const *keys, unsigned n_keys,
                            int (*row)(void *userdata, const uint64_t *key, uint64_t hits), void *userdata,
                            uint64_t *ret_hits, uint64_t *ret_dropped)
{
        bool in_totals = false;
        unsigned seen_totals = 0, rows = 0;
        uint64_t entries = 0, sum = 0, hits = 0, dropped = 0;
        Cursor c;
        Span line;

        assert(n_keys <= HIST_KEYS_MAX);
        if (cursor_open(&c, buf, len) < 0)
                return -EINVAL;
        while (cursor_next_line(&c, &line)) {
                Span t = line;
                uint64_t key[HIST_KEYS_MAX], n;
                int r;

                if (line_is_blank(line))
                        continue;
                span_skip_blanks(&t);
                if (t.p[0] == '#')
                        continue;
                if (in_totals) {
                        r = hist_total(t, &hits, &dropped, &seen_totals, &entries);
                        if (r < 0)
                                return r;
                        continue;
                }
                if (span_eq(span_rstrip(t, false), "Totals:")) {
                        in_totals = true;
                        continue;
                }
                r = hist_key(&t, keys, n_keys, key);
                if (r < 0)
                        return r;
                r = hist_hitcount(&t, &n);
                if (r < 0)
                        return r == -ENODATA ? -EBADMSG : r;
                if (n > UINT64_MAX - sum)
                        return -ERANGE;
                r = row(userdata, key, n);
                if (r < 0)
                        return r;
                sum += n;
                rows++;
        }
        /* a table cut short, or another file: the totals close every hist */
        if (!in_totals || !(seen_totals & 1u))
                return -ENODATA;
        /* the rows are the table the totals count: hits past what was
         * dropped are the rows' sum, and Entries the number of rows */
        if ((seen_totals & 2u) && entries != rows)
                return -EBADMSG;
        if (sum > hits)
                return -EBADMSG;
        *ret_hits = hits;
        *ret_dropped = dropped;
        return 0;
}

typedef struct PageCacheRows {
        PageCacheHist h;
        bool seen[FRAGD_MAX_ORDERS];
} PageCacheRows;

static int pagecache_row(void *userdata, const uint64_t *key, uint64_t n)
{
        PageCacheRows *p = userdata;

        if (key[0] >= FRAGD_MAX_ORDERS)
                return -ERANGE;
        if (p->seen[key[0]])
                return -EBADMSG;
        p->seen[key[0]] = true;
        p->h.folios[key[0]] = n;
        if (key[0] + 1 > p->h.n_orders)
                p->h.n_orders = (unsigned) key[0] + 1;
        return 0;
}

int pagecache_hist_parse(const char *buf, size_t len, PageCacheHist *ret)
{
        static const char *const keys[] = { "order" };
        PageCacheRows p = {};
        int r;

        r = hist_table_parse(buf, len, keys, ELEMENTSOF(keys), pagecache_row, &p, &p.h.hits, &p.h.dropped);
        if (r < 0)
                return r;
        *ret = p.h;
        return 0;
}

/* the kernel's MIGRATE_* numbers (include/linux/mmzone.h), stable since
 * 2.6.24: the hist prints the migratetypes as numbers */
#define MIGRATE_UNMOVABLE 0
#define MIGRATE_MOVABLE 1
#define MIGRATE_RECLAIMABLE 2

typedef struct ExtfragRows {
        ExtfragHist h;
        bool seen[FRAGD_MAX_MIGRATETYPES][FRAGD_MAX_MIGRATETYPES];
} ExtfragRows;

static int extfrag_row(void *userdata, const uint64_t *key, uint64_t n)
{
        ExtfragRows *e = userdata;

        if (key[0] >= FRAGD_MAX_MIGRATETYPES || key[1] >= FRAGD_MAX_MIGRATETYPES)
                return -ERANGE;
        if (e->seen[key[0]][key[1]])
                return -EBADMSG;
        e->seen[key[0]][key[1]] = true;
        e->h.fallbacks += n; /* no overflow: hist_table_parse() checked the rows' sum */
        if ((key[0] == MIGRATE_UNMOVABLE || key[0] == MIGRATE_RECLAIMABLE) && key[1] == MIGRATE_MOVABLE)
                e->h.polluting += n;
        return 0;
}

int extfrag_hist_parse(const char *buf, size_t len, ExtfragHist *ret)
{
        static const char *const keys[] = { "alloc_migratetype", "fallback_migratetype" };
        ExtfragRows e = {};
        uint64_t hits;
        int r;

        r = hist_table_parse(buf, len, keys, ELEMENTSOF(keys), extfrag_row, &e, &hits, &e.h.dropped);
        if (r < 0)
                return r;
        e.h.valid = true;
        *ret = e.h;
        return 0;
}

/* the same table as the page cache's: one row per order */
_Static_assert(sizeof(((OrderCountHist *) 0)->counts) == sizeof(((PageCacheHist *) 0)->folios),
               "a count per order as a folio count per order");
int order_count_hist_parse(const char *buf, size_t len, OrderCountHist *ret)
{
        PageCacheHist h;
        int r;

        r = pagecache_hist_parse(buf, len, &h);
        if (r < 0)
                return r;
        *ret = (OrderCountHist) { .valid = true, .dropped = h.dropped };
        memcpy(ret->counts, h.folios, sizeof(ret->counts));
        return 0;
}

static int format_has_field(const char *buf, size_t len, const char *name)
{
        bool have_format = false;
        Cursor c;
        Span line;

        if (cursor_open(&c, buf, len) < 0)
                return -EINVAL;
        while (cursor_next_line(&c, &line)) {
                Span t = line, tok, last = {};
                bool field = false;

                span_skip_blanks(&t);
                if (span_eq(span_rstrip(t, false), "format:")) {
                        have_format = true;
                        continue;
                }
                if (!span_startswith(t, "field:"))
                        continue;
                /* "field:unsigned char order;\toffset:36;..." : the name is
                 * the last word before the first ';' */
                while (span_next_token(&t, &tok)) {
                        const char *semi = memchr(tok.p, ';', tok.len);

                        if (semi) {
                                last = (Span) { tok.p, (size_t) (semi - tok.p) };
                                field = true;
                                break;
                        }
                        last = tok;
                }
                if (!field)
                        return -EBADMSG;
                if (span_startswith(last, "field:"))
                        last = (Span) { last.p + 6, last.len - 6 };
                if (span_eq(last, name))
                        return have_format ? 0 : -EBADMSG;
        }
        return have_format ? -ENODATA : -EBADMSG;
}

int pagecache_format_has_order(const char *buf, size_t len)
{
        return format_has_field(buf, len, "order");
}

int kswapd_wake_format_has_order(const char *buf, size_t len)
{
        return format_has_field(buf, len, "order");
}

int alloc_fail_format_has_fields(const char *buf, size_t len)
{
        int r = format_has_field(buf, len, "order");

        if (r < 0)
                return r;
        return format_has_field(buf, len, "pfn");
}

int extfrag_format_has_fields(const char *buf, size_t len)
{
        int r;

        r = format_has_field(buf, len, "alloc_migratetype");
        if (r < 0)
                return r;
        return format_has_field(buf, len, "fallback_migratetype");
}

static int tracing_open(const Root *root, int *ret_fd, char *why, size_t why_size)
{
        _cleanup_close_ int fd = -EBADF;

        if (root->sys_fd < 0) {
                snprintf(why, why_size, "no sys/ below the root");
                return -ENOENT;
        }
        fd = root_openat(root->sys_fd, TRACING_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, ROOT_BENEATH);
        if (fd < 0) {
                snprintf(why, why_size, "no '/sys/" TRACING_DIR "' (%s): the kernel has no tracefs (CONFIG_TRACING)",
                         strerror(-fd));
                return fd;
        }
        /* tracefs not mounted: /sys/kernel/tracing is an empty sysfs dir */
        if (faccessat(fd, "instances", F_OK, 0) < 0) {
                snprintf(why, why_size,
                         "tracefs is not mounted at '/sys/" TRACING_DIR "' (mount -t tracefs nodev /sys/" TRACING_DIR
                         ")");
                return -ENOMEDIUM;
        }
        *ret_fd = TAKE_FD(fd);
        return 0;
}

/* tracefs below the root (tracing_open()) and the global event's format
 * file (rel: "events/<system>/<event>", event: "system:event" for why) */
static int event_format_read(const Root *root, const char *rel, const char *event, int *ret_tfd, char **ret_fmt,
                             size_t *ret_len, char *why, size_t why_size)
{
        _cleanup_close_ int tfd = -EBADF;
        char path[sizeof(INSTANCE_REL) + 96];
        int r;

        r = tracing_open(root, &tfd, why, why_size);
        if (r < 0)
                return r;
        snprintf(path, sizeof(path), "%s/format", rel);
        r = read_file_alloc_at_full(tfd, path, ROOT_BENEATH, ret_fmt, ret_len);
        if (r < 0) {
                snprintf(why, why_size, "no event %s ('/sys/" TRACING_DIR "/%s': %s)", event, path, strerror(-r));
                return r;
        }
        *ret_tfd = TAKE_FD(tfd);
        return 0;
}

int pagecache_trace_start(const Root *root, char *why, size_t why_size)
{
        _cleanup_close_ int tfd = -EBADF, dfd = -EBADF, ifd = -EBADF;
        _cleanup_free_ char *fmt = NULL;
        size_t fmt_len = 0;
        int r;

        /* the global event's format: the order field came with large
         * folios in the page cache (5.18/6.0); without it, no signal */
        r = event_format_read(root, EVENT_REL, "filemap:mm_filemap_add_to_page_cache", &tfd, &fmt, &fmt_len, why,
                              why_size);
        if (r < 0)
                return r;
        r = pagecache_format_has_order(fmt, fmt_len);
        if (r < 0) {
                snprintf(why, why_size,
                         "the event filemap:mm_filemap_add_to_page_cache has no order field on this kernel "
                         "('/sys/" TRACING_DIR "/" EVENT_REL "/format')");
                return r == -ENODATA ? -EOPNOTSUPP : r;
        }
        /* a leftover instance (fragd killed before its stop) goes first */
        r = pagecache_trace_stop(root);
        if (r == -EXDEV) {
                snprintf(why, why_size, "'/sys/" TRACING_DIR "/instances' is a symbolic link out of the root");
                return r;
        }
        if (r < 0 && r != -ENOENT) {
                snprintf(why, why_size, "cannot remove the leftover trace instance '/sys/" INSTANCE_REL "': %s",
                         strerror(-r));
                return r;
        }
        /* made in the instances directory as resolved below the root (a
         * symlink there cannot send the mkdir elsewhere) */
        dfd = root_openat(tfd, "instances", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, ROOT_BENEATH);
        if (dfd < 0 || mkdirat(dfd, PAGECACHE_INSTANCE, 0700) < 0) {
                r = dfd < 0 ? dfd : -errno;
                snprintf(why, why_size, "cannot make the trace instance '/sys/" INSTANCE_REL "': %s%s", strerror(-r),
                         r == -EROFS ? " (tracefs is mounted read-only)" : "");
                return r;
        }
        ifd = root_openat(dfd, PAGECACHE_INSTANCE, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, ROOT_BENEATH);
        if (ifd < 0) {
                r = ifd;
                snprintf(why, why_size, "cannot open the trace instance '/sys/" INSTANCE_REL "': %s", strerror(-r));
                goto undo;
        }
        r = write_file_at(ifd, EVENT_REL "/trigger", PAGECACHE_TRIGGER);
        if (r < 0) {
                if (r == -EINVAL || r == -ENODEV || r == -ENOSYS)
                        snprintf(why, why_size,
                                 "the kernel refused the hist trigger '%s' in '/sys/" INSTANCE_REL "/" EVENT_REL
                                 "/trigger' (%s): hist triggers need CONFIG_HIST_TRIGGERS",
                                 PAGECACHE_TRIGGER, strerror(-r));
                else
                        snprintf(why, why_size, "cannot write '/sys/" INSTANCE_REL "/" EVENT_REL "/trigger': %s",
                                 strerror(-r));
                goto undo;
        }
        return 0;
undo:
        (void) pagecache_trace_stop(root);
        return r;
}

int pagecache_trace_stop(const Root *root)
{
        _cleanup_close_ int tfd = -EBADF;
        struct stat st;

        if (root->sys_fd < 0)
                return -ENOENT;
        tfd = root_openat(root->sys_fd, TRACING_DIR "/instances", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0,
                          ROOT_BENEATH);
        if (tfd < 0)
                return tfd;
        /* none there: nothing to remove (rmdir on a read-only tracefs
         * would say EROFS even for a name that does not exist) */
        if (fstatat(tfd, PAGECACHE_INSTANCE, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return -errno;
        /* tracefs removes an instance with its events and triggers */
        if (unlinkat(tfd, PAGECACHE_INSTANCE, AT_REMOVEDIR) < 0)
                return -errno;
        return 0;
}

/* Writes tids[0..n) to the instance's set_event_pid with event-fork on:
 * replacing the list (O_TRUNC: the kernel clears it at open) or adding to
 * it (the kernel copies the list it has and adds these). */
static int write_tasks(const Root *root, const int32_t *tids, size_t n, bool add, char *why, size_t why_size)
{
        _cleanup_close_ int ifd = -EBADF, fd = -EBADF;
        _cleanup_free_ char *buf = NULL;
        size_t len = 0, cap;
        ssize_t w;
        int r;

        if (root->sys_fd < 0) {
                snprintf(why, why_size, "no sys/ below the root");
                return -ENOENT;
        }
        ifd = root_openat(root->sys_fd, INSTANCE_REL, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, ROOT_BENEATH);
        if (ifd < 0) {
                snprintf(why, why_size, "no trace instance '/sys/" INSTANCE_REL "' (%s)", strerror(-ifd));
                return ifd;
        }
        r = write_file_at(ifd, "options/event-fork", "1");
        if (r < 0) {
                snprintf(why, why_size, "cannot write '1' to '/sys/" INSTANCE_REL "/options/event-fork': %s",
                         strerror(-r));
                return r;
        }
        /* "12 345 ...": at most 11 bytes a task, and a leading space */
        cap = (n ? n : 1) * 12 + 2;
        buf = malloc(cap);
        if (!buf)
                return -ENOMEM;
        if (!tids)
                n = 0; /* the list cleared at open, nothing written */
        else if (n == 0)
                len = (size_t) snprintf(buf, cap, "0");
        for (size_t i = 0; i < n; i++)
                len += (size_t) snprintf(buf + len, cap - len, "%s%" PRId32, i || add ? " " : "", tids[i]);
        /* O_TRUNC: the kernel clears the list at open, then the write sets
         * it (a write without it adds to the list: O_APPEND, which the
         * kernel ignores, keeps a plain file's text too) */
        fd = root_openat(ifd, "set_event_pid", O_WRONLY | (add ? O_APPEND : O_TRUNC) | O_CLOEXEC | O_NOCTTY, 0,
                         ROOT_BENEATH);
        if (fd < 0) {
                snprintf(why, why_size, "cannot open '/sys/" INSTANCE_REL "/set_event_pid': %s", strerror(-fd));
                return fd;
        }
        w = len ? write(fd, buf, len) : 0;
        if (w < 0 || (size_t) w != len) {
                r = w < 0 ? -errno : -EIO;
                snprintf(why, why_size, "cannot write %zu task ids to '/sys/" INSTANCE_REL "/set_event_pid': %s", n,
                         strerror(-r));
                return r;
        }
        return 0;
}

int pagecache_trace_set_tasks(const Root *root, const int32_t *tids, size_t n, char *why, size_t why_size)
{
        return write_tasks(root, tids, n, false, why, why_size);
}

int pagecache_trace_add_tasks(const Root *root, const int32_t *tids, size_t n, char *why, size_t why_size)
{
        if (!tids || n == 0)
                return 0;
        return write_tasks(root, tids, n, true, why, why_size);
}

int pagecache_tasks_parse(const char *buf, size_t len, int32_t **ret, size_t *ret_n)
{
        _cleanup_free_ int32_t *v = NULL;
        size_t n = 0, cap = 0;

        for (size_t i = 0; i < len;) {
                int64_t x = 0;

                if (buf[i] == ' ' || buf[i] == '\n' || buf[i] == '\t') {
                        i++;
                        continue;
                }
                if (buf[i] < '0' || buf[i] > '9')
                        return -EBADMSG;
                for (; i < len && buf[i] >= '0' && buf[i] <= '9'; i++) {
                        x = x * 10 + (buf[i] - '0');
                        if (x > INT32_MAX)
                                return -ERANGE;
                }
                if (n == cap) {
                        size_t nc = cap ? cap * 2 : 16;
                        int32_t *nv = reallocarray(v, nc, sizeof(*v));

                        if (!nv)
                                return -ENOMEM;
                        v = nv;
                        cap = nc;
                }
                v[n++] = (int32_t) x;
        }
        *ret = TAKE_PTR(v);
        *ret_n = n;
        return 0;
}

int pagecache_trace_tasks_read(const Root *root, int32_t **ret, size_t *ret_n)
{
        _cleanup_close_ int ifd = -EBADF;
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;
        int r;

        if (root->sys_fd < 0)
                return -ENOENT;
        ifd = root_openat(root->sys_fd, INSTANCE_REL, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, ROOT_BENEATH);
        if (ifd < 0)
                return ifd;
        r = read_file_alloc_at(ifd, "set_event_pid", &buf, &len);
        if (r < 0)
                return r;
        return pagecache_tasks_parse(buf, len, ret, ret_n);
}

static int cmp_i32(const void *a, const void *b)
{
        int32_t x = *(const int32_t *) a, y = *(const int32_t *) b;

        return (x > y) - (x < y);
}

int pagecache_tasks_missing(const int32_t *want, size_t n, int32_t *have, size_t m, int32_t *missing,
                            size_t *ret_missing)
{
        size_t k = 0;
        bool extra = false;

        qsort(have, m, sizeof(*have), cmp_i32);
        for (size_t i = 0; i < n; i++)
                if (!bsearch(&want[i], have, m, sizeof(*have), cmp_i32))
                        missing[k++] = want[i];
        *ret_missing = k;
        /* in the list and not wanted: only a rewrite drops it (pid 0, the
         * idle task written for an empty cgroup, included) */
        if (m > 0) {
                _cleanup_free_ int32_t *w = n ? malloc(n * sizeof(*w)) : NULL;

                if (n && !w)
                        return -ENOMEM;
                if (n)
                        memcpy(w, want, n * sizeof(*w));
                qsort(w, n, sizeof(*w), cmp_i32);
                for (size_t j = 0; j < m && !extra; j++)
                        extra = !bsearch(&have[j], w, n, sizeof(*w), cmp_i32);
        }
        return extra ? 1 : 0;
}

/* Why there is no instance to read: the kernel cannot have one
 * (-ENOMEDIUM: tracefs not mounted; -EOPNOTSUPP: no tracefs, no such event,
 * no order field), or it could and no daemon made it (-ENOENT). */
static int pagecache_why_absent(const Root *root)
{
        _cleanup_close_ int tfd = -EBADF;
        _cleanup_free_ char *fmt = NULL;
        size_t fmt_len = 0;
        char why[8];
        int r;

        r = tracing_open(root, &tfd, why, sizeof(why));
        if (r == -ENOMEDIUM)
                return r;
        if (r < 0)
                return -EOPNOTSUPP;
        r = read_file_alloc_at_full(tfd, EVENT_REL "/format", ROOT_BENEATH, &fmt, &fmt_len);
        if (r < 0 || pagecache_format_has_order(fmt, fmt_len) < 0)
                return -EOPNOTSUPP;
        return -ENOENT;
}

/* The hist file of an event (rel: "events/<system>/<event>") in the instance */
static int instance_hist_read(const Root *root, const char *rel, char **ret, size_t *ret_len)
{
        char path[sizeof(INSTANCE_REL) + 96];

        if (root->sys_fd < 0)
                return -EOPNOTSUPP;
        snprintf(path, sizeof(path), INSTANCE_REL "/%s/hist", rel);
        return read_file_alloc_at_max(root->sys_fd, path, ROOT_BENEATH, HIST_MAX, ret, ret_len);
}

int pagecache_read(const Root *root, PageCacheHist *ret)
{
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;
        int r;

        r = instance_hist_read(root, EVENT_REL, &buf, &len);
        if (r == -ENOENT)
                return pagecache_why_absent(root);
        if (r < 0)
                return r;
        return pagecache_hist_parse(buf, len, ret);
}

/* A trigger in the instance pagecache_trace_start() made, on the global
 * event rel ("system:event" for why) whose format has_fields() accepts
 * (fields: what it lacks, for why) */
static int instance_trigger_start(const Root *root, const char *rel, const char *event,
                                  int (*has_fields)(const char *, size_t), const char *fields,
                                  const char *trigger, char *why, size_t why_size)
{
        _cleanup_close_ int tfd = -EBADF, ifd = -EBADF;
        _cleanup_free_ char *fmt = NULL;
        char path[sizeof(INSTANCE_REL) + 96];
        size_t fmt_len = 0;
        int r;

        r = event_format_read(root, rel, event, &tfd, &fmt, &fmt_len, why, why_size);
        if (r < 0)
                return r;
        r = has_fields(fmt, fmt_len);
        if (r < 0) {
                snprintf(why, why_size, "the event %s has no %s on this kernel ('/sys/" TRACING_DIR "/%s/format')",
                         event, fields, rel);
                return r == -ENODATA ? -EOPNOTSUPP : r;
        }
        ifd = root_openat(tfd, "instances/" PAGECACHE_INSTANCE, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, ROOT_BENEATH);
        if (ifd < 0) {
                snprintf(why, why_size, "no trace instance '/sys/" INSTANCE_REL "' (%s)", strerror(-ifd));
                return ifd;
        }
        snprintf(path, sizeof(path), "%s/trigger", rel);
        r = write_file_at(ifd, path, trigger);
        if (r < 0) {
                snprintf(why, why_size, "cannot write '%s' to '/sys/" INSTANCE_REL "/%s': %s", trigger, path,
                         strerror(-r));
                return r;
        }
        return 0;
}

int extfrag_trace_start(const Root *root, char *why, size_t why_size)
{
        return instance_trigger_start(root, EXTFRAG_REL, "kmem:mm_page_alloc_extfrag", extfrag_format_has_fields,
                                      "alloc_migratetype and fallback_migratetype fields", EXTFRAG_TRIGGER, why,
                                      why_size);
}

int extfrag_read(const Root *root, ExtfragHist *ret)
{
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;
        int r;

        r = instance_hist_read(root, EXTFRAG_REL, &buf, &len);
        if (r < 0)
                return r;
        return extfrag_hist_parse(buf, len, ret);
}

int kswapd_wake_trace_start(const Root *root, char *why, size_t why_size)
{
        return instance_trigger_start(root, KSWAPD_WAKE_REL, "vmscan:mm_vmscan_wakeup_kswapd",
                                      kswapd_wake_format_has_order, "order field", KSWAPD_WAKE_TRIGGER, why,
                                      why_size);
}

/* an instance hist keyed by order alone (kswapd woken, failed allocations) */
static int order_count_read(const Root *root, const char *rel, OrderCountHist *ret)
{
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;
        int r;

        r = instance_hist_read(root, rel, &buf, &len);
        if (r < 0)
                return r;
        return order_count_hist_parse(buf, len, ret);
}

int kswapd_wake_read(const Root *root, OrderCountHist *ret)
{
        return order_count_read(root, KSWAPD_WAKE_REL, ret);
}

int alloc_fail_trace_start(const Root *root, char *why, size_t why_size)
{
        return instance_trigger_start(root, ALLOC_FAIL_REL, "kmem:mm_page_alloc", alloc_fail_format_has_fields,
                                      "order and pfn fields", ALLOC_FAIL_TRIGGER, why, why_size);
}

int alloc_fail_trace_stop(const Root *root, char *why, size_t why_size)
{
        _cleanup_close_ int ifd = -EBADF;
        int r;

        if (root->sys_fd < 0)
                return 0;
        ifd = root_openat(root->sys_fd, INSTANCE_REL, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, ROOT_BENEATH);
        if (ifd == -ENOENT)
                return 0; /* no instance, no trigger */
        if (ifd < 0) {
                snprintf(why, why_size, "cannot open '/sys/" INSTANCE_REL "': %s", strerror(-ifd));
                return ifd;
        }
        r = write_file_at(ifd, ALLOC_FAIL_REL "/trigger", "!" ALLOC_FAIL_TRIGGER);
        if (r == -ENOENT || r == -EINVAL)
                return 0; /* no such event, or no such trigger: nothing counts */
        if (r < 0) {
                snprintf(why, why_size, "cannot remove '%s' from '/sys/" INSTANCE_REL "/" ALLOC_FAIL_REL
                         "/trigger': %s", ALLOC_FAIL_TRIGGER, strerror(-r));
                return r;
        }
        return 0;
}

int alloc_fail_read(const Root *root, OrderCountHist *ret)
{
        return order_count_read(root, ALLOC_FAIL_REL, ret);
}
