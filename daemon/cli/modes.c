/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fragd status, fragd --restore, fragd --features, fragd thp-dropin
 * (fragd --check-config: check-config.c). */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/main-internal.h"
#include "config/config.h"
#include "core/cleanup.h"
#include "core/clock.h"
#include "core/log.h"
#include "core/text.h"
#include "core/unit-name.h"
#include "knobs/knob.h"
#include "output/status.h"
#include "service/control.h"
#include "service/daemon-lock.h"
#include "workload/thp-cgroup.h"

int args_root_open(const FragdArgs *a, Root **ret)
{
        int r = root_open(a->root, a->page_size, ret);

        if (r < 0)
                return log_error_errno(r, "Cannot open root directory '%s': %m", a->root);
        return 0;
}

/* The runtime directory from the configuration when it loads. When it does
 * not (a typo, a FIFO where a file should be: the loader never blocks), the
 * knobs must still come back: the runtime_dir given with --set, else the
 * default, with a warning naming the first error. */
static void runtime_dir(const Root *root, const FragdArgs *a, char *buf, size_t size)
{
        _cleanup_free_ FragdConfig *cfg = calloc(1, sizeof(*cfg));
        _cleanup_free_ ConfigErrors *errs = calloc(1, sizeof(*errs));
        ConfigLoadArgs ca = { .root = root, .config_file = a->config_file, .set = a->sets, .n_set = a->n_sets };
        ConfigLoadArgs only_set = { .config_text = "", .set = a->sets, .n_set = a->n_sets };
        int r;

        snprintf(buf, size, "%s", KNOB_DEFAULT_RUNTIME_DIR);
        if (!cfg || !errs)
                return;
        r = config_load(&ca, cfg, NULL, errs);
        if (r >= 0) {
                snprintf(buf, size, "%s", cfg->daemon.runtime_dir);
                return;
        }
        if (config_load(&only_set, cfg, NULL, NULL) >= 0)
                snprintf(buf, size, "%s", cfg->daemon.runtime_dir);
        log_warning("The configuration does not load (%s%s); using runtime_dir '%s'. If fragd ran with "
                    "another runtime_dir, fix the configuration ('fragd --check-config' lists every error) "
                    "or give --set daemon.runtime_dir=DIR",
                    errs->n ? errs->msg[0] : strerror(-r), errs->n > 1 ? ", and more" : "", buf);
}

/* A knob journal, or one moved aside, in the runtime directory dir. */
static bool journal_left_in(const Root *root, const char *dir)
{
        char rel[FRAGD_PATH_MAX], path[FRAGD_PATH_MAX + 16], aside[FRAGD_PATH_MAX + 48];

        if (knob_runtime_dir_relative(dir, rel, sizeof(rel)) < 0)
                return false;
        snprintf(path, sizeof(path), "%s/saved", rel);
        return faccessat(root->root_fd, path, F_OK, AT_SYMLINK_NOFOLLOW) == 0 ||
               knob_journal_find_aside(root->root_fd, rel, aside, sizeof(aside)) > 0;
}

static bool same_dir(const char *a, const char *b)
{
        char ra[FRAGD_PATH_MAX], rb[FRAGD_PATH_MAX];

        return knob_runtime_dir_relative(a, ra, sizeof(ra)) >= 0 && knob_runtime_dir_relative(b, rb, sizeof(rb)) >= 0 &&
               strcmp(ra, rb) == 0;
}

/* Where the daemon's files are, from what it wrote, not from a
 * configuration edited since (daemon-lock.h): the runtime_dir of the fragd
 * holding the lock; with none, the journal_dir the last one left when a
 * journal is still there; else the configuration's. Returns what
 * daemon_lock_probe() said (1: a fragd holds the lock, its record in rec). */
