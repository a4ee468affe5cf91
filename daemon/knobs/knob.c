/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The knob registry: the one write path for every knob (read, journal the
 * original, write, read back), ownership and external changes, error
 * classes, and the registry's lifecycle. Rules and formats are documented in
 * daemon/knobs/knob.h. Names and values are in knob-name.c and
 * knob-value.c, the journal sync, restore and crash recovery in
 * knob-restore.c, the journal file in knob-journal.c; this file uses them,
 * they never call back. */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "core/clock.h"
#include "core/cleanup.h"
#include "core/log-event.h"
#include "core/log.h"
#include "core/text.h"
#include "knobs/knob-internal.h"
#include "knobs/knob.h"

/* ---- errors ---------------------------------------------------------------- */

bool knob_error_is_permanent(int r)
{
        switch (-abs(r)) {
        case -EACCES:
        case -EPERM:
        case -EROFS:
        case -ENOENT:
        case -ENOTDIR:
        case -EINVAL:
        case -ENODEV:
        case -EOPNOTSUPP:
        case -EXDEV: /* a symlink out of the root (ROOT_BENEATH) */
        case -ELOOP:
                return true;
        default:
                return false;
        }
}

bool knob_error_is_transient(int r)
{
        return r < 0 && !knob_error_is_permanent(r);
}

/* ---- the registry ------------------------------------------------------------ */

static KnobEntry *knob_find(const KnobRegistry *reg, const char *name)
{
        for (size_t i = 0; i < reg->n; i++)
                if (strcmp(reg->e[i].k.name, name) == 0)
                        return (KnobEntry *) &reg->e[i];
        return NULL;
}

static int knob_lookup(KnobRegistry *reg, const char *name, KnobEntry **ret)
{
        KnobEntry *e = knob_find(reg, name);
        int r;

        if (!e) {
                if (reg->n >= KNOB_MAX)
                        return -E2BIG;
                e = &reg->e[reg->n];
                *e = (KnobEntry) { 0 };
                r = knob_init(&e->k, reg->root, name, reg->ops_data);
                if (r < 0)
                        return r;
                reg->n++;
        }
        *ret = e;
        return 0;
}

/* Rate-limited, classified failure. Returns r. */
static int knob_fail(KnobEntry *e, int r, const char *what, usec_t now_usec)
{
        e->n_errors++;
        if (knob_error_is_permanent(r)) {
                if (!e->disabled)
                        log_error_errno(r, "Knob %s: %s '%s' failed: %m; disabling it until restart", e->k.name,
                                        what, e->k.path);
                e->disabled = true;
                e->disabled_error = -abs(r);
                return r;
        }
        if (e->log_last_usec == 0 || r != e->log_last_error ||
            now_usec - e->log_last_usec >= KNOB_LOG_INTERVAL_USEC) {
                if (e->log_suppressed > 0)
                        log_warning_errno(r, "Knob %s: %s failed: %m; retrying on the next tick "
                                          "(%u similar messages suppressed)", e->k.name, what, e->log_suppressed);
                else
                        log_warning_errno(r, "Knob %s: %s failed: %m; retrying on the next tick", e->k.name, what);
                e->log_last_usec = now_usec ? now_usec : 1;
                e->log_last_error = r;
                e->log_suppressed = 0;
        } else
                e->log_suppressed++;
        return r;
}

/* The live value differs from what fragd wrote. RESPECT: yield (-ESTALE). */
static int knob_external_change(KnobRegistry *reg, KnobEntry *e, const char *live)
{
        e->n_external++;
        if (reg->mode == OWNERSHIP_REASSERT) {
                log_notice("Knob %s was changed under fragd: fragd wrote '%s', it is now '%s'; "
                           "writing fragd's value again (ownership=reassert)",
                           e->k.name, e->last_written, live);
                return 0;
        }
        log_event(LOG_NOTICE, reg->ops->dry_run ? LOG_EVENT_NONE : LOG_EVENT_KNOB_YIELDED, e->k.name,
                  LOG_EVENT_NO_NODE, e->last_written, live, "changed_by_another_writer",
                  "Knob %s was changed under fragd: fragd wrote '%s', it is now '%s'; yielding it until "
                  "restart (ownership=respect), its original '%s' will not be restored",
                  e->k.name, e->last_written, live, e->original);
        e->yielded = true;
        snprintf(e->external, sizeof(e->external), "%s", live);
        (void) knob_journal_sync(reg); /* no longer ours to restore */
        return -ESTALE;
}

