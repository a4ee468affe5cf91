/* SPDX-License-Identifier: GPL-2.0-or-later */
/* THP sysfs: /sys/kernel/mm/transparent_hugepage.
 *
 * Top-level modes and khugepaged tunables, then one hugepages-<N>kB/ directory
 * per mTHP size (6.8+) with its modes and every counter in stats/. A file
 * that is missing, unreadable or malformed leaves its field unset; vendor
 * extra files (anon_beside_full) are not read. */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/cleanup.h"
#include "core/parse-util.h"
#include "core/root.h"
#include "fragd/macro.h"
#include "fragd/obs.h"
#include "sources/sources.h"

static bool thp_mode_char_ok(char ch)
{
        return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
               ch == '_' || ch == '-' || ch == '+';
}

int thp_mode_parse(const char *buf, size_t len, char *ret, size_t size)
{
        Span choice = {};
        unsigned n_chosen = 0;
        Cursor c;
        Span line, tok;

        if (cursor_open(&c, buf, len) < 0)
                return -EINVAL;
        while (cursor_next_line(&c, &line))
                while (span_next_token(&line, &tok)) {
                        bool bracketed = tok.len >= 2 && tok.p[0] == '[' && tok.p[tok.len - 1] == ']';
                        Span name = bracketed ? (Span) { tok.p + 1, tok.len - 2 } : tok;

                        if (name.len == 0)
                                return -EBADMSG; /* "[]" */
                        for (size_t i = 0; i < name.len; i++)
                                if (!thp_mode_char_ok(name.p[i]))
                                        return -EBADMSG; /* stray or nested bracket, garbage */
                        if (bracketed) {
                                choice = name;
                                n_chosen++;
                        }
                }
        if (n_chosen != 1)
                return -EBADMSG;
        if (!ret || choice.len >= size)
                return -ENAMETOOLONG;
        return span_copy(choice, ret, size);
}

static void thp_mode_read_at(int dirfd, const char *path, char *field, size_t size)
{
        char buf[256];
        int r;

        r = read_file_at(dirfd, path, buf, sizeof(buf));
        if (r >= 0)
                (void) thp_mode_parse(buf, (size_t) r, field, size);
}

static void thp_int_read_at(int dirfd, const char *path, int64_t *field)
{
        int64_t v;

        if (sysctl_read_at(dirfd, path, &v) >= 0)
                *field = v;
}

/* "hugepages-2048kB" -> 2048; false for anything else (no leading zeros,
 * no sign, no overflow, no 0). */
static bool thp_size_dir_name(const char *name, unsigned *ret_kb)
{
        const char *p = name + strlen("hugepages-");
        uint64_t v = 0;

        if (strncmp(name, "hugepages-", strlen("hugepages-")) != 0)
                return false;
        if (*p < '1' || *p > '9')
                return false;
        for (; *p >= '0' && *p <= '9'; p++) {
                v = v * 10 + (uint64_t) (*p - '0');
                if (v > UINT_MAX)
                        return false;
        }
        if (strcmp(p, "kB") != 0)
                return false;
        *ret_kb = (unsigned) v;
        return true;
}

/* The entry is of type dt (DT_DIR, DT_REG), not following a symlink: from
 * d_type, or fstatat() where the file system does not fill it in. */
static bool entry_is(int dirfd, const struct dirent *de, unsigned char dt)
{
        struct stat st;

        if (de->d_type != DT_UNKNOWN)
                return de->d_type == dt;
        return fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) >= 0 && IFTODT(st.st_mode) == dt;
}

/* Opens dirfd/path as a DIR stream (which then owns the fd). */
static int opendir_at(int dirfd, const char *path, DIR **ret)
{
        int fd;
        DIR *d;

        fd = root_openat(dirfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0);
        if (fd < 0)
                return negative_errno();
        d = fdopendir(fd);
        if (!d) {
                int r = negative_errno();
                (void) close(fd);
                return r;
        }
        *ret = d;
        return 0;
}

static void closedirp(DIR **d)
{
        if (*d)
                (void) closedir(*d);
}

/* One unsigned counter and optional whitespace. */
static int u64_read_at(int dirfd, const char *path, uint64_t *ret)
{
        char buf[64];
        Span line, tok, extra;
        Cursor c;
        int r;

        r = read_file_at(dirfd, path, buf, sizeof(buf));
        if (r < 0)
                return r;
        c = cursor_make(buf, (size_t) r);
        if (!cursor_next_line(&c, &line) || !span_next_token(&line, &tok))
                return -ENODATA;
        if (span_next_token(&line, &extra) || (cursor_next_line(&c, &line) && line.len > 0))
                return -EBADMSG;
        return span_to_u64(tok, ret);
}

