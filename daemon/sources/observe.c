/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One observation: call each requested source's reader into its slot of the
 * Observation, recording per-source errors. No logging here: manager.c
 * decides what a failed source means and says so. */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/clock.h"
#include "core/root.h"
#include "fragd/macro.h"
#include "fragd/obs.h"
#include "sources/observe.h"
#include "sources/sources.h"

static const char *const obs_source_names[_OBS_SOURCE_MAX] = {
        [OBS_BUDDYINFO] = "buddyinfo",
        [OBS_ZONEINFO] = "zoneinfo",
        [OBS_PAGETYPEINFO] = "pagetypeinfo",
        [OBS_VMSTAT] = "vmstat",
        [OBS_MEMINFO] = "meminfo",
        [OBS_PSI_MEMORY] = "psi_memory",
        [OBS_THP] = "thp",
        [OBS_SYSCTL] = "sysctl",
        [OBS_NODES] = "nodes",
        [OBS_THP_FULL] = "thp_full",
        [OBS_PAGECACHE] = "pagecache",
};

const char *obs_source_name(ObsSource s)
{
        if ((unsigned) s >= _OBS_SOURCE_MAX)
                return NULL;
        return obs_source_names[s];
}

static int obs_source_read(const Root *root, ObsSource s, Observation *o)
{
        switch (s) {
        case OBS_BUDDYINFO:
                return buddyinfo_read(root, &o->buddy);
        case OBS_ZONEINFO:
                return zoneinfo_read(root, &o->zoneinfo);
        case OBS_PAGETYPEINFO:
                return pagetypeinfo_read(root, &o->pagetype);
        case OBS_VMSTAT:
                return vmstat_read(root, &o->vmstat);
        case OBS_MEMINFO:
                return meminfo_read(root, &o->meminfo);
        case OBS_PSI_MEMORY:
                return psi_read(root, "memory", &o->psi_memory);
        case OBS_THP:
                /* cheap refresh once a full read has filled the per-size table */
                if (o->have & OBS_MASK(OBS_THP_FULL))
                        return thp_refresh(root, &o->thp);
                return thp_read(root, &o->thp);
        case OBS_THP_FULL:
                return thp_read(root, &o->thp);
        case OBS_SYSCTL:
                return vm_sysctls_read(root, &o->vm);
        case OBS_NODES:
                return nodes_read(root, &o->nodes);
        case OBS_PAGECACHE: {
                int r = pagecache_read(root, &o->pagecache);

                /* the fallbacks ride along: no trigger (the daemon could
                 * not set it) leaves them not valid, the source still up */
                if (r >= 0 && extfrag_read(root, &o->extfrag) < 0)
                        o->extfrag = (ExtfragHist) {};
                if (r >= 0 && kswapd_wake_read(root, &o->kswapd_wake) < 0)
                        o->kswapd_wake = (OrderCountHist) {};
                if (r >= 0 && alloc_fail_read(root, &o->alloc_fail) < 0)
                        o->alloc_fail = (OrderCountHist) {};
                return r;
        }
        case _OBS_SOURCE_MAX:
                break;
        }
        return -EINVAL;
}

static bool timing;
static usec_t source_cpu_usec[_OBS_SOURCE_MAX];

void observation_timing(bool on)
{
        timing = on;
        memset(source_cpu_usec, 0, sizeof(source_cpu_usec));
}

usec_t observation_source_cpu_usec(ObsSource s)
{
        return (unsigned) s < _OBS_SOURCE_MAX ? source_cpu_usec[s] : 0;
}

int observation_read(const Root *root, unsigned mask, usec_t now_usec, Observation *o)
{
        if (!root || !o)
                return -EINVAL;
        o->now_usec = now_usec;
        o->page_size = root->page_size;
        o->read_mask = mask;
        for (unsigned s = 0; s < _OBS_SOURCE_MAX; s++) {
                usec_t t0 = 0;
                int r;

                source_cpu_usec[s] = 0;
                if (!(mask & OBS_MASK(s)))
                        continue;
                if (s == OBS_THP && (mask & OBS_MASK(OBS_THP_FULL)))
                        continue; /* the full read below covers it */
                if (timing)
                        t0 = thread_cpu_usec();
                r = obs_source_read(root, (ObsSource) s, o);
                if (timing)
                        source_cpu_usec[s] = thread_cpu_usec() - t0;
                o->err[s] = r < 0 ? r : 0;
                if (s == OBS_THP_FULL)
                        o->err[OBS_THP] = o->err[s];
                if (r < 0) {
                        o->have &= ~OBS_MASK(s);
                        if (s == OBS_THP_FULL)
                                o->have &= ~OBS_MASK(OBS_THP);
                        continue;
                }
                o->have |= OBS_MASK(s);
                if (s == OBS_THP && !(o->have & OBS_MASK(OBS_THP_FULL)))
                        o->have |= OBS_MASK(OBS_THP_FULL); /* that was a full read */
                if (s == OBS_THP_FULL)
                        o->have |= OBS_MASK(OBS_THP);
                if (s == OBS_PAGETYPEINFO)
                        o->pagetype_usec = now_usec;
        }
        observation_check(o);
        if (o->have & OBS_MASK(OBS_BUDDYINFO))
                return 0;
        return o->err[OBS_BUDDYINFO] < 0 ? o->err[OBS_BUDDYINFO] : -ENODATA;
}

