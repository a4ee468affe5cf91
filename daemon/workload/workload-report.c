/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What a Workload shows: the per-cgroup and global views (for the tick, the
 * exporter and status) and the --once text and JSON reports. Split from
 * workload.c. */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/json.h"
#include "workload/workload-internal.h"

const char *workload_attribution_name(WorkloadAttribution a)
{
        static const char *const n[] = {
                [WL_ATTR_OK] = "ok",
                [WL_ATTR_DELAYACCT_OFF] = "delayacct-off",
                [WL_ATTR_NO_TASKSTATS] = "no-taskstats",
                [WL_ATTR_DISABLED] = "disabled",
        };
        return (unsigned) a < ELEMENTSOF(n) ? n[a] : NULL;
}

static WorkloadAttribution attribution(const Workload *w)
{
        if (!w->opt.use_netlink)
                return WL_ATTR_DISABLED;
        if (!w->ts)
                return WL_ATTR_NO_TASKSTATS;
        if (w->delayacct == 0)
                return WL_ATTR_DELAYACCT_OFF;
        return WL_ATTR_OK;
}

int workload_view(const Workload *w, unsigned i, CgroupWorkloadView *ret)
{
        const WlCgroup *g;
        CgroupWorkloadView v = { 0 };

        if (i >= w->n)
                return -EINVAL;
        g = &w->cg[i];
        v.path = g->cfg.path;
        v.present = g->watch.state == CGROUP_PRESENT;
        v.n_procs = g->n_procs;
        v.have_mem = g->watch.have_mem;
        v.mem = g->watch.mem;
        v.have_pressure = g->watch.have_pressure;
        v.pressure = g->watch.pressure;
        v.psi_trigger_events = g->watch.psi_events;
        v.psi_trigger_err = g->watch.psi_err;
        v.psi_window_usec = g->watch.psi_effective.window_usec;
        v.attribution = attribution(w);
        v.compact_delay_usec = g->totals.usec[STALL_COMPACT];
        v.reclaim_delay_usec = g->totals.usec[STALL_RECLAIM];
        v.thrashing_delay_usec = g->totals.usec[STALL_THRASHING];
        v.compact_count = g->totals.compact_count;
        v.reclaim_count = g->totals.reclaim_count;
        v.stall_budget_usec = g->cfg.stall_budget_usec;
        v.have_minute = g->have_sample &&
                        stall_windows_minute(&g->win, w->last_now, g->cfg.stall_budget_usec, &v.minute) == 0;
        thp_cgroup_status(&w->thp_env, g->cfg.thp, g->cfg.collapse, g->cfg.path, &g->thp_obs, &v.thp);
        v.collapse_bytes = g->collapse_bytes;
        v.collapse_attempted_bytes = g->collapse_attempted;
        v.collapse_huge_growth_bytes = g->collapse_growth;
        v.collapse_failed_hpages = g->collapse_failed;
        memcpy(v.collapse_err_counts, g->collapse_err, sizeof(v.collapse_err_counts));
        v.collapse_cpu_usec = g->collapse_cpu_total;
        (void) budget_window_delta(&g->collapse_cpu, w->last_now, &v.collapse_cpu_last_minute_usec, NULL);
        v.collapse_cpu_budget_usec = g->cfg.collapse_cpu_budget_usec;
        v.have_last_failure = g->have_last_failure;
        v.last_failure = g->last_failure;
        *ret = v;
        return 0;
}

void workload_global_view(const Workload *w, WorkloadGlobalView *ret)
{
        WorkloadGlobalView v = { 0 };

        v.have_cgroup_root = w->have_croot;
        if (w->have_croot) {
                v.root = w->croot;
                v.root.fd = -1;
        }
        v.delayacct = w->delayacct;
        v.delayacct_enable_wanted = w->daemon.enable_delayacct && w->delayacct == 0;
        v.attribution = attribution(w);
        v.taskstats_err = w->ts ? 0 : w->ts_err;
        v.taskstats_version = w->ts ? taskstats_version_seen(w->ts) : 0;
        v.exit_listener = w->ts && taskstats_exit_fd(w->ts) >= 0;
        v.exit_listener_err = v.exit_listener ? 0 : w->listen_err;
        v.proc_events = w->pe != NULL;
        v.proc_events_err = w->pe ? 0 : w->pe_err;
        v.exit_records = w->exit_records;
        v.exits_unattributed = w->unattributed;
        v.exit_records_lost = w->ts ? taskstats_exit_lost(w->ts) : 0;
        v.proc_events_lost = w->pe ? proc_events_lost(w->pe) : 0;
        v.queries = w->queries;
        v.query_errors = w->query_errors;
        v.tracked_tgids = (unsigned) w->n_t;
        v.thp_env = w->thp_env;
        *ret = v;
}