static void knob_reassert_min_free(KnobRegistry *reg, const KnobEntry *cause, usec_t now_usec);

/* Steps 2-4 of the write path: journal (write-ahead), write, read back.
 * live is the value just read. */
static int knob_write_verify(KnobRegistry *reg, KnobEntry *e, const char *live, const char *value,
                             usec_t now_usec)
{
        char prev_last[KNOB_VALUE_MAX], back[KNOB_VALUE_MAX];
        bool was_owned = e->owned;
        /* the journal already holds this (a rewrite of the same value):
         * no fsync'd journal write for it */
        bool journal = !e->owned || strcmp(e->last_written, value) != 0;
        int r;

        strcpy(prev_last, e->last_written);
        if (!e->owned) {
                e->owned = true;
                snprintf(e->original, sizeof(e->original), "%s", live);
                e->first_touch_usec = now_realtime_usec();
                e->seq = ++reg->next_seq;
        }
        snprintf(e->last_written, sizeof(e->last_written), "%s", value);
        r = journal ? knob_journal_sync(reg) : 0;
        if (r < 0) {
                /* without a saved original, fragd does not write */
                e->owned = was_owned;
                strcpy(e->last_written, prev_last);
                return r;
        }

        r = reg->ops->write(&e->k, value);
        if (r < 0) {
                e->owned = was_owned;
                strcpy(e->last_written, was_owned ? prev_last : "");
                if (journal)
                        (void) knob_journal_sync(reg);
                return knob_fail(e, r, "write", now_usec);
        }
        e->n_writes++;
        e->restore_error = 0;
        if (!was_owned)
                log_info("Knob %s: taking ownership (original '%s')", e->k.name, e->original);
        log_debug("Knob %s: '%s' -> '%s'", e->k.name, live, value);

        r = knob_read_normalized(reg->ops, &e->k, back, sizeof(back));
        if (r < 0)
                return knob_fail(e, r, "read-back", now_usec);
        if (e->k.recomputes_min_free)
                knob_reassert_min_free(reg, e, now_usec);
        if (!knob_value_equal(e->k.kind, back, value)) {
                e->n_clamped++;
                snprintf(e->last_written, sizeof(e->last_written), "%s", back);
                (void) knob_journal_sync(reg);
                if (e->log_last_usec == 0 || e->log_last_error != -ERANGE ||
                    now_usec - e->log_last_usec >= KNOB_LOG_INTERVAL_USEC) {
                        log_warning("Knob %s: wrote '%s' but the kernel holds '%s' (clamped, rejected or "
                                    "recomputed)", e->k.name, value, back);
                        e->log_last_usec = now_usec ? now_usec : 1;
                        e->log_last_error = -ERANGE;
                }
                return -ERANGE;
        }
        return 1;
}

/* A THP "enabled" write makes the kernel recompute min_free_kbytes
 * (KERNEL.md §3.1). That is fragd's own doing, not an external change:
 * write fragd's value again. */
static void knob_reassert_min_free(KnobRegistry *reg, const KnobEntry *cause, usec_t now_usec)
{
        KnobEntry *m = knob_find(reg, MIN_FREE_KNOB);
        char live[KNOB_VALUE_MAX];
        int r;

        if (!m || !m->owned || m->yielded || m->disabled)
                return;
        r = knob_read_normalized(reg->ops, &m->k, live, sizeof(live));
        if (r < 0) {
                (void) knob_fail(m, r, "read", now_usec);
                return;
        }
        if (knob_value_equal(m->k.kind, live, m->last_written))
                return;
        log_info("Knob %s: the kernel recomputed it from '%s' to '%s' after the write to %s; re-asserting",
                 m->k.name, m->last_written, live, cause->k.name);
        {
                char want[KNOB_VALUE_MAX];

                strcpy(want, m->last_written);
                (void) knob_write_verify(reg, m, live, want, now_usec);
        }
}

