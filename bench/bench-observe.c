/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bench-observe: the cost of one observe+assess pass (every per-tick source
 * read and parsed, measures computed), as fragd's daemon does each tick.
 *
 *   bench-observe [--root DIR] [--passes N]
 *
 * Prints per-pass CPU time (median, p10, p90 of CLOCK_PROCESS_CPUTIME_ID),
 * wall time median, peak RSS, and the heap in use before and after the
 * passes (mallinfo2), which must not grow. */

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "core/root.h"
#include "fragd/metrics.h"
#include "fragd/obs.h"
#include "sources/observe.h"

static usec_t clock_usec(clockid_t c)
{
        struct timespec ts;
        clock_gettime(c, &ts);
        return (usec_t) ts.tv_sec * USEC_PER_SEC + (usec_t) ts.tv_nsec / 1000;
}

static double clock_nsec(clockid_t c)
{
        struct timespec ts;
        clock_gettime(c, &ts);
        return (double) ts.tv_sec * 1e9 + (double) ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *) a, y = *(const double *) b;
        return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
        const char *dir = "/";
        unsigned passes = 2000;
        Root *root;
        Observation *obs[2];
        Assessment *a;
        double *cpu, *wall;
        size_t heap0, heap1;
        struct rusage ru;

        for (int i = 1; i < argc; i++) {
                if (strcmp(argv[i], "--root") == 0 && i + 1 < argc)
                        dir = argv[++i];
                else if (strcmp(argv[i], "--passes") == 0 && i + 1 < argc)
                        passes = (unsigned) strtoul(argv[++i], NULL, 10);
                else {
                        fprintf(stderr, "usage: bench-observe [--root DIR] [--passes N]\n");
                        return 2;
                }
        }
        if (passes < 10)
                passes = 10;
        if (root_open(dir, 0, &root) < 0) {
                fprintf(stderr, "bench-observe: cannot open '%s'\n", dir);
                return 1;
        }
        obs[0] = calloc(1, sizeof(Observation));
        obs[1] = calloc(1, sizeof(Observation));
        a = calloc(1, sizeof(*a));
        cpu = calloc(passes, sizeof(double));
        wall = calloc(passes, sizeof(double));
        if (!obs[0] || !obs[1] || !a || !cpu || !wall)
                return 1;
        /* warm-up pass, then measure the heap */
        if (observation_read(root, OBS_PER_TICK, clock_usec(CLOCK_MONOTONIC), obs[0]) < 0) {
                fprintf(stderr, "bench-observe: no buddyinfo under '%s'\n", dir);
                return 1;
        }
        heap0 = mallinfo2().uordblks;
        for (unsigned i = 0; i < passes; i++) {
                Observation *cur = obs[(i + 1) % 2], *prev = obs[i % 2];
                double c0 = clock_nsec(CLOCK_PROCESS_CPUTIME_ID), w0 = clock_nsec(CLOCK_MONOTONIC);

                (void) observation_read(root, OBS_PER_TICK, clock_usec(CLOCK_MONOTONIC), cur);
                (void) assess(cur, prev, a);
                cpu[i] = clock_nsec(CLOCK_PROCESS_CPUTIME_ID) - c0;
                wall[i] = clock_nsec(CLOCK_MONOTONIC) - w0;
        }
        heap1 = mallinfo2().uordblks;
        qsort(cpu, passes, sizeof(double), cmp_double);
        qsort(wall, passes, sizeof(double), cmp_double);
        getrusage(RUSAGE_SELF, &ru);
        printf("root=%s passes=%u nodes=%u zones=%u\n", dir, passes, a->n_nodes, a->n_zones);
        printf("cpu_per_pass_us median=%.1f p10=%.1f p90=%.1f\n", cpu[passes / 2] / 1e3, cpu[passes / 10] / 1e3,
               cpu[passes * 9 / 10] / 1e3);
        printf("wall_per_pass_us median=%.1f\n", wall[passes / 2] / 1e3);
        printf("peak_rss_kib=%ld heap_in_use_bytes before=%zu after=%zu growth=%zd\n", ru.ru_maxrss, heap0, heap1,
               (ssize_t) heap1 - (ssize_t) heap0);
        root_free(root);
        return heap1 > heap0 ? 1 : 0;
}
