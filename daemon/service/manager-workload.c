/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The daemon's watched cgroups: per-cgroup PSI trigger sources, taskstats,
 * proc connector and collapse-worker sources, the per-tick workload step that
 * fills Assessment.workloads, and the opt-in delay accounting: see
 * daemon/service/manager-workload.h. */

#include <inttypes.h>
#include <string.h>
#include <sys/epoll.h>

#include "core/cleanup.h"
#include "core/log.h"
#include "service/manager-workload.h"

/* ---- workloads ----------------------------------------------------------------------- */

static const char *workload_path(const ManagerWorkload *w, unsigned i)
{
        const char *p = i < w->n_views ? w->views[i].path : NULL;

        return !p ? "?" : *p ? p : "/";
}

/* Drops the event source first, then lets the workload close the fd. */
static void workload_psi_drop(ManagerWorkload *w, unsigned i)
{
        w->psi[i].source = sd_event_source_disable_unref(w->psi[i].source);
        workload_release_psi(w->workload, i);
}

static int on_workload_psi(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
        WorkloadPsiSlot *slot = userdata;
        ManagerWorkload *w = slot->owner;
        int r;

        r = workload_on_psi(w->workload, slot->index, revents);
        if (r == -ENODEV) {
                /* the cgroup is gone: the next tick's refresh picks it up again */
                workload_psi_drop(w, slot->index);
                return 0;
        }
        if (r <= 0)
                return 0;
        log_debug("memory pressure event in cgroup '%s'", workload_path(w, slot->index));
        return w->on_pressure ? w->on_pressure(w->userdata) : 0;
}

static void workload_psi_add(ManagerWorkload *w, unsigned i)
{
        WorkloadPsiSlot *slot = &w->psi[i];
        int fd = workload_psi_fd(w->workload, i), r;

        if (fd < 0)
                return;
        slot->source = sd_event_source_disable_unref(slot->source);
        r = sd_event_add_io(w->event, &slot->source, fd, EPOLLPRI, on_workload_psi, slot);
        if (r < 0) {
                slot->source = NULL;
                log_warning_errno(r, "Cannot watch the PSI trigger of cgroup '%s' (%m); its pressure is read "
                                  "every tick instead", workload_path(w, i));
        }
}

/* An event listener that failed for good (not -EAGAIN, -EINTR): say so and
 * what takes its place, and stop its event source. */
static void listener_check(sd_event_source *s, int r, const char *what, const char *instead)
{
        if (r < 0 && r != -EAGAIN && r != -EINTR) {
                log_warning_errno(r, "%s failed (%m); %s from now on", what, instead);
                (void) sd_event_source_set_enabled(s, SD_EVENT_OFF);
        }
}

static int on_workload_taskstats(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
        ManagerWorkload *w = userdata;

        listener_check(s, workload_on_taskstats(w->workload), "The taskstats exit listener",
                       "exited processes are found by queries");
        return 0;
}

static int on_workload_proc_events(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
        ManagerWorkload *w = userdata;

        listener_check(s, workload_on_proc_events(w->workload), "The proc connector",
                       "membership comes from cgroup.procs scans");
        return 0;
}

static int on_workload_collapse(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
        ManagerWorkload *w = userdata;

        (void) workload_on_collapse(w->workload);
        return 0;
}

static void workload_add_io(ManagerWorkload *w, sd_event_source **ret, int fd, sd_event_io_handler_t cb, const char *what)
{
        int r;

        if (fd < 0)
                return;
        r = sd_event_add_io(w->event, ret, fd, EPOLLIN, cb, w);
        if (r < 0) {
                *ret = NULL;
                log_warning_errno(r, "Cannot watch the %s: %m, ignoring", what);
        }
}

void manager_workload_stop(ManagerWorkload *w)
{
        if (!w->workload)
                return;
        for (unsigned i = 0; i < ELEMENTSOF(w->psi); i++)
                w->psi[i].source = sd_event_source_disable_unref(w->psi[i].source);
        w->taskstats_source = sd_event_source_disable_unref(w->taskstats_source);
        w->proc_events_source = sd_event_source_disable_unref(w->proc_events_source);
        w->collapse_source = sd_event_source_disable_unref(w->collapse_source);
        w->workload = workload_free(w->workload);
        w->n_views = 0;
        w->over_budget = 0;
}

