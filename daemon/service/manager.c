/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The daemon. Each tick runs sources -> assess -> workloads -> policy ->
 * knobs -> outputs; a tick comes from the interval timer or, sooner, from the
 * PSI trigger on /proc/pressure/memory or on a watched cgroup's
 * memory.pressure. Signals: SIGTERM/SIGINT restore and exit, SIGHUP reloads
 * the configuration (all of it or none).
 *
 * Workloads (daemon/workload/workload.h) exist only when a [cgroup "..."]
 * section is watched: a host without one opens no netlink socket. The
 * Workload owns every fd (per-cgroup PSI triggers, taskstats, proc
 * connector, collapse worker); the manager owns the sd-event sources on
 * them and always drops a source before the Workload closes its fd
 * (workload_release_psi(), workload_free()). That wiring is the module
 * manager-workload.c, which this file calls.
 *
 * observe -> assess -> decide is the pipeline --once runs too
 * (pipeline.c); the levers and the apply loop are knobs/lever.c.
 *
 * The learned THP reserve outlives the process in <state_dir>/learned:
 * manager-learned.c re-instates it in the first tick (before the first
 * decide), writes it after a state update that changed it, and at stop. */

#include <sys/stat.h>

#include "core/cleanup.h"
#include "service/manager-internal.h"
#include "sources/observe.h"
#include "sources/sources.h"

static void pagecache_teardown(Manager *m);
static void pagecache_reload(Manager *m);

Manager *manager_free(Manager *m)
{
        if (!m)
                return NULL;
        manager_workload_stop(&m->wl); /* its sources, then its fds */
        control_server_free(m->control);
        pagecache_teardown(m);
        sd_event_source_disable_unref(m->timer);
        sd_event_source_disable_unref(m->sentinel);
        free(m->sentinel_kv);
        sd_event_source_disable_unref(m->psi_source);
        sd_event_source_disable_unref(m->worker_source);
        sd_event_source_disable_unref(m->sig_term);
        sd_event_source_disable_unref(m->sig_int);
        sd_event_source_disable_unref(m->sig_hup);
        closep(&m->psi_fd);
        closep(&m->textfile_fd);
        compact_worker_free(m->worker);
        knob_registry_free(m->knobs);
        daemon_lock_free(m->lock); /* last: every knob is back by now */
        sd_event_unref(m->event);
        root_free(m->root);
        free(m->sources);
        free(m->cur);
        free(m->prev);
        free(m->a);
        free(m->pstate);
        free(m->d);
        free(m);
        return NULL;
}

/* ---- outputs ---------------------------------------------------------------- */

static void action_count(Manager *m, const char *knob, ActionDirection dir, const char *reason)
{
        for (unsigned i = 0; i < m->n_actions; i++)
                if (m->actions[i].direction == dir && strcmp(m->actions[i].knob, knob) == 0 &&
                    strcmp(m->actions[i].reason, reason) == 0) {
                        m->actions[i].count++;
                        return;
                }
        if (m->n_actions < SNAPSHOT_MAX_ACTIONS)
                m->actions[m->n_actions++] = (ActionCounter) { knob, dir, reason, 1 };
}

static void manager_status_write(Manager *m)
{
        const char *lines[RECENT_MAX];
        StatusCgroup cg[FRAGD_MAX_CGROUPS];
        char stall[FRAGD_MAX_CGROUPS][192];
        unsigned n = 0;
        int r;

        for (unsigned i = 0; i < m->n_recent; i++)
                lines[n++] = m->recent[(m->recent_head + i) % RECENT_MAX];
        for (unsigned i = 0; i < m->wl.n_views; i++) {
                const CgroupWorkloadView *v = &m->wl.views[i];

                cg[i] = (StatusCgroup) {
                        .path = v->path,
                        .present = v->present,
                        .mechanism = v->thp.mechanism_name,
                        .effect = thp_effect_name(v->thp.effect),
                        .stall = workload_stall_text(v, stall[i], sizeof(stall[i])),
                };
        }
        {
                const InstanceInfo *ii = &m->sources->instance;
                char i0[128 + FRAGD_PATH_MAX + 96], i1[200], i2[200];
                const char *info[3] = { i0, i1, i2 };
                StatusReserve res[STATUS_RESERVES_MAX];
                StatusChange ch[RECENT_MAX];
                StatusHeld held[_LEVER_MAX];
                const PolicyEval *e = &m->d->eval;
                usec_t mono = now_monotonic_usec(), next = m->last_tick_usec + m->tick_interval_usec;
                StatusData sd = {
                        .info = info,
                        .n_info = 2,
                        .decisions = lines,
                        .n_decisions = n,
                        .cgroups = cg,
                        .n_cgroups = m->wl.n_views,
                        .have_state = true,
                        .paused = m->paused,
                        .instance = ii->name,
                        .instance_source = ii->source,
                        .cloud = ii->cloud,
                        .fleet_file = ii->fleet_file,
                        .preset = preset_name(m->cfg.policy.preset),
                        .interval_usec = m->tick_interval_usec ?: m->cfg.daemon.interval_usec,
                        .base_interval_usec = m->cfg.daemon.interval_usec,
                        .active_interval_usec = m->cfg.daemon.active_interval_usec,
                        .next_tick_realtime_usec = now_realtime_usec() + (next > mono ? next - mono : 0),
                        .watching = m->watching,
                        .on_pressure = m->psi_fd >= 0,
                        .reserves = res,
                        .changes = ch,
                        .held = held,
                };

                for (unsigned i = 0; i < e->n_nodes && i < FRAGD_MAX_NODES; i++)
                        for (unsigned k = 0; k < 2 && sd.n_reserves < STATUS_RESERVES_MAX; k++)
                                res[sd.n_reserves++] = (StatusReserve) {
                                        .node = e->nodes[i].node,
                                        .order = e->order[k],
                                        .have_bytes = e->nodes[i].have_bytes[k],
                                        .target_bytes = e->nodes[i].target_bytes[k],
                                        .learned = k == 1 && e->nodes[i].learned,
                                };
                if (e->learned_peak_usec > 0) {
                        sd.have_learned = true;
                        sd.learned_need_bytes = e->learned_need_bytes;
                        sd.learned_peak_bytes = e->learned_peak_bytes;
                        sd.learned_age_usec = policy_learned_age(m->pstate, mono);
                }
                for (unsigned l = 0; l < _LEVER_MAX; l++)
                        if (m->held_log.now[l] != POLICY_HOLD_NONE)
                                held[sd.n_held++] = (StatusHeld) {
                                        lever_name((Lever) l), policy_hold_name(m->held_log.now[l]),
                                        m->held_log.text[l],
                                };
                for (unsigned i = 0; i < m->n_changes; i++) {
                        const ChangeRecord *c = &m->changes[(m->changes_head + i) % RECENT_MAX];

                        ch[sd.n_changes++] = (StatusChange) {
                                c->realtime_usec, c->knob, c->from, c->to, c->reason, c->outcome,
                        };
                }
                snprintf(i0, sizeof(i0), "Instance: %s (from %s), cloud %s%s%s", ii->name[0] ? ii->name : "unknown",
                         ii->source ? ii->source : "nothing", ii->cloud ? ii->cloud : "none recognised",
                         ii->fleet_file[0] ? ", fleet file " : ", no fleet file", ii->fleet_file);
                snprintf(i1, sizeof(i1), "Preset: %s; tick every %.1f s%s%s", preset_name(m->cfg.policy.preset),
                         (double) m->cfg.daemon.interval_usec / USEC_PER_SEC,
                         m->psi_fd >= 0 ? " and on memory pressure" : "",
                         m->watching ? " (now every active_interval: recent THP faults, stalls or pressure)" : "");
                if (manager_learned_status(m, mono, i2, sizeof(i2)))
                        sd.n_info++;
                r = status_write_data(m->knobs, &sd);
        }
        /* said once per error, and when it works again: every tick retries */
        if (r < 0 && r != m->status_error)
                log_warning_errno(r, "Cannot write the status file '%s/%s/status' (%m): 'fragd status' does not show "
                                  "this fragd until it can; tried again every tick",
                                  m->root->is_host ? "" : m->root->path, knob_registry_runtime_dir(m->knobs));
        else if (r >= 0 && m->status_error < 0)
                log_notice("The status file '%s/%s/status' is written again", m->root->is_host ? "" : m->root->path,
                           knob_registry_runtime_dir(m->knobs));
        m->status_error = r < 0 ? r : 0;
}

