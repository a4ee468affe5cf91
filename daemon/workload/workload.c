/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Workload awareness: watched cgroups, stall attribution (taskstats + proc
 * connector), per-cgroup THP. See daemon/workload/workload.h for the model.
 * This file holds construction, the event sources' fds, the PSI handlers and
 * the tick; attribution is in workload-attribution.c, per-cgroup THP and
 * collapse in workload-thp.c, views and reports in workload-report.c. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "workload/workload-internal.h"

/* ---- construction --------------------------------------------------------- */

Workload *workload_free(Workload *w)
{
        if (!w)
                return NULL;
        collapse_worker_free(w->worker);
        for (unsigned i = 0; i < w->n; i++)
                cgroup_watch_close(&w->cg[i].watch);
        if (w->have_croot)
                cgroup_root_close(&w->croot);
        taskstats_free(w->ts);
        proc_events_free(w->pe);
        free(w->t);
        free(w->kv);
        free(w->req);
        free(w);
        return NULL;
}

int workload_new(const Root *root, const FragdConfig *cfg, const WorkloadOptions *opt, Workload **ret)
{
        Workload *w;
        int r;

        w = calloc(1, sizeof(*w));
        if (!w)
                return -ENOMEM;
        w->root = root;
        w->opt = opt ? *opt : WORKLOAD_OPTIONS_DEFAULT;
        w->daemon = cfg->daemon;
        w->kv = malloc(sizeof(*w->kv));
        w->req = calloc(1, sizeof(*w->req));
        if (!w->kv || !w->req) {
                workload_free(w);
                return -ENOMEM;
        }
        w->ts_err = w->listen_err = w->pe_err = -ENOTCONN;
        w->delayacct = -1;

        r = cgroup_root_open(root, &w->croot);
        w->have_croot = r >= 0;
        if (r < 0)
                log_warning_errno(r, "No cgroup2 hierarchy below '%s': watched cgroups stay absent: %m", root->path);
        else
                log_debug("cgroup2 root '%s'%s, controllers '%s'", w->croot.path, w->croot.hybrid ? " (hybrid)" : "",
                          w->croot.controllers);

        for (unsigned i = 0; i < cfg->n_cgroups && w->n < FRAGD_MAX_CGROUPS; i++) {
                const CgroupConfig *c = &cfg->cgroups[i];
                PsiTriggerSpec spec = { .threshold_usec = c->psi_trigger_threshold_usec,
                                        .window_usec = c->psi_trigger_window_usec };
                WlCgroup *g = &w->cg[w->n];

                if (!c->watch)
                        continue;
                if (!cgroup_relpath_valid(c->path)) {
                        log_warning("cgroup '%s' is not a relative cgroup path, ignoring", c->path);
                        continue;
                }
                if (spec.threshold_usec == 0) {
                        spec.threshold_usec = cfg->daemon.psi_trigger_threshold_usec;
                        spec.window_usec = cfg->daemon.psi_trigger_window_usec;
                }
                g->cfg = *c;
                cgroup_watch_init(&g->watch, c->path, &spec);
                stall_windows_init(&g->win, USEC_PER_MINUTE);
                budget_window_init(&g->collapse_cpu, USEC_PER_MINUTE);
                w->n++;
        }

        if (!root->is_host)
                w->opt.use_netlink = false; /* netlink answers about this host, not the fixture */
        if (delayacct_read(root, &w->delayacct) < 0)
                w->delayacct = -1;
        if (w->opt.use_netlink) {
                char cpus[256];

                w->ts_err = taskstats_open(&w->ts);
                if (w->ts_err == 0) {
                        TaskstatsRecord rec;

                        /* CMD_GET needs CAP_NET_ADMIN: find out now, not per tick */
                        w->ts_err = taskstats_query(w->ts, true, (uint32_t) getpid(), &rec);
                        if (w->ts_err < 0) {
                                w->ts = taskstats_free(w->ts);
                        } else {
                                w->listen_err = online_cpus_read(root, cpus, sizeof(cpus));
                                if (w->listen_err == 0)
                                        w->listen_err = taskstats_listen(w->ts, cpus);
                        }
                }
                if (w->ts_err < 0)
                        log_full_errno(LOG_NOTICE, w->ts_err, "taskstats unavailable, no stall attribution per cgroup: %m");
                else if (w->listen_err < 0)
                        log_full_errno(LOG_NOTICE, w->listen_err,
                                         "taskstats exit listener unavailable (short-lived processes are only "
                                         "counted while alive): %m");
                w->pe_err = proc_events_open(&w->pe);
                if (w->pe_err < 0)
                        log_full_errno(LOG_NOTICE, w->pe_err, "proc connector unavailable, rescanning cgroup.procs every tick: %m");
        }
        /* with enable_delayacct=yes the daemon's knob writer turns it on and
         * logs the outcome; --once never writes (its report says why) */
        if (w->delayacct == 0 && !cfg->daemon.enable_delayacct && w->opt.use_netlink)
                log_notice("kernel.task_delayacct=0: direct compaction/reclaim/thrashing delays are not collected, "
                           "no stall attribution per cgroup; set enable_delayacct=yes in [daemon] (fragd turns it "
                           "on and restores it on stop) or boot with delayacct to get them");

        thp_env_detect(&w->thp_env, w->opt.launcher_path);
        w->collapse_ops = w->opt.collapse_ops ? *w->opt.collapse_ops : collapse_ops_real;
        if (!w->opt.collapse_ops)
                w->collapse_ops.userdata = (void *) root;
        else
                w->thp_env.can_collapse = true; /* the given ops decide what is permitted */
        for (unsigned i = 0; i < w->n; i++)
                if (w->cg[i].cfg.thp == CGROUP_THP_ALWAYS && w->cg[i].cfg.collapse && !w->opt.dry_run) {
                        r = collapse_worker_new(&w->collapse_ops, &w->worker);
                        if (r < 0)
                                log_warning_errno(r, "Cannot start the collapse worker: %m");
                        break;
                }
        *ret = w;
        return 0;
}