int manager_workload_start(ManagerWorkload *w, const FragdConfig *cfg)
{
        WorkloadOptions opt = WORKLOAD_OPTIONS_DEFAULT;
        _cleanup_free_ FragdConfig *wcfg = NULL;
        WorkloadGlobalView g;
        int r;

        if (!workload_configured(cfg))
                return 0;
        wcfg = malloc(sizeof(*wcfg));
        if (!wcfg)
                return log_error_errno(-ENOMEM, "Cannot set up the watched cgroups: %m");
        *wcfg = *cfg;
        if (!w->root->is_host) {
                /* a trigger is written into memory.pressure: only ever into a
                 * real cgroup2 file, never into the plain copies of a --root
                 * tree (as psi_open() for /proc/pressure/memory) */
                wcfg->daemon.psi_trigger_threshold_usec = 0;
                for (unsigned i = 0; i < wcfg->n_cgroups; i++)
                        wcfg->cgroups[i].psi_trigger_threshold_usec = 0;
        }
        /* collapse goes through pidfd_open() of host pids: never for the
         * pids of a --root tree */
        opt.dry_run = w->dry_run || !w->root->is_host;
        r = workload_new(w->root, wcfg, &opt, &w->workload);
        if (r < 0)
                return log_warning_errno(r, "Cannot set up the watched cgroups (%m); running without them");
        for (unsigned i = 0; i < ELEMENTSOF(w->psi); i++)
                w->psi[i] = (WorkloadPsiSlot) { .owner = w, .index = i };
        /* per-cgroup PSI sources come with the first tick (psi_appeared) */
        workload_add_io(w, &w->taskstats_source, workload_taskstats_fd(w->workload), on_workload_taskstats,
                        "taskstats exit listener");
        workload_add_io(w, &w->proc_events_source, workload_proc_events_fd(w->workload),
                        on_workload_proc_events, "proc connector");
        workload_add_io(w, &w->collapse_source, workload_collapse_fd(w->workload), on_workload_collapse,
                        "collapse worker");
        workload_global_view(w->workload, &g);
        log_info("Watching %u cgroup(s); stall attribution: %s", workload_n_cgroups(w->workload),
                 workload_attribution_name(g.attribution));
        return 0;
}

static void workload_log_budget(ManagerWorkload *w, uint32_t over)
{
        for (unsigned i = 0; i < w->n_views; i++) {
                const CgroupWorkloadView *v = &w->views[i];
                bool now_over = over & (1u << i), was_over = w->over_budget & (1u << i);

                if (now_over && !was_over)
                        log_notice("cgroup '%s' is over its stall budget: %" PRIu64 " ms direct compaction and "
                                   "reclaim in the last minute (budget %" PRIu64 " ms)", workload_path(w, i),
                                   v->minute.budgeted_usec / USEC_PER_MSEC, v->minute.budget_usec / USEC_PER_MSEC);
                else if (!now_over && was_over)
                        log_info("cgroup '%s' is back within its stall budget", workload_path(w, i));
        }
        w->over_budget = over;
}

void manager_workload_assess(ManagerWorkload *w, bool host_calm, usec_t now, Assessment *a)
{
        WorkloadTickResult res = {};
        unsigned n;
        int r;

        if (!w->workload)
                return;
        r = workload_tick(w->workload, now, host_calm, &res);
        if (r < 0)
                log_debug_errno(r, "Workload tick failed: %m");
        n = MIN(workload_n_cgroups(w->workload), (unsigned) FRAGD_MAX_CGROUPS);
        for (unsigned i = 0; i < n; i++) {
                if (res.psi_vanished & (1u << i))
                        workload_psi_drop(w, i);
                if (res.psi_appeared & (1u << i))
                        workload_psi_add(w, i);
        }
        w->n_views = 0;
        for (unsigned i = 0; i < n; i++)
                if (workload_view(w->workload, i, &w->views[w->n_views]) >= 0)
                        w->n_views++;
        a->n_workloads = workload_stalls_fill(w->views, w->n_views, a->workloads, ASSESSMENT_MAX_WORKLOADS);
        workload_log_budget(w, res.over_budget);
}

static bool cgroup_config_equal(const CgroupConfig *a, const CgroupConfig *b)
{
        return strcmp(a->path, b->path) == 0 && a->watch == b->watch && a->thp == b->thp &&
               a->collapse == b->collapse && a->stall_budget_usec == b->stall_budget_usec &&
               a->collapse_cpu_budget_usec == b->collapse_cpu_budget_usec &&
               a->collapse_max_bytes_per_tick == b->collapse_max_bytes_per_tick &&
               a->psi_trigger_threshold_usec == b->psi_trigger_threshold_usec &&
               a->psi_trigger_window_usec == b->psi_trigger_window_usec;
}

bool manager_workload_config_changed(const FragdConfig *a, const FragdConfig *b)
{
        if (a->n_cgroups != b->n_cgroups || a->daemon.enable_delayacct != b->daemon.enable_delayacct ||
            a->daemon.psi_trigger_threshold_usec != b->daemon.psi_trigger_threshold_usec ||
            a->daemon.psi_trigger_window_usec != b->daemon.psi_trigger_window_usec)
                return true;
        for (unsigned i = 0; i < a->n_cgroups; i++)
                if (!cgroup_config_equal(&a->cgroups[i], &b->cgroups[i]))
                        return true;
        return false;
}

/* With enable_delayacct=no the workload says once that attribution is
 * unavailable and how to get it. */
void manager_delayacct_apply(KnobRegistry *knobs, const Root *root, const FragdConfig *cfg, bool dry_run,
                             usec_t now)
{
        int v, r;

        if (!cfg->daemon.enable_delayacct)
                return;
        r = delayacct_read(root, &v);
        if (r == -ENOENT) {
                log_info("enable_delayacct=yes, but there is no kernel.task_delayacct (kernels before 5.14 "
                         "collect delays when booted with delayacct)");
                return;
        }
        if (r < 0 || v != 0)
                return;
        r = knob_set(knobs, "kernel.task_delayacct", "1", now);
        if (r < 0) {
                log_warning_errno(r, "Cannot set kernel.task_delayacct=1 (%m): per-cgroup stall attribution "
                                  "stays unavailable");
                return;
        }
        log_info("%skernel.task_delayacct 0 -> 1 (enable_delayacct=yes; restored on stop): delays are "
                 "collected from now on, tasks started before now are not covered", dry_run ? "dry run: " : "");
}
