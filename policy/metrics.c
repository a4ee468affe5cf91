/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Measures from one or two observations. Pure: no I/O, no clock, no globals.
 * Formulas mirror mm/vmstat.c (fill_contig_page_info, unusable_free_index,
 * __fragmentation_index, extfrag_for_order) and mm/compaction.c
 * (fragmentation_score_zone/node, fragmentation_score_wmark). */

#include <string.h>

#include "fragd/metrics.h"
#include "fragd/policy-config.h"

typedef struct ContigInfo {
        uint64_t free_pages, free_blocks_total, free_blocks_suitable;
} ContigInfo;

static ContigInfo contig_info(const uint64_t *nr_free, unsigned n_orders, unsigned suitable_order)
{
        ContigInfo ci = { 0, 0, 0 };

        for (unsigned o = 0; o < n_orders && o < FRAGD_MAX_ORDERS; o++) {
                ci.free_blocks_total += nr_free[o];
                ci.free_pages += nr_free[o] << o;
                if (o >= suitable_order)
                        ci.free_blocks_suitable += nr_free[o] << (o - suitable_order);
        }
        return ci;
}

uint32_t unusable_index_permille(const uint64_t *nr_free, unsigned n_orders, unsigned order)
{
        ContigInfo ci = contig_info(nr_free, n_orders, order);

        if (ci.free_pages == 0)
                return 1000;
        return (uint32_t) ((ci.free_pages - (ci.free_blocks_suitable << order)) * 1000ULL / ci.free_pages);
}

int32_t fragmentation_index_permille(const uint64_t *nr_free, unsigned n_orders, unsigned order)
{
        ContigInfo ci = contig_info(nr_free, n_orders, order);
        uint64_t requested = 1ULL << order;

        if (ci.free_blocks_total == 0)
                return 0;
        if (ci.free_blocks_suitable)
                return FRAG_INDEX_SUITABLE;
        return (int32_t) (1000 - (int64_t) ((1000 + ci.free_pages * 1000ULL / requested) / ci.free_blocks_total));
}

unsigned extfrag_for_order(const uint64_t *nr_free, unsigned n_orders, unsigned order)
{
        ContigInfo ci = contig_info(nr_free, n_orders, order);

        if (ci.free_pages == 0)
                return 0;
        return (unsigned) ((ci.free_pages - (ci.free_blocks_suitable << order)) * 100 / ci.free_pages);
}

/* 6.18: low = 100 - proactiveness, leeway = min(10, low / 2). Kernels before
 * the 2025 change (6.1 among them) use low = max(100 - p, 5) and a fixed
 * leeway of 10; the two agree for proactiveness <= 80. */
unsigned frag_score_wmark(unsigned proactiveness, bool low)
{
        unsigned wmark_low, leeway;

        if (proactiveness > 100)
                proactiveness = 100;
        wmark_low = 100 - proactiveness;
        leeway = MIN(10u, wmark_low / 2);
        return low ? wmark_low : MIN(wmark_low + leeway, 100u);
}

static unsigned log2_u64(uint64_t v)
{
        unsigned r = 0;

        while (v > 1) {
                v >>= 1;
                r++;
        }
        return r;
}

static unsigned hpage_order_of(const Observation *o)
{
        if ((o->have & OBS_MASK(OBS_THP)) && o->thp.hpage_pmd_size > 0 && o->page_size > 0 &&
            o->thp.hpage_pmd_size > o->page_size)
                return log2_u64(o->thp.hpage_pmd_size / o->page_size);
        /* PMD order for the page size: 4K -> 9, 16K -> 11, 64K -> 13 */
        switch (o->page_size) {
        case 16384:
                return 11;
        case 65536:
                return 13;
        default:
                return 9;
        }
}

