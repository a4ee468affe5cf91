/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Prometheus exporter (daemon/output/exporter.c, daemon/output/exporter-table.c).
 *
 * The daemon fills a Snapshot each tick: pointers to the tick's Observation
 * and Assessment plus small views of what only the daemon knows (knobs,
 * action counters, health, watched cgroups). metrics_render() turns it into
 * the Prometheus text exposition format; it is pure (no clock, no file
 * system, no logging) and its output depends only on the Snapshot, so it is
 * tested against golden files. metrics_write() puts the same text into
 * <textfile_dir>/fragd.prom for node_exporter's textfile collector: temp file
 * in the same directory, fsync, rename.
 *
 * Every family fragd exports is a row of metric_families[] (the single
 * source of truth): the renderer emits HELP/TYPE from it and
 * tools/fragd-metrics-doc prints docs/metrics.md from it. */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "fragd/macro.h"
#include "fragd/metrics.h"
#include "fragd/obs.h"

/* The Debian/Ubuntu prometheus-node-exporter textfile directory. */
#define FRAGD_TEXTFILE_DIR_DEFAULT "/var/lib/prometheus/node-exporter"
#define FRAGD_METRICS_FILE "fragd.prom"

/* Caps on the daemon-filled views; metrics_render() returns -E2BIG past them,
 * so the series count stays bounded whatever the daemon does. */
#define SNAPSHOT_MAX_KNOBS 16
#define SNAPSHOT_MAX_ACTIONS 64
#define SNAPSHOT_MAX_TARGET_ORDERS 4
#define SNAPSHOT_MAX_TARGETS (SNAPSHOT_MAX_TARGET_ORDERS * FRAGD_MAX_NODES)
#define SNAPSHOT_MAX_CGROUPS 16 /* FRAGD_MAX_CGROUPS */

/* ---- views the daemon fills ---------------------------------------------- */

/* The unit of a knob's value as the kernel has it, which picks the families
 * it is exported in: a number without unit (fragd_knob_value), KiB (in
 * bytes: fragd_knob_bytes), 1/10000 (as a ratio: fragd_knob_ratio), or a
 * mode, an index into KnobView.modes (a state set: fragd_knob_mode). */
typedef enum KnobUnit {
        KNOB_UNIT_NUMBER,
        KNOB_UNIT_KIB,
        KNOB_UNIT_PERMYRIAD,
        KNOB_UNIT_MODE,
        _KNOB_UNIT_MAX,
} KnobUnit;

#define SNAPSHOT_MAX_KNOB_MODES 8

/* One knob fragd steers (a Lever, or any other knob the actuators own).
 * Values are in the knob's own unit, as read from and written to the kernel
 * (min_free_kbytes in KiB; thp_defrag as the index of its mode). */
typedef struct KnobView {
        const char *name;     /* "compaction_proactiveness": label knob="..." */
        bool has_current;     /* false when the last read failed */
        int64_t current;
        bool has_original;    /* fragd has touched the knob and saved this */
        int64_t original;
        int64_t min, max;     /* configured bounds */
        bool owned;           /* fragd changed it and will restore it */
        bool disabled;        /* permanent error or yielded to another writer */
        const char *hold;     /* what stopped the policy's move this tick (a
                               * policy_hold_shown() hold's name), NULL: none */
        KnobUnit unit;        /* KNOB_UNIT_NUMBER unless said */
        /* KNOB_UNIT_MODE: every mode the knob can take, NULL-terminated, as
         * the kernel spells them; a value is an index into it */
        const char *modes[SNAPSHOT_MAX_KNOB_MODES + 1];
} KnobView;

typedef enum ActionDirection {
        ACTION_UP,
        ACTION_DOWN,
        ACTION_ONESHOT, /* node compaction, compact_memory, collapse */
        _ACTION_DIRECTION_MAX,
} ActionDirection;

/* A counter of decided actions. One entry per (knob, direction, reason);
 * entries must be unique. reason is the policy's reason code as a short
 * snake_case string from a fixed set ("reserve_below_target"). */
typedef struct ActionCounter {
        const char *knob;
        ActionDirection direction;
        const char *reason;
        uint64_t count;
} ActionCounter;