static int daemon_dir(const Root *root, const FragdArgs *a, LockRecord *rec, char *buf, size_t size)
{
        int held = daemon_lock_probe(root, rec);

        if (held > 0 && rec->valid) {
                snprintf(buf, size, "%s", rec->runtime_dir);
                return held;
        }
        runtime_dir(root, a, buf, size);
        if (held == 0 && rec->valid && !same_dir(rec->journal_dir, buf) && journal_left_in(root, rec->journal_dir) &&
            !journal_left_in(root, buf)) {
                log_notice("The last fragd here (pid %d) kept its files in '%s', not in runtime_dir '%s' of the "
                           "configuration: looking there",
                           (int) rec->pid, rec->journal_dir, buf);
                snprintf(buf, size, "%s", rec->journal_dir);
        }
        return held;
}

/* The fragd holding the lock took it less than 10 s ago: starting (crash
 * recovery, its first tick), its status file and socket still to come.
 * Later, one missing is a failure to say. */
static bool holder_starting(const LockRecord *rec)
{
        uint64_t now = now_realtime_usec();

        return rec->valid && strcmp(rec->mode, "restore") != 0 && rec->started_usec > 0 &&
               rec->started_usec <= now && now - rec->started_usec < 10 * USEC_PER_SEC;
}

int run_status(const FragdArgs *a)
{
        _cleanup_(root_freep) Root *root = NULL;
        char rt[FRAGD_PATH_MAX], rel[FRAGD_PATH_MAX], path[FRAGD_PATH_MAX + 16], who[1024];
        LockRecord rec;
        int r;

        if (args_root_open(a, &root) < 0)
                return EXIT_FAILURE;
        if (daemon_dir(root, a, &rec, rt, sizeof(rt)) > 0 && holder_starting(&rec) &&
            strcmp(a->format, "json") != 0 && knob_runtime_dir_relative(rt, rel, sizeof(rel)) >= 0 &&
            snprintf(path, sizeof(path), "%s/status", rel) > 0 &&
            faccessat(root->root_fd, path, F_OK, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT &&
            snprintf(path, sizeof(path), "%s/" CONTROL_SOCKET_NAME, rel) > 0 &&
            faccessat(root->root_fd, path, F_OK, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT) {
                /* the lock says it runs, neither its socket nor its state
                 * are there yet: starting, its set-up and first tick not done */
                daemon_lock_holder(root, &rec, who, sizeof(who));
                printf("fragd is running (%s); it has not written its state yet (it does at its first tick).\n",
                       who);
                return 0;
        }
        if (strcmp(a->format, "json") == 0)
                r = status_print_json(root, rt, control_probe, stdout);
        else
                r = status_print(root, rt, control_probe, stdout);
        if (r == -ENOENT || r == -ESRCH)
                return EXIT_NOT_RUNNING;
        if (r == -EUCLEAN)
                return EXIT_KNOBS_LEFT;
        if (r == -ENODATA)
                return EXIT_FAILURE; /* running, its status file not its own: said above */
        if (r < 0) {
                log_error_errno(r, "Cannot read the status of fragd in '%s': %m", rt);
                return EXIT_FAILURE;
        }
        return 0;
}

/* Whose the control socket in runtime directory rel is, when it is not
 * root's or this user's (control_request()'s -EPERM): else its listener's. */
static void socket_owner_text(const Root *root, const char *rel, char *buf, size_t size)
{
        _cleanup_close_ int dfd = root_openat(root->root_fd, rel, O_PATH | O_DIRECTORY | O_CLOEXEC, 0, 0);
        struct stat st;

        if (dfd >= 0 && fstatat(dfd, CONTROL_SOCKET_NAME, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_uid != 0 &&
            st.st_uid != geteuid())
                snprintf(buf, size, "the socket belongs to uid %u", (unsigned) st.st_uid);
        else
                snprintf(buf, size, "the process listening on it runs as another user");
}

int run_control(const FragdArgs *a)
{
        _cleanup_(root_freep) Root *root = NULL;
        const char *cmd = a->mode == MODE_PAUSE ? "pause" : "resume";
        char rt[FRAGD_PATH_MAX], rel[FRAGD_PATH_MAX], reply[CONTROL_REPLY_MAX], sock[FRAGD_PATH_MAX * 2];
        char lock[FRAGD_PATH_MAX + 32], who[1024], owner[96];
        LockRecord rec;
        int r, held;
        pid_t pid = 0;

        if (args_root_open(a, &root) < 0)
                return EXIT_FAILURE;
        daemon_lock_path(root, lock, sizeof(lock));
        held = daemon_dir(root, a, &rec, rt, sizeof(rt));
        daemon_lock_holder(root, &rec, who, sizeof(who));
        if (held > 0 && rec.valid && strcmp(rec.mode, "restore") == 0) {
                log_error("fragd %s: fragd is not running: 'fragd --restore', %s", cmd, who);
                return EXIT_NOT_RUNNING;
        }
        if (knob_runtime_dir_relative(rt, rel, sizeof(rel)) < 0) {
                log_error("fragd %s: runtime_dir '%s' is not a directory fragd can use", cmd, rt);
                return EXIT_FAILURE;
        }
        snprintf(sock, sizeof(sock), "%s/%s/" CONTROL_SOCKET_NAME, root->is_host ? "" : root->path, rel);
        r = control_request(root, rt, cmd, reply, sizeof(reply));
        /* a daemon that holds the lock and has no socket yet is starting
         * (crash recovery, its set-up): wait for it, 5 s at most */
        for (unsigned i = 0; held > 0 && holder_starting(&rec) && (r == -ENOENT || r == -ECONNREFUSED) && i < 50;
             i++) {
                (void) usleep(100 * 1000);
                if ((held = daemon_lock_probe(root, &rec)) <= 0)
                        break;
                r = control_request(root, rt, cmd, reply, sizeof(reply));
        }
        switch (r) {
        case 0:
                printf("%s\n", reply);
                return 0;
        case -ENOENT:
        case -ECONNREFUSED:
                if (held > 0 || status_daemon_alive(root, rel, &pid) > 0) {
                        log_error("fragd %s: fragd is running (pid %d), but its control socket '%s' %s: the daemon "
                                  "could not create it (its log says why). Restart fragd to get 'fragd pause' and "
                                  "'fragd resume' back",
                                  cmd, (int) (held > 0 ? rec.pid : pid), sock,
                                  r == -ENOENT ? "is missing" : "refuses connections");
                        return EXIT_FAILURE;
                }
                log_error("fragd %s: fragd is not running (no fragd holds '%s', nobody listens on '%s')", cmd, lock,
                          sock);
                return EXIT_NOT_RUNNING;
        case -EACCES:
                log_error("fragd %s: permission denied on '%s'%s%s: only root may pause or resume fragd", cmd, sock,
                          reply[0] ? ": " : "", reply);
                return EXIT_PRECONDITION;
        case -EPERM:
                /* refused on this side, whoever runs it (root too): not a
                 * socket of a fragd this user may talk to */
                socket_owner_text(root, rel, owner, sizeof(owner));
                log_error("fragd %s: '%s' is not a fragd's you may talk to: %s, neither root nor you (uid %u). "
                          "fragd %s uses only a socket of root or of its own user, served by one of them. Check who "
                          "made it (ls -l '%s'), remove it, then restart fragd",
                          cmd, sock, owner, (unsigned) geteuid(), cmd, sock);
                return EXIT_FAILURE;
        case -ENOTSOCK:
                log_error("fragd %s: '%s' is not a socket (a symbolic link or a file put there?): not used. Remove "
                          "it, then restart fragd",
                          cmd, sock);
                return EXIT_FAILURE;
        case -EIO:
                log_error("fragd %s: %s", cmd, reply[0] ? reply : "no answer from fragd");
                return EXIT_FAILURE;
        default:
                log_error_errno(r, "fragd %s: cannot reach fragd through '%s': %m", cmd, sock);
                return EXIT_FAILURE;
        }
}

/* Restores the journal in runtime directory rt; the exit status. *ret_clean:
 * nothing was there. */
static int restore_dir(const Root *root, const FragdArgs *a, const char *rt, bool *ret_clean)
{
        KnobRestoreStats st = {};
        char rel[FRAGD_PATH_MAX], aside[FRAGD_PATH_MAX + 48];
        const char *prefix = root->is_host ? "" : root->path;
        int r, ra;

        *ret_clean = false;
        r = knob_restore_from_journal(root, rt, a->dry_run ? &knob_ops_dryrun : NULL, OWNERSHIP_RESPECT, &st);
        if (r == -EBUSY) {
                log_error("A running fragd owns %s/saved: stop it (it restores on stop) instead", rt);
                return EXIT_FAILURE;
        }
        if (r == -ELOOP) {
                log_error("Nothing restored: %s/saved is a symbolic link (see above)", rt);
                return EXIT_FAILURE;
        }
        if (r < 0 && r != -EBADMSG) {
                log_error_errno(r, "Cannot restore from %s/saved: %m", rt);
                return EXIT_FAILURE;
        }
        if (r == 0 && st.n_entries == 0) {
                /* nothing in 'saved'; a journal moved aside earlier is still trouble */
                if (knob_runtime_dir_relative(rt, rel, sizeof(rel)) >= 0 &&
                    (ra = knob_journal_find_aside(root->root_fd, rel, aside, sizeof(aside))) > 0) {
                        log_error("Nothing left in %s/saved, but '%s/%s' holds a journal fragd could not fully "
                                  "read: the knobs it names may still have fragd's values. Put them back by hand "
                                  "(the file is text: name, original, last written), then remove it",
                                  rt, prefix, aside);
                        return EXIT_FAILURE;
                }
                *ret_clean = true;
                return 0;
        }
        printf("Restored %u knob(s) from %s/saved, %u already at their original, %u changed by someone else since "
               "(left alone), %u gone, %u failed%s.\n",
               st.n_restored, rt, st.n_unchanged, st.n_left, st.n_gone, st.n_failed,
               st.n_failed ? " (kept for the next try)" : "");
        if (st.corrupt) {
                if (st.aside[0])
                        printf("The journal %s/saved could not be fully read (%u line(s) not used): it is kept as "
                               "'%s/%s'. The knobs listed above were NOT restored: put them back by hand, then "
                               "remove that file.\n",
                               rt, st.n_invalid, prefix, st.aside);
                else
                        printf("The journal %s/saved could not be fully read (%u line(s) not used); the knobs "
                               "listed above would NOT be restored.\n",
                               rt, st.n_invalid);
        }
        return st.n_failed || st.corrupt ? EXIT_FAILURE : 0;
}

/* The lock for --restore: taken (a dry run only asks), so that no daemon
 * starts while knobs are put back and none runs beside it. 0, or the exit
 * status. */
static int restore_lock(const Root *root, const FragdArgs *a, DaemonLock **ret, LockRecord *rec)
{
        char lock[FRAGD_PATH_MAX + 32], who[1024];
        int r;

        daemon_lock_path(root, lock, sizeof(lock));
        if (a->dry_run)
                r = daemon_lock_probe(root, rec) > 0 ? -EBUSY : 0;
        else
                r = daemon_lock_take(root, ret, rec);
        if (r == -EBUSY) {
                daemon_lock_holder(root, rec, who, sizeof(who));
                log_error("Nothing restored: a fragd runs on this root, %s. A running fragd restores its knobs "
                          "itself when it stops: stop it instead",
                          who);
                return EXIT_FAILURE;
        }
        if (r < 0) {
                log_error_errno(r, "Nothing restored: cannot take the lock '%s' (one fragd per root): %m%s", lock,
                                r == -ELOOP || r == -EBADFD ? "; it is not fragd's lock file: remove it" : "");
                return EXIT_FAILURE;
        }
        return 0;
}

int run_restore(const FragdArgs *a)
{
        _cleanup_(root_freep) Root *root = NULL;
        _cleanup_(daemon_lock_freep) DaemonLock *lock = NULL;
        char rt[FRAGD_PATH_MAX];
        LockRecord rec;
        bool clean_moved = true, clean = true;
        int r, rm = 0;

        if (args_root_open(a, &root) < 0)
                return EXIT_FAILURE;
        runtime_dir(root, a, rt, sizeof(rt));
        /* nothing left anywhere, no fragd running: nothing is written, not
         * even the lock (a tree read-only, or a capture, stays as it is) */
        if (daemon_lock_probe(root, &rec) == 0 && !journal_left_in(root, rt) &&
            !(rec.valid && journal_left_in(root, rec.journal_dir))) {
                if (!a->quiet_if_clean)
                        printf("Nothing to restore: no knob left changed by fragd.\n");
                return 0;
        }
        r = restore_lock(root, a, &lock, &rec);
        if (r != 0)
                return r;
        if (lock) {
                r = daemon_lock_publish(lock, "restore", rt, NULL, rec.valid ? rec.journal_dir : rt);
                if (r < 0)
                        log_warning_errno(r, "Cannot write the lock's record (%m), ignoring");
        }
        /* first where the last fragd kept its journal, when the
         * configuration has moved runtime_dir since (edited, no reload) */
        if (rec.valid && !same_dir(rec.journal_dir, rt)) {
                if (journal_left_in(root, rec.journal_dir))
                        log_notice("The last fragd here (pid %d) kept its knob journal in '%s', not in runtime_dir "
                                   "'%s' of the configuration: restoring from there too",
                                   (int) rec.pid, rec.journal_dir, rt);
                rm = restore_dir(root, a, rec.journal_dir, &clean_moved);
        }
        r = restore_dir(root, a, rt, &clean);
        if (clean && clean_moved && !a->quiet_if_clean)
                printf("Nothing to restore: no knob left changed by fragd.\n");
        return rm ?: r;
}

int run_features(const FragdArgs *a)
{
        (void) a;
        printf("once\ndaemon\nstatus\nstatus-json\npause\nrestore\ncheck-config\nprom\n");
        return 0;
}

int run_thp_dropin(const FragdArgs *a)
{
        const char *unit = a->dropin_unit, *mode = a->dropin_mode;
        /* what the operator typed goes back to the terminal escaped: a unit
         * name systemd refuses may hold anything */
        char u[4 * UNIT_NAME_LEN_MAX + 64], m[64], why[2048];
        int r;

        if (unit_name_parse(unit, strlen(unit), NULL, NULL) >= 0)
                snprintf(u, sizeof(u), "%s", unit); /* as systemd shows it: a '\\' is part of it */
        else if (text_escape(unit, strlen(unit), u, sizeof(u)) < 0)
                snprintf(u, sizeof(u), "(a name of %zu bytes)", strlen(unit));
        if (text_escape(mode, strlen(mode), m, sizeof(m)) < 0)
                snprintf(m, sizeof(m), "(%zu bytes)", strlen(mode));
        if (strcmp(mode, "never") != 0 && strcmp(mode, "madvise") != 0) {
                log_error("thp-dropin: MODE '%s' is not one of never, madvise (always and inherit need no "
                          "drop-in: 'always' is [cgroup] thp=always with collapse=yes)", m);
                return EXIT_USAGE;
        }
        r = thp_dropin_print(unit, mode, NULL, stdout, why, sizeof(why));
        if (r == -EINVAL) {
                log_error("thp-dropin: '%s' %s", u, why[0] ? why : "cannot take a drop-in");
                return EXIT_USAGE;
        }
        if (r == -ENOTCONN) {
                log_error("Cannot ask systemd for %s's ExecStart (no system bus): run on the host where the unit "
                          "is installed", u);
                return EXIT_PRECONDITION;
        }
        if (r == -ENODATA) {
                if (why[0])
                        log_error("thp-dropin: %s: %s", u, why);
                else
                        log_error("systemd knows no ExecStart= for %s (not installed, or not a service): nothing "
                                  "to wrap", u);
                return EXIT_FAILURE;
        }
        if (r == -ENOEXEC) {
                log_error("thp-dropin: %s", why);
                return EXIT_FAILURE;
        }
        if (r < 0) {
                log_error_errno(r, "Cannot make the drop-in for %s: %m", u);
                return EXIT_FAILURE;
        }
        return fflush(stdout) == 0 ? 0 : EXIT_FAILURE;
}
