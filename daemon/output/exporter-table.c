/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The metric family table: the single source of truth for what fragd exports.
 * daemon/output/exporter.c renders samples against it; metrics_doc_render() turns it
 * into docs/metrics.md (tools/fragd-metrics-doc), and test-exporter checks
 * that the checked-in docs equal that output. */

#include <stdio.h>

#include "output/exporter.h"

#define L(...) { __VA_ARGS__, NULL }
#define NOLABELS { NULL }

#define S_HEALTH "fragd itself"
#define S_KNOBS "Knobs and actions"
#define S_FREE "Free memory and fragmentation"
#define S_COMPACT "Compaction and reclaim"
#define S_THP "Transparent huge pages"
#define S_PAGECACHE "Page cache"
#define S_PSI "Memory pressure"
#define S_CGROUP "Watched cgroups"

const MetricFamily metric_families[_METRIC_MAX] = {
        [M_BUILD_INFO] = {
                "fragd_build_info", METRIC_GAUGE, "", L("version"),
                "fragd build information; the value is always 1.",
                S_HEALTH, "1", .more = NULL },
        [M_LAST_TICK_TIMESTAMP] = {
                "fragd_last_tick_timestamp_seconds", METRIC_GAUGE, "seconds", NOLABELS,
                "Wall-clock time (Unix seconds) at the end of the last completed tick.",
                S_HEALTH, "1", .more = NULL },
        [M_TICK_DURATION] = {
                "fragd_tick_duration_seconds", METRIC_GAUGE, "seconds", NOLABELS,
                "Time the last tick took, from reading the sources to acting on the decision.",
                S_HEALTH, "1", .more = NULL },
        [M_TICK_INTERVAL] = {
                "fragd_tick_interval_seconds", METRIC_GAUGE, "seconds", NOLABELS,
                "Time until the next timer tick: [daemon] interval, or active_interval while fragd watches closely.",
                S_HEALTH, "1",
                .more = "fragd watches closely after THP faults, direct compaction or reclaim, or memory "
                        "pressure, for active_hold." },
        [M_ERRORS] = {
                "fragd_errors_total", METRIC_COUNTER, "", L("kind"),
                "Errors since start by kind: source_read, knob_write, export.",
                S_HEALTH, "3",
                .more = "source_read: a kernel file could not be read or parsed; knob_write: a knob write or "
                        "its read-back failed; export: fragd.prom could not be written." },
        [M_DRY_RUN] = {
                "fragd_dry_run", METRIC_GAUGE, "", NOLABELS,
                "1 when fragd decides and reports but writes no knob (--dry-run or preset observe).",
                S_HEALTH, "1", .more = NULL },
        [M_PAUSED] = {
                "fragd_paused", METRIC_GAUGE, "", NOLABELS,
                "1 while fragd is paused (fragd pause): knobs handed back, it observes and decides only.",
                S_HEALTH, "1",
                .more = "It acts again after fragd resume." },
        [M_SOURCE_UP] = {
                "fragd_source_up", METRIC_GAUGE, "", L("source"),
                "1 when the last read of a kernel source succeeded, 0 when it failed or was rejected as impossible.",
                S_HEALTH, "one per kernel source fragd reads",
                .more = "fragd logs why, and the decisions that need the source are degraded. Absent for a "
                        "source fragd has not tried to read." },

        [M_KNOB_VALUE] = {
                "fragd_knob_value", METRIC_GAUGE, "", L("knob"),
                "Current value of a steered knob without unit, as in /proc/sys (compaction_proactiveness, defrag_mode).",
                S_KNOBS, "steered knobs without unit (3 by default, with defrag_mode where the kernel has it)",
                .more = "Each knob is in the family of its unit: fragd_knob_value (no unit), "
                        "fragd_knob_bytes (min_free_kbytes, in bytes), fragd_knob_ratio (watermark_scale_factor, "
                        "watermark_boost_factor: 1/10000 in /proc/sys) or fragd_knob_mode (thp_defrag). A knob fragd does not know "
                        "the unit of is in fragd_knob_value." },
        [M_KNOB_BYTES] = {
                "fragd_knob_bytes", METRIC_GAUGE, "bytes", L("knob"),
                "Current value of a steered knob in bytes (min_free_kbytes x 1024).",
                S_KNOBS, "steered knobs in KiB (1 by default)", .more = NULL },
        [M_KNOB_RATIO] = {
                "fragd_knob_ratio", METRIC_GAUGE, "ratio", L("knob"),
                "Current value of a steered knob as a ratio (watermark_scale/boost_factor: /proc/sys value / 10000).",
                S_KNOBS, "steered knobs in 1/10000 (2 by default)", .more = NULL },
        [M_KNOB_MODE] = {
                "fragd_knob_mode", METRIC_GAUGE, "", L("knob", "mode"),
                "Mode of a steered mode knob (thp_defrag): one series per mode, 1 for the one in force.",
                S_KNOBS, "modes of steered mode knobs (5 by default)", .more = NULL },
        [M_KNOB_ORIGINAL_VALUE] = {
                "fragd_knob_original_value", METRIC_GAUGE, "", L("knob"),
                "Value (no unit) the knob had before fragd first changed it; restored on stop.",
                S_KNOBS, "steered knobs without unit",
                .more = "Absent until fragd has saved it; so are the other fragd_knob_original_* families." },
        [M_KNOB_ORIGINAL_BYTES] = {
                "fragd_knob_original_bytes", METRIC_GAUGE, "bytes", L("knob"),
                "Value in bytes the knob had before fragd first changed it; restored on stop.",
                S_KNOBS, "steered knobs in KiB", .more = NULL },
        [M_KNOB_ORIGINAL_RATIO] = {
                "fragd_knob_original_ratio", METRIC_GAUGE, "ratio", L("knob"),
                "Value as a ratio the knob had before fragd first changed it; restored on stop.",
                S_KNOBS, "steered knobs in 1/10000", .more = NULL },
        [M_KNOB_ORIGINAL_MODE] = {
                "fragd_knob_original_mode", METRIC_GAUGE, "", L("knob", "mode"),
                "Mode the knob had before fragd first changed it (value 1); restored on stop.",
                S_KNOBS, "steered mode knobs", .more = NULL },
        [M_KNOB_MIN_VALUE] = {
                "fragd_knob_min_value", METRIC_GAUGE, "", L("knob"),
                "Lowest value (no unit) fragd may write to the knob (configured bound).",
                S_KNOBS, "steered knobs without unit",
                .more = "A mode knob's bounds are not exported (fragd --check-config shows them)." },
        [M_KNOB_MIN_BYTES] = {
                "fragd_knob_min_bytes", METRIC_GAUGE, "bytes", L("knob"),
                "Lowest value in bytes fragd may write to the knob (configured bound).",
                S_KNOBS, "steered knobs in KiB", .more = NULL },
        [M_KNOB_MIN_RATIO] = {
                "fragd_knob_min_ratio", METRIC_GAUGE, "ratio", L("knob"),
                "Lowest value as a ratio fragd may write to the knob (configured bound).",
                S_KNOBS, "steered knobs in 1/10000", .more = NULL },
        [M_KNOB_MAX_VALUE] = {
                "fragd_knob_max_value", METRIC_GAUGE, "", L("knob"),
                "Highest value (no unit) fragd may write to the knob (configured bound).",
                S_KNOBS, "steered knobs without unit", .more = NULL },
        [M_KNOB_MAX_BYTES] = {
                "fragd_knob_max_bytes", METRIC_GAUGE, "bytes", L("knob"),
                "Highest value in bytes fragd may write to the knob (configured bound).",
                S_KNOBS, "steered knobs in KiB", .more = NULL },
        [M_KNOB_MAX_RATIO] = {
                "fragd_knob_max_ratio", METRIC_GAUGE, "ratio", L("knob"),
                "Highest value as a ratio fragd may write to the knob (configured bound).",
                S_KNOBS, "steered knobs in 1/10000", .more = NULL },
        [M_KNOB_OWNED] = {
                "fragd_knob_owned", METRIC_GAUGE, "", L("knob"),
                "1 while fragd owns the knob: it changed the value and will restore the original.",
                S_KNOBS, "steered knobs", .more = NULL },
        [M_KNOB_DISABLED] = {
                "fragd_knob_disabled", METRIC_GAUGE, "", L("knob"),
                "1 when fragd stopped steering the knob (permanent write error, or another writer changed it).",
                S_KNOBS, "steered knobs", .more = NULL },
        [M_KNOB_HELD] = {
                "fragd_knob_held", METRIC_GAUGE, "", L("knob", "hold"),
                "1 while the policy wants to move the knob and something stops it; hold says what.",
                S_KNOBS, "held knobs, at most one per knob",
                .more = "hold: psi (memory pressure over the ceiling), safety (the envelope), at_bound (the "
                        "configured min or max), clamped (the kernel kept another value), unmeasured (a source "
                        "is missing), reversal_limit, nothing_to_reclaim (free memory short and too little for "
                        "kswapd to reclaim), watermark_cap (raised watermarks would hold back over 1 % of the "
                        "node), direct_compaction (defrag_mode while allocations stall in direct compaction). "
                        "Absent while nothing holds it and while paused; the pacing holds "
                        "(dwell, reversal_cooldown) and a back-off (its own event) are not shown." },
        [M_ACTIONS] = {
                "fragd_actions_total", METRIC_COUNTER, "", L("knob", "direction", "reason"),
                "Actions fragd decided since start by knob, direction (up, down, oneshot) and reason code.",
                S_KNOBS, "(knob, direction, reason) seen so far, at most 64",
                .more = "In dry-run mode they are decided and reported but not written." },

        [M_ZONE_FREE] = {
                "fragd_zone_free_bytes", METRIC_GAUGE, "bytes", L("node", "zone", "order"),
                "Free memory in buddy blocks of exactly this order (/proc/buddyinfo count x 2^order pages).",
                S_FREE, "populated zones x orders",
                .more = "Summed over order it is the zone's buddy free memory, per-CPU lists excluded." },
        [M_ZONE_MANAGED] = {
                "fragd_zone_managed_bytes", METRIC_GAUGE, "bytes", L("node", "zone"),
                "Memory managed by the buddy allocator in the zone (/proc/zoneinfo managed).",
                S_FREE, "populated zones", .more = NULL },
        [M_NODE_HIGH_ORDER_FREE] = {
                "fragd_node_high_order_free_bytes", METRIC_GAUGE, "bytes", L("node", "order"),
                "Free memory on the node in buddy blocks of at least this order, at each target order.",
                S_FREE, "nodes x target orders",
                .more = "What allocations of that order can be served from without compaction." },
        [M_NODE_RESERVE_TARGET] = {
                "fragd_node_reserve_target_bytes", METRIC_GAUGE, "bytes", L("node", "order"),
                "The policy's reserve target: free memory wanted on the node in blocks of at least this order.",
                S_FREE, "nodes x target orders", .more = NULL },
        [M_NODE_WATERMARK_HELD] = {
                "fragd_watermark_held_bytes", METRIC_GAUGE, "bytes", L("node"),
                "Memory the raised watermarks hold back on the node (more that kswapd keeps free; 0: not raised).",
                S_FREE, "nodes",
                .more = "The node's high watermark at the present min_free_kbytes and watermark_scale_factor "
                        "minus at the values found at start: the cost of a reserve built by reclaim." },
        [M_ZONE_UNUSABLE] = {
                "fragd_zone_unusable_free_ratio", METRIC_GAUGE, "ratio", L("node", "zone", "order"),
                "Share of the zone's free memory in blocks smaller than this order, at each target order.",
                S_FREE, "populated zones x target orders",
                .more = "The kernel's unusable free space index (debugfs extfrag/unusable_index)." },
        [M_ZONE_FRAG_INDEX] = {
                "fragd_zone_fragmentation_index_ratio", METRIC_GAUGE, "ratio", L("node", "zone", "order"),
                "Kernel fragmentation index at a target order: near 0 short of memory, near 1 fragmented.",
                S_FREE, "at most populated zones x target orders",
                .more = "debugfs extfrag/extfrag_index: why an allocation of the order would fail, near 0 for "
                        "lack of memory, near 1 for fragmentation. Absent while a free block of the order or "
                        "larger exists (the kernel's -1: no allocation of it would fail)." },
        [M_NODE_SCORE] = {
                "fragd_node_fragmentation_score_ratio", METRIC_GAUGE, "ratio", L("node"),
                "Kernel proactive-compaction fragmentation score of the node (0..100 scaled to 0..1).",
                S_FREE, "nodes",
                .more = "fragmentation_score_node(): the present-weighted share of free memory in blocks "
                        "below the THP order." },
        [M_SCORE_THRESHOLD] = {
                "fragd_fragmentation_score_threshold_ratio", METRIC_GAUGE, "ratio", L("threshold"),
                "Score thresholds from vm.compaction_proactiveness: kcompactd starts above high, stops below low.",
                S_FREE, "2", .more = NULL },
        [M_ZONE_WATERMARK] = {
                "fragd_zone_watermark_bytes", METRIC_GAUGE, "bytes", L("node", "zone", "level"),
                "Zone watermarks min, low and high without the boost (/proc/zoneinfo minus boost).",
                S_FREE, "populated zones x 3", .more = NULL },
        [M_ZONE_WATERMARK_BOOST] = {
                "fragd_zone_watermark_boost_bytes", METRIC_GAUGE, "bytes", L("node", "zone"),
                "Boost the kernel adds to every watermark of the zone after fragmenting fallbacks.",
                S_FREE, "populated zones", .more = NULL },
        [M_ZONE_PAGEBLOCKS] = {
                "fragd_zone_pageblocks", METRIC_GAUGE, "", L("node", "zone", "migratetype"),
                "Pageblocks by migratetype from the last /proc/pagetypeinfo read (fragd reads it rarely).",
                S_FREE, "populated zones x migratetypes (at most 6)",
                .more = "Its age: fragd_pagetypeinfo_age_seconds." },
        [M_NODE_NONMOVABLE_BLOCKS] = {
                "fragd_node_nonmovable_pageblocks_ratio", METRIC_GAUGE, "ratio", L("node"),
                "Share of the node's pageblocks that are not Movable (pollution), from the last pagetypeinfo read.",
                S_FREE, "nodes",
                .more = "Unmovable, Reclaimable and the others: what compaction cannot empty." },
        [M_PAGETYPEINFO_AGE] = {
                "fragd_pagetypeinfo_age_seconds", METRIC_GAUGE, "seconds", NOLABELS,
                "Age of the /proc/pagetypeinfo reading behind the pageblock metrics at this tick.",
                S_FREE, "1", .more = NULL },

        [M_COMPACT_STALLS] = {
                "fragd_compaction_direct_stalls_total", METRIC_COUNTER, "", NOLABELS,
                "Allocations that entered direct compaction, any order (vmstat compact_stall).",
                S_COMPACT, "1", .more = NULL },
        [M_COMPACT_OUTCOMES] = {
                "fragd_compaction_direct_outcomes_total", METRIC_COUNTER, "", L("result"),
                "Direct compaction attempts that did (success) or did not (fail) produce a page (vmstat).",
                S_COMPACT, "2",
                .more = "vmstat compact_success, compact_fail." },
        [M_COMPACT_SCANNED] = {
                "fragd_compaction_scanned_pages_total", METRIC_COUNTER, "", L("scanner"),
                "Pages scanned by the compaction migrate and free scanners, all compaction (vmstat).",
                S_COMPACT, "2",
                .more = "Direct, kcompactd, proactive and manual: vmstat compact_migrate_scanned, "
                        "compact_free_scanned." },
        [M_KCOMPACTD_SCANNED] = {
                "fragd_kcompactd_scanned_pages_total", METRIC_COUNTER, "", L("scanner"),
                "Pages scanned by kcompactd alone, reactive and proactive (vmstat compact_daemon_*_scanned).",
                S_COMPACT, "2", .more = NULL },
        [M_COMPACT_ISOLATED] = {
                "fragd_compaction_isolated_pages_total", METRIC_COUNTER, "", NOLABELS,
                "Pages isolated by both compaction scanners (vmstat compact_isolated).",
                S_COMPACT, "1", .more = NULL },
        [M_KCOMPACTD_WAKEUPS] = {
                "fragd_kcompactd_wakeups_total", METRIC_COUNTER, "", NOLABELS,
                "Reactive kcompactd runs (vmstat compact_daemon_wake); proactive rounds are not counted.",
                S_COMPACT, "1", .more = NULL },
        [M_COMPACT_EFFICIENCY] = {
                "fragd_compaction_scanned_pages_per_block_gained", METRIC_GAUGE, "", NOLABELS,
                "Compaction cost over the last tick: pages scanned per free THP-order block gained.",
                S_COMPACT, "0 or 1",
                .more = "Pages scanned by both scanners divided by the gain in free blocks of the THP order "
                        "(blocks of higher order count as 2^(order-THP order)), summed over all zones; +Inf "
                        "when pages were scanned but nothing was gained. Absent when nothing was scanned." },
        [M_RECLAIM_STALLS] = {
                "fragd_reclaim_direct_stalls_total", METRIC_COUNTER, "", NOLABELS,
                "Entries into global direct reclaim (sum of vmstat allocstall_*); memcg reclaim excluded.",
                S_COMPACT, "1", .more = NULL },

        [M_THP_FAULT_ALLOC] = {
                "fragd_thp_fault_alloc_total", METRIC_COUNTER, "", L("size"),
                "Anonymous page faults served with a huge page of this size (mTHP anon_fault_alloc).",
                S_THP, "THP sizes (1 before 6.8, 9 on x86-64 6.8+)",
                .more = "vmstat thp_fault_alloc for the PMD size on kernels without mTHP." },
        [M_THP_FAULT_FALLBACK] = {
                "fragd_thp_fault_fallback_total", METRIC_COUNTER, "", L("size"),
                "Anonymous faults that wanted a huge page of this size and fell back to a smaller one.",
                S_THP, "THP sizes",
                .more = "anon_fault_fallback; vmstat thp_fault_fallback." },
        [M_THP_FAULT_FALLBACK_CHARGE] = {
                "fragd_thp_fault_fallback_charge_total", METRIC_COUNTER, "", L("size"),
                "Of those fallbacks, the ones caused by a memcg charge failure rather than allocation.",
                S_THP, "THP sizes",
                .more = "anon_fault_fallback_charge; vmstat thp_fault_fallback_charge." },
        [M_THP_SHMEM_ALLOC] = {
                "fragd_thp_shmem_alloc_total", METRIC_COUNTER, "", L("size"),
                "shmem/tmpfs huge pages of this size allocated (mTHP stats shmem_alloc, 6.8+).",
                S_THP, "mTHP sizes", .more = NULL },
        [M_THP_SHMEM_FALLBACK] = {
                "fragd_thp_shmem_fallback_total", METRIC_COUNTER, "", L("size"),
                "shmem/tmpfs huge page allocations of this size that fell back (mTHP shmem_fallback, 6.8+).",
                S_THP, "mTHP sizes", .more = NULL },
        [M_THP_COLLAPSE_ALLOC] = {
                "fragd_thp_collapse_alloc_total", METRIC_COUNTER, "", NOLABELS,
                "Huge pages allocated for collapse by khugepaged and MADV_COLLAPSE (vmstat thp_collapse_alloc).",
                S_THP, "1", .more = NULL },
        [M_THP_COLLAPSE_ALLOC_FAILED] = {
                "fragd_thp_collapse_alloc_failed_total", METRIC_COUNTER, "", NOLABELS,
                "Huge page allocations for collapse that failed (vmstat thp_collapse_alloc_failed).",
                S_THP, "1", .more = NULL },
        [M_THP_ENABLED_MODE] = {
                "fragd_thp_enabled_mode", METRIC_GAUGE, "", L("mode"),
                "THP mode of transparent_hugepage/enabled: one series per mode, 1 for the one in force.",
                S_THP, "3 (always, madvise, never)",
                .more = "The defrag mode is fragd_knob_mode{knob=\"thp_defrag\"}." },

        [M_PAGECACHE_ADDED] = {
                "fragd_pagecache_added_bytes_total", METRIC_COUNTER, "bytes", L("order"),
                "Bytes added to the page cache in folios of each order since fragd set up its trace instance.",
                S_PAGECACHE, "one per order seen (0 to 9 on x86-64)",
                .more = "A hist trigger on filemap:mm_filemap_add_to_page_cache ([daemon] pagecache_signal); "
                        "starts again at 0 when fragd restarts." },
        [M_PAGECACHE_ORDER] = {
                "fragd_pagecache_order", METRIC_GAUGE, "", NOLABELS,
                "Highest order with 10 % of the page cache's large-folio bytes: fragd keeps free blocks for it.",
                S_PAGECACHE, "0 or 1",
                .more = "fragd keeps free blocks of this order instead of order_large; absent while there is "
                        "no such order. With watched cgroups whose allocations failed at such orders, the one "
                        "with the most failures (fragd_page_alloc_failures_total)." },
        [M_PAGECACHE_SHARE] = {
                "fragd_pagecache_order_share_ratio", METRIC_GAUGE, "ratio", L("order"),
                "Share of the page cache bytes added in folios of fragd_pagecache_order or larger.",
                S_PAGECACHE, "0 or 1",
                .more = "Of all bytes added since fragd set up its trace instance; a fallback to smaller "
                        "folios lowers it." },
        [M_KSWAPD_WAKEUPS] = {
                "fragd_kswapd_wakeups_total", METRIC_COUNTER, "", L("order"),
                "Times an allocation of each order woke kswapd: no free block of its order above the low "
                "watermark.",
                S_PAGECACHE, "one per order up to the highest seen",
                .more = "A hist trigger on vmscan:mm_vmscan_wakeup_kswapd in fragd's trace instance; a "
                        "wake-up at the page cache's order in a tick that added smaller folios counts them as "
                        "fallbacks. Starts again at 0 when fragd restarts." },
        [M_ALLOC_FAILURES] = {
                "fragd_page_alloc_failures_total", METRIC_COUNTER, "", L("order"),
                "Allocations of each order by the watched cgroups' tasks that returned no page.",
                S_PAGECACHE, "one per order up to the highest seen",
                .more = "A hist trigger on kmem:mm_page_alloc (no page: pfn -1) in fragd's trace instance, set "
                        "only while the instance counts the watched cgroups' tasks alone; a failure at the page "
                        "cache's order is a large folio retried smaller, a fallback. Absent without watched "
                        "cgroups. Starts again at 0 when fragd restarts or the trigger is set again." },

        [M_PSI_AVG10] = {
                "fragd_memory_pressure_avg10_ratio", METRIC_GAUGE, "ratio", L("kind"),
                "System memory pressure averaged by the kernel over 10 s (avg10 / 100).",
                S_PSI, "2",
                .more = "The stall time totals are node_exporter's node_pressure_memory_waiting_seconds_total "
                        "(some) and node_pressure_memory_stalled_seconds_total (full)." },

        [M_CGROUP_PRESENT] = {
                "fragd_cgroup_present", METRIC_GAUGE, "", L("cgroup"),
                "1 when the watched cgroup exists, 0 when it is configured but absent.",
                S_CGROUP, "watched cgroups", .more = NULL },
        [M_CGROUP_PSI_STALLED] = {
                "fragd_cgroup_memory_pressure_stalled_seconds_total", METRIC_COUNTER, "seconds", L("cgroup", "kind"),
                "Memory pressure of the watched cgroup (memory.pressure total), some and full.",
                S_CGROUP, "watched cgroups x 2", .more = NULL },
        [M_CGROUP_THP] = {
                "fragd_cgroup_thp_bytes", METRIC_GAUGE, "bytes", L("cgroup", "kind"),
                "Memory of the watched cgroup in transparent huge pages by kind: anon, file, shmem (memory.stat).",
                S_CGROUP, "watched cgroups x 3", .more = NULL },
        [M_CGROUP_DELAY] = {
                "fragd_cgroup_delay_seconds_total", METRIC_COUNTER, "seconds", L("cgroup", "kind"),
                "Time the watched cgroup's tasks spent in direct compaction, direct reclaim and thrashing.",
                S_CGROUP, "watched cgroups x 3",
                .more = "taskstats delay accounting, kind = compact, reclaim, thrashing." },
        [M_CGROUP_DELAYS] = {
                "fragd_cgroup_delays_total", METRIC_COUNTER, "", L("cgroup", "kind"),
                "Number of those delays (taskstats delay counts, kind = compact, reclaim, thrashing).",
                S_CGROUP, "watched cgroups x 3",
                .more = "compact counts every entry into direct compaction, attempts the kernel then skipped "
                        "(compaction deferred, or too little free memory) included: vmstat compact_stall leaves "
                        "those out, so this count can exceed it." },
        [M_CGROUP_THP_MECHANISM] = {
                "fragd_cgroup_thp_mechanism", METRIC_GAUGE, "", L("cgroup", "mechanism"),
                "THP mechanism in effect for the watched cgroup (value 1).",
                S_CGROUP, "watched cgroups",
                .more = "mechanism: none, madv_collapse, memory_thp or prctl_launcher." },
};

