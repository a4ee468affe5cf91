/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One fragd per root (daemon/service/daemon-lock.c): the record's parser
 * and format, the lock taken, refused while another process holds it
 * (another open file description of this process, a child), released
 * however the holder ends (kill -9), a probe that never takes it, the
 * record left as a pointer after the holder is gone, and a lock file that
 * is not fragd's (a symlink out of the tree, a FIFO, a directory). */

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/log.h"
#include "knob-test-util.h"
#include "service/daemon-lock.h"

#define LOCK "run/fragd/lock"
#define OWNER "run/fragd/owner"

static void test_record_parse(void **state)
{
        static const struct {
                const char *in;
                int r;
                const char *rt, *state_dir, *journal;
        } table[] = {
                { "fragd-lock 1\npid 42 7\nmode daemon\nstarted 5\nruntime_dir /run/fragd\nstate_dir /var/lib/fragd\n"
                  "journal_dir /run/fragd\n",
                  0, "/run/fragd", "/var/lib/fragd", "/run/fragd" },
                /* a dry run passes on the journal_dir it found; no state kept */
                { "fragd-lock 1\npid 42 0\nmode dry-run\nruntime_dir /run/x\nstate_dir -\njournal_dir /run/fragd\n"
                  "later-key whatever\n",
                  0, "/run/x", "", "/run/fragd" },
                { "", -EBADMSG, NULL, NULL, NULL },
                { "fragd-lock 2\npid 42 7\nmode daemon\nruntime_dir /run/fragd\njournal_dir /run/fragd\n",
                  -EBADMSG, NULL, NULL, NULL },
                { "fragd-lock 1\nmode daemon\nruntime_dir /run/fragd\njournal_dir /run/fragd\n",
                  -EBADMSG, NULL, NULL, NULL },
                { "fragd-lock 1\npid 42 7\nruntime_dir /run/fragd\njournal_dir /run/fragd\n",
                  -EBADMSG, NULL, NULL, NULL },
                { "fragd-lock 1\npid 42 7\nmode daemon\njournal_dir /run/fragd\n", -EBADMSG, NULL, NULL, NULL },
                { "fragd-lock 1\npid 42 7\nmode daemon\nruntime_dir /run/fragd\n", -EBADMSG, NULL, NULL, NULL },
                { "fragd-lock 1\npid 0 7\nmode daemon\nruntime_dir /run/fragd\njournal_dir /run/fragd\n",
                  -EBADMSG, NULL, NULL, NULL },
                { "fragd-lock 1\npid 4294967296 7\nmode daemon\nruntime_dir /run/f\njournal_dir /run/f\n",
                  -EBADMSG, NULL, NULL, NULL },
                { "fragd-lock 1\npid 42\nmode daemon\nruntime_dir /run/fragd\njournal_dir /run/fragd\n",
                  -EBADMSG, NULL, NULL, NULL },
                { "fragd-lock 1\npid 42 7\npid 43 7\nmode daemon\nruntime_dir /run/f\njournal_dir /run/f\n",
                  -EBADMSG, NULL, NULL, NULL },
                /* directories fragd could not use: never taken from the record */
                { "fragd-lock 1\npid 42 7\nmode daemon\nruntime_dir /\njournal_dir /run/fragd\n",
                  -EBADMSG, NULL, NULL, NULL },
                { "fragd-lock 1\npid 42 7\nmode daemon\nruntime_dir /run/fragd\njournal_dir run/fragd\n",
                  -EBADMSG, NULL, NULL, NULL },
                { "fragd-lock 1\npid 42 7\nmode daemon\nruntime_dir /run/fragd\njournal_dir /run/../etc\n",
                  -EBADMSG, NULL, NULL, NULL },
                { "fragd-lock 1\npid 42 7\nmode daemon\nruntime_dir /run/a b\njournal_dir /run/fragd\n",
                  -EBADMSG, NULL, NULL, NULL },
                { "fragd-lock 1\npid 42 7\nmode daemon\nruntime_dir /run/\x1b[2J\njournal_dir /run/fragd\n",
                  -EBADMSG, NULL, NULL, NULL },
        };

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                LockRecord rec = { .pid = 99 };
                int r = daemon_lock_record_parse(table[i].in, strlen(table[i].in), &rec);

                if (r != table[i].r)
                        fail_msg("case %zu: %d, wanted %d", i, r, table[i].r);
                if (r < 0) {
                        assert_int_equal(rec.pid, 99); /* untouched */
                        continue;
                }
                assert_true(rec.valid);
                assert_int_equal(rec.pid, 42);
                assert_string_equal(rec.runtime_dir, table[i].rt);
                assert_string_equal(rec.state_dir, table[i].state_dir);
                assert_string_equal(rec.journal_dir, table[i].journal);
        }
        /* a NUL inside */
        assert_int_equal(daemon_lock_record_parse("fragd-lock 1\0pid", 16, &(LockRecord) { 0 }), -EBADMSG);
}

