/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The observation layer: what the kernel says about free memory, one struct
 * per source. Every source has a pure parser (buffer in, struct out, no I/O,
 * fuzzed) and a reader that opens the file under a Root and calls the parser.
 *
 * Parsers return 0 or a negative errno:
 *   -EBADMSG  malformed input        -ENODATA    a required field is missing
 *   -ERANGE   a number overflowed     -E2BIG      more rows than fragd holds
 *   -EOPNOTSUPP the kernel lacks the feature (reader only)
 * Out-params are written only on success. Capacities are fixed so a pass
 * allocates nothing. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fragd/macro.h"

/* daemon/core/root.h: the readers below take one */
typedef struct Root Root;

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

/* Rows "Node N, zone NAME c0 c1 ..." kept in file order; blank lines are
 * skipped, any other line is -EBADMSG. Every row must have the same number of
 * cells (NR_PAGE_ORDERS, counted): otherwise, or for a row without cells, a
 * non-numeric or negative cell, a name of FRAGD_NAME_MAX bytes or more, or a
 * repeated (node, zone): -EBADMSG. A cell past UINT64_MAX or a node id past
 * INT_MAX: -ERANGE. More than FRAGD_MAX_ZONES rows or FRAGD_MAX_ORDERS
 * cells: -E2BIG. No row at all: -ENODATA. */
int buddyinfo_parse(const char *buf, size_t len, BuddyInfo *ret);
/* proc/buddyinfo; -ENOENT without it (or without proc/). */
int buddyinfo_read(const Root *root, BuddyInfo *ret);
const BuddyZone *buddyinfo_find(const BuddyInfo *b, int node, const char *zone);

/* Shared by the buddyinfo, zoneinfo and pagetypeinfo parsers: consumes
 * "Node N, zone NAME" from the front of *line (a struct Span from
 * parse-util.h). NAME is copied into ret_zone (FRAGD_NAME_MAX bytes);
 * *ret_comma tells whether it ended in ',' (pagetypeinfo's free-count rows).
 * Returns 0, -EBADMSG, or -ERANGE for a node id above INT_MAX. */
struct Span;
int buddyinfo_parse_zone_prefix(struct Span *line, int *ret_node, char *ret_zone, bool *ret_comma);

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
} ZoneInfoNode;

typedef struct ZoneInfo {
        unsigned n_zones; /* every zone, populated or not */
        ZoneInfoZone zones[FRAGD_MAX_ZONES];
        unsigned n_nodes;
        ZoneInfoNode nodes[FRAGD_MAX_NODES];
} ZoneInfo;

/* Zones in file order, populated or not; nodes[] lists every node that has a
 * zone, in first-seen order, have_stats when its "per-node stats" block was
 * seen. Unknown keys and lines (scanned, protection:, pagesets, vendor keys)
 * are skipped; a known key must carry exactly one unsigned value (else
 * -EBADMSG) and appear once per zone (else -EBADMSG). Each zone needs
 * "pages free", min, low, high, spanned and present (else -ENODATA; managed,
 * boost, promo, cma, nr_free_pages_blocks and start_pfn: are optional, see
 * have). min <= low <= high <= promo and managed <= present <= spanned, else
 * -EBADMSG.
 * Lines before the first zone header, a repeated (node, zone) or a second
 * per-node block for a node: -EBADMSG. Overflow: -ERANGE. Past
 * FRAGD_MAX_ZONES zones or FRAGD_MAX_NODES nodes: -E2BIG. No zone: -ENODATA. */
int zoneinfo_parse(const char *buf, size_t len, ZoneInfo *ret);
/* proc/zoneinfo, any size (read into a heap buffer). */
int zoneinfo_read(const Root *root, ZoneInfo *ret);
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

/* Free-count rows are keyed by the type name on the row, block-count cells
 * by the names in their "Number of blocks type" header; types[] is the union
 * in first-seen order. The per-node header may repeat but must agree
 * (pageblock order, pages per block = 2^order, the order list 0..n-1), else
 * -EBADMSG. Rows must have as many cells as their header has columns, and
 * appear once per (zone, type) / zone; a row outside its table, or after an
 * unknown line, is -EBADMSG. "Number of mixed blocks" rows are skipped.
 * "Page block order" or the order header missing, or no zone: -ENODATA.
 * "Pages per block" may be absent (it is derived). Overflow, pageblock
 * order >= 64, node id past INT_MAX: -ERANGE. More than FRAGD_MAX_ZONES
 * zones, FRAGD_MAX_MIGRATETYPES types or FRAGD_MAX_ORDERS orders: -E2BIG. */
int pagetypeinfo_parse(const char *buf, size_t len, PageTypeInfo *ret);
/* proc/pagetypeinfo; -EACCES for non-root since 5.4 (mode 0400), as is. */
int pagetypeinfo_read(const Root *root, PageTypeInfo *ret);
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

