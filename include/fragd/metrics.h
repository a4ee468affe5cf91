/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Measures (policy/metrics.c, pure): what an expert computes from one or two
 * observations. Formulas follow mm/vmstat.c and mm/compaction.c (KERNEL.md §4).
 * Indices are integers in thousandths (permille) like the kernel's own. */

#include <stdbool.h>
#include <stdint.h>

#include "fragd/obs.h"

#define FRAG_INDEX_SUITABLE (-1000) /* a block of the order is free: kernel's -1000 */

typedef struct ZoneMeasures {
        int node;
        char zone[FRAGD_NAME_MAX];
        bool have_zoneinfo;          /* watermarks below are valid */
        uint64_t free_pages;         /* buddy free pages: sum nr_free[k] << k */
        uint64_t free_blocks;        /* sum nr_free[k] */
        uint64_t free_pages_ge[FRAGD_MAX_ORDERS]; /* pages in blocks of order >= k */
        uint32_t unusable_permille[FRAGD_MAX_ORDERS]; /* unusable_free_index() */
        int32_t frag_index_permille[FRAGD_MAX_ORDERS]; /* __fragmentation_index(); -1000 = suitable */
        unsigned score;              /* extfrag_for_order(zone, hpage_order), 0..100 */
        uint64_t present, managed;
        uint64_t wmark_min, wmark_low, wmark_high; /* base: boost subtracted */
        uint64_t boost;
        int64_t headroom_pages;      /* free - (high incl. boost) */
} ZoneMeasures;

typedef struct NodeMeasures {
        int node;
        unsigned zone_first, n_zones; /* slice of Assessment.zones */
        uint64_t free_pages;
        uint64_t free_pages_ge[FRAGD_MAX_ORDERS];
        uint64_t present_pages, managed_pages;
        unsigned frag_score;          /* fragmentation_score_node(), 0..100 */
        uint64_t reclaimable_pages;   /* file LRU + reclaimable slab (per-node stats) */
        bool have_reclaimable;        /* reclaimable_pages was read (zoneinfo's per-node stats) */
        uint64_t wmark_min, wmark_low, wmark_high; /* base, summed over zones */
        uint64_t boost;
        /* from pagetypeinfo when read: share of pageblocks that are not
         * Movable (Unmovable + Reclaimable + others), permille; -1 unknown */
        int32_t polluted_blocks_permille;
        uint64_t blocks_total;
        /* Unmovable + Reclaimable pageblocks (pagetypeinfo's "Number of
         * blocks type" rows, by name), valid with blocks_total > 0 */
        uint64_t nonmovable_blocks;
        /* huge pages mapped on the node (zoneinfo per-node stats: anon +
         * shmem + file THPs, in PMD THPs) and, with a previous reading that
         * had them too, how many more than then (0 when fewer): which node
         * served this interval's THP faults, where the global vmstat
         * counters do not say (KERNEL.md: events are global only) */
        bool have_thp_count, thp_grown_valid;
        uint64_t thp_count, thp_grown;
} NodeMeasures;

typedef struct Rates {
        bool valid;              /* two readings, interval > 0, counters monotonic */
        double interval_sec;
        double compact_stall, compact_fail, compact_success;    /* per second */
        double compact_migrate_scanned, compact_free_scanned;   /* pages/s, all compaction */
        double compact_daemon_scanned;                          /* kcompactd pages/s */
        double compact_isolated;
        double thp_fault_alloc, thp_fault_fallback;             /* per second */
        double thp_fallback_ratio;       /* fallback/(alloc+fallback), -1 when no faults */
        unsigned n_mthp;
        unsigned mthp_size_kb[FRAGD_MAX_THP_SIZES];
        double mthp_fallback_ratio[FRAGD_MAX_THP_SIZES];        /* anon faults, -1 none */
        double allocstall;               /* direct reclaim entries/s, all zones */
        double pgscan_direct;            /* pages/s */
        double pgscan_kswapd;            /* pages/s */
        double psi_some, psi_full;       /* share of wall time stalled, 0..1 */
        /* counters that went backwards or jumped by more than any kernel
         * can count in the interval: taken as a reset, their rate is 0 for
         * this interval. A jump is impossible when it exceeds
         * RATES_MAX_EVENTS_PER_SEC per second, or, for THP fault counters,
         * when the pages faulted exceed the host's memory (MemTotal, else
         * the zones' managed pages) per second of the interval. The daemon
         * logs them (policy/ does not log). */
        unsigned n_resets;
        char reset_counter[FRAGD_KV_NAME_MAX]; /* the first one: "thp_fault_alloc" */
        uint64_t reset_from, reset_to;         /* its two readings */
} Rates;

/* More events of one kind per second than any kernel counter can count
 * (2^40: a trillion). */
#define RATES_MAX_EVENTS_PER_SEC 1099511627776.0

/* A watched workload's stall in the last minute (taskstats delay accounting),
 * filled by the daemon after assess() from the workload module; the policy
 * treats a workload over its budget like a global stall objective and cites
 * it by name. */
