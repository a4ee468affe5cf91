/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The knob journal <root>/<runtime_dir>/saved, the file only: parse and
 * format (pure), bounded read, atomic write, moving a bad one aside, and
 * where the runtime directory is. It calls nothing of the registry
 * (knob.c) or of restoring (knob-restore.c): crash recovery, which reads
 * this file and restores what it names, is in knob-restore.c. The format is
 * documented in daemon/knobs/knob.h. */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "core/log.h"
#include "core/parse-util.h"
#include "core/root.h"
#include "core/text.h"
#include "knobs/knob-internal.h"
#include "knobs/knob.h"

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

        /* a start time of 0 is a record that lacks it: it matches nothing */
        if (pid <= 0 || starttime == 0)
                return false;
        if (kill(pid, 0) < 0 && errno != EPERM)
                return false;
        if (pid_stat(pid, &state, &st) < 0)
                return true; /* exists, but /proc says nothing more */
        if (state == 'Z' || state == 'X')
                return false;
        return st == starttime;
}

#define STATUS_MAGIC "fragd-status 1"

void knob_status_head_write(FILE *f)
{
        pid_t pid = getpid();

        fprintf(f, "%s\npid %d %" PRIu64 "\n", STATUS_MAGIC, (int) pid, pid_starttime(pid));
}

/* A header line "KEY A [B]": true when line is that header and A reads
 * (core's parse_u64); B, when asked for and present, too. */
bool knob_status_header_numbers(Span line, const char *key, uint64_t *ret_a, uint64_t *ret_b)
{
        Span tok;

        if (!span_next_token(&line, &tok) || !span_eq(tok, key) || !span_next_token(&line, &tok) ||
            span_to_u64(tok, ret_a) < 0)
                return false;
        if (ret_b && span_next_token(&line, &tok))
                (void) span_to_u64(tok, ret_b);
        return true;
}

int knob_status_owner(const char *buf, size_t len, uint64_t *ret_pid, uint64_t *ret_starttime)
{
        Cursor c;
        Span line;

        *ret_pid = *ret_starttime = 0;
        if (cursor_open(&c, buf, len) < 0 || memchr(buf, '\0', len) || len <= strlen(STATUS_MAGIC) ||
            strncmp(buf, STATUS_MAGIC "\n", strlen(STATUS_MAGIC) + 1) != 0)
                return -EBADMSG;
        while (cursor_next_line(&c, &line))
                if (knob_status_header_numbers(line, "pid", ret_pid, ret_starttime))
                        break;
        return 0;
}

