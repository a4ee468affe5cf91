/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Stall attribution: the tracked thread groups and their cumulative delay
 * records, membership (cgroup.procs scans, proc connector fork/exec/exit),
 * taskstats exit records and live TGID queries, and the per-cgroup totals.
 * The model is described in daemon/workload/workload.h. Split from
 * workload.c. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "workload/workload-internal.h"

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

void workload_track_retire(Workload *w, size_t i)
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

/* ---- exit records and process events ---------------------------------------------- */

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

/* ---- the tick's attribution steps ------------------------------------------------- */

void workload_rescan(Workload *w)
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

void workload_query_live(Workload *w)
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
                                workload_track_retire(w, i);
                                continue;
                        }
                } else if (r == -ESRCH) {
                        workload_track_retire(w, i);
                        continue;
                } else {
                        w->query_errors++;
                }
                i++;
        }
}

void workload_resolve_orphans(Workload *w)
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

void workload_totals(Workload *w, usec_t now)
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