#define ASSESSMENT_MAX_WORKLOADS 16
typedef struct WorkloadStall {
        char name[64];                /* "system.slice/system-postgresql.slice/postgresql@15-main.service" */
        uint64_t compact_usec;        /* direct compaction delay in the window */
        uint64_t reclaim_usec;        /* direct reclaim (freepages) delay */
        uint64_t compact_count;
        usec_t span_usec;             /* the window actually covered (<= 1 min) */
        uint64_t budget_usec;         /* compact + reclaim per minute, 0 = none */
        bool over_budget;
} WorkloadStall;

/* Page-cache folios by order (Observation.pagecache): bytes = folios x
 * page size x 2^order. */
typedef struct PageCacheMeasures {
        bool valid;                             /* this reading has the hist */
        uint64_t bytes_total[FRAGD_MAX_ORDERS]; /* added since the trigger was set */
        bool delta_valid;                       /* the previous reading had it too, no count went back */
        double interval_sec;                    /* between the two readings */
        uint64_t bytes_delta[FRAGD_MAX_ORDERS]; /* added between them */
        /* kswapd woken by allocations of each order between the two
         * readings (Observation.kswapd_wake): wake_valid when both had the
         * hist and no count went back */
        bool wake_valid;
        uint64_t kswapd_wakeups_delta[FRAGD_MAX_ORDERS];
        /* allocations of each order that failed between the two readings,
         * the watched cgroups' tasks' alone (Observation.alloc_fail):
         * fail_valid when both had the hist and no count went back */
        bool fail_valid;
        uint64_t alloc_fail_delta[FRAGD_MAX_ORDERS];
        /* the same failures since the trigger was set (this reading had
         * the hist): where the watched workload's allocations fail */
        bool fail_total_valid;
        uint64_t alloc_fail_total[FRAGD_MAX_ORDERS];
} PageCacheMeasures;

/* Pageblock pollution (docs/policy.md "defrag_mode"): the non-movable
 * pageblocks of the last pagetypeinfo reading, and the polluting
 * fallbacks counted in fragd's trace instance between two readings. */
typedef struct PollutionMeasures {
        usec_t blocks_usec;         /* when the pagetypeinfo behind them was read; 0 = none */
        uint64_t nonmovable_blocks; /* Unmovable + Reclaimable pageblocks, every node */
        uint64_t blocks_total;      /* every pageblock but Isolate and CMA */
        bool extfrag_valid;         /* both readings had the hist, no count went back */
        double extfrag_interval_sec;
        uint64_t extfrag_polluting; /* polluting fallbacks between the readings */
        uint64_t extfrag_fallbacks; /* every fallback between them */
} PollutionMeasures;

typedef struct Assessment {
        usec_t now_usec;
        unsigned page_size;
        unsigned n_orders;
        unsigned hpage_order;     /* THP PMD order (9 on x86-64 4K) */
        unsigned pageblock_order; /* from pagetypeinfo, else hpage_order */
        int proactiveness;        /* -1 unknown */
        /* transparent_hugepage/defrag (a ThpDefragMode), read whether or
         * not fragd moves it (the lever is off by default): -1 unknown or
         * no THP */
        int thp_defrag;
        unsigned score_wmark_low, score_wmark_high; /* kernel proactive thresholds */
        PageCacheMeasures pagecache;
        PollutionMeasures pollution;
        unsigned n_zones;
        ZoneMeasures zones[FRAGD_MAX_ZONES];
        unsigned n_nodes;
        NodeMeasures nodes[FRAGD_MAX_NODES];
        uint32_t psi_some_avg10_permyriad, psi_full_avg10_permyriad;
        Rates rates;
        unsigned n_workloads;         /* filled by the daemon, 0 elsewhere */
        WorkloadStall workloads[ASSESSMENT_MAX_WORKLOADS];
        /* OBS_MASK bits of the sources the targets are measured from that
         * this reading lacks, missing or rejected: OBS_ZONEINFO (node sizes:
         * every target is a share of them), OBS_BUDDYINFO. Non-zero:
         * policy_decide() holds every lever where it is (POLICY_HOLD_UNMEASURED):
         * no raise, no lowering, no kick. */
        unsigned unmeasured;
} Assessment;

/* Kernel formulas, exposed for tests and for the report. */
uint32_t unusable_index_permille(const uint64_t *nr_free, unsigned n_orders, unsigned order);
int32_t fragmentation_index_permille(const uint64_t *nr_free, unsigned n_orders, unsigned order);
unsigned extfrag_for_order(const uint64_t *nr_free, unsigned n_orders, unsigned order);
/* fragmentation_score_wmark(): proactiveness 0..100 -> low/high thresholds */
unsigned frag_score_wmark(unsigned proactiveness, bool low);

/* cur is required, prev may be NULL (no rates). Returns 0, or -ENODATA when
 * cur has no buddyinfo. */
int assess(const Observation *cur, const Observation *prev, Assessment *ret);

const NodeMeasures *assessment_node(const Assessment *a, int node);