static void test_take_probe_release(void **state)
{
        TestTree *t = *state;
        DaemonLock *a = NULL, *b = NULL;
        LockRecord rec;
        struct stat st;
        char path[512], who[512];
        mode_t old;

        /* nothing there yet: free, no record */
        assert_int_equal(daemon_lock_probe(t->root, &rec), 0);
        assert_false(rec.valid);

        old = umask(0077); /* the unit's UMask= */
        assert_int_equal(daemon_lock_take(t->root, &a, &rec), 0);
        umask(old);
        assert_false(rec.valid);
        snprintf(path, sizeof(path), "%s/%s", t->dir, LOCK);
        assert_int_equal(lstat(path, &st), 0);
        assert_true(S_ISREG(st.st_mode));
        assert_int_equal(st.st_mode & 07777, 0644); /* `fragd status` as any user can ask */
        assert_int_equal(st.st_size, 0);            /* never written */

        assert_int_equal(daemon_lock_publish(a, "daemon", "/run/fragd-x", "/var/lib/fragd", NULL), 0);
        assert_non_null(strstr(tt_read(t, OWNER), "runtime_dir /run/fragd-x\n"));
        assert_non_null(strstr(tt_read(t, OWNER), "journal_dir /run/fragd-x\n"));

        /* held: a probe says so and names the holder, a second take fails */
        assert_int_equal(daemon_lock_probe(t->root, &rec), 1);
        assert_true(rec.valid);
        assert_int_equal(rec.pid, getpid());
        assert_string_equal(rec.mode, "daemon");
        assert_int_equal(daemon_lock_take(t->root, &b, &rec), -EBUSY);
        assert_null(b);
        assert_true(rec.valid);
        assert_string_equal(rec.runtime_dir, "/run/fragd-x");
        daemon_lock_describe(&rec, who, sizeof(who));
        snprintf(path, sizeof(path), "pid %d (", (int) getpid());
        assert_true(strncmp(who, path, strlen(path)) == 0);
        assert_non_null(strstr(who, "test-daemon-lock")); /* how it was started: its command line */
        assert_non_null(strstr(who, "runtime_dir /run/fragd-x"));

        /* released: free again, the record stays as a pointer */
        a = daemon_lock_free(a);
        assert_int_equal(daemon_lock_probe(t->root, &rec), 0);
        assert_true(rec.valid);
        assert_string_equal(rec.journal_dir, "/run/fragd-x");
        assert_int_equal(daemon_lock_take(t->root, &b, &rec), 0);
        assert_true(rec.valid); /* the last holder's record, for the next one */
        assert_string_equal(rec.journal_dir, "/run/fragd-x");
        b = daemon_lock_free(b);
}

/* A child holds it; killed with -9, the kernel releases it. */
static void test_holder_killed(void **state)
{
        TestTree *t = *state;
        DaemonLock *l = NULL;
        LockRecord rec;
        int ready[2], status;
        pid_t pid;
        char c;

        assert_int_equal(pipe(ready), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                DaemonLock *mine = NULL;

                (void) prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlives a failed test */
                close(ready[0]);
                if (daemon_lock_take(t->root, &mine, &rec) < 0 ||
                    daemon_lock_publish(mine, "dry-run", "/run/fragd", NULL, "/run/fragd-old") < 0 ||
                    write(ready[1], "k", 1) != 1)
                        _exit(1);
                pause();
                _exit(0);
        }
        close(ready[1]);
        assert_int_equal(read(ready[0], &c, 1), 1);
        close(ready[0]);
        assert_int_equal(daemon_lock_take(t->root, &l, &rec), -EBUSY);
        assert_int_equal(rec.pid, pid);
        assert_string_equal(rec.mode, "dry-run");
        assert_int_equal(daemon_lock_probe(t->root, &rec), 1);

        assert_int_equal(kill(pid, SIGKILL), 0);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_int_equal(daemon_lock_probe(t->root, &rec), 0);
        assert_int_equal(daemon_lock_take(t->root, &l, &rec), 0);
        assert_int_equal(rec.pid, pid); /* the pointer the dead one left */
        assert_string_equal(rec.journal_dir, "/run/fragd-old");
        l = daemon_lock_free(l);
}

