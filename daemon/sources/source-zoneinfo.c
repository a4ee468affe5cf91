/* SPDX-License-Identifier: GPL-2.0-or-later */
/* /proc/zoneinfo: watermarks and sizes of every zone, populated or not
 * (mm/vmstat.c:zoneinfo_show_print()).
 *
 *   Node 1, zone    DMA32
 *     per-node stats                <- only under a node's first populated zone
 *         nr_inactive_anon 29707
 *         ...
 *     pages free     223519         <- ends the per-node block
 *           boost    0
 *           min      5517           <- min/low/high/promo include the boost
 *           ...
 *           protection: (0, 0, 990, 990, 990)
 *         nr_free_pages 223519
 *     pagesets
 *       cpu: 0
 *                 count: 474        <- keys with ':' never clash with "high"
 *     node_unreclaimable:  0
 *     start_pfn:           524288
 *
 * Lines we do not know (old "scanned", "all_unreclaimable:", vendor keys) are
 * skipped. The file grows with the CPU count (pagesets), so the reader uses a
 * heap buffer. */

#include <errno.h>
#include <string.h>

#include "core/cleanup.h"
#include "core/parse-util.h"
#include "core/root.h"
#include "fragd/obs.h"
#include "sources/sources-internal.h"
#include "sources/sources.h"

/* Required per zone; kept outside ZONE_HAVE_* in a local mask. */
enum {
        ZSEEN_FREE = 1u << 0,
        ZSEEN_MIN = 1u << 1,
        ZSEEN_LOW = 1u << 2,
        ZSEEN_HIGH = 1u << 3,
        ZSEEN_SPANNED = 1u << 4,
        ZSEEN_PRESENT = 1u << 5,
        ZSEEN_REQUIRED = (1u << 6) - 1,
        /* optional, only to catch duplicates */
        ZSEEN_NR_FREE = 1u << 6,
        ZSEEN_UNRECLAIMABLE = 1u << 7,
};

typedef struct ZoneKey {
        const char *name;
        unsigned seen; /* ZSEEN_* bit, 0 if none */
        unsigned have; /* ZONE_HAVE_* bit, 0 if none */
        size_t offset; /* of the uint64_t in ZoneInfoZone */
} ZoneKey;

#define ZKEY(n, s, h, f) { n, s, h, offsetof(ZoneInfoZone, f) }

static const ZoneKey zone_keys[] = {
        ZKEY("boost", 0, ZONE_HAVE_BOOST, boost),
        ZKEY("min", ZSEEN_MIN, 0, min),
        ZKEY("low", ZSEEN_LOW, 0, low),
        ZKEY("high", ZSEEN_HIGH, 0, high),
        ZKEY("promo", 0, ZONE_HAVE_PROMO, promo),
        ZKEY("spanned", ZSEEN_SPANNED, 0, spanned),
        ZKEY("present", ZSEEN_PRESENT, 0, present),
        ZKEY("managed", 0, ZONE_HAVE_MANAGED, managed),
        ZKEY("cma", 0, ZONE_HAVE_CMA, cma),
        ZKEY("nr_free_pages", ZSEEN_NR_FREE, 0, nr_free_pages),
        ZKEY("nr_free_pages_blocks", 0, ZONE_HAVE_NR_FREE_BLOCKS, nr_free_pages_blocks),
        ZKEY("start_pfn:", 0, ZONE_HAVE_START_PFN, start_pfn),
};

typedef struct NodeKey {
        const char *name;
        size_t offset; /* of the uint64_t in ZoneInfoNode */
} NodeKey;

#define NKEY(f) { #f, offsetof(ZoneInfoNode, f) }

static const NodeKey node_keys[] = {
        NKEY(nr_inactive_anon),
        NKEY(nr_active_anon),
        NKEY(nr_inactive_file),
        NKEY(nr_active_file),
        NKEY(nr_slab_reclaimable),
        NKEY(nr_shmem),
        NKEY(nr_file_pages),
        NKEY(nr_anon_transparent_hugepages), /* the first THP key: sets have_thp */
        NKEY(nr_shmem_hugepages),
        NKEY(nr_file_hugepages),
};

static uint64_t *field_at(void *base, size_t offset)
{
        return (uint64_t *) ((char *) base + offset);
}

/* "key value" with exactly one value after the key */
static int zoneinfo_value(Span rest, uint64_t *ret)
{
        Span tok, extra;

        if (!span_next_token(&rest, &tok))
                return -EBADMSG;
        if (span_next_token(&rest, &extra))
                return -EBADMSG;
        return span_to_u64(tok, ret);
}

static ZoneInfoNode *zoneinfo_node_get(ZoneInfo *z, int node)
{
        for (unsigned i = 0; i < z->n_nodes; i++)
                if (z->nodes[i].node == node)
                        return &z->nodes[i];
        if (z->n_nodes >= FRAGD_MAX_NODES)
                return NULL;
        z->nodes[z->n_nodes].node = node;
        return &z->nodes[z->n_nodes++];
}

