/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The observation layer: what the kernel says about free memory, one struct
 * per source, with fixed capacities so a pass allocates nothing; and the pure
 * lookups over them (policy/obs-lookup.c). The parsers and readers that fill
 * them are the daemon's: daemon/sources/sources.h. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fragd/macro.h"

#define FRAGD_MAX_ORDERS 16       /* NR_PAGE_ORDERS: 11 on x86-64, 14 on arm64 64K */
#define FRAGD_MAX_ZONES 128       /* (node, zone) pairs */
#define FRAGD_MAX_NODES 64        /* node ids may be sparse and larger */
#define FRAGD_MAX_MIGRATETYPES 12
#define FRAGD_NAME_MAX 24         /* zone and migratetype names */
#define FRAGD_KV_NAME_MAX 48
#define FRAGD_MAX_KV 512
#define FRAGD_MAX_THP_SIZES 16
#define FRAGD_MAX_THP_STATS 32

/* ---- /proc/buddyinfo --------------------------------------------------- */

typedef struct BuddyZone {
        int node;
        char zone[FRAGD_NAME_MAX];
        unsigned n_orders;
        uint64_t nr_free[FRAGD_MAX_ORDERS]; /* free blocks (not pages) per order */
} BuddyZone;

typedef struct BuddyInfo {
        unsigned n_orders; /* the largest per-zone count */
        unsigned n_zones;
        BuddyZone zones[FRAGD_MAX_ZONES];
} BuddyInfo;

const BuddyZone *buddyinfo_find(const BuddyInfo *b, int node, const char *zone);

/* ---- /proc/zoneinfo ---------------------------------------------------- */

enum {
        ZONE_HAVE_MANAGED = 1u << 0, /* old kernels have no "managed" line */
        ZONE_HAVE_BOOST = 1u << 1,
        ZONE_HAVE_PROMO = 1u << 2,
        ZONE_HAVE_CMA = 1u << 3,
        ZONE_HAVE_NR_FREE_BLOCKS = 1u << 4, /* nr_free_pages_blocks, 6.15+ */
        ZONE_HAVE_START_PFN = 1u << 5,
};

typedef struct ZoneInfoZone {
        int node;
        char zone[FRAGD_NAME_MAX];
        unsigned have; /* ZONE_HAVE_* */
        uint64_t pages_free;
        uint64_t boost;
        uint64_t min, low, high, promo; /* as printed: boost included */
        uint64_t spanned, present, managed, cma;
        uint64_t nr_free_pages;
        uint64_t nr_free_pages_blocks;
        uint64_t start_pfn;
        bool node_unreclaimable;
} ZoneInfoZone;

/* The "per-node stats" block, printed under a node's first populated zone. */
typedef struct ZoneInfoNode {
        int node;
        bool have_stats;
        uint64_t nr_inactive_anon, nr_active_anon;
        uint64_t nr_inactive_file, nr_active_file;
        uint64_t nr_slab_reclaimable, nr_shmem, nr_file_pages;
        /* huge pages mapped on the node, in units of PMD THPs as the
         * kernel prints them (vmstat_item_print_in_thp()); have_thp when
         * nr_anon_transparent_hugepages was printed in the node's block */
        bool have_thp;
        uint64_t nr_anon_transparent_hugepages, nr_shmem_hugepages, nr_file_hugepages;
} ZoneInfoNode;

typedef struct ZoneInfo {
        unsigned n_zones; /* every zone, populated or not */
        ZoneInfoZone zones[FRAGD_MAX_ZONES];
        unsigned n_nodes;
        ZoneInfoNode nodes[FRAGD_MAX_NODES];
} ZoneInfo;

const ZoneInfoZone *zoneinfo_find(const ZoneInfo *z, int node, const char *zone);
const ZoneInfoNode *zoneinfo_find_node(const ZoneInfo *z, int node);

/* ---- /proc/pagetypeinfo (root only, costly: read rarely) --------------- */

