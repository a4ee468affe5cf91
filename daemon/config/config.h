/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* fragd.conf: layered INI configuration (daemon/config/config.c, daemon/config/fleet.c).
 * What the rest of fragd uses: the configuration's types, loading, printing,
 * the instance probe. The key table, the value syntax and fleet matching are
 * config/'s own (config-internal.h).
 * Layers, lowest first: preset -> fleet file -> /etc/fragd/fragd.conf ->
 * /etc/fragd/fragd.conf.d/NAME.conf (sorted) -> command line (--set). Every
 * effective value remembers where it came from.
 *
 * The preset rule: `preset =` is an ordinary [policy] key (the highest layer
 * that sets it wins), but it does not act in place. The policy starts from
 * the effective preset's values, then every [policy] and [knob] key set
 * explicitly in any layer is applied on top, lowest layer first. So a
 * higher layer's `preset = thp-max` re-bases every value nobody set, and a
 * value set explicitly anywhere (even in the lower fleet file) still wins
 * over the preset. To let the preset decide a value again, do not set it. */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/root.h"
#include "fragd/macro.h"
#include "fragd/obs.h"
#include "fragd/policy-config.h"
#include "sources/sources.h"

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
        usec_t active_interval_usec;       /* while watching closely; 0 = off */
        usec_t active_hold_usec;           /* how long after the last activity */
        bool dry_run;
        char textfile_dir[FRAGD_PATH_MAX]; /* "" disables the exporter */
        int log_level;                     /* LOG_* */
        OwnershipMode ownership;
        usec_t pagetypeinfo_interval_usec; /* 0 = never read it */
        uint32_t psi_trigger_threshold_usec, psi_trigger_window_usec;
        char runtime_dir[FRAGD_PATH_MAX];  /* /run/fragd */
        char state_dir[FRAGD_PATH_MAX];    /* /var/lib/fragd: the learned reserve; "" = keep none */
        bool enable_delayacct;             /* opt-in: set kernel.task_delayacct=1 */
        bool pagecache_signal;             /* the page-cache trace instance (source-pagecache.c) */
} DaemonConfig;

typedef struct FleetConfig {
        char instance_type[128]; /* "auto" or a name */
        char fleet_dir[FRAGD_PATH_MAX]; /* the admin's fleet files; "": no fleet files at all */
} FleetConfig;

typedef struct FragdConfig {
        DaemonConfig daemon;
        PolicyConfig policy;
        FleetConfig fleet;
        unsigned n_cgroups;
        CgroupConfig cgroups[FRAGD_MAX_CGROUPS];
} FragdConfig;

/* ---- instance type and fleet defaults (daemon/config/fleet.c, config-probe.c) -- */

/* What detection found. Shown by `fragd --once`, `fragd status` and
 * `fragd --check-config`. */
typedef struct InstanceInfo {
        char name[128];        /* "r7g.4xlarge", or the sizing class; "" if unknown */
        const char *source;    /* "config", "dmi", "sizing"; NULL if unknown */
        const char *cloud;     /* "aws", "gce", "azure" from DMI; NULL if none recognised */
        const char *arch_source; /* where the class's architecture came from (InstanceProbe) */
        char class_name[64];   /* sizing class, always computed when memory is known */
        char fleet_file[FRAGD_PATH_MAX]; /* fleet file that applied, "" when none */
        char fleet_match[192]; /* the [match] line that won: "instance_type = r7g.*" */
} InstanceInfo;

/* Raw facts detection works from. Filled by instance_probe() on a real host
 * or a fixture root, or by hand in tests. */
typedef struct InstanceProbe {
        bool have_dmi;
        DmiInfo dmi;
        uint64_t mem_total_kb; /* all nodes; 0 = unknown */
        unsigned n_cpus;       /* online CPUs; 0 = unknown */
        char arch[32];         /* "x86_64", "arm64" (uname machine, aarch64 -> arm64) */
        const char *arch_source; /* "the root's proc/sys/kernel/arch", "the root's
                                  * proc/cpuinfo", "given", "this host (uname): ...";
                                  * NULL if unknown */
        unsigned page_size;    /* bytes */
} InstanceProbe;

/* Reads DMI and node topology under root (dmi_read, nodes_read, and
 * meminfo_read when the node topology has no memory sizes). arch NULL means
 * the root's own: <root>/proc/sys/kernel/arch (Linux >= 6.1), else guessed
 * from <root>/proc/cpuinfo, else this machine's (uname), so that --root
 * sizes a tree from another machine by its architecture.
 * Missing pieces stay zero: never fails for lack of DMI or topology.
 * daemon/config/config-probe.c. */
int instance_probe(const Root *root, const char *arch, InstanceProbe *ret);

/* ---- loading ------------------------------------------------------------ */