static void zone_measures(const Observation *o, const BuddyZone *bz, unsigned hpage_order, ZoneMeasures *zm)
{
        const ZoneInfoZone *zi = NULL;
        uint64_t acc = 0;
        unsigned n = MIN(bz->n_orders, (unsigned) FRAGD_MAX_ORDERS);

        memset(zm, 0, sizeof(*zm));
        zm->node = bz->node;
        memcpy(zm->zone, bz->zone, sizeof(zm->zone));
        for (int k = (int) n - 1; k >= 0; k--) {
                acc += bz->nr_free[k] << k;
                zm->free_pages_ge[k] = acc;
                zm->free_blocks += bz->nr_free[k];
        }
        zm->free_pages = acc;
        for (unsigned k = 0; k < n; k++) {
                zm->unusable_permille[k] = unusable_index_permille(bz->nr_free, n, k);
                zm->frag_index_permille[k] = fragmentation_index_permille(bz->nr_free, n, k);
        }
        zm->score = hpage_order < n ? extfrag_for_order(bz->nr_free, n, hpage_order) : 100;

        if (o->have & OBS_MASK(OBS_ZONEINFO))
                zi = zoneinfo_find(&o->zoneinfo, bz->node, bz->zone);
        if (zi) {
                zm->have_zoneinfo = true;
                zm->present = zi->present;
                zm->managed = (zi->have & ZONE_HAVE_MANAGED) ? zi->managed : zi->present;
                zm->boost = (zi->have & ZONE_HAVE_BOOST) ? zi->boost : 0;
                zm->wmark_min = zi->min >= zm->boost ? zi->min - zm->boost : 0;
                zm->wmark_low = zi->low >= zm->boost ? zi->low - zm->boost : 0;
                zm->wmark_high = zi->high >= zm->boost ? zi->high - zm->boost : 0;
                zm->headroom_pages = (int64_t) zm->free_pages - (int64_t) zi->high;
        }
}

static uint64_t sat_add3(uint64_t a, uint64_t b, uint64_t c)
{
        uint64_t s = a > UINT64_MAX - b ? UINT64_MAX : a + b;

        return s > UINT64_MAX - c ? UINT64_MAX : s + c;
}

static NodeMeasures *node_get(Assessment *a, int node)
{
        for (unsigned i = 0; i < a->n_nodes; i++)
                if (a->nodes[i].node == node)
                        return &a->nodes[i];
        if (a->n_nodes >= FRAGD_MAX_NODES)
                return NULL;
        NodeMeasures *n = &a->nodes[a->n_nodes++];
        memset(n, 0, sizeof(*n));
        n->node = node;
        n->zone_first = a->n_zones;
        n->polluted_blocks_permille = -1;
        return n;
}

static void node_pagetype(const Observation *o, NodeMeasures *n)
{
        const PageTypeInfo *p = &o->pagetype;
        int movable;
        uint64_t total = 0, movable_blocks = 0, nonmovable = 0;
        bool any = false;

        if (!(o->have & OBS_MASK(OBS_PAGETYPEINFO)) && o->pagetype_usec == 0)
                return;
        movable = pagetypeinfo_type_index(p, "Movable");
        for (unsigned i = 0; i < p->n_zones; i++) {
                const PageTypeZone *z = &p->zones[i];

                if (z->node != n->node || !z->have_blocks)
                        continue;
                any = true;
                for (unsigned t = 0; t < p->n_types; t++) {
                        /* Isolate and CMA blocks are neither polluted nor usable */
                        if (strcmp(p->types[t], "Isolate") == 0 || strcmp(p->types[t], "CMA") == 0)
                                continue;
                        total += z->blocks[t];
                        if ((int) t == movable)
                                movable_blocks += z->blocks[t];
                        if (strcmp(p->types[t], "Unmovable") == 0 || strcmp(p->types[t], "Reclaimable") == 0)
                                nonmovable += z->blocks[t];
                }
        }
        if (!any || total == 0)
                return;
        n->blocks_total = total;
        n->nonmovable_blocks = nonmovable;
        n->polluted_blocks_permille = (int32_t) ((total - movable_blocks) * 1000 / total);
}

static double rate(uint64_t cur, uint64_t prev, double sec)
{
        return cur >= prev ? (double) (cur - prev) / sec : 0.0;
}

/* The host's memory in pages: MemTotal, else the zones' managed pages;
 * 0 when neither was read. */