/* ---- plausibility across sources ----------------------------------------- */

static void problem(Observation *o, const char *fmt, ...) _printf_(2, 3);
static void problem(Observation *o, const char *fmt, ...)
{
        va_list ap;

        if (o->n_problems >= OBS_PROBLEMS_MAX)
                return;
        va_start(ap, fmt);
        (void) vsnprintf(o->problems[o->n_problems++], OBS_PROBLEM_LEN, fmt, ap);
        va_end(ap);
}

static void reject(Observation *o, ObsSource s, int err)
{
        o->have &= ~OBS_MASK(s);
        o->rejected |= OBS_MASK(s);
        o->err[s] = err;
        if (s == OBS_PAGETYPEINFO)
                o->pagetype_usec = 0; /* the slot holds the rejected reading: not "the last one" */
}

/* pages of a zone as bytes; false when that overflows or passes the
 * largest physical address space */
static bool pages_plausible(uint64_t pages, unsigned page_size)
{
        uint64_t ps = page_size ? page_size : 4096;

        return pages <= FRAGD_MAX_PHYS_BYTES / ps;
}

/* Free pages of a buddyinfo row, false on 64-bit overflow. */
static bool buddy_free_pages(const BuddyZone *z, uint64_t *ret)
{
        uint64_t sum = 0;

        for (unsigned k = 0; k < z->n_orders && k < FRAGD_MAX_ORDERS; k++) {
                uint64_t pages;

                if (z->nr_free[k] > (UINT64_MAX >> k))
                        return false;
                pages = z->nr_free[k] << k;
                if (pages > UINT64_MAX - sum)
                        return false;
                sum += pages;
        }
        *ret = sum;
        return true;
}

static bool node_ids_plausible(Observation *o, ObsSource s)
{
        const char *file = obs_source_name(s);

        for (unsigned i = 0; ; i++) {
                int node;
                const char *zone;

                if (s == OBS_BUDDYINFO && i < o->buddy.n_zones)
                        node = o->buddy.zones[i].node, zone = o->buddy.zones[i].zone;
                else if (s == OBS_ZONEINFO && i < o->zoneinfo.n_zones)
                        node = o->zoneinfo.zones[i].node, zone = o->zoneinfo.zones[i].zone;
                else if (s == OBS_PAGETYPEINFO && i < o->pagetype.n_zones)
                        node = o->pagetype.zones[i].node, zone = o->pagetype.zones[i].zone;
                else
                        return true;
                if (node >= 0 && node < FRAGD_MAX_NUMNODES)
                        continue;
                problem(o, "'/proc/%s': Node %d, zone %s: no kernel has a node id above %d (MAX_NUMNODES): "
                        "reading rejected", file, node, zone, FRAGD_MAX_NUMNODES - 1);
                reject(o, s, -ERANGE);
                return false;
        }
}

static uint64_t meminfo_total_pages(const Observation *o)
{
        uint64_t kb = 0, ps = o->page_size ? o->page_size : 4096;

        if (!(o->have & OBS_MASK(OBS_MEMINFO)) || kv_get(&o->meminfo, "MemTotal", &kb) < 0)
                return 0;
        return kb / (ps / 1024);
}

/* fresh: read with the rest of this observation */
static bool nodes_fresh(const Observation *o)
{
        return (o->have & OBS_MASK(OBS_NODES)) && (o->read_mask & OBS_MASK(OBS_NODES));
}

static uint64_t node_total_pages(const Observation *o, int node)
{
        uint64_t ps = o->page_size ? o->page_size : 4096;

        if (!nodes_fresh(o))
                return 0;
        for (unsigned i = 0; i < o->nodes.n_nodes && i < FRAGD_MAX_NODES; i++)
                if (o->nodes.ids[i] == node)
                        return o->nodes.mem_total_kb[i] / (ps / 1024);
        return 0;
}