bool pid_is_fragd(pid_t pid)
{
        char path[64], comm[32] = "";
        _cleanup_close_ int fd = -1;
        struct stat a, b;
        ssize_t n;

        /* the same program as this one (a fork, or fragd under another name) */
        snprintf(path, sizeof(path), "/proc/%d/exe", (int) pid);
        if (stat(path, &a) == 0 && stat("/proc/self/exe", &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
                return true;
        /* or a fragd: an older binary replaced by an upgrade keeps its name */
        snprintf(path, sizeof(path), "/proc/%d/comm", (int) pid);
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return true; /* cannot tell: assume it is, never take a live fragd's knobs */
        n = read(fd, comm, sizeof(comm) - 1);
        if (n <= 0)
                return true;
        comm[n] = '\0';
        return strncmp(comm, "fragd", 5) == 0;
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

static void copy_printable(Span s, char *ret, size_t size)
{
        ret[0] = '\0';
        if (s.len == 0 || s.len >= size || !span_printable(s))
                return;
        memcpy(ret, s.p, s.len);
        ret[s.len] = '\0';
}

/* Records a line not taken, with the knob name and original when they can
 * be read (for the operator: "write ORIGINAL to the knob"). */
static void note_bad(Journal *j, unsigned line_no, Span line, bool value_refused, const char *why)
{
        JournalBad *b;
        Span rest = line, f;
        Knob k;

        j->n_invalid++;
        if (j->n_bad >= KNOB_MAX)
                return;
        b = &j->bad[j->n_bad++];
        *b = (JournalBad) { .line = line_no, .value_refused = value_refused };
        snprintf(b->why, sizeof(b->why), "%s", why);
        if (rest.len > 0 && rest.p[rest.len - 1] == '\r')
                rest.len--;
        if (!span_next_field(&rest, &f))
                return;
        copy_printable(f, b->name, sizeof(b->name));
        if (b->name[0] && (knob_init(&k, NULL, b->name, NULL) < 0 || k.kind == KNOB_KIND_ONESHOT)) {
                b->name[0] = '\0';
                return;
        }
        if (b->name[0] && span_next_field(&rest, &f))
                copy_printable(f, b->original, sizeof(b->original));
}

static int parse_entry(Span line, JournalEntry *ret, bool *ret_refused, char *why, size_t why_size)
{
        Span f[4], rest = line;
        JournalEntry e = { 0 };
        Knob k;
        char vwhy[128];

        *ret_refused = false;
        for (int i = 0; i < 4; i++)
                if (!span_next_field(&rest, &f[i])) {
                        snprintf(why, why_size, "%d tab-separated field(s), not 4 (name, original, last_written, "
                                                "first_touch_usec)", i);
                        return -EBADMSG;
                }
        if (rest.p) { /* a fifth field */
                snprintf(why, why_size, "more than 4 tab-separated fields");
                return -EBADMSG;
        }
        for (int i = 0; i < 3; i++)
                if (f[i].len == 0 || !span_printable(f[i])) {
                        snprintf(why, why_size, "field %d is empty or holds a control character", i + 1);
                        return -EBADMSG;
                }
        if (span_copy(f[0], e.name, sizeof(e.name)) < 0 || span_copy(f[1], e.original, sizeof(e.original)) < 0 ||
            span_copy(f[2], e.last_written, sizeof(e.last_written)) < 0) {
                snprintf(why, why_size, "a field is too long");
                return -EBADMSG;
        }
        if (span_to_u64(f[3], &e.first_touch_usec) < 0) {
                snprintf(why, why_size, "first_touch_usec is not a number");
                return -EBADMSG;
        }
        if (knob_init(&k, NULL, e.name, NULL) < 0 || k.kind == KNOB_KIND_ONESHOT) {
                snprintf(why, why_size, "'%s' is not a knob fragd restores", e.name);
                return -EBADMSG;
        }
        /* a value the knob cannot hold is never written back (tampered?) */
        if (knob_value_check(&k, e.original, vwhy, sizeof(vwhy)) < 0) {
                snprintf(why, why_size, "the original '%s' is %s", e.original, vwhy);
                *ret_refused = true;
                return -EBADMSG;
        }
        if (knob_value_check(&k, e.last_written, vwhy, sizeof(vwhy)) < 0) {
                snprintf(why, why_size, "last_written '%s' is %s", e.last_written, vwhy);
                *ret_refused = true;
                return -EBADMSG;
        }
        *ret = e;
        return 0;
}

/* The lines after the header. trusted false: nothing is taken, every entry
 * goes to bad[] with why_untrusted. */
static int parse_lines(Cursor *c, unsigned line_no, Journal *j, bool trusted, const char *why_untrusted)
{
        Span line;
        bool have_pid = false;

        while (cursor_next_line(c, &line)) {
                Span s = line, tok;
                JournalEntry e;
                bool dup = false, refused, terminated = line.p + line.len < c->end;
                char why[JOURNAL_WHY_MAX];

                line_no++;
                if (!terminated) {
                        note_bad(j, line_no, line, false,
                                 "the last line has no newline: the file was cut short");
                        continue;
                }
                if (line.len > 0 && line.p[line.len - 1] == '\r') {
                        note_bad(j, line_no, line, false, "CRLF line end (fragd writes LF only)");
                        continue;
                }
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
                                note_bad(j, line_no, line, false, "a malformed or second pid line");
                                continue;
                        }
                        have_pid = true;
                        j->pid = (pid_t) pid;
                        j->starttime = st;
                        continue;
                }
                if (parse_entry(line, &e, &refused, why, sizeof(why)) < 0) {
                        note_bad(j, line_no, line, refused, why);
                        continue;
                }
                if (!trusted) {
                        note_bad(j, line_no, line, false, why_untrusted);
                        continue;
                }
                for (unsigned i = 0; i < j->n; i++)
                        if (strcmp(j->e[i].name, e.name) == 0)
                                dup = true;
                if (dup) { /* keep the first: its original is the oldest */
                        snprintf(why, sizeof(why), "a second line for %s (the first one is used)", e.name);
                        note_bad(j, line_no, line, false, why);
                        continue;
                }
                if (j->n >= KNOB_MAX)
                        return -E2BIG;
                j->e[j->n++] = e;
        }
        return 0;
}

int knob_journal_parse(const char *buf, size_t len, Journal *ret)
{
        _cleanup_free_ Journal *j = NULL;
        Cursor c = cursor_make(buf, len);
        Span line;
        int r;

        /* the header, whole: "fragd-saved 1\n" */
        if (!cursor_next_line(&c, &line) || !span_eq(line, JOURNAL_MAGIC) || line.p + line.len >= c.end)
                return -EBADMSG;
        j = calloc(1, sizeof(*j));
        if (!j)
                return -ENOMEM;
        r = parse_lines(&c, 1, j, true, NULL);
        if (r < 0)
                return r;
        *ret = *j;
        return 0;
}

void knob_journal_salvage(const char *buf, size_t len, const char *why, Journal *ret)
{
        Cursor c = cursor_make(buf, len);
        Span line;
        unsigned line_no = 0;

        *ret = (Journal) { 0 };
        /* skip a header that is there, even with CRLF or cut short */
        if (len > 0 && cursor_next_line(&c, &line)) {
                if (line.len > 0 && line.p[line.len - 1] == '\r')
                        line.len--;
                if (span_eq(line, JOURNAL_MAGIC))
                        line_no = 1;
                else
                        c = cursor_make(buf, len);
        }
        (void) parse_lines(&c, line_no, ret, false, why);
        ret->pid = 0; /* an owner named in a broken file is not believed */
        ret->starttime = 0;
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

int knob_runtime_dir_relative(const char *runtime_dir, char *ret, size_t size)
{
        /* the same check as the configuration's (config-table.c VT_PATH) */
        return text_dir_relative(runtime_dir && *runtime_dir ? runtime_dir : KNOB_DEFAULT_RUNTIME_DIR, ret, size,
                                 NULL);
}


int knob_journal_path(const char *rt, const char *name, char *ret, size_t size)
{
        int r = snprintf(ret, size, "%s/%s", rt, name);

        return r < 0 || (size_t) r >= size ? -ENAMETOOLONG : 0;
}

/* At most JOURNAL_SIZE_MAX bytes of a regular file inside the root, not
 * through a symlink, never blocking (a FIFO planted there). */
int knob_journal_read_bounded(int root_fd, const char *path, char **ret_buf, size_t *ret_len)
{
        int r = read_file_alloc_at_max(root_fd, path, ROOT_OWN_FILE, JOURNAL_SIZE_MAX, ret_buf, ret_len);

        return r == -EISDIR ? -EBADFD : r; /* a directory is no journal, as a FIFO is not */
}

int knob_journal_read_head(int root_fd, const char *path, char **ret_buf, size_t *ret_len)
{
        return read_file_head_at(root_fd, path, ROOT_OWN_FILE, JOURNAL_SIZE_MAX, ret_buf, ret_len);
}

int knob_journal_read(int root_fd, const char *rt, Journal *ret)
{
        _cleanup_free_ char *buf = NULL;
        char path[FRAGD_PATH_MAX + 16];
        size_t len;
        int r;

        r = knob_journal_path(rt, "saved", path, sizeof(path));
        if (r < 0)
                return r;
        r = knob_journal_read_bounded(root_fd, path, &buf, &len);
        if (r < 0)
                return r;
        return knob_journal_parse(buf, len, ret);
}

/* The journal at path names another live fragd (its pid and start time;
 * not this process). An unreadable journal names nobody. */
static bool journal_owned_by_other(int root_fd, const char *path)
{
        _cleanup_free_ char *buf = NULL;
        _cleanup_free_ Journal *j = NULL;
        size_t len;

        if (knob_journal_read_bounded(root_fd, path, &buf, &len) < 0)
                return false;
        j = malloc(sizeof(*j));
        if (!j || knob_journal_parse(buf, len, j) < 0)
                return false;
        return j->pid > 0 && j->pid != getpid() && pid_is_alive(j->pid, j->starttime) && pid_is_fragd(j->pid);
}

int knob_journal_write(int root_fd, const char *rt, const Journal *j)
{
        _cleanup_free_ char *buf = NULL;
        _cleanup_free_ Journal *own = NULL;
        char path[FRAGD_PATH_MAX + 16];
        size_t len;
        int r;

        r = knob_journal_path(rt, "saved", path, sizeof(path));
        if (r < 0)
                return r;
        /* never another running fragd's: one started beside it (an older
         * fragd without the lock) would delete or overwrite the originals
         * it needs (docs/design.md "One daemon per root") */
        if (journal_owned_by_other(root_fd, path)) {
                if (j->n == 0)
                        return 0; /* nothing of this process's to remove */
                return -EBUSY;
        }
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

/* ---- moved aside ---------------------------------------------------------- */

/* Moves <rt>/saved to <rt>/saved.corrupt-<UTC time>[-N] without replacing
 * anything there and without following a symlink: rt is resolved inside the
 * root (a runtime_dir reached through a symlink out of the tree is taken
 * below the root, as the journal read was), and both names are in that one
 * directory fd. */
int knob_journal_move_aside(int root_fd, const char *rt, char *ret_to, size_t size)
{
        _cleanup_close_ int dfd = -1;
        char name[64], stamp[32];
        time_t now = time(NULL);
        struct tm tm;

        dfd = root_openat(root_fd, rt, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0);
        if (dfd < 0)
                return dfd;
        if (!gmtime_r(&now, &tm) || strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm) == 0)
                snprintf(stamp, sizeof(stamp), "%lld", (long long) now);
        for (unsigned i = 0; i < 100; i++) {
                int r;

                if (i == 0)
                        snprintf(name, sizeof(name), "saved.corrupt-%s", stamp);
                else
                        snprintf(name, sizeof(name), "saved.corrupt-%s-%u", stamp, i);
                r = snprintf(ret_to, size, "%s/%s", rt, name);
                if (r < 0 || (size_t) r >= size)
                        return -ENAMETOOLONG;
                if (renameat2(dfd, "saved", dfd, name, RENAME_NOREPLACE) == 0)
                        goto moved;
                if (errno == EEXIST)
                        continue;
                if (errno != EINVAL && errno != ENOSYS)
                        return negative_errno();
                /* no RENAME_NOREPLACE on this file system: a hard link
                 * never replaces a file and never follows a symlink */
                if (linkat(dfd, "saved", dfd, name, 0) < 0) {
                        if (errno == EEXIST)
                                continue;
                        return negative_errno();
                }
                if (unlinkat(dfd, "saved", 0) < 0)
                        return negative_errno();
                goto moved;
        }
        return -EEXIST; /* 100 names taken */
moved:
        (void) fsync(dfd);
        return 0;
}

int knob_journal_find_aside(int root_fd, const char *rt, char *ret, size_t size)
{
        _cleanup_close_ int fd = -1;
        DIR *d;
        struct dirent *de;
        int found = 0;

        fd = root_openat(root_fd, rt, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0);
        if (fd < 0)
                return fd == -ENOENT || fd == -ENOTDIR ? 0 : fd;
        d = fdopendir(fd);
        if (!d)
                return negative_errno();
        fd = -1; /* owned by d */
        while ((de = readdir(d))) {
                if (strncmp(de->d_name, "saved.corrupt", 13) != 0)
                        continue;
                /* the oldest name sorts first */
                if (found && strcmp(de->d_name, ret + strlen(rt) + 1) >= 0)
                        continue;
                if (snprintf(ret, size, "%s/%s", rt, de->d_name) >= (int) size)
                        continue;
                found = 1;
        }
        closedir(d);
        return found;
}

void knob_journal_read_why(int r, char *ret, size_t size)
{
        switch (r) {
        case -EFBIG:
                snprintf(ret, size, "it is larger than a journal can be (%u bytes)", JOURNAL_SIZE_MAX);
                break;
        case -ELOOP:
                snprintf(ret, size, "it is a symlink, not a file fragd wrote");
                break;
        case -EBADFD:
                snprintf(ret, size, "it is not a regular file");
                break;
        case -E2BIG:
                snprintf(ret, size, "it holds more knobs than fragd has (%d)", KNOB_MAX);
                break;
        default:
                snprintf(ret, size, "it does not start with the line 'fragd-saved 1'");
                break;
        }
}

/* true when <rt>/saved itself is a symlink (rt resolved inside the root);
 * its target, for the message, in ret_target */
bool knob_journal_is_symlink(int root_fd, const char *rt, char *ret_target, size_t size)
{
        _cleanup_close_ int dfd = -1;
        ssize_t n;

        dfd = root_openat(root_fd, rt, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0);
        if (dfd < 0)
                return false;
        n = readlinkat(dfd, "saved", ret_target, size - 1);
        if (n < 0)
                return false;
        ret_target[n] = '\0';
        return true;
}
