/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fragd/log.h"

static int max_level = LOG_INFO;
static int prefix = -1; /* -1: decide from $JOURNAL_STREAM */

void log_set_max_level(int level)
{
        max_level = level;
}

int log_get_max_level(void)
{
        return max_level;
}

void log_set_prefix(bool on)
{
        prefix = on;
}

int log_level_from_string(const char *s)
{
        static const struct {
                const char *name;
                int level;
        } t[] = {
                { "debug", LOG_DEBUG }, { "info", LOG_INFO },       { "notice", LOG_NOTICE },
                { "warning", LOG_WARNING }, { "err", LOG_ERR }, { "error", LOG_ERR },
        };
        for (size_t i = 0; i < ELEMENTSOF(t); i++)
                if (strcmp(s, t[i].name) == 0)
                        return t[i].level;
        return -EINVAL;
}

int log_internal(int level, int err, const char *file, int line, const char *fmt, ...)
{
        char msg[2048];
        va_list ap;
        int saved = errno;

        if (err < 0)
                err = -err;
        if (level > max_level)
                return -err;
        if (prefix < 0)
                prefix = getenv("JOURNAL_STREAM") != NULL;
        errno = err;
        va_start(ap, fmt);
        (void) vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        if (prefix)
                fprintf(stderr, "<%d>%s\n", level, msg);
        else if (max_level >= LOG_DEBUG) {
                /* debug on a terminal or file: the monotonic time (seconds
                 * since boot) lines the decisions up with other logs */
                struct timespec ts = { 0 };

                (void) clock_gettime(CLOCK_MONOTONIC, &ts);
                fprintf(stderr, "fragd[%lld.%03ld %s:%d]: %s\n", (long long) ts.tv_sec, ts.tv_nsec / 1000000L,
                        file, line, msg);
        }
        else
                fprintf(stderr, "fragd: %s\n", msg);
        errno = saved;
        return -err;
}
