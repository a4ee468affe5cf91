/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fragd-workload-probe: runs the workload module on its own for a few ticks
 * and prints per-cgroup attribution (the VM scenario tests/vm/guest/scenarios/workload.sh
 * uses it until `fragd --once` prints the same). A poll() loop stands in for
 * the daemon's sd-event loop. Writes nothing unless --psi arms triggers
 * (a trigger is not a setting: it dies with the fd) or --collapse-cpu-ms
 * lets it collapse memory of a thp=always cgroup. */

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/log.h"
#include "workload/workload.h"

static usec_t now_usec(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (usec_t) ts.tv_sec * USEC_PER_SEC + (usec_t) ts.tv_nsec / NSEC_PER_USEC;
}

static void usage(FILE *f)
{
        fprintf(f, "Usage: fragd-workload-probe [--root DIR] --cgroup PATH[:never|madvise|always[+collapse]]...\n"
                   "       [--interval SEC] [--count N] [--every] [--json] [--budget-ms N]\n"
                   "       [--psi THRESHOLD_MS/WINDOW_MS] [--collapse-cpu-ms N] [--collapse-max-mb N]\n"
                   "       [--thp-scan SEC] [--dry-run] [-v]\n");
}

static int parse_cgroup(const char *arg, CgroupConfig *c)
{
        const char *colon = strchr(arg, ':');
        size_t n = colon ? (size_t) (colon - arg) : strlen(arg);

        if (n >= sizeof(c->path))
                return -ENAMETOOLONG;
        memcpy(c->path, arg, n);
        c->path[n] = '\0';
        c->watch = true;
        c->thp = CGROUP_THP_INHERIT;
        if (!colon)
                return 0;
        colon++;
        if (strcmp(colon, "never") == 0)
                c->thp = CGROUP_THP_NEVER;
        else if (strcmp(colon, "madvise") == 0)
                c->thp = CGROUP_THP_MADVISE;
        else if (strcmp(colon, "always") == 0)
                c->thp = CGROUP_THP_ALWAYS;
        else if (strcmp(colon, "always+collapse") == 0) {
                c->thp = CGROUP_THP_ALWAYS;
                c->collapse = true;
        } else
                return -EINVAL;
        return 0;
}

