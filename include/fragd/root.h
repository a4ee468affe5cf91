/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Root: the directory tree fragd reads and writes. "/" on a real host, a
 * fixture tree in tests (--root DIR). Every path fragd touches is opened
 * relative to one of these descriptors, never through a global path string. */

#include <stdbool.h>

typedef struct Root {
        char *path;      /* as given, for messages ("/" by default) */
        int root_fd;     /* the root itself: etc/, run/, var/ are opened below it */
        int proc_fd;     /* <root>/proc, -1 if missing */
        int sys_fd;      /* <root>/sys, -1 if missing */
        unsigned page_size; /* bytes per base page (sysconf, or --page-size) */
        bool is_host;    /* path is "/" */
} Root;

/* Opens DIR (NULL means "/"). Missing proc/ or sys/ below it is not an error:
 * the sources that need them report -ENOENT. */
int root_open(const char *dir, unsigned page_size, Root **ret);
Root *root_free(Root *r);

/* Reads a whole small file relative to dirfd into buf (NUL-terminated).
 * Returns the length, -EFBIG when it did not fit, or -errno. */
int read_file_at(int dirfd, const char *path, char *buf, size_t size);

/* Reads a file of unknown size into a malloc'ed, NUL-terminated buffer. */
int read_file_alloc_at(int dirfd, const char *path, char **ret_buf, size_t *ret_len);

/* Writes value (no newline needed) to an existing file, as sysctl(8) does. */
int write_file_at(int dirfd, const char *path, const char *value);

/* Writes a file atomically: temp file in the same directory, fsync, rename.
 * Creates the parent directory (0755) when missing. */
int write_file_atomic_at(int dirfd, const char *path, const char *data, size_t len, unsigned mode);