typedef enum HealthError {
        HEALTH_ERR_SOURCE_READ, /* a kernel file could not be read or parsed */
        HEALTH_ERR_KNOB_WRITE,  /* a knob write or read-back failed */
        HEALTH_ERR_EXPORT,      /* fragd.prom could not be written (MetricsWriter.n_failures) */
        _HEALTH_ERR_MAX,
} HealthError;

typedef struct HealthView {
        usec_t last_tick_realtime_usec; /* CLOCK_REALTIME at the end of the last tick; 0 = none yet */
        usec_t tick_duration_usec;
        usec_t tick_interval_usec;      /* to the next timer tick; 0 = not a daemon */
        uint64_t errors[_HEALTH_ERR_MAX]; /* cumulative since start */
        bool dry_run;
        bool paused;                    /* `fragd pause`: observing only */
} HealthView;

/* The reserve the policy aims for: free memory on node in blocks of at least
 * order. One per (node, target order). */
typedef struct ReserveTargetView {
        int node;
        unsigned order;
        uint64_t bytes;
} ReserveTargetView;

/* Memory the raised watermarks hold back on node: the high watermark at the
 * present min_free_kbytes / watermark_scale_factor minus at the kernel's own
 * (PolicyNodeEval.watermark_held_bytes). */
typedef struct WatermarkHeldView {
        int node;
        uint64_t bytes;
} WatermarkHeldView;

/* A watched cgroup (config [cgroup "..."]), present or not. */
typedef struct CgroupView {
        const char *name;           /* configured path: label cgroup="..." */
        bool present;               /* the directory exists now */
        bool have_psi;              /* memory.pressure read */
        uint64_t psi_some_usec, psi_full_usec;
        bool have_thp;              /* memory.stat read */
        uint64_t anon_thp_bytes, file_thp_bytes, shmem_thp_bytes;
        bool have_delay;            /* taskstats delay accounting available */
        uint64_t compact_delay_ns, reclaim_delay_ns, thrashing_delay_ns; /* cumulative */
        uint64_t compact_count, reclaim_count, thrashing_count;
        const char *mechanism;      /* THP mechanism in effect from a fixed set
                                     * ("none", "madv_collapse", "memory_thp",
                                     * "prctl_launcher"); NULL = not exported */
} CgroupView;

typedef struct Snapshot {
        const Observation *obs;        /* required */
        const Assessment *assessment;  /* required: assess(obs, prev_obs) */
        const Observation *prev_obs;   /* previous tick, or NULL: compaction efficiency */
        const char *version;           /* NULL = FRAGD_VERSION */

        unsigned n_target_orders;      /* configured target orders (order_large, THP order) */
        unsigned target_orders[SNAPSHOT_MAX_TARGET_ORDERS];
        unsigned n_targets;
        const ReserveTargetView *targets;
        unsigned n_held;               /* per node, from the decision; 0 = no decision */
        const WatermarkHeldView *held;

        unsigned n_knobs;
        const KnobView *knobs;
        unsigned n_actions;
        const ActionCounter *actions;
        HealthView health;
        unsigned n_cgroups;
        const CgroupView *cgroups;
        /* page-cache demand (PolicyEval): order 0 = none */
        unsigned pagecache_order;
        uint32_t pagecache_share_permyriad;
} Snapshot;

const char *action_direction_name(ActionDirection d); /* "up", "down", "oneshot" */
const char *health_error_name(HealthError e);         /* "source_read", ... */

/* ---- the metric family table --------------------------------------------- */

typedef enum MetricType {
        METRIC_GAUGE,
        METRIC_COUNTER,
} MetricType;

#define METRIC_MAX_LABELS 4

