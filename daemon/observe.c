/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One observation: call each requested source's reader into its slot of the
 * Observation, recording per-source errors. No logging here: manager.c
 * decides what a failed source means and says so. */

#include <errno.h>

#include "fragd/macro.h"
#include "fragd/obs.h"

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
        case _OBS_SOURCE_MAX:
                break;
        }
        return -EINVAL;
}

int observation_read(const Root *root, unsigned mask, usec_t now_usec, Observation *o)
{
        if (!root || !o)
                return -EINVAL;
        o->now_usec = now_usec;
        o->page_size = root->page_size;
        for (unsigned s = 0; s < _OBS_SOURCE_MAX; s++) {
                int r;

                if (!(mask & OBS_MASK(s)))
                        continue;
                if (s == OBS_THP && (mask & OBS_MASK(OBS_THP_FULL)))
                        continue; /* the full read below covers it */
                r = obs_source_read(root, (ObsSource) s, o);
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
        if (o->have & OBS_MASK(OBS_BUDDYINFO))
                return 0;
        return o->err[OBS_BUDDYINFO] < 0 ? o->err[OBS_BUDDYINFO] : -ENODATA;
}
