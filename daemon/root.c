/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Root directory handling and whole-file I/O relative to a directory fd. */

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "fragd/macro.h"
#include "fragd/root.h"

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
        r->proc_fd = openat(r->root_fd, "proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        r->sys_fd = openat(r->root_fd, "sys", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        r->is_host = strcmp(dir, "/") == 0;
        ps = sysconf(_SC_PAGESIZE);
        r->page_size = page_size ? page_size : (ps > 0 ? (unsigned) ps : 4096);
        *ret = r;
        return 0;
}

int read_file_at(int dirfd, const char *path, char *buf, size_t size)
{
        _cleanup_close_ int fd = -1;
        size_t len = 0;

        if (size == 0)
                return -EINVAL;
        if (dirfd < 0)
                return -ENOENT;
        fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return negative_errno();
        for (;;) {
                ssize_t n;

                if (len + 1 >= size)
                        return -EFBIG;
                n = read(fd, buf + len, size - 1 - len);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (n == 0)
                        break;
                len += (size_t) n;
        }
        buf[len] = '\0';
        return len > INT_MAX ? -EFBIG : (int) len;
}

int read_file_alloc_at(int dirfd, const char *path, char **ret_buf, size_t *ret_len)
{
        _cleanup_close_ int fd = -1;
        _cleanup_free_ char *buf = NULL;
        size_t len = 0, cap = 16384;

        if (dirfd < 0)
                return -ENOENT;
        fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return negative_errno();
        buf = malloc(cap);
        if (!buf)
                return -ENOMEM;
        for (;;) {
                ssize_t n;

                if (len + 1 >= cap) {
                        char *nb;

                        if (cap >= 64u << 20)
                                return -EFBIG;
                        nb = realloc(buf, cap * 2);
                        if (!nb)
                                return -ENOMEM;
                        buf = nb;
                        cap *= 2;
                }
                n = read(fd, buf + len, cap - 1 - len);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (n == 0)
                        break;
                len += (size_t) n;
        }
        buf[len] = '\0';
        *ret_buf = TAKE_PTR(buf);
        if (ret_len)
                *ret_len = len;
        return 0;
}

int write_file_at(int dirfd, const char *path, const char *value)
{
        _cleanup_close_ int fd = -1;
        size_t len = strlen(value);
        ssize_t n;

        if (dirfd < 0)
                return -ENOENT;
        fd = openat(dirfd, path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return negative_errno();
        n = write(fd, value, len);
        if (n < 0)
                return negative_errno();
        if ((size_t) n != len)
                return -EIO;
        return 0;
}

static int mkdir_parents_at(int dirfd, const char *path)
{
        char buf[PATH_MAX];
        char *p;

        if (strlen(path) >= sizeof(buf))
                return -ENAMETOOLONG;
        strcpy(buf, path);
        for (p = buf + 1; (p = strchr(p, '/')); p++) {
                *p = '\0';
                if (mkdirat(dirfd, buf, 0755) < 0 && errno != EEXIST)
                        return negative_errno();
                *p = '/';
        }
        return 0;
}

static int write_replace(int dirfd, const char *path, const char *data, size_t len, unsigned mode, bool durable)
{
        char tmp[PATH_MAX];
        _cleanup_close_ int fd = -1;
        int r;

        if (dirfd < 0)
                return -ENOENT;
        r = snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int) getpid());
        if (r < 0 || (size_t) r >= sizeof(tmp))
                return -ENAMETOOLONG;
        r = mkdir_parents_at(dirfd, path);
        if (r < 0)
                return r;
        fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, mode);
        if (fd < 0)
                return negative_errno();
        while (len > 0) {
                ssize_t n = write(fd, data, len);

                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        r = negative_errno();
                        goto fail;
                }
                data += n;
                len -= (size_t) n;
        }
        if (fchmod(fd, mode) < 0 || (durable && fsync(fd) < 0)) {
                r = negative_errno();
                goto fail;
        }
        if (renameat(dirfd, tmp, dirfd, path) < 0) {
                r = negative_errno();
                goto fail;
        }
        return 0;
fail:
        (void) unlinkat(dirfd, tmp, 0);
        return r;
}

int write_file_atomic_at(int dirfd, const char *path, const char *data, size_t len, unsigned mode)
{
        return write_replace(dirfd, path, data, len, mode, true);
}