static int cmp_unsigned(const void *a, const void *b)
{
        unsigned x = *(const unsigned *) a, y = *(const unsigned *) b;

        return x < y ? -1 : x > y;
}

static int cmp_stat_name(const void *a, const void *b)
{
        return strcmp(((const ThpStat *) a)->name, ((const ThpStat *) b)->name);
}

/* Every regular file in stats/ holding one unsigned number, sorted by name.
 * A missing stats/ directory leaves n_stats 0. */
static int thp_stats_read(int size_fd, ThpSize *s)
{
        _cleanup_(closedirp) DIR *d = NULL;
        struct dirent *de;

        if (opendir_at(size_fd, "stats", &d) < 0)
                return 0;
        while ((errno = 0, de = readdir(d))) {
                ThpStat *st;
                uint64_t v;

                if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(st->name))
                        continue;
                if (!entry_is(dirfd(d), de, DT_REG))
                        continue;
                if (u64_read_at(dirfd(d), de->d_name, &v) < 0)
                        continue;
                if (s->n_stats >= FRAGD_MAX_THP_STATS)
                        return -E2BIG;
                st = &s->stats[s->n_stats++];
                strcpy(st->name, de->d_name);
                st->value = v;
        }
        if (errno != 0)
                return negative_errno();
        qsort(s->stats, s->n_stats, sizeof(s->stats[0]), cmp_stat_name);
        return 0;
}

static int thp_sizes_read(int thp_fd, ThpInfo *t)
{
        _cleanup_(closedirp) DIR *d = NULL;
        unsigned sizes[FRAGD_MAX_THP_SIZES];
        unsigned n = 0;
        struct dirent *de;
        int r;

        r = opendir_at(thp_fd, ".", &d);
        if (r < 0)
                return r;
        while ((errno = 0, de = readdir(d))) {
                unsigned kb;

                if (!thp_size_dir_name(de->d_name, &kb) || !entry_is(dirfd(d), de, DT_DIR))
                        continue;
                if (n >= FRAGD_MAX_THP_SIZES)
                        return -E2BIG;
                sizes[n++] = kb;
        }
        if (errno != 0)
                return negative_errno();
        qsort(sizes, n, sizeof(sizes[0]), cmp_unsigned);

        t->n_sizes = 0;
        for (unsigned i = 0; i < n; i++) {
                ThpSize *s = &t->sizes[t->n_sizes];
                _cleanup_close_ int fd = -1;
                char name[32];

                (void) snprintf(name, sizeof(name), "hugepages-%ukB", sizes[i]);
                fd = root_openat(thp_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0);
                if (fd < 0)
                        continue; /* went away meanwhile */
                memset(s, 0, sizeof(*s));
                s->size_kb = sizes[i];
                thp_mode_read_at(fd, "enabled", s->enabled, sizeof(s->enabled));
                thp_mode_read_at(fd, "shmem_enabled", s->shmem_enabled, sizeof(s->shmem_enabled));
                r = thp_stats_read(fd, s);
                if (r < 0)
                        return r;
                t->n_sizes++;
        }
        return 0;
}

/* sys/kernel/mm/transparent_hugepage, -EOPNOTSUPP when the kernel has none. */
static int thp_dir_open(const Root *root)
{
        int fd;

        if (root->sys_fd < 0)
                return -ENOENT;
        fd = root_openat(root->sys_fd, "kernel/mm/transparent_hugepage", O_RDONLY | O_DIRECTORY | O_CLOEXEC,
                         0, 0);
        if (fd < 0)
                return errno == ENOENT ? -EOPNOTSUPP : negative_errno();
        return fd;
}

