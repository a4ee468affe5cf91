/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Numbers as text; see daemon/core/format.h. The rounded ones moved from
 * report.c (so the learned reserve's state file does not reach the --once
 * printer), the exact ones from config-values.c and exporter.c. */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/format.h"
#include "core/root.h"

/* binary units: units[i] is 1024^i bytes */
static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };

const char *format_bytes(char *buf, size_t size, uint64_t bytes)
{
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

const char *format_bytes_exact(char *buf, size_t size, uint64_t bytes)
{
        for (size_t i = ELEMENTSOF(units) - 1; i > 0; i--) {
                uint64_t unit = 1ULL << (10 * i);

                if (bytes != 0 && bytes % unit == 0) {
                        snprintf(buf, size, "%" PRIu64 "%s", bytes / unit, units[i]);
                        return buf;
                }
        }
        snprintf(buf, size, "%" PRIu64, bytes);
        return buf;
}

const char *format_duration_exact(char *buf, size_t size, usec_t usec)
{
        static const struct {
                const char *name;
                usec_t usec;
        } exact[] = {
                { "d", 24 * 60 * USEC_PER_MINUTE },
                { "h", 60 * USEC_PER_MINUTE },
                { "min", USEC_PER_MINUTE },
                { "s", USEC_PER_SEC },
                { "ms", USEC_PER_MSEC },
                { "us", 1 },
        };

        if (usec == 0) {
                snprintf(buf, size, "0");
                return buf;
        }
        for (size_t i = 0; i < ELEMENTSOF(exact); i++)
                if (usec % exact[i].usec == 0) {
                        snprintf(buf, size, "%llu%s", (unsigned long long) (usec / exact[i].usec), exact[i].name);
                        break;
                }
        return buf;
}

const char *format_double_shortest(char *buf, size_t size, double v)
{
        /* from %g's default precision up: below it, %g would give round
         * numbers an exponent ("2e+04" for 20000) */
        for (int prec = 6; prec <= 17; prec++) {
                snprintf(buf, size, "%.*g", prec, v);
                if (strtod(buf, NULL) == v)
                        break;
        }
        return buf;
}
