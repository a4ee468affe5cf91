/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cgroup2 root discovery, watched cgroups (memory.stat, memory.pressure,
 * PSI trigger), membership. */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "core/parse-util.h"
#include "fragd/macro.h"
#include "sources/cgroup.h"
#include "sources/sources.h"

/* ---- root ----------------------------------------------------------------- */

/* mountinfo escapes ' ', '\t', '\n', '\\' as \ooo */
static int unescape_octal(Span s, char *ret, size_t size)
{
        size_t o = 0;

        for (size_t i = 0; i < s.len; i++) {
                char c = s.p[i];

                if (c == '\\' && i + 3 < s.len && s.p[i + 1] >= '0' && s.p[i + 1] <= '3' &&
                    s.p[i + 2] >= '0' && s.p[i + 2] <= '7' && s.p[i + 3] >= '0' && s.p[i + 3] <= '7') {
                        c = (char) ((s.p[i + 1] - '0') * 64 + (s.p[i + 2] - '0') * 8 + (s.p[i + 3] - '0'));
                        i += 3;
                }
                if (o + 1 >= size)
                        return -ENAMETOOLONG;
                ret[o++] = c;
        }
        ret[o] = '\0';
        return 0;
}

static int mount_rank(const char *mp)
{
        if (strcmp(mp, "/sys/fs/cgroup") == 0)
                return 2;
        if (strcmp(mp, "/sys/fs/cgroup/unified") == 0)
                return 1;
        return 0;
}

int mountinfo_find_cgroup2(const char *buf, size_t len, char *ret, size_t size)
{
        Cursor c = cursor_make(buf, len);
        Span line;
        char best[CGROUP_PATH_MAX] = "";
        int best_rank = -1;

        while (cursor_next_line(&c, &line)) {
                Span tok, mp = { 0 }, fstype = { 0 };
                char mpath[CGROUP_PATH_MAX];
                unsigned field = 0;
                bool sep = false;
                int rank;

                /* id parent maj:min root mountpoint opts [optional...] - fstype src superopts */
                while (span_next_token(&line, &tok)) {
                        if (!sep) {
                                if (field == 4)
                                        mp = tok;
                                if (field >= 6 && span_eq(tok, "-")) {
                                        sep = true;
                                        if (!span_next_token(&line, &fstype))
                                                return -EBADMSG;
                                        break;
                                }
                                field++;
                        }
                }
                if (field == 0 && !sep)
                        continue; /* empty line */
                if (!sep || mp.len == 0)
                        return -EBADMSG;
                if (!span_eq(fstype, "cgroup2"))
                        continue;
                if (unescape_octal(mp, mpath, sizeof(mpath)) < 0)
                        continue;
                rank = mount_rank(mpath);
                if (rank > best_rank) {
                        best_rank = rank;
                        strcpy(best, mpath);
                }
        }
        if (best_rank < 0)
                return -ENOENT;
        {
                const char *p = best;

                while (*p == '/')
                        p++;
                if (strlen(p) >= size)
                        return -ENAMETOOLONG;
                strcpy(ret, p);
        }
        return 0;
}

void cgroup_root_close(CgroupRoot *cr)
{
        closep(&cr->fd);
        cr->fd = -1;
}

static bool is_cgroup2_dir(int dirfd, const char *path)
{
        char p[CGROUP_PATH_MAX + 32];
        struct stat st;

        snprintf(p, sizeof(p), "%s/cgroup.controllers", path);
        return fstatat(dirfd, p, &st, 0) == 0 && S_ISREG(st.st_mode);
}

