/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Lookups over an Observation's parts: by name, by (node, zone), by size.
 * Pure: no I/O, no allocation. The one copy of each, used by policy/ (the
 * measures), the sources' checks and the daemon's outputs alike. A count
 * past its array's capacity is read as the capacity. */

#include <errno.h>
#include <string.h>

#include "fragd/obs.h"

int kv_get(const KvList *l, const char *name, uint64_t *ret)
{
        if (!l || !name)
                return -ENOENT;
        for (unsigned i = 0; i < l->n && i < FRAGD_MAX_KV; i++)
                if (strcmp(l->e[i].name, name) == 0) {
                        if (ret)
                                *ret = l->e[i].value;
                        return 0;
                }
        return -ENOENT;
}

uint64_t kv_get_or(const KvList *l, const char *name, uint64_t dflt)
{
        uint64_t v;

        return kv_get(l, name, &v) < 0 ? dflt : v;
}

const BuddyZone *buddyinfo_find(const BuddyInfo *b, int node, const char *zone)
{
        if (!b || !zone)
                return NULL;
        for (unsigned i = 0; i < b->n_zones && i < FRAGD_MAX_ZONES; i++)
                if (b->zones[i].node == node && strcmp(b->zones[i].zone, zone) == 0)
                        return &b->zones[i];
        return NULL;
}

const ZoneInfoZone *zoneinfo_find(const ZoneInfo *z, int node, const char *zone)
{
        if (!z || !zone)
                return NULL;
        for (unsigned i = 0; i < z->n_zones && i < FRAGD_MAX_ZONES; i++)
                if (z->zones[i].node == node && strcmp(z->zones[i].zone, zone) == 0)
                        return &z->zones[i];
        return NULL;
}

const ZoneInfoNode *zoneinfo_find_node(const ZoneInfo *z, int node)
{
        if (!z)
                return NULL;
        for (unsigned i = 0; i < z->n_nodes && i < FRAGD_MAX_NODES; i++)
                if (z->nodes[i].node == node)
                        return &z->nodes[i];
        return NULL;
}

int pagetypeinfo_type_index(const PageTypeInfo *p, const char *name)
{
        if (!p || !name)
                return -ENOENT;
        for (unsigned i = 0; i < p->n_types && i < FRAGD_MAX_MIGRATETYPES; i++)
                if (strcmp(p->types[i], name) == 0)
                        return (int) i;
        return -ENOENT;
}

const PageTypeZone *pagetypeinfo_find(const PageTypeInfo *p, int node, const char *zone)
{
        if (!p || !zone)
                return NULL;
        for (unsigned i = 0; i < p->n_zones && i < FRAGD_MAX_ZONES; i++)
                if (p->zones[i].node == node && strcmp(p->zones[i].zone, zone) == 0)
                        return &p->zones[i];
        return NULL;
}

const ThpSize *thp_find_size(const ThpInfo *t, unsigned size_kb)
{
        if (!t)
                return NULL;
        for (unsigned i = 0; i < t->n_sizes && i < FRAGD_MAX_THP_SIZES; i++)
                if (t->sizes[i].size_kb == size_kb)
                        return &t->sizes[i];
        return NULL;
}

int thp_size_stat_index(const ThpSize *s, const char *name)
{
        if (!s || !name)
                return -ENOENT;
        for (unsigned i = 0; i < s->n_stats && i < FRAGD_MAX_THP_STATS; i++)
                if (strcmp(s->stats[i].name, name) == 0)
                        return (int) i;
        return -ENOENT;
}

int thp_size_stat_get(const ThpSize *s, const char *name, uint64_t *ret)
{
        int i = thp_size_stat_index(s, name);

        if (i < 0)
                return i;
        if (ret)
                *ret = s->stats[i].value;
        return 0;
}

uint64_t thp_size_stat(const ThpSize *s, const char *name, uint64_t dflt)
{
        uint64_t v;

        return thp_size_stat_get(s, name, &v) < 0 ? dflt : v;
}

uint64_t observation_mem_bytes(const Observation *o)
{
        uint64_t ps = o->page_size ? o->page_size : 4096, kb = 0, pages = 0;

        if ((o->have & OBS_MASK(OBS_MEMINFO)) && kv_get(&o->meminfo, "MemTotal", &kb) >= 0 && kb > 0)
                return kb > UINT64_MAX / 1024 ? UINT64_MAX : kb * 1024;
        if (o->have & OBS_MASK(OBS_ZONEINFO))
                for (unsigned i = 0; i < o->zoneinfo.n_zones && i < FRAGD_MAX_ZONES; i++) {
                        const ZoneInfoZone *z = &o->zoneinfo.zones[i];
                        uint64_t m = (z->have & ZONE_HAVE_MANAGED) ? z->managed : z->present;

                        pages = pages > UINT64_MAX - m ? UINT64_MAX : pages + m;
                }
        return pages > UINT64_MAX / ps ? UINT64_MAX : pages * ps;
}
