/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The daemon's state, shared by manager.c (event loop, tick, outputs,
 * configuration) and manager-learned.c (the learned reserve's state file).
 * Private to them; the watched cgroups are a module of their own
 * (manager-workload.h). */

#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/epoll.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>

#include "config/config.h"
#include "core/clock.h"
#include "core/log.h"
#include "fragd/metrics.h"
#include "fragd/obs.h"
#include "fragd/policy.h"
#include "knobs/compact-worker.h"
#include "knobs/knob.h"
#include "knobs/lever.h"
#include "output/exporter.h"
#include "output/snapshot.h"
#include "output/status.h"
#include "output/workload-view.h"
#include "service/control.h"
#include "service/daemon-lock.h"
#include "service/learned-store.h"
#include "service/manager-workload.h"
#include "service/manager.h"
#include "service/observe-log.h"
#include "service/pipeline.h"
#include "sources/psi-trigger.h"
#include "workload/taskstats.h"
#include "workload/workload.h"

#define RECENT_MAX 32
#define RECENT_LEN (DECISION_TEXT_MAX + 64) /* a timestamp, "paused, not applied: " and a sentence */
/* A recent decision as data for the status file (StatusChange) */
typedef struct ChangeRecord {
        uint64_t realtime_usec;
        char knob[KNOB_NAME_MAX];
        char from[LEVER_VALUE_MAX], to[LEVER_VALUE_MAX];
        char reason[48];
        const char *outcome; /* "applied", "paused", "dry-run" */
} ChangeRecord;

#define MIN_TICK_GAP_USEC (1 * USEC_PER_SEC) /* PSI events never tick faster */

struct Manager {
        ManagerArgs args;
        Root *root;
        FragdConfig cfg;
        ConfigSources *sources;
        InstanceProbe probe;
        bool dry_run;

        sd_event *event;
        sd_event_source *timer, *psi_source, *worker_source;
        sd_event_source *sentinel;   /* vmstat between two long ticks (manager.c) */
        KvList *sentinel_kv;         /* its reading */
        uint64_t activity_count;     /* policy_activity_counters() at the last tick */
        bool have_activity_count;    /* the last tick read vmstat */
        sd_event_source *sig_term, *sig_int, *sig_hup;
        int psi_fd;

        KnobRegistry *knobs;
        DaemonLock *lock;        /* one fragd per root: held for the daemon's life */
        char journal_dir[FRAGD_PATH_MAX + 2]; /* the lock record's journal_dir (daemon-lock.h) */
        CompactWorker *worker;
        bool pagecache_up;       /* fragd's trace instance is set up: read it every tick */
        /* the instance scoped to the watched cgroups' tasks (pagecache_scope()):
         * the hash of the task ids last written, whether a list stands, the
         * last error logged (0: none) */
        uint64_t pagecache_scope_hash;
        /* the list last written was pid 0 alone (no task then): written
         * anew, not added to, when tasks come (the idle task stays out) */
        bool pagecache_scope_idle;
        bool pagecache_scoped;
        int pagecache_scope_err;
        /* failed allocations counted in it (alloc_fail_trace_start()): only
         * while it is scoped; alloc_fail_err the last error logged */
        bool alloc_fail_up;
        int alloc_fail_err;

        ManagerWorkload wl;      /* the watched cgroups */

        Observation *cur, *prev;
        bool have_prev;
        Assessment *a;
        PolicyState *pstate;
        Decision *d;
        LeverBaseline baseline;
        LeverHeldLog held_log; /* the holds said at info level (lever_apply()) */
        bool keeps_up_said;    /* the last tick said the kernel keeps up (lever_apply()) */
        int reserve_gate_said; /* the configured reserves' gate as last logged (lever_apply()) */

        usec_t last_tick_usec, last_pagetype_usec, last_thp_full_usec;
        usec_t last_pressure_usec;   /* the last PSI event (system or cgroup) */
        usec_t last_output_usec;     /* textfile, status file, sd_notify STATUS */
        bool outputs_due;            /* a change since: write them at this tick */
        usec_t tick_interval_usec;   /* the timer's current interval */
        bool watching;               /* on active_interval (manager_next_interval()) */
        bool levers_observed;        /* this tick: no knob changed since the sysctls were read */
        uint64_t n_ticks;
        bool ready;
        bool source_failing;
        unsigned held_unmeasured; /* Assessment.unmeasured of the last decision: said once */
        ObsLogState obs_log; /* sources missing and problems, as last logged */

        MetricsWriter mw;
        int textfile_fd;
        ActionCounter actions[SNAPSHOT_MAX_ACTIONS];
        unsigned n_actions;
        uint64_t errors[_HEALTH_ERR_MAX];
        usec_t tick_duration_usec;
        bool tick_timing;            /* this tick measures its CPU (debug level: log_tick_cpu()) */
        /* at debug level: this tick's CPU in the watched workloads'
         * reading (taskstats, cgroup files) and in the outputs (textfile,
         * status file, sd_notify), for log_tick_cpu() */
        usec_t tick_workload_cpu_usec, tick_output_cpu_usec;

        /* the learned reserve's state file (manager-learned.c): what it
         * holds as PolicyState's peak, bytes, monotonic time, age before it */
        bool learned_restored;       /* the first tick looked at the file */
        uint64_t learned_synced_bytes;
        usec_t learned_synced_usec, learned_synced_before_usec;
        usec_t learned_write_usec;   /* the last write or removal; 0 = none */
        bool learned_write_failing;
        bool learned_file_kept;      /* a newer fragd's file: never written nor removed by this run */
        /* the learned burst the last learned_reserve event told, and when */
        uint64_t learned_event_bytes;
        usec_t learned_event_usec;
        bool learned_event_boot;     /* learned_event_bytes is the boot seed (not told as a burst) */
        char machine_id[MACHINE_ID_LEN + 1]; /* "" = unknown */

        char recent[RECENT_MAX][RECENT_LEN];
        unsigned n_recent, recent_head;
        char last_action[RECENT_LEN];
        int status_error; /* -errno of the last failed status file write, 0 when it worked */
        ChangeRecord changes[RECENT_MAX]; /* the same, as data */
        unsigned n_changes, changes_head;

        /* `fragd pause` (manager-pause.c): every knob handed back, the
         * decisions computed and shown, not applied */
        ControlServer *control;
        bool paused;
        bool paused_shown[_LEVER_MAX];  /* a paused decision on the lever was recorded */
        int64_t paused_to[_LEVER_MAX];  /* ... wanting this value */
        uint64_t paused_compact_nodes;  /* nodes (id < 64) whose compaction was wanted at the last tick */
};

/* manager-pause.c: the recent decisions (text for the status file and the
 * journal, data for the JSON), pause and resume. */
void manager_recent_add(Manager *m, const char *line);
void manager_change_add(Manager *m, const DecisionItem *it, const char *knob, const char *outcome);
/* paused: the decision's items logged and recorded as "paused" when they
 * differ from what was last recorded for the lever (a node compaction: when
 * it was not wanted at the last tick); nothing is applied */
void manager_paused_decisions(Manager *m);
/* pause: every owned knob restored (as on stop; one another writer changed
 * is left to it), the flag file written; resume: the flag removed, the
 * delay accounting knob set again. The reply for `fragd pause|resume` in
 * reply. 0, or -errno (the reply says what failed). */
int manager_pause_set(Manager *m, bool pause, char *reply, size_t size);
/* At start: a pause flag left in runtime_dir pauses this daemon too. */
void manager_pause_load(Manager *m);

/* manager-learned.c: once, at the first tick before the first decide */
void manager_learned_restore(Manager *m, usec_t now);
/* after policy_state_update(), and with stopping at the end */
void manager_learned_sync(Manager *m, usec_t now, bool stopping);
/* the status file's line; false when nothing is learned */
bool manager_learned_status(const Manager *m, usec_t now, char *buf, size_t size);
