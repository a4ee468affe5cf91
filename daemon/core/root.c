/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Root directory handling and whole-file I/O relative to a directory fd.
 *
 * Every path is resolved below a directory fd and never leaves it
 * (root_openat()): with openat2(RESOLVE_IN_ROOT) or RESOLVE_BENEATH where the
 * kernel has it (5.6+), else with a walk one component at a time that opens
 * each one with O_NOFOLLOW and reads symlinks itself. Files fragd creates are
 * created new (O_TMPFILE, else a random name with O_CREAT|O_EXCL|O_NOFOLLOW),
 * then renamed over the target: a symlink at the target is replaced, never
 * written through. */

#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>

#include "core/log.h"
#include "core/cleanup.h"
#include "core/root.h"
#include "fragd/macro.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

#define ROOT_MAX_SYMLINKS 40 /* as the kernel's MAXSYMLINKS */
#define ROOT_MAX_DEPTH 128

bool root_test_no_openat2;
bool root_test_no_tmpfile;
uint64_t (*root_test_random)(void);

Root *root_free(Root *r)
{
        if (!r)
                return NULL;
        closep(&r->root_fd);
        closep(&r->proc_fd);
        closep(&r->sys_fd);
        free(r->path);
        free(r);
        return NULL;
}

int root_open(const char *dir, unsigned page_size, Root **ret)
{
        Root *r;
        long ps;

        if (!dir || !*dir)
                dir = "/";
        r = calloc(1, sizeof(*r));
        if (!r)
                return -ENOMEM;
        r->root_fd = r->proc_fd = r->sys_fd = -1;
        r->path = strdup(dir);
        if (!r->path) {
                root_free(r);
                return -ENOMEM;
        }
        r->root_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (r->root_fd < 0) {
                int e = negative_errno();
                root_free(r);
                return e;
        }
        /* proc/ and sys/ themselves resolve inside the tree: a fixture's
         * "proc" symlinked to the host's /proc is taken as <root>/proc */
        r->proc_fd = root_openat(r->root_fd, "proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0);
        r->sys_fd = root_openat(r->root_fd, "sys", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0);
        if (r->proc_fd < 0)
                r->proc_fd = -1;
        if (r->sys_fd < 0)
                r->sys_fd = -1;
        r->is_host = strcmp(dir, "/") == 0;
        ps = sysconf(_SC_PAGESIZE);
        r->page_size = page_size ? page_size : (ps > 0 ? (unsigned) ps : 4096);
        *ret = r;
        return 0;
}

/* ---- resolution ------------------------------------------------------------ */

static int openat2_state; /* 0 unknown, 1 works, -1 ENOSYS (kernel < 5.6) */

static int try_openat2(int dirfd, const char *path, int flags, mode_t mode, unsigned how_flags)
{
        struct open_how how = {
                .flags = (uint64_t) (unsigned) flags,
                .mode = (flags & (O_CREAT | __O_TMPFILE)) ? mode : 0,
                .resolve = RESOLVE_NO_MAGICLINKS |
                           ((how_flags & ROOT_BENEATH) ? RESOLVE_BENEATH : RESOLVE_IN_ROOT),
        };

        for (int attempt = 0; attempt < 8; attempt++) {
                long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));

                if (fd >= 0) {
                        openat2_state = 1;
                        return (int) fd;
                }
                /* -EAGAIN: a rename raced with a ".." lookup, retry */
                if (errno != EAGAIN)
                        break;
        }
        if (errno == ENOSYS && openat2_state == 0)
                openat2_state = -1;
        return negative_errno();
}

typedef struct Walk {
        int fds[ROOT_MAX_DEPTH]; /* fds[0] is the caller's dirfd (not ours) */
        unsigned depth;
} Walk;

static void walk_done(Walk *w)
{
        for (unsigned i = 1; i <= w->depth && i < ROOT_MAX_DEPTH; i++)
                closep(&w->fds[i]);
        w->depth = 0;
}

/* The fallback for kernels without openat2(): one component at a time, each
 * opened with O_NOFOLLOW; symlinks are read and their target spliced into
 * the rest of the path, absolute ones restarting at dirfd (or refused with
 * -EXDEV under ROOT_BENEATH). ".." at dirfd stays at dirfd (-EXDEV under
 * ROOT_BENEATH). A symlink swapped in between the check and the open makes
 * the O_NOFOLLOW open fail: a race ends in an error, never outside. */
