/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Watched workload cgroups (daemon/sources/source-cgroup.c): the cgroup2 root, one
 * CgroupWatch per `[cgroup "<path>"]` section, per-tick memory.stat THP
 * fields and memory.pressure, a PSI trigger fd per cgroup, and membership
 * (which processes belong to the cgroup or its descendants).
 *
 * A missing cgroup is not an error: the watch says CGROUP_ABSENT and picks
 * the cgroup up when it appears (cgroup_watch_refresh() retries each tick).
 *
 * sd-event wiring, per watch:
 *   fd = cgroup_watch_psi_fd(w)  (>= 0 after open/refresh reported it)
 *   sd_event_add_io(e, &src, fd, EPOLLPRI, cb, w)
 *   cb: r = cgroup_watch_psi_event(w, revents)
 *       r > 0   pressure crossed the trigger: run a tick now
 *       r == -ENODEV  the cgroup went away (EPOLLERR): sd_event_source_disable_unref(src),
 *                     then cgroup_watch_release_psi(w); the next refresh reopens it.
 *   cgroup_watch_refresh() returning CGROUP_CHANGED_APPEARED: add the new psi fd;
 *   returning CGROUP_CHANGED_VANISHED: drop the source, cgroup_watch_release_psi(w).
 *   fragd never closes an fd that may still be registered with sd-event. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/root.h"
#include "fragd/obs.h"
#include "sources/psi-trigger.h"

#define CGROUP_PATH_MAX 256 /* as FRAGD_PATH_MAX in config.h: CgroupConfig.path fits */

/* ---- cgroup2 root ------------------------------------------------------- */

typedef struct CgroupRoot {
        int fd;                      /* the cgroup2 mount directory, -1 when none */
        char path[CGROUP_PATH_MAX];   /* relative to Root: "sys/fs/cgroup" */
        bool hybrid;                 /* the unified hierarchy of a v1+v2 setup */
        bool from_mountinfo;         /* found in proc/self/mountinfo (else probed) */
        char controllers[256];       /* the root's cgroup.controllers */
        bool memory_controller;      /* "memory" among them */
} CgroupRoot;

/* Pure. The mount point of the cgroup2 filesystem in a mountinfo buffer,
 * without the leading '/' and with \040-style escapes decoded. When several
 * exist, /sys/fs/cgroup wins, then /sys/fs/cgroup/unified, then the first.
 * -ENOENT when there is none, -EBADMSG for a malformed line. */
int mountinfo_find_cgroup2(const char *buf, size_t len, char *ret, size_t size);

/* Finds and opens the cgroup2 root below root: proc/self/mountinfo first,
 * then probes sys/fs/cgroup and sys/fs/cgroup/unified (a directory holding
 * cgroup.controllers). -ENOENT when no cgroup2 hierarchy exists. */
int cgroup_root_open(const Root *root, CgroupRoot *ret);
void cgroup_root_close(CgroupRoot *cr);

/* Pure. A watched path is relative, has no "." / ".." / empty components;
 * "" is the root cgroup. */
bool cgroup_relpath_valid(const char *path);
/* Pure. parent contains child (equal, or child below it; "" contains all). */
bool cgroup_path_contains(const char *parent, const char *child);

/* ---- memory.stat: THP and the fields around it -------------------------- */

typedef struct CgroupMemStat {
        bool have_thp;        /* anon_thp present (CONFIG_TRANSPARENT_HUGEPAGE) */
        uint64_t anon, file, shmem;            /* bytes */
        uint64_t anon_thp, file_thp, shmem_thp; /* bytes */
        uint64_t thp_fault_alloc, thp_collapse_alloc; /* events */
        uint64_t thp_swpout, thp_swpout_fallback;
        uint64_t pgscan_direct, pgsteal_direct, pgscan_khugepaged;
        uint64_t workingset_refault_anon, workingset_refault_file;
} CgroupMemStat;

/* Pure: picks the fields out of a parsed memory.stat (vmstat_parse()).
 * -ENODATA when "anon" is missing (not a memory.stat). */
