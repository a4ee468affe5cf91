/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <time.h>

#include "core/clock.h"

usec_t now_monotonic_usec(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (usec_t) ts.tv_sec * USEC_PER_SEC + (usec_t) ts.tv_nsec / NSEC_PER_USEC;
}

usec_t now_realtime_usec(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        return (usec_t) ts.tv_sec * USEC_PER_SEC + (usec_t) ts.tv_nsec / NSEC_PER_USEC;
}

usec_t thread_cpu_usec(void)
{
        struct timespec ts;

        if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
                return 0;
        return (usec_t) ts.tv_sec * USEC_PER_SEC + (usec_t) ts.tv_nsec / NSEC_PER_USEC;
}