int main(int argc, char **argv)
{
        static const struct option opts[] = {
                { "root", required_argument, NULL, 'r' },    { "cgroup", required_argument, NULL, 'c' },
                { "interval", required_argument, NULL, 'i' }, { "count", required_argument, NULL, 'n' },
                { "every", no_argument, NULL, 'e' },         { "json", no_argument, NULL, 'j' },
                { "budget-ms", required_argument, NULL, 'b' }, { "psi", required_argument, NULL, 'p' },
                { "collapse-cpu-ms", required_argument, NULL, 'C' },
                { "collapse-max-mb", required_argument, NULL, 'M' },
                { "thp-scan", required_argument, NULL, 't' },
                { "dry-run", no_argument, NULL, 'd' },       { "verbose", no_argument, NULL, 'v' },
                { "help", no_argument, NULL, 'h' },          {},
        };
        FragdConfig *cfg = calloc(1, sizeof(*cfg));
        WorkloadOptions opt = WORKLOAD_OPTIONS_DEFAULT;
        const char *rootdir = "/";
        unsigned count = 3, interval = 1, psi_t = 0, psi_w = 0;
        uint64_t budget_ms = 0, cpu_ms = 0, max_mb = 64;
        bool every = false, json = false;
        Root *root = NULL;
        Workload *w = NULL;
        int c, r;

        if (!cfg)
                return 1;
        while ((c = getopt_long(argc, argv, "r:c:i:n:ejb:p:C:M:t:dvh", opts, NULL)) >= 0) {
                switch (c) {
                case 'r':
                        rootdir = optarg;
                        break;
                case 'c':
                        if (cfg->n_cgroups >= FRAGD_MAX_CGROUPS || parse_cgroup(optarg, &cfg->cgroups[cfg->n_cgroups]) < 0) {
                                fprintf(stderr, "bad --cgroup '%s'\n", optarg);
                                return 64;
                        }
                        cfg->n_cgroups++;
                        break;
                case 'i':
                        interval = (unsigned) strtoul(optarg, NULL, 10);
                        break;
                case 'n':
                        count = (unsigned) strtoul(optarg, NULL, 10);
                        break;
                case 'e':
                        every = true;
                        break;
                case 'j':
                        json = true;
                        break;
                case 'b':
                        budget_ms = strtoull(optarg, NULL, 10);
                        break;
                case 'p':
                        if (sscanf(optarg, "%u/%u", &psi_t, &psi_w) != 2) {
                                fprintf(stderr, "bad --psi '%s' (THRESHOLD_MS/WINDOW_MS)\n", optarg);
                                return 64;
                        }
                        break;
                case 'C':
                        cpu_ms = strtoull(optarg, NULL, 10);
                        break;
                case 'M':
                        max_mb = strtoull(optarg, NULL, 10);
                        break;
                case 't': /* THP_enabled scan of the members (default 30 s) */
                        opt.thp_status_interval_usec = strtoull(optarg, NULL, 10) * USEC_PER_SEC;
                        break;
                case 'd':
                        opt.dry_run = true;
                        break;
                case 'v':
                        log_set_max_level(LOG_DEBUG);
                        break;
                case 'h':
                        usage(stdout);
                        return 0;
                default:
                        usage(stderr);
                        return 64;
                }
        }
        if (cfg->n_cgroups == 0 || interval == 0) {
                usage(stderr);
                return 64;
        }
        for (unsigned i = 0; i < cfg->n_cgroups; i++) {
                cfg->cgroups[i].stall_budget_usec = budget_ms * USEC_PER_MSEC;
                cfg->cgroups[i].collapse_cpu_budget_usec = cpu_ms * USEC_PER_MSEC;
                cfg->cgroups[i].collapse_max_bytes_per_tick = max_mb << 20;
                cfg->cgroups[i].psi_trigger_threshold_usec = psi_t * 1000;
                cfg->cgroups[i].psi_trigger_window_usec = psi_w * 1000;
                if (cfg->cgroups[i].collapse && cpu_ms == 0)
                        cfg->cgroups[i].collapse = false; /* no CPU budget: no collapse */
        }
        r = root_open(rootdir, 0, &root);
        if (r < 0) {
                fprintf(stderr, "cannot open root '%s': %s\n", rootdir, strerror(-r));
                return 1;
        }
        r = workload_new(root, cfg, &opt, &w);
        if (r < 0) {
                fprintf(stderr, "workload: %s\n", strerror(-r));
                return 1;
        }
        for (unsigned tick = 0; tick < count; tick++) {
                usec_t deadline = now_usec() + (tick == 0 ? 0 : interval * USEC_PER_SEC);
                WorkloadTickResult tr;

                for (;;) {
                        struct pollfd p[3 + FRAGD_MAX_CGROUPS];
                        unsigned np = 0, ncg = workload_n_cgroups(w);
                        usec_t now = now_usec();
                        int fds[3] = { workload_taskstats_fd(w), workload_proc_events_fd(w), workload_collapse_fd(w) };

                        if (now >= deadline)
                                break;
                        for (unsigned k = 0; k < 3; k++)
                                p[np++] = (struct pollfd) { .fd = fds[k], .events = POLLIN };
                        for (unsigned k = 0; k < ncg; k++)
                                p[np++] = (struct pollfd) { .fd = workload_psi_fd(w, k), .events = POLLPRI };
                        r = poll(p, np, (int) ((deadline - now) / 1000) + 1);
                        if (r <= 0)
                                continue;
                        if (p[0].revents)
                                (void) workload_on_taskstats(w);
                        if (p[1].revents)
                                (void) workload_on_proc_events(w);
                        if (p[2].revents)
                                (void) workload_on_collapse(w);
                        for (unsigned k = 0; k < ncg; k++)
                                if (p[3 + k].revents && workload_on_psi(w, k, (uint32_t) p[3 + k].revents) == -ENODEV)
                                        workload_release_psi(w, k);
                }
                (void) workload_tick(w, now_usec(), true, &tr);
                if (every || tick + 1 == count) {
                        if (json)
                                workload_report_json(w, stdout);
                        else
                                workload_report(w, stdout);
                        fflush(stdout);
                }
        }
        /* let a running collapse finish and be accounted */
        if (workload_collapse_fd(w) >= 0) {
                struct pollfd p = { .fd = workload_collapse_fd(w), .events = POLLIN };

                if (poll(&p, 1, 10000) > 0) {
                        (void) workload_on_collapse(w);
                        if (json)
                                workload_report_json(w, stdout);
                        else
                                workload_report(w, stdout);
                }
        }
        workload_free(w);
        root_free(root);
        free(cfg);
        return 0;
}