typedef struct PageTypeZone {
        int node;
        char zone[FRAGD_NAME_MAX];
        /* free blocks per (migratetype index, order); capped cells (">100000")
         * hold 100000 and have their bit set in capped[type] */
        uint64_t free[FRAGD_MAX_MIGRATETYPES][FRAGD_MAX_ORDERS];
        uint32_t capped[FRAGD_MAX_MIGRATETYPES];
        bool have_blocks;
        uint64_t blocks[FRAGD_MAX_MIGRATETYPES]; /* pageblocks per type */
} PageTypeZone;

typedef struct PageTypeInfo {
        unsigned pageblock_order;
        uint64_t pages_per_block;
        unsigned n_orders;
        unsigned n_types; /* names in first-seen order; indexes free[] and blocks[] */
        char types[FRAGD_MAX_MIGRATETYPES][FRAGD_NAME_MAX];
        unsigned n_zones;
        PageTypeZone zones[FRAGD_MAX_ZONES];
} PageTypeInfo;

/* Index of a migratetype name ("Unmovable"), or -ENOENT. */
int pagetypeinfo_type_index(const PageTypeInfo *p, const char *name);
const PageTypeZone *pagetypeinfo_find(const PageTypeInfo *p, int node, const char *zone);

/* ---- name/value files: /proc/vmstat, /proc/meminfo, memory.stat -------- */

typedef struct KvEntry {
        char name[FRAGD_KV_NAME_MAX];
        uint64_t value;
} KvEntry;

typedef struct KvList {
        unsigned n;
        unsigned n_skipped; /* names too long to keep */
        KvEntry e[FRAGD_MAX_KV];
} KvList;

/* 0 and *ret set (ret may be NULL), or -ENOENT */
int kv_get(const KvList *l, const char *name, uint64_t *ret);
/* value or dflt */
uint64_t kv_get_or(const KvList *l, const char *name, uint64_t dflt);


/* ---- PSI: /proc/pressure/<resource>, cgroup <resource>.pressure --------- */

typedef struct PsiLine {
        bool present;
        uint32_t avg10_permyriad, avg60_permyriad, avg300_permyriad; /* 12.34% = 1234 */
        uint64_t total_usec;
} PsiLine;

typedef struct PsiStats {
        PsiLine some, full;
} PsiStats;


/* ---- THP sysfs: /sys/kernel/mm/transparent_hugepage --------------------- */

#define THP_MODE_MAX 24

typedef struct ThpStat {
        char name[32];
        uint64_t value;
} ThpStat;

typedef struct ThpSize {
        unsigned size_kb;
        char enabled[THP_MODE_MAX];       /* "" when the file is absent (8kB) */
        char shmem_enabled[THP_MODE_MAX]; /* "" when absent */
        unsigned n_stats;
        ThpStat stats[FRAGD_MAX_THP_STATS];
} ThpSize;

#define THP_KHUGEPAGED_UNSET INT64_MIN

typedef struct ThpInfo {
        char enabled[THP_MODE_MAX];       /* the bracketed choice: "madvise" */
        char defrag[THP_MODE_MAX];
        char shmem_enabled[THP_MODE_MAX];
        uint64_t hpage_pmd_size;          /* bytes, 0 when absent */
        int64_t use_zero_page;            /* THP_KHUGEPAGED_UNSET when absent */
        /* khugepaged/: THP_KHUGEPAGED_UNSET when absent */
        int64_t khugepaged_defrag, pages_to_scan, scan_sleep_millisecs,
                alloc_sleep_millisecs, max_ptes_none, max_ptes_swap,
                max_ptes_shared, full_scans, pages_collapsed;
        unsigned n_sizes; /* mTHP per-size dirs, ascending size; 0 before 6.8 */
        ThpSize sizes[FRAGD_MAX_THP_SIZES];
} ThpInfo;

