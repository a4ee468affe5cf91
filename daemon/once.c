/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fragd --once: observe this host, assess, decide, print; writes nothing. */

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "fragd/log.h"
#include "fragd/main-internal.h"
#include "fragd/metrics.h"
#include "fragd/obs.h"
#include "fragd/report.h"
#include "fragd/root.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(Root *, root_free);

static void sleep_usec(usec_t u)
{
        struct timespec ts = { (time_t) (u / USEC_PER_SEC), (long) (u % USEC_PER_SEC) * 1000 };

        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

int run_once(const FragdArgs *a)
{
        _cleanup_(root_freep) Root *root = NULL;
        _cleanup_free_ Observation *cur = NULL, *prev = NULL;
        _cleanup_free_ Assessment *as = NULL;
        ReportInput in = {};
        int r;

        r = root_open(a->root, a->page_size, &root);
        if (r < 0) {
                log_error_errno(r, "Cannot open root directory '%s': %m", a->root);
                return EXIT_FAILURE;
        }
        cur = calloc(1, sizeof(*cur));
        as = calloc(1, sizeof(*as));
        if (!cur || !as)
                return log_error("Out of memory"), EXIT_FAILURE;

        if (a->interval_usec) {
                prev = calloc(1, sizeof(*prev));
                if (!prev)
                        return EXIT_FAILURE;
                r = observation_read(root, OBS_PER_TICK, now_monotonic_usec(), prev);
                if (r < 0)
                        goto no_buddyinfo;
                sleep_usec(a->interval_usec);
        }
        r = observation_read(root, OBS_ALL, now_monotonic_usec(), cur);
        if (r < 0)
                goto no_buddyinfo;
        r = assess(cur, prev, as);
        if (r < 0) {
                log_error_errno(r, "Cannot assess the observation: %m");
                return EXIT_FAILURE;
        }

        in.root_path = root->path;
        in.version = FRAGD_VERSION;
        in.cur = cur;
        in.prev = prev;
        in.a = as;
        in.dry_run = true;
        if (strcmp(a->format, "json") == 0)
                r = report_json(stdout, &in);
        else
                r = report_text(stdout, &in);
        if (r < 0 || fflush(stdout) != 0) {
                log_error("Cannot write the report to standard output");
                return EXIT_FAILURE;
        }
        return 0;

no_buddyinfo:
        log_error_errno(r, "Cannot read '%s/proc/buddyinfo': %m. fragd needs it to see free memory by order.",
                        strcmp(root->path, "/") == 0 ? "" : root->path);
        return EXIT_PRECONDITION;
}

int run_features(const FragdArgs *a)
{
        (void) a;
        printf("once\n");
        return 0;
}
