/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One fragd per root: the lock <root>/run/fragd/lock and the record of its
 * holder <root>/run/fragd/owner. Format and rules in daemon-lock.h; why
 * and who takes it in docs/design.md "One daemon per root". */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/cleanup.h"
#include "core/parse-util.h"
#include "core/text.h"
#include "knobs/knob.h"
#include "service/daemon-lock.h"

#define LOCK_MAGIC "fragd-lock 1"

struct DaemonLock {
        const Root *root;
        int dirfd; /* <root>/run/fragd */
        int fd;    /* the lock file, locked */
};

/* ---- the record (pure) --------------------------------------------------------- */

static bool dir_usable(const char *dir)
{
        char rel[FRAGD_PATH_MAX];

        return text_dir_relative(dir, rel, sizeof(rel), NULL) >= 0;
}

int daemon_lock_record_parse(const char *buf, size_t len, LockRecord *ret)
{
        LockRecord rec = { .valid = true };
        bool have_pid = false, have_mode = false, have_rt = false, have_journal = false;
        Cursor c;
        Span line, tok, val;

        if (cursor_open(&c, buf, len) < 0 || (len > 0 && memchr(buf, '\0', len)))
                return -EBADMSG;
        if (!cursor_next_line(&c, &line) || !span_eq(line, LOCK_MAGIC))
                return -EBADMSG;
        while (cursor_next_line(&c, &line)) {
                Span rest = line;
                uint64_t a, b;
                char *dst = NULL;

                if (!span_next_token(&rest, &tok))
                        continue; /* an empty line */
                if (span_eq(tok, "pid")) {
                        if (have_pid || !span_next_token(&rest, &tok) || span_to_u64(tok, &a) < 0 || a == 0 ||
                            a > INT32_MAX || !span_next_token(&rest, &tok) || span_to_u64(tok, &b) < 0 ||
                            span_next_token(&rest, &tok))
                                return -EBADMSG;
                        rec.pid = (pid_t) a;
                        rec.starttime = b;
                        have_pid = true;
                        continue;
                }
                if (span_eq(tok, "started")) {
                        if (!span_next_token(&rest, &tok) || span_to_u64(tok, &a) < 0)
                                return -EBADMSG;
                        rec.started_usec = a;
                        continue;
                }
                if (span_eq(tok, "mode")) {
                        if (!span_next_token(&rest, &tok) || span_copy(tok, rec.mode, sizeof(rec.mode)) < 0 ||
                            !text_printable(rec.mode, NULL))
                                return -EBADMSG;
                        have_mode = true;
                        continue;
                }
                if (span_eq(tok, "runtime_dir")) {
                        dst = rec.runtime_dir;
                        have_rt = true;
                } else if (span_eq(tok, "state_dir"))
                        dst = rec.state_dir;
                else if (span_eq(tok, "journal_dir")) {
                        dst = rec.journal_dir;
                        have_journal = true;
                } else
                        continue; /* a line a later fragd added */
                /* one path, no blanks in it (a configured dir with a blank
                 * is refused by the configuration's check too) */
                if (!span_next_token(&rest, &val) || span_next_token(&rest, &tok) ||
                    span_copy(val, dst, FRAGD_PATH_MAX) < 0)
                        return -EBADMSG;
                if (dst == rec.state_dir && strcmp(dst, "-") == 0)
                        dst[0] = '\0';
                else if (!dir_usable(dst))
                        return -EBADMSG;
        }
        if (!have_pid || !have_mode || !have_rt || !have_journal)
                return -EBADMSG;
        *ret = rec;
        return 0;
}

int daemon_lock_record_format(const LockRecord *rec, char *buf, size_t size)
{
        int r = snprintf(buf, size,
                         LOCK_MAGIC "\npid %d %" PRIu64 "\nmode %s\nstarted %" PRIu64
                                    "\nruntime_dir %s\nstate_dir %s\njournal_dir %s\n",
                         (int) rec->pid, rec->starttime, rec->mode[0] ? rec->mode : "daemon", rec->started_usec,
                         rec->runtime_dir, rec->state_dir[0] ? rec->state_dir : "-", rec->journal_dir);

        return r < 0 || (size_t) r >= size ? -ENAMETOOLONG : r;
}