int vmstat_parse(const char *buf, size_t len, KvList *ret);   /* "name value" */
int vmstat_read(const Root *root, KvList *ret);
int meminfo_parse(const char *buf, size_t len, KvList *ret);  /* "Name:  value kB"; kB kept */
int meminfo_read(const Root *root, KvList *ret);
/* Both parsers keep every key in file order (duplicates too; kv_get finds the
 * first), skip blank lines, and reject extra fields, a missing value, a
 * non-numeric or negative value (-EBADMSG) and values past UINT64_MAX
 * (-ERANGE). No entry at all: -ENODATA. meminfo_parse also wants MemTotal
 * (-ENODATA) and rejects MemFree or MemAvailable above it (-EBADMSG); the
 * only unit it accepts is "kB". */

/* cgroup v2 memory.stat (same format as vmstat) of the cgroup at
 * sys/fs/cgroup/<cgroup> ("" for the root, "db.slice", "a/b.scope"). */
int memory_stat_read(const Root *root, const char *cgroup, KvList *ret);
/* "fs/cgroup/<cgroup>/<file>" relative to sys_fd; -EINVAL for an absolute
 * path, "." or ".." components, or a file name with '/'. */
int cgroup_file_path(const char *cgroup, const char *file, char *buf, size_t size);

/* ---- PSI: /proc/pressure/<resource>, cgroup <resource>.pressure --------- */

typedef struct PsiLine {
        bool present;
        uint32_t avg10_permyriad, avg60_permyriad, avg300_permyriad; /* 12.34% = 1234 */
        uint64_t total_usec;
} PsiLine;

typedef struct PsiStats {
        PsiLine some, full;
} PsiStats;

/* Fields by key name, any order; unknown key=value fields and unknown line
 * kinds are ignored. A field without '=' or a repeated line or key:
 * -EBADMSG. A line lacking one of avg10/avg60/avg300/total, or neither a
 * "some" nor a "full" line: -ENODATA. avg above 100.00: -ERANGE. */
int psi_parse(const char *buf, size_t len, PsiStats *ret);
/* proc/pressure/<resource>; -EOPNOTSUPP without /proc/pressure (PSI off)
 * or without that resource's file; -EINVAL for a name with '/'. */
int psi_read(const Root *root, const char *resource, PsiStats *ret); /* "memory" */
/* sys/fs/cgroup/<cgroup>/<resource>.pressure */
int psi_read_cgroup(const Root *root, const char *cgroup, const char *resource, PsiStats *ret);

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

/* "always [madvise] never" -> "madvise". -EBADMSG without exactly one [],
 * for "[]", or for characters other than [A-Za-z0-9_+-] in a choice;
 * -ENAMETOOLONG when the choice does not fit in size. */
int thp_mode_parse(const char *buf, size_t len, char *ret, size_t size);
/* -EOPNOTSUPP when the kernel has no THP sysfs, -ENOENT without sys/.
 * Files that are missing, unreadable or malformed leave their field unset
 * ("", 0, THP_KHUGEPAGED_UNSET); stats[] are sorted by name. More than
 * FRAGD_MAX_THP_SIZES sizes or FRAGD_MAX_THP_STATS stats: -E2BIG. */
int thp_read(const Root *root, ThpInfo *ret);
/* Per tick, after one thp_read() into *t: re-reads the global modes and, for
 * every mTHP size whose anon or shmem mode is not "never" (inherit follows
 * the global mode), its fault counters. Sizes set to "never" cannot fault,
 * so their counters are left from the last full read; the per-size "enabled"
 * files and khugepaged settings are re-read only by thp_read(). About 20x
 * cheaper than thp_read() on a 6.18 kernel with 9 mTHP sizes. */
int thp_refresh(const Root *root, ThpInfo *t);
const ThpSize *thp_find_size(const ThpInfo *t, unsigned size_kb);
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

const char *vm_knob_name(VmKnob k); /* "min_free_kbytes" */
int vm_knob_from_name(const char *name); /* VmKnob or -ENOENT */
/* One integer and optional whitespace/newline. Nothing: -ENODATA; two
 * values (a vector sysctl) or garbage: -EBADMSG; past int64: -ERANGE. */
int sysctl_value_parse(const char *buf, size_t len, int64_t *ret);
/* Reads dirfd/path and parses it with sysctl_value_parse(). */
int sysctl_read_at(int dirfd, const char *path, int64_t *ret);
/* A knob that is missing, unreadable or not one integer is !present;
 * -ENOENT only when proc/sys/vm itself is missing. */
int vm_sysctls_read(const Root *root, VmSysctls *ret);

/* ---- node topology: /sys/devices/system/node ---------------------------- */

typedef struct NodeTopo {
        unsigned n_nodes;
        int ids[FRAGD_MAX_NODES];          /* online nodes with memory, ascending */
        uint64_t mem_total_kb[FRAGD_MAX_NODES];
        bool have_compact[FRAGD_MAX_NODES]; /* nodeN/compact exists */
        unsigned n_cpus;                    /* online CPUs, 0 if unknown */
} NodeTopo;

/* "0-3,8,10-11" -> ids; -E2BIG past cap. Whitespace-only -> 0 entries.
 * Items must ascend without overlap (as the kernel prints them), else
 * -EBADMSG; ids above INT_MAX: -ERANGE. With ids NULL it only counts (cap
 * ignored). ids and *ret_n are written only on success. */
