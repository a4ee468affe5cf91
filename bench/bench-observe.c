/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bench-observe: the cost of one observe+assess pass (every per-tick source
 * read and parsed, measures computed), as fragd's daemon does each tick.
 *
 *   bench-observe [--root DIR] [--passes N] [--decide]
 *
 * --decide: the rest of the tick's work after assess as well, each timed on
 * its own: the levers' values read from their knobs (a dry-run registry,
 * reads only) and taken from the observation as the daemon does when no
 * knob changed since it was read, policy_decide() with the default
 * configuration, the explanation of every decided and held item.
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

#include "config/config.h"
#include "core/root.h"
#include "fragd/policy.h"
#include "knobs/lever.h"
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

static void report(const char *what, double *v, unsigned n)
{
        qsort(v, n, sizeof(double), cmp_double);
        printf("%s median=%.1f p10=%.1f p90=%.1f\n", what, v[n / 2] / 1e3, v[n / 10] / 1e3, v[n * 9 / 10] / 1e3);
}

int main(int argc, char **argv)
{
        const char *dir = "/";
        unsigned passes = 2000;
        Root *root;
        Observation *obs[2];
        Assessment *a;
        double *cpu, *wall, *dcpu = NULL, *ecpu = NULL, *lkcpu = NULL, *locpu = NULL;
        KnobRegistry *reg = NULL;
        LeverBaseline base = {};
        bool decide = false;
        FragdConfig *cfg = NULL;
        PolicyState *ps = NULL;
        Decision *d = NULL;
        unsigned items = 0, held = 0;
        size_t heap0, heap1;
        struct rusage ru;

        for (int i = 1; i < argc; i++) {
                if (strcmp(argv[i], "--root") == 0 && i + 1 < argc)
                        dir = argv[++i];
                else if (strcmp(argv[i], "--passes") == 0 && i + 1 < argc)
                        passes = (unsigned) strtoul(argv[++i], NULL, 10);
                else if (strcmp(argv[i], "--decide") == 0)
                        decide = true;
                else {
                        fprintf(stderr, "usage: bench-observe [--root DIR] [--passes N] [--decide]\n");
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
        if (decide) {
                cfg = calloc(1, sizeof(*cfg));
                ps = calloc(1, sizeof(*ps));
                d = calloc(1, sizeof(*d));
                dcpu = calloc(passes, sizeof(double));
                ecpu = calloc(passes, sizeof(double));
                lkcpu = calloc(passes, sizeof(double));
                locpu = calloc(passes, sizeof(double));
                if (!cfg || !ps || !d || !dcpu || !ecpu || !lkcpu || !locpu)
                        return 1;
                if (knob_registry_new(root, "/run/fragd", &knob_ops_dryrun, NULL, OWNERSHIP_RESPECT, &reg) < 0) {
                        fprintf(stderr, "bench-observe: no knob registry\n");
                        return 1;
                }
                config_defaults(cfg);
                policy_state_init(ps);
        }
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
                if (decide) {
                        LeverInput in[_LEVER_MAX];
                        char text[1024];

                        c0 = clock_nsec(CLOCK_PROCESS_CPUTIME_ID);
                        levers_from_knobs(reg, &cfg->policy, &base, NULL, in);
                        lkcpu[i] = clock_nsec(CLOCK_PROCESS_CPUTIME_ID) - c0;
                        c0 = clock_nsec(CLOCK_PROCESS_CPUTIME_ID);
                        levers_from_knobs(reg, &cfg->policy, &base, cur, in);
                        locpu[i] = clock_nsec(CLOCK_PROCESS_CPUTIME_ID) - c0;
                        c0 = clock_nsec(CLOCK_PROCESS_CPUTIME_ID);
                        (void) policy_decide(&cfg->policy, ps, a, in, cur->now_usec, d);
                        policy_state_update(ps, a, d, cur->now_usec);
                        dcpu[i] = clock_nsec(CLOCK_PROCESS_CPUTIME_ID) - c0;
                        c0 = clock_nsec(CLOCK_PROCESS_CPUTIME_ID);
                        for (unsigned k = 0; k < d->n_items; k++)
                                (void) decision_explain(&d->items[k], text, sizeof(text));
                        for (unsigned k = 0; k < d->n_held; k++)
                                (void) decision_explain_held(&d->held[k], text, sizeof(text));
                        ecpu[i] = clock_nsec(CLOCK_PROCESS_CPUTIME_ID) - c0;
                        items += d->n_items;
                        held += d->n_held;
                }
        }
        heap1 = mallinfo2().uordblks;
        qsort(cpu, passes, sizeof(double), cmp_double);
        qsort(wall, passes, sizeof(double), cmp_double);
        getrusage(RUSAGE_SELF, &ru);
        printf("root=%s passes=%u nodes=%u zones=%u\n", dir, passes, a->n_nodes, a->n_zones);
        printf("cpu_per_pass_us median=%.1f p10=%.1f p90=%.1f\n", cpu[passes / 2] / 1e3, cpu[passes / 10] / 1e3,
               cpu[passes * 9 / 10] / 1e3);
        printf("wall_per_pass_us median=%.1f\n", wall[passes / 2] / 1e3);
        if (decide) {
                printf("decisions per pass %.2f, held per pass %.2f\n", (double) items / passes,
                       (double) held / passes);
                report("levers_from_knobs_cpu_us", lkcpu, passes);
                report("levers_from_observation_cpu_us", locpu, passes);
                report("decide_cpu_us", dcpu, passes);
                report("explain_cpu_us", ecpu, passes);
        }
        printf("peak_rss_kib=%ld heap_in_use_bytes before=%zu after=%zu growth=%zd\n", ru.ru_maxrss, heap0, heap1,
               (ssize_t) heap1 - (ssize_t) heap0);
        knob_registry_free(reg);
        root_free(root);
        return heap1 > heap0 ? 1 : 0;
}