/* Two at the same moment: exactly one gets it. */
static void test_race(void **state)
{
        TestTree *t = *state;
        pid_t pids[8];
        int got = 0, busy = 0, status, go[2], done[2], tried[2];
        char c = 0;

        /* every child tries at once (go), says it tried (tried), and holds
         * what it got until all have tried (done): the test does not
         * depend on how fast the children are forked or scheduled */
        assert_int_equal(pipe(go), 0);
        assert_int_equal(pipe(done), 0);
        assert_int_equal(pipe(tried), 0);
        for (unsigned i = 0; i < ELEMENTSOF(pids); i++) {
                pids[i] = fork();
                assert_true(pids[i] >= 0);
                if (pids[i] == 0) {
                        DaemonLock *l = NULL;
                        LockRecord rec;
                        int r;

                        close(go[1]);
                        close(done[1]);
                        close(tried[0]);
                        if (read(go[0], &c, 1) < 0)
                                _exit(3);
                        r = daemon_lock_take(t->root, &l, &rec);
                        if (write(tried[1], "t", 1) != 1)
                                _exit(3);
                        (void) !read(done[0], &c, 1); /* EOF: the parent saw every try */
                        _exit(r == 0 ? 0 : r == -EBUSY ? 1 : 2);
                }
        }
        close(go[0]);
        close(done[0]);
        close(tried[1]);
        close(go[1]); /* EOF: every child's read returns now */
        for (unsigned i = 0; i < ELEMENTSOF(pids); i++)
                assert_int_equal(read(tried[0], &c, 1), 1);
        close(done[1]);
        close(tried[0]);
        for (unsigned i = 0; i < ELEMENTSOF(pids); i++) {
                assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
                assert_true(WIFEXITED(status));
                got += WEXITSTATUS(status) == 0;
                busy += WEXITSTATUS(status) == 1;
        }
        assert_int_equal(got, 1);
        assert_int_equal(busy, (int) ELEMENTSOF(pids) - 1);
}

/* Not fragd's lock file: neither followed, nor blocked on, nor replaced. */
static void test_not_a_lock_file(void **state)
{
        TestTree *t = *state;
        DaemonLock *l = NULL;
        LockRecord rec;
        char path[512], victim[512];
        struct stat st;

        tt_mkdir(t, "run");
        tt_mkdir(t, "run/fragd");
        snprintf(path, sizeof(path), "%s/%s", t->dir, LOCK);
        snprintf(victim, sizeof(victim), "%s/victim", t->dir);
        tt_write(t, "victim", "precious\n");
        assert_int_equal(symlink(victim, path), 0);
        assert_int_equal(daemon_lock_take(t->root, &l, &rec), -ELOOP);
        assert_int_equal(daemon_lock_probe(t->root, &rec), -ELOOP);
        assert_string_equal(tt_read(t, "victim"), "precious\n");
        assert_int_equal(lstat(path, &st), 0);
        assert_true(S_ISLNK(st.st_mode));
        unlink(path);

        assert_int_equal(mkfifo(path, 0600), 0);
        assert_int_equal(daemon_lock_take(t->root, &l, &rec), -EBADFD);
        assert_int_equal(daemon_lock_probe(t->root, &rec), -EBADFD);
        unlink(path);

        assert_int_equal(mkdir(path, 0755), 0);
        assert_int_equal(daemon_lock_take(t->root, &l, &rec), -EBADFD);
        assert_null(l);
        rmdir(path);

        /* a record that is a symlink is not read */
        assert_int_equal(daemon_lock_take(t->root, &l, &rec), 0);
        assert_int_equal(daemon_lock_publish(l, "daemon", "/run/fragd", "", NULL), 0);
        l = daemon_lock_free(l);
        snprintf(path, sizeof(path), "%s/%s", t->dir, OWNER);
        unlink(path);
        tt_write(t, "victim", "fragd-lock 1\npid 42 7\nmode daemon\nruntime_dir /run/evil\njournal_dir /run/evil\n");
        assert_int_equal(symlink(victim, path), 0);
        assert_int_equal(daemon_lock_probe(t->root, &rec), 0);
        assert_false(rec.valid);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_record_parse),
                cmocka_unit_test_setup_teardown(test_take_probe_release, tt_open, tt_close),
                cmocka_unit_test_setup_teardown(test_holder_killed, tt_open, tt_close),
                cmocka_unit_test_setup_teardown(test_race, tt_open, tt_close),
                cmocka_unit_test_setup_teardown(test_not_a_lock_file, tt_open, tt_close),
        };

        log_set_max_level(getenv("FRAGD_TEST_VERBOSE") ? LOG_DEBUG : LOG_WARNING);
        return cmocka_run_group_tests(tests, NULL, NULL);
}