int cgroup_root_open(const Root *root, CgroupRoot *ret)
{
        static const char *const probes[] = { "sys/fs/cgroup", "sys/fs/cgroup/unified" };
        CgroupRoot cr = { .fd = -1 };
        _cleanup_free_ char *mi = NULL;
        char found[CGROUP_PATH_MAX] = "";
        size_t len;
        int r;

        if (root->proc_fd >= 0 && read_file_alloc_at(root->proc_fd, "self/mountinfo", &mi, &len) == 0 &&
            mountinfo_find_cgroup2(mi, len, found, sizeof(found)) == 0 && *found &&
            is_cgroup2_dir(root->root_fd, found))
                cr.from_mountinfo = true;
        if (!cr.from_mountinfo) {
                found[0] = '\0';
                for (size_t i = 0; i < ELEMENTSOF(probes); i++)
                        if (is_cgroup2_dir(root->root_fd, probes[i])) {
                                strcpy(found, probes[i]);
                                break;
                        }
                if (!*found)
                        return -ENOENT;
        }
        cr.fd = root_openat(root->root_fd, found, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0);
        if (cr.fd < 0)
                return negative_errno();
        strcpy(cr.path, found);
        len = strlen(found);
        cr.hybrid = len >= 8 && strcmp(found + len - 8, "/unified") == 0;
        r = read_file_at(cr.fd, "cgroup.controllers", cr.controllers, sizeof(cr.controllers));
        if (r >= 0) {
                char *s = cr.controllers + strcspn(cr.controllers, "\n");

                *s = '\0';
                for (char *t = cr.controllers; *t;) {
                        size_t n = strcspn(t, " ");

                        if (n == 6 && strncmp(t, "memory", 6) == 0)
                                cr.memory_controller = true;
                        t += n;
                        t += strspn(t, " ");
                }
        }
        *ret = cr;
        return 0;
}

/* ---- memory.stat ------------------------------------------------------------ */

int cgroup_memstat_from_kv(const KvList *kv, CgroupMemStat *ret)
{
        CgroupMemStat m = { 0 };

        if (kv_get(kv, "anon", &m.anon) < 0)
                return -ENODATA;
        m.have_thp = kv_get(kv, "anon_thp", &m.anon_thp) == 0;
        m.file = kv_get_or(kv, "file", 0);
        m.shmem = kv_get_or(kv, "shmem", 0);
        m.file_thp = kv_get_or(kv, "file_thp", 0);
        m.shmem_thp = kv_get_or(kv, "shmem_thp", 0);
        m.thp_fault_alloc = kv_get_or(kv, "thp_fault_alloc", 0);
        m.thp_collapse_alloc = kv_get_or(kv, "thp_collapse_alloc", 0);
        m.thp_swpout = kv_get_or(kv, "thp_swpout", 0);
        m.thp_swpout_fallback = kv_get_or(kv, "thp_swpout_fallback", 0);
        m.pgscan_direct = kv_get_or(kv, "pgscan_direct", 0);
        m.pgsteal_direct = kv_get_or(kv, "pgsteal_direct", 0);
        m.pgscan_khugepaged = kv_get_or(kv, "pgscan_khugepaged", 0);
        m.workingset_refault_anon = kv_get_or(kv, "workingset_refault_anon", 0);
        m.workingset_refault_file = kv_get_or(kv, "workingset_refault_file", 0);
        *ret = m;
        return 0;
}

/* ---- membership ------------------------------------------------------------- */

int cgroup_procs_parse(const char *buf, size_t len, int32_t *pids, size_t cap, size_t *ret_n)
{
        Cursor c = cursor_make(buf, len);
        Span line, tok;
        size_t n = 0;

        while (cursor_next_line(&c, &line)) {
                uint64_t v;
                int r;

                if (!span_next_token(&line, &tok))
                        continue;
                r = span_to_u64(tok, &v);
                if (r < 0)
                        return r;
                if (v == 0 || v > INT32_MAX)
                        return -ERANGE;
                if (n >= cap) {
                        *ret_n = n;
                        return -E2BIG;
                }
                pids[n++] = (int32_t) v;
        }
        *ret_n = n;
        return 0;
}

int proc_pid_cgroup_parse(const char *buf, size_t len, char *ret, size_t size)
{
        Cursor c = cursor_make(buf, len);
        Span line;

        while (cursor_next_line(&c, &line)) {
                Span p;

                if (line.len < 3 || memcmp(line.p, "0::", 3) != 0)
                        continue;
                p = (Span) { line.p + 3, line.len - 3 };
                while (p.len > 0 && p.p[0] == '/') {
                        p.p++;
                        p.len--;
                }
                /* " (deleted)" follows a removed cgroup */
                return span_copy(p, ret, size) < 0 ? -ENAMETOOLONG : 0;
        }
        return -ENODATA;
}