static void notify_status(Manager *m)
{
        char buf[512];
        size_t o = 0;

        o += (size_t) snprintf(buf + o, sizeof(buf) - o, "STATUS=%s%s", m->paused ? "paused; " : "",
                               m->dry_run ? "dry run; " : "");
        for (unsigned i = 0; i < m->a->n_nodes && o < 200; i++)
                o += (size_t) snprintf(buf + o, sizeof(buf) - o, "node%d score %u; ", m->a->nodes[i].node,
                                       m->a->nodes[i].frag_score);
        for (unsigned l = 0; l < 2 && o < 300; l++)
                if (m->d->levers[l].available)
                        o += (size_t) snprintf(buf + o, sizeof(buf) - o, "%s=%" PRId64 "; ", lever_name((Lever) l),
                                               m->d->levers[l].current);
        snprintf(buf + o, sizeof(buf) - MIN(o, sizeof(buf)), "last: %.150s",
                 m->last_action[0] ? m->last_action : "no change");
        (void) sd_notify(0, buf);
}

static void metrics_export(Manager *m)
{
        char shown[2 * FRAGD_PATH_MAX];
        SnapshotBuilder *b;
        struct stat st;

        if (!m->cfg.daemon.textfile_dir[0])
                return;
        b = malloc(sizeof(*b));
        if (!b)
                return;
        snapshot_build(b, &m->cfg, m->cur, m->have_prev ? m->prev : NULL, m->a, m->d, m->knobs);
        /* paused, nothing acts, so nothing is held: fragd_knob_held says
         * what the status file's "Held" does (m->held_log, cleared) */
        for (unsigned i = 0; m->paused && i < b->s.n_knobs; i++)
                b->knobs[i].hold = NULL;
        for (unsigned i = 0; i < m->wl.n_views && i < SNAPSHOT_MAX_CGROUPS; i++)
                cgroup_view_fill(&m->wl.views[i], &b->cgroups[b->s.n_cgroups++]);
        b->s.n_actions = m->n_actions;
        b->s.actions = m->actions;
        b->s.health.last_tick_realtime_usec = now_realtime_usec();
        b->s.health.tick_duration_usec = m->tick_duration_usec;
        b->s.health.tick_interval_usec = m->tick_interval_usec;
        b->s.health.dry_run = m->dry_run;
        b->s.health.paused = m->paused;
        memcpy(b->s.health.errors, m->errors, sizeof(m->errors));
        b->s.health.errors[HEALTH_ERR_EXPORT] = m->mw.n_failures;
        /* textfile_dir is a path inside the root (--root): never the host's
         * directory when fragd runs against a tree */
        /* a directory removed since (package removed or reinstalled): open
         * the path again, or the writes go on failing into the unlinked one */
        if (m->textfile_fd >= 0 && fstat(m->textfile_fd, &st) == 0 && st.st_nlink == 0) {
                closep(&m->textfile_fd);
                m->textfile_fd = -1;
        }
        if (m->textfile_fd < 0)
                m->textfile_fd = metrics_dir_open(m->root->root_fd, m->cfg.daemon.textfile_dir);
        snprintf(shown, sizeof(shown), "%s%s", m->root->is_host ? "" : m->root->path,
                 m->cfg.daemon.textfile_dir);
        (void) metrics_writer_write(&m->mw, m->textfile_fd, shown, &b->s);
        free(b);
}

/* ---- one tick ---------------------------------------------------------------- */

/* lever_apply()'s report of an item applied: the action metrics, and the
 * recent changes (not a kcompactd kick: it can come every tick) */
static void on_applied(void *userdata, const DecisionItem *it, const char *knob, LeverAction action, const char *text)
{
        static const ActionDirection dir[] = {
                [LEVER_ACTION_UP] = ACTION_UP,
                [LEVER_ACTION_DOWN] = ACTION_DOWN,
                [LEVER_ACTION_ONESHOT] = ACTION_ONESHOT,
        };
        Manager *m = userdata;

        action_count(m, knob, dir[action], policy_reason_name(it->reason));
        if (it->kind != DECISION_KICK_KCOMPACTD) {
                manager_recent_add(m, text);
                manager_change_add(m, it, knob, m->dry_run ? "dry-run" : "applied");
        }
}

static void apply_decision(Manager *m, usec_t now)
{
        LeverApply ap = {
                .knobs = m->knobs,
                .worker = m->worker,
                .policy = &m->cfg.policy,
                .dry_run = m->dry_run,
                .applied = on_applied,
                .userdata = m,
                .held_log = &m->held_log,
                .keeps_up_said = &m->keeps_up_said,
                .reserve_gate_said = &m->reserve_gate_said,
        };

        m->errors[HEALTH_ERR_KNOB_WRITE] += lever_apply(&ap, m->d, now);
}

/* The timer's next interval: active_interval while fragd watches closely
 * (THP faults, direct compaction or reclaim, a watched workload's stall, or
 * a PSI event within active_hold: a burst can drain the reserve between two
 * ticks of the long interval), [daemon] interval otherwise. */
static usec_t next_interval(Manager *m, usec_t now)
{
        const DaemonConfig *dc = &m->cfg.daemon;
        bool watch = dc->active_interval_usec > 0 && dc->active_interval_usec < dc->interval_usec &&
                     (policy_watch_closely(m->pstate, now, dc->active_hold_usec) ||
                      (m->last_pressure_usec > 0 && now - m->last_pressure_usec < dc->active_hold_usec));

        if (watch != m->watching) {
                m->watching = watch;
                if (watch)
                        log_debug("Watching closely: tick every %.1f s until %.0f s after the last THP fault, "
                                  "stall or memory pressure",
                                  (double) dc->active_interval_usec / USEC_PER_SEC,
                                  (double) dc->active_hold_usec / USEC_PER_SEC);
                else
                        log_debug("Quiet for %.0f s: tick every %.1f s", (double) dc->active_hold_usec / USEC_PER_SEC,
                                  (double) dc->interval_usec / USEC_PER_SEC);
        }
        return watch ? dc->active_interval_usec : dc->interval_usec;
}

/* After the observation: the messages and counters about the sources, and
 * the external changes to the knobs. */
static int tick_observed(void *userdata, const Observation *cur, unsigned mask, int r)
{
        Manager *m = userdata;
        int k;

        (void) observe_log_transitions(&m->obs_log, cur, mask);
        for (unsigned s = 0; s < _OBS_SOURCE_MAX; s++)
                if ((mask & OBS_MASK(s)) && cur->err[s] < 0 && s != OBS_PAGETYPEINFO)
                        m->errors[HEALTH_ERR_SOURCE_READ]++;
        if (r < 0) {
                if (!m->source_failing)
                        log_error_errno(r, "Decisions held: buddyinfo unreadable (%m): every knob stays where it "
                                        "is (no raise, no lowering, no kcompactd kick) until it is back");
                m->source_failing = true;
                m->have_prev = false;
                return r;
        }
        if (m->source_failing)
                log_info("buddyinfo readable again: decisions resume");
        m->source_failing = false;
        if ((mask & OBS_MASK(OBS_PAGETYPEINFO)) && cur->err[OBS_PAGETYPEINFO] < 0 && m->n_ticks == 0)
                log_info("pagetypeinfo not read (%s): pageblock mix not tracked",
                         strerror(-cur->err[OBS_PAGETYPEINFO]));

        k = knob_check_external(m->knobs, cur->now_usec);
        if (k < 0)
                log_warning_errno(k, "Cannot update the knob journal: %m");
        /* no knob changed or written since the sysctls were read: the
         * levers' values come from this observation (a dry run's reads
         * give what it "wrote", not the kernel's: those read the knobs) */
        m->levers_observed = k == 0 && !m->dry_run;
        return 0;
}