typedef enum ConfigOrigin {
        CONFIG_ORIGIN_DEFAULT, /* built-in default (daemon, fleet, cgroup keys) */
        CONFIG_ORIGIN_PRESET,  /* the effective preset (policy and knob keys) */
        CONFIG_ORIGIN_FLEET,   /* the matched fleet file */
        CONFIG_ORIGIN_FILE,    /* fragd.conf (or -c FILE), fragd.conf.d/ */
        CONFIG_ORIGIN_CMDLINE, /* --set */
} ConfigOrigin;

typedef struct ConfigSource {
        ConfigOrigin origin;
        uint16_t file; /* FLEET, FILE: index into ConfigSources.files */
        uint32_t line; /* FLEET, FILE: 1-based line; CMDLINE: 1-based --set index */
} ConfigSource;

#define CONFIG_MAX_FILES 64
#define CONFIG_MAX_SLOTS 512
#define CONFIG_MAX_ERRORS 64
#define CONFIG_ERROR_MAX 512
#define CONFIG_MAX_WARNINGS 16

typedef struct ConfigSources {
        Preset preset;     /* the effective preset, for "preset NAME" */
        unsigned n_files;  /* every file read, fleet files included */
        char files[CONFIG_MAX_FILES][FRAGD_PATH_MAX];
        ConfigSource slot[CONFIG_MAX_SLOTS]; /* one per key (per lever, per cgroup) */
        ConfigSource cgroup[FRAGD_MAX_CGROUPS]; /* where each [cgroup] first appeared */
        InstanceInfo instance;
        char fleet_dirs[2][FRAGD_PATH_MAX]; /* vendor, admin: where fleet files were looked for */
} ConfigSources;

typedef struct ConfigErrors {
        unsigned n;         /* messages kept */
        unsigned n_dropped; /* more than CONFIG_MAX_ERRORS */
        char msg[CONFIG_MAX_ERRORS][CONFIG_ERROR_MAX];
        /* what loaded but is worth saying (a key set twice in one file),
         * kept whether or not the load succeeds */
        unsigned n_warnings;
        unsigned n_warnings_dropped;
        char warning[CONFIG_MAX_WARNINGS][CONFIG_ERROR_MAX];
} ConfigErrors;

typedef struct ConfigLoadArgs {
        const Root *root;         /* /etc/fragd and the fleet dir are opened below it;
                                   * NULL: no files at all (config_text only) */
        const char *config_text;  /* parsed instead of the main file (tests, fuzzing);
                                   * named config_file, or "<text>", in messages */
        size_t config_text_len;
        const char *config_file;  /* -c FILE (relative to the working directory):
                                   * replaces /etc/fragd/fragd.conf; fragd.conf.d/ still applies */
        const char *const *set;   /* --set "section.key=value", in command-line order */
        size_t n_set;
        const InstanceProbe *probe; /* NULL: no detection (no DMI, no sizing class) */
        const char *vendor_fleet_dir; /* the package's fleet files, below root; NULL:
                                       * FRAGD_DATADIR/fragd/fleet (tests move it) */
} ConfigLoadArgs;

/* Built-in defaults: the database preset, no cgroups. Cannot fail. */
void config_defaults(FragdConfig *ret);

/* Builds a complete new configuration from every layer. On success writes
 * *ret and *ret_sources (either may be NULL) and returns 0. On any error
 * returns -EINVAL with every problem in *errs and writes neither, so a
 * reload keeps the configuration in force. -ENOMEM on allocation failure.
 * errs may be NULL. */
int config_load(const ConfigLoadArgs *args, FragdConfig *ret, ConfigSources *ret_sources, ConfigErrors *errs);

/* Reload: config_load() into temporaries, swap into *cfg / *sources only on
 * success. */
int config_reload(const ConfigLoadArgs *args, FragdConfig *cfg, ConfigSources *sources, ConfigErrors *errs);

/* ---- printing (daemon/config/config-print.c, config-source.c) ---------- */

/* Every effective value as fragd.conf text (valid input again), each line
 * followed by "; <source>", then the detected instance. */
void config_print(FILE *f, const FragdConfig *c, const ConfigSources *s);
/* "/etc/fragd/fragd.conf:12", "preset database", "default", "command line",
 * "fleet /etc/fragd/fleet.d/r7g.conf:8". Returns buf. */
char *config_source_format(const ConfigSources *s, ConfigSource src, char *buf, size_t size);
void config_errors_print(FILE *f, const ConfigErrors *errs);
/* The warnings, "warning: path:line: ..." to f, or to the log at
 * LOG_WARNING (the daemon, --once). */
void config_warnings_print(FILE *f, const ConfigErrors *errs);
void config_warnings_log(const ConfigErrors *errs);