static uint64_t host_pages(const Observation *o)
{
        return observation_mem_bytes(o) / (o->page_size ? o->page_size : 4096);
}

/* A counter's rate over sec seconds, 0 when it went backwards or jumped
 * further than possible (a reset, a wrap, a corrupt reading; the jump is
 * recorded in r). pages_per_event > 0: each event takes that many pages,
 * and more pages than the host's memory per second is impossible. */
static double rate_checked(Rates *r, const char *name, uint64_t cur, uint64_t prev, double sec,
                           uint64_t pages_per_event, uint64_t mem_pages)
{
        double d, limit = RATES_MAX_EVENTS_PER_SEC * (sec > 1.0 ? sec : 1.0);

        if (cur >= prev) {
                d = (double) (cur - prev);
                if (pages_per_event > 0 && mem_pages > 0) {
                        double mem_limit = (double) mem_pages / (double) pages_per_event * (sec > 1.0 ? sec : 1.0);

                        limit = mem_limit < limit ? mem_limit : limit;
                }
                if (d <= limit)
                        return d / sec;
        }
        if (r->n_resets++ == 0) {
                size_t n = strlen(name);

                if (n >= sizeof(r->reset_counter))
                        n = sizeof(r->reset_counter) - 1;
                memcpy(r->reset_counter, name, n);
                r->reset_counter[n] = '\0';
                r->reset_from = prev;
                r->reset_to = cur;
        }
        return 0.0;
}

static double ratio_or_none(double part, double whole)
{
        return whole > 0 ? part / whole : -1.0;
}

static void rates(const Observation *c, const Observation *p, Rates *r)
{
        const KvList *cv = &c->vmstat, *pv = &p->vmstat;
        uint64_t mem, hp;
        double sec;

        memset(r, 0, sizeof(*r));
        r->thp_fallback_ratio = -1;
        if (c->now_usec <= p->now_usec || !(c->have & OBS_MASK(OBS_VMSTAT)) ||
            !(p->have & OBS_MASK(OBS_VMSTAT)))
                return;
        sec = (double) (c->now_usec - p->now_usec) / (double) USEC_PER_SEC;
        r->valid = true;
        r->interval_sec = sec;
        mem = host_pages(c);
        hp = hpage_order_of(c) < 63 ? UINT64_C(1) << hpage_order_of(c) : 0;
#define VP(name, pages) \
        rate_checked(r, name, kv_get_or(cv, name, 0), kv_get_or(pv, name, 0), sec, pages, mem)
#define V(name) VP(name, 0)
        r->compact_stall = V("compact_stall");
        r->compact_fail = V("compact_fail");
        r->compact_success = V("compact_success");
        r->compact_migrate_scanned = V("compact_migrate_scanned");
        r->compact_free_scanned = V("compact_free_scanned");
        r->compact_daemon_scanned = V("compact_daemon_migrate_scanned") + V("compact_daemon_free_scanned");
        r->compact_isolated = V("compact_isolated");
        r->thp_fault_alloc = VP("thp_fault_alloc", hp);
        r->thp_fault_fallback = VP("thp_fault_fallback", hp);
        r->allocstall = V("allocstall_dma") + V("allocstall_dma32") + V("allocstall_normal") +
                        V("allocstall_movable") + V("allocstall_device");
        r->pgscan_direct = V("pgscan_direct");
        r->pgscan_kswapd = V("pgscan_kswapd");
#undef V
#undef VP
        r->thp_fallback_ratio = ratio_or_none(r->thp_fault_fallback, r->thp_fault_alloc + r->thp_fault_fallback);

        if ((c->have & OBS_MASK(OBS_THP)) && (p->have & OBS_MASK(OBS_THP))) {
                for (unsigned i = 0; i < c->thp.n_sizes && r->n_mthp < FRAGD_MAX_THP_SIZES; i++) {
                        const ThpSize *cs = &c->thp.sizes[i];
                        const ThpSize *ps = thp_find_size(&p->thp, cs->size_kb);
                        double a, f;

                        if (!ps)
                                continue;
                        uint64_t pages = c->page_size ? (uint64_t) cs->size_kb * 1024 / c->page_size : 0;

                        a = rate_checked(r, "anon_fault_alloc", thp_size_stat(cs, "anon_fault_alloc", 0),
                                         thp_size_stat(ps, "anon_fault_alloc", 0), sec, pages, mem);
                        f = rate_checked(r, "anon_fault_fallback",
                                         thp_size_stat(cs, "anon_fault_fallback", 0),
                                         thp_size_stat(ps, "anon_fault_fallback", 0), sec, pages, mem);
                        r->mthp_size_kb[r->n_mthp] = cs->size_kb;
                        r->mthp_fallback_ratio[r->n_mthp] = ratio_or_none(f, a + f);
                        r->n_mthp++;
                }
        }
        if ((c->have & OBS_MASK(OBS_PSI_MEMORY)) && (p->have & OBS_MASK(OBS_PSI_MEMORY))) {
                double us = sec * (double) USEC_PER_SEC;

                r->psi_some = CLAMP(rate(c->psi_memory.some.total_usec, p->psi_memory.some.total_usec, 1.0) / us, 0.0, 1.0);
                r->psi_full = CLAMP(rate(c->psi_memory.full.total_usec, p->psi_memory.full.total_usec, 1.0) / us, 0.0, 1.0);
        }
}