const char *metric_type_name(MetricType t)
{
        return t == METRIC_COUNTER ? "counter" : "gauge";
}

static void doc_family(FILE *f, const MetricFamily *m)
{
        fprintf(f, "| `%s` | %s | ", m->name, metric_type_name(m->type));
        for (unsigned i = 0; m->labels[i]; i++)
                fprintf(f, "%s`%s`", i ? ", " : "", m->labels[i]);
        fprintf(f, " | %s | %s%s%s |\n", m->series, m->help, m->more ? " " : "", m->more ? m->more : "");
}

int metrics_doc_render(FILE *f)
{
        const char *section = NULL;

        fprintf(f, "<!-- Generated by tools/fragd-metrics-doc from daemon/output/exporter-table.c; do not edit.\n"
              "     Regenerate: build/fragd-metrics-doc > docs/metrics.md -->\n"
              "# fragd metrics reference\n"
              "\n"
              "fragd writes the Prometheus text format every `interval` (and after a tick that\n"
              "changed a knob), and once more at exit, to\n"
              "`<textfile_dir>/" FRAGD_METRICS_FILE "` (default `" FRAGD_TEXTFILE_DIR_DEFAULT "`, the Debian\n"
              "node_exporter textfile directory) for node_exporter's textfile collector. The file is\n"
              "written as `" FRAGD_METRICS_FILE ".tmp.<pid>` in the same directory, fsync'ed and\n"
              "renamed, so node_exporter never reads half a file, and after a power loss the file is\n"
              "the last complete one rather than empty. A failed write is logged once\n"
              "per change of state, counted in `fragd_errors_total{kind=\"export\"}` and otherwise ignored.\n"
              "`fragd --once --format prom` prints the same exposition to stdout.\n"
              "\n"
              "Conventions: every name starts with `fragd_`; values are in base units (bytes,\n"
              "seconds, ratios 0..1), a knob's value in the family of its unit (a number without\n"
              "unit, bytes, a ratio, or a mode as a state set: one series per mode, 1 for the one in\n"
              "force); counters end in `_total`; every family has HELP (at most %d characters;\n"
              "the longer notes are only here) and TYPE; no value is a sentinel (a value that\n"
              "does not exist is left out, never -1); no sample carries a\n"
              "timestamp (node_exporter's `node_textfile_mtime_seconds{file=\"" FRAGD_METRICS_FILE "\"}` tells\n"
              "when the file was last written). A family without data on this kernel or host is\n"
              "left out rather than exported as zero.\n"
              "\n"
              "Labels take values from bounded sets only: `node` and `zone` from the kernel's\n"
              "topology, `order` from 0 to the kernel's largest order, `knob`, `reason`,\n"
              "`direction`, `kind`, `level`, `result`, `scanner`, `source`, `threshold` and\n"
              "`mechanism` from fixed lists in fragd, `mode` and `migratetype` from the kernel's lists,\n"
              "`size` from the kernel's THP sizes, `cgroup` from the configured `[cgroup \"...\"]`\n"
              "sections only (never discovered).\n"
              "\n"
              "## Cardinality\n"
              "\n", METRIC_HELP_MAX);
        fprintf(f,
                "With default settings (6 steered knobs, target orders 4 and the THP order, no\n"
                "watched cgroups) the 2-node test fixture `vm-6.1-x86_64-2node-compacted`\n"
                "(4 populated zones, 11 orders, 5 migratetypes, no mTHP) exports **%d series**;\n"
                "`tests/unit/test-exporter.c` counts them. A 2-node host with default settings\n"
                "stays at or below **%d series** with 4 KiB pages, and at or below **%d** on\n"
                "arm64 with 64 KiB pages: with Z populated zones, O orders, T target\n"
                "orders (2), M migratetypes (at most 6), K knobs (7 with vm.defrag_mode, 6 on\n"
                "kernels before 6.15), A action counters (at most\n"
                "%d), S THP sizes, P orders of page-cache folios and W orders kswapd was woken\n"
                "at (each at most O), the count is\n"
                "at most %d + 7K + D + A + Z(O + 2T + 5 + M) + 2(2T + 2) + 5S + P + 2 + W, D the\n"
                "modes of the mode knobs less 3 each (2: thp_defrag has 5 modes and no bounds),\n"
                "which is %d for Z = 6, O = P = W = 14, M = 6, S = 9, A = %d (the test renders a\n"
                "synthetic snapshot of that size and checks the count), or %d with the 12 THP\n"
                "sizes of arm64 with 64 KiB pages (rendered and counted too). Each watched\n"
                "cgroup adds %d series; watched cgroups are capped at %d. With any cgroup\n"
                "watched, `fragd_page_alloc_failures_total` adds one series per order up to\n"
                "the highest that failed (at most O), once.\n"
                "\n",
                METRICS_SERIES_2NODE_FIXTURE, METRICS_SERIES_2NODE_BUDGET, METRICS_SERIES_2NODE_BUDGET_64K,
                SNAPSHOT_MAX_ACTIONS, METRICS_SERIES_FIXED, METRICS_SERIES_2NODE_WORST, SNAPSHOT_MAX_ACTIONS,
                METRICS_SERIES_2NODE_WORST_64K, METRICS_SERIES_PER_CGROUP,
                SNAPSHOT_MAX_CGROUPS);
        for (unsigned i = 0; i < _METRIC_MAX; i++) {
                const MetricFamily *m = &metric_families[i];

                if (!section || section != m->section) {
                        section = m->section;
                        fprintf(f, "## %s\n\n| name | type | labels | series | help |\n|---|---|---|---|---|\n",
                                section);
                }
                doc_family(f, m);
                if (i + 1 == _METRIC_MAX || metric_families[i + 1].section != section)
                        fputc('\n', f);
        }
        fputs("## Derived values\n"
              "\n"
              "- **Compaction efficiency** (`fragd_compaction_scanned_pages_per_block_gained`):\n"
              "  between two ticks, (Δ`compact_migrate_scanned` + Δ`compact_free_scanned`) divided\n"
              "  by Δ(Σ over zones of Σ_{k ≥ h} nr_free[k]·2^(k−h)), h = the THP order. Lower is\n"
              "  better; a rising value means compaction costs more per huge page it yields. Over a\n"
              "  longer window use `rate(fragd_compaction_scanned_pages_total[…])` against\n"
              "  `deriv()` of `fragd_node_high_order_free_bytes`.\n"
              "- **Fragmentation index** follows `__fragmentation_index()`: with F free pages,\n"
              "  B free blocks and no block of the order free, 1 − (1 + F/2^o)/B; 0 when the\n"
              "  zone has no free memory. Where a block of the order or larger is free the\n"
              "  kernel says −1 (no allocation of the order would fail): the series is absent.\n"
              "- **Unusable free index** follows `unusable_free_index()`: (F − S·2^o)/F, S the\n"
              "  number of free 2^o-page blocks; 1 when the zone has no free memory.\n"
              "\n"
              "Alert and recording rules using these metrics: `monitoring/fragd.rules.yml`;\n"
              "dashboard: `monitoring/grafana-dashboard.json`.\n",
              f);
        return ferror(f) ? -EIO : 0;
}
