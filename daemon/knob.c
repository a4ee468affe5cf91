/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The knob registry: one write path for every knob, ownership, restore.
 * Rules and formats are documented in include/fragd/knob.h. */

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/types.h>

#include "fragd/knob.h"
#include "fragd/log.h"
#include "knob-internal.h"

#define MIN_FREE_KNOB "vm.min_free_kbytes"

typedef struct KnobEntry {
        Knob k;
        bool owned, yielded, disabled;
        int disabled_error;
        char original[KNOB_VALUE_MAX];
        char last_written[KNOB_VALUE_MAX];
        char external[KNOB_VALUE_MAX];
        uint64_t first_touch_usec;
        uint64_t seq; /* first-touch order */
        uint64_t n_writes, n_clamped, n_errors, n_external;
        /* failure log rate limit */
        usec_t log_last_usec;
        int log_last_error;
        unsigned log_suppressed;
} KnobEntry;

struct KnobRegistry {
        const Root *root;
        char rt[FRAGD_PATH_MAX];
        const KnobOps *ops;
        void *ops_data;
        KnobDryrun *own_dryrun;
        OwnershipMode mode;
        uint64_t next_seq;
        usec_t journal_log_usec;
        size_t n;
        KnobEntry e[KNOB_MAX];
};

uint64_t knob_now_realtime_usec(void)
{
        struct timespec ts;

        if (clock_gettime(CLOCK_REALTIME, &ts) < 0)
                return 0;
        return (uint64_t) ts.tv_sec * USEC_PER_SEC + (uint64_t) ts.tv_nsec / NSEC_PER_USEC;
}

/* ---- names ---------------------------------------------------------------- */

static const char *startswith_str(const char *s, const char *prefix)
{
        size_t n = strlen(prefix);

        return strncmp(s, prefix, n) == 0 ? s + n : NULL;
}

static bool all_chars(const char *s, const char *extra)
{
        if (!*s)
                return false;
        for (; *s; s++)
                if (!(islower((unsigned char) *s) || isdigit((unsigned char) *s) || strchr(extra, *s)))
                        return false;
        return true;
}

static bool all_digits(const char *s, size_t n)
{
        if (n == 0 || n > 6)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!isdigit((unsigned char) s[i]))
                        return false;
        return true;
}

int knob_init(Knob *k, const Root *root, const char *name, void *ops_data)
{
        Knob t = { .dirfd = -1, .ops_data = ops_data };
        const char *rest;
        bool on_sys = false;
        int r;

        if (!name || strlen(name) >= sizeof(t.name))
                return -EINVAL;
        strcpy(t.name, name);

        if ((rest = startswith_str(name, "vm."))) {
                if (!all_chars(rest, "_"))
                        return -EINVAL;
                t.kind = strcmp(rest, "compact_memory") == 0 ? KNOB_KIND_ONESHOT : KNOB_KIND_INT;
                r = snprintf(t.path, sizeof(t.path), "sys/vm/%s", rest);
        } else if (strcmp(name, "kernel.task_delayacct") == 0) {
                t.kind = KNOB_KIND_INT;
                r = snprintf(t.path, sizeof(t.path), "sys/kernel/task_delayacct");
        } else if ((rest = startswith_str(name, "thp."))) {
                const char *sub;

                on_sys = true;
                if (strcmp(rest, "enabled") == 0 || strcmp(rest, "shmem_enabled") == 0) {
                        t.kind = KNOB_KIND_CHOICE;
                        t.recomputes_min_free = true;
                        r = snprintf(t.path, sizeof(t.path), "kernel/mm/transparent_hugepage/%s", rest);
                } else if (strcmp(rest, "defrag") == 0) {
                        t.kind = KNOB_KIND_CHOICE;
                        r = snprintf(t.path, sizeof(t.path), "kernel/mm/transparent_hugepage/%s", rest);
                } else if ((sub = startswith_str(rest, "khugepaged."))) {
                        if (!all_chars(sub, "_"))
                                return -EINVAL;
                        t.kind = KNOB_KIND_INT;
                        r = snprintf(t.path, sizeof(t.path), "kernel/mm/transparent_hugepage/khugepaged/%s",
                                     sub);
                } else if ((sub = startswith_str(rest, "hugepages-"))) {
                        const char *kb = strstr(sub, "kB.");
                        const char *file;

                        if (!kb || !all_digits(sub, (size_t) (kb - sub)))
                                return -EINVAL;
                        file = kb + 3;
                        if (strcmp(file, "enabled") != 0 && strcmp(file, "shmem_enabled") != 0)
                                return -EINVAL;
                        t.kind = KNOB_KIND_CHOICE;
                        t.recomputes_min_free = true;
                        r = snprintf(t.path, sizeof(t.path), "kernel/mm/transparent_hugepage/hugepages-%.*skB/%s",
                                     (int) (kb - sub), sub, file);
                } else
                        return -EINVAL;
        } else if ((rest = startswith_str(name, "node"))) {
                const char *dot = strchr(rest, '.');

                if (!dot || !all_digits(rest, (size_t) (dot - rest)) || strcmp(dot, ".compact") != 0)
                        return -EINVAL;
                on_sys = true;
                t.kind = KNOB_KIND_ONESHOT;
                r = snprintf(t.path, sizeof(t.path), "devices/system/node/node%.*s/compact", (int) (dot - rest),
                             rest);
        } else
                return -EINVAL;

        if (r < 0 || (size_t) r >= sizeof(t.path))
                return -EINVAL;
        if (root)
                t.dirfd = on_sys ? root->sys_fd : root->proc_fd;
        *k = t;
        return 0;
}