typedef enum MetricId {
        M_BUILD_INFO,
        M_LAST_TICK_TIMESTAMP,
        M_TICK_DURATION,
        M_TICK_INTERVAL,
        M_ERRORS,
        M_DRY_RUN,
        M_PAUSED,
        M_SOURCE_UP,
        /* a knob's current, original, min and max value: one family per
         * KnobUnit each, in KnobUnit order (M_KNOB_VALUE + 4 * role + unit);
         * a mode knob has no min and max families (a state set has no line
         * to draw a bound as: fragd --check-config shows them) */
        M_KNOB_VALUE,
        M_KNOB_BYTES,
        M_KNOB_RATIO,
        M_KNOB_MODE,
        M_KNOB_ORIGINAL_VALUE,
        M_KNOB_ORIGINAL_BYTES,
        M_KNOB_ORIGINAL_RATIO,
        M_KNOB_ORIGINAL_MODE,
        M_KNOB_MIN_VALUE,
        M_KNOB_MIN_BYTES,
        M_KNOB_MIN_RATIO,
        M_KNOB_MAX_VALUE,
        M_KNOB_MAX_BYTES,
        M_KNOB_MAX_RATIO,
        M_KNOB_OWNED,
        M_KNOB_DISABLED,
        M_KNOB_HELD,
        M_ACTIONS,
        M_ZONE_FREE,
        M_ZONE_MANAGED,
        M_NODE_HIGH_ORDER_FREE,
        M_NODE_RESERVE_TARGET,
        M_NODE_WATERMARK_HELD,
        M_ZONE_UNUSABLE,
        M_ZONE_FRAG_INDEX,
        M_NODE_SCORE,
        M_SCORE_THRESHOLD,
        M_ZONE_WATERMARK,
        M_ZONE_WATERMARK_BOOST,
        M_ZONE_PAGEBLOCKS,
        M_NODE_NONMOVABLE_BLOCKS,
        M_PAGETYPEINFO_AGE,
        M_COMPACT_STALLS,
        M_COMPACT_OUTCOMES,
        M_COMPACT_SCANNED,
        M_KCOMPACTD_SCANNED,
        M_COMPACT_ISOLATED,
        M_KCOMPACTD_WAKEUPS,
        M_COMPACT_EFFICIENCY,
        M_RECLAIM_STALLS,
        M_THP_FAULT_ALLOC,
        M_THP_FAULT_FALLBACK,
        M_THP_FAULT_FALLBACK_CHARGE,
        M_THP_SHMEM_ALLOC,
        M_THP_SHMEM_FALLBACK,
        M_THP_COLLAPSE_ALLOC,
        M_THP_COLLAPSE_ALLOC_FAILED,
        M_THP_ENABLED_MODE,
        M_PAGECACHE_ADDED,
        M_PAGECACHE_ORDER,
        M_PAGECACHE_SHARE,
        M_KSWAPD_WAKEUPS,
        M_ALLOC_FAILURES,
        M_PSI_AVG10,
        M_CGROUP_PRESENT,
        M_CGROUP_PSI_STALLED,
        M_CGROUP_THP,
        M_CGROUP_DELAY,
        M_CGROUP_DELAYS,
        M_CGROUP_THP_MECHANISM,
        _METRIC_MAX,
} MetricId;

typedef struct MetricFamily {
        const char *name;
        MetricType type;
        const char *unit;                          /* "bytes", "seconds", "ratio", "" */
        const char *labels[METRIC_MAX_LABELS + 1]; /* NULL-terminated, in sample order */
        const char *help;                          /* one line, no '|', at most METRIC_HELP_MAX */
        const char *section;                       /* heading in docs/metrics.md */
        const char *series;                        /* docs: how many series */
        const char *more;                          /* docs/metrics.md only, after help; NULL: none */
} MetricFamily;

extern const MetricFamily metric_families[_METRIC_MAX];

/* HELP fits a line of a terminal or a tooltip; what needs more is in
 * docs/metrics.md (MetricFamily.more). test-exporter checks it. */
#define METRIC_HELP_MAX 120

const char *metric_type_name(MetricType t); /* "gauge", "counter" */

/* With default settings (6 steered knobs, target orders 4 and the THP order,
 * no watched cgroups), the 2-node fixture vm-6.1-x86_64-2node-compacted
 * renders this many series; test-exporter checks it, docs/metrics.md states it. */
#define METRICS_SERIES_2NODE_FIXTURE 184
/* The ceiling promised for a 2-node host with default settings: 4 KiB
 * pages (x86_64, most arm64), and arm64 with 64 KiB pages, whose 12 THP
 * sizes add 5 series each. */
