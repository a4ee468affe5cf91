/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The knob journal <root>/<runtime_dir>/saved: parse, format, atomic write,
 * and crash recovery. The format is documented in include/fragd/knob.h. */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fragd/knob.h"
#include "fragd/log.h"
#include "fragd/parse-util.h"
#include "knob-internal.h"

#define JOURNAL_MAGIC "fragd-saved 1"

/* ---- process identity ------------------------------------------------------- */

/* state (field 3) and starttime (field 22) of /proc/<pid>/stat */
static int pid_stat(pid_t pid, char *ret_state, uint64_t *ret_starttime)
{
        char path[64], buf[1024];
        _cleanup_close_ int fd = -1;
        const char *p;
        ssize_t n;
        Span s, tok;
        uint64_t v = 0;

        snprintf(path, sizeof(path), "/proc/%d/stat", (int) pid);
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return negative_errno();
        n = read(fd, buf, sizeof(buf) - 1);
        if (n < 0)
                return negative_errno();
        buf[n] = '\0';
        p = strrchr(buf, ')'); /* comm may hold spaces and ')' */
        if (!p)
                return -EBADMSG;
        s = (Span) { p + 1, strlen(p + 1) };
        for (int field = 3; field <= 22; field++) {
                if (!span_next_token(&s, &tok))
                        return -EBADMSG;
                if (field == 3)
                        *ret_state = tok.len > 0 ? tok.p[0] : '?';
                if (field == 22 && span_to_u64(tok, &v) < 0)
                        return -EBADMSG;
        }
        *ret_starttime = v;
        return 0;
}

uint64_t pid_starttime(pid_t pid)
{
        uint64_t st;
        char state;

        if (pid <= 0 || pid_stat(pid, &state, &st) < 0)
                return 0;
        return st;
}

bool pid_is_alive(pid_t pid, uint64_t starttime)
{
        uint64_t st;
        char state;

        if (pid <= 0)
                return false;
        if (kill(pid, 0) < 0 && errno != EPERM)
                return false;
        if (pid_stat(pid, &state, &st) < 0)
                return true; /* exists, but /proc says nothing more */
        if (state == 'Z' || state == 'X')
                return false;
        return starttime == 0 || st == starttime;
}

/* ---- parse / format (pure) ------------------------------------------------- */

static bool span_printable(Span s)
{
        for (size_t i = 0; i < s.len; i++)
                if ((unsigned char) s.p[i] < 0x20 || (unsigned char) s.p[i] > 0x7e)
                        return false;
        return true;
}

/* Next tab-separated field; false at the end. */
static bool span_next_field(Span *s, Span *ret)
{
        const char *tab;

        if (!s->p)
                return false;
        tab = memchr(s->p, '\t', s->len);
        ret->p = s->p;
        ret->len = tab ? (size_t) (tab - s->p) : s->len;
        if (tab) {
                s->len -= ret->len + 1;
                s->p = tab + 1;
        } else {
                s->p = NULL;
                s->len = 0;
        }
        return true;
}

static int parse_entry(Span line, JournalEntry *ret)
{
        Span f[4], rest = line;
        JournalEntry e = { 0 };
        Knob k;

        for (int i = 0; i < 4; i++)
                if (!span_next_field(&rest, &f[i]))
                        return -EBADMSG;
        if (rest.p) /* a fifth field */
                return -EBADMSG;
        for (int i = 0; i < 3; i++)
                if (f[i].len == 0 || !span_printable(f[i]))
                        return -EBADMSG;
        if (span_copy(f[0], e.name, sizeof(e.name)) < 0 || span_copy(f[1], e.original, sizeof(e.original)) < 0 ||
            span_copy(f[2], e.last_written, sizeof(e.last_written)) < 0)
                return -EBADMSG;
        if (span_to_u64(f[3], &e.first_touch_usec) < 0)
                return -EBADMSG;
        if (knob_init(&k, NULL, e.name, NULL) < 0 || k.kind == KNOB_KIND_ONESHOT)
                return -EBADMSG;
        *ret = e;
        return 0;
}