/* Checks the zone that just ended. */
static int zoneinfo_zone_finish(const ZoneInfoZone *zz, unsigned seen)
{
        if ((seen & ZSEEN_REQUIRED) != ZSEEN_REQUIRED)
                return -ENODATA;
        /* the kernel derives low/high/promo from min by adding, and boost is
         * added to all of them; the pages of a zone lie within its span */
        if (zz->min > zz->low || zz->low > zz->high)
                return -EBADMSG;
        if ((zz->have & ZONE_HAVE_PROMO) && zz->high > zz->promo)
                return -EBADMSG;
        if (zz->present > zz->spanned)
                return -EBADMSG;
        /* managed = present - reserved at boot (memblock, memmap): never more */
        if ((zz->have & ZONE_HAVE_MANAGED) && zz->managed > zz->present)
                return -EBADMSG;
        return 0;
}

static int zoneinfo_parse_into(const char *buf, size_t len, ZoneInfo *z)
{
        Cursor c;
        Span line;
        ZoneInfoZone *cur = NULL;
        ZoneInfoNode *stats = NULL; /* inside a "per-node stats" block */
        unsigned seen = 0;
        int r;

        if (cursor_open(&c, buf, len) < 0)
                return -EINVAL;
        while (cursor_next_line(&c, &line)) {
                Span rest, key;
                bool done = false;

                span_skip_blanks(&line);
                rest = line;
                if (!span_next_token(&rest, &key))
                        continue; /* blank line */

                if (span_eq(key, "Node")) {
                        int node;
                        char zone[FRAGD_NAME_MAX];
                        bool comma;
                        Span tok;

                        if (cur) {
                                r = zoneinfo_zone_finish(cur, seen);
                                if (r < 0)
                                        return r;
                        }
                        r = buddyinfo_parse_zone_prefix(&line, &node, zone, &comma);
                        if (r < 0)
                                return r;
                        if (comma || span_next_token(&line, &tok))
                                return -EBADMSG;
                        if (zoneinfo_find(z, node, zone))
                                return -EBADMSG;
                        if (z->n_zones >= FRAGD_MAX_ZONES)
                                return -E2BIG;
                        if (!zoneinfo_node_get(z, node))
                                return -E2BIG;
                        cur = &z->zones[z->n_zones++];
                        cur->node = node;
                        memcpy(cur->zone, zone, sizeof(cur->zone));
                        seen = 0;
                        stats = NULL;
                        continue;
                }

                if (!cur)
                        return -EBADMSG; /* data before the first zone */

                if (span_eq(key, "per-node")) {
                        Span tok;

                        if (!span_next_token(&rest, &tok) || !span_eq(tok, "stats"))
                                continue; /* something else, skip */
                        stats = zoneinfo_node_get(z, cur->node);
                        if (!stats)
                                return -E2BIG;
                        if (stats->have_stats || seen != 0 || cur->have != 0)
                                return -EBADMSG; /* twice, or after the zone began */
                        stats->have_stats = true;
                        continue;
                }

                if (span_eq(key, "pages")) {
                        Span tok;

                        if (!span_next_token(&rest, &tok) || !span_eq(tok, "free"))
                                continue;
                        if (seen & ZSEEN_FREE)
                                return -EBADMSG;
                        r = zoneinfo_value(rest, &cur->pages_free);
                        if (r < 0)
                                return r;
                        seen |= ZSEEN_FREE;
                        stats = NULL;
                        continue;
                }

                if (stats) {
                        for (size_t i = 0; i < ELEMENTSOF(node_keys); i++) {
                                if (!span_eq(key, node_keys[i].name))
                                        continue;
                                r = zoneinfo_value(rest, field_at(stats, node_keys[i].offset));
                                if (r < 0)
                                        return r;
                                if (node_keys[i].offset == offsetof(ZoneInfoNode, nr_anon_transparent_hugepages))
                                        stats->have_thp = true;
                                break;
                        }
                        continue; /* other per-node counters are not kept */
                }

                if (span_eq(key, "node_unreclaimable:")) {
                        uint64_t v;

                        if (seen & ZSEEN_UNRECLAIMABLE)
                                return -EBADMSG;
                        r = zoneinfo_value(rest, &v);
                        if (r < 0)
                                return r;
                        cur->node_unreclaimable = v != 0;
                        seen |= ZSEEN_UNRECLAIMABLE;
                        continue;
                }

                for (size_t i = 0; i < ELEMENTSOF(zone_keys) && !done; i++) {
                        const ZoneKey *k = &zone_keys[i];

                        if (!span_eq(key, k->name))
                                continue;
                        if ((seen & k->seen) || (cur->have & k->have))
                                return -EBADMSG; /* the same key twice */
                        r = zoneinfo_value(rest, field_at(cur, k->offset));
                        if (r < 0)
                                return r;
                        seen |= k->seen;
                        cur->have |= k->have;
                        done = true;
                }
                /* anything else: unknown key, skipped */
        }

        if (!cur)
                return -ENODATA;
        return zoneinfo_zone_finish(cur, seen);
}

int zoneinfo_parse(const char *buf, size_t len, ZoneInfo *ret)
{
        /* ~24 KiB on the stack, so *ret is untouched on failure */
        ZoneInfo z = {};
        int r;

        r = zoneinfo_parse_into(buf, len, &z);
        if (r < 0)
                return r;
        *ret = z;
        return 0;
}

int zoneinfo_read(const Root *root, ZoneInfo *ret)
{
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;
        int r;

        /* >1 MB on large machines: per-CPU pagesets */
        r = read_file_alloc_at(root->proc_fd, "zoneinfo", &buf, &len);
        if (r < 0)
                return r;
        return zoneinfo_parse(buf, len, ret);
}