unsigned workload_n_cgroups(const Workload *w)
{
        return w->n;
}

static int cmp_i32(const void *a, const void *b)
{
        int32_t x = *(const int32_t *) a, y = *(const int32_t *) b;

        return x < y ? -1 : x > y;
}

int workload_tasks(const Workload *w, int32_t **ret, size_t *ret_n)
{
        int32_t *all = NULL;
        size_t n_all = 0;

        for (unsigned c = 0; c < w->n; c++) {
                int32_t *tids = NULL, *grown;
                size_t n = 0;
                int r;

                if (w->cg[c].watch.state != CGROUP_PRESENT)
                        continue;
                r = cgroup_scan_threads(&w->croot, w->cg[c].cfg.path, &tids, &n);
                if (r == -ENOENT || r == -ESRCH)
                        continue; /* gone since the last refresh */
                if (r < 0) {
                        free(all);
                        return r;
                }
                grown = n ? realloc(all, (n_all + n) * sizeof(*all)) : all;
                if (n && !grown) {
                        free(tids);
                        free(all);
                        return -ENOMEM;
                }
                all = grown;
                if (n)
                        memcpy(all + n_all, tids, n * sizeof(*all));
                n_all += n;
                free(tids);
        }
        /* sorted, each once (nested watched cgroups list a task twice) */
        if (n_all > 1) {
                size_t k = 1;

                qsort(all, n_all, sizeof(*all), cmp_i32);
                for (size_t i = 1; i < n_all; i++)
                        if (all[i] != all[k - 1])
                                all[k++] = all[i];
                n_all = k;
        }
        *ret = all;
        *ret_n = n_all;
        return 0;
}