int knob_journal_parse(const char *buf, size_t len, Journal *ret)
{
        _cleanup_free_ Journal *j = NULL;
        Cursor c = cursor_make(buf, len);
        Span line;
        bool have_pid = false;

        if (!cursor_next_line(&c, &line) || !span_eq(span_rstrip(line, false), JOURNAL_MAGIC))
                return -EBADMSG;
        j = calloc(1, sizeof(*j));
        if (!j)
                return -ENOMEM;
        while (cursor_next_line(&c, &line)) {
                Span s = line, tok;
                JournalEntry e;
                bool dup = false;

                span_skip_blanks(&s);
                if (s.len == 0 || s.p[0] == '#')
                        continue;
                if (span_startswith(line, "pid ")) {
                        uint64_t pid, st = 0;

                        s.p += 4;
                        s.len -= 4;
                        if (have_pid || !span_next_token(&s, &tok) || span_to_u64(tok, &pid) < 0 || pid == 0 ||
                            pid > INT32_MAX || (span_next_token(&s, &tok) && span_to_u64(tok, &st) < 0) ||
                            span_next_token(&s, &tok)) {
                                j->n_invalid++;
                                continue;
                        }
                        have_pid = true;
                        j->pid = (pid_t) pid;
                        j->starttime = st;
                        continue;
                }
                if (parse_entry(line, &e) < 0) {
                        j->n_invalid++;
                        continue;
                }
                for (unsigned i = 0; i < j->n; i++)
                        if (strcmp(j->e[i].name, e.name) == 0)
                                dup = true;
                if (dup) { /* keep the first: its original is the oldest */
                        j->n_invalid++;
                        continue;
                }
                if (j->n >= KNOB_MAX)
                        return -E2BIG;
                j->e[j->n++] = e;
        }
        *ret = *j;
        return 0;
}

int knob_journal_format(const Journal *j, char **ret_buf, size_t *ret_len)
{
        char *buf = NULL;
        size_t len = 0;
        FILE *f;

        f = open_memstream(&buf, &len);
        if (!f)
                return -ENOMEM;
        fprintf(f, "%s\n", JOURNAL_MAGIC);
        if (j->pid > 0)
                fprintf(f, "pid %d %" PRIu64 "\n", (int) j->pid, j->starttime);
        fputs("# knobs fragd changed; restored on stop and at the next start if fragd died\n"
              "# name\toriginal\tlast_written\tfirst_touch_usec (CLOCK_REALTIME)\n",
              f);
        for (unsigned i = 0; i < j->n; i++)
                fprintf(f, "%s\t%s\t%s\t%" PRIu64 "\n", j->e[i].name, j->e[i].original, j->e[i].last_written,
                        j->e[i].first_touch_usec);
        if (fclose(f) != 0) {
                free(buf);
                return -ENOMEM;
        }
        *ret_buf = buf;
        if (ret_len)
                *ret_len = len;
        return 0;
}

/* ---- file I/O -------------------------------------------------------------- */

static int journal_path(const char *rt, const char *name, char *ret, size_t size)
{
        int r = snprintf(ret, size, "%s/%s", rt, name);

        return r < 0 || (size_t) r >= size ? -ENAMETOOLONG : 0;
}

int knob_journal_read(int root_fd, const char *rt, Journal *ret)
{
        _cleanup_free_ char *buf = NULL;
        char path[FRAGD_PATH_MAX + 16];
        size_t len;
        int r;

        r = journal_path(rt, "saved", path, sizeof(path));
        if (r < 0)
                return r;
        r = read_file_alloc_at_full(root_fd, path, ROOT_OWN_FILE, &buf, &len);
        if (r < 0)
                return r;
        return knob_journal_parse(buf, len, ret);
}

