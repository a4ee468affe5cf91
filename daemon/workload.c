/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Workload awareness: watched cgroups, stall attribution (taskstats + proc
 * connector), per-cgroup THP. See include/fragd/workload.h for the model. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fragd/log.h"
#include "fragd/macro.h"
#include "fragd/proc-events.h"
#include "fragd/taskstats.h"
#include "fragd/workload.h"

#define ORPHANS_MAX 1024

typedef struct Snap {
        uint64_t compact_ns, reclaim_ns, thrashing_ns, compact_count, reclaim_count;
} Snap;

typedef struct Tracked {
        int32_t tgid;
        int16_t cg;
        bool exited, seen;
        Snap last, base;
} Tracked;

typedef struct Orphan {
        int32_t tgid;
        Snap s;
} Orphan;

typedef struct WlCgroup {
        CgroupConfig cfg;
        CgroupWatch watch;
        Snap retired;
        StallWindows win;
        bool have_sample;
        StallTotals totals;
        unsigned n_procs;
        ThpObserved thp_obs;
        BudgetWindow collapse_cpu;
        usec_t collapse_cpu_total;
        uint64_t collapse_bytes, collapse_attempted, collapse_growth, collapse_failed;
        uint64_t collapse_err[_COLLAPSE_ERR_MAX];
        bool have_last_failure;
        CollapseFailure last_failure;
        int32_t collapse_resume_pid; /* where the last collapse run stopped */
        uint64_t collapse_resume_addr;
} WlCgroup;

struct Workload {
        const Root *root;
        WorkloadOptions opt;
        DaemonConfig daemon;
        CgroupRoot croot;
        bool have_croot;
        unsigned n;
        WlCgroup cg[FRAGD_MAX_CGROUPS];
        KvList *kv;

        Taskstats *ts;
        int ts_err, listen_err;
        ProcEvents *pe;
        int pe_err;
        int delayacct;
        ThpEnv thp_env;

        Tracked *t;
        size_t n_t, cap_t;
        Orphan orphans[ORPHANS_MAX];
        unsigned n_orphans;

        uint64_t exit_records, unattributed, queries, query_errors;
        usec_t last_rescan, last_query, last_thp_scan, last_now;
        bool rescan_forced, first_scan_done;

        CollapseOps collapse_ops;
        CollapseWorker *worker;
        CollapseRequest *req;
        unsigned next_collapse;
};

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

/* ---- snapshots ---------------------------------------------------------- */

static Snap snap_of(const TaskstatsRecord *r)
{
        return (Snap) { r->compact_delay_ns, r->reclaim_delay_ns, r->thrashing_delay_ns, r->compact_count,
                        r->reclaim_count };
}

static void snap_max(Snap *a, const Snap *b)
{
        a->compact_ns = MAX(a->compact_ns, b->compact_ns);
        a->reclaim_ns = MAX(a->reclaim_ns, b->reclaim_ns);
        a->thrashing_ns = MAX(a->thrashing_ns, b->thrashing_ns);
        a->compact_count = MAX(a->compact_count, b->compact_count);
        a->reclaim_count = MAX(a->reclaim_count, b->reclaim_count);
}

static uint64_t sub0(uint64_t a, uint64_t b)
{
        return a > b ? a - b : 0;
}

/* acc += last - base */
static void snap_add_delta(Snap *acc, const Snap *last, const Snap *base)
{
        acc->compact_ns += sub0(last->compact_ns, base->compact_ns);
        acc->reclaim_ns += sub0(last->reclaim_ns, base->reclaim_ns);
        acc->thrashing_ns += sub0(last->thrashing_ns, base->thrashing_ns);
        acc->compact_count += sub0(last->compact_count, base->compact_count);
        acc->reclaim_count += sub0(last->reclaim_count, base->reclaim_count);
}

/* ---- tracked tgids: sorted array ------------------------------------------ */