/* limit + 1/8, saturating: memory hot-plugged between two reads */
static uint64_t with_slack(uint64_t limit)
{
        return limit > UINT64_MAX - limit / 8 ? UINT64_MAX : limit + limit / 8;
}

static void zoneinfo_check(Observation *o)
{
        const ZoneInfo *zi = &o->zoneinfo;
        uint64_t total = meminfo_total_pages(o), sum = 0;

        if (!(o->have & OBS_MASK(OBS_ZONEINFO)) || !node_ids_plausible(o, OBS_ZONEINFO))
                return;
        for (unsigned i = 0; i < zi->n_zones; i++) {
                const ZoneInfoZone *z = &zi->zones[i];
                uint64_t managed = (z->have & ZONE_HAVE_MANAGED) ? z->managed : z->present;
                uint64_t node_total = 0, node_managed = 0;

                if (!pages_plausible(z->spanned, o->page_size)) {
                        problem(o, "'/proc/zoneinfo': Node %d, zone %s spans %" PRIu64 " pages, more than a "
                                "52-bit physical address space holds: reading rejected", z->node, z->zone,
                                z->spanned);
                        reject(o, OBS_ZONEINFO, -ERANGE);
                        return;
                }
                if (total && managed > with_slack(total)) {
                        problem(o, "'/proc/zoneinfo': Node %d, zone %s manages %" PRIu64 " pages, more than "
                                "MemTotal in '/proc/meminfo' (%" PRIu64 " pages): reading rejected", z->node,
                                z->zone, managed, total);
                        reject(o, OBS_ZONEINFO, -EBADMSG);
                        return;
                }
                if (total) {
                        sum = sum > UINT64_MAX - managed ? UINT64_MAX : sum + managed;
                        continue;
                }
                /* no meminfo: the node's MemTotal from sysfs, when known */
                node_total = node_total_pages(o, z->node);
                if (!node_total)
                        continue;
                for (unsigned j = 0; j < zi->n_zones; j++)
                        if (zi->zones[j].node == z->node) {
                                uint64_t m = (zi->zones[j].have & ZONE_HAVE_MANAGED) ? zi->zones[j].managed
                                                                                   : zi->zones[j].present;
                                node_managed = node_managed > UINT64_MAX - m ? UINT64_MAX : node_managed + m;
                        }
                if (node_managed > with_slack(node_total)) {
                        problem(o, "'/proc/zoneinfo': the zones of Node %d manage %" PRIu64 " pages, more than "
                                "the node's MemTotal in sysfs (%" PRIu64 " pages): reading rejected", z->node,
                                node_managed, node_total);
                        reject(o, OBS_ZONEINFO, -EBADMSG);
                        return;
                }
        }
        if (total && sum > with_slack(total)) {
                problem(o, "'/proc/zoneinfo': its zones manage %" PRIu64 " pages in all, more than MemTotal in "
                        "'/proc/meminfo' (%" PRIu64 " pages): reading rejected", sum, total);
                reject(o, OBS_ZONEINFO, -EBADMSG);
        }
}

static bool buddy_has_node(const BuddyInfo *b, int node)
{
        for (unsigned i = 0; i < b->n_zones; i++)
                if (b->zones[i].node == node)
                        return true;
        return false;
}

