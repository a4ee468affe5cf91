/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Workload awareness (daemon/workload/workload.c, workload-attribution.c,
 * workload-thp.c, workload-report.c): the watched cgroups, their pressure
 * and THP use, stall attribution from taskstats (direct compaction, direct
 * reclaim, thrashing) as cumulative per-cgroup totals that survive processes
 * exiting, per-minute windows for the policy, and per-cgroup THP (mechanism,
 * collapse worker).
 *
 * Attribution model. Every tracked thread group (tgid) has a last-known
 * cumulative delay record; a cgroup's total = what its finished processes
 * left (retired) + the last-known values of its live ones (minus the value a
 * process brought with it when it migrated in). Sources, each a lower bound
 * of the true cumulative, combined by field-wise max:
 *   - TGID queries of live members each query interval (exited threads
 *     included: the kernel keeps them in signal->stats);
 *   - exit records (taskstats listener): the group's AGGR_TGID, or the
 *     leader's AGGR_PID for a single-threaded process; a tgid marked exited
 *     is retired when a query says it is gone, so a leader exiting before
 *     its threads loses nothing.
 * Membership: cgroup.procs scans (at start, every rescan interval, and after
 * lost events) and, with the proc connector, fork (child inherits the
 * parent's cgroup -- short-lived children are counted even if they never
 * show up in a scan) and exec (re-checks /proc/PID/cgroup). Exits of
 * unknown tgids fall back to /proc/PID/cgroup, else count as unattributed.
 *
 * sd-event wiring (all fds non-blocking; none is closed while registered):
 *   per cgroup i: workload_psi_fd(w, i)       EPOLLPRI  -> workload_on_psi(w, i, revents)
 *   workload_taskstats_fd(w)                  EPOLLIN   -> workload_on_taskstats(w)
 *   workload_proc_events_fd(w)                EPOLLIN   -> workload_on_proc_events(w)
 *   workload_collapse_fd(w)                   EPOLLIN   -> workload_on_collapse(w)
 *   timer, every tick:  workload_tick(w, now, host_calm, &res); then for each i
 *     in res.psi_vanished: drop the source, workload_release_psi(w, i);
 *     in res.psi_appeared: add workload_psi_fd(w, i).
 *   workload_on_psi() > 0: run a tick now; == -ENODEV: drop the source, then
 *     workload_release_psi(w, i).
 * Fds that are -1 are not available (reason in WorkloadGlobalView). */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "fragd/budget.h"
#include "sources/cgroup.h"
#include "workload/proc-events.h"
#include "workload/taskstats.h"
#include "workload/thp-cgroup.h"

typedef enum WorkloadAttribution {
        WL_ATTR_OK,
        WL_ATTR_DELAYACCT_OFF,  /* kernel.task_delayacct=0: delays are not collected */
        WL_ATTR_NO_TASKSTATS,   /* no family, or no CAP_NET_ADMIN */
        WL_ATTR_DISABLED,       /* --root: netlink is about the real host, not the fixture */
} WorkloadAttribution;

const char *workload_attribution_name(WorkloadAttribution a); /* "ok", "delayacct-off", ... */

typedef struct WorkloadOptions {
        bool use_netlink;                 /* taskstats + proc connector (real host only) */
        bool dry_run;                     /* never collapse */
        usec_t rescan_interval_usec;      /* cgroup.procs with the proc connector (default 30 s) */
        usec_t query_interval_usec;       /* TGID queries of live members (default: every tick) */
        usec_t thp_status_interval_usec;  /* /proc/PID/status THP_enabled scan (default 30 s) */
        uint32_t calm_psi_permyriad;      /* cgroup PSI some avg10 below this is calm (default 50 = 0.5%) */
        const char *launcher_path;        /* for the drop-ins (default /usr/local/bin/fragd-thp-exec) */
        const CollapseOps *collapse_ops;  /* NULL: the real syscalls (tests pass fakes) */
} WorkloadOptions;

#define WORKLOAD_OPTIONS_DEFAULT                                                                 \
        ((WorkloadOptions) { .use_netlink = true,                                                \
                             .rescan_interval_usec = 30 * USEC_PER_SEC,                          \
                             .thp_status_interval_usec = 30 * USEC_PER_SEC,                      \
                             .calm_psi_permyriad = 50 })