static const char *errname(int err)
{
        return err ? strerror(err < 0 ? -err : err) : "ok";
}

int workload_report(const Workload *w, FILE *f)
{
        WorkloadGlobalView g;

        workload_global_view(w, &g);
        fprintf(f, "cgroup2: %s%s\n", g.have_cgroup_root ? g.root.path : "(none)",
                g.have_cgroup_root && g.root.hybrid ? " (hybrid v1+v2: no v2 memory controller)" : "");
        fprintf(f, "stall attribution: %s", workload_attribution_name(g.attribution));
        if (g.attribution == WL_ATTR_DELAYACCT_OFF)
                fprintf(f, " (kernel.task_delayacct=0: delays are not collected; enable_delayacct=yes lets fragd "
                           "turn it on, processes started before are never covered)");
        else if (g.attribution == WL_ATTR_NO_TASKSTATS)
                fprintf(f, " (%s)", errname(g.taskstats_err));
        if (g.attribution == WL_ATTR_DISABLED)
                fprintf(f, " (netlink is off: taskstats and the proc connector describe this host, not the tree "
                           "under --root)\n");
        else
                fprintf(f, "; taskstats v%u, exit listener %s, proc connector %s\n", g.taskstats_version,
                        g.exit_listener ? "on" : errname(g.exit_listener_err),
                        g.proc_events ? "on" : errname(g.proc_events_err));
        for (unsigned i = 0; i < w->n; i++) {
                CgroupWorkloadView v;

                (void) workload_view(w, i, &v);
                fprintf(f, "%s: %s", v.path, v.present ? "present" : "absent");
                if (!v.present) {
                        fputc('\n', f);
                        continue;
                }
                fprintf(f, ", %u processes\n", v.n_procs);
                if (v.have_minute && v.attribution == WL_ATTR_OK)
                        fprintf(f,
                                "  last minute: %llu ms direct compaction (%llu), %llu ms direct reclaim (%llu), "
                                "%llu ms thrashing%s%s\n",
                                (unsigned long long) v.minute.usec[STALL_COMPACT] / 1000,
                                (unsigned long long) v.minute.compact_count,
                                (unsigned long long) v.minute.usec[STALL_RECLAIM] / 1000,
                                (unsigned long long) v.minute.reclaim_count,
                                (unsigned long long) v.minute.usec[STALL_THRASHING] / 1000,
                                v.minute.partial ? " (less than a minute observed)" : "",
                                v.minute.over_budget ? ", OVER BUDGET" : "");
                if (v.attribution == WL_ATTR_OK)
                        fprintf(f, "  total: compact %llu us (%llu), reclaim %llu us (%llu), thrashing %llu us\n",
                                (unsigned long long) v.compact_delay_usec, (unsigned long long) v.compact_count,
                                (unsigned long long) v.reclaim_delay_usec, (unsigned long long) v.reclaim_count,
                                (unsigned long long) v.thrashing_delay_usec);
                if (v.have_pressure)
                        fprintf(f, "  memory.pressure: some avg10 %u.%02u%% total %llu us, full avg10 %u.%02u%%\n",
                                v.pressure.some.avg10_permyriad / 100, v.pressure.some.avg10_permyriad % 100,
                                (unsigned long long) v.pressure.some.total_usec,
                                v.pressure.full.avg10_permyriad / 100, v.pressure.full.avg10_permyriad % 100);
                if (v.have_mem)
                        fprintf(f, "  THP use: anon_thp %llu of anon %llu bytes, shmem_thp %llu, file_thp %llu, "
                                   "thp_fault_alloc %llu, thp_collapse_alloc %llu\n",
                                (unsigned long long) v.mem.anon_thp, (unsigned long long) v.mem.anon,
                                (unsigned long long) v.mem.shmem_thp, (unsigned long long) v.mem.file_thp,
                                (unsigned long long) v.mem.thp_fault_alloc,
                                (unsigned long long) v.mem.thp_collapse_alloc);
                else
                        fprintf(f, "  memory.stat: %s\n", errname(w->cg[i].watch.mem_err));
                fprintf(f, "  THP intent %s via %s: %s -- %s\n", cgroup_thp_name(v.thp.intent), v.thp.mechanism_name,
                        thp_effect_name(v.thp.effect), v.thp.detail);
                if (v.thp.mechanism == THP_MECH_COLLAPSE)
                        fprintf(f, "  collapse: %llu bytes ok of %llu attempted (AnonHugePages +%llu), %llu pages "
                                   "failed (enomem %llu, eagain %llu, ebusy %llu, einval %llu), CPU %llu us in the "
                                   "last minute of %llu\n",
                                (unsigned long long) v.collapse_bytes, (unsigned long long) v.collapse_attempted_bytes,
                                (unsigned long long) v.collapse_huge_growth_bytes,
                                (unsigned long long) v.collapse_failed_hpages,
                                (unsigned long long) v.collapse_err_counts[COLLAPSE_ERR_ENOMEM],
                                (unsigned long long) v.collapse_err_counts[COLLAPSE_ERR_EAGAIN],
                                (unsigned long long) v.collapse_err_counts[COLLAPSE_ERR_EBUSY],
                                (unsigned long long) v.collapse_err_counts[COLLAPSE_ERR_EINVAL],
                                (unsigned long long) v.collapse_cpu_last_minute_usec,
                                (unsigned long long) v.collapse_cpu_budget_usec);
        }
        return 0;
}

