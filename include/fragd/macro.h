/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Small helpers shared by every module: cleanup attributes, array sizes,
 * time units. Nothing here does I/O. */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

typedef uint64_t usec_t;

#define USEC_PER_MSEC ((usec_t) 1000ULL)
#define USEC_PER_SEC ((usec_t) 1000000ULL)
#define USEC_PER_MINUTE ((usec_t) (60ULL * USEC_PER_SEC))
#define NSEC_PER_USEC 1000ULL
#define USEC_INFINITY ((usec_t) UINT64_MAX)

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define CLAMP(x, lo, hi) ((x) < (lo) ? (lo) : (x) > (hi) ? (hi) : (x))

#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _cleanup_(f) __attribute__((cleanup(f)))
#define _warn_unused_result_ __attribute__((warn_unused_result))

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
