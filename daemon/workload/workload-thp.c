/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Per-cgroup THP in the workload: the THP_enabled scan of tracked
 * processes, and MADV_COLLAPSE runs (which cgroup, when it is calm, within
 * its CPU budget) with the accounting of their results. The collapse engine
 * itself is in collapse.c. Split from workload.c. */

#include <errno.h>
#include <stdio.h>

#include "workload/workload-internal.h"

void workload_thp_scan(Workload *w)
{
        for (unsigned c = 0; c < w->n; c++) {
                ThpObserved *o = &w->cg[c].thp_obs;
                const CgroupWatch *cw = &w->cg[c].watch;

                o->present = cw->state == CGROUP_PRESENT;
                o->n_procs = o->procs_thp_disabled = o->procs_thp_enabled = o->procs_unknown = 0;
                o->have_mem = cw->have_mem;
                o->anon = cw->mem.anon;
                o->anon_thp = cw->mem.anon_thp;
                o->shmem_thp = cw->mem.shmem_thp;
                o->file_thp = cw->mem.file_thp;
        }
        for (size_t i = 0; i < w->n_t; i++) {
                Tracked *t = &w->t[i];
                ThpObserved *o;
                char path[32], buf[4096];
                int r;

                if (t->exited || t->cg < 0)
                        continue;
                o = &w->cg[t->cg].thp_obs;
                o->n_procs++;
                snprintf(path, sizeof(path), "%d/status", (int) t->tgid);
                r = read_file_at(w->root->proc_fd, path, buf, sizeof(buf));
                if (r == -EFBIG)
                        r = sizeof(buf) - 1; /* THP_enabled comes early enough */
                if (r >= 0)
                        r = proc_status_thp_enabled(buf, (size_t) r);
                if (r == 0)
                        o->procs_thp_disabled++;
                else if (r == 1)
                        o->procs_thp_enabled++;
                else
                        o->procs_unknown++;
        }
}

static bool cgroup_calm(const Workload *w, const WlCgroup *g, usec_t now)
{
        StallMinute m;

        if (!g->watch.have_pressure || g->watch.pressure.some.avg10_permyriad >= w->opt.calm_psi_permyriad)
                return false;
        if (stall_windows_minute(&g->win, now, g->cfg.stall_budget_usec, &m) == 0 && m.over_budget)
                return false;
        return true;
}

bool workload_maybe_collapse(Workload *w, usec_t now, bool host_calm)
{
        if (!w->worker || w->opt.dry_run || !host_calm || !w->thp_env.can_collapse ||
            collapse_worker_busy(w->worker))
                return false;
        for (unsigned k = 0; k < w->n; k++) {
                unsigned c = (w->next_collapse + k) % w->n;
                WlCgroup *g = &w->cg[c];
                uint64_t left;
                size_t np = 0;

                if (g->cfg.thp != CGROUP_THP_ALWAYS || !g->cfg.collapse || g->watch.state != CGROUP_PRESENT ||
                    !cgroup_calm(w, g, now))
                        continue;
                left = budget_remaining(&g->collapse_cpu, now, g->cfg.collapse_cpu_budget_usec);
                if (left == 0)
                        continue;
                for (size_t i = 0; i < w->n_t && np < COLLAPSE_MAX_PIDS; i++)
                        if (w->t[i].cg == (int16_t) c && !w->t[i].exited)
                                w->req->pids[np++] = w->t[i].tgid;
                if (np == 0)
                        continue;
                w->req->n_pids = np;
                w->req->cgroup_index = c;
                w->req->max_bytes = g->cfg.collapse_max_bytes_per_tick;
                w->req->cpu_budget_usec = left == UINT64_MAX ? USEC_PER_SEC : left;
                w->req->filter = SMAPS_FILTER_DEFAULT;
                w->req->resume_pid = g->collapse_resume_pid;
                w->req->resume_addr = g->collapse_resume_addr;
                if (collapse_worker_submit(w->worker, w->req) < 0)
                        return false;
                g->thp_obs.collapse_running = true;
                w->next_collapse = c + 1;
                return true;
        }
        return false;
}

static void account_collapse(Workload *w, const CollapseResult *res)
{
        WlCgroup *g;

        if (res->cgroup_index >= w->n)
                return;
        g = &w->cg[res->cgroup_index];
        g->collapse_cpu_total += res->cpu_usec;
        (void) budget_window_add(&g->collapse_cpu, MAX(w->last_now, g->collapse_cpu.last.t), g->collapse_cpu_total);
        g->collapse_bytes += res->collapsed_bytes;
        g->collapse_attempted += res->attempted_bytes;
        g->collapse_growth += sub0(res->huge_after, res->huge_before);
        g->collapse_failed += res->hpages_failed;
        g->collapse_resume_pid = res->next_pid;
        g->collapse_resume_addr = res->next_addr;
        for (unsigned k = 0; k < _COLLAPSE_ERR_MAX; k++)
                g->collapse_err[k] += res->err_counts[k];
        if (res->n_failures > 0) {
                g->have_last_failure = true;
                g->last_failure = res->failures[res->n_failures - 1];
        }
        g->thp_obs.collapsed_bytes_total = g->collapse_bytes;
        g->thp_obs.collapse_running = false;
        if (res->err == -EPERM)
                log_warning("cgroup '%s': MADV_COLLAPSE not permitted (CAP_SYS_NICE and ptrace access needed)",
                            g->cfg.path);
        else
                log_debug("cgroup '%s': collapsed %llu of %llu bytes (huge +%llu), %llu pages failed, %llu us CPU%s%s",
                          g->cfg.path, (unsigned long long) res->collapsed_bytes,
                          (unsigned long long) res->attempted_bytes,
                          (unsigned long long) sub0(res->huge_after, res->huge_before),
                          (unsigned long long) res->hpages_failed, (unsigned long long) res->cpu_usec,
                          res->stopped_budget ? ", CPU budget spent" : "", res->stopped_cap ? ", tick cap reached" : "");
}

int workload_on_collapse(Workload *w)
{
        CollapseResult res;

        if (!w->worker)
                return 0;
        while (collapse_worker_result(w->worker, &res) > 0)
                account_collapse(w, &res);
        return 0;
}
