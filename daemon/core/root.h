/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Root: the directory tree fragd reads and writes. "/" on a real host, a
 * fixture tree in tests (--root DIR). Every path fragd touches is opened
 * relative to one of these descriptors, never through a global path string. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/cleanup.h"
#include "fragd/macro.h"

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
DEFINE_TRIVIAL_CLEANUP_FUNC(Root *, root_free);

/* How root_openat() and the readers below resolve a path below dirfd. Never
 * outside dirfd: by default dirfd is taken as the root (an absolute symlink
 * restarts at dirfd, ".." stops at it: chroot(2) semantics, openat2's
 * RESOLVE_IN_ROOT). */
#define ROOT_BENEATH  (1u << 0) /* refuse absolute or escaping symlinks and ".." above dirfd (-EXDEV) */
#define ROOT_OWN_FILE (1u << 1) /* a file fragd wrote: the last component is no symlink (-ELOOP), a
                                 * regular file (-EBADFD, -EISDIR), opened without blocking */

/* openat() that never leaves dirfd: openat2(RESOLVE_IN_ROOT or
 * RESOLVE_BENEATH, RESOLVE_NO_MAGICLINKS) on 5.6+ kernels, else a walk one
 * component at a time (O_NOFOLLOW opens, symlinks read and resolved by fragd
 * the same way). Returns the fd or -errno (errno set too, as after openat). */
int root_openat(int dirfd, const char *path, int flags, mode_t mode, unsigned how_flags);

/* Tests only: take the fallbacks (no openat2, no O_TMPFILE) and choose the
 * random temp names. */
extern bool root_test_no_openat2;
extern bool root_test_no_tmpfile;
extern uint64_t (*root_test_random)(void);

/* Reads a whole small file relative to dirfd into buf (NUL-terminated).
 * Returns the length, -EFBIG when it did not fit, or -errno. A relative path
 * is resolved inside dirfd (root_openat(), how_flags: ROOT_*); an absolute
 * one is the caller's host path (fragd -c FILE), opened as openat(2) does.
 * Only a regular file is read (-EBADFD, -EISDIR otherwise), opened without
 * blocking, so a FIFO planted where a kernel file should be never hangs a
 * tick. read_file_at() and read_file_alloc_at() resolve with ROOT_BENEATH:
 * a kernel file that is a symbolic link out of dirfd is never read (-EXDEV)
 * and is named once in a warning. */
int read_file_at(int dirfd, const char *path, char *buf, size_t size);
int read_file_at_full(int dirfd, const char *path, unsigned how_flags, char *buf, size_t size);

/* Reads an open fd to its end into a malloc'ed, NUL-terminated buffer of at
 * most max bytes: -EFBIG when there is more (a file that grew after its
 * fstat), -ENOMEM, or -errno. ret_len may be NULL. */
int read_fd_alloc(int fd, size_t max, char **ret_buf, size_t *ret_len);

/* Reads a whole file below dirfd (opened as read_file_at_full() does) of at
 * most max bytes into a malloc'ed, NUL-terminated buffer: -EFBIG when it is
 * larger (by its size, or grown while read), -ENOMEM, or -errno. */
int read_file_alloc_at_max(int dirfd, const char *path, unsigned how_flags, size_t max, char **ret_buf,
                           size_t *ret_len);
/* The same for the first max bytes of a file of any size (the rest unread). */
int read_file_head_at(int dirfd, const char *path, unsigned how_flags, size_t max, char **ret_buf,
                      size_t *ret_len);

/* Reads a file of unknown size into a malloc'ed, NUL-terminated buffer. */
int read_file_alloc_at(int dirfd, const char *path, char **ret_buf, size_t *ret_len);
int read_file_alloc_at_full(int dirfd, const char *path, unsigned how_flags, char **ret_buf,
                            size_t *ret_len);

/* Writes value (no newline needed) to an existing file, as sysctl(8) does.
 * ROOT_BENEATH: a symlink out of dirfd is refused (-EXDEV). */
int write_file_at(int dirfd, const char *path, const char *value);

/* Opens directory PATH below dirfd, creating the components that are missing
 * (mkdirat, MODE less the umask) and opening each one it creates back with
 * O_NOFOLLOW|O_DIRECTORY: a symlink raced in at that name is refused.
 * Components that exist are resolved inside dirfd as root_openat() does (an
 * absolute symlink restarts at dirfd), so nothing is created outside it.
 * On success *ret_fd is an O_DIRECTORY fd of PATH. */
int root_mkdir_p_at(int dirfd, const char *path, unsigned mode, int *ret_fd);

/* Writes a file atomically, path resolved with dirfd as the root: a new file
 * in the same directory (O_TMPFILE linked in under a random name, or a random
 * name created with O_CREAT|O_EXCL|O_NOFOLLOW where O_TMPFILE is not
 * supported), mode set on that new file only, fsync, rename over path (a
 * symlink at path is replaced, never written through), fsync of the
 * directory. Creates missing parent directories (0755); a component it
 * creates is opened back with O_NOFOLLOW. */
int write_file_atomic_at(int dirfd, const char *path, const char *data, size_t len, unsigned mode);

/* Removes a file, its directory resolved with dirfd as the root (a symlink at
 * the name itself is removed, not followed). -ENOENT when missing. */
int unlink_file_at(int dirfd, const char *path);
