/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Small helpers shared by every module, policy/ included: time units, array
 * sizes, attributes. Nothing here declares I/O; the daemon's cleanup helpers
 * (free, close, fclose) are daemon/core/cleanup.h. */

#include <errno.h>
#include <stdint.h>

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

/* a - b, or 0 when b is larger: the growth of a count that may also shrink */
static inline uint64_t sub0(uint64_t a, uint64_t b)
{
        return a > b ? a - b : 0;
}

#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _warn_unused_result_ __attribute__((warn_unused_result))