int cpulist_parse(const char *buf, size_t len, int *ids, unsigned cap, unsigned *ret_n);
/* MemTotal of nodeN/meminfo ("Node 0 MemTotal:  2017652 kB"), in kB.
 * -EBADMSG when the line names another node, -ENODATA without MemTotal. */
int node_memtotal_parse(const char *buf, size_t len, int node, uint64_t *ret_kb);
/* Nodes from has_memory (else online); a nodeN/meminfo that is missing or
 * malformed leaves mem_total_kb 0. n_cpus from cpu/online, else the sum of
 * the online nodes' cpulists, else 0. Without devices/system/node
 * (CONFIG_NUMA=n): one node 0 with MemTotal from /proc/meminfo. */
int nodes_read(const Root *root, NodeTopo *ret);

/* ---- DMI: /sys/class/dmi/id --------------------------------------------- */

typedef struct DmiInfo {
        char sys_vendor[64];
        char product_name[64];
        char product_family[64];
        char board_asset_tag[64]; /* some clouds put the instance id here */
} DmiInfo;

/* -ENOENT when no DMI. Trailing whitespace trimmed, control characters
 * shown as '?', long values cut; a missing or unreadable file gives "". */
int dmi_read(const Root *root, DmiInfo *ret);

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
        _OBS_SOURCE_MAX,
} ObsSource;

#define OBS_MASK(s) (1u << (s))
#define OBS_PER_TICK                                                                 \
        (OBS_MASK(OBS_BUDDYINFO) | OBS_MASK(OBS_ZONEINFO) | OBS_MASK(OBS_VMSTAT) |   \
         OBS_MASK(OBS_MEMINFO) | OBS_MASK(OBS_PSI_MEMORY) | OBS_MASK(OBS_THP) |      \
         OBS_MASK(OBS_SYSCTL))
#define OBS_ALL ((1u << _OBS_SOURCE_MAX) - 1)

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
} Observation;

const char *obs_source_name(ObsSource s); /* "buddyinfo" */

/* Reads the sources in mask into o (others untouched), records per-source
 * errors in o->err and sets o->have. Returns 0 when buddyinfo was read (the
 * one source fragd cannot work without), else its error. A reader that fails
 * leaves its slot as it was, with the have bit cleared. With buddyinfo not
 * in mask, returns 0 if o already holds a good buddyinfo, else its last
 * error, else -ENODATA. o must be zeroed before its first use. */
int observation_read(const Root *root, unsigned mask, usec_t now_usec, Observation *o);

/* Pure; observation_read() calls it after reading. Checks what no kernel
 * can print, across sources, and rejects the source that says it:
 *   - a node id of FRAGD_MAX_NUMNODES or more (buddyinfo, zoneinfo,
 *     pagetypeinfo);
 *   - a buddyinfo zone whose free pages overflow 64 bits, exceed
 *     FRAGD_MAX_PHYS_BYTES or the zone's present pages (zoneinfo; without
 *     it, a node's free pages against its sysfs MemTotal), or all zones'
 *     free pages MemTotal (meminfo);
 *   - a buddyinfo with fewer orders than pagetypeinfo (rows cut short);
 *   - a zoneinfo zone spanning more than FRAGD_MAX_PHYS_BYTES, or managing
 *     more than MemTotal (meminfo, else the node's MemTotal from sysfs),
 *     with 1/8 slack for memory hot-plugged between the two reads.
 * And notes, without rejecting, a populated zoneinfo zone or a node with
 * memory (sysfs) that buddyinfo does not list (a truncated file): those
 * zones are not assessed. Clears rejected and problems first. The sysfs
 * node sizes are used only when read_mask has OBS_NODES (read with the
 * rest): the daemon reads them once, and memory onlined later (lazily, or
 * hot-plugged) would make them too small. */
void observation_check(Observation *o);

/* What the daemon keeps of the reading before the next one replaces it:
 * what assess() and the exporter compare across two readings (the time,
 * the counters, and buddyinfo for the blocks gained). */
void observation_keep_counters(Observation *dst, const Observation *src);

/* Sources whose absence makes decisions degraded, and what each one's
 * absence disables ("reserve targets and watermarks: not measured"). A
 * source counts as missing when it was asked for and not read, or read and
 * rejected; a kernel without the feature (PSI or THP: -EOPNOTSUPP) and
 * pagetypeinfo (root only, read rarely) do not count. OBS_DEGRADED_REQUIRED
 * are those without which no target can be measured: fragd --once exits 3. */
#define OBS_DEGRADED_REQUIRED (OBS_MASK(OBS_BUDDYINFO) | OBS_MASK(OBS_ZONEINFO))
unsigned observation_missing(const Observation *o, unsigned mask);
const char *obs_source_impact(ObsSource s);

/* The host's memory in bytes: MemTotal (meminfo), else the zones' managed
 * pages (zoneinfo); 0 when neither was read. */
uint64_t observation_mem_bytes(const Observation *o); /* policy/obs-lookup.c */