/* After assess, before decide: the watched cgroups, the learned reserve
 * (the first tick), the levers from the knobs. */
static void tick_levers(void *userdata, const Observation *cur, Assessment *a, PolicyState *state,
                        LeverInput in[_LEVER_MAX])
{
        Manager *m = userdata;
        /* calm: low pressure now, and the reserve met at the last decision */
        bool host_calm = !m->paused && m->n_ticks > 0 && m->d->eval.targets_met && /* paused: no collapse */
                         a->psi_some_avg10_permyriad < m->cfg.policy.calm_psi_some_permyriad;

        usec_t cpu0 = m->tick_timing ? thread_cpu_usec() : 0;

        manager_workload_assess(&m->wl, host_calm, cur->now_usec, a);
        m->tick_workload_cpu_usec = m->tick_timing ? thread_cpu_usec() - cpu0 : 0;
        if (!m->learned_restored)
                manager_learned_restore(m, cur->now_usec); /* needs the page size and huge page order */
        levers_from_knobs(m->knobs, &m->cfg.policy, &m->baseline, m->levers_observed ? cur : NULL, in);
}

/* Debug level: the tick's CPU time (this thread's: observe to outputs),
 * each source's share of it, the watched workloads' and the outputs', for
 * finding what fragd's own cost is made of. */
static void log_tick_cpu(Manager *m, usec_t cpu0)
{
        usec_t total = thread_cpu_usec() - cpu0, sources = 0;
        char buf[512];
        size_t n = 0;

        for (unsigned s = 0; s < _OBS_SOURCE_MAX && n < sizeof(buf); s++) {
                usec_t c = observation_source_cpu_usec((ObsSource) s);

                sources += c;
                if (c > 0)
                        n += (size_t) snprintf(buf + n, sizeof(buf) - n, " %s %" PRIu64, obs_source_name((ObsSource) s),
                                               c);
        }
        log_debug("tick %" PRIu64 " cpu: %" PRIu64 " us, sources %" PRIu64 " us (%s ), workloads %" PRIu64
                  " us, outputs %" PRIu64 " us, the rest %" PRIu64 " us",
                  m->n_ticks, total, sources, n ? buf : " -", m->tick_workload_cpu_usec, m->tick_output_cpu_usec,
                  sub0(total, sources + m->tick_workload_cpu_usec + m->tick_output_cpu_usec));
}

/* With watched cgroups, fragd's trace instance counts their tasks alone
 * (docs/policy.md "Page-cache demand": whose folios): the task ids are
 * written when they change (the kernel follows forks in between); without
 * watched cgroups a list left by a reload is cleared. */
/* Failed allocations by order, counted in the scoped instance alone */
static void alloc_fail_start(Manager *m)
{
        char why[256] = "";
        int r;

        if (m->alloc_fail_up)
                return;
        r = alloc_fail_trace_start(m->root, why, sizeof(why));
        if (r < 0) {
                if (r != m->alloc_fail_err)
                        log_notice("Failed allocations not counted: %s. Page-cache fallbacks are those after which "
                                   "no larger block was free, or kswapd was woken at the order",
                                   why);
                m->alloc_fail_err = r;
                return;
        }
        log_info("Counting the watched cgroups' failed allocations by order (kmem:mm_page_alloc with no page) in "
                 "the same instance: each at the page cache's order is a fallback");
        m->alloc_fail_up = true;
        m->alloc_fail_err = 0;
}

static void alloc_fail_stop(Manager *m)
{
        char why[256] = "";

        if (!m->alloc_fail_up)
                return;
        if (alloc_fail_trace_stop(m->root, why, sizeof(why)) < 0)
                log_warning("Cannot remove the failed-allocation trigger: %s", why);
        else
                log_info("Failed allocations no longer counted: no watched cgroup to count them for");
        m->alloc_fail_up = false;
}

/* The watched cgroups' tasks changed: the kernel has added the listed
 * tasks' new children and threads (event-fork) and dropped those that
 * exited, so the tasks it lacks are added to its list, without a rewrite.
 * A rewrite clears the list first, which unregisters the filter's probes
 * on sched_switch, fork and exit (each a static key: kernel text patched
 * on every CPU), waits for the tracepoints' RCU, and counts every task's
 * events until the new list is written; a database forking a backend per
 * connection changed the list nearly every tick. 0 when the kernel's list
 * is the tasks' now (added to or not); else (a task in it that left the
 * cgroups, the list unreadable) the caller rewrites it. Never called on
 * the pid 0 written for a cgroup without tasks (pagecache_scope_idle): the
 * kernel's list did not show it back on 7.3, and added to it the idle
 * task, in whose name interrupts allocate, would be counted. */
static int pagecache_scope_add(Manager *m, const int32_t *tids, size_t n)
{
        _cleanup_free_ int32_t *have = NULL, *missing = NULL;
        size_t m_have = 0, n_missing = 0;
        char why[256] = "";
        int r;

        r = pagecache_trace_tasks_read(m->root, &have, &m_have);
        if (r < 0)
                return r;
        missing = malloc((n ? n : 1) * sizeof(*missing));
        if (!missing)
                return -ENOMEM;
        r = pagecache_tasks_missing(tids, n, have, m_have, missing, &n_missing);
        if (r != 0)
                return r;
        r = pagecache_trace_add_tasks(m->root, missing, n_missing, why, sizeof(why));
        if (r < 0) {
                log_debug("Cannot add %zu task ids to the trace instance's list: %s; writing it anew", n_missing,
                          why);
                return r;
        }
        if (n_missing > 0)
                log_debug("Added %zu task ids to the trace instance's list (%zu watched now)", n_missing, n);
        return 0;
}

static void pagecache_scope(Manager *m)
{
        _cleanup_free_ int32_t *tids = NULL;
        char why[256] = "";
        uint64_t h = 1469598103934665603ULL;
        size_t n = 0;
        int r;

        if (!m->pagecache_up)
                return;
        if (!m->wl.workload || workload_n_cgroups(m->wl.workload) == 0) {
                if (!m->pagecache_scoped)
                        return;
                /* host-wide, the failed-allocation trigger would filter
                 * every allocation of the host: it goes first */
                alloc_fail_stop(m);
                r = pagecache_trace_set_tasks(m->root, NULL, 0, why, sizeof(why));
                if (r < 0)
                        log_warning("Cannot clear the trace instance's task list: %s", why);
                else
                        log_info("No watched cgroup: page-cache folios, kswapd wake-ups and polluting fallbacks "
                                 "are counted for every task again");
                m->pagecache_scoped = false;
                return;
        }
        r = workload_tasks(m->wl.workload, &tids, &n);
        if (r < 0) {
                if (r != m->pagecache_scope_err)
                        log_warning_errno(r, "Cannot list the watched cgroups' tasks (cgroup.threads): %m; the trace "
                                          "instance keeps its last list");
                m->pagecache_scope_err = r;
                return;
        }
        for (size_t i = 0; i < n; i++)
                h = (h ^ (uint64_t) (uint32_t) tids[i]) * 1099511628211ULL;
        h = (h ^ n) * 1099511628211ULL;
        if (m->pagecache_scoped && h == m->pagecache_scope_hash)
                return;
        if (m->pagecache_scoped && !m->pagecache_scope_err && !m->pagecache_scope_idle &&
            pagecache_scope_add(m, tids, n) == 0) {
                m->pagecache_scope_hash = h;
                return;
        }
        r = pagecache_trace_set_tasks(m->root, tids, n, why, sizeof(why));
        if (r < 0) {
                if (r != m->pagecache_scope_err)
                        log_warning("Page-cache folios not scoped to the watched cgroups: %s; they count every "
                                    "task's folios, a bulk writer's too",
                                    why);
                m->pagecache_scope_err = r;
                return;
        }
        if (!m->pagecache_scoped || m->pagecache_scope_err)
                log_info("Page-cache folios, kswapd wake-ups and polluting fallbacks counted for the watched "
                         "cgroups' tasks alone (%zu now; their new children and threads follow)",
                         n);
        m->pagecache_scope_err = 0;
        m->pagecache_scoped = true;
        m->pagecache_scope_hash = h;
        m->pagecache_scope_idle = n == 0;
        alloc_fail_start(m);
}