static ssize_t track_find(const Workload *w, int32_t tgid)
{
        size_t lo = 0, hi = w->n_t;

        while (lo < hi) {
                size_t mid = (lo + hi) / 2;

                if (w->t[mid].tgid == tgid)
                        return (ssize_t) mid;
                if (w->t[mid].tgid < tgid)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return -(ssize_t) lo - 1;
}

static Tracked *track_add(Workload *w, int32_t tgid, int cg)
{
        ssize_t i = track_find(w, tgid);
        size_t pos;

        if (i >= 0)
                return &w->t[i];
        if (w->n_t == w->cap_t) {
                size_t nc = w->cap_t ? w->cap_t * 2 : 256;
                Tracked *nt = realloc(w->t, nc * sizeof(*nt));

                if (!nt)
                        return NULL;
                w->t = nt;
                w->cap_t = nc;
        }
        pos = (size_t) (-i - 1);
        memmove(w->t + pos + 1, w->t + pos, (w->n_t - pos) * sizeof(*w->t));
        w->t[pos] = (Tracked) { .tgid = tgid, .cg = (int16_t) cg, .seen = true };
        w->n_t++;
        return &w->t[pos];
}

static void track_retire(Workload *w, size_t i)
{
        Tracked *t = &w->t[i];

        if (t->cg >= 0 && (unsigned) t->cg < w->n)
                snap_add_delta(&w->cg[t->cg].retired, &t->last, &t->base);
        memmove(w->t + i, w->t + i + 1, (w->n_t - i - 1) * sizeof(*w->t));
        w->n_t--;
}

/* The most specific watched cgroup containing path, or -1. */
static int cgroup_for_path(const Workload *w, const char *path)
{
        int best = -1;
        size_t best_len = 0;

        for (unsigned i = 0; i < w->n; i++) {
                size_t l = strlen(w->cg[i].cfg.path);

                if (cgroup_path_contains(w->cg[i].cfg.path, path) && (best < 0 || l > best_len)) {
                        best = (int) i;
                        best_len = l;
                }
        }
        return best;
}

static int cgroup_of_pid(const Workload *w, int32_t pid)
{
        char path[CGROUP_PATH_MAX];

        if (proc_pid_cgroup_read(w->root, pid, path, sizeof(path)) < 0)
                return -1;
        return cgroup_for_path(w, path);
}

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

static void apply_exit(Workload *w, int32_t tgid, const Snap *s)
{
        ssize_t i = track_find(w, tgid);

        if (i >= 0) {
                snap_max(&w->t[i].last, s);
                w->t[i].exited = true;
                return;
        }
        if (w->n_orphans < ORPHANS_MAX)
                w->orphans[w->n_orphans++] = (Orphan) { tgid, *s };
        else
                w->unattributed++;
}

void workload_apply_exit(Workload *w, const TaskstatsReply *rep)
{
        const TaskstatsRecord *use = NULL;
        int32_t tgid;
        Snap s;

        w->exit_records++;
        for (unsigned k = 0; k < rep->n; k++)
                if (rep->rec[k].aggr_tgid)
                        use = &rep->rec[k];
        if (use)
                tgid = (int32_t) use->id;
        else {
                if (rep->n == 0)
                        return;
                use = &rep->rec[0];
                tgid = (use->have & TS_HAVE_TGID) && use->ac_tgid ? (int32_t) use->ac_tgid : (int32_t) use->id;
                /* a non-leader thread: its delays stay in the group's
                 * signal->stats, which TGID queries and the group's own exit
                 * record include */
                if ((int32_t) use->id != tgid)
                        return;
        }
        s = snap_of(use);
        apply_exit(w, tgid, &s);
}

int workload_on_taskstats(Workload *w)
{
        TaskstatsReply rep;
        int r;

        if (!w->ts)
                return 0;
        while ((r = taskstats_exit_receive(w->ts, &rep)) > 0)
                workload_apply_exit(w, &rep);
        if (r == -ENOBUFS) {
                log_debug("taskstats exit records lost (socket overrun)");
                return 0;
        }
        return r;
}

void workload_apply_proc_event(Workload *w, const ProcEvent *e)
{
        ssize_t i;

        switch (e->type) {
        case PROC_EV_FORK:
                if (e->pid != e->tgid)
                        break; /* a new thread, not a new process */
                i = track_find(w, e->parent_tgid);
                if (i >= 0) {
                        int cg = w->t[i].cg;

                        (void) track_add(w, e->tgid, cg);
                }
                break;
        case PROC_EV_EXEC:
                if (track_find(w, e->tgid) < 0) {
                        int cg = cgroup_of_pid(w, e->tgid);

                        if (cg >= 0)
                                (void) track_add(w, e->tgid, cg);
                }
                break;
        case PROC_EV_EXIT:
                if (e->pid == e->tgid && (i = track_find(w, e->tgid)) >= 0)
                        w->t[i].exited = true;
                break;
        default:
                break;
        }
}

int workload_on_proc_events(Workload *w)
{
        ProcEvent e;
        int r;

        if (!w->pe)
                return 0;
        while ((r = proc_events_receive(w->pe, &e)) != 0) {
                if (r == -ENOBUFS) {
                        w->rescan_forced = true;
                        continue;
                }
                if (r < 0)
                        return r;
                workload_apply_proc_event(w, &e);
        }
        return 0;
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

/* ---- the tick ----------------------------------------------------------------------- */

static void rescan(Workload *w)
{
        for (size_t i = 0; i < w->n_t; i++)
                w->t[i].seen = false;
        for (unsigned c = 0; c < w->n; c++) {
                int32_t *pids = NULL;
                size_t n = 0;

                if (w->cg[c].watch.state != CGROUP_PRESENT ||
                    cgroup_scan_pids(&w->croot, w->cg[c].cfg.path, &pids, &n) < 0)
                        continue;
                for (size_t k = 0; k < n; k++) {
                        /* a pid in a descendant that is watched on its own belongs there */
                        ssize_t i = track_find(w, pids[k]);
                        Tracked *t;

                        if (i >= 0) {
                                t = &w->t[i];
                                if (t->seen && t->cg != (int16_t) c &&
                                    strlen(w->cg[t->cg].cfg.path) > strlen(w->cg[c].cfg.path))
                                        continue; /* already claimed by the more specific cgroup */
                                if (t->cg != (int16_t) c) {
                                        /* migrated: what it did so far stays with the old cgroup */
                                        snap_add_delta(&w->cg[t->cg].retired, &t->last, &t->base);
                                        t->base = t->last;
                                        t->cg = (int16_t) c;
                                }
                                t->seen = true;
                                continue;
                        }
                        t = track_add(w, pids[k], (int) c);
                        if (!t)
                                break;
                }
                free(pids);
        }
        /* not in any watched cgroup any more: exited or moved away */
        for (size_t i = 0; i < w->n_t; i++)
                if (!w->t[i].seen)
                        w->t[i].exited = true;
        w->first_scan_done = true;
}

static void query_live(Workload *w)
{
        for (size_t i = 0; i < w->n_t;) {
                TaskstatsRecord rec;
                int r;

                w->queries++;
                r = taskstats_query(w->ts, true, (uint32_t) w->t[i].tgid, &rec);
                if (r == 0) {
                        Snap s = snap_of(&rec);

                        snap_max(&w->t[i].last, &s);
                        if (w->t[i].seen)
                                w->t[i].exited = false;
                        else {
                                /* alive but left the watched cgroups */
                                track_retire(w, i);
                                continue;
                        }
                } else if (r == -ESRCH) {
                        track_retire(w, i);
                        continue;
                } else {
                        w->query_errors++;
                }
                i++;
        }
}

static void resolve_orphans(Workload *w)
{
        for (unsigned k = 0; k < w->n_orphans; k++) {
                Orphan *o = &w->orphans[k];
                ssize_t i = track_find(w, o->tgid);
                int cg;

                if (i < 0 && (cg = cgroup_of_pid(w, o->tgid)) >= 0)
                        (void) track_add(w, o->tgid, cg);
                i = track_find(w, o->tgid);
                if (i < 0) {
                        w->unattributed++;
                        continue;
                }
                snap_max(&w->t[i].last, &o->s);
                w->t[i].exited = true;
        }
        w->n_orphans = 0;
}

static void totals(Workload *w, usec_t now)
{
        Snap sum[FRAGD_MAX_CGROUPS];

        for (unsigned c = 0; c < w->n; c++) {
                sum[c] = w->cg[c].retired;
                w->cg[c].n_procs = 0;
        }
        for (size_t i = 0; i < w->n_t; i++) {
                Tracked *t = &w->t[i];

                if (t->cg < 0 || (unsigned) t->cg >= w->n)
                        continue;
                snap_add_delta(&sum[t->cg], &t->last, &t->base);
                if (!t->exited)
                        w->cg[t->cg].n_procs++;
        }
        for (unsigned c = 0; c < w->n; c++) {
                WlCgroup *g = &w->cg[c];
                StallTotals *st = &g->totals;

                st->usec[STALL_COMPACT] = sum[c].compact_ns / NSEC_PER_USEC;
                st->usec[STALL_RECLAIM] = sum[c].reclaim_ns / NSEC_PER_USEC;
                st->usec[STALL_THRASHING] = sum[c].thrashing_ns / NSEC_PER_USEC;
                if (g->watch.have_pressure)
                        st->usec[STALL_PSI_SOME] = g->watch.pressure.some.total_usec;
                st->compact_count = sum[c].compact_count;
                st->reclaim_count = sum[c].reclaim_count;
                stall_windows_add(&g->win, now, st);
                g->have_sample = true;
        }
}

static void thp_scan(Workload *w)
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

static bool maybe_collapse(Workload *w, usec_t now, bool host_calm)
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
                rescan(w);
                w->last_rescan = now;
                w->rescan_forced = false;
        }
        resolve_orphans(w);
        if (w->ts && now - w->last_query >= w->opt.query_interval_usec) {
                query_live(w);
                w->last_query = now;
        } else if (!w->ts) {
                /* nothing to ask: exited/left processes go now */
                for (size_t i = 0; i < w->n_t;)
                        if (w->t[i].exited)
                                track_retire(w, i);
                        else
                                i++;
        }
        totals(w, now);
        if (w->last_thp_scan == 0 || now - w->last_thp_scan >= w->opt.thp_status_interval_usec) {
                thp_scan(w);
                w->last_thp_scan = now ? now : 1;
        }
        for (unsigned c = 0; c < w->n; c++) {
                StallMinute m;

                if (stall_windows_minute(&w->cg[c].win, now, w->cg[c].cfg.stall_budget_usec, &m) == 0 &&
                    m.over_budget)
                        res.over_budget |= 1u << c;
        }
        res.collapse_submitted = maybe_collapse(w, now, host_calm);
        if (ret)
                *ret = res;
        return 0;
}

/* ---- views and reports ------------------------------------------------------------- */

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
                fputs("{\"cgroup\":\"", f);
                for (const char *p = v.path; *p; p++) {
                        if (*p == '"' || *p == '\\')
                                fprintf(f, "\\%c", *p);
                        else if ((unsigned char) *p < 0x20)
                                fprintf(f, "\\u%04x", (unsigned) *p);
                        else
                                fputc(*p, f);
                }
                fprintf(f,
                        "\",\"present\":%s,\"processes\":%u,\"attribution\":\"%s\","
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
