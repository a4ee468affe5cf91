/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The daemon's watched cgroups (daemon/service/manager-workload.c): the
 * sd-event sources on the Workload's fds (per-cgroup PSI triggers,
 * taskstats, proc connector, collapse worker), the per-tick workload step
 * that fills Assessment.workloads, and the opt-in delay accounting.
 * manager.c owns one ManagerWorkload and calls these; they never call the
 * manager back (a cgroup's pressure event goes through on_pressure). */

#include <systemd/sd-event.h>

#include "config/config.h"
#include "core/root.h"
#include "fragd/metrics.h"
#include "knobs/knob.h"
#include "output/workload-view.h"
#include "workload/workload.h"

typedef struct ManagerWorkload ManagerWorkload;

typedef struct WorkloadPsiSlot {
        ManagerWorkload *owner;
        unsigned index;          /* the workload's cgroup index */
        sd_event_source *source; /* on workload_psi_fd(w, index), or NULL */
} WorkloadPsiSlot;

struct ManagerWorkload {
        /* set by the manager before manager_workload_start() */
        sd_event *event;   /* borrowed */
        const Root *root;  /* borrowed */
        bool dry_run;
        int (*on_pressure)(void *userdata); /* a watched cgroup's PSI event */
        void *userdata;

        Workload *workload; /* NULL: no watched cgroup */
        WorkloadPsiSlot psi[FRAGD_MAX_CGROUPS];
        sd_event_source *taskstats_source, *proc_events_source, *collapse_source;
        unsigned n_views; /* this tick's views; paths point into workload */
        CgroupWorkloadView views[FRAGD_MAX_CGROUPS];
        uint32_t over_budget; /* bit i: cgroup i over its stall budget (for logging changes) */
};

/* Sets up the watched cgroups of cfg (nothing when none is configured). */
int manager_workload_start(ManagerWorkload *w, const FragdConfig *cfg);
/* Every source on the workload's fds, then the workload (and its fds). */
void manager_workload_stop(ManagerWorkload *w);
/* Per tick, after assess() and before policy_decide(): the workload's own
 * tick, its PSI sources, this tick's views and a->workloads[]. host_calm:
 * low pressure now, and the reserve met at the last decision. */
void manager_workload_assess(ManagerWorkload *w, bool host_calm, usec_t now, Assessment *a);
/* Does a reload change what workload_new() was given? */
bool manager_workload_config_changed(const FragdConfig *a, const FragdConfig *b);
/* enable_delayacct=yes and kernel.task_delayacct=0: turn it on through the
 * knob registry (journaled, restored on stop). */
void manager_delayacct_apply(KnobRegistry *knobs, const Root *root, const FragdConfig *cfg, bool dry_run,
                             usec_t now);