int knob_set(KnobRegistry *reg, const char *name, const char *value, usec_t now_usec)
{
        char live[KNOB_VALUE_MAX];
        KnobEntry *e;
        int r;

        r = knob_lookup(reg, name, &e);
        if (r < 0)
                return r == -E2BIG ? r : -EINVAL;
        if (!knob_value_valid_for(e->k.kind, value))
                return -EINVAL;
        if (e->disabled)
                return -ECANCELED;
        if (e->yielded)
                return -ESTALE;

        if (e->k.kind == KNOB_KIND_ONESHOT)
                return -EOPNOTSUPP; /* blocks: compact_worker_submit() */

        r = knob_read_normalized(reg->ops, &e->k, live, sizeof(live));
        if (r < 0)
                return knob_fail(e, r, "read", now_usec);
        if (e->owned && !knob_value_equal(e->k.kind, live, e->last_written)) {
                r = knob_external_change(reg, e, live);
                if (r < 0)
                        return r;
        }
        if (knob_value_equal(e->k.kind, live, value)) {
                /* REASSERT after an external change that happens to be the
                 * value fragd wants: that is now fragd's last value */
                if (e->owned && !knob_value_equal(e->k.kind, live, e->last_written)) {
                        snprintf(e->last_written, sizeof(e->last_written), "%s", live);
                        (void) knob_journal_sync(reg);
                }
                return 0;
        }
        return knob_write_verify(reg, e, live, value, now_usec);
}

int knob_rewrite(KnobRegistry *reg, const char *name, usec_t now_usec)
{
        return knob_rewrite_within(reg, name, INT64_MIN, INT64_MAX, now_usec);
}

int knob_rewrite_within(KnobRegistry *reg, const char *name, int64_t lo, int64_t hi, usec_t now_usec)
{
        char live[KNOB_VALUE_MAX];
        KnobEntry *e;
        int64_t v;
        int r;

        r = knob_lookup(reg, name, &e);
        if (r < 0)
                return r == -E2BIG ? r : -EINVAL;
        if (e->disabled)
                return -ECANCELED;
        if (e->yielded)
                return -ESTALE;
        if (e->k.kind == KNOB_KIND_ONESHOT)
                return -EOPNOTSUPP;

        r = knob_read_normalized(reg->ops, &e->k, live, sizeof(live));
        if (r < 0)
                return knob_fail(e, r, "read", now_usec);
        if (!knob_value_valid_for(e->k.kind, live))
                return -EINVAL;
        if (e->owned && !knob_value_equal(e->k.kind, live, e->last_written)) {
                r = knob_external_change(reg, e, live);
                if (r < 0)
                        return r;
        }
        /* nothing fragd writes is outside the bounds, not even the value
         * the knob already holds */
        if (lo != INT64_MIN || hi != INT64_MAX) {
                if (e->k.kind != KNOB_KIND_INT || !knob_parse_i64(live, &v))
                        return -EINVAL;
                if (v < lo || v > hi) {
                        log_debug("Knob %s: not rewriting '%s': outside the bounds %" PRId64 "..%" PRId64,
                                  e->k.name, live, lo, hi);
                        return -EDOM;
                }
        }
        return knob_write_verify(reg, e, live, live, now_usec);
}

int knob_set_int(KnobRegistry *reg, const char *name, int64_t value, usec_t now_usec)
{
        char buf[32];

        snprintf(buf, sizeof(buf), "%" PRId64, value);
        return knob_set(reg, name, buf, now_usec);
}

int knob_get(KnobRegistry *reg, const char *name, char *ret, size_t size)
{
        Knob k;
        int r;

        r = knob_init(&k, reg->root, name, reg->ops_data);
        if (r < 0)
                return r;
        if (k.kind == KNOB_KIND_ONESHOT)
                return -EOPNOTSUPP;
        return knob_read_normalized(reg->ops, &k, ret, size);
}

int knob_get_int(KnobRegistry *reg, const char *name, int64_t *ret)
{
        char buf[KNOB_VALUE_MAX];
        int64_t v;
        int r;

        r = knob_get(reg, name, buf, sizeof(buf));
        if (r < 0)
                return r;
        if (!knob_parse_i64(buf, &v))
                return -EBADMSG;
        *ret = v;
        return 0;
}