int cgroup_memstat_from_kv(const KvList *kv, CgroupMemStat *ret);

/* ---- membership ---------------------------------------------------------- */

/* Pure. cgroup.procs: one pid per line. -E2BIG past cap (ret_n = cap). */
int cgroup_procs_parse(const char *buf, size_t len, int32_t *pids, size_t cap, size_t *ret_n);
/* Pure. /proc/PID/cgroup: the cgroup2 ("0::") path without its leading '/'.
 * -ENODATA without a 0:: line. */
int proc_pid_cgroup_parse(const char *buf, size_t len, char *ret, size_t size);
/* Reads <root>/proc/PID/cgroup. -ESRCH when the process is gone. */
int proc_pid_cgroup_read(const Root *root, int32_t pid, char *ret, size_t size);

/* All pids in path and its descendants (cgroup.procs, depth <= 16).
 * *ret_pids is malloc'ed. -ENOENT when the cgroup does not exist. */
int cgroup_scan_pids(const CgroupRoot *cr, const char *path, int32_t **ret_pids, size_t *ret_n);
/* The same for threads (cgroup.threads): every task's id, as the kernel's
 * per-task filters (tracefs set_event_pid) know them. */
int cgroup_scan_threads(const CgroupRoot *cr, const char *path, int32_t **ret_tids, size_t *ret_n);

/* ---- one watched cgroup -------------------------------------------------- */

typedef enum CgroupState {
        CGROUP_ABSENT,
        CGROUP_PRESENT,
} CgroupState;

typedef enum CgroupChange {
        CGROUP_UNCHANGED = 0,
        CGROUP_CHANGED_APPEARED = 1,  /* new dir fd, new PSI fd to add */
        CGROUP_CHANGED_VANISHED = 2,  /* fds closed: drop the event source first! */
} CgroupChange;

typedef struct CgroupWatch {
        char path[CGROUP_PATH_MAX];
        CgroupState state;
        int dir_fd;
        uint64_t dir_ino;              /* to notice a removed and recreated cgroup */
        int psi_fd;                    /* -1 when no trigger is armed */
        int psi_err;                   /* why not (0, -EOPNOTSUPP, -EINVAL, ...) */
        PsiTriggerSpec psi_spec;       /* wanted */
        PsiTriggerSpec psi_effective;  /* written (window rounded when unprivileged) */
        uint64_t psi_events;           /* EPOLLPRI wake-ups */
        uint64_t appearances;          /* times it (re)appeared */
        bool have_mem;
        int mem_err;                   /* -ENOENT: no memory controller here */
        CgroupMemStat mem;
        bool have_pressure;
        int pressure_err;
        PsiStats pressure;
} CgroupWatch;

/* spec NULL or threshold 0: no trigger. */
void cgroup_watch_init(CgroupWatch *w, const char *path, const PsiTriggerSpec *spec);
/* Per tick: opens the cgroup when absent (returns CGROUP_CHANGED_APPEARED;
 * the trigger is armed only when psi_fd was released), reads memory.stat and
 * memory.pressure when present. When the directory is gone or was replaced
 * (inode changed) it returns CGROUP_CHANGED_VANISHED with state ABSENT and
 * psi_fd still open for the caller to release. Errors of single files are
 * kept in mem_err / pressure_err / psi_err, not returned. kv is scratch
 * space (KvList is large). */
int cgroup_watch_refresh(CgroupWatch *w, const CgroupRoot *cr, KvList *kv);
int cgroup_watch_psi_fd(const CgroupWatch *w);
/* 1: pressure event; 0: spurious; -ENODEV: the cgroup is gone (EPOLLERR). */
int cgroup_watch_psi_event(CgroupWatch *w, uint32_t revents);
/* Closes and reopens the PSI trigger (new fd in psi_fd; the old fd is
 * closed: drop its event source before calling). Returns the new fd. */
int cgroup_watch_rearm(CgroupWatch *w);
/* Closes the PSI fd (after its event source was dropped). */
void cgroup_watch_release_psi(CgroupWatch *w);
/* Closes everything (shutdown). */
void cgroup_watch_close(CgroupWatch *w);