static int tick(Manager *m)
{
        usec_t now = now_monotonic_usec();
        bool timing = log_get_max_level() >= LOG_DEBUG;
        usec_t cpu0 = timing ? thread_cpu_usec() : 0;
        unsigned mask = OBS_PER_TICK | (m->pagecache_up ? OBS_MASK(OBS_PAGECACHE) : 0);
        Pipeline p = {
                .root = m->root,
                .policy = &m->cfg.policy,
                .cur = m->cur,
                .a = m->a,
                .state = m->pstate,
                .d = m->d,
        };
        PipelineHooks h = { .observed = tick_observed, .levers = tick_levers, .userdata = m };
        int r;

        m->last_tick_usec = now;
        m->levers_observed = false;
        m->tick_workload_cpu_usec = 0;
        m->tick_timing = timing;
        observation_timing(timing);
        if (m->cfg.daemon.pagetypeinfo_interval_usec &&
            (!m->last_pagetype_usec || now - m->last_pagetype_usec >= m->cfg.daemon.pagetypeinfo_interval_usec)) {
                mask |= OBS_MASK(OBS_PAGETYPEINFO);
                m->last_pagetype_usec = now;
        }
        if (!m->last_thp_full_usec || now - m->last_thp_full_usec >= 10 * USEC_PER_MINUTE) {
                mask |= OBS_MASK(OBS_THP_FULL);
                m->last_thp_full_usec = now;
        }
        if (m->n_ticks == 0)
                mask |= OBS_MASK(OBS_NODES);

        if (m->have_prev || m->n_ticks > 0)
                observation_keep_counters(m->prev, m->cur);
        pagecache_scope(m);
        p.prev = m->have_prev ? m->prev : NULL;
        r = pipeline_run(&p, mask, now, &h, NULL);
        if (r < 0)
                return r;
        (void) observe_log_assessment(m->a, &m->d->eval);
        if (m->d->eval.unmeasured != m->held_unmeasured) {
                if (m->d->eval.unmeasured)
                        log_warning("Decisions held: %s unreadable: every knob stays where it is (no raise, no "
                                    "lowering, no kcompactd kick) until it is back",
                                    (m->d->eval.unmeasured & OBS_MASK(OBS_ZONEINFO)) ? "zoneinfo" : "buddyinfo");
                else
                        log_info("Decisions resumed: %s is back, the targets are measured again",
                                 (m->held_unmeasured & OBS_MASK(OBS_ZONEINFO)) ? "zoneinfo" : "buddyinfo");
                m->held_unmeasured = m->d->eval.unmeasured;
        }
        if (m->paused)
                manager_paused_decisions(m);
        else
                apply_decision(m, now);
        policy_state_update(m->pstate, m->a, m->d, now);
        manager_learned_sync(m, now, false);

        m->have_activity_count = m->cur->have & OBS_MASK(OBS_VMSTAT);
        if (m->have_activity_count)
                m->activity_count = policy_activity_counters(&m->cur->vmstat);
        m->have_prev = true;
        m->n_ticks++;
        m->tick_duration_usec = now_monotonic_usec() - now;
        m->tick_interval_usec = next_interval(m, now);
        log_debug("tick %" PRIu64 ": %u decisions, %u held, %" PRIu64 " us, next in %.1f s", m->n_ticks,
                  m->d->n_items, m->d->n_held, m->tick_duration_usec,
                  (double) m->tick_interval_usec / USEC_PER_SEC);
        /* the outputs follow [daemon] interval, not the closer watch (a
         * textfile fsync a second is not what a scrape every 15 s needs),
         * except when a knob changed: that shows at once */
        if (!m->last_output_usec || m->outputs_due ||
            now - m->last_output_usec + m->cfg.daemon.interval_usec / 10 >= m->cfg.daemon.interval_usec) {
                usec_t out0 = timing ? thread_cpu_usec() : 0;

                m->last_output_usec = now;
                m->outputs_due = false;
                metrics_export(m);
                manager_status_write(m);
                notify_status(m);
                m->tick_output_cpu_usec = timing ? thread_cpu_usec() - out0 : 0;
        } else
                m->tick_output_cpu_usec = 0;
        if (timing)
                log_tick_cpu(m, cpu0);
        if (!m->ready) {
                (void) sd_notify(0, "READY=1");
                m->ready = true;
                char fast[128] = "";

                if (m->cfg.daemon.active_interval_usec > 0 &&
                    m->cfg.daemon.active_interval_usec < m->cfg.daemon.interval_usec)
                        snprintf(fast, sizeof(fast), " (every %.1f s for %.0f s after THP faults or stalls)",
                                 (double) m->cfg.daemon.active_interval_usec / USEC_PER_SEC,
                                 (double) m->cfg.daemon.active_hold_usec / USEC_PER_SEC);
                log_info("fragd %s running%s: tick every %.1f s%s, %s", FRAGD_VERSION,
                         m->dry_run ? " in dry-run mode (nothing is written)" : "",
                         (double) m->cfg.daemon.interval_usec / USEC_PER_SEC, fast,
                         m->psi_fd >= 0 ? "and on memory pressure (PSI trigger)" : "no PSI trigger");
        }
        return 0;
}

static int arm_sentinel(Manager *m);

/* The tick timer, and the sentinel after it (arm_sentinel() keeps it off
 * within active_interval of the tick). */
static int arm_timer(Manager *m, usec_t delay)
{
        int r = sd_event_source_set_time_relative(m->timer, delay);
        if (r >= 0)
                r = sd_event_source_set_enabled(m->timer, SD_EVENT_ONESHOT);
        if (r >= 0 && m->sentinel)
                (void) arm_sentinel(m);
        return r;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
        Manager *m = userdata;

        (void) tick(m);
        return arm_timer(m, m->tick_interval_usec ? m->tick_interval_usec : m->cfg.daemon.interval_usec);
}

static void psi_close(Manager *m)
{
        m->psi_source = sd_event_source_disable_unref(m->psi_source);
        closep(&m->psi_fd);
        m->psi_fd = -1;
}

/* Tick now, but never closer than MIN_TICK_GAP_USEC to the last tick. */
static int tick_soon(Manager *m)
{
        usec_t now = now_monotonic_usec();

        if (now - m->last_tick_usec >= MIN_TICK_GAP_USEC) {
                (void) tick(m);
                return arm_timer(m, m->tick_interval_usec ? m->tick_interval_usec : m->cfg.daemon.interval_usec);
        }
        return arm_timer(m, m->last_tick_usec + MIN_TICK_GAP_USEC - now);
}

/* A pressure event (system or cgroup): tick soon. */
static int tick_on_pressure(void *userdata)
{
        Manager *m = userdata;

        m->last_pressure_usec = now_monotonic_usec();
        return tick_soon(m);
}