static uint64_t folio_bytes(uint64_t folios, unsigned k, unsigned page_size)
{
        uint64_t unit = (uint64_t) (page_size ? page_size : 4096) << k;

        return folios > UINT64_MAX / unit ? UINT64_MAX : folios * unit;
}

/* cur - prev per order when both were read and no count went back (a
 * trigger set again starts from 0); false, and delta untouched, else */
static bool order_count_delta(const OrderCountHist *cur, const OrderCountHist *prev, uint64_t delta[FRAGD_MAX_ORDERS])
{
        if (!cur->valid || !prev->valid)
                return false;
        for (unsigned k = 0; k < FRAGD_MAX_ORDERS; k++)
                if (cur->counts[k] < prev->counts[k])
                        return false;
        for (unsigned k = 0; k < FRAGD_MAX_ORDERS; k++)
                delta[k] = cur->counts[k] - prev->counts[k];
        return true;
}

/* The page-cache hist of cur, and what was added since prev's: a count that
 * went back (the instance made anew) gives no delta this once. */
static void pagecache_measures(const Observation *cur, const Observation *prev, PageCacheMeasures *m)
{
        if (!(cur->have & OBS_MASK(OBS_PAGECACHE)))
                return;
        m->valid = true;
        for (unsigned k = 0; k < FRAGD_MAX_ORDERS; k++)
                m->bytes_total[k] = folio_bytes(cur->pagecache.folios[k], k, cur->page_size);
        if (cur->alloc_fail.valid) {
                m->fail_total_valid = true;
                memcpy(m->alloc_fail_total, cur->alloc_fail.counts, sizeof(m->alloc_fail_total));
        }
        if (!prev || !(prev->have & OBS_MASK(OBS_PAGECACHE)) || prev->now_usec >= cur->now_usec)
                return;
        for (unsigned k = 0; k < FRAGD_MAX_ORDERS; k++)
                if (cur->pagecache.folios[k] < prev->pagecache.folios[k])
                        return;
        for (unsigned k = 0; k < FRAGD_MAX_ORDERS; k++)
                m->bytes_delta[k] =
                        folio_bytes(cur->pagecache.folios[k] - prev->pagecache.folios[k], k, cur->page_size);
        m->interval_sec = (double) (cur->now_usec - prev->now_usec) / (double) USEC_PER_SEC;
        m->delta_valid = true;
        m->wake_valid = order_count_delta(&cur->kswapd_wake, &prev->kswapd_wake, m->kswapd_wakeups_delta);
        m->fail_valid = order_count_delta(&cur->alloc_fail, &prev->alloc_fail, m->alloc_fail_delta);
}

/* The non-movable blocks summed over the nodes (node_pagetype() first),
 * and the polluting fallbacks since prev's reading of the extfrag hist. */