int workload_report_json(const Workload *w, FILE *f)
{
        WorkloadGlobalView g;

        workload_global_view(w, &g);
        for (unsigned i = 0; i < w->n; i++) {
                CgroupWorkloadView v;

                (void) workload_view(w, i, &v);
                fputs("{\"cgroup\":", f);
                json_put_string(f, v.path);
                fprintf(f,
                        ",\"present\":%s,\"processes\":%u,\"attribution\":\"%s\","
                        "\"delayacct\":%d,\"taskstats_version\":%u,"
                        "\"compact_delay_usec\":%llu,\"compact_count\":%llu,\"reclaim_delay_usec\":%llu,"
                        "\"thrashing_delay_usec\":%llu,\"minute_compact_usec\":%llu,\"minute_reclaim_usec\":%llu,"
                        "\"minute_thrashing_usec\":%llu,\"over_budget\":%s,\"anon_thp\":%llu,\"anon\":%llu,"
                        "\"thp_mechanism\":\"%s\",\"thp_effect\":\"%s\",\"collapsed_bytes\":%llu,"
                        "\"collapse_huge_growth_bytes\":%llu,\"collapse_cpu_usec\":%llu,\"exit_records\":%llu,"
                        "\"exits_unattributed\":%llu}\n",
                        v.present ? "true" : "false", v.n_procs, workload_attribution_name(v.attribution),
                        g.delayacct, g.taskstats_version, (unsigned long long) v.compact_delay_usec,
                        (unsigned long long) v.compact_count, (unsigned long long) v.reclaim_delay_usec,
                        (unsigned long long) v.thrashing_delay_usec,
                        (unsigned long long) (v.have_minute ? v.minute.usec[STALL_COMPACT] : 0),
                        (unsigned long long) (v.have_minute ? v.minute.usec[STALL_RECLAIM] : 0),
                        (unsigned long long) (v.have_minute ? v.minute.usec[STALL_THRASHING] : 0),
                        v.have_minute && v.minute.over_budget ? "true" : "false", (unsigned long long) v.mem.anon_thp,
                        (unsigned long long) v.mem.anon, v.thp.mechanism_name, thp_effect_name(v.thp.effect),
                        (unsigned long long) v.collapse_bytes, (unsigned long long) v.collapse_huge_growth_bytes,
                        (unsigned long long) v.collapse_cpu_usec, (unsigned long long) g.exit_records,
                        (unsigned long long) g.exits_unattributed);
        }
        return 0;
}