static int walk_openat(int dirfd, const char *path, int flags, mode_t mode, unsigned how_flags)
{
        _cleanup_free_ char *rest = NULL;
        Walk w = { .fds = { dirfd }, .depth = 0 };
        unsigned n_links = 0;
        char *p;
        int r;

        rest = strdup(path);
        if (!rest)
                return -ENOMEM;
        p = rest;
        if (*p == '\0')
                return -ENOENT;
        if (*p == '/' && (how_flags & ROOT_BENEATH))
                return -EXDEV; /* as RESOLVE_BENEATH */
        for (;;) {
                char *comp, *next;
                bool last;
                struct stat st;

                while (*p == '/')
                        p++;
                if (*p == '\0') {
                        /* the path ended in '/' or was "/": open the directory reached */
                        r = openat(w.fds[w.depth], ".", flags & ~(O_CREAT | O_EXCL | O_NOFOLLOW),
                                   mode);
                        r = r < 0 ? negative_errno() : r;
                        goto done;
                }
                comp = p;
                next = strchr(p, '/');
                if (next) {
                        *next = '\0';
                        p = next + 1;
                        while (*p == '/')
                                p++;
                } else
                        p = comp + strlen(comp);
                last = *p == '\0';

                if (strcmp(comp, ".") == 0 || strcmp(comp, "..") == 0) {
                        if (comp[1] == '.' && w.depth == 0) {
                                if (how_flags & ROOT_BENEATH) {
                                        r = -EXDEV;
                                        goto done;
                                }
                        } else if (comp[1] == '.') {
                                closep(&w.fds[w.depth]);
                                w.depth--;
                        }
                        /* the directory reached is the file */
                        if (last) {
                                r = openat(w.fds[w.depth], ".", flags & ~(O_CREAT | O_EXCL | O_NOFOLLOW),
                                           mode);
                                r = r < 0 ? negative_errno() : r;
                                goto done;
                        }
                        continue;
                }

                if (fstatat(w.fds[w.depth], comp, &st, AT_SYMLINK_NOFOLLOW) < 0) {
                        if (errno != ENOENT || !last || !(flags & O_CREAT)) {
                                r = negative_errno();
                                goto done;
                        }
                        st.st_mode = 0; /* to be created below */
                }
                if (S_ISLNK(st.st_mode) && !(last && (flags & O_NOFOLLOW))) {
                        char target[PATH_MAX];
                        ssize_t n;
                        char *joined;

                        if (++n_links > ROOT_MAX_SYMLINKS) {
                                r = -ELOOP;
                                goto done;
                        }
                        n = readlinkat(w.fds[w.depth], comp, target, sizeof(target) - 1);
                        if (n < 0) {
                                r = negative_errno();
                                goto done;
                        }
                        if (n == 0) {
                                r = -ENOENT;
                                goto done;
                        }
                        target[n] = '\0';
                        if (target[0] == '/') {
                                if (how_flags & ROOT_BENEATH) {
                                        r = -EXDEV;
                                        goto done;
                                }
                                walk_done(&w);
                        }
                        if (asprintf(&joined, "%s%s%s", target, *p ? "/" : "", p) < 0) {
                                r = -ENOMEM;
                                goto done;
                        }
                        free(rest);
                        rest = p = joined;
                        continue;
                }
                if (last) {
                        r = openat(w.fds[w.depth], comp, flags | O_NOFOLLOW, mode);
                        r = r < 0 ? negative_errno() : r;
                        goto done;
                }
                if (w.depth + 1 >= ROOT_MAX_DEPTH) {
                        r = -ENAMETOOLONG;
                        goto done;
                }
                r = openat(w.fds[w.depth], comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (r < 0) {
                        r = negative_errno();
                        goto done;
                }
                w.fds[++w.depth] = r;
        }
done:
        walk_done(&w);
        return r;
}

int root_openat(int dirfd, const char *path, int flags, mode_t mode, unsigned how_flags)
{
        int r;

        if (dirfd < 0) {
                r = -EBADF;
                goto done;
        }
        if (!path || !*path) {
                r = -ENOENT;
                goto done;
        }
        if (!root_test_no_openat2 && openat2_state >= 0) {
                r = try_openat2(dirfd, path, flags, mode, how_flags);
                /* -EPERM also comes from a seccomp filter that does not know
                 * openat2 (older container runtimes): the walk decides */
                if (r >= 0 || (r != -ENOSYS && r != -EPERM))
                        goto done;
        }
        r = walk_openat(dirfd, path, flags, mode, how_flags);
done:
        if (r < 0)
                errno = -r; /* for callers converted from openat() */
        return r;
}

/* ---- reading ----------------------------------------------------------------- */

/* A kernel file below the root that is a symbolic link leading out of it is
 * never read (ROOT_BENEATH: -EXDEV); say so once per path, naming it, so a
 * source that then counts as missing is not missing in silence. */
static void warn_outside_once(int dirfd, const char *path)
{
        static uint64_t seen[64];
        static unsigned n_seen;
        char dir[PATH_MAX], link[64];
        uint64_t h = 1469598103934665603ULL;
        ssize_t n;

        for (const char *p = path; *p; p++)
                h = (h ^ (unsigned char) *p) * 1099511628211ULL;
        h ^= (uint64_t) (unsigned) dirfd;
        for (unsigned i = 0; i < n_seen && i < ELEMENTSOF(seen); i++)
                if (seen[i] == h)
                        return;
        seen[n_seen++ % ELEMENTSOF(seen)] = h;
        snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
        n = readlink(link, dir, sizeof(dir) - 1);
        dir[n > 0 ? n : 0] = '\0';
        log_warning("'%s/%s' is a symbolic link that leads out of the root directory (or a loop); "
                    "fragd does not read it and treats it as missing",
                    dir, path);
}

static int open_for_read(int dirfd, const char *path, unsigned how_flags)
{
        int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
        int fd;

        if (dirfd < 0)
                return -ENOENT;
        if (!path)
                return -EINVAL;
        if (how_flags & ROOT_OWN_FILE)
                flags |= O_NOFOLLOW | O_NONBLOCK;
        /* an absolute path is the caller's own host path (fragd -c FILE), as
         * with openat(2); paths below a root are always relative */
        if (path[0] == '/') {
                fd = openat(dirfd, path, flags);
                if (fd < 0)
                        return negative_errno();
        } else {
                fd = root_openat(dirfd, path, flags, 0, how_flags);
                if (fd < 0) {
                        if ((fd == -EXDEV || fd == -ELOOP) && !(how_flags & ROOT_OWN_FILE))
                                warn_outside_once(dirfd, path);
                        return fd;
                }
        }
        /* only regular files: a FIFO or device planted where a kernel file
         * or one of fragd's own should be never blocks a read */
        {
                struct stat st;

                if (fstat(fd, &st) < 0) {
                        int e = negative_errno();
                        close(fd);
                        return e;
                }
                if (!S_ISREG(st.st_mode)) {
                        close(fd);
                        return S_ISDIR(st.st_mode) ? -EISDIR : -EBADFD;
                }
        }
        return fd;
}

/* Reads fd to its end, or until buf (size bytes) is full: the number of
 * bytes read (size: full, more may follow), or -errno. Retries EINTR. The
 * one read loop of the readers below. */
static ssize_t read_fd_fill(int fd, char *buf, size_t size)
{
        size_t len = 0;

        while (len < size) {
                ssize_t n = read(fd, buf + len, size - len);

                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (n == 0)
                        break;
                len += (size_t) n;
        }
        return (ssize_t) len;
}

int read_file_at_full(int dirfd, const char *path, unsigned how_flags, char *buf, size_t size)
{
        _cleanup_close_ int fd = -1;
        ssize_t n;

        if (size == 0)
                return -EINVAL;
        fd = open_for_read(dirfd, path, how_flags);
        if (fd < 0)
                return fd;
        n = read_fd_fill(fd, buf, size - 1);
        if (n < 0)
                return (int) n;
        if ((size_t) n == size - 1)
                return -EFBIG; /* full: cannot tell the end from more */
        buf[n] = '\0';
        return n > INT_MAX ? -EFBIG : (int) n;
}

int read_file_at(int dirfd, const char *path, char *buf, size_t size)
{
        return read_file_at_full(dirfd, path, ROOT_BENEATH, buf, size);
}

int read_fd_alloc(int fd, size_t max, char **ret_buf, size_t *ret_len)
{
        _cleanup_free_ char *buf = NULL;
        ssize_t n;

        buf = malloc(max + 2);
        if (!buf)
                return -ENOMEM;
        n = read_fd_fill(fd, buf, max + 1);
        if (n < 0)
                return (int) n;
        if ((size_t) n > max)
                return -EFBIG;
        buf[n] = '\0';
        *ret_buf = TAKE_PTR(buf);
        if (ret_len)
                *ret_len = (size_t) n;
        return 0;
}

int read_file_alloc_at_max(int dirfd, const char *path, unsigned how_flags, size_t max, char **ret_buf,
                           size_t *ret_len)
{
        _cleanup_close_ int fd = -1;
        struct stat st;

        fd = open_for_read(dirfd, path, how_flags);
        if (fd < 0)
                return fd;
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (st.st_size > (off_t) max)
                return -EFBIG;
        return read_fd_alloc(fd, max, ret_buf, ret_len);
}

int read_file_head_at(int dirfd, const char *path, unsigned how_flags, size_t max, char **ret_buf,
                      size_t *ret_len)
{
        _cleanup_close_ int fd = -1;
        _cleanup_free_ char *buf = NULL;
        ssize_t n;

        fd = open_for_read(dirfd, path, how_flags);
        if (fd < 0)
                return fd;
        buf = malloc(max + 1);
        if (!buf)
                return -ENOMEM;
        n = read_fd_fill(fd, buf, max);
        if (n < 0)
                return (int) n;
        buf[n] = '\0';
        *ret_buf = TAKE_PTR(buf);
        if (ret_len)
                *ret_len = (size_t) n;
        return 0;
}

int read_file_alloc_at_full(int dirfd, const char *path, unsigned how_flags, char **ret_buf, size_t *ret_len)
{
        _cleanup_close_ int fd = -1;
        _cleanup_free_ char *buf = NULL;
        size_t len = 0, cap = 16384;

        fd = open_for_read(dirfd, path, how_flags);
        if (fd < 0)
                return fd;
        buf = malloc(cap);
        if (!buf)
                return -ENOMEM;
        for (;;) {
                ssize_t n = read_fd_fill(fd, buf + len, cap - 1 - len);
                char *nb;

                if (n < 0)
                        return (int) n;
                len += (size_t) n;
                if (len + 1 < cap)
                        break; /* the end */
                if (cap >= 64u << 20)
                        return -EFBIG;
                nb = realloc(buf, cap * 2);
                if (!nb)
                        return -ENOMEM;
                buf = nb;
                cap *= 2;
        }
        buf[len] = '\0';
        *ret_buf = TAKE_PTR(buf);
        if (ret_len)
                *ret_len = len;
        return 0;
}

int read_file_alloc_at(int dirfd, const char *path, char **ret_buf, size_t *ret_len)
{
        return read_file_alloc_at_full(dirfd, path, ROOT_BENEATH, ret_buf, ret_len);
}

/* ---- writing ----------------------------------------------------------------- */

int write_file_at(int dirfd, const char *path, const char *value)
{
        _cleanup_close_ int fd = -1;
        size_t len = strlen(value);
        ssize_t n;

        if (dirfd < 0)
                return -ENOENT;
        fd = root_openat(dirfd, path, O_WRONLY | O_CLOEXEC | O_NOCTTY, 0, ROOT_BENEATH);
        if (fd < 0)
                return fd;
        n = write(fd, value, len);
        if (n < 0)
                return negative_errno();
        if ((size_t) n != len)
                return -EIO;
        return 0;
}

/* Splits "a/b/name" into "a/b" (in dir, "." when none) and "name". */
static int split_path(const char *path, char *dir, size_t dir_size, const char **ret_name)
{
        const char *slash, *name;
        size_t n;

        while (*path == '/')
                path++;
        n = strlen(path);
        while (n > 0 && path[n - 1] == '/')
                n--;
        if (n == 0)
                return -EINVAL;
        slash = memrchr(path, '/', n);
        name = slash ? slash + 1 : path;
        if ((size_t) (path + n - name) >= NAME_MAX + 1 || (path + n - name == 1 && name[0] == '.') ||
            (path + n - name == 2 && name[0] == '.' && name[1] == '.'))
                return -EINVAL;
        if (name[path + n - name] != '\0')
                return -EINVAL; /* "name/" : a file, not a directory */
        if (!slash) {
                if (dir_size < 2)
                        return -ENAMETOOLONG;
                strcpy(dir, ".");
        } else {
                if ((size_t) (slash - path) >= dir_size)
                        return -ENAMETOOLONG;
                memcpy(dir, path, (size_t) (slash - path));
                dir[slash - path] = '\0';
        }
        *ret_name = name;
        return 0;
}

int root_mkdir_p_at(int dirfd, const char *path, unsigned mode, int *ret_fd)
{
        char buf[PATH_MAX];
        _cleanup_close_ int cur = -1;
        char *p, *comp;
        int fd;

        if (dirfd < 0)
                return -EBADF;
        if (!path || !*path)
                return -EINVAL;
        fd = root_openat(dirfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0);
        if (fd != -ENOENT) {
                if (fd < 0)
                        return fd;
                *ret_fd = fd;
                return 0;
        }
        if (strlen(path) >= sizeof(buf))
                return -ENAMETOOLONG;
        strcpy(buf, path);
        for (p = buf;;) {
                char *slash;

                while (*p == '/')
                        p++;
                if (*p == '\0')
                        break;
                comp = p;
                slash = strchr(p, '/');
                if (slash)
                        *slash = '\0';
                fd = root_openat(dirfd, buf, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0);
                if (fd == -ENOENT) {
                        int pfd = cur >= 0 ? cur : dirfd;

                        /* the prefix up to comp's parent resolved to cur; comp
                         * itself is missing (or a dangling symlink, which
                         * mkdirat refuses with EEXIST and the open below with
                         * ELOOP/ENOTDIR) */
                        if (mkdirat(pfd, comp, (mode_t) mode) < 0 && errno != EEXIST)
                                return negative_errno();
                        fd = openat(pfd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                        if (fd < 0)
                                return negative_errno();
                }
                if (fd < 0)
                        return fd;
                closep(&cur);
                cur = fd;
                if (!slash)
                        break;
                *slash = '/';
                p = slash + 1;
        }
        if (cur < 0)
                return -EINVAL;
        *ret_fd = TAKE_FD(cur);
        return 0;
}

static uint64_t random_u64(void)
{
        uint64_t v;

        if (root_test_random)
                return root_test_random();
        if (getrandom(&v, sizeof(v), GRND_NONBLOCK) == (ssize_t) sizeof(v))
                return v;
        /* no entropy yet (early boot): unpredictable enough for a name that
         * O_EXCL|O_NOFOLLOW protects anyway */
        struct timespec ts;
        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return ((uint64_t) ts.tv_nsec << 32) ^ (uint64_t) ts.tv_sec ^ ((uint64_t) getpid() << 16) ^
               (uintptr_t) &v;
}

static int tmp_name(const char *name, char *buf, size_t size)
{
        int n = snprintf(buf, size, ".%s.%016llx.tmp", name, (unsigned long long) random_u64());

        return n < 0 || (size_t) n >= size ? -ENAMETOOLONG : 0;
}

static int write_all(int fd, const char *data, size_t len)
{
        while (len > 0) {
                ssize_t n = write(fd, data, len);

                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                data += n;
                len -= (size_t) n;
        }
        return 0;
}

/* An unnamed file in dfd (O_TMPFILE), linked in under a fresh random name.
 * -EOPNOTSUPP when the file system or kernel cannot do it. */
static int create_tmpfile(int dfd, const char *name, const char *data, size_t len, unsigned mode,
                          char *ret_tmp, size_t tmp_size)
{
        _cleanup_close_ int fd = -1;
        char proc[64];
        int r;

        if (root_test_no_tmpfile)
                return -EOPNOTSUPP;
        fd = openat(dfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
        if (fd < 0)
                return errno == EISDIR || errno == EOPNOTSUPP || errno == EINVAL || errno == ENOENT
                               ? -EOPNOTSUPP
                               : negative_errno();
        /* our own fd: the mode exactly, whatever the umask */
        if (fchmod(fd, mode) < 0)
                return negative_errno();
        r = write_all(fd, data, len);
        if (r < 0)
                return r;
        if (fsync(fd) < 0)
                return negative_errno();
        snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
        for (int attempt = 0; attempt < 16; attempt++) {
                r = tmp_name(name, ret_tmp, tmp_size);
                if (r < 0)
                        return r;
                /* AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; /proc/self/fd
                 * does not, but needs /proc: try both */
                if (linkat(fd, "", dfd, ret_tmp, AT_EMPTY_PATH) == 0)
                        return 0;
                if (errno == EEXIST)
                        continue;
                if (errno != ENOENT && errno != EPERM && errno != EACCES && errno != EINVAL)
                        return negative_errno();
                if (linkat(AT_FDCWD, proc, dfd, ret_tmp, AT_SYMLINK_FOLLOW) == 0)
                        return 0;
                if (errno == EEXIST)
                        continue;
                return -EOPNOTSUPP;
        }
        return -EEXIST;
}

/* A new file under a fresh random name: O_CREAT|O_EXCL|O_NOFOLLOW never
 * opens what is already there, symlink or not. */
static int create_named(int dfd, const char *name, const char *data, size_t len, unsigned mode,
                        char *ret_tmp, size_t tmp_size)
{
        _cleanup_close_ int fd = -1;
        int r;

        for (int attempt = 0;; attempt++) {
                r = tmp_name(name, ret_tmp, tmp_size);
                if (r < 0)
                        return r;
                fd = openat(dfd, ret_tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY,
                            mode);
                if (fd >= 0)
                        break;
                if (errno != EEXIST || attempt >= 15)
                        return negative_errno();
        }
        /* the file is ours (O_EXCL created it): the mode exactly, whatever the umask */
        if (fchmod(fd, mode) < 0 || (r = write_all(fd, data, len)) < 0 || fsync(fd) < 0) {
                r = r < 0 ? r : negative_errno();
                (void) unlinkat(dfd, ret_tmp, 0);
                return r;
        }
        return 0;
}

/* The directory that holds path below dirfd, opened (with create, made
 * first as mkdir -p does), and path's last component. */
static int open_parent(int dirfd, const char *path, bool create, int *ret_dfd, const char **ret_name)
{
        char dir[PATH_MAX];
        int r, dfd;

        if (dirfd < 0)
                return -ENOENT;
        r = split_path(path, dir, sizeof(dir), ret_name);
        if (r < 0)
                return r;
        if (create)
                return root_mkdir_p_at(dirfd, dir, 0755, ret_dfd);
        dfd = root_openat(dirfd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0);
        if (dfd < 0)
                return dfd;
        *ret_dfd = dfd;
        return 0;
}

int write_file_atomic_at(int dirfd, const char *path, const char *data, size_t len, unsigned mode)
{
        char tmp[NAME_MAX + 1];
        _cleanup_close_ int dfd = -1;
        const char *name;
        int r;

        r = open_parent(dirfd, path, true, &dfd, &name);
        if (r < 0)
                return r;
        r = create_tmpfile(dfd, name, data, len, mode, tmp, sizeof(tmp));
        if (r == -EOPNOTSUPP)
                r = create_named(dfd, name, data, len, mode, tmp, sizeof(tmp));
        if (r < 0)
                return r;
        /* replaces whatever is at name, a symlink included, never writing through it */
        if (renameat(dfd, tmp, dfd, name) < 0) {
                r = negative_errno();
                (void) unlinkat(dfd, tmp, 0);
                return r;
        }
        /* the rename itself durable: a crash after this keeps the new file */
        if (fsync(dfd) < 0)
                return negative_errno();
        return 0;
}

int unlink_file_at(int dirfd, const char *path)
{
        _cleanup_close_ int dfd = -1;
        const char *name;
        int r;

        r = open_parent(dirfd, path, false, &dfd, &name);
        if (r < 0)
                return r;
        if (unlinkat(dfd, name, 0) < 0)
                return negative_errno();
        return 0;
}