static void buddyinfo_check(Observation *o)
{
        const BuddyInfo *b = &o->buddy;
        uint64_t total = meminfo_total_pages(o), sum = 0;

        if (!(o->have & OBS_MASK(OBS_BUDDYINFO)) || !node_ids_plausible(o, OBS_BUDDYINFO))
                return;
        for (unsigned i = 0; i < b->n_zones; i++) {
                const BuddyZone *z = &b->zones[i];
                const ZoneInfoZone *zz = NULL;
                uint64_t pages;

                if (!buddy_free_pages(z, &pages) || !pages_plausible(pages, o->page_size)) {
                        problem(o, "'/proc/buddyinfo': Node %d, zone %s: the free block counts add up to more "
                                "memory than a 52-bit physical address space holds: reading rejected",
                                z->node, z->zone);
                        reject(o, OBS_BUDDYINFO, -ERANGE);
                        return;
                }
                if (o->have & OBS_MASK(OBS_ZONEINFO))
                        zz = zoneinfo_find(&o->zoneinfo, z->node, z->zone);
                if (zz && pages > zz->present) {
                        problem(o, "'/proc/buddyinfo': Node %d, zone %s: %" PRIu64 " free pages, more than the "
                                "zone's %" PRIu64 " present pages ('/proc/zoneinfo'): reading rejected",
                                z->node, z->zone, pages, zz->present);
                        reject(o, OBS_BUDDYINFO, -EBADMSG);
                        return;
                }
                sum += pages; /* each <= 2^52 pages, at most FRAGD_MAX_ZONES of them */
        }
        if (total && sum > with_slack(total)) {
                problem(o, "'/proc/buddyinfo': %" PRIu64 " free pages in all, more than MemTotal in "
                        "'/proc/meminfo' (%" PRIu64 " pages): reading rejected", sum, total);
                reject(o, OBS_BUDDYINFO, -EBADMSG);
                return;
        }
        /* without zoneinfo to judge each zone: each node against its
         * MemTotal in sysfs (the free pages are a part of it) */
        if (!(o->have & OBS_MASK(OBS_ZONEINFO)))
                for (unsigned i = 0; i < b->n_zones; i++) {
                        uint64_t node_total = node_total_pages(o, b->zones[i].node), node_free = 0, pages;

                        if (!node_total)
                                continue;
                        for (unsigned j = 0; j < b->n_zones; j++)
                                if (b->zones[j].node == b->zones[i].node && buddy_free_pages(&b->zones[j], &pages))
                                        node_free += pages;
                        if (node_free > with_slack(node_total)) {
                                problem(o, "'/proc/buddyinfo': %" PRIu64 " free pages on node %d, more than the "
                                        "node's MemTotal in sysfs (%" PRIu64 " pages): reading rejected",
                                        node_free, b->zones[i].node, node_total);
                                reject(o, OBS_BUDDYINFO, -EBADMSG);
                                return;
                        }
                }
        if ((o->have & OBS_MASK(OBS_PAGETYPEINFO)) && o->pagetype.n_orders > b->n_orders) {
                problem(o, "'/proc/buddyinfo' has %u order columns, '/proc/pagetypeinfo' %u: its rows are cut "
                        "short (a truncated file?): reading rejected", b->n_orders, o->pagetype.n_orders);
                reject(o, OBS_BUDDYINFO, -EBADMSG);
                return;
        }

        /* a truncated file: zones and nodes the other sources know */
        if (o->have & OBS_MASK(OBS_ZONEINFO))
                for (unsigned i = 0; i < o->zoneinfo.n_zones; i++) {
                        const ZoneInfoZone *zz = &o->zoneinfo.zones[i];

                        if (zz->present == 0 || buddyinfo_find(b, zz->node, zz->zone))
                                continue;
                        problem(o, "'/proc/buddyinfo' has no row for Node %d, zone %s, which '/proc/zoneinfo' "
                                "shows populated (%" PRIu64 " present pages): a truncated file? That zone is "
                                "not assessed", zz->node, zz->zone, zz->present);
                }
        if (nodes_fresh(o))
                for (unsigned i = 0; i < o->nodes.n_nodes && i < FRAGD_MAX_NODES; i++) {
                        if (buddy_has_node(b, o->nodes.ids[i]))
                                continue;
                        problem(o, "'/proc/buddyinfo' has no row for node %d, which has memory "
                                "('/sys/devices/system/node'): a truncated file? That node is not assessed",
                                o->nodes.ids[i]);
                }
}

/* zoneinfo cut short: a zone the buddy allocator shows free pages in is
 * missing from it, so its node memory and watermarks would be partial */
static void zoneinfo_complete_check(Observation *o)
{
        const BuddyInfo *b = &o->buddy;

        if (!(o->have & OBS_MASK(OBS_ZONEINFO)) || !(o->have & OBS_MASK(OBS_BUDDYINFO)))
                return;
        for (unsigned i = 0; i < b->n_zones; i++) {
                uint64_t pages;

                if (!buddy_free_pages(&b->zones[i], &pages) || pages == 0 ||
                    zoneinfo_find(&o->zoneinfo, b->zones[i].node, b->zones[i].zone))
                        continue;
                problem(o, "'/proc/zoneinfo' has no Node %d, zone %s, which '/proc/buddyinfo' shows with %" PRIu64
                        " free pages: a truncated file? Reading rejected",
                        b->zones[i].node, b->zones[i].zone, pages);
                reject(o, OBS_ZONEINFO, -EBADMSG);
                return;
        }
}