/* The sentinel: while the timer is on [daemon] interval, /proc/vmstat every
 * active_interval. A THP fault, a direct compaction or a direct reclaim
 * since the last tick (policy_activity_counters() changed) ticks soon, and
 * that tick starts the close watch: the start of a burst is seen within
 * active_interval (and MIN_TICK_GAP_USEC of the last tick), not up to
 * interval later, for one vmstat read per active_interval. Off when
 * active_interval is 0 or not below interval, and while fragd watches
 * closely (it ticks every active_interval then). */
static bool sentinel_on(const Manager *m)
{
        const DaemonConfig *dc = &m->cfg.daemon;

        return dc->active_interval_usec > 0 && dc->active_interval_usec < dc->interval_usec;
}

/* Armed active_interval from now, unless the tick comes first: the tick
 * reads /proc/vmstat itself and re-arms the sentinel (arm_timer()), so
 * the reads fall between the ticks and never beside one: interval /
 * active_interval wake-ups per interval in all, the tick's included (the
 * idle scenario of the VM suite counts them). */
static int arm_sentinel(Manager *m)
{
        uint64_t now, next_tick;
        int enabled = SD_EVENT_OFF, r;

        if (!sentinel_on(m))
                return sd_event_source_set_enabled(m->sentinel, SD_EVENT_OFF);
        if (sd_event_now(m->event, CLOCK_MONOTONIC, &now) >= 0 &&
            sd_event_source_get_enabled(m->timer, &enabled) >= 0 && enabled != SD_EVENT_OFF &&
            sd_event_source_get_time(m->timer, &next_tick) >= 0 &&
            next_tick <= now + m->cfg.daemon.active_interval_usec)
                return sd_event_source_set_enabled(m->sentinel, SD_EVENT_OFF);
        r = sd_event_source_set_time_relative(m->sentinel, m->cfg.daemon.active_interval_usec);
        if (r >= 0)
                r = sd_event_source_set_enabled(m->sentinel, SD_EVENT_ONESHOT);
        return r;
}

static int on_sentinel(sd_event_source *s, uint64_t usec, void *userdata)
{
        Manager *m = userdata;

        if (!m->watching && m->have_activity_count && vmstat_read(m->root, m->sentinel_kv) >= 0 &&
            policy_activity_counters(m->sentinel_kv) != m->activity_count) {
                log_debug("THP faults, direct compaction or direct reclaim since the last tick (/proc/vmstat): "
                          "ticking now");
                (void) tick_soon(m);
        }
        return arm_sentinel(m);
}

static int on_psi(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
        Manager *m = userdata;

        if (revents & EPOLLERR) {
                log_warning("The PSI trigger on /proc/pressure/memory was dropped by the kernel; "
                            "polling every interval from now on");
                psi_close(m);
                return 0;
        }
        log_debug("memory pressure event");
        return tick_on_pressure(m);
}

static int psi_open(Manager *m)
{
        PsiTriggerSpec spec = {
                .full = false,
                .threshold_usec = m->cfg.daemon.psi_trigger_threshold_usec,
                .window_usec = m->cfg.daemon.psi_trigger_window_usec,
        }, eff;
        _cleanup_close_ int probe = -1;
        struct statfs sfs;
        int fd, r;

        /* a trigger is written into the file: only ever into procfs (a --root
         * tree holds plain copies, which that write would overwrite) */
        probe = root_openat(m->root->proc_fd, "pressure/memory", O_RDONLY | O_CLOEXEC, 0, 0);
        if (probe < 0 || fstatfs(probe, &sfs) < 0 || sfs.f_type != PROC_SUPER_MAGIC) {
                log_info("No PSI trigger: '%s/proc/pressure/memory' is %s; polling every %.1f s",
                         m->root->is_host ? "" : m->root->path, probe < 0 ? "missing" : "not on procfs",
                         (double) m->cfg.daemon.interval_usec / USEC_PER_SEC);
                return -EOPNOTSUPP;
        }
        fd = psi_trigger_open_at(m->root->proc_fd, "pressure/memory", &spec, &eff);
        if (fd < 0) {
                log_warning_errno(fd, "No PSI trigger on /proc/pressure/memory (%m): fragd polls every %.1f s%s",
                                  (double) m->cfg.daemon.interval_usec / USEC_PER_SEC,
                                  fd == -ENOENT || fd == -EOPNOTSUPP ? "; boot with psi=1 to enable PSI" : "");
                return fd;
        }
        m->psi_fd = fd;
        r = sd_event_add_io(m->event, &m->psi_source, fd, EPOLLPRI, on_psi, m);
        if (r < 0) {
                psi_close(m);
                return log_warning_errno(r, "Cannot watch the PSI trigger: %m");
        }
        log_debug("PSI trigger: some %" PRIu32 " us in %" PRIu32 " us", eff.threshold_usec, eff.window_usec);
        return 0;
}

static int on_worker(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
        Manager *m = userdata;
        CompactResult res;

        while (compact_worker_result(m->worker, &res) >= 0) {
                (void) knob_note_result(m->knobs, res.knob, res.error, now_monotonic_usec());
                if (res.error < 0) {
                        m->errors[HEALTH_ERR_KNOB_WRITE]++;
                        log_warning_errno(res.error, "Compaction through '%s' failed: %m", res.knob);
                } else
                        log_info("%s done in %" PRIu64 " ms", res.knob, res.duration_usec / USEC_PER_MSEC);
        }
        return 0;
}

/* ---- pause and resume (the control socket; manager-pause.c) ---------------------- */

static int on_control(void *userdata, ControlCommand cmd, char *reply, size_t size)
{
        Manager *m = userdata;
        int r = manager_pause_set(m, cmd == CONTROL_PAUSE, reply, size);

        /* shown at once: the status file, the textfile, sd_notify */
        m->last_output_usec = now_monotonic_usec();
        m->outputs_due = false;
        metrics_export(m);
        manager_status_write(m);
        notify_status(m);
        if (cmd == CONTROL_RESUME && !m->paused)
                (void) arm_timer(m, 0); /* act now, not an interval later */
        return r;
}

/* The control socket in the runtime directory in use; on a reload that
 * moved it, in the new one (the pause flag goes along). -EADDRINUSE:
 * another process listens there (control.c named it). */
static int control_open(Manager *m)
{
        char rt[FRAGD_PATH_MAX + 2];

        m->control = control_server_free(m->control);
        return control_server_new(m->event, m->root, knob_registry_runtime_dir_abs(m->knobs, rt, sizeof(rt)), on_control, m,
                                  &m->control);
}

/* ---- one fragd per root (daemon-lock.h) --------------------------------------------- */

/* The lock, held until exit. A `fragd --restore` holding it (the unit's
 * ExecStopPost= before a restart) is waited for, at most 5 s. */
static int manager_lock(Manager *m, LockRecord *ret_prev)
{
        char path[FRAGD_PATH_MAX + 32], who[1024];
        int r;

        daemon_lock_path(m->root, path, sizeof(path));
        for (unsigned i = 0;; i++) {
                bool alive;

                r = daemon_lock_take(m->root, &m->lock, ret_prev);
                if (r != -EBUSY || i >= 50)
                        break;
                alive = ret_prev->valid && pid_is_alive(ret_prev->pid, ret_prev->starttime);
                /* a holder that has not written its record yet (started at
                 * the same moment): wait for it to say who it is, 1 s */
                if (alive ? strcmp(ret_prev->mode, "restore") != 0 : i >= 10)
                        break;
                (void) usleep(100 * 1000);
        }
        if (r == -EBUSY) {
                daemon_lock_holder(m->root, ret_prev, who, sizeof(who));
                log_error("Another fragd runs on this root: %s. One fragd per root: stop that one first; 'fragd "
                          "--once' shows what fragd would do without acting",
                          who);
                return r;
        }
        if (r == -ELOOP || r == -EBADFD)
                log_error("'%s' is %s, not fragd's lock file: left in place, fragd does not start. Remove it "
                          "(ls -l to see who made it), then start fragd again",
                          path, r == -ELOOP ? "a symbolic link" : "not a regular file");
        else if (r < 0)
                log_error_errno(r, "Cannot take the lock '%s' (one fragd per root): %m", path);
        return r;
}