const ThpSize *thp_find_size(const ThpInfo *t, unsigned size_kb);
/* Index of a stat in s->stats[], or -ENOENT. */
int thp_size_stat_index(const ThpSize *s, const char *name);
/* 0 and *ret set (ret may be NULL), or -ENOENT: tells a missing stat from 0 */
int thp_size_stat_get(const ThpSize *s, const char *name, uint64_t *ret);
/* value or dflt */
uint64_t thp_size_stat(const ThpSize *s, const char *name, uint64_t dflt);

/* ---- vm sysctls fragd reads or steers ----------------------------------- */

typedef enum VmKnob {
        VM_MIN_FREE_KBYTES,
        VM_WATERMARK_SCALE_FACTOR,
        VM_WATERMARK_BOOST_FACTOR,
        VM_COMPACTION_PROACTIVENESS,
        VM_EXTFRAG_THRESHOLD,
        VM_DEFRAG_MODE,
        VM_PERCPU_PAGELIST_HIGH_FRACTION,
        VM_COMPACT_UNEVICTABLE_ALLOWED,
        VM_ZONE_RECLAIM_MODE,
        _VM_KNOB_MAX,
} VmKnob;

typedef struct VmSysctls {
        bool present[_VM_KNOB_MAX];
        int64_t value[_VM_KNOB_MAX];
} VmSysctls;

/* ---- node topology: /sys/devices/system/node ---------------------------- */

typedef struct NodeTopo {
        unsigned n_nodes;
        int ids[FRAGD_MAX_NODES];          /* online nodes with memory, ascending */
        uint64_t mem_total_kb[FRAGD_MAX_NODES];
        bool have_compact[FRAGD_MAX_NODES]; /* nodeN/compact exists */
        unsigned n_cpus;                    /* online CPUs, 0 if unknown */
} NodeTopo;

/* ---- page-cache folios by order ------------------------------------------
 * The aggregated histogram of filemap:mm_filemap_add_to_page_cache keyed by
 * the folio's order, from fragd's own tracing instance
 * (sys/kernel/tracing/instances/fragd, daemon/sources/source-pagecache.c):
 * folios added since the trigger was set, in the kernel (no event is
 * copied to user space). */

typedef struct PageCacheHist {
        unsigned n_orders;                 /* highest order with a row + 1 */
        uint64_t folios[FRAGD_MAX_ORDERS]; /* folios added per order */
        uint64_t hits;                     /* Totals: Hits */
        uint64_t dropped;                  /* Totals: Dropped (entries the map had no room for) */
} PageCacheHist;

/* ---- pageblock-polluting fallbacks ---------------------------------------
 * The aggregated histogram of kmem:mm_page_alloc_extfrag keyed by
 * alloc_migratetype and fallback_migratetype, in the same instance
 * (daemon/sources/source-pagecache.c): counts since the trigger was set. */

typedef struct ExtfragHist {
        bool valid;         /* read and parsed with the page-cache hist */
        uint64_t fallbacks; /* every fallback into another migratetype's free list */
        uint64_t polluting; /* an Unmovable or Reclaimable allocation took from a Movable block */
        uint64_t dropped;   /* Totals: Dropped */
} ExtfragHist;

/* ---- counts by allocation order -----------------------------------------
 * An aggregated histogram keyed by an allocation's order, in the same
 * instance (daemon/sources/source-pagecache.c); counts since its trigger
 * was set. Two of them:
 *   kswapd woken (vmscan:mm_vmscan_wakeup_kswapd): an allocation whose fast
 *   path found no free block of its order above the low watermark wakes
 *   kswapd for that order before it reclaims, compacts or falls back to a
 *   smaller folio (wake_all_kswapds() in __alloc_pages_slowpath()); an
 *   allocation that comes while kswapd is awake wakes nothing and is not
 *   counted.
 *   failed allocations (kmem:mm_page_alloc with no page: pfn -1): every
 *   allocation that returned no page, whatever woke; the page cache's
 *   large folio that failed is retried at a smaller order (a fallback).
 *   Counted only for the watched cgroups' tasks (the instance's task
 *   filter): host-wide, the event is every allocation of the host. */

