/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Workload views -> Assessment, exporter, status. Pure; see
 * daemon/output/workload-view.h. */

#include <stdio.h>
#include <string.h>

#include "output/workload-view.h"

bool workload_configured(const FragdConfig *cfg)
{
        for (unsigned i = 0; i < cfg->n_cgroups; i++)
                if (cfg->cgroups[i].watch)
                        return true;
        return false;
}

static bool minute_known(const CgroupWorkloadView *v)
{
        return v->present && v->have_minute && v->attribution == WL_ATTR_OK;
}

unsigned workload_stalls_fill(const CgroupWorkloadView *v, unsigned n, WorkloadStall *ret, unsigned cap)
{
        unsigned k = 0;

        for (unsigned i = 0; i < n && k < cap; i++) {
                WorkloadStall *s;

                if (!minute_known(&v[i]))
                        continue;
                s = &ret[k++];
                *s = (WorkloadStall) {
                        .compact_usec = v[i].minute.usec[STALL_COMPACT],
                        .reclaim_usec = v[i].minute.usec[STALL_RECLAIM],
                        .compact_count = v[i].minute.compact_count,
                        .span_usec = v[i].minute.span_usec,
                        .budget_usec = v[i].minute.budget_usec,
                        .over_budget = v[i].minute.over_budget,
                };
                snprintf(s->name, sizeof(s->name), "%s", v[i].path && v[i].path[0] ? v[i].path : "/");
        }
        return k;
}

const char *thp_mechanism_metric_label(ThpMechanism m)
{
        static const char *const l[_THP_MECH_MAX] = {
                [THP_MECH_NONE] = "none",
                [THP_MECH_COLLAPSE] = "madv_collapse",
                [THP_MECH_LAUNCHER] = "prctl_launcher",
                [THP_MECH_SYSTEMD_MEMORYTHP] = "memory_thp",
        };

        return (unsigned) m < _THP_MECH_MAX ? l[m] : NULL;
}

void cgroup_view_fill(const CgroupWorkloadView *v, CgroupView *ret)
{
        CgroupView c = {
                .name = v->path,
                .present = v->present,
        };

        if (v->present) {
                c.have_psi = v->have_pressure;
                if (v->have_pressure) {
                        c.psi_some_usec = v->pressure.some.total_usec;
                        c.psi_full_usec = v->pressure.full.total_usec;
                }
                c.have_thp = v->have_mem;
                if (v->have_mem) {
                        c.anon_thp_bytes = v->mem.anon_thp;
                        c.file_thp_bytes = v->mem.file_thp;
                        c.shmem_thp_bytes = v->mem.shmem_thp;
                }
        }
        /* cumulative since fragd started: kept while the cgroup is away */
        c.have_delay = v->attribution == WL_ATTR_OK;
        if (c.have_delay) {
                c.compact_delay_ns = v->compact_delay_usec * NSEC_PER_USEC;
                c.reclaim_delay_ns = v->reclaim_delay_usec * NSEC_PER_USEC;
                c.thrashing_delay_ns = v->thrashing_delay_usec * NSEC_PER_USEC;
                c.compact_count = v->compact_count;
                c.reclaim_count = v->reclaim_count;
                /* the workload module does not count thrashing events */
        }
        c.mechanism = thp_mechanism_metric_label(v->thp.mechanism);
        *ret = c;
}

char *workload_stall_text(const CgroupWorkloadView *v, char *buf, size_t size)
{
        char budget[48] = "";

        if (size == 0)
                return buf;
        if (!v->present) {
                snprintf(buf, size, "absent");
                return buf;
        }
        if (v->attribution != WL_ATTR_OK) {
                snprintf(buf, size, "stall attribution unavailable (%s)",
                         workload_attribution_name(v->attribution) ?: "?");
                return buf;
        }
        if (!v->have_minute) {
                snprintf(buf, size, "no stall sample yet");
                return buf;
        }
        if (v->minute.budget_usec)
                snprintf(budget, sizeof(budget), ", budget %llu ms%s",
                         (unsigned long long) v->minute.budget_usec / USEC_PER_MSEC,
                         v->minute.over_budget ? ": OVER BUDGET" : "");
        snprintf(buf, size,
                 "last %s: %llu ms direct compaction (%llu), %llu ms direct reclaim (%llu), %llu ms thrashing%s",
                 v->minute.partial ? "minute (partly observed)" : "minute",
                 (unsigned long long) v->minute.usec[STALL_COMPACT] / USEC_PER_MSEC,
                 (unsigned long long) v->minute.compact_count,
                 (unsigned long long) v->minute.usec[STALL_RECLAIM] / USEC_PER_MSEC,
                 (unsigned long long) v->minute.reclaim_count,
                 (unsigned long long) v->minute.usec[STALL_THRASHING] / USEC_PER_MSEC, budget);
        return buf;
}