int knob_journal_write(int root_fd, const char *rt, const Journal *j)
{
        _cleanup_free_ char *buf = NULL;
        _cleanup_free_ Journal *own = NULL;
        char path[FRAGD_PATH_MAX + 16];
        size_t len;
        int r;

        r = journal_path(rt, "saved", path, sizeof(path));
        if (r < 0)
                return r;
        if (j->n == 0) {
                r = unlink_file_at(root_fd, path);
                return r == -ENOENT ? 0 : r;
        }
        own = malloc(sizeof(*own));
        if (!own)
                return -ENOMEM;
        *own = *j;
        own->pid = getpid();
        own->starttime = pid_starttime(own->pid);
        r = knob_journal_format(own, &buf, &len);
        if (r < 0)
                return r;
        return write_file_atomic_at(root_fd, path, buf, len, 0644);
}

/* ---- crash recovery ------------------------------------------------------- */

int knob_journal_recover(const Root *root, const char *rt, const KnobOps *ops, void *ops_data,
                         OwnershipMode mode, Journal *ret_kept, KnobRestoreStats *ret_stats)
{
        _cleanup_free_ Journal *j = NULL, *kept = NULL;
        KnobRestoreStats st = { 0 };
        const char *names[KNOB_MAX] = { NULL };
        size_t order[KNOB_MAX];
        bool failed[KNOB_MAX] = { false };
        bool recomputed = false;
        int r;

        j = calloc(1, sizeof(*j));
        kept = calloc(1, sizeof(*kept));
        if (!j || !kept)
                return -ENOMEM;
        ret_kept->n = 0;
        *ret_stats = st;

        r = knob_journal_read(root->root_fd, rt, j);
        if (r == -ENOENT)
                return 0;
        if (r == -EBADMSG || r == -E2BIG) {
                char from[FRAGD_PATH_MAX + 16], to[FRAGD_PATH_MAX + 16];

                (void) journal_path(rt, "saved", from, sizeof(from));
                (void) journal_path(rt, "saved.corrupt", to, sizeof(to));
                if (ops->dry_run)
                        return log_error_errno(-EBADMSG, "The knob journal '%s/%s' is corrupt; nothing to "
                                               "restore from it", root->path, from);
                if (renameat(root->root_fd, from, root->root_fd, to) < 0)
                        return log_error_errno(errno, "The knob journal '%s/%s' is corrupt and cannot be "
                                               "moved aside: %m", root->path, from);
                log_error("The knob journal '%s/%s' is corrupt; moved to '%s/%s', nothing restored from it",
                          root->path, from, root->path, to);
                return -EBADMSG;
        }
        if (r < 0)
                return log_error_errno(r, "Failed to read the knob journal '%s/%s/saved': %m", root->path, rt);
        if (j->pid > 0 && j->pid != getpid() && pid_is_alive(j->pid, j->starttime))
                return log_error_errno(-EBUSY, "The knob journal '%s/%s/saved' belongs to a running fragd "
                                       "(pid %d); not touching it", root->path, rt, (int) j->pid);

        st.n_entries = j->n;
        st.n_invalid = j->n_invalid;
        if (j->n_invalid > 0)
                log_warning("The knob journal '%s/%s/saved' has %u malformed line(s), ignoring them", root->path,
                            rt, j->n_invalid);
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
                (void) knob_restore_one(ops, &k, e->original, e->last_written, mode, force, &oc);
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

        if (!ops->dry_run) {
                r = knob_journal_write(root->root_fd, rt, kept);
                if (r < 0)
                        log_error_errno(r, "Failed to update the knob journal '%s/%s/saved': %m", root->path, rt);
        }
        if (st.n_failed > 0)
                log_error("%u knob(s) could not be restored; kept in '%s/%s/saved'", st.n_failed, root->path, rt);
        else if (j->n > 0)
                log_notice("Knob journal: %u restored, %u already original, %u left to their new owner, %u gone",
                           st.n_restored, st.n_unchanged, st.n_left, st.n_gone);
        *ret_kept = *kept;
        *ret_stats = st;
        return 0;
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
        if (r < 0)
                return r;
        if (ret)
                *ret = st;
        return 0;
}
