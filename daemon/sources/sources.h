/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The readers of kernel files (daemon/sources/source-*.c), one per struct of
 * fragd/obs.h: a pure parser (buffer in, struct out, no I/O, fuzzed) and a
 * reader that opens the file under a Root and calls the parser. The pure
 * lookups over what they fill (kv_get(), zoneinfo_find(), ...) are in
 * fragd/obs.h, implemented by policy/obs-lookup.c.
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

#include "core/root.h"
#include "fragd/obs.h"

/* ---- /proc/buddyinfo --------------------------------------------- */

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

/* ---- /proc/zoneinfo ---------------------------------------------- */

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

/* ---- /proc/pagetypeinfo (root only, costly: read rarely) --------- */

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

/* ---- name/value files: /proc/vmstat, /proc/meminfo, memory.stat --- */

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
/* "fs/cgroup/<cgroup>/<file>" relative to sys_fd (sources/cgroup-path.c);
 * -EINVAL for a cgroup path cgroup_relpath_valid() refuses (absolute, "."
 * or ".." components, too long) or a file name with '/'. */
int cgroup_file_path(const char *cgroup, const char *file, char *buf, size_t size);

/* ---- PSI: /proc/pressure/<resource>, cgroup <resource>.pressure --- */

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

/* ---- THP sysfs: /sys/kernel/mm/transparent_hugepage -------------- */

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

/* ---- vm sysctls fragd reads or steers ---------------------------- */

const char *vm_knob_name(VmKnob k); /* "min_free_kbytes" */
int vm_knob_from_name(const char *name); /* VmKnob or -ENOENT */
/* One integer and optional whitespace/newline. Nothing: -ENODATA; two
 * values (a vector sysctl) or garbage: -EBADMSG; past int64: -ERANGE. */
int sysctl_value_parse(const char *buf, size_t len, int64_t *ret);
/* Reads dirfd/path and parses it with sysctl_value_parse(). */
int sysctl_read_at(int dirfd, const char *path, int64_t *ret);

/* The kernel's limits (proc_dointvec_minmax extra1/extra2) of an integer
 * knob fragd steers, by its fragd name ("vm.watermark_scale_factor",
 * "thp.khugepaged.defrag"): the one table, used by config validation and by
 * the knob journal check. -ENOENT for a knob without listed limits. */
int sysctl_kernel_range(const char *name, int64_t *ret_lo, int64_t *ret_hi);
/* A knob that is missing, unreadable or not one integer is !present;
 * -ENOENT only when proc/sys/vm itself is missing. */
int vm_sysctls_read(const Root *root, VmSysctls *ret);

/* ---- node topology: /sys/devices/system/node --------------------- */

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

/* ---- DMI: /sys/class/dmi/id -------------------------------------- */

typedef struct DmiInfo {
        char sys_vendor[64];
        char product_name[64];
        char product_family[64];
        char board_asset_tag[64]; /* some clouds put the instance id here */
        char chassis_asset_tag[64]; /* Azure: 7783-7084-3265-9085-8269-3286-77 */
} DmiInfo;

/* -ENOENT when no DMI. Trailing whitespace trimmed, control characters
 * shown as '?', long values cut; a missing or unreadable file gives "". */
int dmi_read(const Root *root, DmiInfo *ret);

/* ---- page-cache folios by order: fragd's trace instance --------------- */

#define PAGECACHE_INSTANCE "fragd" /* sys/kernel/tracing/instances/fragd */
#define PAGECACHE_TRIGGER "hist:keys=order:vals=hitcount"

/* The instance's hist file: "#" comments, rows "{ order: N } hitcount: M"
 * (other "name: value" pairs after the key are read and ignored), then
 * "Totals:" with "Hits:", "Entries:", "Dropped:" (unknown totals ignored).
 * A row with another key, a repeated order, a value that is not a number,
 * or a row without hitcount: -EBADMSG; an order of FRAGD_MAX_ORDERS or
 * more, or a count past UINT64_MAX: -ERANGE. No "Totals:" with "Hits:" (cut
 * short): -ENODATA. Entries other than the number of rows, or rows summing
 * past Hits: -EBADMSG. */