static void pollution_measures(const Observation *cur, const Observation *prev, Assessment *a)
{
        PollutionMeasures *m = &a->pollution;

        for (unsigned i = 0; i < a->n_nodes; i++) {
                m->nonmovable_blocks += a->nodes[i].nonmovable_blocks;
                m->blocks_total += a->nodes[i].blocks_total;
        }
        if (m->blocks_total > 0)
                m->blocks_usec = cur->pagetype_usec;
        if (!(cur->have & OBS_MASK(OBS_PAGECACHE)) || !cur->extfrag.valid || !prev ||
            !(prev->have & OBS_MASK(OBS_PAGECACHE)) || !prev->extfrag.valid || prev->now_usec >= cur->now_usec)
                return;
        /* a count that went back: the instance made anew, no delta this once */
        if (cur->extfrag.polluting < prev->extfrag.polluting || cur->extfrag.fallbacks < prev->extfrag.fallbacks)
                return;
        m->extfrag_valid = true;
        m->extfrag_interval_sec = (double) (cur->now_usec - prev->now_usec) / (double) USEC_PER_SEC;
        m->extfrag_polluting = cur->extfrag.polluting - prev->extfrag.polluting;
        m->extfrag_fallbacks = cur->extfrag.fallbacks - prev->extfrag.fallbacks;
}

