/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Giving knobs back: the registry's journal sync (what fragd owns, written
 * ahead of every write) and the restore of one knob and of every owned knob,
 * in reverse order of first touch with vm.min_free_kbytes last. Reading,
 * writing and crash recovery of the journal file are in knob-journal.c.
 * Split from knob.c. */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "core/cleanup.h"
#include "core/log.h"
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
                usec_t now = knob_now_realtime_usec();

                if (reg->journal_log_usec == 0 || now - reg->journal_log_usec >= KNOB_LOG_INTERVAL_USEC) {
                        reg->journal_log_usec = now;
                        log_error_errno(r, "Failed to write the knob journal '%s/%s/saved': %m", reg->root->path,
                                        reg->rt);
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
                     OwnershipMode mode, bool force, RestoreOutcome *ret, char *ret_live, size_t live_size)
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
                log_notice("Knob %s: changed by someone else to '%s' after fragd wrote '%s'; leaving it, "
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
                log_info("Knob %s: restored '%s' (fragd had '%s')", k->name, original, live);
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

                r = knob_restore_one(reg->ops, &e->k, e->original, e->last_written, reg->mode, force, &oc,
                                     e->restore_live, sizeof(e->restore_live));
                e->restore_done = true;
                e->restore_outcome = oc;
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