int proc_pid_cgroup_read(const Root *root, int32_t pid, char *ret, size_t size)
{
        char path[32], buf[4096];
        int r;

        snprintf(path, sizeof(path), "%d/cgroup", (int) pid);
        r = read_file_at(root->proc_fd, path, buf, sizeof(buf));
        if (r == -ENOENT)
                return -ESRCH;
        if (r < 0)
                return r;
        return proc_pid_cgroup_parse(buf, (size_t) r, ret, size);
}

typedef struct PidVec {
        int32_t *p;
        size_t n, cap;
} PidVec;

static int scan_dir(int dfd, const char *file, PidVec *v, unsigned depth)
{
        _cleanup_free_ char *buf = NULL;
        size_t len;
        DIR *d;
        struct dirent *de;
        int r, fd2;

        r = read_file_alloc_at(dfd, file, &buf, &len);
        if (r < 0)
                return r;
        for (;;) {
                size_t got = 0;

                if (v->cap - v->n < 64) {
                        size_t nc = v->cap ? v->cap * 2 : 256;
                        int32_t *np = realloc(v->p, nc * sizeof(*np));

                        if (!np)
                                return -ENOMEM;
                        v->p = np;
                        v->cap = nc;
                }
                r = cgroup_procs_parse(buf, len, v->p + v->n, v->cap - v->n, &got);
                if (r == -E2BIG) {
                        size_t nc = v->cap * 2;
                        int32_t *np = realloc(v->p, nc * sizeof(*np));

                        if (!np)
                                return -ENOMEM;
                        v->p = np;
                        v->cap = nc;
                        continue;
                }
                if (r < 0)
                        return r;
                v->n += got;
                break;
        }
        if (depth >= 16)
                return 0;
        fd2 = dup(dfd);
        if (fd2 < 0)
                return negative_errno();
        d = fdopendir(fd2);
        if (!d) {
                r = negative_errno();
                (void) close(fd2);
                return r;
        }
        while ((de = readdir(d))) {
                _cleanup_close_ int cfd = -1;

                if (de->d_name[0] == '.' || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
                        continue;
                cfd = root_openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0);
                if (cfd < 0)
                        continue; /* raced with removal, or not a directory */
                r = scan_dir(cfd, file, v, depth + 1);
                if (r < 0 && r != -ENOENT) {
                        closedir(d);
                        return r;
                }
        }
        closedir(d);
        return 0;
}

static int scan_tree(const CgroupRoot *cr, const char *path, const char *file, int32_t **ret_pids, size_t *ret_n)
{
        _cleanup_close_ int dfd = -1;
        PidVec v = { 0 };
        int r;

        if (!cgroup_relpath_valid(path))
                return -EINVAL;
        if (cr->fd < 0)
                return -ENOENT;
        dfd = root_openat(cr->fd, *path ? path : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0);
        if (dfd < 0)
                return negative_errno();
        r = scan_dir(dfd, file, &v, 0);
        if (r < 0) {
                free(v.p);
                return r;
        }
        *ret_pids = v.p;
        *ret_n = v.n;
        return 0;
}

int cgroup_scan_pids(const CgroupRoot *cr, const char *path, int32_t **ret_pids, size_t *ret_n)
{
        return scan_tree(cr, path, "cgroup.procs", ret_pids, ret_n);
}

int cgroup_scan_threads(const CgroupRoot *cr, const char *path, int32_t **ret_tids, size_t *ret_n)
{
        return scan_tree(cr, path, "cgroup.threads", ret_tids, ret_n);
}

/* ---- one watched cgroup --------------------------------------------------- */

void cgroup_watch_init(CgroupWatch *w, const char *path, const PsiTriggerSpec *spec)
{
        memset(w, 0, sizeof(*w));
        snprintf(w->path, sizeof(w->path), "%s", path);
        w->dir_fd = w->psi_fd = -1;
        w->state = CGROUP_ABSENT;
        if (spec)
                w->psi_spec = *spec;
}

int cgroup_watch_psi_fd(const CgroupWatch *w)
{
        return w->psi_fd;
}