/* The journal a fragd that died left where its runtime_dir was, when the
 * configuration names another one now (edited without a reload): restored
 * before this daemon takes over a knob, or it would take fragd's old value
 * for the original. Any doubt stops the start, as for the journal in
 * runtime_dir (knob_registry_new()). */
static int manager_recover_moved(Manager *m, const LockRecord *prev)
{
        const char *prefix = m->root->is_host ? "" : m->root->path;
        char was[FRAGD_PATH_MAX], now[FRAGD_PATH_MAX], aside[FRAGD_PATH_MAX + 48], ropt[FRAGD_PATH_MAX + 16] = "";
        KnobRestoreStats st = { 0 };
        int r;

        if (!prev->valid || knob_runtime_dir_relative(prev->journal_dir, was, sizeof(was)) < 0 ||
            knob_runtime_dir_relative(m->cfg.daemon.runtime_dir, now, sizeof(now)) < 0 || strcmp(was, now) == 0)
                return 0;
        if (!m->root->is_host)
                snprintf(ropt, sizeof(ropt), " --root %s", m->root->path);
        r = knob_restore_from_journal(m->root, prev->journal_dir, &knob_ops_real, m->cfg.daemon.ownership, &st);
        if (r >= 0 && st.n_entries > 0)
                log_notice("The last fragd here (pid %d) kept its knob journal in '%s/%s', not in runtime_dir "
                           "'%s' of the configuration: restored from there first",
                           (int) prev->pid, prefix, was, m->cfg.daemon.runtime_dir);
        if (r >= 0 && st.n_failed == 0 && knob_journal_find_aside(m->root->root_fd, was, aside, sizeof(aside)) > 0)
                r = -EBADMSG;
        if (r < 0 || st.n_failed > 0) {
                log_error("fragd does not start: the knob journal the last fragd here (pid %d) left in '%s/%s' "
                          "(its runtime_dir; the configuration says '%s' now) is not fully restored (see above). "
                          "Run 'fragd --restore%s', which reads it there",
                          (int) prev->pid, prefix, was, m->cfg.daemon.runtime_dir, ropt);
                return r < 0 ? r : -EIO;
        }
        return 0;
}

/* The record beside the lock: where this daemon keeps its files. Written
 * at start and when a reload moved a directory. */
static void manager_lock_publish_dirs(Manager *m, const char *rt)
{
        int r = daemon_lock_publish(m->lock, m->dry_run ? "dry-run" : "daemon", rt, m->cfg.daemon.state_dir,
                                    m->journal_dir);

        if (r < 0)
                log_warning_errno(r, "Cannot write '%s/" DAEMON_LOCK_DIR "/" DAEMON_LOCK_RECORD "' (%m): 'fragd "
                                  "status', 'pause' and '--restore' look for this fragd's files where the "
                                  "configuration says",
                                  m->root->is_host ? "" : m->root->path);
}

/* ... with the registry up: its runtime directory holds this daemon's journal */
static void manager_lock_publish(Manager *m)
{
        char rt[FRAGD_PATH_MAX + 2];

        knob_registry_runtime_dir_abs(m->knobs, rt, sizeof(rt));
        if (!m->dry_run)
                snprintf(m->journal_dir, sizeof(m->journal_dir), "%s", rt);
        manager_lock_publish_dirs(m, rt);
}

/* ---- configuration -------------------------------------------------------------- */

static void config_args(const Manager *m, ConfigLoadArgs *a)
{
        *a = (ConfigLoadArgs) {
                .root = m->root,
                .config_file = m->args.config_file,
                .set = m->args.sets,
                .n_set = m->args.n_sets,
                .probe = &m->probe,
        };
}

/* runtime_dir holds the knob journal this process keeps, state_dir the
 * learned reserve. A crash recovery (fragd --restore, the next start) reads
 * the journal where the lock's record says (manager_lock_publish(), after
 * this), then where the configuration file says: a change on reload carries
 * the journal (and the learned file) over to the new directory. When that
 * cannot be done safely, the running daemon keeps the old one until a
 * restart. */
static void config_move_dirs(Manager *m, const FragdConfig *old)
{
        char *now, why[FRAGD_PATH_MAX * 2 + 256], from[FRAGD_PATH_MAX * 2], to[FRAGD_PATH_MAX * 2];
        const char *was, *prefix = m->root->is_host ? "" : m->root->path;
        unsigned n = 0;
        int r;

        now = m->cfg.daemon.runtime_dir;
        was = old->daemon.runtime_dir;
        if (strcmp(now, was) != 0) {
                char ropt[FRAGD_PATH_MAX + 16] = "";

                snprintf(from, sizeof(from), "%s/%s/saved", prefix, knob_registry_runtime_dir(m->knobs));
                r = knob_registry_move(m->knobs, now, &n, why, sizeof(why));
                if (r < 0) {
                        if (!m->root->is_host)
                                snprintf(ropt, sizeof(ropt), " --root %s", m->root->path);
                        log_warning("[daemon] runtime_dir changed from '%s' to '%s' on reload: not applied, %s. The "
                                    "running fragd keeps '%s' (its knob journal is there); restart fragd to use "
                                    "'%s'. If fragd dies before that, run 'fragd --restore%s --set "
                                    "daemon.runtime_dir=%s'",
                                    was, now, why, was, now, ropt, was);
                        snprintf(now, FRAGD_PATH_MAX, "%s", was);
                } else if (r > 0)
                        log_notice("[daemon] runtime_dir changed from '%s' to '%s' on reload: the knob journal "
                                   "(%u knob%s) moved from '%s' to '%s/%s/saved', where 'fragd --restore' and the "
                                   "next start look",
                                   was, now, n, n == 1 ? "" : "s", from, prefix,
                                   knob_registry_runtime_dir(m->knobs));
                else
                        log_info("[daemon] runtime_dir changed from '%s' to '%s' on reload: in use now%s", was, now,
                                 m->dry_run ? " (dry run: no knob journal)" : " (nothing to move)");
        }

        now = m->cfg.daemon.state_dir;
        was = old->daemon.state_dir;
        if (strcmp(now, was) == 0)
                return;
        learned_store_name(m->root, was, from, sizeof(from));
        learned_store_name(m->root, now, to, sizeof(to));
        if (m->dry_run) {
                log_info("[daemon] state_dir changed from '%s' to '%s' on reload: in use now (dry run: the learned "
                         "reserve file is neither written nor moved)",
                         was, now);
                return;
        }
        if (!now[0]) {
                char rel[FRAGD_PATH_MAX + 16];
                bool left = learned_store_path(was, rel, sizeof(rel)) >= 0 &&
                            faccessat(m->root->root_fd, rel, F_OK, AT_SYMLINK_NOFOLLOW) == 0;

                log_info("[daemon] state_dir emptied on reload: the learned reserve is no longer kept across "
                         "restarts%s%s%s",
                         left ? "; '" : "", left ? from : "", left ? "' is left as it is" : "");
                return;
        }
        r = learned_store_move(m->root, was, now, why, sizeof(why));
        if (r < 0) {
                log_warning("[daemon] state_dir changed from '%s' to '%s' on reload: not applied, %s. The running "
                            "fragd keeps '%s' (its learned reserve is there); restart fragd to use '%s'",
                            was, now, why, was, now);
                snprintf(now, FRAGD_PATH_MAX, "%s", was);
        } else if (r > 0)
                log_notice("[daemon] state_dir changed from '%s' to '%s' on reload: the learned reserve file moved "
                           "from '%s' to '%s'",
                           was, now, from, to);
        else
                log_info("[daemon] state_dir changed from '%s' to '%s' on reload: in use now (no learned reserve "
                         "file to move)",
                         was, now);
}