int thp_read(const Root *root, ThpInfo *ret)
{
        static const struct {
                const char *path;
                size_t offset;
        } ints[] = {
                { "use_zero_page", offsetof(ThpInfo, use_zero_page) },
                { "khugepaged/defrag", offsetof(ThpInfo, khugepaged_defrag) },
                { "khugepaged/pages_to_scan", offsetof(ThpInfo, pages_to_scan) },
                { "khugepaged/scan_sleep_millisecs", offsetof(ThpInfo, scan_sleep_millisecs) },
                { "khugepaged/alloc_sleep_millisecs", offsetof(ThpInfo, alloc_sleep_millisecs) },
                { "khugepaged/max_ptes_none", offsetof(ThpInfo, max_ptes_none) },
                { "khugepaged/max_ptes_swap", offsetof(ThpInfo, max_ptes_swap) },
                { "khugepaged/max_ptes_shared", offsetof(ThpInfo, max_ptes_shared) },
                { "khugepaged/full_scans", offsetof(ThpInfo, full_scans) },
                { "khugepaged/pages_collapsed", offsetof(ThpInfo, pages_collapsed) },
        };
        _cleanup_free_ ThpInfo *t = NULL;
        _cleanup_close_ int fd = -1;
        uint64_t v;
        int r;

        fd = thp_dir_open(root);
        if (fd < 0)
                return fd;

        /* ~21 KiB: off the stack, and ret stays untouched on failure */
        t = calloc(1, sizeof(*t));
        if (!t)
                return -ENOMEM;
        for (size_t i = 0; i < ELEMENTSOF(ints); i++) {
                int64_t *field = (int64_t *) ((char *) t + ints[i].offset);

                *field = THP_KHUGEPAGED_UNSET;
                thp_int_read_at(fd, ints[i].path, field);
        }
        thp_mode_read_at(fd, "enabled", t->enabled, sizeof(t->enabled));
        thp_mode_read_at(fd, "defrag", t->defrag, sizeof(t->defrag));
        thp_mode_read_at(fd, "shmem_enabled", t->shmem_enabled, sizeof(t->shmem_enabled));
        if (u64_read_at(fd, "hpage_pmd_size", &v) >= 0)
                t->hpage_pmd_size = v;

        r = thp_sizes_read(fd, t);
        if (r < 0)
                return r;
        *ret = *t;
        return 0;
}

/* Is anonymous (or shmem) THP of this size possibly in use? A size whose
 * mode is "never" cannot fault, so its counters need not be re-read every
 * tick. "inherit" follows the global mode. */
static bool thp_size_active(const ThpInfo *t, const ThpSize *s, bool shmem)
{
        const char *m = shmem ? s->shmem_enabled : s->enabled;
        const char *global = shmem ? t->shmem_enabled : t->enabled;

        if (!m[0])
                return false;
        if (strcmp(m, "inherit") == 0)
                m = global;
        return m[0] && strcmp(m, "never") != 0 && strcmp(m, "deny") != 0;
}

static void stat_update(int size_fd, ThpSize *s, const char *name)
{
        char path[64];
        uint64_t v;
        int i = thp_size_stat_index(s, name);

        if (i < 0)
                return;
        (void) snprintf(path, sizeof(path), "stats/%s", name);
        if (u64_read_at(size_fd, path, &v) >= 0)
                s->stats[i].value = v;
}

int thp_refresh(const Root *root, ThpInfo *t)
{
        static const char *const anon[] = { "anon_fault_alloc", "anon_fault_fallback",
                                            "anon_fault_fallback_charge" };
        static const char *const shmem[] = { "shmem_alloc", "shmem_fallback", "shmem_fallback_charge" };
        _cleanup_close_ int fd = -1;
        char enabled[THP_MODE_MAX] = "", defrag[THP_MODE_MAX] = "", shmem_enabled[THP_MODE_MAX] = "";

        fd = thp_dir_open(root);
        if (fd < 0)
                return fd;
        thp_mode_read_at(fd, "enabled", enabled, sizeof(enabled));
        thp_mode_read_at(fd, "defrag", defrag, sizeof(defrag));
        thp_mode_read_at(fd, "shmem_enabled", shmem_enabled, sizeof(shmem_enabled));
        memcpy(t->enabled, enabled, sizeof(enabled));
        memcpy(t->defrag, defrag, sizeof(defrag));
        memcpy(t->shmem_enabled, shmem_enabled, sizeof(shmem_enabled));
        for (unsigned i = 0; i < t->n_sizes && i < FRAGD_MAX_THP_SIZES; i++) {
                ThpSize *s = &t->sizes[i];
                bool a = thp_size_active(t, s, false), sh = thp_size_active(t, s, true);
                _cleanup_close_ int sfd = -1;
                char name[32];

                if (!a && !sh)
                        continue;
                (void) snprintf(name, sizeof(name), "hugepages-%ukB", s->size_kb);
                sfd = root_openat(fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0);
                if (sfd < 0)
                        continue;
                for (size_t j = 0; a && j < ELEMENTSOF(anon); j++)
                        stat_update(sfd, s, anon[j]);
                for (size_t j = 0; sh && j < ELEMENTSOF(shmem); j++)
                        stat_update(sfd, s, shmem[j]);
        }
        return 0;
}
