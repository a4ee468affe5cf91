/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Giving knobs back: the registry's journal sync (what fragd owns, written
 * ahead of every write) and the restore of one knob and of every owned knob,
 * in reverse order of first touch with vm.min_free_kbytes last, and crash
 * recovery (restoring what a dead fragd's journal names). Uses the journal
 * file (knob-journal.c), names, values and ops; never the registry's write
 * path in knob.c, which calls this file. */

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "core/clock.h"
#include "core/cleanup.h"
#include "core/log-event.h"
#include "core/log.h"
#include "core/root.h"
#include "knobs/knob-internal.h"
#include "knobs/knob.h"

/* ---- journal sync ----------------------------------------------------------- */

static int entry_cmp_seq(const void *a, const void *b)
{
        const KnobEntry *x = *(const KnobEntry *const *) a, *y = *(const KnobEntry *const *) b;

        return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Owned knobs in order of first touch. */
static size_t owned_sorted(KnobRegistry *reg, KnobEntry **ret)
{
        size_t n = 0;

        for (size_t i = 0; i < reg->n; i++)
                if (reg->e[i].owned && !reg->e[i].yielded)
                        ret[n++] = &reg->e[i];
        qsort(ret, n, sizeof(*ret), entry_cmp_seq);
        return n;
}

void knob_journal_build(KnobRegistry *reg, Journal *j)
{
        KnobEntry *sorted[KNOB_MAX];
        size_t n;

        memset(j, 0, sizeof(*j));
        n = owned_sorted(reg, sorted);
        for (size_t i = 0; i < n; i++) {
                JournalEntry *je = &j->e[j->n++];

                strcpy(je->name, sorted[i]->k.name);
                strcpy(je->original, sorted[i]->original);
                strcpy(je->last_written, sorted[i]->last_written);
                je->first_touch_usec = sorted[i]->first_touch_usec;
        }
}

/* Writes the journal from what the registry owns (or removes it). */
int knob_journal_sync(KnobRegistry *reg)
{
        _cleanup_free_ Journal *j = NULL;
        int r;

        if (reg->ops->dry_run)
                return 0;
        j = malloc(sizeof(*j));
        if (!j)
                return -ENOMEM;
        knob_journal_build(reg, j);
        r = knob_journal_write(reg->root->root_fd, reg->rt, j);
        if (r < 0) {
                usec_t now = now_realtime_usec();

                if (reg->journal_log_usec == 0 || now - reg->journal_log_usec >= KNOB_LOG_INTERVAL_USEC) {
                        reg->journal_log_usec = now;
                        if (r == -EBUSY)
                                log_error("The knob journal '%s/%s/saved' belongs to another running fragd: not "
                                          "overwritten, and no knob is changed without it. Two fragd on one "
                                          "root: stop one of them",
                                          reg->root->path, reg->rt);
                        else
                                log_error_errno(r, "Failed to write the knob journal '%s/%s/saved': %m",
                                                reg->root->path, reg->rt);
                }
        }
        return r;
}

/* ---- restore ------------------------------------------------------------- */

void knob_restore_order(const char *const *names, size_t n, size_t *ret_order)
{
        size_t j = 0;
        ssize_t min_free = -1;

        for (size_t i = n; i-- > 0;) {
                if (min_free < 0 && strcmp(names[i], MIN_FREE_KNOB) == 0) {
                        min_free = (ssize_t) i;
                        continue;
                }
                ret_order[j++] = i;
        }
        if (min_free >= 0)
                ret_order[j++] = (size_t) min_free;
}

int knob_restore_one(const KnobOps *ops, const Knob *k, const char *original, const char *last_written,
                     OwnershipMode mode, bool force, const char *why, RestoreOutcome *ret, char *ret_live,
                     size_t live_size)
{
        char live[KNOB_VALUE_MAX], back[KNOB_VALUE_MAX];
        int r;

        *ret = RESTORE_FAILED;
        if (ret_live && live_size > 0)
                ret_live[0] = '\0';
        if (k->kind == KNOB_KIND_ONESHOT) {
                *ret = RESTORE_UNCHANGED;
                return 0;
        }
        r = knob_read_normalized(ops, k, live, sizeof(live));
        if (r == -ENOENT || r == -ENODEV || r == -ENOTDIR) {
                log_warning_errno(r, "Knob %s: cannot restore '%s', the knob is gone: %m; dropping it", k->name,
                                  original);
                *ret = RESTORE_GONE;
                return 0;
        }
        if (r < 0)
                return log_error_errno(r, "Knob %s: failed to read it to restore '%s': %m", k->name, original);
        if (knob_value_equal(k->kind, live, original)) {
                log_debug("Knob %s: already at its original '%s'", k->name, original);
                *ret = RESTORE_UNCHANGED;
                return 0;
        }
        if (!force && mode == OWNERSHIP_RESPECT && !knob_value_equal(k->kind, live, last_written)) {
                log_event(LOG_NOTICE, ops->dry_run ? LOG_EVENT_NONE : LOG_EVENT_KNOB_YIELDED, k->name,
                          LOG_EVENT_NO_NODE, last_written, live, "changed_by_another_writer",
                          "Knob %s: changed by someone else to '%s' after fragd wrote '%s'; leaving it, "
                          "not restoring '%s' (ownership=respect)",
                          k->name, live, last_written, original);
                if (ret_live && live_size > 0)
                        snprintf(ret_live, live_size, "%s", live);
                *ret = RESTORE_LEFT;
                return 0;
        }
        r = ops->write(k, original);
        if (r < 0)
                return log_error_errno(r, "Knob %s: failed to restore '%s': %m", k->name, original);
        r = knob_read_normalized(ops, k, back, sizeof(back));
        if (r < 0)
                return log_error_errno(r, "Knob %s: failed to read back the restored '%s': %m", k->name,
                                       original);
        if (!knob_value_equal(k->kind, back, original))
                log_warning("Knob %s: restored '%s' but the kernel holds '%s'", k->name, original, back);
        else
                log_event(LOG_NOTICE, ops->dry_run ? LOG_EVENT_NONE : LOG_EVENT_KNOB_RESTORED, k->name,
                          LOG_EVENT_NO_NODE, live, original, why, "Knob %s: restored '%s' (fragd had '%s')",
                          k->name, original, live);
        *ret = RESTORE_RESTORED;
        return 0;
}

int knob_restore_all(KnobRegistry *reg, unsigned *ret_n_failed)
{
        KnobEntry *sorted[KNOB_MAX];
        const char *names[KNOB_MAX] = { NULL };
        size_t order[KNOB_MAX], n;
        bool recomputed = false;
        unsigned n_failed = 0, n_restored = 0;
        int first_err = 0, r;

        n = owned_sorted(reg, sorted);
        for (size_t i = 0; i < n; i++)
                names[i] = sorted[i]->k.name;
        knob_restore_order(names, n, order);

        for (size_t i = 0; i < n; i++) {
                KnobEntry *e = sorted[order[i]];
                bool force = recomputed && strcmp(e->k.name, MIN_FREE_KNOB) == 0;
                RestoreOutcome oc;

                r = knob_restore_one(reg->ops, &e->k, e->original, e->last_written, reg->mode, force, "stop",
                                     &oc, e->restore_live, sizeof(e->restore_live));
                e->restore_done = true;
                e->restore_outcome = oc;
                e->restore_error = oc == RESTORE_FAILED ? (r < 0 ? r : -EIO) : 0;
                if (oc == RESTORE_FAILED) {
                        n_failed++;
                        if (first_err == 0)
                                first_err = r < 0 ? r : -EIO;
                        continue;
                }
                if (oc == RESTORE_RESTORED) {
                        n_restored++;
                        if (e->k.recomputes_min_free)
                                recomputed = true;
                }
                /* left to another writer: yielded, as when seen while
                 * running (a resume after `fragd pause` leaves it alone) */
                if (oc == RESTORE_LEFT)
                        e->yielded = true;
                e->owned = false;
                e->last_written[0] = '\0';
        }
        r = knob_journal_sync(reg);
        if (r < 0 && first_err == 0)
                first_err = r;
        /* a knob yielded while running: what the other writer holds now */
        for (size_t i = 0; i < reg->n; i++) {
                KnobEntry *e = &reg->e[i];
                char live[KNOB_VALUE_MAX];

                if (!e->yielded)
                        continue;
                if (knob_read_normalized(reg->ops, &e->k, live, sizeof(live)) >= 0)
                        snprintf(e->external, sizeof(e->external), "%s", live);
        }
        if (n_failed > 0)
                log_error("%u knob(s) could not be restored; kept in '%s/%s/saved' for the next start or "
                          "'fragd --restore'",
                          n_failed, reg->root->path, reg->rt);
        else if (n > 0)
                log_debug("Restored %u knob(s) to their original values", n_restored);
        if (ret_n_failed)
                *ret_n_failed = n_failed;
        return first_err;
}

/* Appends "sep item" to a memstream; n counts the items. */
static void list_add(FILE *f, unsigned *n, const char *sep, const char *fmt, ...) _printf_(4, 5);
static void list_add(FILE *f, unsigned *n, const char *sep, const char *fmt, ...)
{
        va_list ap;

        if ((*n)++ > 0)
                fputs(sep, f);
        va_start(ap, fmt);
        vfprintf(f, fmt, ap);
        va_end(ap);
}

int knob_restore_summary(const KnobRegistry *reg, char **ret)
{
        char *back = NULL, *left = NULL, *failed = NULL, *out = NULL;
        size_t lb = 0, ll = 0, lf = 0;
        unsigned n_back = 0, n_left = 0, n_failed = 0;
        FILE *fb, *fl, *ff;
        int r;

        fb = open_memstream(&back, &lb);
        fl = open_memstream(&left, &ll);
        ff = open_memstream(&failed, &lf);
        for (size_t i = 0; fb && fl && ff && i < reg->n; i++) {
                const KnobEntry *e = &reg->e[i];
                int oc = e->restore_done ? e->restore_outcome : -1;

                if (oc == RESTORE_RESTORED || oc == RESTORE_UNCHANGED)
                        list_add(fb, &n_back, ", ", "%s=%s", e->k.name, e->original);
                else if (oc == RESTORE_FAILED)
                        list_add(ff, &n_failed, ", ", "%s (original %s, fragd wrote %s)", e->k.name, e->original,
                                 e->last_written);
                else if (oc == RESTORE_LEFT)
                        list_add(fl, &n_left, "; ", "%s to another writer (current value %s, fragd's original %s)",
                                 e->k.name, e->restore_live[0] ? e->restore_live : "?", e->original);
                else if (oc == RESTORE_GONE)
                        list_add(fl, &n_left, "; ", "%s: the knob file is gone (fragd's original %s)", e->k.name,
                                 e->original);
                else if (e->yielded)
                        list_add(fl, &n_left, "; ", "%s to another writer (current value %s, fragd's original %s)",
                                 e->k.name, e->external[0] ? e->external : "?", e->original);
        }
        r = (fb ? fclose(fb) : EOF) | (fl ? fclose(fl) : EOF) | (ff ? fclose(ff) : EOF);
        if (r != 0)
                r = -ENOMEM;
        else if (n_back + n_left + n_failed == 0)
                r = asprintf(&out, "fragd changed no knob");
        else if (n_left + n_failed == 0)
                r = asprintf(&out, "Every knob fragd changed is back at its original value: %s", back);
        else
                r = asprintf(&out, "Back at their original values: %s%s%s%s%s", n_back ? back : "none",
                             n_left ? ". Left: " : "", n_left ? left : "",
                             n_failed ? ". NOT restored (kept in the journal): " : "", n_failed ? failed : "");
        free(back);
        free(left);
        free(failed);
        if (r < 0)
                return -ENOMEM;
        *ret = out;
        return n_left + n_failed > 0;
}

/* ---- crash recovery ------------------------------------------------------- */
/* Where to write a knob by hand: "/proc/sys/vm/x" (below the root if any). */
static void knob_hand_path(const Root *root, const char *name, char *ret, size_t size)
{
        Knob k;
        bool on_sys = strncmp(name, "thp.", 4) == 0 || strncmp(name, "node", 4) == 0;

        if (knob_init(&k, NULL, name, NULL) < 0) {
                snprintf(ret, size, "?");
                return;
        }
        snprintf(ret, size, "%s/%s/%s", root->is_host ? "" : root->path, on_sys ? "sys" : "proc", k.path);
}

/* Tells the operator, knob by knob, what the journal held that fragd did not
 * restore, and what to do. */
static void journal_log_bad(const Root *root, const char *where, const Journal *j)
{
        for (unsigned i = 0; i < j->n_bad; i++) {
                const JournalBad *b = &j->bad[i];
                char path[FRAGD_PATH_MAX + KNOB_PATH_MAX + 16];

                if (!b->name[0]) {
                        log_error("%s:%u: %s; no knob name could be read from this line", where, b->line, b->why);
                        continue;
                }
                knob_hand_path(root, b->name, path, sizeof(path));
                if (b->value_refused || !b->original[0])
                        log_error("%s:%u: knob %s NOT restored: %s. Not written back; find the value %s had "
                                  "before fragd and write it to '%s' by hand",
                                  where, b->line, b->name, b->why, b->name, path);
                else
                        log_error("%s:%u: knob %s NOT restored (original '%s'): %s. If %s is still at fragd's "
                                  "value, write %s to '%s' by hand",
                                  where, b->line, b->name, b->original, b->why, b->name, b->original, path);
        }
        if (j->n_invalid > j->n_bad)
                log_error("%s: %u more line(s) not taken", where, j->n_invalid - j->n_bad);
}

int knob_journal_recover(const Root *root, const char *rt, const KnobOps *ops, void *ops_data,
                         OwnershipMode mode, Journal *ret_kept, KnobRestoreStats *ret_stats)
{
        _cleanup_free_ Journal *j = NULL, *kept = NULL;
        _cleanup_free_ char *buf = NULL;
        KnobRestoreStats st = { 0 };
        const char *names[KNOB_MAX] = { NULL };
        char path[FRAGD_PATH_MAX + 16], where[FRAGD_PATH_MAX * 2 + 16], why[160], target[PATH_MAX];
        size_t order[KNOB_MAX], len = 0;
        bool failed[KNOB_MAX] = { false };
        bool recomputed = false, whole = false;
        int r;

        j = calloc(1, sizeof(*j));
        kept = calloc(1, sizeof(*kept));
        if (!j || !kept)
                return -ENOMEM;
        ret_kept->n = 0;
        *ret_stats = st;
        r = knob_journal_path(rt, "saved", path, sizeof(path));
        if (r < 0)
                return r;
        snprintf(where, sizeof(where), "'%s/%s'", root->is_host ? "" : root->path, path);

        r = knob_journal_read_bounded(root->root_fd, path, &buf, &len);
        if (r == -ENOENT)
                return 0;
        if (r == -ELOOP && knob_journal_is_symlink(root->root_fd, rt, target, sizeof(target))) {
                /* not fragd's file: neither followed, read, moved nor removed */
                const char *prefix = root->is_host ? "" : root->path;

                log_error("The knob journal %s is a symbolic link (to '%s'), not a file fragd wrote: fragd does "
                          "not follow it, restores nothing from it and does not start while it is there. Inspect "
                          "it (ls -l '%s/%s': who made it, where it points), remove the link (rm '%s/%s'), check "
                          "by hand that the knobs fragd manages (under '%s/proc/sys/vm' and "
                          "'%s/sys/kernel/mm/transparent_hugepage') hold their values from before fragd, then "
                          "start fragd again",
                          where, target, prefix, path, prefix, path, prefix, prefix);
                return -ELOOP;
        }
        if (r == -EFBIG || r == -ELOOP || r == -EBADFD) {
                knob_journal_read_why(r, why, sizeof(why));
                whole = true;
                if (r == -EFBIG) {
                        /* name what its head says, restore nothing from it */
                        _cleanup_free_ char *head = NULL;
                        size_t hlen = 0;

                        if (knob_journal_read_head(root->root_fd, path, &head, &hlen) >= 0 && hlen > 0)
                                knob_journal_salvage(head, hlen,
                                                     "not restored: the journal is larger than a journal can be", j);
                }
        } else if (r < 0)
                return log_error_errno(r, "Failed to read the knob journal %s: %m", where);
        else {
                r = knob_journal_parse(buf, len, j);
                if (r == -ENOMEM)
                        return r;
                if (r < 0) {
                        knob_journal_read_why(r, why, sizeof(why));
                        knob_journal_salvage(buf, len, "not restored: the journal as a whole is unreadable", j);
                        whole = true;
                }
        }
        if (!whole && j->pid > 0 && j->pid != getpid() && pid_is_alive(j->pid, j->starttime)) {
                if (pid_is_fragd(j->pid)) {
                        for (unsigned i = 0; i < j->n; i++)
                                log_notice("Knob %s: owned by the running fragd (pid %d), its original '%s'",
                                           j->e[i].name, (int) j->pid, j->e[i].original);
                        return log_error_errno(-EBUSY, "The knob journal %s belongs to a running fragd (pid %d); "
                                               "not touching it: stop that fragd (it restores them)",
                                               where, (int) j->pid);
                }
                log_warning("The knob journal %s names pid %d, which is alive but is not fragd: the fragd that "
                            "wrote it is gone (its pid was reused); restoring",
                            where, (int) j->pid);
        }

        if (whole || j->n_invalid > 0) {
                st.corrupt = true;
                st.n_invalid = whole && j->n_invalid == 0 ? 1 : j->n_invalid;
                if (whole)
                        log_error("The knob journal %s cannot be used: %s; nothing is restored from it", where,
                                  why);
                else if (j->n == 0)
                        log_error("The knob journal %s has %u line(s) fragd cannot use and none it can; nothing "
                                  "is restored from it",
                                  where, j->n_invalid);
                else
                        log_error("The knob journal %s has %u line(s) fragd cannot use; the %u knob(s) on the "
                                  "other lines are restored",
                                  where, j->n_invalid, j->n);
                journal_log_bad(root, where, j);
                if (ops->dry_run)
                        log_notice("Dry run: the journal would be moved aside and kept");
                else {
                        /* never deleted, never overwritten: kept whole for the operator */
                        r = knob_journal_move_aside(root->root_fd, rt, st.aside, sizeof(st.aside));
                        if (r < 0) {
                                st.aside[0] = '\0';
                                *ret_stats = st;
                                return log_error_errno(r, "Cannot move the knob journal %s aside, leaving it "
                                                       "as it is and restoring nothing: %m", where);
                        }
                        log_error("The knob journal %s is kept as '%s/%s': put the knobs named above back, then "
                                  "remove that file (fragd does not start while it exists)",
                                  where, root->is_host ? "" : root->path, st.aside);
                }
        }

        st.n_entries = j->n;
        if (j->n > 0)
                log_notice("Found the knob journal of an earlier fragd (pid %d) with %u knob(s); restoring",
                           (int) j->pid, j->n);

        for (unsigned i = 0; i < j->n; i++)
                names[i] = j->e[i].name;
        knob_restore_order(names, j->n, order);
        for (unsigned i = 0; i < j->n; i++) {
                const JournalEntry *e = &j->e[order[i]];
                RestoreOutcome oc;
                bool force;
                Knob k;

                if (knob_init(&k, root, e->name, ops_data) < 0) { /* the parser checked it */
                        st.n_gone++;
                        continue;
                }
                force = recomputed && strcmp(e->name, "vm.min_free_kbytes") == 0;
                (void) knob_restore_one(ops, &k, e->original, e->last_written, mode, force, "crash_recovery", &oc,
                                        NULL, 0);
                switch (oc) {
                case RESTORE_RESTORED:
                        st.n_restored++;
                        if (k.recomputes_min_free)
                                recomputed = true;
                        break;
                case RESTORE_UNCHANGED:
                        st.n_unchanged++;
                        break;
                case RESTORE_LEFT:
                        st.n_left++;
                        break;
                case RESTORE_GONE:
                        st.n_gone++;
                        break;
                case RESTORE_FAILED:
                        st.n_failed++;
                        failed[order[i]] = true;
                        break;
                }
        }
        /* kept entries stay in first-touch order */
        for (unsigned i = 0; i < j->n; i++)
                if (failed[i])
                        kept->e[kept->n++] = j->e[i];

        /* a corrupt journal was moved aside: only what failed now goes to
         * 'saved' (a fresh file); with nothing failed there is none */
        if (!ops->dry_run && (!st.corrupt || kept->n > 0)) {
                r = knob_journal_write(root->root_fd, rt, kept);
                if (r < 0)
                        log_error_errno(r, "Failed to update the knob journal %s: %m", where);
        }
        if (st.n_failed > 0)
                log_error("%u knob(s) could not be restored; kept in %s", st.n_failed, where);
        else if (j->n > 0)
                log_notice("Knob journal: %u restored, %u already original, %u left to their new owner, %u gone",
                           st.n_restored, st.n_unchanged, st.n_left, st.n_gone);
        *ret_kept = *kept;
        *ret_stats = st;
        return st.corrupt ? -EBADMSG : 0;
}

int knob_restore_from_journal(const Root *root, const char *runtime_dir, const KnobOps *ops,
                              OwnershipMode mode, KnobRestoreStats *ret)
{
        _cleanup_free_ Journal *kept = NULL;
        _cleanup_(knob_dryrun_freep) KnobDryrun *overlay = NULL;
        char rt[FRAGD_PATH_MAX];
        KnobRestoreStats st;
        int r;

        if (!root)
                return -EINVAL;
        ops = ops ?: &knob_ops_real;
        r = knob_runtime_dir_relative(runtime_dir, rt, sizeof(rt));
        if (r < 0)
                return r;
        if (ops == &knob_ops_dryrun) {
                overlay = knob_dryrun_new();
                if (!overlay)
                        return -ENOMEM;
        }
        kept = calloc(1, sizeof(*kept));
        if (!kept)
                return -ENOMEM;
        r = knob_journal_recover(root, rt, ops, overlay, mode, kept, &st);
        if (ret && (r >= 0 || r == -EBADMSG))
                *ret = st;
        return r < 0 ? r : 0;
}