typedef struct WorkloadGlobalView {
        bool have_cgroup_root;
        CgroupRoot root;                 /* path, hybrid, controllers (fd not for use) */
        int delayacct;                   /* 1 on, 0 off, -1 unknown (sysctl absent: pre-5.14, on if built in) */
        bool delayacct_enable_wanted;    /* enable_delayacct=yes and it is off: the knob writer should set it */
        WorkloadAttribution attribution;
        int taskstats_err;               /* 0 or why no taskstats */
        uint16_t taskstats_version;      /* highest struct version seen */
        bool exit_listener;
        int exit_listener_err;
        bool proc_events;
        int proc_events_err;             /* -EPERM: not in the initial namespaces ... */
        uint64_t exit_records, exits_unattributed, exit_records_lost, proc_events_lost;
        uint64_t queries, query_errors;
        unsigned tracked_tgids;
        ThpEnv thp_env;
} WorkloadGlobalView;

typedef struct CgroupWorkloadView {
        const char *path;
        bool present;
        unsigned n_procs;
        bool have_mem;
        CgroupMemStat mem;
        bool have_pressure;
        PsiStats pressure;
        uint64_t psi_trigger_events;
        int psi_trigger_err;
        uint32_t psi_window_usec;        /* effective (rounded to 2 s when unprivileged) */
        /* stall attribution: cumulative since fragd started, usec / counts */
        WorkloadAttribution attribution;
        uint64_t compact_delay_usec, reclaim_delay_usec, thrashing_delay_usec;
        uint64_t compact_count, reclaim_count;
        StallMinute minute;              /* the last minute, with the over-budget flag */
        bool have_minute;
        uint64_t stall_budget_usec;
        /* THP */
        ThpStatus thp;
        uint64_t collapse_bytes, collapse_attempted_bytes, collapse_huge_growth_bytes;
        uint64_t collapse_failed_hpages;
        uint64_t collapse_err_counts[_COLLAPSE_ERR_MAX];
        usec_t collapse_cpu_usec, collapse_cpu_last_minute_usec;
        usec_t collapse_cpu_budget_usec;
        bool have_last_failure;
        CollapseFailure last_failure;
} CgroupWorkloadView;

typedef struct WorkloadTickResult {
        uint32_t psi_appeared;   /* bit i: cgroup i has a new PSI fd to add */
        uint32_t psi_vanished;   /* bit i: drop cgroup i's source, then workload_release_psi() */
        uint32_t over_budget;    /* bit i: stall budget exceeded in the last minute */
        bool collapse_submitted;
} WorkloadTickResult;

typedef struct Workload Workload;

int workload_new(const Root *root, const FragdConfig *cfg, const WorkloadOptions *opt, Workload **ret);
Workload *workload_free(Workload *w);

unsigned workload_n_cgroups(const Workload *w);
/* Every task (thread id) of the present watched cgroups and their
 * descendants (cgroup.threads), sorted, each once; *ret malloc'ed (NULL
 * when none). */
int workload_tasks(const Workload *w, int32_t **ret, size_t *ret_n);
int workload_psi_fd(const Workload *w, unsigned i);
int workload_taskstats_fd(const Workload *w);
int workload_proc_events_fd(const Workload *w);
int workload_collapse_fd(const Workload *w);

int workload_on_psi(Workload *w, unsigned i, uint32_t revents);
void workload_release_psi(Workload *w, unsigned i);
int workload_on_taskstats(Workload *w);
int workload_on_proc_events(Workload *w);
int workload_on_collapse(Workload *w);

/* What the handlers do with one record/event; public for tests. */
void workload_apply_exit(Workload *w, const TaskstatsReply *rep);
void workload_apply_proc_event(Workload *w, const ProcEvent *e);

/* Per tick. host_calm: the policy's view of the host (no direct compaction
 * pressure); collapse runs only when the host and the cgroup are calm. */
int workload_tick(Workload *w, usec_t now, bool host_calm, WorkloadTickResult *ret);

int workload_view(const Workload *w, unsigned i, CgroupWorkloadView *ret);
void workload_global_view(const Workload *w, WorkloadGlobalView *ret);

/* Human-readable per-cgroup report (for `fragd --once` and the VM scenario):
 * "system.slice/system-postgresql.slice/postgresql@15-main.service: 380 ms direct compaction (12), 20 ms
 * direct reclaim (3), 0 ms thrashing in the last minute; ..." */
int workload_report(const Workload *w, FILE *f);
/* The same as JSON lines, one object per cgroup (for scripts). */
int workload_report_json(const Workload *w, FILE *f);
