/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* fragd.conf: layered INI configuration (daemon/config.c, daemon/fleet.c).
 * Layers, lowest first: preset -> fleet file -> /etc/fragd/fragd.conf ->
 * /etc/fragd/fragd.conf.d/NAME.conf -> command line. Every effective value
 * remembers where it came from. */

#include <stdbool.h>
#include <stdint.h>

#include "fragd/macro.h"
#include "fragd/policy-config.h"

#define FRAGD_MAX_CGROUPS 16
#define FRAGD_PATH_MAX 256

typedef enum OwnershipMode {
        OWNERSHIP_RESPECT,  /* a knob changed under fragd is yielded until restart */
        OWNERSHIP_REASSERT, /* fragd writes its value again */
} OwnershipMode;

typedef enum CgroupThp {
        CGROUP_THP_INHERIT, /* no opinion: observe only */
        CGROUP_THP_ALWAYS,  /* wants huge pages: collapse in calm periods if collapse=yes */
        CGROUP_THP_MADVISE, /* only where the workload asks (launcher / MemoryTHP=) */
        CGROUP_THP_NEVER,   /* must not have THP (launcher / MemoryTHP=) */
} CgroupThp;

typedef struct CgroupConfig {
        char path[FRAGD_PATH_MAX];   /* relative to the cgroup2 root */
        bool watch;
        CgroupThp thp;
        bool collapse;
        usec_t stall_budget_usec;    /* direct compaction+reclaim per minute */
        usec_t collapse_cpu_budget_usec; /* per minute */
        uint64_t collapse_max_bytes_per_tick;
        uint32_t psi_trigger_threshold_usec, psi_trigger_window_usec;
} CgroupConfig;

typedef struct DaemonConfig {
        usec_t interval_usec;
        bool dry_run;
        char textfile_dir[FRAGD_PATH_MAX]; /* "" disables the exporter */
        int log_level;                     /* LOG_* */
        OwnershipMode ownership;
        usec_t pagetypeinfo_interval_usec; /* 0 = never read it */
        uint32_t psi_trigger_threshold_usec, psi_trigger_window_usec;
        char runtime_dir[FRAGD_PATH_MAX];  /* /run/fragd */
        bool enable_delayacct;             /* opt-in: set kernel.task_delayacct=1 */
} DaemonConfig;

typedef struct FleetConfig {
        char instance_type[128]; /* "auto" or a name */
        char fleet_dir[FRAGD_PATH_MAX];
} FleetConfig;

typedef struct FragdConfig {
        DaemonConfig daemon;
        PolicyConfig policy;
        FleetConfig fleet;
        unsigned n_cgroups;
        CgroupConfig cgroups[FRAGD_MAX_CGROUPS];
} FragdConfig;