typedef struct OrderCountHist {
        bool valid;                         /* read and parsed with the page-cache hist */
        uint64_t counts[FRAGD_MAX_ORDERS];  /* events per allocation order */
        uint64_t dropped;                   /* Totals: Dropped */
} OrderCountHist;

/* ---- one observation ---------------------------------------------------- */

typedef enum ObsSource {
        OBS_BUDDYINFO,
        OBS_ZONEINFO,
        OBS_PAGETYPEINFO,
        OBS_VMSTAT,
        OBS_MEMINFO,
        OBS_PSI_MEMORY,
        OBS_THP,
        OBS_SYSCTL,
        OBS_NODES,
        OBS_THP_FULL, /* every THP file; OBS_THP alone re-reads modes and live counters */
        OBS_PAGECACHE, /* fragd's trace instance: page-cache folios by order (not in OBS_PER_TICK:
                        * the daemon adds it once the instance is set up) */
        _OBS_SOURCE_MAX,
} ObsSource;

#define OBS_MASK(s) (1u << (s))
#define OBS_PER_TICK                                                                 \
        (OBS_MASK(OBS_BUDDYINFO) | OBS_MASK(OBS_ZONEINFO) | OBS_MASK(OBS_VMSTAT) |   \
         OBS_MASK(OBS_MEMINFO) | OBS_MASK(OBS_PSI_MEMORY) | OBS_MASK(OBS_THP) |      \
         OBS_MASK(OBS_SYSCTL))
/* every kernel file; OBS_PAGECACHE (a trace instance fragd sets up) is asked
 * for on its own */
#define OBS_ALL ((1u << OBS_PAGECACHE) - 1)

/* The kernel's upper bound on node ids (MAX_NUMNODES with NODES_SHIFT 10,
 * the largest any architecture configures): a higher id is not a node. */
#define FRAGD_MAX_NUMNODES 1024
/* The largest physical address space Linux supports (52 bits: x86-64 with
 * 5-level paging, arm64 with LPA): no zone, node or counter of pages can
 * stand for more bytes. */
#define FRAGD_MAX_PHYS_BYTES (UINT64_C(1) << 52)

#define OBS_PROBLEMS_MAX 8
#define OBS_PROBLEM_LEN 256

typedef struct Observation {
        usec_t now_usec;    /* CLOCK_MONOTONIC of the reading, given by the caller */
        unsigned page_size; /* bytes */
        unsigned have;      /* OBS_MASK bits of sources read successfully */
        int err[_OBS_SOURCE_MAX]; /* 0 or -errno of the last attempt */
        /* what observation_check() found in this reading: sources read but
         * rejected as impossible (their have bit cleared, err -EBADMSG or
         * -ERANGE, bit set in rejected) and readings that are incomplete
         * (a populated zone or a node with memory missing from buddyinfo).
         * One sentence each, naming the file and the zone or node. */
        unsigned rejected;
        unsigned read_mask; /* sources the last observation_read() tried */
        unsigned n_problems;
        char problems[OBS_PROBLEMS_MAX][OBS_PROBLEM_LEN];
        BuddyInfo buddy;
        ZoneInfo zoneinfo;
        PageTypeInfo pagetype; /* sparse: see pagetype_usec */
        usec_t pagetype_usec;  /* when pagetype was read, 0 if never */
        KvList vmstat;
        KvList meminfo;
        PsiStats psi_memory;
        ThpInfo thp;
        VmSysctls vm;
        NodeTopo nodes;
        PageCacheHist pagecache;
        ExtfragHist extfrag; /* read with OBS_PAGECACHE when the daemon set its trigger */
        OrderCountHist kswapd_wake; /* the same */
        OrderCountHist alloc_fail;  /* the same, while the instance counts the watched cgroups alone */
} Observation;

/* The host's memory in bytes: MemTotal (meminfo), else the zones' managed
 * pages (zoneinfo); 0 when neither was read. */
uint64_t observation_mem_bytes(const Observation *o);