int assess(const Observation *cur, const Observation *prev, Assessment *ret)
{
        Assessment *a = ret;
        const BuddyInfo *b = &cur->buddy;

        if (!(cur->have & OBS_MASK(OBS_BUDDYINFO)))
                return -ENODATA;

        memset(a, 0, offsetof(Assessment, zones));
        a->n_zones = a->n_nodes = 0;
        a->n_workloads = 0; /* the daemon fills these after assess() */
        /* every target is a share of a node's size (zoneinfo): without it
         * none is measured, and the policy holds */
        a->unmeasured = (cur->have & OBS_MASK(OBS_ZONEINFO)) ? 0 : OBS_MASK(OBS_ZONEINFO);
        a->now_usec = cur->now_usec;
        a->page_size = cur->page_size;
        a->n_orders = MIN(b->n_orders, (unsigned) FRAGD_MAX_ORDERS);
        a->hpage_order = hpage_order_of(cur);
        a->pageblock_order = (cur->pagetype_usec > 0 && cur->pagetype.pageblock_order > 0)
                                     ? cur->pagetype.pageblock_order
                                     : a->hpage_order;
        a->proactiveness = -1;
        if ((cur->have & OBS_MASK(OBS_SYSCTL)) && cur->vm.present[VM_COMPACTION_PROACTIVENESS]) {
                a->proactiveness = (int) CLAMP(cur->vm.value[VM_COMPACTION_PROACTIVENESS], 0, 100);
                a->score_wmark_low = frag_score_wmark((unsigned) a->proactiveness, true);
                a->score_wmark_high = frag_score_wmark((unsigned) a->proactiveness, false);
        }
        a->thp_defrag = -1;
        if (cur->have & OBS_MASK(OBS_THP)) {
                int m = thp_defrag_from_name(cur->thp.defrag);

                a->thp_defrag = m >= 0 ? m : -1;
        }
        /* past the memset above: a tick without PSI must not keep the
         * last tick's pressure (the daemon reuses its Assessment) */
        a->psi_some_avg10_permyriad = 0;
        a->psi_full_avg10_permyriad = 0;
        if (cur->have & OBS_MASK(OBS_PSI_MEMORY)) {
                a->psi_some_avg10_permyriad = cur->psi_memory.some.avg10_permyriad;
                a->psi_full_avg10_permyriad = cur->psi_memory.full.avg10_permyriad;
        }

        /* buddyinfo lists zones grouped by node; keep each node's zones contiguous */
        for (unsigned pass = 0; pass < b->n_zones; pass++) {
                const BuddyZone *first = &b->zones[pass];
                NodeMeasures *n;
                bool seen = false;

                for (unsigned i = 0; i < a->n_nodes; i++)
                        if (a->nodes[i].node == first->node)
                                seen = true;
                if (seen)
                        continue;
                n = node_get(a, first->node);
                if (!n)
                        break;
                for (unsigned i = pass; i < b->n_zones && a->n_zones < FRAGD_MAX_ZONES; i++) {
                        ZoneMeasures *zm;

                        if (b->zones[i].node != first->node)
                                continue;
                        zm = &a->zones[a->n_zones++];
                        zone_measures(cur, &b->zones[i], a->hpage_order, zm);
                        n->n_zones++;
                        n->free_pages += zm->free_pages;
                        for (unsigned k = 0; k < FRAGD_MAX_ORDERS; k++)
                                n->free_pages_ge[k] += zm->free_pages_ge[k];
                        n->present_pages += zm->present;
                        n->managed_pages += zm->managed;
                        n->wmark_min += zm->wmark_min;
                        n->wmark_low += zm->wmark_low;
                        n->wmark_high += zm->wmark_high;
                        n->boost += zm->boost;
                }
        }

        /* node score: sum of present-weighted zone scores over populated zones,
         * divided by node_present_pages + 1 (which counts every zone) */
        for (unsigned i = 0; i < a->n_nodes; i++) {
                NodeMeasures *n = &a->nodes[i];
                uint64_t node_present = 0, score = 0;
                bool have_present = false;

                if (cur->have & OBS_MASK(OBS_ZONEINFO)) {
                        for (unsigned z = 0; z < cur->zoneinfo.n_zones; z++)
                                if (cur->zoneinfo.zones[z].node == n->node) {
                                        node_present += cur->zoneinfo.zones[z].present;
                                        have_present = true;
                                }
                }
                for (unsigned z = n->zone_first; z < n->zone_first + n->n_zones; z++) {
                        const ZoneMeasures *zm = &a->zones[z];

                        if (have_present)
                                score += zm->present * zm->score / (node_present + 1);
                }
                if (have_present) {
                        n->frag_score = (unsigned) MIN(score, 100u);
                } else {
                        /* no zoneinfo: weight by free pages instead (documented approximation) */
                        uint64_t w = 0, s = 0;

                        for (unsigned z = n->zone_first; z < n->zone_first + n->n_zones; z++) {
                                w += a->zones[z].free_pages;
                                s += a->zones[z].free_pages * a->zones[z].score;
                        }
                        n->frag_score = w ? (unsigned) (s / w) : 0;
                }
                if (cur->have & OBS_MASK(OBS_ZONEINFO)) {
                        const ZoneInfoNode *zn = zoneinfo_find_node(&cur->zoneinfo, n->node);

                        if (zn && zn->have_stats) {
                                n->reclaimable_pages =
                                        zn->nr_inactive_file + zn->nr_active_file + zn->nr_slab_reclaimable;
                                n->have_reclaimable = true;
                        }
                        if (zn && zn->have_stats && zn->have_thp) {
                                n->have_thp_count = true;
                                n->thp_count = sat_add3(zn->nr_anon_transparent_hugepages, zn->nr_shmem_hugepages,
                                                        zn->nr_file_hugepages);
                        }
                        if (n->have_thp_count && prev && (prev->have & OBS_MASK(OBS_ZONEINFO))) {
                                const ZoneInfoNode *pn = zoneinfo_find_node(&prev->zoneinfo, n->node);

                                if (pn && pn->have_stats && pn->have_thp) {
                                        uint64_t was = sat_add3(pn->nr_anon_transparent_hugepages,
                                                                pn->nr_shmem_hugepages, pn->nr_file_hugepages);

                                        n->thp_grown_valid = true;
                                        n->thp_grown = n->thp_count > was ? n->thp_count - was : 0;
                                }
                        }
                }
                node_pagetype(cur, n);
        }

        pagecache_measures(cur, prev, &a->pagecache);
        pollution_measures(cur, prev, a);
        if (prev)
                rates(cur, prev, &a->rates);
        else
                a->rates.thp_fallback_ratio = -1;
        return 0;
}

const NodeMeasures *assessment_node(const Assessment *a, int node)
{
        for (unsigned i = 0; i < a->n_nodes; i++)
                if (a->nodes[i].node == node)
                        return &a->nodes[i];
        return NULL;
}