int knob_check_external(KnobRegistry *reg, usec_t now_usec)
{
        int n = 0;

        for (size_t i = 0; i < reg->n; i++) {
                KnobEntry *e = &reg->e[i];
                char live[KNOB_VALUE_MAX], want[KNOB_VALUE_MAX];
                int r;

                if (!e->owned || e->yielded || e->disabled || e->k.kind == KNOB_KIND_ONESHOT)
                        continue;
                r = knob_read_normalized(reg->ops, &e->k, live, sizeof(live));
                if (r < 0) {
                        (void) knob_fail(e, r, "read", now_usec);
                        continue;
                }
                if (knob_value_equal(e->k.kind, live, e->last_written))
                        continue;
                n++;
                if (knob_external_change(reg, e, live) < 0)
                        continue; /* yielded */
                strcpy(want, e->last_written);
                (void) knob_write_verify(reg, e, live, want, now_usec);
        }
        return n;
}

int knob_note_result(KnobRegistry *reg, const char *name, int r, usec_t now_usec)
{
        KnobEntry *e;

        if (r >= 0)
                return r;
        if (knob_lookup(reg, name, &e) < 0)
                return r;
        return knob_fail(e, r, "write", now_usec);
}

int knob_disable(KnobRegistry *reg, const char *name, int err)
{
        KnobEntry *e;
        int r;

        r = knob_lookup(reg, name, &e);
        if (r < 0)
                return r;
        e->disabled = true;
        e->disabled_error = -abs(err);
        return 0;
}

/* ---- lifecycle ---------------------------------------------------------- */

int knob_registry_new(const Root *root, const char *runtime_dir, const KnobOps *ops, void *ops_data,
                      OwnershipMode mode, KnobRegistry **ret)
{
        _cleanup_(knob_registry_freep) KnobRegistry *reg = NULL;
        _cleanup_free_ Journal *kept = NULL;
        KnobRestoreStats stats;
        int r;

        if (!root)
                return -EINVAL;
        reg = calloc(1, sizeof(*reg));
        if (!reg)
                return -ENOMEM;
        reg->root = root;
        reg->ops = ops ?: &knob_ops_real;
        reg->mode = mode;
        r = knob_runtime_dir_relative(runtime_dir, reg->rt, sizeof(reg->rt));
        if (r < 0)
                return r;
        if (!ops_data && reg->ops == &knob_ops_dryrun) {
                reg->own_dryrun = knob_dryrun_new();
                if (!reg->own_dryrun)
                        return -ENOMEM;
                ops_data = reg->own_dryrun;
        }
        reg->ops_data = ops_data;

        if (reg->ops->dry_run) {
                char path[FRAGD_PATH_MAX + 16];

                snprintf(path, sizeof(path), "%s/saved", reg->rt);
                if (faccessat(root->root_fd, path, F_OK, 0) == 0)
                        log_notice("Dry run: not restoring the knobs saved by an earlier fragd in '%s/%s'; "
                                   "run 'fragd --restore'",
                                   root->path, path);
                *ret = TAKE_PTR(reg);
                return 0;
        }

        kept = calloc(1, sizeof(*kept));
        if (!kept)
                return -ENOMEM;
        r = knob_journal_recover(root, reg->rt, reg->ops, reg->ops_data, mode, kept, &stats);
        if (r < 0)
                return r; /* -EBADMSG: a journal not fully parsed, moved aside */
        {
                char aside[FRAGD_PATH_MAX + 48];

                /* its knobs may still be at an earlier fragd's values: taking
                 * one over would journal that value as its original */
                r = knob_journal_find_aside(root->root_fd, reg->rt, aside, sizeof(aside));
                if (r > 0) {
                        log_error("'%s/%s' holds the journal of an earlier fragd that could not be fully read; "
                                  "fragd takes over no knob while it exists. Put back the knobs it names "
                                  "(fragd --restore lists them when it moves a journal aside; the file is text), "
                                  "then remove it",
                                  root->is_host ? "" : root->path, aside);
                        return -EBADMSG;
                }
        }
        /* what failed to restore stays owned: restored again on exit */
        for (unsigned i = 0; i < kept->n; i++) {
                KnobEntry *e;

                if (knob_lookup(reg, kept->e[i].name, &e) < 0)
                        continue;
                e->owned = true;
                strcpy(e->original, kept->e[i].original);
                strcpy(e->last_written, kept->e[i].last_written);
                e->first_touch_usec = kept->e[i].first_touch_usec;
                e->seq = ++reg->next_seq;
        }
        if (kept->n > 0)
                (void) knob_journal_sync(reg);
        *ret = TAKE_PTR(reg);
        return 0;
}