static void config_applied(Manager *m)
{
        if (!m->args.log_level_set)
                log_set_max_level(m->cfg.daemon.log_level);
        knob_registry_set_ownership(m->knobs, m->cfg.daemon.ownership);
        closep(&m->textfile_fd);
        m->textfile_fd = -1;
}

static int on_hup(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
        Manager *m = userdata;
        _cleanup_free_ ConfigErrors *errs = calloc(1, sizeof(*errs));
        _cleanup_free_ FragdConfig *old = malloc(sizeof(*old));
        ConfigLoadArgs a;
        bool was_dry = m->cfg.daemon.dry_run;
        char buf[64];
        int r;

        if (!errs || !old)
                return 0;
        *old = m->cfg;
        snprintf(buf, sizeof(buf), "RELOADING=1\nMONOTONIC_USEC=%" PRIu64, now_monotonic_usec());
        (void) sd_notify(0, buf);
        config_args(m, &a);
        r = config_reload(&a, &m->cfg, m->sources, errs);
        config_warnings_log(errs);
        if (r < 0) {
                log_error("Configuration reload failed, the previous configuration stays in force:");
                for (unsigned i = 0; i < errs->n; i++)
                        log_error("  %s", errs->msg[i]);
        } else {
                char rt_was[FRAGD_PATH_MAX + 2], rt_now[FRAGD_PATH_MAX + 2];

                knob_registry_runtime_dir_abs(m->knobs, rt_was, sizeof(rt_was));
                config_move_dirs(m, old);
                config_applied(m);
                /* another textfile directory: its first failure is news */
                if (strcmp(old->daemon.textfile_dir, m->cfg.daemon.textfile_dir) != 0)
                        m->mw.last_r = 0;
                if (strcmp(rt_was, knob_registry_runtime_dir_abs(m->knobs, rt_now, sizeof(rt_now))) != 0) {
                        if (m->paused && status_pause_write(m->root, rt_now, true) >= 0)
                                (void) status_pause_write(m->root, rt_was, false);
                        (void) control_open(m);
                }
                manager_lock_publish(m);
                if (m->cfg.daemon.dry_run != was_dry)
                        log_warning("[daemon] dry_run changed: it takes effect at the next start");
                pagecache_reload(m);
                (void) levers_check_kernel(m->knobs, &m->cfg.policy); /* a lever enabled now */
                if (manager_workload_config_changed(old, &m->cfg)) {
                        /* the stall history of the watched cgroups starts again */
                        manager_workload_stop(&m->wl);
                        if (!old->daemon.enable_delayacct && !m->paused)
                                manager_delayacct_apply(m->knobs, m->root, &m->cfg, m->dry_run, now_monotonic_usec());
                        (void) manager_workload_start(&m->wl, &m->cfg);
                }
                log_info("Configuration reloaded (preset %s)", preset_name(m->cfg.policy.preset));
                (void) arm_timer(m, m->cfg.daemon.interval_usec); /* and the sentinel */
        }
        (void) sd_notify(0, "READY=1");
        return 0;
}

static int on_term(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
        Manager *m = userdata;

        log_info("Received %s, restoring knobs and exiting", strsignal((int) si->ssi_signo));
        (void) sd_notify(0, "STOPPING=1");
        return sd_event_exit(m->event, 0);
}

/* ---- life cycle -------------------------------------------------------------------- */

/* fragd's trace instance for page-cache folios by order: one message when
 * it cannot be had, and fragd_source_up{source="pagecache"} 0. */
static void pagecache_setup(Manager *m)
{
        char why[512] = "";
        int r;

        if (!m->cfg.daemon.pagecache_signal) {
                log_info("pagecache_signal=off: page-cache folio orders are not measured; the large-folio "
                         "reserve is kept at order_large");
                return;
        }
        r = pagecache_trace_start(m->root, why, sizeof(why));
        if (r < 0) {
                m->cur->err[OBS_PAGECACHE] = r;
                log_warning("Decisions degraded: %s: %s (pagecache_signal=off in [daemon] says this is "
                            "intended)",
                            why, obs_source_impact(OBS_PAGECACHE));
                return;
        }
        m->pagecache_up = true;
        m->pagecache_scoped = false; /* a new instance: no task list yet */
        m->pagecache_scope_err = 0;
        m->alloc_fail_up = false; /* nor its trigger */
        m->alloc_fail_err = 0;
        log_info("Counting page-cache folios by order in '/sys/kernel/tracing/instances/" PAGECACHE_INSTANCE
                 "' (removed at stop)");
        /* the polluting fallbacks ride in the same instance */
        r = extfrag_trace_start(m->root, why, sizeof(why));
        if (r < 0)
                log_notice("Polluting fallbacks not counted: %s. defrag_mode is decided from pagetypeinfo's "
                           "non-movable pageblocks alone", why);
        else
                log_info("Counting pageblock-polluting fallbacks (kmem:mm_page_alloc_extfrag) in the same instance");
        /* and kswapd's wake-ups by order: the fallbacks a free block hides */
        r = kswapd_wake_trace_start(m->root, why, sizeof(why));
        if (r < 0)
                log_notice("kswapd wake-ups not counted: %s. Page-cache fallbacks are those after which no "
                           "larger block was free", why);
        else
                log_info("Counting kswapd wake-ups by order (vmscan:mm_vmscan_wakeup_kswapd) in the same instance");
}

static void pagecache_teardown(Manager *m)
{
        int r;

        if (!m->pagecache_up)
                return;
        m->pagecache_up = false;
        r = pagecache_trace_stop(m->root);
        if (r < 0 && r != -ENOENT)
                log_warning_errno(r, "Cannot remove the trace instance '/sys/kernel/tracing/instances/"
                                  PAGECACHE_INSTANCE "': %m; remove it with rmdir");
}

/* SIGHUP: pagecache_signal turned off removes the instance; on, with no
 * instance (turned on, or its set-up failed: tracefs mounted since, say),
 * tries the set-up again. */
static void pagecache_reload(Manager *m)
{
        if (!m->cfg.daemon.pagecache_signal) {
                if (m->pagecache_up) {
                        pagecache_teardown(m);
                        log_info("pagecache_signal=off: the trace instance is removed; the large-folio reserve "
                                 "is kept at order_large");
                }
                m->cur->have &= ~OBS_MASK(OBS_PAGECACHE);
                m->cur->err[OBS_PAGECACHE] = 0;
                return;
        }
        if (!m->pagecache_up)
                pagecache_setup(m);
}