const char *knob_lever_name(Lever l)
{
        static const char *const names[_LEVER_MAX] = {
                [LEVER_COMPACTION_PROACTIVENESS] = "vm.compaction_proactiveness",
                [LEVER_WATERMARK_SCALE_FACTOR] = "vm.watermark_scale_factor",
                [LEVER_MIN_FREE_KBYTES] = MIN_FREE_KNOB,
                [LEVER_WATERMARK_BOOST_FACTOR] = "vm.watermark_boost_factor",
                [LEVER_EXTFRAG_THRESHOLD] = "vm.extfrag_threshold",
                [LEVER_THP_DEFRAG] = "thp.defrag",
        };
        if ((unsigned) l >= _LEVER_MAX)
                return NULL;
        return names[l];
}

/* ---- values ---------------------------------------------------------------- */

static bool is_space(char c)
{
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

int knob_value_normalize(KnobKind kind, const char *raw, char *ret, size_t size)
{
        char buf[KNOB_VALUE_MAX];
        size_t n = 0;
        bool space = false;

        /* trim and collapse whitespace; reject other control characters */
        for (const char *p = raw; *p; p++) {
                if (is_space(*p)) {
                        space = n > 0;
                        continue;
                }
                if ((unsigned char) *p < 0x20 || (unsigned char) *p > 0x7e)
                        return -EBADMSG;
                if (n + 2 >= sizeof(buf))
                        return -ENAMETOOLONG;
                if (space)
                        buf[n++] = ' ';
                space = false;
                buf[n++] = *p;
        }
        buf[n] = '\0';
        if (n == 0)
                return -EBADMSG;

        if (kind == KNOB_KIND_CHOICE) {
                const char *open = strchr(buf, '['), *close;
                const char *word = buf;
                size_t len;

                if (open) {
                        /* the kernel form: exactly one [word] */
                        close = strchr(open, ']');
                        if (!close || strchr(open + 1, '[') || strchr(close + 1, ']') ||
                            memchr(buf, ']', (size_t) (open - buf)))
                                return -EBADMSG;
                        word = open + 1;
                        len = (size_t) (close - word);
                } else {
                        /* a plain single word, as a test (or dry run) wrote it */
                        if (strchr(buf, ' ') || strchr(buf, ']'))
                                return -EBADMSG;
                        len = n;
                }
                if (len == 0 || memchr(word, ' ', len))
                        return -EBADMSG;
                if (len + 1 > size)
                        return -ENAMETOOLONG;
                memcpy(ret, word, len);
                ret[len] = '\0';
                return 0;
        }
        if (n + 1 > size)
                return -ENAMETOOLONG;
        memcpy(ret, buf, n + 1);
        return 0;
}

static bool parse_i64_strict(const char *s, int64_t *ret)
{
        char *end;
        long long v;

        if (!*s || is_space(*s))
                return false;
        errno = 0;
        v = strtoll(s, &end, 10);
        if (errno != 0 || *end != '\0')
                return false;
        *ret = v;
        return true;
}

bool knob_value_equal(KnobKind kind, const char *a, const char *b)
{
        int64_t x, y;

        if (kind == KNOB_KIND_INT && parse_i64_strict(a, &x) && parse_i64_strict(b, &y))
                return x == y;
        return strcmp(a, b) == 0;
}

bool knob_value_valid(const char *v)
{
        size_t n;

        if (!v)
                return false;
        n = strlen(v);
        if (n == 0 || n >= KNOB_VALUE_MAX)
                return false;
        for (size_t i = 0; i < n; i++)
                if ((unsigned char) v[i] < 0x20 || (unsigned char) v[i] > 0x7e)
                        return false;
        return true;
}

static bool knob_value_valid_for(KnobKind kind, const char *v)
{
        if (!knob_value_valid(v))
                return false;
        if (kind == KNOB_KIND_CHOICE)
                return !strpbrk(v, " []");
        return !is_space(v[0]) && !is_space(v[strlen(v) - 1]);
}

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

int knob_runtime_dir_relative(const char *runtime_dir, char *ret, size_t size)
{
        const char *p = runtime_dir && *runtime_dir ? runtime_dir : KNOB_DEFAULT_RUNTIME_DIR;
        size_t n;

        while (*p == '/')
                p++;
        n = strlen(p);
        while (n > 0 && p[n - 1] == '/')
                n--;
        if (n == 0)
                return -EINVAL;
        if (n + 1 > size)
                return -ENAMETOOLONG;
        memcpy(ret, p, n);
        ret[n] = '\0';
        return 0;
}

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

/* Writes the journal from what the registry owns (or removes it). */
static int journal_sync(KnobRegistry *reg)
{
        _cleanup_free_ Journal *j = NULL;
        KnobEntry *sorted[KNOB_MAX];
        size_t n;
        int r;

        if (reg->ops->dry_run)
                return 0;
        j = calloc(1, sizeof(*j));
        if (!j)
                return -ENOMEM;
        n = owned_sorted(reg, sorted);
        for (size_t i = 0; i < n; i++) {
                JournalEntry *je = &j->e[j->n++];

                strcpy(je->name, sorted[i]->k.name);
                strcpy(je->original, sorted[i]->original);
                strcpy(je->last_written, sorted[i]->last_written);
                je->first_touch_usec = sorted[i]->first_touch_usec;
        }
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

static int knob_read_normalized(const KnobOps *ops, const Knob *k, char *ret, size_t size)
{
        char raw[KNOB_VALUE_MAX * 2];
        int r;

        r = ops->read(k, raw, sizeof(raw));
        if (r < 0)
                return r == -EFBIG ? -EBADMSG : r;
        return knob_value_normalize(k->kind, raw, ret, size);
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
        log_notice("Knob %s was changed under fragd: fragd wrote '%s', it is now '%s'; yielding it until "
                   "restart (ownership=respect), its original '%s' will not be restored",
                   e->k.name, e->last_written, live, e->original);
        e->yielded = true;
        snprintf(e->external, sizeof(e->external), "%s", live);
        (void) journal_sync(reg); /* no longer ours to restore */
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
                e->first_touch_usec = knob_now_realtime_usec();
                e->seq = ++reg->next_seq;
        }
        snprintf(e->last_written, sizeof(e->last_written), "%s", value);
        r = journal ? journal_sync(reg) : 0;
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
                        (void) journal_sync(reg);
                return knob_fail(e, r, "write", now_usec);
        }
        e->n_writes++;
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
                (void) journal_sync(reg);
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
                        (void) journal_sync(reg);
                }
                return 0;
        }
        return knob_write_verify(reg, e, live, value, now_usec);
}

int knob_rewrite(KnobRegistry *reg, const char *name, usec_t now_usec)
{
        char live[KNOB_VALUE_MAX];
        KnobEntry *e;
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
        if (!parse_i64_strict(buf, &v))
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
                     OwnershipMode mode, bool force, RestoreOutcome *ret)
{
        char live[KNOB_VALUE_MAX], back[KNOB_VALUE_MAX];
        int r;

        *ret = RESTORE_FAILED;
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

                r = knob_restore_one(reg->ops, &e->k, e->original, e->last_written, reg->mode, force, &oc);
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
        r = journal_sync(reg);
        if (r < 0 && first_err == 0)
                first_err = r;
        if (n_failed > 0)
                log_error("%u knob(s) could not be restored; kept in '%s/%s/saved' for the next start or "
                          "'fragd --restore'",
                          n_failed, reg->root->path, reg->rt);
        else if (n > 0)
                log_info("Restored %u knob(s) to their original values", n_restored);
        if (ret_n_failed)
                *ret_n_failed = n_failed;
        return first_err;
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
        if (r < 0 && r != -EBADMSG)
                return r;
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
                (void) journal_sync(reg);
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