void cgroup_watch_release_psi(CgroupWatch *w)
{
        closep(&w->psi_fd);
        w->psi_fd = -1;
}

void cgroup_watch_close(CgroupWatch *w)
{
        cgroup_watch_release_psi(w);
        closep(&w->dir_fd);
        w->dir_fd = -1;
        w->state = CGROUP_ABSENT;
}

static int arm(CgroupWatch *w)
{
        int fd;

        if (w->psi_spec.threshold_usec == 0) {
                w->psi_err = 0;
                return 0;
        }
        fd = psi_trigger_open_at(w->dir_fd, "memory.pressure", &w->psi_spec, &w->psi_effective);
        if (fd < 0) {
                w->psi_err = fd;
                return fd;
        }
        w->psi_err = 0;
        w->psi_fd = fd;
        return fd;
}

int cgroup_watch_rearm(CgroupWatch *w)
{
        cgroup_watch_release_psi(w);
        if (w->state != CGROUP_PRESENT)
                return -ENODEV;
        return arm(w);
}

int cgroup_watch_psi_event(CgroupWatch *w, uint32_t revents)
{
        if (revents & (EPOLLERR | EPOLLHUP)) {
                /* the cgroup was removed (psi_trigger_poll() says POLLERR) */
                closep(&w->dir_fd);
                w->dir_fd = -1;
                w->state = CGROUP_ABSENT;
                return -ENODEV;
        }
        if (revents & EPOLLPRI) {
                w->psi_events++;
                return 1;
        }
        return 0;
}

static int dir_inode(int dirfd, const char *path, uint64_t *ret)
{
        struct stat st;

        if (fstatat(dirfd, *path ? path : ".", &st, 0) < 0)
                return negative_errno();
        if (!S_ISDIR(st.st_mode))
                return -ENOTDIR;
        *ret = (uint64_t) st.st_ino;
        return 0;
}

static void read_files(CgroupWatch *w, KvList *kv)
{
        _cleanup_free_ char *buf = NULL;
        char pbuf[1024];
        size_t len;
        int r;

        r = read_file_alloc_at(w->dir_fd, "memory.stat", &buf, &len);
        if (r == 0)
                r = vmstat_parse(buf, len, kv);
        if (r == 0)
                r = cgroup_memstat_from_kv(kv, &w->mem);
        w->mem_err = r;
        w->have_mem = r == 0;

        r = read_file_at(w->dir_fd, "memory.pressure", pbuf, sizeof(pbuf));
        if (r >= 0)
                r = psi_parse(pbuf, (size_t) r, &w->pressure);
        w->pressure_err = r < 0 ? r : 0;
        w->have_pressure = r >= 0;
}

int cgroup_watch_refresh(CgroupWatch *w, const CgroupRoot *cr, KvList *kv)
{
        uint64_t ino;
        int r;

        if (!cgroup_relpath_valid(w->path))
                return -EINVAL;
        if (cr->fd < 0)
                return -ENOENT;
        r = dir_inode(cr->fd, w->path, &ino);
        if (w->state == CGROUP_PRESENT && (r < 0 || ino != w->dir_ino)) {
                closep(&w->dir_fd);
                w->dir_fd = -1;
                w->state = CGROUP_ABSENT;
                w->have_mem = w->have_pressure = false;
                return CGROUP_CHANGED_VANISHED;
        }
        if (w->state == CGROUP_ABSENT) {
                if (r < 0)
                        return r == -ENOENT || r == -ENOTDIR ? CGROUP_UNCHANGED : r;
                w->dir_fd = root_openat(cr->fd, *w->path ? w->path : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC,
                                        0, 0);
                if (w->dir_fd < 0) {
                        r = negative_errno();
                        w->dir_fd = -1;
                        return r == -ENOENT ? CGROUP_UNCHANGED : r;
                }
                w->dir_ino = ino;
                w->state = CGROUP_PRESENT;
                w->appearances++;
                if (w->psi_fd < 0)
                        (void) arm(w);
                read_files(w, kv);
                return CGROUP_CHANGED_APPEARED;
        }
        read_files(w, kv);
        return CGROUP_UNCHANGED;
}