int pagecache_hist_parse(const char *buf, size_t len, PageCacheHist *ret);
/* The event's format file: 0 when it has a field named "order", -ENODATA
 * when it has none, -EBADMSG when it is no format file ("format:" line) or a
 * "field:" line has no ';'. */
int pagecache_format_has_order(const char *buf, size_t len);
/* Sets up the instance: tracefs mounted at sys/kernel/tracing, the event
 * with an order field, a leftover instance removed, the instance made and
 * the trigger written (a failed write removes it again). On failure, why
 * holds one sentence naming the file and what to do; -ENOMEDIUM when
 * tracefs is not mounted, -EOPNOTSUPP when the event has no order field. */
int pagecache_trace_start(const Root *root, char *why, size_t why_size);
/* Removes the instance (its trigger goes with it); -ENOENT when absent. */
int pagecache_trace_stop(const Root *root);
/* Reads and parses the instance's hist. Without the instance: -ENOENT when
 * the kernel could have one (no daemon made it), -ENOMEDIUM when tracefs
 * is not mounted, -EOPNOTSUPP when there is no tracefs, no such event or
 * no order field. */
int pagecache_read(const Root *root, PageCacheHist *ret);

/* Pageblock-polluting fallbacks, counted in the same instance (docs/policy.md
 * "defrag_mode"): a hist trigger on kmem:mm_page_alloc_extfrag keyed by the
 * two migratetypes. Every allocation that falls back into another
 * migratetype's free list is one hit; those of an Unmovable or Reclaimable
 * allocation taking from a Movable block (the blocks huge pages are made
 * of) are the polluting ones. */
#define EXTFRAG_TRIGGER "hist:keys=alloc_migratetype,fallback_migratetype:vals=hitcount"
/* The hist: rows "{ alloc_migratetype: A, fallback_migratetype: F }
 * hitcount: N" and the totals, checked as pagecache_hist_parse() checks its
 * own; a migratetype of FRAGD_MAX_MIGRATETYPES or more: -ERANGE, a pair
 * twice: -EBADMSG. ret->valid is set. */
int extfrag_hist_parse(const char *buf, size_t len, ExtfragHist *ret);
/* The event's format file: 0 when it has both migratetype fields, else as
 * pagecache_format_has_order(). */
int extfrag_format_has_fields(const char *buf, size_t len);
/* Writes the trigger into the instance pagecache_trace_start() made (it
 * goes with the instance at stop). why as there. */
int extfrag_trace_start(const Root *root, char *why, size_t why_size);
/* Reads and parses the instance's extfrag hist; -ENODATA when no trigger
 * is set (the hist file is then empty). */
int extfrag_read(const Root *root, ExtfragHist *ret);

/* Scopes the instance to tasks (tracefs set_event_pid, with the instance's
 * event-fork option on, so the kernel adds their children and threads as
 * they are made and drops them at exit): every trigger in it then counts
 * those tasks' events alone (page-cache folios, kswapd woken, polluting
 * fallbacks). tids[0..n) replace the list; n == 0 writes pid 0 (the idle
 * task, which adds no page cache): nothing is counted; tids NULL clears the
 * list: every task counts again. why as pagecache_trace_start(). */
int pagecache_trace_set_tasks(const Root *root, const int32_t *tids, size_t n, char *why, size_t why_size);
/* Adds tids[0..n) to the list the kernel has (no clearing: the kernel
 * copies its list and adds these, so the probes it registered for the
 * filter stay, and no moment counts every task, as a rewrite's clearing
 * does). why as above; 0 when n == 0. */
