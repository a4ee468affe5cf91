/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Cleanup attributes for the daemon's own resources (memory, fds, FILEs),
 * handing ownership out of them, and errno as a return code. Daemon only:
 * policy/ allocates nothing and opens nothing (docs/design.md "Purity"). */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))

static inline void freep(void *p) { free(*(void **) p); }
static inline void closep(int *fd)
{
        if (*fd >= 0) {
                int saved = errno;
                (void) close(*fd);
                errno = saved;
        }
}
static inline void fclosep(FILE **f)
{
        if (*f)
                (void) fclose(*f);
}

#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)
#define _cleanup_fclose_ _cleanup_(fclosep)

/* Hand ownership out of a _cleanup_ variable. */
#define TAKE_PTR(p)                          \
        ({                                   \
                __typeof__(p) _p_ = (p);     \
                (p) = NULL;                  \
                _p_;                         \
        })
#define TAKE_FD(fd)                          \
        ({                                   \
                int _fd_ = (fd);             \
                (fd) = -1;                   \
                _fd_;                        \
        })

#define DEFINE_TRIVIAL_CLEANUP_FUNC(type, func)   \
        static inline void func##p(type *p)       \
        {                                         \
                if (*p)                           \
                        *p = func(*p);            \
        }

static inline int negative_errno(void)
{
        return errno > 0 ? -errno : -EIO;
}
