/* SPDX-License-Identifier: GPL-2.0-or-later */

/* Kernel arithmetic the policy predicts with (pure): the watermarks a
 * min_free_kbytes / watermark_scale_factor pair would produce, the safety
 * envelope built on them, and kcompactd's proactive score thresholds.
 * References: mm/page_alloc.c:__setup_per_zone_wmarks(),
 * mm/compaction.c:fragmentation_score_wmark() (KERNEL.md §3, §4.3). */

#include <string.h>

#include "fragd/policy.h"

uint64_t policy_size_bytes(const SizeSpec *s, uint64_t node_bytes)
{
        if (s->bytes > 0)
                return s->bytes;
        return (uint64_t) ((unsigned __int128) node_bytes * s->permyriad / 10000);
}

static bool zone_is_highmem(const ZoneMeasures *z)
{
        /* highmem and movable zones get min = clamp(managed/1024, 32, 128) */
        return strcmp(z->zone, "HighMem") == 0 || strcmp(z->zone, "Movable") == 0;
}

static uint64_t lowmem_managed(const Assessment *a)
{
        uint64_t sum = 0;

        for (unsigned i = 0; i < a->n_zones; i++)
                if (!zone_is_highmem(&a->zones[i]))
                        sum += a->zones[i].managed;
        if (sum == 0) /* no zoneinfo: whole nodes as one lowmem zone each */
                for (unsigned i = 0; i < a->n_nodes; i++)
                        sum += a->nodes[i].managed_pages;
        return sum;
}

static void zone_wmarks(uint64_t managed, bool highmem, uint64_t pages_min, uint64_t lowmem,
                        int64_t wsf, NodeWatermarks *acc)
{
        uint64_t min, gap;

        if (managed == 0)
                return;
        if (highmem)
                min = CLAMP(managed / 1024, 32, 128);
        else
                min = lowmem > 0 ? (uint64_t) ((unsigned __int128) pages_min * managed / lowmem) : 0;
        gap = MAX(min / 4, (uint64_t) ((unsigned __int128) managed * (uint64_t) MAX(wsf, 0) / 10000));
        acc->min_pages += min;
        acc->low_pages += min + gap;
        acc->high_pages += min + 2 * gap;
}

int envelope_node_watermarks(const Assessment *a, unsigned node_idx, int64_t min_free_kbytes,
                             int64_t watermark_scale_factor, NodeWatermarks *ret)
{
        const NodeMeasures *n;
        NodeWatermarks w = {};
        uint64_t pages_min, lowmem, zones_managed = 0;

        if (node_idx >= a->n_nodes || a->page_size < 1024)
                return -EINVAL;
        n = &a->nodes[node_idx];
        pages_min = (uint64_t) MAX(min_free_kbytes, 0) * 1024 / a->page_size;
        lowmem = lowmem_managed(a);

        for (unsigned i = n->zone_first; i < n->zone_first + n->n_zones && i < a->n_zones; i++)
                zones_managed += a->zones[i].managed;
        if (zones_managed > 0) {
                for (unsigned i = n->zone_first; i < n->zone_first + n->n_zones && i < a->n_zones; i++)
                        zone_wmarks(a->zones[i].managed, zone_is_highmem(&a->zones[i]), pages_min,
                                    lowmem, watermark_scale_factor, &w);
        } else
                zone_wmarks(n->managed_pages, false, pages_min, lowmem, watermark_scale_factor, &w);

        *ret = w;
        return 0;
}

bool envelope_ok(const PolicyConfig *cfg, const Assessment *a, int64_t min_free_kbytes,
                 int64_t watermark_scale_factor, PolicyNumbers *ret_num)
{
        for (unsigned i = 0; i < a->n_nodes; i++) {
                const NodeMeasures *n = &a->nodes[i];
                uint64_t ps = a->page_size, low, headroom, avail;
                NodeWatermarks w;

                if (envelope_node_watermarks(a, i, min_free_kbytes, watermark_scale_factor, &w) < 0)
                        continue;
                low = w.low_pages * ps;
                headroom = policy_size_bytes(&cfg->safety_headroom, n->managed_pages * ps);
                avail = (n->free_pages + n->reclaimable_pages) * ps;
                if (low + headroom > avail) {
                        if (ret_num) {
                                *ret_num = (PolicyNumbers){
                                        .node = n->node,
                                        .low_wmark_bytes = low,
                                        .headroom_bytes = headroom,
                                        .avail_bytes = avail,
                                        .free_bytes = n->free_pages * ps,
                                        .eta_usec = USEC_INFINITY,
                                };
                        }
                        return false;
                }
        }
        return true;
}

unsigned policy_score_wmark(unsigned proactiveness, bool low)
{
        unsigned wmark_low = 100 - MIN(proactiveness, 100u), leeway;

        if (low)
                return wmark_low;
        leeway = MIN(10u, wmark_low / 2);
        return MIN(wmark_low + leeway, 100u);
}

int64_t policy_proactiveness_for_score(unsigned score_target)
{
        for (unsigned p = 0; p <= 100; p++)
                if (policy_score_wmark(p, false) <= score_target)
                        return p;
        return 100;
}