/* ---- the files ------------------------------------------------------------------ */

void daemon_lock_path(const Root *root, char *buf, size_t size)
{
        snprintf(buf, size, "%s/" DAEMON_LOCK_DIR "/" DAEMON_LOCK_NAME, root->is_host ? "" : root->path);
}

static void record_read(int dirfd, LockRecord *ret)
{
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;

        *ret = (LockRecord) { 0 };
        if (read_file_alloc_at_max(dirfd, DAEMON_LOCK_RECORD, ROOT_OWN_FILE, DAEMON_LOCK_RECORD_MAX, &buf, &len) < 0 ||
            daemon_lock_record_parse(buf, len, ret) < 0)
                *ret = (LockRecord) { 0 };
}

/* The lock file, opened without following a symlink and without blocking
 * (a FIFO planted there); created (0644, for `fragd status` as any user)
 * when missing and create is set. */
static int lock_open(int dirfd, bool create)
{
        _cleanup_close_ int fd = -1;
        struct stat st;

        for (unsigned i = 0; i < 3; i++) {
                fd = openat(dirfd, DAEMON_LOCK_NAME,
                            (create ? O_RDWR : O_RDONLY) | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
                if (fd >= 0 || errno != ENOENT || !create)
                        break;
                fd = openat(dirfd, DAEMON_LOCK_NAME, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY,
                            0644);
                if (fd >= 0) {
                        (void) fchmod(fd, 0644); /* the umask (the unit's 0077) left it 0600 */
                        break;
                }
                if (errno != EEXIST)
                        break;
                /* another fragd created it in between: open that one */
        }
        if (fd < 0)
                return errno == ELOOP || errno == EMLINK ? -ELOOP : errno == EISDIR ? -EBADFD : -errno;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EBADFD;
        return TAKE_FD(fd);
}

static struct flock whole_file(short type)
{
        return (struct flock) { .l_type = type, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0 };
}

int daemon_lock_take(const Root *root, DaemonLock **ret, LockRecord *ret_record)
{
        _cleanup_(daemon_lock_freep) DaemonLock *l = NULL;
        struct flock fl = whole_file(F_WRLCK);
        int r;

        if (ret_record)
                *ret_record = (LockRecord) { 0 };
        l = calloc(1, sizeof(*l));
        if (!l)
                return -ENOMEM;
        l->root = root;
        l->dirfd = l->fd = -1;
        r = root_mkdir_p_at(root->root_fd, DAEMON_LOCK_DIR, 0755, &l->dirfd);
        if (r < 0)
                return r;
        l->fd = lock_open(l->dirfd, true);
        if (l->fd < 0)
                return l->fd;
        if (fcntl(l->fd, F_OFD_SETLK, &fl) < 0) {
                r = errno == EAGAIN || errno == EACCES ? -EBUSY : -errno;
                if (ret_record)
                        record_read(l->dirfd, ret_record);
                return r;
        }
        if (ret_record)
                record_read(l->dirfd, ret_record);
        *ret = TAKE_PTR(l);
        return 0;
}

int daemon_lock_publish(DaemonLock *l, const char *mode, const char *runtime_dir, const char *state_dir,
                        const char *journal_dir)
{
        LockRecord rec = { .pid = getpid(), .started_usec = now_realtime_usec() };
        char buf[DAEMON_LOCK_RECORD_MAX];
        int n;

        rec.starttime = pid_starttime(rec.pid);
        snprintf(rec.mode, sizeof(rec.mode), "%s", mode);
        snprintf(rec.runtime_dir, sizeof(rec.runtime_dir), "%s",
                 runtime_dir && *runtime_dir ? runtime_dir : KNOB_DEFAULT_RUNTIME_DIR);
        snprintf(rec.state_dir, sizeof(rec.state_dir), "%s", state_dir ?: "");
        snprintf(rec.journal_dir, sizeof(rec.journal_dir), "%s",
                 journal_dir && *journal_dir ? journal_dir : rec.runtime_dir);
        n = daemon_lock_record_format(&rec, buf, sizeof(buf));
        if (n < 0)
                return n;
        return write_file_atomic_at(l->dirfd, DAEMON_LOCK_RECORD, buf, (size_t) n, 0644);
}

DaemonLock *daemon_lock_free(DaemonLock *l)
{
        if (!l)
                return NULL;
        closep(&l->fd); /* the kernel drops the lock with its last descriptor */
        closep(&l->dirfd);
        free(l);
        return NULL;
}

int daemon_lock_probe(const Root *root, LockRecord *ret)
{
        _cleanup_close_ int dirfd = -1, fd = -1;
        struct flock fl = whole_file(F_WRLCK);

        *ret = (LockRecord) { 0 };
        dirfd = root_openat(root->root_fd, DAEMON_LOCK_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0);
        if (dirfd < 0)
                return dirfd == -ENOENT ? 0 : dirfd;
        record_read(dirfd, ret);
        fd = lock_open(dirfd, false);
        if (fd == -ENOENT)
                return 0;
        if (fd < 0)
                return fd;
        /* asks, does not take: a probe never makes a starting daemon fail */
        if (fcntl(fd, F_OFD_GETLK, &fl) < 0)
                return -errno;
        return fl.l_type != F_UNLCK;
}

/* ---- for messages ------------------------------------------------------------------ */

/* The start of /proc/<pid>/<name>, NULs as spaces, for a terminal. */
static void proc_text(pid_t pid, const char *name, char *buf, size_t size)
{
        char path[64], raw[512];
        _cleanup_close_ int fd = -1;
        ssize_t n;

        buf[0] = '\0';
        snprintf(path, sizeof(path), "/proc/%d/%s", (int) pid, name);
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return;
        n = read(fd, raw, sizeof(raw) - 1);
        if (n <= 0)
                return;
        while (n > 0 && (raw[n - 1] == '\0' || raw[n - 1] == '\n'))
                n--;
        for (ssize_t i = 0; i < n; i++)
                if (raw[i] == '\0')
                        raw[i] = ' ';
        (void) text_scrub(buf, size, raw, (size_t) n, NULL);
}

void daemon_lock_describe(const LockRecord *rec, char *buf, size_t size)
{
        char cmd[160], cg[512], unit[128] = "", when[32] = "";
        const char *u;

        if (!rec->valid || !pid_is_alive(rec->pid, rec->starttime)) {
                /* no record, or one its writer left: not the holder's */
                snprintf(buf, size, "a process that has not written its record yet");
                return;
        }
        proc_text(rec->pid, "cmdline", cmd, sizeof(cmd));
        proc_text(rec->pid, "cgroup", cg, sizeof(cg));
        u = strrchr(cg, '/');
        if (cmd[0] && u && strlen(u) > 9 && strcmp(u + strlen(u) - 8, ".service") == 0)
                snprintf(unit, sizeof(unit), ", in %s", u + 1);
        if (rec->started_usec) {
                time_t t = (time_t) (rec->started_usec / USEC_PER_SEC);
                struct tm tm;

                if (localtime_r(&t, &tm))
                        strftime(when, sizeof(when), ", since %Y-%m-%d %H:%M:%S", &tm);
        }
        if (cmd[0])
                snprintf(buf, size, "pid %d (%s%s%s, runtime_dir %s)", (int) rec->pid, cmd, unit, when,
                         rec->runtime_dir);
        else
                snprintf(buf, size, "pid %d (fragd, mode %s%s, runtime_dir %s)", (int) rec->pid,
                         rec->mode[0] ? rec->mode : "?", when, rec->runtime_dir);
}

void daemon_lock_holder(const Root *root, const LockRecord *rec, char *buf, size_t size)
{
        char who[512], path[FRAGD_PATH_MAX + 32];

        daemon_lock_describe(rec, who, sizeof(who));
        daemon_lock_path(root, path, sizeof(path));
        snprintf(buf, size, "%s holds '%s'", who, path);
}