KnobRegistry *knob_registry_free(KnobRegistry *reg)
{
        if (!reg)
                return NULL;
        knob_dryrun_free(reg->own_dryrun);
        free(reg);
        return NULL;
}

void knob_registry_set_ownership(KnobRegistry *reg, OwnershipMode mode)
{
        reg->mode = mode;
}

OwnershipMode knob_registry_ownership(const KnobRegistry *reg)
{
        return reg->mode;
}

const KnobOps *knob_registry_ops(const KnobRegistry *reg)
{
        return reg->ops;
}

void *knob_registry_ops_data(const KnobRegistry *reg)
{
        return reg->ops_data;
}

const Root *knob_registry_root(const KnobRegistry *reg)
{
        return reg->root;
}

const char *knob_registry_runtime_dir(const KnobRegistry *reg)
{
        return reg->rt;
}

const char *knob_registry_runtime_dir_abs(const KnobRegistry *reg, char *buf, size_t size)
{
        snprintf(buf, size, "/%s", reg->rt);
        return buf;
}

/* ---- another runtime directory (SIGHUP) ------------------------------------ */

/* The "--root R" of a command line for messages, "" on the host. */
static void root_option(const Root *root, char *ret, size_t size)
{
        if (root->is_host)
                ret[0] = '\0';
        else
                snprintf(ret, size, " --root %s", root->path);
}

/* 0 when the directory rt (open as dfd) holds nothing fragd must not
 * overwrite: no knob journal (saved, saved.corrupt*) and no status of
 * another running fragd. Else -EEXIST / -EBUSY / -errno with the reason. */
static int runtime_dir_check_free(const Root *root, int dfd, const char *rt, char *why, size_t size)
{
        const char *prefix = root->is_host ? "" : root->path;
        char aside[FRAGD_PATH_MAX + 48], ropt[FRAGD_PATH_MAX + 16];
        _cleanup_free_ char *head = NULL;
        uint64_t pid, starttime;
        struct stat st;
        size_t n;
        int r;

        root_option(root, ropt, sizeof(ropt));
        if (fstatat(dfd, "saved", &st, AT_SYMLINK_NOFOLLOW) == 0) {
                snprintf(why, size,
                         "'%s/%s/saved' already exists (the knob journal of another fragd, or one left over): put "
                         "its knobs back with 'fragd --restore%s --set daemon.runtime_dir=/%s' or remove it",
                         prefix, rt, ropt, rt);
                return -EEXIST;
        }
        if (errno != ENOENT) {
                r = negative_errno();
                snprintf(why, size, "cannot check '%s/%s/saved': %s", prefix, rt, strerror(-r));
                return r;
        }
        r = knob_journal_find_aside(root->root_fd, rt, aside, sizeof(aside));
        if (r != 0) {
                if (r > 0)
                        snprintf(why, size,
                                 "'%s/%s' holds a knob journal fragd could not read: put back the knobs it names, "
                                 "then remove it",
                                 prefix, aside);
                else
                        snprintf(why, size, "cannot list '%s/%s': %s", prefix, rt, strerror(-r));
                return r > 0 ? -EEXIST : r;
        }
        /* the head of the file names its owner (knob_status_owner()) */
        if (read_file_head_at(dfd, "status", ROOT_OWN_FILE, 127, &head, &n) < 0)
                return 0;
        if (knob_status_owner(head, n, &pid, &starttime) == 0 && pid > 0 && pid <= INT32_MAX &&
            (pid_t) pid != getpid() && pid_is_alive((pid_t) pid, starttime)) {
                snprintf(why, size, "'%s/%s/status' belongs to another running fragd (pid %" PRIu64 ")", prefix, rt,
                         pid);
                return -EBUSY;
        }
        return 0;
}

