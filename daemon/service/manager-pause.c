/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The daemon's recent decisions, and `fragd pause` / `fragd resume`.
 *
 * Paused, fragd keeps observing: every tick reads the sources, assesses,
 * learns (the learned reserve keeps updating) and decides, and the outputs
 * (textfile with fragd_paused 1, status file, sd_notify) are written; the
 * decision is shown as "paused", never applied: no knob write, no kcompactd
 * kick, no node compaction, no collapse. Pausing restores every owned knob
 * exactly as a stop does (knob_restore_all(): a knob another writer changed
 * since is left to it, and is then yielded as at a stop). The pause flag
 * <runtime_dir>/paused keeps a restarted or reloaded daemon paused until
 * `fragd resume`; runtime_dir is on tmpfs, so a reboot clears it. */

#include "core/cleanup.h"
#include "service/manager-internal.h"

void manager_recent_add(Manager *m, const char *line)
{
        char ts[32];
        time_t t = time(NULL);
        struct tm tm;
        char *slot = m->recent[(m->recent_head + m->n_recent) % RECENT_MAX];

        strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", localtime_r(&t, &tm));
        snprintf(slot, RECENT_LEN, "%s %s", ts, line);
        m->outputs_due = true; /* a change shows in the textfile and status at once */
        if (m->n_recent < RECENT_MAX)
                m->n_recent++;
        else
                m->recent_head = (m->recent_head + 1) % RECENT_MAX;
        snprintf(m->last_action, sizeof(m->last_action), "%s", line);
}

void manager_change_add(Manager *m, const DecisionItem *it, const char *knob, const char *outcome)
{
        ChangeRecord *c = &m->changes[(m->changes_head + m->n_changes) % RECENT_MAX];

        *c = (ChangeRecord) { .realtime_usec = now_realtime_usec(), .outcome = outcome };
        snprintf(c->knob, sizeof(c->knob), "%s", knob);
        if (it->kind == DECISION_COMPACT_NODE) {
                snprintf(c->from, sizeof(c->from), "-");
                snprintf(c->to, sizeof(c->to), "node%d", it->node);
        } else {
                lever_value_format(it->lever, it->from, c->from, sizeof(c->from));
                lever_value_format(it->lever, it->to, c->to, sizeof(c->to));
        }
        snprintf(c->reason, sizeof(c->reason), "%s", policy_reason_name(it->reason));
        if (m->n_changes < RECENT_MAX)
                m->n_changes++;
        else
                m->changes_head = (m->changes_head + 1) % RECENT_MAX;
}

void manager_paused_decisions(Manager *m)
{
        char text[LEVER_TEXT_MAX], line[RECENT_LEN];
        uint64_t compact_nodes = 0, was = m->paused_compact_nodes;

        for (unsigned i = 0; i < m->d->n_items; i++) {
                const DecisionItem *it = &m->d->items[i];

                if (it->kind == DECISION_KICK_KCOMPACTD)
                        continue; /* can come every tick */
                if (it->kind == DECISION_COMPACT_NODE && it->node >= 0 && it->node < 64) {
                        compact_nodes |= UINT64_C(1) << it->node;
                        if (was & (UINT64_C(1) << it->node))
                                continue; /* wanted at the last tick too */
                }
                if (it->kind == DECISION_LEVER) {
                        if (m->paused_shown[it->lever] && m->paused_to[it->lever] == it->to)
                                continue; /* the same wish as last tick */
                        m->paused_shown[it->lever] = true;
                        m->paused_to[it->lever] = it->to;
                }
                (void) decision_explain(it, text, sizeof(text));
                log_info("paused, not applied: %s", text);
                snprintf(line, sizeof(line), "paused, not applied: %.*s", RECENT_LEN - 32, text);
                manager_recent_add(m, line);
                manager_change_add(m, it, it->kind == DECISION_LEVER ? lever_name(it->lever) : "compact", "paused");
        }
        m->paused_compact_nodes = compact_nodes;
}

/* Writes (pause) or removes the pause flag. On failure the sentence for
 * the reply and the log in why: the path, the error, what it means for a
 * restart and what to do. Removing never follows a symlink (unlinkat): a
 * link, FIFO or socket at that name is removed; a directory is not fragd's
 * to remove. */
