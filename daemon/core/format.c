/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Numbers for a person; see daemon/core/format.h. Moved from report.c so
 * the learned reserve's state file does not reach the --once printer. */

#include <inttypes.h>
#include <stdio.h>

#include "core/format.h"
#include "core/root.h"

const char *format_bytes(char *buf, size_t size, uint64_t bytes)
{
        static const char *units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
        double v = (double) bytes;
        unsigned u = 0;

        while (v >= 1024.0 && u + 1 < ELEMENTSOF(units)) {
                v /= 1024.0;
                u++;
        }
        if (u == 0)
                snprintf(buf, size, "%" PRIu64 " B", bytes);
        else
                snprintf(buf, size, v < 10 ? "%.1f %s" : "%.0f %s", v, units[u]);
        return buf;
}

const char *format_duration(char *buf, size_t size, usec_t usec)
{
        unsigned long long sec = usec / USEC_PER_SEC;

        if (sec < 120)
                snprintf(buf, size, "%llu s", sec);
        else if (sec < 7200)
                snprintf(buf, size, "%llu min", sec / 60);
        else if (sec < 2 * 86400)
                snprintf(buf, size, "%llu h", sec / 3600);
        else
                snprintf(buf, size, "%llu d", sec / 86400);
        return buf;
}