int knob_registry_move(KnobRegistry *reg, const char *runtime_dir, unsigned *ret_n, char *ret_why, size_t why_size)
{
        const Root *root = reg->root;
        const char *prefix = root->is_host ? "" : root->path;
        char rt[FRAGD_PATH_MAX], path[FRAGD_PATH_MAX + 16];
        _cleanup_close_ int nfd = -1, ofd = -1;
        _cleanup_free_ Journal *j = NULL;
        struct stat a, b;
        int r;

        r = knob_runtime_dir_relative(runtime_dir, rt, sizeof(rt));
        if (r < 0) {
                snprintf(ret_why, why_size, "'%s' cannot hold the knob journal: %s", runtime_dir, strerror(-r));
                return r;
        }
        if (ret_n)
                *ret_n = 0;
        if (strcmp(rt, reg->rt) == 0)
                return 0;
        /* created as the first journal write does at start, never outside the root */
        r = root_mkdir_p_at(root->root_fd, rt, 0755, &nfd);
        if (r < 0) {
                snprintf(ret_why, why_size, "cannot create the directory '%s/%s': %s", prefix, rt, strerror(-r));
                return r;
        }
        ofd = root_openat(root->root_fd, reg->rt, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0);
        if (ofd >= 0 && fstat(ofd, &a) == 0 && fstat(nfd, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
                /* the same directory by another name: nothing moves */
                strcpy(reg->rt, rt);
                return 0;
        }
        r = runtime_dir_check_free(root, nfd, rt, ret_why, why_size);
        if (r < 0)
                return r;

        j = malloc(sizeof(*j));
        if (!j) {
                snprintf(ret_why, why_size, "out of memory");
                return -ENOMEM;
        }
        knob_journal_build(reg, j);
        /* a dry run writes no journal; a "saved" in the old directory is
         * an earlier fragd's, not ours to move or remove */
        if (!reg->ops->dry_run) {
                if (j->n > 0) {
                        r = knob_journal_write(root->root_fd, rt, j);
                        if (r >= 0 && fsync(nfd) < 0) {
                                r = negative_errno();
                                (void) unlinkat(nfd, "saved", 0);
                        }
                        if (r < 0) {
                                snprintf(ret_why, why_size, "cannot write '%s/%s/saved': %s", prefix, rt,
                                         strerror(-r));
                                return r;
                        }
                }
                /* only now that the new journal is on disk: the old one */
                snprintf(path, sizeof(path), "%s/saved", reg->rt);
                r = unlink_file_at(root->root_fd, path);
                if (r < 0 && r != -ENOENT) {
                        if (j->n > 0)
                                (void) unlinkat(nfd, "saved", 0);
                        snprintf(ret_why, why_size, "cannot remove '%s/%s': %s", prefix, path, strerror(-r));
                        return r;
                }
                if (ofd >= 0)
                        (void) fsync(ofd);
        }
        /* the next tick writes the status file in the new place */
        snprintf(path, sizeof(path), "%s/status", reg->rt);
        (void) unlink_file_at(root->root_fd, path);
        strcpy(reg->rt, rt);
        if (reg->ops->dry_run)
                return 0;
        if (ret_n)
                *ret_n = j->n;
        return j->n > 0;
}

size_t knob_count(const KnobRegistry *reg)
{
        return reg->n;
}

int knob_info(const KnobRegistry *reg, size_t i, KnobInfo *ret)
{
        const KnobEntry *e;

        if (i >= reg->n)
                return -ENOENT;
        e = &reg->e[i];
        *ret = (KnobInfo) {
                .name = e->k.name,
                .kind = e->k.kind,
                .owned = e->owned && !e->yielded,
                .yielded = e->yielded,
                .disabled = e->disabled,
                .disabled_error = e->disabled_error,
                .restore_error = e->owned ? e->restore_error : 0,
                .original = e->owned || e->yielded ? e->original : "",
                .last_written = e->last_written,
                .external = e->external,
                .first_touch_usec = e->owned || e->yielded ? e->first_touch_usec : 0,
                .n_writes = e->n_writes,
                .n_clamped = e->n_clamped,
                .n_errors = e->n_errors,
                .n_external = e->n_external,
        };
        return 0;
}

int knob_find_info(const KnobRegistry *reg, const char *name, KnobInfo *ret)
{
        const KnobEntry *e = knob_find(reg, name);

        if (!e)
                return -ENOENT;
        return knob_info(reg, (size_t) (e - reg->e), ret);
}

bool knob_is_disabled(const KnobRegistry *reg, const char *name)
{
        const KnobEntry *e = knob_find(reg, name);

        return e && e->disabled;
}