int workload_psi_fd(const Workload *w, unsigned i)
{
        return i < w->n ? cgroup_watch_psi_fd(&w->cg[i].watch) : -1;
}

int workload_taskstats_fd(const Workload *w)
{
        return w->ts ? taskstats_exit_fd(w->ts) : -1;
}

int workload_proc_events_fd(const Workload *w)
{
        return w->pe ? proc_events_fd(w->pe) : -1;
}

int workload_collapse_fd(const Workload *w)
{
        return w->worker ? collapse_worker_fd(w->worker) : -1;
}

/* ---- event handlers ------------------------------------------------------------- */

int workload_on_psi(Workload *w, unsigned i, uint32_t revents)
{
        int r;

        if (i >= w->n)
                return -EINVAL;
        r = cgroup_watch_psi_event(&w->cg[i].watch, revents);
        if (r == -ENODEV)
                log_info("cgroup '%s' went away; watching for it to come back", w->cg[i].cfg.path);
        return r;
}

void workload_release_psi(Workload *w, unsigned i)
{
        if (i < w->n)
                cgroup_watch_release_psi(&w->cg[i].watch);
}

/* ---- the tick ----------------------------------------------------------------------- */

int workload_tick(Workload *w, usec_t now, bool host_calm, WorkloadTickResult *ret)
{
        WorkloadTickResult res = { 0 };
        bool rescan_due;

        w->last_now = now;
        if (w->delayacct >= 0 && delayacct_read(w->root, &w->delayacct) < 0)
                w->delayacct = -1;
        for (unsigned c = 0; c < w->n; c++) {
                int r;

                if (!w->have_croot)
                        break;
                r = cgroup_watch_refresh(&w->cg[c].watch, &w->croot, w->kv);
                if (r == CGROUP_CHANGED_APPEARED) {
                        log_info("cgroup '%s' is present%s", w->cg[c].cfg.path,
                                 w->cg[c].watch.psi_fd >= 0 ? "; PSI trigger armed" : "");
                        if (w->cg[c].watch.psi_fd >= 0)
                                res.psi_appeared |= 1u << c;
                        w->rescan_forced = true;
                } else if (r == CGROUP_CHANGED_VANISHED) {
                        log_info("cgroup '%s' is gone", w->cg[c].cfg.path);
                        if (w->cg[c].watch.psi_fd >= 0)
                                res.psi_vanished |= 1u << c;
                        w->rescan_forced = true;
                } else if (r < 0)
                        log_debug_errno(r, "cgroup '%s': %m", w->cg[c].cfg.path);
        }

        rescan_due = !w->first_scan_done || w->rescan_forced || !w->pe ||
                     now - w->last_rescan >= w->opt.rescan_interval_usec;
        if (rescan_due && w->have_croot) {
                workload_rescan(w);
                w->last_rescan = now;
                w->rescan_forced = false;
        }
        workload_resolve_orphans(w);
        if (w->ts && now - w->last_query >= w->opt.query_interval_usec) {
                workload_query_live(w);
                w->last_query = now;
        } else if (!w->ts) {
                /* nothing to ask: exited/left processes go now */
                for (size_t i = 0; i < w->n_t;)
                        if (w->t[i].exited)
                                workload_track_retire(w, i);
                        else
                                i++;
        }
        workload_totals(w, now);
        if (w->last_thp_scan == 0 || now - w->last_thp_scan >= w->opt.thp_status_interval_usec) {
                workload_thp_scan(w);
                w->last_thp_scan = now ? now : 1;
        }
        for (unsigned c = 0; c < w->n; c++) {
                StallMinute m;

                if (stall_windows_minute(&w->cg[c].win, now, w->cg[c].cfg.stall_budget_usec, &m) == 0 &&
                    m.over_budget)
                        res.over_budget |= 1u << c;
        }
        res.collapse_submitted = workload_maybe_collapse(w, now, host_calm);
        if (ret)
                *ret = res;
        return 0;
}