#define METRICS_SERIES_2NODE_BUDGET 430
#define METRICS_SERIES_2NODE_BUDGET_64K 440
/* Series that do not scale with zones, nodes, knobs, actions or THP sizes:
 * one fragd_source_up per source plus 29 others (3 of them the THP enabled
 * state set). */
#define METRICS_SERIES_FIXED (29 + _OBS_SOURCE_MAX)
/* The formula in docs/metrics.md for 6 zones, 14 orders, 6 migratetypes,
 * 9 THP sizes, 7 knobs (defrag_mode on a 6.15+ kernel; one of them
 * thp_defrag, a mode knob of 5 modes: 9 series instead of 7),
 * SNAPSHOT_MAX_ACTIONS actions, page-cache folios of 14 orders (with the
 * page-cache order and its share) and kswapd woken at 14 orders; the test
 * renders it:
 * FIXED + 7*7 + 2 + 64 + 6*(14 + 4 + 5 + 6) + 2*(4 + 2) + 5*9 + (14 + 2) + 14
 * (7 per knob: every one held). */
#define METRICS_SERIES_2NODE_WORST (METRICS_SERIES_FIXED + 346 + 16 + 14)
/* The same with the 12 THP sizes of arm64 with 64 KiB pages. */
#define METRICS_SERIES_2NODE_WORST_64K (METRICS_SERIES_2NODE_WORST + 5 * 3)
/* Series per watched cgroup (on top of the above). */
#define METRICS_SERIES_PER_CGROUP 13

/* Prints docs/metrics.md (generated from metric_families[]). */
int metrics_doc_render(FILE *f);

/* ---- rendering and writing ----------------------------------------------- */

/* Writes the exposition for s to f: HELP and TYPE for every family that has
 * samples, families in table order, no timestamps. Deterministic for a given
 * Snapshot. Returns 0, -EINVAL for a Snapshot without obs/assessment or with a
 * duplicate series, -E2BIG past a SNAPSHOT_MAX_* cap, -EIO on a stream error. */
int metrics_render(const Snapshot *s, FILE *f);

/* Same, into a malloc'ed NUL-terminated buffer. */
int metrics_render_alloc(const Snapshot *s, char **ret_buf, size_t *ret_len);

/* Opens the textfile directory (O_DIRECTORY), path taken below root_fd (the
 * Root's root_fd: "/" on a host, the --root tree otherwise; symlinks resolve
 * inside it, root_openat()); returns an fd or -errno. It is not created: it
 * belongs to node_exporter's package. */
int metrics_dir_open(int root_fd, const char *path);

/* Renders s and writes it to FRAGD_METRICS_FILE below dirfd atomically
 * (write_file_atomic_at(): a new file under a random name ".fragd.prom.<hex>.tmp"
 * in the same directory, which the textfile collector ignores, fsync, rename,
 * fsync of the directory). Does not log. Returns 0 or -errno. */
int metrics_write(int dirfd, const char *dir_path_for_messages, const Snapshot *s);

/* Per-daemon write state: a failure is logged once per change of state
 * (ok -> failing, one errno -> another, failing -> ok) and counted. */
typedef struct MetricsWriter {
        int last_r;          /* result of the previous write, 0 = ok */
        uint64_t n_writes;
        uint64_t n_failures; /* feed into HealthView.errors[HEALTH_ERR_EXPORT] */
} MetricsWriter;

#define METRICS_WRITER_INIT { .last_r = 0 }

/* metrics_write() plus the logging and counting above. A negative dirfd (the
 * -errno of a failed metrics_dir_open()) is handled as that write error.
 * Returns the write's result; callers may ignore it: export errors never stop
 * the daemon. */
int metrics_writer_write(MetricsWriter *w, int dirfd, const char *dir_path, const Snapshot *s);

/* The same, opening dir_path for this write only: a textfile directory that
 * is missing at start, or removed and recreated (package reinstall), is
 * picked up on the next tick. dir_path "" or NULL: the exporter is off, 0. */
int metrics_writer_write_path(MetricsWriter *w, int root_fd, const char *dir_path, const Snapshot *s);