void observation_check(Observation *o)
{
        o->rejected = 0;
        o->n_problems = 0;
        if (o->have & OBS_MASK(OBS_PAGETYPEINFO))
                (void) node_ids_plausible(o, OBS_PAGETYPEINFO);
        /* zoneinfo first: buddyinfo is checked against it */
        zoneinfo_check(o);
        zoneinfo_complete_check(o);
        buddyinfo_check(o);
}

void observation_keep_counters(Observation *dst, const Observation *src)
{
        dst->now_usec = src->now_usec;
        dst->page_size = src->page_size;
        dst->have = src->have;
        dst->vmstat = src->vmstat;
        dst->psi_memory = src->psi_memory;
        dst->thp = src->thp;
        dst->pagecache = src->pagecache;
        dst->extfrag = src->extfrag;
        dst->kswapd_wake = src->kswapd_wake;
        dst->alloc_fail = src->alloc_fail;
        /* the exporter's blocks gained (compaction efficiency) */
        dst->buddy = src->buddy;
}

static const char *const obs_source_impacts[_OBS_SOURCE_MAX] = {
        [OBS_BUDDYINFO] = "no free memory by order: no decision",
        [OBS_ZONEINFO] = "reserve targets, watermarks and node sizes not measured: targets neither met nor missed",
        [OBS_PAGETYPEINFO] = "pageblock mix not tracked",
        [OBS_VMSTAT] = ("no compaction, reclaim or THP fault rates: stall objectives and the learned "
                        "THP reserve not updated"),
        [OBS_MEMINFO] = "MemTotal unknown: readings not checked against it",
        [OBS_PSI_MEMORY] = "memory pressure unknown: the pressure objective is off",
        [OBS_THP] = "THP modes and huge page size unknown: the THP defrag lever is off",
        [OBS_SYSCTL] = "vm knobs unreadable: their levers are off",
        [OBS_NODES] = "node topology unknown: nodes missing from buddyinfo not detected, no node compaction",
        [OBS_THP_FULL] = "THP sysfs unknown",
        [OBS_PAGECACHE] = ("page-cache folios by order not measured: the large-folio reserve is kept at "
                           "order_large, sized by THP faults and by reserve_large, which under the "
                           "reserve gate waits for a THP fallback or stall"),
};

const char *obs_source_impact(ObsSource s)
{
        if ((unsigned) s >= _OBS_SOURCE_MAX)
                return NULL;
        return obs_source_impacts[s];
}

const char *obs_source_missing_why(const Observation *o, ObsSource s, char *buf, size_t size)
{
        if (o->rejected & OBS_MASK(s))
                snprintf(buf, size, "%s rejected as implausible", obs_source_name(s));
        else if (s == OBS_PAGECACHE && o->err[s] == -ENOENT)
                snprintf(buf, size,
                         "pagecache: no trace instance '/sys/kernel/tracing/instances/" PAGECACHE_INSTANCE
                         "' (the fragd daemon makes it while it runs, with pagecache_signal on)");
        else if (s == OBS_PAGECACHE && o->err[s] == -ENOMEDIUM)
                snprintf(buf, size,
                         "pagecache: tracefs is not mounted at '/sys/kernel/tracing' (mount -t tracefs nodev "
                         "/sys/kernel/tracing)");
        else if (s == OBS_PAGECACHE && o->err[s] == -EOPNOTSUPP)
                snprintf(buf, size,
                         "pagecache: the kernel has no tracefs event filemap:mm_filemap_add_to_page_cache with an "
                         "order field at '/sys/kernel/tracing'");
        else if (o->err[s] < 0)
                snprintf(buf, size, "%s unreadable (%s)", obs_source_name(s), strerror(-o->err[s]));
        else
                snprintf(buf, size, "%s not read", obs_source_name(s));
        return buf;
}

unsigned observation_missing(const Observation *o, unsigned mask)
{
        unsigned missing = 0;

        mask &= ~(OBS_MASK(OBS_PAGETYPEINFO) | OBS_MASK(OBS_THP_FULL));
        for (unsigned s = 0; s < _OBS_SOURCE_MAX; s++) {
                if (!(mask & OBS_MASK(s)) || (o->have & OBS_MASK(s)))
                        continue;
                if ((s == OBS_PSI_MEMORY || s == OBS_THP || s == OBS_PAGECACHE) && o->err[s] == -EOPNOTSUPP &&
                    !(o->rejected & OBS_MASK(s)))
                        continue; /* the kernel has no such feature: nothing is broken */
                missing |= OBS_MASK(s);
        }
        return missing;
}

