/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* A Workload's state, shared by workload.c (construction, event handlers,
 * the tick), workload-attribution.c (stall attribution), workload-thp.c
 * (per-cgroup THP and collapse) and workload-report.c (views and reports).
 * Private to them. */

#include <stdint.h>
#include <sys/types.h>

#include "core/log.h"
#include "fragd/macro.h"
#include "workload/proc-events.h"
#include "workload/taskstats.h"
#include "workload/workload.h"

#define ORPHANS_MAX 1024

typedef struct Snap {
        uint64_t compact_ns, reclaim_ns, thrashing_ns, compact_count, reclaim_count;
} Snap;

typedef struct Tracked {
        int32_t tgid;
        int16_t cg;
        bool exited, seen;
        Snap last, base;
} Tracked;

typedef struct Orphan {
        int32_t tgid;
        Snap s;
} Orphan;

typedef struct WlCgroup {
        CgroupConfig cfg;
        CgroupWatch watch;
        Snap retired;
        StallWindows win;
        bool have_sample;
        StallTotals totals;
        unsigned n_procs;
        ThpObserved thp_obs;
        BudgetWindow collapse_cpu;
        usec_t collapse_cpu_total;
        uint64_t collapse_bytes, collapse_attempted, collapse_growth, collapse_failed;
        uint64_t collapse_err[_COLLAPSE_ERR_MAX];
        bool have_last_failure;
        CollapseFailure last_failure;
        int32_t collapse_resume_pid; /* where the last collapse run stopped */
        uint64_t collapse_resume_addr;
} WlCgroup;

struct Workload {
        const Root *root;
        WorkloadOptions opt;
        DaemonConfig daemon;
        CgroupRoot croot;
        bool have_croot;
        unsigned n;
        WlCgroup cg[FRAGD_MAX_CGROUPS];
        KvList *kv;

        Taskstats *ts;
        int ts_err, listen_err;
        ProcEvents *pe;
        int pe_err;
        int delayacct;
        ThpEnv thp_env;

        Tracked *t;
        size_t n_t, cap_t;
        Orphan orphans[ORPHANS_MAX];
        unsigned n_orphans;

        uint64_t exit_records, unattributed, queries, query_errors;
        usec_t last_rescan, last_query, last_thp_scan, last_now;
        bool rescan_forced, first_scan_done;

        CollapseOps collapse_ops;
        CollapseWorker *worker;
        CollapseRequest *req;
        unsigned next_collapse;
};

/* workload-attribution.c: the tick's steps */
void workload_rescan(Workload *w);                 /* cgroup.procs of every present cgroup */
void workload_resolve_orphans(Workload *w);        /* exit records of tgids not tracked yet */
void workload_query_live(Workload *w);             /* TGID queries; retires what is gone */
void workload_track_retire(Workload *w, size_t i); /* its delays stay with its cgroup */
void workload_totals(Workload *w, usec_t now);     /* per-cgroup totals and windows */

/* workload-thp.c */
void workload_thp_scan(Workload *w);
/* Submits one collapse run to the worker, round robin. true if submitted. */
bool workload_maybe_collapse(Workload *w, usec_t now, bool host_calm);