int manager_new(const ManagerArgs *args, Manager **ret, ManagerFailure *ret_why)
{
        _cleanup_(manager_freep) Manager *m = NULL;
        _cleanup_free_ ConfigErrors *errs = NULL;
        ConfigLoadArgs ca;
        LockRecord prev;
        sigset_t ss;
        int r;

        *ret_why = MANAGER_FAILED;
        m = calloc(1, sizeof(*m));
        if (!m)
                return -ENOMEM;
        m->args = *args;
        m->psi_fd = m->textfile_fd = -1;
        m->mw = (MetricsWriter) METRICS_WRITER_INIT;
        m->sources = calloc(1, sizeof(*m->sources));
        m->cur = calloc(1, sizeof(*m->cur));
        m->prev = calloc(1, sizeof(*m->prev));
        m->a = calloc(1, sizeof(*m->a));
        m->pstate = calloc(1, sizeof(*m->pstate));
        m->d = calloc(1, sizeof(*m->d));
        m->sentinel_kv = calloc(1, sizeof(*m->sentinel_kv));
        errs = calloc(1, sizeof(*errs));
        if (!m->sources || !m->cur || !m->prev || !m->a || !m->pstate || !m->d || !m->sentinel_kv || !errs)
                return -ENOMEM;
        policy_state_init(m->pstate);
        /* from the start: a SIGHUP (a reload) or SIGTERM sent while this
         * sets up (the lock, crash recovery) waits for the event loop
         * instead of killing a fragd that may hold knobs */
        sigemptyset(&ss);
        sigaddset(&ss, SIGTERM);
        sigaddset(&ss, SIGINT);
        sigaddset(&ss, SIGHUP);
        if (sigprocmask(SIG_BLOCK, &ss, NULL) < 0)
                return log_error_errno(errno, "Cannot block signals: %m");

        r = root_open(args->root, args->page_size, &m->root);
        if (r < 0)
                return log_error_errno(r, "Cannot open root directory '%s': %m", args->root);

        (void) instance_probe(m->root, NULL, &m->probe);
        config_args(m, &ca);
        r = config_load(&ca, &m->cfg, m->sources, errs);
        config_warnings_log(errs);
        if (r < 0) {
                log_error("Invalid configuration:");
                for (unsigned i = 0; i < errs->n; i++)
                        log_error("  %s", errs->msg[i]);
                *ret_why = MANAGER_FAILED_CONFIG;
                return r;
        }
        if (!args->log_level_set)
                log_set_max_level(m->cfg.daemon.log_level);
        m->dry_run = args->dry_run || m->cfg.daemon.dry_run || m->cfg.policy.preset == PRESET_OBSERVE;

        /* preconditions */
        if (m->root->proc_fd < 0 || faccessat(m->root->proc_fd, "buddyinfo", R_OK, 0) < 0) {
                log_error("Cannot read '%s/proc/buddyinfo': fragd needs it to see free memory by order",
                          m->root->is_host ? "" : m->root->path);
                *ret_why = MANAGER_FAILED_PRECONDITION;
                return -ENOENT;
        }
        (void) knob_warn_escaping_links(m->root);
        if (!m->dry_run && m->root->is_host && geteuid() != 0) {
                log_error("fragd must run as root to change kernel settings (/proc/sys/vm is writable by "
                          "uid 0 only). Use --dry-run to observe and decide without writing, or "
                          "'fragd --once' for a report.");
                *ret_why = MANAGER_FAILED_PRECONDITION;
                return -EPERM;
        }

        r = manager_lock(m, &prev);
        if (r < 0)
                return r;
        /* who holds the lock, at once; the journal_dir left by the last
         * fragd stays until this one has restored what is there (a dry run
         * changes no knob: it passes it on, for the next fragd or `fragd
         * --restore`) */
        snprintf(m->journal_dir, sizeof(m->journal_dir), "%s",
                 prev.valid ? prev.journal_dir : m->cfg.daemon.runtime_dir);
        manager_lock_publish_dirs(m, m->cfg.daemon.runtime_dir);
        if (!m->dry_run) {
                r = manager_recover_moved(m, &prev);
                if (r < 0)
                        return r;
        }

        r = knob_registry_new(m->root, m->cfg.daemon.runtime_dir, m->dry_run ? &knob_ops_dryrun : &knob_ops_real,
                              NULL, m->cfg.daemon.ownership, &m->knobs);
        if (r == -EBUSY) {
                log_error("Another fragd is running (it owns %s/saved)", m->cfg.daemon.runtime_dir);
                return r;
        }
        if (r == -EBADMSG) {
                log_error("fragd does not start: a knob journal in %s could not be fully read (see above)",
                          m->cfg.daemon.runtime_dir);
                return r;
        }
        if (r == -ELOOP) {
                log_error("fragd does not start: %s/saved is a symbolic link (see above)",
                          m->cfg.daemon.runtime_dir);
                return r;
        }
        if (r < 0)
                return log_error_errno(r, "Cannot set up the knobs: %m");
        manager_lock_publish(m);
        manager_pause_load(m);
        /* after the registry: no other fragd runs, so an instance left
         * behind is a crashed one's (source-pagecache.c removes it) */
        pagecache_setup(m);
        (void) levers_check_kernel(m->knobs, &m->cfg.policy);
        r = compact_worker_new(m->knobs, &m->worker);
        if (r < 0)
                return log_error_errno(r, "Cannot start the compaction worker: %m");

        r = sd_event_default(&m->event);
        if (r < 0)
                return log_error_errno(r, "Cannot create the event loop: %m");
        (void) sd_event_set_watchdog(m->event, true);
        if ((r = sd_event_add_signal(m->event, &m->sig_term, SIGTERM, on_term, m)) < 0 ||
            (r = sd_event_add_signal(m->event, &m->sig_int, SIGINT, on_term, m)) < 0 ||
            (r = sd_event_add_signal(m->event, &m->sig_hup, SIGHUP, on_hup, m)) < 0)
                return log_error_errno(r, "Cannot watch signals: %m");
        r = sd_event_add_io(m->event, &m->worker_source, compact_worker_fd(m->worker), EPOLLIN, on_worker, m);
        if (r < 0)
                return log_error_errno(r, "Cannot watch the compaction worker: %m");
        r = sd_event_add_time_relative(m->event, &m->timer, CLOCK_MONOTONIC, 0, 10 * USEC_PER_MSEC, on_timer, m);
        if (r < 0)
                return log_error_errno(r, "Cannot add the tick timer: %m");
        (void) sd_event_source_set_enabled(m->timer, SD_EVENT_ONESHOT);
        r = sd_event_add_time_relative(m->event, &m->sentinel, CLOCK_MONOTONIC, m->cfg.daemon.active_interval_usec,
                                       10 * USEC_PER_MSEC, on_sentinel, m);
        if (r < 0)
                return log_error_errno(r, "Cannot add the sentinel timer: %m");
        (void) arm_sentinel(m);
        r = control_open(m);
        if (r == -EADDRINUSE) {
                /* this fragd holds the lock: the listener is a fragd older
                 * than the lock, or not fragd at all (control.c named it) */
                log_error("fragd does not start: another process serves its control socket on this root");
                return r;
        }
        (void) psi_open(m);
        if (!m->paused)
                manager_delayacct_apply(m->knobs, m->root, &m->cfg, m->dry_run, now_monotonic_usec());
        m->wl.event = m->event;
        m->wl.root = m->root;
        m->wl.dry_run = m->dry_run;
        m->wl.on_pressure = tick_on_pressure;
        m->wl.userdata = m;
        (void) manager_workload_start(&m->wl, &m->cfg);

        *ret = TAKE_PTR(m);
        return 0;
}

int manager_run(Manager *m)
{
        unsigned failed = 0;
        int r, rr;

        r = sd_event_loop(m->event);
        if (r < 0)
                log_error_errno(r, "Event loop failed: %m");
        m->control = control_server_free(m->control); /* no pause or resume while stopping */
        manager_learned_sync(m, now_monotonic_usec(), true);
        /* a running compaction cannot be interrupted: wait for it first;
         * a collapse run is cancelled */
        m->worker = compact_worker_free(m->worker);
        manager_workload_stop(&m->wl);
        pagecache_teardown(m);
        rr = knob_restore_all(m->knobs, &failed);
        {
                _cleanup_free_ char *summary = NULL;
                int rs = knob_restore_summary(m->knobs, &summary);

                if (rs == 0)
                        log_info("%s", summary);
                else if (rs > 0)
                        log_warning("Not every knob fragd changed is back at its original value. %s", summary);
        }
        if (rr < 0 || failed)
                log_error_errno(rr, "%u knob(s) could not be restored (%m); they stay in %s/saved and the "
                                    "next start or 'fragd --restore' retries", failed, m->cfg.daemon.runtime_dir);
        metrics_export(m);
        (void) knob_status_remove(m->knobs);
        return r < 0 || rr < 0 ? -EIO : 0;
}
