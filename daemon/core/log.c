/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"

static int max_level = LOG_INFO;
static int prefix = -1; /* -1: decide from $JOURNAL_STREAM and stderr */

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

void log_set_prefix_auto(void)
{
        prefix = -1;
}

/* Decimal digits up to stop, no sign, no blank, no overflow. */
static bool parse_decimal(const char **p, char stop, unsigned long long *ret)
{
        unsigned long long v = 0;
        const char *q = *p;

        if (*q < '0' || *q > '9')
                return false;
        for (; *q >= '0' && *q <= '9'; q++) {
                if (v > (~0ULL - (unsigned) (*q - '0')) / 10)
                        return false;
                v = v * 10 + (unsigned) (*q - '0');
        }
        if (*q != stop)
                return false;
        *p = q;
        *ret = v;
        return true;
}

/* systemd sets JOURNAL_STREAM=DEV:INODE (both decimal) to the stream it
 * connected stdout/stderr to, and documents comparing it with fstat(): a
 * child that inherits the variable but writes to a redirected file, or
 * `fragd --once 2>log` run from a unit's shell, must not prefix. */
bool log_journal_stream_matches(const char *env, int fd)
{
        unsigned long long dev, ino;
        struct stat st;

        if (!env || fd < 0)
                return false;
        if (!parse_decimal(&env, ':', &dev))
                return false;
        env++;
        if (!parse_decimal(&env, '\0', &ino))
                return false;
        if (fstat(fd, &st) < 0)
                return false;
        return (unsigned long long) st.st_dev == dev && (unsigned long long) st.st_ino == ino;
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
                prefix = log_journal_stream_matches(getenv("JOURNAL_STREAM"), STDERR_FILENO);
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