static int pause_flag(Manager *m, bool pause, char *why, size_t size)
{
        char rt[FRAGD_PATH_MAX + 2], path[2 * FRAGD_PATH_MAX + 16];
        int r = status_pause_write(m->root, knob_registry_runtime_dir_abs(m->knobs, rt, sizeof(rt)), pause);
        const char *then = pause ? "a restart of fragd will not stay paused"
                                 : "fragd stays paused, and a restart would pause again";

        why[0] = '\0';
        if (r >= 0)
                return 0;
        snprintf(path, sizeof(path), "%s/%s/paused", m->root->is_host ? "" : m->root->path,
                 knob_registry_runtime_dir(m->knobs));
        if (r == -EISDIR)
                snprintf(why, size, "'%s' is a directory, not the pause flag fragd writes: %s. Remove it by hand, "
                         "then run 'fragd %s' again",
                         path, then, pause ? "pause" : "resume");
        else
                snprintf(why, size, "cannot %s the pause flag '%s' (%s): %s. %s, then run 'fragd %s' again",
                         pause ? "write" : "remove", path, strerror(-r), then,
                         pause ? "Make room in that directory" : "Remove it by hand", pause ? "pause" : "resume");
        log_warning("%s", why);
        return r;
}

int manager_pause_set(Manager *m, bool pause, char *reply, size_t size)
{
        _cleanup_free_ char *summary = NULL;
        char why[CONTROL_REPLY_MAX];
        unsigned failed = 0;
        int r, rf;

        if (pause == m->paused) {
                /* the flag as it should be: a retry after it failed */
                rf = pause_flag(m, pause, why, sizeof(why));
                snprintf(reply, size, "fragd is already %s%s%s", pause ? "paused" : "acting (not paused)",
                         rf < 0 ? ", but " : "", why);
                return rf;
        }
        if (!pause) {
                /* the flag first: fragd acts only when a restart would too */
                rf = pause_flag(m, false, why, sizeof(why));
                if (rf < 0) {
                        snprintf(reply, size, "not resumed: %s", why);
                        return rf;
                }
                m->paused = false;
                memset(m->paused_shown, 0, sizeof(m->paused_shown));
                /* a hold still in force is said again once acting */
                memset(&m->held_log, 0, sizeof(m->held_log));
                m->paused_compact_nodes = 0;
                manager_delayacct_apply(m->knobs, m->root, &m->cfg, m->dry_run, now_monotonic_usec());
                log_notice("Resumed by 'fragd resume': fragd acts on its decisions again");
                manager_recent_add(m, "resumed: acting again");
                snprintf(reply, size, "resumed: fragd acts on its decisions again from the next tick");
                return 0;
        }
        m->paused = true;
        rf = pause_flag(m, true, why, sizeof(why));
        memset(&m->held_log, 0, sizeof(m->held_log)); /* nothing is held while nothing acts */
        r = knob_restore_all(m->knobs, &failed);
        /* the policy starts its levers afresh from the values now in force
         * (the originals); what it learned of the demand stays */
        memset(m->pstate->lever, 0, sizeof(m->pstate->lever));
        m->pstate->have_kick = false;
        if (knob_restore_summary(m->knobs, &summary) < 0)
                summary = NULL;
        if (r < 0 || failed) {
                log_error_errno(r < 0 ? r : -EIO, "Paused, but %u knob(s) could not be restored (%m); they stay in "
                                "%s/saved and are retried on resume, stop or 'fragd --restore'",
                                failed, knob_registry_runtime_dir(m->knobs));
                snprintf(reply, size, "paused, but %u knob(s) could not be restored (see the journal of fragd). %s%s%s",
                         failed, summary ?: "", rf < 0 ? " Also: " : "", why);
                manager_recent_add(m, "paused, but not every knob could be handed back; observing only");
                return r < 0 ? r : -EIO;
        }
        log_notice("Paused by 'fragd pause': every knob handed back, observing only until 'fragd resume'. %s",
                   summary ?: "");
        manager_recent_add(m, "paused: every knob handed back, observing only");
        if (rf < 0) {
                snprintf(reply, size, "paused now, but %s. %s", why, summary ?: "No knob was changed.");
                return rf;
        }
        snprintf(reply, size, "paused: observing only until 'fragd resume'. %s", summary ?: "No knob was changed.");
        return 0;
}

void manager_pause_load(Manager *m)
{
        char buf[FRAGD_PATH_MAX + 2];
        const char *rt = knob_registry_runtime_dir(m->knobs);
        int r = status_pause_read(m->root, knob_registry_runtime_dir_abs(m->knobs, buf, sizeof(buf)));

        if (r == 0)
                return;
        m->paused = true;
        if (r > 0)
                log_notice("Paused ('%s/%s/paused' was left by 'fragd pause'): observing only, no knob is changed "
                           "until 'fragd resume'",
                           m->root->is_host ? "" : m->root->path, rt);
        else if (r == -EISDIR)
                log_warning("'%s/%s/paused' is a directory, not the pause flag fragd writes: staying paused to be "
                            "safe. Remove it by hand, then run 'fragd resume'",
                            m->root->is_host ? "" : m->root->path, rt);
        else
                log_warning_errno(r, "'%s/%s/paused' cannot be read (%m): staying paused to be safe; 'fragd resume' "
                                  "removes it",
                                  m->root->is_host ? "" : m->root->path, rt);
}