int pagecache_trace_add_tasks(const Root *root, const int32_t *tids, size_t n, char *why, size_t why_size);
/* The list the kernel has now (set_event_pid: one id a line; the kernel
 * has added the listed tasks' children and dropped those that exited). */
int pagecache_trace_tasks_read(const Root *root, int32_t **ret, size_t *ret_n);
/* Parses such a list (ids separated by white space, each 0..INT32_MAX):
 * -EBADMSG on anything else, -ERANGE past INT32_MAX. */
int pagecache_tasks_parse(const char *buf, size_t len, int32_t **ret, size_t *ret_n);
/* The ids of want[0..n) not in have[0..m) into missing (room for n),
 * their count in *ret_missing; returns 1 when have holds an id not in want
 * (only a rewrite drops it), else 0; have is sorted in place. */
int pagecache_tasks_missing(const int32_t *want, size_t n, int32_t *have, size_t m, int32_t *missing,
                            size_t *ret_missing);

/* kswapd woken by order, counted in the same instance (docs/policy.md
 * "Page-cache demand"): a hist trigger on vmscan:mm_vmscan_wakeup_kswapd
 * keyed by the allocation's order. A wake-up at the page cache's order in
 * a tick that added smaller folios says those folios fell back. */
#define KSWAPD_WAKE_TRIGGER "hist:keys=order:vals=hitcount"
/* A hist keyed by order alone (kswapd woken, failed allocations): rows
 * "{ order: N } hitcount: M" and the totals, checked as
 * pagecache_hist_parse() checks its own (an order of FRAGD_MAX_ORDERS or
 * more: -ERANGE, an order twice: -EBADMSG). ret->valid is set. */
int order_count_hist_parse(const char *buf, size_t len, OrderCountHist *ret);
/* The event's format file: 0 when it has an order field, else as
 * pagecache_format_has_order(). */
int kswapd_wake_format_has_order(const char *buf, size_t len);
/* Writes the trigger into the instance pagecache_trace_start() made (it
 * goes with the instance at stop). why as there. */
int kswapd_wake_trace_start(const Root *root, char *why, size_t why_size);
/* Reads and parses the instance's kswapd hist; -ENODATA when no trigger is
 * set. */
int kswapd_wake_read(const Root *root, OrderCountHist *ret);

/* Failed allocations by order, counted in the same instance while it counts
 * the watched cgroups' tasks alone (docs/policy.md "Page-cache demand"): a
 * hist trigger on kmem:mm_page_alloc, which the allocator emits for every
 * allocation, with no page (pfn -1, ULONG_MAX) when it failed. A failed
 * allocation at the page cache's order is a large folio retried smaller:
 * the fallback itself, counted whether or not it woke kswapd. Set only on
 * a scoped instance: host-wide, every allocation of the host would pass
 * the trigger's filter. */
#define ALLOC_FAIL_TRIGGER "hist:keys=order:vals=hitcount if pfn == " ALLOC_FAIL_PFN
#if __SIZEOF_LONG__ == 8
#define ALLOC_FAIL_PFN "18446744073709551615"
#else
#define ALLOC_FAIL_PFN "4294967295"
#endif
/* The event's format file: 0 when it has the order and pfn fields, else as
 * pagecache_format_has_order(). */
int alloc_fail_format_has_fields(const char *buf, size_t len);
/* Writes the trigger into the instance pagecache_trace_start() made (it
 * goes with the instance at stop, or with alloc_fail_trace_stop()). why as
 * pagecache_trace_start(). */
int alloc_fail_trace_start(const Root *root, char *why, size_t why_size);
/* Removes it (the instance then counts no allocation); 0 when it was not
 * set. */
int alloc_fail_trace_stop(const Root *root, char *why, size_t why_size);
/* Reads and parses the instance's failed-allocation hist; -ENODATA when no
 * trigger is set. */
int alloc_fail_read(const Root *root, OrderCountHist *ret);
